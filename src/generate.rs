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

use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Csr;
use crate::meter::{Meter, Stage, Unit};

/// The structure of the generated graphs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl Shape {
    /// The shape as `--shape` names it, for messages: `random`, `chain`, `layered`, `wide`,
    /// `tournament`.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Random => "random",
            Shape::Chain => "chain",
            Shape::Layered => "layered",
            Shape::Wide => "wide",
            Shape::Tournament => "tournament",
        }
    }
}

/// Nodes per case: a fixed count (`min == max`) or a range each case's count is drawn from,
/// both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeRange {
    /// Fewest nodes.
    pub min: u32,
    /// Most nodes.
    pub max: u32,
}

/// How many edges a case of the random, layered and wide shapes gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Edges {
    /// Out-degrees uniform in `0..=2 * mean` (fewer where a node has fewer candidates).
    Mean(f64),
    /// Exactly this many edges per case.
    Exact(u64),
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Nodes per case (at least 1).
    pub nodes: NodeRange,
    /// Edges per case.
    pub edges: Edges,
    /// No node gets more out-positions than this.
    pub max_out_degree: Option<u32>,
    /// No out-position repeats within a node's list.
    pub simple: bool,
    /// Queries per case.
    pub queries: u64,
    /// Fewest tokens per query (at least 1).
    pub min_tokens: u32,
    /// Most tokens per query; counts are uniform in `min_tokens..=max_tokens`.
    pub max_tokens: u32,
    /// About this share of the queries lose (the graph is evaluated to choose them); `None`:
    /// tokens uniform at random.
    pub lose_share: Option<f64>,
    /// Number of cases.
    pub cases: u32,
    /// Seed of every random choice.
    pub seed: u64,
    /// Graph structure.
    pub shape: Shape,
    /// Ids equal to the hidden topological rank, instead of shuffled.
    pub sorted: bool,
    /// Write the queries only, as a query file for `grundy query` (one case).
    pub queries_only: bool,
    /// This share of the edges point back in the hidden order, to an earlier node or the node
    /// itself (cycles and self-loops, for `--loopy`); `None`: an acyclic game.
    pub back_edges: Option<f64>,
}

impl Spec {
    /// A spec of `nodes` nodes per case and defaults elsewhere: a mean out-degree of 2, 1,000
    /// queries of 1 to 10 tokens, one case, seed 0, the random shape.
    pub fn new(nodes: u32) -> Spec {
        Spec {
            nodes: NodeRange { min: nodes, max: nodes },
            edges: Edges::Mean(2.0),
            max_out_degree: None,
            simple: false,
            queries: 1000,
            min_tokens: 1,
            max_tokens: 10,
            lose_share: None,
            cases: 1,
            seed: 0,
            shape: Shape::Random,
            sorted: false,
            queries_only: false,
            back_edges: None,
        }
    }

    /// Checks the spec can produce a file `grundy solve` accepts, within every limit it sets.
    pub fn validate(&self) -> Result<(), String> {
        let NodeRange { min, max } = self.nodes;
        if min == 0 {
            return Err("--nodes must be at least 1".into());
        }
        if self.min_tokens == 0 || self.min_tokens > self.max_tokens {
            return Err(format!(
                "tokens per query must be at least 1, and --min-tokens ({}) at most --max-tokens \
                 ({})",
                self.min_tokens, self.max_tokens
            ));
        }
        if self.lose_share.is_some_and(|f| !(0.0..=1.0).contains(&f)) {
            return Err("--lose-share must be a share between 0 and 1".into());
        }
        if self.back_edges.is_some_and(|f| !(0.0..=1.0).contains(&f)) {
            return Err("--back-edges must be a share between 0 and 1".into());
        }
        if self.queries_only && self.cases != 1 {
            return Err("--queries-only writes the queries of one graph: give --cases 1".into());
        }
        let n = u64::from(max);
        let fixed = match self.shape {
            Shape::Tournament => Some((n * (n - 1) / 2, n - 1)),
            Shape::Chain => Some((n - 1, u64::from(n > 1))),
            _ => None,
        };
        if let (Some((_, degree)), Some(d)) = (fixed, self.max_out_degree) {
            if degree > u64::from(d) {
                return Err(format!(
                    "--shape {} on {n} nodes gives nodes of out-degree {degree}, above \
                     --max-out-degree {d}",
                    self.shape.name()
                ));
            }
        }
        let most = match (fixed, self.edges) {
            (_, Edges::Exact(_)) if min != max => {
                return Err("--edges needs a fixed --nodes; with a range, use --avg-degree".into())
            }
            (Some((count, _)), Edges::Exact(e)) if e != count => {
                let shape = self.shape.name();
                return Err(format!("--shape {shape} on {n} nodes has {count} edges, not {e}"));
            }
            (Some((count, _)), _) => count,
            (None, Edges::Mean(a)) if !(a.is_finite() && a >= 0.0) => {
                return Err("--avg-degree must be a non-negative number".into())
            }
            (None, Edges::Mean(a)) => (a * 2.0 * n as f64) as u64,
            (None, Edges::Exact(e)) => {
                let room = capacity(self, max);
                if e > room {
                    return Err(format!(
                        "{e} edges do not fit in {n} nodes of --shape {}{}: at most {room} do",
                        self.shape.name(),
                        self.limits_text()
                    ));
                }
                e
            }
        };
        if most > u64::from(u32::MAX) {
            return Err(format!("a case would have up to {most} edges; at most {} fit", u32::MAX));
        }
        Ok(())
    }

    fn limits_text(&self) -> String {
        let mut limits = Vec::new();
        if self.simple {
            limits.push("--simple".to_string());
        }
        if let Some(d) = self.max_out_degree {
            limits.push(format!("--max-out-degree {d}"));
        }
        if limits.is_empty() {
            return String::new();
        }
        format!(" with {}", limits.join(" and "))
    }
}

/// Most edges a case of `n` nodes can hold under the spec's shape and limits.
fn capacity(spec: &Spec, n: u32) -> u64 {
    let shape = Layout::new(spec, n);
    (0..n).map(|rank| u64::from(shape.cap(rank))).sum()
}

/// Nodes per block; a block is one unit of parallel work and one random stream.
const NODE_BLOCK: u32 = 1 << 14;
/// Queries per block.
const QUERY_BLOCK: u64 = 1 << 14;
/// Blocks formatted before a batch is written: bounds memory to a few tens of MB.
const BATCH: usize = 64;
/// Random tries at a LOSE (or WIN) query before the sure construction.
const QUERY_TRIES: usize = 16;

/// Where each rank's out-positions may go, and how many it may take.
#[derive(Debug, Clone, Copy)]
struct Layout {
    shape: Shape,
    n: u32,
    /// Width of a layer (layered and wide shapes).
    width: u32,
    simple: bool,
    max_out_degree: u32,
}

impl Layout {
    fn new(spec: &Spec, n: u32) -> Layout {
        let width = match spec.shape {
            Shape::Layered => ((n as f64).sqrt() as u32).max(1),
            _ => n.div_ceil(8).max(1),
        };
        let max_out_degree = spec.max_out_degree.unwrap_or(u32::MAX);
        Layout { shape: spec.shape, n, width, simple: spec.simple, max_out_degree }
    }

    /// The ranks the node at `rank` may move to: `start..start + count`.
    fn candidates(&self, rank: u32) -> (u32, u32) {
        match self.shape {
            Shape::Random | Shape::Tournament => (rank + 1, self.n - rank - 1),
            Shape::Chain => (rank + 1, u32::from(rank + 1 < self.n)),
            Shape::Layered | Shape::Wide => {
                let next = (rank / self.width + 1).saturating_mul(self.width);
                if next >= self.n {
                    return (self.n, 0);
                }
                (next, self.width.min(self.n - next))
            }
        }
    }

    /// Most out-positions the node at `rank` may get.
    fn cap(&self, rank: u32) -> u32 {
        let (_, count) = self.candidates(rank);
        match self.shape {
            Shape::Chain | Shape::Tournament => count,
            _ if self.simple => count.min(self.max_out_degree),
            _ if count > 0 => self.max_out_degree,
            _ => 0,
        }
    }
}

/// One case being generated: its size, hidden order, and (for exact edge counts) degrees.
struct CaseGen<'s> {
    spec: &'s Spec,
    n: u32,
    seed: u64,
    layout: Layout,
    ranks: Ranks,
    /// Out-degree by id, when fixed in advance (`Edges::Exact`).
    degrees: Option<Vec<u32>>,
    mean: f64,
}

impl<'s> CaseGen<'s> {
    fn new(spec: &'s Spec, case: u32) -> CaseGen<'s> {
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
    fn drawn_degree(&self, rank: u32, rng: &mut Rng) -> u32 {
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
    fn exact_degrees(&self, total: u64) -> Vec<u32> {
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
    fn targets(&self, id: u32, rng: &mut Rng, out: &mut Vec<u32>) {
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

    fn shape(&self) -> Shape {
        self.layout.shape
    }

    /// Node block `block`: its text (unless `text` is false) and, if `keep`, its out-degrees
    /// and out-positions.
    fn node_block(&self, block: u32, text: bool, keep: bool) -> NodeBlock {
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
    fn query_block(&self, block: u64, values: Option<&ValueIndex>) -> Vec<u8> {
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
struct NodeBlock {
    text: Vec<u8>,
    degrees: Vec<u32>,
    targets: Vec<u32>,
}

/// Appends `d` distinct numbers of `0..count` (`d <= count`), uniformly among such sets:
/// selection sampling when they are many, Floyd's algorithm when they are few.
fn sample_distinct(rng: &mut Rng, count: u32, d: u32, out: &mut Vec<u32>) {
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

/// Every node's value and, for each value, the nodes that have it: what choosing a LOSE or a
/// WIN query needs. 8 bytes per node besides the values.
struct ValueIndex {
    values: Vec<u32>,
    /// `nodes[starts[g]..starts[g + 1]]` have value `g`.
    starts: Vec<u32>,
    nodes: Vec<u32>,
}

impl ValueIndex {
    fn new(values: Vec<u32>) -> ValueIndex {
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

    fn random_node(&self, rng: &mut Rng) -> u32 {
        rng.below(self.values.len() as u64) as u32
    }

    /// A random node of value `g`, if there is one.
    fn node_of_value(&self, rng: &mut Rng, g: u32) -> Option<u32> {
        let (a, b) = (*self.starts.get(g as usize)?, *self.starts.get(g as usize + 1)?);
        (a < b).then(|| self.nodes[(a + rng.below(u64::from(b - a)) as u32) as usize])
    }

    fn nim_sum(&self, tokens: &[u32]) -> u32 {
        tokens.iter().fold(0, |x, &t| x ^ self.values[t as usize])
    }

    /// `m` tokens whose nim-sum is 0: `m - 1` at random and one of the value that cancels
    /// them; failing that, tokens in equal pairs and a sink.
    fn losing(&self, rng: &mut Rng, m: u32, out: &mut Vec<u32>) {
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
    fn winning(&self, rng: &mut Rng, m: u32, out: &mut Vec<u32>) {
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

/// Writes the file described by `spec` to `out`; `exec` runs the engine when values must be
/// computed (`lose_share`), and `meter` hears how far it got.
pub fn generate(
    spec: &Spec,
    out: &mut impl Write,
    exec: Exec,
    meter: &dyn Meter,
) -> io::Result<()> {
    for case in 0..spec.cases {
        let gen = CaseGen::new(spec, case);
        let number = u64::from(case) + 1;
        let text = !spec.queries_only;
        if text {
            writeln!(out, "{}", gen.n)?;
        }
        let keep = spec.lose_share.is_some();
        let (mut offsets, mut targets) = (Vec::new(), Vec::new());
        if keep {
            offsets.reserve(gen.n as usize + 1);
            offsets.push(0u32);
        }
        let stage =
            Stage { case: number, name: "generating", unit: Unit::Nodes, total: gen.n.into() };
        meter.start(stage);
        // A query file without LOSE shares needs nothing of the graph.
        let blocks = if text || keep { u64::from(gen.n.div_ceil(NODE_BLOCK)) } else { 0 };
        write_batched(
            out,
            blocks,
            meter,
            NODE_BLOCK.into(),
            |b| gen.node_block(b as u32, text, keep),
            |block| {
                for d in &block.degrees {
                    let end = offsets.last().copied().unwrap_or(0) + d;
                    offsets.push(end);
                }
                targets.extend_from_slice(&block.targets);
                block.text
            },
        )?;
        let index = keep.then(|| {
            let graph = Csr::from_checked_parts(offsets, targets);
            ValueIndex::new(evaluate(&graph, number, exec, meter).into_vec())
        });
        let stage =
            Stage { case: number, name: "generating", unit: Unit::Queries, total: spec.queries };
        meter.start(stage);
        let blocks = spec.queries.div_ceil(QUERY_BLOCK);
        write_batched(
            out,
            blocks,
            meter,
            QUERY_BLOCK,
            |b| gen.query_block(b, index.as_ref()),
            |t| t,
        )?;
        if text {
            out.write_all(b"0\n")?;
        }
    }
    Ok(())
}

/// The Grundy values of a generated graph, by the engine.
fn evaluate(graph: &Csr, case: u64, exec: Exec, meter: &dyn Meter) -> Values {
    let nodes = graph.node_count() as u64;
    meter.start(Stage { case, name: "ordering", unit: Unit::Nodes, total: nodes });
    let levels = exec.order(graph, meter).expect("generated graphs are acyclic by construction");
    meter.start(Stage { case, name: "evaluating", unit: Unit::Nodes, total: nodes });
    exec.evaluate(graph, &levels, meter)
}

/// Makes `blocks` blocks with `make` in parallel and writes what `take` keeps of each, in
/// order, `BATCH` at a time; tells `meter` the units done (`per_block` a block).
fn write_batched<B: Send>(
    out: &mut impl Write,
    blocks: u64,
    meter: &dyn Meter,
    per_block: u64,
    make: impl Fn(u64) -> B + Sync,
    mut take: impl FnMut(B) -> Vec<u8>,
) -> io::Result<()> {
    let mut start = 0;
    while start < blocks {
        let end = (start + BATCH as u64).min(blocks);
        let made: Vec<B> = (start..end).into_par_iter().map(&make).collect();
        for block in made {
            out.write_all(&take(block))?;
        }
        meter.set(end * per_block);
        start = end;
    }
    Ok(())
}

/// The hidden topological order: `id_of[rank]` and its inverse `rank_of[id]`, or the identity
/// (no memory) for sorted ids.
struct Ranks {
    id_of: Vec<u32>,
    rank_of: Vec<u32>,
}

impl Ranks {
    fn new(n: u32, seed: u64, sorted: bool) -> Ranks {
        if sorted {
            return Ranks { id_of: Vec::new(), rank_of: Vec::new() };
        }
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

    #[inline]
    fn rank(&self, id: u32) -> u32 {
        self.rank_of.get(id as usize).copied().unwrap_or(id)
    }

    #[inline]
    fn id(&self, rank: u32) -> u32 {
        self.id_of.get(rank as usize).copied().unwrap_or(rank)
    }
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
            edges: Edges::Mean(3.0),
            queries: 20_000,
            max_tokens: 4,
            cases: 2,
            seed: 7,
            shape,
            ..Spec::new(40_000)
        }
    }

    fn bytes(spec: &Spec) -> Vec<u8> {
        let mut out = Vec::new();
        generate(spec, &mut out, Exec::Rayon { chunk_bytes: 1 << 20 }, &()).unwrap();
        out
    }

    #[test]
    fn same_spec_same_bytes_whatever_the_threads() {
        let s = Spec { lose_share: Some(0.5), ..spec(Shape::Random) };
        let a = bytes(&s);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = one.install(|| {
            let mut out = Vec::new();
            generate(&s, &mut out, Exec::Sequential, &()).unwrap();
            out
        });
        assert_eq!(a, b);
        let c = bytes(&Spec { seed: 8, ..s });
        assert_ne!(a, c);
    }

    #[test]
    fn validate_rejects_what_solve_could_not_read() {
        assert!(spec(Shape::Random).validate().is_ok());
        let n = |n| NodeRange { min: n, max: n };
        assert!(Spec { nodes: n(0), ..spec(Shape::Random) }.validate().is_err());
        assert!(Spec { nodes: n(100_000), ..spec(Shape::Tournament) }.validate().is_err());
        assert!(Spec { edges: Edges::Mean(f64::NAN), ..spec(Shape::Random) }.validate().is_err());
        let exact = |e| Spec { edges: Edges::Exact(e), simple: true, ..spec(Shape::Random) };
        // 40,000 nodes hold at most 40,000 * 39,999 / 2 distinct edges.
        assert!(exact(799_980_000).validate().is_ok());
        assert!(exact(799_980_001).validate().is_err());
        let capped = Spec { max_out_degree: Some(3), ..exact(120_000) };
        assert!(capped.validate().is_err(), "the last three ranks have fewer than 3 candidates");
        assert!(Spec { min_tokens: 5, max_tokens: 4, ..spec(Shape::Random) }.validate().is_err());
        assert!(Spec { lose_share: Some(1.5), ..spec(Shape::Random) }.validate().is_err());
    }

    #[test]
    fn distinct_samples_are_distinct_and_in_range() {
        let mut rng = Rng::new(3);
        for (count, d) in [(10, 10), (10, 0), (1000, 3), (1000, 600), (100_000, 1000), (1, 1)] {
            let mut out = Vec::new();
            sample_distinct(&mut rng, count, d, &mut out);
            assert_eq!(out.len(), d as usize);
            let mut sorted = out.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), d as usize, "distinct");
            assert!(out.iter().all(|&x| x < count));
        }
    }
}
