//! How the stages run: the one place where the sequential and the parallel paths are chosen.
//!
//! [`Exec`] is resolved once, in the configuration, from `--threads`; every stage that has a
//! sequential twin asks it which to run, and the case loop ([`cases`]: read, order,
//! evaluate, answer) is written once on top of it. A new way to run (a cluster of processes)
//! is one new variant here and one new module beside this one.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::eval::Values;
use crate::graph::{Csr, GameGraph, Offset, Rule};
use crate::meter::Meter;
use crate::order::{self, Cycle, Levels};
use crate::parse::edges::Located;
use crate::parse::text::Text;
use crate::play::Play;
use crate::{eval, parse};

pub mod cases;
pub mod index;
pub mod play;
pub mod query;
pub mod solve;
pub mod stats;
pub mod values;

pub use crate::eval::{Evaluated, Labelled, StageTimes};
pub use cases::CaseReader;
pub use index::index;
pub use query::{query, query_case, query_index};
pub use solve::solve;
pub use stats::{stats, stats_of_index};
pub use values::{values, values_of_index};

/// Default bytes tokenized per parallel step: large enough that a rayon dispatch (a few
/// microseconds) is noise, small enough that the token buffers of a query section stay small
/// (a window's tokens are held twice, in the pieces' buffers and the reader's: about 2 x 4 B
/// per 5 B of input, 7 MB at 4 MiB). 16 MiB windows ran no faster and held 26 MB.
pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;

/// How the engine's stages run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exec {
    /// One thread, every stage's sequential twin: the reference the parallel path is tested
    /// against, byte for byte.
    Sequential,
    /// The parallel stages, on the rayon pool the caller installed.
    Rayon {
        /// Bytes of input tokenized per parallel step.
        chunk_bytes: usize,
    },
}

impl Exec {
    /// True for the sequential twins.
    pub fn is_sequential(self) -> bool {
        self == Exec::Sequential
    }

    /// The bytes per window when `input` is read by the window reader: always on several
    /// threads, and on one for a stream, which the sequential reader would have to hold whole;
    /// `None` for the sequential reader.
    pub fn window(self, input: &crate::io::input::Input) -> Option<usize> {
        match self {
            Exec::Rayon { chunk_bytes } => Some(chunk_bytes),
            Exec::Sequential if input.is_stream() => Some(DEFAULT_CHUNK_BYTES),
            Exec::Sequential => None,
        }
    }

    /// Kahn's levels of `graph`, or the nodes of one cycle.
    pub fn order<O: Offset>(self, graph: &Csr<O>, meter: &dyn Meter) -> Result<Levels, Cycle> {
        match self {
            Exec::Sequential => order::levels(graph, meter),
            Exec::Rayon { .. } => order::levels_parallel(graph, meter),
        }
    }

    /// The Grundy value of every node of a game graph and, with `levels`, every node's level;
    /// or the nodes of one cycle.
    ///
    /// In parallel (on a pool of one thread too), by the depth-first search
    /// ([`eval::search()`]): no reverse graph, each edge read once. The sequential twin, by
    /// Kahn's peeling with the mex taken on the way ([`order::levels_valued`]), is the
    /// reference the search is tested against; it once beat the search on one thread (the
    /// 10M-node file: 5.0 s against 6.3), but no longer does (0.84x its time and 44% of its
    /// memory for the search, BENCHMARKS.md). A cycle the search meets, or a false alarm of
    /// its wait-for check, is handed to the parallel peeling, which names the cycle or
    /// evaluates the graph.
    pub fn values_of<O: Offset>(
        self,
        graph: &Csr<O>,
        levels: bool,
        meter: &dyn Meter,
    ) -> Result<(Values, Option<Vec<u32>>), Cycle> {
        let found = self.values_playing(graph, levels, Play::Normal, meter)?;
        Ok((found.values, found.levels))
    }

    /// [`Exec::values_of`], with the numbers of `play` taken along the search where it can
    /// take them ([`crate::play::measure::search`]; the levels then too); else none
    /// ([`eval::Searched::numbers`] `None`), for a pass of their own.
    pub fn values_playing<O: Offset>(
        self,
        graph: &Csr<O>,
        levels: bool,
        play: Play,
        meter: &dyn Meter,
    ) -> Result<eval::Searched, Cycle> {
        let (order, values) = match self {
            Exec::Sequential => order::levels_valued(graph, meter)?,
            Exec::Rayon { .. } => match crate::play::measure::search(play, graph, levels, meter) {
                Ok(found) => return Ok(found),
                Err(eval::Cyclic) => (order::levels_parallel(graph, meter)?, None),
            },
        };
        let values = match values {
            Some(values) => Values::from_vec(values),
            None => self.evaluate(graph, &order, meter),
        };
        let levels = levels.then(|| order.node_levels());
        Ok(eval::Searched { values, levels, numbers: None })
    }

    /// Peels `graph` as far as it goes: the levels of the nodes that reach no cycle (all of an
    /// acyclic graph's), the pending counts of the others and the reverse graph.
    pub fn peel<O: Offset>(self, graph: &Csr<O>, meter: &dyn Meter) -> order::Peeled<O> {
        match self {
            Exec::Sequential => order::peeled(graph, meter),
            Exec::Rayon { .. } => order::peeled_parallel(graph, meter),
        }
    }

    /// The loopy values of `graph` ([`eval::loopy()`]): the nodes that reach no cycle peeled
    /// and evaluated as in an acyclic game, on this path; the rest labelled by stages. With the
    /// time spent peeling and the time spent evaluating and labelling.
    ///
    /// On the parallel path the search ([`eval::search()`]) goes first, as for plain play: an
    /// acyclic graph then costs what `solve` costs, with no reverse graph built; a cycle stops
    /// the search (most graphs with cycles meet one within their first nodes, and at worst
    /// the search has cost one plain run) and the labelling below takes the graph.
    pub fn label<O: Offset>(
        self,
        graph: &Csr<O>,
        meter: &dyn Meter,
    ) -> (Values, Duration, Duration) {
        let start = Instant::now();
        if !self.is_sequential() {
            if let Ok(found) = eval::search(graph, false, true, meter) {
                // As in plain play: the search counts as ordering.
                return (found.values, start.elapsed(), Duration::ZERO);
            }
        }
        let peeled = self.peel(graph, meter);
        let order = start.elapsed();
        let start = Instant::now();
        if peeled.is_complete() {
            // Acyclic: exactly the plain path, without the reverse graph held meanwhile.
            let levels = peeled.levels;
            return (self.evaluate(graph, &levels, meter), order, start.elapsed());
        }
        let plain = self.evaluate(graph, &peeled.levels, meter);
        let values = eval::loopy_rest(graph, plain, peeled, meter);
        (values, order, start.elapsed())
    }

    /// The Grundy value of every node of `rule`, evaluated in `levels` order.
    pub fn evaluate<R: Rule>(self, rule: &R, levels: &Levels, meter: &dyn Meter) -> Values {
        match self {
            Exec::Sequential => eval::grundy(rule, levels, meter),
            Exec::Rayon { .. } => eval::grundy_parallel(rule, levels, meter),
        }
    }

    /// An edge list's graph ([`parse::edges`]).
    pub fn read_edges(
        self,
        text: &mut Text,
        nodes: Option<u32>,
        window: usize,
        meter: &dyn Meter,
    ) -> Result<GameGraph, Located> {
        parse::edges::read_text(text, nodes, !self.is_sequential(), window, meter)
    }

    /// `f` of every item, in order: in parallel unless sequential.
    pub fn map<T: Send, F: Fn(usize) -> T + Sync>(self, items: &[usize], f: F) -> Vec<T> {
        match self {
            Exec::Sequential => items.iter().map(|&i| f(i)).collect(),
            Exec::Rayon { .. } => items.par_iter().map(|&i| f(i)).collect(),
        }
    }

    /// Bytes of input tokenized per step (the sequential path reads whole inputs, and windows
    /// only bound how often progress is reported).
    pub fn chunk_bytes(self) -> usize {
        match self {
            Exec::Sequential => DEFAULT_CHUNK_BYTES,
            Exec::Rayon { chunk_bytes } => chunk_bytes,
        }
    }
}
