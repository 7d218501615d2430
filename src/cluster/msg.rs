//! What the workers of a cluster send each other: one message type for every phase (reading,
//! settling, jumping, answering, output), carried by [`super::bsp`]'s rounds. Each receive
//! loop takes the variants of its phase; the rounds never mix phases, since every worker runs
//! the phases in the same order.

use serde::{Deserialize, Serialize};

use super::link::{Link, Probe};
use super::shard::{CaseHead, Entry};
use super::split::Cut;

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
        probes: Vec<Probe>,
    },
    /// Links `(target, node, link)`: settle `node` as `link` of `target`'s value (target owned
    /// by the receiver).
    Subscribe(Vec<(u64, u64, Link)>),
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
    Cuts(usize, Vec<Cut>),
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
