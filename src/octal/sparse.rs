//! The sparse-space method for games whose moves leave at most two heaps.
//!
//! Split the values into *common* ones, a set `C` in which no two values XOR to a third
//! (`c1 ^ c2` is never in `C`), and the others; a *rare heap* is one whose value is not in
//! `C`. A split of two common heaps then never has a common value, so a common value can only
//! be the value of a one-heap move or of a split with a rare heap: a short list, when `C`
//! holds the frequent values. For a heap `h`:
//! 1. its row marks the values of the splits with a rare part and of the one-heap moves;
//!    `c`, the smallest common value not marked, is G(h) unless a smaller value that is not
//!    common is missing;
//! 2. the values below `c` that are not common and not marked yet must each be a move's
//!    value, or G(h) is the smallest that is not: walk the splits from the ends in
//!    (`(1, m - 1)`, `(2, m - 2)`, ...), marking values until none is missing or the walk
//!    ends (then `h` is a rare heap: rare, as the name says). Once at most `FEW` values
//!    are missing, the walk stops marking and compares each split's value with those few
//!    instead, 16 or 32 splits at once with AVX2: most of a walk is spent looking for its
//!    last one or two values.
//!
//! Exact for any such `C`: it only decides how short the lists and the walks are. `C` is
//! chosen greedily, most frequent value first, when the heap count doubles; a value seen for
//! the first time joins it when it can (after its block: within it, its heaps count as rare).
//!
//! Heaps are computed in blocks of 1024, on every thread at once: first, for each group of
//! eight heaps of the block, the splits whose two parts are older than the block: those with a
//! rare part, then a walk until the values missing below its `c` so far are found (the rare
//! splits of the eight are marked together: their other parts share a cache line). Then heap
//! by heap, in order, on one thread as soon as the heap's group is marked (the other threads
//! mark the groups after it meanwhile): the moves to younger heaps and the rare heaps found in
//! the block, and the rest of the walk if `c` went up. The walks are where the time goes: at
//! 0.6 the rare heaps stop appearing after about 2^14, but a heap's last missing value needs a
//! few thousand splits (from the middle out, it would often need tens of thousands).

use std::borrow::Cow;
use std::ops::{BitXor, Range};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::code::Moves;
use super::column::{Column, SCAN_STEP};
use crate::io::store::Plain;
use crate::meter::Meter;

/// A stored value: 1 byte while values fit, then 2, then 4.
pub trait Value: Plain + Into<u32> + TryFrom<u32> + Default + Ord + BitXor<Output = Self> {}
impl Value for u8 {}
impl Value for u16 {}
impl Value for u32 {}

/// Heaps whose rare splits are marked together: the other parts of their splits with one
/// rare heap are `GROUP` neighbours.
const GROUP: usize = 8;

/// Heaps whose common marks are made together, in parallel: the pairs whose other part is
/// older than the block are all known when it starts.
const BLOCK: usize = 1024;

/// A walk looking for at most this many values compares the splits' values with each of them
/// instead of marking them all: fewer instructions a split (see [`find_splits`]). 0.6 to
/// 3x10^6, with the compares on AVX2: 0.97x the time with 8 against 4, 1.03x with 16 against 8.
const FEW: usize = 8;

/// The usual depth of a walk (see [`Sparse::usual_depth`]) from which the block's walks
/// compare too. Below it, comparing there costs more than it saves: the values they leave
/// unmarked are looked for again in the serial part (0.1777, whose walks end below 2,048
/// splits: 1.3x the time with compares there, 0.9x without; 0.6, whose walks go to 16,384:
/// 1.15x the time without).
const LONG_WALKS: usize = 8192;

/// How many of the first values [`Reversed`] keeps: beyond them (a walk that crosses more
/// splits than usual), the splits' values are marked.
const REVERSED: usize = 1 << 16;

/// The method's state between heaps: the common values, the rare heaps.
pub struct Sparse {
    /// `common[x]`: whether value `x` is in `C`; as long as `width`.
    common: Vec<bool>,
    /// How many heaps `h >= 1` have each value.
    count: Vec<u64>,
    /// The heaps `h >= 1` with a value not in `C`, in increasing order, and their values.
    rare: Vec<u32>,
    rare_values: Vec<u32>,
    /// A power of two above every value so far: every move's value is below it.
    width: u32,
    /// The values of `C` below `width` in increasing order.
    safe: Vec<u32>,
    /// `common` eight values a word, a byte each (1 in `C`, 0 not): rows are read a word at
    /// a time against it.
    common_bytes: Vec<u64>,
    /// How many of the blocks' walks that found what they looked for ended at a split whose
    /// smaller part has `k` bits, for each `k`: how far into the first values, and back from
    /// the latest, the walks read.
    depths: [u64; 65],
    /// When the state was made, for the trace.
    started: std::time::Instant,
}

impl Sparse {
    /// The state for going on from `g`, G(0..g.len()).
    pub fn new<V: Value>(g: &Column<V>) -> Sparse {
        let mut state = Sparse {
            common: Vec::new(),
            count: Vec::new(),
            rare: Vec::new(),
            rare_values: Vec::new(),
            width: 0,
            safe: Vec::new(),
            common_bytes: Vec::new(),
            depths: [0; 65],
            started: std::time::Instant::now(),
        };
        let mut largest = 0;
        scan(g, |_, chunk| largest = chunk.iter().fold(largest, |l, &v| l.max(v.into())));
        state.widen(largest);
        scan(g, |at, chunk| {
            for &v in &chunk[usize::from(at == 0)..] {
                state.count[v.into() as usize] += 1;
            }
        });
        state.choose_common(g);
        state
    }

    /// Extends `g` up to G(upto) for `moves` (at most two heaps left by any move), telling
    /// `meter` the heap count after each block. Stops early with `Err(h)` when G(h) does not
    /// fit `V`; `g` then ends before it.
    pub fn extend<V: Value>(
        &mut self,
        moves: &Moves,
        g: &mut Column<V>,
        upto: usize,
        meter: &dyn Meter,
    ) -> Result<(), usize> {
        debug_assert!(moves.three.is_empty());
        let (mut work, mut reversed) = (Work::default(), Reversed::default());
        while g.len() <= upto {
            let n = g.len();
            reversed.follow(g);
            if n.is_power_of_two() && n >= 64 {
                self.choose_common(g);
                if std::env::var_os("GRUNDY_TRACE").is_some() {
                    let (rare, common) = (self.rare.len(), self.safe.len());
                    let secs = self.started.elapsed().as_secs_f64();
                    let depth = self.usual_depth();
                    eprintln!(
                        "octal: {n} heaps, {rare} rare, {common} common values, \
                         walks to {depth}, {secs:.2} s"
                    );
                }
            }
            // Blocks end at the next power of two, where `C` is chosen again.
            let end = (n + BLOCK).min(upto + 1).min((n + 1).next_power_of_two().max(64));
            let done = self.block(moves, (g, &reversed), n..end, &mut work);
            let walked = work.walked.chunks(stride(moves));
            for ((h, &v), walked) in (n..).zip(&work.fresh).zip(walked) {
                g.push(v);
                self.record(h, v.into());
                for (&j, &depth) in moves.two.iter().zip(walked) {
                    // A walk that stopped before the last split found its values.
                    if depth < old_splits(h.saturating_sub(j as usize), n).end {
                        self.record_depth(depth);
                    }
                }
            }
            done?;
            meter.set(g.len() as u64);
        }
        Ok(())
    }

    /// Computes G(h) for the heaps `h` of `heaps`, given G(0..heaps.start) in `g`, into
    /// `work.fresh`; stops after a value as wide as the rows (the next block has wider ones),
    /// or with `Err(h)` before a G(h) that does not fit `V`. The state is left as it was: the
    /// values are recorded after the block, in order, as if one by one (within the block, a
    /// heap whose value is not in `C` then counts as rare, which is exact whatever `C` is).
    ///
    /// The splits of two old heaps (phase 1, [`Sparse::mark_old_group`], the bulk of the work)
    /// are marked a group of heaps at a time, groups taken in order by every thread; this
    /// thread takes the heaps one by one (phase 2, [`Sparse::value`]) as soon as their group
    /// is marked, and marks groups itself while it waits. So the serial phase 2 runs beside
    /// the marks of the groups after it, not after all of them.
    fn block<V: Value>(
        &self,
        moves: &Moves,
        (g, reversed): (&Column<V>, &Reversed<V>),
        heaps: Range<usize>,
        work: &mut Work<V>,
    ) -> Result<(), usize> {
        let (n, width) = (heaps.start, self.width as usize);
        work.clear(heaps.len(), width, stride(moves));
        let Work { marks, walked, firsts, fresh, fresh_rare, missing, later } = work;
        let slots: Vec<Mutex<Slot>> = marks
            .chunks_mut(width * GROUP)
            .zip(walked.chunks_mut(stride(moves) * GROUP))
            .zip(firsts.chunks_mut(GROUP))
            .map(|((rows, walked), firsts)| Mutex::new((rows, walked, firsts)))
            .collect();
        let marked: Vec<AtomicBool> = slots.iter().map(|_| AtomicBool::new(false)).collect();
        let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
        let old: &[V] = g;
        // Takes the next group not yet taken, if any.
        let take = || {
            let k = (next.load(Ordering::Relaxed) < slots.len())
                .then(|| next.fetch_add(1, Ordering::Relaxed));
            k.filter(|&k| k < slots.len())
        };
        let few = if self.usual_depth() >= LONG_WALKS { FEW } else { 0 };
        let mark = |k: usize, missing: &mut Vec<u32>| {
            let mut slot = slots[k].lock().unwrap_or_else(PoisonError::into_inner);
            let heaps = (n + k * GROUP, n);
            self.mark_old_group(moves, (g, reversed), heaps, few, &mut slot, missing);
            drop(slot);
            marked[k].store(true, Ordering::Release);
        };
        rayon::scope(|scope| {
            for _ in 1..rayon::current_num_threads() {
                scope.spawn(|_| {
                    let mut missing = Vec::new();
                    while let Some(k) = take().filter(|_| !stop.load(Ordering::Relaxed)) {
                        mark(k, &mut missing);
                    }
                });
            }
            let mut heaps = || -> Result<(), usize> {
                for k in 0..slots.len() {
                    while !marked[k].load(Ordering::Acquire) {
                        match take() {
                            Some(other) => mark(other, missing),
                            None => std::hint::spin_loop(),
                        }
                    }
                    let mut slot = slots[k].lock().unwrap_or_else(PoisonError::into_inner);
                    let (rows, walked, firsts) = &mut *slot;
                    let rows = rows.chunks_mut(width).zip(firsts.iter());
                    for (i, (row, walked)) in rows.zip(walked.chunks(stride(moves))).enumerate() {
                        let h = n + k * GROUP + i;
                        let young = Joined { old, fresh };
                        let x = self.value(
                            moves,
                            (&young, reversed, g),
                            h,
                            (row, walked),
                            fresh_rare,
                            (missing, later),
                        );
                        let Ok(v) = V::try_from(x) else { return Err(h) };
                        fresh.push(v);
                        if !self.common.get(x as usize).copied().unwrap_or(false) {
                            fresh_rare.push((h as u32, x));
                        }
                        if x >= self.width {
                            // Rows are as wide as the old values: start a new block.
                            return Ok(());
                        }
                    }
                }
                Ok(())
            };
            let done = heaps();
            stop.store(true, Ordering::Relaxed);
            done
        })
    }

    /// Notes G(h) = x: a value seen for the first time joins `C` if it can.
    fn record(&mut self, h: usize, x: u32) {
        self.widen(x);
        if h == 0 {
            return;
        }
        self.count[x as usize] += 1;
        if self.count[x as usize] == 1 && self.can_join(x) {
            self.common[x as usize] = true;
            self.list_values();
        }
        if !self.common[x as usize] {
            self.rare.push(h as u32);
            self.rare_values.push(x);
        }
    }

    /// True when `x` can join `C`: no value of `C` XORs with it to another.
    fn can_join(&self, x: u32) -> bool {
        let inside = |v: u32| self.common.get(v as usize).copied().unwrap_or(false);
        x != 0 && self.safe.iter().all(|&c| !inside(c ^ x))
    }

    /// Makes room for values up to `x`.
    fn widen(&mut self, x: u32) {
        if x >= self.width {
            self.width = (x + 1).next_power_of_two().max(64);
            self.common.resize(self.width as usize, false);
            self.count.resize(self.width as usize, 0);
            self.list_values();
        }
    }

    /// Lists the values below `width` in `C`, and the others.
    fn list_values(&mut self) {
        let common = &self.common;
        self.safe = (0..self.width).filter(|&v| common[v as usize]).collect();
        let bytes = common.chunks(8).map(|c| c.iter().rev().fold(0, |w, &b| w << 8 | u64::from(b)));
        self.common_bytes = bytes.collect();
    }

    /// Chooses `C` again, greedily from the most frequent value among `g[1..]`, and lists the
    /// rare heaps again.
    fn choose_common<V: Value>(&mut self, g: &Column<V>) {
        let mut order: Vec<u32> = (0..self.width).filter(|&v| self.count[v as usize] > 0).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(self.count[v as usize]), v));
        self.common.fill(false);
        self.safe.clear();
        for v in order {
            if self.can_join(v) {
                self.common[v as usize] = true;
                self.safe.push(v);
            }
        }
        self.list_values();
        let common = &self.common;
        let (mut rare, mut values) = (Vec::new(), Vec::new());
        scan(g, |at, chunk| {
            for (h, &v) in (at..).zip(chunk).skip(usize::from(at == 0)) {
                if !common[v.into() as usize] {
                    rare.push(h as u32);
                    values.push(v.into());
                }
            }
        });
        (self.rare, self.rare_values) = (rare, values);
    }

    /// How many of the first values and of the latest ones the method reads: twice the
    /// usual depth of a walk (the first values, and the latest back from the heap), and twice
    /// the furthest rare heap (whose partners are the latest values less it), with room for a
    /// block and the largest take. A table in a file keeps those resident
    /// ([`Column::keep_hot`]). A read beyond them is still exact, served from the file: the
    /// rare walks that go deeper, and those of the few heaps whose value is missing among the
    /// splits (a rare heap, or a value larger than any before), which cross every split and
    /// let go of what they passed as they go.
    pub fn reach(&self, moves: &Moves) -> (usize, usize) {
        let depth = self.usual_depth();
        let rare = self.rare.last().map_or(0, |&r| r as usize);
        let take = moves.largest_take() as usize;
        (2 * depth + BLOCK, 2 * (depth.max(rare) + take + BLOCK))
    }

    /// Notes a walk that found its values at the split whose smaller part is `depth`.
    fn record_depth(&mut self, depth: usize) {
        self.depths[(usize::BITS - depth.leading_zeros()) as usize] += 1;
    }

    /// A power of two that all but one in a thousand of the walks that found their values
    /// ended below.
    fn usual_depth(&self) -> usize {
        let total: u64 = self.depths.iter().sum();
        let mut below = 0;
        for (bits, count) in self.depths.iter().enumerate() {
            below += count;
            if below * 1000 >= total * 999 {
                return 1 << bits;
            }
        }
        0
    }

    /// For every heap `h` of the group from `first` (a slot's rows, `width` bytes each), marks
    /// the values of its splits whose rare part is older than the block from `n` and whose
    /// other part is too, then of the splits of two old heaps, from the ends in, until every
    /// value outside `C` below the row's smallest unmarked value of `C` then (its entry in
    /// `firsts`) is marked or the old splits run out (comparing once `few` are missing, see
    /// [`walk_up`]). `walked` gets, per heap and two-heap move, where the walk stopped: the
    /// values below the heap's entry in `firsts` that the parts below it give are marked. Any
    /// other value marked is a move's value as well.
    fn mark_old_group<V: Value>(
        &self,
        moves: &Moves,
        (g, reversed): (&Column<V>, &Reversed<V>),
        (first, n): (usize, usize),
        few: usize,
        (rows, walked, firsts): &mut Slot,
        missing: &mut Vec<u32>,
    ) {
        let width = self.width as usize;
        for &j in &moves.two {
            match first.checked_sub(j as usize) {
                Some(m) => self.mark_old_rare(g, m, n, rows),
                // The first heaps, some too small for the move: row by row.
                None => rows.chunks_mut(width).enumerate().for_each(|(i, row)| {
                    let m = (first + i).saturating_sub(j as usize);
                    self.mark_old_rare(g, m, n, row)
                }),
            }
        }
        let release = || g.release_cold();
        let old = Joined { old: g, fresh: &[] };
        let reads = (&old, reversed, &release as &dyn Fn());
        let walked = walked.chunks_mut(stride(moves));
        for (i, ((row, walked), at)) in
            rows.chunks_mut(width).zip(walked).zip(firsts.iter_mut()).enumerate()
        {
            *at = self.missing_below_common(row, missing);
            for (&j, walked) in moves.two.iter().zip(walked) {
                let m = (first + i).saturating_sub(j as usize);
                *walked = walk_up(row, reads, m, old_splits(m, n), missing, few);
            }
        }
    }

    /// Marks in `rows` (one per heap from `m + j`, for a two-heap move taking `j`) the values
    /// of the splits of `m`, `m + 1`, ... whose rare part and other part are older than `n`.
    /// The rows are marked together: the other parts of one rare heap's splits are neighbours,
    /// one cache line for all the rows.
    fn mark_old_rare<V: Value>(&self, g: &[V], m: usize, n: usize, rows: &mut [u8]) {
        let width = self.width as usize;
        let count = rows.len() / width;
        let (rare, values) = (&self.rare, &self.rare_values);
        let mut ranges = [(0, 0); GROUP];
        let ranges = &mut ranges[..count];
        for (i, range) in ranges.iter_mut().enumerate() {
            *range = old_rare(rare, m + i, n);
        }
        // The rare heaps whose splits are old for every row.
        let lo = ranges.iter().map(|r| r.0).max().unwrap_or(0);
        let hi = ranges.iter().map(|r| r.1).min().unwrap_or(0);
        let together = count == GROUP && lo < hi;
        if together {
            for (&r, &x) in rare[lo..hi].iter().zip(&values[lo..hi]) {
                let others = &g[m - r as usize..][..GROUP];
                for (i, &y) in others.iter().enumerate() {
                    rows[i * width + (x ^ y.into()) as usize] = 1;
                }
            }
        }
        for (i, &(a, b)) in ranges.iter().enumerate() {
            let row = &mut rows[i * width..][..width];
            let alone = if together { [a..lo, hi..b] } else { [a..b, 0..0] };
            for k in alone.into_iter().flatten() {
                row[(values[k] ^ g[m + i - rare[k] as usize].into()) as usize] = 1;
            }
        }
    }

    /// The smallest value of `C` unmarked in `row` (or `width`); lists in `missing` the values
    /// outside `C` unmarked below it.
    ///
    /// Eight values a step, without a branch a value: a row's marks are bytes 0 or 1, so a
    /// word of them and a word of `common_bytes` say which of eight are unmarked in `C` and
    /// which outside.
    fn missing_below_common(&self, row: &[u8], missing: &mut Vec<u32>) -> u32 {
        const ONES: u64 = 0x0101_0101_0101_0101;
        missing.clear();
        for (k, (word, &common)) in row.chunks_exact(8).zip(&self.common_bytes).enumerate() {
            let mut bytes = [0; 8];
            bytes.copy_from_slice(word);
            let unmarked = !u64::from_le_bytes(bytes) & ONES;
            let first = unmarked & common;
            // The values outside `C` below the first unmarked one of `C` in the word, if any.
            let below = first.wrapping_sub(1) & !first;
            let mut outside = unmarked & !common & below;
            while outside != 0 {
                missing.push((k * 8) as u32 + outside.trailing_zeros() / 8);
                outside &= outside - 1;
            }
            if first != 0 {
                return (k * 8) as u32 + first.trailing_zeros() / 8;
            }
        }
        self.width
    }

    /// G(h), given G(0..h) in `values` (those of the block so far apart), `row` marking the
    /// values [`Sparse::mark_old_group`] found (`walked`: up to which split, per two-heap
    /// move, looking for the values below `first`); `fresh_rare` holds the block's heaps so far
    /// whose values are not in `C`, with their values; `missing` and `later` are scratch.
    fn value<V: Value>(
        &self,
        moves: &Moves,
        (values, reversed, g): (&Joined<V>, &Reversed<V>, &Column<V>),
        h: usize,
        ((row, &first), walked): ((&mut [u8], &u32), &[usize]),
        fresh_rare: &[(u32, u32)],
        (missing, later): (&mut Vec<u32>, &mut Vec<u32>),
    ) -> u32 {
        let n = values.old.len();
        let at = |i: usize| values.at(i);
        for &j in &moves.empty {
            if h == j as usize {
                row[0] = 1;
            }
        }
        for &j in &moves.one {
            if h > j as usize {
                row[at(h - j as usize) as usize] = 1;
            }
        }
        // The splits with a rare part the block's marks left out: a young other part, or a
        // rare part found in this block.
        for &j in &moves.two {
            let m = h.saturating_sub(j as usize);
            let (lo, _) = old_rare(&self.rare, m, n);
            for (&r, &x) in self.rare[..lo].iter().zip(&self.rare_values[..lo]) {
                row[(x ^ at(m - r as usize)) as usize] = 1;
            }
            for &(r, x) in fresh_rare.iter().take_while(|&&(r, _)| (r as usize) < m) {
                row[(x ^ at(m - r as usize)) as usize] = 1;
            }
        }
        let common = self.missing_below_common(row, missing);
        // The values the block's walks did not look for: at or above the row's smallest
        // unmarked value of `C` then.
        later.clear();
        later.extend(missing.iter().copied().filter(|&x| x >= first));
        let release = || g.release_cold();
        let reads = (values, reversed, &release as &dyn Fn());
        for (&j, &marked) in moves.two.iter().zip(walked) {
            // The splits with a young part, never the row's to walk, then those the row's walk
            // passed for the values it did not look for, then on up from where it stopped.
            let m = h.saturating_sub(j as usize);
            let old = old_splits(m, n);
            walk_up(row, reads, m, 1..old.start.min(m / 2 + 1), missing, FEW);
            keep_unmarked(row, later);
            walk_up(row, reads, m, old.start..marked, later, FEW);
            keep_unmarked(row, missing);
            walk_up(row, reads, m, marked..old.end, missing, FEW);
        }
        if missing.is_empty() {
            return common;
        }
        // Every split is marked.
        (0..common).find(|&x| row[x as usize] == 0).unwrap_or(common)
    }
}

/// A block's rows of marks, where its walks stopped and what they looked for, as one group
/// of heaps holds them: `GROUP` rows, `stride` walks and `GROUP` candidates.
type Slot<'a> = (&'a mut [u8], &'a mut [usize], &'a mut [u32]);

/// What a block works in, kept from one block to the next.
struct Work<V> {
    marks: Vec<u8>,
    walked: Vec<usize>,
    firsts: Vec<u32>,
    /// The block's values so far.
    fresh: Vec<V>,
    /// The block's heaps so far whose values are not in `C`, and those values.
    fresh_rare: Vec<(u32, u32)>,
    missing: Vec<u32>,
    /// The values a heap's walks in the block did not look for ([`Sparse::value`]).
    later: Vec<u32>,
}

impl<V> Default for Work<V> {
    fn default() -> Self {
        Work {
            marks: Vec::new(),
            walked: Vec::new(),
            firsts: Vec::new(),
            fresh: Vec::new(),
            fresh_rare: Vec::new(),
            missing: Vec::new(),
            later: Vec::new(),
        }
    }
}

impl<V> Work<V> {
    /// Ready for a block of `heaps` heaps, rows of `width` bytes, `stride` walks a heap.
    fn clear(&mut self, heaps: usize, width: usize, stride: usize) {
        self.marks.clear();
        self.marks.resize(heaps * width, 0);
        self.walked.clear();
        self.walked.resize(heaps * stride, 0);
        self.firsts.clear();
        self.firsts.resize(heaps, 0);
        self.fresh.clear();
        self.fresh_rare.clear();
    }
}

/// G(0..) as a block sees it: the values before it, then its own so far.
struct Joined<'a, V> {
    old: &'a [V],
    fresh: &'a [V],
}

impl<V: Value> Joined<'_, V> {
    /// G(i).
    #[inline]
    fn at(&self, i: usize) -> u32 {
        match i.checked_sub(self.old.len()) {
            None => self.old[i].into(),
            Some(k) => self.fresh[k].into(),
        }
    }

    /// G(i) for `i` in `range`: a copy only when the range straddles the block's start (the
    /// first heaps, whose splits have both parts young).
    #[inline]
    fn slice(&self, range: Range<usize>) -> Cow<'_, [V]> {
        let n = self.old.len();
        if range.end <= n {
            Cow::Borrowed(&self.old[range])
        } else if range.start >= n {
            Cow::Borrowed(&self.fresh[range.start - n..range.end - n])
        } else {
            Cow::Owned(
                self.old[range.start..]
                    .iter()
                    .chain(&self.fresh[..range.end - n])
                    .copied()
                    .collect(),
            )
        }
    }
}

/// Marks in `row` the values of the splits whose parts are `left[k]` and `right[len - 1 - k]`.
/// The values of a chunk of splits are computed together first (plain loads and XORs the
/// compiler can vectorize), then stored.
#[inline]
fn mark_splits<V: Value>(row: &mut [u8], left: &[V], right: &[V]) {
    const CHUNK: usize = 16;
    // Split (a, m - a) pairs left[k] with right[len - 1 - k].
    let mut chunks = left.chunks_exact(CHUNK).zip(right.rchunks_exact(CHUNK));
    let mut values = [0u32; CHUNK];
    for (l, r) in &mut chunks {
        for (k, v) in values.iter_mut().enumerate() {
            *v = l[k].into() ^ r[CHUNK - 1 - k].into();
        }
        for &v in &values {
            if let Some(slot) = row.get_mut(v as usize) {
                *slot = 1;
            }
        }
    }
    let done = left.len() / CHUNK * CHUNK;
    for (k, &x) in left.iter().enumerate().skip(done) {
        row[(x.into() ^ right[right.len() - 1 - k].into()) as usize] = 1;
    }
}

/// Keeps in `missing` the values unmarked in `row`. Without a branch: which are marked is
/// not to be guessed, and a wrong guess a value costs more than the store.
fn keep_unmarked(row: &[u8], missing: &mut Vec<u32>) {
    let mut kept = 0;
    for i in 0..missing.len() {
        let x = missing[i];
        missing[kept] = x;
        kept += usize::from(row[x as usize] == 0);
    }
    missing.truncate(kept);
}

/// Looks for the values of `missing` in the splits `left[k]`, `right[k]` ([`splits_found`]),
/// compiled for AVX2 where the processor has it: twice the splits a compare.
fn find_splits<V: Value>(row: &mut [u8], left: &[V], right: &[V], missing: &mut Vec<u32>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (checked just above), the one condition of calling a
        // function compiled for it.
        return unsafe { find_splits_avx2(row, left, right, missing) };
    }
    splits_found(row, left, right, missing)
}

/// [`splits_found`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn find_splits_avx2<V: Value>(row: &mut [u8], left: &[V], right: &[V], missing: &mut Vec<u32>) {
    splits_found(row, left, right, missing)
}

/// Looks for the values of `missing` among those of the splits whose parts are `left[k]` and
/// `right[k]`, keeping in `missing` those not found and marking in `row` those found. The
/// splits' values are computed a chunk at a time, then compared with each value looked for:
/// an XOR and a minimum a split and value (vectorized: 16 or 32 splits at once with AVX2),
/// against a store a split for marking them all.
#[inline(always)]
fn splits_found<V: Value>(row: &mut [u8], left: &[V], right: &[V], missing: &mut Vec<u32>) {
    const CHUNK: usize = 256;
    let mut xs = [V::default(); CHUNK];
    for (l, r) in left.chunks(CHUNK).zip(right.chunks(CHUNK)) {
        let xs = &mut xs[..l.len()];
        for ((x, &a), &b) in xs.iter_mut().zip(l).zip(r) {
            *x = a ^ b;
        }
        missing.retain(|&t| {
            // A value wider than `V` is no split's.
            let Ok(wanted) = V::try_from(t) else { return true };
            // The least of the splits' values XORed with `wanted` is 0 if any is `wanted`: a
            // minimum, one instruction a vector, where a compare needs a mask and an OR.
            let least = xs.iter().fold(wanted ^ xs[0], |least, &x| least.min(x ^ wanted));
            let found = least == V::default();
            if found {
                row[t as usize] = 1;
            }
            !found
        });
        if missing.is_empty() {
            return;
        }
    }
}

/// The first values in reverse order: the smaller parts of the splits `(a, m - a)` walked up
/// from `a = 1` then read in the same direction as the larger ones, so that the compares of
/// [`find_splits`] vectorize without a shuffle.
struct Reversed<V> {
    /// G(len - 1 - i) at `i`.
    values: Vec<V>,
}

impl<V> Default for Reversed<V> {
    fn default() -> Self {
        Reversed { values: Vec::new() }
    }
}

impl<V: Value> Reversed<V> {
    /// Keeps up with `g`: the first `min(g.len(), REVERSED)` values, rounded down to a power of
    /// two, reversed.
    fn follow(&mut self, g: &[V]) {
        let want = prev_power_of_two(g.len().min(REVERSED));
        if want > self.values.len() {
            self.values = g[..want].iter().rev().copied().collect();
        }
    }

    /// G(a) for `a` in `parts`, last first, if kept.
    fn parts(&self, parts: Range<usize>) -> Option<&[V]> {
        let len = self.values.len();
        (parts.end <= len).then(|| &self.values[len - parts.end..len - parts.start])
    }
}

/// The largest power of two at most `x` (0 for 0).
fn prev_power_of_two(x: usize) -> usize {
    if x == 0 {
        0
    } else {
        1 << (usize::BITS - 1 - x.leading_zeros())
    }
}

/// Calls `f` with the values of `g` a stretch at a time (and where each starts), letting go of
/// the pages passed in a table in a file.
fn scan<V: Value>(g: &Column<V>, mut f: impl FnMut(usize, &[V])) {
    for (k, chunk) in g.chunks(SCAN_STEP).enumerate() {
        f(k * SCAN_STEP, chunk);
        g.release_cold();
    }
}

/// Entries per heap in the record of the splits walked: one per two-heap move, at least one.
fn stride(moves: &Moves) -> usize {
    moves.two.len().max(1)
}

/// The smaller parts `a` of the splits `(a, m - a)` of two heaps older than `n`.
#[inline]
fn old_splits(m: usize, n: usize) -> Range<usize> {
    let first = (m + 1).saturating_sub(n).max(1);
    first..(m / 2 + 1).max(first)
}

/// Marks the splits `(a, m - a)` for `a` in `parts`, from the smallest `a` up, in growing
/// chunks, until every value of `missing` is marked (`missing` keeps the others); returns the
/// end of the parts marked (`parts.start` if none). Walking from the ends finds a heap's last
/// missing value in a few thousand splits where walking from the middle can take a hundred
/// times more (0.6 at 4x10^6: 2,743 splits on average against 9,013, at most 9,127 against
/// 354,644), and it reads only the first values and the latest ones, which stay in cache.
///
/// A walk that crosses every split calls `release` now and then, so that a table in a file
/// lets go of what it passed.
///
/// Each value found is marked in `row`; the others of the splits walked are marked too while
/// more than `few` values are missing ([`FEW`], or 0 for marking them all), and not after.
#[inline]
fn walk_up<V: Value>(
    row: &mut [u8],
    (g, reversed, release): (&Joined<V>, &Reversed<V>, &dyn Fn()),
    m: usize,
    parts: Range<usize>,
    missing: &mut Vec<u32>,
    few: usize,
) -> usize {
    let mut start = parts.start;
    let mut step = 64;
    while start < parts.end && !missing.is_empty() {
        let end = (start + step).min(parts.end);
        let right = g.slice(m + 1 - end..m + 1 - start);
        match reversed.parts(start..end).filter(|_| missing.len() <= few) {
            Some(left) => find_splits(row, left, &right, missing),
            None => {
                mark_splits(row, &g.slice(start..end), &right);
                keep_unmarked(row, missing);
            }
        }
        if end / SCAN_STEP != start / SCAN_STEP {
            release();
        }
        start = end;
        step = (step * 2).min(1 << 10);
    }
    start
}

/// The index range of the rare heaps `r` whose split `(r, m - r)` has both parts older than
/// `n`: `m - n < r < min(m, n)`.
#[inline]
fn old_rare(rare: &[u32], m: usize, n: usize) -> (usize, usize) {
    let lo = rare.partition_point(|&r| (r as usize) <= m.saturating_sub(n));
    let hi = rare.partition_point(|&r| (r as usize) < m.min(n));
    (lo, hi.max(lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::code::Code;
    use crate::octal::naive::naive;

    #[test]
    fn both_builds_of_the_compares_find_exactly_the_values_some_split_has() {
        // A small generator, so that the test needs no crate: splits of values below 64.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 64) as u16
        };
        for len in [1, 7, 255, 256, 257, 700] {
            let left: Vec<u16> = (0..len).map(|_| next()).collect();
            let right: Vec<u16> = (0..len).map(|_| next()).collect();
            let wanted: Vec<u32> = (0..8).map(|_| u32::from(next())).chain([70_000]).collect();
            let some_split = |t: u32| left.iter().zip(&right).any(|(&a, &b)| u32::from(a ^ b) == t);
            let expected: Vec<u32> = wanted.iter().copied().filter(|&t| !some_split(t)).collect();
            for build in [find_splits::<u16>, splits_found::<u16>] {
                let (mut row, mut missing) = (vec![0u8; 1 << 17], wanted.clone());
                build(&mut row, &left, &right, &mut missing);
                assert_eq!(missing, expected, "{len} splits");
                for &t in &wanted {
                    assert_eq!(row[t as usize] == 1, some_split(t), "{t} in {len} splits");
                }
            }
        }
    }

    #[test]
    fn a_value_too_wide_for_the_storage_stops_the_extension_where_it_is() {
        // Taking 1 to 300 tokens leaving one heap or none: G(n) = n mod 301.
        let moves = Code::parse(&format!("0.{}", "3".repeat(300)), false).unwrap().moves();
        let mut g = Column::from(vec![0u8]);
        let mut state = Sparse::new(&g);
        assert_eq!(state.extend(&moves, &mut g, 700, &()), Err(256));
        assert_eq!(g.len(), 256);
        // Going on in 4 bytes from the same state gives the plain method's values.
        let mut wide = Column::from(g.iter().map(|&v| u32::from(v)).collect::<Vec<_>>());
        assert_eq!(state.extend(&moves, &mut wide, 700, &()), Ok(()));
        assert_eq!(&wide[..], &naive(&moves, 700)[..]);
    }
}
