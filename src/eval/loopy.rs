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
//! Counters keep a stage to O(edges of open and infinite nodes): `hits[v]` is the number of
//! followers of `v` labelled `m`, and `owed[u]` the number of edges from open `u` to open or
//! infinite followers without a follower labelled `m`. A node is labelled when it leaves the
//! queue with `hits == 0` and `owed == 0`. Memory: the reverse graph (4 bytes per edge and per
//! node), the labels, the two counters and the open list (16 bytes per node).

use crate::graph::{Csr, Offset};
use crate::meter::{Meter, Ticker};

use super::Values;

/// A node not labelled yet (never left in the result).
const OPEN: u32 = u32::MAX - 1;

/// The generalized Sprague-Grundy value of every node of `graph`, cycles and self-loops
/// allowed: finite, or [`Values::INFINITE`]. `meter` hears of every node labelled.
pub fn loopy<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Values {
    let n = graph.node_count();
    let reverse = graph.reversed();
    let mut label = vec![OPEN; n];
    let mut hits = vec![0u32; n];
    let mut owed = vec![0u32; n];
    let mut open: Vec<u32> = (0..n as u32).collect();
    let mut infinite: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    let mut ticker = Ticker::new(meter);
    let mut done = 0u64;
    let mut m = 0u32;
    while !open.is_empty() {
        for &v in open.iter().chain(&infinite) {
            hits[v as usize] = 0;
        }
        for &u in &open {
            let not_finite = graph.successors(u).iter().filter(|&&s| label[s as usize] >= OPEN);
            owed[u as usize] = not_finite.count() as u32;
            if owed[u as usize] == 0 {
                queue.push(u);
            }
        }
        while let Some(u) = queue.pop() {
            let i = u as usize;
            if label[i] != OPEN || hits[i] > 0 || owed[i] > 0 {
                continue;
            }
            label[i] = m;
            done += 1;
            ticker.at(done);
            for &v in reverse.successors(u) {
                let j = v as usize;
                if label[j] < OPEN {
                    continue;
                }
                hits[j] += 1;
                if hits[j] > 1 {
                    continue;
                }
                // `v` now reaches `m`: it no longer stands in the way of its open predecessors.
                for &w in reverse.successors(v) {
                    let k = w as usize;
                    if label[k] == OPEN {
                        owed[k] -= 1;
                        if owed[k] == 0 && hits[k] == 0 {
                            queue.push(w);
                        }
                    }
                }
            }
        }
        for &u in &open {
            if label[u as usize] == OPEN && hits[u as usize] == 0 {
                label[u as usize] = Values::INFINITE;
                infinite.push(u);
                done += 1;
                ticker.at(done);
            }
        }
        open.retain(|&u| label[u as usize] == OPEN);
        m += 1;
    }
    meter.set(done);
    Values::from_vec(label)
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
