//! `grundy solve`: WIN or LOSE per query, judge-exact, nothing else on stdout; optionally a CSV
//! report with the nim-sum and a winning move of every query.
//!
//! The engine is [`grundy::exec::solve`]; this module checks the arguments and opens the
//! files. The report is a file that appears only if the whole run succeeds.

use grundy::error::Error;
use grundy::exec;
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;

use crate::app::cli::SolveArgs;
use crate::app::config::{self, Config};

/// Runs `grundy solve` with the user's arguments.
pub fn run(args: &SolveArgs, config: &Config) -> Result<(), Error> {
    let format = config::format(&args.format)?;
    if !format.has_queries() {
        return Err(Error::Usage(
            "solve answers the queries of a file, and an edge list has none: use `grundy query \
             --format edges GRAPH QUERIES`"
                .into(),
        ));
    }
    if args.report.as_deref().is_some_and(|p| p.as_os_str() == "-") {
        return Err(Error::Usage(
            "--report - would mix CSV rows into the judge output on stdout: give the report a \
             file name"
                .into(),
        ));
    }
    let report_path = args.report.as_deref();
    crate::app::cmd::refuse_clobbering(
        &[("FILE", args.file.as_deref())],
        &[("-o", args.output.as_deref()), ("--report", report_path)],
    )?;
    let progress = Progress::new(config.progress);
    let input = Input::open(args.file.as_deref())?;
    let mut report = report_path.map(|p| Sink::open(Some(p))).transpose()?;
    let mut out = Sink::open_beside(args.output.as_deref(), &progress)?;
    exec::solve(&input, config.exec, format, &mut out, report.as_mut(), &progress)?;
    progress.finish();
    out.finish()?;
    report.map_or(Ok(()), Sink::finish)
}
