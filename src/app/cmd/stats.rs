//! `grundy stats`: sizes, levels, degrees, value histograms, query outcomes and stage times of
//! each case, with a total over all cases, the run's time and its peak memory.

use std::time::Instant;

use crate::app::cli::StatsArgs;
use crate::app::config::{self, Config};
use grundy::answer::{self, Outcome};
use grundy::error::Error;
use grundy::exec::{CaseReader, StageTimes};
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::report::stats::{CaseStats, Outcomes, Report};

/// The outcomes of the current case's queries, by `outcome(positions)`.
fn count(
    reader: &mut CaseReader,
    outcome: impl Fn(&[u32]) -> Outcome + Sync,
) -> Result<Outcomes, Error> {
    let (mut wins, mut draws) = (0u64, 0u64);
    // Each WIN leaves a 1 in the buffers, each DRAW a 2, counted at each flush.
    let queries = reader.queries(
        |_, positions, bufs| match outcome(positions) {
            Outcome::Win => bufs.main.push(1),
            Outcome::Draw => bufs.main.push(2),
            Outcome::Lose => {}
        },
        |bufs| {
            wins += bufs.main.iter().filter(|&&b| b == 1).count() as u64;
            draws += bufs.main.iter().filter(|&&b| b == 2).count() as u64;
            Ok(())
        },
    )?;
    Ok(Outcomes { wins, losses: queries - wins - draws, draws: Some(draws) })
}

/// Runs `grundy stats` with the user's arguments.
pub fn run(args: &StatsArgs, config: &Config) -> Result<(), Error> {
    let started = Instant::now();
    let format = config::format(&args.format)?;
    super::check_loopy(args.loopy, format, &Default::default())?;
    let progress = Progress::new(config.progress);
    let input = Input::open(args.file.as_deref())?;
    let mut out = Sink::open_beside(None, &progress)?;
    let mut reader = CaseReader::new(&input, config.exec, format, &progress);
    let mut cases = Vec::new();
    loop {
        if args.loopy {
            let Some(case) = reader.next_loopy_case()? else { break };
            let start = Instant::now();
            let (graph, values) = (&case.graph, &case.values);
            let outcomes = count(&mut reader, |positions| {
                answer::loopy_answer_of(graph, values, positions, false).outcome
            })?;
            let times = StageTimes { queries: start.elapsed(), ..case.times };
            cases.push(CaseStats::of_loopy(&case, outcomes, times));
        } else {
            let Some(case) = reader.next_case()? else { break };
            let start = Instant::now();
            let table = case.values.nim_table();
            let outcomes =
                count(&mut reader, |positions| Outcome::of_nim_sum(table.nim_sum(positions)))?;
            let outcomes = Outcomes { draws: None, ..outcomes };
            let times = StageTimes { queries: start.elapsed(), ..case.times };
            cases.push(CaseStats::of(&case, outcomes, times));
        }
    }
    progress.finish();
    if cases.is_empty() && !args.json {
        out.put(format!("{}: no cases\n", input.name()).as_bytes())?;
        return Ok(out.finish()?);
    }
    let report = Report {
        file: input.name(),
        total: CaseStats::total(&cases, args.loopy),
        cases: &cases,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_bytes: grundy::io::memory::peak_bytes(),
    };
    let text = if args.json { report.to_json() } else { report.to_text() };
    out.put(text.as_bytes())?;
    Ok(out.finish()?)
}
