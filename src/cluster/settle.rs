//! Grundy values across workers: every node is settled by messages, with no barrier per level.
//!
//! Each edge is sent once to its target's owner (a reverse list there). A sink settles at
//! once (value 0, level 0); a settled node's value goes to the owners of its predecessors
//! (directly when that is this worker), which settle a node when its last out-position's value
//! has arrived: its value is the mex of them, its level one more than their largest. Rounds go
//! on while any worker sent anything; nodes left unsettled then lie on or above a cycle.
//!
//! Memory per worker: 16 bytes per reverse edge (two global ids), 8 bytes per node for the
//! values seen (a 64-bit mask; values of 64 and more, possible only for nodes of more than 64
//! moves, in a map), 12 more per node (pending count, value, level).

use std::collections::HashMap;

use super::bsp::Bsp;
use super::shard::Shard;
use super::Msg;

/// Who owns which global ids: `(first, count, worker)` of every non-empty shard, in id order.
#[derive(Debug, Clone)]
pub struct Owners {
    spans: Vec<(u64, u64, usize)>,
}

impl Owners {
    /// The owners from every worker's `(worker, first, count)`.
    pub fn new(mut spans: Vec<(usize, u64, u64)>) -> Owners {
        spans.sort_unstable();
        let spans = spans.into_iter().filter(|s| s.2 > 0).map(|(w, f, c)| (f, c, w)).collect();
        Owners { spans }
    }

    /// The worker owning global id `gid`.
    #[inline]
    pub fn of(&self, gid: u64) -> usize {
        let i = self.spans.partition_point(|&(first, _, _)| first <= gid) - 1;
        self.spans[i].2
    }
}

/// Every owned node's value and level, or `None` if some node of some worker stayed unsettled
/// (a cycle: the caller falls back to the single-process run, which names it).
pub fn settle(bsp: &mut Bsp<Msg>, shard: &Shard, owners: &Owners) -> Option<(Vec<u32>, Vec<u32>)> {
    let (me, peers, first, n) = (bsp.index(), bsp.peers(), shard.first, shard.nodes());
    let reverse = reverse(bsp, shard, owners);
    let mut state = State {
        pending: (0..n).map(|i| shard.successors(i).len() as u32).collect(),
        seen: vec![0; n],
        big: HashMap::new(),
        value: vec![0; n],
        level: vec![0; n],
        ready: Vec::new(),
    };
    state.ready.extend((0..n).filter(|&i| state.pending[i] == 0));
    loop {
        let mut out: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); peers];
        while let Some(i) = state.ready.pop() {
            let (value, level) = (state.value[i], state.level[i]);
            for &u in reverse.preds(i) {
                let owner = owners.of(u);
                if owner == me {
                    state.deliver((u - first) as usize, value, level);
                } else {
                    out[owner].push((u, value, level));
                }
            }
        }
        let sent: u64 = out.iter().map(|o| o.len() as u64).sum();
        let messages = out
            .into_iter()
            .enumerate()
            .filter(|(_, o)| !o.is_empty())
            .map(|(w, o)| (w, Msg::Settle(o)))
            .chain((0..peers).map(|w| (w, Msg::Count(sent))));
        let mut total = 0;
        for message in bsp.exchange(messages.collect::<Vec<_>>()) {
            match message {
                Msg::Settle(values) => {
                    for (u, value, level) in values {
                        state.deliver((u - first) as usize, value, level);
                    }
                }
                Msg::Count(c) => total += c,
                _ => {}
            }
        }
        if total == 0 {
            break;
        }
    }
    let stuck = state.pending.iter().any(|&p| p > 0);
    let anyone_stuck =
        bsp.all_gather(Msg::Flag(stuck)).iter().any(|m| matches!(m, Msg::Flag(true)));
    (!anyone_stuck).then_some((state.value, state.level))
}

/// The per-node state of the settling.
struct State {
    pending: Vec<u32>,
    seen: Vec<u64>,
    /// Values of 64 and more seen by a node (only a node of more than 64 moves needs them).
    big: HashMap<usize, Vec<u32>>,
    value: Vec<u32>,
    level: Vec<u32>,
    ready: Vec<usize>,
}

impl State {
    /// One out-position of node `i` has settled with `value` at `level`.
    #[inline]
    fn deliver(&mut self, i: usize, value: u32, level: u32) {
        if value < 64 {
            self.seen[i] |= 1 << value;
        } else {
            self.big.entry(i).or_default().push(value);
        }
        self.level[i] = self.level[i].max(level + 1);
        self.pending[i] -= 1;
        if self.pending[i] == 0 {
            self.value[i] = self.mex(i);
            self.ready.push(i);
        }
    }

    fn mex(&mut self, i: usize) -> u32 {
        if self.seen[i] != u64::MAX {
            return (!self.seen[i]).trailing_zeros();
        }
        let mut big = self.big.remove(&i).unwrap_or_default();
        big.sort_unstable();
        big.dedup();
        let mut x = 64;
        for v in big {
            if v != x {
                break;
            }
            x += 1;
        }
        x
    }
}

/// The predecessors of every owned node, from one round in which every edge goes to its
/// target's owner.
struct Reverse {
    offsets: Vec<u64>,
    preds: Vec<u64>,
}

impl Reverse {
    fn preds(&self, i: usize) -> &[u64] {
        &self.preds[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

fn reverse(bsp: &mut Bsp<Msg>, shard: &Shard, owners: &Owners) -> Reverse {
    let peers = bsp.peers();
    let mut out: Vec<Vec<(u64, u64)>> = vec![Vec::new(); peers];
    for i in 0..shard.nodes() {
        let u = shard.first + i as u64;
        for &t in shard.successors(i) {
            out[owners.of(t)].push((t, u));
        }
    }
    let messages = out.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
    let received = bsp.exchange(messages.map(|(w, o)| (w, Msg::Edges(o))).collect::<Vec<_>>());
    let n = shard.nodes();
    let mut offsets = vec![0u64; n + 1];
    let pairs = received.iter().flat_map(|m| match m {
        Msg::Edges(edges) => edges.as_slice(),
        _ => &[],
    });
    for &(t, _) in pairs.clone() {
        offsets[(t - shard.first) as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut preds = vec![0u64; offsets[n] as usize];
    let mut cursor = offsets.clone();
    for &(t, u) in pairs {
        let c = &mut cursor[(t - shard.first) as usize];
        preds[*c as usize] = u;
        *c += 1;
    }
    Reverse { offsets, preds }
}
