//! The edge-list format of graph tools (SNAP, igraph, networkx, Matrix Market's comment style):
//! one edge `u v` per line, a move from position `u` to position `v`.
//!
//! Lines starting with `#` or `%` (after optional blanks) are comments and blank lines are
//! skipped. Ids are non-negative 32-bit integers separated by spaces or tabs, or by a comma
//! with optional blanks around it (`u,v`); a line holds exactly two, and may end with `{}`,
//! the empty data dict networkx's `write_edgelist` writes by default (`0 1 {}`, or `0,1,{}`
//! with `delimiter=","`). Any other third field is refused with the way to write the list
//! without data: a weight or a label is not a move. The node count is the largest id + 1, or
//! what `--nodes N` says (then every id must be below N). An edge list is one graph with no
//! queries: one case.
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
use crate::parse::lexer::{scan_number, Lexer, Scanned, QUOTE_MAX};
use crate::parse::text::{Cut, Text, MAX_LINE};

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
    read_text(&mut Text::Whole(bytes), nodes, parallel, window, meter).map_err(|e| e.error)
}

/// An error of [`read_text`], with the 1-based line and column of its offset, found while
/// the bytes there were held.
#[derive(Debug)]
pub struct Located {
    /// What is wrong, at which offset.
    pub error: ParseError,
    /// Its line and column.
    pub at: (usize, usize),
}

/// [`read`] of a text that may be a stream, read window by window as it arrives: only the
/// window being parsed is held, and the first mention of the largest id so far is placed as
/// it is met, since a refused node count is found only at the end.
pub fn read_text(
    text: &mut Text,
    nodes: Option<u32>,
    parallel: bool,
    window: usize,
    meter: &dyn Meter,
) -> Result<GameGraph, Located> {
    let total = match text {
        Text::Whole(bytes) => bytes.len() as u64,
        Text::Stream(_) => 0,
    };
    meter.start(Stage { case: 1, name: "reading", unit: Unit::Bytes, total });
    let mut columns = Columns::default();
    let pieces_per_window =
        if parallel { rayon::current_num_threads() * PIECES_PER_THREAD } else { 1 };
    // On a stream: the largest id so far, where it was first met, and that place's position.
    let mut largest: Option<(u32, usize, Expected, (usize, usize))> = None;
    let mut start = 0;
    while let Some(end) = text.window_end(start, window.max(1), Cut::Line) {
        let (bytes, at) = text.held();
        let (a, b) = (start - at, end - at);
        let pieces = crate::parse::tokens::cut(bytes, a, b, pieces_per_window, line_end);
        let parsed: Vec<(Columns, Result<(), ParseError>)> = if parallel {
            pieces.par_iter().map(|&(a, b)| parse_piece(bytes, a, b, nodes)).collect()
        } else {
            pieces.iter().map(|&(a, b)| parse_piece(bytes, a, b, nodes)).collect()
        };
        let first = columns.from.len();
        for (piece, result) in parsed {
            columns.from.extend_from_slice(&piece.from);
            columns.to.extend_from_slice(&piece.to);
            if let Err(mut error) = result {
                error.offset += at;
                return Err(Located { at: text.locate(error.offset), error });
            }
        }
        if text.is_stream() && nodes.is_none() {
            let new = largest_id(&columns.from[first..]).max(largest_id(&columns.to[first..]));
            if let Some(id) = new.filter(|&id| largest.is_none_or(|(best, ..)| id > best)) {
                let (offset, expected) = first_mention(bytes, a, b, id);
                largest = Some((id, at + offset, expected, text.locate(at + offset)));
            }
        }
        start = end;
        meter.set(start as u64);
        text.forget_before(start);
    }
    let n = match nodes {
        Some(n) => n,
        None => node_count(&columns).map_err(|(id, edges)| {
            let (offset, expected, at) = match (&*text, largest) {
                (Text::Stream(_), Some((_, offset, expected, at))) => (offset, expected, at),
                (_, _) => {
                    let (bytes, _) = text.held();
                    let (offset, expected) = first_mention(bytes, 0, bytes.len(), id);
                    (offset, expected, text.locate(offset))
                }
            };
            Located { error: refusal(id, edges, offset, expected), at }
        })?,
    };
    Ok(build(n, columns))
}

/// The edges `(u, v)` of the lines that start in `bytes[start..end]` (at line starts), in
/// order, read by the same function as [`read`]; `None` if a line there is not an edge line
/// (or names an id of `nodes` or more). A cluster worker's share of an edge list; its error
/// is described by reading the whole input with [`read`].
pub fn edges_in(
    bytes: &[u8],
    start: usize,
    end: usize,
    nodes: Option<u32>,
) -> Option<Vec<(u32, u32)>> {
    let mut edges = Vec::new();
    let read = each_edge(bytes, start, end, nodes, |e| {
        edges.push((e.u, e.v));
        true
    });
    read.ok().map(|_| edges)
}

/// The start of the first line that starts at or after `at`.
pub fn line_start(bytes: &[u8], at: usize) -> usize {
    if at == 0 {
        0
    } else {
        line_end(bytes, at - 1)
    }
}

/// The node count of an edge list of `edges` lines whose largest id is `largest` (`None`: no
/// edge) when `--nodes` is not given: the largest id + 1, or `None` when it is refused (an id
/// of `u32::MAX`, or far more nodes than the file could describe; [`read`] says why).
pub fn derived_node_count(largest: Option<u32>, edges: u64) -> Option<u32> {
    let Some(largest) = largest else { return Some(0) };
    let too_sparse = u64::from(largest) >= FREE_NODES && u64::from(largest) > IDS_PER_EDGE * edges;
    largest.checked_add(1).filter(|_| !too_sparse)
}

/// The largest id of `ids`, by a parallel max.
fn largest_id(ids: &[u32]) -> Option<u32> {
    ids.par_chunks(1 << 16).map(|c| c.iter().copied().max()).max().flatten()
}

/// The largest id + 1; refused, as the largest id and the edge count, when it would allocate
/// far more than the file could describe.
fn node_count(columns: &Columns) -> Result<u32, (u32, u64)> {
    let Some(largest) = largest_id(&columns.from).max(largest_id(&columns.to)) else {
        return Ok(0);
    };
    let edges = columns.from.len() as u64;
    derived_node_count(Some(largest), edges).ok_or((largest, edges))
}

/// The error for a node count refused ([`node_count`]) for its largest id, first met at
/// `offset` as `expected`.
fn refusal(largest: u32, edges: u64, offset: usize, expected: Expected) -> ParseError {
    let reason = if largest == u32::MAX {
        format!("{largest} is not a node id (ids go up to {})", u32::MAX - 1)
    } else {
        format!(
            "node id {largest} would make a graph of {} nodes from {edges} edges; give \
             --nodes to allow it",
            u64::from(largest) + 1
        )
    };
    ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } }
}

/// Where `id` first appears in the lines of `bytes[start..end]`, read before without an
/// error, and as which node of its line (error path, and a stream's new largest ids).
fn first_mention(bytes: &[u8], start: usize, end: usize, id: u32) -> (usize, Expected) {
    let mut found = (start, Expected::EdgeFrom);
    // The lines were read before: none fails here.
    let _ = each_edge(bytes, start, end, None, |e| {
        let at = match (e.u == id, e.v == id) {
            (true, _) => (e.u_at, Expected::EdgeFrom),
            (false, true) => (e.v_at, Expected::EdgeTo),
            (false, false) => return true,
        };
        found = at;
        false
    });
    found
}

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
    lists_by_source(n, columns.from, columns.to)
}

/// The out-lists of `n` nodes from edges `(from[k], to[k])`, every `from` below `n`: a
/// counting sort by source, stable (a node's out-positions keep their order in the columns).
/// The one sort of an edge list into CSR, for one process and for a cluster worker's nodes.
pub fn lists_by_source<O: Offset>(n: u32, from: Vec<u32>, to: Vec<u32>) -> Csr<O> {
    let offsets = vec![O::default(); n as usize + 1];
    let targets = vec![0u32; to.len()];
    sort_by_source(offsets, targets, &from, &to)
}

/// [`lists_by_source`], failing rather than aborting when its arrays (`n + 1` offsets and a
/// target per edge) cannot be allocated: for the Python module, whose caller chooses `n` and
/// gets a `MemoryError` (the command line keeps the plain twin, and its `calloc`).
pub fn try_lists_by_source<O: Offset>(
    n: u32,
    from: &[u32],
    to: &[u32],
) -> Result<Csr<O>, std::collections::TryReserveError> {
    let offsets = try_zeroed(n as usize + 1)?;
    let targets = try_zeroed(to.len())?;
    Ok(sort_by_source(offsets, targets, from, to))
}

/// `len` zeros, or the error of an allocation refused.
fn try_zeroed<T: Copy + Default>(len: usize) -> Result<Vec<T>, std::collections::TryReserveError> {
    let mut zeros = Vec::new();
    zeros.try_reserve_exact(len)?;
    zeros.resize(len, T::default());
    Ok(zeros)
}

/// The counting sort of [`lists_by_source`] into `offsets` (`n + 1` zeros) and `targets`
/// (`to.len()` of them).
fn sort_by_source<O: Offset>(
    mut offsets: Vec<O>,
    mut targets: Vec<u32>,
    from: &[u32],
    to: &[u32],
) -> Csr<O> {
    let one = O::from(1);
    let n = offsets.len() - 1;
    for &u in from {
        offsets[u as usize + 1] += one;
    }
    for i in 0..n {
        let before = offsets[i];
        offsets[i + 1] += before;
    }
    // offsets[u] serves as u's cursor; afterwards it holds u's end, restored by one shift.
    for (&u, &v) in from.iter().zip(to) {
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
#[inline]
fn line_end(bytes: &[u8], at: usize) -> usize {
    Cut::Line.end(bytes, at)
}

/// Spaces and tabs (and a CR before the line end): what separates the ids of a line.
#[inline]
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// An edge line's ids, and where each starts.
#[derive(Debug, Clone, Copy)]
struct Edge {
    u: u32,
    v: u32,
    u_at: usize,
    v_at: usize,
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
    let result = each_edge(bytes, start, end, nodes, |e| {
        columns.from.push(e.u);
        columns.to.push(e.v);
        true
    });
    (columns, result)
}

/// Reads the whole lines of `bytes[start..end]`, giving each edge to `each` until it returns
/// false; the first bad line's error.
fn each_edge(
    bytes: &[u8],
    start: usize,
    end: usize,
    nodes: Option<u32>,
    mut each: impl FnMut(Edge) -> bool,
) -> Result<(), ParseError> {
    let mut pos = start;
    while pos < end {
        // At a line start. Pieces end at line ends (or, on a stream, just past the longest
        // line's length), so only with more than that left can this line be too long.
        if end - pos > MAX_LINE {
            check_line_length(bytes, pos)?;
        }
        while pos < end && is_blank(bytes[pos]) {
            pos += 1;
        }
        match bytes.get(pos) {
            _ if pos >= end => break,
            Some(b'\n') => pos += 1,
            Some(b'#' | b'%') => pos = line_end(bytes, pos),
            _ => {
                let (e, next) = edge(bytes, pos, nodes)?;
                if !each(e) {
                    break;
                }
                pos = next;
            }
        }
    }
    Ok(())
}

/// An error when the line that starts at `at` holds more than [`MAX_LINE`] bytes.
#[cold]
fn check_line_length(bytes: &[u8], at: usize) -> Result<(), ParseError> {
    let head = &bytes[at..bytes.len().min(at + MAX_LINE + 1)];
    if head.len() <= MAX_LINE || head.contains(&b'\n') {
        return Ok(());
    }
    let reason = format!(
        "a line of more than {MAX_LINE} bytes; an edge line holds two node ids and at most an \
         empty `{{}}`"
    );
    let kind = ParseErrorKind::Invalid { expected: Expected::EdgeFrom, reason };
    Err(ParseError { offset: at, kind })
}

/// The edge on the line whose first id starts at `pos`, and the offset of the next line.
#[inline(always)]
fn edge(bytes: &[u8], pos: usize, nodes: Option<u32>) -> Result<(Edge, usize), ParseError> {
    let (u, after) = id(bytes, pos, nodes, Expected::EdgeFrom)?;
    let v_at = next_field(bytes, after, Expected::EdgeTo)?;
    let (v, after) = id(bytes, v_at, nodes, Expected::EdgeTo)?;
    let next = end_of_edge(bytes, after)?;
    Ok((Edge { u, v, u_at: pos, v_at }, next))
}

/// The offset of the field after the separator at `pos` (blanks, or a comma with optional
/// blanks around it); an error naming `expected` when the line ends instead.
#[inline]
fn next_field(bytes: &[u8], pos: usize, expected: Expected) -> Result<usize, ParseError> {
    let mut at = skip_blanks(bytes, pos);
    let comma = bytes.get(at) == Some(&b',');
    if comma {
        at = skip_blanks(bytes, at + 1);
    }
    if matches!(bytes.get(at), None | Some(b'\n')) {
        return Err(line_ends_early(at, expected, comma));
    }
    Ok(at)
}

#[cold]
fn line_ends_early(at: usize, expected: Expected, comma: bool) -> ParseError {
    let reason =
        if comma { "the line ends after a `,`" } else { "the line ends after one node id" };
    let kind = ParseErrorKind::Invalid { expected, reason: reason.to_string() };
    ParseError { offset: at, kind }
}

/// The offset of the next line, once the second id of an edge line has been read up to
/// `pos`: blanks, then the line end (or a third field).
#[inline]
fn end_of_edge(bytes: &[u8], pos: usize) -> Result<usize, ParseError> {
    let at = skip_blanks(bytes, pos);
    match bytes.get(at) {
        None => Ok(at),
        Some(b'\n') => Ok(at + 1),
        Some(_) => data_field(bytes, pos),
    }
}

/// The offset of the next line after the third field that follows `pos`: networkx's empty
/// data dict `{}`, or an error saying how to write the list without data. Kept out of line:
/// the lines of most lists end after their ids, and their path stays short.
#[inline(never)]
fn data_field(bytes: &[u8], pos: usize) -> Result<usize, ParseError> {
    let field = next_field(bytes, pos, Expected::EdgeEnd)?;
    if bytes[field..].starts_with(b"{}") {
        let at = skip_blanks(bytes, field + 2);
        match bytes.get(at) {
            None => return Ok(at),
            Some(b'\n') => return Ok(at + 1),
            Some(_) => {}
        }
    }
    let reason = format!(
        "found {}, a third field; an edge line holds two node ids and at most an empty `{{}}`: \
         write the list without data (networkx: write_edgelist(G, path, data=False))",
        quoted(&rest_of_line(bytes, field))
    );
    let kind = ParseErrorKind::Invalid { expected: Expected::EdgeEnd, reason };
    Err(ParseError { offset: field, kind })
}

/// The rest of the line from `at`, without trailing blanks, shortened and lossily decoded for
/// an error message (a data dict holds spaces: `{'weight': 3}`).
fn rest_of_line(bytes: &[u8], at: usize) -> String {
    let line = &bytes[at..line_end(bytes, at)];
    let len = line.iter().rposition(|&b| !is_blank(b) && b != b'\n').map_or(0, |i| i + 1);
    let mut text = String::from_utf8_lossy(&line[..len.min(QUOTE_MAX)]).into_owned();
    if len > QUOTE_MAX {
        text.push_str("...");
    }
    text
}

/// The id whose token starts at `pos` (a non-blank byte of the line), checked against `nodes`,
/// and the offset just past its digits. A token ends at a blank or the line end, as the
/// lexer reads it, or at a comma (`u,v`).
#[inline(always)]
fn id(
    bytes: &[u8],
    pos: usize,
    nodes: Option<u32>,
    expected: Expected,
) -> Result<(u32, usize), ParseError> {
    let (value, end) = match scan_number(bytes, pos) {
        Scanned::Number(value, end) => (value, end),
        _ => id_before_comma(bytes, pos, expected)?,
    };
    if let Some(n) = nodes.filter(|&n| value >= n) {
        let kind = ParseErrorKind::OutOfRange { expected, value, nodes: n };
        return Err(ParseError { offset: pos, kind });
    }
    Ok((value, end))
}

/// The id at `pos` when its token does not end at a blank: digits up to a comma (`u,v`), or
/// the lexer's error for the whole token. Out of line: the ids of most lists end at blanks.
#[inline(never)]
fn id_before_comma(
    bytes: &[u8],
    pos: usize,
    expected: Expected,
) -> Result<(u32, usize), ParseError> {
    let digits = bytes[pos..].iter().take_while(|b| b.is_ascii_digit()).count();
    let comma = digits > 0 && bytes.get(pos + digits) == Some(&b',');
    // The lexer reads the token, up to the comma or to its blank, and words any error.
    let end = if comma { pos + digits } else { bytes.len() };
    let mut lex = Lexer::at(&bytes[..end], pos);
    let value = lex.expect_u32(expected)?;
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
            for parallel in [false, true] {
                let streamed = pool.install(|| streamed(text, nodes, parallel, window));
                assert_eq!(streamed, one, "stream, window {window}");
            }
        }
        one
    }

    /// [`read_text`] of `text` given as a stream; an error's line and column must be those of
    /// its offset in `text`.
    fn streamed(
        text: &[u8],
        nodes: Option<u32>,
        parallel: bool,
        window: usize,
    ) -> Result<Csr, ParseError> {
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        let input = crate::io::input::Input::from_reader("t", reader).unwrap();
        let mut text_of = Text::stream(input.take_stream().unwrap());
        match read_text(&mut text_of, nodes, parallel, window, &()) {
            Ok(g) => Ok(g.into_chess().expect("narrow")),
            Err(Located { error, at }) => {
                let want = crate::parse::error::line_column(text, error.offset);
                assert_eq!(at, want, "window {window}: {error:?}");
                Err(error)
            }
        }
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
    fn reads_networkx_empty_data_and_comma_separated_pairs() {
        let text = b"0 1 {}\n0\t2\t{}  \r\n1,2\n2 , 3\n3,\t4,{}\n1 ,4 {}\n";
        let g = both(text, None).unwrap();
        assert_eq!(g.node_count(), 5);
        let lists: Vec<&[u32]> = (0..4).map(|v| g.successors(v)).collect();
        assert_eq!(lists, [&[1, 2][..], &[2, 4], &[3], &[4]]);
        assert_eq!(both(b"0,1", None).unwrap().successors(0), &[1]);
        assert_eq!(both(b"0 1 {}", None).unwrap().successors(0), &[1]);
    }

    #[test]
    fn a_third_field_says_how_to_write_the_list_without_data() {
        let err = both(b"0 1\n1 2 {'weight': 3}\n", None).unwrap_err();
        assert_eq!(err.offset, 8);
        assert_eq!(
            err.kind.to_string(),
            "the end of an edge line `u v`: found \"{'weight': 3}\", a third field; an edge \
             line holds two node ids and at most an empty `{}`: write the list without data \
             (networkx: write_edgelist(G, path, data=False))"
        );
        for (text, offset) in [
            (&b"0 1 7\n"[..], 4),
            (b"0,1,7\n", 4),
            (b"0 1 {} 7\n", 4),
            (b"0 1 {}x\n", 4),
            (b"0 1 { }\n", 4),
        ] {
            let err = both(text, None).unwrap_err();
            assert_eq!(err.offset, offset, "{:?}", String::from_utf8_lossy(text));
            assert!(err.kind.to_string().contains("data=False"), "{}", err.kind);
        }
    }

    #[test]
    fn bad_lines_are_errors_at_their_token() {
        let cases: [(&[u8], Option<u32>, usize); 12] = [
            (b"0 1\n0 x\n", None, 6),
            (b"0 1\n0\n", None, 5),
            (b"0 1\n0 1 1.5\n", None, 8),
            (b"0 1\n-1 0\n", None, 4),
            (b"0 1\n0 7\n", Some(3), 6),
            (b"0 4294967295\n", None, 2),
            (b"0 1\n0,\n", None, 6),
            (b"0 1\n0,,1\n", None, 6),
            (b"0 1\n0x,1\n", None, 4),
            (b"0 1\n99999999999,1\n", None, 4),
            (b"0 1\n0,7\n", Some(3), 6),
            (b"0 1\n1 2,{}\n", Some(2), 6),
        ];
        for (text, nodes, offset) in cases {
            let err = both(text, nodes).unwrap_err();
            assert_eq!(err.offset, offset, "{:?}: {}", String::from_utf8_lossy(text), err.kind);
        }
    }

    /// A line of more than `MAX_LINE` bytes is an error at its start, on every path (a stream
    /// cuts its window inside it); one of `MAX_LINE` bytes is read.
    #[test]
    fn a_line_longer_than_the_longest_is_refused() {
        let longest = format!("1{}2\n", " ".repeat(MAX_LINE - 2));
        let g = both(format!("0 1\n{longest}").as_bytes(), None).unwrap();
        assert_eq!(g.successors(1), &[2]);
        for line in [" ".repeat(MAX_LINE + 1), format!("# {}", "x".repeat(MAX_LINE)), longest] {
            let text = format!("0 1\n{}3 4\n", line.replace('\n', " "));
            let err = both(text.as_bytes(), None).unwrap_err();
            assert_eq!(err.offset, 4);
            assert!(err.kind.to_string().contains("a line of more than"), "{}", err.kind);
        }
    }

    #[test]
    fn a_huge_id_in_a_tiny_file_is_refused_unless_asked_for() {
        let err = both(b"0 4000000000\n", None).unwrap_err();
        assert!(err.kind.to_string().contains("give --nodes"), "{}", err.kind);
        assert_eq!(err.offset, 2);
        // Found where it stands after a comma, and named as the line's first or second node.
        let err = both(b"# c\n0 1 {}\n1,4000000000\n", None).unwrap_err();
        assert_eq!(err.offset, 13);
        assert!(matches!(err.kind, ParseErrorKind::Invalid { expected: Expected::EdgeTo, .. }));
        let err = both(b"0,1\n4000000000 , 1\n", None).unwrap_err();
        assert_eq!(err.offset, 4);
        assert!(matches!(err.kind, ParseErrorKind::Invalid { expected: Expected::EdgeFrom, .. }));
        // Its first mention, when larger ids come before and after it in other windows.
        let text = b"0 5\n1 3000000000\n2 3\n# x\n3 4000000000\n4000000000 1\n5 6\n";
        let err = both(text, None).unwrap_err();
        assert_eq!(err.offset, 27);
    }

    #[test]
    fn the_fallible_sort_is_the_sort() {
        let (from, to) = (vec![2, 0, 2, 1, 0], vec![1, 3, 0, 2, 2]);
        let plain: Csr<u32> = lists_by_source(4, from.clone(), to.clone());
        let fallible: Csr<u32> = try_lists_by_source(4, &from, &to).unwrap();
        assert_eq!(plain.offsets(), fallible.offsets());
        assert_eq!(plain.targets(), fallible.targets());
        assert_eq!(fallible.successors(2), &[1, 0]);
        let wide: Csr<u64> = try_lists_by_source(4, &from, &to).unwrap();
        assert_eq!(wide.targets(), plain.targets());
    }
}
