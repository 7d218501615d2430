//! The number each play gives a node, from its moves' numbers, sinks first.
//!
//! - remoteness (conjunctive play; Steinhaus): a sink 0; if some move leads to an even
//!   remoteness, 1 + the least such; otherwise 1 + the largest.
//! - suspense (continued play): a sink 0; if some move leads to an even suspense, 1 + the
//!   largest such; otherwise 1 + the least.
//! - misère ([`Misere`]): the misère Grundy value (a sink 1, else the mex of the moves'), 0
//!   exactly for a position whose player to move loses; the nim heap the position equals
//!   in misère play, where that follows from Conway's misère mex rule (a sink is `*0`; a
//!   position whose moves all equal heaps `*a, *b, ...`, one of them `*0` or `*1`, equals
//!   `*mex(a, b, ...)`), else [`NO_HEAP`]; and whether it is tame ([`Misere::tame`]).
//!
//! On the parallel path the numbers are taken along the search that takes the values
//! ([`search`]: a node's number is computed as it finishes, from its moves' numbers beside
//! their values in the search's cells), when the values fit a byte. Otherwise, and on the
//! sequential path (the twin the parallel one is tested against), a pass reads every edge
//! once more in the levels' order ([`Measures::of`]): the nodes of a wide level in parallel
//! (their moves are in earlier levels), thin levels inline, as the Grundy evaluation does.
//! Both compute each node's number with the same function (`Fold::node`). Memory: 4 bytes
//! per node per number (misère: 8, the two numbers with the tame flag in the heap's top bit;
//! with the genus 8 more, its [`genus::Code`]); along the search, the cells' upper halves (4
//! bytes a node; with the genus, cells of 16 bytes), unpacked once it ends.

use rayon::prelude::*;

use crate::eval::search::{search_along, Along, Cyclic, Number, Numbers, Searched};
use crate::eval::Values;
use crate::graph::{Csr, Offset};
use crate::meter::Meter;
use crate::order::{Level, Levels, INLINE_LEVEL};

use super::genus::{self, Code, Genera, Long};
use super::marks::Marks;
use super::Play;

/// The heap of a position that equals no nim heap by the misère mex rule, where numbers are
/// written out as plain `u32`s (an index, a column).
pub const NO_HEAP: u32 = u32::MAX;

/// A node's misère numbers, in 8 bytes: the misère Grundy value, and the heap with the tame
/// flag in its top bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Misere {
    grundy: u32,
    heap_and_tame: u32,
}

/// A node's misère numbers and genus, as the genus's pass computes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct WithGenus {
    misere: Misere,
    genus: Code,
}

/// The tame bit of [`Misere::heap_and_tame`].
const TAME: u32 = 1 << 31;
/// The heap bits' code for no heap.
const HEAPLESS: u32 = TAME - 1;

impl Misere {
    /// The largest heap kept: a position equal to a larger one is said to equal none (which
    /// is sound: only not known). A heap `*m` needs moves to `m` distinct positions, each
    /// with as many of its own, so no graph that fits in memory comes near it.
    pub const LARGEST_HEAP: u32 = HEAPLESS - 1;

    /// The numbers of a position whose misère Grundy value is `grundy`, equal to nim heap
    /// `heap` (if known and at most [`Misere::LARGEST_HEAP`]), and tame or not.
    #[inline]
    pub fn new(grundy: u32, heap: Option<u32>, tame: bool) -> Misere {
        let heap = heap.filter(|&h| h <= Misere::LARGEST_HEAP).unwrap_or(HEAPLESS);
        Misere { grundy, heap_and_tame: heap | if tame { TAME } else { 0 } }
    }

    /// The misère Grundy value (Conway's γ0): 0 exactly when the player to move loses.
    #[inline]
    pub fn grundy(self) -> u32 {
        self.grundy
    }

    /// The nim heap the position equals in misère play, where the mex rule shows it.
    #[inline]
    pub fn heap(self) -> Option<u32> {
        let h = self.heap_bits();
        (h != HEAPLESS).then_some(h)
    }

    /// [`Misere::heap`] as a plain number, [`NO_HEAP`] for none.
    #[inline]
    pub fn heap_or_none(self) -> u32 {
        self.heap().unwrap_or(NO_HEAP)
    }

    /// Tame (Winning Ways, chapter 13): the position and every position it can reach have
    /// misère Grundy values (γ0) equal to their normal ones, or, for normal values 0 and 1,
    /// the other of the two (the genera `0^0`, `1^1`, `a^a` and the fickle `0^1`, `1^0`).
    /// Sums of tame positions are decided as misère Nim is ([`crate::play::sums`]).
    #[inline]
    pub fn tame(self) -> bool {
        self.heap_and_tame & TAME != 0
    }

    /// The heap bits: the heap, or `HEAPLESS`.
    #[inline]
    fn heap_bits(self) -> u32 {
        self.heap_and_tame & HEAPLESS
    }

    /// Whether a position whose normal Grundy value is `g` and misère one `m` has a tame
    /// genus (its moves aside): `m = g`, or `g <= 1` and `m = g ^ 1`.
    #[inline]
    pub fn tame_genus(g: u32, m: u32) -> bool {
        m == g || (g <= 1 && m == g ^ 1)
    }
}

/// What a play computes of every node of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measures {
    /// Normal and selective play: the Grundy values are all they need.
    None,
    /// Conjunctive play: each node's remoteness.
    Remoteness(Vec<u32>),
    /// Continued play: each node's suspense.
    Suspense(Vec<u32>),
    /// Misère play: each node's misère numbers, and with the genus each node's genus.
    Misere(Vec<Misere>, Genera),
}

impl Measures {
    /// What `play` computes of `graph`, whose normal-play Grundy values are `values`,
    /// evaluated in `levels` order: the wide levels in parallel when `parallel`, else every
    /// node on this thread (the sequential twin).
    pub fn of<O: Offset>(
        play: Play,
        (graph, values): (&Csr<O>, &Values),
        levels: &Levels,
        parallel: bool,
    ) -> Measures {
        match play {
            Play::Normal | Play::Selective => Measures::None,
            Play::Conjunctive => {
                Measures::Remoteness(levelwise(graph, values, levels, parallel, Remote))
            }
            Play::Continued => {
                Measures::Suspense(levelwise(graph, values, levels, parallel, Suspend))
            }
            Play::Misere { genus: false } => Measures::Misere(
                levelwise(graph, values, levels, parallel, Lose),
                Genera::default(),
            ),
            Play::Misere { genus: true } => {
                let long = Long::default();
                let both = levelwise(graph, values, levels, parallel, Genus(&long));
                let codes = both.iter().map(|b| b.genus).collect();
                let misere = both.into_iter().map(|b| b.misere).collect();
                Measures::Misere(misere, Genera::new(codes, long.into_inner()))
            }
        }
    }

    /// The numbers of `play` that [`search`] took along, packed as its cells hold them.
    pub fn unpacked(play: Play, numbers: Numbers) -> Measures {
        let Numbers { low, high, lists } = numbers;
        match play {
            Play::Normal | Play::Selective => Measures::None,
            Play::Conjunctive => Measures::Remoteness(low),
            Play::Continued => Measures::Suspense(low),
            Play::Misere { genus } => {
                let m =
                    low.into_iter().map(|low| Misere::unpack(Number { low, high: 0 })).collect();
                let codes = if genus { high.into_iter().map(Code).collect() } else { Vec::new() };
                Measures::Misere(m, Genera::new(codes, lists))
            }
        }
    }
}

/// The values, the levels (when asked; always for a play with numbers) and, when the values
/// fit a byte, the numbers of `play` ([`Searched::numbers`]; [`Measures::unpacked`] reads
/// them) of `graph`, by the search on every thread of the current pool ([`search_along`]);
/// [`Cyclic`] as the search gives it.
pub fn search<O: Offset>(
    play: Play,
    graph: &Csr<O>,
    levels: bool,
    meter: &dyn Meter,
) -> Result<Searched, Cyclic> {
    match play {
        Play::Normal | Play::Selective => crate::eval::search(graph, levels, true, meter),
        Play::Conjunctive => search_along(graph, true, true, &InCells(Remote), meter),
        Play::Continued => search_along(graph, true, true, &InCells(Suspend), meter),
        Play::Misere { genus: false } => search_along(graph, true, true, &InCells(Lose), meter),
        Play::Misere { genus: true } => {
            let long = Long::default();
            search_along(graph, true, true, &InCells(Genus(&long)), meter)
        }
    }
}

/// A node's number from its moves' numbers: one per play.
trait Fold: Sync {
    /// The number.
    type N: Packs;
    /// The number of `v`, whose Grundy value is `value`, from the numbers of the nodes it
    /// reaches (`number(w)`).
    fn node<O: Offset>(
        &self,
        graph: &Csr<O>,
        v: u32,
        value: u32,
        number: impl Fn(u32) -> Self::N,
    ) -> Self::N;
    /// The lists the numbers refer to, taken once all are computed.
    fn lists(&self) -> Vec<Box<[u32]>> {
        Vec::new()
    }
}

/// A number as a search cell holds it: its low bits below [`NUMBER_LIMIT`](crate::eval::search::NUMBER_LIMIT), for a graph whose
/// values fit a byte (so its out-degrees are below 255).
trait Packs: Copy + Default + Send + Sync {
    /// True when the number needs the high bits of a [`Number`].
    const WIDE: bool = false;
    /// The number in a cell.
    fn pack(self) -> Number;
    /// The number [`Packs::pack`] packed.
    fn unpack(packed: Number) -> Self;
}

/// A remoteness or a suspense: at most the node's level, below 2^24 in a search cell.
impl Packs for u32 {
    #[inline]
    fn pack(self) -> Number {
        Number { low: self, high: 0 }
    }
    #[inline]
    fn unpack(packed: Number) -> u32 {
        packed.low
    }
}

/// A packed misère heap of none (a heap is at most the out-degree, below 255).
const PACKED_HEAPLESS: u32 = 0xff;

/// The misère Grundy value (at most the out-degree, or 1) in bits 0-7, the heap in bits 8-15
/// ([`PACKED_HEAPLESS`] for none), the tame flag in bit 16.
impl Packs for Misere {
    #[inline]
    fn pack(self) -> Number {
        let heap = self.heap().unwrap_or(PACKED_HEAPLESS);
        Number { low: self.grundy() | heap << 8 | u32::from(self.tame()) << 16, high: 0 }
    }
    #[inline]
    fn unpack(packed: Number) -> Misere {
        let low = packed.low;
        let heap = (low >> 8) & 0xff;
        let heap = (heap != PACKED_HEAPLESS).then_some(heap);
        Misere::new(low & 0xff, heap, low >> 16 & 1 == 1)
    }
}

/// The misère numbers as [`Misere`] packs them, and the genus's code in the high bits.
impl Packs for WithGenus {
    const WIDE: bool = true;
    #[inline]
    fn pack(self) -> Number {
        Number { high: self.genus.0, ..self.misere.pack() }
    }
    #[inline]
    fn unpack(packed: Number) -> WithGenus {
        WithGenus { misere: Misere::unpack(packed), genus: Code(packed.high) }
    }
}

/// Remoteness ([`remoteness`]).
struct Remote;
/// Suspense ([`suspense`]).
struct Suspend;
/// Misère numbers ([`misere`]).
struct Lose;
/// Misère numbers and the genus ([`genus_of`]), keeping the long prefixes in a list; packed
/// wide, the genus's code in the high bits.
struct Genus<'a>(&'a Long);

/// A [`Fold`] taken along the search, packed in its cells.
struct InCells<F>(F);

impl<F: Fold> Along for InCells<F> {
    const WIDE: bool = F::N::WIDE;

    #[inline]
    fn number<O: Offset, N: Fn(u32) -> Number>(
        &self,
        graph: &Csr<O>,
        v: u32,
        value: u32,
        number: N,
    ) -> Number {
        self.0.node(graph, v, value, |w| F::N::unpack(number(w))).pack()
    }

    fn lists(&self) -> Vec<Box<[u32]>> {
        self.0.lists()
    }
}

impl Fold for Remote {
    type N = u32;
    #[inline]
    fn node<O: Offset>(&self, graph: &Csr<O>, v: u32, _: u32, number: impl Fn(u32) -> u32) -> u32 {
        remoteness(graph.successors(v).iter().map(|&s| number(s)))
    }
}

impl Fold for Suspend {
    type N = u32;
    #[inline]
    fn node<O: Offset>(&self, graph: &Csr<O>, v: u32, _: u32, number: impl Fn(u32) -> u32) -> u32 {
        suspense(graph.successors(v).iter().map(|&s| number(s)))
    }
}

impl Fold for Lose {
    type N = Misere;
    #[inline]
    fn node<O: Offset>(
        &self,
        graph: &Csr<O>,
        v: u32,
        value: u32,
        number: impl Fn(u32) -> Misere,
    ) -> Misere {
        misere(graph, v, value, number)
    }
}

impl Fold for Genus<'_> {
    type N = WithGenus;
    #[inline]
    fn node<O: Offset>(
        &self,
        graph: &Csr<O>,
        v: u32,
        value: u32,
        number: impl Fn(u32) -> WithGenus,
    ) -> WithGenus {
        let misere = misere(graph, v, value, |w| number(w).misere);
        let moves = graph.successors(v).iter().map(|&w| number(w));
        let genus = genus_of(moves.map(|n| (n.misere.grundy, n.genus)), self.0);
        WithGenus { misere, genus }
    }
    fn lists(&self) -> Vec<Box<[u32]>> {
        self.0.take()
    }
}

/// Remoteness of a node whose moves' remotenesses are `moves`.
#[inline]
fn remoteness(moves: impl Iterator<Item = u32>) -> u32 {
    let (mut least_even, mut largest) = (None::<u32>, None::<u32>);
    for r in moves {
        if r % 2 == 0 {
            least_even = Some(least_even.map_or(r, |e| e.min(r)));
        }
        largest = Some(largest.map_or(r, |l| l.max(r)));
    }
    match (least_even, largest) {
        (Some(e), _) => e + 1,
        (None, Some(l)) => l + 1,
        (None, None) => 0,
    }
}

/// Suspense of a node whose moves' suspenses are `moves`.
#[inline]
fn suspense(moves: impl Iterator<Item = u32>) -> u32 {
    let (mut largest_even, mut least) = (None::<u32>, None::<u32>);
    for s in moves {
        if s % 2 == 0 {
            largest_even = Some(largest_even.map_or(s, |e| e.max(s)));
        }
        least = Some(least.map_or(s, |l| l.min(s)));
    }
    match (largest_even, least) {
        (Some(e), _) => e + 1,
        (None, Some(l)) => l + 1,
        (None, None) => 0,
    }
}

/// The moves of a move that [`misere`] looks through for a reversing move, at most, and the
/// moves equal to no known heap it looks through at all: a position found equal to no heap
/// this way is only not known to equal one (never wrongly said to), so the bounds trade
/// decided sums for time (on random DAGs, where few positions equal heaps, looking through
/// every move's moves took the pass from 0.3x to 1.4x the plain values' time).
const REVERSE_LOOKS: usize = 8;
const UNKNOWN_MOVES: usize = 2;

/// Misère numbers of `v`, whose moves' numbers are in `out`.
///
/// The heap is Conway's misère mex rule with reversible moves: `v` equals `*m` when its moves
/// equal `*0 .. *(m-1)` (and maybe larger heaps), every move equal to no known heap has a move
/// equal to `*m` (it is reversible: the other player answers back to `*m`), and, for `m = 0`,
/// some move equals `*1`. Proof, for every `X`, that `v + X` and `*m + X` have the same misère
/// outcome, by induction on `X`: if `*m + X` loses, every move of `v + X` goes to a position
/// equal to a move of `*m + X` (a win for the other player), or to one answered back to
/// `*m + X`; if `*m + X` wins, its winning move has a twin in `v + X`, except when it has no
/// move at all (`m = 0`, `X` over): then `v + X` wins by the move to `*1`. A move equal to a
/// larger heap `*h` has a move equal to `*m` (as every heap's position has one below it), so
/// it reverses too.
///
/// Tameness is hereditary: `v` is tame when its own genus is and all its moves are.
#[inline]
fn misere<O: Offset>(graph: &Csr<O>, v: u32, value: u32, number: impl Fn(u32) -> Misere) -> Misere {
    let moves = graph.successors(v);
    if moves.is_empty() {
        return Misere::new(1, Some(0), true);
    }
    let (mut grundy, mut heaps) = (Marks::default(), Marks::default());
    let (mut unknown, mut tame) = (0, true);
    for &w in moves {
        let m = number(w);
        grundy.mark(m.grundy);
        tame &= m.tame();
        match m.heap_bits() {
            HEAPLESS => unknown += 1,
            h => heaps.mark(h),
        }
    }
    let m = heaps.mex();
    let reverses = |w: u32| {
        let known = number(w).heap_bits() != HEAPLESS;
        known || graph.successors(w).iter().take(REVERSE_LOOKS).any(|&u| number(u).heap_bits() == m)
    };
    let zero_ok = m != 0 || moves.iter().any(|&w| number(w).heap_bits() == 1);
    let moves_ok =
        || unknown == 0 || (unknown <= UNKNOWN_MOVES && moves.iter().all(|&w| reverses(w)));
    let heap = (zero_ok && moves_ok()).then_some(m);
    let grundy = grundy.mex();
    Misere::new(grundy, heap, tame && Misere::tame_genus(value, grundy))
}

/// The genus code of a position whose moves' `(γ0, code)`s are `moves` ([`genus`]): from
/// the codes in place while all are in place (the common case), else from copies of the
/// moves' prefixes; unknown when a move's is.
fn genus_of(moves: impl Iterator<Item = (u32, Code)> + Clone, long: &Long) -> Code {
    if let Some(code) = genus::settle_codes(moves.clone(), long) {
        return code;
    }
    let mut prefix = Vec::new();
    let mut prefixes = Vec::new();
    for (gamma0, code) in moves {
        if !code.is_known() {
            return Code::UNKNOWN;
        }
        long.prefix(code, gamma0, &mut prefix);
        prefixes.push(prefix.clone());
    }
    let len = |k: usize| prefixes[k].len();
    let mut out = Vec::new();
    match genus::settle(prefixes.len(), len, |k, n| genus::at(&prefixes[k], n), &mut out) {
        true => Code::of(&out, long),
        false => Code::UNKNOWN,
    }
}

/// `node(moves)` of every node of `graph`, in `levels` order: each node's number from its
/// moves' numbers, the wide levels in parallel chunks on the parallel path. The reads of the
/// nodes ahead are started early ([`Csr::prefetch_ahead`]): a level's nodes and their moves'
/// numbers lie anywhere in memory.
fn levelwise<O: Offset, F: Fold>(
    graph: &Csr<O>,
    values: &Values,
    levels: &Levels,
    parallel: bool,
    f: F,
) -> Vec<F::N> {
    type T<F> = <F as Fold>::N;
    let mut out = vec![T::<F>::default(); graph.node_count()];
    let one = |v: u32, out: &[T<F>]| f.node(graph, v, values.get(v), |w| out[w as usize]);
    let mut wide = Vec::new();
    for l in 0..levels.level_count() {
        match levels.level(l) {
            Level::Listed(nodes) if !parallel || nodes.len() < INLINE_LEVEL => {
                for (i, &v) in nodes.iter().enumerate() {
                    graph.prefetch_ahead(&nodes[i + 1..], &out);
                    out[v as usize] = one(v, &out);
                }
            }
            Level::Listed(nodes) => {
                let read: &[T<F>] = &out;
                let chunk =
                    (nodes.len() / (4 * rayon::current_num_threads())).max(INLINE_LEVEL / 8);
                wide.clear();
                wide.resize(nodes.len(), T::<F>::default());
                nodes.par_chunks(chunk).zip(wide.par_chunks_mut(chunk)).for_each(
                    |(part, numbers)| {
                        for (i, (&v, slot)) in part.iter().zip(numbers).enumerate() {
                            graph.prefetch_ahead(&part[i + 1..], read);
                            *slot = one(v, read);
                        }
                    },
                );
                for (&v, &x) in nodes.iter().zip(&wide) {
                    out[v as usize] = x;
                }
            }
            // Consecutive nodes, read in order: one pass (the levels made from node levels
            // are listed; a span comes from a graph whose ids are its order).
            Level::Span { start, end } => {
                for v in start..end {
                    out[v as usize] = one(v, &out);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remoteness_and_suspense_follow_their_definitions() {
        let r = |xs: &[u32]| remoteness(xs.iter().copied());
        let s = |xs: &[u32]| suspense(xs.iter().copied());
        assert_eq!((r(&[]), s(&[])), (0, 0));
        // Some even: 1 + the least even (remoteness), 1 + the largest even (suspense).
        assert_eq!((r(&[3, 4, 2, 7]), s(&[3, 4, 2, 7])), (3, 5));
        // All odd: 1 + the largest (remoteness), 1 + the least (suspense).
        assert_eq!((r(&[3, 1, 5]), s(&[3, 1, 5])), (6, 2));
    }

    #[test]
    fn misere_heaps_follow_the_mex_rule_with_reversible_moves() {
        // 0..=3: the nim heaps *0..*3 (each moves to every smaller one). 4 = {*2}: no move to
        // *0 or *1, so no heap (its player moves to *2 and loses). 5 = {*1, 4}: 4 equals no
        // known heap and has no move equal to *0, so 5 equals none either. 6 = {*0, 5}: 5
        // reverses through its move to *1, so 6 equals *1.
        let lists: Vec<Vec<u32>> =
            vec![vec![], vec![0], vec![0, 1], vec![0, 1, 2], vec![2], vec![1, 4], vec![0, 5]];
        let graph = Csr::<u32>::from_lists(&lists).expect("lists");
        let levels = crate::order::levels(&graph, &()).expect("acyclic");
        let values = Values::from_vec(vec![0, 1, 2, 3, 0, 2, 1]);
        for parallel in [false, true] {
            let of =
                Measures::of(Play::Misere { genus: true }, (&graph, &values), &levels, parallel);
            let Measures::Misere(m, _) = of else {
                panic!("misère numbers");
            };
            let heaps: Vec<u32> = m.iter().map(|x| x.heap_or_none()).collect();
            let grundy: Vec<u32> = m.iter().map(|x| x.grundy()).collect();
            assert_eq!(heaps, [0, 1, 2, 3, NO_HEAP, NO_HEAP, 1]);
            assert_eq!(grundy, [1, 0, 2, 3, 0, 1, 0]);
            // Tame: the heaps, and 4 (genus 0^0 over the heap *2); 5 is 2 in normal play
            // but 1 in misère play, so neither it nor 6 above it is.
            let tame: Vec<bool> = m.iter().map(|x| x.tame()).collect();
            assert_eq!(tame, [true, true, true, true, true, false, false]);
        }
    }
    /// The numbers the search takes along are the level pass's, for every play, on one
    /// worker's pool and on pools of several (chains of waits between lanes), on graphs
    /// whose values fit a byte and (with 300 moves, no numbers along: the pass) one whose
    /// values do not; the pass itself is checked against the game tree in tests/plays.rs.
    #[test]
    fn numbers_along_the_search_are_the_level_pass_numbers() {
        use crate::testing::Xorshift;
        let mut rng = Xorshift::new(0x05ee_d0fa_10e6);
        let mut along = 0;
        let pools: Vec<rayon::ThreadPool> = [1, 2, 3]
            .iter()
            .map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool"))
            .collect();
        for round in 0..40 {
            let n = 1 + rng.below(if round % 4 == 0 { 30_000 } else { 500 }) as usize;
            let most = if round % 10 == 9 { 300 } else { 1 + rng.below(8) };
            // Node v moves to nodes below it, near or far: a DAG whose order is the ids'.
            let lists: Vec<Vec<u32>> = (0..n as u64)
                .map(|v| {
                    let degree = if v > 0 { rng.below(most.min(v) + 1) } else { 0 };
                    let near = rng.below(2) == 0;
                    let span = if near { 4.min(v) } else { v };
                    (0..degree).map(|_| (v - 1 - rng.below(span)) as u32).collect()
                })
                .collect();
            let graph = Csr::<u32>::from_lists(&lists).expect("lists");
            let levels = crate::order::levels(&graph, &()).expect("acyclic");
            for play in [
                Play::Conjunctive,
                Play::Continued,
                Play::Misere { genus: false },
                Play::Misere { genus: true },
            ] {
                for pool in &pools {
                    let found = pool.install(|| search(play, &graph, true, &())).expect("acyclic");
                    let want = Measures::of(play, (&graph, &found.values), &levels, false);
                    let threads = pool.current_num_threads();
                    let Some(numbers) = found.numbers else {
                        assert!(graph.most_moves() + 4 * threads as u32 >= 255, "round {round}");
                        continue;
                    };
                    along += 1;
                    let got = Measures::unpacked(play, numbers);
                    assert_eq!(got, want, "round {round} {} threads {threads}", play.name());
                    let node_levels = found.levels.expect("levels along");
                    assert_eq!(node_levels, levels.node_levels(), "round {round}");
                }
            }
        }
        assert!(along > 100, "the numbers were taken along in {along} searches only");
    }
}
