//! The engine of `grundy stats`: each case's sizes, levels, degrees, value histograms, query
//! outcomes and stage times, case after case.

use std::time::Instant;

use super::{CaseReader, Exec, StageTimes};
use crate::answer::{self, Bufs, Outcome};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::GameGraph;
use crate::index::Index;
use crate::io::input::Input;
use crate::meter::Meter;
use crate::parse::format::Format;
use crate::report::stats::{CaseStats, Outcomes};

/// The statistics of every case of `input`; with `loopy`, cycles are allowed and a query may
/// be a DRAW. The engine of `grundy stats`, apart from the report's text and JSON.
pub fn stats(
    input: &Input,
    (exec, format, loopy): (Exec, Format, bool),
    meter: &dyn Meter,
) -> Result<Vec<CaseStats>, Error> {
    let mut reader = CaseReader::new(input, exec, format, meter);
    let mut cases = Vec::new();
    loop {
        if loopy {
            let Some(case) = reader.next_loopy_case()? else { break };
            let start = Instant::now();
            let outcomes = loopy_outcomes(&mut reader, (&case.graph, &case.values))?;
            let times = StageTimes { queries: start.elapsed(), ..case.times };
            cases.push(CaseStats::of_loopy(&case, outcomes, times));
        } else {
            let Some(case) = reader.next_case()? else { break };
            let start = Instant::now();
            let outcomes = outcomes(&mut reader, &case.values)?;
            let times = StageTimes { queries: start.elapsed(), ..case.times };
            cases.push(CaseStats::of(&case, outcomes, times));
        }
    }
    Ok(cases)
}

/// The statistics of every case of an index; `stats` of the input it was made from, but for
/// the times (of reading the index here).
pub fn stats_of_index(index: &Index) -> Result<Vec<CaseStats>, Error> {
    (0..index.case_count())
        .map(|i| {
            let start = Instant::now();
            let case = index.case(i, true)?;
            let times = StageTimes { parse: start.elapsed(), ..StageTimes::default() };
            Ok(CaseStats::of_indexed(&case, times))
        })
        .collect()
}

/// The outcomes of the current case's queries in an acyclic game of `values` (no DRAW).
pub(crate) fn outcomes(reader: &mut CaseReader, values: &Values) -> Result<Outcomes, Error> {
    let table = values.nim_table();
    let outcomes = count(reader, |positions| Outcome::of_nim_sum(table.nim_sum(positions)))?;
    Ok(Outcomes { draws: None, ..outcomes })
}

/// The outcomes of the current case's queries in a loopy game (WIN, LOSE or DRAW).
pub(crate) fn loopy_outcomes(
    reader: &mut CaseReader,
    (graph, values): (&GameGraph, &Values),
) -> Result<Outcomes, Error> {
    count(reader, |positions| answer::loopy_answer_of(graph, values, positions, false).outcome)
}

/// The outcomes of the current case's queries, by `outcome(positions)`.
fn count(
    reader: &mut CaseReader,
    outcome: impl Fn(&[u32]) -> Outcome + Sync,
) -> Result<Outcomes, Error> {
    let (mut wins, mut draws) = (0u64, 0u64);
    // Each WIN leaves a 1 in the buffers, each DRAW a 2, counted at each flush.
    let queries = reader.queries(
        |_, positions, bufs: &mut Bufs| match outcome(positions) {
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
