//! Sprague-Grundy evaluation: each node's value is the mex of its moves' values, a move's
//! value being its position's value, or the XOR of its parts' values when it leads to a sum.
//!
//! Nodes are evaluated in Kahn order (sinks first), so every out-position is done before the
//! node that moves to it; no recursion, whatever the depth. The mex of `d` values is at most
//! `d`, so a scratch of `d + 1` slots suffices and values above `d` are ignored.

use rayon::prelude::*;

use crate::graph::Rule;
use crate::meter::{Meter, Ticker};
use crate::order::{Level, Levels, Nodes, INLINE_LEVEL};

pub mod case;
pub mod loopy;
pub mod search;
pub mod values;

pub use case::{Evaluated, Labelled, StageTimes};
pub use loopy::{infinite_set, loopy, loopy_rest};
pub use search::{search, Cyclic, Searched};
pub use values::{NimTable, Values};

/// Reusable scratch for mex computations: no allocation per node once it has grown to the
/// largest out-degree.
#[derive(Debug, Default, Clone)]
pub struct Mex {
    /// `seen[x] == stamp` marks value `x` as present in the current call.
    seen: Vec<u32>,
    stamp: u32,
}

impl Mex {
    /// An empty scratch.
    pub fn new() -> Mex {
        Mex::default()
    }

    /// Starts a new call with at least `len` slots.
    fn next_stamp(&mut self, len: usize) {
        if self.seen.len() < len {
            self.seen.resize(len, self.stamp);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // After 2^32 calls old marks could collide with the new stamp: start afresh.
            self.seen.fill(0);
            self.stamp = 1;
        }
    }
}

/// The value of `v`: the mex of its moves' values.
#[inline]
pub fn node_value<R: Rule>(rule: &R, v: u32, value: &impl Fn(u32) -> u32, mex: &mut Mex) -> u32 {
    let count = rule.move_count(v);
    // Small sets, the common case, fit a 64-bit mask: no scratch memory touched at all.
    if count < 64 {
        let mut mask = 0u64;
        rule.move_values(v, 0..count, value, |x| {
            if x < 64 {
                mask |= 1 << x;
            }
        });
        return (!mask).trailing_zeros();
    }
    mex.next_stamp(count + 1);
    let (seen, stamp) = (&mut mex.seen, mex.stamp);
    rule.move_values(v, 0..count, value, |x| {
        if let Some(slot) = seen.get_mut(x as usize) {
            *slot = stamp;
        }
    });
    seen[..=count].iter().position(|&s| s != stamp).unwrap_or(count) as u32
}

/// Nodes with at least this many moves compute their mex in parallel chunks when they sit in
/// a level too thin to split (a game where every position is its own level).
pub const PARALLEL_MOVES: usize = 1 << 14;

/// Values below this are marked by each chunk of a parallel mex (a byte array on the stack);
/// a node whose moves cover all of them falls back to the sequential mex.
const PARALLEL_MEX_LIMIT: usize = 4096;

/// [`node_value`] with the moves split into parallel chunks, each marking the values it sees
/// in a bitset of its own, merged by OR.
pub fn node_value_parallel<R: Rule>(
    rule: &R,
    v: u32,
    value: &(impl Fn(u32) -> u32 + Sync),
    mex: &mut Mex,
) -> u32 {
    let count = rule.move_count(v);
    if count < PARALLEL_MOVES {
        return node_value(rule, v, value, mex);
    }
    // One chunk per thread: the moves of a big node are cheap (a few loads and an XOR), so a
    // finer split would spend more on scheduling than it balances. Each chunk marks values in
    // a byte array: independent stores, where bits in shared words would chain every move.
    let chunk = count.div_ceil(rayon::current_num_threads()).max(1);
    let seen = (0..count.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut seen = [false; PARALLEL_MEX_LIMIT];
            let moves = c * chunk..((c + 1) * chunk).min(count);
            rule.move_values(v, moves, value, |x| {
                if let Some(slot) = seen.get_mut(x as usize) {
                    *slot = true;
                }
            });
            seen
        })
        .reduce(
            || [false; PARALLEL_MEX_LIMIT],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    match seen.iter().position(|&s| !s) {
        Some(x) => x as u32,
        // Every value below the limit is a move's: rare enough to redo without limit.
        None => node_value(rule, v, value, mex),
    }
}

/// The Grundy value of every node, indexed by node id, evaluated in `levels` order; the
/// count of nodes evaluated goes to `meter`.
pub fn grundy<R: Rule>(rule: &R, levels: &Levels, meter: &dyn Meter) -> Values {
    let mut values = vec![0u32; rule.node_count()];
    let mut mex = Mex::new();
    let mut ticker = Ticker::new(meter);
    run::<R, false>(rule, levels.nodes(), &mut values, &mut mex, &mut ticker, &mut 0);
    Values::from_vec(values)
}

/// Evaluates `nodes` in order on this thread (with [`node_value_parallel`] when `SPLIT`, else
/// [`node_value`]), storing each value before the next node reads it; listed nodes are announced to
/// the rule ahead ([`Rule::look_ahead`]). `done` counts the nodes evaluated, for `ticker`.
fn run<R: Rule, const SPLIT: bool>(
    rule: &R,
    nodes: Nodes<'_>,
    values: &mut [u32],
    mex: &mut Mex,
    ticker: &mut Ticker<'_>,
    done: &mut u64,
) {
    let mut one = |v: u32, values: &mut [u32]| {
        let value = |s: u32| values[s as usize];
        let x = if SPLIT {
            node_value_parallel(rule, v, &value, mex)
        } else {
            node_value(rule, v, &value, mex)
        };
        values[v as usize] = x;
        *done += 1;
        ticker.at(*done);
    };
    match nodes {
        Nodes::Listed(list) => {
            let list = list.as_slice();
            for (i, &v) in list.iter().enumerate() {
                rule.look_ahead(&list[i + 1..], values);
                one(v, values);
            }
        }
        Nodes::Span(ids) => ids.for_each(|v| one(v, values)),
    }
}

/// The parallel twin of [`grundy`]: levels of at least [`INLINE_LEVEL`] nodes are evaluated
/// in parallel, each worker with its own mex scratch; thinner ones inline, where a node with
/// [`PARALLEL_MOVES`] moves or more splits its own moves across the workers.
///
/// Values live in a plain vector that the workers only read: a wide level's values are
/// collected first and stored after, so no atomics get in the way of the compiler (a game's
/// tight move loop vectorizes on plain loads, not on atomic ones).
pub fn grundy_parallel<R: Rule>(rule: &R, levels: &Levels, meter: &dyn Meter) -> Values {
    let mut values = vec![0u32; rule.node_count()];
    let (mut mex, mut level_values) = (Mex::new(), Vec::new());
    let mut ticker = Ticker::new(meter);
    let mut done = 0;
    let count = levels.level_count();
    let mut l = 0;
    while l < count {
        ticker.at(done);
        // A run of thin levels is one inline pass, in order: a million one-node levels (a
        // chain) cost what the sequential twin's loop costs, not a dispatch each.
        let thin = (l..count).find(|&k| levels.level(k).len() >= INLINE_LEVEL).unwrap_or(count);
        if thin > l {
            let nodes = levels.nodes_of(l..thin);
            run::<R, true>(rule, nodes, &mut values, &mut mex, &mut ticker, &mut done);
            l = thin;
            continue;
        }
        done += match levels.level(l) {
            Level::Listed(nodes) => level_listed(rule, &mut values, nodes, &mut level_values),
            Level::Span { start, end } => {
                let par = || (start..end).into_par_iter();
                level_parallel(rule, &mut values, start..end, par, &mut level_values)
            }
        };
        l += 1;
    }
    Values::from_vec(values)
}

/// Evaluates one wide listed level in chunks, each on one worker with its own mex scratch,
/// in order and announcing the chunk's next nodes to the rule ([`Rule::look_ahead`]); its
/// values gather in `level_values` before they are stored. Returns its node count.
fn level_listed<R: Rule>(
    rule: &R,
    values: &mut [u32],
    nodes: &[u32],
    level_values: &mut Vec<u32>,
) -> u64 {
    // A few chunks per thread balance the load; each chunk's first nodes start cold.
    let chunk = (nodes.len() / (4 * rayon::current_num_threads())).clamp(INLINE_LEVEL / 8, 4096);
    level_values.clear();
    level_values.resize(nodes.len(), 0);
    let read: &[u32] = values;
    nodes.par_chunks(chunk).zip(level_values.par_chunks_mut(chunk)).for_each_init(
        Mex::new,
        |mex, (chunk, out)| {
            for (i, (&v, slot)) in chunk.iter().zip(out).enumerate() {
                rule.look_ahead(&chunk[i + 1..], read);
                *slot = node_value(rule, v, &|s| read[s as usize], mex);
            }
        },
    );
    for (&v, &x) in nodes.iter().zip(level_values.iter()) {
        values[v as usize] = x;
    }
    nodes.len() as u64
}

/// Evaluates one wide level, given as `nodes` and `par`, its parallel twin, each worker with
/// its own mex scratch; its values gather in `level_values` before they are stored. Returns
/// its node count.
fn level_parallel<R, I, P>(
    rule: &R,
    values: &mut [u32],
    nodes: I,
    par: impl Fn() -> P,
    level_values: &mut Vec<u32>,
) -> u64
where
    R: Rule,
    I: ExactSizeIterator<Item = u32> + Clone,
    P: IndexedParallelIterator<Item = u32>,
{
    let len = nodes.len();
    let value = |s: u32| values[s as usize];
    par()
        .with_min_len(INLINE_LEVEL / 8)
        .map_init(Mex::new, |mex, v| node_value(rule, v, &value, mex))
        .collect_into_vec(level_values);
    for (v, &x) in nodes.zip(level_values.iter()) {
        values[v as usize] = x;
    }
    len as u64
}

#[cfg(test)]
mod tests {
    use std::ops::Range;

    use super::*;
    use crate::graph::Csr;
    use crate::order::levels;

    /// One position whose moves have the given values.
    struct Moves<'a>(&'a [u32]);

    impl Rule for Moves<'_> {
        fn node_count(&self) -> usize {
            1
        }
        fn move_count(&self, _: u32) -> usize {
            self.0.len()
        }
        fn move_values(
            &self,
            _: u32,
            moves: Range<usize>,
            _: &impl Fn(u32) -> u32,
            f: impl FnMut(u32),
        ) {
            self.0[moves].iter().copied().for_each(f);
        }
    }

    /// The mex of `values`, through [`node_value`], the evaluator's one mex.
    fn mex_of(mex: &mut Mex, values: &[u32]) -> u32 {
        node_value(&Moves(values), 0, &|_| 0, mex)
    }

    fn naive_mex(values: &[u32]) -> u32 {
        (0..).find(|x| !values.contains(x)).unwrap()
    }

    #[test]
    fn mex_agrees_with_a_linear_search_small_and_large() {
        let mut mex = Mex::new();
        let mut rng = crate::testing::Xorshift::new(0x9e37_79b9_7f4a_7c15);
        for round in 0..3000 {
            let len = if round % 3 == 0 { round % 300 } else { round % 70 };
            let values: Vec<u32> = (0..len).map(|_| rng.below(len as u64 + 3) as u32).collect();
            assert_eq!(mex_of(&mut mex, &values), naive_mex(&values));
        }
    }

    #[test]
    fn mex_of_full_ranges() {
        let mut mex = Mex::new();
        for n in [0u32, 1, 63, 64, 65, 1000] {
            assert_eq!(mex_of(&mut mex, &(0..n).collect::<Vec<_>>()), n);
            assert_eq!(mex_of(&mut mex, &(0..n).rev().collect::<Vec<_>>()), n);
        }
    }

    /// One position with many moves whose values follow `f`; every other position is 0.
    struct Fan {
        moves: usize,
        f: fn(usize) -> u32,
    }

    impl Rule for Fan {
        fn node_count(&self) -> usize {
            1
        }
        fn move_count(&self, _: u32) -> usize {
            self.moves
        }
        fn move_values(
            &self,
            _: u32,
            moves: Range<usize>,
            _: &impl Fn(u32) -> u32,
            mut f: impl FnMut(u32),
        ) {
            moves.for_each(|k| f((self.f)(k)));
        }
    }

    #[test]
    fn parallel_mex_inside_a_node_agrees_with_the_sequential_one() {
        let fans = [
            Fan {
                moves: PARALLEL_MOVES * 3,
                f: |k| (k % 1000) as u32 + u32::from(k % 1000 >= 517),
            },
            Fan { moves: PARALLEL_MOVES * 3, f: |k| (k % 7) as u32 },
            // Every value below the parallel limit is present: the fallback must find 5000.
            Fan { moves: PARALLEL_MOVES * 3, f: |k| (k % 5000) as u32 },
            Fan { moves: PARALLEL_MOVES + 1, f: |k| (PARALLEL_MOVES - k) as u32 },
            Fan { moves: PARALLEL_MOVES * 2, f: |_| 0 },
        ];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        for fan in fans {
            let mut mex = Mex::new();
            let expected = node_value(&fan, 0, &|_| 0, &mut mex);
            let got = pool.install(|| node_value_parallel(&fan, 0, &|_| 0, &mut mex));
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn tournament_values_count_down() {
        let n = 100u32;
        let lists: Vec<Vec<u32>> = (0..n).map(|i| (i + 1..n).collect()).collect();
        let g = Csr::from_lists(&lists).unwrap();
        let values = grundy(&g, &levels(&g, &()).unwrap(), &());
        assert_eq!(&values.to_u32()[..], (0..n).rev().collect::<Vec<_>>());
        assert_eq!(grundy_parallel(&g, &levels(&g, &()).unwrap(), &()), values);
    }
}
