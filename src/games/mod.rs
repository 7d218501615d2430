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

/// Evaluates `rule` over `levels` as `exec` runs stages, reporting the positions evaluated
/// (of record `case`, 0 for a whole table) to `meter`.
pub fn evaluate<R: Rule>(
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
