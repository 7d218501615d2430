//! The machine's side of a run: opening inputs (a memory map, stdin, a decompressing read),
//! writing outputs whole or not at all, the progress bar on the terminal, signals that remove
//! temporary files, and memory (huge pages, the peak of the run).

pub mod input;
pub(crate) mod memory;
pub(crate) mod progress;
pub(crate) mod signals;
pub mod sink;
