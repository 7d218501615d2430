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
        let game = Arc::clone(&self.game);
        run(py, threads, move |exec, _| {
            let levels = grundy::exec::play::levels_of(&levels);
            // `self.values` above set them, and nothing takes them out.
            let values = game.values.get().expect("the values were computed above");
            let parallel = !exec.is_sequential();
            with_csr!(&game.graph, g => Measures::of(play, (g, values), &levels, parallel))
        })
    }

    /// The labels of the loopy game (cycles allowed), computed on the first call.
    fn labels(&self, py: Python<'_>, threads: Option<usize>) -> PyResult<&Values> {
        if let Some(labels) = self.game.labels.get() {
            return Ok(labels);
        }
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
        let offsets = arrays::offsets(indptr, targets.len())?;
        Ok(Graph::new(arrays::game(offsets, targets), None, None))
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
            None => {
                let most = src.iter().chain(dst).copied().max().map_or(0, |m| m.max(-1) + 1);
                node_count(most as usize)?
            }
        };
        let check =
            |ids: &[i64], name: &str| match ids.iter().position(|&v| v < 0 || v >= i64::from(n)) {
                Some(i) => Err(arrays::not_a_node(&format!("{name}[{i}]"), ids[i], n)),
                None => Ok(ids.iter().map(|&v| v as u32).collect::<Vec<u32>>()),
            };
        let (from, to) = (check(src, "src")?, check(dst, "dst")?);
        let graph = py.detach(|| {
            if from.len() as u64 > grundy::graph::narrow_limit() {
                GameGraph::ChessWide(grundy::parse::edges::lists_by_source(n, from, to))
            } else {
                GameGraph::Chess(grundy::parse::edges::lists_by_source(n, from, to))
            }
        });
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
    fn csr<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>) {
        with_csr!(&self.game.graph, g => {
            let indptr: Vec<i64> = g.offsets().iter().map(|o| o.index() as i64).collect();
            (PyArray1::from_vec(py, indptr), PyArray1::from_slice(py, g.targets()))
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
        let values = PyArray1::from_slice(py, &values.to_u32());
        Ok((values, levels.map(|l| PyArray1::from_vec(py, l))))
    }

    /// The loopy game's labels: `(values, infinite, k_indptr, k_values)`, the values
    /// `u32::MAX` where infinite, and the K set of node `v` (its followers' finite values,
    /// ascending; empty for a finite node) `k_values[k_indptr[v]:k_indptr[v + 1]]`.
    #[pyo3(signature = (threads=None))]
    fn label<'py>(&self, py: Python<'py>, threads: Option<usize>) -> PyResult<Labelling<'py>> {
        let labels = self.labels(py, threads)?;
        let graph = &self.game.graph;
        let (infinite, k_indptr, k_values) = py.detach(|| {
            let infinite: Vec<bool> = labels.iter().map(|g| g == Values::INFINITE).collect();
            let (mut k_indptr, mut k_values) = (vec![0i64], Vec::new());
            for (v, &inf) in infinite.iter().enumerate() {
                if inf {
                    k_values.extend(
                        with_csr!(graph, g => grundy::eval::infinite_set(g, labels, v as u32)),
                    );
                }
                k_indptr.push(k_values.len() as i64);
            }
            (infinite, k_indptr, k_values)
        });
        Ok((
            PyArray1::from_slice(py, &labels.to_u32()),
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
                let grundy: Vec<u32> = m.iter().map(|x| x.grundy()).collect();
                let heaps: Vec<u32> = m.iter().map(|x| x.heap_or_none()).collect();
                let tame: Vec<bool> = m.iter().map(|x| x.tame()).collect();
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
                (PyArray1::from_slice(py, &values.to_u32()), None)
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
            let outcomes = Outcomes { draws: Some(0), ..Outcomes::default() };
            let mut stats = py.detach(|| {
                CaseStats::of_graph((1, graph, labels), None, outcomes, Default::default())
            });
            stats.infinite = Some(CaseStats::count_infinite(labels));
            stats
        } else {
            let (values, levels) = self.values(py, true, threads)?;
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
