//! `grundy generate`'s engine: deterministic, valid chess-format files for benchmarks and for
//! problem setters.
//!
//! Every case hides a topological rank behind shuffled node ids (so id order is not an order
//! a solver can rely on), and edges only go from a lower rank to a higher one, so the graph is
//! acyclic by construction. Work is cut into fixed blocks of nodes and of queries, each with its
//! own random stream derived from the seed, so the bytes depend on the arguments and the seed
//! only, never on the number of threads. Blocks are formatted in parallel and written in order,
//! a bounded batch at a time.

use std::io::{self, Write};

use rayon::prelude::*;

/// The structure of the generated graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    /// Out-positions uniform among the later ranks: the textbook random DAG (shallow, wide
    /// levels).
    Random,
    /// One path through all nodes: a million nodes make a million levels.
    Chain,
    /// Layers of about sqrt(N) nodes; edges go to the next layer.
    Layered,
    /// Eight layers of N/8 nodes; edges go to the next layer.
    Wide,
    /// Every node moves to every later one: N(N-1)/2 edges.
    Tournament,
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Nodes per case (at least 1).
    pub nodes: u32,
    /// Mean out-degree of `Random`, `Layered` and `Wide` nodes (degrees are uniform in
    /// `0..=2 * avg_degree`, fewer where not enough later nodes exist).
    pub avg_degree: f64,
    /// Queries per case.
    pub queries: u64,
    /// Tokens per query are uniform in `1..=max_tokens`.
    pub max_tokens: u32,
    /// Number of cases.
    pub cases: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Graph structure.
    pub shape: Shape,
}

impl Spec {
    /// Checks the spec can produce a file `grundy solve` accepts.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes == 0 {
            return Err("--nodes must be at least 1".into());
        }
        if !(self.avg_degree.is_finite() && self.avg_degree >= 0.0) {
            return Err("--avg-degree must be a non-negative number".into());
        }
        if self.max_tokens == 0 {
            return Err("--max-tokens must be at least 1".into());
        }
        let n = u64::from(self.nodes);
        let edges = match self.shape {
            Shape::Tournament => n * (n - 1) / 2,
            Shape::Chain => n - 1,
            _ => (self.avg_degree * 2.0 * n as f64) as u64,
        };
        if edges > u64::from(u32::MAX) {
            return Err(format!("a case would have up to {edges} edges; at most {} fit", u32::MAX));
        }
        Ok(())
    }
}

/// Nodes per block; a block is one unit of parallel work and one random stream.
const NODE_BLOCK: u32 = 1 << 14;
/// Queries per block.
const QUERY_BLOCK: u64 = 1 << 14;
/// Blocks formatted before a batch is written: bounds memory to a few tens of MB.
const BATCH: usize = 64;

/// Writes the file described by `spec` to `out`.
pub fn generate(spec: &Spec, out: &mut impl Write) -> io::Result<()> {
    for case in 0..spec.cases {
        let case_seed = mix(spec.seed ^ mix(u64::from(case) + 1));
        let ranks = Ranks::new(spec.nodes, case_seed);
        writeln!(out, "{}", spec.nodes)?;
        let blocks = spec.nodes.div_ceil(NODE_BLOCK);
        write_batched(out, blocks as u64, |b| node_block(spec, &ranks, case_seed, b as u32))?;
        let blocks = spec.queries.div_ceil(QUERY_BLOCK);
        write_batched(out, blocks, |b| query_block(spec, case_seed, b))?;
        out.write_all(b"0\n")?;
    }
    Ok(())
}

/// Formats `blocks` blocks with `make` in parallel, writing them in order, `BATCH` at a time.
fn write_batched(
    out: &mut impl Write,
    blocks: u64,
    make: impl Fn(u64) -> Vec<u8> + Sync,
) -> io::Result<()> {
    let mut start = 0;
    while start < blocks {
        let end = (start + BATCH as u64).min(blocks);
        let texts: Vec<Vec<u8>> = (start..end).into_par_iter().map(&make).collect();
        for text in texts {
            out.write_all(&text)?;
        }
        start = end;
    }
    Ok(())
}

/// The hidden topological order: `id_of[rank]` and its inverse `rank_of[id]`.
struct Ranks {
    id_of: Vec<u32>,
    rank_of: Vec<u32>,
}

impl Ranks {
    fn new(n: u32, seed: u64) -> Ranks {
        let mut id_of: Vec<u32> = (0..n).collect();
        let mut rng = Rng::new(seed);
        for i in (1..n as usize).rev() {
            id_of.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut rank_of = vec![0u32; n as usize];
        for (rank, &id) in id_of.iter().enumerate() {
            rank_of[id as usize] = rank as u32;
        }
        Ranks { id_of, rank_of }
    }
}

/// The lines of nodes `block * NODE_BLOCK ..` in id order.
fn node_block(spec: &Spec, ranks: &Ranks, case_seed: u64, block: u32) -> Vec<u8> {
    let mut rng = Rng::new(mix(case_seed ^ 0x6e6f_6465 ^ (u64::from(block) << 20)));
    let n = spec.nodes;
    let first = block * NODE_BLOCK;
    let last = (first + NODE_BLOCK).min(n);
    let mut text =
        Vec::with_capacity((last - first) as usize * (8 + 16 * spec.avg_degree as usize));
    let mut targets = Vec::new();
    for id in first..last {
        let rank = ranks.rank_of[id as usize];
        targets.clear();
        targets_of(spec, rank, &mut rng, &mut targets);
        push_u32(&mut text, targets.len() as u32);
        for &t in &targets {
            text.push(b' ');
            push_u32(&mut text, ranks.id_of[t as usize]);
        }
        text.push(b'\n');
    }
    text
}

/// The ranks that the node at `rank` moves to.
fn targets_of(spec: &Spec, rank: u32, rng: &mut Rng, out: &mut Vec<u32>) {
    let n = spec.nodes;
    let later = n - rank - 1;
    if later == 0 {
        return;
    }
    match spec.shape {
        Shape::Chain => out.push(rank + 1),
        Shape::Tournament => out.extend(rank + 1..n),
        Shape::Random => {
            let d = random_degree(rng, spec.avg_degree);
            for _ in 0..d {
                out.push(rank + 1 + rng.below(u64::from(later)) as u32);
            }
        }
        Shape::Layered | Shape::Wide => {
            let width = match spec.shape {
                Shape::Layered => ((n as f64).sqrt() as u32).max(1),
                _ => n.div_ceil(8),
            };
            let next = (rank / width + 1) * width;
            if next >= n {
                return;
            }
            let span = u64::from(width.min(n - next));
            let d = random_degree(rng, spec.avg_degree);
            for _ in 0..d {
                out.push(next + rng.below(span) as u32);
            }
        }
    }
}

/// An out-degree uniform in `0..=2 * avg` (mean `avg`).
fn random_degree(rng: &mut Rng, avg: f64) -> u64 {
    (rng.unit() * (2.0 * avg + 1.0)) as u64
}

/// The lines of queries `block * QUERY_BLOCK ..`.
fn query_block(spec: &Spec, case_seed: u64, block: u64) -> Vec<u8> {
    let mut rng = Rng::new(mix(case_seed ^ 0x7175_6572_7900 ^ (block << 24)));
    let first = block * QUERY_BLOCK;
    let last = (first + QUERY_BLOCK).min(spec.queries);
    let mut text = Vec::with_capacity((last - first) as usize * 8 * spec.max_tokens as usize);
    for _ in first..last {
        let m = 1 + rng.below(u64::from(spec.max_tokens)) as u32;
        push_u32(&mut text, m);
        for _ in 0..m {
            text.push(b' ');
            push_u32(&mut text, rng.below(u64::from(spec.nodes)) as u32);
        }
        text.push(b'\n');
    }
    text
}

/// Appends the decimal digits of `x`.
#[inline]
fn push_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// The SplitMix64 finaliser: spreads seeds so neighbouring blocks get unrelated streams.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64: fast, seedable, and good enough for test data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift: no division on the hot path.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(shape: Shape) -> Spec {
        Spec {
            nodes: 40_000,
            avg_degree: 3.0,
            queries: 20_000,
            max_tokens: 4,
            cases: 2,
            seed: 7,
            shape,
        }
    }

    fn bytes(spec: &Spec) -> Vec<u8> {
        let mut out = Vec::new();
        generate(spec, &mut out).unwrap();
        out
    }

    #[test]
    fn same_spec_same_bytes_whatever_the_threads() {
        let s = spec(Shape::Random);
        let a = bytes(&s);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = one.install(|| bytes(&s));
        assert_eq!(a, b);
        let c = bytes(&Spec { seed: 8, ..s });
        assert_ne!(a, c);
    }

    #[test]
    fn validate_rejects_what_solve_could_not_read() {
        assert!(spec(Shape::Random).validate().is_ok());
        assert!(Spec { nodes: 0, ..spec(Shape::Random) }.validate().is_err());
        assert!(Spec { nodes: 100_000, ..spec(Shape::Tournament) }.validate().is_err());
        assert!(Spec { avg_degree: f64::NAN, ..spec(Shape::Random) }.validate().is_err());
    }
}
