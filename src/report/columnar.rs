//! What the Parquet and Arrow IPC sinks share: the typed pieces rows are collected into, the
//! tables' schemas, a piece made a record batch, and [`Columnar`], the row sink that hands
//! each batch to a file format's [`Encoder`] (`report::parquet`, `report::arrow`).
//!
//! Pieces are column vectors filled on any thread, as the CSV path fills byte buffers; a
//! piece of `values` rows becomes a record batch without copying (the vectors are the
//! arrays' buffers). Batches are handed on as they come, so memory is bounded by a batch and
//! the encoder's own buffer (a row group, a record batch), never the table.
//!
//! Column types (the README's table): `case` u32 (a case number past 4,294,967,295 is an
//! error), `node`, `grundy`, `level`, `out_degree`, `nim_sum`, `move_from` u32, `query` u64
//! (a query file may hold more than 2^32 queries), `positions`, `infinite_set` and `move_to`
//! lists of u32 (`move_to` a list in every format: the parts of a sum, one position in the
//! chess format), `outcome` and `result` dictionaries of the words `WIN`, `LOSE`, `DRAW`
//! (int8 keys). Nullable: `grundy` of `values --loopy` (null for `inf`), `move_from` and
//! `move_to` (null where the CSV's fields are empty). `grundy` is u32 rather than the
//! narrowest type that holds a file's values: cases stream one by one, so the schema is
//! fixed before the largest value is known; Parquet's dictionary and bit-packed encodings
//! store small values in a few bits anyway.

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::types::Int8Type;
use arrow_array::{
    Array, ArrayRef, DictionaryArray, Int8Array, ListArray, RecordBatch, StringArray, UInt32Array,
    UInt64Array,
};
use arrow_buffer::{BooleanBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, FieldRef, Schema, SchemaRef};

use crate::answer::Outcome;
use crate::error::Error;
use crate::eval::Values;
use crate::io::error::IoError;
use crate::io::sink::Put;

use super::{Column, Columns, LoopyPiece, Piece, QueryPiece, QueryRow, RowSink, Table, ValuePiece};
use super::{FileFormat, PlayNumbers, PlayPiece, LOOPY_VALUES_HEADER, VALUES_HEADER};
use crate::play::{Answer, Verdict};

/// A file format's writer of record batches: the part of a columnar sink that differs
/// between Parquet and Arrow IPC.
pub trait Encoder<W: Write + Send>: Sized {
    /// The format, for messages.
    const FORMAT: FileFormat;

    /// Starts a file of `schema` written to `out`.
    fn open(out: W, schema: SchemaRef) -> Result<Self, String>;

    /// Writes (or buffers) `batch`, after the batches before it.
    fn write(&mut self, batch: RecordBatch) -> Result<(), String>;

    /// Writes what is buffered and the file's footer.
    fn finish(&mut self) -> Result<(), String>;

    /// The output, for whether it is closed.
    fn output(&self) -> &W;

    /// The output, for the error it kept.
    fn output_mut(&mut self) -> &mut W;
}

/// A [`Put`] as an [`io::Write`] for the encoders, which wrap an error of the writer into
/// their own: the first failure is kept, so that the run reports the output's own message.
pub struct Bytes<'a, P: Put> {
    out: &'a mut P,
    failed: Option<IoError>,
}

impl<P: Put> Write for Bytes<'_, P> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.put(buf).map_err(|e| {
            let error = io::Error::other(e.to_string());
            self.failed.get_or_insert(e);
            error
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        // The Put flushes when it is finished (a sink's rename).
        Ok(())
    }
}

/// The columnar row sink: pieces made record batches, written by the encoder `E` (Parquet
/// or Arrow IPC) to a [`Put`] (a [`Sink`](crate::io::sink::Sink): whole or not at all).
pub struct Columnar<'a, P: Put + Send, E: Encoder<Bytes<'a, P>>> {
    /// The output, until the table starts.
    out: Option<&'a mut P>,
    /// The output's name, for messages.
    name: String,
    /// The table's schema and the encoder, once started.
    started: Option<(SchemaRef, E)>,
}

impl<'a, P: Put + Send, E: Encoder<Bytes<'a, P>>> Columnar<'a, P, E> {
    /// Rows written to `out` in `E`'s format.
    pub fn new(out: &'a mut P) -> Columnar<'a, P, E> {
        let name = out.name().to_string();
        Columnar { out: Some(out), name, started: None }
    }

    /// Writes what is held back and the file's footer. The output itself is finished (a
    /// sink renamed) by its owner afterwards.
    pub fn finish(mut self) -> Result<(), Error> {
        match &mut self.started {
            Some((_, encoder)) => {
                let done = encoder.finish();
                self.settle(done)
            }
            None => Ok(()),
        }
    }

    /// Writes `batch` (made from a piece of the started table).
    fn write(
        &mut self,
        batch: impl FnOnce(&SchemaRef) -> Result<RecordBatch, String>,
    ) -> Result<(), Error> {
        let Some((schema, encoder)) = &mut self.started else {
            return Err(self.error("rows put before the table started".into()));
        };
        let written = batch(schema).and_then(|batch| encoder.write(batch));
        self.settle(written)
    }

    /// The error of a failed step: the output's own when writing to it failed.
    fn settle(&mut self, result: Result<(), String>) -> Result<(), Error> {
        let message = match result {
            Ok(()) => return Ok(()),
            Err(message) => message,
        };
        match self.started.as_mut().and_then(|(_, e)| e.output_mut().failed.take()) {
            Some(io) => Err(Error::Io(io)),
            None => Err(self.error(message)),
        }
    }

    fn error(&self, message: String) -> Error {
        Error::Columnar { path: self.name.clone(), format: E::FORMAT.name(), message }
    }
}

impl<'a, P: Put + Send, E: Encoder<Bytes<'a, P>>> RowSink for Columnar<'a, P, E> {
    type Values = ValueColumns;
    type Loopy = LoopyColumns;
    type Queries = QueryColumns;
    type Play = PlayColumns;

    fn start(&mut self, table: Table) -> Result<(), Error> {
        let Some(out) = self.out.take() else {
            return Err(self.error("a second table started".into()));
        };
        let schema = schema(table);
        let encoder = E::open(Bytes { out, failed: None }, Arc::clone(&schema));
        match encoder {
            Ok(encoder) => {
                self.started = Some((schema, encoder));
                Ok(())
            }
            Err(message) => Err(self.error(message)),
        }
    }

    fn put_values(&mut self, piece: ValueColumns) -> Result<(), Error> {
        if piece.node.is_empty() {
            return Ok(());
        }
        let case = case_column(piece.case, piece.node.len()).map_err(|m| self.error(m))?;
        self.write(|schema| piece.into_batch(schema, case))
    }

    fn put_loopy(&mut self, piece: LoopyColumns) -> Result<(), Error> {
        if piece.node.is_empty() {
            return Ok(());
        }
        let case = case_column(piece.case, piece.node.len()).map_err(|m| self.error(m))?;
        self.write(|schema| piece.into_batch(schema, case))
    }

    fn put_queries(&mut self, piece: &QueryColumns) -> Result<(), Error> {
        if piece.rows == 0 {
            return Ok(());
        }
        self.write(|schema| piece.to_batch(schema))
    }

    fn put_play(&mut self, piece: &PlayColumns) -> Result<(), Error> {
        if piece.rows == 0 {
            return Ok(());
        }
        self.write(|schema| piece.to_batch(schema))
    }

    fn is_closed(&self) -> bool {
        match (&self.out, &self.started) {
            (Some(out), _) => out.is_closed(),
            (None, Some((_, encoder))) => encoder.output().out.is_closed(),
            (None, None) => false,
        }
    }
}

/// The schema of `table`.
fn schema(table: Table) -> SchemaRef {
    let u32_field = |name: &str, nullable: bool| Field::new(name, DataType::UInt32, nullable);
    let fields: Vec<Field> = match table {
        Table::Values => VALUES_HEADER.iter().map(|name| u32_field(name, false)).collect(),
        Table::LoopyValues => LOOPY_VALUES_HEADER
            .iter()
            .map(|&name| match name {
                "grundy" => u32_field(name, true),
                "infinite_set" => Field::new(name, list_type(), false),
                "outcome" => Field::new(name, word_type(), false),
                _ => u32_field(name, false),
            })
            .collect(),
        Table::Queries(columns) => columns
            .iter()
            .map(|column| {
                let name = column.name();
                match column {
                    Column::Case | Column::NimSum => u32_field(name, false),
                    Column::Query => Field::new(name, DataType::UInt64, false),
                    Column::Positions => Field::new(name, list_type(), false),
                    Column::Result => Field::new(name, word_type(), false),
                    Column::MoveFrom => u32_field(name, true),
                    Column::MoveTo => Field::new(name, list_type(), true),
                }
            })
            .collect(),
        Table::PlayValues(_) | Table::PlayQueries => table
            .names()
            .into_iter()
            .map(|name| match name {
                "query" => Field::new(name, DataType::UInt64, false),
                "positions" => Field::new(name, list_type(), false),
                "move_from" | "move_to" | "misere_genus" => Field::new(name, list_type(), true),
                "result" | "misere_outcome" => Field::new(name, word_type(), false),
                "reason" => Field::new(name, DataType::Utf8, true),
                "misere_heap" => u32_field(name, true),
                _ => u32_field(name, false),
            })
            .collect(),
    };
    Arc::new(Schema::new(fields))
}

/// The item field of every list column: u32, never null.
fn item_field() -> FieldRef {
    Arc::new(Field::new_list_field(DataType::UInt32, false))
}

/// A list of u32.
fn list_type() -> DataType {
    DataType::List(item_field())
}

/// The type of `outcome` and `result`: int8 keys into the words.
fn word_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))
}

/// The dictionary key of an outcome: its index in [`WORDS`].
fn word_key(outcome: Outcome) -> i8 {
    match outcome {
        Outcome::Win => 0,
        Outcome::Lose => 1,
        Outcome::Draw => 2,
    }
}

/// The dictionary of `outcome` and `result`, the same in every batch (an IPC file cannot
/// replace a dictionary).
const WORDS: [&str; 3] = ["WIN", "LOSE", "DRAW"];

/// The dictionary of a play's `result` and `misere_outcome`: a misère sum the theory does not
/// decide is UNDECIDED, and no play here has draws.
const PLAY_WORDS: [&str; 3] = ["WIN", "LOSE", "UNDECIDED"];

/// The key of `verdict` in [`PLAY_WORDS`].
fn verdict_key(verdict: Verdict) -> i8 {
    match verdict {
        Verdict::Win => 0,
        Verdict::Lose => 1,
        Verdict::Undecided(_) => 2,
    }
}

/// A column of outcome keys.
fn words(keys: Vec<i8>) -> Result<ArrayRef, String> {
    words_of(keys, &WORDS)
}

/// A column of keys into `dictionary`.
fn words_of(keys: Vec<i8>, dictionary: &[&str]) -> Result<ArrayRef, String> {
    let values: ArrayRef = Arc::new(StringArray::from(dictionary.to_vec()));
    let array = DictionaryArray::<Int8Type>::try_new(Int8Array::from(keys), values);
    Ok(Arc::new(array.map_err(|e| e.to_string())?))
}

/// The `case` column of a piece of `rows` rows of `case`.
fn case_column(case: u64, rows: usize) -> Result<ArrayRef, String> {
    let case = u32::try_from(case).map_err(|_| {
        format!("case {case}: a columnar file numbers cases in 32 bits (at most 4,294,967,295)")
    })?;
    Ok(Arc::new(UInt32Array::from(vec![case; rows])))
}

/// The `case` column of query rows, each row's own case.
fn cases(case: &[u64]) -> Result<ArrayRef, String> {
    let case: Result<Vec<u32>, _> = case.iter().map(|&c| u32::try_from(c)).collect();
    let message = "a case number past 4,294,967,295: a columnar file numbers cases in 32 bits";
    Ok(u32s(case.map_err(|_| message.to_string())?))
}

/// A u32 column without nulls, taking the vector's memory.
fn u32s(values: Vec<u32>) -> ArrayRef {
    Arc::new(UInt32Array::from(values))
}

/// A u32 column, null where `valid` is false.
fn u32s_valid(values: Vec<u32>, valid: &[bool]) -> ArrayRef {
    let nulls = NullBuffer::new(BooleanBuffer::collect_bool(valid.len(), |i| valid[i]));
    Arc::new(UInt32Array::new(ScalarBuffer::from(values), Some(nulls)))
}

/// A list column: row `i` holds the next `lengths[i]` of `items`; null where `valid` (when
/// given) is false.
fn lists(lengths: &[u32], items: Vec<u32>, valid: Option<&[bool]>) -> Result<ArrayRef, String> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    let mut end = 0i32;
    offsets.push(end);
    for &length in lengths {
        end = i32::try_from(length)
            .ok()
            .and_then(|l| end.checked_add(l))
            .ok_or("a batch of lists holds more than 2^31 ids (32-bit list offsets)")?;
        offsets.push(end);
    }
    let nulls = valid.map(|v| NullBuffer::new(BooleanBuffer::collect_bool(v.len(), |i| v[i])));
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    let items: ArrayRef = Arc::new(UInt32Array::from(items));
    let array = ListArray::try_new(item_field(), offsets, items, nulls);
    Ok(Arc::new(array.map_err(|e| e.to_string())?))
}

/// A record batch of `columns` in `schema`.
fn batch(schema: &SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch, String> {
    RecordBatch::try_new(Arc::clone(schema), columns).map_err(|e| e.to_string())
}

/// A piece of `values` rows as columns: one case's nodes (pieces never straddle cases).
#[derive(Debug, Default)]
pub struct ValueColumns {
    case: u64,
    node: Vec<u32>,
    grundy: Vec<u32>,
    level: Vec<u32>,
    out_degree: Vec<u32>,
}

impl ValuePiece for ValueColumns {
    #[inline]
    fn value_row(&mut self, case: u64, node: u32, grundy: u32, level: u32, out_degree: u32) {
        self.case = case;
        self.node.push(node);
        self.grundy.push(grundy);
        self.level.push(level);
        self.out_degree.push(out_degree);
    }
}

impl ValueColumns {
    fn into_batch(self, schema: &SchemaRef, case: ArrayRef) -> Result<RecordBatch, String> {
        let columns =
            vec![case, u32s(self.node), u32s(self.grundy), u32s(self.level), u32s(self.out_degree)];
        batch(schema, columns)
    }
}

/// A piece of `values --loopy` rows as columns: one case's nodes.
#[derive(Debug, Default)]
pub struct LoopyColumns {
    case: u64,
    node: Vec<u32>,
    /// [`Values::INFINITE`] for `inf` (a null).
    grundy: Vec<u32>,
    set_lengths: Vec<u32>,
    set_items: Vec<u32>,
    outcome: Vec<i8>,
    out_degree: Vec<u32>,
}

impl LoopyPiece for LoopyColumns {
    fn loopy_row(&mut self, (case, node): (u64, u32), grundy: u32, set: &[u32], degree: u32) {
        self.case = case;
        self.node.push(node);
        self.grundy.push(grundy);
        // A set is a node's moves' values: no longer than its out-degree, a u32.
        self.set_lengths.push(set.len() as u32);
        self.set_items.extend_from_slice(set);
        self.outcome.push(word_key(super::loopy_outcome(grundy, set)));
        self.out_degree.push(degree);
    }
}

impl LoopyColumns {
    fn into_batch(self, schema: &SchemaRef, case: ArrayRef) -> Result<RecordBatch, String> {
        let finite: Vec<bool> = self.grundy.iter().map(|&g| g != Values::INFINITE).collect();
        let columns = vec![
            case,
            u32s(self.node),
            u32s_valid(self.grundy, &finite),
            lists(&self.set_lengths, self.set_items, None)?,
            words(self.outcome)?,
            u32s(self.out_degree),
        ];
        batch(schema, columns)
    }
}

/// A piece of query rows as columns: only the columns a row shows are filled.
#[derive(Debug, Default, Clone)]
pub struct QueryColumns {
    rows: usize,
    case: Vec<u64>,
    query: Vec<u64>,
    position_lengths: Vec<u32>,
    positions: Vec<u32>,
    nim_sum: Vec<u32>,
    result: Vec<i8>,
    /// A winning move is shown (else `move_from` and `move_to` are null).
    moved: Vec<bool>,
    move_from: Vec<u32>,
    move_to_lengths: Vec<u32>,
    move_to: Vec<u32>,
}

impl Piece for QueryColumns {
    fn append(&mut self, other: &QueryColumns) {
        self.rows += other.rows;
        self.case.extend_from_slice(&other.case);
        self.query.extend_from_slice(&other.query);
        self.position_lengths.extend_from_slice(&other.position_lengths);
        self.positions.extend_from_slice(&other.positions);
        self.nim_sum.extend_from_slice(&other.nim_sum);
        self.result.extend_from_slice(&other.result);
        self.moved.extend_from_slice(&other.moved);
        self.move_from.extend_from_slice(&other.move_from);
        self.move_to_lengths.extend_from_slice(&other.move_to_lengths);
        self.move_to.extend_from_slice(&other.move_to);
    }

    fn clear(&mut self) {
        self.rows = 0;
        self.case.clear();
        self.query.clear();
        self.position_lengths.clear();
        self.positions.clear();
        self.nim_sum.clear();
        self.result.clear();
        self.moved.clear();
        self.move_from.clear();
        self.move_to_lengths.clear();
        self.move_to.clear();
    }

    fn bytes(&self) -> usize {
        // Every row's fixed columns (at most 34 bytes) and the lists' ids.
        self.rows * 34 + 4 * (self.positions.len() + self.move_to.len())
    }
}

impl QueryPiece for QueryColumns {
    fn push(&mut self, columns: &Columns, row: &QueryRow) {
        self.rows += 1;
        for column in columns.iter() {
            match column {
                Column::Case => self.case.push(row.case),
                Column::Query => self.query.push(row.number),
                Column::Positions => {
                    // A query's token count is read as a u32.
                    self.position_lengths.push(row.positions.len() as u32);
                    self.positions.extend_from_slice(row.positions);
                }
                Column::NimSum => self.nim_sum.push(row.nim_sum),
                Column::Result => self.result.push(word_key(row.outcome)),
                Column::MoveFrom => self.move_from.push(row.winning.map_or(0, |(from, _)| from)),
                Column::MoveTo => {
                    let to = row.winning.map_or(&[][..], |(_, to)| to);
                    self.move_to_lengths.push(to.len() as u32);
                    self.move_to.extend_from_slice(to);
                }
            }
        }
        if columns.wants_move() {
            self.moved.push(row.winning.is_some());
        }
    }
}

impl QueryColumns {
    /// The piece's rows as a batch of `schema`'s columns (those of the table's [`Columns`]).
    fn to_batch(&self, schema: &SchemaRef) -> Result<RecordBatch, String> {
        let mut columns = Vec::with_capacity(schema.fields().len());
        for field in schema.fields() {
            let column: ArrayRef = match field.name().as_str() {
                "case" => cases(&self.case)?,
                "query" => Arc::new(UInt64Array::from(self.query.clone())),
                "positions" => lists(&self.position_lengths, self.positions.clone(), None)?,
                "nim_sum" => u32s(self.nim_sum.clone()),
                "result" => words(self.result.clone())?,
                "move_from" => u32s_valid(self.move_from.clone(), &self.moved),
                "move_to" => lists(&self.move_to_lengths, self.move_to.clone(), Some(&self.moved))?,
                other => return Err(format!("no column `{other}` in query rows")),
            };
            debug_assert_eq!(column.len(), self.rows);
            columns.push(column);
        }
        batch(schema, columns)
    }
}

/// A piece of a play's rows as columns: `values --play` rows or query rows, whichever table
/// the sink started (only that table's columns are filled).
#[derive(Debug, Default, Clone)]
pub struct PlayColumns {
    rows: usize,
    case: Vec<u64>,
    /// `values --play`: the node's own columns, and the play's.
    node: Vec<u32>,
    grundy: Vec<u32>,
    level: Vec<u32>,
    out_degree: Vec<u32>,
    /// Remoteness or suspense.
    count: Vec<u32>,
    misere_outcome: Vec<i8>,
    misere_grundy: Vec<u32>,
    misere_heap: Vec<u32>,
    /// The node equals a misère nim heap (else `misere_heap` is null).
    heap_known: Vec<bool>,
    /// With `--genus`: each node's genus prefix, as a list (null where not known).
    genus_known: Vec<bool>,
    genus_lengths: Vec<u32>,
    genus: Vec<u32>,
    /// Query rows.
    query: Vec<u64>,
    position_lengths: Vec<u32>,
    positions: Vec<u32>,
    result: Vec<i8>,
    /// A move is shown (else `move_from` and `move_to` are null, as the CSV's fields are empty).
    moved: Vec<bool>,
    move_lengths: Vec<u32>,
    move_from: Vec<u32>,
    move_to: Vec<u32>,
    /// Why a sum is UNDECIDED (null otherwise).
    reason: Vec<Option<&'static str>>,
}

impl Piece for PlayColumns {
    fn append(&mut self, other: &PlayColumns) {
        self.rows += other.rows;
        self.case.extend_from_slice(&other.case);
        self.node.extend_from_slice(&other.node);
        self.grundy.extend_from_slice(&other.grundy);
        self.level.extend_from_slice(&other.level);
        self.out_degree.extend_from_slice(&other.out_degree);
        self.count.extend_from_slice(&other.count);
        self.misere_outcome.extend_from_slice(&other.misere_outcome);
        self.misere_grundy.extend_from_slice(&other.misere_grundy);
        self.misere_heap.extend_from_slice(&other.misere_heap);
        self.heap_known.extend_from_slice(&other.heap_known);
        self.genus_known.extend_from_slice(&other.genus_known);
        self.genus_lengths.extend_from_slice(&other.genus_lengths);
        self.genus.extend_from_slice(&other.genus);
        self.query.extend_from_slice(&other.query);
        self.position_lengths.extend_from_slice(&other.position_lengths);
        self.positions.extend_from_slice(&other.positions);
        self.result.extend_from_slice(&other.result);
        self.moved.extend_from_slice(&other.moved);
        self.move_lengths.extend_from_slice(&other.move_lengths);
        self.move_from.extend_from_slice(&other.move_from);
        self.move_to.extend_from_slice(&other.move_to);
        self.reason.extend_from_slice(&other.reason);
    }

    fn clear(&mut self) {
        self.rows = 0;
        self.case.clear();
        self.node.clear();
        self.grundy.clear();
        self.level.clear();
        self.out_degree.clear();
        self.count.clear();
        self.misere_outcome.clear();
        self.misere_grundy.clear();
        self.misere_heap.clear();
        self.heap_known.clear();
        self.genus_known.clear();
        self.genus_lengths.clear();
        self.genus.clear();
        self.query.clear();
        self.position_lengths.clear();
        self.positions.clear();
        self.result.clear();
        self.moved.clear();
        self.move_lengths.clear();
        self.move_from.clear();
        self.move_to.clear();
        self.reason.clear();
    }

    fn bytes(&self) -> usize {
        // Every row's fixed columns (at most 40 bytes) and the lists' ids.
        self.rows * 40 + 4 * (self.positions.len() + 2 * self.move_from.len() + self.genus.len())
    }
}

impl PlayPiece for PlayColumns {
    fn play_value_row(&mut self, case: u64, node: [u32; 4], numbers: PlayNumbers<'_>) {
        let [node, grundy, level, degree] = node;
        self.rows += 1;
        self.case.push(case);
        self.node.push(node);
        self.grundy.push(grundy);
        self.level.push(level);
        self.out_degree.push(degree);
        match numbers {
            PlayNumbers::None => {}
            PlayNumbers::Count(count) => self.count.push(count),
            PlayNumbers::Misere { grundy, heap, genus } => {
                if let Some(genus) = genus {
                    let prefix = genus.unwrap_or_default();
                    self.genus_known.push(genus.is_some());
                    self.genus_lengths.push(prefix.len() as u32);
                    self.genus.extend_from_slice(prefix);
                }
                self.misere_outcome.push(verdict_key(if grundy == 0 {
                    Verdict::Lose
                } else {
                    Verdict::Win
                }));
                self.misere_grundy.push(grundy);
                self.misere_heap.push(heap.unwrap_or(0));
                self.heap_known.push(heap.is_some());
            }
        }
    }

    fn play_query_row(&mut self, (case, number): (u64, u64), positions: &[u32], answer: &Answer) {
        self.rows += 1;
        self.case.push(case);
        self.query.push(number);
        // A query's token count is read as a u32; a move moves at most every token.
        self.position_lengths.push(positions.len() as u32);
        self.positions.extend_from_slice(positions);
        self.result.push(verdict_key(answer.verdict));
        self.moved.push(!answer.moves.is_empty());
        self.move_lengths.push(answer.moves.len() as u32);
        self.move_from.extend(answer.moves.iter().map(|&(from, _)| from));
        self.move_to.extend(answer.moves.iter().map(|&(_, to)| to));
        self.reason.push(match answer.verdict {
            Verdict::Undecided(why) => Some(why),
            _ => None,
        });
    }
}

impl PlayColumns {
    /// The piece's rows as a batch of `schema`'s columns.
    fn to_batch(&self, schema: &SchemaRef) -> Result<RecordBatch, String> {
        let mut columns = Vec::with_capacity(schema.fields().len());
        for field in schema.fields() {
            let column: ArrayRef = match field.name().as_str() {
                "case" => cases(&self.case)?,
                "node" => u32s(self.node.clone()),
                "grundy" => u32s(self.grundy.clone()),
                "level" => u32s(self.level.clone()),
                "out_degree" => u32s(self.out_degree.clone()),
                "remoteness" | "suspense" => u32s(self.count.clone()),
                "misere_outcome" => words_of(self.misere_outcome.clone(), &PLAY_WORDS)?,
                "misere_grundy" => u32s(self.misere_grundy.clone()),
                "misere_heap" => u32s_valid(self.misere_heap.clone(), &self.heap_known),
                "misere_genus" => {
                    lists(&self.genus_lengths, self.genus.clone(), Some(&self.genus_known))?
                }
                "query" => Arc::new(UInt64Array::from(self.query.clone())),
                "positions" => lists(&self.position_lengths, self.positions.clone(), None)?,
                "result" => words_of(self.result.clone(), &PLAY_WORDS)?,
                "move_from" => {
                    lists(&self.move_lengths, self.move_from.clone(), Some(&self.moved))?
                }
                "move_to" => lists(&self.move_lengths, self.move_to.clone(), Some(&self.moved))?,
                "reason" => Arc::new(StringArray::from(self.reason.clone())),
                other => return Err(format!("no column `{other}` in a play's rows")),
            };
            debug_assert_eq!(column.len(), self.rows);
            columns.push(column);
        }
        batch(schema, columns)
    }
}
