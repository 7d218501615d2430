//! `grundy._grundy`: the Python module's engine, over the grundy library's public API.
//!
//! A [`Graph`] holds a game graph as the engine does (CSR: `u32` targets, 32-bit offsets, or
//! 64-bit past 2^32 edges). Arrays come in as numpy arrays the wrapper in `pysrc/grundy` has
//! given the types read here (`int64` for offsets and ids, checked here with the index of
//! what is wrong), and values go out as numpy `uint32` arrays. The engine runs without the
//! GIL, on a rayon pool of the asked number of threads.

use grundy::exec::Exec;
use grundy::graph::{Csr, GameGraph, Offset};
use grundy::Format;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    _grundy,
    CycleError,
    PyValueError,
    "The graph has a cycle, so it is not a game that must end; `cycle` lists its nodes."
);

/// An impartial game as a directed acyclic graph: node `v`'s moves are
/// `indices[indptr[v]:indptr[v + 1]]`.
#[pyclass(frozen, module = "grundy._grundy")]
struct Graph {
    graph: Game,
}

/// Every node's values and, when asked, levels, as numpy arrays.
type Evaluation<'py> = (Bound<'py, PyArray1<u32>>, Option<Bound<'py, PyArray1<u32>>>);

/// The engine's graph, with the offsets its edge count needs.
enum Game {
    Narrow(Csr<u32>),
    Wide(Csr<u64>),
}

/// Calls `$body` with `$g` bound to the CSR, whatever its offsets.
macro_rules! with_csr {
    ($game:expr, $g:ident => $body:expr) => {
        match $game {
            Game::Narrow($g) => $body,
            Game::Wide($g) => $body,
        }
    };
}

#[pymethods]
impl Graph {
    /// The graph whose node `v` moves to `indices[indptr[v]:indptr[v + 1]]` (both `int64`).
    #[staticmethod]
    fn from_csr(
        indptr: PyReadonlyArray1<'_, i64>,
        indices: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Graph> {
        let (indptr, indices) = (contiguous(&indptr, "indptr")?, contiguous(&indices, "indices")?);
        if indptr.is_empty() {
            return Err(PyValueError::new_err(
                "indptr is empty: it holds n + 1 offsets, the first 0",
            ));
        }
        let n = node_count(indptr.len() - 1)?;
        let targets = ids(indices, "indices", n)?;
        let mut offsets = Vec::with_capacity(indptr.len());
        let mut last = 0i64;
        for (i, &o) in indptr.iter().enumerate() {
            if (i == 0 && o != 0) || o < last {
                let why =
                    if i == 0 { "the first offset must be 0" } else { "offsets must not decrease" };
                return Err(PyValueError::new_err(format!("indptr[{i}] is {o}: {why}")));
            }
            last = o;
            offsets.push(o as u64);
        }
        if last as usize != targets.len() {
            let m = targets.len();
            return Err(PyValueError::new_err(format!(
                "indptr[{}] is {last}, but indices holds {m} moves: the last offset is their count",
                indptr.len() - 1
            )));
        }
        Ok(Graph { graph: game(offsets, targets) })
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
        let (from, to) = (ids(src, "src", n)?, ids(dst, "dst", n)?);
        let graph = py.detach(|| {
            if from.len() as u64 > grundy::graph::narrow_limit() {
                Game::Wide(grundy::parse::edges::lists_by_source(n, from, to))
            } else {
                Game::Narrow(grundy::parse::edges::lists_by_source(n, from, to))
            }
        });
        Ok(Graph { graph })
    }

    /// Number of nodes.
    #[getter]
    fn node_count(&self) -> usize {
        with_csr!(&self.graph, g => g.node_count())
    }

    /// Number of moves (edges).
    #[getter]
    fn edge_count(&self) -> usize {
        with_csr!(&self.graph, g => g.edge_count())
    }

    /// `(indptr, indices)` as numpy `int64` and `uint32` arrays.
    fn csr<'py>(&self, py: Python<'py>) -> (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u32>>) {
        with_csr!(&self.graph, g => {
            let indptr: Vec<i64> = g.offsets().iter().map(|o| o.index() as i64).collect();
            (indptr.into_pyarray(py), g.targets().to_vec().into_pyarray(py))
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
        let pool = Pool::new(threads)?;
        let valued = py.detach(|| {
            pool.run(|exec| with_csr!(&self.graph, g => exec.values_of(g, levels, &())))
        });
        let (values, levels) = valued.map_err(|cycle| {
            let text = format!("cycle {}", grundy::error::format_cycle(&cycle.0));
            cycle_error(py, text, cycle.0)
        })?;
        Ok((values.into_vec().into_pyarray(py), levels.map(|l| l.into_pyarray(py))))
    }
}

/// Case `case` (1-based) of the file at `path` in `format` (`chess`, `sums` or `edges`), with
/// its values: the CLI's reader, so any file `grundy values` reads (stdin as `-`, gzip, zstd).
#[pyfunction]
#[pyo3(signature = (path, format="chess", case=1, nodes=None))]
fn read(
    py: Python<'_>,
    path: &str,
    format: &str,
    case: u64,
    nodes: Option<u32>,
) -> PyResult<Graph> {
    let format = match (format, nodes) {
        ("chess", None) => Format::Chess,
        ("edges", nodes) => Format::Edges { nodes },
        ("sums", _) => {
            return Err(PyValueError::new_err(
                "the sums format is not read into a Graph yet: give chess or edges",
            ))
        }
        ("chess", Some(_)) => {
            return Err(PyValueError::new_err("nodes applies to format=\"edges\" only"))
        }
        (other, _) => {
            return Err(PyValueError::new_err(format!(
                "format is {other:?}: give \"chess\" or \"edges\""
            )))
        }
    };
    let pool = Pool::new(None)?;
    let graph = py.detach(|| -> Result<Option<GameGraph>, grundy::Error> {
        let input = grundy::Input::open_streaming(Some(std::path::Path::new(path)), |_| false)?;
        pool.run(|exec| {
            let mut reader = grundy::CaseReader::new(&input, exec, format, &()).with_levels(false);
            while let Some(evaluated) = reader.next_case()? {
                if evaluated.case == case {
                    return Ok(Some(evaluated.graph));
                }
                reader.skip_queries()?;
            }
            Ok(None)
        })
    });
    let graph = graph.map_err(|e| engine_error(py, e))?;
    match graph {
        Some(GameGraph::Chess(g)) => Ok(Graph { graph: Game::Narrow(g) }),
        Some(GameGraph::ChessWide(g)) => Ok(Graph { graph: Game::Wide(g) }),
        Some(GameGraph::Sums(_)) => Err(PyValueError::new_err("a sums graph is not a Graph")),
        None => Err(PyValueError::new_err(format!("{path} has no case {case}"))),
    }
}

/// The engine's error as a Python exception with the CLI's words.
fn engine_error(py: Python<'_>, e: grundy::Error) -> PyErr {
    match e {
        grundy::Error::Cycle { ref cycle, .. } => {
            let nodes = cycle.clone();
            cycle_error(py, e.to_string(), nodes)
        }
        grundy::Error::Io(_) => PyOSError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A [`CycleError`] saying `text`, its `cycle` attribute the nodes of the cycle.
fn cycle_error(py: Python<'_>, text: String, cycle: Vec<u32>) -> PyErr {
    let error = CycleError::new_err(text);
    let _ = error.value(py).setattr("cycle", cycle);
    error
}

/// Where the engine runs: rayon's global pool (a thread per core), or one of `threads`.
struct Pool(Option<rayon::ThreadPool>);

impl Pool {
    fn new(threads: Option<usize>) -> PyResult<Pool> {
        match threads {
            None => Ok(Pool(None)),
            Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
            Some(t) => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map(|p| Pool(Some(p)))
                .map_err(|e| PyOSError::new_err(format!("cannot start {t} threads: {e}"))),
        }
    }

    /// `f` in the pool, on the executor its size calls for (one thread: the sequential one).
    fn run<T: Send>(&self, f: impl FnOnce(Exec) -> T + Send) -> T {
        let parallel = Exec::Rayon { chunk_bytes: grundy::exec::DEFAULT_CHUNK_BYTES };
        match &self.0 {
            None => f(parallel),
            Some(pool) if pool.current_num_threads() == 1 => pool.install(|| f(Exec::Sequential)),
            Some(pool) => pool.install(|| f(parallel)),
        }
    }
}

/// The elements of a 1-D array, which must be contiguous (the wrapper makes it so).
fn contiguous<'a>(array: &'a PyReadonlyArray1<'_, i64>, name: &str) -> PyResult<&'a [i64]> {
    array.as_slice().map_err(|_| PyValueError::new_err(format!("{name} is not a contiguous array")))
}

/// `count` as a node count: below 2^32 (ids are 32-bit).
fn node_count(count: usize) -> PyResult<u32> {
    u32::try_from(count).map_err(|_| {
        PyValueError::new_err(format!("{count} nodes: at most {} fit (ids are 32-bit)", u32::MAX))
    })
}

/// `values` as node ids of a graph of `n` nodes, or the first that is not one.
fn ids(values: &[i64], name: &str, n: u32) -> PyResult<Vec<u32>> {
    let bad = |&v: &i64| v < 0 || v >= i64::from(n);
    if let Some(i) = values.iter().position(bad) {
        let v = values[i];
        let why = if n == 0 {
            "the graph has no nodes".to_string()
        } else {
            format!("ids are 0 to {}", n - 1)
        };
        return Err(PyValueError::new_err(format!("{name}[{i}] is {v}, not a node: {why}")));
    }
    Ok(values.iter().map(|&v| v as u32).collect())
}

/// The graph of CSR `offsets` and `targets` (checked), with 32-bit offsets when they fit.
fn game(offsets: Vec<u64>, targets: Vec<u32>) -> Game {
    if targets.len() as u64 > grundy::graph::narrow_limit() {
        Game::Wide(Csr::from_checked_parts(offsets, targets))
    } else {
        let narrow = offsets.into_iter().map(|o| o as u32).collect();
        Game::Narrow(Csr::from_checked_parts(narrow, targets))
    }
}

/// The module: the wrapper in `pysrc/grundy/__init__.py` is its documented face.
#[pymodule]
fn _grundy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add("CycleError", m.py().get_type::<CycleError>())?;
    Ok(())
}
