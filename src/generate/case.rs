//! One case being generated: its hidden order, degrees drawn or dealt exactly (within the
//! spec's [`Layout`]), and its nodes and queries formatted a block at a time.

use rayon::prelude::*;

use super::aim::ValueIndex;
use super::random::{mix, push_u32, Ranks, Rng};
use super::spec::{Edges, Layout, NodeRange, Shape, Spec};
use super::{NODE_BLOCK, QUERY_BLOCK};

/// One case being generated: its size, hidden order, and (for exact edge counts) degrees.
pub(super) struct CaseGen<'s> {
    pub(super) spec: &'s Spec,
    pub(super) n: u32,
    pub(super) seed: u64,
    pub(super) layout: Layout,
    pub(super) ranks: Ranks,
    /// Out-degree by id, when fixed in advance (`Edges::Exact`).
    pub(super) degrees: Option<Vec<u32>>,
    pub(super) mean: f64,
}

impl<'s> CaseGen<'s> {
    pub(super) fn new(spec: &'s Spec, case: u32) -> CaseGen<'s> {
        let seed = mix(spec.seed ^ mix(u64::from(case) + 1));
        let NodeRange { min, max } = spec.nodes;
        let n = min + Rng::new(mix(seed ^ 0x7369_7a65)).below(u64::from(max - min) + 1) as u32;
        let layout = Layout::new(spec, n);
        let ranks = Ranks::new(n, seed, spec.sorted);
        let mean = match spec.edges {
            Edges::Mean(a) => a,
            Edges::Exact(e) => e as f64 / f64::from(n),
        };
        let mut gen = CaseGen { spec, n, seed, layout, ranks, degrees: None, mean };
        if let (Edges::Exact(e), Shape::Random | Shape::Layered | Shape::Wide) =
            (spec.edges, spec.shape)
        {
            gen.degrees = Some(gen.exact_degrees(e));
        }
        gen
    }

    /// A random out-degree for the node at `rank`, within its cap. A node that can have no
    /// out-position draws nothing, so the streams (and the files) of the plain
    /// `--avg-degree` mode stay what earlier versions wrote.
    pub(super) fn drawn_degree(&self, rank: u32, rng: &mut Rng) -> u32 {
        let cap = self.layout.cap(rank);
        if cap == 0 {
            return 0;
        }
        let d = (rng.unit() * (2.0 * self.mean + 1.0)) as u64;
        d.min(u64::from(cap)) as u32
    }

    /// Out-degrees by id summing to exactly `total`: drawn as for a mean of `total / n`, then
    /// moved one at a time at random nodes until the sum is right, then (if the caps leave
    /// few nodes to move) swept in id order from a random start, which always finishes since
    /// `total` fits the capacity ([`Spec::validate`]).
    pub(super) fn exact_degrees(&self, total: u64) -> Vec<u32> {
        let n = self.n;
        let blocks = n.div_ceil(NODE_BLOCK);
        let drawn: Vec<Vec<u32>> = (0..blocks)
            .into_par_iter()
            .map(|b| {
                let mut rng = Rng::new(mix(self.seed ^ 0x6465_6772 ^ (u64::from(b) << 20)));
                let ids = b * NODE_BLOCK..((b + 1) * NODE_BLOCK).min(n);
                ids.map(|id| self.drawn_degree(self.ranks.rank(id), &mut rng)).collect()
            })
            .collect();
        let mut degree: Vec<u32> = drawn.concat();
        let cap = |id: u32| self.layout.cap(self.ranks.rank(id));
        let mut sum: u64 = degree.iter().map(|&d| u64::from(d)).sum();
        let mut rng = Rng::new(mix(self.seed ^ 0x0065_7861_6374));
        let mut tries = 8 * sum.abs_diff(total) + 64;
        while sum != total && tries > 0 {
            tries -= 1;
            let id = rng.below(u64::from(n)) as u32;
            let d = &mut degree[id as usize];
            if sum < total && *d < cap(id) {
                *d += 1;
                sum += 1;
            } else if sum > total && *d > 0 {
                *d -= 1;
                sum -= 1;
            }
        }
        let start = rng.below(u64::from(n)) as u32;
        for i in 0..n {
            if sum == total {
                break;
            }
            let id = (start + i) % n;
            let d = &mut degree[id as usize];
            if sum < total {
                let add = (u64::from(cap(id) - *d)).min(total - sum);
                *d += add as u32;
                sum += add;
            } else {
                let remove = u64::from(*d).min(sum - total);
                *d -= remove as u32;
                sum -= remove;
            }
        }
        degree
    }

    /// Appends the out-positions (ids) of node `id`.
    pub(super) fn targets(&self, id: u32, rng: &mut Rng, out: &mut Vec<u32>) {
        let rank = self.ranks.rank(id);
        let (start, count) = self.layout.candidates(rank);
        let first = out.len();
        match self.shape() {
            Shape::Chain | Shape::Tournament => out.extend(start..start + count),
            _ => {
                let degree = match &self.degrees {
                    Some(d) => d[id as usize],
                    None => self.drawn_degree(rank, rng),
                };
                if self.spec.simple {
                    sample_distinct(rng, count, degree, out);
                    out[first..].iter_mut().for_each(|t| *t += start);
                } else {
                    out.extend((0..degree).map(|_| start + rng.below(u64::from(count)) as u32));
                }
            }
        }
        if let Some(share) = self.spec.back_edges.filter(|&s| s > 0.0) {
            for t in &mut out[first..] {
                if rng.unit() < share {
                    *t = rng.below(u64::from(rank) + 1) as u32;
                }
            }
        }
        out[first..].iter_mut().for_each(|t| *t = self.ranks.id(*t));
    }

    pub(super) fn shape(&self) -> Shape {
        self.layout.shape
    }

    /// Node block `block`: its text (unless `text` is false) and, if `keep`, its out-degrees
    /// and out-positions.
    pub(super) fn node_block(&self, block: u32, text: bool, keep: bool) -> NodeBlock {
        let mut rng = Rng::new(mix(self.seed ^ 0x6e6f_6465 ^ (u64::from(block) << 20)));
        let first = block * NODE_BLOCK;
        let last = (first + NODE_BLOCK).min(self.n);
        let mut out = NodeBlock::default();
        if text {
            out.text.reserve((last - first) as usize * (8 + 16 * self.mean as usize));
        }
        let mut targets = Vec::new();
        for id in first..last {
            targets.clear();
            self.targets(id, &mut rng, &mut targets);
            if text {
                push_u32(&mut out.text, targets.len() as u32);
                for &t in &targets {
                    out.text.push(b' ');
                    push_u32(&mut out.text, t);
                }
                out.text.push(b'\n');
            }
            if keep {
                out.degrees.push(targets.len() as u32);
                out.targets.extend_from_slice(&targets);
            }
        }
        out
    }

    /// The lines of queries `block * QUERY_BLOCK ..`, drawn to lose about `lose_share` of the
    /// time when `values` are known.
    pub(super) fn query_block(&self, block: u64, values: Option<&ValueIndex>) -> Vec<u8> {
        let spec = self.spec;
        let mut rng = Rng::new(mix(self.seed ^ 0x7175_6572_7900 ^ (block << 24)));
        let first = block * QUERY_BLOCK;
        let last = (first + QUERY_BLOCK).min(spec.queries);
        let mut text = Vec::with_capacity((last - first) as usize * 8 * spec.max_tokens as usize);
        let mut tokens = Vec::new();
        let spread = u64::from(spec.max_tokens - spec.min_tokens) + 1;
        for _ in first..last {
            let m = spec.min_tokens + rng.below(spread) as u32;
            tokens.clear();
            match (values, spec.lose_share) {
                (Some(index), Some(share)) if rng.unit() < share => {
                    index.losing(&mut rng, m, &mut tokens)
                }
                (Some(index), _) => index.winning(&mut rng, m, &mut tokens),
                _ => tokens.extend((0..m).map(|_| rng.below(u64::from(self.n)) as u32)),
            }
            push_u32(&mut text, m);
            for &t in &tokens {
                text.push(b' ');
                push_u32(&mut text, t);
            }
            text.push(b'\n');
        }
        text
    }
}

/// A block of generated nodes.
#[derive(Debug, Default)]
pub(super) struct NodeBlock {
    pub(super) text: Vec<u8>,
    pub(super) degrees: Vec<u32>,
    pub(super) targets: Vec<u32>,
}

/// Appends `d` distinct numbers of `0..count` (`d <= count`), uniformly among such sets:
/// selection sampling when they are many, Floyd's algorithm when they are few.
pub(super) fn sample_distinct(rng: &mut Rng, count: u32, d: u32, out: &mut Vec<u32>) {
    debug_assert!(d <= count);
    if d == 0 {
        return;
    }
    if 2 * u64::from(d) >= u64::from(count) {
        let mut need = d;
        for k in 0..count {
            if rng.below(u64::from(count - k)) < u64::from(need) {
                out.push(k);
                need -= 1;
                if need == 0 {
                    break;
                }
            }
        }
        return;
    }
    let mut chosen = std::collections::HashSet::with_capacity(d as usize);
    for j in count - d..count {
        let t = rng.below(u64::from(j) + 1) as u32;
        let pick = if chosen.contains(&t) { j } else { t };
        chosen.insert(pick);
        out.push(pick);
    }
}
