//! The case loop every command shares: read a case's graph, order and evaluate it, then go
//! through its queries, on the sequential or the parallel code path.
//!
//! Commands differ only in what they do with an evaluated case and with each query, so they
//! pass closures; this module owns the choice of path, the error positions and the timing.

use std::time::{Duration, Instant};

use crate::chess::ChessReader;
use crate::chess_parallel::ParChessReader;
use crate::cli::Format;
use crate::config::Config;
use crate::error::{Error, ParseError};
use crate::eval;
use crate::input::Input;
use crate::query::{self, Bufs};
use crate::sums::GameGraph;
use crate::topo::{self, Levels};

/// Flush answered queries to their outputs once this many bytes are buffered (sequential path).
const FLUSH_BYTES: usize = 1 << 16;

/// A case's graph, ordered and evaluated.
#[derive(Debug)]
pub struct Evaluated {
    /// 1-based case number.
    pub case: u64,
    /// The game.
    pub graph: GameGraph,
    /// Kahn levels.
    pub levels: Levels,
    /// Grundy value of every node.
    pub values: Vec<u32>,
    /// Time spent on each stage.
    pub times: StageTimes,
}

/// Wall-clock time of each stage of a case.
#[derive(Debug, Clone, Copy, Default)]
pub struct StageTimes {
    /// Reading the graph.
    pub parse: Duration,
    /// Kahn ordering.
    pub order: Duration,
    /// Grundy evaluation.
    pub evaluate: Duration,
    /// Reading (and answering) the queries.
    pub queries: Duration,
}

/// How far a run has got, passed with each flush of answers.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    /// Bytes of the input read.
    pub bytes: usize,
    /// Queries of the case answered.
    pub queries: u64,
}

/// Reads the cases of one input on the path `config` selects.
pub struct CaseReader<'a> {
    input: &'a Input,
    format: Format,
    parallel: bool,
    inner: Inner<'a>,
    positions: Vec<u32>,
}

enum Inner<'a> {
    Sequential(ChessReader<'a>),
    Parallel(ParChessReader<'a>),
}

impl<'a> CaseReader<'a> {
    /// A reader at the start of `input`, a file in `format`.
    pub fn new(input: &'a Input, config: &Config, format: Format) -> CaseReader<'a> {
        let inner = if config.sequential() {
            Inner::Sequential(ChessReader::new(input.bytes()))
        } else {
            Inner::Parallel(ParChessReader::new(input.bytes(), config.chunk_bytes))
        };
        CaseReader { input, format, parallel: !config.sequential(), inner, positions: Vec::new() }
    }

    /// A reader of `input` as a file of queries only, on a graph of `nodes` nodes.
    pub fn queries_only(input: &'a Input, config: &Config, nodes: u32) -> CaseReader<'a> {
        let inner = if config.sequential() {
            Inner::Sequential(ChessReader::queries_only(input.bytes(), nodes))
        } else {
            Inner::Parallel(ParChessReader::queries_only(input.bytes(), config.chunk_bytes, nodes))
        };
        let format = Format::Chess;
        CaseReader { input, format, parallel: !config.sequential(), inner, positions: Vec::new() }
    }

    /// Bytes of the input read so far (for progress).
    pub fn bytes_read(&self) -> usize {
        match &self.inner {
            Inner::Sequential(r) => r.offset(),
            Inner::Parallel(r) => r.offset(),
        }
    }

    /// Fails if anything but whitespace follows the end of the queries (for a file of queries
    /// only, whose optional `0` must be its last token).
    pub fn expect_end(&mut self) -> Result<(), Error> {
        let offset = match &mut self.inner {
            Inner::Sequential(r) => r.next_token_offset(),
            Inner::Parallel(r) => r.next_token_offset(),
        };
        match offset {
            None => Ok(()),
            Some(offset) => {
                let (line, column) = crate::error::line_column(self.input.bytes(), offset);
                Err(Error::Parse {
                    path: self.input.name().to_string(),
                    line,
                    column,
                    message: "expected the end of the input after the 0 that ends the queries"
                        .into(),
                })
            }
        }
    }

    /// Reads, orders and evaluates the next case; `None` at the end of the input.
    pub fn next_case(&mut self) -> Result<Option<Evaluated>, Error> {
        let start = Instant::now();
        let graph = match (&mut self.inner, self.format) {
            (Inner::Sequential(r), Format::Chess) => {
                r.next_graph().map(|g| g.map(GameGraph::Chess))
            }
            (Inner::Sequential(r), Format::Sums) => {
                r.next_sums_graph().map(|g| g.map(GameGraph::Sums))
            }
            (Inner::Parallel(r), Format::Chess) => r.next_graph().map(|g| g.map(GameGraph::Chess)),
            (Inner::Parallel(r), Format::Sums) => {
                r.next_sums_graph().map(|g| g.map(GameGraph::Sums))
            }
        };
        let Some(graph) = graph.map_err(|e| self.error(e))? else { return Ok(None) };
        let case = self.case();
        let parse = start.elapsed();
        // The graph's text is parsed: its pages need not stay mapped while it is evaluated.
        self.input.release_before(self.bytes_read());
        let start = Instant::now();
        let deps = graph.deps();
        let levels = if self.parallel { topo::levels_parallel(deps) } else { topo::levels(deps) };
        let levels = levels.map_err(|cycle| Error::Cycle {
            path: self.input.name().to_string(),
            case,
            cycle,
        })?;
        let order = start.elapsed();
        let start = Instant::now();
        let values = match (&graph, self.parallel) {
            (GameGraph::Chess(g), true) => eval::grundy_parallel(g, &levels),
            (GameGraph::Chess(g), false) => eval::grundy(g, &levels),
            (GameGraph::Sums(g), true) => eval::grundy_parallel(g, &levels),
            (GameGraph::Sums(g), false) => eval::grundy(g, &levels),
        };
        let times = StageTimes { parse, order, evaluate: start.elapsed(), queries: Duration::ZERO };
        Ok(Some(Evaluated { case, graph, levels, values, times }))
    }

    /// The 1-based number of the current case.
    pub fn case(&self) -> u64 {
        match &self.inner {
            Inner::Sequential(r) => r.case(),
            Inner::Parallel(r) => r.case(),
        }
    }

    /// Goes through the rest of the current case's queries: `answer(query_number, positions,
    /// bufs)` fills buffers (in parallel on the parallel path), `flush(bufs, done)` writes them,
    /// in input order (`done` tells how far the run is, for progress). Returns the number of
    /// queries.
    pub fn queries<A, W>(&mut self, answer: A, mut flush: W) -> Result<u64, Error>
    where
        A: Fn(u64, &[u32], &mut Bufs) + Sync,
        W: FnMut(&Bufs, Done) -> Result<(), Error>,
    {
        let mut bufs = Bufs::default();
        let mut count = 0u64;
        match &mut self.inner {
            Inner::Sequential(r) => {
                loop {
                    match r.next_query(&mut self.positions) {
                        Ok(true) => {}
                        Ok(false) => break,
                        Err(e) => {
                            // What was answered before the bad query is written, as the
                            // parallel path writes its batches before reporting.
                            flush(&bufs, Done { bytes: r.offset(), queries: count })?;
                            return Err(error(self.input, e));
                        }
                    }
                    count += 1;
                    answer(count, &self.positions, &mut bufs);
                    if bufs.len() >= FLUSH_BYTES {
                        flush(&bufs, Done { bytes: r.offset(), queries: count })?;
                        bufs.clear();
                        self.input.release_before(r.offset());
                    }
                }
            }
            Inner::Parallel(r) => {
                while let Some(batch) = r.next_queries().map_err(|e| error(self.input, e))? {
                    let answered = query::answer_batch(&batch, &mut bufs, &answer);
                    count += batch.len() as u64;
                    flush(&bufs, Done { bytes: r.offset(), queries: count })?;
                    bufs.clear();
                    self.input.release_before(r.offset());
                    if let Err(bad) = answered {
                        return Err(error(self.input, r.position_error(bad.query, bad.index)));
                    }
                }
            }
        }
        if !bufs.is_empty() {
            flush(&bufs, Done { bytes: self.bytes_read(), queries: count })?;
        }
        Ok(count)
    }

    /// Reads past the rest of the current case's queries, checking them.
    pub fn skip_queries(&mut self) -> Result<u64, Error> {
        self.queries(|_, _, _| {}, |_, _| Ok(()))
    }

    fn error(&self, e: ParseError) -> Error {
        error(self.input, e)
    }
}

fn error(input: &Input, e: ParseError) -> Error {
    Error::parse(input.name(), input.bytes(), e)
}
