//! The game graph in compressed sparse row (CSR) form: two flat arrays, no per-node allocation.
//!
//! Memory: 4 bytes per node (`offsets`) plus 4 bytes per edge (`targets`). Offsets are `u32`
//! for a case of up to `u32::MAX` edges, the common case, and `u64` beyond ([`Offset`]): a
//! case of more than four billion edges (a text file of more than 8 GB) costs 8 bytes per node
//! and works on any machine with the memory, while every other case pays nothing for it.

use std::ops::{Add, AddAssign, Range, Sub};

use super::Rule;
use crate::io::memory::prefetch;

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
/// order, duplicates kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr<O: Offset = u32> {
    offsets: Vec<O>,
    targets: Vec<u32>,
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
        well_formed.then_some(Csr { offsets, targets })
    }

    /// Builds a graph from parts whose invariants the caller has established (the parsers check
    /// every id as they read it). Checking them again would be a serial pass over every edge;
    /// debug builds do it anyway.
    pub fn from_checked_parts(offsets: Vec<O>, targets: Vec<u32>) -> Csr<O> {
        debug_assert!(Csr::from_parts(offsets.clone(), targets.clone()).is_some());
        Csr { offsets, targets }
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

    /// The out-positions of `v`, in input order.
    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v].index()..self.offsets[v + 1].index()]
    }

    /// Number of out-positions of `v` (a node lists at most `u32::MAX`).
    #[inline]
    pub fn out_degree(&self, v: u32) -> u32 {
        let v = v as usize;
        (self.offsets[v + 1] - self.offsets[v]).index() as u32
    }

    /// Takes the graph apart into its offsets and targets.
    pub fn into_parts(self) -> (Vec<O>, Vec<u32>) {
        (self.offsets, self.targets)
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
        self.reversed_from(0..self.node_count() as u32, &|_| {})
    }

    /// The reverse of the edges leaving the nodes of `sources` only, over all node ids: for
    /// every node, the nodes of `sources` that move to it, in increasing id order. 4 bytes per
    /// node of the whole graph and per edge leaving `sources`, and while it is built 2 more
    /// per edge when a source id and a target's low bits do not fit 32 bits together.
    /// `done(k)` hears that `k` more sources are done, every [`TICK`](crate::meter::TICK)
    /// sources or so.
    ///
    /// A counting sort by target in two stages. Placing each edge straight at its target's
    /// place would write at random over the whole list array, a cache miss per edge (and
    /// counting every target's edges first, a random increment per edge); instead the edges
    /// are counted by bucket of their target's high bits (a few hundred counters, in cache),
    /// go to their bucket's region in order, and each bucket, small enough for the cache, is
    /// then counted and sorted by the low bits. Both passes are stable, so lists stay in
    /// increasing id order.
    pub fn reversed_from(&self, sources: Range<u32>, done: &(dyn Fn(u64) + Sync)) -> Csr<O> {
        let buckets = Buckets::of(self.node_count(), self.edges_from(sources.clone()));
        let packed = buckets.packs(self.node_count());
        self.reversed_in(sources, buckets, packed, done)
    }

    /// The targets of the edges leaving the nodes of `sources`.
    fn edges_from(&self, sources: Range<u32>) -> &[u32] {
        let (first, end) =
            (self.offsets[sources.start as usize], self.offsets[sources.end as usize]);
        &self.targets[first.index()..end.index()]
    }

    /// [`Csr::reversed_from`] with the edges counted in `buckets`: with `packed`, a bucketed
    /// edge holds its source above its target's low bits in one word, else the low bits go to
    /// an array of their own.
    fn reversed_in(
        &self,
        sources: Range<u32>,
        buckets: Buckets,
        packed: bool,
        done: &(dyn Fn(u64) + Sync),
    ) -> Csr<O> {
        let n = self.node_count();
        let edges = self.edges_from(sources.clone());
        let mut offsets: Vec<O> = vec![O::default(); n + 1];
        buckets.heavy_cursors(edges, &mut offsets);
        let mut cursors = buckets.starts.clone();
        let (shift, mask) = (buckets.shift, (1u32 << buckets.shift) - 1);
        // Every slot is written by the bucket pass: no zero-fill, only the pages' first touch.
        let mut targets: Vec<u32> = vec![0; edges.len()];
        let mut low: Vec<u16> = if packed { Vec::new() } else { vec![0; edges.len()] };
        // In ticks of sources, so the progress report costs nothing per node.
        let mut since = 0;
        let mut j = 0;
        for v in sources {
            let end = j + self.out_degree(v) as usize;
            for &t in &edges[j..end] {
                let b = (t >> shift) as usize;
                if buckets.heavy[b] {
                    let cursor = &mut offsets[t as usize + 1];
                    targets[cursor.index()] = v;
                    *cursor += O::from(1);
                } else if packed {
                    targets[cursors[b]] = v << shift | (t & mask);
                    cursors[b] += 1;
                } else {
                    let at = cursors[b];
                    targets[at] = v;
                    low[at] = (t & mask) as u16;
                    cursors[b] = at + 1;
                }
            }
            j = end;
            since += 1;
            if since == crate::meter::TICK {
                done(since);
                since = 0;
            }
        }
        done(since);
        let mut sort = BucketSort::default();
        for b in 0..buckets.heavy.len() {
            let first = b << shift;
            let region = buckets.starts[b]..buckets.starts[b + 1];
            if buckets.heavy[b] {
                // Its nodes' cursors (one place on) reached their ends: the next nodes' starts.
                offsets[first] = O::of(region.start).unwrap_or_default();
            } else if packed {
                let split = |_: usize, x: u32| (x & mask, x >> shift);
                sort.sort(
                    &mut targets,
                    region,
                    &mut offsets[first..n.min(first + (1 << shift))],
                    split,
                );
            } else {
                let split = |i: usize, x: u32| (u32::from(low[i]), x);
                sort.sort(
                    &mut targets,
                    region,
                    &mut offsets[first..n.min(first + (1 << shift))],
                    split,
                );
            }
        }
        offsets[n] = O::of(edges.len()).unwrap_or_default();
        Csr { offsets, targets }
    }
}

/// The buckets of [`Csr::reversed_from`]'s counting sort: targets `b << shift ..` in bucket
/// `b`, whose edges are `starts[b]..starts[b + 1]`. A bucket of more than [`HEAVY_EDGES`] edges
/// (a few nodes many edges reach) is placed straight at its targets' cursors instead: its
/// scratch copy would cost as much memory, and a few cursors stay in cache anyway.
struct Buckets {
    shift: u32,
    starts: Vec<usize>,
    heavy: Vec<bool>,
}

/// Most nodes' edges in one bucket: a bucket's edges and its nodes' cursors stay in the
/// second-level cache while it is sorted.
const BUCKET_NODES_MAX: u32 = 1 << 16;

/// Most edges a bucket sorts through scratch memory (4 MB); tests lower it, to reach both
/// kinds of bucket on small graphs.
const HEAVY_EDGES: usize = if cfg!(test) { 1 << 12 } else { 1 << 20 };

impl Buckets {
    /// About 128 buckets over `n` nodes, at least 256 nodes and at most [`BUCKET_NODES_MAX`]
    /// each (few enough for the bucket pass to write a cache line per bucket in turn, large
    /// enough to sort in cache), and the count of `edges` into each.
    fn of(n: usize, edges: &[u32]) -> Buckets {
        let shift = (n / 128).max(1).ilog2().clamp(8, BUCKET_NODES_MAX.ilog2());
        let count = (n >> shift) + 1;
        let mut starts = vec![0usize; count + 1];
        for &t in edges {
            starts[(t >> shift) as usize + 1] += 1;
        }
        let heavy = starts[1..].iter().map(|&size| size > HEAVY_EDGES).collect();
        for b in 0..count {
            starts[b + 1] += starts[b];
        }
        Buckets { shift, starts, heavy }
    }

    /// True when a source id (below `n`) fits above a target's low bits in 32 bits.
    fn packs(&self, n: usize) -> bool {
        n as u64 <= 1 << (32 - self.shift)
    }

    /// Sets `offsets[t + 1]` to the start of `t`'s list for every target `t` in a heavy
    /// bucket: the cursor its edges are placed at.
    fn heavy_cursors<O: Offset>(&self, edges: &[u32], offsets: &mut [O]) {
        if !self.heavy.contains(&true) {
            return;
        }
        for &t in edges {
            if self.heavy[(t >> self.shift) as usize] {
                offsets[t as usize + 1] += O::from(1);
            }
        }
        let n = offsets.len() - 1;
        for b in (0..self.heavy.len()).filter(|&b| self.heavy[b]) {
            let first = b << self.shift;
            let mut at = self.starts[b];
            for cursor in &mut offsets[first + 1..=n.min(first + (1 << self.shift))] {
                let count = cursor.index();
                *cursor = O::of(at).unwrap_or_default();
                at += count;
            }
        }
    }
}

/// Scratch memory of [`BucketSort::sort`], kept from bucket to bucket.
#[derive(Default)]
struct BucketSort {
    edges: Vec<u32>,
    cursors: Vec<u32>,
}

impl BucketSort {
    /// Sorts one bucket's edges, `targets[region]`, by their targets' low bits, which
    /// `split(i, targets[i])` tells with the source; the starts of the bucket's nodes' lists
    /// go to `offsets`.
    #[inline]
    fn sort<O: Offset>(
        &mut self,
        targets: &mut [u32],
        region: Range<usize>,
        offsets: &mut [O],
        split: impl Fn(usize, u32) -> (u32, u32),
    ) {
        self.cursors.clear();
        self.cursors.resize(offsets.len(), 0);
        for (i, &x) in region.clone().zip(&targets[region.clone()]) {
            self.cursors[split(i, x).0 as usize] += 1;
        }
        let base = O::of(region.start).unwrap_or_default();
        let mut at = 0u32;
        for (cursor, offset) in self.cursors.iter_mut().zip(offsets.iter_mut()) {
            *offset = base + O::from(at);
            at += std::mem::replace(cursor, at);
        }
        self.edges.clear();
        self.edges.extend_from_slice(&targets[region.clone()]);
        for (i, &x) in region.clone().zip(&self.edges) {
            let (low, v) = split(i, x);
            let cursor = &mut self.cursors[low as usize];
            targets[region.start + *cursor as usize] = v;
            *cursor += 1;
        }
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

    /// Nodes of a level are scattered over the arrays, so their offsets, lists and successors'
    /// values all miss: offsets eight nodes ahead, lists four ahead, values one ahead (a chain's
    /// nodes are so short that four and two left its misses waiting).
    #[inline]
    fn look_ahead(&self, next: &[u32], values: &[u32]) {
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

    #[test]
    fn reversed_turns_every_edge_around() {
        let g = Csr::from_lists(&[vec![1, 2, 2], vec![2], vec![]]).unwrap();
        let r = g.reversed();
        assert_eq!(r.successors(0), &[] as &[u32]);
        assert_eq!(r.successors(1), &[0]);
        assert_eq!(r.successors(2), &[0, 0, 1]);
        assert_eq!(r.reversed(), g);
        let part = g.reversed_from(1..3, &|_| {});
        assert_eq!(part.successors(2), &[1]);
        assert_eq!(part.edge_count(), 1);
    }

    /// The graph of `n` nodes listing, for every pair `(t, v)` of `pairs` in their order, `v`
    /// as a successor of `t`.
    fn reversed(pairs: &[(u32, u32)], n: u32) -> Csr {
        let mut lists = vec![Vec::new(); n as usize];
        pairs.iter().for_each(|&(t, v)| lists[t as usize].push(v));
        Csr::from_lists(&lists).unwrap()
    }

    /// Random graphs over many buckets, some of them heavy (a few nodes that many edges
    /// reach, in neighbouring buckets), reversed whole and by ranges of sources: every list is the sorted list of the
    /// sources that move to its node, as collecting and sorting the edge pairs gives.
    #[test]
    fn reversed_lists_match_sorted_edge_pairs() {
        let mut rng = crate::testing::Xorshift::new(0x2545_f491_4f6c_dd1d);
        let mut next = |bound: u32| rng.below(bound.into()) as u32;
        for (n, hubs) in [(1, 0), (300, 0), (40_000, 0), (70_000, 3), (200_000, 1)] {
            // Hubs in the middle, across a bucket's end when there are two or more.
            let hub = ((n / 2) & !0xfff_u32).saturating_sub(1);
            let lists: Vec<Vec<u32>> = (0..n)
                .map(|_| {
                    let degree = next(7);
                    (0..degree)
                        .map(|_| if hubs > 0 && next(3) == 0 { hub + next(hubs) } else { next(n) })
                        .collect()
                })
                .collect();
            let g = Csr::from_lists(&lists).unwrap();
            for sources in [0..n, 0..n / 3, n / 3..n] {
                let mut pairs: Vec<(u32, u32)> = sources
                    .clone()
                    .flat_map(|v| g.successors(v).iter().map(move |&t| (t, v)))
                    .collect();
                pairs.sort_unstable();
                assert_eq!(g.reversed_from(sources.clone(), &|_| {}), reversed(&pairs, n));
                // Small graphs pack a source and a target's low bits in one word; the low bits
                // apart (as in graphs of millions of nodes) must give the same lists.
                let buckets = Buckets::of(n as usize, g.edges_from(sources.clone()));
                assert!(buckets.packs(n as usize));
                let r = g.reversed_in(sources, buckets, false, &|_| {});
                assert_eq!(r, reversed(&pairs, n), "n = {n}");
            }
        }
    }
}
