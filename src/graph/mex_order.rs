//! Out-lists in *mex order*: a node of value `g` lists first its first move (in input order) to
//! value 0, then its first to value 1, and so on up to `g - 1`, then its other moves in input
//! order. An index keeps its lists so ([`crate::index`]), and a winning move is then one read:
//! the move of a token of value `g` to value `w < g` is the `w`-th of its list, where a search
//! in input order reads the values of every move before it.
//!
//! **Why nothing else changes.** The first move (in list order) to a given value `v` is the
//! same in both orders. For `v < g` it is the `v`-th in mex order (the moves before it reach
//! the other values below `g`, each once), which was put there as the first to `v` in input
//! order. For any other `v` (and for a node with no finite value, whose list is not
//! reordered), the moves of mex order's head all reach values below `g`, not `v`, and the rest
//! keeps input order. So every search for the first move to a value (normal play, a loopy
//! game's moves) gives the same move on either list; the other plays' searches, whose tests
//! are not a value, take moves in mex order on every path ([`moves_in_mex_order`]), so an
//! index and a text file answer them alike.

use std::mem::take;

use rayon::prelude::*;

use super::{Csr, Offset};

/// Reusable buffers for putting lists in mex order (a few words per move of the longest list).
#[derive(Debug, Default)]
pub struct Scratch {
    /// For each value below the node's, the position of its first move to it.
    first: Vec<u32>,
    /// Those positions, as a bit mask over the list (a bit a move).
    taken: Vec<u64>,
    /// The values of the moves, gathered first: loads without a branch between them, so
    /// that their misses overlap.
    values: Vec<u32>,
    /// The list in mex order, as it is built.
    out: Vec<u32>,
    /// A list put in mex order ([`moves_in_mex_order`]).
    list: Vec<u32>,
}

/// Puts `list` (the moves of a node of value `g`, their values `values`) in mex order, in
/// place; `false`, leaving it as it was, when a value below `g` is missing from it (never for
/// a solved node; a loopy game's `inf` is no value below `g`). Without a branch that depends
/// on a value (such branches, mispredicted, were most of its time): the first moves'
/// positions are found by a pass from the end, the others chosen by a bit mask.
fn order(list: &mut [u32], values: &[u32], g: u32, scratch: &mut Scratch) -> bool {
    let (g, len) = (g as usize, list.len());
    if g > len {
        return false;
    }
    // Already so (the first `t` of them reach 0 to `t - 1`, so none is a first to `t`).
    if values[..g].iter().enumerate().all(|(t, &v)| v as usize == t) {
        return true;
    }
    if g == 1 {
        // The commonest case: the first move to 0 goes to the front.
        let Some(i) = values.iter().position(|&v| v == 0) else { return false };
        list[..=i].rotate_right(1);
        return true;
    }
    let Scratch { first, taken, out, .. } = scratch;
    first.clear();
    // One slot more, for the moves to a value of `g` or more.
    first.resize(g + 1, u32::MAX);
    for (i, &v) in values.iter().enumerate().rev() {
        first[(v as usize).min(g)] = i as u32;
    }
    let head = &first[..g];
    if head.contains(&u32::MAX) {
        return false;
    }
    // A list of at most 64 moves keeps its mask in a register (half of this function's
    // time, measured, against a mask in memory).
    if len <= 64 {
        let mask = head.iter().fold(0u64, |mask, &i| mask | 1 << i);
        write_in_order(list, head, out, |i| mask >> i & 1 != 0);
    } else {
        taken.clear();
        taken.resize(len.div_ceil(64), 0);
        for &i in head {
            taken[i as usize / 64] |= 1 << (i % 64);
        }
        write_in_order(list, head, out, |i| taken[i / 64] >> (i % 64) & 1 != 0);
    }
    true
}

/// Writes `list` in mex order through `out`: the moves at the positions `head`, then every
/// move whose position `taken` does not name, in order. Each move is written at `k`, which
/// moves on past the ones not taken (no branch on the mask); one slot more takes the writes
/// after the last.
fn write_in_order(
    list: &mut [u32],
    head: &[u32],
    out: &mut Vec<u32>,
    taken: impl Fn(usize) -> bool,
) {
    let len = list.len();
    out.clear();
    out.extend(head.iter().map(|&i| list[i as usize]));
    out.resize(len + 1, 0);
    let mut k = head.len();
    for (i, &s) in list.iter().enumerate() {
        out[k] = s;
        k += usize::from(!taken(i));
    }
    list.copy_from_slice(&out[..len]);
}

/// Nodes a thread reorders at a time when [`in_mex_order`] splits the work.
const SPAN: usize = 1 << 14;

/// `graph` with every list of a node of finite value in mex order (`value` gives each node's;
/// [`crate::eval::Values::INFINITE`] nodes are left as they are), marked so
/// ([`Csr::is_in_mex_order`]). In place, on every thread: no memory beyond a scratch per
/// thread. Values that are not the game's solution may leave a list that cannot be ordered
/// (a value below its node's missing from it) as it is: the mark is then a claim that fails
/// there, as a forged index's, and [`first_move_below`] still finds a move of the value.
pub fn in_mex_order<O: Offset>(graph: Csr<O>, value: &(impl Fn(u32) -> u32 + Sync)) -> Csr<O> {
    let (offsets, mut targets) = graph.into_parts();
    let n = offsets.len() - 1;
    // Disjoint runs of whole lists, one piece of `targets` each.
    let mut pieces = Vec::with_capacity(n.div_ceil(SPAN));
    let mut rest: &mut [u32] = &mut targets;
    for start in (0..n).step_by(SPAN) {
        let end = (start + SPAN).min(n);
        let len = (offsets[end] - offsets[start]).index();
        let (piece, tail) = rest.split_at_mut(len);
        pieces.push((start, end, piece));
        rest = tail;
    }
    pieces.into_par_iter().for_each_init(Scratch::default, |scratch, (start, end, piece)| {
        let base = offsets[start].index();
        let mut values = take(&mut scratch.values);
        for v in start..end {
            let g = value(v as u32);
            // A node of value 0 keeps its list: its moves' values are not read.
            if g > 0 {
                let list = &mut piece[offsets[v].index() - base..offsets[v + 1].index() - base];
                values.clear();
                values.extend(list.iter().map(|&s| value(s)));
                order(list, &values, g, scratch);
            }
        }
        scratch.values = values;
    });
    Csr::from_checked_parts(offsets, targets).marked_in_mex_order()
}

/// The moves of `v` in mex order: its list itself when the graph keeps them so, else ordered
/// into `scratch` (a node whose list cannot be ordered, such as an `inf` one of a loopy game,
/// gives its list as it is).
pub fn moves_in_mex_order<'a, O: Offset>(
    graph: &'a Csr<O>,
    v: u32,
    value: impl Fn(u32) -> u32,
    scratch: &'a mut Scratch,
) -> &'a [u32] {
    let list = graph.successors(v);
    let g = value(v);
    if graph.is_in_mex_order() || g == 0 {
        return list;
    }
    let (mut values, mut ordered) = (take(&mut scratch.values), take(&mut scratch.list));
    values.clear();
    values.extend(list.iter().map(|&s| value(s)));
    ordered.clear();
    ordered.extend_from_slice(list);
    order(&mut ordered, &values, g, scratch);
    (scratch.values, scratch.list) = (values, ordered);
    &scratch.list
}

/// The first move of `v` to value `want`, for a node whose value is above `want`: the
/// `want`-th of its list when the graph keeps its lists in mex order and that move reaches
/// `want` (a forged index's claim is checked, not trusted), else the first found in order.
/// As a position in `v`'s list.
#[inline]
pub fn first_move_below(
    graph: &Csr<impl Offset>,
    v: u32,
    want: u32,
    value: impl Fn(u32) -> u32,
) -> Option<usize> {
    let list = graph.successors(v);
    if graph.is_in_mex_order() && list.get(want as usize).is_some_and(|&s| value(s) == want) {
        return Some(want as usize);
    }
    list.iter().position(|&s| value(s) == want)
}

/// Where the list of `v` is read by [`first_move_below`] for `want`: its `want`-th move in mex
/// order, else all of it.
#[inline]
pub fn search_span<O: Offset>(graph: &Csr<O>, v: u32, want: u32) -> &[u32] {
    let list = graph.successors(v);
    match graph.is_in_mex_order() {
        true => list.get(want as usize..=want as usize).unwrap_or(list),
        false => list,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Xorshift as Rng;

    /// Mex order as its definition says it, by brute force: for each value below `g` the
    /// first move to it, then the moves not taken, in input order.
    fn by_definition(list: &[u32], g: u32, value: &[u32]) -> Option<Vec<u32>> {
        let mut taken = vec![false; list.len()];
        let mut head = Vec::new();
        for want in 0..g {
            let i = list.iter().position(|&s| value[s as usize] == want)?;
            taken[i] = true;
            head.push(list[i]);
        }
        head.extend(list.iter().zip(&taken).filter(|(_, &t)| !t).map(|(&s, _)| s));
        Some(head)
    }

    fn random_graph(rng: &mut Rng, n: u32) -> (Csr, Vec<u32>) {
        // Short lists, and now and then one longer than a mask's 64 bits.
        let length = |rng: &mut Rng| match rng.below(10) {
            0 => 60 + rng.below(20),
            _ => rng.below(9),
        };
        let lists: Vec<Vec<u32>> = (0..n)
            .map(|_| (0..length(rng)).map(|_| rng.below(n as u64) as u32).collect())
            .collect();
        // Values need not be solved ones here: any numbers (some with values missing below),
        // and a loopy game's infinite one.
        let number = |x: u64| if x == 6 { u32::MAX } else { x as u32 };
        let values: Vec<u32> = (0..n).map(|_| number(rng.below(7))).collect();
        (Csr::from_lists(&lists).expect("lists"), values)
    }

    #[test]
    fn lists_are_put_in_mex_order_as_defined_and_unorderable_ones_are_kept() {
        let mut rng = Rng::new(11);
        for round in 0..300 {
            let n = 1 + rng.below(40) as u32;
            let (graph, values) = random_graph(&mut rng, n);
            let value = |v: u32| values[v as usize];
            let ordered = in_mex_order(graph.clone(), &value);
            assert!(ordered.is_in_mex_order() && !graph.is_in_mex_order());
            for v in 0..n {
                let list = graph.successors(v);
                let want = by_definition(list, value(v), &values).unwrap_or(list.to_vec());
                assert_eq!(ordered.successors(v), want, "round {round} node {v}");
                let mut scratch = Scratch::default();
                assert_eq!(moves_in_mex_order(&graph, v, value, &mut scratch), want);
                // Ordered twice, the same.
                assert_eq!(moves_in_mex_order(&ordered, v, value, &mut scratch), want);
            }
        }
    }

    #[test]
    fn the_first_move_to_any_value_is_the_same_in_either_order() {
        let mut rng = Rng::new(12);
        for _ in 0..300 {
            let n = 1 + rng.below(40) as u32;
            let (graph, values) = random_graph(&mut rng, n);
            let value = |v: u32| values[v as usize];
            let ordered = in_mex_order(graph.clone(), &value);
            for v in 0..n {
                for want in 0..6 {
                    let first =
                        |g: &Csr| g.successors(v).iter().copied().find(|&s| value(s) == want);
                    assert_eq!(first(&graph), first(&ordered), "node {v} value {want}");
                    if want < value(v) {
                        let at = |g: &Csr| {
                            first_move_below(g, v, want, value).map(|i| g.successors(v)[i])
                        };
                        assert_eq!(at(&graph), first(&graph), "node {v} value {want}");
                        // A list these values cannot order is kept, under the graph's mark:
                        // what is read there is still a move to the value asked for.
                        let orderable = by_definition(graph.successors(v), value(v), &values);
                        match orderable {
                            Some(_) => assert_eq!(at(&ordered), first(&graph), "node {v}"),
                            None => assert_eq!(at(&ordered).map(value), first(&graph).map(value)),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_false_claim_of_mex_order_still_finds_a_move_of_the_value() {
        // Node 0 (value 2) lists a move to value 1 first: not mex order, though marked so.
        let graph = Csr::from_lists(&[vec![2, 1], vec![], vec![1]]).expect("lists");
        let values = [2, 0, 1];
        let value = |v: u32| values[v as usize];
        let claimed = graph.marked_in_mex_order();
        assert_eq!(first_move_below(&claimed, 0, 0, value), Some(1));
        assert_eq!(first_move_below(&claimed, 0, 1, value), Some(0));
    }
}
