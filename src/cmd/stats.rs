//! `grundy stats`: sizes, levels, degrees, value histograms and stage times of each case.

use std::time::Instant;

use crate::cases::CaseReader;
use crate::cli::StatsArgs;
use crate::config::Config;
use crate::error::Error;
use crate::input::Input;
use crate::output::Sink;
use crate::progress::Progress;
use crate::stats::{self, CaseStats};

/// Runs `grundy stats` with the user's arguments.
pub fn run(args: &StatsArgs, config: &Config) -> Result<(), Error> {
    let input = Input::open(Some(&args.file))?;
    let mut out = Sink::open(None)?;
    let mut progress = Progress::new(config.progress, input.bytes().len() as u64);
    let mut reader = CaseReader::new(&input, config, args.format);
    let mut all = Vec::new();
    while let Some(case) = reader.next_case()? {
        progress.stage(format!("case {}: {} nodes evaluated", case.case, case.graph.node_count()));
        let start = Instant::now();
        let queries = reader.skip_queries()?;
        let times = crate::cases::StageTimes { queries: start.elapsed(), ..case.times };
        let case_stats = CaseStats::of(&case, queries, times);
        if !args.json {
            // People see each case as soon as it is done.
            out.put(case_stats.to_text(input.name()).as_bytes())?;
        }
        all.push(case_stats);
        progress.bytes(reader.bytes_read());
    }
    progress.finish();
    if args.json {
        out.put(stats::json_document(input.name(), &all).as_bytes())?;
    } else if all.is_empty() {
        out.put(format!("{}: no cases\n", input.name()).as_bytes())?;
    }
    out.finish()
}
