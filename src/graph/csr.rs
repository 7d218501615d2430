//! The game graph in compressed sparse row (CSR) form: two flat arrays, no per-node allocation.
//!
//! Memory: 4 bytes per node (`offsets`) plus 4 bytes per edge (`targets`). Edge indices are
//! `u32`, so one case holds at most `u32::MAX` edges (a text file of more than 8 GB); the
//! builder reports a larger case as an error instead of wrapping.

use std::ops::Range;

use super::Rule;

/// A directed graph in CSR form.
///
/// Invariants: `offsets.len() == node_count() + 1`, `offsets[0] == 0`, `offsets` is
/// non-decreasing, `offsets[node_count()] == targets.len()`, and every target is below
/// `node_count()`. The successors of `v` are `targets[offsets[v]..offsets[v + 1]]`, in input
/// order, duplicates kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Csr {
    /// Builds a graph from its parts, checking every invariant; `None` if one fails.
    pub fn from_parts(offsets: Vec<u32>, targets: Vec<u32>) -> Option<Csr> {
        let n = offsets.len().checked_sub(1)?;
        let well_formed = offsets[0] == 0
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets[n] as usize == targets.len()
            && targets.iter().all(|&t| (t as usize) < n);
        well_formed.then_some(Csr { offsets, targets })
    }

    /// Builds a graph from parts whose invariants the caller has established (the parsers check
    /// every id as they read it). Checking them again would be a serial pass over every edge;
    /// debug builds do it anyway.
    pub fn from_checked_parts(offsets: Vec<u32>, targets: Vec<u32>) -> Csr {
        debug_assert!(Csr::from_parts(offsets.clone(), targets.clone()).is_some());
        Csr { offsets, targets }
    }

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
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Number of out-positions of `v`.
    #[inline]
    pub fn out_degree(&self, v: u32) -> u32 {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    /// Takes the graph apart into its offsets and targets.
    pub fn into_parts(self) -> (Vec<u32>, Vec<u32>) {
        (self.offsets, self.targets)
    }

    /// The offsets array: `node_count() + 1` entries.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The targets array: `edge_count()` entries.
    pub fn targets(&self) -> &[u32] {
        &self.targets
    }

    /// The reverse graph (every edge turned around), with the same node count; predecessors
    /// are listed in increasing order of their id. Costs another 4 bytes per node and per edge.
    pub fn reversed(&self) -> Csr {
        self.reversed_from(0..self.node_count() as u32, &|_| {})
    }

    /// The reverse of the edges leaving the nodes in `sources` only, over all node ids: for
    /// every node, the nodes of `sources` that move to it, in increasing id order.
    /// 4 bytes per node of the whole graph and per edge leaving `sources`. `done(k)` hears
    /// that `k` more sources are done, every [`TICK`](crate::meter::TICK) sources or so.
    pub fn reversed_from(&self, sources: std::ops::Range<u32>, done: &(dyn Fn(u64) + Sync)) -> Csr {
        let n = self.node_count();
        let mut offsets = vec![0u32; n + 1];
        for v in sources.clone() {
            for &t in self.successors(v) {
                offsets[t as usize + 1] += 1;
            }
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut targets = crate::io::memory::zeroed_vec(offsets[n] as usize);
        // offsets[t] serves as t's cursor: afterwards it holds t's end, which is t + 1's start,
        // so one shift restores the offsets without a second array.
        // In ticks of sources, so the progress report costs nothing per node.
        let tick = crate::meter::TICK as usize;
        for chunk in sources.clone().step_by(tick) {
            let chunk = chunk..sources.end.min(chunk.saturating_add(tick as u32));
            for v in chunk.clone() {
                for &t in self.successors(v) {
                    let cursor = &mut offsets[t as usize];
                    targets[*cursor as usize] = v;
                    *cursor += 1;
                }
            }
            done(chunk.len() as u64);
        }
        offsets.rotate_right(1);
        offsets[0] = 0;
        Csr { offsets, targets }
    }
}

impl Rule for Csr {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_parts_checks_every_invariant() {
        assert!(Csr::from_parts(vec![0, 1, 1], vec![1]).is_some());
        assert!(Csr::from_parts(vec![], vec![]).is_none());
        assert!(Csr::from_parts(vec![1, 1], vec![0]).is_none());
        assert!(Csr::from_parts(vec![0, 2, 1], vec![0, 0]).is_none());
        assert!(Csr::from_parts(vec![0, 1], vec![]).is_none());
        assert!(Csr::from_parts(vec![0, 1], vec![1]).is_none());
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
}
