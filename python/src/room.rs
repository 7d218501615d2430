//! Memory whose size the caller's input chooses (a node count, an octal game's `n`), asked
//! for so that a refusal is a `MemoryError` and not the end of the interpreter.
//!
//! Rust aborts the process when an allocation fails, and a caller's numbers can ask for any
//! size: `Graph.from_edges([], [], n=4_000_000_000)` wants 16 GB of offsets, and under a memory
//! limit (`ulimit -v`, a container's) or past what the kernel will promise, that was SIGABRT.
//! So the arrays the input sizes are reserved with `try_reserve_exact` ([`vec()`], [`collect`]),
//! and before the engine runs, the per-node arrays it surely allocates are asked for and given
//! back ([`check`]): a refusal then is a `MemoryError` naming the bytes and what they were
//! for, raised before any work. What [`check`] cannot promise is that the memory is still
//! there a moment later (another thread may take it), nor the engine's working memory beyond
//! those arrays (a deep search's stacks; a peel's reverse graph for a loopy game with cycles,
//! 4 B per edge and per node and part): those are left to the allocator.

use numpy::{Element, PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;

/// The error for `bytes` asked for `what` and refused.
pub fn refused(bytes: u128, what: &str) -> PyErr {
    PyMemoryError::new_err(format!("cannot allocate {bytes} bytes ({}) for {what}", human(bytes)))
}

/// An empty vector with room for `len` elements, or a `MemoryError` naming `what`.
pub fn vec<T>(len: usize, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| refused(bytes_of::<T>(len), what))?;
    Ok(v)
}

/// The items of `items` in a vector allocated once, or a `MemoryError` naming `what`.
pub fn collect<T>(items: impl ExactSizeIterator<Item = T>, what: &str) -> PyResult<Vec<T>> {
    let mut v = vec(items.len(), what)?;
    v.extend(items);
    Ok(v)
}

/// Room the engine's threads take beside the arrays [`check`] is asked about: their stacks,
/// and on glibc the arena a new thread's allocations come from, which reserves 64 MiB of
/// address space (what `ulimit -v` counts) the first time.
const THREADS: u128 = 64 << 20;

/// A numpy array of `len` elements filled from `items` (which must give that many), or a
/// `MemoryError` naming `what`.
///
/// Allocated by numpy (`numpy.empty`), which raises where Rust would abort, and which asks
/// the kernel for huge pages on large arrays: `Graph.csr()` of 10M moves takes 5 ms so, and
/// took 17-20 ms with a `Vec` handed over (the first touch of 4 KiB pages).
pub fn array<'py, T: Element>(
    py: Python<'py>,
    len: usize,
    items: impl Iterator<Item = T>,
    what: &str,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    let empty = py.import("numpy")?.getattr("empty")?;
    let array = empty.call1((len, numpy::dtype::<T>(py))).map_err(|e| {
        if e.is_instance_of::<PyMemoryError>(py) {
            refused(bytes_of::<T>(len), what)
        } else {
            e
        }
    })?;
    let array = array.cast_into::<PyArray1<T>>()?;
    {
        let mut filled = array.readwrite();
        let slots = filled.as_slice_mut().map_err(|e| PyValueError::new_err(e.to_string()))?;
        for (slot, item) in slots.iter_mut().zip(items) {
            *slot = item;
        }
    }
    Ok(array)
}

/// Whether the engine can allocate `bytes` for `what` now: whether the process can map that
/// much more memory and [`THREADS`] besides ([`can_map`]), so that the engine's allocations of
/// that size that follow find it ([`self`] says what this cannot promise).
pub fn check(bytes: u128, what: &str) -> PyResult<()> {
    match usize::try_from(bytes + THREADS) {
        Ok(len) if can_map(len) => Ok(()),
        _ => Err(PyMemoryError::new_err(format!(
            "cannot allocate {bytes} bytes ({}) for {what}, and 64 MiB for the engine's threads",
            human(bytes)
        ))),
    }
}

/// Whether `len` bytes of fresh memory can be mapped: mapped and unmapped at once, untouched.
///
/// Why a mapping and not a `Vec` given back: the allocator may serve a `Vec` from memory it
/// already holds in the asking thread's arena, which the engine's threads, with arenas of
/// their own, cannot use; a limit on the address space (`ulimit -v`) is met by new mappings.
/// Untouched, the pages cost nothing but the two system calls.
#[cfg(unix)]
fn can_map(len: usize) -> bool {
    if len == 0 {
        return true;
    }
    let (read_write, private) = (libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE);
    // SAFETY: an anonymous mapping at an address the kernel chooses overlaps no memory in use;
    // nothing reads or writes it, and it is unmapped at once, with the length it was made with.
    unsafe {
        let at =
            libc::mmap(std::ptr::null_mut(), len, read_write, private | libc::MAP_ANONYMOUS, -1, 0);
        if at == libc::MAP_FAILED {
            return false;
        }
        libc::munmap(at, len);
    }
    true
}

/// Whether `len` bytes can be allocated: asked for and given back.
#[cfg(not(unix))]
fn can_map(len: usize) -> bool {
    Vec::<u8>::new().try_reserve_exact(len).is_ok()
}

/// The bytes of `len` elements of `T`.
pub fn bytes_of<T>(len: usize) -> u128 {
    len as u128 * std::mem::size_of::<T>() as u128
}

/// `bytes` in the largest unit that leaves at least 1 of it: `16.0 GB`.
fn human(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut size = bytes as f64;
    let mut unit = 0;
    while size >= 1000.0 && unit + 1 < UNITS.len() {
        size /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{size:.1} {}", UNITS[unit])
    }
}
