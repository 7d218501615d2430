//! `grundy values`: every node's Grundy value, level and out-degree, as CSV.

use rayon::prelude::*;

use crate::cases::{CaseReader, Evaluated};
use crate::cli::ValuesArgs;
use crate::config::Config;
use crate::error::Error;
use crate::input::Input;
use crate::output::Sink;
use crate::progress::Progress;
use crate::report::{Rows, VALUES_HEADER};

/// Nodes per piece of rows formatted in parallel; pieces are written in order, a batch at a
/// time, so the rows of a huge case never sit in memory at once.
const NODES_PER_PIECE: usize = 1 << 15;
const PIECES_PER_BATCH: usize = 64;

/// Runs `grundy values` with the user's arguments.
pub fn run(args: &ValuesArgs, config: &Config) -> Result<(), Error> {
    let input = Input::open(Some(&args.file))?;
    let mut out = Sink::open(args.output.as_deref())?;
    out.put(&Rows::header(VALUES_HEADER))?;
    let mut progress = Progress::new(config.progress, input.bytes().len() as u64);
    let mut reader = CaseReader::new(&input, config, args.format);
    while let Some(case) = reader.next_case()? {
        progress.stage(format!("case {}: writing {} rows", case.case, case.graph.node_count()));
        write_rows(&case, config, &mut out)?;
        reader.skip_queries()?;
        progress.bytes(reader.bytes_read());
    }
    progress.finish();
    out.finish()
}

/// Writes the rows of one case, in node order.
fn write_rows(case: &Evaluated, config: &Config, out: &mut Sink) -> Result<(), Error> {
    let levels = case.levels.node_levels();
    let rows_of = |first: usize| {
        let mut rows = Rows::new();
        let last = (first + NODES_PER_PIECE).min(case.values.len());
        for (v, (&value, &level)) in
            case.values.iter().zip(&levels).enumerate().take(last).skip(first)
        {
            let node = v as u32;
            rows.value_row(case.case, node, value, level, case.graph.move_count(node));
        }
        rows.into_bytes()
    };
    let starts: Vec<usize> = (0..case.values.len()).step_by(NODES_PER_PIECE).collect();
    for batch in starts.chunks(PIECES_PER_BATCH) {
        let pieces: Vec<Vec<u8>> = if config.sequential() {
            batch.iter().map(|&s| rows_of(s)).collect()
        } else {
            batch.par_iter().map(|&s| rows_of(s)).collect()
        };
        for piece in pieces {
            out.put(&piece)?;
        }
    }
    Ok(())
}
