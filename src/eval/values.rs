//! What an evaluation gives: the value of every node, read through one type.

/// The Grundy value of every node of a game, indexed by node id: what evaluators return and
/// every consumer reads. 4 bytes per node.
///
/// Consumers ask for a node's value, a nim-sum or the largest value, never index a bare
/// vector, so that a kind of value to come (the infinite values of loopy games) changes this
/// type and the code that decides outcomes, not every reader.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Values(Vec<u32>);

impl Values {
    /// The value of a node of a loopy game that has none (infinity, written `inf`): it is no
    /// finite value, since a finite one needs as many other nodes.
    pub const INFINITE: u32 = u32::MAX;

    /// Values given by node id.
    pub fn from_vec(values: Vec<u32>) -> Values {
        Values(values)
    }

    /// The value of node `v`.
    #[inline]
    pub fn get(&self, v: u32) -> u32 {
        self.0[v as usize]
    }

    /// The nim-sum (XOR of values) of tokens on `positions`.
    #[inline]
    pub fn nim_sum(&self, positions: &[u32]) -> u32 {
        positions.iter().fold(0, |acc, &p| acc ^ self.get(p))
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for a game with no node.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The largest value, if there is a node.
    pub fn max(&self) -> Option<u32> {
        self.0.iter().copied().max()
    }

    /// The values by node id.
    pub fn as_slice(&self) -> &[u32] {
        &self.0
    }

    /// The values by node id, as a vector.
    pub fn into_vec(self) -> Vec<u32> {
        self.0
    }
}
