//! Errors, typed in the library and rendered once, as the one-line messages users see.
//!
//! Parsers work on bytes and only know byte offsets ([`ParseError`]); turning an offset into a
//! line and column costs a scan of the input, so it is done once, on the error path, by
//! [`Error::parse`].

use std::fmt;
use std::io;

use crate::io::error::IoError;
use crate::parse::error::ParseError;

/// Everything that can make a grundy run fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing failed (a file, stdin, stdout), or `solve --check` found a
    /// difference, or nobody reads the output any more.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The input is not well formed; the position is 1-based.
    #[error("{path}:{line}:{column}: {message}")]
    Parse {
        /// The file or `<stdin>`.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column, counted in bytes.
        column: usize,
        /// What was expected and what was found.
        message: String,
    },
    /// A case's graph has a cycle, so it is not a game that must end.
    #[error("{path}: case {case}: cycle {}{}", format_cycle(.cycle), loopy_hint(*.loopy_takes_it))]
    Cycle {
        /// The file or `<stdin>`.
        path: String,
        /// 1-based case number.
        case: u64,
        /// The nodes of one cycle in move order, smallest id first.
        cycle: Vec<u32>,
        /// True when `--loopy` would take the input (the chess and edge-list formats, not the
        /// sums format), so the message may suggest it.
        loopy_takes_it: bool,
    },
    /// An index file cannot be used: truncated, corrupt, of another version.
    #[error("{path}: {message}")]
    Index {
        /// The file or `<stdin>`.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// An octal checkpoint cannot be gone on from: truncated, corrupt, of another game.
    #[error("{path}: {message}")]
    Checkpoint {
        /// The checkpoint file.
        path: String,
        /// What is wrong with it.
        message: String,
    },
    /// A Parquet or Arrow IPC output could not be encoded (its writes failing are `Io`).
    #[error("{path}: cannot write {format}: {message}")]
    Columnar {
        /// The output file or `<stdout>`.
        path: String,
        /// `parquet` or `arrow`.
        format: &'static str,
        /// What the encoder said.
        message: String,
    },
    /// The graph file of `grundy query` holds no case, so there is no graph to query.
    #[error("{path}: holds no case, so there is no graph to query")]
    NoGraph {
        /// The graph file or `<stdin>`.
        path: String,
    },
    /// The worker threads could not be started (a failed run, not a usage error).
    #[error("cannot start {threads} threads: {reason}")]
    Threads {
        /// How many were asked for.
        threads: usize,
        /// The system's reason.
        reason: String,
    },
    /// The processes of a cluster could not be started or connected.
    #[error("{message}")]
    Cluster {
        /// What went wrong, naming the process.
        message: String,
    },
    /// An octal game's code is not one.
    #[error("octal code `{code}`: {message}")]
    Code {
        /// The code as given.
        code: String,
        /// Where, and what was expected.
        message: String,
    },
    /// Arguments that parse but cannot be used together or at all (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// A process of a cluster ends with the run's failure, which process 0 reports (exit code
    /// 1, nothing printed here).
    #[error("the run failed; process 0 reports why")]
    ReportedElsewhere,
    /// The error was printed already (a cluster process tells its peers after printing why
    /// it refused to run); the exit code is kept.
    #[error("the run failed, as printed above")]
    Printed(u8),
}

impl Error {
    /// Wraps an I/O error with the path and what was being done.
    pub fn io(path: &str, message: &str, source: io::Error) -> Error {
        Error::Io(IoError::file(path, message, source))
    }

    /// Places a parser's error in `input` (named `path`) by line and column.
    pub fn parse(path: &str, input: &[u8], err: ParseError) -> Error {
        Error::parse_at(path, crate::parse::error::line_column(input, err.offset), err)
    }

    /// A parser's error in the input named `path`, at the 1-based `(line, column)` its reader
    /// placed it at (a stream's reader, which no longer holds the bytes before it).
    pub fn parse_at(path: &str, (line, column): (usize, usize), err: ParseError) -> Error {
        Error::Parse { path: path.to_string(), line, column, message: err.kind.to_string() }
    }

    /// The process exit code for this error: 2 for usage errors, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Printed(code) => *code,
            _ => 1,
        }
    }

    /// True when the run stopped because nobody reads its output any more (`grundy solve big
    /// | head`), which is not a failure of grundy's.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.is_broken_pipe())
    }
}

/// What a cycle error adds: the way to allow cycles, only where `--loopy` would take the
/// input (suggesting it for the sums format would lead to a second refusal).
fn loopy_hint(loopy_takes_it: bool) -> &'static str {
    if loopy_takes_it {
        " (cycles are allowed with --loopy)"
    } else {
        ""
    }
}

/// A cycle of more than this many nodes is shown by its head and tail only: a cycle through
/// a million nodes is a fact to report, not a line to print.
const CYCLE_SHOWN: usize = 32;

/// A cycle as errors show it, `0 -> 1 -> 0` (a long one by its head and tail): the words of
/// every front end (the CLI's `error:` line, the Python module's exception).
pub fn format_cycle(cycle: &[u32]) -> String {
    use fmt::Write;
    let mut out = String::new();
    let show = |out: &mut String, nodes: &[u32]| {
        for v in nodes {
            let _ = write!(out, "{v} -> ");
        }
    };
    if cycle.len() <= CYCLE_SHOWN {
        show(&mut out, cycle);
    } else {
        show(&mut out, &cycle[..CYCLE_SHOWN / 2]);
        let _ = write!(out, "... ({} nodes in all) -> ", cycle.len());
        show(&mut out, &cycle[cycle.len() - CYCLE_SHOWN / 4..]);
    }
    let _ = write!(out, "{}", cycle.first().copied().unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cycles_are_shortened_short_ones_are_not() {
        assert_eq!(format_cycle(&[3]), "3 -> 3");
        assert_eq!(format_cycle(&[3, 5]), "3 -> 5 -> 3");
        let long: Vec<u32> = (0..1000).collect();
        let text = format_cycle(&long);
        assert!(text.starts_with("0 -> 1 -> "), "{text}");
        assert!(text.contains("(1000 nodes in all)"), "{text}");
        assert!(text.ends_with("998 -> 999 -> 0"), "{text}");
    }

    #[test]
    fn only_cycles_loopy_would_take_suggest_it() {
        let cycle = |loopy_takes_it| {
            Error::Cycle { path: "f".into(), case: 2, cycle: vec![1, 2], loopy_takes_it }
                .to_string()
        };
        assert_eq!(cycle(true), "f: case 2: cycle 1 -> 2 -> 1 (cycles are allowed with --loopy)");
        assert_eq!(cycle(false), "f: case 2: cycle 1 -> 2 -> 1");
    }
}
