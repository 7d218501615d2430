//! The nodes of a DAG grouped into levels: stored (a peeled graph), or computed from a
//! game's own structure with nothing stored per node.

/// The nodes of a DAG in a topological order (sinks first), grouped by level: every node of
/// a level depends only on lower levels.
///
/// Three forms, one behaviour:
/// - stored: `order` lists every node once, level by level, `level_starts` where each level
///   starts (Kahn's peeling; a game's own grouping). 4 bytes per node and per level.
/// - contiguous: node ids in increasing order are the order, `level_starts` groups them.
///   4 bytes per level.
/// - each: node ids in increasing order, each its own level (the heap sizes of a sequence
///   game). Nothing stored: a game of 2^30 positions pays nothing to describe its order.
///
/// Invariants: `level_starts[0] == 0`, it is strictly increasing and ends with the node count;
/// in the stored form `order` is a permutation of the nodes and ids increase within a level.
/// The sequential and parallel builders give equal values of this type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    repr: Repr,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Repr {
    Stored { order: Vec<u32>, level_starts: Vec<u32> },
    Contiguous { level_starts: Vec<u32> },
    Each { nodes: u32 },
}

/// The nodes of one level: listed, or a span of consecutive ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level<'a> {
    /// Nodes listed in increasing id order.
    Listed(&'a [u32]),
    /// The ids `start..end`.
    Span {
        /// First id.
        start: u32,
        /// One past the last id.
        end: u32,
    },
}

impl Level<'_> {
    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        match *self {
            Level::Listed(nodes) => nodes.len(),
            Level::Span { start, end } => (end - start) as usize,
        }
    }

    /// True for a level with no node (never produced by [`Levels`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th node of the level.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match *self {
            Level::Listed(nodes) => nodes[i],
            Level::Span { start, .. } => start + i as u32,
        }
    }

    /// The nodes, in increasing id order.
    #[inline]
    pub fn iter(&self) -> Nodes<'_> {
        match *self {
            Level::Listed(nodes) => Nodes::Listed(nodes.iter()),
            Level::Span { start, end } => Nodes::Span(start..end),
        }
    }
}

/// The nodes of a level, or of a whole order.
#[derive(Debug, Clone)]
pub enum Nodes<'a> {
    /// Listed nodes.
    Listed(std::slice::Iter<'a, u32>),
    /// Consecutive ids.
    Span(std::ops::Range<u32>),
}

impl Iterator for Nodes<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Nodes::Listed(nodes) => nodes.next().copied(),
            Nodes::Span(ids) => ids.next(),
        }
    }
}

impl Levels {
    /// Stored levels: `order` lists every node once, level by level, `level_starts` where each
    /// level starts (ending with the node count). `None` if the shape is inconsistent.
    pub fn from_groups(order: Vec<u32>, level_starts: Vec<u32>) -> Option<Levels> {
        let n = order.len();
        starts_fit(&level_starts, n)
            .then_some(Levels { repr: Repr::Stored { order, level_starts } })
    }

    /// Stored levels built by a peeling that established the invariants itself.
    pub(crate) fn stored(order: Vec<u32>, level_starts: Vec<u32>) -> Levels {
        debug_assert!(starts_fit(&level_starts, order.len()));
        Levels { repr: Repr::Stored { order, level_starts } }
    }

    /// Levels of node ids in increasing order, grouped by `level_starts` (ending with the node
    /// count): 4 bytes per level, none per node. `None` if the shape is inconsistent.
    pub fn contiguous(level_starts: Vec<u32>) -> Option<Levels> {
        let n = level_starts.last().copied().unwrap_or(0) as usize;
        starts_fit(&level_starts, n).then_some(Levels { repr: Repr::Contiguous { level_starts } })
    }

    /// `nodes` levels of one node each, in id order: nothing stored.
    pub fn each(nodes: u32) -> Levels {
        Levels { repr: Repr::Each { nodes } }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        match &self.repr {
            Repr::Stored { order, .. } => order.len(),
            Repr::Contiguous { level_starts } => *level_starts.last().unwrap_or(&0) as usize,
            Repr::Each { nodes } => *nodes as usize,
        }
    }

    /// All nodes, sinks first, level by level.
    pub fn nodes(&self) -> Nodes<'_> {
        match &self.repr {
            Repr::Stored { order, .. } => Nodes::Listed(order.iter()),
            _ => Nodes::Span(0..self.node_count() as u32),
        }
    }

    /// Number of levels (0 for an empty graph).
    pub fn level_count(&self) -> usize {
        match &self.repr {
            Repr::Stored { level_starts, .. } | Repr::Contiguous { level_starts } => {
                level_starts.len() - 1
            }
            Repr::Each { nodes } => *nodes as usize,
        }
    }

    /// Where level `l` starts in [`Levels::nodes`]: the number of nodes in lower levels.
    pub fn level_start(&self, l: usize) -> usize {
        match &self.repr {
            Repr::Stored { level_starts, .. } | Repr::Contiguous { level_starts } => {
                level_starts[l] as usize
            }
            Repr::Each { .. } => l,
        }
    }

    /// The nodes of levels `levels`, level by level (each level in increasing id order).
    pub fn nodes_of(&self, levels: std::ops::Range<usize>) -> Nodes<'_> {
        let (a, b) = (self.level_start(levels.start), self.level_start(levels.end));
        match &self.repr {
            Repr::Stored { order, .. } => Nodes::Listed(order[a..b].iter()),
            _ => Nodes::Span(a as u32..b as u32),
        }
    }

    /// The nodes of level `l`.
    #[inline]
    pub fn level(&self, l: usize) -> Level<'_> {
        let span = |a: usize, b: usize| Level::Span { start: a as u32, end: b as u32 };
        match &self.repr {
            Repr::Stored { order, level_starts } => {
                Level::Listed(&order[level_starts[l] as usize..level_starts[l + 1] as usize])
            }
            Repr::Contiguous { level_starts } => {
                span(level_starts[l] as usize, level_starts[l + 1] as usize)
            }
            Repr::Each { .. } => span(l, l + 1),
        }
    }

    /// Each node's level, indexed by node id (4 bytes per node, built on demand).
    pub fn node_levels(&self) -> Vec<u32> {
        let mut levels = vec![0u32; self.node_count()];
        for l in 0..self.level_count() {
            for v in self.level(l).iter() {
                levels[v as usize] = l as u32;
            }
        }
        levels
    }
}

/// True when `level_starts` starts at 0, strictly increases and ends at `n` (or is `[0]` for
/// no node).
fn starts_fit(level_starts: &[u32], n: usize) -> bool {
    let consistent = level_starts.first() == Some(&0)
        && level_starts.windows(2).all(|w| w[0] < w[1])
        && level_starts.last().map(|&e| e as usize) == Some(n);
    consistent || n == 0 && level_starts == [0]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form's levels, as plain lists.
    fn lists(levels: &Levels) -> Vec<Vec<u32>> {
        (0..levels.level_count()).map(|l| levels.level(l).iter().collect()).collect()
    }

    #[test]
    fn the_three_forms_describe_the_same_levels() {
        let stored = Levels::from_groups(vec![0, 1, 2, 3, 4], vec![0, 2, 3, 5]).unwrap();
        let contiguous = Levels::contiguous(vec![0, 2, 3, 5]).unwrap();
        assert_eq!(lists(&stored), lists(&contiguous));
        assert_eq!(lists(&contiguous), vec![vec![0, 1], vec![2], vec![3, 4]]);
        let each = Levels::each(3);
        let one_each = Levels::from_groups(vec![0, 1, 2], vec![0, 1, 2, 3]).unwrap();
        assert_eq!(lists(&each), lists(&one_each));
        for levels in [&stored, &contiguous, &each] {
            let all: Vec<u32> = levels.nodes().collect();
            let flat: Vec<u32> = lists(levels).concat();
            assert_eq!(all, flat);
            assert_eq!(levels.node_count(), all.len());
            let starts: Vec<usize> =
                (0..levels.level_count()).map(|l| levels.level_start(l)).collect();
            let lens: Vec<usize> = lists(levels).iter().map(Vec::len).collect();
            let sums: Vec<usize> = lens
                .iter()
                .scan(0, |s, &x| {
                    let a = *s;
                    *s += x;
                    Some(a)
                })
                .collect();
            assert_eq!(starts, sums);
        }
        assert_eq!(stored.node_levels(), vec![0, 0, 1, 2, 2]);
        assert_eq!(each.node_levels(), vec![0, 1, 2]);
    }

    #[test]
    fn inconsistent_shapes_are_refused() {
        assert!(Levels::from_groups(vec![0, 1], vec![0, 1]).is_none());
        assert!(Levels::from_groups(vec![0, 1], vec![0, 0, 2]).is_none());
        assert!(Levels::contiguous(vec![1, 2]).is_none());
        assert!(Levels::from_groups(vec![], vec![0]).is_some());
        assert_eq!(Levels::each(0).level_count(), 0);
    }
}
