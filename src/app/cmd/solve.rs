//! `grundy solve`: WIN or LOSE per query, judge-exact, nothing else on stdout; optionally a CSV
//! report with the nim-sum and a winning move of every query.
//!
//! Cases are processed one after the other, so answers of earlier cases are written before a
//! later case is read: a judge-style stream, as the seed solutions behave. The report is a
//! file that appears only if the whole run succeeds. A closed stdout (`| head -1`) does not
//! cancel the report: the run goes on without stdout and finishes it.

use crate::answer::{self, Outcome};
use crate::app::cli::SolveArgs;
use crate::app::config::{self, Config};
use crate::error::Error;
use crate::exec::CaseReader;
use crate::exec::Exec;
use crate::io::input::Input;
use crate::io::progress::Progress;
use crate::io::sink::{Put, Sink};
use crate::meter::Meter;
use crate::parse::format::Format;
use crate::report::{self, Rows, SOLVE_HEADER};

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
    solve(&input, config.exec, format, &mut out, report.as_mut(), &progress)?;
    progress.finish();
    out.finish()?;
    report.map_or(Ok(()), Sink::finish)
}

/// Answers every query of `input`: verdict lines to `out`, and report rows (with a header) to
/// `report` if given. The engine of `grundy solve`, apart from files and terminals.
pub fn solve(
    input: &Input,
    exec: Exec,
    format: Format,
    out: &mut impl Put,
    mut report: Option<&mut impl Put>,
    meter: &dyn Meter,
) -> Result<(), Error> {
    if let Some(report) = &mut report {
        report.put(&Rows::header(SOLVE_HEADER))?;
    }
    let mut reader = CaseReader::new(input, exec, format, meter);
    while let Some(case) = reader.next_case()? {
        let with_report = report.is_some();
        let answer = |number: u64, positions: &[u32], bufs: &mut answer::Bufs| {
            bufs.main.extend_from_slice(Outcome::of(&case.values, positions).line());
            if with_report {
                let (graph, values) = (&case.graph, &case.values);
                report::push_query_row(
                    &mut bufs.report,
                    Some(case.case),
                    number,
                    positions,
                    graph,
                    values,
                );
            }
        };
        reader.queries(answer, |bufs| {
            out.put(&bufs.main)?;
            match &mut report {
                Some(report) => {
                    report.put(&bufs.report)?;
                    crate::app::cmd::stop_if_all_closed(&[&*out, &**report])
                }
                None => crate::app::cmd::stop_if_all_closed(&[&*out]),
            }
        })?;
    }
    Ok(())
}
