//! The sparse-space method for games whose moves leave at most two heaps.
//!
//! Split the values into *common* ones, a set `C` in which no two values XOR to a third
//! (`c1 ^ c2` is never in `C`), and the others; a *rare heap* is one whose value is not in
//! `C`. A split of two common heaps then never has a common value, so a common value can only
//! be the value of a one-heap move or of a split with a rare heap: a short list, when `C`
//! holds the frequent values. For a heap `h`:
//! 1. its row marks the values of the splits with a rare part, the one-heap moves, and some
//!    splits ahead; `c`, the smallest common value not marked, is G(h) unless a smaller
//!    value that is not common is missing;
//! 2. the values below `c` that are not common and not marked yet must each be a move's
//!    value, or G(h) is the smallest that is not: walk the splits marking values until none
//!    is missing or the walk ends (then `h` is a rare heap: rare, as the name says).
//!
//! Exact for any such `C`: it only decides how short the lists and the walks are. `C` is
//! chosen greedily, most frequent value first, when the heap count doubles; a value seen for
//! the first time joins it when it can.
//!
//! Heaps are computed in blocks: the marks of every split whose two parts are older than the
//! block are made first, for all its heaps at once, on every thread.

use std::ops::Range;

use rayon::prelude::*;

use super::code::Moves;

/// A stored value: 2 bytes while values fit, else 4.
pub trait Value: Copy + Send + Sync + PartialEq + Into<u32> + TryFrom<u32> + 'static {}
impl Value for u16 {}
impl Value for u32 {}

/// Heaps whose common marks are made together, in parallel: the pairs whose other part is
/// older than the block are all known when it starts.
const BLOCK: usize = 1024;

/// The method's state between heaps: the common values, the rare heaps.
pub struct Sparse {
    /// `common[x]`: whether value `x` is in `C`; as long as `width`.
    common: Vec<bool>,
    /// How many heaps `h >= 1` have each value.
    count: Vec<u64>,
    /// The heaps `h >= 1` with a value not in `C`, in increasing order, and their values.
    rare: Vec<u32>,
    rare_values: Vec<u32>,
    /// A power of two above every value so far: every move's value is below it.
    width: u32,
    /// The values below `width` in increasing order: those in `C`, and the others.
    safe: Vec<u32>,
    unsafe_: Vec<u32>,
    /// How many splits of two old heaps each heap's row marks ahead (adapted block by block:
    /// enough that the sequential walk is seldom needed).
    reach: usize,
}

impl Sparse {
    /// The state for going on from `g`, G(0..g.len()).
    pub fn new<V: Value>(g: &[V]) -> Sparse {
        let mut state = Sparse {
            common: Vec::new(),
            count: Vec::new(),
            rare: Vec::new(),
            rare_values: Vec::new(),
            width: 0,
            safe: Vec::new(),
            unsafe_: Vec::new(),
            reach: 256,
        };
        let largest = g.iter().map(|&v| v.into()).max().unwrap_or(0);
        state.widen(largest);
        for &v in g.iter().skip(1) {
            state.count[v.into() as usize] += 1;
        }
        state.choose_common(g);
        state
    }

    /// Extends `g` up to G(upto) for `moves` (at most two heaps left by any move). Stops
    /// early with `Err(h)` when G(h) does not fit `V`; `g` then ends before it.
    pub fn extend<V: Value>(
        &mut self,
        moves: &Moves,
        g: &mut Vec<V>,
        upto: usize,
    ) -> Result<(), usize> {
        debug_assert!(moves.three.is_empty());
        let mut marks = Vec::new();
        while g.len() <= upto {
            let n = g.len();
            if n.is_power_of_two() && n >= 64 {
                self.choose_common(g);
                if std::env::var_os("GRUNDY_TRACE").is_some() {
                    let (rare, common, reach) = (self.rare.len(), self.safe.len(), self.reach);
                    eprintln!(
                        "octal: {n} heaps, {rare} rare, {common} common values, reach {reach}"
                    );
                }
            }
            // Blocks end at the next power of two, where `C` is chosen again.
            let end = (n + BLOCK).min(upto + 1).min((n + 1).next_power_of_two().max(64));
            self.mark_old_pairs(moves, g, n..end, &mut marks);
            let base = self.rare.len();
            let mut short = 0;
            for (h, row) in (n..end).zip(marks.chunks_mut(self.width as usize)) {
                let x = self.value(moves, g, h, row, (n, base), &mut short);
                let Ok(v) = V::try_from(x) else { return Err(h) };
                g.push(v);
                let wider = x >= self.width;
                self.record(h, x);
                if wider {
                    // Rows are as wide as the old values: start a new block.
                    break;
                }
            }
            // Mark further ahead when more than a few heaps had to walk on to find their values,
            // a little less when none did (a rare heap walks all its splits whatever the reach).
            self.reach = match short {
                0 => self.reach - self.reach / 8,
                s if s > (end - n) / 64 => self.reach + self.reach / 4,
                _ => self.reach,
            }
            .clamp(64, 1 << 20);
        }
        Ok(())
    }

    /// Notes G(h) = x: a value seen for the first time joins `C` if it can.
    fn record(&mut self, h: usize, x: u32) {
        self.widen(x);
        if h == 0 {
            return;
        }
        self.count[x as usize] += 1;
        if self.count[x as usize] == 1 && self.can_join(x) {
            self.common[x as usize] = true;
            self.list_values();
        }
        if !self.common[x as usize] {
            self.rare.push(h as u32);
            self.rare_values.push(x);
        }
    }

    /// True when `x` can join `C`: no value of `C` XORs with it to another.
    fn can_join(&self, x: u32) -> bool {
        let inside = |v: u32| self.common.get(v as usize).copied().unwrap_or(false);
        x != 0 && self.safe.iter().all(|&c| !inside(c ^ x))
    }

    /// Makes room for values up to `x`.
    fn widen(&mut self, x: u32) {
        if x >= self.width {
            self.width = (x + 1).next_power_of_two().max(64);
            self.common.resize(self.width as usize, false);
            self.count.resize(self.width as usize, 0);
            self.list_values();
        }
    }

    /// Lists the values below `width` in `C`, and the others.
    fn list_values(&mut self) {
        let common = &self.common;
        (self.safe, self.unsafe_) = (0..self.width).partition(|&v| common[v as usize]);
    }

    /// Chooses `C` again, greedily from the most frequent value among `g[1..]`, and lists the
    /// rare heaps again.
    fn choose_common<V: Value>(&mut self, g: &[V]) {
        let mut order: Vec<u32> = (0..self.width).filter(|&v| self.count[v as usize] > 0).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(self.count[v as usize]), v));
        self.common.fill(false);
        self.safe.clear();
        for v in order {
            if self.can_join(v) {
                self.common[v as usize] = true;
                self.safe.push(v);
            }
        }
        self.list_values();
        let common = &self.common;
        self.rare =
            (1..g.len() as u32).filter(|&h| !common[g[h as usize].into() as usize]).collect();
        self.rare_values = self.rare.iter().map(|&h| g[h as usize].into()).collect();
    }

    /// For every heap `h` of `heaps`, one row of `marks` (`width` bytes) marking the values of
    /// its splits whose rare part is older than the block and whose other part is too (the
    /// bulk of the work, on every thread). Any other value marked is a move's value as well.
    fn mark_old_pairs<V: Value>(
        &self,
        moves: &Moves,
        g: &[V],
        heaps: Range<usize>,
        marks: &mut Vec<u8>,
    ) {
        let n = heaps.start;
        let width = self.width as usize;
        marks.clear();
        marks.resize(heaps.len() * width, 0);
        let (rare, values) = (&self.rare, &self.rare_values);
        marks.par_chunks_mut(width).enumerate().with_min_len(16).for_each(|(i, row)| {
            for &j in &moves.two {
                let m = (n + i).saturating_sub(j as usize);
                let (lo, hi) = old_rare(rare, m, n);
                for (&r, &x) in rare[lo..hi].iter().zip(&values[lo..hi]) {
                    row[(x ^ g[m - r as usize].into()) as usize] = 1;
                }
                mark_splits(row, g, m, ahead(m, n, self.reach));
            }
        });
    }

    /// G(h), given G(0..h) in `g`, `row` marking the values [`Sparse::mark_old_pairs`] found
    /// for the block starting at heap `n`, whose rare heaps are those from `rare[base]` on.
    fn value<V: Value>(
        &self,
        moves: &Moves,
        g: &[V],
        h: usize,
        row: &mut [u8],
        (n, base): (usize, usize),
        short: &mut usize,
    ) -> u32 {
        let at = |i: usize| -> u32 { g[i].into() };
        for &j in &moves.empty {
            if h == j as usize {
                row[0] = 1;
            }
        }
        for &j in &moves.one {
            if h > j as usize {
                row[at(h - j as usize) as usize] = 1;
            }
        }
        // The splits with a rare part the block's marks left out: a young other part, or a
        // rare part found in this block.
        for &j in &moves.two {
            let m = h.saturating_sub(j as usize);
            let (lo, _) = old_rare(&self.rare[..base], m, n);
            let young = self.rare[..lo]
                .iter()
                .chain(self.rare[base..].iter().take_while(|&&r| (r as usize) < m));
            for &r in young {
                row[(at(r as usize) ^ at(m - r as usize)) as usize] = 1;
            }
        }
        let unmarked = |x: &u32| row[*x as usize] == 0;
        let common = self.safe.iter().copied().find(unmarked).unwrap_or(self.width);
        let unsafe_ = self.unsafe_.iter().take_while(|&&x| x < common);
        let mut missing = unsafe_.filter(|x| unmarked(x)).count();
        let mut beyond = false;
        'walk: for &j in &moves.two {
            let m = h.saturating_sub(j as usize);
            // Going on down from the splits the row marked ahead; those with a young part
            // (below `old`) come last, and were never the row's to mark.
            let marked = ahead(m, n, self.reach);
            let old = (m + 1).saturating_sub(n).max(1);
            for a in (1..marked.start).rev() {
                if missing == 0 {
                    break 'walk;
                }
                beyond |= a >= old;
                let x = at(a) ^ at(m - a);
                if x < common && row[x as usize] == 0 {
                    row[x as usize] = 1;
                    missing -= 1;
                }
            }
        }
        if missing == 0 {
            *short += usize::from(beyond);
            return common;
        }
        (0..common).find(|&x| row[x as usize] == 0).unwrap_or(common)
    }
}

/// Marks in `row` the values of the splits `(a, m - a)` for `a` in `parts`. The values of
/// a chunk of splits are computed together first (plain loads and XORs the compiler can
/// vectorize), then stored.
#[inline]
fn mark_splits<V: Value>(row: &mut [u8], g: &[V], m: usize, parts: Range<usize>) {
    const CHUNK: usize = 16;
    if parts.is_empty() {
        return;
    }
    // Split (a, m - a) pairs left[k] with right[len - 1 - k].
    let left = &g[parts.clone()];
    let right = &g[m + 1 - parts.end..m + 1 - parts.start];
    let mut chunks = left.chunks_exact(CHUNK).zip(right.rchunks_exact(CHUNK));
    let mut values = [0u32; CHUNK];
    for (l, r) in &mut chunks {
        for (k, v) in values.iter_mut().enumerate() {
            *v = l[k].into() ^ r[CHUNK - 1 - k].into();
        }
        for &v in &values {
            if let Some(slot) = row.get_mut(v as usize) {
                *slot = 1;
            }
        }
    }
    let done = left.len() / CHUNK * CHUNK;
    for (k, &x) in left.iter().enumerate().skip(done) {
        row[(x.into() ^ right[right.len() - 1 - k].into()) as usize] = 1;
    }
}

/// The smaller parts `a` of the splits `(a, m - a)` of two heaps older than `n` that a row
/// marks ahead: at most `reach` of them, from the largest (`m / 2`). Parts of about the same
/// size have values of about the same size, whose XOR is small: the small values a heap's mex
/// needs are found there first.
#[inline]
fn ahead(m: usize, n: usize, reach: usize) -> Range<usize> {
    let first = (m + 1).saturating_sub(n).max(1);
    let end = (m / 2 + 1).max(first);
    end.saturating_sub(reach).max(first)..end
}

/// The index range of the rare heaps `r` whose split `(r, m - r)` has both parts older than
/// `n`: `m - n < r < min(m, n)`.
#[inline]
fn old_rare(rare: &[u32], m: usize, n: usize) -> (usize, usize) {
    let lo = rare.partition_point(|&r| (r as usize) <= m.saturating_sub(n));
    let hi = rare.partition_point(|&r| (r as usize) < m.min(n));
    (lo, hi.max(lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::code::Code;
    use crate::octal::naive::naive;

    impl Value for u8 {}

    #[test]
    fn a_value_too_wide_for_the_storage_stops_the_extension_where_it_is() {
        // Taking 1 to 300 tokens leaving one heap or none: G(n) = n mod 301.
        let moves = Code::parse(&format!("0.{}", "3".repeat(300)), false).unwrap().moves();
        let mut g: Vec<u8> = vec![0];
        let mut state = Sparse::new(&g);
        assert_eq!(state.extend(&moves, &mut g, 700), Err(256));
        assert_eq!(g.len(), 256);
        // Going on in 4 bytes from the same state gives the plain method's values.
        let mut wide: Vec<u32> = g.iter().map(|&v| v.into()).collect();
        assert_eq!(state.extend(&moves, &mut wide, 700), Ok(()));
        assert_eq!(wide, naive(&moves, 700));
    }
}
