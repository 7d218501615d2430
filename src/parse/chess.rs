//! The "A Chess Game" input format (POJ 2425, AcWing 909), read case by case.
//!
//! A case is `N`, then for each node `i` in `0..N` its out-degree `X_i` and `X_i` out-positions,
//! then queries `M p_1 .. p_M`; `M = 0` or the end of the input ends the case. The graph of a
//! case is read whole (it must be evaluated before its first query is answered); queries are
//! read one at a time, so a query section of any length takes no memory.

use crate::graph::sums::SumsGraph;
use crate::graph::{GameGraph, OffsetsBuilder};
use crate::io::input::Input;
use crate::meter::Meter;
use crate::parse::error::{checked_total, Expected, ParseError, ParseErrorKind, Queries, Total};
use crate::parse::lexer::Lexer;
use crate::parse::walk::query_too_long;

/// Nodes read between two progress reports.
const NODES_PER_REPORT: u32 = 1 << 16;
/// Queries read between two hand-backs of read pages (each a no-op below the input's step).
const QUERIES_PER_RELEASE: u64 = 1 << 12;

/// Reads cases and queries from chess-format bytes.
#[derive(Debug)]
pub struct ChessReader<'a> {
    lex: Lexer<'a>,
    case: u64,
    query: u64,
    nodes: u32,
    meter: &'a dyn Meter,
    /// Where the queries being read stand: in the current case, or in a file of queries alone.
    at: Queries,
    /// The input whose pages this reader hands back once it has read them, if any.
    input: Option<&'a Input>,
    /// The most tokens a query may hold.
    max_query: u32,
}

impl<'a> ChessReader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> ChessReader<'a> {
        ChessReader {
            lex: Lexer::new(bytes),
            case: 0,
            query: 0,
            nodes: 0,
            meter: &(),
            at: Queries::in_case(0),
            input: None,
            max_query: crate::parse::walk::DEFAULT_MAX_QUERY,
        }
    }

    /// A reader of `bytes` as queries only (no case header, no graph), on a graph of `nodes`
    /// nodes: the query file of `grundy query`. Errors name no case.
    pub fn queries_only(bytes: &'a [u8], nodes: u32) -> ChessReader<'a> {
        ChessReader::new(bytes).alone(nodes)
    }

    /// This reader, reading its input as queries only on a graph of `nodes` nodes.
    pub fn alone(self, nodes: u32) -> ChessReader<'a> {
        ChessReader { nodes, at: Queries::Alone, ..self }
    }

    /// This reader, telling `meter` the bytes read while it reads a graph.
    pub fn with_meter(self, meter: &'a dyn Meter) -> ChessReader<'a> {
        ChessReader { meter, ..self }
    }

    /// A reader of `input`'s bytes that hands the pages it has read back to the kernel
    /// ([`Input::release_before`]), so a file larger than memory streams through.
    pub fn of(input: &'a Input) -> ChessReader<'a> {
        let max_query = crate::parse::walk::max_query_of(input);
        ChessReader { input: Some(input), max_query, ..ChessReader::new(input.bytes()) }
    }

    /// Hands back the pages before the current offset (a no-op below the input's step).
    fn release(&self) {
        if let Some(input) = self.input {
            input.release_before(self.lex.offset());
        }
    }

    /// Reports the bytes read every [`NODES_PER_REPORT`] nodes.
    #[inline]
    fn report(&self, node: u32) {
        if node % NODES_PER_REPORT == 0 {
            self.meter.set(self.lex.offset() as u64);
        }
    }

    /// Bytes read so far.
    pub fn offset(&self) -> usize {
        self.lex.offset()
    }

    /// The offset of the next token, if any input is left.
    pub fn next_token_offset(&mut self) -> Option<usize> {
        self.lex.at_token().then(|| self.lex.offset())
    }

    /// The 1-based number of the case last started (0 before the first).
    pub fn case(&self) -> u64 {
        self.case
    }

    /// Starts the next case and reads its graph; `None` at the end of the input.
    ///
    /// Capacities are capped by the bytes left, since each node and each edge takes at least
    /// one byte: a file claiming four billion nodes fails at its end, having allocated little.
    ///
    /// A case of more than `u32::MAX` edges gets 64-bit offsets ([`OffsetsBuilder`]).
    pub fn next_graph(&mut self) -> Result<Option<GameGraph>, ParseError> {
        let case = self.case + 1;
        let Some(n) = self.lex.next_u32(Expected::NodeCount { case })? else {
            return Ok(None);
        };
        (self.case, self.query, self.nodes, self.at) = (case, 0, n, Queries::in_case(case));
        let cap = |count: u32, lex: &Lexer| (count as usize).min(lex.remaining() / 2 + 1);
        let mut offsets = OffsetsBuilder::with_capacity(cap(n, &self.lex));
        let mut targets: Vec<u32> = Vec::new();
        for node in 0..n {
            self.report(node);
            let degree = self.lex.expect_u32(Expected::OutDegree { case, node })?;
            targets.reserve(cap(degree, &self.lex));
            for index in 1..=degree {
                let expected = Expected::OutPosition { case, node, index, of: degree };
                targets.push(self.node_id(expected)?);
            }
            offsets.push(targets.len() as u64);
        }
        // The graph's text is parsed: its pages need not stay mapped while it is evaluated.
        self.release();
        // The loop above checked every id and built the offsets.
        Ok(Some(offsets.into_graph(targets)))
    }

    /// Starts the next case and reads its game in the sums format: node `i` is `K_i` and `K_i`
    /// moves, each `c q_1 .. q_c` (a sum of `c` positions); `None` at the end of the input.
    pub fn next_sums_graph(&mut self) -> Result<Option<SumsGraph>, ParseError> {
        let case = self.case + 1;
        let Some(n) = self.lex.next_u32(Expected::NodeCount { case })? else {
            return Ok(None);
        };
        (self.case, self.query, self.nodes, self.at) = (case, 0, n, Queries::in_case(case));
        let cap = |count: u32, lex: &Lexer| (count as usize).min(lex.remaining() / 2 + 1);
        let mut move_offsets = Vec::with_capacity(cap(n, &self.lex) + 1);
        let (mut part_offsets, mut parts) = (vec![0u32], Vec::new());
        move_offsets.push(0u32);
        for node in 0..n {
            self.report(node);
            let (node_at, moves) = (self.lex.offset(), Expected::MoveCount { case, node });
            let of = self.lex.expect_u32(moves)?;
            part_offsets.reserve(cap(of, &self.lex));
            for index in 1..=of {
                let (at, counted) =
                    (self.lex.offset(), Expected::PartCount { case, node, index, of });
                let count = self.lex.expect_u32(counted)?;
                parts.reserve(cap(count, &self.lex));
                for part in 1..=count {
                    let expected =
                        Expected::Part { case, node, move_index: index, index: part, of: count };
                    parts.push(self.node_id(expected)?);
                }
                let at = || self.token_after(at);
                part_offsets.push(checked_total(parts.len() as u64, at, counted, Total::Parts)?);
            }
            let total = part_offsets.len() as u64 - 1;
            let at = || self.token_after(node_at);
            move_offsets.push(checked_total(total, at, moves, Total::Moves)?);
        }
        self.release();
        // The loops above checked every id and built the offsets.
        Ok(Some(SumsGraph::from_checked_parts(move_offsets, part_offsets, parts)))
    }

    /// The offset of the first token at or after `offset` (error path only: where a count
    /// read from there starts; the hot loops keep the cheap offset before the whitespace).
    fn token_after(&self, offset: usize) -> usize {
        let mut lex = self.lex.clone();
        lex.seek(offset);
        lex.at_token();
        lex.offset()
    }

    /// Reads the next query of the current case into `positions`; false when the case ends
    /// (a query of length 0, or the end of the input).
    pub fn next_query(&mut self, positions: &mut Vec<u32>) -> Result<bool, ParseError> {
        let query = self.query + 1;
        self.lex.at_token();
        let start = self.lex.offset();
        let Some(m) = self.lex.next_u32(Expected::QueryLength { case: self.at, query })? else {
            return Ok(false);
        };
        if m == 0 {
            return Ok(false);
        }
        if m > self.max_query {
            return Err(query_too_long((self.at, query), m, self.max_query, start));
        }
        self.query = query;
        positions.clear();
        for index in 1..=m {
            positions.push(self.node_id(Expected::QueryPosition {
                case: self.at,
                query,
                index,
                of: m,
            })?);
        }
        if query % QUERIES_PER_RELEASE == 0 {
            self.release();
        }
        Ok(true)
    }

    /// A token that must be a node id of the current case.
    #[inline]
    fn node_id(&mut self, expected: Expected) -> Result<u32, ParseError> {
        self.lex.at_token();
        let start = self.lex.offset();
        let id = self.lex.expect_u32(expected)?;
        if id >= self.nodes {
            return Err(ParseError {
                offset: start,
                kind: ParseErrorKind::OutOfRange { expected, value: id, nodes: self.nodes },
            });
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_seed_sample_case_by_case() {
        let text =
            b"4\n2 1 2\n0\n1 3\n0\n1 0\n2 0 2\n0\n\n4\n1 1\n1 2\n0\n0\n2 0 1\n2 1 1\n3 0 1 3\n0\n";
        let mut r = ChessReader::new(text);
        let g = r.next_graph().unwrap().unwrap().into_chess().unwrap();
        assert_eq!((g.node_count(), g.edge_count()), (4, 3));
        assert_eq!(g.successors(0), &[1, 2]);
        let mut q = Vec::new();
        assert!(r.next_query(&mut q).unwrap());
        assert_eq!(q, vec![0]);
        assert!(r.next_query(&mut q).unwrap());
        assert_eq!(q, vec![0, 2]);
        assert!(!r.next_query(&mut q).unwrap());
        let g = r.next_graph().unwrap().unwrap();
        assert_eq!((r.case(), g.node_count(), g.total_moves()), (2, 4, 2));
        for expected in [vec![0, 1], vec![1, 1], vec![0, 1, 3]] {
            assert!(r.next_query(&mut q).unwrap());
            assert_eq!(q, expected);
        }
        assert!(!r.next_query(&mut q).unwrap());
        assert!(r.next_graph().unwrap().is_none());
    }

    #[test]
    fn missing_final_zero_ends_the_case() {
        let mut r = ChessReader::new(b"1 0 1 0");
        let mut q = Vec::new();
        r.next_graph().unwrap().unwrap();
        assert!(r.next_query(&mut q).unwrap());
        assert!(!r.next_query(&mut q).unwrap());
        assert!(r.next_graph().unwrap().is_none());
    }

    #[test]
    fn out_of_range_points_at_the_token() {
        let mut r = ChessReader::new(b"2\n1   5\n0\n");
        let err = r.next_graph().unwrap_err();
        assert_eq!(err.offset, 6);
        assert!(matches!(err.kind, ParseErrorKind::OutOfRange { value: 5, nodes: 2, .. }));
    }

    #[test]
    fn huge_claimed_counts_fail_without_allocating_them() {
        let mut r = ChessReader::new(b"4000000000 0 0");
        let err = r.next_graph().unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::UnexpectedEnd { .. }));
        let mut r = ChessReader::new(b"2 4294967295 1");
        let err = r.next_graph().unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::UnexpectedEnd { .. }));
    }
}
