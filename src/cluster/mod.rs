//! The cluster backend: one evaluation across processes and machines, on timely-dataflow.
//!
//! Every process runs the same command with its place in the cluster ([`net::Peers`]); the
//! processes connect ([`net`]), watch each other's heartbeats, and run as bulk-synchronous
//! rounds of messages over timely ([`bsp`]): each worker reads its share of the file
//! ([`shard`]: tokens, then the nodes and queries whose records start in its byte range),
//! the edges go to their targets' owners, and values settle by messages ([`settle`]). Process
//! 0 alone writes the output, gathering rows worker by worker, in node order.
//!
//! An input error or a cycle anywhere makes process 0 answer the whole input alone with the
//! single-process engine ([`Run::Alone`]), so messages and the answers before them are exactly
//! the single-process ones; the other processes then exit with code 1 and print nothing.
//!
//! What runs here so far: `values`, `solve` (with `--report`) and `query` of chess-format
//! files. Deep thin graphs pay a round per level that crosses workers (no pointer jumping
//! yet), and a worker's output is formatted whole before it goes to process 0.

pub mod answer;
pub mod bsp;
pub mod jump;
pub mod net;
pub mod settle;
pub mod shard;

use std::net::TcpListener;
use std::sync::{mpsc, Arc};

use serde::{Deserialize, Serialize};
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::initialize::Hooks;

use crate::error::Error;
use crate::io::input::Input;
use crate::report::Rows;
use bsp::Bsp;
use net::Peers;
use shard::{CaseHead, Entry, Mode, Shard};

/// What workers send each other.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Msg {
    /// The walk's state at the start of the next worker's range.
    Entry(Entry),
    /// A worker's owned ids, its cases, and whether it found an input error.
    Summary {
        /// The worker.
        worker: usize,
        /// First owned global id.
        first: u64,
        /// Number of owned nodes.
        count: u64,
        /// Cases opening in its range.
        cases: Vec<CaseHead>,
        /// An input error was found.
        error: bool,
    },
    /// Edges `(target, source)` for the target's owner.
    Edges(Vec<(u64, u64)>),
    /// Settled out-positions `(node, value, level)` for the node's owner.
    Settle(Vec<(u64, u32, u32)>),
    /// Nodes settled through links `(node, value, level)`, for the node's owner.
    Resolved(Vec<(u64, u32, u32)>),
    /// What a worker sent this round, and how many of its nodes are open.
    Tally {
        /// Messages sent.
        sent: u64,
        /// Open nodes.
        open: u64,
    },
    /// A count every worker tells every worker.
    Count(u64),
    /// What are these owned ids (settled, linked, open), please.
    Probe {
        /// Who asks.
        from: usize,
        /// Global ids, owned by the receiver.
        gids: Vec<u64>,
    },
    /// The answers to a probe, in the order asked.
    Probed {
        /// Who answers.
        from: usize,
        /// The answers.
        probes: Vec<jump::Probe>,
    },
    /// Links `(target, node, link)`: settle `node` as `link` of `target`'s value (target owned
    /// by the receiver).
    Subscribe(Vec<(u64, u64, jump::Link)>),
    /// A yes or no every worker tells every worker.
    Flag(bool),
    /// The values of these owned ids, please.
    Ask {
        /// Who asks.
        from: usize,
        /// Global ids, owned by the receiver.
        gids: Vec<u64>,
    },
    /// The values asked for, in the order asked.
    Tell {
        /// Who tells.
        from: usize,
        /// The values.
        values: Vec<u32>,
    },
    /// For each `(token, want)`: the token's first out-position of value `want`, please.
    MoveAsk {
        /// Who asks.
        from: usize,
        /// Tokens owned by the receiver, and the values they must move to.
        items: Vec<(u64, u32)>,
    },
    /// The out-positions asked for, in the order asked.
    MoveTell {
        /// Who tells.
        from: usize,
        /// Global ids.
        targets: Vec<u64>,
    },
    /// Output bytes for process 0, of stream 0 (stdout, or `-o`) or 1 (the report).
    Bytes(u8, Vec<u8>),
}

/// What a cluster run computes, and on which inputs.
#[derive(Clone)]
pub enum Job {
    /// `values`: rows of every node (stream 0).
    Values(Arc<Input>),
    /// `solve`: judge lines (stream 0), and report rows (stream 1) if `report`.
    Solve {
        /// The game file.
        input: Arc<Input>,
        /// Whether report rows are wanted.
        report: bool,
    },
    /// `query`: rows of every query of `queries` against the first case of `graph` (stream 0).
    Query {
        /// The graph file.
        graph: Arc<Input>,
        /// The file of queries.
        queries: Arc<Input>,
    },
}

/// How a cluster run ended for this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// The output was written (by process 0).
    Done,
    /// The input has an error or a cycle: process 0 must answer it alone, with the
    /// single-process engine, to give exactly its output and message; the others exit 1.
    Alone,
}

/// Where process 0's output goes: `write(stream, bytes)`.
pub type Write<'a> = &'a mut dyn FnMut(u8, &[u8]) -> Result<(), Error>;

/// Runs `job` on this process's part of the cluster; process 0 gets the output through
/// `write(stream, bytes)`, in order (stream 0: stdout or `-o`; 1: the report).
pub fn run(
    job: Job,
    peers: &Peers,
    listener: Option<TcpListener>,
    write: Write,
) -> Result<Run, Error> {
    let mesh = net::connect(peers, listener)?;
    net::report_lost_peers(peers);
    let watch = net::watch(peers, mesh.beats);
    let hooks = Hooks::default();
    let workers = peers.workers;
    let local =
        ProcessBuilder::new_typed_vector(workers, hooks.refill.clone(), hooks.spill.clone());
    let failed = |e: String| Error::Cluster { message: format!("cannot start the cluster: {e}") };
    let (builders, guard) = timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets(
        local,
        mesh.data,
        peers.index,
        workers,
        hooks,
    )
    .map_err(|e| failed(e.to_string()))?;
    let builders = builders.into_iter().map(AllocatorBuilder::Tcp).collect();
    let (send, receive) = mpsc::channel::<(u8, Vec<u8>)>();
    let send = std::sync::Mutex::new(send);
    let guards = timely::execute::execute_from(
        builders,
        Box::new(guard),
        Default::default(),
        move |worker| {
            let send = send.lock().map(|s| s.clone());
            let Ok(send) = send else { return Run::Alone };
            let mut bsp = Bsp::new(worker);
            work(&mut bsp, &job, &send)
        },
    )
    .map_err(failed)?;
    let mut written = Ok(());
    for (stream, bytes) in receive {
        if written.is_ok() {
            written = write(stream, &bytes);
        }
    }
    let outcomes: Vec<Run> = guards.join().into_iter().map(|r| r.unwrap_or(Run::Alone)).collect();
    watch.goodbye();
    written?;
    Ok(if outcomes.contains(&Run::Alone) { Run::Alone } else { Run::Done })
}

/// One worker's part of `job`.
fn work(bsp: &mut Bsp<Msg>, job: &Job, send: &mpsc::Sender<(u8, Vec<u8>)>) -> Run {
    let (input, mode) = match job {
        Job::Values(input) | Job::Solve { input, .. } => (input, Mode::Cases),
        Job::Query { graph, .. } => (graph, Mode::FirstGraph),
    };
    let Some((shard, owners, cases)) = read_shard(bsp, input.bytes(), Entry::start(), mode) else {
        return Run::Alone;
    };
    if matches!(job, Job::Query { .. }) && cases.is_empty() {
        // No graph to query: process 0 alone says so.
        return Run::Alone;
    }
    let Some((values, levels)) = settle::settle(bsp, &shard, &owners) else { return Run::Alone };
    let graph = answer::Graph { shard: &shard, owners: &owners, values: &values, cases: &cases };
    let (main, report) = match job {
        Job::Values(_) => (value_rows(&shard, &cases, &values, &levels), Vec::new()),
        Job::Solve { report, .. } => {
            let rows = if *report { answer::Rows::WithCase } else { answer::Rows::None };
            let answers = answer::answer(bsp, &shard, &graph, rows);
            (answers.lines, answers.rows)
        }
        Job::Query { queries, .. } => {
            let entry = Entry::queries(cases[0].nodes);
            let Some((mine, _, _)) = read_shard(bsp, queries.bytes(), entry, Mode::Queries) else {
                return Run::Alone;
            };
            let answers = answer::answer(bsp, &mine, &graph, answer::Rows::WithoutCase);
            (answers.rows, Vec::new())
        }
    };
    gather(bsp, send, main, report);
    Run::Done
}

/// Every worker's output goes to worker 0 one worker at a time, in worker order (the order of
/// the file), and from there to the process's writer.
fn gather(bsp: &mut Bsp<Msg>, send: &mpsc::Sender<(u8, Vec<u8>)>, main: Vec<u8>, report: Vec<u8>) {
    let (me, peers) = (bsp.index(), bsp.peers());
    let mut mine = Some((main, report));
    for turn in 0..peers {
        let mut out = Vec::new();
        if turn == me {
            if let Some((main, report)) = mine.take() {
                out.push((0, Msg::Bytes(0, main)));
                out.push((0, Msg::Bytes(1, report)));
            }
        }
        let mut received = bsp.exchange(out);
        received.sort_by_key(|m| if let Msg::Bytes(stream, _) = m { *stream } else { 2 });
        for message in received {
            if let Msg::Bytes(stream, bytes) = message {
                if !bytes.is_empty() {
                    let _ = send.send((stream, bytes));
                }
            }
        }
    }
}

/// Reads this worker's shard: tokenizes its range, then walks it when the entry state reaches
/// it (one round per worker, in order). Then every worker learns every other's owned ids and
/// cases; `None` if any worker found an input error.
fn read_shard(
    bsp: &mut Bsp<Msg>,
    bytes: &[u8],
    start_entry: Entry,
    mode: Mode,
) -> Option<(Shard, settle::Owners, Vec<CaseHead>)> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let (start, end) = shard::range(bytes, me, peers);
    let (tokens, bad) = shard::tokenize(bytes, start, end);
    let mut entry = (me == 0).then_some(start_entry);
    let mut mine = Shard::default();
    for turn in 0..peers {
        let mut out = Vec::new();
        if turn == me {
            let entry = entry.unwrap_or(start_entry);
            let (shard, exit) =
                shard::walk(bytes, (end, &tokens, bad), entry, mode, me + 1 == peers);
            mine = shard;
            if me + 1 < peers {
                out.push((me + 1, Msg::Entry(exit)));
            }
        }
        for message in bsp.exchange(out) {
            if let Msg::Entry(e) = message {
                entry = Some(e);
            }
        }
    }
    drop(tokens);
    let summary = Msg::Summary {
        worker: me,
        first: mine.first,
        count: mine.nodes() as u64,
        cases: mine.cases.clone(),
        error: mine.error,
    };
    let (mut spans, mut cases, mut error) = (Vec::new(), Vec::new(), false);
    for message in bsp.all_gather(summary) {
        if let Msg::Summary { worker, first, count, cases: c, error: e } = message {
            spans.push((worker, first, count));
            cases.extend(c);
            error |= e;
        }
    }
    cases.sort_unstable_by_key(|c| c.case);
    (!error).then(|| (mine, settle::Owners::new(spans), cases))
}

/// The `values` rows of a shard's nodes: case, node, grundy, level, out-degree.
fn value_rows(shard: &Shard, cases: &[CaseHead], values: &[u32], levels: &[u32]) -> Vec<u8> {
    let mut rows = Rows::new();
    for i in 0..shard.nodes() {
        let gid = shard.first + i as u64;
        let c = cases.partition_point(|c| c.base + u64::from(c.nodes) <= gid);
        let case = &cases[c];
        let degree = shard.successors(i).len() as u32;
        rows.value_row(case.case, (gid - case.base) as u32, values[i], levels[i], degree);
    }
    rows.into_bytes()
}
