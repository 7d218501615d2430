//! Periodicity certificates: the octal periodicity theorem, with its bound derived for each
//! kind of move.
//!
//! Claim: if G(n + p) = G(n) for n0 <= n < B, then for every n >= n0. By induction on N >= B:
//! the moves from N + p and from N pair up with equal values as long as every heap they
//! differ in is at least max(n0, 1) after removing p. With n1 = max(n0, 1):
//! - removing j to leave one heap: N - j >= n1, so N >= n1 + j;
//! - removing j to leave two heaps a <= b of N + p - j: b - p >= n1 for the smallest b,
//!   ceil((N + p - j) / 2) - p >= n1, so N >= 2 n1 + p + j - 1;
//! - three heaps a <= b <= c: ceil((N + p - j) / 3) - p >= n1, so N >= 3 n1 + 2p + j - 2;
//! - emptying a heap of j: N > j, so that neither N nor N + p is j.
//!
//! The heap left must be non-empty (`n1`, not `n0`): with n0 = 0 the textbook bound
//! `2 n0 + p + k` would accept 0.4's first three zeros as period 1 (the truth is 34 from 54).

use super::code::Moves;
use super::column::SCAN_STEP;

/// A proved period: G(n + period) = G(n) for every n >= preperiod, both the smallest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    /// The first heap size from which the values repeat.
    pub preperiod: usize,
    /// The length of the repeating block.
    pub period: usize,
    /// The largest heap size whose value the proof reads: the computation can stop there.
    pub proved_at: usize,
}

/// The B of the claim: from which heap size on the induction carries G(n + p) = G(n).
pub fn proof_start(moves: &Moves, n0: usize, p: usize) -> usize {
    let n1 = n0.max(1);
    let bound = |js: &[u32], f: &dyn Fn(usize) -> usize| js.iter().map(|&j| f(j as usize)).max();
    [
        Some(n0),
        bound(&moves.empty, &|j| j + 1),
        bound(&moves.one, &|j| n1 + j),
        bound(&moves.two, &|j| 2 * n1 + p + j - 1),
        bound(&moves.three, &|j| (3 * n1 + 2 * p + j).saturating_sub(2)),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(n0)
}

/// The smallest period that `g` (G(0..g.len())) proves, with its smallest preperiod, if any.
pub fn certify<V: Copy + PartialEq>(moves: &Moves, g: &[V]) -> Option<Period> {
    certify_releasing(moves, g, &|| {})
}

/// [`certify`], calling `release` after every [`SCAN_STEP`] values compared: a table in a file
/// lets go of the pages the look has passed (its reads sweep down from the end).
pub fn certify_releasing<V: Copy + PartialEq>(
    moves: &Moves,
    g: &[V],
    release: &dyn Fn(),
) -> Option<Period> {
    let last = g.len().checked_sub(1)?;
    // The bound grows with n0 and p: past the first p that n0 = 0 cannot prove, none can.
    let provable = |p: usize| proof_start(moves, 0, p) + p - 1 <= last;
    let mut compared = 0usize;
    let mut tick = |count: usize| {
        compared += count;
        if compared >= SCAN_STEP {
            compared = 0;
            release();
        }
    };
    (1..=last).take_while(|&p| provable(p)).find_map(|p| {
        // The smallest n0 with g[n + p] == g[n] for n0 <= n <= last - p, a stretch at a time.
        let mut end = last - p + 1;
        let differs = loop {
            let start = end.saturating_sub(SCAN_STEP);
            let found = (start..end).rev().find(|&n| g[n + p] != g[n]);
            tick(end - found.unwrap_or(start));
            if found.is_some() || start == 0 {
                break found;
            }
            end = start;
        };
        let n0 = differs.map_or(0, |n| n + 1);
        let proved_at = proof_start(moves, n0, p) + p - 1;
        (proved_at <= last).then_some(Period { preperiod: n0, period: p, proved_at })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::code::Code;
    use crate::octal::naive::naive;

    fn moves(code: &str) -> Moves {
        Code::parse(code, false).unwrap().moves()
    }

    #[test]
    fn kayles_is_certified_with_its_published_period() {
        let m = moves("0.77");
        let g = naive(&m, 400);
        let period = certify(&m, &g).unwrap();
        assert_eq!((period.period, period.preperiod), (12, 71));
        // Certified from the values up to the bound only, not before.
        let at = period.proved_at;
        assert_eq!(certify(&m, &g[..=at]), Some(period));
        assert_eq!(certify(&m, &g[..at]).map(|p| p.period), None);
    }

    #[test]
    fn a_zero_preperiod_does_not_prove_early_periods() {
        // 0.4: G = 0, 0, 0, 1, ...; the textbook bound proves period 1 at n = 2.
        let m = moves("0.4");
        let g = naive(&m, 3);
        assert_eq!(certify(&m, &g[..3]), None);
        assert_eq!(g[3], 1);
    }
}
