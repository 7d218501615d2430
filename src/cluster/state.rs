//! What every worker knows of the nodes while values settle: who owns which ids
//! ([`Owners`]), and each owned node's pending moves, the values seen, its value and level
//! once settled, and who waits for it ([`State`]). Settling ([`super::settle`]) and jumping
//! ([`super::jump`]) both work on it.
//!
//! Memory per owned node: 4 bytes of pending count, 8 of values seen (a 64-bit mask; values of
//! 64 and more, possible only for nodes of more than 64 moves, in a map), 8 of value and level.

use std::collections::HashMap;

use std::ops::Range;

use super::link::{Link, Probe};
use super::shard::Shard;
use crate::eval::{node_value, Mex};
use crate::graph::Rule;

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

/// The per-node state of the settling.
pub struct State {
    /// Out-positions whose value has not arrived; 0 once settled.
    pub pending: Vec<u32>,
    /// Values below 64 seen by each node, as a mask.
    seen: Vec<u64>,
    /// Values of 64 and more seen by a node (only a node of more than 64 moves needs them).
    big: HashMap<usize, Vec<u32>>,
    /// Values of settled nodes.
    pub value: Vec<u32>,
    /// Levels of settled nodes.
    pub level: Vec<u32>,
    /// Settled nodes whose predecessors and subscribers have not been told.
    pub ready: Vec<usize>,
    /// Nodes (global ids) to settle, with their links, when an owned node settles: the first
    /// subscriber of each node in the map's own slot (most have one: about 45 bytes each,
    /// where a list per node took 180), the others in `more_subs`.
    subs: HashMap<usize, (u64, Link)>,
    more_subs: HashMap<usize, Vec<(u64, Link)>>,
    /// Owned nodes subscribed to another node's value (a bit each): a jumping phase leaves
    /// them be, so that a node waits on one subscription, not one more per phase.
    waiting: Vec<u64>,
    /// Owned nodes not settled.
    pub open: u64,
    /// Sums format only: the value of each part of each owned node's moves, by slot (a node's
    /// slots start where its parts start in the shard), as they arrive: 4 bytes per part.
    parts: Vec<u32>,
    /// Scratch of the mex of a sums node of 64 moves or more.
    mex: Mex,
}

/// One sums node as a game rule: a move's value is the XOR of its parts' values, so the
/// engine's own mex ([`crate::eval::node_value`]) takes it.
struct Moves<'a> {
    /// Where each move ends among the parts.
    ends: &'a [u32],
    /// The parts' values.
    parts: &'a [u32],
}

impl Rule for Moves<'_> {
    fn node_count(&self) -> usize {
        1
    }

    fn move_count(&self, _: u32) -> usize {
        self.ends.len()
    }

    fn move_values(
        &self,
        _: u32,
        moves: Range<usize>,
        _: &impl Fn(u32) -> u32,
        mut f: impl FnMut(u32),
    ) {
        for m in moves {
            let start = if m == 0 { 0 } else { self.ends[m - 1] as usize };
            f(self.parts[start..self.ends[m] as usize].iter().fold(0, |x, &v| x ^ v));
        }
    }
}

impl State {
    /// Every owned node of `shard` open, its sinks ready.
    pub fn new(shard: &Shard) -> State {
        let n = shard.nodes();
        let pending: Vec<u32> = (0..n).map(|i| shard.degree(i) as u32).collect();
        let ready: Vec<usize> = (0..n).filter(|&i| pending[i] == 0).collect();
        let parts = if shard.is_sums() { vec![0; shard.list_start(n)] } else { Vec::new() };
        let mut state = State {
            open: (n - ready.len()) as u64,
            pending,
            seen: vec![0; if shard.is_sums() { 0 } else { n }],
            big: HashMap::new(),
            value: vec![0; n],
            level: vec![0; n],
            ready,
            subs: HashMap::new(),
            more_subs: HashMap::new(),
            waiting: vec![0; n.div_ceil(64)],
            parts,
            mex: Mex::new(),
        };
        if shard.is_sums() {
            // A node whose moves have no parts (moves to the empty sum) is valued at once.
            for k in 0..state.ready.len() {
                let i = state.ready[k];
                state.value[i] = state.sums_value(shard, i);
            }
        }
        state
    }

    /// Part `slot` of owned node `i`'s moves has settled with `value` at `level` (sums).
    #[inline]
    pub fn deliver_part(&mut self, shard: &Shard, (i, slot): (usize, u32), value: u32, level: u32) {
        if self.pending[i] == 0 {
            return;
        }
        self.parts[shard.list_start(i) + slot as usize] = value;
        self.level[i] = self.level[i].max(level + 1);
        self.pending[i] -= 1;
        if self.pending[i] == 0 {
            self.value[i] = self.sums_value(shard, i);
            self.open -= 1;
            self.ready.push(i);
        }
    }

    /// The value of sums node `i` once its parts' values are in: the mex of its moves' XORs.
    fn sums_value(&mut self, shard: &Shard, i: usize) -> u32 {
        let parts = &self.parts[shard.list_start(i)..shard.list_start(i + 1)];
        let rule = Moves { ends: shard.move_ends(i), parts };
        node_value(&rule, 0, &|_| 0, &mut self.mex)
    }

    /// One out-position of node `i` has settled with `value` at `level` (ignored once `i` has
    /// settled through a link).
    #[inline]
    pub fn deliver(&mut self, i: usize, value: u32, level: u32) {
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
        if let Some(first) = self.subs.insert(i, (node, link)) {
            // Keep the first subscriber in its slot, the rest in order beside it.
            self.subs.insert(i, first);
            self.more_subs.entry(i).or_default().push((node, link));
        }
    }

    /// Owned node `i` waits on a subscription.
    pub fn wait(&mut self, i: usize) {
        self.waiting[i / 64] |= 1 << (i % 64);
    }

    /// Whether owned node `i` waits on a subscription.
    pub fn is_waiting(&self, i: usize) -> bool {
        self.waiting[i / 64] >> (i % 64) & 1 == 1
    }

    /// Takes the nodes subscribed to owned node `i` (global ids, with their links), in the
    /// order they subscribed.
    pub fn take_subscribers(&mut self, i: usize) -> impl Iterator<Item = (u64, Link)> {
        let first = self.subs.remove(&i);
        let more = first.and_then(|_| self.more_subs.remove(&i)).unwrap_or_default();
        first.into_iter().chain(more)
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
