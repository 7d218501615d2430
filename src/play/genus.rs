//! Conway's genus of a position (On Numbers and Games, chapter 12; Winning Ways, chapter 13):
//! `g^(γ0 γ1 γ2 ...)`, where `g` is the normal-play Grundy value and `γn` the misère Grundy
//! value of the position plus `n` nim heaps of size 2 (`γ0`, the position's own, is 0
//! exactly when its player to move loses). The sequence ends alternating between two numbers
//! for ever, so it is written up to the first two of them (a sink is `0^(1 2 0)`, `*1` is
//! `1^(0 3 1)`, `*2` is `2^(2 0)`): the *prefix*, of two entries or more.
//!
//! Computed from the moves' prefixes, sinks first, by one recursion: adding `*1` to any
//! position flips the last bit of its misère Grundy value (the options of `X + *1` are the
//! `X' + *1`, values `γ(X') ^ 1` by induction, and `X`, value `a = γ(X)`; the mex of those is
//! `a ^ 1`, for `a` even and odd alike; a sink plus `*1` is `*1`, value 0), so the options of
//! `G + n·*2` (`G' + n·*2`, `G + (n-1)·*2 + *1` and `G + (n-1)·*2`) give
//!
//! `γn(G) = mex({γn(G') : G' a move of G} ∪ {γ(n-1)(G), γ(n-1)(G) ^ 1})` for `n >= 1`,
//!
//! and `γ0(G)` is 1 for a sink, else the mex of the moves' `γ0`. Once every move's sequence
//! alternates (from `P`, the longest move prefix, or 2), each `γn` depends on `γ(n-1)` and on
//! `n`'s parity alone, so a `γk = γ(k-2)` with `k >= P` makes the rest alternate (induction on
//! `n`: `γ(n+1)` is computed from the same set and the same `γ` as `γ(n-1)`). The prefix ends
//! where the alternation begins.
//!
//! Kept in 8 bytes a node ([`Code`]): up to 15 entries after `γ0` (which the misère numbers
//! keep already) in 4-bit nibbles while each is below 16, else in a list of its own; a
//! sequence that has not settled [`SETTLE_STEPS`] entries past its moves' prefixes is not
//! followed further (its genus, and its predecessors', is then unknown: only a sum it would
//! decide goes undecided).

use std::sync::Mutex;

use super::marks::Marks;

/// Entries past the moves' longest prefix a genus is followed for before it is called
/// unknown: the recursion settles within a few (each step past it maps one pair of numbers
/// `{2k, 2k+1}` to another, and there are no more pairs than moves), so this is a bound
/// against the unforeseen, not a cut that random graphs meet.
pub const SETTLE_STEPS: usize = 64;

/// `γn` of a genus `prefix` (its last two entries repeat for ever).
#[inline]
pub fn at(prefix: &[u32], n: usize) -> u32 {
    let l = prefix.len();
    if n < l {
        prefix[n]
    } else {
        prefix[l - 2 + ((n - l) & 1)]
    }
}

/// The genus prefix of a position with `moves` moves into `out`, from the moves' prefixes:
/// move `k`'s has `len(k)` entries and `γn` `gamma(k, n)` (any `n`). False when it has not
/// settled within [`SETTLE_STEPS`] (then `out` holds nothing of use).
pub fn settle(
    moves: usize,
    len: impl Fn(usize) -> usize,
    gamma: impl Fn(usize, usize) -> u32,
    out: &mut Vec<u32>,
) -> bool {
    out.clear();
    let p = (0..moves).map(len).max().unwrap_or(0).max(2);
    for n in 0..p + SETTLE_STEPS {
        let mut marks = Marks::default();
        for k in 0..moves {
            marks.mark(gamma(k, n));
        }
        let g = match n {
            0 if moves == 0 => 1,
            0 => marks.mex(),
            _ => {
                let before = out[n - 1];
                marks.mark(before);
                marks.mark(before ^ 1);
                marks.mex()
            }
        };
        out.push(g);
        if n >= p && out[n] == out[n - 2] {
            out.truncate(alternating_from(out) + 2);
            return true;
        }
    }
    false
}

/// Where a sequence that alternates from its third-last entry on (its last equals the one two
/// before, and the rest repeats so by the settling argument) began alternating: the first `a`
/// with every entry from `a + 2` on equal to the one two before it.
fn alternating_from<T: PartialEq>(seq: &[T]) -> usize {
    let mut a = seq.len() - 3;
    while a > 0 && seq[a + 1] == seq[a - 1] {
        a -= 1;
    }
    a
}

/// Entries a position's own sequence is followed for on the fast path ([`settle_codes`])
/// before it hands over to [`settle`].
const FAST_STEPS: usize = 48;

/// [`settle`] for a position whose moves' prefixes are all in their codes, from the moves'
/// `(γ0, code)`s: its code (unknown when a move's is, or when it does not settle); `None`
/// when it cannot tell on this path (a move's prefix long, a `γ0` of 256 or more, or of 64 or
/// more in a prefix of two; a sequence not settled within [`FAST_STEPS`]), and [`settle`]
/// over copies of the prefixes takes it.
///
/// The moves' entries are gathered into one bit mask per step `n` below 16 (the moves' `γn`
/// together; every prefix alternates from its 15th entry on at the latest, so the masks of
/// steps 14 and 15 stand for every later step of their parity), then the position's own
/// sequence is read off them ([`own_sequence`]). Where the processor has SSSE3, each move's
/// 16 entries are made into bits by byte shuffles ([`masks_ssse3`]), else one by one.
pub(super) fn settle_codes(moves: impl Iterator<Item = (u32, Code)>, long: &Long) -> Option<Code> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: the processor has SSSE3 (checked just above), the one condition of calling a
        // function compiled for it.
        return own_sequence(unsafe { masks_ssse3(moves) }?, long);
    }
    own_sequence(masks_plain(moves)?, long)
}

/// What the moves' codes give [`own_sequence`]: a move's genus unknown (so the position's
/// is), or the masks.
enum Gathered {
    Unknown,
    Masks(Masks),
}

/// Why a move ends the gathering of the masks at once.
enum Stop {
    /// Its genus is unknown, so the position's is.
    Unknown,
    /// Its prefix is beyond the masks: [`settle`] takes the position.
    Beyond,
}

impl Stop {
    /// What the gathering returns.
    fn gathered(self) -> Option<Gathered> {
        match self {
            Stop::Unknown => Some(Gathered::Unknown),
            Stop::Beyond => None,
        }
    }
}

/// The moves' entries as bit masks: `step[n]` holds bit `γn` of every move for `1 <= n < 16`
/// (later steps are 14's or 15's by parity); `zero` the moves' `γ0`s (each below 256), `p`
/// the longest move prefix (at least 2), `any` whether there is a move.
struct Masks {
    step: [u64; INLINE],
    zero: [u64; 4],
    p: usize,
    any: bool,
}

impl Masks {
    fn new() -> Masks {
        Masks { step: [0; INLINE], zero: [0; 4], p: 2, any: false }
    }

    /// Takes a move's `γ0` and code: its prefix's length, or why the gathering stops there
    /// (a long prefix, a `γ0` of 256 or more, or of `limit` or more in a prefix of two, whose
    /// `γ0` recurs, are beyond this path).
    #[inline(always)]
    fn take(&mut self, gamma0: u32, code: Code, limit: u32) -> Result<usize, Stop> {
        if !code.is_known() {
            return Err(Stop::Unknown);
        }
        let l = code.inline_len();
        if l == 0 || gamma0 >= 256 || (l == 2 && gamma0 >= limit) {
            return Err(Stop::Beyond);
        }
        self.zero[gamma0 as usize >> 6] |= 1 << (gamma0 & 63);
        self.p = self.p.max(l);
        self.any = true;
        Ok(l)
    }
}

/// The masks of `moves`, each entry set on its own: the entries before a prefix's last two
/// one by one, and its last two once, by parity, into masks that hold from the step they
/// start at on (`tails`, the last two repeating for ever), folded into the steps at the end.
fn masks_plain(moves: impl Iterator<Item = (u32, Code)>) -> Option<Gathered> {
    let mut masks = Masks::new();
    // tails[e][q]: the last two of moves whose last two start at e, for the steps of parity q.
    let mut tails = [[0u64; 2]; INLINE];
    for (gamma0, code) in moves {
        let l = match masks.take(gamma0, code, 64) {
            Ok(l) => l,
            Err(stop) => return stop.gathered(),
        };
        let entry = |n: usize| match n {
            0 => u64::from(gamma0),
            _ => (code.0 >> (4 * (n - 1))) & 0xf,
        };
        let e = l - 2;
        for (n, mask) in masks.step.iter_mut().enumerate().take(e).skip(1) {
            *mask |= 1 << entry(n);
        }
        tails[e][e & 1] |= 1 << entry(e);
        tails[e][(e + 1) & 1] |= 1 << entry(e + 1);
    }
    let mut open = [0u64; 2];
    for (n, tail) in tails.iter().enumerate() {
        open[0] |= tail[0];
        open[1] |= tail[1];
        if n >= 1 {
            masks.step[n] |= open[n & 1];
        }
    }
    Some(Gathered::Masks(masks))
}

/// For a prefix of `l` entries (2 to 16), the entry each of the steps 0 to 15 takes: its own
/// below `l`, then its last two by turns.
const EXTEND: [[u8; INLINE]; INLINE + 1] = {
    let mut table = [[0u8; INLINE]; INLINE + 1];
    let mut l = 2;
    while l <= INLINE {
        let mut n = 0;
        while n < INLINE {
            table[l][n] = if n < l { n } else { l - 2 + ((n - l) & 1) } as u8;
            n += 1;
        }
        l += 1;
    }
    table
};

/// [`masks_plain`] by byte shuffles: a move's code becomes its 16 entries `γ0 .. γ15` in the
/// 16 bytes of a vector (its nibbles spread out, `γ0` put first, the last two repeated past
/// its length by [`EXTEND`]), and each entry becomes its bit (`1 << γ`, split over two
/// vectors of low and high bytes) by a shuffle of a table of powers of two: a dozen vector
/// operations a move, none depending on its length. `γ0` takes a byte's nibble here, so a
/// prefix of two whose `γ0` is 16 or more is left to [`settle`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "ssse3")]
fn masks_ssse3(moves: impl Iterator<Item = (u32, Code)>) -> Option<Gathered> {
    use std::arch::x86_64::*;
    let mut masks = Masks::new();
    let nibble = _mm_set1_epi8(0x0f);
    let pow_low = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
    let pow_high = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, -128);
    let (mut low, mut high) = (_mm_setzero_si128(), _mm_setzero_si128());
    for (gamma0, code) in moves {
        let l = match masks.take(gamma0, code, 16) {
            Ok(l) => l,
            Err(stop) => return stop.gathered(),
        };
        let word = _mm_cvtsi64_si128(code.0 as i64);
        let even = _mm_and_si128(word, nibble);
        let odd = _mm_and_si128(_mm_srli_epi64::<4>(word), nibble);
        // Byte i: nibble i, that is γ(i+1); then moved up a byte, with γ0 (below 16 where it
        // is read: in a prefix of two) in byte 0.
        let entries = _mm_unpacklo_epi8(even, odd);
        let first = _mm_cvtsi32_si128((gamma0 & 0xf) as i32);
        let entries = _mm_or_si128(_mm_slli_si128::<1>(entries), first);
        // SAFETY: `l` is 2 to 16 (an inline prefix's length), so the row is in the table;
        // an unaligned load of its 16 bytes.
        let order = unsafe { _mm_loadu_si128(EXTEND[l].as_ptr().cast()) };
        let steps = _mm_shuffle_epi8(entries, order);
        low = _mm_or_si128(low, _mm_shuffle_epi8(pow_low, steps));
        high = _mm_or_si128(high, _mm_shuffle_epi8(pow_high, steps));
    }
    let (mut low_bytes, mut high_bytes) = ([0u8; INLINE], [0u8; INLINE]);
    // SAFETY: unaligned stores of 16 bytes into arrays of 16 bytes.
    unsafe {
        _mm_storeu_si128(low_bytes.as_mut_ptr().cast(), low);
        _mm_storeu_si128(high_bytes.as_mut_ptr().cast(), high);
    }
    for n in 1..INLINE {
        masks.step[n] = u64::from(low_bytes[n]) | u64::from(high_bytes[n]) << 8;
    }
    Some(Gathered::Masks(masks))
}

/// The position's own sequence from its moves' masks: `γ0` the mex of theirs (1 with none),
/// then each `γn` the mex of step `n`'s mask and `{γ(n-1), γ(n-1) ^ 1}`, up to where it
/// settles (see [`settle`]); its code (unknown when a move's is), or `None` past
/// [`FAST_STEPS`] or an entry of 64.
fn own_sequence(gathered: Gathered, long: &Long) -> Option<Code> {
    let Gathered::Masks(masks) = gathered else {
        return Some(Code::UNKNOWN);
    };
    let mut own = [0u8; FAST_STEPS];
    own[0] = match masks.any {
        true => {
            let zero = &masks.zero;
            let free = zero.iter().position(|&w| w != u64::MAX).unwrap_or(4);
            let mex = free * 64 + zero.get(free).map_or(0, |w| w.trailing_ones() as usize);
            u8::try_from(mex).ok()?
        }
        false => 1,
    };
    for n in 1..FAST_STEPS {
        let moves = masks.step[if n < INLINE { n } else { INLINE - 2 + (n & 1) }];
        let before = u32::from(own[n - 1]);
        let pair = if before < 64 { 3 << (before & !1) } else { 0 };
        let mex = (moves | pair).trailing_ones();
        own[n] = u8::try_from(mex).ok().filter(|&m| m < 64)?;
        if n >= masks.p && own[n] == own[n - 2] {
            return Some(Code::of(&own[..alternating_from(&own[..=n]) + 2], long));
        }
    }
    None
}

/// A genus in 8 bytes, beside the `γ0` kept elsewhere: unknown (0); a prefix of 2 to 16
/// entries whose entries after `γ0` are each below 16 (the top nibble holds the length less
/// one, nibble `i` holds `γ(i+1)`); or, with the top nibble 0, 1 + the index of the prefix in
/// a list of long ones ([`Long`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Code(pub u64);

/// The most entries a [`Code`] holds in itself.
const INLINE: usize = 16;

impl Code {
    /// The genus not known.
    pub const UNKNOWN: Code = Code(0);

    /// The code of `prefix` (whose `γ0` is kept elsewhere; entries of any unsigned width): in
    /// itself when it fits, else pushed on `long`.
    pub fn of<T: Copy + Into<u32>>(prefix: &[T], long: &Long) -> Code {
        let entry = |g: T| -> u32 { g.into() };
        let fits =
            (2..=INLINE).contains(&prefix.len()) && prefix[1..].iter().all(|&g| entry(g) < 16);
        if !fits {
            return Code(long.push(&prefix.iter().map(|&g| entry(g)).collect::<Vec<u32>>()));
        }
        let nibbles = prefix[1..]
            .iter()
            .enumerate()
            .fold(0u64, |w, (i, &g)| w | u64::from(entry(g)) << (4 * i));
        Code(((prefix.len() as u64 - 1) << 60) | nibbles)
    }

    /// True for a code that could have been made with `long` long prefixes: unknown, inline
    /// with its unused nibbles 0, or naming one of them (a read index's codes are checked so).
    pub fn is_valid(self, long: usize) -> bool {
        match (self.inline_len(), self.long_index()) {
            (0, None) => true,
            (0, Some(i)) => i < long,
            (l, _) => self.0 & ((1 << 60) - 1) >> (4 * (l - 1)) << (4 * (l - 1)) == 0,
        }
    }

    /// True for a known genus.
    #[inline]
    pub fn is_known(self) -> bool {
        self.0 != 0
    }

    /// The length of a known inline prefix; 0 for a long one or none.
    #[inline]
    pub(super) fn inline_len(self) -> usize {
        (self.0 >> 60) as usize + usize::from(self.0 >> 60 != 0)
    }

    /// The index of a long prefix in its list.
    #[inline]
    fn long_index(self) -> Option<usize> {
        (self.0 >> 60 == 0 && self.0 != 0).then(|| self.0 as usize - 1)
    }

    /// The prefix of a known genus whose `γ0` is `gamma0`, into `out` (cleared first); false
    /// for an unknown one.
    pub fn prefix(self, gamma0: u32, long: &[Box<[u32]>], out: &mut Vec<u32>) -> bool {
        out.clear();
        if let Some(i) = self.long_index() {
            out.extend_from_slice(&long[i]);
            return true;
        }
        let len = self.inline_len();
        if len == 0 {
            return false;
        }
        out.push(gamma0);
        out.extend((0..len - 1).map(|i| (self.0 >> (4 * i)) as u32 & 0xf));
        true
    }
}

/// Every node's genus ([`Code`]) and the prefixes too long for their codes: what misère play
/// with the genus keeps beside the misère numbers (nothing without it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Genera {
    codes: Vec<Code>,
    long: Vec<Box<[u32]>>,
}

impl Genera {
    /// The genera of `codes`, with the `long` prefixes they name in any order (put in the
    /// codes' order: [`in_order`]).
    pub fn new(mut codes: Vec<Code>, long: Vec<Box<[u32]>>) -> Genera {
        let long = in_order(codes.iter_mut(), long);
        Genera { codes, long }
    }

    /// True when the genus was computed (a case with nodes).
    pub fn is_kept(&self) -> bool {
        !self.codes.is_empty()
    }

    /// Node `v`'s prefix, whose `γ0` (its misère Grundy value) is `gamma0`, into `out`; false
    /// when not known or not computed.
    pub fn prefix(&self, v: u32, gamma0: u32, out: &mut Vec<u32>) -> bool {
        match self.codes.get(v as usize) {
            Some(code) => code.prefix(gamma0, &self.long, out),
            None => false,
        }
    }

    /// `γn` of node `v`, whose `γ0` is `gamma0`, read in place; `None` when not known or not
    /// computed.
    pub fn at(&self, v: u32, gamma0: u32, n: usize) -> Option<u32> {
        let code = *self.codes.get(v as usize)?;
        if let Some(i) = code.long_index() {
            return Some(at(&self.long[i], n));
        }
        let l = code.inline_len();
        let n = match l {
            0 => return None,
            l if n < l => n,
            l => l - 2 + ((n - l) & 1),
        };
        Some(match n {
            0 => gamma0,
            _ => (code.0 >> (4 * (n - 1))) as u32 & 0xf,
        })
    }

    /// Every node's code.
    pub fn codes(&self) -> &[Code] {
        &self.codes
    }

    /// The long prefixes the codes name, in the codes' order.
    pub fn long(&self) -> &[Box<[u32]>] {
        &self.long
    }
}

/// `long`, the prefixes `codes` name, in the order of the codes (each named once, as each
/// node keeps its own), with the codes renamed to match: the order the threads met them in is
/// gone, so a case's numbers (and an index of them) are the same bytes on any thread count.
pub fn in_order<'a>(
    codes: impl Iterator<Item = &'a mut Code>,
    long: Vec<Box<[u32]>>,
) -> Vec<Box<[u32]>> {
    if long.is_empty() {
        return long;
    }
    let mut long: Vec<Option<Box<[u32]>>> = long.into_iter().map(Some).collect();
    let mut ordered = Vec::with_capacity(long.len());
    for code in codes {
        if let Some(prefix) = code.long_index().and_then(|i| long[i].take()) {
            ordered.push(prefix);
            *code = Code(ordered.len() as u64);
        }
    }
    ordered
}

/// The prefixes too long or too large for a [`Code`], in the order they were met; shared by
/// the threads that compute them (rare: a lock per prefix is no cost).
#[derive(Debug, Default)]
pub struct Long(Mutex<Vec<Box<[u32]>>>);

impl Long {
    /// Keeps `prefix`; 1 + its index.
    fn push(&self, prefix: &[u32]) -> u64 {
        let mut list = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        list.push(prefix.into());
        list.len() as u64
    }

    /// The prefix of known genus `code` whose `γ0` is `gamma0` into `out`, while the list
    /// is still being added to (a thread computing a node above it).
    pub(super) fn prefix(&self, code: Code, gamma0: u32, out: &mut Vec<u32>) {
        match code.long_index() {
            Some(i) => {
                let list = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                out.clear();
                out.extend_from_slice(&list[i]);
            }
            None => {
                code.prefix(gamma0, &[], out);
            }
        }
    }

    /// The prefixes kept so far, taken out.
    pub(super) fn take(&self) -> Vec<Box<[u32]>> {
        let mut list = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        std::mem::take(&mut *list)
    }

    /// The prefixes kept.
    pub fn into_inner(self) -> Vec<Box<[u32]>> {
        self.0.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Misère Grundy value of a position of `lists` plus `twos` heaps of 2 and `ones` heaps of
    /// 1, by its game tree (memoised on the position and the heaps).
    fn brute(
        lists: &[Vec<u32>],
        (v, twos, ones): (u32, usize, usize),
        memo: &mut std::collections::HashMap<(u32, usize, usize), u32>,
    ) -> u32 {
        if let Some(&x) = memo.get(&(v, twos, ones)) {
            return x;
        }
        let mut seen: Vec<u32> =
            lists[v as usize].iter().map(|&w| brute(lists, (w, twos, ones), memo)).collect();
        if twos > 0 {
            seen.push(brute(lists, (v, twos - 1, ones + 1), memo));
            seen.push(brute(lists, (v, twos - 1, ones), memo));
        }
        if ones > 0 {
            seen.push(brute(lists, (v, twos, ones - 1), memo));
        }
        let x = if seen.is_empty() { 1 } else { (0..).find(|x| !seen.contains(x)).unwrap_or(0) };
        memo.insert((v, twos, ones), x);
        x
    }

    /// Every position's prefix, on small random DAGs (ids in order: moves go down), gives the
    /// misère Grundy value of the position plus 0 to 7 heaps of 2, by its game tree; and the
    /// prefix is as short as it can be (its last two entries do not repeat the two before).
    #[test]
    fn prefixes_give_the_game_trees_values() {
        let mut rng = crate::testing::Xorshift::new(0x6e05_1234_5678);
        let mut fast_ones = 0;
        for round in 0..200 {
            let n = 1 + rng.below(9) as u32;
            let lists: Vec<Vec<u32>> = (0..n)
                .map(|v| {
                    (0..rng.below(u64::from(v.min(3)) + 1))
                        .map(|_| rng.below(u64::from(v)) as u32)
                        .collect()
                })
                .collect();
            let mut prefixes: Vec<Vec<u32>> = Vec::new();
            for (v, moves) in lists.iter().enumerate() {
                let mut out = Vec::new();
                let len = |k: usize| prefixes[moves[k] as usize].len();
                let gamma = |k: usize, i: usize| at(&prefixes[moves[k] as usize], i);
                assert!(settle(moves.len(), len, gamma, &mut out), "round {round}");
                // The fast path from the moves' codes gives the same code, or hands over.
                let long = Long::default();
                let codes: Vec<(u32, Code)> = moves
                    .iter()
                    .map(|&w| (prefixes[w as usize][0], Code::of(&prefixes[w as usize], &long)))
                    .collect();
                if let Some(fast) = settle_codes(codes.iter().copied(), &long) {
                    let mut got = Vec::new();
                    assert!(fast.prefix(out[0], &long.into_inner(), &mut got), "round {round}");
                    assert_eq!(got, out, "round {round} node {v}: the fast path");
                    fast_ones += 1;
                }
                prefixes.push(out);
            }
            let mut memo = std::collections::HashMap::new();
            for v in 0..n {
                let p = &prefixes[v as usize];
                for twos in 0..8 {
                    let want = brute(&lists, (v, twos, 0), &mut memo);
                    assert_eq!(at(p, twos), want, "round {round} node {v} {p:?} + {twos} x *2");
                }
                let l = p.len();
                assert!(l == 2 || p[l - 1] != p[l - 3], "round {round}: {p:?} not the shortest");
            }
        }
        assert!(fast_ones > 500, "the fast path took {fast_ones} nodes only");
    }

    /// Both builds of the masks (byte shuffles and one entry at a time) give every position the
    /// same code from the same moves: prefixes of every length from 2 to 16, entries 0 to 15,
    /// `γ0`s up to 300 (the shuffles leave a prefix of two with a `γ0` of 16 or more to
    /// `settle`, and nothing else), unknown and long moves among them.
    #[test]
    fn both_builds_of_the_masks_give_the_same_codes() {
        let mut rng = crate::testing::Xorshift::new(0x9e05_5eed);
        let long = Long::default();
        let (mut compared, mut shuffled) = (0, 0);
        for round in 0..20_000 {
            let moves: Vec<(u32, Code)> = (0..rng.below(9))
                .map(|_| {
                    let l = 2 + rng.below(15) as usize;
                    let gamma0 = match rng.below(10) {
                        0 => rng.below(300) as u32,
                        _ => rng.below(12) as u32,
                    };
                    let mut prefix = vec![gamma0];
                    prefix.extend((1..l).map(|_| rng.below(16) as u32));
                    let code = match rng.below(200) {
                        0 => Code::UNKNOWN,
                        1 => Code(long.push(&prefix)),
                        _ => Code::of(&prefix, &long),
                    };
                    (gamma0, code)
                })
                .collect();
            let plain = masks_plain(moves.iter().copied()).and_then(|g| own_sequence(g, &long));
            let either = settle_codes(moves.iter().copied(), &long);
            let left = |&(g, c): &(u32, Code)| c.inline_len() == 2 && (16..64).contains(&g);
            if either.is_none() && plain.is_some() && moves.iter().any(left) {
                continue;
            }
            // A long prefix is pushed by each call: compared by its entries, not its index.
            let entries = |code: Option<Code>| {
                code.map(|c| {
                    let mut out = Vec::new();
                    long.prefix(c, 0, &mut out);
                    (c.inline_len(), c.is_known(), out)
                })
            };
            assert_eq!(entries(either), entries(plain), "round {round}: {moves:?}");
            compared += 1;
            shuffled += usize::from(plain.is_some_and(Code::is_known));
        }
        assert!(compared > 15_000 && shuffled > 5_000, "{compared} compared, {shuffled} known");
    }

    #[test]
    fn nim_heaps_have_their_known_genera() {
        // Winning Ways: 0^120, 1^031, 2^20, 3^31, and a heap of 4 or more a^a(a^2).
        let mut prefixes: Vec<Vec<u32>> = Vec::new();
        for heap in 0..6usize {
            let mut out = Vec::new();
            let len = |k: usize| prefixes[k].len();
            assert!(settle(heap, len, |k, i| at(&prefixes[k], i), &mut out));
            prefixes.push(out);
        }
        let want: [&[u32]; 6] = [&[1, 2, 0], &[0, 3, 1], &[2, 0], &[3, 1], &[4, 6], &[5, 7]];
        assert_eq!(prefixes, want.map(<[u32]>::to_vec));
    }

    #[test]
    fn codes_keep_every_prefix() {
        let long = Long::default();
        let prefixes: [&[u32]; 5] = [&[1, 2, 0], &[7, 15, 3], &[0, 16, 1], &[2; 17], &[200, 3]];
        let codes: Vec<Code> = prefixes.iter().map(|p| Code::of(p, &long)).collect();
        let long = long.into_inner();
        assert_eq!(long.len(), 2, "a 16 and a run of 17 go to the list");
        let mut out = Vec::new();
        for (p, code) in prefixes.iter().zip(&codes) {
            assert!(code.prefix(p[0], &long, &mut out));
            assert_eq!(&out[..], *p);
        }
        assert!(!Code::UNKNOWN.prefix(1, &long, &mut out));
        // Read in place, every entry is the prefix's, repeating past its end.
        let mut all = codes.clone();
        all.push(Code::UNKNOWN);
        let genera = Genera { codes: all, long };
        for (v, p) in prefixes.iter().enumerate() {
            for n in 0..20 {
                assert_eq!(genera.at(v as u32, p[0], n), Some(at(p, n)), "{p:?} at {n}");
            }
        }
        assert_eq!(genera.at(prefixes.len() as u32, 1, 0), None, "unknown");
        assert_eq!(genera.at(99, 1, 0), None, "not computed");
    }
}
