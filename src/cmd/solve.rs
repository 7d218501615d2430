//! `grundy solve`: WIN or LOSE per query, judge-exact, nothing else on stdout; optionally a CSV
//! report with the nim-sum and a winning move of every query.
//!
//! Cases are processed one after the other, so answers of earlier cases are written before a
//! later case is read: a judge-style stream, as the seed solutions behave. The report is a
//! file that appears only if the whole run succeeds.

use crate::cases::CaseReader;
use crate::cli::Format;
use crate::cli::SolveArgs;
use crate::config::Config;
use crate::error::Error;
use crate::input::Input;
use crate::output::{Put, Sink};
use crate::progress::Progress;
use crate::query;
use crate::report::{self, Rows, SOLVE_HEADER};

/// Runs `grundy solve` with the user's arguments.
pub fn run(args: &SolveArgs, config: &Config) -> Result<(), Error> {
    let input = Input::open(args.file.as_deref())?;
    let mut report = args.report.as_deref().map(|p| Sink::open(Some(p))).transpose()?;
    let mut out = Sink::open(None)?;
    let mut progress = Progress::new(config.progress, input.bytes().len() as u64);
    solve(&input, config, args.format, &mut out, report.as_mut(), &mut progress)?;
    progress.finish();
    out.finish()?;
    report.map_or(Ok(()), Sink::finish)
}

/// Answers every query of `input`: verdict lines to `out`, and report rows (with a header) to
/// `report` if given. The engine of `grundy solve`, apart from files and terminals.
pub fn solve(
    input: &Input,
    config: &Config,
    format: Format,
    out: &mut impl Put,
    mut report: Option<&mut impl Put>,
    progress: &mut Progress,
) -> Result<(), Error> {
    if let Some(report) = &mut report {
        report.put(&Rows::header(SOLVE_HEADER))?;
    }
    let mut reader = CaseReader::new(input, config, format);
    while let Some(case) = reader.next_case()? {
        progress.stage(format!("case {}: {} nodes evaluated", case.case, case.graph.node_count()));
        let with_report = report.is_some();
        let answer = |number: u64, positions: &[u32], bufs: &mut query::Bufs| {
            let nim_sum = query::nim_sum(&case.values, positions);
            bufs.main.extend_from_slice(query::verdict_line(nim_sum));
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
        reader.queries(answer, |bufs, done| {
            out.put(&bufs.main)?;
            if let Some(report) = &mut report {
                report.put(&bufs.report)?;
            }
            progress.bytes(done.bytes);
            progress.items(done.queries, &format!("case {} queries", case.case));
            Ok(())
        })?;
    }
    Ok(())
}
