//! `grundy stats`: sizes, levels, degrees, value histograms, query outcomes and stage times of
//! each case, with a total over all cases, the run's time and its peak memory.

use std::time::Instant;

use crate::app::cli::StatsArgs;
use crate::app::config::{self, Config};
use grundy::answer::Outcome;
use grundy::error::Error;
use grundy::exec::{CaseReader, StageTimes};
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::report::stats::{CaseStats, Outcomes, Report};

/// Runs `grundy stats` with the user's arguments.
pub fn run(args: &StatsArgs, config: &Config) -> Result<(), Error> {
    let started = Instant::now();
    let format = config::format(&args.format)?;
    let progress = Progress::new(config.progress);
    let input = Input::open(args.file.as_deref())?;
    let mut out = Sink::open_beside(None, &progress)?;
    let mut reader = CaseReader::new(&input, config.exec, format, &progress);
    let mut cases = Vec::new();
    while let Some(case) = reader.next_case()? {
        let start = Instant::now();
        let values = &case.values;
        let mut wins = 0u64;
        // Each WIN leaves one byte in the buffers, counted at each flush.
        let queries = reader.queries(
            |_, positions, bufs| {
                if Outcome::of(values, positions) == Outcome::Win {
                    bufs.main.push(1);
                }
            },
            |bufs| {
                wins += bufs.main.len() as u64;
                Ok(())
            },
        )?;
        let times = StageTimes { queries: start.elapsed(), ..case.times };
        let outcomes = Outcomes { wins, losses: queries - wins };
        cases.push(CaseStats::of(&case, outcomes, times));
    }
    progress.finish();
    if cases.is_empty() && !args.json {
        out.put(format!("{}: no cases\n", input.name()).as_bytes())?;
        return out.finish();
    }
    let report = Report {
        file: input.name(),
        total: CaseStats::total(&cases),
        cases: &cases,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_bytes: grundy::io::memory::peak_bytes(),
    };
    let text = if args.json { report.to_json() } else { report.to_text() };
    out.put(text.as_bytes())?;
    out.finish()
}
