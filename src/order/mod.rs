//! Kahn's topological order, peeling sinks first, grouped into levels.
//!
//! Level 0 holds the sinks (positions with no move); a node is in level `1 + max level of its
//! out-positions`, which is exactly the round of peeling in which its last out-position is
//! removed. Every node of a level depends only on lower levels, so a level can be evaluated
//! in any order, or in parallel. The order is kept, not just the values, because later stages
//! (parallel evaluation, per-node reports) walk it again.
//!
//! An order is either stored ([`kahn`] peels a graph into one) or computed from a game's own
//! structure ([`Levels::each`]: the heap sizes of a sequence game, one per level, stored
//! nowhere). Peeling a graph that is not acyclic gives a [`Cycle`].

mod chain;
mod count;
pub mod cycle;
pub mod kahn;
pub mod levels;
mod radix;

pub use cycle::Cycle;
pub use kahn::{
    levels, levels_parallel, levels_valued, peeled, peeled_parallel, Peeled, INLINE_LEVEL,
    MASK_MOVES,
};
pub use levels::{Level, Levels, Nodes};
