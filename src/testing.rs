//! Helpers shared by the unit tests.

/// A xorshift64 generator: deterministic random inputs for the tests, with no crate for it.
pub struct Xorshift(u64);

impl Xorshift {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Xorshift {
        Xorshift(seed)
    }

    /// The next 64 bits.
    pub fn bits(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.bits() % bound.max(1)
    }
}
