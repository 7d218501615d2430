//! Generalized Sprague-Grundy values of games with cycles (Smith 1966; Fraenkel and Yesha
//! 1986): every node gets a finite value, or infinity together with the set of its followers'
//! finite values, and sums of tokens are decided from those alone.
//!
//! Labelling goes in stages `m = 0, 1, 2, ...`. In stage `m` an open (unlabelled) node gets `m`
//! when no follower is labelled `m` and every follower that is open or infinite has a follower
//! labelled `m` already; the nodes it labels are taken one at a time from a queue, so that each
//! one's condition rests on labels given before it (a simultaneous fixpoint would accept a
//! cycle of nodes vouching for each other). After the stage, an open node with no follower
//! labelled `m` is infinite for good. Open nodes at stage `m` have followers labelled
//! `0..m` (or they would be infinite), so the finite labels are mexes, as in acyclic games.
//!
//! Counters keep a stage to O(edges of open and infinite nodes): `hit[v]` says a follower of
//! `v` is labelled `m`, and `owed[u]` counts the edges from open `u` to open or infinite
//! followers not hit. A node may take `m` when it is not hit and owes nothing. Such nodes are
//! never adjacent (an eligible node's open followers are all hit), so a stage goes in rounds
//! that label every eligible node at once, each round's labels resting on earlier rounds':
//! on the parallel path a large round runs on every thread.
//!
//! The nodes that reach no cycle are peeled first and keep their plain values ([`loopy_rest`]
//! takes them from the plain engine); they enter the stages as events in their value's stage.
//! Memory beyond the graph: the reverse of the edges leaving the other nodes (4 bytes per such
//! edge and per node), the labels, the two counters and the open list (16 bytes per node).

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU32};

use rayon::prelude::*;

use crate::graph::{Csr, Offset};
use crate::meter::{Meter, Ticker};
use crate::order::Levels;

use super::Values;

/// A node not labelled yet (never left in the result).
const OPEN: u32 = u32::MAX - 1;

/// The generalized Sprague-Grundy value of every node of `graph`, cycles and self-loops
/// allowed: finite, or [`Values::INFINITE`]. `meter` hears of every node labelled.
pub fn loopy<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Values {
    let (peeled, _) = crate::order::peeled(graph, meter);
    let plain = super::grundy(graph, &peeled, meter);
    loopy_rest(graph, (plain, &peeled), false, meter)
}

/// [`loopy`] after the peeling: `peeled` are the levels of the nodes that reach no cycle and
/// `plain` holds their Sprague-Grundy values (the labelling gives them the same; their other
/// entries are ignored). Only the other nodes go through the stages; with `parallel`, each
/// stage's rounds run on the rayon pool (the same values: they are unique).
pub fn loopy_rest<O: Offset>(
    graph: &Csr<O>,
    (plain, peeled): (Values, &Levels),
    parallel: bool,
    meter: &dyn Meter,
) -> Values {
    let n = graph.node_count();
    if peeled.node_count() == n {
        return plain;
    }
    let mut label = vec![OPEN; n];
    for v in peeled.nodes() {
        label[v as usize] = plain.get(v);
    }
    drop(plain);
    let mut open: Vec<u32> = (0..n as u32).filter(|&v| label[v as usize] == OPEN).collect();
    // Only the edges leaving the nodes that reach a cycle carry the stages' events.
    let reverse = graph.reversed_from(open.iter().copied(), &|_| {});
    // The peeled nodes that open nodes move to, by value: labelled in their value's stage.
    let mut boundary: Vec<u32> = (0..n as u32)
        .filter(|&w| label[w as usize] < OPEN && !reverse.successors(w).is_empty())
        .collect();
    boundary.sort_unstable_by_key(|&w| label[w as usize]);
    let mut at = 0;
    let counters = Counters {
        reverse: &reverse,
        hit: (0..n).map(|_| AtomicBool::new(false)).collect(),
        owed: (0..n).map(|_| AtomicU32::new(0)).collect(),
        parallel,
    };
    let mut infinite: Vec<u32> = Vec::new();
    let mut ticker = Ticker::new(meter);
    let mut done = peeled.node_count() as u64;
    let mut m = 0u32;
    while !open.is_empty() {
        let mut frontier = counters.start(graph, &label, (&open, &infinite));
        let from = at;
        while boundary.get(at).is_some_and(|&w| label[w as usize] == m) {
            at += 1;
        }
        let mut labelled = boundary[from..at].to_vec();
        loop {
            frontier.extend(counters.round(&label, &labelled));
            labelled.clear();
            for u in frontier.drain(..) {
                // Nodes labelled together are never adjacent: eligible nodes reach no open
                // node that is eligible too (theirs all have a move to `m`).
                if label[u as usize] == OPEN && counters.eligible(u) {
                    label[u as usize] = m;
                    labelled.push(u);
                }
            }
            if labelled.is_empty() {
                break;
            }
            done += labelled.len() as u64;
            ticker.at(done);
        }
        for &u in &open {
            if label[u as usize] == OPEN && !counters.hit[u as usize].load(Relaxed) {
                label[u as usize] = Values::INFINITE;
                infinite.push(u);
                done += 1;
            }
        }
        open.retain(|&u| label[u as usize] == OPEN);
        m += 1;
    }
    meter.set(done);
    Values::from_vec(label)
}

/// Frontiers of this many nodes or more are handled in parallel.
const PARALLEL_FRONTIER: usize = 1024;

/// The counters of a stage, shared by the threads of a round: `hit[v]`, `v` has a follower
/// labelled with the stage's value; `owed[u]`, open `u`'s open or infinite followers not hit.
struct Counters<'a, O: Offset> {
    reverse: &'a Csr<O>,
    hit: Vec<AtomicBool>,
    owed: Vec<AtomicU32>,
    parallel: bool,
}

impl<O: Offset> Counters<'_, O> {
    /// Starts a stage: nothing is hit, every open node owes its open and infinite followers;
    /// returns those that owe nothing.
    fn start(&self, graph: &Csr<O>, label: &[u32], (open, infinite): (&[u32], &[u32])) -> Vec<u32> {
        let reset = |&v: &u32| self.hit[v as usize].store(false, Relaxed);
        let owe = |&u: &u32| {
            let not_finite = graph.successors(u).iter().filter(|&&s| label[s as usize] >= OPEN);
            let count = not_finite.count() as u32;
            self.owed[u as usize].store(count, Relaxed);
            (count == 0).then_some(u)
        };
        if self.parallel {
            open.par_iter().chain(infinite).for_each(reset);
            open.par_iter().filter_map(owe).collect()
        } else {
            open.iter().chain(infinite).for_each(reset);
            open.iter().filter_map(owe).collect()
        }
    }

    /// Whether open node `u` may take the stage's value now.
    fn eligible(&self, u: u32) -> bool {
        !self.hit[u as usize].load(Relaxed) && self.owed[u as usize].load(Relaxed) == 0
    }

    /// The nodes of `labelled` took the stage's value: their open or infinite predecessors are
    /// hit, and the open predecessors of those hit first owe one less. Returns the nodes that
    /// came to owe nothing (to label next, unless hit).
    fn round(&self, label: &[u32], labelled: &[u32]) -> Vec<u32> {
        let hits = |&w: &u32| {
            let preds = self.reverse.successors(w).iter().copied();
            preds.filter(|&v| {
                let hit = &self.hit[v as usize];
                // A load first: most predecessors are hit already, and a swap is a locked write.
                label[v as usize] >= OPEN && !hit.load(Relaxed) && !hit.swap(true, Relaxed)
            })
        };
        let newly: Vec<u32> = if self.parallel && labelled.len() >= PARALLEL_FRONTIER {
            labelled.par_iter().flat_map_iter(hits).collect()
        } else {
            labelled.iter().flat_map(hits).collect()
        };
        let freed = |&v: &u32| {
            let preds = self.reverse.successors(v).iter().copied();
            preds.filter(|&u| {
                label[u as usize] == OPEN && self.owed[u as usize].fetch_sub(1, Relaxed) == 1
            })
        };
        if self.parallel && newly.len() >= PARALLEL_FRONTIER {
            newly.par_iter().flat_map_iter(freed).collect()
        } else {
            newly.iter().flat_map(freed).collect()
        }
    }
}

/// The finite values of `v`'s followers, ascending, each once: the set K of an infinite node.
pub fn infinite_set<O: Offset>(graph: &Csr<O>, values: &Values, v: u32) -> Vec<u32> {
    let mut set: Vec<u32> = graph
        .successors(v)
        .iter()
        .map(|&s| values.get(s))
        .filter(|&x| x != Values::INFINITE)
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(lists: &[Vec<u32>]) -> Vec<u32> {
        loopy(&Csr::from_lists(lists).unwrap(), &()).into_vec()
    }

    const INF: u32 = Values::INFINITE;

    #[test]
    fn the_edge_cases_of_the_issue() {
        // A self-loop beside a sink: infinite, with K = {0}.
        let g = [vec![0, 1], vec![]];
        assert_eq!(values(&g), [INF, 0]);
        let csr = Csr::from_lists(&g).unwrap();
        assert_eq!(infinite_set(&csr, &loopy(&csr, &()), 0), [0]);
        // A 2-cycle with no exit.
        assert_eq!(values(&[vec![1], vec![0]]), [INF, INF]);
        // 0 <-> 1, 0 -> 2: node 1 is 0 though on a cycle, node 0 is 1.
        assert_eq!(values(&[vec![1, 2], vec![0], vec![]]), [1, 0, 0]);
        // A lone self-loop.
        assert_eq!(values(&[vec![0]]), [INF]);
    }

    #[test]
    fn acyclic_graphs_get_their_sprague_grundy_values() {
        // 0 -> 1, 2; 1 -> 2; 2 sink: mex{1, 0} = 2, mex{0} = 1, 0.
        assert_eq!(values(&[vec![1, 2], vec![2], vec![]]), [2, 1, 0]);
    }
}
