//! POJ 2311, the Cutting Game: a W x H sheet; a move cuts one sheet into two, along a grid
//! line, and a cut may not leave a strip of width or height 1 (that hands the opponent the
//! win), so the moves of a `w x h` sheet are the cuts into `i x h + (w - i) x h` and
//! `w x j + w x (h - j)` with all sides at least 2. Each move leads to a sum of two sheets.
//!
//! Input: lines `W H` (2 <= W, H) to the end; output `WIN` or `LOSE` per line.

use std::ops::Range;

use super::{expect_field, field_at_least, Game, MAX_POSITIONS};
use crate::answer::Outcome;
use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Rule;
use crate::order::Levels;
use crate::parse::error::{Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::Lexer;

/// All sheets up to `w x h` (sides from 2), as a move generator.
///
/// Sheet `a x b` has id `(a - 2) * (h - 1) + (b - 2)`. A cut and its mirror image (`i` and
/// `a - i`) give the same sum, so only cuts with `i <= a / 2` are generated: half the moves,
/// the same set of values.
#[derive(Debug, Clone, Copy)]
pub struct Sheets {
    w: u32,
    h: u32,
}

impl Sheets {
    /// All sheets with `2 <= a <= w`, `2 <= b <= h`.
    pub fn new(w: u32, h: u32) -> Sheets {
        Sheets { w, h }
    }

    /// The id of sheet `a x b`.
    #[inline]
    pub fn id(&self, a: u32, b: u32) -> u32 {
        (a - 2) * (self.h - 1) + (b - 2)
    }

    /// The sides of sheet `v`.
    #[inline]
    pub fn sides(&self, v: u32) -> (u32, u32) {
        (v / (self.h - 1) + 2, v % (self.h - 1) + 2)
    }

    /// Levels by `a + b`: both parts of a cut have a smaller sum of sides.
    pub fn levels(&self) -> Levels {
        let (mut order, mut starts) = (Vec::new(), vec![0u32]);
        for s in 4..=self.w + self.h {
            for a in s.saturating_sub(self.h).max(2)..=(s - 2).min(self.w) {
                order.push(self.id(a, s - a));
            }
            starts.push(order.len() as u32);
        }
        Levels::from_groups(order, starts).expect("every sheet once, by a + b")
    }

    /// The two parts of move `k` of sheet `v`.
    #[inline]
    fn parts(&self, v: u32, k: usize) -> [u32; 2] {
        let (a, b) = self.sides(v);
        let across = (a / 2).saturating_sub(1) as usize;
        if k < across {
            let i = k as u32 + 2;
            [self.id(i, b), self.id(a - i, b)]
        } else {
            let j = (k - across) as u32 + 2;
            [self.id(a, j), self.id(a, b - j)]
        }
    }
}

impl Rule for Sheets {
    fn node_count(&self) -> usize {
        (self.w as usize - 1) * (self.h as usize - 1)
    }

    #[inline]
    fn move_count(&self, v: u32) -> usize {
        let (a, b) = self.sides(v);
        ((a / 2).saturating_sub(1) + (b / 2).saturating_sub(1)) as usize
    }

    #[inline]
    fn move_values(
        &self,
        v: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        mut f: impl FnMut(u32),
    ) {
        for k in moves {
            let [p, q] = self.parts(v, k);
            f(value(p) ^ value(q));
        }
    }
}

/// The Cutting Game's judge: lines `W H`, one table of sheets up to the largest of each side.
#[derive(Debug, Clone, Copy)]
pub struct Cutting {
    /// The largest width and height read so far (at least 2).
    w: u32,
    h: u32,
}

impl Default for Cutting {
    fn default() -> Cutting {
        Cutting { w: 2, h: 2 }
    }
}

impl Game for Cutting {
    type Record = (u32, u32);
    type Positions<'r> = Sheets;
    const SHARED: bool = true;
    const COLUMNS: &'static [&'static str] = &["w", "h", "grundy"];

    fn read(&mut self, lex: &mut Lexer, case: u64) -> Result<Option<(u32, u32)>, ParseError> {
        lex.at_token();
        let offset = lex.offset();
        let Some(a) = field_at_least(lex, case, "W", 2)? else { return Ok(None) };
        let b = expect_field(lex, case, "H", 2)?;
        // The table covers every sheet up to the largest width and the largest height.
        let (w, h) = (self.w.max(a), self.h.max(b));
        if u64::from(w - 1) * u64::from(h - 1) > MAX_POSITIONS {
            let expected = Expected::Field { case, name: "W" };
            let reason = format!("sheets up to {w} x {h} need more than {MAX_POSITIONS} positions");
            return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
        }
        (self.w, self.h) = (w, h);
        Ok(Some((a, b)))
    }

    fn positions(&self, _: &[(u32, u32)], _: Exec) -> (Sheets, Levels) {
        let sheets = Sheets::new(self.w, self.h);
        (sheets, sheets.levels())
    }

    fn judge(&self, sheets: &Sheets, values: &Values, &(a, b): &(u32, u32), out: &mut Vec<u8>) {
        out.extend_from_slice(Outcome::of_nim_sum(values.get(sheets.id(a, b))).line());
    }

    fn table(&self, sheets: &Sheets, values: &Values, _: u64, row: &mut dyn FnMut(&[u64])) {
        for v in 0..sheets.node_count() as u32 {
            let (a, b) = sheets.sides(v);
            row(&[a.into(), b.into(), values.get(v).into()]);
        }
    }

    fn parts(&self, sheets: &Sheets, v: u32, k: usize, buf: &mut Vec<u32>) {
        buf.extend(sheets.parts(v, k));
    }

    fn start(&self, sheets: &Sheets, &(a, b): &(u32, u32)) -> u32 {
        sheets.id(a, b)
    }
}
