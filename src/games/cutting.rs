//! POJ 2311, the Cutting Game: a W x H sheet; a move cuts one sheet into two, along a grid
//! line, and a cut may not leave a strip of width or height 1 (that hands the opponent the
//! win), so the moves of a `w x h` sheet are the cuts into `i x h + (w - i) x h` and
//! `w x j + w x (h - j)` with all sides at least 2. Each move leads to a sum of two sheets.
//!
//! Input: lines `W H` (2 <= W, H) to the end; output `WIN` or `LOSE` per line.

use std::ops::Range;

use super::{evaluate, expect_field, field_at_least, push_export, Output, MAX_POSITIONS};
use crate::exec::Exec;
use crate::graph::Rule;
use crate::meter::Meter;
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

/// Runs the game on the judge's input.
pub fn run(
    bytes: &[u8],
    output: Output,
    exec: Exec,
    meter: &dyn Meter,
) -> Result<Vec<u8>, ParseError> {
    let mut lex = Lexer::new(bytes);
    let mut sheets = Vec::new();
    let (mut w, mut h) = (2, 2);
    loop {
        let case = sheets.len() as u64 + 1;
        lex.at_token();
        let offset = lex.offset();
        let Some(a) = field_at_least(&mut lex, case, "W", 2)? else { break };
        let b = expect_field(&mut lex, case, "H", 2)?;
        // The table covers every sheet up to the largest width and the largest height.
        (w, h) = (w.max(a), h.max(b));
        if u64::from(w - 1) * u64::from(h - 1) > MAX_POSITIONS {
            let expected = Expected::Field { case, name: "W" };
            let reason = format!("sheets up to {w} x {h} need more than {MAX_POSITIONS} positions");
            return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
        }
        sheets.push((a, b));
    }
    let game = Sheets::new(w, h);
    let values = evaluate(&game, &game.levels(), exec, 0, meter);
    let mut out = Vec::new();
    match output {
        Output::Judge => {
            for &(a, b) in &sheets {
                let win = values.get(game.id(a, b)) != 0;
                out.extend_from_slice(if win { b"WIN\n" } else { b"LOSE\n" });
            }
        }
        Output::Table => {
            out.extend_from_slice(b"w,h,grundy\n");
            for v in 0..game.node_count() as u32 {
                let (a, b) = game.sides(v);
                out.extend_from_slice(format!("{a},{b},{}\n", values.get(v)).as_bytes());
            }
        }
        Output::Export => {
            let queries = sheets.iter().map(|&(a, b)| game.id(a, b));
            push_export(&mut out, &game, |v, k, buf| buf.extend(game.parts(v, k)), queries);
        }
    }
    Ok(out)
}
