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
//! What runs here so far: `values` of chess-format files. Deep thin graphs pay a round per
//! level that crosses workers (no pointer jumping yet), and the values of all of a worker's
//! nodes are formatted before they go to process 0.

pub mod bsp;
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
use shard::{CaseHead, Entry, Shard};

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
    /// How many settlements a worker sent this round.
    Count(u64),
    /// A yes or no every worker tells every worker.
    Flag(bool),
    /// Output bytes for process 0.
    Bytes(Vec<u8>),
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

/// Runs `grundy values` on this process's part of the cluster: process 0 gets the rows (without
/// the header) through `write`, in node order.
pub fn values(
    input: Arc<Input>,
    peers: &Peers,
    listener: Option<TcpListener>,
    mut write: impl FnMut(&[u8]) -> Result<(), Error>,
) -> Result<Run, Error> {
    run(input, peers, listener, &mut write, values_worker)
}

/// Connects the cluster, runs `work` on every worker, passes worker 0's output to `write`.
fn run(
    input: Arc<Input>,
    peers: &Peers,
    listener: Option<TcpListener>,
    write: &mut dyn FnMut(&[u8]) -> Result<(), Error>,
    work: fn(&mut Bsp<Msg>, &Input, &mpsc::Sender<Vec<u8>>) -> Run,
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
    let (send, receive) = mpsc::channel::<Vec<u8>>();
    let send = std::sync::Mutex::new(send);
    let guards = timely::execute::execute_from(
        builders,
        Box::new(guard),
        Default::default(),
        move |worker| {
            let send = send.lock().map(|s| s.clone());
            let Ok(send) = send else { return Run::Alone };
            let mut bsp = Bsp::new(worker);
            work(&mut bsp, &input, &send)
        },
    )
    .map_err(failed)?;
    let mut written = Ok(());
    for bytes in receive {
        if written.is_ok() {
            written = write(&bytes);
        }
    }
    let outcomes: Vec<Run> = guards.join().into_iter().map(|r| r.unwrap_or(Run::Alone)).collect();
    watch.goodbye();
    written?;
    Ok(if outcomes.contains(&Run::Alone) { Run::Alone } else { Run::Done })
}

/// Reads this worker's shard: tokenizes its range, then walks it when the entry state reaches
/// it (one round per worker, in order). Then every worker learns every other's owned ids and
/// cases; `None` if any worker found an input error.
fn read_shard(bsp: &mut Bsp<Msg>, bytes: &[u8]) -> Option<(Shard, settle::Owners, Vec<CaseHead>)> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let (start, end) = shard::range(bytes, me, peers);
    let (tokens, bad) = shard::tokenize(bytes, start, end);
    let mut entry = (me == 0).then(Entry::start);
    let mut mine = Shard::default();
    for turn in 0..peers {
        let mut out = Vec::new();
        if turn == me {
            let (shard, exit) =
                shard::walk(bytes, end, &tokens, entry.unwrap_or(Entry::start()), me + 1 == peers);
            mine = shard;
            mine.error |= bad;
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

/// `values` on one worker: read, settle, then the rows go to worker 0 one worker at a time.
fn values_worker(bsp: &mut Bsp<Msg>, input: &Input, send: &mpsc::Sender<Vec<u8>>) -> Run {
    let Some((shard, owners, cases)) = read_shard(bsp, input.bytes()) else { return Run::Alone };
    let Some((values, levels)) = settle::settle(bsp, &shard, &owners) else { return Run::Alone };
    let (me, peers) = (bsp.index(), bsp.peers());
    for turn in 0..peers {
        let mut out = Vec::new();
        if turn == me {
            out.push((0, Msg::Bytes(value_rows(&shard, &cases, &values, &levels))));
        }
        for message in bsp.exchange(out) {
            if let Msg::Bytes(bytes) = message {
                let _ = send.send(bytes);
            }
        }
    }
    Run::Done
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
