//! The engine of `grundy query`: a file of queries answered against the first case of a graph
//! file, as rows (CSV, Parquet, Arrow IPC: a [`RowSink`]) with a winning move for each WIN.

use super::{CaseReader, Exec};
use crate::answer::{self, Bufs};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::GameGraph;
use crate::index::{Index, IndexedCase};
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::meter::Meter;
use crate::parse::chess::ChessReader;
use crate::parse::format::Format;
use crate::report::{self, Columns, RowSink, Table};

/// Answers the queries of `queries_input` against the first case of `graph_input`, as rows
/// of `columns` (with a header) to `out`. The engine of `grundy query`, apart from files
/// and terminals. With `loopy`, the graph may have cycles and a query may be a DRAW.
pub fn query(
    graph_input: &Input,
    queries_input: &Input,
    (exec, format, loopy): (Exec, Format, bool),
    columns: &Columns,
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::Queries(columns))?;
    let mut graphs = CaseReader::new(graph_input, exec, format, meter).with_levels(false);
    let case = if loopy {
        graphs.next_loopy_case()?.map(|c| (c.graph, c.values))
    } else {
        graphs.next_case()?.map(|c| (c.graph, c.values))
    };
    let Some((graph, values)) = case else {
        return Err(Error::NoGraph { path: graph_input.name().to_string() });
    };
    answer_all((&graph, &values, loopy), queries_input, (exec, format), columns, out, meter)
}

/// Answers the queries of `queries_input` against the first case of `index`, as [`query`]
/// answers them against the input the index was made from (with `--loopy` for a loopy
/// index).
pub fn query_index(
    index: &Index,
    queries_input: &Input,
    exec: Exec,
    columns: &Columns,
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::Queries(columns))?;
    if index.case_count() == 0 {
        return Err(Error::NoGraph { path: index.name().to_string() });
    }
    let case = index.case(0, false)?;
    let game = (&case.graph, &case.values, index.is_loopy());
    answer_all(game, queries_input, (exec, Format::Chess), columns, out, meter)
}

/// Answers the queries of `queries_input` against `case`, a case taken from an index (a
/// loopy game's when `loopy`), as [`query_index`] answers them: the engine of the server's
/// `POST /v1/query`, which takes its cases once and answers many files.
pub fn query_case(
    (case, loopy): (&IndexedCase, bool),
    queries_input: &Input,
    exec: Exec,
    columns: &Columns,
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::Queries(columns))?;
    let game = (&case.graph, &case.values, loopy);
    answer_all(game, queries_input, (exec, Format::Chess), columns, out, meter)
}

/// Answers the queries of `queries_input` on `graph` (with `values`, a loopy game's when
/// `loopy`), as rows of `columns` to `out`.
fn answer_all<S: RowSink>(
    (graph, values, loopy): (&GameGraph, &Values, bool),
    queries_input: &Input,
    (exec, format): (Exec, Format),
    columns: &Columns,
    out: &mut S,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let nodes = graph.node_count() as u32;
    let mut reader = CaseReader::queries_only(queries_input, exec, nodes, meter);
    // Winning moves are random reads of a graph far larger than the caches: started ahead.
    let moves = columns.wants_move();
    let ahead = |positions: &[u32], stage| match moves {
        true => answer::prefetch_move(graph, values, positions, stage),
        false => answer::prefetch_values(values, positions, stage),
    };
    let ahead = (!loopy).then_some(&ahead);
    let answered = reader.queries_ahead(
        |number, positions, bufs: &mut Bufs<S::Queries>| {
            let (at, game) = ((1, number), (graph, values));
            if loopy {
                report::push_loopy_row(&mut bufs.rows, columns, at, positions, game);
            } else {
                report::push_query_row(&mut bufs.rows, columns, at, positions, game);
            }
        },
        ahead,
        |bufs| {
            out.put_queries(&bufs.rows)?;
            match out.is_closed() {
                true => Err(IoError::OutputClosed.into()),
                false => Ok(()),
            }
        },
    );
    answered
        .and_then(|_| reader.expect_end())
        .map_err(|e| hint_graph_file(e, queries_input, format))
}

/// Adds to an error in a query file that the file reads as a graph, when it does: the likely
/// mistake is a graph file given where the queries belong.
fn hint_graph_file(error: Error, queries: &Input, format: Format) -> Error {
    match error {
        Error::Parse { path, line, column, message } if path == queries.name() => {
            // A stream cannot be read again (and is not held).
            let nodes = (!queries.is_stream()).then(|| graph_file_nodes(queries.bytes(), format));
            let message = match nodes.flatten() {
                Some(nodes) => format!(
                    "{message} (QUERIES looks like a graph file: it reads as a case of {nodes} \
                     nodes; give a file of queries, `M p_1 .. p_M` per line)"
                ),
                None => message,
            };
            Error::Parse { path, line, column, message }
        }
        other => other,
    }
}

/// The node count of the first case of `bytes` when the whole of it reads as a graph file
/// (the sums format for `Format::Sums`, else the chess format), every case's graph and
/// queries well formed up to the end, and the first case has nodes; else `None`.
///
/// Any query file starts like a graph (`1 0` is a case of one node), so a graph read at its
/// start proves nothing: a query file with one id out of range would be called a graph file.
/// Read to its end, a query file almost never holds: its first query's length would have to
/// be a node count, and every id after it below that count, in lists and queries that end
/// exactly at the end of the file. Error path only: it reads the file again.
fn graph_file_nodes(bytes: &[u8], format: Format) -> Option<usize> {
    let mut reader = ChessReader::new(bytes);
    let mut positions = Vec::new();
    let mut first = None;
    loop {
        let nodes = if format == Format::Sums {
            reader.next_sums_graph().ok()?.map(|g| g.node_count())
        } else {
            reader.next_graph().ok()?.map(|g| g.node_count())
        };
        let Some(nodes) = nodes else { break };
        first.get_or_insert(nodes);
        while reader.next_query(&mut positions).ok()? {}
    }
    first.filter(|&n| n > 0)
}
