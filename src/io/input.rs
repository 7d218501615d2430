//! Opening an input: a memory map for files, a plain read for stdin and pipes, a decompressing
//! read for gzip and zstd files.
//!
//! The map lives behind this one type so the rest of grundy sees only `&[u8]`. A compressed
//! input is recognised by its magic bytes (whatever its name). Opened with
//! [`Input::open_streaming`] (the commands that read cases: `solve`, `values`, `stats`,
//! `query`, `index`), a pipe or a compressed input is a [`Stream`] that the case reader takes
//! and reads window by window as it arrives, so it costs its windows, never its whole text;
//! opened with [`Input::open`], it is read whole into memory. A UTF-8 byte-order mark at the
//! start of any input is not part of its text.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use memmap2::{Advice, Mmap, UncheckedAdvice};

use crate::io::error::IoError;
use crate::io::store::Pinned;

/// The name used for standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// The bytes of one input and the name to report it by.
#[derive(Debug)]
pub struct Input {
    name: String,
    /// Shared, so arrays read in place from it ([`crate::io::store::Store`]) keep it alive.
    data: Arc<Data>,
    /// Length of a byte-order mark at the start of `data` (0 or 3), not part of the text.
    bom: usize,
    /// Bytes before this offset have been handed back to the kernel ([`Input::release_before`]).
    released: AtomicUsize,
    /// A pipe or a decompressing read, until the one reader that reads it takes it
    /// ([`Input::take_stream`]); `data` then holds only the text's first bytes.
    stream: Mutex<Option<Stream>>,
    /// True for an input opened as a stream (even once its stream is taken).
    streamed: bool,
    /// The most tokens one query of this input may hold, when the user said
    /// ([`Input::with_max_query_tokens`]); else the readers' default.
    max_query_tokens: Option<u32>,
}

/// The text of a pipe or a compressed input, read as it arrives (after any byte-order mark).
pub struct Stream {
    reader: Box<dyn Read + Send>,
    /// What a failed read was doing, for its message: `cannot read` or `cannot decompress`.
    failing: &'static str,
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}

impl Stream {
    /// What a failed read was doing, for its message.
    pub fn failing(&self) -> &'static str {
        self.failing
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").field("failing", &self.failing).finish_non_exhaustive()
    }
}

/// Bytes of a stream's text looked at when it is opened: its byte-order mark and enough for
/// the magic number a caller tests ([`Input::open_streaming`]).
const PEEK: usize = 16;

/// The UTF-8 byte-order mark some editors put at the start of a text file.
const BOM: &[u8] = b"\xef\xbb\xbf";
/// How a gzip stream starts.
const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
/// How a zstd frame starts.
const ZSTD_MAGIC: &[u8] = b"\x28\xb5\x2f\xfd";

/// The compressions recognised by their first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compression {
    Gzip,
    Zstd,
}

impl Compression {
    fn of(start: &[u8]) -> Option<Compression> {
        if start.starts_with(GZIP_MAGIC) {
            Some(Compression::Gzip)
        } else if start.starts_with(ZSTD_MAGIC) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    /// A reader of what `reader` decompresses to. Concatenated gzip members (as `cat a.gz
    /// b.gz` makes) are read as one stream, as `zcat` reads them.
    fn decoder(self, reader: Box<dyn Read + Send>) -> std::io::Result<Box<dyn Read + Send>> {
        Ok(match self {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(reader)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(reader)?),
        })
    }
}

/// Consumed input is handed back in steps of at least this many bytes: small enough that a
/// file of nothing but blanks stays well under 64 MB resident, large enough that the calls
/// cost nothing against reading the bytes.
const RELEASE_STEP: usize = 16 << 20;

#[derive(Debug)]
enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Input {
    /// Opens `path`, or stdin when it is `None` or `-`: a regular file is mapped, anything
    /// else (stdin, a FIFO, a compressed file) read whole into memory.
    pub fn open(path: Option<&Path>) -> Result<Input, IoError> {
        Input::open_streaming(path, |_| true)
    }

    /// An input held in memory, reported as `name` (tests, fuzzing).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input::new(name.to_string(), Data::Owned(bytes))
    }

    fn new(name: String, data: Data) -> Input {
        let bom = match &data {
            Data::Mapped(map) => map.starts_with(BOM),
            Data::Owned(bytes) => bytes.starts_with(BOM),
        };
        let bom = if bom { BOM.len() } else { 0 };
        let (stream, streamed) = (Mutex::new(None), false);
        Input {
            name,
            data: Arc::new(data),
            bom,
            released: AtomicUsize::new(0),
            stream,
            streamed,
            max_query_tokens: None,
        }
    }

    /// This input, whose queries may hold at most `max` tokens each (a longer one is an error
    /// at its token count, read before its tokens are).
    pub fn with_max_query_tokens(self, max: u32) -> Input {
        Input { max_query_tokens: Some(max), ..self }
    }

    /// The most tokens one query of this input may hold, when it was said; `None` leaves it
    /// to the readers' default (`parse::walk::DEFAULT_MAX_QUERY`).
    pub fn max_query_tokens(&self) -> Option<u32> {
        self.max_query_tokens
    }

    /// Opens `path`, or stdin when it is `None` or `-`, as [`Input::open`] does, except that a
    /// pipe or a compressed input is a [`Stream`] read as it arrives: unless its first bytes
    /// (up to 16, after any byte-order mark) satisfy `whole`, which reads it whole (an index
    /// must be mapped or held whole).
    pub fn open_streaming(
        path: Option<&Path>,
        whole: impl Fn(&[u8]) -> bool,
    ) -> Result<Input, IoError> {
        let (name, raw): (String, Box<dyn Read + Send>) = match path {
            Some(p) if p.as_os_str() != "-" => {
                let name = p.display().to_string();
                let file = File::open(p).map_err(|e| IoError::file(&name, "cannot open", e))?;
                let meta = file.metadata().map_err(|e| IoError::file(&name, "cannot read", e))?;
                if meta.is_dir() {
                    let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory");
                    return Err(IoError::file(&name, "cannot read", e));
                }
                // FIFOs and character devices cannot be mapped; an empty map is an error on
                // some systems. Both are read as streams instead, as compressed files are.
                if meta.is_file() && meta.len() > 0 {
                    let mut magic = [0u8; 4];
                    let start = read_start(&file, &mut magic)
                        .map_err(|e| IoError::file(&name, "cannot read", e))?;
                    if Compression::of(start).is_none() {
                        return Input::map(name, &file);
                    }
                }
                (name, Box::new(std::io::BufReader::with_capacity(1 << 20, file)))
            }
            _ => (STDIN_NAME.to_string(), Box::new(std::io::stdin())),
        };
        Input::streaming(name, raw, whole)
    }

    /// The input `reader` gives, compressed or not, as a stream (tests, fuzzing).
    pub fn from_reader(name: &str, reader: Box<dyn Read + Send>) -> Result<Input, IoError> {
        Input::streaming(name.to_string(), reader, |_| false)
    }

    /// The input whose text `raw` holds, compressed or not, as a stream (or whole, as
    /// `whole` says of its first bytes).
    fn streaming(
        name: String,
        mut raw: Box<dyn Read + Send>,
        whole: impl Fn(&[u8]) -> bool,
    ) -> Result<Input, IoError> {
        let magic = peek(&mut raw, 4).map_err(|e| IoError::file(&name, "cannot read", e))?;
        let compression = Compression::of(&magic);
        let raw: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(magic).chain(raw));
        let (mut reader, failing) = match compression {
            Some(c) => {
                let failing = "cannot decompress";
                (c.decoder(raw).map_err(|e| IoError::file(&name, failing, e))?, failing)
            }
            None => (raw, "cannot read"),
        };
        let mut start = peek(&mut reader, PEEK).map_err(|e| IoError::file(&name, failing, e))?;
        let bom = if start.starts_with(BOM) { BOM.len() } else { 0 };
        if whole(&start[bom..]) {
            reader.read_to_end(&mut start).map_err(|e| IoError::file(&name, failing, e))?;
            return Ok(Input::from_bytes(&name, start));
        }
        let text = std::io::Cursor::new(start[bom..].to_vec()).chain(reader);
        let stream = Stream { reader: Box::new(text), failing };
        Ok(Input {
            stream: Mutex::new(Some(stream)),
            streamed: true,
            ..Input::from_bytes(&name, start)
        })
    }

    /// True for an input read as a [`Stream`]: its [`Input::bytes`] are only its first bytes.
    pub fn is_stream(&self) -> bool {
        self.streamed
    }

    /// The stream of an input opened as one, once: the reader that takes it reads it all.
    pub fn take_stream(&self) -> Option<Stream> {
        self.stream.lock().ok()?.take()
    }

    /// The length of the text in bytes, when it is known before it is read (not a stream's).
    pub fn len_hint(&self) -> Option<usize> {
        (!self.streamed).then(|| self.bytes().len())
    }

    /// The regular, non-empty, uncompressed file `file` (named `name`), mapped read-only.
    fn map(name: String, file: &File) -> Result<Input, IoError> {
        // SAFETY: memmap2 maps the file read-only and shared (MAP_SHARED): this process never
        // writes through the map, but the bytes are the page cache's, so another process that
        // rewrites the file while grundy runs changes them under the `&[u8]` we hand out, and
        // one that truncates it makes a read of the lost pages raise SIGBUS. A private map
        // would not help: pages not yet read would show the new contents all the same. What
        // is assumed, as every mmap-based tool assumes (ripgrep, xsv), is that nobody modifies
        // or truncates an input while grundy reads it; README's "Limits" says so to users. No
        // reference into the map outlives `Input`.
        let map = unsafe { Mmap::map(file) }.map_err(|e| IoError::file(&name, "cannot map", e))?;
        // Advice only: a failure changes speed, never results.
        let _ = map.advise(Advice::Sequential);
        // A file not yet in the page cache is then read into it in 2 MiB pieces where the
        // file system can hold them so (ext4, XFS on recent kernels), and every later map of
        // the file, this run's or another's, is made of 2 MiB pages: a 512th of the page
        // faults, and random reads (an index's lists) that miss the TLB far less.
        #[cfg(target_os = "linux")]
        let _ = map.advise(Advice::HugePage);
        Ok(Input::new(name, Data::Mapped(map)))
    }

    /// Tells the kernel the mapped bytes before `offset` are not needed for now, so a file much
    /// larger than memory streams through with a bounded resident size. Reading them again
    /// (an error message's line and column) simply maps them again. A no-op for inputs in
    /// memory, and below `RELEASE_STEP` (16 MiB) of progress.
    pub fn release_before(&self, offset: usize) {
        let Data::Mapped(map) = &*self.data else { return };
        let end = (self.bom + offset).min(map.len()) / PAGE * PAGE;
        let start = self.released.load(Ordering::Relaxed);
        if end < start + RELEASE_STEP {
            return;
        }
        self.released.store(end, Ordering::Relaxed);
        dont_need(map, start, end);
    }

    /// Tells the kernel the whole mapped pages inside `bytes()[start..end]` are not needed for
    /// now (a cluster worker's share, once read); as `release_before`, without its step.
    pub fn release(&self, start: usize, end: usize) {
        let Data::Mapped(map) = &*self.data else { return };
        let start = (self.bom + start).div_ceil(PAGE) * PAGE;
        let end = (self.bom + end).min(map.len()) / PAGE * PAGE;
        if start < end {
            dont_need(map, start, end);
        }
    }

    /// The name to use in messages: the path as given, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// All the input's bytes (after a byte-order mark, if it has one); for a stream
    /// ([`Input::is_stream`]), the first bytes only, looked at when it was opened.
    pub fn bytes(&self) -> &[u8] {
        &self.data.pinned()[self.bom..]
    }

    /// The owner of [`Input::bytes`], for arrays read from them in place, and where those
    /// bytes start in its own.
    pub fn owner(&self) -> (Arc<dyn Pinned>, usize) {
        (Arc::clone(&self.data) as Arc<dyn Pinned>, self.bom)
    }
}

impl Pinned for Data {
    fn pinned(&self) -> &[u8] {
        match self {
            Data::Mapped(map) => map,
            Data::Owned(bytes) => bytes,
        }
    }
}

/// The first `count` bytes `reader` gives (fewer at its end), read out of it.
fn peek(reader: &mut impl Read, count: usize) -> std::io::Result<Vec<u8>> {
    let mut start = Vec::with_capacity(count);
    reader.take(count as u64).read_to_end(&mut start)?;
    Ok(start)
}

/// Reads the first bytes of `file` (up to `buf`'s length) with positioned reads, leaving the
/// file's cursor where it was.
fn read_start<'b>(file: &File, buf: &'b mut [u8]) -> std::io::Result<&'b [u8]> {
    let mut filled = 0;
    while filled < buf.len() {
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(file, &mut buf[filled..], filled as u64)?;
        #[cfg(not(unix))]
        let n = std::os::windows::fs::FileExt::seek_read(file, &mut buf[filled..], filled as u64)?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(&buf[..filled])
}

/// The page size the releases round to (a multiple of it works as well).
const PAGE: usize = 4096;

/// Drops the pages of `[start, end)` (page-aligned, inside the map) from this process.
fn dont_need(map: &Mmap, start: usize, end: usize) {
    // SAFETY: the map is a read-only, shared mapping of a file. MADV_DONTNEED drops the pages
    // of [start, end) from this process's page tables; the next access faults them in again
    // from the file (the page cache), with the same contents under the contract `Input::file`
    // already states (nobody modifies the file while grundy runs). No byte observed through
    // `bytes()` changes, so no reference is invalidated. Callers keep the range inside the
    // map. A failure only leaves the pages mapped.
    let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_text() {
        assert_eq!(Input::from_bytes("x", b"\xef\xbb\xbf1 0\n".to_vec()).bytes(), b"1 0\n");
        assert_eq!(Input::from_bytes("x", b"\xef\xbb".to_vec()).bytes(), b"\xef\xbb");
    }

    #[test]
    fn gzip_and_zstd_are_recognised_by_their_first_bytes() {
        use std::io::Write;
        let text = b"2\n1 1\n0\n1 0\n".repeat(1000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        let zst = zstd::stream::encode_all(&text[..], 1).unwrap();
        for packed in [gz, zst] {
            let compression = Compression::of(&packed).expect("recognised");
            let mut read = Vec::new();
            compression
                .decoder(Box::new(std::io::Cursor::new(packed)))
                .unwrap()
                .read_to_end(&mut read)
                .unwrap();
            assert_eq!(read, text);
        }
        assert_eq!(Compression::of(b"1 0"), None);
    }
}
