//! What an evaluation gives: the value of every node, read through one type.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::io::store::{Ints, Store};

/// The Grundy value of every node of a game, indexed by node id: what evaluators return and
/// every consumer reads. 4 bytes per node as evaluators give them; an index
/// ([`crate::index`]) holds them in the narrowest width and they are read from it in place.
///
/// Consumers ask for a node's value, a nim-sum or the largest value, never index a bare
/// vector, so that a kind of value to come (the infinite values of loopy games) changes this
/// type and the code that decides outcomes, not every reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Values(Ints);

impl Default for Values {
    fn default() -> Values {
        Values::from_vec(Vec::new())
    }
}

impl Values {
    /// The value of a node of a loopy game that has none (infinity, written `inf`): it is no
    /// finite value, since a finite one needs as many other nodes.
    pub const INFINITE: u32 = u32::MAX;

    /// Values given by node id.
    pub fn from_vec(values: Vec<u32>) -> Values {
        Values(Ints::U32(Store::from(values)))
    }

    /// Values given by node id in any width (read from an index): finite values only, since
    /// [`Values::INFINITE`] is a `u32`.
    pub fn from_ints(values: Ints) -> Values {
        Values(values)
    }

    /// The value of node `v`.
    #[inline]
    pub fn get(&self, v: u32) -> u32 {
        self.0.get(v as usize)
    }

    /// The value of node `v`, `None` past the last node: for ids read from a file whose
    /// checks were skipped (an index read with `--trust`), where a crash is no answer.
    #[inline]
    pub fn try_get(&self, v: u32) -> Option<u32> {
        ((v as usize) < self.len()).then(|| self.get(v))
    }

    /// The nim-sum (XOR of values) of tokens on `positions`.
    #[inline]
    pub fn nim_sum(&self, positions: &[u32]) -> u32 {
        positions.iter().fold(0, |acc, &p| acc ^ self.get(p))
    }

    /// Hints that the value of `v` will be read soon ([`crate::io::memory::prefetch`]).
    #[inline]
    pub fn prefetch(&self, v: u32) {
        use crate::io::memory::prefetch;
        match &self.0 {
            Ints::U8(s) => prefetch(s, v as usize),
            Ints::U16(s) => prefetch(s, v as usize),
            Ints::U32(s) => prefetch(s, v as usize),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for a game with no node.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The largest value, if there is a node.
    pub fn max(&self) -> Option<u32> {
        self.0.iter().max()
    }

    /// Every value, by node id.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter()
    }

    /// The values as they are held (the width an index chose, or `u32`).
    pub fn ints(&self) -> &Ints {
        &self.0
    }

    /// The values by node id, as `u32`s (borrowed when they are held so).
    pub fn to_u32(&self) -> std::borrow::Cow<'_, [u32]> {
        self.0.to_u32()
    }

    /// The values by node id, as a vector.
    pub fn into_vec(self) -> Vec<u32> {
        match self.0 {
            Ints::U32(s) => s.into_vec(),
            other => other.iter().collect(),
        }
    }

    /// The values laid out for answering many queries: a byte per node when every value fits
    /// one (read in place when they are held so), else the values as they are.
    pub fn nim_table(&self) -> NimTable<'_> {
        match &self.0 {
            Ints::U8(bytes) => NimTable::Bytes(Cow::Borrowed(bytes)),
            Ints::U32(words) => match words.par_iter().max() {
                Some(&max) if max <= u8::MAX.into() => {
                    NimTable::Bytes(Cow::Owned(words.par_iter().map(|&v| v as u8).collect()))
                }
                _ => NimTable::Words(self),
            },
            Ints::U16(_) => NimTable::Words(self),
        }
    }
}

/// The values of a game read by queries, whose positions are random reads: bytes when every
/// value fits one (a quarter of the cache lines 4-byte values take, so more of them stay in
/// cache; a 1M-node file's queries: 0.049 s to 0.041), else the values themselves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NimTable<'a> {
    /// Every value, a byte each.
    Bytes(Cow<'a, [u8]>),
    /// Every value as [`Values`] holds it.
    Words(&'a Values),
}

impl NimTable<'_> {
    /// The nim-sum (XOR of values) of tokens on `positions`, as [`Values::nim_sum`] gives it.
    #[inline]
    pub fn nim_sum(&self, positions: &[u32]) -> u32 {
        match self {
            NimTable::Bytes(values) => {
                positions.iter().fold(0, |acc, &p| acc ^ values[p as usize]).into()
            }
            NimTable::Words(values) => values.nim_sum(positions),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte tables, word tables and the values themselves (stored in 1, 2 or 4 bytes) give
    /// the nim-sums of the plain vector they were made from.
    #[test]
    fn nim_tables_give_the_values_nim_sums() {
        let mut rng = crate::testing::Xorshift::new(0x2545_f491_4f6c_dd1d);
        for (round, most) in [1u64, 255, 256, 1 << 20, u32::MAX as u64].iter().enumerate() {
            let plain: Vec<u32> = (0..500).map(|_| rng.below(*most + 1) as u32).collect();
            let values = Values::from_vec(plain.clone());
            let table = values.nim_table();
            assert_eq!(matches!(table, NimTable::Bytes(_)), values.max() <= Some(255));
            for _ in 0..200 {
                let len = rng.below(12) as usize;
                let positions: Vec<u32> = (0..len).map(|_| rng.below(500) as u32).collect();
                let expected = positions.iter().fold(0, |acc, &p| acc ^ plain[p as usize]);
                assert_eq!(table.nim_sum(&positions), expected, "round {round}");
                assert_eq!(values.nim_sum(&positions), expected, "round {round}");
            }
        }
    }
}
