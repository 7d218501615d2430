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
//! Counters keep a stage to O(edges into the nodes hit): a node is *hit* when a follower is
//! labelled `m`, and `owed` counts the edges from an open node to open or infinite followers
//! not hit. A node may take `m` when it is not hit and owes nothing. Such nodes are never
//! adjacent (an eligible node's open followers are all hit), so a stage goes in rounds that
//! label every eligible node at once, each round's labels resting on earlier rounds'. What a
//! node owes when a stage starts is its count of followers not labelled finite, kept from
//! stage to stage, so a stage's start reads no edge.
//!
//! The nodes that reach no cycle are peeled first and keep their plain values ([`loopy_rest`]
//! takes them from the plain engine); they enter the stages as events in their value's stage.
//! The stages walk the peeling's reverse graph, cut into ranges of predecessor ids (one per
//! thread on the parallel path): in a large round each thread updates only its own range's
//! nodes, reading every labelled or hit node's list in its part, so no two threads write the
//! same memory and no atomics are needed; with one part the same code is the sequential twin.
//! Reverse lists and node states are prefetched a few nodes ahead, as most reads miss the cache.
//!
//! Memory beyond the graph: the reverse graph (4 bytes per edge, 4 per node and part), each
//! node's state (8 bytes: label, debt), its unsettled count and its place in the lists of
//! unfinished nodes (4 + 4 bytes), and the rounds' lists (at most 4 bytes per node each).

use std::ops::Range;

use rayon::prelude::*;

use crate::graph::Reverse;
use crate::graph::{Csr, Offset};
use crate::io::memory::prefetch;
use crate::meter::{Meter, Ticker};
use crate::order::Peeled;

use super::Values;

/// A node not labelled yet (never left in the result).
const OPEN: u32 = u32::MAX - 1;

/// The generalized Sprague-Grundy value of every node of `graph`, cycles and self-loops
/// allowed: finite, or [`Values::INFINITE`]. `meter` hears of every node labelled.
pub fn loopy<O: Offset>(graph: &Csr<O>, meter: &dyn Meter) -> Values {
    let peeled = crate::order::peeled(graph, meter);
    let plain = super::grundy(graph, &peeled.levels, meter);
    loopy_rest(graph, plain, peeled, meter)
}

/// [`loopy`] after the peeling: `plain` holds the Sprague-Grundy values of the nodes `peeled`
/// removed (the labelling gives them the same; its other entries are ignored). Only the other
/// nodes go through the stages, on the peeling's reverse graph: when it is cut into parts
/// (the parallel peeling), each part's nodes are updated by one rayon task in large rounds.
pub fn loopy_rest<O: Offset>(
    graph: &Csr<O>,
    plain: Values,
    peeled: Peeled<O>,
    meter: &dyn Meter,
) -> Values {
    if peeled.is_complete() {
        return plain;
    }
    let Peeled { levels, pending, reverse, .. } = peeled;
    let mut nodes = vec![Node { label: OPEN, owed: 0 }; pending.len()];
    for v in levels.nodes() {
        nodes[v as usize].label = plain.get(v);
    }
    drop(plain);
    let boundary = boundary(graph, &reverse, &mut nodes, levels.node_count());
    let mut stages = Stages::new(&reverse, nodes, pending);
    let mut ticker = Ticker::new(meter);
    let mut done = levels.node_count() as u64;
    let mut at = 0;
    let trace = std::env::var_os("GRUNDY_TRACE").map(|_| std::time::Instant::now());
    for m in 0.. {
        let from = at;
        while boundary.get(at).is_some_and(|&(value, _)| value == m) {
            at += 1;
        }
        let events: Vec<u32> = boundary[from..at].iter().map(|&(_, w)| w).collect();
        let mut labelled = 0;
        let (infinite, left) = stages.stage(m, events, |count| {
            labelled += count;
            ticker.at(done + labelled);
        });
        done += labelled + infinite;
        if let Some(start) = trace {
            let seconds = start.elapsed().as_secs_f64();
            eprintln!("trace: loopy stage {m}: {labelled} labelled, {infinite} infinite, {left} open, at {seconds:.3} s");
        }
        if left == 0 {
            break;
        }
    }
    meter.set(done);
    Values::from_vec(stages.nodes.into_iter().map(|node| node.label).collect())
}

/// `owed` of a node hit in the current stage: its debt no longer matters.
const HIT: u32 = u32::MAX;

/// One node's state in the stages, the record every update reads (8 bytes, so that the
/// states of a million nodes mostly stay in cache): its label (a value, [`OPEN`] or
/// [`Values::INFINITE`]), and its open or infinite followers not hit in the stage, or [`HIT`]
/// once one of its followers has the stage's value. (Debts are out-degrees at most, and
/// those stay below `u32::MAX - 1`, as values do.)
#[derive(Clone, Copy)]
struct Node {
    label: u32,
    owed: u32,
}

impl Node {
    fn is_hit(self) -> bool {
        self.owed == HIT
    }

    /// Open, not hit and owing nothing: the node may take the stage's value.
    fn is_eligible(self) -> bool {
        self.label == OPEN && self.owed == 0
    }
}

/// The peeled nodes that the other nodes move to, with their values, by value then id: each
/// takes part in its value's stage as if labelled there. Found from whichever side is smaller.
fn boundary<O: Offset>(
    graph: &Csr<O>,
    reverse: &Reverse<O>,
    nodes: &mut [Node],
    peeled: usize,
) -> Vec<(u32, u32)> {
    let n = nodes.len() as u32;
    let finite = |node: &Node| node.label < OPEN;
    let mut found: Vec<(u32, u32)> = if peeled < nodes.len() - peeled {
        // From the peeled nodes: does any predecessor reach a cycle?
        let unpeeled = |v: &u32| !finite(&nodes[*v as usize]);
        let open_pred = |w| (0..reverse.parts()).any(|k| reverse.preds(w, k).iter().any(unpeeled));
        let boundary = (0..n).filter(|&w| finite(&nodes[w as usize]) && open_pred(w));
        boundary.map(|w| (nodes[w as usize].label, w)).collect()
    } else {
        // From the others: mark their peeled followers (`owed` is free on peeled nodes).
        for u in 0..n {
            if !finite(&nodes[u as usize]) {
                for &s in graph.successors(u) {
                    let follower = &mut nodes[s as usize];
                    if finite(follower) {
                        follower.owed = HIT;
                    }
                }
            }
        }
        let mut found = Vec::new();
        for (w, node) in nodes.iter_mut().enumerate() {
            if std::mem::take(&mut node.owed) == HIT {
                found.push((node.label, w as u32));
            }
        }
        found
    };
    found.sort_unstable();
    found
}

/// Rounds this large or larger run their parts on the rayon pool.
const PARALLEL_ROUND: usize = 1024;

/// The labelling, stage by stage: the nodes' states cut into the reverse graph's parts (part
/// `k` holds ids `k * span ..`), with the nodes of each part not labelled finite yet.
struct Stages<'a, O: Offset> {
    reverse: &'a Reverse<O>,
    nodes: Vec<Node>,
    /// Per node, its followers not labelled finite (kept from stage to stage): what an open
    /// node owes when a stage starts.
    unsettled: Vec<u32>,
    /// Per part, its open and infinite nodes in increasing id order.
    unfinished: Vec<Vec<u32>>,
}

/// One part's share of a step: its nodes' states (ids from `lo`), the reverse graph's parts to
/// read (its own, or all of them when one task does the whole step), its unfinished nodes.
struct Share<'s> {
    state: State<'s>,
    lo: u32,
    parts: Range<usize>,
    unfinished: &'s mut [Vec<u32>],
}

/// The states of a share's nodes, indexed from its first id.
struct State<'s> {
    nodes: &'s mut [Node],
    unsettled: &'s mut [u32],
}

impl<'a, O: Offset> Stages<'a, O> {
    fn new(reverse: &'a Reverse<O>, nodes: Vec<Node>, unsettled: Vec<u32>) -> Stages<'a, O> {
        let span = reverse.span();
        let unfinished = (0..reverse.parts())
            .map(|k| {
                let end = ((k + 1) * span).min(nodes.len()) as u32;
                let ids = (k * span).min(nodes.len()) as u32..end;
                ids.filter(|&v| nodes[v as usize].label == OPEN).collect()
            })
            .collect();
        Stages { reverse, nodes, unsettled, unfinished }
    }

    /// Runs `step` on every part, on the pool when `wide` and there are several parts, else
    /// once over all nodes; returns what each run gave.
    fn each_share<T: Send>(&mut self, wide: bool, step: impl Fn(Share) -> T + Sync) -> Vec<T> {
        let parts = self.reverse.parts();
        if wide && parts > 1 {
            let span = self.reverse.span();
            let states = self.nodes.par_chunks_mut(span).zip(self.unsettled.par_chunks_mut(span));
            let shares = states.zip(self.unfinished.par_chunks_mut(1));
            let run = |(k, ((nodes, unsettled), unfinished))| {
                let state = State { nodes, unsettled };
                step(Share { state, lo: (k * span) as u32, parts: k..k + 1, unfinished })
            };
            shares.enumerate().map(run).collect()
        } else {
            let state = State { nodes: &mut self.nodes, unsettled: &mut self.unsettled };
            vec![step(Share { state, lo: 0, parts: 0..parts, unfinished: &mut self.unfinished })]
        }
    }

    /// Stage `m`, with `events` (peeled nodes of value `m`) labelled at its start; `progress`
    /// hears of every round's labels. Returns how many nodes it found infinite and how many
    /// are left open.
    fn stage(&mut self, m: u32, events: Vec<u32>, mut progress: impl FnMut(u64)) -> (u64, usize) {
        let ready = self.each_share(true, |share| share.start());
        let reverse = self.reverse;
        let mut count = events.len();
        let mut labelled = vec![events];
        let mut settles = false;
        loop {
            let wide = count >= PARALLEL_ROUND;
            let hit = self.each_share(wide, |mut share| share.hit(reverse, &labelled, settles));
            let newly: usize = hit.iter().map(Vec::len).sum();
            let first = !settles;
            labelled = self.each_share(wide || newly >= PARALLEL_ROUND, |mut share| {
                let mut next = share.free(reverse, &hit, m);
                if first {
                    share.take(&ready, m, &mut next);
                }
                next
            });
            settles = true;
            count = labelled.iter().map(Vec::len).sum();
            if count == 0 {
                break;
            }
            progress(count as u64);
        }
        let finished = self.each_share(true, |share| share.finish());
        let infinite: usize = finished.iter().map(|&(infinite, _)| infinite).sum();
        let left: usize = finished.iter().map(|&(_, open)| open).sum();
        (infinite as u64, left)
    }
}

impl Share<'_> {
    /// The state of node `v` of this share.
    fn node(&mut self, v: u32) -> &mut Node {
        &mut self.state.nodes[(v - self.lo) as usize]
    }

    /// Starts a stage: nothing is hit, every open node owes its unsettled followers. Returns
    /// the open nodes that owe nothing.
    fn start(mut self) -> Vec<u32> {
        let mut ready = Vec::new();
        for list in std::mem::take(&mut self.unfinished).iter() {
            for &v in list {
                let i = (v - self.lo) as usize;
                let node = &mut self.state.nodes[i];
                node.owed = self.state.unsettled[i];
                if node.is_eligible() {
                    ready.push(v);
                }
            }
        }
        ready
    }

    /// The nodes of `labelled` took the stage's value: their open or infinite predecessors are
    /// hit (returned, each once), and with `settles` their open predecessors have one
    /// unsettled follower less (events were never counted as unsettled).
    fn hit<O: Offset>(
        &mut self,
        reverse: &Reverse<O>,
        labelled: &[Vec<u32>],
        settles: bool,
    ) -> Vec<u32> {
        let mut newly = Vec::new();
        self.each_pred(reverse, labelled, |state, i, v| {
            let node = &mut state.nodes[i];
            if node.label >= OPEN {
                if settles && node.label == OPEN {
                    state.unsettled[i] -= 1;
                }
                if !node.is_hit() {
                    node.owed = HIT;
                    newly.push(v);
                }
            }
        });
        newly
    }

    /// The nodes of `hit` were hit: their open predecessors owe one less, and those that come
    /// to owe nothing unhit take `m` (returned). Nodes labelled together are never adjacent:
    /// an open follower of an eligible node is hit, so not eligible.
    fn free<O: Offset>(&mut self, reverse: &Reverse<O>, hit: &[Vec<u32>], m: u32) -> Vec<u32> {
        let mut labelled = Vec::new();
        self.each_pred(reverse, hit, |state, i, u| {
            let node = &mut state.nodes[i];
            if node.label == OPEN && !node.is_hit() {
                node.owed -= 1;
                if node.owed == 0 {
                    node.label = m;
                    labelled.push(u);
                }
            }
        });
        labelled
    }

    /// Calls `visit(state, i, v)` for every predecessor `v` (state index `i`) in this share of
    /// every node of `lists`, prefetching lists and states ahead ([`Reverse::visit_preds`]).
    #[inline(always)]
    fn each_pred<O: Offset>(
        &mut self,
        reverse: &Reverse<O>,
        lists: &[Vec<u32>],
        mut visit: impl FnMut(&mut State, usize, u32),
    ) {
        let lo = self.lo;
        let ahead = |state: &State, v: u32| prefetch(state.nodes, v.wrapping_sub(lo) as usize);
        for list in lists {
            let parts = self.parts.clone();
            reverse.visit_preds(list, parts, &mut self.state, ahead, |state, _, v| {
                visit(state, (v - lo) as usize, v)
            });
        }
    }

    /// The nodes of `ready` in this share that owed nothing from the start take `m` unless hit.
    fn take(&mut self, ready: &[Vec<u32>], m: u32, labelled: &mut Vec<u32>) {
        let own = self.lo..self.lo + self.state.nodes.len() as u32;
        for &u in ready.iter().flatten().filter(|&u| own.contains(u)) {
            let node = self.node(u);
            if node.is_eligible() {
                node.label = m;
                labelled.push(u);
            }
        }
    }

    /// Ends a stage: open nodes not hit are infinite for good; nodes labelled finite leave the
    /// unfinished lists. Returns the count of new infinite nodes and of nodes still open.
    fn finish(mut self) -> (usize, usize) {
        let (mut infinite, mut open) = (0, 0);
        let lists = std::mem::take(&mut self.unfinished);
        for list in lists.iter_mut() {
            list.retain(|&v| {
                let node = self.node(v);
                if node.label == OPEN && !node.is_hit() {
                    node.label = Values::INFINITE;
                    infinite += 1;
                }
                open += usize::from(node.label == OPEN);
                node.label >= OPEN
            });
        }
        (infinite, open)
    }
}

/// The finite values of `v`'s followers, ascending, each once: the set K of an infinite node.
/// A move to no node (a damaged index read with `--trust`) is no move.
pub fn infinite_set<O: Offset>(graph: &Csr<O>, values: &Values, v: u32) -> Vec<u32> {
    let mut set: Vec<u32> = graph
        .successors(v)
        .iter()
        .filter_map(|&s| values.try_get(s))
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
