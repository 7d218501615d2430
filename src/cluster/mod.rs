//! The cluster backend: one evaluation across processes and machines, on timely-dataflow.
//!
//! Every process runs the same command with its place in the cluster ([`net::Peers`]); the
//! processes connect ([`net`]), watch each other's heartbeats, and run as bulk-synchronous
//! rounds of messages over timely ([`bsp`]): the file is cut into shares of about equal weight
//! ([`split`]), each worker reads its share ([`shard`]: the nodes and queries whose records lie
//! in it), the edges go to their targets' owners, and values settle by messages ([`settle`]),
//! deep thin paths by pointer jumping ([`jump`]). Process 0 alone writes the output, gathering
//! it worker by worker in bounded pieces, in file order.
//!
//! An input error or a cycle anywhere makes process 0 answer the whole input alone with the
//! single-process engine ([`Run::Alone`]), so messages and the answers before them are exactly
//! the single-process ones; the other processes then exit with code 1 and print nothing.
//!
//! What runs here: `values`, `solve` (with `--report`) and `query` of chess- and sums-format
//! files, and `values` and `query` of edge lists ([`edges`]).

pub mod answer;
pub mod bsp;
pub mod edges;
pub mod handshake;
pub mod identity;
pub mod job;
pub mod jump;
pub mod link;
pub mod msg;
pub mod net;
mod output;
mod read;
pub mod settle;
pub mod shard;
pub mod split;
pub mod state;

pub use job::{Graph, Job};
pub use msg::Msg;

use std::net::TcpListener;
use std::sync::mpsc;

use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::initialize::Hooks;

use crate::error::Error;
use crate::report::Columns;
use bsp::Bsp;
use identity::Claim;
use net::Peers;
use output::{value_rows, Out, Trace, QUERIES_PER_PIECE, ROWS_PER_PIECE};
use read::{gather, read_shard, Read};
use shard::{Entry, Mode};

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
    let claim = Claim::Run(job.identity(peers));
    let mesh = net::connect(peers, listener, &claim)?;
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

/// Tells every peer that this process refused its arguments (`why`, already printed), so that
/// they stop at once with that message instead of waiting for it: the handshakes of a run,
/// with a refusal for a claim, until every peer has been met or the connect deadline passed.
pub fn refuse(peers: &Peers, why: &str) {
    let _ = net::connect(peers, None, &Claim::Refused(why.to_string()));
}

/// Makes large blocks always come from `mmap`, so that a freed one goes back to the system at
/// once. glibc's threshold otherwise rises to the size of the largest block freed, after which
/// blocks of up to that size come from heaps that keep their freed pages: a worker that frees
/// its tokens, its edges and its reverse lists in turn would hold twice its memory. A no-op
/// off glibc.
///
/// # Safety
///
/// No other thread may exist yet: glibc's manual marks `mallopt` MT-Unsafe (it changes the
/// allocator's parameters without the locks other threads' `malloc` calls take). The binary
/// calls it first thing in `main`, before the signal thread and the thread pools start.
pub unsafe fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: the caller guarantees that this is the only thread; 128 KiB is the parameter's
    // default value, so only its dynamic growth is turned off.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

/// One worker's part of `job`.
fn work(bsp: &mut Bsp<Msg>, job: &Job, send: &mpsc::Sender<(u8, Vec<u8>)>) -> Run {
    let (input, mode, format) = match job {
        Job::Values(input, format) => (input, Mode::Cases, *format),
        Job::Solve { input, format, .. } => (input, Mode::Cases, *format),
        Job::Query { graph, format, .. } => (graph, Mode::FirstGraph, *format),
    };
    let trace = Trace::new(bsp.index());
    let read = match format {
        Graph::Chess => read_shard(bsp, input, Entry::start(mode)),
        Graph::Sums => read_shard(bsp, input, Entry::sums(mode)),
        Graph::Edges(nodes) => edges::read(bsp, input, nodes),
    };
    let Some(mut read) = read else { return Run::Alone };
    read.shard.forget_positions();
    trace.stage("read");
    if matches!(job, Job::Query { .. }) && read.cases.is_empty() {
        // No graph to query: process 0 alone says so.
        return Run::Alone;
    }
    let (owners, cases) = (&read.owners, &read.cases);
    let settled = settle::settle(bsp, &mut read.shard, owners, &read.source);
    let Some((values, levels)) = settled else { return Run::Alone };
    trace.stage("settled");
    if !matches!(job, Job::Values(..)) {
        // Answers need the moves and the queries again.
        read.source.restore(&mut read.shard);
        trace.stage("read again");
    }
    let shard = &read.shard;
    let graph = answer::Graph { shard, owners, values: &values };
    let mut out = Out { send, turn: 0 };
    match job {
        Job::Values(..) => {
            let nodes = owners.counts(bsp.peers());
            out.in_turns(bsp, &nodes, ROWS_PER_PIECE, |_, range| {
                (value_rows(shard, cases, &values, &levels, range), Vec::new())
            });
        }
        Job::Solve { report, .. } => {
            let columns = Columns::solve();
            let rows = report.then_some(&columns);
            out.in_turns(bsp, &read.queries, QUERIES_PER_PIECE, |bsp, range| {
                let answers = answer::answer(bsp, shard, range, &graph, rows);
                (answers.lines, answers.rows)
            });
        }
        Job::Query { queries, columns, .. } => {
            let entry = Entry::queries(cases[0].nodes);
            let Some(mine) = read_shard(bsp, queries, entry) else {
                return Run::Alone;
            };
            out.in_turns(bsp, &mine.queries, QUERIES_PER_PIECE, |bsp, range| {
                let rows = Some(columns);
                (answer::answer(bsp, &mine.shard, range, &graph, rows).rows, Vec::new())
            });
        }
    }
    trace.stage("written");
    Run::Done
}
