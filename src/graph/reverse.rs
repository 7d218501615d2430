//! The reverse graph (every edge turned around), cut by the range of the predecessor, and its
//! build: a counting sort by target in two stages.
//!
//! Placing each edge straight at its target's place would write at random over the whole
//! list array, a cache miss per edge (and counting every target's edges first, a random
//! increment per edge). Instead each part's edges are counted by bucket of their target's high
//! bits (a few hundred counters, in cache) and go to their bucket's region in order; then each
//! bucket, small enough for the cache, is counted and sorted by the low bits, in every part by
//! one task, which writes the list starts of the bucket's nodes where they lie side by side.
//! Both passes are stable, so lists stay in increasing id order.

use std::ops::Range;

use rayon::prelude::*;

use super::{Csr, Offset};
use crate::io::memory::prefetch;

/// The reverse graph cut by the range of the predecessor: part `k` lists, for every node, its
/// predecessors in ids `k * span .. (k + 1) * span`, so that a task owning one range of nodes
/// reads only the edges that reach them. The list starts of all parts are interleaved node by
/// node, so looking up one node in every part touches one cache line.
///
/// Memory: 4 bytes per edge, 4 bytes per node and part (8 for a graph of more than
/// `u32::MAX` edges); while it is built, past 2^20 nodes, 2 bytes per edge more (the low bits
/// of the targets, which no longer fit beside the sources in one word).
#[derive(Debug, PartialEq, Eq)]
pub struct Reverse<O: Offset> {
    span: usize,
    /// `starts[u * parts + k]`: where `u`'s list starts in `targets[k]`; entry `n * parts + k`
    /// is part `k`'s edge count.
    starts: Vec<O>,
    targets: Vec<Vec<u32>>,
}

/// Marks a node without exactly one predecessor in [`Reverse::single_preds`].
pub const NOT_SINGLE: u32 = u32::MAX;

impl<O: Offset> Reverse<O> {
    /// The reverse graph of `graph` in `parts` parts (at least one; at most one per node), built
    /// on every thread with `parallel`, else on this one; `done(k)` hears that `k` more sources
    /// are placed, every [`TICK`](crate::meter::TICK) sources or so.
    pub fn build(
        graph: &Csr<O>,
        parts: usize,
        parallel: bool,
        done: &(dyn Fn(u64) + Sync),
    ) -> Reverse<O> {
        let shift = bucket_shift(graph.node_count());
        let packed = graph.node_count() as u64 <= 1 << (32 - shift);
        Reverse::build_with(graph, (parts, parallel), (shift, packed), done)
    }

    /// [`Reverse::build`] with buckets of `1 << shift` targets ([`bucket_shift`]), a bucketed
    /// edge's source and its target's low bits in one word when `packed` (they must fit), else
    /// the low bits in an array of their own.
    fn build_with(
        graph: &Csr<O>,
        (parts, parallel): (usize, bool),
        (shift, packed): (u32, bool),
        done: &(dyn Fn(u64) + Sync),
    ) -> Reverse<O> {
        let n = graph.node_count();
        let span = n.div_ceil(parts.max(1)).max(1);
        let place = |k: usize| {
            let sources = (k * span).min(n) as u32..((k + 1) * span).min(n) as u32;
            Placed::of(graph, sources, (shift, packed), done)
        };
        let parts = n.div_ceil(span).max(1);
        let mut placed: Vec<Placed> = if parallel {
            (0..parts).into_par_iter().map(place).collect()
        } else {
            (0..parts).map(place).collect()
        };
        let mut targets: Vec<Vec<u32>> =
            placed.iter_mut().map(|part| std::mem::take(&mut part.targets)).collect();
        let starts = sort_buckets(&placed, &mut targets, n, parallel);
        Reverse { span, starts, targets }
    }

    /// The graph of `self`'s one part: every node's predecessors.
    pub fn into_csr(self) -> Csr<O> {
        debug_assert_eq!(self.parts(), 1);
        let targets = self.targets.into_iter().next().unwrap_or_default();
        Csr::from_checked_parts(self.starts, targets)
    }

    /// How many parts the predecessors are cut into.
    pub fn parts(&self) -> usize {
        self.targets.len()
    }

    /// How many node ids each part covers (the last may cover fewer).
    pub fn span(&self) -> usize {
        self.span
    }

    /// Calls `visit(state, i, v)` for every predecessor `v`, in parts `parts`, of every node
    /// `nodes[i]` in turn. Lists and states are random reads, so they are prefetched ahead, for
    /// the misses to overlap: offsets eight nodes ahead, lists four ahead, and (by
    /// `ahead(state, v)`) the states of the predecessors of the node two ahead (at half these
    /// distances m1 took 0.195 s to order instead of 0.180, m10 2.92 s instead of 2.76).
    #[inline(always)]
    pub fn visit_preds<S: ?Sized>(
        &self,
        nodes: &[u32],
        parts: Range<usize>,
        state: &mut S,
        ahead: impl Fn(&S, u32),
        mut visit: impl FnMut(&mut S, usize, u32),
    ) {
        let stride = self.parts();
        for (i, &u) in nodes.iter().enumerate() {
            if let Some(&far) = nodes.get(i + 8) {
                prefetch(&self.starts, far as usize * stride);
            }
            for k in parts.clone() {
                if let Some(&near) = nodes.get(i + 4) {
                    prefetch(&self.targets[k], self.starts[near as usize * stride + k].index());
                }
                if let Some(&next) = nodes.get(i + 2) {
                    for &v in self.preds(next, k) {
                        ahead(state, v);
                    }
                }
                for &v in self.preds(u, k) {
                    visit(state, i, v);
                }
            }
        }
    }

    /// Every node's predecessor when it has exactly one (in all parts), else [`NOT_SINGLE`].
    pub fn single_preds(&self) -> Vec<u32> {
        let n = self.starts.len() / self.parts() - 1;
        (0..n as u32)
            .into_par_iter()
            .map(|u| {
                let mut lists =
                    (0..self.parts()).map(|k| self.preds(u, k)).filter(|l| !l.is_empty());
                match (lists.next(), lists.next()) {
                    (Some(&[p]), None) => p,
                    _ => NOT_SINGLE,
                }
            })
            .collect()
    }

    /// Hints that the predecessors of `u`, in every part, will be read soon.
    #[inline(always)]
    pub fn prefetch_lists(&self, u: u32) {
        let at = u as usize * self.parts();
        for (k, targets) in self.targets.iter().enumerate() {
            if let Some(start) = self.starts.get(at + k) {
                prefetch(targets, start.index());
            }
        }
    }

    /// The predecessors of `u` in part `k`, in increasing id order.
    #[inline]
    pub fn preds(&self, u: u32, k: usize) -> &[u32] {
        let i = u as usize * self.parts() + k;
        &self.targets[k][self.starts[i].index()..self.starts[i + self.parts()].index()]
    }
}

/// Bucket `b` holds the targets `b << shift ..`: about 128 buckets over `n` nodes, at least 256
/// nodes and at most [`BUCKET_NODES_MAX`] each (few enough for the bucket pass to write a
/// cache line per bucket in turn, large enough to sort in cache).
fn bucket_shift(n: usize) -> u32 {
    (n / 128).max(1).ilog2().clamp(8, BUCKET_NODES_MAX.ilog2())
}

/// Most nodes in one bucket: a bucket's edges and its nodes' cursors stay in the second-level
/// cache while it is sorted.
const BUCKET_NODES_MAX: u32 = 1 << 16;

/// Most edges of a part a bucket sorts through scratch memory (4 MB); tests lower it, to reach
/// both kinds of bucket on small graphs. A bigger bucket (a few nodes that many edges reach)
/// is placed straight at its nodes' cursors: its scratch copy would cost as much memory, and a
/// few cursors stay in cache anyway.
const HEAVY_EDGES: usize = if cfg!(test) { 1 << 12 } else { 1 << 20 };

/// Marks a bucket that is not heavy in [`Placed::heavy_at`].
const LIGHT: u32 = u32::MAX;

/// One part's edges placed bucket by bucket: the first pass of the sort.
struct Placed {
    shift: u32,
    /// `starts[b]..starts[b + 1]`: bucket `b`'s region of `targets`.
    starts: Vec<usize>,
    /// The sources, bucket by bucket; when packed, each shifted above its target's low bits.
    targets: Vec<u32>,
    /// The targets' low bits, when not packed.
    low: Vec<u16>,
    /// Where a heavy bucket's nodes are in `ends`, or [`LIGHT`].
    heavy_at: Vec<u32>,
    /// The end of every heavy bucket's nodes' lists, already in place.
    ends: Vec<usize>,
}

impl Placed {
    /// The edges leaving `sources`, counted by bucket (`1 << shift` targets each) and placed
    /// bucket by bucket, as source and low bits in one word when `packed`.
    fn of<O: Offset>(
        graph: &Csr<O>,
        sources: Range<u32>,
        (shift, packed): (u32, bool),
        done: &(dyn Fn(u64) + Sync),
    ) -> Placed {
        let n = graph.node_count();
        let offsets = graph.offsets();
        let edges = &graph.targets()
            [offsets[sources.start as usize].index()..offsets[sources.end as usize].index()];
        let count = (n >> shift) + 1;
        let mut starts = vec![0usize; count + 1];
        for &t in edges {
            starts[(t >> shift) as usize + 1] += 1;
        }
        let (mut heavy_at, mut heavy) = (vec![LIGHT; count], 0);
        for b in 0..count {
            if starts[b + 1] > HEAVY_EDGES {
                heavy_at[b] = (heavy << shift) as u32;
                heavy += 1;
            }
            starts[b + 1] += starts[b];
        }
        let mut placed = Placed {
            shift,
            ends: heavy_cursors(edges, &starts, &heavy_at, shift, heavy),
            low: if packed { Vec::new() } else { vec![0; edges.len()] },
            // Every slot is written below: no zero-fill, only the pages' first touch.
            targets: vec![0; edges.len()],
            starts,
            heavy_at,
        };
        placed.place(graph, sources, edges, packed, done);
        placed
    }

    /// Places `edges`, the edges leaving `sources`: heavy buckets' at their nodes' cursors,
    /// the others at their bucket's.
    fn place<O: Offset>(
        &mut self,
        graph: &Csr<O>,
        sources: Range<u32>,
        edges: &[u32],
        packed: bool,
        done: &(dyn Fn(u64) + Sync),
    ) {
        let (shift, mask) = (self.shift, (1u32 << self.shift) - 1);
        let mut cursors = self.starts.clone();
        let Placed { targets, low, heavy_at, ends, .. } = self;
        // In ticks of sources, so the progress report costs nothing per node.
        let mut since = 0;
        let mut j = 0;
        // The list bounds as one slice, read once: through the graph each node's degree
        // reloaded them after every store (46M more bounds checks on m1).
        let offsets = graph.offsets();
        for v in sources {
            let end = j + (offsets[v as usize + 1] - offsets[v as usize]).index();
            for &t in &edges[j..end] {
                let b = (t >> shift) as usize;
                if heavy_at[b] != LIGHT {
                    let cursor = &mut ends[(heavy_at[b] + (t & mask)) as usize];
                    targets[*cursor] = v;
                    *cursor += 1;
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
    }
}

/// The start of every list of a heavy bucket's nodes (`heavy` buckets, each `1 << shift`
/// nodes at `heavy_at[b]`), from the edges `edges` and the buckets' starts: the cursors its
/// edges are placed at, which then end at the lists' ends.
fn heavy_cursors(
    edges: &[u32],
    starts: &[usize],
    heavy_at: &[u32],
    shift: u32,
    heavy: usize,
) -> Vec<usize> {
    let mut cursors = vec![0usize; heavy << shift];
    if heavy == 0 {
        return cursors;
    }
    let mask = (1u32 << shift) - 1;
    for &t in edges {
        let at = heavy_at[(t >> shift) as usize];
        if at != LIGHT {
            cursors[(at + (t & mask)) as usize] += 1;
        }
    }
    for (b, &at) in heavy_at.iter().enumerate().filter(|(_, &at)| at != LIGHT) {
        let mut start = starts[b];
        for cursor in &mut cursors[at as usize..(at as usize + (1 << shift))] {
            start += std::mem::replace(cursor, start);
        }
    }
    cursors
}

/// Sorts every light bucket of every part (`placed`, whose `targets` are taken out) by the
/// targets' low bits and returns the list starts of all nodes in all parts, interleaved; on
/// every thread with `parallel`.
fn sort_buckets<O: Offset>(
    placed: &[Placed],
    targets: &mut [Vec<u32>],
    n: usize,
    parallel: bool,
) -> Vec<O> {
    let parts = placed.len();
    let shift = placed[0].shift;
    // Each bucket's regions of the parts' targets.
    let mut regions: Vec<Vec<&mut [u32]>> = (0..=n >> shift).map(|_| Vec::new()).collect();
    for (part, targets) in placed.iter().zip(targets) {
        let mut rest = &mut targets[..];
        for (b, region) in regions.iter_mut().enumerate() {
            let (head, tail) = rest.split_at_mut(part.starts[b + 1] - part.starts[b]);
            region.push(head);
            rest = tail;
        }
    }
    let mut starts = vec![O::default(); (n + 1) * parts];
    // Bucket b's nodes' starts, of every part, are one chunk; node n's (the totals) close the
    // last one.
    let chunks = starts.chunks_mut(parts << shift).zip(regions).enumerate();
    let sort = |scratch: &mut BucketSort, (b, (chunk, regions)): (usize, (&mut [O], Vec<_>))| {
        for (k, region) in regions.into_iter().enumerate() {
            scratch.sort(&placed[k], b, region, (chunk, k, parts));
        }
    };
    if parallel {
        let chunks: Vec<_> = chunks.collect();
        chunks.into_par_iter().for_each_init(BucketSort::default, sort);
    } else {
        let mut scratch = BucketSort::default();
        chunks.for_each(|chunk| sort(&mut scratch, chunk));
    }
    starts
}

/// Scratch memory of [`BucketSort::sort`], kept from bucket to bucket.
#[derive(Default)]
struct BucketSort {
    edges: Vec<u32>,
    cursors: Vec<u32>,
}

impl BucketSort {
    /// Sorts bucket `b` of the part `part`, whose edges are `region`, by their targets' low
    /// bits, and writes its nodes' list starts into `chunk` (part `k` of `parts`, interleaved;
    /// entries past the last node are the totals).
    fn sort<O: Offset>(
        &mut self,
        part: &Placed,
        b: usize,
        region: &mut [u32],
        (chunk, k, parts): (&mut [O], usize, usize),
    ) {
        let base = part.starts[b];
        let start = |at: usize| O::of(at).unwrap_or_default();
        let mut nodes = chunk.len() / parts;
        if b + 2 == part.starts.len() {
            // The last bucket's chunk ends with node n's entry: the part's edge count.
            nodes -= 1;
            chunk[nodes * parts + k] = start(part.starts[b + 1]);
        }
        let heavy = part.heavy_at[b];
        if heavy != LIGHT {
            let ends = &part.ends[heavy as usize..heavy as usize + nodes];
            let mut at = base;
            for (i, &end) in ends.iter().enumerate() {
                chunk[i * parts + k] = start(at);
                at = end;
            }
            return;
        }
        let low = part.low.get(base..base + region.len()).unwrap_or(&[]);
        let mask = (1u32 << part.shift) - 1;
        let split = |i: usize, x: u32| match low.get(i) {
            Some(&l) => (u32::from(l), x),
            None => (x & mask, x >> part.shift),
        };
        self.cursors.clear();
        self.cursors.resize(nodes, 0);
        for (i, &x) in region.iter().enumerate() {
            self.cursors[split(i, x).0 as usize] += 1;
        }
        let mut at = 0u32;
        for (i, cursor) in self.cursors.iter_mut().enumerate() {
            chunk[i * parts + k] = start(base + at as usize);
            at += std::mem::replace(cursor, at);
        }
        self.edges.clear();
        self.edges.extend_from_slice(region);
        for (i, &x) in self.edges.iter().enumerate() {
            let (low, v) = split(i, x);
            let cursor = &mut self.cursors[low as usize];
            region[*cursor as usize] = v;
            *cursor += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The graph of `n` nodes listing, for every pair `(t, v)` of `pairs` in their order, `v`
    /// as a successor of `t`.
    fn from_pairs(pairs: &[(u32, u32)], n: u32) -> Csr {
        let mut lists = vec![Vec::new(); n as usize];
        pairs.iter().for_each(|&(t, v)| lists[t as usize].push(v));
        Csr::from_lists(&lists).unwrap()
    }

    #[test]
    fn reversed_turns_every_edge_around() {
        let g = Csr::from_lists(&[vec![1, 2, 2], vec![2], vec![]]).unwrap();
        let r = g.reversed();
        assert_eq!(r.successors(0), &[] as &[u32]);
        assert_eq!(r.successors(1), &[0]);
        assert_eq!(r.successors(2), &[0, 0, 1]);
        assert_eq!(r.reversed(), g);
        let parted = Reverse::build(&g, 2, true, &|_| {});
        assert_eq!((parted.parts(), parted.span()), (2, 2));
        assert_eq!((parted.preds(2, 0), parted.preds(2, 1)), (&[0, 0, 1][..], &[][..]));
        assert_eq!(parted.single_preds(), vec![NOT_SINGLE, 0, NOT_SINGLE]);
    }

    /// Random graphs over many buckets, some of them heavy (a few nodes that many edges
    /// reach, in neighbouring buckets), reversed in one part and in several, on one thread and
    /// on every one, with the low bits beside the sources and apart: every part's list of a
    /// node is the sorted list of the sources of its range that move to it, as collecting and
    /// sorting the edge pairs gives.
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
            for parts in [1, 2, 3] {
                let span = (n as usize).div_ceil(parts) as u32;
                let expected: Vec<Csr> = (0..n.div_ceil(span))
                    .map(|k| {
                        let mut pairs: Vec<(u32, u32)> = (k * span..n.min((k + 1) * span))
                            .flat_map(|v| g.successors(v).iter().map(move |&t| (t, v)))
                            .collect();
                        pairs.sort_unstable();
                        from_pairs(&pairs, n)
                    })
                    .collect();
                for parallel in [false, true] {
                    for packed in [false, true] {
                        let buckets = (bucket_shift(n as usize), packed);
                        let r = Reverse::build_with(&g, (parts, parallel), buckets, &|_| {});
                        assert_eq!(r.parts(), expected.len(), "n = {n}");
                        for (k, part) in expected.iter().enumerate() {
                            for t in 0..n {
                                assert_eq!(r.preds(t, k), part.successors(t), "n = {n}, {k}");
                            }
                        }
                    }
                }
            }
        }
    }
}
