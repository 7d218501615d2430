//! What a parser found wrong, and where: a byte offset and a typed description, rendered as
//! a line and column only on the error path ([`crate::error::Error::parse`]).

use std::fmt;
use std::num::NonZeroU64;

/// 1-based line and byte column of `offset` in `input`.
pub fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = &input[..offset.min(input.len())];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (line, before.len() - line_start + 1)
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
    /// A run of more than 4,096 digits (leading zeros count): the longest token read.
    TooLong {
        /// What the token should have been.
        expected: Expected,
        /// The digits, shortened.
        token: String,
        /// The most digits a token may have.
        max: usize,
    },
    /// A case holding more edges, moves or parts than its 32-bit offsets can count.
    Overflow {
        /// The count whose token made the total overflow.
        expected: Expected,
        /// What is counted.
        what: Total,
        /// The total the case would hold.
        count: u64,
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
    /// A token after the `0` that ends a file of queries, which must be its last token.
    AfterEnd,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::NotANumber { expected, token } => {
                write!(f, "expected a non-negative integer for {expected}, found {}", quoted(token))
            }
            ParseErrorKind::TooLong { expected, token, max } => {
                write!(f, "expected {expected}, found {token}, a token of more than {max} digits")
            }
            ParseErrorKind::TooLarge { expected, token } => write!(
                f,
                "expected {expected}, found {token}, which does not fit in 32 bits (max {})",
                u32::MAX
            ),
            ParseErrorKind::Overflow { expected, what, count } => write!(
                f,
                "{expected} brings the case to {count} {}, more than the {} a case can hold",
                what.name(),
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
            ParseErrorKind::AfterEnd => {
                f.write_str("expected the end of the input after the 0 that ends the queries")
            }
        }
    }
}

/// `token` in double quotes, as messages show what they found: ASCII control bytes as `\x00`
/// to `\x1f` and `\x7f`, quotes and backslashes escaped, other characters as Rust's debug
/// escapes show them. Not `{:?}` itself: it shows NUL as `\0`, so a token `1`, NUL, `2` reads
/// `"1\02"`, like an octal escape.
pub fn quoted(token: &str) -> String {
    use fmt::Write;
    let mut out = String::with_capacity(token.len() + 2);
    out.push('"');
    for c in token.chars() {
        match c {
            // A string's debug form leaves single quotes alone; a char's would escape them.
            '\'' => out.push(c),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => out.extend(c.escape_debug()),
        }
    }
    out.push('"');
    out
}

/// Where queries stand: in a case of a game file, or in a file of queries alone (the second
/// file of `grundy query`), whose errors name no case.
///
/// Eight bytes (the case number is never 0): every token read passes an [`Expected`] by
/// value, so its size is paid on the hot path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queries {
    /// In the 1-based case of a game file.
    InCase(NonZeroU64),
    /// In a file of queries only.
    Alone,
}

impl Queries {
    /// In case `case` (1-based; 0, before any case, is taken as 1).
    pub fn in_case(case: u64) -> Queries {
        Queries::InCase(NonZeroU64::new(case).unwrap_or(NonZeroU64::MIN))
    }
}

/// What a case counts in its 32-bit offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Total {
    /// Out-positions (chess format, edge lists).
    Edges,
    /// Moves (sums format).
    Moves,
    /// Parts of moves (sums format).
    Parts,
}

impl Total {
    fn name(self) -> &'static str {
        match self {
            Total::Edges => "edges",
            Total::Moves => "moves",
            Total::Parts => "parts",
        }
    }
}

impl ParseError {
    /// The error for a total that no longer fits the u32 offsets: the one way both readers
    /// (and the edge-list reader) build it, at the token of the count that overflowed.
    pub fn overflow(offset: usize, expected: Expected, what: Total, count: u64) -> ParseError {
        ParseError { offset, kind: ParseErrorKind::Overflow { expected, what, count } }
    }
}

/// The offsets of `count` items, or the overflow error of [`ParseError::overflow`].
pub fn checked_total(
    count: u64,
    offset: impl FnOnce() -> usize,
    expected: Expected,
    what: Total,
) -> Result<u32, ParseError> {
    u32::try_from(count).map_err(|_| ParseError::overflow(offset(), expected, what, count))
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
        /// Where the query stands.
        case: Queries,
        /// 1-based query.
        query: u64,
    },
    /// One token position of a query.
    QueryPosition {
        /// Where the query stands.
        case: Queries,
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
            Expected::QueryLength { case: Queries::Alone, query } => {
                write!(f, "the token count of query {query} (0 ends the queries)")
            }
            Expected::QueryLength { case: Queries::InCase(case), query } => {
                write!(f, "the token count of query {query} (case {case}; 0 ends the case)")
            }
            Expected::QueryPosition { case: Queries::Alone, query, index, of } => {
                write!(f, "position {index} of {of} of query {query}")
            }
            Expected::QueryPosition { case: Queries::InCase(case), query, index, of } => {
                write!(f, "position {index} of {of} of query {query} (case {case})")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn found_tokens_show_control_bytes_unambiguously() {
        assert_eq!(quoted("x"), r#""x""#);
        assert_eq!(quoted("1\x002"), r#""1\x002""#);
        assert_eq!(quoted("\x01\x1f\x7f"), r#""\x01\x1f\x7f""#);
        assert_eq!(quoted(r#"a"b\c'd"#), r#""a\"b\\c'd""#);
        // Invalid UTF-8, decoded lossily, shows as the replacement character.
        assert_eq!(quoted("\u{feff}4\u{fffd}é"), "\"\\u{feff}4\u{fffd}é\"");
    }

    #[test]
    fn overflows_are_built_one_way() {
        let expected = Expected::OutDegree { case: 2, node: 7 };
        assert_eq!(checked_total(u64::from(u32::MAX), || 0, expected, Total::Edges), Ok(u32::MAX));
        let err = checked_total(1 << 32, || 42, expected, Total::Edges).unwrap_err();
        assert_eq!(err.offset, 42);
        assert_eq!(
            err.kind.to_string(),
            "the out-degree of node 7 (case 2) brings the case to 4294967296 edges, more than \
             the 4294967295 a case can hold"
        );
        let parts = Expected::PartCount { case: 1, node: 0, index: 3, of: 5 };
        let err = checked_total(5_000_000_000, || 9, parts, Total::Parts).unwrap_err();
        assert!(err
            .kind
            .to_string()
            .ends_with("to 5000000000 parts, more than the 4294967295 a case can hold"));
    }

    #[test]
    fn line_column_counts_from_one() {
        let text = b"ab\ncd\n\nx";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 1), (1, 2));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 7), (4, 1));
        assert_eq!(line_column(text, 8), (4, 2));
    }
}
