//! The game graph in compressed sparse row (CSR) form: two flat arrays, no per-node allocation.
//!
//! Memory: 4 bytes per node (`offsets`) plus 4 bytes per edge (`targets`). Offsets are `u32`
//! for a case of up to `u32::MAX` edges, the common case, and `u64` beyond ([`Offset`]): a
//! case of more than four billion edges (a text file of more than 8 GB) costs 8 bytes per node
//! and works on any machine with the memory, while every other case pays nothing for it.

use std::ops::{Add, AddAssign, Range, Sub};

use super::Rule;
use crate::io::memory::prefetch;
use crate::io::store::{Plain, Store};

/// The integer type of a CSR's offsets: `u32` (4 bytes per node) for every case that fits,
/// `u64` (8 bytes per node) for one of more than `u32::MAX` edges. Readers choose it per case.
pub trait Offset:
    Copy
    + Ord
    + Default
    + Send
    + Sync
    + std::fmt::Debug
    + From<u32>
    + Into<u64>
    + TryFrom<usize>
    + Add<Output = Self>
    + Sub<Output = Self>
    + AddAssign
    + Plain
    + 'static
{
    /// The offset as an index.
    #[inline]
    fn index(self) -> usize {
        let x: u64 = self.into();
        x as usize
    }

    /// `count` as an offset, if it fits.
    #[inline]
    fn of(count: usize) -> Option<Self> {
        Self::try_from(count).ok()
    }
}

impl Offset for u32 {}
impl Offset for u64 {}

/// The largest edge total a case keeps in 32-bit offsets: `u32::MAX`, or what the
/// environment variable `GRUNDY_NARROW_EDGES` says (a test knob: the 64-bit path is tested on
/// small files by lowering it, not with a 40 GB one). Read once.
pub fn narrow_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let set = std::env::var("GRUNDY_NARROW_EDGES").ok().and_then(|v| v.parse().ok());
        set.map_or(u64::from(u32::MAX), |limit: u64| limit.min(u64::from(u32::MAX)))
    })
}

/// The offsets of a chess-format case being read node by node: 32-bit while the edge total
/// stays within [`narrow_limit`], 64-bit from the node that passes it (the offsets so far are
/// widened once). Readers push one total per node and take the graph at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OffsetsBuilder {
    /// Every total so far fits.
    Narrow {
        /// The offsets, starting with 0.
        offsets: Vec<u32>,
        /// The largest total kept narrow.
        limit: u64,
    },
    /// A total has passed the limit.
    Wide(Vec<u64>),
}

impl OffsetsBuilder {
    /// Offsets of a case of about `nodes` nodes (a capacity, bounded by the caller).
    pub fn with_capacity(nodes: usize) -> OffsetsBuilder {
        let mut offsets = Vec::with_capacity(nodes + 1);
        offsets.push(0);
        OffsetsBuilder::Narrow { offsets, limit: narrow_limit() }
    }

    /// The next node's list ends at edge `total`.
    #[inline]
    pub fn push(&mut self, total: u64) {
        match self {
            OffsetsBuilder::Narrow { offsets, limit } if total <= *limit => {
                offsets.push(total as u32)
            }
            OffsetsBuilder::Wide(offsets) => offsets.push(total),
            OffsetsBuilder::Narrow { .. } => self.widen(total),
        }
    }

    /// The first total past the limit: the offsets so far become 64-bit, once per case. Kept
    /// out of line so `push`, called once per node, stays a compare and a store.
    #[cold]
    #[inline(never)]
    fn widen(&mut self, total: u64) {
        if let OffsetsBuilder::Narrow { offsets, .. } = self {
            let mut wide: Vec<u64> = Vec::with_capacity(offsets.capacity());
            wide.extend(offsets.iter().map(|&o| u64::from(o)));
            wide.push(total);
            *self = OffsetsBuilder::Wide(wide);
        }
    }

    /// The total so far.
    pub fn last(&self) -> u64 {
        match self {
            OffsetsBuilder::Narrow { offsets, .. } => offsets.last().map_or(0, |&o| o.into()),
            OffsetsBuilder::Wide(offsets) => offsets.last().copied().unwrap_or(0),
        }
    }

    /// For edge `e`: its node, its 1-based index in the node's list, and the list's length.
    pub fn locate(&self, e: usize) -> (u32, u32, u32) {
        fn find<O: Offset>(offsets: &[O], e: usize) -> (u32, u32, u32) {
            let node = offsets.partition_point(|&o| o.index() <= e) - 1;
            let of = (offsets[node + 1] - offsets[node]).index() as u32;
            (node as u32, (e - offsets[node].index()) as u32 + 1, of)
        }
        match self {
            OffsetsBuilder::Narrow { offsets, .. } => find(offsets, e),
            OffsetsBuilder::Wide(offsets) => find(offsets, e),
        }
    }

    /// The graph of these offsets and `targets`, whose invariants the reader established.
    pub fn into_graph(self, targets: Vec<u32>) -> super::GameGraph {
        match self {
            OffsetsBuilder::Narrow { offsets, .. } => {
                super::GameGraph::Chess(Csr::from_checked_parts(offsets, targets))
            }
            OffsetsBuilder::Wide(offsets) => {
                super::GameGraph::ChessWide(Csr::from_checked_parts(offsets, targets))
            }
        }
    }
}

/// A directed graph in CSR form.
///
/// Invariants: `offsets.len() == node_count() + 1`, `offsets[0] == 0`, `offsets` is
/// non-decreasing, `offsets[node_count()] == targets.len()`, and every target is below
/// `node_count()`. The successors of `v` are `targets[offsets[v]..offsets[v + 1]]`, in input
/// order (or in mex order, [`super::mex_order`], when [`Csr::is_in_mex_order`]), duplicates
/// kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr<O: Offset = u32> {
    offsets: Store<O>,
    targets: Store<u32>,
    /// The lists are in mex order: a claim (an index's) that searches check, not an invariant.
    mex_order: bool,
}

impl Csr {
    /// Builds a graph from adjacency lists (for tests and small generated games).
    pub fn from_lists<L: AsRef<[u32]>>(lists: &[L]) -> Option<Csr> {
        let mut offsets = vec![0u32];
        let mut targets = Vec::new();
        for list in lists {
            targets.extend_from_slice(list.as_ref());
            offsets.push(u32::try_from(targets.len()).ok()?);
        }
        Csr::from_parts(offsets, targets)
    }
}

impl<O: Offset> Csr<O> {
    /// Builds a graph from its parts, checking every invariant; `None` if one fails.
    pub fn from_parts(offsets: Vec<O>, targets: Vec<u32>) -> Option<Csr<O>> {
        let n = offsets.len().checked_sub(1)?;
        let well_formed = offsets[0] == O::default()
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets[n].index() == targets.len()
            && targets.iter().all(|&t| (t as usize) < n);
        well_formed.then(|| Csr {
            offsets: offsets.into(),
            targets: targets.into(),
            mex_order: false,
        })
    }

    /// Builds a graph from parts whose invariants the caller has established (the parsers check
    /// every id as they read it). Checking them again would be a serial pass over every edge;
    /// debug builds do it anyway.
    pub fn from_checked_parts(offsets: Vec<O>, targets: Vec<u32>) -> Csr<O> {
        debug_assert!(Csr::from_parts(offsets.clone(), targets.clone()).is_some());
        Csr { offsets: offsets.into(), targets: targets.into(), mex_order: false }
    }

    /// A graph of arrays read in place (an index's), whose invariants the caller checked.
    pub fn from_checked_stores(offsets: Store<O>, targets: Store<u32>) -> Csr<O> {
        Csr { offsets, targets, mex_order: false }
    }

    /// This graph, its lists said to be in mex order ([`super::mex_order`]): an index's claim,
    /// which the searches that rely on it check move by move.
    pub fn marked_in_mex_order(self) -> Csr<O> {
        Csr { mex_order: true, ..self }
    }

    /// True when the lists are (said to be) in mex order rather than input order.
    #[inline]
    pub fn is_in_mex_order(&self) -> bool {
        self.mex_order
    }

    /// Number of nodes.
    #[inline]
    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of edges, parallel edges counted each time.
    #[inline]
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The out-positions of `v`, in input order (or mex order, [`Csr::is_in_mex_order`]).
    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v].index()..self.offsets[v + 1].index()]
    }

    /// The largest out-degree (0 for no node), counted on every thread.
    pub fn most_moves(&self) -> u32 {
        use rayon::prelude::*;
        self.offsets.par_windows(2).map(|w| (w[1] - w[0]).index() as u32).max().unwrap_or(0)
    }

    /// Number of out-positions of `v` (a node lists at most `u32::MAX`).
    #[inline]
    pub fn out_degree(&self, v: u32) -> u32 {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]).index() as u32
    }

    /// Starts reading what a search of `v`'s moves for one of value `want` reads, in steps
    /// ([`crate::answer::AHEAD`]): its list bounds (`stage` 1), its list (2; in mex order just
    /// the move to `want`), and at 3 gives the moves whose values the search reads. Each step
    /// reads what the one before brought into cache.
    #[inline]
    pub fn prefetch_moves(&self, v: u32, want: u32, stage: usize) -> Option<&[u32]> {
        match stage {
            1 => prefetch(&self.offsets, v as usize),
            2 => {
                let skip = if self.mex_order { want as usize } else { 0 };
                prefetch(&self.targets, self.offsets[v as usize].index() + skip)
            }
            _ => return Some(super::mex_order::search_span(self, v, want)),
        }
        None
    }

    /// Takes the graph apart into its offsets and targets.
    pub fn into_parts(self) -> (Vec<O>, Vec<u32>) {
        (self.offsets.into_vec(), self.targets.into_vec())
    }

    /// The offsets array: `node_count() + 1` entries.
    pub fn offsets(&self) -> &[O] {
        &self.offsets
    }

    /// The targets array: `edge_count()` entries.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// The reverse graph (every edge turned around), with the same node count; predecessors
    /// are listed in increasing order of their id. Costs another 4 bytes per node and per edge.
    pub fn reversed(&self) -> Csr<O> {
        super::Reverse::build(self, 1, false, &|_| {}).into_csr()
    }
}

/// Most moves whose values [`Rule::look_ahead`] prefetches for one node.
const LOOK_AHEAD_MOVES: usize = 64;

impl<O: Offset> Rule for Csr<O> {
    fn node_count(&self) -> usize {
        Csr::node_count(self)
    }

    #[inline]
    fn move_count(&self, v: u32) -> usize {
        self.out_degree(v) as usize
    }

    #[inline]
    fn move_values(
        &self,
        v: u32,
        moves: Range<usize>,
        value: &impl Fn(u32) -> u32,
        mut f: impl FnMut(u32),
    ) {
        for &s in &self.successors(v)[moves] {
            f(value(s));
        }
    }

    #[inline]
    fn look_ahead(&self, next: &[u32], values: &[u32]) {
        self.prefetch_ahead(next, values);
    }
}

impl<O: Offset> Csr<O> {
    /// Starts the reads of the nodes `next` (evaluated next, in that order) and of their
    /// successors' entries in `values`, a number per node of any type.
    ///
    /// Nodes of a level are scattered over the arrays, so their offsets, lists and successors'
    /// values all miss: offsets eight nodes ahead, lists four ahead, values one ahead (a chain's
    /// nodes are so short that four and two left its misses waiting).
    #[inline]
    pub fn prefetch_ahead<T>(&self, next: &[u32], values: &[T]) {
        if let Some(&far) = next.get(7) {
            prefetch(&self.offsets, far as usize);
        }
        if let Some(&near) = next.get(3) {
            prefetch(&self.targets, self.offsets[near as usize].index());
        }
        // A node with many moves has its own loop to hide its misses in: hints would be work.
        match next.first().map(|&v| self.successors(v)) {
            Some(moves) if moves.len() <= LOOK_AHEAD_MOVES => {
                moves.iter().for_each(|&s| prefetch(values, s as usize))
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_parts_checks_every_invariant() {
        assert!(Csr::<u32>::from_parts(vec![0, 1, 1], vec![1]).is_some());
        assert!(Csr::<u32>::from_parts(vec![], vec![]).is_none());
        assert!(Csr::<u32>::from_parts(vec![1, 1], vec![0]).is_none());
        assert!(Csr::<u32>::from_parts(vec![0, 2, 1], vec![0, 0]).is_none());
        assert!(Csr::<u32>::from_parts(vec![0, 1], vec![]).is_none());
        assert!(Csr::<u32>::from_parts(vec![0, 1], vec![1]).is_none());
    }

    #[test]
    fn offsets_widen_at_the_limit_and_keep_every_total() {
        let mut offsets = OffsetsBuilder::Narrow { offsets: vec![0], limit: 5 };
        for total in [2, 5] {
            offsets.push(total);
        }
        assert!(matches!(offsets, OffsetsBuilder::Narrow { .. }));
        offsets.push(6);
        offsets.push(9);
        assert_eq!(offsets, OffsetsBuilder::Wide(vec![0, 2, 5, 6, 9]));
        assert_eq!(
            (offsets.last(), offsets.locate(5), offsets.locate(8)),
            (9, (2, 1, 1), (3, 3, 3))
        );
        let targets = vec![1, 2, 2, 3, 3, 3, 0, 0, 0];
        match offsets.into_graph(targets) {
            crate::graph::GameGraph::ChessWide(g) => {
                assert_eq!(
                    (g.node_count(), g.successors(3), g.out_degree(1)),
                    (4, &[0, 0, 0][..], 3)
                );
                let reverse = g.reversed();
                assert_eq!(
                    (reverse.successors(3), reverse.successors(0)),
                    (&[1, 1, 2][..], &[3, 3, 3][..])
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
