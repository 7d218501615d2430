//! The chess family's grammar, written once for the readers that hop over record headers:
//! which token of a file opens which record, what each record's list is, and what the error
//! names when a token is missing or out of range.
//!
//! A file is a sequence of *records*, each a header token and a list of `len` tokens after it:
//! a case's node count (no list), a node's out-degree and out-positions (chess format), a
//! node's move count (no list) and each move's part count and parts (sums format), a query's
//! length and positions, a query of length 0 ending the case. [`Walk`] is where a walk stands
//! between records; [`Walk::take`] reads the next header and says what record it opens. The
//! state is small and serializable, so a cluster passes it from worker to worker; the parallel
//! reader (`chess_parallel`) and a cluster worker's share (`cluster::shard`) both walk with it,
//! each handling the lists its own way (keeping, hopping, weighing). The sequential reader
//! (`chess`) stays written by hand: the independent reference both are tested against.

use serde::{Deserialize, Serialize};

use crate::parse::error::{Expected, ParseError, ParseErrorKind, Queries};

/// What a walk reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Every case of a game file, graphs and queries.
    Cases,
    /// The first case's graph of a game file (`query`'s GRAPH), nothing after it.
    FirstGraph,
    /// A file of queries alone (`query`'s QUERIES).
    Queries,
}

/// The record the walk expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Next {
    /// A node count opening a case.
    Case,
    /// The out-degree (chess) or move count (sums) of this node of the current case.
    Node(u32),
    /// The part count of move `index` of `of` of this node (sums format).
    Move {
        /// 0-based node.
        node: u32,
        /// 1-based move.
        index: u32,
        /// The node's move count.
        of: u32,
    },
    /// The length of this query (1-based) of the current case.
    Query(u64),
    /// Nothing more is read (`query`'s graph file after its first graph).
    Done,
    /// Nothing more may follow (a query file after its final 0).
    End,
}

/// What a header opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    /// Case `case` of `nodes` nodes.
    Case {
        /// 1-based case.
        case: u64,
        /// Its node count.
        nodes: u32,
    },
    /// A chess node's list of `len` out-positions.
    Node {
        /// 0-based node.
        node: u32,
        /// Its out-degree.
        len: u32,
    },
    /// A sums node's move count (its moves follow as records of their own).
    Moves {
        /// 0-based node.
        node: u32,
        /// Its move count.
        of: u32,
    },
    /// A sums move's list of `len` parts.
    Move {
        /// 0-based node.
        node: u32,
        /// 1-based move.
        index: u32,
        /// The node's move count.
        of: u32,
        /// Its part count.
        len: u32,
    },
    /// A query's list of `len` positions.
    Query {
        /// 1-based query within its case (or file).
        number: u64,
        /// Its length.
        len: u32,
    },
    /// A query of length 0: the case (or the query file) ends.
    Ended,
    /// A token after a query file's final 0: an error.
    Trailing,
}

impl Record {
    /// The number of list tokens that follow the header.
    #[inline]
    pub fn len(&self) -> u32 {
        match *self {
            Record::Node { len, .. } | Record::Move { len, .. } | Record::Query { len, .. } => len,
            _ => 0,
        }
    }

    /// True when no list follows the header.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a walk over a chess-family file stands between two records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walk {
    /// 1-based number of the current case (0 before the first).
    pub case: u64,
    /// Global id of node 0 of the current case (the node counts of the cases before it).
    pub base: u64,
    /// Node count of the current case.
    pub nodes: u32,
    /// What the next record is.
    pub next: Next,
    /// The sums format (a node's moves lead to sums of positions) rather than the chess one.
    pub sums: bool,
    /// What is read.
    pub mode: Mode,
    /// The most tokens a query may hold ([`Walk::with_max_query`]).
    pub max_query: u32,
}

/// The most tokens one query may hold unless the user says otherwise (`--max-query-tokens`):
/// a query's tokens are held together until it is answered (4 bytes each), so one line of a
/// stranger's must not choose how much memory that takes.
pub const DEFAULT_MAX_QUERY: u32 = 1_000_000;

/// The most tokens a query of `input` may hold: what its opener said, or the default.
pub fn max_query_of(input: &crate::io::input::Input) -> u32 {
    input.max_query_tokens().unwrap_or(DEFAULT_MAX_QUERY)
}

impl Walk {
    /// The state at the start of a game file (chess format, or sums with `sums`), reading
    /// every case or, in [`Mode::FirstGraph`], the first graph only.
    pub fn start(mode: Mode, sums: bool) -> Walk {
        let max_query = DEFAULT_MAX_QUERY;
        Walk { case: 0, base: 0, nodes: 0, next: Next::Case, sums, mode, max_query }
    }

    /// The state at the start of a file of queries alone, on a graph of `nodes` nodes.
    pub fn queries(nodes: u32) -> Walk {
        let (next, max_query) = (Next::Query(1), DEFAULT_MAX_QUERY);
        Walk { case: 1, base: 0, nodes, next, sums: false, mode: Mode::Queries, max_query }
    }

    /// This walk, refusing a query of more than `max` tokens ([`query_too_long`]).
    pub fn with_max_query(self, max: u32) -> Walk {
        Walk { max_query: max, ..self }
    }

    /// Reads `header`, the next record's header token, and says what record it opens; the
    /// walk then stands after the record's list. Not to be called once [`Next::Done`].
    #[inline]
    pub fn take(&mut self, header: u32) -> Record {
        match self.next {
            Next::Case => {
                self.base += u64::from(self.nodes);
                self.case += 1;
                self.nodes = header;
                self.next = if header > 0 { Next::Node(0) } else { self.after_graph() };
                Record::Case { case: self.case, nodes: header }
            }
            Next::Node(node) if self.sums => {
                self.next = match header {
                    0 => self.after_node(node),
                    of => Next::Move { node, index: 1, of },
                };
                Record::Moves { node, of: header }
            }
            Next::Node(node) => {
                self.next = self.after_node(node);
                Record::Node { node, len: header }
            }
            Next::Move { node, index, of } => {
                self.next = match index == of {
                    true => self.after_node(node),
                    false => Next::Move { node, index: index + 1, of },
                };
                Record::Move { node, index, of, len: header }
            }
            Next::Query(_) if header == 0 => {
                self.next = if self.mode == Mode::Queries { Next::End } else { Next::Case };
                Record::Ended
            }
            Next::Query(number) => {
                self.next = Next::Query(number + 1);
                Record::Query { number, len: header }
            }
            Next::Done | Next::End => Record::Trailing,
        }
    }

    /// Whether the walk stands where the input may end: between cases, among a case's
    /// queries, or done.
    pub fn may_end(&self) -> bool {
        !matches!(self.next, Next::Node(_) | Next::Move { .. })
    }

    /// True while the walk reads the graph of a case (its node records).
    pub fn in_graph(&self) -> bool {
        matches!(self.next, Next::Node(_) | Next::Move { .. })
    }

    /// Where queries stand, as errors name them: in the current case, or in a file of queries
    /// alone.
    pub fn queries_at(&self) -> Queries {
        match self.mode {
            Mode::Queries => Queries::Alone,
            _ => Queries::in_case(self.case),
        }
    }

    /// What the next header is, for an error where it is missing or not a number.
    pub fn expected(&self) -> Expected {
        let case = self.case;
        match self.next {
            Next::Case => Expected::NodeCount { case: case + 1 },
            Next::Node(node) if self.sums => Expected::MoveCount { case, node },
            Next::Node(node) => Expected::OutDegree { case, node },
            Next::Move { node, index, of } => Expected::PartCount { case, node, index, of },
            Next::Query(query) => Expected::QueryLength { case: self.queries_at(), query },
            Next::Done | Next::End => Expected::QueryLength { case: self.queries_at(), query: 0 },
        }
    }

    /// What token `index` (1-based) of the list of `record` is, for an error there. `record`
    /// is the one this walk's last [`Walk::take`] returned.
    pub fn item(&self, record: &Record, index: u32) -> Expected {
        let case = self.case;
        match *record {
            Record::Node { node, len } => Expected::OutPosition { case, node, index, of: len },
            Record::Move { node, index: move_index, len, .. } => {
                Expected::Part { case, node, move_index, index, of: len }
            }
            Record::Query { number, len } => {
                Expected::QueryPosition { case: self.queries_at(), query: number, index, of: len }
            }
            _ => self.expected(),
        }
    }

    fn after_node(&self, node: u32) -> Next {
        if node + 1 < self.nodes {
            Next::Node(node + 1)
        } else {
            self.after_graph()
        }
    }

    fn after_graph(&self) -> Next {
        if self.mode == Mode::FirstGraph {
            Next::Done
        } else {
            Next::Query(1)
        }
    }
}

/// The error for query `query` of `at` (its case, or a file of queries alone), whose token
/// count at byte `offset` says `len`, more than `max`: the one constructor of this error, for
/// the sequential reader and the walkers alike.
#[cold]
pub fn query_too_long(
    (at, query): (Queries, u64),
    len: u32,
    max: u32,
    offset: usize,
) -> ParseError {
    let expected = Expected::QueryLength { case: at, query };
    let reason =
        format!("{len} tokens, more than a query may hold ({max}; --max-query-tokens raises it)");
    ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } }
}

/// The error for token `value` at byte `offset`, which stands for `expected` and names a node
/// of a case of `nodes` nodes but is not one: the one constructor of this error.
pub fn out_of_range(offset: usize, expected: Expected, value: u32, nodes: u32) -> ParseError {
    ParseError { offset, kind: ParseErrorKind::OutOfRange { expected, value, nodes } }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every record of `tokens` walked from `walk`, as (what it opened, what the next header
    /// would be expected as).
    fn records(mut walk: Walk, tokens: &[u32]) -> Vec<Record> {
        let mut out = Vec::new();
        let mut k = 0;
        while k < tokens.len() && walk.next != Next::Done {
            let record = walk.take(tokens[k]);
            k += 1 + record.len() as usize;
            out.push(record);
        }
        out
    }

    #[test]
    fn chess_records_follow_the_format() {
        // Two cases: 2 nodes (0 -> 1), a query, the end; then 0 nodes and a query.
        let tokens = [2, 1, 1, 0, 1, 0, 0, 0, 2, 0, 0];
        let walk = Walk::start(Mode::Cases, false);
        assert_eq!(
            records(walk, &tokens),
            vec![
                Record::Case { case: 1, nodes: 2 },
                Record::Node { node: 0, len: 1 },
                Record::Node { node: 1, len: 0 },
                Record::Query { number: 1, len: 1 },
                Record::Ended,
                Record::Case { case: 2, nodes: 0 },
                Record::Query { number: 1, len: 2 },
            ]
        );
        let first = records(Walk::start(Mode::FirstGraph, false), &tokens);
        assert_eq!(first.len(), 3, "the first graph only: {first:?}");
        let mut walk = Walk::start(Mode::Cases, false);
        walk.take(2);
        assert_eq!(walk.take(1), Record::Node { node: 0, len: 1 });
        assert_eq!(walk.base, 0);
        assert_eq!(walk.expected(), Expected::OutDegree { case: 1, node: 1 });
        assert!(!walk.may_end());
    }

    #[test]
    fn sums_records_open_a_record_per_move() {
        // 2 nodes: node 0 has 2 moves (to 1 + 1, and to the empty sum), node 1 none.
        let tokens = [2, 2, 2, 1, 1, 0, 0, 1, 0];
        let records = records(Walk::start(Mode::Cases, true), &tokens);
        assert_eq!(
            records,
            vec![
                Record::Case { case: 1, nodes: 2 },
                Record::Moves { node: 0, of: 2 },
                Record::Move { node: 0, index: 1, of: 2, len: 2 },
                Record::Move { node: 0, index: 2, of: 2, len: 0 },
                Record::Moves { node: 1, of: 0 },
                Record::Query { number: 1, len: 1 },
            ]
        );
        let mut walk = Walk::start(Mode::Cases, true);
        let case = walk.take(2);
        assert_eq!(case, Record::Case { case: 1, nodes: 2 });
        walk.take(2);
        assert_eq!(walk.expected(), Expected::PartCount { case: 1, node: 0, index: 1, of: 2 });
        let record = walk.take(3);
        assert_eq!(
            walk.item(&record, 2),
            Expected::Part { case: 1, node: 0, move_index: 1, index: 2, of: 3 }
        );
    }

    #[test]
    fn a_query_file_ends_at_its_zero() {
        let mut walk = Walk::queries(5);
        assert_eq!(walk.take(2), Record::Query { number: 1, len: 2 });
        let record = Record::Query { number: 1, len: 2 };
        assert_eq!(
            walk.item(&record, 1),
            Expected::QueryPosition { case: Queries::Alone, query: 1, index: 1, of: 2 }
        );
        assert_eq!(walk.take(0), Record::Ended);
        assert_eq!(walk.next, Next::End);
        assert_eq!(walk.take(3), Record::Trailing);
    }
}
