//! grundy: Sprague-Grundy values of impartial games given as directed acyclic graphs.
//!
//! The engine runs in stages, one folder each, with plain typed data between them; data flows
//! down this list and never back:
//!
//! 1. [`io`]: the bytes of an input (a memory map, stdin, a decompressed file); outputs that
//!    appear whole or not at all (or `--check`ed against an expected output); the progress
//!    bar; signals. Its failures are its own type ([`io::error::IoError`]).
//! 2. [`parse`]: tokens, then a case's game ([`graph::GameGraph`]), by the sequential reader
//!    or its parallel twin, in the chess, sums or edge-list [`Format`]. The chess family's
//!    record grammar is written once ([`parse::walk`]) for the parallel reader and a cluster
//!    worker's share; the sequential reader is the hand-written reference.
//! 3. [`graph`]: the [`graph::Rule`] trait and the graphs that implement it (CSR, sums), and
//!    the reverse graph.
//! 4. [`order`]: Kahn's order, sinks first, grouped into levels; when no node has more than
//!    [`order::MASK_MOVES`] moves the peel takes every node's value on the way. One thread
//!    values a game graph so; sums, loopy games and cycles are peeled on every path.
//! 5. [`eval`]: on several threads, a game graph's values and levels by a depth-first search
//!    over its moves ([`eval::search()`], no reverse graph), and a play's numbers along it when
//!    asked ([`eval::search::Along`]); the Grundy value of every node the peel did not value,
//!    level by level; loopy games' generalized values.
//! 6. [`answer`]: nim-sums, verdicts and winning moves, in parallel batches of queries
//!    ([`answer::Batch`]: it knows no reader).
//! 7. [`report`]: rows through one sink trait ([`report::RowSink`]): CSV (their
//!    [`report::Columns`]), and with the `columnar` feature Parquet and Arrow IPC; statistics.
//!
//! The other plays ([`play`]: misère play with Conway's genus, conjunctive and continued
//! compounds, selective play) are numbers per node taken along stage 5 (or in a pass over its
//! levels) and rules that decide a sum from its tokens' numbers, used by stages 6 and 7.
//!
//! Above the stages stands the conductor, [`exec`]: the case loop (read, order, evaluate, then
//! the queries) on the sequential or the parallel path, and the whole-file runs of `solve`,
//! `query`, `values`, `stats` and `index`. It imports the stages, [`play`] and [`index`]; no
//! stage imports it. What runs the engine imports it in turn: [`games`], [`generate`], and
//! with their features `serve` and `cluster`.
//!
//! An [`index`] file is a game solved once: written after stage 5, read back in place of
//! stages 1-5 (its arrays mapped, not copied: [`io::store`]), so `query`, `values` and `stats`
//! answer from it with the same stages 6 and 7.
//!
//! With the `serve` feature, `serve` answers over HTTP from an index or a solved text.
//!
//! With the `cluster` feature (on by default), `cluster` runs `solve`, `values` and `query`
//! across processes and machines on timely-dataflow: connections that prove the run's secret
//! and identity, shares cut by weight, values settled by messages and pointer jumping.
//!
//! Beside the pipeline: [`games`] (the seed problems' games as move generators on the same
//! engine), [`octal`] (octal games' sequences and periods), [`generate`] (valid random
//! inputs), [`meter`] (how the engine reports progress), [`error`] (the one-line errors users
//! see). The command line (arguments with clap, settings, one module per subcommand, the one
//! place a run is put on a cluster) is the binary's own `app` folder, outside this library:
//! nothing here knows of it or derives clap traits.
//!
//! Every parallel stage has a sequential twin ([`exec::Exec::Sequential`]; the command line's
//! hidden `--sequential`), giving the same bytes: the independent reference the tests compare
//! the engine with. One thread runs the parallel stages on a pool of one.

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
pub mod index;
pub mod io;
pub mod meter;
pub mod octal;
pub mod order;
pub mod parse;
pub mod play;
pub mod report;
#[cfg(feature = "serve")]
pub mod serve;
#[cfg(test)]
pub(crate) mod testing;

pub use error::Error;
pub use exec::CaseReader;
pub use io::input::Input;
pub use parse::format::Format;
