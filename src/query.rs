//! Answering queries: a query's tokens sit on positions whose values XOR to the nim-sum; the
//! first player wins exactly when it is non-zero.
//!
//! One function formats an answer for both code paths, so the sequential and parallel outputs
//! cannot drift apart; the parallel path cuts a batch into pieces, answers each into its own
//! buffer, and joins the buffers in input order.

use rayon::prelude::*;

use crate::chess_parallel::QueryBatch;

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

/// Position `index` of query `query` (both 0-based within a batch) is not a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadPosition {
    /// The query, 0-based within the batch.
    pub query: usize,
    /// The position, 0-based within the query.
    pub index: usize,
}

/// Appends the verdict lines of `batch` to `out` in input order, answering in parallel. Stops
/// at the first query with a position that is not a node (its answer and later ones are not
/// written) and reports it.
pub fn answer_batch(
    batch: &QueryBatch<'_>,
    values: &[u32],
    out: &mut Vec<u8>,
) -> Result<(), BadPosition> {
    let threads = rayon::current_num_threads();
    let piece = batch.len().div_ceil(threads * PIECES_PER_THREAD).max(1);
    let texts: Vec<(Vec<u8>, Option<BadPosition>)> = (0..batch.len().div_ceil(piece))
        .into_par_iter()
        .map(|p| {
            let range = p * piece..((p + 1) * piece).min(batch.len());
            let mut text = Vec::with_capacity(range.len() * 5);
            for i in range {
                let positions = batch.positions(i);
                if let Some(index) = positions.iter().position(|&v| v >= batch.nodes) {
                    return (text, Some(BadPosition { query: i, index }));
                }
                text.extend_from_slice(verdict_line(nim_sum(values, positions)));
            }
            (text, None)
        })
        .collect();
    for (text, bad) in texts {
        out.extend_from_slice(&text);
        if let Some(bad) = bad {
            return Err(bad);
        }
    }
    Ok(())
}
