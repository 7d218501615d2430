//! The hidden topological order of a case's ids, and the random streams (SplitMix64) every
//! block draws from.

/// The hidden topological order: `id_of[rank]` and its inverse `rank_of[id]`, or the identity
/// (no memory) for sorted ids.
pub(super) struct Ranks {
    id_of: Vec<u32>,
    rank_of: Vec<u32>,
}

impl Ranks {
    pub(super) fn new(n: u32, seed: u64, sorted: bool) -> Ranks {
        if sorted {
            return Ranks { id_of: Vec::new(), rank_of: Vec::new() };
        }
        let mut id_of: Vec<u32> = (0..n).collect();
        let mut rng = Rng::new(seed);
        for i in (1..n as usize).rev() {
            id_of.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut rank_of = vec![0u32; n as usize];
        for (rank, &id) in id_of.iter().enumerate() {
            rank_of[id as usize] = rank as u32;
        }
        Ranks { id_of, rank_of }
    }

    #[inline]
    pub(super) fn rank(&self, id: u32) -> u32 {
        self.rank_of.get(id as usize).copied().unwrap_or(id)
    }

    #[inline]
    pub(super) fn id(&self, rank: u32) -> u32 {
        self.id_of.get(rank as usize).copied().unwrap_or(rank)
    }
}

/// Appends the decimal digits of `x`.
#[inline]
pub(super) fn push_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// The SplitMix64 finaliser: spreads seeds so neighbouring blocks get unrelated streams.
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64: fast, seedable, and good enough for test data.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift: no division on the hot path.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}
