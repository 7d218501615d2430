//! POJ 3537, Crosses and Crosses: a 1 x n strip; players put an X on an empty cell, and who
//! first completes three in a row wins. Putting an X next to (or one cell from) another hands
//! the opponent the win, so a move at cell `i` leaves two independent strips of `i - 3` and
//! `n - i - 2` cells (negative means empty): a sum, as in the seed solution.
//!
//! Input: one `n` per line; output `1` if the first player wins, else `2`.

use std::ops::Range;

use super::{evaluate, field_at_least, push_export, Output, MAX_POSITIONS};
use crate::exec::Exec;
use crate::graph::Rule;
use crate::meter::Meter;
use crate::order::Levels;
use crate::parse::error::{Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::Lexer;

/// Strips of `0..=n` cells, as a move generator; strip `x` has id `x`.
///
/// A move at cell `i` and at cell `x + 1 - i` leave the same two strips, so only
/// `i <= (x + 1) / 2` is generated.
#[derive(Debug, Clone, Copy)]
pub struct Strips {
    n: u32,
}

impl Strips {
    /// All strips up to `n` cells.
    pub fn new(n: u32) -> Strips {
        Strips { n }
    }

    /// Each strip is its own level: a move leaves strips shorter by at least three cells.
    pub fn levels(&self) -> Levels {
        Levels::each(self.n + 1)
    }

    /// Appends the strips (at most two) that move `k` of strip `x` leaves.
    #[inline]
    fn parts(&self, x: u32, k: usize, out: &mut Vec<u32>) {
        let i = k as i64 + 1;
        out.extend([i - 3, i64::from(x) - i - 2].into_iter().filter(|&p| p >= 0).map(|p| p as u32));
    }
}

impl Rule for Strips {
    fn node_count(&self) -> usize {
        self.n as usize + 1
    }

    #[inline]
    fn move_count(&self, x: u32) -> usize {
        (x as usize).div_ceil(2)
    }

    #[inline]
    fn move_values(
        &self,
        x: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        mut f: impl FnMut(u32),
    ) {
        let part = |p: i64| if p >= 0 { value(p as u32) } else { 0 };
        for k in moves {
            let i = k as i64 + 1;
            f(part(i - 3) ^ part(i64::from(x) - i - 2));
        }
    }
}

/// Runs the game on the judge's input.
pub fn run(
    bytes: &[u8],
    output: Output,
    exec: Exec,
    meter: &dyn Meter,
) -> Result<Vec<u8>, ParseError> {
    let mut lex = Lexer::new(bytes);
    let mut strips = Vec::new();
    loop {
        let case = strips.len() as u64 + 1;
        lex.at_token();
        let offset = lex.offset();
        let Some(n) = field_at_least(&mut lex, case, "n", 0)? else { break };
        if u64::from(n) >= MAX_POSITIONS {
            let expected = Expected::Field { case, name: "n" };
            let reason = format!("{n} cells need more than {MAX_POSITIONS} positions");
            return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
        }
        strips.push(n);
    }
    let game = Strips::new(strips.iter().copied().max().unwrap_or(0));
    let values = evaluate(&game, &game.levels(), exec, 0, meter);
    let mut out = Vec::new();
    match output {
        Output::Judge => {
            for &n in &strips {
                out.extend_from_slice(if values.get(n) != 0 { b"1\n" } else { b"2\n" });
            }
        }
        Output::Table => {
            out.extend_from_slice(b"n,grundy\n");
            for (n, g) in values.as_slice().iter().enumerate() {
                out.extend_from_slice(format!("{n},{g}\n").as_bytes());
            }
        }
        Output::Export => {
            push_export(&mut out, &game, |x, k, buf| game.parts(x, k, buf), strips.iter().copied());
        }
    }
    Ok(out)
}
