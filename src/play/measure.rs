//! The number each play gives a node, from its moves' numbers, sinks first.
//!
//! - remoteness (conjunctive play; Steinhaus): a sink 0; if some move leads to an even
//!   remoteness, 1 + the least such; otherwise 1 + the largest.
//! - suspense (continued play): a sink 0; if some move leads to an even suspense, 1 + the
//!   largest such; otherwise 1 + the least.
//! - misère ([`Misere`]): the misère Grundy value (a sink 1, else the mex of the moves'), 0
//!   exactly for a position whose player to move loses; and the nim heap the position equals
//!   in misère play, where that follows from Conway's misère mex rule (a sink is `*0`; a
//!   position whose moves all equal heaps `*a, *b, ...`, one of them `*0` or `*1`, equals
//!   `*mex(a, b, ...)`), else [`NO_HEAP`].
//!
//! Each pass reads every edge once, in the levels' order; on the parallel path the nodes of a
//! wide level are computed in parallel (their moves are in earlier levels), and thin levels
//! inline, as the Grundy evaluation does. Memory: 4 bytes per node per number.

use rayon::prelude::*;

use crate::exec::Exec;
use crate::graph::{Csr, Offset};
use crate::order::{Level, Levels, INLINE_LEVEL};

use super::Play;

/// The heap of a position that equals no nim heap by the misère mex rule.
pub const NO_HEAP: u32 = u32::MAX;

/// A node's misère numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Misere {
    /// The misère Grundy value (Conway's γ0): 0 exactly when the player to move loses.
    pub grundy: u32,
    /// The nim heap the position equals in misère play, or [`NO_HEAP`].
    pub heap: u32,
}

/// What a play computes of every node of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measures {
    /// Normal and selective play: the Grundy values are all they need.
    None,
    /// Conjunctive play: each node's remoteness.
    Remoteness(Vec<u32>),
    /// Continued play: each node's suspense.
    Suspense(Vec<u32>),
    /// Misère play: each node's misère numbers.
    Misere(Vec<Misere>),
}

impl Measures {
    /// What `play` computes of `graph`, evaluated in `levels` order on `exec`'s path.
    pub fn of<O: Offset>(play: Play, graph: &Csr<O>, levels: &Levels, exec: Exec) -> Measures {
        match play {
            Play::Normal | Play::Selective => Measures::None,
            Play::Conjunctive => Measures::Remoteness(levelwise(graph, levels, exec, remoteness)),
            Play::Continued => Measures::Suspense(levelwise(graph, levels, exec, suspense)),
            Play::Misere => Measures::Misere(levelwise(graph, levels, exec, misere)),
        }
    }
}

/// Remoteness of a node whose moves' remotenesses are `moves`.
fn remoteness(moves: &mut dyn Iterator<Item = u32>) -> u32 {
    let (mut least_even, mut largest) = (None::<u32>, None::<u32>);
    for r in moves {
        if r % 2 == 0 {
            least_even = Some(least_even.map_or(r, |e| e.min(r)));
        }
        largest = Some(largest.map_or(r, |l| l.max(r)));
    }
    match (least_even, largest) {
        (Some(e), _) => e + 1,
        (None, Some(l)) => l + 1,
        (None, None) => 0,
    }
}

/// Suspense of a node whose moves' suspenses are `moves`.
fn suspense(moves: &mut dyn Iterator<Item = u32>) -> u32 {
    let (mut largest_even, mut least) = (None::<u32>, None::<u32>);
    for s in moves {
        if s % 2 == 0 {
            largest_even = Some(largest_even.map_or(s, |e| e.max(s)));
        }
        least = Some(least.map_or(s, |l| l.min(s)));
    }
    match (largest_even, least) {
        (Some(e), _) => e + 1,
        (None, Some(l)) => l + 1,
        (None, None) => 0,
    }
}

/// Misère numbers of a node whose moves' numbers are `moves`.
fn misere(moves: &mut dyn Iterator<Item = Misere>) -> Misere {
    let (mut grundy, mut heaps) = (Marks::default(), Marks::default());
    let (mut any, mut all_heaps, mut small_heap) = (false, true, false);
    for m in moves {
        any = true;
        grundy.mark(m.grundy);
        if m.heap == NO_HEAP {
            all_heaps = false;
        } else {
            heaps.mark(m.heap);
            small_heap |= m.heap <= 1;
        }
    }
    if !any {
        return Misere { grundy: 1, heap: 0 };
    }
    let heap = if all_heaps && small_heap { heaps.mex() } else { NO_HEAP };
    Misere { grundy: grundy.mex(), heap }
}

/// The values a node's moves take, for their mex: a bit mask below 64, a list above.
#[derive(Default)]
struct Marks {
    low: u64,
    high: Vec<u32>,
}

impl Marks {
    fn mark(&mut self, x: u32) {
        if x < 64 {
            self.low |= 1 << x;
        } else {
            self.high.push(x);
        }
    }

    fn mex(mut self) -> u32 {
        let low = (!self.low).trailing_zeros();
        if low < 64 {
            return low;
        }
        self.high.sort_unstable();
        self.high.dedup();
        let mut x = 64;
        for &h in &self.high {
            if h != x {
                break;
            }
            x += 1;
        }
        x
    }
}

/// `node(moves)` of every node of `graph`, in `levels` order: each node's number from its
/// moves' numbers, the wide levels in parallel on the parallel path.
fn levelwise<O: Offset, T>(
    graph: &Csr<O>,
    levels: &Levels,
    exec: Exec,
    node: fn(&mut dyn Iterator<Item = T>) -> T,
) -> Vec<T>
where
    T: Copy + Default + Send + Sync,
{
    let mut out = vec![T::default(); graph.node_count()];
    let one = |v: u32, out: &[T]| node(&mut graph.successors(v).iter().map(|&s| out[s as usize]));
    if exec.is_sequential() {
        for v in levels.nodes() {
            out[v as usize] = one(v, &out);
        }
        return out;
    }
    let mut wide = Vec::new();
    for l in 0..levels.level_count() {
        let level = levels.level(l);
        if level.len() < INLINE_LEVEL {
            for v in level.iter() {
                out[v as usize] = one(v, &out);
            }
            continue;
        }
        let read: &[T] = &out;
        (0..level.len())
            .into_par_iter()
            .with_min_len(INLINE_LEVEL / 8)
            .map(|i| one(level.get(i), read))
            .collect_into_vec(&mut wide);
        store(&mut out, level, &wide);
    }
    out
}

/// Stores the numbers of `level`'s nodes, `numbers` in the level's order.
fn store<T: Copy>(out: &mut [T], level: Level<'_>, numbers: &[T]) {
    for (v, &x) in level.iter().zip(numbers) {
        out[v as usize] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remoteness_and_suspense_follow_their_definitions() {
        let r = |xs: &[u32]| remoteness(&mut xs.iter().copied());
        let s = |xs: &[u32]| suspense(&mut xs.iter().copied());
        assert_eq!((r(&[]), s(&[])), (0, 0));
        // Some even: 1 + the least even (remoteness), 1 + the largest even (suspense).
        assert_eq!((r(&[3, 4, 2, 7]), s(&[3, 4, 2, 7])), (3, 5));
        // All odd: 1 + the largest (remoteness), 1 + the least (suspense).
        assert_eq!((r(&[3, 1, 5]), s(&[3, 1, 5])), (6, 2));
    }

    #[test]
    fn misere_numbers_of_nim_heaps_are_misere_nim() {
        let m = |xs: &[Misere]| misere(&mut xs.iter().copied());
        let sink = m(&[]);
        assert_eq!(sink, Misere { grundy: 1, heap: 0 });
        let one = m(&[sink]);
        assert_eq!(one, Misere { grundy: 0, heap: 1 });
        let two = m(&[sink, one]);
        assert_eq!(two, Misere { grundy: 2, heap: 2 });
        // {*2}: no move to *0 or *1, so it equals no heap; its player moves to *2 and loses.
        assert_eq!(m(&[two]), Misere { grundy: 0, heap: NO_HEAP });
        let many: Vec<Misere> = (0..100).map(|g| Misere { grundy: g, heap: g }).collect();
        assert_eq!(m(&many), Misere { grundy: 100, heap: 100 });
    }
}
