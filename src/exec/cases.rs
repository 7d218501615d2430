//! The case loop every command shares: read a case's graph, order and evaluate it, then go
//! through its queries, on the sequential or the parallel code path.
//!
//! Commands differ only in what they do with an evaluated case and with each query, so they
//! pass closures; this module owns the choice of path, the error positions, the timing, and
//! the progress of each stage (reading, ordering, evaluating, answering), reported through a
//! [`Meter`].

use std::time::{Duration, Instant};

use super::Exec;
use crate::answer::{self, Bufs, Piece};
use crate::error::Error;
use crate::eval::Values;
use crate::eval::{Evaluated, Labelled, Searched, StageTimes};
use crate::graph::{Csr, GameGraph, Offset};
use crate::io::input::Input;
use crate::meter::{Meter, Stage, Unit};
use crate::parse::chess::ChessReader;
use crate::parse::chess_parallel::{ParChessReader, QueryBatch};
use crate::parse::error::{ParseError, ParseErrorKind};
use crate::parse::format::Format;
use crate::parse::text::Text;
use crate::play::Play;

/// Flush answered queries to their outputs once this many bytes are buffered (sequential path).
const FLUSH_BYTES: usize = 1 << 16;
/// Queries read between two progress reports (sequential path).
const QUERIES_PER_REPORT: u64 = 1 << 12;

/// Reads the cases of one input on the path `config` selects.
pub struct CaseReader<'a> {
    input: &'a Input,
    format: Format,
    exec: Exec,
    inner: Inner<'a>,
    positions: Vec<u32>,
    /// True when every node's level is asked of [`CaseReader::next_case`].
    levels: bool,
    /// The play whose numbers [`CaseReader::next_case`] takes along the search, where it can.
    play: Play,
    meter: &'a dyn Meter,
}

enum Inner<'a> {
    Sequential(ChessReader<'a>),
    /// Boxed: the parallel reader carries its buffers' bookkeeping and a pending error.
    Parallel(Box<ParChessReader<'a>>),
    /// An edge list: one graph, read whole on the first call.
    Edges {
        /// True once the graph has been read.
        read: bool,
    },
}

impl<'a> CaseReader<'a> {
    /// A reader at the start of `input`, a file in `format`, on the path `exec` selects,
    /// reporting progress to `meter`.
    pub fn new(
        input: &'a Input,
        exec: Exec,
        format: Format,
        meter: &'a dyn Meter,
    ) -> CaseReader<'a> {
        // A stream is read by the window reader on either executor: the sequential reader
        // holds its whole text.
        let inner = match (format, exec.window(input)) {
            (Format::Edges { .. }, _) => Inner::Edges { read: false },
            (_, None) => Inner::Sequential(ChessReader::of(input).with_meter(meter)),
            (_, Some(chunk_bytes)) => {
                Inner::Parallel(Box::new(ParChessReader::of(input, chunk_bytes).with_meter(meter)))
            }
        };
        CaseReader {
            input,
            format,
            exec,
            inner,
            positions: Vec::new(),
            levels: true,
            play: Play::Normal,
            meter,
        }
    }

    /// A reader of `input` as a file of queries only, on a graph of `nodes` nodes.
    pub fn queries_only(
        input: &'a Input,
        exec: Exec,
        nodes: u32,
        meter: &'a dyn Meter,
    ) -> CaseReader<'a> {
        let inner = match exec.window(input) {
            None => Inner::Sequential(ChessReader::of(input).alone(nodes)),
            Some(chunk_bytes) => {
                Inner::Parallel(Box::new(ParChessReader::of(input, chunk_bytes).alone(nodes)))
            }
        };
        CaseReader {
            input,
            format: Format::Chess,
            exec,
            inner,
            positions: Vec::new(),
            levels: false,
            play: Play::Normal,
            meter,
        }
    }

    /// The reader, with every node's level taken by [`CaseReader::next_case`] or not (they
    /// are by default; `solve` and `query` need none, and save 4 bytes per node and a read
    /// per move).
    pub fn with_levels(mut self, levels: bool) -> CaseReader<'a> {
        self.levels = levels;
        self
    }

    /// The reader, with the numbers of `play` taken along the search of each case where the
    /// search can take them ([`Evaluated::numbers`]), and every node's level with them.
    pub fn playing(mut self, play: Play) -> CaseReader<'a> {
        self.play = play;
        self
    }

    /// Bytes of the input read so far (for progress).
    pub fn bytes_read(&self) -> usize {
        match &self.inner {
            Inner::Sequential(r) => r.offset(),
            Inner::Parallel(r) => r.offset(),
            Inner::Edges { read } => usize::from(*read) * self.input.len_hint().unwrap_or(0),
        }
    }

    /// The input's length for progress bars: 0 (unknown) for a stream.
    fn total(&self) -> u64 {
        self.input.len_hint().unwrap_or(0) as u64
    }

    /// Fails if anything but whitespace follows the end of the queries (for a file of queries
    /// only, whose optional `0` must be its last token).
    pub fn expect_end(&mut self) -> Result<(), Error> {
        let offset = match &mut self.inner {
            Inner::Sequential(r) => r.next_token_offset(),
            Inner::Parallel(r) => r.next_token_offset(),
            Inner::Edges { .. } => None,
        };
        match offset {
            None => self.failure().map_or(Ok(()), Err),
            Some(offset) => Err(self.error(ParseError { offset, kind: ParseErrorKind::AfterEnd })),
        }
    }

    /// Reads the next case's graph: its number, the graph and the time it took.
    fn read_case(&mut self) -> Result<Option<(u64, GameGraph, Duration)>, Error> {
        let start = Instant::now();
        let case = self.case() + 1;
        self.stage(case, "reading", Unit::Bytes, self.total());
        let Some(graph) = self.next_graph()? else {
            return self.failure().map_or(Ok(None), Err);
        };
        Ok(Some((case, graph, start.elapsed())))
    }

    /// Reads, orders and evaluates the next case; `None` at the end of the input.
    pub fn next_case(&mut self) -> Result<Option<Evaluated>, Error> {
        let Some((case, graph, parse)) = self.read_case()? else { return Ok(None) };
        let start = Instant::now();
        self.stage(case, "ordering", Unit::Nodes, graph.node_count() as u64);
        let (exec, levels, play, meter) = (self.exec, self.levels, self.play, self.meter);
        // A game graph's values come from the search, its levels (and a play's numbers) on the
        // way; a sums graph's parts are ordered alone, then evaluated.
        let mut order = None;
        let valued = match &graph {
            GameGraph::Chess(g) => exec.values_playing(g, levels, play, meter),
            GameGraph::ChessWide(g) => exec.values_playing(g, levels, play, meter),
            GameGraph::Sums(g) => exec.order(g.deps(), meter).map(|levels_of| {
                order = Some(start.elapsed());
                self.stage(case, "evaluating", Unit::Nodes, graph.node_count() as u64);
                let values = exec.evaluate(g, &levels_of, meter);
                let levels = levels.then(|| levels_of.node_levels());
                Searched { values, levels, numbers: None }
            }),
        };
        let Searched { values, levels, numbers } = valued.map_err(|cycle| Error::Cycle {
            path: self.input.name().to_string(),
            case,
            cycle: cycle.0,
            // `--loopy` refuses the sums format: moves to sums of loopy games are not
            // supported.
            loopy_takes_it: self.format != Format::Sums,
        })?;
        let total = start.elapsed();
        let order = order.unwrap_or(total);
        let times = StageTimes { parse, order, evaluate: total - order, queries: Duration::ZERO };
        Ok(Some(Evaluated { case, graph, levels, values, numbers, times }))
    }

    /// Reads the next case and labels it as a loopy game (cycles and self-loops allowed,
    /// [`crate::eval::loopy()`]); `None` at the end of the input. The stages run sequentially on both
    /// paths for now.
    pub fn next_loopy_case(&mut self) -> Result<Option<Labelled>, Error> {
        let Some((case, graph, parse)) = self.read_case()? else { return Ok(None) };
        self.stage(case, "labelling", Unit::Nodes, graph.node_count() as u64);
        let (values, order, evaluate) = match &graph {
            GameGraph::Chess(g) => self.label(g),
            GameGraph::ChessWide(g) => self.label(g),
            GameGraph::Sums(_) => {
                return Err(Error::Usage("--loopy takes the chess and edge-list formats".into()))
            }
        };
        let times = StageTimes { parse, order, evaluate, queries: Duration::ZERO };
        Ok(Some(Labelled { case, graph, values, times }))
    }

    fn label<O: Offset>(&self, graph: &Csr<O>) -> (Values, Duration, Duration) {
        self.exec.label(graph, self.meter)
    }

    /// Reads the next case's graph in the reader's format.
    fn next_graph(&mut self) -> Result<Option<GameGraph>, Error> {
        let sums = self.format == Format::Sums;
        let read = match &mut self.inner {
            Inner::Sequential(r) if sums => r.next_sums_graph().map(|g| g.map(GameGraph::Sums)),
            Inner::Sequential(r) => r.next_graph(),
            Inner::Parallel(r) if sums => r.next_sums_graph().map(|g| g.map(GameGraph::Sums)),
            Inner::Parallel(r) => r.next_graph(),
            Inner::Edges { read: true } => Ok(None),
            Inner::Edges { read } => {
                *read = true;
                return self.read_edges().map(Some);
            }
        };
        read.map_err(|e| self.error(e))
    }

    /// Reads the input as an edge list, a stream as it arrives.
    fn read_edges(&mut self) -> Result<GameGraph, Error> {
        let Format::Edges { nodes } = self.format else { unreachable!("edges reader") };
        let input = self.input;
        let mut text = match input.is_stream() {
            true => input.take_stream().map_or(Text::Whole(&[]), Text::stream),
            false => Text::Whole(input.bytes()),
        };
        let window = self.exec.chunk_bytes();
        let read = self.exec.read_edges(&mut text, nodes, window, self.meter);
        match (read, failed(input, text.take_failure())) {
            (_, Some(failure)) => Err(failure),
            (Ok(graph), None) => Ok(graph),
            (Err(e), None) => Err(Error::parse_at(input.name(), e.at, e.error)),
        }
    }

    /// Tells the meter a stage of `case` starts.
    fn stage(&self, case: u64, name: &'static str, unit: Unit, total: u64) {
        self.meter.start(Stage { case, name, unit, total });
    }

    /// The 1-based number of the current case.
    pub fn case(&self) -> u64 {
        match &self.inner {
            Inner::Sequential(r) => r.case(),
            Inner::Parallel(r) => r.case(),
            Inner::Edges { read } => u64::from(*read),
        }
    }

    /// Goes through the rest of the current case's queries: `answer(query_number, positions,
    /// bufs)` fills buffers (in parallel on the parallel path), `flush(bufs)` writes them, in
    /// input order; rows are held in `R` (CSV bytes, or a columnar sink's columns). Returns
    /// the number of queries.
    pub fn queries<R, A, W>(&mut self, answer: A, flush: W) -> Result<u64, Error>
    where
        R: Piece,
        A: Fn(u64, &[u32], &mut Bufs<R>) + Sync,
        W: FnMut(&Bufs<R>) -> Result<(), Error>,
    {
        self.queries_ahead(answer, None::<&fn(&[u32], usize)>, flush)
    }

    /// [`CaseReader::queries`], with `ahead` starting the reads of later answers on the
    /// parallel path ([`answer::answer_pieces`]); the sequential path reads one query at
    /// a time and has none to start.
    pub fn queries_ahead<R, A, H, W>(
        &mut self,
        answer: A,
        ahead: Option<&H>,
        flush: W,
    ) -> Result<u64, Error>
    where
        R: Piece,
        A: Fn(u64, &[u32], &mut Bufs<R>) + Sync,
        H: Fn(&[u32], usize) + Sync,
        W: FnMut(&Bufs<R>) -> Result<(), Error>,
    {
        self.read_queries("answering", answer, ahead, flush)
    }

    /// [`CaseReader::queries_ahead`] as the stage `name` of the progress bar: what the run is
    /// doing with the queries it reads (answering them, or skipping past them).
    fn read_queries<R, A, H, W>(
        &mut self,
        name: &'static str,
        answer: A,
        ahead: Option<&H>,
        mut flush: W,
    ) -> Result<u64, Error>
    where
        R: Piece,
        A: Fn(u64, &[u32], &mut Bufs<R>) + Sync,
        H: Fn(&[u32], usize) + Sync,
        W: FnMut(&Bufs<R>) -> Result<(), Error>,
    {
        let (mut bufs, mut pieces) = (Bufs::<R>::default(), Vec::new());
        let mut count = 0u64;
        self.stage(self.case(), name, Unit::Bytes, self.total());
        let meter = self.meter;
        match &mut self.inner {
            Inner::Sequential(r) => {
                loop {
                    match r.next_query(&mut self.positions) {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(e) => {
                            // What was answered before the bad query is written, as the
                            // parallel path writes its batches before reporting.
                            flush(&bufs)?;
                            return Err(error(self.input, e));
                        }
                    }
                    count += 1;
                    answer(count, &self.positions, &mut bufs);
                    if bufs.len() >= FLUSH_BYTES {
                        flush(&bufs)?;
                        bufs.clear();
                    }
                    if count % QUERIES_PER_REPORT == 0 {
                        meter.set(r.offset() as u64);
                    }
                }
            }
            Inner::Parallel(r) => {
                while let Some(batch) = match r.next_queries() {
                    Ok(batch) => batch,
                    Err(e) => return Err(window_error(self.input, r, e)),
                } {
                    count += batch.len() as u64;
                    let answered = answer::answer_pieces(&batch, &mut pieces, &answer, ahead);
                    if R::WRITTEN_APART {
                        // Bytes: each piece is written as it is, with no copy of the batch
                        // into one buffer (71 MB on the 10M/100M file's million queries).
                        for piece in answered {
                            flush(piece)?;
                        }
                    } else {
                        bufs.append_all(answered);
                        flush(&bufs)?;
                        bufs.clear();
                    }
                    meter.set(r.offset() as u64);
                }
            }
            Inner::Edges { .. } => {}
        }
        if !bufs.is_empty() {
            flush(&bufs)?;
        }
        Ok(count)
    }

    /// Reads past the rest of the current case's queries, checking them (`values`, which
    /// answers none: its bar says `skipping queries`, not `answering`).
    pub fn skip_queries(&mut self) -> Result<u64, Error> {
        let none = None::<&fn(&[u32], usize)>;
        self.read_queries("skipping queries", |_, _, _: &mut Bufs| {}, none, |_| Ok(()))
    }

    /// The error to report for `e`, which the reader has just returned.
    fn error(&mut self, e: ParseError) -> Error {
        match &mut self.inner {
            Inner::Parallel(r) => window_error(self.input, r, e),
            _ => error(self.input, e),
        }
    }

    /// The failed read that ended a stream early, if one did (the reader took it for the end).
    fn failure(&mut self) -> Option<Error> {
        let Inner::Parallel(r) = &mut self.inner else { return None };
        read_failure(self.input, r)
    }
}

fn error(input: &Input, e: ParseError) -> Error {
    Error::parse(input.name(), input.bytes(), e)
}

/// The error for `e` from the window reader `r`: a failed read of its stream if one ended it,
/// else `e` where `r` places it.
fn window_error(input: &Input, r: &mut ParChessReader, e: ParseError) -> Error {
    read_failure(input, r).unwrap_or_else(|| Error::parse_at(input.name(), r.locate(e.offset), e))
}

fn read_failure(input: &Input, r: &mut ParChessReader) -> Option<Error> {
    failed(input, r.take_failure())
}

/// The error for a failed read of `input`'s stream (what failed, and what it was doing).
fn failed(input: &Input, failure: Option<(std::io::Error, &'static str)>) -> Option<Error> {
    failure.map(|(e, failing)| Error::io(input.name(), failing, e))
}

/// The window reader's batches, as the answering step reads batches: the conductor joins the
/// two stages, so neither knows the other.
impl answer::Batch for QueryBatch<'_> {
    fn len(&self) -> usize {
        QueryBatch::len(self)
    }

    fn positions(&self, i: usize) -> &[u32] {
        QueryBatch::positions(self, i)
    }

    fn first_query(&self) -> u64 {
        self.first_query
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Csv;
    use std::sync::Mutex;

    /// The names of the stages a run started.
    #[derive(Default)]
    struct Stages(Mutex<Vec<&'static str>>);

    impl Meter for Stages {
        fn start(&self, stage: Stage) {
            self.0.lock().expect("not poisoned").push(stage.name);
        }
        fn set(&self, _: u64) {}
        fn phase(&self, _: &'static str, _: u64) {}
    }

    /// Regression (issue 63): `values` read past each case's queries under the label
    /// `answering`, and it answers none; `stats`, which counts their outcomes, still answers.
    #[test]
    fn values_skips_the_queries_it_does_not_answer() {
        let text = b"3\n2 1 2\n1 2\n0\n1 0\n2 1 2\n0\n2\n1 1\n0\n1 0\n".to_vec();
        let input = Input::from_bytes("<test>", text);
        for exec in [Exec::Sequential, Exec::Rayon { chunk_bytes: 4 }] {
            let stages = Stages::default();
            let mut out = Vec::new();
            let how = (exec, Format::Chess, false);
            crate::exec::values(&input, how, &mut Csv::new(&mut out), &stages).expect("values");
            let names = stages.0.into_inner().expect("not poisoned");
            assert!(names.contains(&"skipping queries"), "{exec:?}: {names:?}");
            assert!(!names.contains(&"answering"), "{exec:?}: {names:?}");
            let stages = Stages::default();
            crate::exec::stats(&input, how, &stages).expect("stats");
            let names = stages.0.into_inner().expect("not poisoned");
            assert!(names.contains(&"answering"), "{exec:?}: {names:?}");
        }
    }
}
