//! Kahn's peeling, sinks first, in two twins: sequential, and parallel by ranges of node ids.
//!
//! Memory while peeling: the reverse graph (4 bytes per edge, 4 per node and part) and a
//! pending count (1 byte per node when every out-degree fits a byte, else 4); the result keeps
//! 4 bytes per node plus 4 per level. Peeling that takes the mex on the way
//! ([`levels_valued`]) counts in one word per node holding count and mask (4 bytes when no
//! node has more than 25 moves, else 8), which holds the node's value once it is removed, and
//! keeps 1 byte more (the values in level order); the evaluation it spares would have needed 4
//! per node.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::chain::{Appended, Walk, WALK_NODES};
pub use super::count::MASK_MOVES;
use super::count::{take_values, Count, Packed, MASK_MOVES_NARROW};
use super::radix::sort_ids;
use super::{Cycle, Levels};
use crate::graph::{Csr, Offset, Reverse};
use crate::io::memory::prefetch;
use crate::meter::{Meter, Ticker};

/// Orders the nodes of `graph` by level, or returns the nodes of one cycle if it has one; the
/// count of nodes ordered goes to `meter`.
pub fn levels<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Result<Levels, Cycle> {
    whole(graph, peeled(graph, meter))
}

/// What peeling leaves: the levels of the nodes it removed, which are all nodes of an acyclic
/// graph and, of any graph, those from which no cycle can be reached; every node's count of
/// out-positions not removed (above 0 exactly for the others); and the reverse graph it used,
/// for the loopy labelling to reuse.
pub struct Peeled<O: Offset> {
    /// The levels of the nodes removed.
    pub levels: Levels,
    /// Every node's count of out-positions not removed (empty when every node was).
    pub pending: Vec<u32>,
    /// The predecessors of every node.
    pub reverse: Reverse<O>,
    /// Every node's Grundy value, when the peeling computed them on the way (a mask of values
    /// beside each count, [`levels_valued`]) and removed every node.
    pub values: Option<Vec<u32>>,
    node_count: usize,
}

impl<O: Offset> Peeled<O> {
    /// True when every node was removed: the graph is acyclic.
    pub fn is_complete(&self) -> bool {
        self.levels.node_count() == self.node_count
    }
}

/// The levels, or one cycle among the nodes peeling left pending.
fn whole<O: Offset>(graph: &Csr<O>, peeled: Peeled<O>) -> Result<Levels, Cycle> {
    valued(graph, peeled).map(|(levels, _)| levels)
}

/// The levels and the values peeling computed, if it did; or one cycle among the nodes
/// peeling left pending.
fn valued<O: Offset>(
    graph: &Csr<O>,
    peeled: Peeled<O>,
) -> Result<(Levels, Option<Vec<u32>>), Cycle> {
    let Peeled { levels, pending, reverse, values, .. } = peeled;
    drop(reverse);
    if levels.node_count() < graph.node_count() {
        return Err(super::cycle::find_cycle(graph, &pending));
    }
    Ok((levels, values))
}

/// [`levels`], with every node's Grundy value when each node has at most [`MASK_MOVES`]
/// moves: the mex is then taken while peeling (the values a node's moves lead to are marked
/// in a mask beside its pending count as each move's level is released), and the separate
/// evaluation, a second random walk over every list, is not needed. `None` for other
/// graphs, which [`crate::eval`] evaluates.
pub fn levels_valued<O: Offset>(
    graph: &Csr<O>,
    meter: &dyn Meter,
) -> Result<(Levels, Option<Vec<u32>>), Cycle> {
    valued(graph, peel_with(graph, meter, false, true))
}

/// Peels `graph` sinks first, on one thread.
pub fn peeled<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Peeled<O> {
    peel_with(graph, meter, false, false)
}

/// Peels `graph` on this thread, or with `parallel` each level of [`INLINE_LEVEL`] nodes or
/// more on every thread, with pending counts in the narrowest type the largest out-degree
/// fits: with `take_values`, a [`Packed`] word (up to [`MASK_MOVES`]), else a byte (a quarter
/// of the memory the peeling's random decrements miss in), else 4 bytes.
fn peel_with<O: Offset>(
    graph: &Csr<O>,
    meter: &dyn Meter,
    parallel: bool,
    take_values: bool,
) -> Peeled<O> {
    let most = graph.most_moves();
    let parts = if parallel { rayon::current_num_threads().clamp(1, MAX_PARTS) } else { 1 };
    let reverse = index(graph, meter, |graph, done| Reverse::build(graph, parts, parallel, done));
    match most {
        m if take_values && m <= MASK_MOVES_NARROW => {
            peel_levels::<O, Packed<u32>>(graph, meter, reverse, parallel)
        }
        m if take_values && m <= MASK_MOVES => {
            peel_levels::<O, Packed<u64>>(graph, meter, reverse, parallel)
        }
        m if m <= u8::MAX as u32 => peel_levels::<O, u8>(graph, meter, reverse, parallel),
        _ => peel_levels::<O, u32>(graph, meter, reverse, parallel),
    }
}

/// Removes the edges into the level `order[level]` on this thread, reading every part of
/// `reverse`, and appends the next level in id order (ids in increasing order make the next
/// passes walk the CSR arrays forward), with its values when `C` carries them. `ready` is
/// scratch kept from level to level: a chain's million one-node levels allocate nothing.
fn release_inline<O: Offset, C: Count>(
    reverse: &Reverse<O>,
    pending: &mut [C],
    appended: Appended<'_>,
    level: Range<usize>,
    (ready, walk): (&mut Vec<u32>, &mut Walk),
) {
    if walk.chases(&appended.order[level.clone()]) {
        walk.chase(pending, appended);
        return;
    }
    let Appended { order, values: in_order, .. } = appended;
    let level_values = in_order.get(level.clone()).unwrap_or(&[]);
    let level_nodes = (&order[level], level_values);
    if level_nodes.0.len() <= WALK_NODES {
        walk.step(reverse, level_nodes, pending, ready);
    } else {
        walk.steps = 0;
        release(reverse, level_nodes, 0..reverse.parts(), (pending, 0), ready);
    }
    ready.sort_unstable();
    if C::VALUED {
        take_values(ready, (pending, 0), in_order);
    }
    order.append(ready);
}

/// The peeling loop both twins share: level by level, `release_level(reverse, pending,
/// (order, values, level_starts), head, end)` removes the edges into the level
/// `order[head..end]` and appends the next level, in id order, with its values when `C`
/// carries them. It may go on down a chain ([`Walk::chase`]): then it pushes onto
/// `level_starts` the end of every level it removed after the first.
fn peel<O: Offset, C: Count>(
    graph: &Csr<O>,
    meter: &dyn Meter,
    reverse: Reverse<O>,
    mut release_level: impl FnMut(&Reverse<O>, &mut [C], Appended<'_>, usize, usize),
) -> Peeled<O> {
    let (mut pending, mut order) = out_degrees_and_sinks::<O, C>(graph);
    let node_count = graph.node_count();
    let mut in_order = Vec::new();
    if C::VALUED {
        // Sinks are worth 0.
        in_order = Vec::with_capacity(node_count);
        in_order.resize(order.len(), 0);
    }
    let mut level_starts = vec![0u32];
    let mut head = 0;
    let mut ticker = Ticker::new(meter);
    while head < order.len() {
        ticker.at(head as u64);
        let end = order.len();
        level_starts.push(end as u32);
        let appended =
            Appended { order: &mut order, values: &mut in_order, starts: &mut level_starts };
        release_level(&reverse, &mut pending, appended, head, end);
        // The start of the last level appended, which is not removed yet.
        head = level_starts.last().map_or(end, |&start| start as usize);
    }
    let complete = order.len() == node_count;
    // The counts matter only when some node stayed: for the loopy labelling, or a cycle (a
    // finished count holding a value reads as 0, which it is). When every node is finished
    // and counts carry values, they are the values: 4-byte counts turn into them in place.
    let (pending, values) = match (complete, C::VALUED) {
        (true, true) => (Vec::new(), Some(pending.into_iter().map(C::value).collect())),
        (true, false) => (Vec::new(), None),
        (false, _) => (pending.into_iter().map(C::get).collect(), None),
    };
    Peeled { levels: Levels::stored(order, level_starts), pending, reverse, values, node_count }
}

/// Builds the index of predecessors with `build`, telling `meter` (phase `indexing`) how many
/// nodes' edges are in it, then starts the phase `peeling`.
fn index<O: Offset, T>(
    graph: &Csr<O>,
    meter: &dyn Meter,
    build: impl FnOnce(&Csr<O>, &(dyn Fn(u64) + Sync)) -> T,
) -> T {
    let n = graph.node_count() as u64;
    meter.phase("indexing", n);
    let done = AtomicU64::new(0);
    let built = build(graph, &|k| meter.set(done.fetch_add(k, Ordering::Relaxed) + k));
    meter.phase("peeling", n);
    built
}

/// Every node's pending out-degree, and the nodes with none (the sinks, level 0) in id order,
/// with room for all nodes.
fn out_degrees_and_sinks<O: Offset, C: Count>(graph: &Csr<O>) -> (Vec<C>, Vec<u32>) {
    let n = graph.node_count() as u32;
    let pending: Vec<C> = (0..n).into_par_iter().map(|v| C::of(graph.out_degree(v))).collect();
    let mut order = Vec::with_capacity(graph.node_count());
    // In id order: a parallel extend keeps the order of its items.
    order.par_extend((0..n).into_par_iter().filter(|&v| graph.out_degree(v) == 0));
    (pending, order)
}

/// Removes the edges into the nodes of `level` (whose values are `values` when `C` carries
/// them) from the pending counts of `own` (counts of the ids from its base), reading the
/// reverse graph's parts `parts`; pushes the nodes left with no pending out-position onto
/// `ready`.
#[inline]
fn release<O: Offset, C: Count>(
    reverse: &Reverse<O>,
    (level, values): (&[u32], &[u8]),
    parts: Range<usize>,
    (own, base): (&mut [C], u32),
    ready: &mut Vec<u32>,
) {
    let ahead = |own: &[C], p: u32| prefetch(own, p.wrapping_sub(base) as usize);
    reverse.visit_preds(level, parts, own, ahead, |own, i, p| {
        let value = if C::VALUED { values[i].into() } else { 0 };
        if own[(p - base) as usize].take_one(value) {
            ready.push(p);
        }
    });
}

/// Levels smaller than this are peeled and evaluated inline. A rayon dispatch inside the pool
/// costs about 2 us; a node of out-degree 10 takes about 0.1 us, so a 256-node level is worth
/// splitting, while a chain of a million one-node levels would spend seconds on dispatch.
pub const INLINE_LEVEL: usize = 256;

/// Most ranges the node ids are cut into for parallel peeling; each costs 4 bytes per node.
const MAX_PARTS: usize = 4;

/// The parallel twin of [`levels`]: the same [`Levels`], whatever the thread count.
///
/// Peeling without atomics: the node ids are cut into one range per thread (at most
/// `MAX_PARTS`, 4), each owning its slice of the pending counts and the reverse lists of the
/// edges leaving its own nodes (`PartedReverse`). Every range task reads the whole frontier
/// and decrements only its own counts, so no two threads write the same memory. Frontiers under
/// [`INLINE_LEVEL`] nodes run inline: a chain of a million one-node levels is a pointer chase
/// that threads cannot speed up, and the interleaved offsets keep it at one cache miss per node,
/// as in the sequential peeling.
pub fn levels_parallel<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Result<Levels, Cycle> {
    whole(graph, peeled_parallel(graph, meter))
}

/// The parallel twin of [`peeled`].
pub fn peeled_parallel<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Peeled<O> {
    peel_with(graph, meter, true, false)
}

/// The levels with pending counts of type `C`: on this thread, or with `parallel` each level
/// of [`INLINE_LEVEL`] nodes or more split by the reverse graph's parts, one task per part.
fn peel_levels<O: Offset, C: Count>(
    graph: &Csr<O>,
    meter: &dyn Meter,
    reverse: Reverse<O>,
    parallel: bool,
) -> Peeled<O> {
    // Values are taken on one thread only (the search takes them on several): the parallel
    // release below carries none.
    assert!(!(parallel && C::VALUED), "the parallel peel takes no values");
    let (mut ready, mut walk) = (Vec::new(), Walk::default());
    peel(graph, meter, reverse, |reverse, pending: &mut [C], appended, head, end| {
        if !parallel || end - head < INLINE_LEVEL {
            release_inline(reverse, pending, appended, head..end, (&mut ready, &mut walk));
            return;
        }
        let order = appended.order;
        walk.steps = 0;
        let frontier = (&order[head..end], &[][..]);
        let span = reverse.span();
        // Each part's next nodes, sorted.
        let next: Vec<Vec<u32>> = pending
            .par_chunks_mut(span)
            .enumerate()
            .map(|(k, own)| {
                let lo = (k * span) as u32;
                let mut ready = Vec::new();
                release(reverse, frontier, k..k + 1, (own, lo), &mut ready);
                sort_ids(&mut ready, lo, own.len());
                ready
            })
            .collect();
        // Ranges are in id order and each is sorted, so the level is sorted.
        for ready in &next {
            order.extend_from_slice(ready);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::chain::WALK_STEPS;
    use super::*;

    fn graph(lists: &[&[u32]]) -> Csr {
        Csr::from_lists(lists).unwrap()
    }

    #[test]
    fn levels_follow_longest_path_to_a_sink() {
        // 0 -> 1 -> 3, 0 -> 2, 2 -> 3; sinks: 3, 4.
        let g = graph(&[&[1, 2], &[3], &[3], &[], &[]]);
        let lv = levels(&g, &()).unwrap();
        assert_eq!(lv.level_count(), 3);
        assert_eq!(lv.level(0), crate::order::Level::Listed(&[3, 4]));
        assert_eq!(lv.node_levels(), vec![2, 1, 1, 0, 0]);
        assert_eq!(levels_parallel(&g, &()).unwrap(), lv);
    }

    #[test]
    fn empty_graph_has_no_levels() {
        let lv = levels(&graph(&[]), &()).unwrap();
        assert_eq!(lv.level_count(), 0);
        assert_eq!(lv.node_count(), 0);
    }

    #[test]
    fn cycles_are_found_and_start_at_their_smallest_node() {
        assert_eq!(levels(&graph(&[&[0]]), &()).unwrap_err(), Cycle(vec![0]));
        // 0 -> 1 -> 4 -> 2 -> 1 -> ...; 3 is a sink.
        let g = graph(&[&[3, 1], &[4], &[1], &[], &[2]]);
        assert_eq!(levels(&g, &()).unwrap_err(), Cycle(vec![1, 4, 2]));
        assert_eq!(levels_parallel(&g, &()).unwrap_err(), Cycle(vec![1, 4, 2]));
    }

    #[test]
    fn wide_out_degrees_count_in_four_bytes_with_the_same_results() {
        // Node 0 moves to 300 sinks and to node 301, which moves back to 0 unless `cyclic`.
        for cyclic in [false, true] {
            let mut lists: Vec<Vec<u32>> = vec![(1..=301).collect()];
            lists.extend((1..=300).map(|_| vec![]));
            lists.push(if cyclic { vec![0] } else { vec![] });
            let g = Csr::from_lists(&lists).unwrap();
            assert!(g.most_moves() > u8::MAX as u32);
            if cyclic {
                assert_eq!(levels(&g, &()).unwrap_err(), Cycle(vec![0, 301]));
                assert_eq!(levels_parallel(&g, &()).unwrap_err(), Cycle(vec![0, 301]));
                let peeled = peeled(&g, &());
                assert_eq!((peeled.pending[0], peeled.pending[301]), (1, 1));
            } else {
                let lv = levels(&g, &()).unwrap();
                assert_eq!(lv.level_count(), 2);
                assert_eq!(levels_parallel(&g, &()).unwrap(), lv);
            }
        }
    }

    #[test]
    fn parallel_levels_hold_the_same_nodes_per_level() {
        // Wide levels (above the inline threshold) and thin ones, in one graph.
        let width = 3 * INLINE_LEVEL as u32;
        let mut lists: Vec<Vec<u32>> = Vec::new();
        for v in 0..3 * width {
            let layer = v / width;
            let next = if layer + 1 < 3 {
                vec![(layer + 1) * width + v % 7, (layer + 1) * width + v % width]
            } else {
                vec![]
            };
            lists.push(next);
        }
        let base = lists.len() as u32;
        lists.push(vec![0]);
        for i in 1..50 {
            lists.push(vec![base + i - 1]);
        }
        let g = Csr::from_lists(&lists).unwrap();
        let a = levels(&g, &()).unwrap();
        assert_eq!(a.level_count(), 53);
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            assert_eq!(pool.install(|| levels_parallel(&g, &())).unwrap(), a);
        }
    }

    /// A walk of `n` nodes, one per level (each moves to the next), more than [`WALK_STEPS`]
    /// levels in a row: with a move or two further on here and there, nodes of one
    /// predecessor, of two and of three.
    fn walk(n: u32, next: &mut impl FnMut(u32) -> u32) -> Vec<Vec<u32>> {
        (0..n)
            .map(|v| {
                let above = n - v - 1;
                let mut moves: Vec<u32> = (v + 1..=v + above.min(1)).collect();
                if above > 0 && next(4) == 0 {
                    moves.extend((0..1 + next(2)).map(|_| v + 1 + next(above.min(3))));
                }
                moves
            })
            .collect()
    }

    /// Random acyclic graphs (moves to higher ids only, parallel edges allowed), read in
    /// reverse id order by a plain mex: the values peeling takes on the way must be these,
    /// on one thread and several, with the levels a plain longest path gives; long walks take
    /// the single predecessors' shortcut ([`Walk`]); a node of more than
    /// [`MASK_MOVES`] moves leaves the values to the evaluation, and a cycle is still found.
    #[test]
    fn values_taken_while_peeling_are_the_plain_mex() {
        let mut rng = crate::testing::Xorshift::new(0x853c_49e6_748f_ea9b);
        let mut next = |bound: u32| rng.below(bound.into()) as u32;
        for round in 0..72 {
            let n = 1 + next(if round % 4 == 0 { 3000 } else { 200 });
            let most = if round % 5 == 0 { 60 } else { 1 + next(MASK_MOVES) };
            // Some graphs move to the next `most` nodes, all of them: values reach `most`,
            // the top bits of the masks.
            let dense = [25, 26, 55, 56][round % 4];
            let lists: Vec<Vec<u32>> = (0..n)
                .map(|v| {
                    let above = n - v - 1;
                    if round % 3 == 1 {
                        return (v + 1..=v + above.min(dense)).collect();
                    }
                    let degree = if above == 0 { 0 } else { next(most + 1) };
                    // Near moves make long paths, hence many levels; far ones make wide ones.
                    (0..degree)
                        .map(|_| v + 1 + next(above.min(if round % 2 == 0 { 4 } else { above })))
                        .collect()
                })
                .collect();
            let n = if round >= 60 { 2 * WALK_STEPS + next(3000) } else { n };
            let lists = if round >= 60 { walk(n, &mut next) } else { lists };
            let (mut plain, mut level) = (vec![0u32; n as usize], vec![0u32; n as usize]);
            for v in (0..n as usize).rev() {
                plain[v] =
                    (0..).find(|x| !lists[v].iter().any(|&s| plain[s as usize] == *x)).unwrap();
                level[v] = lists[v].iter().map(|&s| level[s as usize] + 1).max().unwrap_or(0);
            }
            let g = Csr::from_lists(&lists).unwrap();
            let wide = lists.iter().any(|l| l.len() > MASK_MOVES as usize);
            let expected = (levels(&g, &()).unwrap(), (!wide).then(|| plain.clone()));
            assert_eq!(expected.0.node_levels(), level, "round {round}");
            assert_eq!(levels_valued(&g, &()).unwrap(), expected, "round {round}");
        }
        let cyclic = graph(&[&[3, 1], &[4], &[1], &[], &[2]]);
        assert_eq!(levels_valued(&cyclic, &()).unwrap_err(), Cycle(vec![1, 4, 2]));
    }
}
