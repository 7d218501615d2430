//! The engine of `grundy values`: every node's Grundy value, level and out-degree as rows,
//! case after case, to a [`RowSink`] (CSV, Parquet, Arrow IPC); with `loopy`, generalized
//! values (finite or `inf`), the set K of an infinite node and the outcome of one token there.

use super::{CaseReader, Exec};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::{Csr, GameGraph, Offset};
use crate::index::Index;
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::store::{Ints, Store};
use crate::meter::{Meter, Stage, Unit};
use crate::parse::format::Format;
use crate::report::{LoopyPiece, RowSink, Table, ValuePiece};

/// Nodes per piece of rows formatted in parallel; pieces are written in order, a batch at a
/// time, so the rows of a huge case never sit in memory at once.
const NODES_PER_PIECE: usize = 1 << 15;
const PIECES_PER_BATCH: usize = 64;

/// Writes the rows of every case of `input` to `out`, header first; with `loopy`, the
/// `--loopy` rows. The engine of `grundy values`, apart from files and terminals.
pub fn values(
    input: &Input,
    (exec, format, loopy): (Exec, Format, bool),
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(if loopy { Table::LoopyValues } else { Table::Values })?;
    let mut reader = CaseReader::new(input, exec, format, meter);
    loop {
        if loopy {
            let Some(case) = reader.next_loopy_case()? else { break };
            write_loopy_case((case.case, &case.graph, &case.values), exec, out, meter)?;
        } else {
            let Some(case) = reader.next_case()? else { break };
            let levels = Ints::U32(Store::from(case.levels.unwrap_or_default()));
            write_rows((case.case, &case.graph, &case.values), &levels, exec, out, meter)?;
        }
        reader.skip_queries()?;
    }
    Ok(())
}

/// Writes the rows of every case of `index` to `out`, header first: the rows `values` (with
/// `--loopy` for a loopy index) writes of the input it was made from.
pub fn values_of_index(
    index: &Index,
    exec: Exec,
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let loopy = index.is_loopy();
    out.start(if loopy { Table::LoopyValues } else { Table::Values })?;
    for i in 0..index.case_count() {
        let case = index.case(i, !loopy)?;
        let game = (case.case, &case.graph, &case.values);
        match &case.levels {
            Some(levels) => write_rows(game, levels, exec, out, meter)?,
            None => write_loopy_case(game, exec, out, meter)?,
        }
    }
    Ok(())
}

/// Writes the `--loopy` rows of one case (its number, graph and values).
fn write_loopy_case(
    (case, graph, values): (u64, &GameGraph, &Values),
    exec: Exec,
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    match graph {
        GameGraph::Chess(g) => write_loopy_rows((case, g, values), exec, out, meter),
        GameGraph::ChessWide(g) => write_loopy_rows((case, g, values), exec, out, meter),
        GameGraph::Sums(_) => unreachable!("a loopy case is a chess graph"),
    }
}

/// Writes the `--loopy` rows of one case, in node order.
fn write_loopy_rows<O: Offset, S: RowSink>(
    (case, graph, values): (u64, &Csr<O>, &Values),
    exec: Exec,
    out: &mut S,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let put = |out: &mut S, piece| out.put_loopy(piece);
    in_pieces((case, values.len()), exec, (out, put), meter, |rows: &mut S::Loopy, v| {
        let value = values.get(v);
        let set = if value == Values::INFINITE {
            crate::eval::infinite_set(graph, values, v)
        } else {
            Vec::new()
        };
        rows.loopy_row((case, v), value, &set, graph.out_degree(v));
    })
}

/// Writes the rows of one case (its number, graph and values), in node order.
fn write_rows<S: RowSink>(
    (case, graph, values): (u64, &GameGraph, &Values),
    levels: &Ints,
    exec: Exec,
    out: &mut S,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let put = |out: &mut S, piece| out.put_values(piece);
    in_pieces((case, values.len()), exec, (out, put), meter, |rows: &mut S::Values, v| {
        rows.value_row(case, v, values.get(v), levels.get(v as usize), graph.move_count(v));
    })
}

/// Writes `row(piece, node)` of every node of a case of `nodes` nodes, in node order: pieces
/// (CSV bytes, or columns: the sink's `P`) filled in parallel (on the parallel path), each
/// handed to `put(out, piece)` in order, a batch at a time.
fn in_pieces<S: RowSink, P: Default + Send>(
    (case, nodes): (u64, usize),
    exec: Exec,
    (out, put): (&mut S, impl Fn(&mut S, P) -> Result<(), Error>),
    meter: &dyn Meter,
    row: impl Fn(&mut P, u32) + Sync,
) -> Result<(), Error> {
    meter.start(Stage { case, name: "writing", unit: Unit::Rows, total: nodes as u64 });
    let rows_of = |first: usize| {
        let mut rows = P::default();
        for v in first..(first + NODES_PER_PIECE).min(nodes) {
            row(&mut rows, v as u32);
        }
        rows
    };
    let starts: Vec<usize> = (0..nodes).step_by(NODES_PER_PIECE).collect();
    for batch in starts.chunks(PIECES_PER_BATCH) {
        let pieces = exec.map(batch, rows_of);
        for piece in pieces {
            put(out, piece)?;
        }
        if out.is_closed() {
            return Err(IoError::OutputClosed.into());
        }
        let written = batch.last().map_or(nodes, |&s| (s + NODES_PER_PIECE).min(nodes));
        meter.set(written as u64);
    }
    Ok(())
}
