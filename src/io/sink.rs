//! Writing results: to stdout, or to a file that appears only when the whole run succeeded.
//! A pipe closed by its reader stops that output only (see [`Sink`]).
//!
//! A file output is written to a temporary file in the target's folder (same file system, so
//! the final rename is atomic) and renamed over the target by [`Sink::finish`]. A run that fails
//! drops the sink, which deletes the temporary file: an existing target is left untouched and no
//! half-written file is ever presented as complete.
//!
//! A run killed outright (SIGKILL, a machine that stopped) removes nothing: its temporary
//! file is named with the machine and the process (`.grundy-PID-HOST-XXXXXX.tmp`), and the
//! next run that writes into the folder removes the ones whose process is gone
//! ([`remove_orphans`]).

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::progress::Progress;

/// Name used for standard output in messages.
pub const STDOUT_NAME: &str = "<stdout>";

/// Buffer size: a million one-line answers take a few hundred system calls.
const BUFFER: usize = 1 << 16;

/// Something a command writes its output to: a [`Sink`], or a plain buffer (tests, fuzzing).
pub trait Put {
    /// Writes all of `bytes`.
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError>;

    /// True when nobody reads this output any more (a pipe closed by its reader).
    fn is_closed(&self) -> bool {
        false
    }

    /// The output's name in messages.
    fn name(&self) -> &str {
        "<output>"
    }

    /// Writes all of `bytes`, a block large enough that a file sink copies it into the file by
    /// every thread ([`Sink::put_large`]); elsewhere the same as [`Put::put`].
    fn put_large(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.put(bytes)
    }
}

impl Put for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

impl Put for Sink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        Sink::put(self, bytes)
    }

    fn is_closed(&self) -> bool {
        Sink::is_closed(self)
    }

    fn put_large(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        Sink::put_large(self, bytes)
    }

    fn name(&self) -> &str {
        Sink::name(self)
    }
}

/// Stops the run early (quietly, exit code 0) when no output is read any more: every pipe
/// among `outputs` has been closed by its reader, and there is no file left to finish.
pub fn stop_if_all_closed(outputs: &[&dyn Put]) -> Result<(), IoError> {
    if outputs.iter().all(|o| o.is_closed()) {
        return Err(IoError::OutputClosed);
    }
    Ok(())
}

/// Where a command's output goes, and whether its reader has gone.
///
/// A pipe whose reader has closed it (`grundy solve big.txt --report r.csv | head -1`) is not
/// a failure: the sink becomes *closed* and drops what is written to it from then on, so the
/// run goes on for the outputs still wanted (the report); a command stops early only when
/// every output it has is closed ([`IoError::OutputClosed`]).
pub struct Sink {
    kind: Kind,
    name: String,
    closed: bool,
}

enum Kind {
    /// Standard output, buffered; writes suspend the progress bar when there is one.
    Stdout(BufWriter<Terminal>),
    /// A path that is not a regular file (`/dev/null`, a FIFO): written in place, since
    /// renaming a file over it would replace the device or pipe itself.
    Special(BufWriter<std::fs::File>),
    /// No output: every line is compared with the next line of an expected output
    /// (`solve --check`).
    Check(Checker),
    /// A temporary file to be renamed to `target` on success.
    File {
        /// The temporary file, buffered.
        temp: BufWriter<tempfile::NamedTempFile>,
        /// The path the user asked for.
        target: PathBuf,
    },
}

/// The pipe buffer asked for when standard output is a pipe ([`widen_pipe`]).
const PIPE_BUFFER: libc::c_int = 1 << 20;

/// Asks for a pipe buffer of [`PIPE_BUFFER`] when standard output is a pipe, where Linux
/// gives 64 KiB: each full buffer stops the writer until the reader has drained it, so tens of
/// megabytes of answers cost thousands of such turns between the two processes on their
/// cores. 1 MiB is what any user may ask for (`/proc/sys/fs/pipe-max-size`); a pipe that
/// already has more keeps it, and a refusal changes nothing (it is only a hint).
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    {
        let fd = libc::STDOUT_FILENO;
        // SAFETY: fstat writes into the zeroed `stat` it is given, and only reads the fd;
        // F_GETPIPE_SZ and F_SETPIPE_SZ take an int and change nothing but the pipe's
        // buffer size. A closed or non-pipe fd fails both harmlessly.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFIFO {
                return;
            }
            if libc::fcntl(fd, libc::F_GETPIPE_SZ) < PIPE_BUFFER {
                libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BUFFER);
            }
        }
    }
}

/// Standard output, with the progress bar (if any) cleared around each write, so that
/// answers printed on the bar's terminal are never drawn over. Stdout itself rather than its
/// lock, so that a sink can move to another thread (a Parquet writer asks for `Send`); it
/// is locked once per write of the 64 KiB buffer, which is nothing.
struct Terminal {
    out: io::Stdout,
    bar: Option<indicatif::ProgressBar>,
}

impl Write for Terminal {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.bar {
            Some(bar) => bar.suspend(|| self.out.write(buf)),
            None => self.out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Sink {
    /// Stdout when `path` is `None` or `-`, else a temporary file beside `path`.
    pub fn open(path: Option<&Path>) -> Result<Sink, IoError> {
        let Some(p) = path.filter(|p| p.as_os_str() != "-") else {
            return Ok(Sink::stdout(None));
        };
        let name = p.display().to_string();
        let sink = |kind| Sink { kind, name: name.clone(), closed: false };
        if std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
            if std::fs::metadata(p).is_ok_and(|m| m.is_dir()) {
                let e = io::Error::new(io::ErrorKind::InvalidInput, "is a directory");
                return Err(IoError::file(&name, "cannot write", e));
            }
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(p)
                .map_err(|e| IoError::file(&name, "cannot open", e))?;
            return Ok(sink(Kind::Special(BufWriter::with_capacity(BUFFER, file))));
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        remove_orphans(dir);
        let prefix = temp_prefix();
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // A new file gets the mode any program's new file gets (0666 less the umask) rather
        // than the 0600 of a private temporary file; a replaced file keeps its own.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(p).map_or(0o666, |m| m.permissions().mode());
            builder.permissions(std::fs::Permissions::from_mode(mode));
        }
        let temp = builder
            .tempfile_in(dir)
            .map_err(|e| IoError::file(&name, "cannot create", without_path(e)))?;
        // Dropped on failure, the file is deleted; the stale entry is harmless.
        crate::io::signals::register(temp.path().to_path_buf());
        let temp = BufWriter::with_capacity(BUFFER, temp);
        Ok(sink(Kind::File { temp, target: p.to_path_buf() }))
    }

    /// A sink that writes nothing and compares every line with the next line of `expected`,
    /// failing at the first that differs ([`IoError::Differs`]); [`Sink::finish`] fails if
    /// `expected` has lines left. Lines are equal when they are equal without their trailing
    /// spaces, tabs and carriage returns (as judges compare), and blank lines at the end of
    /// `expected` are ignored.
    pub fn check(expected: Input) -> Sink {
        let name = expected.name().to_string();
        let checker = Checker { expected, at: 0, line: 1, pending: Vec::new() };
        Sink { kind: Kind::Check(checker), name, closed: false }
    }

    /// Standard output; writes clear `progress`'s bar first when given.
    pub fn stdout(progress: Option<&Progress>) -> Sink {
        widen_pipe();
        let out = Terminal { out: io::stdout(), bar: progress.and_then(Progress::handle) };
        let kind = Kind::Stdout(BufWriter::with_capacity(BUFFER, out));
        Sink { kind, name: STDOUT_NAME.to_string(), closed: false }
    }

    /// [`Sink::open`], with stdout suspending `progress`'s bar around its writes.
    pub fn open_beside(path: Option<&Path>, progress: &Progress) -> Result<Sink, IoError> {
        match path.filter(|p| p.as_os_str() != "-") {
            None => Ok(Sink::stdout(Some(progress))),
            some => Sink::open(some),
        }
    }

    /// The name to use in messages: the path the user gave, or `<stdout>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True once the reader of a pipe has gone: what is written is dropped.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Writes all of `bytes`, naming the sink in the error. A pipe closed by its reader
    /// closes the sink instead of failing.
    pub fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        if self.closed {
            return Ok(());
        }
        if let Kind::Check(checker) = &mut self.kind {
            return checker.compare(bytes);
        }
        let result = self.write_all(bytes);
        self.settle(result)
    }

    /// [`Sink::put`] for a large block: into a file, 8 MiB or more are copied into
    /// the file through a shared memory map of it, by every thread, instead of one `write`.
    /// The page cache's new pages are what such a write costs (on the machine of
    /// BENCHMARKS.md, a 470 MB `write` took 1.0 s, two threads through a map 0.5 s), and
    /// filling them is work the threads share, where one `write` is one thread's. Falls back
    /// to [`Sink::put`] where the file's blocks cannot be reserved first or the map fails.
    pub fn put_large(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        let Kind::File { temp, .. } = &mut self.kind else {
            return self.put(bytes);
        };
        if bytes.len() < LARGE {
            return self.put(bytes);
        }
        match copy_through_map(temp, bytes, WINDOW) {
            Ok(true) => Ok(()),
            Ok(false) => self.put(bytes),
            Err(e) => Err(IoError::file(&self.name, "cannot write", e)),
        }
    }

    /// Flushes, and for a file renames the temporary file over the target.
    pub fn finish(mut self) -> Result<(), IoError> {
        let name = self.name.clone();
        match self.kind {
            Kind::Check(mut checker) => checker.end(),
            Kind::Stdout(_) | Kind::Special(_) => {
                if self.closed {
                    return Ok(());
                }
                let result = self.flush();
                self.settle(result)
            }
            Kind::File { temp, target } => {
                let temp = temp.into_inner().map_err(|e| {
                    let (e, _) = e.into_parts();
                    IoError::file(&name, "cannot write", e)
                })?;
                temp.as_file().sync_all().map_err(|e| IoError::file(&name, "cannot write", e))?;
                let path = temp.path().to_path_buf();
                let persisted = temp.persist(&target);
                crate::io::signals::unregister(&path);
                persisted.map_err(|e| {
                    IoError::file(&name, "cannot rename onto", without_path(e.error))
                })?;
                Ok(())
            }
        }
    }

    /// The outcome of a write: a broken pipe closes a stdout or special sink.
    fn settle(&mut self, result: io::Result<()>) -> Result<(), IoError> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && !self.is_file() => {
                self.closed = true;
                Ok(())
            }
            Err(e) => Err(IoError::file(&self.name, "cannot write", e)),
            Ok(()) => Ok(()),
        }
    }

    fn is_file(&self) -> bool {
        matches!(self.kind, Kind::File { .. })
    }
}

/// The start of this process's temporary files' names: `.grundy-PID-HOST-`, then tempfile's
/// random characters and `.tmp`. HOST is the machine's name (its characters other than
/// letters, digits, `.` and `-` made `_`), so that a folder shared over the network never
/// sees one machine's live run judged by another's processes.
fn temp_prefix() -> String {
    format!(".grundy-{}-{}-", std::process::id(), host())
}

/// This machine's name as temporary files carry it ([`temp_prefix`]); `unknown` where it has
/// none to give.
fn host() -> String {
    #[cfg(unix)]
    {
        let mut name = [0u8; 256];
        // SAFETY: gethostname writes at most `name.len()` bytes into the buffer it is given.
        let got = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) };
        let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        if got == 0 && end > 0 {
            let keep = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-');
            return name[..end].iter().map(|b| if keep(b) { *b as char } else { '_' }).collect();
        }
    }
    "unknown".to_string()
}

/// The folders this process has already cleared of orphans: once each is enough (`octal`
/// writes its checkpoint into the same folder every few minutes).
static CLEARED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Removes from `dir` the temporary files of this machine's runs that no longer exist (a run
/// killed by SIGKILL leaves its file; SIGINT, SIGTERM and SIGHUP remove it, see
/// [`crate::io::signals`]), once per folder per process. A file is an orphan when its name
/// is a temporary file's (`.grundy-PID-HOST-XXXXXX.tmp`) with this machine's name, and no
/// process has its PID (`kill(pid, 0)` fails with ESRCH): a live run's file is never
/// touched, whoever runs it.
/// Where the PID has been given to another process since, the orphan stays until that one
/// is gone too. Files of other machines, of earlier grundys (`.grundy-XXXXXX.tmp`, no PID)
/// and any other name are left alone; so is a file that cannot be removed (another user's,
/// in a shared folder).
pub fn remove_orphans(dir: &Path) {
    #[cfg(unix)]
    {
        let mut cleared = CLEARED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cleared.iter().any(|d| d == dir) {
            return;
        }
        cleared.push(dir.to_path_buf());
        drop(cleared);
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let host = host();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|n| orphan_pid(n, &host)) else { continue };
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && !is_alive(pid) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The PID in `name` when it is a temporary file's name as [`temp_prefix`] makes them on the
/// machine called `host`: `.grundy-PID-HOST-XXXXXX.tmp`, PID a positive process id.
#[cfg(unix)]
fn orphan_pid(name: &str, host: &str) -> Option<libc::pid_t> {
    let rest = name.strip_prefix(".grundy-")?.strip_suffix(".tmp")?;
    let (pid, rest) = rest.split_once('-')?;
    let (their_host, random) = rest.rsplit_once('-')?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    let random_ok = !random.is_empty() && random.bytes().all(|b| b.is_ascii_alphanumeric());
    if !digits || !random_ok || their_host != host {
        return None;
    }
    // 0 and negative numbers name process groups to kill(): never one of those.
    pid.parse::<libc::pid_t>().ok().filter(|&p| p > 0)
}

/// False only when no process has the id `pid` (a process of another user is alive: kill
/// then fails with EPERM).
#[cfg(unix)]
fn is_alive(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing: kill only checks that the process exists and may be
    // signalled; `pid` is positive, so it names one process, never a group.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Blocks at least this large go to a file through a map ([`Sink::put_large`]).
const LARGE: usize = 8 << 20;

/// The pieces each thread copies into the map at a time.
const PIECE: usize = 1 << 20;

/// Appends `bytes` to the temporary file `temp` through shared maps of its end, `window`
/// bytes at a time (so that no more of the file is mapped, and counted in the process's
/// resident memory, at once), copied in pieces by the rayon threads; false (nothing written)
/// where the blocks cannot be reserved, and the caller writes instead.
fn copy_through_map(
    temp: &mut BufWriter<tempfile::NamedTempFile>,
    bytes: &[u8],
    window: usize,
) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    temp.flush()?;
    let file = temp.get_mut().as_file_mut();
    let at = file.stream_position()?;
    let end = at + bytes.len() as u64;
    if !reserve(file, at, bytes.len())? {
        return Ok(false);
    }
    let mut done = 0;
    while done < bytes.len() {
        let step = (bytes.len() - done).min(window);
        if !copy_window(file, at + done as u64, &bytes[done..done + step]) {
            // The map failed: the rest is written (the blocks stay reserved).
            file.seek(SeekFrom::Start(at + done as u64))?;
            file.write_all(&bytes[done..])?;
            return Ok(true);
        }
        start_writeback(file, at + done as u64, step);
        done += step;
    }
    file.seek(SeekFrom::Start(end))?;
    Ok(true)
}

/// Starts writing `[at, at + len)` of `file` to its disk, without waiting: the bytes must be
/// on the disk before the file is renamed ([`Sink::finish`] syncs it), and the disk can take
/// them while the rest is produced instead of all at the end.
#[cfg(target_os = "linux")]
fn start_writeback(file: &std::fs::File, at: u64, len: usize) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (libc::off64_t::try_from(at), libc::off64_t::try_from(len)) else {
        return;
    };
    // SAFETY: sync_file_range reads its integer arguments only; the descriptor is `file`'s,
    // alive for the call. Advice only: a failure leaves the sync at the end to do it all.
    unsafe { libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE) };
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_: &std::fs::File, _: u64, _: usize) {}

/// The bytes of a file [`Sink::put_large`] maps at once.
const WINDOW: usize = 32 << 20;

/// Copies `bytes` into `file` at `at` (reserved blocks) through a shared map, by the rayon
/// threads; false when the map fails.
fn copy_window(file: &std::fs::File, at: u64, bytes: &[u8]) -> bool {
    use rayon::prelude::*;
    // A multiple of every page size Linux uses (4, 16 and 64 KiB), as a map's offset must be.
    let base = at & !0xffff;
    let skip = (at - base) as usize;
    // SAFETY: the map is shared and writable over `[base, at + len)` of our own temporary
    // file, created by this process under a new random name (tempfile opens it with O_EXCL)
    // and written by nothing else; the blocks of `[at, at + len)` are reserved (fallocate),
    // so a write through the map cannot meet a full disk (which would raise SIGBUS), and
    // `[base, at)` holds bytes this process wrote and flushed. The map, and every reference
    // into it, is dropped before this function returns. What remains assumed, as for inputs,
    // is that no other process truncates the file meanwhile (README's "Limits").
    let map =
        unsafe { memmap2::MmapOptions::new().offset(base).len(skip + bytes.len()).map_mut(file) };
    let Ok(mut map) = map else {
        return false;
    };
    map[skip..]
        .par_chunks_mut(PIECE)
        .zip(bytes.par_chunks(PIECE))
        .for_each(|(to, from)| to.copy_from_slice(from));
    true
}

/// Reserves the blocks of `[at, at + len)` of `file` (extending it): true once reserved,
/// false where the file system (or the system) cannot, so the bytes are written instead; an
/// error for a full disk, which a write would meet as well.
#[cfg(target_os = "linux")]
fn reserve(file: &std::fs::File, at: u64, len: usize) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (libc::off_t::try_from(at), libc::off_t::try_from(len)) else {
        return Ok(false);
    };
    // SAFETY: fallocate reads its integer arguments only; the descriptor is `file`'s, open
    // for writing and alive for the call.
    if unsafe { libc::fallocate(file.as_raw_fd(), 0, offset, len) } == 0 {
        return Ok(true);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EFBIG) | Some(libc::EDQUOT) => Err(e),
        _ => Ok(false),
    }
}

/// Elsewhere the bytes are written, never mapped.
#[cfg(not(target_os = "linux"))]
fn reserve(_: &std::fs::File, _: u64, _: usize) -> io::Result<bool> {
    Ok(false)
}

/// `e` without the temporary file's name that tempfile adds to its errors (`... at path
/// "dir/.grundy-XXXX.tmp"`): messages name the path the user gave, never the temporary one.
fn without_path(e: io::Error) -> io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let text = e.to_string();
    match text.rsplit_once(" at path ") {
        Some((reason, _)) => io::Error::new(e.kind(), reason.to_string()),
        None => e,
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.kind {
            Kind::Check(_) => Ok(buf.len()),
            Kind::Stdout(out) => out.write(buf),
            Kind::Special(file) => file.write(buf),
            Kind::File { temp, .. } => temp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.kind {
            Kind::Check(_) => Ok(()),
            Kind::Stdout(out) => out.write_all(buf),
            Kind::Special(file) => file.write_all(buf),
            Kind::File { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.kind {
            Kind::Check(_) => Ok(()),
            Kind::Stdout(out) => out.flush(),
            Kind::Special(file) => file.flush(),
            Kind::File { temp, .. } => temp.flush(),
        }
    }
}

/// The state of `solve --check`: the expected output, where its next line starts, that line's
/// number, and the bytes of an answer line not yet complete.
struct Checker {
    expected: Input,
    at: usize,
    line: usize,
    pending: Vec<u8>,
}

/// Characters of a line shown in a message: a line longer than this is cut, marked `...`.
const SHOWN: usize = 80;

impl Checker {
    /// Compares every complete line of `bytes` (and of what was pending) with the expected
    /// ones.
    fn compare(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.pending.extend_from_slice(bytes);
        let pending = std::mem::take(&mut self.pending);
        let mut rest = &pending[..];
        while let Some(end) = memchr_newline(rest) {
            self.compare_line(&rest[..end])?;
            rest = &rest[end + 1..];
        }
        self.pending = rest.to_vec();
        Ok(())
    }

    fn compare_line(&mut self, answer: &[u8]) -> Result<(), IoError> {
        let bytes = self.expected.bytes();
        if self.at >= bytes.len() {
            let message =
                format!("the file ends here, but the answers go on with {}", shown(answer));
            return Err(self.differs(message));
        }
        let end = memchr_newline(&bytes[self.at..]).map_or(bytes.len(), |e| self.at + e);
        let expected = &bytes[self.at..end];
        if trimmed(expected) != trimmed(answer) {
            let message =
                format!("the answer is {} where the file has {}", shown(answer), shown(expected));
            return Err(self.differs(message));
        }
        self.at = end + 1;
        self.line += 1;
        Ok(())
    }

    /// The last answer line (without a newline), then nothing but blank lines may be left.
    fn end(&mut self) -> Result<(), IoError> {
        if !self.pending.is_empty() {
            let last = std::mem::take(&mut self.pending);
            self.compare_line(&last)?;
        }
        let bytes = self.expected.bytes();
        let rest = &bytes[self.at.min(bytes.len())..];
        match rest.split(|&b| b == b'\n').find(|l| !trimmed(l).is_empty()) {
            None => Ok(()),
            Some(left) => {
                let blank = rest.split(|&b| b == b'\n').take_while(|l| trimmed(l).is_empty());
                self.line += blank.count();
                let message =
                    format!("the answers end here, but the file goes on with {}", shown(left));
                Err(self.differs(message))
            }
        }
    }

    fn differs(&self, message: String) -> IoError {
        IoError::Differs { path: self.expected.name().to_string(), line: self.line, message }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// A line without its trailing spaces, tabs and carriage returns.
fn trimmed(line: &[u8]) -> &[u8] {
    let keep = line.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'\r')).map_or(0, |i| i + 1);
    &line[..keep]
}

/// A line as a message shows it: quoted, cut after [`SHOWN`] characters.
fn shown(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(trimmed(line));
    let cut: String = text.chars().take(SHOWN).collect();
    let more = if cut.len() < text.len() { "..." } else { "" };
    format!("`{cut}{more}`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expected: &[u8], answers: &[&[u8]]) -> Result<(), String> {
        let mut sink = Sink::check(Input::from_bytes("want.txt", expected.to_vec()));
        for piece in answers {
            sink.put(piece).map_err(|e| e.to_string())?;
        }
        sink.finish().map_err(|e| e.to_string())
    }

    /// Bytes that show where each came from: a piece out of place, or a window copied twice
    /// or not at all, changes them.
    fn numbered(len: usize, seed: u64) -> Vec<u8> {
        let mut rng = crate::testing::Xorshift::new(seed);
        (0..len).map(|_| rng.below(256) as u8).collect()
    }

    #[test]
    fn blocks_copied_through_maps_land_where_writes_would() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let file = tempfile::NamedTempFile::new_in(dir.path()).expect("a temporary file");
        let mut temp = BufWriter::with_capacity(BUFFER, file);
        let mut want = Vec::new();
        // Offsets that are not a page's (the map starts below them), windows of odd sizes
        // and of more than a piece, blocks shorter than a window and longer than several.
        let sizes =
            [(7, 1000), (300_001, 65_537), (65_536, 65_536), (2_500_000, 1_048_583), (1, 3)];
        for (k, &(len, window)) in sizes.iter().enumerate() {
            let small = numbered(13 + k, k as u64 + 1);
            temp.write_all(&small).expect("a buffered write");
            want.extend_from_slice(&small);
            let block = numbered(len, k as u64 + 100);
            match copy_through_map(&mut temp, &block, window) {
                Ok(true) => {}
                // A file system that cannot reserve blocks: the sink writes instead.
                Ok(false) => temp.write_all(&block).expect("a write"),
                Err(e) => panic!("block {k}: {e}"),
            }
            want.extend_from_slice(&block);
        }
        temp.write_all(b"end").expect("a buffered write");
        want.extend_from_slice(b"end");
        let file = temp.into_inner().map_err(|e| e.into_error()).expect("flushed");
        let got = std::fs::read(file.path()).expect("read back");
        assert_eq!(got.len(), want.len());
        assert!(got == want, "the file differs from the bytes written");
    }

    #[test]
    fn a_large_block_through_a_file_sink_is_the_file_after_finish() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("out.bin");
        let mut sink = Sink::open(Some(&path)).expect("a file sink");
        let (head, block) = (numbered(5, 1), numbered(LARGE + 4099, 2));
        sink.put(&head).expect("a write");
        sink.put_large(&block).expect("a large write");
        sink.put_large(b"tail").expect("a small block, written");
        assert!(!path.exists(), "the file appears only once finished");
        sink.finish().expect("finished");
        let got = std::fs::read(&path).expect("read back");
        assert!(got == [&head[..], &block[..], b"tail"].concat(), "the file differs");
    }

    /// Only names of the form `.grundy-PID-HOST-XXXXXX.tmp`, of this host, with a PID that
    /// names one process, are orphans to look at; a host with dashes in its name is one.
    #[cfg(unix)]
    #[test]
    fn orphans_are_named_with_their_pid_and_host() {
        let host = "build-3.lan";
        assert_eq!(orphan_pid(".grundy-4242-build-3.lan-aB3xYz.tmp", host), Some(4242));
        for name in [
            ".grundy-4242-other-aB3xYz.tmp",
            ".grundy-aB3xYz.tmp",
            ".grundy-0-build-3.lan-aB3xYz.tmp",
            ".grundy--1-build-3.lan-aB3xYz.tmp",
            ".grundy-99999999999-build-3.lan-aB3xYz.tmp",
            ".grundy-4242-build-3.lan-.tmp",
            ".grundy-4242-build-3.lan-aB3xYz.csv",
            "grundy-4242-build-3.lan-aB3xYz.tmp",
            ".grundy-42a-build-3.lan-aB3xYz.tmp",
        ] {
            assert_eq!(orphan_pid(name, host), None, "{name}");
        }
        let ours = format!("{}{}.tmp", temp_prefix(), "q1W2e3");
        assert_eq!(orphan_pid(&ours, &super::host()), Some(std::process::id() as libc::pid_t));
        assert!(is_alive(std::process::id() as libc::pid_t));
    }

    #[test]
    fn answers_are_checked_line_by_line_as_judges_compare() {
        assert_eq!(check(b"WIN\nLOSE\n", &[b"WIN\nLO", b"SE\n"]), Ok(()));
        assert_eq!(check(b"WIN \r\nLOSE", &[b"WIN\nLOSE\n"]), Ok(()), "trailing blanks");
        assert_eq!(check(b"WIN\n\n\n", &[b"WIN\n"]), Ok(()), "blank lines at the end");
        assert_eq!(check(b"", &[]), Ok(()));
        assert_eq!(
            check(b"WIN\nLOSE\nWIN\n", &[b"WIN\nWIN\nWIN\n"]),
            Err("want.txt:2: the answer is `WIN` where the file has `LOSE`".into())
        );
        assert_eq!(
            check(b"WIN\n", &[b"WIN\nLOSE\n"]),
            Err("want.txt:2: the file ends here, but the answers go on with `LOSE`".into())
        );
        assert_eq!(
            check(b"WIN\n\nLOSE\n", &[b"WIN\n"]),
            Err("want.txt:3: the answers end here, but the file goes on with `LOSE`".into())
        );
        assert_eq!(
            check(b" WIN\n", &[b"WIN\n"]),
            Err("want.txt:1: the answer is `WIN` where the file has ` WIN`".into()),
            "leading spaces count"
        );
        let long = [b'x'; 200];
        let message = check(&long, &[b"y\n"]).unwrap_err();
        assert!(message.ends_with(&format!("`{}...`", "x".repeat(80))), "{message}");
    }
}
