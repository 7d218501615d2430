//! The machine's side of a run: opening inputs (a memory map, stdin, a decompressing read),
//! writing outputs whole or not at all, the progress bar on the terminal, signals that remove
//! temporary files, memory (huge pages, the peak of the run), and arrays read in place from a
//! mapped file ([`store`]).

pub mod error;
pub mod input;
pub mod memory;
pub mod progress;
pub mod signals;
pub mod sink;
pub mod store;
