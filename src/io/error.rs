//! What reading and writing can fail with, apart from what the bytes mean: the engine's
//! [`crate::error::Error`] wraps it, so `io/` depends on nothing above it.

use std::io;

/// A failure of the machine's side of a run.
#[derive(Debug, thiserror::Error)]
pub enum IoError {
    /// A file (or stdin, or stdout) could not be opened, read or written.
    #[error("{path}: {message}: {source}")]
    File {
        /// The file, `<stdin>` or `<stdout>`.
        path: String,
        /// What was being done, e.g. `cannot open`.
        message: String,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// `solve --check`: the answers differ from the expected output at a line.
    #[error("{path}:{line}: {message}")]
    Differs {
        /// The expected output's file.
        path: String,
        /// 1-based line of the expected output.
        line: usize,
        /// How they differ, with both lines.
        message: String,
    },
    /// Every output of the run is a pipe whose reader has gone (`grundy solve big.txt | head`):
    /// the run stops early, quietly, with exit code 0.
    #[error("every output was closed by its reader")]
    OutputClosed,
}

impl IoError {
    /// A failure to do `message` with the file `path`, for the system's reason `source`.
    pub fn file(path: &str, message: &str, source: io::Error) -> IoError {
        IoError::File { path: path.to_string(), message: message.to_string(), source }
    }

    /// True when nobody reads the output any more, which is not a failure of grundy's.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            IoError::OutputClosed => true,
            IoError::File { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            IoError::Differs { .. } => false,
        }
    }
}
