//! Numpy arrays in: checked as the engine needs them, each error naming the entry and why.

use grundy::graph::{Csr, GameGraph, Offset};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::room;

/// The elements of a 1-D array, which must be contiguous (the wrapper makes it so).
pub fn contiguous<'a, T: numpy::Element>(
    array: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    array.as_slice().map_err(|_| PyValueError::new_err(format!("{name} is not a contiguous array")))
}

/// `count` as a node count: below 2^32 (ids are 32-bit).
pub fn node_count(count: usize) -> PyResult<u32> {
    u32::try_from(count).map_err(|_| {
        PyValueError::new_err(format!("{count} nodes: at most {} fit (ids are 32-bit)", u32::MAX))
    })
}

/// Why `v` is not a node of a graph of `n` nodes.
pub fn not_a_node(name: &str, v: i64, n: u32) -> PyErr {
    let why = if n == 0 {
        "the graph has no nodes".to_string()
    } else {
        format!("ids are 0 to {}", n - 1)
    };
    PyValueError::new_err(format!("{name} is {v}, not a node: {why}"))
}

/// The node ids of `array` (`int64`, or `uint32` copied as it is), or the first entry that is
/// not a node of a graph of `n` nodes.
pub fn ids(array: &Bound<'_, PyAny>, name: &str, n: u32) -> PyResult<Vec<u32>> {
    if let Ok(narrow) = array.cast::<PyArray1<u32>>() {
        let narrow = narrow.readonly();
        let values = contiguous(&narrow, name)?;
        if let Some(i) = values.iter().position(|&v| v >= n) {
            return Err(not_a_node(&format!("{name}[{i}]"), values[i].into(), n));
        }
        return room::collect(values.iter().copied(), &format!("a copy of {name}"));
    }
    let wide: PyReadonlyArray1<'_, i64> = array.extract()?;
    wide_ids(contiguous(&wide, name)?, name, n)
}

/// The `int64` ids `values` as node ids, or the first entry (of the array `name`) that is not
/// a node of a graph of `n` nodes.
pub fn wide_ids(values: &[i64], name: &str, n: u32) -> PyResult<Vec<u32>> {
    if let Some(i) = values.iter().position(|&v| v < 0 || v >= i64::from(n)) {
        return Err(not_a_node(&format!("{name}[{i}]"), values[i], n));
    }
    room::collect(values.iter().map(|&v| v as u32), &format!("a copy of {name}"))
}

/// The CSR offsets `indptr` of a graph of `moves` moves, as `O` (wide enough for `moves`):
/// from 0, never decreasing, ending at `moves`.
pub fn offsets<O: Offset>(indptr: &[i64], moves: usize) -> PyResult<Vec<O>> {
    let mut offsets = room::vec(indptr.len(), "the graph's offsets")?;
    let mut last = 0i64;
    for (i, &o) in indptr.iter().enumerate() {
        if (i == 0 && o != 0) || o < last {
            let why =
                if i == 0 { "the first offset must be 0" } else { "offsets must not decrease" };
            return Err(PyValueError::new_err(format!("indptr[{i}] is {o}: {why}")));
        }
        last = o;
        // Never past `moves` (checked below, an offset counting moves), which O holds.
        offsets.push(O::of(o as usize).unwrap_or_default());
    }
    if last as u64 != moves as u64 {
        return Err(PyValueError::new_err(format!(
            "indptr[{}] is {last}, but indices holds {moves} moves: the last offset is their count",
            indptr.len() - 1
        )));
    }
    Ok(offsets)
}

/// The graph of CSR `indptr` (checked) over `targets`, with 32-bit offsets when they fit.
pub fn csr_game(indptr: &[i64], targets: Vec<u32>) -> PyResult<GameGraph> {
    Ok(if targets.len() as u64 > grundy::graph::narrow_limit() {
        GameGraph::ChessWide(Csr::from_checked_parts(offsets(indptr, targets.len())?, targets))
    } else {
        GameGraph::Chess(Csr::from_checked_parts(offsets(indptr, targets.len())?, targets))
    })
}

/// The graph of CSR `offsets` and `targets` (checked), with 32-bit offsets when they fit.
pub fn game(offsets: Vec<u64>, targets: Vec<u32>) -> GameGraph {
    if targets.len() as u64 > grundy::graph::narrow_limit() {
        GameGraph::ChessWide(Csr::from_checked_parts(offsets, targets))
    } else {
        let narrow = offsets.into_iter().map(|o| o as u32).collect();
        GameGraph::Chess(Csr::from_checked_parts(narrow, targets))
    }
}

/// The queries of CSR `indptr` over `tokens` (`int64`), checked against a graph of `n`
/// nodes: each query's positions, or an error naming `queries[q][i]`.
pub fn queries(indptr: &[i64], tokens: &[i64], n: u32) -> PyResult<(Vec<usize>, Vec<u32>)> {
    // The wrapper builds indptr from the queries' lengths: it is sound unless called directly.
    let sound = indptr.first() == Some(&0)
        && indptr.windows(2).all(|w| w[0] <= w[1])
        && indptr.last().is_some_and(|&l| l as usize == tokens.len());
    if !sound {
        return Err(PyValueError::new_err("the queries' offsets do not match their positions"));
    }
    let bounds: Vec<usize> = indptr.iter().map(|&o| o as usize).collect();
    if let Some(k) = tokens.iter().position(|&v| v < 0 || v >= i64::from(n)) {
        let q = bounds.partition_point(|&b| b <= k) - 1;
        let name = format!("queries[{q}][{}]", k - bounds[q]);
        return Err(not_a_node(&name, tokens[k], n));
    }
    Ok((bounds, tokens.iter().map(|&v| v as u32).collect()))
}
