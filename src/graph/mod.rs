//! The game as the engine sees it: the [`Rule`] trait (how a position's value follows from
//! its moves) and the graphs that implement it, each implementation beside its type:
//! [`Csr`] (the chess format, a move to one position), [`SumsGraph`] (moves to sums of
//! positions) and [`GameGraph`] (either, as read from a file). The built-in games implement
//! [`Rule`] as move generators in `games`.

use std::ops::Range;

pub mod csr;
pub mod mex_order;
pub mod reverse;
pub mod sums;

pub use csr::{narrow_limit, Csr, Offset, OffsetsBuilder};
pub use reverse::Reverse;
pub use sums::{Deps, GameGraph, SumsGraph};

/// How the value of a position follows from the values of the positions its moves reach: the
/// one thing the evaluator needs to know about a game.
///
/// A move leads to one position (the chess format: [`Csr`]) or to a sum of positions (the
/// sums format, the built-in games), whose value is the XOR of its parts' values. A position's
/// value is the mex of its moves' values.
pub trait Rule: Sync {
    /// Number of positions.
    fn node_count(&self) -> usize;

    /// Number of moves of `v` (its value is at most this).
    fn move_count(&self, v: u32) -> usize;

    /// Calls `f` with the value of each move of `v` whose index (among `v`'s moves) is in
    /// `moves`, reading the values of other positions through `value`.
    fn move_values(
        &self,
        v: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        f: impl FnMut(u32),
    );

    /// A hint that the nodes of `next` are evaluated next, in that order, reading their moves'
    /// values from `values`: a rule whose reads miss the cache starts them early, so that they
    /// overlap. Nothing by default.
    #[inline]
    fn look_ahead(&self, next: &[u32], values: &[u32]) {
        let _ = (next, values);
    }
}

/// A borrowed rule is the rule: a game evaluates its positions without owning them.
impl<R: Rule> Rule for &R {
    fn node_count(&self) -> usize {
        (**self).node_count()
    }

    #[inline]
    fn move_count(&self, v: u32) -> usize {
        (**self).move_count(v)
    }

    #[inline]
    fn move_values(
        &self,
        v: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        f: impl FnMut(u32),
    ) {
        (**self).move_values(v, moves, value, f)
    }

    #[inline]
    fn look_ahead(&self, next: &[u32], values: &[u32]) {
        (**self).look_ahead(next, values)
    }
}
