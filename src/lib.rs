//! grundy: Sprague-Grundy values of impartial games given as directed acyclic graphs.
//!
//! The engine runs in stages, each in its own module, each with plain data between them:
//!
//! 1. [`input`]: the bytes of a file (memory-mapped) or of stdin;
//! 2. [`lexer`] and [`chess`] (sequential), or [`tokens`] and [`chess_parallel`] (parallel):
//!    tokens, then a case's graph in CSR form ([`graph::Csr`]);
//! 3. [`topo`]: Kahn's order, sinks first, grouped into levels;
//! 4. [`eval`]: the Grundy value of every node, level by level;
//! 5. [`query`]: nim-sums and verdicts, in parallel batches;
//! 6. [`cmd`]: the subcommands, which write results through [`output`];
//!    [`generate`] makes valid random inputs.
//!
//! Every parallel stage has a sequential twin, selected by `--threads 1` ([`config`]).
//!
//! Errors are typed ([`error::Error`]) and rendered as one line by the binary.

#![warn(missing_docs)]

pub mod cases;
pub mod chess;
pub mod chess_parallel;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod edges;
pub mod error;
pub mod eval;
pub mod format;
pub mod games;
pub mod generate;
pub mod graph;
pub mod input;
pub mod lexer;
pub mod memory;
pub mod meter;
pub mod output;
pub mod progress;
pub mod query;
pub mod report;
pub mod signals;
pub mod stats;
pub mod sums;
pub mod tokens;
pub mod topo;

pub use error::Error;
