//! The engine of `grundy solve`: every query of a file answered, judge lines to one output
//! and report rows to another. Cases are processed one after the other, so answers of
//! earlier cases are written before a later case is read: a judge-style stream, as the seed
//! solutions behave. A closed output (`| head -1`) does not cancel the other: the run goes
//! on without it, and stops early only when neither is read.

use super::{CaseReader, Exec};
use crate::answer::{self, Outcome};
use crate::error::Error;
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::sink::{stop_if_all_closed, Put};
use crate::meter::Meter;
use crate::parse::format::Format;
use crate::report::{self, Columns, RowSink, Table};

/// Answers every query of `input`: verdict lines to `out`, and report rows (with a header) to
/// `report` if given (a CSV, Parquet or Arrow IPC sink); with `loopy`, cycles are allowed and a query may be a DRAW. The engine of
/// `grundy solve`, apart from files and terminals.
pub fn solve<S: RowSink>(
    input: &Input,
    (exec, format, loopy): (Exec, Format, bool),
    out: &mut impl Put,
    mut report: Option<&mut S>,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let columns = Columns::solve();
    if let Some(report) = &mut report {
        report.start(Table::Queries(&columns))?;
    }
    let with_report = report.is_some();
    let mut reader = CaseReader::new(input, exec, format, meter).with_levels(false);
    loop {
        let flush = |bufs: &answer::Bufs<S::Queries>| put(out, report.as_deref_mut(), bufs);
        if loopy {
            let Some(case) = reader.next_loopy_case()? else { break };
            let answer = |number: u64, positions: &[u32], bufs: &mut answer::Bufs<S::Queries>| {
                if with_report {
                    let (at, game) = ((case.case, number), (&case.graph, &case.values));
                    let outcome =
                        report::push_loopy_row(&mut bufs.rows, &columns, at, positions, game);
                    bufs.main.extend_from_slice(outcome.line());
                } else {
                    let answer =
                        answer::loopy_answer_of(&case.graph, &case.values, positions, false);
                    bufs.main.extend_from_slice(answer.outcome.line());
                }
            };
            reader.queries(answer, flush)?;
        } else {
            let Some(case) = reader.next_case()? else { break };
            // A report reads the values themselves (for the winning move), and the outcome
            // with them; plain answers read a table of their own, smaller.
            let table = (!with_report).then(|| case.values.nim_table());
            let answer = |number: u64, positions: &[u32], bufs: &mut answer::Bufs<S::Queries>| {
                let outcome = match &table {
                    Some(table) => Outcome::of_nim_sum(table.nim_sum(positions)),
                    None => {
                        let (at, game) = ((case.case, number), (&case.graph, &case.values));
                        report::push_query_row(&mut bufs.rows, &columns, at, positions, game)
                    }
                };
                bufs.main.extend_from_slice(outcome.line());
            };
            let (graph, values) = (&case.graph, &case.values);
            let ahead =
                |positions: &[u32], stage| answer::prefetch_move(graph, values, positions, stage);
            reader.queries_ahead(answer, with_report.then_some(&ahead), flush)?;
        }
    }
    Ok(())
}

/// Writes answered queries: the lines to `out`, the rows to `report`; stops the run (quietly)
/// once no output is read any more.
fn put<S: RowSink>(
    out: &mut impl Put,
    report: Option<&mut S>,
    bufs: &answer::Bufs<S::Queries>,
) -> Result<(), Error> {
    out.put(&bufs.main)?;
    match report {
        Some(report) => {
            report.put_queries(&bufs.rows)?;
            if out.is_closed() && report.is_closed() {
                return Err(IoError::OutputClosed.into());
            }
            Ok(())
        }
        None => Ok(stop_if_all_closed(&[&*out])?),
    }
}
