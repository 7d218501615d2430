//! Reports: the CSV rows of `values`, `solve --report` and `query` (here), and the statistics
//! of `stats` ([`stats`]), the plot of `octal` ([`plot`]).
//!
//! Rows are written into in-memory buffers, so parallel pieces can format their own rows and be
//! joined in input order; numbers are formatted with itoa, node rows with the csv crate.

use crate::answer::{self, Outcome};
use crate::eval::Values;

pub mod plot;
pub mod stats;
use crate::graph::GameGraph;

/// Columns of `grundy values`.
pub const VALUES_HEADER: &[&str] = &["case", "node", "grundy", "level", "out_degree"];
/// Columns of `grundy values --loopy`.
pub const LOOPY_VALUES_HEADER: &[&str] =
    &["case", "node", "grundy", "infinite_set", "outcome", "out_degree"];
/// Columns of `grundy solve --report`.
pub const SOLVE_HEADER: &[&str] =
    &["case", "query", "positions", "nim_sum", "result", "move_from", "move_to"];
/// Columns of `grundy query`.
pub const QUERY_HEADER: &[&str] =
    &["query", "positions", "nim_sum", "result", "move_from", "move_to"];

/// A CSV writer into a byte buffer.
pub struct Rows {
    writer: csv::Writer<Vec<u8>>,
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::new()
    }
}

impl Rows {
    /// An empty buffer of rows.
    pub fn new() -> Rows {
        Rows { writer: csv::WriterBuilder::new().from_writer(Vec::new()) }
    }

    /// The header line of `columns`.
    pub fn header(columns: &[&str]) -> Vec<u8> {
        let mut rows = Rows::new();
        rows.names(columns);
        rows.into_bytes()
    }

    /// Appends a row of column names.
    pub fn names(&mut self, columns: &[&str]) {
        self.record(columns.iter().map(|c| c.as_bytes()));
    }

    /// Appends a row of numbers (at most eight: the games' tables have four).
    pub fn numbers(&mut self, fields: &[u64]) {
        debug_assert!(fields.len() <= 8);
        let mut buffers: [itoa::Buffer; 8] = Default::default();
        self.record(buffers.iter_mut().zip(fields).map(|(b, &x)| b.format(x).as_bytes()));
    }

    /// Appends one record.
    fn record<'f>(&mut self, fields: impl IntoIterator<Item = &'f [u8]>) {
        // Writing into a Vec cannot fail.
        self.writer.write_record(fields).expect("CSV into memory");
    }

    /// Appends a `values` row.
    pub fn value_row(&mut self, case: u64, node: u32, grundy: u32, level: u32, out_degree: u32) {
        let mut buffers: [itoa::Buffer; 5] = Default::default();
        let [b0, b1, b2, b3, b4] = &mut buffers;
        self.record([
            b0.format(case).as_bytes(),
            b1.format(node).as_bytes(),
            b2.format(grundy).as_bytes(),
            b3.format(level).as_bytes(),
            b4.format(out_degree).as_bytes(),
        ]);
    }

    /// A row of `values --loopy`: the value (`inf` for [`Values::INFINITE`]), the set K of an
    /// infinite node (ascending, space-separated; empty for a finite one), and the outcome of
    /// one token there.
    pub fn loopy_row(&mut self, (case, node): (u64, u32), grundy: u32, set: &[u32], degree: u32) {
        let mut buffers: [itoa::Buffer; 4] = Default::default();
        let [b0, b1, b2, b3] = &mut buffers;
        let outcome = match (grundy, set.first()) {
            (Values::INFINITE, Some(0)) => Outcome::Win,
            (Values::INFINITE, _) => Outcome::Draw,
            (g, _) => Outcome::of_nim_sum(g),
        };
        let mut list = Vec::new();
        push_list(&mut list, set);
        let grundy = if grundy == Values::INFINITE { "inf" } else { b2.format(grundy) };
        self.record([
            b0.format(case).as_bytes(),
            b1.format(node).as_bytes(),
            grundy.as_bytes(),
            &list,
            outcome.word().as_bytes(),
            b3.format(degree).as_bytes(),
        ]);
    }

    /// The rows written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.writer.into_inner().expect("CSV into memory")
    }
}

/// Appends a query row to `out`: `case` first when given (`solve --report`), then the query
/// number, the positions (space-separated), nim-sum, result and the winning move: the token's
/// position and where it goes (the parts of the sum, space-separated, in the sums format);
/// both empty for a LOSE. Written directly rather than through a csv writer: a row is answered on its own, in
/// parallel pieces, and its fields (digits, spaces, `WIN`, `LOSE`) never need quoting. Returns
/// the outcome, for the judge line beside the row.
pub fn push_query_row(
    out: &mut Vec<u8>,
    case: Option<u64>,
    query_number: u64,
    positions: &[u32],
    graph: &GameGraph,
    values: &Values,
) -> Outcome {
    let nim_sum = values.nim_sum(positions);
    let winning = answer::winning_move(graph, values, positions, nim_sum);
    let outcome = Outcome::of_nim_sum(nim_sum);
    push_row(out, case, query_number, positions, (nim_sum, outcome), winning);
    outcome
}

/// Appends a query row of a loopy game (values from [`loopy`](fn@crate::eval::loopy)), as
/// [`push_query_row`] does for an acyclic one: the nim-sum of the finite tokens, WIN, LOSE or
/// DRAW, and a winning move.
pub fn push_loopy_row(
    out: &mut Vec<u8>,
    (case, query_number): (Option<u64>, u64),
    positions: &[u32],
    graph: &GameGraph,
    values: &Values,
) -> Outcome {
    let answer = answer::loopy_answer_of(graph, values, positions, true);
    let to = answer.winning.map(|(from, to)| (from, [to]));
    let winning = to.as_ref().map(|(from, to)| (*from, &to[..]));
    push_row(out, case, query_number, positions, (answer.nim_sum, answer.outcome), winning);
    answer.outcome
}

/// Appends a query row from its parts: `case` first when given, the query number, the
/// positions, the nim-sum and the result, and the winning move's token and parts (empty for a
/// LOSE or a DRAW). The one formatter of query rows, for one process, a cluster and loopy
/// games.
pub fn push_row(
    out: &mut Vec<u8>,
    case: Option<u64>,
    query_number: u64,
    positions: &[u32],
    (nim_sum, outcome): (u32, Outcome),
    winning: Option<(u32, &[u32])>,
) {
    let mut num = itoa::Buffer::new();
    if let Some(case) = case {
        out.extend_from_slice(num.format(case).as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(num.format(query_number).as_bytes());
    out.push(b',');
    push_list(out, positions);
    out.push(b',');
    out.extend_from_slice(num.format(nim_sum).as_bytes());
    out.push(b',');
    out.extend_from_slice(outcome.word().as_bytes());
    out.push(b',');
    if let Some((from, to)) = winning {
        out.extend_from_slice(num.format(from).as_bytes());
        out.push(b',');
        push_list(out, to);
    } else {
        out.push(b',');
    }
    out.push(b'\n');
}

/// Appends `ids` separated by spaces.
fn push_list(out: &mut Vec<u8>, ids: &[u32]) {
    let mut num = itoa::Buffer::new();
    for (i, &p) in ids.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(num.format(p).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Csr;

    #[test]
    fn rows_are_plain_csv() {
        let g = GameGraph::Chess(Csr::from_lists(&[vec![1], vec![]]).unwrap());
        let values = Values::from_vec(vec![1, 0]);
        let mut text = Vec::new();
        push_query_row(&mut text, Some(2), 5, &[0, 1], &g, &values);
        push_query_row(&mut text, None, 6, &[1], &g, &values);
        let mut rows = Rows::new();
        rows.value_row(1, 0, 1, 1, 1);
        text.extend_from_slice(&rows.into_bytes());
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "2,5,0 1,1,WIN,0,1\n6,1,0,LOSE,,\n1,0,1,1,1\n"
        );
        assert_eq!(
            Rows::header(QUERY_HEADER),
            b"query,positions,nim_sum,result,move_from,move_to\n"
        );
    }
}
