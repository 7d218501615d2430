//! The plain method: every move of every heap, `O(n^2)` for two-heap splits. The tested twin
//! of the sparse method, and the only method for three-heap splits (hexadecimal codes).

use super::code::Moves;
use super::column::Column;

/// G(0..=n) for `moves`, trying every move of every heap.
pub fn naive(moves: &Moves, n: usize) -> Vec<u32> {
    let mut g = Column::from(Vec::with_capacity(n + 1));
    extend(moves, &mut g, n);
    g.into_vec()
}

/// Extends `g` (G(0..g.len())) up to G(upto), trying every move of every heap.
pub fn extend(moves: &Moves, g: &mut Column<u32>, upto: usize) {
    let mut seen: Vec<bool> = Vec::new();
    for h in g.len()..=upto {
        seen.clear();
        let mut mark = |x: u32| {
            let x = x as usize;
            if seen.len() <= x {
                seen.resize(x + 1, false);
            }
            seen[x] = true;
        };
        options(moves, g, h, &mut mark);
        let value = (0..).find(|&x| !seen.get(x as usize).copied().unwrap_or(false)).unwrap_or(0);
        g.push(value);
    }
}

/// Calls `mark` with the value of every move from a heap of `h`, given `g[..h]`.
pub fn options(moves: &Moves, g: &[u32], h: usize, mark: &mut impl FnMut(u32)) {
    for &j in &moves.empty {
        if h == j as usize {
            mark(0);
        }
    }
    for &j in &moves.one {
        if h > j as usize {
            mark(g[h - j as usize]);
        }
    }
    for &j in &moves.two {
        let m = h.saturating_sub(j as usize);
        for a in 1..=m / 2 {
            mark(g[a] ^ g[m - a]);
        }
    }
    for &j in &moves.three {
        let m = h.saturating_sub(j as usize);
        for a in 1..=m / 3 {
            for b in a..=(m - a) / 2 {
                mark(g[a] ^ g[b] ^ g[m - a - b]);
            }
        }
    }
}
