//! The solved game as a file: `grundy index` writes each case's graph, values and levels once,
//! and `query`, `values` and `stats` read them back by a memory map instead of solving the
//! game again. The layout is docs/INDEX.md's ([`mod@format`]); [`mod@write`] writes it as cases are
//! solved, [`read`] opens and checks it.
//!
//! A case read from an index is the same [`crate::graph::GameGraph`] and
//! [`crate::eval::Values`] a text input gives, over arrays read in place
//! ([`crate::io::store::Store`]), so everything after the reading stage is shared.

pub mod format;
pub mod read;
pub mod write;

pub use read::{is_index, Index, IndexedCase};
pub use write::{CaseParts, Writer};

/// How the format of the game an index was read from is recorded.
pub fn format_code(format: crate::Format) -> u64 {
    match format {
        crate::Format::Chess => 0,
        crate::Format::Sums => 1,
        crate::Format::Edges { .. } => 2,
    }
}
