//! Sprague-Grundy evaluation: each node's value is the mex of its out-positions' values.
//!
//! Nodes are evaluated in Kahn order (sinks first), so every out-position is done before the
//! node that moves to it; no recursion, whatever the depth. The mex of `d` values is at most
//! `d`, so a scratch of `d + 1` slots suffices and values above `d` are ignored.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::graph::Csr;
use crate::topo::{Levels, INLINE_LEVEL};

/// Reusable scratch for mex computations: no allocation per node once it has grown to the
/// largest out-degree.
#[derive(Debug, Default, Clone)]
pub struct Mex {
    /// `seen[x] == stamp` marks value `x` as present in the current call.
    seen: Vec<u32>,
    stamp: u32,
}

impl Mex {
    /// An empty scratch.
    pub fn new() -> Mex {
        Mex::default()
    }

    /// The smallest non-negative integer not among `values`, which has at most `count` items.
    #[inline]
    pub fn of(&mut self, count: usize, values: impl IntoIterator<Item = u32>) -> u32 {
        // Small sets, the common case, fit a 64-bit mask: no scratch memory touched at all.
        if count < 64 {
            let mut mask = 0u64;
            for x in values {
                if x < 64 {
                    mask |= 1 << x;
                }
            }
            return (!mask).trailing_zeros();
        }
        self.next_stamp(count + 1);
        for x in values {
            if let Some(slot) = self.seen.get_mut(x as usize) {
                *slot = self.stamp;
            }
        }
        let stamp = self.stamp;
        self.seen[..=count].iter().position(|&s| s != stamp).unwrap_or(count) as u32
    }

    /// Starts a new call with at least `len` slots.
    fn next_stamp(&mut self, len: usize) {
        if self.seen.len() < len {
            self.seen.resize(len, self.stamp);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // After 2^32 calls old marks could collide with the new stamp: start afresh.
            self.seen.fill(0);
            self.stamp = 1;
        }
    }
}

/// The Grundy value of every node, indexed by node id.
pub fn grundy(graph: &Csr, levels: &Levels) -> Vec<u32> {
    let mut values = vec![0u32; graph.node_count()];
    let mut mex = Mex::new();
    for &v in levels.order() {
        let succ = graph.successors(v);
        values[v as usize] = mex.of(succ.len(), succ.iter().map(|&s| values[s as usize]));
    }
    values
}

/// The parallel twin of [`grundy`]: levels of at least [`INLINE_LEVEL`] nodes are evaluated
/// in parallel, each worker with its own mex scratch; thinner ones inline.
pub fn grundy_parallel(graph: &Csr, levels: &Levels) -> Vec<u32> {
    if (0..levels.level_count()).all(|l| levels.level(l).len() < INLINE_LEVEL) {
        // Nothing to split (a chain, say): the plain sequential loop, without atomics.
        return grundy(graph, levels);
    }
    let values: Vec<AtomicU32> =
        (0..graph.node_count()).into_par_iter().map(|_| AtomicU32::new(0)).collect();
    // Values of lower levels were stored before this level started (rayon joins in between),
    // so relaxed loads see them; the atomics only make the shared writes safe Rust.
    let value_of = |v: u32, mex: &mut Mex| {
        let succ = graph.successors(v);
        let x = mex.of(succ.len(), succ.iter().map(|&s| values[s as usize].load(Relaxed)));
        values[v as usize].store(x, Relaxed);
    };
    let mut mex = Mex::new();
    for l in 0..levels.level_count() {
        let level = levels.level(l);
        if level.len() < INLINE_LEVEL {
            level.iter().for_each(|&v| value_of(v, &mut mex));
        } else {
            level.par_chunks(INLINE_LEVEL / 8).for_each_init(Mex::new, |mex, chunk| {
                chunk.iter().for_each(|&v| value_of(v, mex));
            });
        }
    }
    values.into_iter().map(AtomicU32::into_inner).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topo::levels;

    fn naive_mex(values: &[u32]) -> u32 {
        (0..).find(|x| !values.contains(x)).unwrap()
    }

    #[test]
    fn mex_agrees_with_a_linear_search_small_and_large() {
        let mut mex = Mex::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..3000 {
            let len = if round % 3 == 0 { round % 300 } else { round % 70 };
            let values: Vec<u32> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % (len as u64 + 3)) as u32
                })
                .collect();
            assert_eq!(mex.of(values.len(), values.iter().copied()), naive_mex(&values));
        }
    }

    #[test]
    fn mex_of_full_ranges() {
        let mut mex = Mex::new();
        for n in [0u32, 1, 63, 64, 65, 1000] {
            assert_eq!(mex.of(n as usize, 0..n), n);
            assert_eq!(mex.of(n as usize, (0..n).rev()), n);
        }
    }

    #[test]
    fn tournament_values_count_down() {
        let n = 100u32;
        let lists: Vec<Vec<u32>> = (0..n).map(|i| (i + 1..n).collect()).collect();
        let g = Csr::from_lists(&lists).unwrap();
        let values = grundy(&g, &levels(&g).unwrap());
        assert_eq!(values, (0..n).rev().collect::<Vec<_>>());
        assert_eq!(grundy_parallel(&g, &levels(&g).unwrap()), values);
    }
}
