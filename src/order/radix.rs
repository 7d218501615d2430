//! Sorting a part's next level of node ids by two counting passes (a radix sort whose
//! counters stay in the first-level cache).

/// Sorts `ids`, all in `base..base + span`, in increasing order. A part's next level holds
/// thousands of ids in a range: two passes of counting by half their bits (a radix sort, with
/// counters that stay in the first-level cache) cost a third of a comparison sort there.
pub(super) fn sort_ids(ids: &mut Vec<u32>, base: u32, span: usize) {
    let bits = usize::BITS - span.saturating_sub(1).leading_zeros();
    if ids.len() < RADIX_IDS || bits > 2 * RADIX_BITS {
        ids.sort_unstable();
        return;
    }
    let digit = bits.div_ceil(2);
    let mut counts = vec![0u32; 1 << digit];
    let mut sorted = vec![0u32; ids.len()];
    for shift in [0, digit] {
        let key = |id: u32| ((id - base) >> shift) as usize & ((1 << digit) - 1);
        counts.fill(0);
        ids.iter().for_each(|&id| counts[key(id)] += 1);
        let mut at = 0;
        for count in &mut counts {
            at += std::mem::replace(count, at);
        }
        for &id in ids.iter() {
            let slot = &mut counts[key(id)];
            sorted[*slot as usize] = id;
            *slot += 1;
        }
        std::mem::swap(ids, &mut sorted);
    }
}

/// Fewest ids [`sort_ids`] sorts by counting: below, a comparison sort is as fast.
pub(super) const RADIX_IDS: usize = if cfg!(test) { 4 } else { 256 };

/// Most bits of a counting pass of [`sort_ids`] (4,096 counters, 16 KB): ranges of more than
/// 2^24 ids are sorted by comparison.
pub(super) const RADIX_BITS: u32 = 12;

#[cfg(test)]
mod tests {
    use super::*;

    /// Random ids in random ranges, few and many, narrow and past 2^24 wide: sorted as a
    /// comparison sort sorts them.
    #[test]
    fn ids_are_sorted_by_counting_as_by_comparing() {
        let mut rng = crate::testing::Xorshift::new(0x5851_f42d_4c95_7f2d);
        for round in 0..200 {
            let span = 1 + rng.below([10, 1000, 1 << 20, 1 << 25][round % 4]) as usize;
            let base = rng.below(1 << 20) as u32;
            let len = rng.below([3, 50, 5000][round % 3]) as usize;
            let mut ids: Vec<u32> =
                (0..len).map(|_| base + rng.below(span as u64) as u32).collect();
            let mut expected = ids.clone();
            expected.sort_unstable();
            sort_ids(&mut ids, base, span);
            assert_eq!(ids, expected, "round {round}");
        }
    }
}
