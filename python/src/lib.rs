//! `grundy._grundy`: the Python module's engine, over the grundy library's public API.
//!
//! A [`Graph`] holds a game graph as the engine does (CSR: `u32` targets, 32-bit offsets, or
//! 64-bit past 2^32 edges) and its values once computed. Arrays come in as numpy arrays the
//! wrapper in `pysrc/grundy` has given the types read here (`int64` for offsets and ids, or
//! `uint32` ids, checked here with the index of what is wrong: [`arrays`]), and values go out
//! as numpy `uint32` arrays. The engine runs without the GIL, on a rayon pool of the asked
//! number of threads, on a thread of its own so that Ctrl-C interrupts it ([`run`]).

mod arrays;
mod graph;
mod networkx;
mod room;
mod run;

use grundy::graph::GameGraph;
use grundy::octal::{Code, Method};
use grundy::Format;
use numpy::PyArray1;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use graph::Graph;

pyo3::create_exception!(
    _grundy,
    CycleError,
    PyValueError,
    "The graph has a cycle, so it is not a game that must end; `cycle` lists its nodes."
);

/// The reader's format for `format` (and `nodes`, the edge lists' `--nodes`).
fn text_format(format: &str, nodes: Option<u32>) -> PyResult<Format> {
    match (format, nodes) {
        ("chess", None) => Ok(Format::Chess),
        ("edges", nodes) => Ok(Format::Edges { nodes }),
        ("sums", _) => Err(PyValueError::new_err(
            "the sums format is not read into a Graph yet: give chess or edges",
        )),
        ("chess", Some(_)) => Err(PyValueError::new_err("nodes applies to format=\"edges\" only")),
        (other, _) => {
            Err(PyValueError::new_err(format!("format is {other:?}: give \"chess\" or \"edges\"")))
        }
    }
}

/// Case `case` (1-based) of the file at `path`: a text in `format` (`chess` or `edges`), read
/// by the CLI's reader (stdin as `-`, gzip, zstd) and evaluated as it is read (as a loopy game
/// with `loopy`), or an index (`grundy index`, recognised by its first bytes), whose values
/// come with the graph; `trust` skips an index's checksums.
#[pyfunction]
#[pyo3(signature = (path, format="chess", case=1, nodes=None, loopy=false, trust=false))]
fn read(
    py: Python<'_>,
    path: &str,
    format: &str,
    case: u64,
    nodes: Option<u32>,
    loopy: bool,
    trust: bool,
) -> PyResult<Graph> {
    let format = text_format(format, nodes)?;
    if let Some(n) = nodes {
        // The reader allocates the offsets of the nodes asked for, 4 bytes each, come what may.
        room::check((u128::from(n) + 1) * 4, &format!("the offsets of nodes={n}"))?;
    }
    let path = std::path::Path::new(path);
    let input = grundy::Input::open_streaming(Some(path), grundy::index::is_index)
        .map_err(|e| engine_error(py, e.into()))?;
    let name = input.name().to_string();
    let missing = || PyValueError::new_err(format!("{name} has no case {case}"));
    if grundy::index::is_index(input.bytes()) {
        if format != Format::Chess {
            let why = "an index records how its game was read: drop format and nodes";
            return Err(PyValueError::new_err(format!("{name} is an index, {why}")));
        }
        let i = case.checked_sub(1).ok_or_else(missing)? as usize;
        let opened = py.detach(|| -> Result<Option<_>, grundy::Error> {
            let index = grundy::index::Index::open(&input, !trust)?;
            if i >= index.case_count() {
                return Ok(None);
            }
            Ok(Some((index.case(i, false)?, index.is_loopy())))
        });
        let (indexed, loopy) = opened.map_err(|e| engine_error(py, e))?.ok_or_else(missing)?;
        let (values, labels) =
            if loopy { (None, Some(indexed.values)) } else { (Some(indexed.values), None) };
        return graph_of(&name, indexed.graph, values, labels);
    }
    let found = run::run(py, None, move |exec, watch| -> Result<_, grundy::Error> {
        let mut reader = grundy::CaseReader::new(&input, exec, format, watch).with_levels(false);
        loop {
            let (number, graph, values) = if loopy {
                let Some(labelled) = reader.next_loopy_case()? else { return Ok(None) };
                (labelled.case, labelled.graph, labelled.values)
            } else {
                let Some(evaluated) = reader.next_case()? else { return Ok(None) };
                (evaluated.case, evaluated.graph, evaluated.values)
            };
            if number == case {
                return Ok(Some((graph, values)));
            }
            reader.skip_queries()?;
        }
    })?;
    let (graph, values) = found.map_err(|e| engine_error(py, e))?.ok_or_else(missing)?;
    let (values, labels) = if loopy { (None, Some(values)) } else { (Some(values), None) };
    graph_of(&name, graph, values, labels)
}

/// A [`Graph`] of a chess-format `graph` read from the file `name`.
fn graph_of(
    name: &str,
    graph: GameGraph,
    values: Option<grundy::eval::Values>,
    labels: Option<grundy::eval::Values>,
) -> PyResult<Graph> {
    match graph {
        GameGraph::Sums(_) => Err(PyValueError::new_err(format!(
            "{name} holds a sums-format game, which is not read into a Graph yet"
        ))),
        graph => Ok(Graph::new(graph, values, labels)),
    }
}

/// G(0..=n) of the octal game `code` (hexadecimal digits with `hex`), extended past a proved
/// period, as a numpy `uint32` array, and the period `(preperiod, period, proved_at)` if one
/// is proved by then; by the sparse-space method unless `naive`.
#[pyfunction]
#[pyo3(signature = (code, n, hex=false, naive=false))]
#[allow(clippy::type_complexity)]
fn octal<'py>(
    py: Python<'py>,
    code: &str,
    n: usize,
    hex: bool,
    naive: bool,
) -> PyResult<(Bound<'py, PyArray1<u32>>, Option<(usize, usize, usize)>)> {
    let parsed = Code::parse(code, hex)
        .map_err(|e| PyValueError::new_err(format!("octal code {code:?}: {e}")))?;
    let method = if naive { Method::Naive } else { Method::Sparse };
    // The array of G(0..=n) is the one allocation n alone sizes (a proved period gives the
    // values past the computed ones): reserved before the run, so that n = 10^12 is a
    // MemoryError at once, not an abort once the period is proved.
    let what = format!("G(0..=n) with n = {n} (4 bytes a value)");
    let count = n.checked_add(1).ok_or_else(|| room::refused((n as u128 + 1) * 4, &what))?;
    let mut values: Vec<u32> = room::vec(count, &what)?;
    let sequence = run::run(py, Some(1), move |_, watch| {
        let sequence = grundy::octal::sequence(&parsed, n, method, watch);
        values.extend(sequence.extended(n));
        (values, sequence.period.map(|p| (p.preperiod, p.period, p.proved_at)))
    })?;
    Ok((PyArray1::from_vec(py, sequence.0), sequence.1))
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

/// The module: the wrapper in `pysrc/grundy/__init__.py` is its documented face.
#[pymodule]
fn _grundy(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Graph>()?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(octal, m)?)?;
    m.add("CycleError", m.py().get_type::<CycleError>())?;
    Ok(())
}
