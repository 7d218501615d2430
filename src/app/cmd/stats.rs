//! `grundy stats`: sizes, levels, degrees, value histograms, query outcomes and stage times of
//! each case, with a total over all cases, the run's time and its peak memory.

use std::time::Instant;

use crate::app::cli::StatsArgs;
use crate::app::config::{self, Config};
use grundy::error::Error;
use grundy::exec;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::play::Play;
use grundy::report::stats::{CaseStats, PlayStats, Report};

/// Runs `grundy stats` with the user's arguments.
pub fn run(args: &StatsArgs, config: &Config) -> Result<(), Error> {
    let started = Instant::now();
    let format = config::format(&args.format)?;
    super::check_loopy(args.loopy, format, false)?;
    super::check_play((args.play, args.genus), (args.loopy, format, false))?;
    let play = args.play.play(args.genus);
    let progress = Progress::new(config.progress);
    let input = super::open_text(args.file.as_deref(), config)?;
    let index = super::open_index(&input, &args.format, args.loopy, &args.index)?;
    let html = args.html.as_deref();
    super::refuse_clobbering(&[("FILE", args.file.as_deref())], &[("--html", html)])?;
    let mut out = Sink::open_beside(html, &progress)?;
    if play != Play::Normal {
        super::check_play_index(play, index.as_ref())?;
    }
    let cases = match &index {
        Some(index) if play != Play::Normal => {
            exec::play::stats_of_index(index, (config.exec, play), &progress)?
        }
        Some(index) => exec::stats_of_index(index)?,
        None if play != Play::Normal => {
            exec::play::stats(&input, (config.exec, format, play), &progress)?
        }
        None => exec::stats(&input, (config.exec, format, args.loopy), &progress)?,
    };
    progress.finish();
    if cases.is_empty() && !args.json && html.is_none() {
        out.put(format!("{}: no cases\n", input.name()).as_bytes())?;
        return Ok(out.finish()?);
    }
    let mut total = CaseStats::total(&cases, args.loopy);
    if play != Play::Normal && total.play.is_none() {
        total.play = Some(PlayStats::new(play));
    }
    let report = Report {
        file: input.name(),
        total,
        cases: &cases,
        seconds: started.elapsed().as_secs_f64(),
        peak_memory_bytes: grundy::io::memory::peak_bytes(),
    };
    let text = match (args.json, html) {
        (_, Some(_)) => grundy::report::html::page(&report, false),
        (true, None) => report.to_json(),
        (false, None) => report.to_text(),
    };
    out.put(text.as_bytes())?;
    Ok(out.finish()?)
}
