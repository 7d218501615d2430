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
//! queue with `hits == 0` and `owed == 0`.
//!
//! The nodes that reach no cycle are peeled first and keep their plain values ([`loopy_rest`]
//! takes them from the plain engine); they enter the stages as events in their value's stage.
//! Memory beyond the graph: the reverse of the edges leaving the other nodes (4 bytes per such
//! edge and per node), the labels, the two counters and the open list (16 bytes per node).

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
    loopy_rest(graph, plain, &peeled, meter)
}

/// [`loopy`] after the peeling: `peeled` are the levels of the nodes that reach no cycle and
/// `plain` holds their Sprague-Grundy values (the labelling gives them the same; their other
/// entries are ignored). Only the other nodes go through the stages.
pub fn loopy_rest<O: Offset>(
    graph: &Csr<O>,
    plain: Values,
    peeled: &Levels,
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
    let mut done = peeled.node_count() as u64;
    let mut owed = vec![0u32; n];
    // The peeled nodes that open nodes move to, by value: labelled in their value's stage.
    let mut boundary: Vec<u32> = (0..n as u32)
        .filter(|&w| label[w as usize] < OPEN && !reverse.successors(w).is_empty())
        .collect();
    boundary.sort_unstable_by_key(|&w| label[w as usize]);
    let mut boundary = boundary.into_iter().peekable();
    let mut hits = vec![0u32; n];
    let mut infinite: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    let mut ticker = Ticker::new(meter);
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
        let mut counters = Counters { label: &label, hits: &mut hits, owed: &mut owed };
        while let Some(w) = boundary.next_if(|&w| label[w as usize] == m) {
            counters.labelled(&reverse, w, &mut queue);
        }
        while let Some(u) = queue.pop() {
            let i = u as usize;
            if label[i] != OPEN || hits[i] > 0 || owed[i] > 0 {
                continue;
            }
            label[i] = m;
            done += 1;
            ticker.at(done);
            Counters { label: &label, hits: &mut hits, owed: &mut owed }
                .labelled(&reverse, u, &mut queue);
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

/// The counters of a stage.
struct Counters<'a> {
    label: &'a [u32],
    hits: &'a mut [u32],
    owed: &'a mut [u32],
}

impl Counters<'_> {
    /// Node `w` is labelled with the stage's value: its open or infinite predecessors reach
    /// it, and those reaching it first no longer stand in the way of their open predecessors,
    /// which join `queue` when nothing else does.
    fn labelled<O: Offset>(&mut self, reverse: &Csr<O>, w: u32, queue: &mut Vec<u32>) {
        for &v in reverse.successors(w) {
            let j = v as usize;
            if self.label[j] < OPEN {
                continue;
            }
            self.hits[j] += 1;
            if self.hits[j] > 1 {
                continue;
            }
            for &u in reverse.successors(v) {
                let k = u as usize;
                if self.label[k] == OPEN {
                    self.owed[k] -= 1;
                    if self.owed[k] == 0 && self.hits[k] == 0 {
                        queue.push(u);
                    }
                }
            }
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
