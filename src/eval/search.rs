//! Values (and levels) of an explicit game graph by a memoised depth-first search over its
//! moves, on every thread at once: each edge is read once, in the direction the file gives
//! it, and no reverse graph is built.
//!
//! Each node has one cell (a byte when every value fits one, else 4 bytes; with levels, 4
//! bytes holding value and level, `Packed`): unvisited, busy on a lane's stack, or its
//! value. Every worker runs 8 searches (lanes, `LANES`; fewer on many cores) that take
//! turns, each running until it pushes a node or reaches a stage of one: the node's reads
//! are then on their way from memory while the other lanes run. A lane claims a node by
//! compare-and-swap before it pushes it, so each node is searched once; a frame ORs the
//! values of its finished moves into a 64-bit mask, and a move busy on another lane is
//! waited for once the frame's other moves are done (the lane stays blocked, the others go
//! on). In a DAG that wait always ends: the other lane is searching below the move, which
//! cannot reach back to the waiting lane's stack. A cycle shows as a move busy on the
//! lane's own stack, or as lanes each waiting for a node another of them holds; either
//! stops the search ([`Cyclic`]) and the caller's Kahn peeling names the cycle, exactly as
//! before (and would evaluate the graph, were it ever a false alarm: an alarm, never a
//! wrong value).
//!
//! A node's level (1 + the largest level of its moves, 0 for a sink: the level Kahn's peeling
//! gives it) is taken on the way when asked, in its cell or in one `u32` per node beside it.
//! So can one more number of each node computed from its moves' numbers ([`Along`]: a play's
//! remoteness, suspense or misère numbers), in the upper half of an 8-byte cell (and a second
//! 8-byte word beside it, for a wide one), so that a move's number comes with its value in the
//! same read and no pass over the levels follows.
//!
//! Memory: one cell per node (1 or 4 bytes; 4 for values and levels together; 8 when values
//! need 4 bytes of their own, or with a number along; 16 with a wide one), and each lane's
//! stack, 16 bytes a frame (24 with 64-bit offsets) and 4 more with levels, as deep as the
//! longest path it walks.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};

use rayon::prelude::*;

use super::{node_value, Mex, Values};
use crate::graph::{Csr, Offset};
use crate::io::memory::prefetch;
use crate::io::store::{Ints, Store};
use crate::meter::{Meter, TICK};

/// The search stopped at a cycle (or at what looked like one to the wait-for check): the
/// caller orders the graph by Kahn's peeling, which names a cycle or, for a false alarm,
/// evaluates it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cyclic;

/// What the search gives: every node's value, and every node's level when asked.
#[derive(Debug)]
pub struct Searched {
    /// The Grundy value of every node.
    pub values: Values,
    /// The level of every node (when asked).
    pub levels: Option<Vec<u32>>,
    /// Every node's number along ([`search_along`]), when the search took them.
    pub numbers: Option<Numbers>,
}

/// Every node's number along: its 31 bits beside the value, its 64 more bits for a wide
/// number ([`Along::WIDE`]; else empty), and lists the numbers refer to (a misère genus too
/// long for its 64 bits: [`crate::play::genus`]).
#[derive(Debug, Default)]
pub struct Numbers {
    /// The low bits of every node's number.
    pub low: Vec<u32>,
    /// The high bits of every node's number (wide numbers only).
    pub high: Vec<u64>,
    /// Lists the numbers refer to.
    pub lists: Vec<Box<[u32]>>,
}

/// A node's number along: 31 bits kept beside its value and level, and 64 more for a wide one
/// ([`Along::WIDE`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Number {
    /// Below [`NUMBER_LIMIT`].
    pub low: u32,
    /// 0 unless the number is wide.
    pub high: u64,
}

/// Numbers along are below this in their low bits (31 bits: the cell's codes above a number
/// are the search's busy and unvisited ones).
pub const NUMBER_LIMIT: u32 = 1 << 31;

/// A number of each node computed from its moves' numbers, sinks first, as its value is: taken
/// along the search ([`search_along`]) when the graph's values fit a byte. Numbers are below
/// [`NUMBER_LIMIT`].
pub trait Along: Sync {
    /// True for a number to take; false for none ([`NoNumber`]).
    const ACTIVE: bool = true;
    /// True for a number with high bits ([`Number::high`]): cells of 16 bytes.
    const WIDE: bool = false;
    /// The number of node `v` of `graph`, whose Grundy value is `value`, from the numbers of
    /// the nodes it reaches (`number(w)`; every one is finished).
    fn number<O: Offset, N: Fn(u32) -> Number>(
        &self,
        graph: &Csr<O>,
        v: u32,
        value: u32,
        number: N,
    ) -> Number;

    /// The lists its numbers refer to, once every node has its number.
    fn lists(&self) -> Vec<Box<[u32]>> {
        Vec::new()
    }
}

/// No number along: the plain search.
pub struct NoNumber;

impl Along for NoNumber {
    const ACTIVE: bool = false;
    #[inline]
    fn number<O: Offset, N: Fn(u32) -> Number>(&self, _: &Csr<O>, _: u32, _: u32, _: N) -> Number {
        Number::default()
    }
}

/// Frames' masks hold values below this; bit 63 marks a frame with a move that was busy on
/// another lane when it was met (`LATE`), bit 62 a frame whose moves' cells are still to be
/// asked for (`FRESH`), and both bits a frame whose list is still to be asked for (`BOUNDS`:
/// its bounds, and so its edge, not read yet).
const MASK_VALUES: u32 = 62;
const LATE: u64 = 1 << 63;
const FRESH: u64 = 1 << 62;
/// A pushed frame whose bounds are on their way: its list is asked for on its next turn.
const BOUNDS: u64 = FRESH | LATE;

/// Root ids per unit of parallel work: enough that a unit's overhead (a closure call, a
/// counter) is noise, few enough that the workers stay balanced.
const ROOTS_PER_TASK: usize = 1 << 12;

/// Spins of a waiting worker before it yields its core (the machine may be shared, and the
/// worker it waits for may need the core).
const SPINS: u32 = 1 << 12;

/// Most moves of a node whose cells are asked for on its lane's next turn.
const PREFETCH_MOVES: usize = 16;

/// Searches each worker interleaves, so that one's wait for memory is another's turn: a
/// node's reads take three of its lane's turns (below, [`Shared::push`]), so it takes about
/// eight lanes to keep a core's misses on the way (4 lanes: `solve` 1.07x as long on the
/// 10M-node file, 12 lanes 1.11x; BENCHMARKS.md).
const LANES: usize = 8;

/// Most lanes in all, whatever the workers: each lane needs a busy code of its own in a cell,
/// and a byte cell holds values only below 255 minus the lanes.
const MOST_LANES: usize = 64;

/// The lanes each of `workers` runs: [`LANES`], fewer on a machine of many cores (at least 2).
fn lanes_per_worker(workers: usize) -> usize {
    (MOST_LANES / workers.max(1)).clamp(2, LANES)
}

/// A waiting slot that holds no node.
const NONE: u32 = u32::MAX;

/// The values and, with `levels`, the levels of `graph`, searched on this thread
/// (`parallel` false) or on every thread of the current rayon pool; [`Cyclic`] if it has a
/// cycle. The count of nodes finished goes to `meter`.
pub fn search<O: Offset>(
    graph: &Csr<O>,
    levels: bool,
    parallel: bool,
    meter: &dyn Meter,
) -> Result<Searched, Cyclic> {
    search_along(graph, levels, parallel, &NoNumber, meter)
}

/// [`search`], with every node's number of `along` taken on the way (and its level) when the
/// values fit a byte; otherwise the plain search, with no numbers ([`Searched::numbers`]
/// `None`: the caller takes them in a pass of its own).
pub fn search_along<O: Offset, A: Along>(
    graph: &Csr<O>,
    levels: bool,
    parallel: bool,
    along: &A,
    meter: &dyn Meter,
) -> Result<Searched, Cyclic> {
    let workers = if parallel { rayon::current_num_threads().max(1) } else { 1 };
    let per_worker = lanes_per_worker(workers);
    let lanes = workers * per_worker;
    let most = graph.most_moves();
    // A byte holds every value when the largest out-degree (the largest possible mex) leaves
    // room for the busy codes and the unvisited one.
    let small = (most as usize) + lanes < u8::MAX as usize;
    let plain = Job { graph, levels, workers, per_worker, along: &NoNumber, meter };
    if small && A::ACTIVE && A::WIDE {
        Job { graph, levels: true, workers, per_worker, along, meter }.run::<Wide>()
    } else if small && A::ACTIVE {
        Job { graph, levels: true, workers, per_worker, along, meter }.run::<Numbered>()
    } else if small && levels {
        plain.run::<Packed>()
    } else if small {
        plain.run::<AtomicU8>()
    } else if (most as u64) + (lanes as u64) < u64::from(u32::MAX) {
        plain.run::<AtomicU32>()
    } else {
        // No room for the busy codes: the peel takes the graph.
        Err(Cyclic)
    }
}

/// What one search is asked: the graph, whether to take levels, the workers and the lanes
/// of each, the number along.
struct Job<'a, O: Offset, A: Along> {
    graph: &'a Csr<O>,
    levels: bool,
    workers: usize,
    per_worker: usize,
    along: &'a A,
    meter: &'a dyn Meter,
}

impl<O: Offset, A: Along> Job<'_, O, A> {
    /// The search with cells of type `C`.
    fn run<C: Cell>(self) -> Result<Searched, Cyclic> {
        let Job { graph, levels: with_levels, workers, per_worker, along, meter } = self;
        let lanes = workers * per_worker;
        let n = graph.node_count();
        let shared = Shared {
            graph,
            cells: C::unvisited(n),
            levels: if with_levels && !C::PACKED {
                (0..n).map(|_| AtomicU32::new(0)).collect()
            } else {
                Vec::new()
            },
            waiting: (0..lanes).map(|_| AtomicU32::new(NONE)).collect(),
            stop: AtomicBool::new(false),
            done: AtomicU64::new(0),
            lanes: lanes as u32,
            per_worker: per_worker as u32,
            along,
            meter,
        };
        let result = match (workers, with_levels) {
            (1, false) => shared.roots::<false>(0, 0..n, &mut Scratch::new(shared.per_worker)),
            (1, true) => shared.roots::<true>(0, 0..n, &mut Scratch::new(shared.per_worker)),
            (_, false) => shared.parallel::<false>(),
            (_, true) => shared.parallel::<true>(),
        };
        result?;
        let Shared { cells, levels, .. } = shared;
        let Parts { values, levels: packed_levels, numbers } = C::into_parts(cells);
        let levels = match packed_levels {
            Some(levels) => Some(levels),
            None => with_levels.then(|| levels.into_iter().map(AtomicU32::into_inner).collect()),
        };
        let numbers = numbers.map(|(low, high)| Numbers { low, high, lists: along.lists() });
        Ok(Searched { values: Values::from_ints(values), levels, numbers })
    }
}

/// What the cells become once every node is finished.
struct Parts {
    values: Ints,
    /// The levels, when the cells hold them.
    levels: Option<Vec<u32>>,
    /// The numbers along (low and high bits), when the cells hold them.
    numbers: Option<(Vec<u32>, Vec<u64>)>,
}

/// A node's cell: its value (a [`Packed`] cell: and its level; a [`Numbered`] one: and its
/// number along), or [`Cell::UNVISITED`], or busy on a lane's stack (the codes just below
/// `UNVISITED`, one per lane). Plain cells store values as they are, so the cells become the
/// values without a pass. Codes are handled as `u64` whatever the cell's width (a zero
/// extension, free).
trait Cell: Sync + Send + Sized {
    /// The code of a node no lane has reached.
    const UNVISITED: u64;
    /// True when a code holds the level beside the value.
    const PACKED: bool = false;
    /// The value a value's code holds.
    #[inline]
    fn value(code: u64) -> u32 {
        code as u32
    }
    /// The level a value's code holds (packed cells only).
    #[inline]
    fn level(_code: u64) -> u32 {
        0
    }
    /// The low bits of the number along a value's code holds ([`Numbered`] cells only).
    #[inline]
    fn number(_code: u64) -> u32 {
        0
    }
    /// The high bits of the number along ([`Wide`] cells only): read after the code that
    /// published them.
    #[inline]
    fn high(&self) -> u64 {
        0
    }
    /// Sets the high bits of the number along ([`Wide`] cells only), before the code that
    /// publishes them.
    #[inline]
    fn set_high(&self, _high: u64) {}
    /// The code of a finished node; `None` when the level does not fit.
    #[inline]
    fn code(value: u32, _level: u32, _number: u32) -> Option<u64> {
        Some(value.into())
    }
    /// `n` unvisited cells.
    fn unvisited(n: usize) -> Vec<Self>;
    fn load(&self, order: Ordering) -> u64;
    fn store(&self, code: u64, order: Ordering);
    /// Claims an unvisited cell for `code`; false if it was not unvisited.
    fn claim(&self, code: u64) -> bool;
    /// The cells, all values by now, as values, and levels and numbers when they hold them.
    fn into_parts(cells: Vec<Self>) -> Parts;
}

impl Cell for AtomicU8 {
    const UNVISITED: u64 = u8::MAX as u64;

    fn unvisited(n: usize) -> Vec<AtomicU8> {
        // A memset, then the same allocation taken as atomics (same size and alignment).
        vec![u8::MAX; n].into_iter().map(AtomicU8::new).collect()
    }

    #[inline]
    fn load(&self, order: Ordering) -> u64 {
        AtomicU8::load(self, order).into()
    }

    #[inline]
    fn store(&self, code: u64, order: Ordering) {
        AtomicU8::store(self, code as u8, order)
    }

    #[inline]
    fn claim(&self, code: u64) -> bool {
        let (from, to) = (u8::MAX, code as u8);
        self.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    fn into_parts(cells: Vec<AtomicU8>) -> Parts {
        let values = cells.into_iter().map(AtomicU8::into_inner).collect::<Vec<u8>>();
        Parts { values: Ints::U8(Store::from(values)), levels: None, numbers: None }
    }
}

impl Cell for AtomicU32 {
    const UNVISITED: u64 = u32::MAX as u64;

    fn unvisited(n: usize) -> Vec<AtomicU32> {
        vec![u32::MAX; n].into_iter().map(AtomicU32::new).collect()
    }

    #[inline]
    fn load(&self, order: Ordering) -> u64 {
        AtomicU32::load(self, order).into()
    }

    #[inline]
    fn store(&self, code: u64, order: Ordering) {
        AtomicU32::store(self, code as u32, order)
    }

    #[inline]
    fn claim(&self, code: u64) -> bool {
        self.compare_exchange(u32::MAX, code as u32, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    fn into_parts(cells: Vec<AtomicU32>) -> Parts {
        let values = cells.into_iter().map(AtomicU32::into_inner).collect::<Vec<u32>>();
        Parts { values: Ints::U32(Store::from(values)), levels: None, numbers: None }
    }
}

/// A cell holding a value below 256 and the node's level in the 24 bits above it: with
/// levels asked, one random read per move instead of two (the 10M-node file's `values`: see
/// BENCHMARKS.md). A level of [`LEVEL_LIMIT`] or more does not fit (a path of 16.7M moves):
/// the search then gives up and the peel takes the graph.
struct Packed(AtomicU32);

/// The first level a [`Packed`] cell cannot hold.
const LEVEL_LIMIT: u32 = (1 << 24) - 1;

/// The value and level of a packed code's low 32 bits; `None` when the level does not fit.
#[inline]
fn packed(value: u32, level: u32) -> Option<u32> {
    (level < LEVEL_LIMIT).then_some(level << 8 | value)
}

impl Cell for Packed {
    const UNVISITED: u64 = u32::MAX as u64;
    const PACKED: bool = true;

    #[inline]
    fn value(code: u64) -> u32 {
        code as u32 & 0xff
    }

    #[inline]
    fn level(code: u64) -> u32 {
        code as u32 >> 8
    }

    #[inline]
    fn code(value: u32, level: u32, _number: u32) -> Option<u64> {
        packed(value, level).map(u64::from)
    }

    fn unvisited(n: usize) -> Vec<Packed> {
        vec![u32::MAX; n].into_iter().map(|c| Packed(AtomicU32::new(c))).collect()
    }

    #[inline]
    fn load(&self, order: Ordering) -> u64 {
        self.0.load(order).into()
    }

    #[inline]
    fn store(&self, code: u64, order: Ordering) {
        self.0.store(code as u32, order)
    }

    #[inline]
    fn claim(&self, code: u64) -> bool {
        let to = code as u32;
        self.0.compare_exchange(u32::MAX, to, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    fn into_parts(cells: Vec<Packed>) -> Parts {
        let values: Vec<u8> = cells
            .par_iter()
            .map(|c| Packed::value(c.0.load(Ordering::Relaxed).into()) as u8)
            .collect();
        // The cells become the levels in place.
        let levels = cells.into_iter().map(|c| Packed::level(c.0.into_inner().into())).collect();
        Parts { values: Ints::U8(Store::from(values)), levels: Some(levels), numbers: None }
    }
}

/// A [`Packed`] code in the low 32 bits and the node's number along in the high 32 (below
/// [`NUMBER_LIMIT`], so no finished code comes near the busy ones): a move's value, level and
/// number in one read.
struct Numbered(AtomicU64);

impl Cell for Numbered {
    const UNVISITED: u64 = u64::MAX;
    const PACKED: bool = true;

    #[inline]
    fn value(code: u64) -> u32 {
        Packed::value(code & 0xffff_ffff)
    }

    #[inline]
    fn level(code: u64) -> u32 {
        Packed::level(code & 0xffff_ffff)
    }

    #[inline]
    fn number(code: u64) -> u32 {
        (code >> 32) as u32
    }

    #[inline]
    fn code(value: u32, level: u32, number: u32) -> Option<u64> {
        debug_assert!(number < NUMBER_LIMIT);
        packed(value, level).map(|low| u64::from(number) << 32 | u64::from(low))
    }

    fn unvisited(n: usize) -> Vec<Numbered> {
        vec![u64::MAX; n].into_iter().map(|c| Numbered(AtomicU64::new(c))).collect()
    }

    #[inline]
    fn load(&self, order: Ordering) -> u64 {
        self.0.load(order)
    }

    #[inline]
    fn store(&self, code: u64, order: Ordering) {
        self.0.store(code, order)
    }

    #[inline]
    fn claim(&self, code: u64) -> bool {
        self.0.compare_exchange(u64::MAX, code, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    fn into_parts(cells: Vec<Numbered>) -> Parts {
        let codes: Vec<u64> = cells.into_iter().map(|c| c.0.into_inner()).collect();
        let values = codes.par_iter().map(|&c| Numbered::value(c) as u8).collect::<Vec<u8>>();
        let levels = codes.par_iter().map(|&c| Numbered::level(c)).collect();
        let numbers = codes.par_iter().map(|&c| Numbered::number(c)).collect();
        Parts {
            values: Ints::U8(Store::from(values)),
            levels: Some(levels),
            numbers: Some((numbers, Vec::new())),
        }
    }
}

/// A [`Numbered`] code and a wide number's high bits in the same 16 bytes (so in the same
/// cache line: one miss for both).
#[repr(align(16))]
struct Wide {
    code: AtomicU64,
    high: AtomicU64,
}

impl Cell for Wide {
    const UNVISITED: u64 = u64::MAX;
    const PACKED: bool = true;

    #[inline]
    fn value(code: u64) -> u32 {
        Numbered::value(code)
    }

    #[inline]
    fn level(code: u64) -> u32 {
        Numbered::level(code)
    }

    #[inline]
    fn number(code: u64) -> u32 {
        Numbered::number(code)
    }

    #[inline]
    fn high(&self) -> u64 {
        self.high.load(Ordering::Relaxed)
    }

    #[inline]
    fn set_high(&self, high: u64) {
        self.high.store(high, Ordering::Relaxed)
    }

    #[inline]
    fn code(value: u32, level: u32, number: u32) -> Option<u64> {
        Numbered::code(value, level, number)
    }

    fn unvisited(n: usize) -> Vec<Wide> {
        (0..n).map(|_| Wide { code: AtomicU64::new(u64::MAX), high: AtomicU64::new(0) }).collect()
    }

    #[inline]
    fn load(&self, order: Ordering) -> u64 {
        self.code.load(order)
    }

    #[inline]
    fn store(&self, code: u64, order: Ordering) {
        self.code.store(code, order)
    }

    #[inline]
    fn claim(&self, code: u64) -> bool {
        let (from, order) = (u64::MAX, Ordering::AcqRel);
        self.code.compare_exchange(from, code, order, Ordering::Acquire).is_ok()
    }

    fn into_parts(cells: Vec<Wide>) -> Parts {
        let values = cells.par_iter().map(|c| Wide::value(c.code.load(Ordering::Relaxed)) as u8);
        let values = values.collect::<Vec<u8>>();
        let levels = cells.par_iter().map(|c| Wide::level(c.code.load(Ordering::Relaxed)));
        let numbers = cells.par_iter().map(|c| Wide::number(c.code.load(Ordering::Relaxed)));
        let (levels, numbers) = (levels.collect(), numbers.collect());
        let high = cells.into_iter().map(|c| c.high.into_inner()).collect();
        Parts {
            values: Ints::U8(Store::from(values)),
            levels: Some(levels),
            numbers: Some((numbers, high)),
        }
    }
}

/// What every worker of one search shares.
struct Shared<'a, O: Offset, C: Cell, A: Along> {
    graph: &'a Csr<O>,
    cells: Vec<C>,
    /// Every node's level, when asked (else empty).
    levels: Vec<AtomicU32>,
    /// The node each lane waits for, or [`NONE`].
    waiting: Vec<AtomicU32>,
    /// Set when a worker met a cycle: every worker stops.
    stop: AtomicBool,
    /// Nodes finished, summed from the workers' counts (for the meter).
    done: AtomicU64,
    /// Lanes in all: `per_worker` per worker.
    lanes: u32,
    /// Lanes per worker ([`lanes_per_worker`]).
    per_worker: u32,
    /// The number taken along ([`NoNumber`] for none).
    along: &'a A,
    meter: &'a dyn Meter,
}

/// One node being searched: the values of its finished moves (below [`MASK_VALUES`]) with the
/// [`LATE`] bit, the node, and its next move's index in the targets (0 while the frame is
/// [`BOUNDS`]: its bounds are not read yet).
#[derive(Clone, Copy)]
struct Frame<O> {
    mask: u64,
    node: u32,
    edge: O,
}

/// One search of a worker's: its stack, and with levels each frame's largest level of a
/// finished move plus one.
struct Lane<O> {
    stack: Vec<Frame<O>>,
    heights: Vec<u32>,
}

/// What a lane's step ended on.
enum Step {
    /// A node was pushed: its lists are on their way from memory, so another lane goes on.
    Pushed,
    /// The stack emptied: the lane takes the next root.
    Empty,
    /// The top node waits for a move busy on another lane.
    Blocked,
}

/// A worker's reusable scratch: its lanes, a mex scratch, and a count of nodes finished since
/// the last report.
struct Scratch<O> {
    lanes: Vec<Lane<O>>,
    mex: Mex,
    finished: u64,
}

impl<O> Scratch<O> {
    fn new(lanes: u32) -> Scratch<O> {
        let lanes = (0..lanes).map(|_| Lane { stack: Vec::new(), heights: Vec::new() }).collect();
        Scratch { lanes, mex: Mex::new(), finished: 0 }
    }
}

impl<O: Offset, C: Cell, A: Along> Shared<'_, O, C, A> {
    /// The code of a node busy on lane `lane`'s stack.
    #[inline]
    fn busy(&self, lane: u32) -> u64 {
        C::UNVISITED - 1 - u64::from(lane)
    }

    /// The level of finished node `w`, whose cell holds `code`.
    #[inline]
    fn level_of(&self, w: u32, code: u64) -> u32 {
        if C::PACKED {
            C::level(code)
        } else {
            self.levels[w as usize].load(Ordering::Relaxed)
        }
    }

    /// True for a code that is a value.
    #[inline]
    fn is_value(&self, code: u64) -> bool {
        code < C::UNVISITED - u64::from(self.lanes)
    }

    /// Roots in parallel tasks of [`ROOTS_PER_TASK`] ids, each worker with its own scratch
    /// and its rayon index as its id.
    fn parallel<const LEVELS: bool>(&self) -> Result<(), Cyclic> {
        let n = self.graph.node_count();
        let workers = (self.lanes / self.per_worker) as usize;
        let tasks = (0..n.div_ceil(ROOTS_PER_TASK)).into_par_iter();
        let result = tasks.try_for_each_init(
            || Scratch::new(self.per_worker),
            |scratch, task| {
                let me = rayon::current_thread_index().unwrap_or(usize::MAX);
                if me >= workers {
                    // Not a worker of the pool the search was sized for: no id to claim with.
                    self.stop.store(true, Ordering::SeqCst);
                    return Err(Cyclic);
                }
                let start = task * ROOTS_PER_TASK;
                self.roots::<LEVELS>(me as u32, start..(start + ROOTS_PER_TASK).min(n), scratch)
            },
        );
        self.meter.set(self.done.load(Ordering::Relaxed));
        result
    }

    /// Searches from every unvisited node of `roots` as worker `worker`, its lanes taking
    /// turns: each runs until it pushes a node, whose lists then arrive from memory while the
    /// others run. Returns once every lane is empty.
    fn roots<const LEVELS: bool>(
        &self,
        worker: u32,
        roots: std::ops::Range<usize>,
        scratch: &mut Scratch<O>,
    ) -> Result<(), Cyclic> {
        let result = self.take_turns::<LEVELS>(worker, roots, scratch);
        if result.is_err() {
            self.stop.store(true, Ordering::SeqCst);
        }
        self.report(scratch);
        result
    }

    fn take_turns<const LEVELS: bool>(
        &self,
        worker: u32,
        mut roots: std::ops::Range<usize>,
        scratch: &mut Scratch<O>,
    ) -> Result<(), Cyclic> {
        let first = worker * self.per_worker;
        let mut idle = 0u32;
        loop {
            let (mut active, mut progress) = (false, false);
            for (l, lane) in scratch.lanes.iter_mut().enumerate() {
                let id = first + l as u32;
                if lane.stack.is_empty() && !self.next_root::<LEVELS>(id, &mut roots, lane) {
                    continue;
                }
                active = true;
                let step =
                    self.step::<LEVELS>(id, lane, &mut scratch.mex, &mut scratch.finished)?;
                progress |= !matches!(step, Step::Blocked);
            }
            if !active {
                return Ok(());
            }
            if progress {
                idle = 0;
                if scratch.finished >= TICK {
                    self.report(scratch);
                }
                continue;
            }
            // Every lane waits: for other workers, or (a cycle) for one another.
            if self.stop.load(Ordering::Relaxed) {
                return Err(Cyclic);
            }
            if (first..first + self.per_worker).any(|id| self.deadlocked(id)) {
                return Err(Cyclic);
            }
            idle += 1;
            if idle < SPINS {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Claims the next unvisited node of `roots` for lane `id` and pushes it; false when
    /// none is left.
    fn next_root<const LEVELS: bool>(
        &self,
        id: u32,
        roots: &mut std::ops::Range<usize>,
        lane: &mut Lane<O>,
    ) -> bool {
        for root in roots.by_ref() {
            let cell = &self.cells[root];
            if cell.load(Ordering::Relaxed) == C::UNVISITED && cell.claim(self.busy(id)) {
                self.push::<LEVELS>(root as u32, lane);
                return true;
            }
        }
        false
    }

    /// Adds `scratch`'s finished count to the total, and tells the meter.
    fn report(&self, scratch: &mut Scratch<O>) {
        if scratch.finished > 0 {
            let done = self.done.fetch_add(scratch.finished, Ordering::Relaxed) + scratch.finished;
            scratch.finished = 0;
            self.meter.set(done);
        }
    }

    /// Pushes `v`, claimed by this lane, and starts reading its bounds.
    ///
    /// A node's reads go in stages, each asking memory for what the next one needs and
    /// handing the worker to another lane meanwhile: its bounds (here), its list
    /// ([`BOUNDS`], the lane's next turn), its moves' cells ([`FRESH`], the turn after),
    /// then its moves one by one. A lane thus never waits for memory it asked for itself a
    /// moment before, and the worker's lanes keep that many misses on the way at once.
    ///
    /// Only the nodes pushed have their bounds read: a node of 10 moves is reached from about
    /// 10 lists and searched from one, so asking for every move's bounds with its cell (as
    /// this search first did) spent 9 of 10 of those misses on finished nodes, and the
    /// core's few fill buffers with them.
    #[inline]
    fn push<const LEVELS: bool>(&self, v: u32, lane: &mut Lane<O>) {
        prefetch(self.graph.offsets(), v as usize);
        lane.stack.push(Frame { mask: BOUNDS, node: v, edge: O::from(0) });
        if LEVELS {
            lane.heights.push(0);
        }
    }

    /// Asks memory for the cells (and levels) of the first moves of `v`.
    #[inline]
    fn ask_moves<const LEVELS: bool>(&self, v: u32) {
        for &w in self.graph.successors(v).iter().take(PREFETCH_MOVES) {
            prefetch(&self.cells, w as usize);
            if LEVELS && !C::PACKED {
                prefetch(&self.levels, w as usize);
            }
        }
    }

    /// Runs lane `id` until it pushes a node, empties its stack or waits for a move busy on
    /// another lane.
    fn step<const LEVELS: bool>(
        &self,
        id: u32,
        lane: &mut Lane<O>,
        mex: &mut Mex,
        finished: &mut u64,
    ) -> Result<Step, Cyclic> {
        let busy = self.busy(id);
        let (offsets, targets) = (self.graph.offsets(), self.graph.targets());
        // Values alone need no ordering: a cell holds the value itself. Levels are read
        // beside a value, after the cell that publishes them; numbers along read the cells of
        // the moves' moves, published to this lane through the moves' cells.
        let order = match (LEVELS && !C::PACKED) || A::ACTIVE {
            true => Ordering::Acquire,
            false => Ordering::Relaxed,
        };
        while let Some(&Frame { mut mask, node, mut edge }) = lane.stack.last() {
            if mask == BOUNDS {
                let start = offsets[node as usize];
                prefetch(targets, start.index());
                if let Some(top) = lane.stack.last_mut() {
                    top.mask = FRESH;
                    top.edge = start;
                }
                return Ok(Step::Pushed);
            }
            if mask & FRESH != 0 {
                self.ask_moves::<LEVELS>(node);
                if let Some(top) = lane.stack.last_mut() {
                    top.mask &= !FRESH;
                }
                return Ok(Step::Pushed);
            }
            // The frame's state lives in registers while its finished moves are scanned.
            let end = offsets[node as usize + 1];
            let mut height = if LEVELS { lane.heights.last().copied().unwrap_or(0) } else { 0 };
            while edge < end {
                let w = targets[edge.index()];
                edge += O::from(1);
                let cell = &self.cells[w as usize];
                let mut code = cell.load(order);
                if code == C::UNVISITED {
                    if cell.claim(busy) {
                        self.save::<LEVELS>(lane, Frame { mask, node, edge }, height);
                        self.push::<LEVELS>(w, lane);
                        return Ok(Step::Pushed);
                    }
                    code = cell.load(Ordering::Acquire);
                }
                if self.is_value(code) {
                    let value = C::value(code);
                    if value < MASK_VALUES {
                        mask |= 1 << value;
                    }
                    if LEVELS {
                        height = height.max(self.level_of(w, code) + 1);
                    }
                } else if code == busy {
                    // On this lane's own stack: a cycle.
                    return Err(Cyclic);
                } else {
                    mask |= LATE;
                }
            }
            let count = (end - offsets[node as usize]).index();
            let value = if mask & LATE == 0 && count < MASK_VALUES as usize {
                (!mask).trailing_zeros()
            } else {
                // Moves busy elsewhere are waited for; a wide node's mex is taken over every
                // value, as the Kahn path takes it.
                let Some(h) = self.settled::<LEVELS>(id, node) else {
                    self.save::<LEVELS>(lane, Frame { mask, node, edge }, height);
                    return Ok(Step::Blocked);
                };
                height = height.max(h);
                let value = |s: u32| C::value(self.cells[s as usize].load(Ordering::Relaxed));
                node_value(self.graph, node, &value, mex)
            };
            lane.stack.pop();
            if LEVELS {
                lane.heights.pop();
                if !C::PACKED {
                    self.levels[node as usize].store(height, Ordering::Relaxed);
                }
            }
            let number = match A::ACTIVE {
                true => self.number(node, value),
                false => Number::default(),
            };
            if A::WIDE {
                self.cells[node as usize].set_high(number.high);
            }
            // Past LEVEL_LIMIT the search gives up: the peel takes the graph.
            let code = C::code(value, height, number.low).ok_or(Cyclic)?;
            self.cells[node as usize].store(code, Ordering::Release);
            *finished += 1;
            if let Some(parent) = lane.stack.last_mut() {
                if value < MASK_VALUES {
                    parent.mask |= 1 << value;
                }
            }
            if let (true, Some(h)) = (LEVELS, lane.heights.last_mut()) {
                *h = (*h).max(height + 1);
            }
        }
        Ok(Step::Empty)
    }

    /// The number along of `node`, of value `value`, every move of which is finished: read
    /// from the cells, which the moves' finishing published (the loads acquire them, and a
    /// move's cell was published after the cells it read, so every node `node` reaches is
    /// finished and seen).
    #[inline]
    fn number(&self, node: u32, value: u32) -> Number {
        let cells = &self.cells;
        let number = |w: u32| {
            let cell = &cells[w as usize];
            let low = C::number(cell.load(Ordering::Acquire));
            Number { low, high: if A::WIDE { cell.high() } else { 0 } }
        };
        self.along.number(self.graph, node, value, number)
    }

    /// Writes the top frame back from registers.
    #[inline]
    fn save<const LEVELS: bool>(&self, lane: &mut Lane<O>, frame: Frame<O>, height: u32) {
        if let Some(top) = lane.stack.last_mut() {
            *top = frame;
        }
        if let (true, Some(h)) = (LEVELS, lane.heights.last_mut()) {
            *h = height;
        }
    }

    /// The largest level of a move of `v` plus one (0 without levels) once every move has
    /// its value; `None`, with the move waited for in lane `id`'s slot, while one has not.
    fn settled<const LEVELS: bool>(&self, id: u32, v: u32) -> Option<u32> {
        let mut height = 0;
        for &w in self.graph.successors(v) {
            let code = self.cells[w as usize].load(Ordering::Acquire);
            if !self.is_value(code) {
                self.waiting[id as usize].store(w, Ordering::SeqCst);
                return None;
            }
            if LEVELS {
                height = height.max(self.level_of(w, code) + 1);
            }
        }
        self.waiting[id as usize].store(NONE, Ordering::SeqCst);
        Some(height)
    }

    /// True when lane `id` waits for a node in a chain of waits that comes back to it: every
    /// lane on the chain waits for a node another holds, so none can finish (a cycle).
    ///
    /// The chain is read one slot after another, not at one moment, so a lane may have moved
    /// on between two reads. It is read again, whole: a node stays busy until it is done and
    /// never becomes busy again, and a lane waits for a node until that node is done, so a
    /// chain found twice was whole at the moment the second reading began.
    fn deadlocked(&self, id: u32) -> bool {
        if !self.wait_chain(id, &mut |_| {}) {
            return false;
        }
        let (mut first, mut second) = (Vec::new(), Vec::new());
        self.wait_chain(id, &mut |link| first.push(link))
            && self.wait_chain(id, &mut |link| second.push(link))
            && first == second
    }

    /// Follows who waits for whom from lane `id`, handing each (node, code) to `link`; true
    /// when it comes back to `id`.
    fn wait_chain(&self, id: u32, link: &mut impl FnMut((u32, u64))) -> bool {
        let mut node = self.waiting[id as usize].load(Ordering::SeqCst);
        for _ in 0..self.lanes {
            if node == NONE {
                return false;
            }
            let code = self.cells[node as usize].load(Ordering::SeqCst);
            if self.is_value(code) || code == C::UNVISITED {
                return false;
            }
            link((node, code));
            let owner = (C::UNVISITED - 1 - code) as u32;
            if owner == id {
                return true;
            }
            node = self.waiting[owner as usize].load(Ordering::SeqCst);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Xorshift;

    /// Values and levels the plain way: each node after its moves, in a rank order known
    /// from how the graph was made.
    fn oracle(lists: &[Vec<u32>], by_rank: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let n = lists.len();
        let (mut values, mut levels) = (vec![0u32; n], vec![0u32; n]);
        for &v in by_rank {
            let moves = &lists[v as usize];
            values[v as usize] =
                (0..).find(|x| !moves.iter().any(|&w| values[w as usize] == *x)).unwrap();
            levels[v as usize] = moves.iter().map(|&w| levels[w as usize] + 1).max().unwrap_or(0);
        }
        (values, levels)
    }

    /// A random DAG behind shuffled ids: node of rank `r` moves to ranks below it, near or
    /// far, `most` moves at most (some nodes exactly `most`, to the `most` ranks just below,
    /// so values reach it); with the ids by rank, sinks first.
    fn dag(rng: &mut Xorshift, n: usize, most: u32) -> (Vec<Vec<u32>>, Vec<u32>) {
        let mut id: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            id.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut lists = vec![Vec::new(); n];
        for r in 0..n {
            let full = rng.below(4) == 0 && r >= most as usize;
            let degree = if full { most } else { rng.below(u64::from(most) + 1) as u32 };
            let near = rng.below(2) == 0;
            lists[id[r] as usize] = (0..degree.min(r as u32))
                .map(|k| {
                    let below = if full {
                        k as usize + 1
                    } else if near {
                        1 + rng.below(4.min(r as u64)) as usize
                    } else {
                        1 + rng.below(r as u64) as usize
                    };
                    id[r - below]
                })
                .collect();
        }
        (lists, id)
    }

    /// Pools of 8 lanes a worker, and of fewer on many workers (5 lanes at 12, 2 at 40).
    fn pools() -> Vec<rayon::ThreadPool> {
        [2, 3, 5, 12, 40]
            .iter()
            .map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build().unwrap())
            .collect()
    }

    /// On one worker and on pools of several, with and without levels, the search gives the
    /// oracle's values and levels: byte cells, packed ones (values and levels), and 4-byte
    /// ones once a node has 250 moves.
    #[test]
    fn the_search_gives_the_plain_values_and_levels() {
        let mut rng = Xorshift::new(0x9e37_79b9_7f4a_7c15);
        let pools = pools();
        for round in 0..60 {
            let n = 1 + rng.below(if round % 5 == 0 { 20_000 } else { 400 }) as usize;
            let most = match round % 6 {
                0 => 300,
                1 => 70,
                _ => 1 + rng.below(12) as u32,
            };
            let (lists, by_rank) = dag(&mut rng, n, most);
            let (values, levels) = oracle(&lists, &by_rank);
            let g = Csr::from_lists(&lists).unwrap();
            for with_levels in [false, true] {
                let check = |found: Searched, how: &str| {
                    assert_eq!(found.values.to_u32().as_ref(), &values[..], "round {round} {how}");
                    let want = with_levels.then(|| levels.clone());
                    assert_eq!(found.levels, want, "round {round} {how}");
                };
                check(search(&g, with_levels, false, &()).unwrap(), "one worker");
                for pool in &pools {
                    let found = pool.install(|| search(&g, with_levels, true, &()));
                    let found = found.unwrap_or_else(|_| {
                        panic!(
                            "round {round} n {n} most {most} levels {with_levels} threads {}",
                            pool.current_num_threads()
                        )
                    });
                    check(found, &format!("{} threads", pool.current_num_threads()));
                }
            }
        }
    }

    /// A graph of no node has no value and no level, but its levels were asked for.
    #[test]
    fn an_empty_graph_has_empty_levels() {
        let g = Csr::from_lists::<Vec<u32>>(&[]).unwrap();
        for parallel in [false, true] {
            let found = search(&g, true, parallel, &()).unwrap();
            assert_eq!((found.values.len(), found.levels), (0, Some(Vec::new())));
        }
    }

    /// A chain, one node a level, where every lane and worker meets the others' stacks.
    #[test]
    fn a_chain_is_searched_on_every_worker() {
        let n = 50_000u32;
        let lists: Vec<Vec<u32>> =
            (0..n).map(|v| if v == 0 { vec![] } else { vec![v - 1] }).collect();
        let g = Csr::from_lists(&lists).unwrap();
        let want: Vec<u32> = (0..n).map(|v| v % 2).collect();
        for pool in pools() {
            let found = pool.install(|| search(&g, true, true, &())).unwrap();
            assert_eq!(found.values.to_u32().as_ref(), &want[..]);
            assert_eq!(found.levels.unwrap(), (0..n).collect::<Vec<_>>());
        }
    }

    /// Any cycle (a self-loop, a long one, one reachable only from far away) stops the
    /// search, on one worker and on several.
    #[test]
    fn a_cycle_stops_the_search() {
        let mut rng = Xorshift::new(0x2545_f491_4f6c_dd1d);
        let pools = pools();
        for round in 0..40 {
            let n = 2 + rng.below(if round % 4 == 0 { 5_000 } else { 300 }) as usize;
            let most = 1 + rng.below(6) as u32;
            let (mut lists, _) = dag(&mut rng, n, most);
            // A move from a node to one that reaches it: a path back, or the node itself.
            let (a, b) = (rng.below(n as u64) as u32, rng.below(n as u64) as u32);
            let mut reach = vec![false; n];
            let mut todo = vec![b];
            while let Some(v) = todo.pop() {
                if !std::mem::replace(&mut reach[v as usize], true) {
                    todo.extend(&lists[v as usize]);
                }
            }
            let (from, to) = if reach[a as usize] { (a, b) } else { (b, b) };
            lists[from as usize].push(to);
            let g = Csr::from_lists(&lists).unwrap();
            assert_eq!(search(&g, false, false, &()).unwrap_err(), Cyclic, "round {round}");
            for pool in &pools {
                let found = pool.install(|| search(&g, round % 2 == 0, true, &()));
                assert_eq!(found.unwrap_err(), Cyclic, "round {round}");
            }
        }
    }
}
