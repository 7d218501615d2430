//! Writing results: to stdout, or to a file that appears only when the whole run succeeded.
//!
//! A file output is written to a temporary file in the target's folder (same file system, so
//! the final rename is atomic) and renamed over the target by [`Sink::finish`]. A run that fails
//! drops the sink, which deletes the temporary file: an existing target is left untouched and no
//! half-written file is ever presented as complete.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// Name used for standard output in messages.
pub const STDOUT_NAME: &str = "<stdout>";

/// Buffer size: a million one-line answers take a few hundred system calls.
const BUFFER: usize = 1 << 16;

/// Something a command writes its output to: a [`Sink`], or a plain buffer (tests, fuzzing).
pub trait Put {
    /// Writes all of `bytes`.
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error>;
}

impl Put for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

impl Put for Sink {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        Sink::put(self, bytes)
    }
}

/// Where a command's main output goes.
pub enum Sink {
    /// Standard output, buffered.
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A path that is not a regular file (`/dev/null`, a FIFO): written in place, since
    /// renaming a file over it would replace the device or pipe itself.
    Special {
        /// The opened path, buffered.
        file: BufWriter<std::fs::File>,
        /// The path the user asked for.
        target: PathBuf,
    },
    /// A temporary file to be renamed to `target` on success.
    File {
        /// The temporary file, buffered.
        temp: BufWriter<tempfile::NamedTempFile>,
        /// The path the user asked for.
        target: PathBuf,
    },
}

impl Sink {
    /// Stdout when `path` is `None` or `-`, else a temporary file beside `path`.
    pub fn open(path: Option<&Path>) -> Result<Sink, Error> {
        match path {
            Some(p) if p.as_os_str() != "-" => {
                let name = p.display().to_string();
                if std::fs::metadata(p).is_ok_and(|m| !m.is_file()) {
                    if std::fs::metadata(p).is_ok_and(|m| m.is_dir()) {
                        let e = io::Error::new(io::ErrorKind::InvalidInput, "is a directory");
                        return Err(Error::io(&name, "cannot write", e));
                    }
                    let file = std::fs::OpenOptions::new()
                        .write(true)
                        .open(p)
                        .map_err(|e| Error::io(&name, "cannot open", e))?;
                    let file = BufWriter::with_capacity(BUFFER, file);
                    return Ok(Sink::Special { file, target: p.to_path_buf() });
                }
                let dir = match p.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                let mut builder = tempfile::Builder::new();
                builder.prefix(".grundy-").suffix(".tmp");
                // A new file gets the mode any program's new file gets (0666 less the umask)
                // rather than the 0600 of a private temporary file; a replaced file keeps its own.
                #[cfg(unix)]
                {
                    use std::os::unix::fs::PermissionsExt;
                    let mode = std::fs::metadata(p).map_or(0o666, |m| m.permissions().mode());
                    builder.permissions(std::fs::Permissions::from_mode(mode));
                }
                let temp =
                    builder.tempfile_in(dir).map_err(|e| Error::io(&name, "cannot create", e))?;
                // Dropped on failure, the file is deleted; the stale entry is harmless.
                crate::signals::register(temp.path().to_path_buf());
                Ok(Sink::File {
                    temp: BufWriter::with_capacity(BUFFER, temp),
                    target: p.to_path_buf(),
                })
            }
            _ => Ok(Sink::Stdout(BufWriter::with_capacity(BUFFER, io::stdout().lock()))),
        }
    }

    /// The name to use in messages.
    pub fn name(&self) -> String {
        match self {
            Sink::Stdout(_) => STDOUT_NAME.to_string(),
            Sink::File { target, .. } | Sink::Special { target, .. } => {
                target.display().to_string()
            }
        }
    }

    /// Writes all of `bytes`, naming the sink in the error.
    pub fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.write_all(bytes).map_err(|e| Error::io(&self.name(), "cannot write", e))
    }

    /// Flushes, and for a file renames the temporary file over the target.
    pub fn finish(self) -> Result<(), Error> {
        let name = self.name();
        match self {
            Sink::Stdout(mut out) => out.flush().map_err(|e| Error::io(&name, "cannot write", e)),
            Sink::Special { mut file, .. } => {
                file.flush().map_err(|e| Error::io(&name, "cannot write", e))
            }
            Sink::File { temp, target } => {
                let temp = temp.into_inner().map_err(|e| {
                    let (e, _) = e.into_parts();
                    Error::io(&name, "cannot write", e)
                })?;
                temp.as_file().sync_all().map_err(|e| Error::io(&name, "cannot write", e))?;
                let path = temp.path().to_path_buf();
                let persisted = temp.persist(&target);
                crate::signals::unregister(&path);
                persisted.map_err(|e| Error::io(&name, "cannot rename onto", e.error))?;
                Ok(())
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(buf),
            Sink::Special { file, .. } => file.write(buf),
            Sink::File { temp, .. } => temp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.write_all(buf),
            Sink::Special { file, .. } => file.write_all(buf),
            Sink::File { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::Special { file, .. } => file.flush(),
            Sink::File { temp, .. } => temp.flush(),
        }
    }
}
