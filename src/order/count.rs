//! The pending counts of the peel: a byte or four per node, or a word holding the count and
//! the mask of the values its released moves lead to ([`Packed`]), so that the peel takes
//! every node's mex on the way.

/// The values of the nodes `ready`, found ready in `own` (the counts of the ids from `base`):
/// each stored in its node's count, which is done counting (so that the counts become the
/// values by node without a scattered write to a separate array, or its memory), and pushed,
/// in the order of `ready`, onto `found`. A value fits a byte: at most [`MASK_MOVES`].
pub(super) fn take_values<C: Count>(
    ready: &[u32],
    (own, base): (&mut [C], u32),
    found: &mut Vec<u8>,
) {
    found.extend(ready.iter().map(|&p| own[(p - base) as usize].finish()));
}

/// Most moves a node may have for the peeling to take its mex ([`super::levels_valued`]): the mex of `d`
/// values is at most `d`, so `d + 1` bits of mask cover it, and the count takes 8 more bits.
pub const MASK_MOVES: u32 = 55;

/// Most moves of every node for the peeling to take the mex in 4 bytes per node: a 26-bit
/// mask and a 6-bit count.
pub(super) const MASK_MOVES_NARROW: u32 = 25;

/// A pending count: a byte when every out-degree fits one, else 4 bytes; or [`Packed`].
pub(super) trait Count: Copy + Send + Sync {
    /// True when the count also gathers its node's moves' values, for the mex.
    const VALUED: bool = false;
    /// The count of `degree` out-positions (it fits).
    fn of(degree: u32) -> Self;
    /// Removes one out-position, whose value is `value` (read only when [`Count::VALUED`]);
    /// true when none is left.
    fn take_one(&mut self, value: u32) -> bool;
    /// The count.
    fn get(self) -> u32;
    /// The mex of the values taken (when [`Count::VALUED`]).
    fn mex(self) -> u32 {
        0
    }
    /// A finished count holding its node's value `value` (when [`Count::VALUED`]).
    fn of_value(value: u32) -> Self {
        Self::of(value)
    }
    /// The value a finished count holds: what [`Count::of_value`] stored, 0 for a count that
    /// started at 0 (a sink's).
    fn value(self) -> u32 {
        self.get()
    }
    /// Finishes a count with no out-position left (when [`Count::VALUED`]): it then holds its
    /// node's value, the mex, which is returned (at most [`MASK_MOVES`], so a byte).
    fn finish(&mut self) -> u8 {
        let value = self.mex();
        *self = Self::of_value(value);
        value as u8
    }
}

/// A pending count in the top bits of a word, and below it the mask of the values the moves
/// released so far lead to: one word per node, so marking a value and counting a move down
/// are one read and one write of one cache line. `Packed<u64>` holds a count of up to
/// [`MASK_MOVES`] in 8 bits over a 56-bit mask; `Packed<u32>`, half the memory the peel's
/// random updates miss in, up to [`MASK_MOVES_NARROW`] in 6 bits over a 26-bit mask.
#[derive(Clone, Copy)]
pub(super) struct Packed<W>(W);

/// [`Count`] for a [`Packed`] word of type `$word` whose count starts at bit `$shift`.
macro_rules! packed_count {
    ($word:ty, $shift:expr) => {
        impl Count for Packed<$word> {
            const VALUED: bool = true;
            fn of(degree: u32) -> Self {
                Packed(<$word>::from(degree) << $shift)
            }
            #[inline(always)]
            fn take_one(&mut self, value: u32) -> bool {
                // Every value is at most its node's out-degree, so below the shift: in the mask.
                self.0 = (self.0 | 1 << value) - (1 << $shift);
                self.0 >> $shift == 0
            }
            fn get(self) -> u32 {
                (self.0 >> $shift) as u32
            }
            fn mex(self) -> u32 {
                (!self.0).trailing_zeros()
            }
            fn of_value(value: u32) -> Self {
                Packed(value.into())
            }
            fn value(self) -> u32 {
                self.0 as u32
            }
        }
    };
}

packed_count!(u64, MASK_MOVES + 1);
packed_count!(u32, MASK_MOVES_NARROW + 1);

impl Count for u8 {
    fn of(degree: u32) -> u8 {
        degree as u8
    }
    #[inline(always)]
    fn take_one(&mut self, _: u32) -> bool {
        *self -= 1;
        *self == 0
    }
    fn get(self) -> u32 {
        self.into()
    }
}

impl Count for u32 {
    fn of(degree: u32) -> u32 {
        degree
    }
    #[inline(always)]
    fn take_one(&mut self, _: u32) -> bool {
        *self -= 1;
        *self == 0
    }
    fn get(self) -> u32 {
        self
    }
}
