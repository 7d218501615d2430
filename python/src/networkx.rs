//! networkx graphs in: the adjacency dicts read list by list here, where a Python loop over
//! a million edges takes most of a second.

use grundy::graph::GameGraph;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{game, node_count};

/// What to do when a networkx node is not numbered as the graph needs it.
const RELABEL: &str =
    "use grundy.from_networkx_labelled(G), which numbers them and returns their labels";

/// The graph of `adj`, a networkx adjacency (a dict from each node to the dict of its
/// out-neighbours, as `G._adj`): node `i` is the key `number` maps to `i`, or, without
/// `number`, the key `i` itself (the nodes must then be the integers 0 to n-1).
pub fn graph(adj: &Bound<'_, PyDict>, number: Option<&Bound<'_, PyDict>>) -> PyResult<GameGraph> {
    if number.is_none() {
        if let Some(graph) = numbered(adj)? {
            return Ok(graph);
        }
    }
    let n = node_count(adj.len())?;
    let id = |key: &Bound<'_, PyAny>| -> PyResult<u32> {
        let found = match number {
            Some(number) => number.get_item(key)?.map(|i| i.extract::<i64>()).transpose()?,
            None => key.extract::<i64>().ok(),
        };
        match found {
            Some(i) if (0..i64::from(n)).contains(&i) => Ok(i as u32),
            _ if number.is_some() => {
                Err(PyValueError::new_err(format!("node {key} has no number in 0 to {}", n - 1)))
            }
            _ => Err(PyValueError::new_err(format!(
                "node {key} is not one of the integers 0 to {}: {RELABEL}",
                n.saturating_sub(1)
            ))),
        }
    };
    // The lists in the dict's order, with the node each belongs to; in node order already
    // when the nodes were added in order, as they usually are.
    let mut targets = Vec::new();
    let mut lists = Vec::with_capacity(n as usize);
    let mut seen = vec![false; n as usize];
    for (key, neighbours) in adj.iter() {
        let v = id(&key)?;
        if std::mem::replace(&mut seen[v as usize], true) {
            return Err(PyValueError::new_err(format!("node {key} is numbered {v} twice")));
        }
        let neighbours = neighbours.cast_into::<PyDict>().map_err(|_| {
            PyValueError::new_err(format!("the neighbours of node {key} are not a dict"))
        })?;
        let start = targets.len();
        for (to, _) in neighbours.iter() {
            targets.push(id(&to)?);
        }
        lists.push((v, start, targets.len() - start));
    }
    Ok(in_node_order(n, lists, targets))
}

/// The graph of lists `(node, start, length)` of `targets`, in any node order.
fn in_node_order(n: u32, mut lists: Vec<(u32, usize, usize)>, targets: Vec<u32>) -> GameGraph {
    let mut offsets = Vec::with_capacity(n as usize + 1);
    offsets.push(0u64);
    if lists.iter().enumerate().all(|(i, &(v, ..))| v as usize == i) {
        offsets.extend(lists.iter().map(|&(_, start, len)| (start + len) as u64));
        return game(offsets, targets);
    }
    lists.sort_unstable_by_key(|&(v, ..)| v);
    let mut ordered = Vec::with_capacity(targets.len());
    for &(_, start, len) in &lists {
        ordered.extend_from_slice(&targets[start..start + len]);
        offsets.push(ordered.len() as u64);
    }
    game(offsets, ordered)
}

/// [`graph`] of an adjacency whose nodes are Python `int`s, read from the dicts' entries
/// without touching their values (networkx's edge-attribute dicts, a cache miss each): `None`
/// when a key is not an `int` (a numpy integer, say), for [`graph`] to read them by `__index__`.
fn numbered(adj: &Bound<'_, PyDict>) -> PyResult<Option<GameGraph>> {
    let n = node_count(adj.len())?;
    let id = |key| small_int(key).filter(|&i| i < u64::from(n)).map(|i| i as u32);
    let mut seen = vec![false; n as usize];
    let mut nodes = Vec::with_capacity(n as usize);
    // SAFETY (every walk): the GIL is held (`adj` is bound to it) and the closures call no
    // Python code, so no dict changes while it is walked; `adj` holds every dict walked.
    let numbered = unsafe {
        walk(adj.as_ptr(), |key, neighbours| {
            let Some(v) = id(key) else { return false };
            // A repeated number or a list that is not a dict: the general path says which.
            let fresh = !std::mem::replace(&mut seen[v as usize], true);
            fresh && ffi::PyDict_Check(neighbours) != 0 && {
                nodes.push((v, neighbours));
                true
            }
        })
    };
    if !numbered {
        return Ok(None);
    }
    let mut targets = Vec::new();
    let mut lists = Vec::with_capacity(n as usize);
    let mut whole = true;
    for (i, &(v, neighbours)) in nodes.iter().enumerate() {
        // The dicts lie anywhere in memory: ask for the next ones' headers early.
        if let Some(&(_, ahead)) = nodes.get(i + AHEAD) {
            prefetch(ahead);
        }
        let start = targets.len();
        // SAFETY: as above.
        whole &= unsafe { walk(neighbours, |to, _| id(to).map(|t| targets.push(t)).is_some()) };
        if !whole {
            break;
        }
        lists.push((v, start, targets.len() - start));
    }
    Ok(whole.then(|| in_node_order(n, lists, targets)))
}

/// How many dicts ahead of the one walked [`numbered`] asks for.
const AHEAD: usize = 8;

/// Hints that the object at `object` will be read soon.
fn prefetch(object: *mut ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has; it is a hint that
    // never faults nor changes memory, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(object.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = object;
}

/// Calls `f` on each `(key, value)` of the dict `dict` until it returns false; true when it
/// never did. The pointers are borrowed: alive while the dict holds them.
///
/// # Safety
///
/// `dict` is a live `dict`, the GIL is held, and `f` does not change the dict (it runs no
/// Python code).
unsafe fn walk(
    dict: *mut ffi::PyObject,
    mut f: impl FnMut(*mut ffi::PyObject, *mut ffi::PyObject) -> bool,
) -> bool {
    let mut at: ffi::Py_ssize_t = 0;
    let (mut key, mut value) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: the caller's guarantees; PyDict_Next writes borrowed references.
    while unsafe { ffi::PyDict_Next(dict, &mut at, &mut key, &mut value) } != 0 {
        if !f(key, value) {
            return false;
        }
    }
    true
}

/// The value of `key` when it is a Python `int` from 0 to 2^63 - 1.
fn small_int(key: *mut ffi::PyObject) -> Option<u64> {
    // SAFETY: `key` is a live object; PyLong_Check reads its type's flags, and on an `int`
    // PyLong_AsLongLongAndOverflow reads its digits, runs no Python code and sets no error
    // (it reports a value past 64 bits through `overflow`).
    unsafe {
        if ffi::PyLong_Check(key) == 0 {
            return None;
        }
        let mut overflow = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(key, &mut overflow);
        (overflow == 0 && v >= 0).then_some(v as u64)
    }
}
