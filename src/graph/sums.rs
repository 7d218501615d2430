//! Games whose moves lead to sums of positions, in CSR form, and the graph type every command
//! works on.
//!
//! A move of the Cutting Game splits a sheet into two independent sheets: it leads to a sum,
//! whose value is the XOR of its parts' values. A chess-format edge is the one-part case.

use std::ops::Range;

use crate::graph::Csr;
use crate::graph::Rule;
use crate::io::store::Store;

/// A game whose moves each lead to a sum of zero or more positions.
///
/// Three arrays: `move_offsets` (node -> its moves, `n + 1` entries), `part_offsets` (move ->
/// its parts, `moves + 1` entries) and the parts themselves, which are stored as the targets
/// of `deps`, the dependency graph (node -> every part of every move, in order) that Kahn
/// orders. Memory: 8 bytes per node, 4 per move, 4 per part.
///
/// Invariants: both offset arrays start at 0 and never decrease;
/// `part_offsets[move_offsets[v]] == deps.offsets()[v]` for every `v` (so the parts of `v`'s
/// moves are exactly its dependencies); every part is a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SumsGraph {
    deps: Csr,
    move_offsets: Store<u32>,
    part_offsets: Store<u32>,
}

impl SumsGraph {
    /// Builds a game from its arrays, checking every invariant; `None` if one fails.
    pub fn from_parts(
        move_offsets: Vec<u32>,
        part_offsets: Vec<u32>,
        parts: Vec<u32>,
    ) -> Option<SumsGraph> {
        let moves = part_offsets.len().checked_sub(1)?;
        let monotone = |a: &[u32]| a.first() == Some(&0) && a.windows(2).all(|w| w[0] <= w[1]);
        let shaped = monotone(&move_offsets)
            && monotone(&part_offsets)
            && *move_offsets.last()? as usize == moves
            && part_offsets[moves] as usize == parts.len();
        if !shaped {
            return None;
        }
        let dep_offsets = move_offsets.iter().map(|&m| part_offsets[m as usize]).collect();
        let deps = Csr::from_parts(dep_offsets, parts)?;
        Some(SumsGraph {
            deps,
            move_offsets: move_offsets.into(),
            part_offsets: part_offsets.into(),
        })
    }

    /// Builds a game from arrays the caller has checked (the parsers check every id they read).
    pub fn from_checked_parts(
        move_offsets: Vec<u32>,
        part_offsets: Vec<u32>,
        parts: Vec<u32>,
    ) -> SumsGraph {
        let dep_offsets = move_offsets.iter().map(|&m| part_offsets[m as usize]).collect();
        let deps = Csr::from_checked_parts(dep_offsets, parts);
        SumsGraph { deps, move_offsets: move_offsets.into(), part_offsets: part_offsets.into() }
    }

    /// A game of arrays read in place (an index's), whose invariants the caller checked.
    pub fn from_checked_stores(
        deps: Csr,
        move_offsets: Store<u32>,
        part_offsets: Store<u32>,
    ) -> SumsGraph {
        SumsGraph { deps, move_offsets, part_offsets }
    }

    /// Where each node's moves start among all moves (`n + 1` entries).
    pub fn move_offsets(&self) -> &[u32] {
        &self.move_offsets
    }

    /// Where each move's parts start among all parts (`moves + 1` entries).
    pub fn part_offsets(&self) -> &[u32] {
        &self.part_offsets
    }

    /// Builds a game from each node's list of moves, each a list of parts.
    pub fn from_lists(nodes: &[Vec<Vec<u32>>]) -> Option<SumsGraph> {
        let (mut move_offsets, mut part_offsets, mut parts) = (vec![0u32], vec![0u32], vec![]);
        for moves in nodes {
            for m in moves {
                parts.extend_from_slice(m);
                part_offsets.push(u32::try_from(parts.len()).ok()?);
            }
            move_offsets.push(u32::try_from(part_offsets.len() - 1).ok()?);
        }
        SumsGraph::from_parts(move_offsets, part_offsets, parts)
    }

    /// The dependency graph: node -> every part of every move (what Kahn's order needs).
    pub fn deps(&self) -> &Csr {
        &self.deps
    }

    /// Number of positions.
    pub fn node_count(&self) -> usize {
        self.deps.node_count()
    }

    /// Number of moves in all.
    pub fn total_moves(&self) -> usize {
        self.part_offsets.len() - 1
    }

    /// The global ids of `v`'s moves.
    #[inline]
    pub fn moves(&self, v: u32) -> Range<usize> {
        self.move_offsets[v as usize] as usize..self.move_offsets[v as usize + 1] as usize
    }

    /// The parts of move `m` (a global move id).
    #[inline]
    pub fn parts(&self, m: usize) -> &[u32] {
        let targets = self.deps.targets();
        &targets[self.part_offsets[m] as usize..self.part_offsets[m + 1] as usize]
    }
}

impl Rule for SumsGraph {
    fn node_count(&self) -> usize {
        SumsGraph::node_count(self)
    }

    #[inline]
    fn move_count(&self, v: u32) -> usize {
        self.moves(v).len()
    }

    #[inline]
    fn move_values(
        &self,
        v: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        mut f: impl FnMut(u32),
    ) {
        let first = self.moves(v).start;
        for m in first + moves.start..first + moves.end {
            f(self.parts(m).iter().fold(0, |acc, &p| acc ^ value(p)));
        }
    }
}

/// The game of one case: a chess-format graph (each move to one position) or a game of sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameGraph {
    /// Each move leads to one position.
    Chess(Csr),
    /// Each move leads to one position, in a case of more than `u32::MAX` edges.
    ChessWide(Csr<u64>),
    /// Each move leads to a sum of positions.
    Sums(SumsGraph),
}

/// A game's dependency graph (node -> every position its moves reach), for Kahn's order and
/// for in-degrees, in the offsets its case needs.
#[derive(Debug, Clone, Copy)]
pub enum Deps<'g> {
    /// Up to `u32::MAX` edges.
    Narrow(&'g Csr),
    /// More.
    Wide(&'g Csr<u64>),
}

impl Deps<'_> {
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        match self {
            Deps::Narrow(g) => g.node_count(),
            Deps::Wide(g) => g.node_count(),
        }
    }

    /// Every edge's target, node by node.
    pub fn targets(&self) -> &[u32] {
        match self {
            Deps::Narrow(g) => g.targets(),
            Deps::Wide(g) => g.targets(),
        }
    }
}

impl GameGraph {
    /// The game with its lists in mex order ([`super::mex_order`]), a node's value given by
    /// `value`: the chess format's lists (in place); the sums format's moves stay as they are.
    pub fn in_mex_order(self, value: &(impl Fn(u32) -> u32 + Sync)) -> GameGraph {
        use super::mex_order::in_mex_order;
        match self {
            GameGraph::Chess(g) => GameGraph::Chess(in_mex_order(g, value)),
            GameGraph::ChessWide(g) => GameGraph::ChessWide(in_mex_order(g, value)),
            sums => sums,
        }
    }

    /// The dependency graph, for Kahn's order and for in-degrees.
    pub fn deps(&self) -> Deps<'_> {
        match self {
            GameGraph::Chess(g) => Deps::Narrow(g),
            GameGraph::ChessWide(g) => Deps::Wide(g),
            GameGraph::Sums(g) => Deps::Narrow(g.deps()),
        }
    }

    /// Number of positions.
    pub fn node_count(&self) -> usize {
        self.deps().node_count()
    }

    /// Number of moves of `v`.
    pub fn move_count(&self, v: u32) -> u32 {
        match self {
            GameGraph::Chess(g) => g.out_degree(v),
            GameGraph::ChessWide(g) => g.out_degree(v),
            GameGraph::Sums(g) => g.moves(v).len() as u32,
        }
    }

    /// Number of moves in all.
    pub fn total_moves(&self) -> usize {
        match self {
            GameGraph::Chess(g) => g.edge_count(),
            GameGraph::ChessWide(g) => g.edge_count(),
            GameGraph::Sums(g) => g.total_moves(),
        }
    }

    /// The chess-format graph of a case of up to `u32::MAX` edges, if this is one.
    pub fn into_chess(self) -> Option<Csr> {
        match self {
            GameGraph::Chess(g) => Some(g),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_parts_checks_every_invariant() {
        assert!(SumsGraph::from_parts(vec![0, 1, 1], vec![0, 1], vec![1]).is_some());
        assert!(SumsGraph::from_parts(vec![0, 1], vec![0, 1], vec![1]).is_none()); // part 1 >= n
        assert!(SumsGraph::from_parts(vec![0, 2, 1], vec![0, 0, 0], vec![]).is_none());
        assert!(SumsGraph::from_parts(vec![0, 1, 1], vec![0, 2], vec![1]).is_none());
    }
}
