//! The edge-list format of graph tools (SNAP, igraph, networkx, Matrix Market's comment style):
//! one edge `u v` per line, a move from position `u` to position `v`.
//!
//! Lines starting with `#` or `%` (after optional blanks) are comments and blank lines are
//! skipped. Ids are non-negative 32-bit integers separated by spaces or tabs; a line holds
//! exactly two. The node count is the largest id + 1, or what `--nodes N` says (then every id
//! must be below N). An edge list is one graph with no queries: one case.
//!
//! The input is cut into windows at line ends, each window into pieces, and the pieces are
//! parsed in parallel by the same function the sequential path runs on whole windows, so both
//! paths find the same first error with the same words. The CSR is then built by a counting
//! sort (stable: a node's out-positions keep their input order).
//!
//! Memory: 8 bytes per edge while reading (the `u` and `v` columns), then the CSR (4 bytes per
//! node and per edge) while the columns are released.

use rayon::prelude::*;

use crate::graph::{narrow_limit, Csr, GameGraph, Offset};
use crate::meter::{Meter, Stage, Unit};
use crate::parse::error::{quoted, Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::{quote, Lexer};

/// Pieces per thread in a window: a few, so an uneven piece does not leave a core idle.
const PIECES_PER_THREAD: usize = 4;

/// Without `--nodes`, a largest id above this is refused unless the file has at least one
/// edge line per [`IDS_PER_EDGE`] ids: a 12-byte file naming node 4,000,000,000 must not
/// allocate 32 GB of per-node arrays.
const FREE_NODES: u64 = 1 << 24;
/// See [`FREE_NODES`].
const IDS_PER_EDGE: u64 = 64;

/// The edge columns of a parsed input.
#[derive(Debug, Default)]
struct Columns {
    from: Vec<u32>,
    to: Vec<u32>,
}

/// Reads the edge list in `bytes` as a graph. `nodes` is the node count if given (`--nodes`);
/// `parallel` selects the parallel twin; `window` is the bytes parsed per step.
pub fn read(
    bytes: &[u8],
    nodes: Option<u32>,
    parallel: bool,
    window: usize,
    meter: &dyn Meter,
) -> Result<GameGraph, ParseError> {
    meter.start(Stage { case: 1, name: "reading", unit: Unit::Bytes, total: bytes.len() as u64 });
    let mut columns = Columns::default();
    let pieces_per_window =
        if parallel { rayon::current_num_threads() * PIECES_PER_THREAD } else { 1 };
    let mut start = 0;
    while start < bytes.len() {
        let end = line_end(bytes, start + window.max(1));
        let pieces = crate::parse::tokens::cut(bytes, start, end, pieces_per_window, line_end);
        let parsed: Vec<(Columns, Result<(), ParseError>)> = if parallel {
            pieces.par_iter().map(|&(a, b)| parse_piece(bytes, a, b, nodes)).collect()
        } else {
            pieces.iter().map(|&(a, b)| parse_piece(bytes, a, b, nodes)).collect()
        };
        for (piece, result) in parsed {
            columns.from.extend_from_slice(&piece.from);
            columns.to.extend_from_slice(&piece.to);
            result?;
        }
        start = end;
        meter.set(start as u64);
    }
    let n = match nodes {
        Some(n) => n,
        None => node_count(bytes, &columns)?,
    };
    Ok(build(n, columns))
}

/// The largest id + 1, refused when it would allocate far more than the file could describe.
fn node_count(bytes: &[u8], columns: &Columns) -> Result<u32, ParseError> {
    let max = |c: &[u32]| c.par_chunks(1 << 16).map(|c| c.iter().copied().max()).max().flatten();
    let Some(largest) = max(&columns.from).max(max(&columns.to)) else { return Ok(0) };
    let edges = columns.from.len() as u64;
    let too_sparse = u64::from(largest) >= FREE_NODES && u64::from(largest) > IDS_PER_EDGE * edges;
    if largest == u32::MAX || too_sparse {
        let offset = first_mention(bytes, largest);
        let line_start = bytes[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let first = bytes[line_start..offset].iter().all(|&b| is_blank(b));
        let expected = if first { Expected::EdgeFrom } else { Expected::EdgeTo };
        let reason = if largest == u32::MAX {
            format!("{largest} is not a node id (ids go up to {})", u32::MAX - 1)
        } else {
            format!(
                "node id {largest} would make a graph of {} nodes from {edges} edges; give \
                 --nodes to allow it",
                u64::from(largest) + 1
            )
        };
        return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
    }
    Ok(largest + 1)
}

/// The offset of the first token of `bytes` equal to `id` (error path only).
fn first_mention(bytes: &[u8], id: u32) -> usize {
    let mut lex = Lexer::new(bytes);
    loop {
        if !lex.at_token() {
            return 0;
        }
        let at = lex.offset();
        match lex.next_u32(Expected::EdgeFrom) {
            Ok(Some(v)) if v == id => return at,
            Ok(Some(_)) => {}
            // Comments and the like: step over the token.
            _ => lex = Lexer::at(bytes, at + quote(bytes, at).len().max(1)),
        }
    }
}

/// The CSR of `n` nodes from the edge columns: a counting sort by source, stable.
/// The graph of `n` nodes from the edge columns: 32-bit offsets unless there are more edges
/// than [`narrow_limit`].
fn build(n: u32, columns: Columns) -> GameGraph {
    if columns.from.len() as u64 > narrow_limit() {
        GameGraph::ChessWide(counting_sort::<u64>(n, columns))
    } else {
        GameGraph::Chess(counting_sort::<u32>(n, columns))
    }
}

/// The CSR of `n` nodes from the edge columns: a counting sort by source, stable.
fn counting_sort<O: Offset>(n: u32, columns: Columns) -> Csr<O> {
    let Columns { from, to } = columns;
    let one = O::from(1);
    let mut offsets = vec![O::default(); n as usize + 1];
    for &u in &from {
        offsets[u as usize + 1] += one;
    }
    for i in 0..n as usize {
        let before = offsets[i];
        offsets[i + 1] += before;
    }
    let mut targets = vec![0u32; to.len()];
    // offsets[u] serves as u's cursor; afterwards it holds u's end, restored by one shift.
    for (&u, &v) in from.iter().zip(&to) {
        let cursor = &mut offsets[u as usize];
        targets[cursor.index()] = v;
        *cursor += one;
    }
    offsets.rotate_right(1);
    offsets[0] = O::default();
    // Every id was checked against `n` (given) or is at most the largest id (derived).
    Csr::from_checked_parts(offsets, targets)
}

/// The offset just past the line end at or after `at` (or the end of the input).
fn line_end(bytes: &[u8], at: usize) -> usize {
    if at >= bytes.len() {
        return bytes.len();
    }
    bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| at + i + 1)
}

/// Spaces and tabs (and a CR before the line end): what separates the ids of a line.
#[inline]
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Parses the whole lines of `bytes[start..end]`: the edges before the first bad line, and
/// that line's error.
fn parse_piece(
    bytes: &[u8],
    start: usize,
    end: usize,
    nodes: Option<u32>,
) -> (Columns, Result<(), ParseError>) {
    let mut columns = Columns::default();
    let mut pos = start;
    while pos < end {
        while pos < end && is_blank(bytes[pos]) {
            pos += 1;
        }
        match bytes.get(pos) {
            _ if pos >= end => break,
            Some(b'\n') => pos += 1,
            Some(b'#' | b'%') => pos = line_end(bytes, pos),
            _ => match edge(bytes, pos, nodes) {
                Ok((u, v, next)) => {
                    columns.from.push(u);
                    columns.to.push(v);
                    pos = next;
                }
                Err(e) => return (columns, Err(e)),
            },
        }
    }
    (columns, Ok(()))
}

/// The edge on the line whose first id starts at `pos`, and the offset of the next line.
fn edge(bytes: &[u8], pos: usize, nodes: Option<u32>) -> Result<(u32, u32, usize), ParseError> {
    let (u, pos) = id(bytes, pos, nodes, Expected::EdgeFrom)?;
    let pos = skip_blanks(bytes, pos);
    if matches!(bytes.get(pos), None | Some(b'\n')) {
        let reason = "the line ends after one node id".to_string();
        let kind = ParseErrorKind::Invalid { expected: Expected::EdgeTo, reason };
        return Err(ParseError { offset: pos, kind });
    }
    let (v, pos) = id(bytes, pos, nodes, Expected::EdgeTo)?;
    let pos = skip_blanks(bytes, pos);
    match bytes.get(pos) {
        None => Ok((u, v, pos)),
        Some(b'\n') => Ok((u, v, pos + 1)),
        Some(_) => {
            let reason = format!(
                "found {}, but an edge line holds two node ids only",
                quoted(&quote(bytes, pos))
            );
            let kind = ParseErrorKind::Invalid { expected: Expected::EdgeEnd, reason };
            Err(ParseError { offset: pos, kind })
        }
    }
}

/// The id whose token starts at `pos` (a non-blank byte of the line), checked against `nodes`.
fn id(
    bytes: &[u8],
    pos: usize,
    nodes: Option<u32>,
    expected: Expected,
) -> Result<(u32, usize), ParseError> {
    let mut lex = Lexer::at(bytes, pos);
    let value = lex.expect_u32(expected)?;
    if let Some(n) = nodes.filter(|&n| value >= n) {
        let kind = ParseErrorKind::OutOfRange { expected, value, nodes: n };
        return Err(ParseError { offset: pos, kind });
    }
    Ok((value, lex.offset()))
}

fn skip_blanks(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&b| is_blank(b)) {
        pos += 1;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &[u8], nodes: Option<u32>) -> Result<Csr, ParseError> {
        let read = |parallel, window| {
            read(text, nodes, parallel, window, &()).map(|g| g.into_chess().expect("narrow"))
        };
        let one = read(false, 1 << 20);
        for window in [1, 2, 3, 5, 8, 64] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            let other = pool.install(|| read(true, window));
            assert_eq!(other, one, "window {window}");
        }
        one
    }

    #[test]
    fn reads_comments_blanks_tabs_and_crlf() {
        let text = b"# SNAP style\n% Matrix Market style\n0\t2\r\n\n  0 1\n2 1 \n";
        let g = both(text, None).unwrap();
        assert_eq!(g.node_count(), 3);
        assert_eq!((g.successors(0), g.successors(2)), (&[2, 1][..], &[1][..]));
        assert_eq!(both(text, Some(5)).unwrap().node_count(), 5);
        assert_eq!(both(b"", None).unwrap().node_count(), 0);
        assert_eq!(both(b"# only a comment", Some(2)).unwrap().node_count(), 2);
        // No final line end.
        assert_eq!(both(b"0 1", None).unwrap().successors(0), &[1]);
    }

    #[test]
    fn bad_lines_are_errors_at_their_token() {
        let cases: [(&[u8], Option<u32>, usize); 6] = [
            (b"0 1\n0 x\n", None, 6),
            (b"0 1\n0\n", None, 5),
            (b"0 1\n0 1 1.5\n", None, 8),
            (b"0 1\n-1 0\n", None, 4),
            (b"0 1\n0 7\n", Some(3), 6),
            (b"0 4294967295\n", None, 2),
        ];
        for (text, nodes, offset) in cases {
            let err = both(text, nodes).unwrap_err();
            assert_eq!(err.offset, offset, "{:?}: {}", String::from_utf8_lossy(text), err.kind);
        }
    }

    #[test]
    fn a_huge_id_in_a_tiny_file_is_refused_unless_asked_for() {
        let err = both(b"0 4000000000\n", None).unwrap_err();
        assert!(err.kind.to_string().contains("give --nodes"), "{}", err.kind);
        assert_eq!(err.offset, 2);
    }
}
