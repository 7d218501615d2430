//! The CSV rows of `values`, `solve --report` and `query`, and [`Csv`], the row sink that
//! writes them: the default output, and the fast path the columnar sinks must not slow down.
//!
//! Rows are written into in-memory buffers, so parallel pieces can format their own rows and be
//! joined in input order; numbers are formatted with itoa, node rows with the csv crate, query
//! rows straight into bytes (their fields never need quoting).

use crate::error::Error;
use crate::eval::Values;
use crate::io::sink::Put;
use crate::play::{Answer, Verdict};

use super::{Column, Columns, LoopyPiece, QueryPiece, QueryRow, RowSink, Table, ValuePiece};
use super::{PlayNumbers, PlayPiece};
use super::{LOOPY_VALUES_HEADER, VALUES_HEADER};

/// A CSV writer into a byte buffer.
pub struct Rows {
    writer: ::csv::Writer<Vec<u8>>,
}

impl Default for Rows {
    fn default() -> Rows {
        Rows::new()
    }
}

impl Rows {
    /// An empty buffer of rows.
    pub fn new() -> Rows {
        Rows { writer: ::csv::WriterBuilder::new().from_writer(Vec::new()) }
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
        let outcome = super::loopy_outcome(grundy, set);
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

impl ValuePiece for Rows {
    #[inline]
    fn value_row(&mut self, case: u64, node: u32, grundy: u32, level: u32, out_degree: u32) {
        Rows::value_row(self, case, node, grundy, level, out_degree);
    }
}

impl LoopyPiece for Rows {
    #[inline]
    fn loopy_row(&mut self, at: (u64, u32), grundy: u32, set: &[u32], degree: u32) {
        Rows::loopy_row(self, at, grundy, set, degree);
    }
}

impl QueryPiece for Vec<u8> {
    #[inline]
    fn push(&mut self, columns: &Columns, row: &QueryRow) {
        push_row(self, columns, row);
    }
}

/// A play's rows straight into bytes, as query rows are: their fields are digits, spaces,
/// words and (a reason) text quoted when it needs to be.
impl PlayPiece for Vec<u8> {
    fn play_value_row(&mut self, case: u64, node: [u32; 4], numbers: PlayNumbers<'_>) {
        let mut num = itoa::Buffer::new();
        self.extend_from_slice(num.format(case).as_bytes());
        for x in node {
            self.push(b',');
            push_number(self, x, &mut num);
        }
        match numbers {
            PlayNumbers::None => {}
            PlayNumbers::Count(count) => {
                self.push(b',');
                push_number(self, count, &mut num);
            }
            PlayNumbers::Misere { grundy, heap, genus } => {
                self.extend_from_slice(if grundy == 0 { b",LOSE," } else { b",WIN," });
                push_number(self, grundy, &mut num);
                self.push(b',');
                if let Some(heap) = heap {
                    push_number(self, heap, &mut num);
                }
                if let Some(genus) = genus {
                    self.push(b',');
                    push_list(self, genus.unwrap_or_default());
                }
            }
        }
        self.push(b'\n');
    }

    fn play_query_row(&mut self, (case, number): (u64, u64), positions: &[u32], answer: &Answer) {
        let mut num = itoa::Buffer::new();
        self.extend_from_slice(num.format(case).as_bytes());
        self.push(b',');
        self.extend_from_slice(num.format(number).as_bytes());
        self.push(b',');
        push_list(self, positions);
        self.push(b',');
        self.extend_from_slice(answer.verdict.word().as_bytes());
        self.push(b',');
        push_ids(self, answer.moves.iter().map(|&(from, _)| from));
        self.push(b',');
        push_ids(self, answer.moves.iter().map(|&(_, to)| to));
        self.push(b',');
        if let Verdict::Undecided(why) = answer.verdict {
            push_text(self, why);
        }
        self.push(b'\n');
    }
}

/// Appends `text` as one CSV field: in quotes (doubled within) when it holds a comma, a quote
/// or a line end.
fn push_text(out: &mut Vec<u8>, text: &str) {
    if !text.contains([',', '"', '\n', '\r']) {
        return out.extend_from_slice(text.as_bytes());
    }
    out.push(b'"');
    out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
    out.push(b'"');
}

/// The CSV row sink: header and rows, bytes as they are put, to any [`Put`].
pub struct Csv<'a, P: Put> {
    out: &'a mut P,
}

impl<'a, P: Put> Csv<'a, P> {
    /// Rows written to `out` as CSV.
    pub fn new(out: &'a mut P) -> Csv<'a, P> {
        Csv { out }
    }

    /// Nothing is held back: every row was written when it was put.
    pub fn finish(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<P: Put> RowSink for Csv<'_, P> {
    type Values = Rows;
    type Loopy = Rows;
    type Queries = Vec<u8>;
    type Play = Vec<u8>;

    fn start(&mut self, table: Table) -> Result<(), Error> {
        let header = match table {
            Table::Values => Rows::header(VALUES_HEADER),
            Table::LoopyValues => Rows::header(LOOPY_VALUES_HEADER),
            Table::Queries(columns) => columns.header(),
            Table::PlayValues(_) | Table::PlayQueries => Rows::header(&table.names()),
        };
        Ok(self.out.put(&header)?)
    }

    fn put_values(&mut self, piece: Rows) -> Result<(), Error> {
        Ok(self.out.put(&piece.into_bytes())?)
    }

    fn put_loopy(&mut self, piece: Rows) -> Result<(), Error> {
        Ok(self.out.put(&piece.into_bytes())?)
    }

    fn put_queries(&mut self, piece: &Vec<u8>) -> Result<(), Error> {
        Ok(self.out.put(piece)?)
    }

    fn put_play(&mut self, piece: &Vec<u8>) -> Result<(), Error> {
        Ok(self.out.put(piece)?)
    }

    fn is_closed(&self) -> bool {
        self.out.is_closed()
    }
}

/// Appends `row` in `columns`. The one formatter of query rows, for one process, a cluster
/// and loopy games. Written directly rather than through a csv writer: a row is answered on
/// its own, in parallel pieces, and its fields (digits, spaces, `WIN`, `LOSE`, `DRAW`) never
/// need quoting.
pub fn push_row(out: &mut Vec<u8>, columns: &Columns, row: &QueryRow) {
    if let Some(with_case) = columns.whole() {
        return push_whole_row(out, with_case, row);
    }
    let mut num = itoa::Buffer::new();
    for (i, column) in columns.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match column {
            Column::Case => out.extend_from_slice(num.format(row.case).as_bytes()),
            Column::Query => out.extend_from_slice(num.format(row.number).as_bytes()),
            Column::Positions => push_list(out, row.positions),
            Column::NimSum => out.extend_from_slice(num.format(row.nim_sum).as_bytes()),
            Column::Result => out.extend_from_slice(row.outcome.word().as_bytes()),
            Column::MoveFrom => {
                if let Some((from, _)) = row.winning {
                    out.extend_from_slice(num.format(from).as_bytes());
                }
            }
            Column::MoveTo => {
                if let Some((_, to)) = row.winning {
                    push_list(out, to);
                }
            }
        }
    }
    out.push(b'\n');
}

/// [`push_row`] of every column (with the case first or not), written straight: fewer
/// instructions per row than choosing each column (measured: 5% of a `solve --report` run).
fn push_whole_row(out: &mut Vec<u8>, with_case: bool, row: &QueryRow) {
    let mut num = itoa::Buffer::new();
    if with_case {
        out.extend_from_slice(num.format(row.case).as_bytes());
        out.push(b',');
    }
    out.extend_from_slice(num.format(row.number).as_bytes());
    out.push(b',');
    push_list(out, row.positions);
    out.push(b',');
    out.extend_from_slice(num.format(row.nim_sum).as_bytes());
    out.push(b',');
    out.extend_from_slice(row.outcome.word().as_bytes());
    out.push(b',');
    if let Some((from, to)) = row.winning {
        out.extend_from_slice(num.format(from).as_bytes());
        out.push(b',');
        push_list(out, to);
    } else {
        out.push(b',');
    }
    out.push(b'\n');
}

/// Appends `ids`, space-separated: a list field.
pub fn push_list(out: &mut Vec<u8>, ids: &[u32]) {
    push_ids(out, ids.iter().copied());
}

/// [`push_list`] of ids as they come.
fn push_ids(out: &mut Vec<u8>, ids: impl Iterator<Item = u32>) {
    let mut num = itoa::Buffer::new();
    for (i, p) in ids.enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        push_number(out, p, &mut num);
    }
}

/// Appends `x` in decimal. A number below 100 (most of a play's: values, heaps, genus
/// entries) is written digit by digit, without the formatter and the copy of its bytes (a
/// call of `memmove` for one or two bytes).
#[inline]
fn push_number(out: &mut Vec<u8>, x: u32, num: &mut itoa::Buffer) {
    if x < 10 {
        out.push(b'0' + x as u8);
    } else if x < 100 {
        out.extend_from_slice(&[b'0' + (x / 10) as u8, b'0' + (x % 10) as u8]);
    } else {
        out.extend_from_slice(num.format(x).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Csr, GameGraph};
    use crate::report::push_query_row;

    #[test]
    fn numbers_are_written_as_decimal_at_every_width() {
        let mut num = itoa::Buffer::new();
        let mut samples: Vec<u32> = (0..1000).collect();
        samples.extend([9_999, 10_000, 4_294_967_294, u32::MAX]);
        for x in samples {
            let mut out = b"x".to_vec();
            push_number(&mut out, x, &mut num);
            assert_eq!(out, format!("x{x}").into_bytes(), "{x}");
        }
        let mut out = Vec::new();
        push_list(&mut out, &[7, 10, 0, 99, 100, 123_456]);
        assert_eq!(out, b"7 10 0 99 100 123456");
    }

    #[test]
    fn rows_are_plain_csv() {
        let g = GameGraph::Chess(Csr::from_lists(&[vec![1], vec![]]).unwrap());
        let values = Values::from_vec(vec![1, 0]);
        let mut text = Vec::new();
        push_query_row(&mut text, &Columns::solve(), (2, 5), &[0, 1], (&g, &values));
        push_query_row(&mut text, &Columns::query(), (1, 6), &[1], (&g, &values));
        let chosen = Columns::parse_query("move_to,result,query").unwrap();
        push_query_row(&mut text, &chosen, (1, 7), &[0], (&g, &values));
        let mut rows = Rows::new();
        rows.value_row(1, 0, 1, 1, 1);
        text.extend_from_slice(&rows.into_bytes());
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "2,5,0 1,1,WIN,0,1\n6,1,0,LOSE,,\n1,WIN,7\n1,0,1,1,1\n"
        );
        let mut rows = Rows::new();
        rows.loopy_row((1, 3), Values::INFINITE, &[0, 2], 2);
        rows.loopy_row((1, 4), Values::INFINITE, &[], 1);
        assert_eq!(rows.into_bytes(), b"1,3,inf,0 2,WIN,2\n1,4,inf,,DRAW,1\n");
    }
}
