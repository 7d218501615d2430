//! Where each worker's share of a file lies: byte ranges that cut the file at record headers
//! into pieces of about equal [`shard::weight`] (memory), not of equal bytes.
//!
//! Equal bytes are not equal work: a game file's queries fill its end, so the worker that
//! reads the first half would own most of the nodes and edges. Every worker first tokenizes
//! its equal byte range, and the entry states go worker to worker by hops as in [`shard`],
//! each worker adding up the weight of the records whose headers it holds. With every total
//! known, the worker holding the header where the running weight first reaches `k/P` of the
//! whole names cut `k`: its byte and the state a walk starting there starts from. The tokens
//! are then dropped, and each worker tokenizes its balanced range afresh (a second read of
//! the file, about a tenth of the time the cluster spends on it).

use serde::{Deserialize, Serialize};

use super::bsp::Bsp;
use super::shard::{self, Entry, Tokens};
use super::Msg;
use crate::io::input::Input;

/// A point where a worker's range may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    /// The cut's number `k` (worker `k` starts there).
    pub k: usize,
    /// The byte where the record's header starts.
    pub byte: usize,
    /// The state a walk starting there starts from.
    pub entry: Entry,
}

/// This worker's balanced range of `input`, `(start, end, entry)`: from `start` (a record
/// header, or the file's start) to `end`, walked from `entry`. `first` is the state at the
/// file's start.
pub fn balanced(bsp: &mut Bsp<Msg>, input: &Input, first: Entry) -> (usize, usize, Entry) {
    let (me, peers) = (bsp.index(), bsp.peers());
    let bytes = input.bytes();
    if peers == 1 {
        return (0, bytes.len(), first);
    }
    let (start, end) = shard::range(bytes, me, peers);
    let read = shard::tokenize(bytes, start, end, |a, b| input.release(a, b));
    // The entry states go worker to worker; the weights to everyone.
    let mut entry = first;
    let mut exit = first;
    let mut weight = 0;
    for turn in 0..peers {
        let mut out = Vec::new();
        if turn == me {
            exit = shard::hop(&read.tokens, entry, |_, _, w| weight += w);
            if me + 1 < peers {
                out.push((me + 1, Msg::Entry(exit)));
            }
        }
        for message in bsp.exchange(out) {
            if let Msg::Entry(e) = message {
                entry = e;
            }
        }
    }
    let mut weights = vec![0; peers];
    for message in bsp.all_gather(Msg::Weight(me, weight)) {
        if let Msg::Weight(worker, w) = message {
            weights[worker] = w;
        }
    }
    let mine = my_cuts(bytes, &read, (entry, exit), (&weights, me));
    drop(read);
    let mut gathered = Vec::new();
    for message in bsp.all_gather(Msg::Cuts(me, mine)) {
        if let Msg::Cuts(worker, found) = message {
            gathered.extend(found.into_iter().map(|cut| (worker, cut)));
        }
    }
    let cuts = pick(gathered, peers);
    range_of(me, &cuts, first, bytes.len())
}

/// This worker's candidates for the cuts, given its tokens `read`, the states at its range's
/// start and end, and every worker's weight: the headers in its range that first reach each
/// `k/P` of the weight; the last worker also puts the cuts that no header reaches at the end.
fn my_cuts(
    bytes: &[u8],
    read: &Tokens,
    (entry, exit): (Entry, Entry),
    (weights, me): (&[u64], usize),
) -> Vec<Cut> {
    let peers = weights.len();
    let before: u64 = weights[..me].iter().sum();
    let total: u64 = weights.iter().sum();
    let mut mine = candidates(&read.tokens, entry, (before, total, peers));
    for cut in &mut mine {
        cut.byte = read.byte_of(bytes, cut.byte);
    }
    if me + 1 == peers {
        let found: Vec<usize> = mine.iter().map(|c| c.k).collect();
        let missing = (1..peers).filter(|k| !found.contains(k));
        mine.extend(missing.map(|k| Cut { k, byte: bytes.len(), entry: exit }));
    }
    mine
}

/// Cut `k` of `peers` (1 to `peers - 1`) from every worker's candidates `(worker, cut)`: the
/// earliest worker's, whose header is the first to reach the weight.
fn pick(candidates: Vec<(usize, Cut)>, peers: usize) -> Vec<Option<Cut>> {
    let mut cuts: Vec<Option<(usize, Cut)>> = vec![None; peers];
    for (worker, cut) in candidates {
        if cut.k < peers && cuts[cut.k].is_none_or(|(w, _)| worker < w) {
            cuts[cut.k] = Some((worker, cut));
        }
    }
    cuts.into_iter().map(|c| c.map(|(_, cut)| cut)).collect()
}

/// Worker `me`'s range `(start, end, entry)` between `cuts` (indexed by `k`; `None` at 0), in
/// a file of `len` bytes whose walk starts from `first`.
fn range_of(me: usize, cuts: &[Option<Cut>], first: Entry, len: usize) -> (usize, usize, Entry) {
    let (start, entry) = cuts[me].map_or((0, first), |c| (c.byte, c.entry));
    let end = cuts.get(me + 1).copied().flatten().map_or(len, |c| c.byte);
    (start, end, entry)
}

/// The cuts `k` (1 to `peers - 1`) whose first header reaching the weight `k/peers` of
/// `total` lies in `tokens` (walked from `entry`, after `before` of the weight), with the
/// header's token index in place of its byte.
fn candidates(tokens: &[u32], entry: Entry, (before, total, peers): (u64, u64, usize)) -> Vec<Cut> {
    let mut found = Vec::new();
    let mut sum = before;
    let mut k = 1;
    // Cut `k` is at the first header with `sum * peers >= k * total`. A cut this range's first
    // header reaches may lie in an earlier range: the earliest worker's is taken.
    shard::hop(tokens, entry, |index, state, weight| {
        // A sums node's moves belong with it: no cut between them.
        let inside = matches!(state.walk.next, crate::parse::walk::Next::Move { .. });
        while !inside
            && k < peers
            && u128::from(sum) * peers as u128 >= k as u128 * u128::from(total)
        {
            found.push(Cut { k, byte: index, entry: state });
            k += 1;
        }
        sum += weight;
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::shard::Mode;

    /// Every worker's balanced range of `text`, the messages of `balanced` passed by hand.
    fn ranges(text: &[u8], peers: usize) -> Vec<(usize, usize, Entry)> {
        let reads: Vec<Tokens> = (0..peers)
            .map(|w| {
                let (start, end) = shard::range(text, w, peers);
                shard::tokenize(text, start, end, |_, _| {})
            })
            .collect();
        let (mut states, mut weights) = (vec![Entry::start(Mode::Cases)], Vec::new());
        for read in &reads {
            let mut weight = 0;
            let exit = shard::hop(&read.tokens, states[states.len() - 1], |_, _, w| weight += w);
            states.push(exit);
            weights.push(weight);
        }
        let mut all = Vec::new();
        for (w, read) in reads.iter().enumerate() {
            let cuts = my_cuts(text, read, (states[w], states[w + 1]), (&weights, w));
            all.extend(cuts.into_iter().map(|c| (w, c)));
        }
        let cuts = pick(all, peers);
        (0..peers).map(|w| range_of(w, &cuts, Entry::start(Mode::Cases), text.len())).collect()
    }

    /// A random game file: a few cases of random graphs (some acyclic, which does not matter
    /// here), then their queries, from `seed`.
    fn game(seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut text = String::new();
        for _ in 0..1 + next(3) {
            let nodes = 1 + next(30);
            text += &format!("{nodes}\n");
            for _ in 0..nodes {
                let degree = if next(4) == 0 { next(40) } else { next(4) };
                text += &degree.to_string();
                for _ in 0..degree {
                    text += &format!(" {}", next(nodes));
                }
                text += "\n";
            }
            let many = 20 * next(2);
            for _ in 0..next(2 + many) {
                let len = 1 + next(5);
                text += &len.to_string();
                for _ in 0..len {
                    text += &format!(" {}", next(nodes));
                }
                text += "\n";
            }
            text += "0\n";
        }
        text.into_bytes()
    }

    /// Node lists and queries of a walk of `text[start..end]` from `entry`.
    fn records(
        text: &[u8],
        (start, end, entry): (usize, usize, Entry),
        last: bool,
    ) -> Vec<Vec<u64>> {
        let read = shard::tokenize(text, start, end, |_, _| {});
        let (shard, _) = shard::walk(text, (end, &read.tokens, read.bad), entry, last);
        assert!(!shard.error, "{start}..{end} from {entry:?}");
        let nodes = (0..shard.nodes()).map(|i| shard.successors(i).collect());
        let queries = (0..shard.queries()).map(|i| {
            let q = shard.query(i);
            let positions = q.positions.iter().map(|&p| q.base + u64::from(p));
            [q.case, q.number].into_iter().chain(positions).collect()
        });
        nodes.chain(queries).collect()
    }

    /// The weight of the records whose headers lie in `tokens`, walked from `entry`, and the
    /// largest.
    fn weight(tokens: &[u32], entry: Entry) -> (u64, u64) {
        let (mut sum, mut most) = (0, 0);
        shard::hop(tokens, entry, |_, _, w| {
            sum += w;
            most = most.max(w);
        });
        (sum, most)
    }

    #[test]
    fn balanced_ranges_tile_the_file_and_share_the_weight() {
        for seed in 1..200 {
            let text = game(seed);
            let whole = ranges(&text, 1)[0];
            let all = records(&text, whole, true);
            let (total, most) = weight(
                &shard::tokenize(&text, 0, text.len(), |_, _| {}).tokens,
                Entry::start(Mode::Cases),
            );
            for peers in 2..6 {
                let ranges = ranges(&text, peers);
                let mut got = Vec::new();
                let mut at = 0;
                for (w, &(start, end, entry)) in ranges.iter().enumerate() {
                    assert_eq!(start, at, "seed {seed}, worker {w} of {peers}");
                    at = end;
                    got.push(records(&text, (start, end, entry), w + 1 == peers));
                    let tokens = shard::tokenize(&text, start, end, |_, _| {}).tokens;
                    let (share, _) = weight(&tokens, entry);
                    assert!(
                        share <= total / peers as u64 + most,
                        "seed {seed}: {share} of {total}"
                    );
                }
                assert_eq!(at, text.len());
                // Nodes first, then queries, per worker: sort both sides the same way.
                let mut together: Vec<Vec<u64>> = got.concat();
                let mut expected = all.clone();
                together.sort();
                expected.sort();
                assert_eq!(together, expected, "seed {seed}, {peers} workers");
            }
        }
    }
}
