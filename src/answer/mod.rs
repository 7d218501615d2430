//! Answering queries: a query's tokens sit on positions whose values XOR to the nim-sum; the
//! first player wins exactly when it is non-zero (the winning move: [`GameGraph::winning_move`]).
//!
//! [`GameGraph::winning_move`]: crate::graph::GameGraph::winning_move
//!
//! Both code paths answer through the same closure, so the sequential and parallel outputs
//! cannot drift apart; the parallel path cuts a batch into pieces, answers each into its own
//! buffers, and joins the buffers in input order.

use rayon::prelude::*;

use crate::parse::chess_parallel::QueryBatch;

/// Pieces per thread a batch is cut into.
const PIECES_PER_THREAD: usize = 4;

/// The nim-sum (XOR of values) of the tokens on `positions`.
#[inline]
pub fn nim_sum(values: &[u32], positions: &[u32]) -> u32 {
    positions.iter().fold(0, |acc, &p| acc ^ values[p as usize])
}

/// The judge's line for a nim-sum: `WIN` when the first player wins, else `LOSE`.
#[inline]
pub fn verdict_line(nim_sum: u32) -> &'static [u8] {
    if nim_sum != 0 {
        b"WIN\n"
    } else {
        b"LOSE\n"
    }
}

/// The output buffers of answered queries: the main output and an optional report.
#[derive(Debug, Default, Clone)]
pub struct Bufs {
    /// The command's main output (judge lines, or CSV rows).
    pub main: Vec<u8>,
    /// A second output (the `--report` CSV rows), empty when not asked for.
    pub report: Vec<u8>,
}

impl Bufs {
    /// Appends `other`'s bytes.
    pub fn append(&mut self, other: &Bufs) {
        self.main.extend_from_slice(&other.main);
        self.report.extend_from_slice(&other.report);
    }

    /// Empties both buffers.
    pub fn clear(&mut self) {
        self.main.clear();
        self.report.clear();
    }

    /// Bytes held.
    pub fn len(&self) -> usize {
        self.main.len() + self.report.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Position `index` of query `query` (both 0-based within a batch) is not a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPosition {
    /// The query, 0-based within the batch.
    pub query: usize,
    /// The position, 0-based within the query.
    pub index: usize,
}

/// Answers the queries of `batch` in parallel with `answer(query_number, positions, bufs)`
/// (query numbers are 1-based within the case) and appends the results to `out` in input
/// order. Stops at the first query with a position that is not a node: the queries before it
/// are answered, it and later ones are not.
pub fn answer_batch<F>(batch: &QueryBatch<'_>, out: &mut Bufs, answer: F) -> Result<(), BadPosition>
where
    F: Fn(u64, &[u32], &mut Bufs) + Sync,
{
    let threads = rayon::current_num_threads();
    let piece = batch.len().div_ceil(threads * PIECES_PER_THREAD).max(1);
    let pieces: Vec<(Bufs, Option<BadPosition>)> = (0..batch.len().div_ceil(piece))
        .into_par_iter()
        .map(|p| {
            let range = p * piece..((p + 1) * piece).min(batch.len());
            let mut bufs = Bufs::default();
            for i in range {
                let positions = batch.positions(i);
                if let Some(index) = positions.iter().position(|&v| v >= batch.nodes) {
                    return (bufs, Some(BadPosition { query: i, index }));
                }
                answer(batch.first_query + i as u64, positions, &mut bufs);
            }
            (bufs, None)
        })
        .collect();
    for (bufs, bad) in pieces {
        out.append(&bufs);
        if let Some(bad) = bad {
            return Err(bad);
        }
    }
    Ok(())
}
