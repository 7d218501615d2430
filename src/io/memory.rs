//! Large arrays on huge pages, where the kernel offers them; prefetch hints for random reads;
//! the peak memory of the run.
//!
//! Evaluating a random graph is a stream of random reads and writes over arrays of hundreds of
//! MB; with 4 KiB pages most of them miss the TLB as well as the cache. Transparent huge pages
//! (2 MiB) cut those misses. Kernels set to `madvise` mode (the common default) give them only
//! to ranges that ask, and only at first touch, so big arrays are allocated untouched, advised,
//! then filled. Elsewhere the advice is a no-op.

/// Arrays smaller than this stay on ordinary pages: a few huge pages would not pay back.
const MIN_BYTES: usize = 8 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// A vector of `len` zeros (default values) whose memory was advised to use huge pages before first touch, and
/// first touched by all threads of the current pool (a page fault costs about as much as
/// writing the page, and faults in different threads proceed in parallel).
pub fn zeroed_vec<T: Default + Copy + Send + Sync>(len: usize) -> Vec<T> {
    use rayon::prelude::*;
    let mut v: Vec<T> = Vec::with_capacity(len);
    advise_huge(&mut v);
    v.par_extend(rayon::iter::repeat_n(T::default(), len));
    v
}

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

/// Asks for huge pages over the (whole-huge-page part of the) capacity of `v`; only pages not
/// touched yet are affected.
pub fn advise_huge<T>(v: &mut Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < MIN_BYTES || std::env::var_os("NOHUGE").is_some() {
        return;
    }
    let start = v.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > aligned {
        advise(aligned, end - aligned);
    }
}

#[cfg(target_os = "linux")]
fn advise(addr: usize, len: usize) {
    // SAFETY: [addr, addr + len) lies inside the allocation of a live Vec (aligned inward from
    // its capacity), so it is mapped memory this process owns. MADV_HUGEPAGE is advice: it
    // changes neither the contents, the protection nor the validity of any byte, so no Rust
    // reference or invariant can observe it. A failure (e.g. THP compiled out) is ignored.
    unsafe {
        libc::madvise(addr as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_addr: usize, _len: usize) {}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_vec_is_zeroed_at_any_size() {
        for len in [0, 1, 1000, (MIN_BYTES / 4) + 12345] {
            let v: Vec<u32> = zeroed_vec(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 0));
        }
    }
}
