//! A cycle found where Kahn's peeling got stuck: the nodes users see in the error.

use crate::graph::{Csr, Offset};

/// The nodes of one cycle of a graph, in move order, starting at its smallest id: `0 -> 1 ->
/// 0` is `Cycle(vec![0, 1])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle(pub Vec<u32>);

/// One cycle among the nodes peeling could not remove (`pending > 0`): each of them has an
/// out-position that was not removed either, so following such out-positions must revisit a
/// node. Iterative, linear in the graph's size; the cycle is rotated to start at its smallest id.
pub(crate) fn find_cycle<O: Offset>(graph: &Csr<O>, pending: &[u32]) -> Cycle {
    const UNSEEN: u32 = u32::MAX;
    let stuck = |v: u32| pending[v as usize] > 0;
    let mut step_of = vec![UNSEEN; graph.node_count()];
    let mut path = Vec::new();
    let Some(mut v) = (0..graph.node_count() as u32).find(|&v| stuck(v)) else {
        return Cycle(Vec::new());
    };
    while step_of[v as usize] == UNSEEN {
        step_of[v as usize] = path.len() as u32;
        path.push(v);
        v = match graph.successors(v).iter().copied().find(|&s| stuck(s)) {
            Some(next) => next,
            None => return Cycle(Vec::new()), // unreachable for a stuck node; no cycle to show
        };
    }
    let mut cycle = path.split_off(step_of[v as usize] as usize);
    if let Some(smallest) = (0..cycle.len()).min_by_key(|&i| cycle[i]) {
        cycle.rotate_left(smallest);
    }
    Cycle(cycle)
}
