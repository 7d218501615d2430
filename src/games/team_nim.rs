//! POJ 2068, Nim on a round table: 2n players sit around a table, teams alternating, yours at
//! the odd seats (1st, 3rd, ...), seat 1 first; the player at seat i takes 1 to M_i stones;
//! whoever takes the last stone loses.
//!
//! A position is (seat to move, stones left). With no stones left the player to move has won
//! (the previous one took the last stone): such a position gets one move, to a lost terminal
//! position, so normal play (who cannot move loses) decides it like every other.
//!
//! Input: lines `n S M_1 .. M_2n`, a line `0` ends; output `1` if your team can force a win.

use std::ops::Range;

use super::{evaluate, expect_field, field_at_least, push_export, Output, MAX_POSITIONS};
use crate::exec::Exec;
use crate::graph::Rule;
use crate::meter::Meter;
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

/// Runs the game on the judge's input.
pub fn run(
    bytes: &[u8],
    output: Output,
    exec: Exec,
    meter: &dyn Meter,
) -> Result<Vec<u8>, ParseError> {
    let mut lex = Lexer::new(bytes);
    let mut out = Vec::new();
    if output == Output::Table {
        out.extend_from_slice(b"case,seat,stones,grundy\n");
    }
    let mut case = 0u64;
    loop {
        case += 1;
        lex.at_token();
        let start = lex.offset();
        let n = match field_at_least(&mut lex, case, "n", 0)? {
            None | Some(0) => break,
            Some(n) => n,
        };
        let stones = expect_field(&mut lex, case, "S", 0)?;
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
            limits.push(expect_field(&mut lex, case, "M_i", 0)?);
        }
        let table = Table::new(limits, stones);
        let values = evaluate(&table, &table.levels(), exec, 0, meter);
        match output {
            Output::Judge => {
                let win = values.get(table.id(0, stones)) != 0;
                out.extend_from_slice(if win { b"1\n" } else { b"0\n" });
            }
            Output::Table => {
                for s in 0..=stones {
                    for seat in 0..table.seats() {
                        let g = values.get(table.id(seat, s));
                        out.extend_from_slice(format!("{case},{},{s},{g}\n", seat + 1).as_bytes());
                    }
                }
            }
            Output::Export => {
                let parts = |v, k, buf: &mut Vec<u32>| buf.push(table.target(v, k));
                push_export(&mut out, &table, parts, [table.id(0, stones)]);
            }
        }
    }
    Ok(out)
}
