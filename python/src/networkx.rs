//! networkx graphs in: the adjacency dicts read list by list here, where a Python loop over
//! a million edges takes most of a second.

use std::sync::atomic::{AtomicPtr, Ordering};

use grundy::graph::GameGraph;
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::prelude::*;

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
///
/// The dicts and the keys lie anywhere in memory, so the walk is bound by the latency of its
/// reads. It goes in stages, each asking early for what a later one reads: the dicts' headers,
/// then their entries, then the lookups of the keys' numbers; it reads as few keys' objects
/// as it can (see [`Known`]); and on CPython the lists are walked on every thread of rayon's
/// pool, each core with its own reads on their way ([`Next::lists_parallel`]).
fn numbered(adj: &Bound<'_, PyDict>) -> PyResult<Option<GameGraph>> {
    let n = node_count(adj.len())?;
    let next = Next::find(adj.py());
    let (mut keys, mut dicts) = (Vec::with_capacity(n as usize), Vec::new());
    // SAFETY (every walk): the GIL is held (`adj` is bound to it) and the closures call no
    // Python code, so no dict changes while it is walked; `adj` holds every dict walked, and
    // each dict holds its keys, so every pointer gathered stays alive until this returns.
    unsafe {
        next.walk(adj.as_ptr(), |key, hash, neighbours| {
            keys.push((key, hash));
            dicts.push(Borrowed(neighbours));
        })
    };
    let known = Known::new(n);
    let mut claims = Claims::default();
    let nodes: Option<Vec<u32>> =
        keys.iter().map(|&(key, hash)| known.number(key, hash, &mut claims)).collect();
    let Some(nodes) = nodes.filter(|_| claims.confirmed()) else { return Ok(None) };
    let mut seen = vec![false; n as usize];
    for (&v, &neighbours) in nodes.iter().zip(&dicts) {
        // A repeated number or a list that is not a dict: the general path says which.
        // SAFETY: `neighbours` is alive (above); PyDict_Check reads its type's flags.
        if std::mem::replace(&mut seen[v as usize], true)
            || unsafe { ffi::PyDict_Check(neighbours.0) } == 0
        {
            return Ok(None);
        }
    }
    let Some((targets, lengths)) = next.lists_parallel(&dicts, &known) else { return Ok(None) };
    let mut at = 0;
    let order = nodes.iter().zip(&lengths).map(|(&v, &len)| {
        let list = (v, at, len as usize);
        at += len as usize;
        list
    });
    Ok(Some(in_node_order(n, order.collect(), targets)))
}

/// How many dicts ahead of the one walked [`Next::lists`] asks for.
const AHEAD: usize = 8;

/// Dicts per batch of [`Next::lists`]: a few hundred keys, whose lookups overlap.
const BATCH: usize = 32;

/// Keys taken to be the `int`s 0 to n-1 by their hashes (an `int`'s hash is itself, for
/// these), each new object checked after: a networkx graph's dicts hold few objects for each
/// node (often one, as when the edges were built from one list of nodes), so few keys' objects
/// are read, a cache miss each, and those are asked for ahead of their reads.
///
/// The table is shared by the threads that walk the lists: a thread that meets an object not
/// in its number's slot puts it there and makes a claim of its own ([`Claims`]). So a key is
/// numbered `h` only when it is the very object of some thread's claim `(object, h)`, and
/// every claim is checked before the lists are used.
struct Known {
    /// For each number, the last object taken to be it (null for none yet).
    objects: Vec<AtomicPtr<ffi::PyObject>>,
}

/// Objects taken for a number for the first time by one thread, to check
/// ([`Claims::confirmed`]).
#[derive(Default)]
struct Claims(Vec<(*mut ffi::PyObject, u64)>);

impl Known {
    fn new(n: u32) -> Known {
        Known { objects: (0..n).map(|_| AtomicPtr::new(std::ptr::null_mut())).collect() }
    }

    /// Hints that the number of a key whose hash is `hash` will be looked up soon.
    #[inline]
    fn ask(&self, hash: ffi::Py_hash_t) {
        if let Some(slot) = usize::try_from(hash).ok().and_then(|h| self.objects.get(h)) {
            prefetch(std::ptr::from_ref(slot).cast_mut().cast());
        }
    }

    /// The number of `key` (whose hash is `hash`, -1 when unknown), if it is one of 0 to n-1,
    /// provided every thread's [`Claims::confirmed`] says so after; a new object for a number
    /// goes to `claims`.
    #[inline]
    fn number(
        &self,
        key: *mut ffi::PyObject,
        hash: ffi::Py_hash_t,
        claims: &mut Claims,
    ) -> Option<u32> {
        let n = self.objects.len() as u64;
        match u64::try_from(hash).ok().filter(|&h| h < n) {
            Some(h) => {
                // Relaxed: a slot only ever holds null or an object some thread has claimed
                // for this number, whichever store a thread sees.
                let known = &self.objects[h as usize];
                if known.load(Ordering::Relaxed) != key {
                    known.store(key, Ordering::Relaxed);
                    claims.0.push((key, h));
                }
                Some(h as u32)
            }
            // No hash, or one that is not a number: read the key itself.
            None => small_int(key).filter(|&i| i < n).map(|i| i as u32),
        }
    }
}

impl Claims {
    /// Whether every object claimed since the last call is the `int` of its number (each
    /// claim is checked once: a later call checks the newer ones).
    fn confirmed(&mut self) -> bool {
        const AHEAD: usize = 16;
        let claims = std::mem::take(&mut self.0);
        claims.iter().enumerate().all(|(i, &(key, h))| {
            if let Some(&(ahead, _)) = claims.get(i + AHEAD) {
                prefetch(ahead);
            }
            small_int(key) == Some(h)
        })
    }
}

/// Hints that the entries of the dict `dict`, a CPython `dict`, will be read soon. What it
/// reads of the dict is CPython's layout (`ma_used` and `ma_keys`, at the same offsets from
/// 3.9 to 3.14), but only for hints: another layout would make the hints wrong, never a read.
fn prefetch_entries(dict: *mut ffi::PyObject) {
    /// The most cache lines asked for one dict.
    const LINES: usize = 12;
    let words = dict.cast::<usize>();
    // SAFETY: `dict` is a live CPython `dict` (checked above), whose object holds these words
    // (PyDictObject: the object header, ma_used, a 64-bit tag, ma_keys and ma_values, at least
    // 48 bytes in every CPython, `Next::find` checks), and reading them as integers is defined
    // whatever they hold.
    let (used, entries) = unsafe { (words.add(2).read(), words.add(4).read()) };
    // The keys object's header (32 bytes), its index table and its entries (24 bytes each).
    let lines = (used.saturating_mul(24).saturating_add(96) / 64 + 1).min(LINES);
    for line in 0..lines {
        prefetch((entries as *mut ffi::PyObject).wrapping_byte_add(line * 64));
    }
}

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

/// CPython's `_PyDict_Next`: `PyDict_Next` that also gives each key's hash, as the dict keeps
/// it. Not in the stable ABI, so looked up when the module runs.
type NextWithHash = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *mut ffi::Py_ssize_t,
    *mut *mut ffi::PyObject,
    *mut *mut ffi::PyObject,
    *mut ffi::Py_hash_t,
) -> std::os::raw::c_int;

/// How the dicts are walked: with the keys' hashes where the interpreter gives them.
#[derive(Clone, Copy)]
struct Next {
    with_hash: Option<NextWithHash>,
    /// Whether the interpreter is CPython, whose `dict` objects [`prefetch_entries`] reads.
    cpython: bool,
}

impl Next {
    /// `_PyDict_Next` when the running interpreter exports it (CPython does: a private
    /// function, looked up by name so that an interpreter without it takes `PyDict_Next`).
    fn find(py: Python<'_>) -> Next {
        static FOUND: std::sync::OnceLock<(Option<usize>, bool)> = std::sync::OnceLock::new();
        let (found, cpython) = *FOUND.get_or_init(|| {
            // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only looks a symbol
            // up in the process's loaded objects.
            let symbol = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"_PyDict_Next".as_ptr()) };
            let found = (!symbol.is_null()).then_some(symbol as usize);
            (found, is_cpython(py))
        });
        // SAFETY: the symbol `_PyDict_Next` of CPython is that function, of this signature
        // (Include/cpython/dictobject.h, the same in every CPython 3). Only CPython's is trusted.
        let with_hash = found
            .filter(|_| cpython)
            .map(|f| unsafe { std::mem::transmute::<usize, NextWithHash>(f) });
        Next { with_hash, cpython }
    }

    /// The lists of `dicts` (live `dict`s), as the numbers of their keys by `known` (which
    /// already holds the nodes' own objects, often the very ones the lists hold), with each
    /// one's length; `None` when a key is not an `int` from 0 to n-1.
    ///
    /// The keys are gathered a batch of dicts at a time, and each key's number looked up
    /// after the batch: the lookups hit [`Known`]'s table at random, so each is asked for when
    /// its key is gathered, and their misses overlap.
    fn lists(self, dicts: &[Borrowed], known: &Known) -> Option<(Vec<u32>, Vec<u32>)> {
        let (mut targets, mut lengths) = (Vec::new(), Vec::with_capacity(dicts.len()));
        let (mut batch, mut claims) = (Vec::new(), Claims::default());
        for (b, chunk) in dicts.chunks(BATCH).enumerate() {
            batch.clear();
            for (i, &dict) in chunk.iter().enumerate() {
                let i = b * BATCH + i;
                if let Some(&ahead) = dicts.get(i + 2 * AHEAD) {
                    prefetch(ahead.0);
                }
                if let Some(&ahead) = dicts.get(i + AHEAD).filter(|_| self.cpython) {
                    prefetch_entries(ahead.0);
                }
                let start = batch.len();
                // SAFETY: `dict` is a live `dict` that does not change meanwhile (`numbered`;
                // on another thread than the GIL's, see `Borrowed`).
                unsafe {
                    self.walk(dict.0, |key, hash, _| {
                        known.ask(hash);
                        batch.push((key, hash));
                    })
                };
                // A dict's keys are distinct, and numbers below n if they are numbers at all
                // (checked below), so its length fits.
                lengths.push((batch.len() - start) as u32);
            }
            for &(key, hash) in &batch {
                targets.push(known.number(key, hash, &mut claims)?);
            }
        }
        claims.confirmed().then_some((targets, lengths))
    }

    /// [`Next::lists`] in as many pieces as rayon's pool has threads (on CPython; in one piece
    /// elsewhere), each piece walked on one of them while the caller waits with the GIL held.
    ///
    /// Why: the walk waits on memory, and each core keeps its own reads on their way. On the
    /// 1M-edge DiGraph of `scripts/pybench.py`, 2 threads took the build from 20 to 15 ms.
    fn lists_parallel(self, dicts: &[Borrowed], known: &Known) -> Option<(Vec<u32>, Vec<u32>)> {
        let threads = if self.cpython { rayon::current_num_threads() } else { 1 };
        let pieces = threads.min(dicts.len() / LEAST_PIECE).max(1);
        let size = dicts.len().div_ceil(pieces).max(1);
        let walked: Vec<_> = dicts.par_chunks(size).map(|piece| self.lists(piece, known)).collect();
        let (mut targets, mut lengths) = (Vec::new(), Vec::with_capacity(dicts.len()));
        for piece in walked {
            let (t, l) = piece?;
            if targets.is_empty() {
                targets = t;
            } else {
                targets.extend_from_slice(&t);
            }
            lengths.extend_from_slice(&l);
        }
        Some((targets, lengths))
    }

    /// Calls `f` on each `(key, hash, value)` of the dict `dict` (the hash -1 when unknown).
    /// The pointers are borrowed: alive while the dict holds them.
    ///
    /// # Safety
    ///
    /// `dict` is a live `dict`, the GIL is held, and `f` does not change the dict (it runs no
    /// Python code).
    unsafe fn walk(
        self,
        dict: *mut ffi::PyObject,
        mut f: impl FnMut(*mut ffi::PyObject, ffi::Py_hash_t, *mut ffi::PyObject),
    ) {
        let mut at: ffi::Py_ssize_t = 0;
        let (mut key, mut value, mut hash) = (std::ptr::null_mut(), std::ptr::null_mut(), -1);
        // SAFETY: the caller's guarantees; both functions write borrowed references.
        match self.with_hash {
            Some(next) => {
                while unsafe { next(dict, &mut at, &mut key, &mut value, &mut hash) } != 0 {
                    f(key, hash, value);
                }
            }
            None => {
                while unsafe { ffi::PyDict_Next(dict, &mut at, &mut key, &mut value) } != 0 {
                    f(key, -1, value);
                }
            }
        }
    }
}

/// Fewest dicts in a piece of [`Next::lists_parallel`]: fewer are walked on one thread, whose
/// start would cost more than it saves.
const LEAST_PIECE: usize = 4096;

/// A borrowed pointer to a Python object (a node's dict of neighbours), read by the threads
/// that walk the lists.
#[derive(Clone, Copy)]
struct Borrowed(*mut ffi::PyObject);

// SAFETY: the threads that get these pointers only read the objects (through `_PyDict_Next`,
// `PyDict_Next`, `PyLong_Check` and `PyLong_AsLongLongAndOverflow` on `int`s, and prefetches),
// calling no Python code and touching no reference count, so they need no thread state; and
// nothing changes the objects meanwhile: the thread that made the pointers holds the GIL and
// waits for them (so no Python code runs anywhere), and the graph it walks keeps every
// object alive. Only CPython's objects are read on other threads (`Next::lists_parallel`).
unsafe impl Send for Borrowed {}
// SAFETY: as for `Send`: shared reads only.
unsafe impl Sync for Borrowed {}

/// Whether the interpreter is CPython with `dict` objects of at least 48 bytes (what
/// [`prefetch_entries`] reads).
fn is_cpython(py: Python<'_>) -> bool {
    let name = py
        .import("sys")
        .and_then(|sys| sys.getattr("implementation")?.getattr("name")?.extract::<String>());
    let size = py.get_type::<PyDict>().getattr("__basicsize__").and_then(|s| s.extract::<usize>());
    matches!((name.as_deref(), size), (Ok("cpython"), Ok(48..)))
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
