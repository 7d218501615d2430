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

use super::bsp::Bsp;
use super::shard::{Shard, Source};
use super::state::{Owners, State};
use super::Msg;

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
    let trace = super::output::Trace::new(me);
    let reverse = reverse(bsp, shard, owners, source);
    trace.stage("reversed");
    let mut state = State::new(shard);
    let sums = shard.is_sums();
    let mut since_phase = 0u32;
    let mut phase_rounds = 0u32;
    loop {
        let mut parts: Vec<Vec<(u64, u32, u32, u32)>> = vec![Vec::new(); peers];
        let mut settled: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); peers];
        let mut resolved: Vec<Vec<(u64, u32, u32)>> = vec![Vec::new(); peers];
        let mut sent = 0;
        // Bounded rounds: the rest of the ready nodes wait for the next one.
        while sent < SETTLES_PER_ROUND {
            let Some(i) = state.ready.pop() else { break };
            let (value, level) = (state.value[i], state.level[i]);
            if sums {
                for (u, slot) in reverse.parts(shard, i) {
                    let owner = owners.of(u);
                    if owner == me {
                        state.deliver_part(shard, ((u - first) as usize, slot), value, level);
                    } else {
                        parts[owner].push((u, slot, value, level));
                        sent += 1;
                    }
                }
            }
            for u in reverse.preds(shard, i).filter(|_| !sums) {
                let owner = owners.of(u);
                if owner == me {
                    state.deliver((u - first) as usize, value, level);
                } else {
                    settled[owner].push((u, value, level));
                    sent += 1;
                }
            }
            for (u, link) in state.take_subscribers(i) {
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
        let part_messages = parts.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
        let messages = batches(settled, Msg::Settle)
            .chain(part_messages.map(|(w, o)| (w, Msg::SettleParts(o))))
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
                Msg::SettleParts(values) => {
                    for (u, slot, value, level) in values {
                        state.deliver_part(shard, ((u - first) as usize, slot), value, level);
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
        // (A sums node is no function of one open part that a link can express: no jumping.)
        if !sums && since_phase >= JUMP_AFTER.max(2 * phase_rounds) && total * JUMP_SHARE < open {
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

/// The predecessors of every owned node, case-local (a predecessor is in its target's case);
/// in the sums format, with the slot of each occurrence among the predecessor's parts.
struct Reverse {
    offsets: Vec<u64>,
    preds: Vec<u32>,
    /// Sums format only: `slots[k]` is which of `preds[k]`'s parts the edge is.
    slots: Vec<u32>,
}

impl Reverse {
    /// The predecessors of owned node `i`, as global ids.
    fn preds<'a>(&'a self, shard: &Shard, i: usize) -> impl Iterator<Item = u64> + 'a {
        let base = shard.base(i);
        let list = &self.preds[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        list.iter().map(move |&p| base + u64::from(p))
    }

    /// The predecessors of owned node `i` with the slot of `i` among their parts (sums).
    fn parts<'a>(&'a self, shard: &Shard, i: usize) -> impl Iterator<Item = (u64, u32)> + 'a {
        let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        self.preds(shard, i).zip(self.slots[range].iter().copied())
    }
}

/// Edges sent per worker per round while the reverse lists are built: the memory in flight is
/// bounded by it, whatever the number of edges.
const EDGES_PER_ROUND: usize = 1 << 16;

/// The reverse lists, from every edge sent to its target's owner twice, in bounded rounds:
/// first to count each target's predecessors, then to place them (with each edge's slot among
/// its source's parts, in the sums format). Twice the messages, but nothing held beyond the
/// lists themselves (4 bytes per edge, 8 per node; 4 more per edge for the slots): the shard's
/// own lists are dropped (`source.unload`) after the count, and the placing reads them again
/// from `source` a window at a time, so they never sit beside the reverse lists being filled.
fn reverse(bsp: &mut Bsp<Msg>, shard: &mut Shard, owners: &Owners, source: &Source) -> Reverse {
    let (n, sums) = (shard.nodes(), shard.is_sums());
    let mut offsets = vec![0u64; n + 1];
    let mut count = Stream::new(bsp, Msg::Edges, unwrap_edges, |batch| {
        for (t, _) in batch {
            offsets[t as usize + 1] += 1;
        }
    });
    edges(shard, owners, |w, (t, u, _)| count.push(w, (t, u)));
    count.finish();
    source.unload(shard);
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut preds = vec![0u32; offsets[n] as usize];
    let mut slots = vec![0u32; if sums { preds.len() } else { 0 }];
    // Each list fills from its end down: `offsets[t + 1]` ends as the start of `t`'s list,
    // so the offsets shift down by one instead of a cursor per node.
    let mut place = |t: u64, u: u32| {
        let end = &mut offsets[t as usize + 1];
        *end -= 1;
        preds[*end as usize] = u;
        *end as usize
    };
    if sums {
        let mut stream = Stream::new(bsp, Msg::SlotEdges, unwrap_slot_edges, |batch| {
            for (t, u, slot) in batch {
                slots[place(t, u)] = slot;
            }
        });
        source.windows(|piece| edges(piece, owners, |w, edge| stream.push(w, edge)));
        stream.finish();
    } else {
        let mut stream = Stream::new(bsp, Msg::Edges, unwrap_edges, |batch| {
            for (t, u) in batch {
                place(t, u);
            }
        });
        source.windows(|piece| edges(piece, owners, |w, (t, u, _)| stream.push(w, (t, u))));
        stream.finish();
    }
    offsets.remove(0);
    offsets.push(preds.len() as u64);
    Reverse { offsets, preds, slots }
}

/// Every edge of `shard`'s lists, handed to `each` as `(the target's owner, (the target's
/// index there, the source case-local, the edge's slot in the source's list))`.
fn edges(shard: &Shard, owners: &Owners, mut each: impl FnMut(usize, (u64, u32, u32))) {
    for i in 0..shard.nodes() {
        let local = (shard.first + i as u64 - shard.base(i)) as u32;
        for (slot, t) in shard.successors(i).enumerate() {
            each(owners.of(t), (t - owners.first_of(t), local, slot as u32));
        }
    }
}

fn unwrap_edges(message: Msg) -> Result<Vec<(u64, u32)>, Msg> {
    match message {
        Msg::Edges(batch) => Ok(batch),
        other => Err(other),
    }
}

fn unwrap_slot_edges(message: Msg) -> Result<Vec<(u64, u32, u32)>, Msg> {
    match message {
        Msg::SlotEdges(batch) => Ok(batch),
        other => Err(other),
    }
}

/// Items sent to their workers in rounds of at most `EDGES_PER_ROUND` from each worker (each
/// list `wrap`ped in a message), every batch received (`unwrap`ped) handed to `take`. A round
/// goes whenever this worker has a round's worth queued, and [`Stream::finish`] goes on until
/// no worker sends any, so every worker takes part in every round.
struct Stream<'b, 'w, T, F: FnMut(Vec<T>)> {
    bsp: &'b mut Bsp<'w, Msg>,
    out: Vec<Vec<T>>,
    queued: usize,
    wrap: fn(Vec<T>) -> Msg,
    unwrap: fn(Msg) -> Result<Vec<T>, Msg>,
    take: F,
}

impl<'b, 'w, T, F: FnMut(Vec<T>)> Stream<'b, 'w, T, F> {
    fn new(
        bsp: &'b mut Bsp<'w, Msg>,
        wrap: fn(Vec<T>) -> Msg,
        unwrap: fn(Msg) -> Result<Vec<T>, Msg>,
        take: F,
    ) -> Self {
        let out = (0..bsp.peers()).map(|_| Vec::new()).collect();
        Stream { bsp, out, queued: 0, wrap, unwrap, take }
    }

    /// Queues `item` for worker `w`.
    fn push(&mut self, w: usize, item: T) {
        self.out[w].push(item);
        self.queued += 1;
        if self.queued == EDGES_PER_ROUND {
            self.round();
        }
    }

    /// Sends what is queued and takes what arrives: the number all workers sent.
    fn round(&mut self) -> u64 {
        let peers = self.bsp.peers();
        let sent = std::mem::take(&mut self.queued) as u64;
        let out = std::mem::replace(&mut self.out, (0..peers).map(|_| Vec::new()).collect());
        let wrap = self.wrap;
        let lists = out.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
        let messages =
            lists.map(|(w, o)| (w, wrap(o))).chain((0..peers).map(|w| (w, Msg::Count(sent))));
        let mut total = 0;
        for message in self.bsp.exchange(messages.collect::<Vec<_>>()) {
            match (self.unwrap)(message) {
                Ok(batch) => (self.take)(batch),
                Err(Msg::Count(c)) => total += c,
                Err(_) => {}
            }
        }
        total
    }

    /// Rounds until no worker sends anything.
    fn finish(mut self) {
        while self.round() > 0 {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::shard::{Entry, Mode};
    use crate::io::input::Input;
    use crate::testing::Xorshift;
    use std::sync::Arc;

    /// Random acyclic cases (a node moves only to higher ids) as a chess file, with each node's
    /// value and level by the definitions, case after case, in global id order.
    fn game(rng: &mut Xorshift, cases: usize) -> (String, Vec<(u32, u32)>) {
        let (mut text, mut expected) = (String::new(), Vec::new());
        for _ in 0..cases {
            let n = 1 + rng.below(300) as usize;
            let lists: Vec<Vec<usize>> = (0..n)
                .map(|v| {
                    let degree = if v + 1 == n { 0 } else { rng.below(4) };
                    (0..degree).map(|_| v + 1 + rng.below((n - v - 1) as u64) as usize).collect()
                })
                .collect();
            let mut values = vec![(0u32, 0u32); n];
            for v in (0..n).rev() {
                let value = (0..).find(|x| lists[v].iter().all(|&s| values[s].0 != *x)).unwrap();
                let level = lists[v].iter().map(|&s| values[s].1 + 1).max().unwrap_or(0);
                values[v] = (value, level);
            }
            text += &format!("{n}\n");
            for list in &lists {
                let ids: Vec<String> = list.iter().map(|s| s.to_string()).collect();
                text += &format!("{} {}\n", list.len(), ids.join(" "));
            }
            text += "1 0\n0\n";
            expected.extend(values);
        }
        (text, expected)
    }

    #[test]
    fn settled_values_and_levels_are_the_definitions_whatever_the_workers() {
        let mut rng = Xorshift::new(0x005e_771e);
        for workers in [1, 2, 3] {
            let (text, expected) = game(&mut rng, 4);
            let input = Arc::new(Input::from_bytes("t.txt", text.into_bytes()));
            let results = crate::cluster::bsp::on_workers(workers, move |bsp| {
                let mut read = crate::cluster::read_shard(bsp, &input, Entry::start(Mode::Cases))
                    .expect("a valid input");
                let first = read.shard.first;
                let settled = settle(bsp, &mut read.shard, &read.owners, &read.source);
                let (values, levels) = settled.expect("no cycle");
                (first, values.into_iter().zip(levels).collect::<Vec<_>>())
            });
            let mut all: Vec<(u64, Vec<(u32, u32)>)> = results;
            all.sort_unstable_by_key(|r| r.0);
            let got: Vec<(u32, u32)> = all.into_iter().flat_map(|r| r.1).collect();
            assert_eq!(got, expected, "{workers} workers");
        }
    }

    #[test]
    fn a_cycle_leaves_nodes_open_on_every_worker() {
        let text = "4\n1 1\n1 2\n1 1\n0\n0\n";
        let input = Arc::new(Input::from_bytes("c.txt", text.as_bytes().to_vec()));
        let results = crate::cluster::bsp::on_workers(2, move |bsp| {
            let mut read = crate::cluster::read_shard(bsp, &input, Entry::start(Mode::Cases))
                .expect("a well-formed input");
            settle(bsp, &mut read.shard, &read.owners, &read.source).is_none()
        });
        assert_eq!(results, vec![true, true]);
    }
}
