//! `grundy values`: every node's Grundy value, level and out-degree, as CSV; with `--loopy`,
//! generalized values (finite or `inf`), the set K of an infinite node and its outcome.

use crate::app::cli::ValuesArgs;
use crate::app::config::{self, Config};
use grundy::error::Error;
use grundy::eval::Values;
use grundy::exec::{CaseReader, Evaluated, Labelled};
use grundy::graph::{Csr, GameGraph, Offset};
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::meter::{Meter, Stage, Unit};
use grundy::report::{Rows, LOOPY_VALUES_HEADER, VALUES_HEADER};

/// Nodes per piece of rows formatted in parallel; pieces are written in order, a batch at a
/// time, so the rows of a huge case never sit in memory at once.
const NODES_PER_PIECE: usize = 1 << 15;
const PIECES_PER_BATCH: usize = 64;

/// Runs `grundy values` with the user's arguments.
pub fn run(args: &ValuesArgs, config: &Config) -> Result<(), Error> {
    #[cfg(feature = "cluster")]
    if let Some(plan) = crate::app::cluster::plan(&args.cluster)? {
        return crate::app::cluster::run(plan, |writes| on_cluster(args, config, writes));
    }
    let format = check(args)?;
    let progress = Progress::new(config.progress);
    let input = Input::open(args.file.as_deref())?;
    let mut out = Sink::open_beside(args.output.as_deref(), &progress)?;
    alone(&input, (config, format, args.loopy), &mut out, &progress)?;
    progress.finish();
    Ok(out.finish()?)
}

/// The rows of every case of `input`, header first, by this process alone; with `loopy`, the
/// `--loopy` rows.
fn alone(
    input: &Input,
    (config, format, loopy): (&Config, grundy::Format, bool),
    out: &mut Sink,
    progress: &Progress,
) -> Result<(), Error> {
    out.put(&Rows::header(if loopy { LOOPY_VALUES_HEADER } else { VALUES_HEADER }))?;
    let mut reader = CaseReader::new(input, config.exec, format, progress);
    loop {
        if loopy {
            let Some(case) = reader.next_loopy_case()? else { break };
            match &case.graph {
                GameGraph::Chess(g) => write_loopy_rows(&case, g, config, out, progress)?,
                GameGraph::ChessWide(g) => write_loopy_rows(&case, g, config, out, progress)?,
                GameGraph::Sums(_) => unreachable!("a loopy case is a chess graph"),
            }
        } else {
            let Some(case) = reader.next_case()? else { break };
            write_rows(&case, config, out, progress)?;
        }
        reader.skip_queries()?;
    }
    Ok(())
}

/// The input format, once the arguments are checked.
fn check(args: &ValuesArgs) -> Result<grundy::Format, Error> {
    let format = config::format(&args.format)?;
    super::check_loopy(args.loopy, format, &args.cluster)?;
    let output = args.output.as_deref();
    crate::app::cmd::refuse_clobbering(&[("FILE", args.file.as_deref())], &[("-o", output)])?;
    Ok(format)
}

/// `values` across the processes of a cluster: process 0 writes the rows; an input error or a
/// cycle is answered by process 0 alone, as without a cluster.
#[cfg(feature = "cluster")]
fn on_cluster<'a>(
    args: &ValuesArgs,
    config: &'a Config,
    writes: bool,
) -> Result<crate::app::cluster::Prepared<'a>, Error> {
    use crate::app::cluster::{self, Prepared, Stream};
    use std::sync::Arc;
    let format = check(args)?;
    let inputs = cluster::open_inputs(format, &[("FILE", args.file.as_deref())])?;
    let input = Arc::clone(&inputs[0]);
    let mut streams = Vec::new();
    if writes {
        streams.push(Stream::new(Sink::open(args.output.as_deref())?, Rows::header(VALUES_HEADER)));
    }
    let job = grundy::cluster::Job::Values(Arc::clone(&input));
    let alone = Box::new(move |sinks: &mut [Sink]| {
        alone(&input, (config, format, false), &mut sinks[0], &Progress::new(false))
    });
    Ok(Prepared { job, streams, alone })
}

/// Writes the `--loopy` rows of one case, in node order.
fn write_loopy_rows<O: Offset>(
    case: &Labelled,
    graph: &Csr<O>,
    config: &Config,
    out: &mut Sink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let values = &case.values;
    in_pieces((case.case, values.len()), config, out, meter, |rows, v| {
        let value = values.get(v);
        let set = if value == Values::INFINITE {
            grundy::eval::infinite_set(graph, values, v)
        } else {
            Vec::new()
        };
        rows.loopy_row((case.case, v), value, &set, graph.out_degree(v));
    })
}

/// Writes the rows of one case, in node order.
fn write_rows(
    case: &Evaluated,
    config: &Config,
    out: &mut Sink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let levels = case.levels.node_levels();
    let (values, graph) = (&case.values, &case.graph);
    in_pieces((case.case, values.len()), config, out, meter, |rows, v| {
        rows.value_row(case.case, v, values.get(v), levels[v as usize], graph.move_count(v));
    })
}

/// Writes `row(rows, node)` of every node of a case of `nodes` nodes, in node order: pieces
/// formatted in parallel (on the parallel path), written a batch at a time.
fn in_pieces(
    (case, nodes): (u64, usize),
    config: &Config,
    out: &mut Sink,
    meter: &dyn Meter,
    row: impl Fn(&mut Rows, u32) + Sync,
) -> Result<(), Error> {
    meter.start(Stage { case, name: "writing", unit: Unit::Rows, total: nodes as u64 });
    let rows_of = |first: usize| {
        let mut rows = Rows::new();
        for v in first..(first + NODES_PER_PIECE).min(nodes) {
            row(&mut rows, v as u32);
        }
        rows.into_bytes()
    };
    let starts: Vec<usize> = (0..nodes).step_by(NODES_PER_PIECE).collect();
    for batch in starts.chunks(PIECES_PER_BATCH) {
        let pieces = config.exec.map(batch, rows_of);
        for piece in pieces {
            out.put(&piece)?;
        }
        grundy::io::sink::stop_if_all_closed(&[&*out])?;
        let written = batch.last().map_or(nodes, |&s| (s + NODES_PER_PIECE).min(nodes));
        meter.set(written as u64);
    }
    Ok(())
}
