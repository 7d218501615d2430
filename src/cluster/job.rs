//! What a cluster run computes ([`Job`]), on which inputs and in which format, and the
//! identity every process of the run must share ([`Job::identity`]).

use std::sync::Arc;

use super::identity::Identity;
use super::net::Peers;
use crate::io::input::Input;
use crate::report::Columns;

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
