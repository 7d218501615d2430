//! What the case loop hands on: a case's game with its order, values and stage times.

use std::time::Duration;

use super::Values;
use crate::graph::GameGraph;

/// A case's graph, ordered and evaluated.
#[derive(Debug)]
pub struct Evaluated {
    /// 1-based case number.
    pub case: u64,
    /// The game.
    pub graph: GameGraph,
    /// Every node's level (1 + the largest level of its moves, 0 for a sink), when the
    /// command asked for them ([`crate::exec::CaseReader::with_levels`]).
    pub levels: Option<Vec<u32>>,
    /// Grundy value of every node.
    pub values: Values,
    /// A play's numbers of every node, packed, when the search took them along
    /// ([`crate::exec::CaseReader::playing`]; `crate::play::Measures::unpacked` reads them).
    pub numbers: Option<super::search::Numbers>,
    /// Time spent on each stage.
    pub times: StageTimes,
}

/// A case's graph labelled as a loopy game (cycles allowed).
#[derive(Debug)]
pub struct Labelled {
    /// 1-based case number.
    pub case: u64,
    /// The game (chess format: an explicit graph).
    pub graph: GameGraph,
    /// Generalized Sprague-Grundy value of every node, [`Values::INFINITE`] for infinity.
    pub values: Values,
    /// Time spent on each stage (labelling counted as evaluation).
    pub times: StageTimes,
}

/// Wall-clock time of each stage of a case.
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    /// Reading the graph.
    pub parse: Duration,
    /// Ordering; for an explicit game graph, the peel or the search that takes the values
    /// (and levels) on the way.
    pub order: Duration,
    /// Grundy evaluation; zero when the ordering computed the values.
    pub evaluate: Duration,
    /// Reading (and answering) the queries.
    pub queries: Duration,
}
