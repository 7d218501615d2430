//! `grundy solve`: WIN or LOSE per query, judge-exact, nothing else on stdout; optionally a
//! report (CSV, Parquet or Arrow IPC) with the nim-sum and a winning move of every query.
//!
//! The engine is [`grundy::exec::solve`]; this module checks the arguments and opens the
//! files. The report is a file that appears only if the whole run succeeds.

use grundy::error::Error;
use grundy::exec;
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::report::Csv;

use crate::app::cli::SolveArgs;
use crate::app::config::{self, Config};

/// Runs `grundy solve` with the user's arguments.
pub fn run(args: &SolveArgs, config: &Config) -> Result<(), Error> {
    let format = check(args, false)?;
    let rows = super::rows_format(args.output_format, ("--report", args.report.as_deref()), false)?;
    let progress = Progress::new(config.progress);
    let input = super::open_text(args.file.as_deref(), config)?;
    if grundy::index::is_index(input.bytes()) {
        return Err(Error::Usage(format!(
            "{} is an index, which keeps a game's values but not its queries: answer a file of \
             queries with `grundy query {} QUERIES`",
            input.name(),
            input.name()
        )));
    }
    let mut report = args.report.as_deref().map(|p| Sink::open(Some(p))).transpose()?;
    let mut out = match &args.check {
        Some(expected) => Sink::check(Input::open(Some(expected))?),
        None => Sink::open_beside(args.output.as_deref(), &progress)?,
    };
    let play = args.play.play(args.genus);
    let how = (config.exec, format, args.loopy);
    let played = (config.exec, format, play);
    match report.as_mut() {
        None if play != grundy::play::Play::Normal => {
            exec::play::solve(&input, played, &mut out, None::<&mut Csv<Sink>>, &progress)?
        }
        None => exec::solve(&input, how, &mut out, None::<&mut Csv<Sink>>, &progress)?,
        Some(report) => super::with_rows!(rows, report, |sink| {
            if play == grundy::play::Play::Normal {
                exec::solve(&input, how, &mut out, Some(&mut sink), &progress)
            } else {
                exec::play::solve(&input, played, &mut out, Some(&mut sink), &progress)
            }
        })?,
    }
    progress.finish();
    out.finish()?;
    Ok(report.map_or(Ok(()), Sink::finish)?)
}

/// The input format, once the arguments are checked.
fn check(args: &SolveArgs, on_cluster: bool) -> Result<grundy::Format, Error> {
    let format = config::format(&(&args.format).into())?;
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
    super::check_loopy(args.loopy, format, on_cluster)?;
    super::check_play((args.play, args.genus), (args.loopy, format, on_cluster))?;
    crate::app::cmd::refuse_clobbering(
        &[("FILE", args.file.as_deref()), ("--check", args.check.as_deref())],
        &[("-o", args.output.as_deref()), ("--report", args.report.as_deref())],
    )?;
    Ok(format)
}

/// `solve` across the processes of a cluster: process 0 writes the lines and the report; an
/// input error or a cycle is answered by process 0 alone, as without a cluster.
#[cfg(feature = "cluster")]
impl crate::app::cluster::Clustered for SolveArgs {
    fn cluster(&self) -> &crate::app::cli::ClusterArgs {
        &self.cluster
    }

    fn prepare<'a>(
        &'a self,
        config: &'a Config,
        writes: bool,
    ) -> Result<crate::app::cluster::Prepared<'a>, Error> {
        use crate::app::cluster::{self, Prepared, Stream};
        use grundy::report::Columns;
        use std::sync::Arc;
        let args = self;
        let format = check(args, true)?;
        super::rows_format(args.output_format, ("--report", args.report.as_deref()), true)?;
        let inputs = cluster::open_inputs(&[("FILE", args.file.as_deref())], config)?;
        let input = Arc::clone(&inputs[0]);
        let mut streams = Vec::new();
        if writes {
            let out = match &args.check {
                Some(expected) => Sink::check(Input::open(Some(expected))?),
                None => Sink::open(args.output.as_deref())?,
            };
            streams.push(Stream::new(out, Vec::new()));
            if let Some(report) = args.report.as_deref() {
                streams.push(Stream::new(Sink::open(Some(report))?, Columns::solve().header()));
            }
        }
        let job = grundy::cluster::Job::Solve {
            input: Arc::clone(&input),
            format: cluster::graph_format(format),
            report: args.report.is_some(),
        };
        let alone = Box::new(move |sinks: &mut [Sink]| {
            let (out, report) = sinks.split_at_mut(1);
            let progress = Progress::new(false);
            let how = (config.exec, format, false);
            let mut rows = report.first_mut().map(grundy::report::Csv::new);
            exec::solve(&input, how, &mut out[0], rows.as_mut(), &progress)
        });
        Ok(Prepared { job, streams, alone })
    }
}
