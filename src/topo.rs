//! Kahn's topological order, peeling sinks first, grouped into levels.
//!
//! Level 0 holds the sinks (positions with no move); a node is in level `1 + max level of its
//! out-positions`, which is exactly the round of peeling in which its last out-position is
//! removed. Every node of a level depends only on lower levels, so a level can be evaluated
//! in any order, or in parallel. The order is kept, not just the values, because later stages
//! (parallel evaluation, per-node reports) walk it again.
//!
//! Memory while peeling: the reverse graph (4 bytes per edge and per node) and a pending count
//! (4 bytes per node); the result keeps 4 bytes per node plus 4 per level.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::graph::Csr;

/// The nodes of a DAG in Kahn order, grouped by level.
///
/// Invariants: `order` is a permutation of the nodes; `level_starts[0] == 0`, it is strictly
/// increasing and ends with the node count; level `l` is
/// `order[level_starts[l]..level_starts[l + 1]]`; within a level nodes are in the order peeling
/// found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    order: Vec<u32>,
    level_starts: Vec<u32>,
}

impl Levels {
    /// All nodes, sinks first, grouped by level.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Number of levels (0 for an empty graph).
    pub fn level_count(&self) -> usize {
        self.level_starts.len() - 1
    }

    /// The nodes of level `l`.
    pub fn level(&self, l: usize) -> &[u32] {
        &self.order[self.level_starts[l] as usize..self.level_starts[l + 1] as usize]
    }

    /// Each node's level, indexed by node id (4 bytes per node, built on demand).
    pub fn node_levels(&self) -> Vec<u32> {
        let mut levels = vec![0u32; self.order.len()];
        for l in 0..self.level_count() {
            for &v in self.level(l) {
                levels[v as usize] = l as u32;
            }
        }
        levels
    }
}

/// Orders the nodes of `graph` by level, or returns the nodes of one cycle if it has one.
pub fn levels(graph: &Csr) -> Result<Levels, Vec<u32>> {
    let n = graph.node_count();
    let reverse = graph.reversed();
    let mut pending: Vec<u32> = graph.offsets().windows(2).map(|w| w[1] - w[0]).collect();
    let mut order: Vec<u32> = Vec::with_capacity(n);
    order.extend((0..n as u32).filter(|&v| pending[v as usize] == 0));
    let mut level_starts = vec![0u32];
    let mut head = 0;
    while head < order.len() {
        let end = order.len();
        for i in head..end {
            for &p in reverse.successors(order[i]) {
                let count = &mut pending[p as usize];
                *count -= 1;
                if *count == 0 {
                    order.push(p);
                }
            }
        }
        level_starts.push(end as u32);
        head = end;
    }
    if order.len() < n {
        return Err(find_cycle(graph, &pending));
    }
    Ok(Levels { order, level_starts })
}

/// Frontiers smaller than this are peeled inline: a rayon dispatch costs microseconds, and a
/// chain of a million one-node levels would spend seconds on dispatch and nothing on work.
pub const INLINE_LEVEL: usize = 4096;

/// The parallel twin of [`levels`]: same levels (the order within a level may differ), with
/// the reverse graph built and each wide frontier peeled in parallel.
pub fn levels_parallel(graph: &Csr) -> Result<Levels, Vec<u32>> {
    let n = graph.node_count();
    let reverse = reversed_parallel(graph);
    let pending: Vec<AtomicU32> =
        graph.offsets().par_windows(2).map(|w| AtomicU32::new(w[1] - w[0])).collect();
    let mut order: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .filter(|&v| pending[v as usize].load(Relaxed) == 0)
        .collect();
    order.reserve(n - order.len());
    let mut level_starts = vec![0u32];
    let mut head = 0;
    while head < order.len() {
        let end = order.len();
        if end - head < INLINE_LEVEL {
            // One thread touches `pending` here (the last parallel level has joined), so a
            // plain load and store replaces the locked decrement.
            for i in head..end {
                for &p in reverse.successors(order[i]) {
                    let count = &pending[p as usize];
                    let left = count.load(Relaxed) - 1;
                    count.store(left, Relaxed);
                    if left == 0 {
                        order.push(p);
                    }
                }
            }
        } else {
            let next: Vec<Vec<u32>> = order[head..end]
                .par_chunks(INLINE_LEVEL / 4)
                .map(|chunk| {
                    let mut next = Vec::new();
                    for &u in chunk {
                        for &p in reverse.successors(u) {
                            if pending[p as usize].fetch_sub(1, Relaxed) == 1 {
                                next.push(p);
                            }
                        }
                    }
                    next
                })
                .collect();
            for part in next {
                order.extend_from_slice(&part);
            }
        }
        level_starts.push(end as u32);
        head = end;
    }
    if order.len() < n {
        let pending: Vec<u32> = pending.into_iter().map(AtomicU32::into_inner).collect();
        return Err(find_cycle(graph, &pending));
    }
    Ok(Levels { order, level_starts })
}

/// The reverse graph, built in parallel without atomics: the node ids are cut into ranges,
/// one task per range, and each task scans every edge but keeps only those whose target is in
/// its range. Reading the edges again per task is sequential and cheap; the scattered writes,
/// the expensive part, are split without contention. The result equals [`Csr::reversed`]
/// (predecessors in increasing id order), whatever the thread count.
fn reversed_parallel(graph: &Csr) -> Csr {
    let n = graph.node_count();
    let parts = rayon::current_num_threads().max(1);
    let span = n.div_ceil(parts).max(1);
    let mut counts = vec![0u32; n + 1];
    counts[1..].par_chunks_mut(span).enumerate().for_each(|(k, counts)| {
        let lo = (k * span) as u32;
        for &t in graph.targets() {
            if let Some(c) = counts.get_mut(t.wrapping_sub(lo) as usize) {
                *c += 1;
            }
        }
    });
    for i in 0..n {
        counts[i + 1] += counts[i];
    }
    let offsets = counts;
    let mut targets = vec![0u32; graph.edge_count()];
    let mut slices = Vec::with_capacity(parts);
    let mut rest = &mut targets[..];
    for k in 0..n.div_ceil(span) {
        let (lo, hi) = (k * span, ((k + 1) * span).min(n));
        let (mine, tail) = rest.split_at_mut((offsets[hi] - offsets[lo]) as usize);
        slices.push((lo, hi, mine));
        rest = tail;
    }
    slices.into_par_iter().for_each(|(lo, hi, out)| {
        let base = offsets[lo];
        let mut cursor: Vec<u32> = offsets[lo..hi].iter().map(|&o| o - base).collect();
        for v in 0..n as u32 {
            for &t in graph.successors(v) {
                if let Some(c) = cursor.get_mut(t.wrapping_sub(lo as u32) as usize) {
                    out[*c as usize] = v;
                    *c += 1;
                }
            }
        }
    });
    Csr::from_parts(offsets, targets).expect("every edge was placed once")
}

/// One cycle among the nodes peeling could not remove (`pending > 0`): each of them has an
/// out-position that was not removed either, so following such out-positions must revisit a
/// node. Iterative, linear in the graph's size; the cycle is rotated to start at its smallest id.
fn find_cycle(graph: &Csr, pending: &[u32]) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let stuck = |v: u32| pending[v as usize] > 0;
    let mut step_of = vec![UNSEEN; graph.node_count()];
    let mut path = Vec::new();
    let Some(mut v) = (0..graph.node_count() as u32).find(|&v| stuck(v)) else {
        return Vec::new();
    };
    while step_of[v as usize] == UNSEEN {
        step_of[v as usize] = path.len() as u32;
        path.push(v);
        v = match graph.successors(v).iter().copied().find(|&s| stuck(s)) {
            Some(next) => next,
            None => return Vec::new(), // unreachable for a stuck node; no cycle to show
        };
    }
    let mut cycle = path.split_off(step_of[v as usize] as usize);
    if let Some(smallest) = (0..cycle.len()).min_by_key(|&i| cycle[i]) {
        cycle.rotate_left(smallest);
    }
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(lists: &[&[u32]]) -> Csr {
        Csr::from_lists(lists).unwrap()
    }

    #[test]
    fn levels_follow_longest_path_to_a_sink() {
        // 0 -> 1 -> 3, 0 -> 2, 2 -> 3; sinks: 3, 4.
        let g = graph(&[&[1, 2], &[3], &[3], &[], &[]]);
        let lv = levels(&g).unwrap();
        assert_eq!(lv.level_count(), 3);
        assert_eq!(lv.level(0), &[3, 4]);
        assert_eq!(lv.node_levels(), vec![2, 1, 1, 0, 0]);
    }

    #[test]
    fn empty_graph_has_no_levels() {
        let lv = levels(&graph(&[])).unwrap();
        assert_eq!(lv.level_count(), 0);
        assert!(lv.order().is_empty());
    }

    #[test]
    fn cycles_are_found_and_start_at_their_smallest_node() {
        assert_eq!(levels(&graph(&[&[0]])).unwrap_err(), vec![0]);
        // 0 -> 1 -> 4 -> 2 -> 1 -> ...; 3 is a sink.
        let g = graph(&[&[3, 1], &[4], &[1], &[], &[2]]);
        assert_eq!(levels(&g).unwrap_err(), vec![1, 4, 2]);
        assert_eq!(levels_parallel(&g).unwrap_err(), vec![1, 4, 2]);
    }

    #[test]
    fn parallel_levels_hold_the_same_nodes_per_level() {
        // Wide levels (above the inline threshold) and thin ones, in one graph.
        let width = 3 * INLINE_LEVEL as u32;
        let mut lists: Vec<Vec<u32>> = Vec::new();
        for v in 0..3 * width {
            let layer = v / width;
            let next = if layer + 1 < 3 { vec![(layer + 1) * width + v % 7, (layer + 1) * width + v % width] } else { vec![] };
            lists.push(next);
        }
        let base = lists.len() as u32;
        lists.push(vec![0]);
        for i in 1..50 {
            lists.push(vec![base + i - 1]);
        }
        let g = Csr::from_lists(&lists).unwrap();
        let (a, b) = (levels(&g).unwrap(), levels_parallel(&g).unwrap());
        assert_eq!(a.level_count(), b.level_count());
        assert_eq!(a.node_levels(), b.node_levels());
        for threads in [1, 2, 3, 7] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            assert_eq!(pool.install(|| reversed_parallel(&g)), g.reversed());
        }
    }
}
