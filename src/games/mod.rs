//! The seed problems' games, each a move generator on the shared engine (or, for trees, an
//! explicit graph), reading and writing the judges' formats.
//!
//! A game module knows its rules and its judge's format; evaluation is the engine's
//! ([`crate::eval`]), over levels the game's structure gives (or Kahn's, for explicit graphs).

pub mod crosses;
pub mod cutting;
pub mod geography;
pub mod team_nim;

use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Rule;
use crate::meter::{Meter, Stage, Unit};
use crate::order::Levels;
use crate::parse::error::{Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::Lexer;
use crate::report::Rows;

/// Most positions a built-in game's table may have (8 bytes each: a value and a place in the
/// order), so that a line of input can never ask for more than 2 GiB.
pub const MAX_POSITIONS: u64 = 1 << 28;

/// What a game command produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The judge's output.
    Judge,
    /// The values, as CSV.
    Table,
    /// The state graph and one query per input record, in the sums format.
    Export,
}

/// A built-in game: how a record of its judge's input reads, which positions records need,
/// and what is written of them. [`run`] drives every game the same way.
pub trait Game {
    /// One record of the judge's input (a sheet, a strip, a table of seats, a tree).
    type Record;
    /// The positions one evaluation covers, as a move generator.
    type Positions<'r>: Rule
    where
        Self: 'r;
    /// True when one table of positions serves every record (all records are read, then
    /// evaluated once); false when each record is a game of its own (read, evaluated and
    /// written one at a time, in bounded memory).
    const SHARED: bool;
    /// The columns of `--table`.
    const COLUMNS: &'static [&'static str];

    /// Reads record `number` (1-based); `None` at the end of the judge's input.
    fn read(&mut self, lex: &mut Lexer, number: u64) -> Result<Option<Self::Record>, ParseError>;

    /// The positions `records` need (all records if [`Game::SHARED`], else one), and their
    /// levels (`exec` orders an explicit graph).
    fn positions<'r>(
        &self,
        records: &'r [Self::Record],
        exec: Exec,
    ) -> (Self::Positions<'r>, Levels);

    /// The values of the positions of `p`, when the game computes them on an engine of its
    /// own (an octal game's); `None` evaluates `p` as a move generator on the shared engine.
    fn values(&self, _p: &Self::Positions<'_>, _meter: &dyn Meter) -> Option<Values> {
        None
    }

    /// Appends the judge's line for `record`.
    fn judge(
        &self,
        p: &Self::Positions<'_>,
        values: &Values,
        record: &Self::Record,
        out: &mut Vec<u8>,
    );

    /// Calls `row` with the `--table` fields of every position of `p` (record `number` for a
    /// game of its own per record, 0 for a shared table).
    fn table(
        &self,
        p: &Self::Positions<'_>,
        values: &Values,
        number: u64,
        row: &mut dyn FnMut(&[u64]),
    );

    /// Appends the parts of move `k` of position `v`, for `--export`.
    fn parts(&self, p: &Self::Positions<'_>, v: u32, k: usize, buf: &mut Vec<u32>);

    /// The position a record asks about (its query in `--export`).
    fn start(&self, p: &Self::Positions<'_>, record: &Self::Record) -> u32;
}

/// Runs `game` on its judge's input: reads the records, evaluates their positions on the
/// shared engine, and writes the judge's output, the table (CSV) or the export. Returns what
/// was written, and the error of a bad record if one stopped the reading: the records before
/// it are answered all the same, as `solve` answers the cases before a bad one (nothing is
/// written when the first record is bad).
pub fn run<G: Game>(
    mut game: G,
    bytes: &[u8],
    output: Output,
    exec: Exec,
    meter: &dyn Meter,
) -> (Vec<u8>, Result<(), ParseError>) {
    let mut lex = Lexer::new(bytes);
    let mut sink = Written { output, out: Vec::new(), rows: Rows::new() };
    if output == Output::Table {
        sink.rows.names(G::COLUMNS);
    }
    let mut records = Vec::new();
    let mut number = 0;
    let read = loop {
        match game.read(&mut lex, number + 1) {
            Ok(Some(record)) => {
                number += 1;
                records.push(record);
                if !G::SHARED {
                    sink.write(&game, &records, number, exec, meter);
                    records.clear();
                }
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    if read.is_err() && number == 0 {
        return (Vec::new(), read);
    }
    if G::SHARED {
        // One table for all records read (even none: the table of the smallest game); a bad
        // record widened nothing (each game checks a record before it counts it).
        sink.write(&game, &records, 0, exec, meter);
    }
    (sink.finish(), read)
}

/// What a game run has written so far.
struct Written {
    output: Output,
    out: Vec<u8>,
    rows: Rows,
}

impl Written {
    /// Evaluates the positions of `records` (record `case`, or 0 for a shared table) and writes
    /// what `output` asks for.
    fn write<G: Game>(
        &mut self,
        game: &G,
        records: &[G::Record],
        case: u64,
        exec: Exec,
        meter: &dyn Meter,
    ) {
        let (positions, levels) = game.positions(records, exec);
        let values = game
            .values(&positions, meter)
            .unwrap_or_else(|| evaluate(&positions, &levels, exec, case, meter));
        match self.output {
            Output::Judge => {
                records.iter().for_each(|r| game.judge(&positions, &values, r, &mut self.out));
            }
            Output::Table => {
                game.table(&positions, &values, case, &mut |fields| self.rows.numbers(fields))
            }
            Output::Export => {
                let parts = |v, k, buf: &mut Vec<u32>| game.parts(&positions, v, k, buf);
                let queries = records.iter().map(|r| game.start(&positions, r));
                push_export(&mut self.out, &positions, parts, queries);
            }
        }
    }

    fn finish(self) -> Vec<u8> {
        match self.output {
            Output::Table => self.rows.into_bytes(),
            _ => self.out,
        }
    }
}

/// Evaluates `rule` over `levels` as `exec` runs stages, reporting the positions evaluated
/// (of record `case`, 0 for a whole table) to `meter`.
fn evaluate<R: Rule>(
    rule: &R,
    levels: &Levels,
    exec: Exec,
    case: u64,
    meter: &dyn Meter,
) -> Values {
    let total = rule.node_count() as u64;
    meter.start(Stage { case, name: "evaluating", unit: Unit::Nodes, total });
    exec.evaluate(rule, levels, meter)
}

/// Reads a field that must be at least `min`; `None` at the end of the input.
pub fn field_at_least(
    lex: &mut Lexer,
    case: u64,
    name: &'static str,
    min: u32,
) -> Result<Option<u32>, ParseError> {
    lex.at_token();
    let offset = lex.offset();
    let expected = Expected::Field { case, name };
    match lex.next_u32(expected)? {
        Some(v) if v < min => Err(ParseError {
            offset,
            kind: ParseErrorKind::Invalid { expected, reason: format!("{v} is below {min}") },
        }),
        other => Ok(other),
    }
}

/// Reads a field that must be present and at least `min`.
pub fn expect_field(
    lex: &mut Lexer,
    case: u64,
    name: &'static str,
    min: u32,
) -> Result<u32, ParseError> {
    field_at_least(lex, case, name, min)?
        .ok_or_else(|| lex.unexpected_end(Expected::Field { case, name }))
}

/// Appends a case in the sums format: every position of `rule` with its moves (`parts(v, k,
/// buf)` fills `buf` with the parts of move `k` of `v`), then one single-token query per
/// position of `queries`, then the `0` that ends the case. What `--export` writes, for every
/// game.
pub fn push_export<R: Rule>(
    out: &mut Vec<u8>,
    rule: &R,
    mut parts: impl FnMut(u32, usize, &mut Vec<u32>),
    queries: impl IntoIterator<Item = u32>,
) {
    let mut num = itoa::Buffer::new();
    let mut buf = Vec::new();
    out.extend_from_slice(num.format(rule.node_count()).as_bytes());
    out.push(b'\n');
    for v in 0..rule.node_count() as u32 {
        let count = rule.move_count(v);
        out.extend_from_slice(num.format(count).as_bytes());
        for k in 0..count {
            buf.clear();
            parts(v, k, &mut buf);
            out.push(b' ');
            out.extend_from_slice(num.format(buf.len()).as_bytes());
            for &p in &buf {
                out.push(b' ');
                out.extend_from_slice(num.format(p).as_bytes());
            }
        }
        out.push(b'\n');
    }
    for q in queries {
        out.extend_from_slice(b"1 ");
        out.extend_from_slice(num.format(q).as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"0\n");
}
