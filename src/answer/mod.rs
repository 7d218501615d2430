//! Answering queries: a query's tokens sit on positions whose values XOR to the nim-sum; the
//! first player wins exactly when it is non-zero ([`Outcome`]), by the move [`winning_move`]
//! finds.
//!
//! Both code paths answer through the same closure, so the sequential and parallel outputs
//! cannot drift apart; the parallel path cuts a batch into pieces, answers each into its own
//! buffers, and joins the buffers in input order.

use rayon::prelude::*;

use crate::eval::Values;
use crate::graph::mex_order::first_move_below;
use crate::graph::{Csr, GameGraph, Offset};
use crate::io::memory::append_parallel;

/// Pieces per thread a batch is cut into.
const PIECES_PER_THREAD: usize = 4;

/// Who wins a game of tokens, the player to move playing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The player to move wins.
    Win,
    /// The player to move loses.
    Lose,
    /// Neither can force a win: play goes on for ever (loopy games; never an acyclic one's).
    Draw,
}

impl Outcome {
    /// The outcome of tokens of nim-sum `nim_sum` in an acyclic game: a win exactly when it is
    /// not 0 (Sprague-Grundy).
    #[inline]
    pub fn of_nim_sum(nim_sum: u32) -> Outcome {
        if nim_sum != 0 {
            Outcome::Win
        } else {
            Outcome::Lose
        }
    }

    /// The outcome of tokens on `positions` under `values`.
    #[inline]
    pub fn of(values: &Values, positions: &[u32]) -> Outcome {
        Outcome::of_nim_sum(values.nim_sum(positions))
    }

    /// The word the judges print: `WIN`, `LOSE` or `DRAW`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Win => "WIN",
            Outcome::Lose => "LOSE",
            Outcome::Draw => "DRAW",
        }
    }

    /// The judge's line: the word and a newline.
    #[inline]
    pub fn line(self) -> &'static [u8] {
        match self {
            Outcome::Win => b"WIN\n",
            Outcome::Lose => b"LOSE\n",
            Outcome::Draw => b"DRAW\n",
        }
    }
}

/// A winning move for tokens on `positions` of non-zero `nim_sum` in `graph`: the first token
/// (in query order) whose value `g` has `g ^ nim_sum < g`, and its first move of value
/// `g ^ nim_sum`, given as the move's parts (one position in the chess format). `None` for a
/// losing position. From lists in mex order (an index's) that move is read, not searched for
/// ([`crate::graph::mex_order`]): the same move.
///
/// Such a token exists (the highest bit of the nim-sum is set in some token's value) and so
/// does the move (a value is the mex of its moves' values, so every smaller value is one).
pub fn winning_move<'g>(
    graph: &'g GameGraph,
    values: &Values,
    positions: &[u32],
    nim_sum: u32,
) -> Option<(u32, &'g [u32])> {
    let value = |p: u32| values.get(p);
    let (k, want) = mover(positions.iter().map(|&p| value(p)), nim_sum)?;
    let p = positions[k];
    // A move to no node (a damaged index read with --trust) is no move: `u32::MAX` is never
    // `want`, which is below a value.
    let to = |s: u32| values.try_get(s).unwrap_or(u32::MAX);
    let chess = |successors: &'g [u32], at: Option<usize>| Some((p, &successors[at?..=at?]));
    match graph {
        GameGraph::Chess(g) => chess(g.successors(p), first_move_below(g, p, want, to)),
        GameGraph::ChessWide(g) => chess(g.successors(p), first_move_below(g, p, want, to)),
        GameGraph::Sums(g) => g
            .moves(p)
            .map(|m| g.parts(m))
            .find(|parts| {
                parts.iter().try_fold(0, |acc, &q| Some(acc ^ values.try_get(q)?)) == Some(want)
            })
            .map(|parts| (p, parts)),
    }
}

/// The token a winning move moves, among tokens of `values` (in query order) whose nim-sum is
/// `nim_sum`: the first whose value `g` can drop to `g ^ nim_sum` (`g ^ nim_sum < g`), with
/// that value; `None` for a losing position. The one rule of which token moves, for one
/// process and a cluster alike.
#[inline]
pub fn mover(values: impl IntoIterator<Item = u32>, nim_sum: u32) -> Option<(usize, u32)> {
    if nim_sum == 0 {
        return None;
    }
    values.into_iter().enumerate().find_map(|(k, g)| (g ^ nim_sum < g).then_some((k, g ^ nim_sum)))
}

/// What a query of a loopy game comes to: its outcome, the nim-sum of its finite tokens, and
/// for a WIN a move `(from, to)` after which the tokens are a LOSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopyAnswer {
    /// Who wins.
    pub outcome: Outcome,
    /// XOR of the finite tokens' values.
    pub nim_sum: u32,
    /// A winning move: the token's position and where it goes.
    pub winning: Option<(u32, u32)>,
}

/// The answer for tokens on `positions` of a loopy game (`values` from
/// [`loopy`](fn@crate::eval::loopy)): all finite, a WIN exactly when the nim-sum `b` is not 0,
/// by the usual move (the first token whose value `g` has `g ^ b < g`, to its first follower
/// of value `g ^ b`, never an infinite one); one infinite token, a WIN exactly when it has a
/// follower of finite value `b` (the nim-sum of the others), by the move there, else a DRAW;
/// two or more infinite tokens, a DRAW.
pub fn loopy_answer<O: Offset>(graph: &Csr<O>, values: &Values, positions: &[u32]) -> LoopyAnswer {
    answer_loopy(graph, values, positions, true)
}

/// [`loopy_answer`], looking for the winning move of an all-finite WIN only with `moves` (the
/// outcome needs no search there; with one infinite token the move found decides it).
fn answer_loopy<O: Offset>(
    graph: &Csr<O>,
    values: &Values,
    positions: &[u32],
    moves: bool,
) -> LoopyAnswer {
    let finite = |p: &&u32| values.get(**p) != Values::INFINITE;
    let nim_sum = positions.iter().filter(finite).fold(0, |acc, &p| acc ^ values.get(p));
    let mut infinite = positions.iter().filter(|p| !finite(p));
    let to_value = |p: u32, want: u32| {
        // A move to no node (a damaged index read with --trust) is no move.
        let s = graph.successors(p).iter().find(|&&s| values.try_get(s) == Some(want))?;
        Some((p, *s))
    };
    let (outcome, winning) = match (infinite.next(), infinite.next()) {
        (None, _) => {
            let winning = (moves && nim_sum != 0).then(|| {
                positions.iter().find_map(|&p| {
                    let want = values.get(p) ^ nim_sum;
                    (want < values.get(p)).then(|| to_value(p, want)).flatten()
                })
            });
            (Outcome::of_nim_sum(nim_sum), winning.flatten())
        }
        (Some(&u), None) => match to_value(u, nim_sum) {
            Some(step) => (Outcome::Win, Some(step)),
            None => (Outcome::Draw, None),
        },
        (Some(_), Some(_)) => (Outcome::Draw, None),
    };
    LoopyAnswer { outcome, nim_sum, winning }
}

/// [`loopy_answer`] on a game read from a file: the chess format's graph (`--loopy` refuses
/// the sums format before anything is read). Without `moves`, an all-finite WIN comes without
/// its move (found only for a report).
pub fn loopy_answer_of(
    graph: &GameGraph,
    values: &Values,
    positions: &[u32],
    moves: bool,
) -> LoopyAnswer {
    match graph {
        GameGraph::Chess(g) => answer_loopy(g, values, positions, moves),
        GameGraph::ChessWide(g) => answer_loopy(g, values, positions, moves),
        GameGraph::Sums(_) => unreachable!("--loopy refuses the sums format"),
    }
}

/// Answered queries' rows held until they are written, as one output format holds them
/// (CSV bytes, or typed columns: `report`'s pieces): the rows of a parallel piece, or of a
/// batch of pieces appended in order.
pub trait Piece: Default + Send {
    /// True when a run of pieces written one after another is the same output as the pieces
    /// appended into one and written once (bytes); false when each write is a unit of the
    /// output (a record batch), so that pieces cut by thread count must be joined first.
    const WRITTEN_APART: bool = false;

    /// Appends `other`'s rows after this piece's.
    fn append(&mut self, other: &Self);
    /// Appends the rows of `others`, in order, after this piece's.
    fn append_all(&mut self, others: &[&Self]) {
        for other in others {
            self.append(other);
        }
    }
    /// Empties the piece, keeping its memory.
    fn clear(&mut self);
    /// About how many bytes the piece holds (when to write it).
    fn bytes(&self) -> usize;
}

/// Rows as CSV bytes (and judge lines): a row is formatted as it is answered.
impl Piece for Vec<u8> {
    const WRITTEN_APART: bool = true;

    fn append(&mut self, other: &Vec<u8>) {
        self.extend_from_slice(other);
    }

    fn append_all(&mut self, others: &[&Vec<u8>]) {
        append_parallel(self, others);
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }

    fn bytes(&self) -> usize {
        self.len()
    }
}

/// The output buffers of answered queries: judge lines, and rows held as the rows' format
/// holds them (`R`: CSV bytes, or columns; see [`crate::report::Piece`]).
#[derive(Debug, Default, Clone)]
pub struct Bufs<R = Vec<u8>> {
    /// Judge lines (`solve`'s WIN and LOSE), empty for `query`.
    pub main: Vec<u8>,
    /// Rows (`query`'s, or `solve --report`'s), empty when not asked for.
    pub rows: R,
}

impl<R: Piece> Bufs<R> {
    /// Appends the lines and rows of `others`, in order: bytes are copied by every thread.
    pub fn append_all(&mut self, others: &[Bufs<R>]) {
        let main: Vec<&Vec<u8>> = others.iter().map(|b| &b.main).collect();
        append_parallel(&mut self.main, &main);
        let rows: Vec<&R> = others.iter().map(|b| &b.rows).collect();
        self.rows.append_all(&rows);
    }

    /// Empties both buffers.
    pub fn clear(&mut self) {
        self.main.clear();
        self.rows.clear();
    }

    /// Bytes held (about, for columns).
    pub fn len(&self) -> usize {
        self.main.len() + self.rows.bytes()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How many queries ahead of its answer each read of a winning move's search is started:
/// the tokens' values, the mover's list bounds, its list, its followers' values. Each read
/// needs the one before it in cache, so they go in steps; the distances were measured on the
/// 10M/100M file's million queries (wider steps gained nothing).
pub const AHEAD: [usize; 4] = [24, 16, 8, 4];

/// Starts the reads that finding a winning move for tokens on `positions` will make, the
/// `stage`-th of [`AHEAD`]: the tokens' values (0); then, the values being in cache, the
/// mover's list bounds (1), its list (2), its followers' values (3; in mex order, the one
/// follower the move is). A hint only: what it reads is read again by the search.
#[inline]
pub fn prefetch_move(graph: &GameGraph, values: &Values, positions: &[u32], stage: usize) {
    if stage == 0 {
        return positions.iter().for_each(|&p| values.prefetch(p));
    }
    let value = |p: u32| values.get(p);
    let nim_sum = positions.iter().fold(0, |acc, &p| acc ^ value(p));
    let Some((k, want)) = mover(positions.iter().map(|&p| value(p)), nim_sum) else { return };
    let p = positions[k];
    let deps = match graph {
        GameGraph::Chess(g) => g.prefetch_moves(p, want, stage),
        GameGraph::ChessWide(g) => g.prefetch_moves(p, want, stage),
        GameGraph::Sums(_) => return,
    };
    if let Some(successors) = deps {
        successors.iter().take(16).for_each(|&s| values.prefetch(s));
    }
}

/// Starts reading the values of tokens on `positions`, at the first of [`AHEAD`]'s stages
/// only: what an outcome without a move reads.
#[inline]
pub fn prefetch_values(values: &Values, positions: &[u32], stage: usize) {
    if stage == 0 {
        positions.iter().for_each(|&p| values.prefetch(p));
    }
}

/// A batch of queries as the answering step reads them, whoever read them (the text's window
/// reader: [`crate::parse::chess_parallel::QueryBatch`], implemented by the conductor,
/// [`crate::exec`]): this stage knows no reader.
pub trait Batch: Sync {
    /// The number of queries.
    fn len(&self) -> usize;
    /// True when the batch holds no query.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The positions of query `i` (0-based within the batch), every one a node of the case.
    fn positions(&self, i: usize) -> &[u32];
    /// The 1-based number of the batch's first query within its case.
    fn first_query(&self) -> u64;
}

/// Answers the queries of `batch` in parallel with `answer(query_number, positions, bufs)`
/// (query numbers are 1-based within the case) and appends the results to `out` in input
/// order. The batch's positions are nodes (the reader checked them).
pub fn answer_batch<R: Piece, F>(batch: &impl Batch, out: &mut Bufs<R>, answer: F)
where
    F: Fn(u64, &[u32], &mut Bufs<R>) + Sync,
{
    let none = None::<&fn(&[u32], usize)>;
    out.append_all(answer_pieces(batch, &mut Vec::new(), answer, none));
}

/// [`answer_batch`] without the copy into one buffer: the batch's rows are in the pieces
/// returned, in order (a slice of `pieces`, which keeps their buffers from one batch to the
/// next: each batch's rows are then written into memory already touched, not grown anew).
/// `ahead(positions, stage)` is called on the query [`AHEAD`]`[stage]` places after each one
/// answered, so that the reads of later answers overlap ([`prefetch_move`]).
pub fn answer_pieces<'p, R: Piece, F, H>(
    batch: &impl Batch,
    pieces: &'p mut Vec<Bufs<R>>,
    answer: F,
    ahead: Option<&H>,
) -> &'p [Bufs<R>]
where
    F: Fn(u64, &[u32], &mut Bufs<R>) + Sync,
    H: Fn(&[u32], usize) + Sync,
{
    let threads = rayon::current_num_threads();
    let piece = batch.len().div_ceil(threads * PIECES_PER_THREAD).max(1);
    let count = batch.len().div_ceil(piece);
    if pieces.len() < count {
        pieces.resize_with(count, Bufs::default);
    }
    pieces[..count].par_iter_mut().enumerate().for_each(|(p, bufs)| {
        bufs.clear();
        let end = ((p + 1) * piece).min(batch.len());
        for i in p * piece..end {
            if let Some(ahead) = ahead {
                for (stage, distance) in AHEAD.iter().enumerate() {
                    if i + distance < end {
                        ahead(batch.positions(i + distance), stage);
                    }
                }
            }
            answer(batch.first_query() + i as u64, batch.positions(i), bufs);
        }
    });
    &pieces[..count]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::SumsGraph;
    use crate::parse::chess_parallel::ParChessReader;
    use crate::{eval, order};

    /// Batches answered into pieces kept from one batch to the next give the rows one query
    /// at a time gives: nothing of an earlier batch is left in a piece, whatever the pieces'
    /// counts (a last batch has fewer).
    #[test]
    fn batches_answered_into_kept_pieces_are_the_queries_in_order() {
        let mut rng = crate::testing::Xorshift::new(0x51_7cc1_b727_220a);
        let n = 50u32;
        let mut text = format!("{n}\n");
        for _ in 0..n {
            text.push_str("0\n");
        }
        let queries: Vec<Vec<u32>> = (0..3000)
            .map(|_| (0..1 + rng.below(6)).map(|_| rng.below(u64::from(n)) as u32).collect())
            .collect();
        for q in &queries {
            let list: Vec<String> = q.iter().map(u32::to_string).collect();
            text.push_str(&format!("{} {}\n", q.len(), list.join(" ")));
        }
        text.push_str("0\n");
        let row = |number: u64, positions: &[u32], bufs: &mut Bufs| {
            bufs.main.extend_from_slice(format!("{number}:{positions:?}\n").as_bytes());
        };
        let expected: Vec<u8> = queries
            .iter()
            .enumerate()
            .flat_map(|(i, q)| format!("{}:{q:?}\n", i + 1).into_bytes())
            .collect();
        for chunk in [64, 1000, 1 << 16] {
            let mut reader = ParChessReader::new(text.as_bytes(), chunk);
            assert!(reader.next_graph().unwrap().is_some());
            let (mut out, mut pieces, mut batches) = (Bufs::default(), Vec::new(), 0);
            while let Some(batch) = reader.next_queries().unwrap() {
                let none = None::<&fn(&[u32], usize)>;
                out.append_all(answer_pieces(&batch, &mut pieces, row, none));
                batches += 1;
            }
            assert!(chunk > 1000 || batches > 10, "chunk {chunk}: {batches} batches");
            assert_eq!(out.main, expected, "chunk {chunk}");
        }
    }

    #[test]
    fn winning_moves_of_sums_leave_a_zero_nim_sum() {
        // Node 0: moves to {1, 1} (value 0), to {1} (1), to {} (0) -> mex{0, 1} = 2.
        let g = SumsGraph::from_lists(&[vec![vec![1, 1], vec![1], vec![]], vec![vec![]], vec![]])
            .unwrap();
        let levels = order::levels(g.deps(), &()).unwrap();
        let values = eval::grundy(&g, &levels, &());
        assert_eq!(&values.to_u32()[..], &[2, 1, 0]);
        let game = GameGraph::Sums(g);
        assert_eq!(winning_move(&game, &values, &[0], 2), Some((0, &[1, 1][..])));
        assert_eq!(winning_move(&game, &values, &[0, 1], 3), Some((0, &[1][..])));
        assert_eq!(winning_move(&game, &values, &[2], 0), None);
        assert_eq!(Outcome::of(&values, &[0, 1]), Outcome::Win);
        assert_eq!(Outcome::of(&values, &[2, 2]).line(), b"LOSE\n");
    }
}
