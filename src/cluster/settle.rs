//! Grundy values across workers: every node is settled by messages, with no barrier per level.
//!
//! Each edge is sent once to its target's owner (a reverse list there). A sink settles at
//! once (value 0, level 0); a settled node's value goes to the owners of its predecessors
//! (directly when that is this worker), which settle a node when its last out-position's value
//! has arrived: its value is the mex of them, its level one more than their largest. Rounds go
//! on while any worker sent anything; nodes left unsettled then lie on or above a cycle.
//!
//! Memory per worker: 4 bytes per reverse edge (the predecessor, case-local) and 8 per node
//! for the reverse offsets, 8 bytes per node for the values seen (a 64-bit mask; values of 64
//! and more, possible only for nodes of more than 64 moves, in a map), 12 more per node
//! (pending count, value, level).

use std::collections::HashMap;

use super::bsp::Bsp;
use super::jump::{Link, Probe};
use super::shard::{Shard, Source};
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

    /// Every worker's number of nodes.
    pub fn counts(&self, peers: usize) -> Vec<u64> {
        let mut counts = vec![0; peers];
        for &(_, count, worker) in &self.spans {
            counts[worker] = count;
        }
        counts
    }

    /// The first global id of the worker owning `gid`.
    #[inline]
    pub fn first_of(&self, gid: u64) -> u64 {
        let i = self.spans.partition_point(|&(first, _, _)| first <= gid) - 1;
        self.spans[i].0
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
/// The shard's out-positions and queries are dropped once the edges are sent (read again from
/// `source` for a jumping phase); the caller reads them again if it needs them.
pub fn settle(
    bsp: &mut Bsp<Msg>,
    shard: &mut Shard,
    owners: &Owners,
    source: &Source,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let (me, peers, first) = (bsp.index(), bsp.peers(), shard.first);
    let reverse = reverse(bsp, shard, owners);
    shard.unload();
    let mut state = State::new(shard);
    let mut since_phase = 0u32;
    let mut phase_rounds = 0u32;
    loop {
        let mut settled: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); peers];
        let mut resolved: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); peers];
        let mut sent = 0;
        // Bounded rounds: the rest of the ready nodes wait for the next one.
        while sent < SETTLES_PER_ROUND {
            let Some(i) = state.ready.pop() else { break };
            let (value, level) = (state.value[i], state.level[i]);
            for u in reverse.preds(shard, i) {
                let owner = owners.of(u);
                if owner == me {
                    state.deliver((u - first) as usize, value, level);
                } else {
                    settled[owner].push((u, value, level));
                    sent += 1;
                }
            }
            for (u, link) in state.subs.remove(&i).unwrap_or_default() {
                let (value, level) = link.apply((value, level));
                let owner = owners.of(u);
                if owner == me {
                    state.settle((u - first) as usize, value, level);
                } else {
                    resolved[owner].push((u, value, level));
                    sent += 1;
                }
            }
        }
        let tally = Msg::Tally { sent, open: state.open };
        let messages = batches(settled, Msg::Settle)
            .chain(batches(resolved, Msg::Resolved))
            .chain((0..peers).map(|w| (w, tally.clone())));
        let (mut total, mut open) = (0, 0);
        for message in bsp.exchange(messages.collect::<Vec<_>>()) {
            match message {
                Msg::Settle(values) => {
                    for (u, value, level) in values {
                        state.deliver((u - first) as usize, value, level);
                    }
                }
                Msg::Resolved(values) => {
                    for (u, value, level) in values {
                        state.settle((u - first) as usize, value, level);
                    }
                }
                Msg::Tally { sent, open: o } => {
                    total += sent;
                    open += o;
                }
                _ => {}
            }
        }
        if total == 0 {
            break;
        }
        since_phase += 1;
        // Rounds that settle few of the open nodes mean long thin paths: jump, unless the last
        // phase cost more rounds than have passed since.
        if since_phase >= JUMP_AFTER.max(2 * phase_rounds) && total * JUMP_SHARE < open {
            let before = bsp.rounds();
            super::jump::phase(bsp, (first, source), owners, &mut state);
            phase_rounds = (bsp.rounds() - before) as u32;
            since_phase = 0;
        }
    }
    let stuck = state.open > 0;
    let anyone_stuck =
        bsp.all_gather(Msg::Flag(stuck)).iter().any(|m| matches!(m, Msg::Flag(true)));
    (!anyone_stuck).then_some((state.value, state.level))
}

/// Settled values sent per worker per round at most (16 bytes each): the memory in flight is
/// bounded by it, whatever the width of the graph's levels.
const SETTLES_PER_ROUND: u64 = 1 << 16;

/// Thin rounds before a jumping phase.
const JUMP_AFTER: u32 = 8;
/// A round is thin when it settles fewer than 1 in this many open nodes.
const JUMP_SHARE: u64 = 64;

/// The non-empty lists of `out`, each as a message to its worker.
fn batches(
    out: Vec<Vec<(u64, u32, u32)>>,
    wrap: fn(Vec<(u64, u32, u32)>) -> Msg,
) -> impl Iterator<Item = (usize, Msg)> {
    out.into_iter().enumerate().filter(|(_, o)| !o.is_empty()).map(move |(w, o)| (w, wrap(o)))
}

/// The per-node state of the settling.
pub(super) struct State {
    /// Out-positions whose value has not arrived; 0 once settled.
    pub pending: Vec<u32>,
    seen: Vec<u64>,
    /// Values of 64 and more seen by a node (only a node of more than 64 moves needs them).
    big: HashMap<usize, Vec<u32>>,
    /// Values of settled nodes.
    pub value: Vec<u32>,
    /// Levels of settled nodes.
    pub level: Vec<u32>,
    /// Settled nodes whose predecessors and subscribers have not been told.
    ready: Vec<usize>,
    /// Nodes (global ids) to settle, with their links, when an owned node settles.
    subs: HashMap<usize, Vec<(u64, Link)>>,
    /// Owned nodes not settled.
    open: u64,
}

impl State {
    fn new(shard: &Shard) -> State {
        let n = shard.nodes();
        let pending: Vec<u32> = (0..n).map(|i| shard.degree(i) as u32).collect();
        let ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
        State {
            open: (n - ready.len()) as u64,
            pending,
            seen: vec![0; n],
            big: HashMap::new(),
            value: vec![0; n],
            level: vec![0; n],
            ready,
            subs: HashMap::new(),
        }
    }

    /// One out-position of node `i` has settled with `value` at `level` (ignored once `i` has
    /// settled through a link).
    #[inline]
    fn deliver(&mut self, i: usize, value: u32, level: u32) {
        if self.pending[i] == 0 {
            return;
        }
        if value < 64 {
            self.seen[i] |= 1 << value;
        } else {
            self.big.entry(i).or_default().push(value);
        }
        self.level[i] = self.level[i].max(level + 1);
        self.pending[i] -= 1;
        if self.pending[i] == 0 {
            self.value[i] = self.mex(i);
            self.open -= 1;
            self.ready.push(i);
        }
    }

    /// Node `i` settles with `value` at `level`, known through a link (ignored if it has).
    pub fn settle(&mut self, i: usize, value: u32, level: u32) {
        if self.pending[i] == 0 {
            return;
        }
        self.pending[i] = 0;
        self.big.remove(&i);
        (self.value[i], self.level[i]) = (value, level);
        self.open -= 1;
        self.ready.push(i);
    }

    /// Node `node` (a global id) is `link` of owned node `i`'s value.
    pub fn subscribe(&mut self, i: usize, node: u64, link: Link) {
        self.subs.entry(i).or_default().push((node, link));
    }

    /// What a probe of owned node `i` says, `link` being its link in a jumping phase.
    pub fn probe(&self, i: usize, link: Option<(Link, u64)>) -> Probe {
        match (self.pending[i], link) {
            (0, _) => Probe::Settled(self.value[i], self.level[i]),
            (_, Some((link, next))) => Probe::Linked(link, next),
            _ => Probe::Open,
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

/// The predecessors of every owned node, case-local (a predecessor is in its target's case).
struct Reverse {
    offsets: Vec<u64>,
    preds: Vec<u32>,
}

impl Reverse {
    /// The predecessors of owned node `i`, as global ids.
    fn preds<'a>(&'a self, shard: &Shard, i: usize) -> impl Iterator<Item = u64> + 'a {
        let base = shard.base(i);
        let list = &self.preds[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        list.iter().map(move |&p| base + u64::from(p))
    }
}

/// Edges sent per worker per round while the reverse lists are built: the memory in flight is
/// bounded by it, whatever the number of edges.
const EDGES_PER_ROUND: usize = 1 << 16;

/// The reverse lists, from every edge sent to its target's owner twice, in bounded rounds:
/// first to count each target's predecessors, then to place them. Twice the messages, but
/// nothing held beyond the lists themselves (4 bytes per edge, 8 per node).
fn reverse(bsp: &mut Bsp<Msg>, shard: &Shard, owners: &Owners) -> Reverse {
    let n = shard.nodes();
    let edges = || {
        (0..n).flat_map(move |i| {
            let local = (shard.first + i as u64 - shard.base(i)) as u32;
            shard.successors(i).map(move |t| (owners.of(t), (t - owners.first_of(t), local)))
        })
    };
    let mut offsets = vec![0u64; n + 1];
    stream(bsp, edges().map(|(w, (t, _))| (w, (t, 0))), |batch| {
        for (t, _) in batch {
            offsets[t as usize + 1] += 1;
        }
    });
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut preds = vec![0u32; offsets[n] as usize];
    // Each list fills from its end down: `offsets[t + 1]` ends as the start of `t`'s list,
    // so the offsets shift down by one instead of a cursor per node.
    stream(bsp, edges(), |batch| {
        for (t, u) in batch {
            let end = &mut offsets[t as usize + 1];
            *end -= 1;
            preds[*end as usize] = u;
        }
    });
    offsets.remove(0);
    offsets.push(preds.len() as u64);
    Reverse { offsets, preds }
}

/// Sends every `(worker, edge)` of `items` to its worker, at most `EDGES_PER_ROUND` per round,
/// handing every batch received to `take`, until no worker has any left.
fn stream(
    bsp: &mut Bsp<Msg>,
    items: impl Iterator<Item = (usize, (u64, u32))>,
    mut take: impl FnMut(Vec<(u64, u32)>),
) {
    let peers = bsp.peers();
    let mut items = items.peekable();
    loop {
        let mut out = vec![Vec::new(); peers];
        let mut sent = 0;
        for (w, item) in items.by_ref().take(EDGES_PER_ROUND) {
            out[w].push(item);
            sent += 1;
        }
        let messages = out.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
        let messages = messages
            .map(|(w, o)| (w, Msg::Edges(o)))
            .chain((0..peers).map(|w| (w, Msg::Count(sent))));
        let mut total = 0;
        for message in bsp.exchange(messages.collect::<Vec<_>>()) {
            match message {
                Msg::Edges(batch) => take(batch),
                Msg::Count(c) => total += c,
                _ => {}
            }
        }
        if total == 0 {
            return;
        }
    }
}
