//! Octal games: take-and-break games on heaps given by a code such as Kayles' `0.77`; their
//! Grundy sequences to record lengths, and a proof of their period when they have one.

pub mod checkpoint;
pub mod code;
pub mod column;
pub mod naive;
pub mod period;
pub mod sparse;

pub use checkpoint::Keeper;
pub use code::{Code, CodeError, Moves};
pub use column::{Column, Place};
pub use period::{certify, Period};
pub use sparse::Sparse;

use crate::io::error::IoError;
use crate::io::store::Plain;
use crate::meter::{Meter, Stage, Unit};

/// How the values are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Every move of every heap: `O(n^2)` for splits into two heaps.
    Naive,
    /// Rare and common values ([`sparse`]); the naive method for three-heap splits.
    Sparse,
}

/// A computed Grundy sequence: G(0..len), in 1 byte per value while they fit, then 2, then 4;
/// in memory, or in a file of which only what is read stays resident ([`mod@column`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    /// Every value below 2^8.
    Byte(Column<u8>),
    /// Every value below 2^16.
    Short(Column<u16>),
    /// Some value at 2^16 or above.
    Wide(Column<u32>),
}

/// `$body` with `$g` bound to the column of `$values`, whichever its width.
macro_rules! each_width {
    ($values:expr, $g:ident => $body:expr) => {
        match $values {
            Values::Byte($g) => $body,
            Values::Short($g) => $body,
            Values::Wide($g) => $body,
        }
    };
}
pub(crate) use each_width;

impl Values {
    /// G(0) alone, in `place` with room for `capacity` values (a file's space is taken at once,
    /// so a full disk is an error here rather than later).
    pub fn start(place: &Place, capacity: usize) -> Result<Values, IoError> {
        let mut g = Column::new(place, capacity)?;
        g.push(0u8);
        Ok(Values::Byte(g))
    }

    /// G(n).
    #[allow(clippy::useless_conversion)] // `u32::from` is the identity in the 4-byte arm only.
    pub fn get(&self, n: usize) -> u32 {
        each_width!(self, g => u32::from(g[n]))
    }

    /// How many values: G(0..len).
    pub fn len(&self) -> usize {
        each_width!(self, g => g.len())
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per value.
    pub fn width(&self) -> usize {
        match self {
            Values::Byte(_) => 1,
            Values::Short(_) => 2,
            Values::Wide(_) => 4,
        }
    }

    /// Where the values are kept.
    pub fn place(&self) -> Place {
        each_width!(self, g => g.place())
    }

    /// The named file holding the values, if any (a checkpoint's).
    pub fn path(&self) -> Option<&std::path::Path> {
        each_width!(self, g => g.path())
    }

    /// Keeps G(0..len) only.
    fn truncate(&mut self, len: usize) {
        each_width!(self, g => g.truncate(len))
    }

    /// The same values in the next width up (4 bytes stay 4), in the same kind of place.
    fn widen(&mut self) -> Result<(), IoError> {
        *self = match self {
            Values::Byte(g) => Values::Short(g.convert(u16::from)?),
            Values::Short(g) => Values::Wide(g.convert(u32::from)?),
            Values::Wide(_) => return Ok(()),
        };
        Ok(())
    }

    /// The same values in the fewest bytes they fit, as a run computing them would hold them,
    /// in `place` with room for `capacity`.
    fn narrowest_in(self, place: &Place, capacity: usize) -> Result<Values, IoError> {
        let largest = self.iter().max().unwrap_or(0);
        let width = match largest {
            0..=0xff => 1,
            0x100..=0xffff => 2,
            _ => 4,
        };
        if width == self.width() && self.place() == *place {
            return Ok(self);
        }
        Ok(match width {
            1 => Values::Byte(self.copied(place, capacity, |v| v as u8)?),
            2 => Values::Short(self.copied(place, capacity, |v| v as u16)?),
            _ => Values::Wide(self.copied(place, capacity, |v| v)?),
        })
    }

    /// The values as `W`s (`into` keeps every value) in a column of `place`.
    fn copied<W: Plain>(
        &self,
        place: &Place,
        capacity: usize,
        into: impl Fn(u32) -> W,
    ) -> Result<Column<W>, IoError> {
        let mut g = Column::new(place, capacity.max(self.len()))?;
        for (n, v) in self.iter().enumerate() {
            g.push(into(v));
            if n % column::SCAN_STEP == 0 {
                g.release_cold();
            }
        }
        Ok(g)
    }

    /// Every value, widened.
    pub fn to_vec(&self) -> Vec<u32> {
        self.iter().collect()
    }

    /// Every value in order, a few thousand widened at a time, letting go of the pages passed
    /// in a long table in a file.
    #[allow(clippy::useless_conversion)] // `into` is the identity in the 4-byte arm only.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        const CHUNK: usize = 1 << 12;
        (0..self.len()).step_by(CHUNK).flat_map(move |start| {
            if start % column::SCAN_STEP == 0 {
                self.release_cold();
            }
            let range = start..(start + CHUNK).min(self.len());
            each_width!(self, g => g[range].iter().map(|&v| v.into()).collect::<Vec<u32>>())
        })
    }

    /// Lets go of the resident pages of a table in a file that the run does not read often.
    pub fn release_cold(&self) {
        each_width!(self, g => g.release_cold())
    }
}

/// What `grundy octal` computes: the values, and the period if they prove one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    /// G(0..=N'), where N' is N, or the heap size at which the period was proved.
    pub values: Values,
    /// The period, when proved.
    pub period: Option<Period>,
}

impl Sequence {
    /// G(n): a computed value, or, past the computed values, the one the proved period gives
    /// (G(n) = G(n - p) for n >= n0 + p, so G(n) = G(n0 + (n - n0) mod p)); `None` past the
    /// computed values when no period is proved.
    pub fn value(&self, n: usize) -> Option<u32> {
        if n < self.values.len() {
            return Some(self.values.get(n));
        }
        // A proof reads the values up to at least n0 + p - 1, so the index is computed.
        let p = self.period?;
        Some(self.values.get(p.preperiod + (n - p.preperiod) % p.period))
    }

    /// G(0..=last), as far as the values are known: the computed ones, then those the proved
    /// period gives. A run asked for G(0..=N) stops where the period is proved, and this
    /// gives the rest without computing it.
    pub fn extended(&self, last: usize) -> impl Iterator<Item = u32> + '_ {
        (0..=last).map_while(|n| {
            if n % column::SCAN_STEP == column::SCAN_STEP - 1 {
                self.values.release_cold();
            }
            self.value(n)
        })
    }

    /// The largest heap size up to `last` whose value is known ([`Sequence::value`]).
    pub fn known_to(&self, last: usize) -> usize {
        if self.period.is_some() {
            last
        } else {
            last.min(self.values.len().saturating_sub(1))
        }
    }
}

/// The first heap count at which the period is looked for; it doubles after each look.
const FIRST_LOOK: usize = 64;

/// The bytes of the table of G(0..=n) a run of `code` by `method` starts with: a byte a heap
/// with the sparse method (2, then 4, from the first value past 255, then past 65535), 4 with
/// the plain method and for a code that leaves three heaps (both compute in 4 bytes); `None`
/// past what a `u64` counts.
pub fn table_bytes(code: &Code, n: usize, method: Method) -> Option<u64> {
    let sparse = method == Method::Sparse && code.moves().three.is_empty();
    let width = if sparse { 1 } else { 4 };
    u64::try_from(n).ok()?.checked_add(1)?.checked_mul(width)
}

/// G(0..=n) of `code` by `method`, in memory, stopping as soon as a period is proved (the
/// values then end at [`Period::proved_at`]); `meter` hears the heaps done.
pub fn sequence(code: &Code, n: usize, method: Method, meter: &dyn Meter) -> Sequence {
    in_memory(compute(code, n, method, true, None, &Place::Memory, &mut (), meter))
}

/// [`sequence`], going on from G(0..L) in `start` (a checkpoint's values) rather than from
/// G(0), keeping the values in `place` (where `start` is, if it is in a file), and offering
/// `keeper` the values after every stretch of heaps; fails when the keeper or the file of the
/// values does.
pub fn sequence_from<E: From<IoError>>(
    code: &Code,
    n: usize,
    method: Method,
    start: Option<Values>,
    place: &Place,
    keeper: &mut dyn Keeper<Error = E>,
    meter: &dyn Meter,
) -> Result<Sequence, E> {
    compute(code, n, method, true, start, place, keeper, meter)
}

/// G(0..=n) of `code` by `method`, all of them (no look for a period), in memory.
pub fn values(code: &Code, n: usize, method: Method, meter: &dyn Meter) -> Values {
    in_memory(compute(code, n, method, false, None, &Place::Memory, &mut (), meter)).values
}

/// The sequence of a run in memory, which reads and writes no file, so cannot fail.
fn in_memory(run: Result<Sequence, IoError>) -> Sequence {
    match run {
        Ok(sequence) => sequence,
        Err(e) => unreachable!("a run in memory touched a file: {e}"),
    }
}

/// The values up to `n` from `start`, in `place`, looking for a period at every doubling when
/// `look`.
#[allow(clippy::too_many_arguments)]
fn compute<E: From<IoError>>(
    code: &Code,
    n: usize,
    method: Method,
    look: bool,
    start: Option<Values>,
    place: &Place,
    keeper: &mut dyn Keeper<Error = E>,
    meter: &dyn Meter,
) -> Result<Sequence, E> {
    let moves = code.moves();
    meter.start(Stage { case: 0, name: "computing", unit: Unit::Nodes, total: n as u64 + 1 });
    let sparse = method == Method::Sparse && moves.three.is_empty();
    let mut table = Table::new(start, n + 1, sparse, place)?;
    meter.set(table.values.len() as u64);
    // The looks at doublings below the values given were made by the run that computed them
    // (a look is a function of the values up to it), and found nothing, or it would have ended.
    let mut next = FIRST_LOOK;
    while next < table.values.len() {
        next *= 2;
    }
    loop {
        let upto = if look { n.min(next - 1) } else { n };
        while table.values.len() <= upto {
            let stop = upto.min(table.values.len() - 1 + table.stretch());
            table.extend(&moves, stop, meter)?;
            meter.set(table.values.len() as u64);
            table.settle(&moves);
            keeper.offer(&table.values)?;
        }
        let period = if look { table.certify(&moves) } else { None };
        if period.is_some() || upto == n {
            let keep = period.map_or(upto, |p| p.proved_at) + 1;
            return Ok(Sequence { values: table.into_values(keep), period });
        }
        next *= 2;
    }
}

/// The values being computed (1 byte each until one does not fit, then 2, then 4), and the
/// sparse method's state.
struct Table {
    values: Values,
    state: Sparse,
    sparse: bool,
}

impl Table {
    /// The table holding `start` (or G(0)), at most `most` values of it, in `place`; in 4
    /// bytes for the plain method, which computes in them.
    fn new(
        start: Option<Values>,
        most: usize,
        sparse: bool,
        place: &Place,
    ) -> Result<Table, IoError> {
        let mut values = match start {
            Some(values) if !values.is_empty() => values,
            _ => Values::start(place, most)?,
        };
        values.truncate(most);
        // A checkpoint written in a wider form than its values need (by an older grundy)
        // goes on as a run that never stopped would.
        values = values.narrowest_in(place, most)?;
        while !sparse && values.width() < 4 {
            values.widen()?;
        }
        let state = each_width!(&values, g => Sparse::new(g));
        Ok(Table { values, state, sparse })
    }

    /// How many heaps to compute before the keeper hears of them again: a fraction of a
    /// second's work at any size.
    fn stretch(&self) -> usize {
        if self.sparse {
            1 << 16
        } else {
            ((1 << 26) / self.values.len()).clamp(1, 1 << 16)
        }
    }

    /// Computes up to G(upto), widening the values as they need.
    fn extend(&mut self, moves: &Moves, upto: usize, meter: &dyn Meter) -> Result<(), IoError> {
        loop {
            let done = match &mut self.values {
                Values::Byte(g) => self.state.extend(moves, g, upto, meter).is_ok(),
                Values::Short(g) => self.state.extend(moves, g, upto, meter).is_ok(),
                Values::Wide(g) if self.sparse => {
                    // Infallible: every value fits 4 bytes.
                    let _ = self.state.extend(moves, g, upto, meter);
                    true
                }
                Values::Wide(g) => {
                    naive::extend(moves, g, upto);
                    true
                }
            };
            if done {
                return Ok(());
            }
            self.values.widen()?;
        }
    }

    /// Keeps resident, of a table in a file, the first and the latest values the method reads
    /// (all of them for the plain method), and lets go of the rest.
    fn settle(&mut self, moves: &Moves) {
        let (first, latest) = if self.sparse { self.state.reach(moves) } else { (usize::MAX, 0) };
        each_width!(&mut self.values, g => {
            g.keep_hot(first, latest);
            g.release_cold();
        });
    }

    /// The period the values prove, if any.
    fn certify(&self, moves: &Moves) -> Option<Period> {
        each_width!(&self.values, g => period::certify_releasing(moves, g, &|| g.release_cold()))
    }

    /// The first `keep` values.
    fn into_values(mut self, keep: usize) -> Values {
        self.values.truncate(keep);
        self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: &str, n: usize, method: Method) -> Sequence {
        sequence(
            &Code::parse(code, code.contains(['8', '9', 'a', 'b', 'c', 'd', 'e', 'f'])).unwrap(),
            n,
            method,
            &(),
        )
    }

    #[test]
    fn published_periods() {
        // (code, period, preperiod): OEIS A002186, A002187, Winning Ways, tczajka's tables.
        for (code, period, preperiod) in [
            ("0.77", 12, 71),
            ("0.137", 34, 52),
            ("0.07", 34, 53),
            ("0.4", 34, 54),
            ("0.45", 20, 498),
            ("0.156", 349, 3479),
        ] {
            let s = run(code, 1 << 16, Method::Sparse);
            let p = s.period.unwrap_or_else(|| panic!("{code}: no period"));
            assert_eq!((p.period, p.preperiod), (period, preperiod), "{code}");
            assert_eq!(s.values.len(), p.proved_at + 1);
        }
    }

    #[test]
    fn the_period_extends_the_values_as_computing_all_would() {
        // Proved early (0.77 at a few hundred heaps, .45 at 1036), extended to n by the
        // period: the values `values` computes for every heap, with no look for a period.
        for code in ["0.77", "0.07", "0.45", "0.137", "4.07"] {
            let code = Code::parse(code, false).unwrap();
            let n = 6000;
            let s = sequence(&code, n, Method::Sparse, &());
            assert!(s.values.len() < n / 2, "{code}: proved late");
            let all = values(&code, n, Method::Naive, &());
            assert_eq!(s.known_to(n), n);
            assert_eq!(s.extended(n).collect::<Vec<u32>>(), all.to_vec(), "{code}");
        }
        // Without a period, nothing past the computed values.
        let s = sequence(&Code::parse("0.007", false).unwrap(), 100, Method::Sparse, &());
        assert!(s.period.is_none());
        assert_eq!((s.value(101), s.known_to(500), s.extended(500).count()), (None, 100, 101));
    }

    #[test]
    fn going_on_from_any_prefix_gives_what_one_run_gives() {
        // A checkpoint holds G(0..L); the run that goes on from it must end as one that never
        // stopped: the same values, the same period proved at the same heap. The prefixes are
        // the plain method's, cut at and around the doublings where periods are looked for,
        // and past N (a checkpoint of a longer run).
        // Three-heap splits (0.f) are computed by the plain method, in cubic time: a short run.
        let dir = tempfile::tempdir().unwrap();
        let stem = dir.path().join("run.values");
        for (text, hex, n) in [
            ("0.6", false, 5000),
            ("0.007", false, 5000),
            ("0.77", false, 5000),
            ("0.45", false, 5000),
            ("0.f", true, 300),
        ] {
            let code = Code::parse(text, hex).unwrap();
            let whole = sequence(&code, n, Method::Sparse, &());
            let plain = values(&code, 2 * n, Method::Naive, &()).to_vec();
            let reach = if whole.period.is_some() { whole.values.len() } else { 2 * n + 1 };
            for cut in [1, 2, 63, 64, 65, 127, 128, 255, 1000, 1500, 4095, 4097, n + 1, 2 * n + 1] {
                if cut > reach {
                    continue;
                }
                // In bytes where they fit, for every other cut: checkpoints hold either.
                let prefix = &plain[..cut];
                let start = if cut % 2 == 0 && prefix.iter().all(|&v| v < 256) {
                    Values::Byte(prefix.iter().map(|&v| v as u8).collect())
                } else {
                    Values::Short(prefix.iter().map(|&v| v as u16).collect())
                };
                // Going on in memory, in a temporary file, in a named one: the same.
                let place =
                    [Place::Memory, Place::Temporary, Place::Named(stem.clone())][cut % 3].clone();
                let again =
                    sequence_from(&code, n, Method::Sparse, Some(start), &place, &mut (), &());
                assert_eq!(again.unwrap(), whole, "{text} from {cut} values in {place:?}");
            }
        }
    }

    #[test]
    fn progress_moves_block_by_block_up_to_the_end() {
        // 0.007 has no period in reach: the doublings alone would say 8 times up to 2^14.
        let heard = crate::meter::Log::default();
        let n = 20_000;
        let s = sequence(&Code::parse("0.007", false).unwrap(), n, Method::Sparse, &heard);
        assert_eq!(s.values.len(), n + 1);
        let said: Vec<u64> =
            heard.0.into_inner().unwrap().into_iter().filter(|&d| d != u64::MAX).collect();
        assert!(said.windows(2).all(|w| w[0] <= w[1]), "{said:?}");
        assert_eq!(said.last(), Some(&(n as u64 + 1)));
        // Every stretch of 2048 heaps from 2^12 on is heard of.
        for at in (4096..n as u64).step_by(2048) {
            assert!(said.iter().any(|&d| d > at && d <= at + 2048), "nothing near {at}: {said:?}");
        }
    }
}
