//! Queries aimed at values: every node's value and the nodes of each value, so that a query
//! can be made a LOSE or a WIN on purpose (`--lose-share`).

use super::random::Rng;
use super::QUERY_TRIES;

/// Every node's value and, for each value, the nodes that have it: what choosing a LOSE or a
/// WIN query needs. 8 bytes per node besides the values.
pub(super) struct ValueIndex {
    values: Vec<u32>,
    /// `nodes[starts[g]..starts[g + 1]]` have value `g`.
    starts: Vec<u32>,
    nodes: Vec<u32>,
}

impl ValueIndex {
    pub(super) fn new(values: Vec<u32>) -> ValueIndex {
        let top = values.iter().copied().max().unwrap_or(0) as usize;
        let mut starts = vec![0u32; top + 2];
        for &g in &values {
            starts[g as usize + 1] += 1;
        }
        for g in 0..=top {
            starts[g + 1] += starts[g];
        }
        let mut cursor = starts.clone();
        let mut nodes = vec![0u32; values.len()];
        for (v, &g) in values.iter().enumerate() {
            nodes[cursor[g as usize] as usize] = v as u32;
            cursor[g as usize] += 1;
        }
        ValueIndex { values, starts, nodes }
    }

    pub(super) fn random_node(&self, rng: &mut Rng) -> u32 {
        rng.below(self.values.len() as u64) as u32
    }

    /// A random node of value `g`, if there is one.
    pub(super) fn node_of_value(&self, rng: &mut Rng, g: u32) -> Option<u32> {
        let (a, b) = (*self.starts.get(g as usize)?, *self.starts.get(g as usize + 1)?);
        (a < b).then(|| self.nodes[(a + rng.below(u64::from(b - a)) as u32) as usize])
    }

    pub(super) fn nim_sum(&self, tokens: &[u32]) -> u32 {
        tokens.iter().fold(0, |x, &t| x ^ self.values[t as usize])
    }

    /// `m` tokens whose nim-sum is 0: `m - 1` at random and one of the value that cancels
    /// them; failing that, tokens in equal pairs and a sink.
    pub(super) fn losing(&self, rng: &mut Rng, m: u32, out: &mut Vec<u32>) {
        for _ in 0..QUERY_TRIES {
            out.clear();
            out.extend((1..m).map(|_| self.random_node(rng)));
            if let Some(last) = self.node_of_value(rng, self.nim_sum(out)) {
                out.push(last);
                return;
            }
        }
        out.clear();
        for _ in 0..m / 2 {
            let t = self.random_node(rng);
            out.extend([t, t]);
        }
        if m % 2 == 1 {
            // Every graph has a sink, of value 0.
            out.push(self.node_of_value(rng, 0).unwrap_or(0));
        }
    }

    /// `m` tokens at random, the last one drawn again until the nim-sum is not 0 (a few
    /// tries: when every node has the one value that cancels the others, it stays 0).
    pub(super) fn winning(&self, rng: &mut Rng, m: u32, out: &mut Vec<u32>) {
        out.extend((0..m).map(|_| self.random_node(rng)));
        let others = self.nim_sum(&out[..out.len() - 1]);
        for _ in 0..QUERY_TRIES {
            let last = out[out.len() - 1];
            if self.values[last as usize] != others {
                return;
            }
            let len = out.len();
            out[len - 1] = self.random_node(rng);
        }
    }
}
