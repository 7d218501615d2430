//! Writing results: buffered stdout whose errors carry the name `<stdout>`.

use std::io::{self, Write};

use crate::error::Error;

/// Name used for standard output in messages.
pub const STDOUT_NAME: &str = "<stdout>";

/// Buffer size for stdout: large enough that a million one-line answers take a few hundred
/// system calls.
const BUFFER: usize = 1 << 16;

/// A buffered, locked stdout.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::with_capacity(BUFFER, io::stdout().lock())
}

/// Maps a write error on stdout to a grundy error (a broken pipe stays recognisable).
pub fn stdout_error(e: io::Error) -> Error {
    Error::io(STDOUT_NAME, "cannot write", e)
}

/// Flushes `out`, reporting failures as stdout errors.
pub fn finish(out: &mut impl Write) -> Result<(), Error> {
    out.flush().map_err(stdout_error)
}
