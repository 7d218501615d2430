//! Pointer jumping: chains of nodes with one open move settle in a logarithmic number of
//! rounds instead of one round per node.
//!
//! Settling by messages costs a round wherever a path crosses workers, so a long thin path
//! (a shuffled million-node chain crosses workers at every other step) would take a round per
//! node. A node whose moves are all settled but one, `x`, has a value that is a function of
//! `x`'s: with `S` the values it knows, `g = mex(S ∪ {g(x)})` is `b` if `g(x) == a` and `c`
//! otherwise (`a = c = mex(S)`, `b = mex(S ∪ {a})`), and its level is `max(k, level(x) + d)`.
//! Such functions compose into functions of the same form ([`Link`]), so each of these nodes
//! repeatedly takes over its target's link and target (Wyllie's list ranking): after `log2`
//! of the longest chain rounds, every one points either at a settled node, which settles it at
//! once, or at a node with two or more open moves, which it asks to tell it the value when it
//! settles (a subscription), so the whole chain settles one round after that node does.
//!
//! A phase costs 2 rounds per doubling and touches only the nodes with one open move; the
//! settling loop starts one only when its rounds move few nodes (see `settle`). Paths whose
//! nodes keep two or more open moves (ladders, interleaved chains) gain nothing: game values
//! are P-complete to compute in general, and such shapes stay a round per crossing.

use super::bsp::Bsp;
use super::link::{Link, Probe};
use super::shard::Source;
use super::state::{Owners, State};
use super::Msg;
use crate::io::memory::prefetch;

/// The owned nodes with one open move (indices), and their out-positions (global ids), read
/// again from `source` a window at a time.
/// `lists[ends[k - 1]..ends[k]]` (from 0 for `k = 0`) are the out-positions of `nodes[k]`.
fn one_open(first: u64, source: &Source, state: &State) -> (Vec<usize>, Vec<usize>, Vec<u64>) {
    let (mut nodes, mut ends, mut lists) = (Vec::new(), Vec::new(), Vec::new());
    source.windows(|piece| {
        for j in 0..piece.nodes() {
            let i = (piece.first - first) as usize + j;
            if state.pending[i] == 1 && !state.is_waiting(i) {
                nodes.push(i);
                lists.extend(piece.successors(j));
                ends.push(lists.len());
            }
        }
    });
    (nodes, ends, lists)
}

/// A node with one open move, during a phase.
#[derive(Clone, Copy)]
struct Linked {
    node: usize,
    link: Link,
    next: u64,
    active: bool,
}

/// One phase: every open node with one open move is linked, the links jump until they reach a
/// settled node (settling theirs) or a node with more open moves (subscribing to it). Nodes
/// settled here are pushed on `state`'s ready list; subscriptions are added to `state`.
/// The shard's out-positions were dropped: those of the candidates (owned nodes with one open
/// move) are read again from `source`.
pub(super) fn phase(
    bsp: &mut Bsp<Msg>,
    (first, source): (u64, &Source),
    owners: &Owners,
    state: &mut State,
) {
    let (candidates, ends, lists) = one_open(first, source, state);
    let mut asks = vec![Vec::new(); bsp.peers()];
    for &s in &lists {
        asks[owners.of(s)].push(s);
    }
    let told = probe(bsp, first, asks, |i| state.probe(i, None));
    let mut cursor = vec![0usize; bsp.peers()];
    let mut links = Vec::new();
    for (k, &i) in candidates.iter().enumerate() {
        let (mut known, mut open) = (Vec::new(), Vec::new());
        let from = if k == 0 { 0 } else { ends[k - 1] };
        for &s in &lists[from..ends[k]] {
            let w = owners.of(s);
            match told[w][cursor[w]] {
                Probe::Settled(v, l) => known.push((v, l)),
                _ => open.push(s),
            }
            cursor[w] += 1;
        }
        match open[..] {
            [] => {
                let (value, level) = Link::of(&known).settled();
                state.settle(i, value, level);
            }
            [next] => links.push(Linked { node: i, link: Link::of(&known), next, active: true }),
            _ => {}
        }
    }
    jump(bsp, owners, state, first, &mut links);
    subscribe(bsp, owners, state, first, &links);
}

/// Wyllie rounds: every active link takes over its target's until none is active (or after 64
/// doublings, which only a cycle can need; its nodes then stay open and are reported).
fn jump(bsp: &mut Bsp<Msg>, owners: &Owners, state: &mut State, first: u64, links: &mut [Linked]) {
    let mut index = vec![u32::MAX; state.pending.len()];
    for (k, l) in links.iter().enumerate() {
        index[l.node] = k as u32;
    }
    for _ in 0..64 {
        chase_local(bsp.index(), owners, state, first, (links, &index));
        let mut asks = vec![Vec::new(); bsp.peers()];
        let mut active = 0u64;
        for l in links.iter().filter(|l| l.active) {
            asks[owners.of(l.next)].push(l.next);
            active += 1;
        }
        if !any(bsp, active) {
            return;
        }
        let told = probe(bsp, first, asks, |i| {
            let link = links.get(index[i] as usize).map(|l| (l.link, l.next));
            state.probe(i, link)
        });
        let mut cursor = vec![0usize; bsp.peers()];
        for l in links.iter_mut().filter(|l| l.active) {
            let w = owners.of(l.next);
            match told[w][cursor[w]] {
                Probe::Settled(v, lv) => {
                    let (value, level) = l.link.apply((v, lv));
                    state.settle(l.node, value, level);
                    l.active = false;
                }
                Probe::Linked(inner, next) => {
                    l.link = l.link.after(&inner);
                    l.next = next;
                }
                Probe::Open => l.active = false,
            }
            cursor[w] += 1;
        }
    }
}

/// Links followed on this worker per active link and round once its local targets are done
/// (more only around a cycle of links, which this bounds).
const LOCAL_STEPS: usize = 64;

/// Takes every active link as far as it goes through this worker's own nodes, before a round
/// asks the owners of the rest: a target owned here is looked up, not asked, and a settled or
/// open one ends the link at once. A shuffled chain on `P` workers runs through about `P / (P -
/// 1)` nodes of one worker in a row, which a round would otherwise take one at a time.
///
/// Each link is taken once: a link whose target is another active link here is taken after
/// that one (a walk down the targets, then back up), so it composes with the target's link
/// already taken as far as it goes, and one step is all it needs. Following every link as far
/// as it goes on its own instead costs a step per node passed: on a shuffled million-node
/// chain, 64 steps a link in the round after the first probe, 0.38 s of a 0.75 s run.
///
/// Links compose whatever the order they are taken in (each keeps a node's value a function
/// of its target's), so following a link updated in this same round is as right as following
/// last round's; a cycle of links is cut where the walk meets its own path.
fn chase_local(
    me: usize,
    owners: &Owners,
    state: &mut State,
    first: u64,
    (links, index): (&mut [Linked], &[u32]),
) {
    const NEW: u8 = 0;
    const WALKED: u8 = 1;
    const TAKEN: u8 = 2;
    // Each active link's target as a link here, if it is one (independent lookups first,
    // so that the walks, one dependent step after another, touch 5 bytes a link).
    let local = |l: &Linked| match l.active && owners.of(l.next) == me {
        true => index[(l.next - first) as usize],
        false => u32::MAX,
    };
    let targets: Vec<u32> = links.iter().map(local).collect();
    let mut mark = vec![NEW; links.len()];
    let mut path = Vec::new();
    for k in 0..links.len() {
        let mut j = k;
        while mark[j] == NEW {
            mark[j] = WALKED;
            path.push(j);
            match targets[j] as usize {
                t if t < links.len() => j = t,
                _ => break,
            }
        }
        // The links are taken last walked first; their reads, random but known, are hinted
        // ahead: a link two stretches on, its target's index and pending count one on.
        while let Some(j) = path.pop() {
            let ahead = |d: usize| path.len().checked_sub(d).map(|i| path[i]);
            if let Some(far) = ahead(2 * AHEAD) {
                prefetch(links, far);
            }
            if let Some(near) = ahead(AHEAD) {
                let target = (links[near].next.wrapping_sub(first)) as usize;
                prefetch(index, target);
                prefetch(&state.pending, target);
            }
            take(me, owners, state, first, (links, index), j);
            mark[j] = TAKEN;
        }
    }
}

/// How far ahead [`chase_local`] hints its reads, in links.
const AHEAD: usize = 8;

/// Takes link `k` through this worker's own nodes, as far as their links (taken this round or
/// not) reach: at most [`LOCAL_STEPS`] steps.
fn take(
    me: usize,
    owners: &Owners,
    state: &mut State,
    first: u64,
    (links, index): (&mut [Linked], &[u32]),
    k: usize,
) {
    for _ in 0..LOCAL_STEPS {
        let l = links[k];
        if !l.active || owners.of(l.next) != me {
            return;
        }
        let target = (l.next - first) as usize;
        let linked = links.get(index[target] as usize).map(|t| (t.link, t.next));
        match state.probe(target, linked) {
            Probe::Settled(v, lv) => {
                let (value, level) = l.link.apply((v, lv));
                state.settle(l.node, value, level);
                links[k].active = false;
            }
            Probe::Linked(inner, next) => {
                links[k].link = l.link.after(&inner);
                links[k].next = next;
            }
            Probe::Open => links[k].active = false,
        }
    }
}

/// Whether any worker has `count` above zero.
fn any(bsp: &mut Bsp<Msg>, count: u64) -> bool {
    bsp.all_gather(Msg::Count(count)).iter().any(|m| matches!(m, Msg::Count(c) if *c > 0))
}

/// Asks the owners of the ids in `asks[w]` what they are (`answer` of an owned node's index);
/// the answers in the same order.
fn probe(
    bsp: &mut Bsp<Msg>,
    first: u64,
    asks: Vec<Vec<u64>>,
    answer: impl Fn(usize) -> Probe,
) -> Vec<Vec<Probe>> {
    let me = bsp.index();
    let out = asks.into_iter().enumerate().filter(|(_, a)| !a.is_empty());
    let received =
        bsp.exchange(out.map(|(w, gids)| (w, Msg::Probe { from: me, gids })).collect::<Vec<_>>());
    let replies = received.into_iter().filter_map(|m| match m {
        Msg::Probe { from, gids } => {
            let probes = gids.into_iter().map(|g| answer((g - first) as usize)).collect();
            Some((from, Msg::Probed { from: me, probes }))
        }
        _ => None,
    });
    let mut told = vec![Vec::new(); bsp.peers()];
    for message in bsp.exchange(replies.collect::<Vec<_>>()) {
        if let Msg::Probed { from, probes } = message {
            told[from] = probes;
        }
    }
    told
}

/// Every link still open (and done jumping) points at a node with two or more open moves: its
/// owner keeps the link, to settle the linked node as soon as its own value is known. (Links
/// still jumping after 64 doublings lie on a cycle: they stay open, and the cycle is reported.)
fn subscribe(bsp: &mut Bsp<Msg>, owners: &Owners, state: &mut State, first: u64, links: &[Linked]) {
    let mut out = vec![Vec::new(); bsp.peers()];
    for l in links.iter().filter(|l| !l.active) {
        if state.pending[l.node] > 0 {
            out[owners.of(l.next)].push((l.next, first + l.node as u64, l.link));
            state.wait(l.node);
        }
    }
    let out = out.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
    for message in bsp.exchange(out.map(|(w, o)| (w, Msg::Subscribe(o))).collect::<Vec<_>>()) {
        if let Msg::Subscribe(subs) = message {
            for (target, node, link) in subs {
                state.subscribe((target - first) as usize, node, link);
            }
        }
    }
}
