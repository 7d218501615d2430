//! POJ 2068, Nim on a round table: 2n players sit around a table, teams alternating, yours at
//! the odd seats (1st, 3rd, ...), seat 1 first; the player at seat i takes 1 to M_i stones;
//! whoever takes the last stone loses.
//!
//! A position is (seat to move, stones left). With no stones left the player to move has won
//! (the previous one took the last stone): such a position gets one move, to a lost terminal
//! position, so normal play (who cannot move loses) decides it like every other.
//!
//! Input: lines `n S M_1 .. M_2n` (each M_i at least 1), a line `0` ends; output `1` if your
//! team can force a win.

use std::ops::Range;

use super::{expect_field, field_at_least, Game, MAX_POSITIONS};
use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Rule;
use crate::order::Levels;
use crate::parse::error::{Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::Lexer;

/// One table: position 0 is the lost terminal one; (seat `i`, `s` stones) is `1 + s * seats + i`.
#[derive(Debug, Clone)]
pub struct Table {
    limits: Vec<u32>,
    stones: u32,
}

impl Table {
    /// A table of `limits.len()` seats (seat `i` takes at most `limits[i]`) and `stones` stones.
    pub fn new(limits: Vec<u32>, stones: u32) -> Table {
        Table { limits, stones }
    }

    fn seats(&self) -> u32 {
        self.limits.len() as u32
    }

    /// The id of (seat `i`, `s` stones).
    pub fn id(&self, seat: u32, s: u32) -> u32 {
        1 + s * self.seats() + seat
    }

    /// Levels by stones left: the terminal position, then every seat with 0, 1, ... stones.
    pub fn levels(&self) -> Levels {
        let starts = std::iter::once(0).chain((0..=self.stones + 1).map(|s| 1 + s * self.seats()));
        Levels::contiguous(starts.collect()).expect("seats per stone count")
    }

    /// The position move `k` of `v` leads to.
    #[inline]
    fn target(&self, v: u32, k: usize) -> u32 {
        let (seat, s) = ((v - 1) % self.seats(), (v - 1) / self.seats());
        if s == 0 {
            return 0;
        }
        self.id((seat + 1) % self.seats(), s - 1 - k as u32)
    }
}

impl Rule for Table {
    fn node_count(&self) -> usize {
        1 + (self.stones as usize + 1) * self.seats() as usize
    }

    #[inline]
    fn move_count(&self, v: u32) -> usize {
        if v == 0 {
            return 0;
        }
        let (seat, s) = ((v - 1) % self.seats(), (v - 1) / self.seats());
        if s == 0 {
            1
        } else {
            self.limits[seat as usize].min(s) as usize
        }
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
            f(value(self.target(v, k)));
        }
    }
}

/// Nim on a round table's judge: records `n S M_1 .. M_2n` until a `0`, each its own table.
#[derive(Debug, Clone, Copy, Default)]
pub struct TeamNim;

impl Game for TeamNim {
    type Record = Table;
    type Positions<'r> = &'r Table;
    const SHARED: bool = false;
    const COLUMNS: &'static [&'static str] = &["case", "seat", "stones", "grundy"];

    fn read(&mut self, lex: &mut Lexer, case: u64) -> Result<Option<Table>, ParseError> {
        lex.at_token();
        let start = lex.offset();
        let n = match field_at_least(lex, case, "n", 0)? {
            None | Some(0) => return Ok(None),
            Some(n) => n,
        };
        let stones = expect_field(lex, case, "S", 0)?;
        let seats = u64::from(n) * 2;
        if seats * (u64::from(stones) + 1) + 1 > MAX_POSITIONS {
            return Err(ParseError {
                offset: start,
                kind: ParseErrorKind::Invalid {
                    expected: Expected::Field { case, name: "n" },
                    reason: format!("{seats} seats and {stones} stones are too many positions"),
                },
            });
        }
        let mut limits = Vec::with_capacity((seats as usize).min(lex.remaining() / 2 + 1));
        for _ in 0..seats {
            // Each player takes 1 to M_i stones: a seat that may take none is no player.
            limits.push(expect_field(lex, case, "M_i", 1)?);
        }
        Ok(Some(Table::new(limits, stones)))
    }

    fn positions<'r>(&self, tables: &'r [Table], _: Exec) -> (&'r Table, Levels) {
        (&tables[0], tables[0].levels())
    }

    fn judge(&self, _: &&Table, values: &Values, table: &Table, out: &mut Vec<u8>) {
        let win = values.get(table.id(0, table.stones)) != 0;
        out.extend_from_slice(if win { b"1\n" } else { b"0\n" });
    }

    fn table(&self, table: &&Table, values: &Values, case: u64, row: &mut dyn FnMut(&[u64])) {
        for s in 0..=table.stones {
            for seat in 0..table.seats() {
                let g = values.get(table.id(seat, s));
                row(&[case, u64::from(seat) + 1, s.into(), g.into()]);
            }
        }
    }

    fn parts(&self, table: &&Table, v: u32, k: usize, buf: &mut Vec<u32>) {
        buf.push(table.target(v, k));
    }

    fn start(&self, _: &&Table, table: &Table) -> u32 {
        table.id(0, table.stones)
    }
}
