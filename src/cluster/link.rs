//! A node whose moves are all settled but one is a function of that one ([`Link`]), and what
//! an owner says of a node it is asked about ([`Probe`]): the algebra of pointer jumping
//! ([`super::jump`]), apart from its rounds.

use serde::{Deserialize, Serialize};

/// A node's value and level as a function of one open out-position's: value `b` if that
/// position's value is `a`, else `c`; level `max(k, its level + d)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    a: u32,
    b: u32,
    c: u32,
    k: u32,
    d: u32,
}

impl Link {
    /// The link of a node whose other out-positions settled with `known` (value, level) pairs.
    pub fn of(known: &[(u32, u32)]) -> Link {
        let mut values: Vec<u32> = known.iter().map(|&(v, _)| v).collect();
        values.sort_unstable();
        values.dedup();
        let a = mex_after(&values, 0);
        let b = mex_after(&values, a + 1);
        let k = known.iter().map(|&(_, l)| l + 1).max().unwrap_or(0);
        Link { a, b, c: a, k, d: 1 }
    }

    /// The value and level, given the open out-position's.
    pub fn apply(&self, (value, level): (u32, u32)) -> (u32, u32) {
        let v = if value == self.a { self.b } else { self.c };
        (v, self.k.max(level.saturating_add(self.d)))
    }

    /// The value and level when no out-position is open: the known ones decide.
    pub fn settled(&self) -> (u32, u32) {
        (self.c, self.k)
    }

    /// This link after `inner` (the link of this one's open out-position).
    pub fn after(&self, inner: &Link) -> Link {
        Link {
            a: inner.a,
            b: self.apply((inner.b, 0)).0,
            c: self.apply((inner.c, 0)).0,
            k: self.k.max(inner.k.saturating_add(self.d)),
            d: inner.d.saturating_add(self.d),
        }
    }
}

/// The smallest value of at least `from` not in `sorted` (sorted, no repeats).
fn mex_after(sorted: &[u32], from: u32) -> u32 {
    let mut x = from;
    for &v in &sorted[sorted.partition_point(|&v| v < from)..] {
        if v != x {
            break;
        }
        x += 1;
    }
    x
}

/// What a node's owner says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Probe {
    /// Settled, with this value and level.
    Settled(u32, u32),
    /// Open, and a function of this other node.
    Linked(Link, u64),
    /// Open, with two or more open moves (or not in this phase).
    Open,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mex of a set, the slow way.
    fn mex(values: &[u32]) -> u32 {
        (0..).find(|v| !values.contains(v)).unwrap_or(0)
    }

    #[test]
    fn links_give_the_mex_and_compose() {
        let sets: [&[(u32, u32)]; 6] =
            [&[], &[(0, 0)], &[(1, 3)], &[(0, 1), (1, 0), (3, 2)], &[(2, 5), (0, 0)], &[(0, 9)]];
        for known in sets {
            let link = Link::of(known);
            let values: Vec<u32> = known.iter().map(|k| k.0).collect();
            for x in 0..6 {
                for lx in 0..4 {
                    let mut with = values.clone();
                    with.push(x);
                    let level = known.iter().map(|k| k.1).chain([lx]).max().unwrap_or(0) + 1;
                    assert_eq!(link.apply((x, lx)), (mex(&with), level), "{known:?} {x}");
                }
            }
            for inner in sets {
                let inner_link = Link::of(inner);
                for x in 0..6 {
                    let composed = link.after(&inner_link).apply((x, 2));
                    assert_eq!(
                        composed,
                        link.apply(inner_link.apply((x, 2))),
                        "{known:?} {inner:?}"
                    );
                }
            }
        }
    }
}
