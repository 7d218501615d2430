//! POJ 3537, Crosses and Crosses: a 1 x n strip; players put an X on an empty cell, and who
//! first completes three in a row wins. Putting an X next to (or one cell from) another hands
//! the opponent the win, so a move at cell `i` leaves two independent strips of `i - 3` and
//! `n - i - 2` cells (negative means empty): a sum, as in the seed solution.
//!
//! Input: one `n` per line (1 <= n); output `1` if the first player wins, else `2`.

use std::ops::Range;

use super::{field_at_least, Game, MAX_POSITIONS};
use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Rule;
use crate::meter::Meter;
use crate::octal::{self, Code, Method};
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

/// Crosses and Crosses' judge: lines `n`, one table of strips up to the largest.
#[derive(Debug, Clone, Copy, Default)]
pub struct Crosses {
    /// The longest strip read so far.
    longest: u32,
}

impl Game for Crosses {
    type Record = u32;
    type Positions<'r> = Strips;
    const SHARED: bool = true;
    const COLUMNS: &'static [&'static str] = &["n", "grundy"];

    fn read(&mut self, lex: &mut Lexer, case: u64) -> Result<Option<u32>, ParseError> {
        lex.at_token();
        let offset = lex.offset();
        // A strip of n cells, as the statement has it: 1 <= n (its 2000 is no limit here).
        let Some(n) = field_at_least(lex, case, "n", 1)? else { return Ok(None) };
        if u64::from(n) >= MAX_POSITIONS {
            let expected = Expected::Field { case, name: "n" };
            let reason = format!("{n} cells need more than {MAX_POSITIONS} positions");
            return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
        }
        self.longest = self.longest.max(n);
        Ok(Some(n))
    }

    fn positions(&self, _: &[u32], _: Exec) -> (Strips, Levels) {
        let strips = Strips::new(self.longest);
        (strips, strips.levels())
    }

    /// A strip of n cells is a heap of n + 2 in the octal game 0.007 (Treblecross): a cross
    /// removes its cell and the two on each side from play, as three tokens taken from a heap
    /// padded by two. The octal engine's sparse method computes them.
    fn values(&self, strips: &Strips, meter: &dyn Meter) -> Option<Values> {
        let code = Code::parse("0.007", false).ok()?;
        let g = octal::values(&code, strips.n as usize + 2, Method::Sparse, meter);
        Some(Values::from_vec((2..g.len()).map(|n| g.get(n)).collect()))
    }

    fn judge(&self, _: &Strips, values: &Values, &n: &u32, out: &mut Vec<u8>) {
        out.extend_from_slice(if values.get(n) != 0 { b"1\n" } else { b"2\n" });
    }

    fn table(&self, _: &Strips, values: &Values, _: u64, row: &mut dyn FnMut(&[u64])) {
        for (n, g) in values.iter().enumerate() {
            row(&[n as u64, g.into()]);
        }
    }

    fn parts(&self, strips: &Strips, x: u32, k: usize, buf: &mut Vec<u32>) {
        strips.parts(x, k, buf);
    }

    fn start(&self, _: &Strips, &n: &u32) -> u32 {
        n
    }
}
