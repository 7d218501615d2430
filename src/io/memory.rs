//! Prefetch hints for random reads; the peak memory of the run.
//!
//! No array asks for transparent huge pages. They would save TLB misses on the random reads
//! of the peeling, but on the development machine the host takes idle 2 MiB blocks back and
//! the kernel then clears each one at its first touch: each use measured cost more than it
//! saved (README, "Huge pages").

/// Hints that `slice[i]` will be read soon, so that several cache misses of a loop overlap
/// instead of waiting one at a time. Out of range, or off x86-64, it does nothing.
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = slice.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has; it is a hint that
        // never faults nor changes memory, and the address is that of a live element anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// The peak resident memory of this process so far, in bytes, where the system tells it.
#[cfg(unix)]
pub fn peak_bytes() -> Option<u64> {
    // SAFETY: getrusage only writes the struct it is given, which is a valid, owned,
    // zero-initialised `rusage`; RUSAGE_SELF is a valid `who`.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(libc::RUSAGE_SELF, &mut usage) == 0).then_some(usage)
    }?;
    // Linux reports kilobytes; macOS bytes.
    let scale = if cfg!(target_os = "macos") { 1 } else { 1024 };
    u64::try_from(usage.ru_maxrss).ok().map(|kb| kb * scale)
}

/// The peak resident memory of this process, where the system tells it (not here).
#[cfg(not(unix))]
pub fn peak_bytes() -> Option<u64> {
    None
}
