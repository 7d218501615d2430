//! Answering queries: a query's tokens sit on positions whose values XOR to the nim-sum; the
//! first player wins exactly when it is non-zero, by moving one token to a position that makes
//! the nim-sum zero.
//!
//! Both code paths answer through the same closure, so the sequential and parallel outputs
//! cannot drift apart; the parallel path cuts a batch into pieces, answers each into its own
//! buffers, and joins the buffers in input order.

use rayon::prelude::*;

use crate::chess_parallel::QueryBatch;
use crate::graph::Csr;

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

/// A winning move for a position of non-zero `nim_sum`: the first token (in query order) whose
/// value `g` has `g ^ nim_sum < g`, moved to its first out-position of value `g ^ nim_sum`,
/// which leaves a nim-sum of zero. `None` for a losing position.
///
/// Such a token exists (the highest set bit of the nim-sum is set in some token's value) and
/// so does the out-position (a value is the mex of its out-positions', so every smaller value
/// is among them).
pub fn winning_move(
    graph: &Csr,
    values: &[u32],
    positions: &[u32],
    nim_sum: u32,
) -> Option<(u32, u32)> {
    if nim_sum == 0 {
        return None;
    }
    positions.iter().find_map(|&p| {
        let want = values[p as usize] ^ nim_sum;
        if want >= values[p as usize] {
            return None;
        }
        graph.successors(p).iter().find(|&&s| values[s as usize] == want).map(|&s| (p, s))
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn winning_moves_leave_a_zero_nim_sum() {
        // 0 -> 1 -> 2, 0 -> 2: values 2, 1, 0.
        let g = Csr::from_lists(&[vec![1, 2], vec![2], vec![]]).unwrap();
        let values = [2, 1, 0];
        assert_eq!(winning_move(&g, &values, &[0], 2), Some((0, 2)));
        assert_eq!(winning_move(&g, &values, &[1, 0], 3), Some((0, 1)));
        assert_eq!(winning_move(&g, &values, &[1, 1], 0), None);
        for (p, s) in [(0u32, 2u32), (0, 1)] {
            assert!(g.successors(p).contains(&s));
        }
    }
}
