//! An edge list on a cluster: each worker reads the lines that start in its equal share of
//! the bytes (an edge line is a record of its own, so no state passes between workers), the
//! node count comes from everyone's largest id (or `--nodes`), and each edge goes to the owner
//! of its source, which owns an equal interval of the ids. The owner keeps its nodes'
//! out-lists in file order: edges arrive in rounds, one message per sender a round, kept by
//! sender and then sorted by source, stably.
//!
//! Memory per worker: 8 bytes per edge of its share while reading and sending, 8 per edge it
//! receives until its lists are built, then 4 per out-edge and 8 per owned node; the lists
//! stay in memory (a chess file's are read again from the file instead).

use super::bsp::Bsp;
use super::shard::{Shard, Source};
use super::state::Owners;
use super::{Msg, Read};
use crate::io::input::Input;
use crate::parse::edges::{derived_node_count, edges_in, line_start, lists_by_source};

/// Edges sent per worker per round: the memory in flight is bounded by it.
const EDGES_PER_ROUND: usize = 1 << 16;

/// Reads this worker's part of the edge list `input` (`nodes` from `--nodes`, if given);
/// `None` if any worker found an error, which the single-process reader then describes.
pub(super) fn read<'a>(
    bsp: &mut Bsp<Msg>,
    input: &'a Input,
    nodes: Option<u32>,
) -> Option<Read<'a>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let bytes = input.bytes();
    let cut =
        |w: usize| line_start(bytes, (bytes.len() as u128 * w as u128 / peers as u128) as usize);
    let (start, end) = (cut(me), cut(me + 1));
    let mine = edges_in(bytes, start, end, nodes);
    input.release(start, end);
    let largest = mine.as_ref().and_then(|e| e.iter().map(|&(u, v)| u.max(v)).max());
    let count = mine.as_ref().map_or(0, |e| e.len() as u64);
    let stats = Msg::EdgeStats { worker: me, largest, edges: count, error: mine.is_none() };
    let (mut all, mut counts, mut error) = (None, vec![0u64; peers], false);
    for message in bsp.all_gather(stats) {
        if let Msg::EdgeStats { worker, largest, edges, error: e } = message {
            all = all.max(largest);
            counts[worker] = edges;
            error |= e;
        }
    }
    let n = match nodes {
        Some(n) => Some(n),
        None => derived_node_count(all, counts.iter().sum()),
    };
    let (Some(n), false) = (n, error) else { return None };
    let spans: Vec<(usize, u64, u64)> = (0..peers)
        .map(|w| {
            let first = u64::from(n) * w as u64 / peers as u64;
            (w, first, u64::from(n) * (w as u64 + 1) / peers as u64 - first)
        })
        .collect();
    let owners = Owners::new(spans.clone());
    let (first, owned) = (spans[me].1, spans[me].2 as usize);
    let received = exchange(bsp, mine.unwrap_or_default(), &owners, &counts);
    let lists = lists_of(first, owned, received);
    // Worker 0 opens the one case, so that every worker learns it once.
    let case = (me == 0).then_some(n);
    let shard = Shard::of_lists(first, lists.0, lists.1, case);
    super::gather(bsp, shard, Source::Kept(Default::default()))
}

/// Sends every edge of `mine` to the owner of its source, in rounds of at most
/// [`EDGES_PER_ROUND`] per worker (as many rounds as the largest share needs, `counts` being
/// every worker's); the edges received, by sender, each sender's in its file order.
fn exchange(
    bsp: &mut Bsp<Msg>,
    mine: Vec<(u32, u32)>,
    owners: &Owners,
    counts: &[u64],
) -> Vec<Vec<(u32, u32)>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let most = counts.iter().copied().max().unwrap_or(0) as usize;
    let mut received = vec![Vec::new(); peers];
    for round in 0..most.div_ceil(EDGES_PER_ROUND) {
        let from = (round * EDGES_PER_ROUND).min(mine.len());
        let to = (from + EDGES_PER_ROUND).min(mine.len());
        let mut out = vec![Vec::new(); peers];
        for &(u, v) in &mine[from..to] {
            out[owners.of(u64::from(u))].push((u, v));
        }
        let messages = out.into_iter().enumerate().filter(|(_, o)| !o.is_empty());
        let messages = messages.map(|(w, edges)| (w, Msg::Lists { from: me, edges }));
        for message in bsp.exchange(messages.collect::<Vec<_>>()) {
            if let Msg::Lists { from, edges } = message {
                received[from].extend(edges);
            }
        }
    }
    received
}

/// The out-lists of the `owned` nodes from `first` on: offsets and targets, each node's
/// targets in the order received (senders in worker order: file order), by the edge list's
/// own stable counting sort.
fn lists_of(first: u64, owned: usize, received: Vec<Vec<(u32, u32)>>) -> (Vec<u64>, Vec<u32>) {
    let edges = received.iter().map(Vec::len).sum();
    let (mut from, mut to) = (Vec::with_capacity(edges), Vec::with_capacity(edges));
    for (u, v) in received.into_iter().flatten() {
        from.push((u64::from(u) - first) as u32);
        to.push(v);
    }
    lists_by_source::<u64>(owned as u32, from, to).into_parts()
}
