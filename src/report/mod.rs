//! Reports: the rows of `values`, `solve --report` and `query`, written through one trait,
//! [`RowSink`], by whichever format the output asks for: CSV ([`csv`], the default), Parquet
//! or Arrow IPC (`columnar`, `parquet` and `arrow`, with the `columnar` feature); the
//! statistics of `stats` ([`stats`]), the plot of `octal` ([`plot`]).
//!
//! Rows are produced once, by the engine (`exec`), into *pieces* that parallel tasks fill on
//! their own and the sink takes in input order. Each format has its own piece types, so that
//! the CSV path formats bytes exactly as it did before there was a choice (monomorphised per
//! sink: no dispatch per row), and the columnar paths collect typed column vectors instead of
//! formatting text.

pub use crate::answer::Piece;
use crate::answer::{self, Outcome};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::GameGraph;
use crate::play::{Answer, Play};

#[cfg(feature = "columnar")]
pub mod arrow;
#[cfg(feature = "columnar")]
pub mod columnar;
pub mod columns;
pub mod csv;
pub mod format;
pub mod html;
#[cfg(feature = "columnar")]
pub mod parquet;
pub mod plot;
pub mod stats;

pub use self::csv::{push_row, Csv, Rows};
pub use columns::{Column, Columns};
pub use format::FileFormat;

/// Columns of `grundy values`.
pub const VALUES_HEADER: &[&str] = &["case", "node", "grundy", "level", "out_degree"];
/// Columns of `grundy values --loopy`.
pub const LOOPY_VALUES_HEADER: &[&str] =
    &["case", "node", "grundy", "infinite_set", "outcome", "out_degree"];

/// Columns of `query --play` and `solve --play --report` (a play other than normal): a
/// winning move's tokens and where each goes, as lists, and why a sum is UNDECIDED.
pub const PLAY_QUERIES_HEADER: &[&str] =
    &["case", "query", "positions", "result", "move_from", "move_to", "reason"];

/// The columns `values --play` adds after [`VALUES_HEADER`].
pub fn play_value_columns(play: Play) -> &'static [&'static str] {
    match play {
        Play::Normal | Play::Selective => &[],
        Play::Conjunctive => &["remoteness"],
        Play::Continued => &["suspense"],
        Play::Misere { genus: false } => &["misere_outcome", "misere_grundy", "misere_heap"],
        Play::Misere { genus: true } => {
            &["misere_outcome", "misere_grundy", "misere_heap", "misere_genus"]
        }
    }
}

/// Which table a sink receives: it fixes the CSV header, or a columnar file's schema.
#[derive(Debug, Clone, Copy)]
pub enum Table<'a> {
    /// The rows of `values`: [`VALUES_HEADER`].
    Values,
    /// The rows of `values --loopy`: [`LOOPY_VALUES_HEADER`].
    LoopyValues,
    /// Query rows (`query`, `solve --report`) of these columns.
    Queries(&'a Columns),
    /// The rows of `values --play`: [`VALUES_HEADER`] and [`play_value_columns`].
    PlayValues(Play),
    /// The rows of `query --play` and `solve --play --report`: [`PLAY_QUERIES_HEADER`].
    PlayQueries,
}

impl Table<'_> {
    /// The table's column names, in order.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Table::Values => VALUES_HEADER.to_vec(),
            Table::LoopyValues => LOOPY_VALUES_HEADER.to_vec(),
            Table::Queries(columns) => columns.iter().map(|c| c.name()).collect(),
            Table::PlayValues(play) => {
                VALUES_HEADER.iter().chain(play_value_columns(*play)).copied().collect()
            }
            Table::PlayQueries => PLAY_QUERIES_HEADER.to_vec(),
        }
    }
}

/// Where rows go: an output in one format, fed pieces of rows in input order. The one trait
/// every format implements; the engine writes every table through it.
///
/// A sink receives one table: [`RowSink::start`] once, then pieces of that table's type only.
pub trait RowSink {
    /// A piece of `values` rows, as this format holds them until they are put.
    type Values: ValuePiece;
    /// A piece of `values --loopy` rows.
    type Loopy: LoopyPiece;
    /// A piece of query rows.
    type Queries: QueryPiece;
    /// A piece of rows of a play other than normal: `values --play`'s or its queries'.
    type Play: PlayPiece;

    /// Starts `table`: the CSV header, a columnar file's schema. Called once, before any
    /// piece, also when no row follows.
    fn start(&mut self, table: Table) -> Result<(), Error>;

    /// Writes a piece of `values` rows after those put before.
    fn put_values(&mut self, piece: Self::Values) -> Result<(), Error>;

    /// Writes a piece of `values --loopy` rows after those put before.
    fn put_loopy(&mut self, piece: Self::Loopy) -> Result<(), Error>;

    /// Writes a piece of query rows after those put before.
    fn put_queries(&mut self, piece: &Self::Queries) -> Result<(), Error>;

    /// Writes a piece of a play's rows after those put before.
    fn put_play(&mut self, piece: &Self::Play) -> Result<(), Error>;

    /// True when nobody reads the output any more (a pipe closed by its reader).
    fn is_closed(&self) -> bool;
}

/// A piece of `values` rows, filled on any thread.
pub trait ValuePiece: Default + Send {
    /// Appends the row of `node` of `case`.
    fn value_row(&mut self, case: u64, node: u32, grundy: u32, level: u32, out_degree: u32);
}

/// A piece of `values --loopy` rows, filled on any thread.
pub trait LoopyPiece: Default + Send {
    /// Appends the row of a node `(case, node)`: its value ([`Values::INFINITE`] for `inf`),
    /// the set K of an infinite node (ascending; empty for a finite one), its out-degree.
    fn loopy_row(&mut self, at: (u64, u32), grundy: u32, set: &[u32], degree: u32);
}

/// A piece of query rows.
pub trait QueryPiece: Piece {
    /// Appends `row`, in `columns` (a columnar piece keeps only those columns too).
    fn push(&mut self, columns: &Columns, row: &QueryRow);
}

/// A play's numbers of one node, as `values --play` shows them after the node's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayNumbers<'a> {
    /// Normal and selective play: none.
    None,
    /// Conjunctive play's remoteness, or continued play's suspense.
    Count(u32),
    /// Misère play: the misère Grundy value (0 exactly when the player to move loses) and the
    /// nim heap the node equals in misère play, if any.
    Misere {
        /// The misère Grundy value.
        grundy: u32,
        /// The misère nim heap, `None` when the node equals none.
        heap: Option<u32>,
        /// With the genus (`--genus`): its prefix ([`crate::play::genus`]), `None` when not
        /// known; `None` without the genus.
        genus: Option<Option<&'a [u32]>>,
    },
}

/// A piece of the rows of a play other than normal, filled on any thread: one of its two
/// tables, [`Table::PlayValues`] or [`Table::PlayQueries`].
pub trait PlayPiece: Piece {
    /// Appends the `values --play` row of a node of `case`: `node` is `[node, grundy, level,
    /// out_degree]`, then the play's `numbers`.
    fn play_value_row(&mut self, case: u64, node: [u32; 4], numbers: PlayNumbers<'_>);

    /// Appends the row of the query `(case, number)` on `positions`, decided as `answer`.
    fn play_query_row(&mut self, at: (u64, u64), positions: &[u32], answer: &Answer);
}

/// The outcome of one token on a node of a loopy game of value `grundy` (finite, or
/// [`Values::INFINITE`] with the set K `set`): an infinite node wins exactly when it can move
/// to a 0.
pub fn loopy_outcome(grundy: u32, set: &[u32]) -> Outcome {
    match (grundy, set.first()) {
        (Values::INFINITE, Some(0)) => Outcome::Win,
        (Values::INFINITE, _) => Outcome::Draw,
        (g, _) => Outcome::of_nim_sum(g),
    }
}

/// A query's answer, as its row shows it.
#[derive(Debug, Clone, Copy)]
pub struct QueryRow<'a> {
    /// The case, from 1 (shown by `solve --report`).
    pub case: u64,
    /// The query's number, from 1.
    pub number: u64,
    /// The tokens' positions.
    pub positions: &'a [u32],
    /// The XOR of the (finite) tokens' values.
    pub nim_sum: u32,
    /// Who wins.
    pub outcome: Outcome,
    /// A winning move: the token's position and the parts it goes to (`None` unless a WIN,
    /// or when no row shows it).
    pub winning: Option<(u32, &'a [u32])>,
}

/// Appends the row of the query `(case, number)` on `positions` to `out`, in `columns`: its
/// nim-sum, result and winning move (the token's position and where it goes: the parts of
/// the sum, space-separated, in the sums format), found only when a column shows it. Returns
/// the outcome, for the judge line beside the row.
pub fn push_query_row(
    out: &mut impl QueryPiece,
    columns: &Columns,
    (case, number): (u64, u64),
    positions: &[u32],
    (graph, values): (&GameGraph, &Values),
) -> Outcome {
    let nim_sum = values.nim_sum(positions);
    let outcome = Outcome::of_nim_sum(nim_sum);
    let winning = if columns.wants_move() {
        answer::winning_move(graph, values, positions, nim_sum)
    } else {
        None
    };
    out.push(columns, &QueryRow { case, number, positions, nim_sum, outcome, winning });
    outcome
}

/// Appends a query row of a loopy game (values from [`loopy`](fn@crate::eval::loopy)), as
/// [`push_query_row`] does for an acyclic one: the nim-sum of the finite tokens, WIN, LOSE or
/// DRAW, and a winning move.
pub fn push_loopy_row(
    out: &mut impl QueryPiece,
    columns: &Columns,
    (case, number): (u64, u64),
    positions: &[u32],
    (graph, values): (&GameGraph, &Values),
) -> Outcome {
    let answer = answer::loopy_answer_of(graph, values, positions, columns.wants_move());
    let to = answer.winning.map(|(from, to)| (from, [to]));
    let winning = to.as_ref().map(|(from, to)| (*from, &to[..]));
    let (nim_sum, outcome) = (answer.nim_sum, answer.outcome);
    out.push(columns, &QueryRow { case, number, positions, nim_sum, outcome, winning });
    answer.outcome
}
