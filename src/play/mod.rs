//! Other ways to play the same graph (Winning Ways, chapters 9 and 13; Conway, On Numbers and
//! Games, chapters 12-14): misère play and Conway's compounds. A query's tokens form a sum;
//! how a move acts on the tokens, and who wins at the end, is the [`Play`].
//!
//! Each play is one more pass over the same levels ([`measure`]): a number per node, computed
//! from its moves' numbers, sinks first, as the Grundy value is. A sum is then decided from its
//! tokens' numbers alone ([`sums`]), with a winning move for each WIN.

pub mod genus;
mod marks;
pub mod measure;
pub mod sums;

pub use measure::{Measures, Misere, NO_HEAP};
pub use sums::{Answer, Verdict};

/// How the tokens of a sum are played. The last player to move wins, except in misère play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Play {
    /// A move moves one token; the last to move wins (Sprague-Grundy).
    #[default]
    Normal,
    /// A move moves one token; the last to move loses. With `genus`, each node's genus is
    /// computed too ([`genus`]): a column of its own, and more sums decided (one token of any
    /// kind among tokens equal to heaps `*0` to `*3`), at a cost (BENCHMARKS.md).
    Misere {
        /// Conway's genus of every node, beyond its misère Grundy value.
        genus: bool,
    },
    /// A move moves every token; the game ends as soon as one token cannot move (remoteness).
    Conjunctive,
    /// A move moves every token that can move; the game ends when none can (suspense).
    Continued,
    /// A move moves any non-empty set of tokens.
    Selective,
}

impl Play {
    /// The play's name, as `--play` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Play::Normal => "normal",
            Play::Misere { .. } => "misere",
            Play::Conjunctive => "conjunctive",
            Play::Continued => "continued",
            Play::Selective => "selective",
        }
    }

    /// True for misère play with the genus ([`Play::Misere`]).
    pub fn genus(self) -> bool {
        matches!(self, Play::Misere { genus: true })
    }
}
