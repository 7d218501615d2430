//! Errors, typed in the library and rendered once, as the one-line messages users see.
//!
//! Parsers work on bytes and only know byte offsets; turning an offset into a line and column
//! costs a scan of the input, so it is done once, on the error path, by [`Error::parse`].

use std::fmt;
use std::io;

/// Everything that can make a grundy run fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file (or stdin, or stdout) could not be opened, read or written.
    #[error("{path}: {message}: {source}")]
    Io {
        /// The file, `<stdin>` or `<stdout>`.
        path: String,
        /// What was being done, e.g. `cannot open`.
        message: String,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
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
    #[error("{path}: case {case}: cycle {}", format_cycle(.cycle))]
    Cycle {
        /// The file or `<stdin>`.
        path: String,
        /// 1-based case number.
        case: u64,
        /// The nodes of one cycle in move order, smallest id first.
        cycle: Vec<u32>,
    },
    /// Arguments that parse but cannot be used together or at all (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Every output of the run is a pipe whose reader has gone (`grundy solve big.txt | head`):
    /// the run stops early, quietly, with exit code 0.
    #[error("every output was closed by its reader")]
    OutputClosed,
    /// A well-formed input that exceeds what grundy can represent.
    #[error("{path}: case {case}: {message}")]
    Limit {
        /// The file or `<stdin>`.
        path: String,
        /// 1-based case number.
        case: u64,
        /// Which limit.
        message: String,
    },
}

impl Error {
    /// Wraps an I/O error with the path and what was being done.
    pub fn io(path: &str, message: &str, source: io::Error) -> Error {
        Error::Io { path: path.to_string(), message: message.to_string(), source }
    }

    /// Places a parser's error in `input` (named `path`) by line and column.
    pub fn parse(path: &str, input: &[u8], err: ParseError) -> Error {
        let (line, column) = line_column(input, err.offset);
        Error::Parse { path: path.to_string(), line, column, message: err.kind.to_string() }
    }

    /// The process exit code for this error: 2 for usage errors, else 1.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            _ => 1,
        }
    }

    /// True when the run stopped because nobody reads its output any more (`grundy solve big
    /// | head`), which is not a failure of grundy's.
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Error::OutputClosed => true,
            Error::Io { source, .. } => source.kind() == io::ErrorKind::BrokenPipe,
            _ => false,
        }
    }
}

/// 1-based line and byte column of `offset` in `input`.
pub fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = &input[..offset.min(input.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, before.len() - line_start + 1)
}

/// A cycle of more than this many nodes is shown by its head and tail only: a cycle through
/// a million nodes is a fact to report, not a line to print.
const CYCLE_SHOWN: usize = 32;

fn format_cycle(cycle: &[u32]) -> String {
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

/// A parser's error: where (byte offset) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the offending token, or the input's length at an unexpected end.
    pub offset: usize,
    /// What went wrong.
    pub kind: ParseErrorKind,
}

/// What a parser found wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A token that is not made of ASCII digits only.
    NotANumber {
        /// What the token should have been.
        expected: Expected,
        /// The token, possibly shortened, lossily decoded.
        token: String,
    },
    /// A number larger than `u32::MAX`.
    TooLarge {
        /// What the token should have been.
        expected: Expected,
        /// The digits, possibly shortened.
        token: String,
    },
    /// A node id that is not below the case's node count.
    OutOfRange {
        /// What the token should have been.
        expected: Expected,
        /// The id found.
        value: u32,
        /// The case's node count.
        nodes: u32,
    },
    /// A number that is well formed but not allowed where it stands.
    Invalid {
        /// What the token should have been.
        expected: Expected,
        /// Why its value is refused.
        reason: String,
    },
    /// The input ended where a token was needed.
    UnexpectedEnd {
        /// What the token should have been.
        expected: Expected,
    },
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::NotANumber { expected, token } => {
                write!(f, "expected a non-negative integer for {expected}, found {token:?}")
            }
            ParseErrorKind::TooLarge { expected, token } => write!(
                f,
                "expected {expected}, found {token}, which does not fit in 32 bits (max {})",
                u32::MAX
            ),
            ParseErrorKind::OutOfRange { expected, value, nodes: 0 } => {
                write!(f, "{expected} is {value}, but the case has no nodes")
            }
            ParseErrorKind::OutOfRange { expected, value, nodes } => write!(
                f,
                "{expected} is {value}, but the case has {nodes} nodes (ids 0 to {})",
                nodes - 1
            ),
            ParseErrorKind::Invalid { expected, reason } => write!(f, "{expected}: {reason}"),
            ParseErrorKind::UnexpectedEnd { expected } => {
                write!(f, "input ends where {expected} was expected")
            }
        }
    }
}

/// What a token should have been, with the case, node or query it belongs to, so that an error
/// message tells the user where in the structure the parser was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// N, the node count that opens a case.
    NodeCount {
        /// 1-based case.
        case: u64,
    },
    /// X_i, the number of moves of a node.
    OutDegree {
        /// 1-based case.
        case: u64,
        /// 0-based node.
        node: u32,
    },
    /// One out-position of a node.
    OutPosition {
        /// 1-based case.
        case: u64,
        /// 0-based node.
        node: u32,
        /// 1-based index within the node's list.
        index: u32,
        /// The list's length.
        of: u32,
    },
    /// A named field of a record of a built-in game's input (`W`, `n`, `airport`, ...).
    Field {
        /// 1-based record (line or test case).
        case: u64,
        /// The field's name.
        name: &'static str,
    },
    /// K_i, the number of moves of a node (sums format).
    MoveCount {
        /// 1-based case.
        case: u64,
        /// 0-based node.
        node: u32,
    },
    /// c, the number of parts of a move (sums format).
    PartCount {
        /// 1-based case.
        case: u64,
        /// 0-based node.
        node: u32,
        /// 1-based move within the node's moves.
        index: u32,
        /// The node's move count.
        of: u32,
    },
    /// One part of a move (sums format).
    Part {
        /// 1-based case.
        case: u64,
        /// 0-based node.
        node: u32,
        /// 1-based move within the node's moves.
        move_index: u32,
        /// 1-based part within the move.
        index: u32,
        /// The move's part count.
        of: u32,
    },
    /// The first node of an edge line `u v` (edge-list format).
    EdgeFrom,
    /// The second node of an edge line `u v` (edge-list format).
    EdgeTo,
    /// The end of an edge line, after its two node ids (edge-list format).
    EdgeEnd,
    /// M, the number of tokens of a query (0 ends the case).
    QueryLength {
        /// 1-based case; 0 for a file of queries only.
        case: u64,
        /// 1-based query.
        query: u64,
    },
    /// One token position of a query.
    QueryPosition {
        /// 1-based case; 0 for a file of queries only.
        case: u64,
        /// 1-based query.
        query: u64,
        /// 1-based index within the query.
        index: u32,
        /// The query's length.
        of: u32,
    },
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Expected::NodeCount { case } => write!(f, "the node count of case {case}"),
            Expected::OutDegree { case, node } => {
                write!(f, "the out-degree of node {node} (case {case})")
            }
            Expected::OutPosition { case, node, index, of } => {
                write!(f, "out-position {index} of {of} of node {node} (case {case})")
            }
            Expected::Field { case, name } => write!(f, "{name} of case {case}"),
            Expected::MoveCount { case, node } => {
                write!(f, "the move count of node {node} (case {case})")
            }
            Expected::PartCount { case, node, index, of } => {
                write!(f, "the part count of move {index} of {of} of node {node} (case {case})")
            }
            Expected::Part { case, node, move_index, index, of } => {
                write!(f, "part {index} of {of} of move {move_index} of node {node} (case {case})")
            }
            Expected::EdgeFrom => write!(f, "the first node of an edge line `u v`"),
            Expected::EdgeTo => write!(f, "the second node of an edge line `u v`"),
            Expected::EdgeEnd => write!(f, "the end of an edge line `u v`"),
            // Case 0: a query file of its own (`grundy query`), which has no cases.
            Expected::QueryLength { case: 0, query } => {
                write!(f, "the token count of query {query} (0 ends the queries)")
            }
            Expected::QueryLength { case, query } => {
                write!(f, "the token count of query {query} (case {case}; 0 ends the case)")
            }
            Expected::QueryPosition { case: 0, query, index, of } => {
                write!(f, "position {index} of {of} of query {query}")
            }
            Expected::QueryPosition { case, query, index, of } => {
                write!(f, "position {index} of {of} of query {query} (case {case})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_counts_from_one() {
        let text = b"ab\ncd\n\nx";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 1), (1, 2));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 7), (4, 1));
        assert_eq!(line_column(text, 8), (4, 2));
    }

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
}
