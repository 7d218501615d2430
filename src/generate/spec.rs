//! What `grundy generate` makes: the shapes, the node counts, the edges and queries of a
//! [`Spec`], checked before anything is written.

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
        // `--lose-share` evaluates the graph it writes, with 32-bit offsets; text alone may hold
        // more edges than that (solve gives such a case 64-bit offsets), up to a bound that
        // keeps a slip of the keyboard from writing for days.
        let (fit, why) = match self.lose_share {
            Some(_) => (u64::from(u32::MAX), " with --lose-share"),
            None => (MOST_EDGES, ""),
        };
        if most > fit {
            return Err(format!("a case would have up to {most} edges; at most {fit} fit{why}"));
        }
        Ok(())
    }

    pub(super) fn limits_text(&self) -> String {
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

/// Where each rank's out-positions may go, and how many it may take.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    pub(super) shape: Shape,
    pub(super) n: u32,
    /// Width of a layer (layered and wide shapes).
    pub(super) width: u32,
    pub(super) simple: bool,
    pub(super) max_out_degree: u32,
}

impl Layout {
    pub(super) fn new(spec: &Spec, n: u32) -> Layout {
        let width = match spec.shape {
            Shape::Layered => ((n as f64).sqrt() as u32).max(1),
            _ => n.div_ceil(8).max(1),
        };
        let max_out_degree = spec.max_out_degree.unwrap_or(u32::MAX);
        Layout { shape: spec.shape, n, width, simple: spec.simple, max_out_degree }
    }

    /// The ranks the node at `rank` may move to: `start..start + count`.
    pub(super) fn candidates(&self, rank: u32) -> (u32, u32) {
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
    pub(super) fn cap(&self, rank: u32) -> u32 {
        let (_, count) = self.candidates(rank);
        match self.shape {
            Shape::Chain | Shape::Tournament => count,
            _ if self.simple => count.min(self.max_out_degree),
            _ if count > 0 => self.max_out_degree,
            _ => 0,
        }
    }
}

/// Most edges a generated case may have without `--lose-share`: 2^40, some 10 TB of text.
const MOST_EDGES: u64 = 1 << 40;

/// Most edges a case of `n` nodes can hold under the spec's shape and limits.
pub(super) fn capacity(spec: &Spec, n: u32) -> u64 {
    let shape = Layout::new(spec, n);
    (0..n).map(|rank| u64::from(shape.cap(rank))).sum()
}
