//! Opening an input: a memory map for files, a plain read for stdin and pipes.
//!
//! The map lives behind this one type so the rest of grundy sees only `&[u8]`.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::{Advice, Mmap, UncheckedAdvice};

use crate::error::Error;

/// The name used for standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// The bytes of one input and the name to report it by.
#[derive(Debug)]
pub struct Input {
    name: String,
    data: Data,
    /// Bytes before this offset have been handed back to the kernel ([`Input::release_before`]).
    released: AtomicUsize,
}

/// Consumed input is handed back in steps of at least this many bytes.
const RELEASE_STEP: usize = 64 << 20;

#[derive(Debug)]
enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Input {
    /// Opens `path`, or stdin when it is `None` or `-`.
    pub fn open(path: Option<&Path>) -> Result<Input, Error> {
        match path {
            None => Input::stdin(),
            Some(p) if p.as_os_str() == "-" => Input::stdin(),
            Some(p) => Input::file(p),
        }
    }

    /// An input held in memory, reported as `name` (tests, fuzzing).
    pub fn from_bytes(name: &str, bytes: Vec<u8>) -> Input {
        Input { name: name.to_string(), data: Data::Owned(bytes), released: AtomicUsize::new(0) }
    }

    /// Reads all of stdin: a pipe cannot be mapped.
    pub fn stdin() -> Result<Input, Error> {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| Error::io(STDIN_NAME, "cannot read", e))?;
        Ok(Input::from_bytes(STDIN_NAME, bytes))
    }

    /// Maps the file at `path` read-only.
    pub fn file(path: &Path) -> Result<Input, Error> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(&name, "cannot open", e))?;
        let meta = file.metadata().map_err(|e| Error::io(&name, "cannot read", e))?;
        if meta.is_dir() {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "is a directory");
            return Err(Error::io(&name, "cannot read", e));
        }
        if !meta.is_file() || meta.len() == 0 {
            // FIFOs and character devices cannot be mapped; an empty map is an error on some
            // systems. Both are read instead.
            let mut bytes = Vec::new();
            (&file).read_to_end(&mut bytes).map_err(|e| Error::io(&name, "cannot read", e))?;
            return Ok(Input::from_bytes(&name, bytes));
        }
        // SAFETY: the map is read-only and private to this process. Another process truncating
        // or rewriting the file while grundy runs could change or remove the bytes under us
        // (SIGBUS on truncation); that is the accepted contract of every mmap-based tool
        // (ripgrep, xsv) and the user's to avoid. No reference into the map outlives `Input`.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(&name, "cannot map", e))?;
        // Advice only: a failure changes speed, never results.
        let _ = map.advise(Advice::Sequential);
        Ok(Input { name, data: Data::Mapped(map), released: AtomicUsize::new(0) })
    }

    /// Tells the kernel the mapped bytes before `offset` are not needed for now, so a file much
    /// larger than memory streams through with a bounded resident size. Reading them again
    /// (an error message's line and column) simply maps them again. A no-op for inputs in
    /// memory, and below `RELEASE_STEP` (64 MiB) of progress.
    pub fn release_before(&self, offset: usize) {
        let Data::Mapped(map) = &self.data else { return };
        let page = 4096;
        let end = offset.min(map.len()) / page * page;
        let start = self.released.load(Ordering::Relaxed);
        if end < start + RELEASE_STEP {
            return;
        }
        self.released.store(end, Ordering::Relaxed);
        // SAFETY: the map is a read-only, shared mapping of a file. MADV_DONTNEED drops the
        // pages of [start, end) from this process's page tables; the next access faults them
        // in again from the file (the page cache), with the same contents under the contract
        // `Input::file` already states (nobody modifies the file while grundy runs). No byte
        // observed through `bytes()` changes, so no reference is invalidated. The range lies
        // inside the map. A failure only leaves the pages mapped.
        let _ =
            unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start) };
    }

    /// The name to use in messages: the path as given, or `<stdin>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// All the input's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(map) => map,
            Data::Owned(bytes) => bytes,
        }
    }
}
