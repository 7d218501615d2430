//! Queries on a cluster: the values of a query's tokens come from their owners, and the
//! winning move of a WIN from the owner of the token that moves, which asks the owners of its
//! out-positions for their values. Every step is a fixed number of rounds that every worker
//! takes part in, with or without queries of its own.

use super::bsp::Bsp;
use super::shard::Shard;
use super::state::Owners;
use super::Msg;
use crate::answer::Outcome;
use crate::report::{push_row, Columns, QueryRow};

/// What a worker's queries come to: judge lines and report rows, in query order.
#[derive(Debug, Default)]
pub struct Answers {
    /// `WIN` / `LOSE` lines.
    pub lines: Vec<u8>,
    /// CSV rows (when asked for).
    pub rows: Vec<u8>,
}

/// The graph every query is answered against: a worker's nodes and their values.
pub struct Graph<'a> {
    /// This worker's nodes.
    pub shard: &'a Shard,
    /// Who owns which node.
    pub owners: &'a Owners,
    /// The values of this worker's nodes.
    pub values: &'a [u32],
}

/// Answers this worker's queries in `range` of `queries` against `graph`; every worker takes
/// part in every round, with an empty range or not.
pub fn answer(
    bsp: &mut Bsp<Msg>,
    queries: &Shard,
    range: std::ops::Range<usize>,
    graph: &Graph,
    rows: Option<&Columns>,
) -> Answers {
    let peers = bsp.peers();
    let owners = graph.owners;
    let (first, count) = (range.start, range.len());
    let tokens = |i: usize| {
        let q = queries.query(first + i);
        q.positions.iter().map(move |&p| q.base + u64::from(p))
    };
    // The values of every token, asked of the tokens' owners in query order.
    let mut asks = vec![Vec::new(); peers];
    for p in (0..count).flat_map(tokens) {
        asks[owners.of(p)].push(p);
    }
    let told = values_of(bsp, graph, asks);
    let mut cursor = vec![0usize; peers];
    let mut value_of = |p: u64| {
        let owner = owners.of(p);
        cursor[owner] += 1;
        told[owner][cursor[owner] - 1]
    };
    let flat: Vec<u32> = (0..count).flat_map(tokens).map(&mut value_of).collect();
    // The values of query i's tokens are the next `positions.len()` of `flat`.
    let mut rest = &flat[..];
    let token_values: Vec<&[u32]> = (0..count)
        .map(|i| {
            let (values, tail) = rest.split_at(queries.query(first + i).positions.len());
            rest = tail;
            values
        })
        .collect();
    let nim_sums: Vec<u32> =
        token_values.iter().map(|values| values.iter().fold(0, |x, &v| x ^ v)).collect();
    let mut answers = Answers::default();
    for &x in &nim_sums {
        answers.lines.extend_from_slice(Outcome::of_nim_sum(x).line());
    }
    let Some(columns) = rows else { return answers };
    // The winning moves: the first token whose value can drop to its value XOR the nim-sum,
    // moved by its owner to its first out-position of that value.
    // Every worker has the same columns (they are part of the run's identity), so all of them
    // skip these rounds together when no column shows the move.
    let mut movers: Vec<Option<(u64, usize, usize)>> = vec![None; count];
    let mut move_asks = vec![Vec::new(); peers];
    for (i, values) in token_values.iter().enumerate().filter(|_| columns.wants_move()) {
        if let Some((k, want)) = crate::answer::mover(values.iter().copied(), nim_sums[i]) {
            let p = tokens(i).nth(k).expect("the token the rule chose");
            let owner = owners.of(p);
            movers[i] = Some((p, owner, move_asks[owner].len()));
            move_asks[owner].push((p, want));
        }
    }
    let moves =
        if columns.wants_move() { winning_moves(bsp, graph, move_asks) } else { Vec::new() };
    let mut to = Vec::new();
    for (i, mover) in movers.into_iter().enumerate() {
        let q = queries.query(first + i);
        let winning = mover.map(|(p, owner, k)| {
            to.clear();
            to.extend(moves[owner].get(k).iter().map(|&t| (t - q.base) as u32));
            (p - q.base) as u32
        });
        let winning = winning.map(|from| (from, &to[..]));
        let (nim_sum, positions) = (nim_sums[i], q.positions);
        let outcome = Outcome::of_nim_sum(nim_sum);
        let row = QueryRow { case: q.case, number: q.number, positions, nim_sum, outcome, winning };
        push_row(&mut answers.rows, columns, &row);
    }
    answers
}

/// The values of the ids in `asks[w]` (owned by worker `w`), in the same order: two rounds.
fn values_of(bsp: &mut Bsp<Msg>, graph: &Graph, asks: Vec<Vec<u64>>) -> Vec<Vec<u32>> {
    let me = bsp.index();
    let out = asks.into_iter().enumerate().filter(|(_, a)| !a.is_empty());
    let received =
        bsp.exchange(out.map(|(w, gids)| (w, Msg::Ask { from: me, gids })).collect::<Vec<_>>());
    let first = graph.shard.first;
    let replies = received.into_iter().filter_map(|m| match m {
        Msg::Ask { from, gids } => {
            let values = gids.iter().map(|&g| graph.values[(g - first) as usize]).collect();
            Some((from, Msg::Tell { from: me, values }))
        }
        _ => None,
    });
    let mut told = vec![Vec::new(); bsp.peers()];
    for message in bsp.exchange(replies.collect::<Vec<_>>()) {
        if let Msg::Tell { from, values } = message {
            told[from] = values;
        }
    }
    told
}

/// The winning moves a worker was told: the out-positions (or parts of sums) of each, in
/// the order asked.
#[derive(Debug, Default)]
struct Told {
    targets: Vec<u64>,
    /// Where each move ends among `targets` (sums format; empty: one target each).
    ends: Vec<u32>,
}

impl Told {
    /// Move `k`'s out-position, or parts.
    fn get(&self, k: usize) -> &[u64] {
        if self.ends.is_empty() {
            return &self.targets[k..=k];
        }
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.targets[start..self.ends[k] as usize]
    }
}

/// For every `(token, want)` asked of worker `w` (its own tokens), the token's first move of
/// value `want`, in the same order: four rounds (the asks, the values of the tokens'
/// out-positions or parts, the answers).
fn winning_moves(bsp: &mut Bsp<Msg>, graph: &Graph, move_asks: Vec<Vec<(u64, u32)>>) -> Vec<Told> {
    let me = bsp.index();
    let out = move_asks.into_iter().enumerate().filter(|(_, a)| !a.is_empty());
    let received = bsp
        .exchange(out.map(|(w, items)| (w, Msg::MoveAsk { from: me, items })).collect::<Vec<_>>());
    let mut requests: Vec<(usize, Vec<(u64, u32)>)> = received
        .into_iter()
        .filter_map(|m| match m {
            Msg::MoveAsk { from, items } => Some((from, items)),
            _ => None,
        })
        .collect();
    requests.sort_unstable_by_key(|(from, _)| *from);
    // The values of every asked token's out-positions (or parts).
    let shard = graph.shard;
    let local = |p: u64| (p - shard.first) as usize;
    let mut asks = vec![Vec::new(); bsp.peers()];
    for (_, items) in &requests {
        for &(p, _) in items {
            for s in shard.successors(local(p)) {
                asks[graph.owners.of(s)].push(s);
            }
        }
    }
    let told = values_of(bsp, graph, asks);
    let mut cursor = vec![0usize; bsp.peers()];
    let mut replies = Vec::new();
    let mut values = Vec::new();
    for (from, items) in requests {
        let mut answer = Told::default();
        for (p, want) in items {
            values.clear();
            for s in shard.successors(local(p)) {
                let owner = graph.owners.of(s);
                values.push(told[owner][cursor[owner]]);
                cursor[owner] += 1;
            }
            // A value is the mex of its moves' values: every smaller value is one of them.
            if shard.is_sums() {
                let ends = shard.move_ends(local(p));
                let of = |m: usize| if m == 0 { 0 } else { ends[m - 1] as usize }..ends[m] as usize;
                let xor = |m: usize| values[of(m)].iter().fold(0, |x, &v| x ^ v);
                let found = (0..ends.len()).find(|&m| xor(m) == want).map_or(0..0, of);
                answer
                    .targets
                    .extend(shard.successors(local(p)).skip(found.start).take(found.len()));
                answer.ends.push(answer.targets.len() as u32);
            } else {
                let found = values.iter().position(|&v| v == want);
                answer
                    .targets
                    .push(found.and_then(|k| shard.successors(local(p)).nth(k)).unwrap_or(p));
            }
        }
        let Told { targets, ends } = answer;
        replies.push((from, Msg::MoveTell { from: me, targets, ends }));
    }
    let mut answers: Vec<Told> = (0..bsp.peers()).map(|_| Told::default()).collect();
    for message in bsp.exchange(replies) {
        if let Msg::MoveTell { from, targets, ends } = message {
            answers[from] = Told { targets, ends };
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::shard::{Entry, Mode};
    use crate::exec::{self, Exec};
    use crate::io::input::Input;
    use crate::parse::format::Format;
    use crate::testing::Xorshift;
    use std::sync::Arc;

    /// A random game file of two cases with many queries, some of repeated tokens.
    fn game(rng: &mut Xorshift) -> String {
        let mut text = String::new();
        for _ in 0..2 {
            let n = 2 + rng.below(200);
            text += &format!("{n}\n");
            for v in 0..n {
                let degree = if v + 1 == n { 0 } else { rng.below(5) };
                let list: Vec<String> =
                    (0..degree).map(|_| (v + 1 + rng.below(n - v - 1)).to_string()).collect();
                text += &format!("{degree} {}\n", list.join(" "));
            }
            for _ in 0..150 {
                let m = 1 + rng.below(4);
                let tokens: Vec<String> = (0..m).map(|_| rng.below(n).to_string()).collect();
                text += &format!("{m} {}\n", tokens.join(" "));
            }
            text += "0\n";
        }
        text
    }

    #[test]
    fn answers_on_workers_are_the_single_process_lines_and_rows() {
        let mut rng = Xorshift::new(0x0a11_50e5);
        for workers in [2, 3] {
            let text = game(&mut rng);
            let input = Arc::new(Input::from_bytes("g.txt", text.into_bytes()));
            let (mut lines, mut report) = (Vec::new(), Vec::new());
            let how = (Exec::Sequential, Format::Chess, false);
            let mut rows = crate::report::Csv::new(&mut report);
            exec::solve(&input, how, &mut lines, Some(&mut rows), &()).unwrap();
            let header = Columns::solve().header();
            let cluster_input = Arc::clone(&input);
            let answered = crate::cluster::bsp::on_workers(workers, move |bsp| {
                let mut read =
                    crate::cluster::read_shard(bsp, &cluster_input, Entry::start(Mode::Cases))
                        .expect("a valid input");
                let settled = crate::cluster::settle::settle(
                    bsp,
                    &mut read.shard,
                    &read.owners,
                    &read.source,
                );
                let (values, _) = settled.expect("no cycle");
                read.source.restore(&mut read.shard);
                let graph = Graph { shard: &read.shard, owners: &read.owners, values: &values };
                let columns = Columns::solve();
                let mine = 0..read.shard.queries();
                // Every worker answers its own queries in the same rounds; and, to check that
                // rows without move columns need no move, its results alone.
                let all = answer(bsp, &read.shard, mine.clone(), &graph, Some(&columns));
                let results = Columns::parse_query("result").unwrap();
                let bare = answer(bsp, &read.shard, mine, &graph, Some(&results));
                (bsp.index(), all, bare)
            });
            let mut answered = answered;
            answered.sort_unstable_by_key(|a| a.0);
            let cat = |f: fn(&(usize, Answers, Answers)) -> &[u8]| -> Vec<u8> {
                answered.iter().flat_map(|a| f(a).to_vec()).collect()
            };
            assert!(cat(|a| &a.1.lines) == lines, "{workers} workers: lines");
            assert!(cat(|a| &a.1.rows) == report[header.len()..], "{workers} workers: rows");
            assert!(cat(|a| &a.2.rows) == lines, "{workers} workers: results alone");
        }
    }
}
