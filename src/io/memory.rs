//! Prefetch hints for random reads; pieces appended in parallel; the peak memory of the run.
//!
//! No array asks for transparent huge pages. They would save TLB misses on the random reads
//! of the peeling, but on the development machine the host takes idle 2 MiB blocks back and
//! the kernel then clears each one at its first touch: each use measured cost more than it
//! saved (README, "Huge pages"). An input file's map does ask for them (`io::input`): its
//! pages are the page cache's, made once and mapped again by every later run.

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

/// Appends `pieces` to `buf` in order, each piece copied by its own rayon task: the copy and
/// the first touch of the fresh pages it writes (as costly as the copy) run on every thread.
pub fn append_parallel<T, P>(buf: &mut Vec<T>, pieces: &[P])
where
    T: Copy + Send + Sync,
    P: AsRef<[T]> + Sync,
{
    use rayon::prelude::*;
    let total: usize = pieces.iter().map(|p| p.as_ref().len()).sum();
    buf.reserve(total);
    let mut spare = &mut buf.spare_capacity_mut()[..total];
    let mut slots = Vec::with_capacity(pieces.len());
    for piece in pieces {
        let (slot, rest) = spare.split_at_mut(piece.as_ref().len());
        slots.push(slot);
        spare = rest;
    }
    slots.into_par_iter().zip(pieces).for_each(|(slot, piece)| {
        for (slot, &item) in slot.iter_mut().zip(piece.as_ref()) {
            slot.write(item);
        }
    });
    let len = buf.len() + total;
    // SAFETY: the `total` slots after the old length were all written above (each piece's
    // slot is exactly its length, and the slots tile the range), and `reserve` made room.
    unsafe { buf.set_len(len) };
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces of every length, empty ones too, land after what the buffer held, in order.
    #[test]
    fn pieces_are_appended_in_order() {
        let mut rng = crate::testing::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..50 {
            let pieces: Vec<Vec<u32>> = (0..rng.below(12))
                .map(|_| (0..rng.below(3000)).map(|_| rng.below(1 << 20) as u32).collect())
                .collect();
            let mut buf: Vec<u32> = (0..rng.below(100)).map(|i| i as u32).collect();
            let mut expected = buf.clone();
            expected.extend(pieces.iter().flatten());
            append_parallel(&mut buf, &pieces);
            assert_eq!(buf, expected, "round {round}");
        }
    }
}
