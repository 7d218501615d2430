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
//! What runs here: `values`, `solve` (with `--report`) and `query` of chess-format files.

pub mod answer;
pub mod bsp;
pub mod edges;
pub mod handshake;
pub mod identity;
pub mod jump;
pub mod link;
pub mod net;
pub mod settle;
pub mod shard;
pub mod split;
pub mod state;

use std::net::TcpListener;
use std::sync::{mpsc, Arc};

use serde::{Deserialize, Serialize};
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::initialize::Hooks;

use crate::error::Error;
use crate::io::input::Input;
use crate::report::{Columns, Rows};
use bsp::Bsp;
use identity::{Claim, Identity};
use net::Peers;
use shard::{CaseHead, Entry, Mode, Shard, Share, Source};

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
        /// Number of queries.
        queries: u64,
        /// Cases opening in its range.
        cases: Vec<CaseHead>,
        /// An input error was found.
        error: bool,
    },
    /// Edges `(target, source)` for the target's owner: the target's index among the
    /// receiver's nodes, the source case-local.
    Edges(Vec<(u64, u32)>),
    /// Settled out-positions `(node, value, level)` for the node's owner.
    Settle(Vec<(u64, u32, u32)>),
    /// Settled parts `(node, slot, value, level)` for the owner of the node whose moves they
    /// are part of (sums format), `slot` being which of its parts.
    SettleParts(Vec<(u64, u32, u32, u32)>),
    /// Edges `(target, source, slot)` for the target's owner (sums format): `Edges` with each
    /// edge's place among its source's parts.
    SlotEdges(Vec<(u64, u32, u32)>),
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
        probes: Vec<link::Probe>,
    },
    /// Links `(target, node, link)`: settle `node` as `link` of `target`'s value (target owned
    /// by the receiver).
    Subscribe(Vec<(u64, u64, link::Link)>),
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
        /// Global ids: the out-positions, or (sums format) the parts of the moves one after
        /// the other.
        targets: Vec<u64>,
        /// Sums format only: where each move ends among `targets`.
        ends: Vec<u32>,
    },
    /// A worker's total record weight (`split`).
    Weight(usize, u64),
    /// A worker's candidates for the cuts between balanced ranges (`split`).
    Cuts(usize, Vec<split::Cut>),
    /// Output bytes for process 0, of stream 0 (stdout, or `-o`) or 1 (the report).
    Bytes(u8, Vec<u8>),
    /// What a worker's share of an edge list holds (`edges`).
    EdgeStats {
        /// The worker.
        worker: usize,
        /// Its largest id (`None`: no edge).
        largest: Option<u32>,
        /// Its number of edges.
        edges: u64,
        /// A line of its share is not an edge line.
        error: bool,
    },
    /// Edges `(u, v)` for the owner of `u`, from worker `from`, in its file order (`edges`).
    Lists {
        /// The sender.
        from: usize,
        /// The edges.
        edges: Vec<(u32, u32)>,
    },
}

/// What a cluster run computes, and on which inputs.
#[derive(Clone)]
pub enum Job {
    /// `values`: rows of every node (stream 0) of a chess file, or of an edge list.
    Values(Arc<Input>, Graph),
    /// `solve`: judge lines (stream 0), and report rows (stream 1) if `report`.
    Solve {
        /// The game file.
        input: Arc<Input>,
        /// How it is written (chess or sums).
        format: Graph,
        /// Whether report rows are wanted.
        report: bool,
    },
    /// `query`: rows of every query of `queries` against the first case of `graph` (stream 0).
    Query {
        /// The graph file.
        graph: Arc<Input>,
        /// How it is written.
        format: Graph,
        /// The file of queries.
        queries: Arc<Input>,
        /// The rows' columns.
        columns: Columns,
    },
}

/// How a cluster's graph file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Graph {
    /// The chess format.
    Chess,
    /// The sums format (a move leads to a sum of positions).
    Sums,
    /// An edge list, of this many nodes if `--nodes` says.
    Edges(Option<u32>),
}

impl std::fmt::Display for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Graph::Chess => f.write_str("chess"),
            Graph::Sums => f.write_str("sums"),
            Graph::Edges(None) => f.write_str("edges"),
            Graph::Edges(Some(n)) => write!(f, "edges --nodes {n}"),
        }
    }
}

impl Job {
    /// What every process of the run must agree on: this build, the job and every option that
    /// changes what a worker computes or writes, the cluster's shape, and each input's
    /// fingerprint. (Where process 0 writes its output does not matter to the others.)
    pub fn identity(&self, peers: &Peers) -> Identity {
        let (command, format) = match self {
            Job::Values(_, format) => ("values", *format),
            Job::Solve { report: false, format, .. } => ("solve", *format),
            Job::Solve { report: true, format, .. } => ("solve --report", *format),
            Job::Query { format, .. } => ("query", *format),
        };
        let identity = Identity::new()
            .with("the command", command)
            .with("--format", format)
            .with("--workers", peers.workers)
            .with("the number of processes", peers.processes())
            .with("the hosts", peers.addresses.join(" "))
            .with("the grundy version", env!("CARGO_PKG_VERSION"));
        match self {
            Job::Values(input, _) | Job::Solve { input, .. } => identity.input("FILE", input),
            Job::Query { graph, queries, columns, .. } => identity
                .with("--columns", columns.names())
                .input("GRAPH", graph)
                .input("QUERIES", queries),
        }
    }
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

/// With `GRUNDY_TRACE` set, every worker prints on stderr when each stage ends: seconds since
/// it started and the process's resident memory (for finding what is slow or
/// big on a real cluster).
struct Trace {
    worker: usize,
    start: Option<std::time::Instant>,
}

impl Trace {
    fn new(worker: usize) -> Trace {
        let on = std::env::var_os("GRUNDY_TRACE").is_some();
        Trace { worker, start: on.then(std::time::Instant::now) }
    }

    fn stage(&self, name: &str) {
        let Some(start) = self.start else { return };
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
        let seconds = start.elapsed().as_secs_f64();
        let mb = (pages * 4096) >> 20;
        eprintln!("trace: worker {}: {name} at {seconds:.3} s, {mb} MB resident", self.worker);
    }
}

/// Rows formatted per piece of `values` output.
const ROWS_PER_PIECE: usize = 1 << 16;
/// Queries answered per piece of `solve` and `query` output.
const QUERIES_PER_PIECE: usize = 1 << 16;

/// The way output goes to process 0's writer.
struct Out<'a> {
    send: &'a mpsc::Sender<(u8, Vec<u8>)>,
    turn: usize,
}

impl Out<'_> {
    /// Output in file order, a bounded piece at a time: worker by worker (`counts[w]` items
    /// each), `per_piece` items per piece. Every worker calls `piece` for every piece of every
    /// worker (rounds in lockstep: answering a piece needs every worker), with the range of
    /// its own items when it is that worker's turn and an empty one otherwise; the turn's
    /// worker sends the bytes to worker 0.
    fn in_turns(
        &mut self,
        bsp: &mut Bsp<Msg>,
        counts: &[u64],
        per_piece: usize,
        mut piece: impl FnMut(&mut Bsp<Msg>, std::ops::Range<usize>) -> (Vec<u8>, Vec<u8>),
    ) {
        let me = bsp.index();
        for (turn, &count) in counts.iter().enumerate() {
            self.turn = turn;
            for start in (0..count as usize).step_by(per_piece) {
                let range = start..(start + per_piece).min(count as usize);
                let range = if turn == me { range } else { 0..0 };
                let (main, report) = piece(bsp, range);
                self.deliver(bsp, main, report);
            }
        }
    }

    /// Worker 0 passes a piece on; any other worker's goes to worker 0 in a round of its own.
    fn deliver(&self, bsp: &mut Bsp<Msg>, main: Vec<u8>, report: Vec<u8>) {
        let me = bsp.index();
        let pieces = [(0, main), (1, report)];
        let received = if self.turn == 0 {
            if me == 0 {
                pieces.to_vec()
            } else {
                Vec::new()
            }
        } else {
            let out = if me == self.turn {
                pieces
                    .into_iter()
                    .filter(|(_, b)| !b.is_empty())
                    .map(|(k, b)| (0, Msg::Bytes(k, b)))
                    .collect()
            } else {
                Vec::new()
            };
            let mut received: Vec<(u8, Vec<u8>)> = bsp
                .exchange(out)
                .into_iter()
                .filter_map(|m| if let Msg::Bytes(k, b) = m { Some((k, b)) } else { None })
                .collect();
            received.sort_by_key(|(k, _)| *k);
            received
        };
        for (stream, bytes) in received {
            if !bytes.is_empty() {
                let _ = self.send.send((stream, bytes));
            }
        }
    }
}

/// What reading a file's shards gives every worker.
struct Read<'a> {
    /// Where this worker's shard lies, to read it again.
    source: Source<'a>,
    /// This worker's shard.
    shard: Shard,
    /// Who owns which node.
    owners: state::Owners,
    /// Every case, in order.
    cases: Vec<CaseHead>,
    /// Every worker's number of queries.
    queries: Vec<u64>,
}

/// Reads this worker's shard: its balanced range ([`split`]), tokenized, then walked. Then
/// every worker learns every other's owned ids and cases; `None` if any worker found an input
/// error.
fn read_shard<'a>(bsp: &mut Bsp<Msg>, input: &'a Input, first: Entry) -> Option<Read<'a>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let (start, end, entry) = split::balanced(bsp, input, first);
    let share = Share { input, start, end, entry, last: me + 1 == peers };
    let mine = share.read();
    gather(bsp, mine, Source::Share(share))
}

/// Tells every worker every other's owned ids, cases and queries, from this worker's shard
/// `mine` (read from `source`); `None` if any worker found an input error.
fn gather<'a>(bsp: &mut Bsp<Msg>, mine: Shard, source: Source<'a>) -> Option<Read<'a>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let summary = Msg::Summary {
        worker: me,
        first: mine.first,
        count: mine.nodes() as u64,
        queries: mine.queries() as u64,
        cases: mine.cases.clone(),
        error: mine.error,
    };
    let (mut spans, mut cases, mut error) = (Vec::new(), Vec::new(), false);
    let mut queries = vec![0; peers];
    for message in bsp.all_gather(summary) {
        if let Msg::Summary { worker, first, count, queries: q, cases: c, error: e } = message {
            spans.push((worker, first, count));
            queries[worker] = q;
            cases.extend(c);
            error |= e;
        }
    }
    cases.sort_unstable_by_key(|c| c.case);
    let owners = state::Owners::new(spans);
    (!error).then_some(Read { shard: mine, owners, cases, queries, source })
}

/// The `values` rows of a shard's nodes in `range`: case, node, grundy, level, out-degree.
fn value_rows(
    shard: &Shard,
    cases: &[CaseHead],
    values: &[u32],
    levels: &[u32],
    range: std::ops::Range<usize>,
) -> Vec<u8> {
    let mut rows = Rows::new();
    for i in range {
        let gid = shard.first + i as u64;
        let c = cases.partition_point(|c| c.base + u64::from(c.nodes) <= gid);
        let case = &cases[c];
        let degree = shard.move_count(i) as u32;
        rows.value_row(case.case, (gid - case.base) as u32, values[i], levels[i], degree);
    }
    rows.into_bytes()
}
