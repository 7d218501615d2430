//! Process 0 writes a cluster's output in file order, a bounded piece at a time: worker by
//! worker, each piece's bytes sent to worker 0 in a round of their own; and the `values` rows
//! of a worker's nodes, and the trace of each worker's stages.

use std::sync::mpsc;

use super::bsp::Bsp;
use super::shard::{CaseHead, Shard};
use super::Msg;
use crate::report::Rows;

/// With `GRUNDY_TRACE` set, every worker prints on stderr when each stage ends: seconds since
/// it started and the process's resident memory (for finding what is slow or
/// big on a real cluster).
pub(super) struct Trace {
    worker: usize,
    start: Option<std::time::Instant>,
}

impl Trace {
    pub(super) fn new(worker: usize) -> Trace {
        let on = std::env::var_os("GRUNDY_TRACE").is_some();
        Trace { worker, start: on.then(std::time::Instant::now) }
    }

    pub(super) fn stage(&self, name: &str) {
        let Some(start) = self.start else { return };
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let mb = |key: &str| {
            let line = status.lines().find(|l| l.starts_with(key)).unwrap_or_default();
            let kb: u64 = line.split_whitespace().nth(1).and_then(|k| k.parse().ok()).unwrap_or(0);
            kb >> 10
        };
        let (now, peak) = (mb("VmRSS:"), mb("VmHWM:"));
        let seconds = start.elapsed().as_secs_f64();
        let worker = self.worker;
        eprintln!(
            "trace: worker {worker}: {name} at {seconds:.3} s, {now} MB resident, peak {peak} MB"
        );
    }
}

/// Rows formatted per piece of `values` output.
pub(super) const ROWS_PER_PIECE: usize = 1 << 16;
/// Queries answered per piece of `solve` and `query` output.
pub(super) const QUERIES_PER_PIECE: usize = 1 << 16;

/// The way output goes to process 0's writer.
pub(super) struct Out<'a> {
    pub(super) send: &'a mpsc::Sender<(u8, Vec<u8>)>,
    pub(super) turn: usize,
}

impl Out<'_> {
    /// Output in file order, a bounded piece at a time: worker by worker (`counts[w]` items
    /// each), `per_piece` items per piece. Every worker calls `piece` for every piece of every
    /// worker (rounds in lockstep: answering a piece needs every worker), with the range of
    /// its own items when it is that worker's turn and an empty one otherwise; the turn's
    /// worker sends the bytes to worker 0.
    pub(super) fn in_turns(
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

/// The `values` rows of a shard's nodes in `range`: case, node, grundy, level, out-degree.
pub(super) fn value_rows(
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
