//! Peeling down thin levels: a level of at most [`WALK_NODES`] nodes is a step of a walk, and
//! a long run of one-node levels with single predecessors (a chain) is chased in a short loop
//! of its own.

use super::count::Count;
use crate::graph::reverse::NOT_SINGLE;
use crate::graph::{Offset, Reverse};
use crate::io::memory::prefetch;

/// What peeling appends to: the order, its values (when counts carry them) and the starts of
/// its levels.
pub(super) struct Appended<'a> {
    /// The nodes, level after level.
    pub(super) order: &'a mut Vec<u32>,
    /// Their values, in the same order (when counts carry them).
    pub(super) values: &'a mut Vec<u8>,
    /// Where each level starts in `order`.
    pub(super) starts: &'a mut Vec<u32>,
}

/// Levels of at most this many nodes are steps of a walk (down a chain, or a few chains side
/// by side): [`Walk::step`] peels them.
pub(super) const WALK_NODES: usize = 4;

/// Most levels one call of [`Walk::chase`] peels.
pub(super) const CHASE_LEVELS: usize = if cfg!(test) { 64 } else { 1 << 16 };

/// Steps in a row after which a walk looks predecessors up in [`Walk::single`].
pub(super) const WALK_STEPS: u32 = 1024;

/// A walk down thin levels. Each step waits on the misses of finding the next node, one after
/// the other: its offsets, then its list. Once a walk is long ([`WALK_STEPS`]), every node's
/// single predecessor, if it has exactly one, is listed in one array (4 bytes per node, built
/// in parallel in one pass), so a step down a chain is one miss, which the previous step
/// prefetched; the count's miss overlaps it.
#[derive(Default)]
pub(super) struct Walk {
    /// Thin levels in a row so far.
    pub(super) steps: u32,
    /// Every node's predecessor when it has exactly one, else [`NOT_SINGLE`]; empty until a
    /// walk is long.
    single: Vec<u32>,
}

impl Walk {
    /// True when `level` is one node with a single predecessor, listed: a chain to chase.
    pub(super) fn chases(&self, level: &[u32]) -> bool {
        match level {
            &[u] => self.single.get(u as usize).is_some_and(|&p| p != NOT_SINGLE),
            _ => false,
        }
    }

    /// Peels down a chain from the last node of `order`, a level of its own whose single
    /// predecessor is listed ([`Walk::chases`]): while the node's predecessor is left ready
    /// and has a single predecessor itself, at most [`CHASE_LEVELS`] levels (so the meter
    /// hears of progress). Each step is one load whose address the step before found; the
    /// loop is short, so the count's miss overlaps the next step's.
    pub(super) fn chase<C: Count>(&self, pending: &mut [C], appended: Appended) {
        let Appended { order, values: in_order, starts: level_starts } = appended;
        let first = order.len() - 1;
        let mut u = order[first];
        for at in first..first + CHASE_LEVELS {
            let p = self.single[u as usize];
            if p == NOT_SINGLE {
                return;
            }
            if at > first {
                level_starts.push(at as u32 + 1);
            }
            let count = &mut pending[p as usize];
            if !count.take_one(if C::VALUED { in_order[at].into() } else { 0 }) {
                return;
            }
            if C::VALUED {
                in_order.push(count.finish());
            }
            order.push(p);
            u = p;
        }
    }

    /// Removes the edges into `level` (values `values`), a level of at most [`WALK_NODES`]
    /// nodes, from `pending` (every node's count), pushing the nodes left with none onto
    /// `ready`; what each predecessor's step will read is prefetched as soon as it is seen.
    pub(super) fn step<O: Offset, C: Count>(
        &mut self,
        reverse: &Reverse<O>,
        (level, values): (&[u32], &[u8]),
        pending: &mut [C],
        ready: &mut Vec<u32>,
    ) {
        self.steps += 1;
        if self.steps == WALK_STEPS && self.single.is_empty() {
            self.single = reverse.single_preds();
        }
        let single = &self.single;
        for (i, &u) in level.iter().enumerate() {
            let value = if C::VALUED { values[i].into() } else { 0 };
            let mut take = |p: u32| {
                if single.is_empty() {
                    reverse.prefetch_lists(p);
                } else {
                    prefetch(single, p as usize);
                }
                if pending[p as usize].take_one(value) {
                    ready.push(p);
                }
            };
            match single.get(u as usize) {
                Some(&p) if p != NOT_SINGLE => take(p),
                _ => (0..reverse.parts())
                    .for_each(|k| reverse.preds(u, k).iter().for_each(|&p| take(p))),
            }
        }
    }
}
