//! grundy: Sprague-Grundy values of impartial games given as directed acyclic graphs.
//!
//! The engine runs in stages, one folder each, with plain typed data between them; data flows
//! down this list and never back:
//!
//! 1. [`io`]: the bytes of an input (a memory map, stdin, a decompressed file); outputs that
//!    appear whole or not at all; the progress bar; signals.
//! 2. [`parse`]: tokens, then a case's game ([`graph::GameGraph`]), by the sequential reader
//!    or its parallel twin, in the chess, sums or edge-list [`Format`].
//! 3. [`graph`]: the [`graph::Rule`] trait and the graphs that implement it (CSR, sums).
//! 4. [`order`]: Kahn's order, sinks first, grouped into levels.
//! 5. [`eval`]: the Grundy value of every node, level by level.
//! 6. [`exec`]: the case loop (read, order, evaluate, then the queries), on the sequential
//!    or the parallel path.
//! 7. [`answer`]: nim-sums, verdicts and winning moves, in parallel batches.
//! 8. [`report`]: CSV rows and statistics.
//!
//! With the `cluster` feature (on by default), `cluster` runs the same evaluation across
//! processes and machines on timely-dataflow.
//!
//! Beside the pipeline: [`games`] (the seed problems' games as move generators on the same
//! engine), [`generate`] (valid random inputs), [`meter`] (how the engine reports progress),
//! [`error`] (the one-line errors users see). The command line (arguments with clap,
//! settings, one module per subcommand) is the binary's own `app` folder, outside this
//! library: nothing here knows of it or derives clap traits.
//!
//! Every parallel stage has a sequential twin, selected by `--threads 1`, giving the same
//! bytes.

#![warn(missing_docs)]

pub mod answer;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod error;
pub mod eval;
pub mod exec;
pub mod games;
pub mod generate;
pub mod graph;
pub mod io;
pub mod meter;
pub mod octal;
pub mod order;
pub mod parse;
pub mod report;
#[cfg(test)]
pub(crate) mod testing;

pub use error::Error;
pub use exec::CaseReader;
pub use io::input::Input;
pub use parse::format::Format;
