//! The `Graph` class: a game graph as the engine holds it, with its values computed once.

use std::sync::{Arc, OnceLock};

use grundy::answer::{self, Outcome};
use grundy::eval::Values;
use grundy::graph::{GameGraph, Offset};
use grundy::play::{Measures, Play};
use grundy::report::stats::{CaseStats, Outcomes};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{self, contiguous, node_count};
use crate::room;
use crate::run::run;
use crate::{cycle_error, networkx};

/// An impartial game as a graph: node `v`'s moves are `indices[indptr[v]:indptr[v + 1]]`.
/// Frozen: the values, once computed, are kept for every later question.
#[pyclass(frozen, module = "grundy._grundy")]
pub struct Graph {
    game: Arc<Game>,
}

/// What a [`Graph`] holds: a chess-format graph (never the sums format's), and its values as
/// an acyclic game and as a loopy one, each computed when first asked for.
pub struct Game {
    graph: GameGraph,
    values: OnceLock<Values>,
    labels: OnceLock<Values>,
}

/// Calls `$body` with `$g` bound to the CSR, whatever its offsets.
macro_rules! with_csr {
    ($graph:expr, $g:ident => $body:expr) => {
        match $graph {
            GameGraph::Chess($g) => $body,
            GameGraph::ChessWide($g) => $body,
            GameGraph::Sums(_) => unreachable!("a Graph holds a chess-format graph"),
        }
    };
}

/// A graph's offsets and moves as numpy arrays.
type CsrArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>);

/// Every node's values and, when asked, levels, as numpy arrays.
type Evaluation<'py> = (Bound<'py, PyArray1<u32>>, Option<Bound<'py, PyArray1<u32>>>);

/// A play's numbers of every node and, in misère play, the heaps, the tame flags and (with
/// the genus) the genus prefixes as CSR arrays.
type PlayNumbers<'py> = (Bound<'py, PyArray1<u32>>, Option<MisereArrays<'py>>);

/// Misère play's heaps and tame flags, and with the genus its prefixes' offsets and entries.
type MisereArrays<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<bool>>,
    Option<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>)>,
);

/// A loopy game's labels: values (`u32::MAX` where infinite), the infinite mask, and the K
/// sets as CSR arrays.
type Labelling<'py> = (
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u32>>,
);

/// What a batch of queries came to under a play: each verdict's word, and each query's moves.
type PlayAnswers = (Vec<&'static str>, Vec<Vec<(u32, u32)>>);

/// What a batch of queries came to: each outcome's word, and each winning move when asked.
type Answers = (Vec<&'static str>, Option<Vec<Option<(u32, u32)>>>);

impl Graph {
    /// The graph of a chess-format `graph`, with `values` or loopy `labels` already known (an
    /// index's).
    pub fn new(graph: GameGraph, values: Option<Values>, labels: Option<Values>) -> Graph {
        let game = Game { graph, values: OnceLock::new(), labels: OnceLock::new() };
        if let Some(values) = values {
            let _ = game.values.set(values);
        }
        if let Some(labels) = labels {
            let _ = game.labels.set(labels);
        }
        Graph { game: Arc::new(game) }
    }

    /// The values of the acyclic game, computed on the first call; with `levels`, computed
    /// again with every node's level.
    fn values(
        &self,
        py: Python<'_>,
        levels: bool,
        threads: Option<usize>,
    ) -> PyResult<(&Values, Option<Vec<u32>>)> {
        if let (Some(values), false) = (self.game.values.get(), levels) {
            return Ok((values, None));
        }
        // The search's cells, a byte a node (4 past about 190 moves a node, not checked); with
        // the levels, 4 a node, then the values and the levels split from them, 1 and 4.
        let per_node = if levels { 9 } else { 1 };
        self.room(per_node, "the search's cells")?;
        let game = Arc::clone(&self.game);
        let valued = run(
            py,
            threads,
            move |exec, watch| with_csr!(&game.graph, g => exec.values_of(g, levels, watch)),
        )?;
        let (values, levels) = valued.map_err(|cycle| {
            let text = format!("cycle {}", grundy::error::format_cycle(&cycle.0));
            cycle_error(py, text, cycle.0)
        })?;
        Ok((self.game.values.get_or_init(|| values), levels))
    }

    /// What `play` computes of every node (remoteness, suspense, misère numbers), from the
    /// levels of the acyclic game.
    fn measures(&self, py: Python<'_>, play: Play, threads: Option<usize>) -> PyResult<Measures> {
        if matches!(play, Play::Normal | Play::Selective) {
            // The Grundy values are all they need: no levels to compute.
            return Ok(Measures::None);
        }
        let (_, levels) = self.values(py, true, threads)?;
        let levels = levels.unwrap_or_default();
        // The nodes in level order, 4 bytes each, and the play's numbers, twice for a level
        // that is computed in parallel (into a buffer of its own, then copied).
        let per_node = 4 + 2 * play_bytes(play);
        self.room(per_node, &format!("the numbers of {} play", play.name()))?;
        let game = Arc::clone(&self.game);
        run(py, threads, move |exec, _| {
            let levels = grundy::exec::play::levels_of(&levels);
            // `self.values` above set them, and nothing takes them out.
            let values = game.values.get().expect("the values were computed above");
            let parallel = !exec.is_sequential();
            with_csr!(&game.graph, g => Measures::of(play, (g, values), &levels, parallel))
        })
    }

    /// Whether `per_node` bytes a node can be allocated for `what` ([`room::check`]): before
    /// the engine allocates them, which would abort the interpreter if it failed.
    fn room(&self, per_node: u64, what: &str) -> PyResult<()> {
        let nodes = self.game.graph.node_count();
        room::check(u128::from(per_node) * nodes as u128, &format!("{what} of {nodes} nodes"))
    }

    /// The labels of the loopy game (cycles allowed), computed on the first call.
    fn labels(&self, py: Python<'_>, threads: Option<usize>) -> PyResult<&Values> {
        if let Some(labels) = self.game.labels.get() {
            return Ok(labels);
        }
        self.room(1, "the search's cells")?;
        let game = Arc::clone(&self.game);
        let labels = run(
            py,
            threads,
            move |exec, watch| with_csr!(&game.graph, g => exec.label(g, watch).0),
        )?;
        Ok(self.game.labels.get_or_init(|| labels))
    }
}

#[pymethods]
impl Graph {
    /// The graph whose node `v` moves to `indices[indptr[v]:indptr[v + 1]]` (`indptr` `int64`,
    /// `indices` `int64` or `uint32`).
    #[staticmethod]
    fn from_csr(indptr: PyReadonlyArray1<'_, i64>, indices: &Bound<'_, PyAny>) -> PyResult<Graph> {
        let indptr = contiguous(&indptr, "indptr")?;
        if indptr.is_empty() {
            return Err(PyValueError::new_err(
                "indptr is empty: it holds n + 1 offsets, the first 0",
            ));
        }
        let n = node_count(indptr.len() - 1)?;
        let targets = arrays::ids(indices, "indices", n)?;
        Ok(Graph::new(arrays::csr_game(indptr, targets)?, None, None))
    }

    /// The graph of `n` nodes (or the largest id + 1) whose edge `k` is a move from `src[k]` to
    /// `dst[k]` (both `int64`); a node's moves keep their order in the arrays.
    #[staticmethod]
    #[pyo3(signature = (src, dst, n=None))]
    fn from_edges(
        py: Python<'_>,
        src: PyReadonlyArray1<'_, i64>,
        dst: PyReadonlyArray1<'_, i64>,
        n: Option<i64>,
    ) -> PyResult<Graph> {
        let (src, dst) = (contiguous(&src, "src")?, contiguous(&dst, "dst")?);
        if src.len() != dst.len() {
            let (a, b) = (src.len(), dst.len());
            return Err(PyValueError::new_err(format!(
                "src holds {a} ids and dst {b}: one per edge each"
            )));
        }
        let n = match n {
            Some(n) => node_count(usize::try_from(n).map_err(|_| {
                PyValueError::new_err(format!("n is {n}: a node count is not negative"))
            })?)?,
            None => derived_node_count(src, dst)?,
        };
        let (from, to) = (arrays::wide_ids(src, "src", n)?, arrays::wide_ids(dst, "dst", n)?);
        let wide = from.len() as u64 > grundy::graph::narrow_limit();
        let graph = py.detach(|| {
            use grundy::parse::edges::try_lists_by_source;
            Ok(if wide {
                GameGraph::ChessWide(try_lists_by_source(n, &from, &to)?)
            } else {
                GameGraph::Chess(try_lists_by_source(n, &from, &to)?)
            })
        });
        let graph = graph.map_err(|_: std::collections::TryReserveError| {
            let offset = if wide { 8 } else { 4 };
            let bytes = (u128::from(n) + 1) * offset + room::bytes_of::<u32>(to.len());
            let plural = if to.len() == 1 { "" } else { "s" };
            room::refused(bytes, &format!("a graph of {n} nodes and {} edge{plural}", to.len()))
        })?;
        Ok(Graph::new(graph, None, None))
    }

    /// The graph of a networkx adjacency (`G._adj`: node -> dict of out-neighbours), node `i`
    /// being the key `number` maps to `i`, or the key `i` itself without `number`.
    #[staticmethod]
    #[pyo3(signature = (adj, number=None))]
    fn from_adjacency(
        adj: &Bound<'_, PyDict>,
        number: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Graph> {
        Ok(Graph::new(networkx::graph(adj, number)?, None, None))
    }

    /// Number of nodes.
    #[getter]
    fn node_count(&self) -> usize {
        self.game.graph.node_count()
    }

    /// Number of moves (edges).
    #[getter]
    fn edge_count(&self) -> usize {
        self.game.graph.total_moves()
    }

    /// `(indptr, indices)` as numpy `int64` and `uint32` arrays.
    fn csr<'py>(&self, py: Python<'py>) -> PyResult<CsrArrays<'py>> {
        with_csr!(&self.game.graph, g => {
            let offsets = g.offsets().iter().map(|o| o.index() as i64);
            let indptr = room::array(py, g.offsets().len(), offsets, "the offsets (indptr)")?;
            let targets = g.targets().iter().copied();
            let indices = room::array(py, g.targets().len(), targets, "the moves (indices)")?;
            Ok((indptr, indices))
        })
    }

    /// Every node's Grundy value and, with `levels`, its level (sinks 0, else 1 + the largest
    /// level of its moves), on `threads` threads (all cores when `None`).
    #[pyo3(signature = (levels=false, threads=None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        levels: bool,
        threads: Option<usize>,
    ) -> PyResult<Evaluation<'py>> {
        let (values, levels) = self.values(py, levels, threads)?;
        let values = u32_array(py, values, "the values")?;
        Ok((values, levels.map(|l| PyArray1::from_vec(py, l))))
    }

    /// The loopy game's labels: `(values, infinite, k_indptr, k_values)`, the values
    /// `u32::MAX` where infinite, and the K set of node `v` (its followers' finite values,
    /// ascending; empty for a finite node) `k_values[k_indptr[v]:k_indptr[v + 1]]`.
    #[pyo3(signature = (threads=None))]
    fn label<'py>(&self, py: Python<'py>, threads: Option<usize>) -> PyResult<Labelling<'py>> {
        let labels = self.labels(py, threads)?;
        let graph = &self.game.graph;
        let (infinite, k_indptr, k_values) = py.detach(|| -> PyResult<_> {
            let mut infinite = room::vec(labels.len(), "the infinite mask")?;
            infinite.extend(labels.iter().map(|g| g == Values::INFINITE));
            let mut k_indptr = room::vec(labels.len() + 1, "the K sets' offsets")?;
            let mut k_values = Vec::new();
            k_indptr.push(0i64);
            for (v, &inf) in infinite.iter().enumerate() {
                if inf {
                    k_values.extend(
                        with_csr!(graph, g => grundy::eval::infinite_set(g, labels, v as u32)),
                    );
                }
                k_indptr.push(k_values.len() as i64);
            }
            Ok((infinite, k_indptr, k_values))
        })?;
        Ok((
            u32_array(py, labels, "the labels")?,
            PyArray1::from_vec(py, infinite),
            PyArray1::from_vec(py, k_indptr),
            PyArray1::from_vec(py, k_values),
        ))
    }

    /// The outcomes of queries (`indptr` over `tokens`, both `int64`: query `q` puts a token
    /// on each of `tokens[indptr[q]:indptr[q + 1]]`) and, with `moves`, a winning move
    /// `(from, to)` of each WIN; as a loopy game (DRAWs possible) with `loopy`.
    #[pyo3(signature = (indptr, tokens, loopy=false, moves=false, threads=None))]
    fn answer(
        &self,
        py: Python<'_>,
        indptr: PyReadonlyArray1<'_, i64>,
        tokens: PyReadonlyArray1<'_, i64>,
        loopy: bool,
        moves: bool,
        threads: Option<usize>,
    ) -> PyResult<Answers> {
        let n = node_count(self.game.graph.node_count())?;
        let (indptr, tokens) = (contiguous(&indptr, "indptr")?, contiguous(&tokens, "tokens")?);
        let (bounds, tokens) = arrays::queries(indptr, tokens, n)?;
        let graph = &self.game.graph;
        let queries = || bounds.windows(2).map(|w| &tokens[w[0]..w[1]]);
        if loopy {
            let labels = self.labels(py, threads)?;
            return Ok(py.detach(|| {
                let answers: Vec<_> =
                    queries().map(|p| answer::loopy_answer_of(graph, labels, p, moves)).collect();
                let words = answers.iter().map(|a| a.outcome.word()).collect();
                (words, moves.then(|| answers.iter().map(|a| a.winning).collect()))
            }));
        }
        let (values, _) = self.values(py, false, threads)?;
        Ok(py.detach(|| {
            let nim_sums: Vec<u32> = queries().map(|p| values.nim_sum(p)).collect();
            let words = nim_sums.iter().map(|&x| Outcome::of_nim_sum(x).word()).collect();
            let winning = moves.then(|| {
                queries()
                    .zip(&nim_sums)
                    .map(|(p, &x)| {
                        answer::winning_move(graph, values, p, x).map(|(from, to)| (from, to[0]))
                    })
                    .collect()
            });
            (words, winning)
        }))
    }

    /// What `play` (`misere`, `conjunctive`, `continued`) computes of every node: the misère
    /// Grundy values, the nim heaps the nodes equal (`u32::MAX`: none known), whether each is
    /// tame and (with `genus`) the genus prefixes (CSR: offsets and entries; an empty one where
    /// not known); or the remoteness, or the suspense (then nothing more).
    #[pyo3(signature = (play, threads=None, genus=false))]
    fn play_numbers<'py>(
        &self,
        py: Python<'py>,
        play: &str,
        threads: Option<usize>,
        genus: bool,
    ) -> PyResult<PlayNumbers<'py>> {
        let play = play_of(play, genus)?;
        Ok(match self.measures(py, play, threads)? {
            Measures::Remoteness(n) | Measures::Suspense(n) => (PyArray1::from_vec(py, n), None),
            Measures::Misere(m, genera) => {
                let grundy = room::collect(m.iter().map(|x| x.grundy()), "the misère values")?;
                let heaps = room::collect(m.iter().map(|x| x.heap_or_none()), "the heaps")?;
                let tame = room::collect(m.iter().map(|x| x.tame()), "the tame flags")?;
                let prefixes = genus.then(|| {
                    let (mut indptr, mut entries, mut prefix) =
                        (vec![0i64], Vec::new(), Vec::new());
                    for (v, x) in m.iter().enumerate() {
                        if genera.prefix(v as u32, x.grundy(), &mut prefix) {
                            entries.extend_from_slice(&prefix);
                        }
                        indptr.push(entries.len() as i64);
                    }
                    (PyArray1::from_vec(py, indptr), PyArray1::from_vec(py, entries))
                });
                let heaps = PyArray1::from_vec(py, heaps);
                (
                    PyArray1::from_vec(py, grundy),
                    Some((heaps, PyArray1::from_vec(py, tame), prefixes)),
                )
            }
            Measures::None => {
                let (values, _) = self.values(py, false, threads)?;
                (u32_array(py, values, "the values")?, None)
            }
        })
    }

    /// The verdicts of queries (as in `answer`) under `play`, `WIN`, `LOSE` or (misère)
    /// `UNDECIDED`, and the winning moves of each: one `(from, to)` per token that moves, the
    /// CLI's `moves` column (empty unless a WIN).
    #[pyo3(signature = (indptr, tokens, play, threads=None, genus=false))]
    fn play_answer(
        &self,
        py: Python<'_>,
        indptr: PyReadonlyArray1<'_, i64>,
        tokens: PyReadonlyArray1<'_, i64>,
        play: &str,
        threads: Option<usize>,
        genus: bool,
    ) -> PyResult<PlayAnswers> {
        let play = play_of(play, genus)?;
        let n = node_count(self.game.graph.node_count())?;
        let (indptr, tokens) = (contiguous(&indptr, "indptr")?, contiguous(&tokens, "tokens")?);
        let (bounds, tokens) = arrays::queries(indptr, tokens, n)?;
        let measures = self.measures(py, play, threads)?;
        let (values, _) = self.values(py, false, threads)?;
        let graph = &self.game.graph;
        Ok(py.detach(|| {
            let answers: Vec<grundy::play::Answer> = bounds
                .windows(2)
                .map(|w| {
                    let tokens = &tokens[w[0]..w[1]];
                    with_csr!(graph, g => grundy::play::sums::answer(play, (g, values, &measures), tokens))
                })
                .collect();
            let words = answers.iter().map(|a| a.verdict.word()).collect();
            (words, answers.into_iter().map(|a| a.moves).collect())
        }))
    }

    /// The fields of `grundy stats --json` for this graph, as a JSON object; with `loopy`,
    /// as a loopy game's (no levels; the count of infinite nodes).
    #[pyo3(signature = (loopy=false, threads=None))]
    fn stats(&self, py: Python<'_>, loopy: bool, threads: Option<usize>) -> PyResult<String> {
        let graph = &self.game.graph;
        let stats = if loopy {
            let labels = self.labels(py, threads)?;
            // The in-degrees, and a mark per node to count parallel edges.
            self.room(8, "the in-degrees")?;
            let outcomes = Outcomes { draws: Some(0), ..Outcomes::default() };
            let mut stats = py.detach(|| {
                CaseStats::of_graph((1, graph, labels), None, outcomes, Default::default())
            });
            stats.infinite = Some(CaseStats::count_infinite(labels));
            stats
        } else {
            let (values, levels) = self.values(py, true, threads)?;
            // The in-degrees, and a mark per node to count parallel edges.
            self.room(8, "the in-degrees")?;
            let outcomes = Outcomes::default();
            py.detach(|| {
                CaseStats::of_graph(
                    (1, graph, values),
                    levels.as_deref(),
                    outcomes,
                    Default::default(),
                )
            })
        };
        serde_json::to_string(&stats)
            .map_err(|e| PyValueError::new_err(format!("cannot write the statistics: {e}")))
    }
}

/// The node count of the edges `src` to `dst` given without `n`: the largest id + 1, refused
/// as the command line refuses an edge list's without `--nodes` when the id is far past what
/// the edges can describe (`from_edges([0], [2**30])` would ask 4 GB for nodes nobody named).
fn derived_node_count(src: &[i64], dst: &[i64]) -> PyResult<u32> {
    // No id, or none that is not negative: the check of the ids names the negative one.
    let Some(largest) = src.iter().chain(dst).copied().max().filter(|&id| id >= 0) else {
        return Ok(0);
    };
    let edges = src.len() as u64;
    let derived = u32::try_from(largest)
        .ok()
        .and_then(|id| grundy::parse::edges::derived_node_count(Some(id), edges));
    derived.ok_or_else(|| {
        // The first edge that names it, as the command line names its first line.
        let k = src.iter().zip(dst).position(|(&u, &v)| u == largest || v == largest);
        let at = match k {
            Some(k) if src[k] == largest => format!("src[{k}]"),
            Some(k) => format!("dst[{k}]"),
            None => "an id".to_string(),
        };
        let why = if largest >= i64::from(u32::MAX) {
            format!("not a node id: ids go up to {}", u32::MAX - 1)
        } else {
            let plural = if edges == 1 { "" } else { "s" };
            format!(
                "which would make a graph of {} nodes from {edges} edge{plural}; give n= to \
                 allow it",
                largest + 1
            )
        };
        PyValueError::new_err(format!("{at} is {largest}, {why}"))
    })
}

/// `values` as a numpy `uint32` array, or a `MemoryError` naming `what`.
fn u32_array<'py>(
    py: Python<'py>,
    values: &Values,
    what: &str,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    room::array(py, values.len(), values.iter(), what)
}

/// The bytes a node of the numbers `play` computes ([`Measures`]).
fn play_bytes(play: Play) -> u64 {
    match play {
        Play::Normal | Play::Selective => 0,
        Play::Conjunctive | Play::Continued => 4,
        Play::Misere { genus: false } => 8,
        Play::Misere { genus: true } => 16,
    }
}

/// The play `name` names, as `--play` takes it, with the genus in misère play (`--genus`).
fn play_of(name: &str, genus: bool) -> PyResult<Play> {
    if genus && name != "misere" {
        return Err(PyValueError::new_err(format!(
            "genus=True goes with play=\"misere\", not {name:?}"
        )));
    }
    let misere = Play::Misere { genus };
    let plays = [Play::Normal, misere, Play::Conjunctive, Play::Continued, Play::Selective];
    plays.into_iter().find(|p| p.name() == name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "play {name:?}: expected normal, misere, conjunctive, continued or selective"
        ))
    })
}
