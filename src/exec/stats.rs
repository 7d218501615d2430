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
            let case = index.whole_case(i, true)?;
            let times = StageTimes { parse: start.elapsed(), ..StageTimes::default() };
            Ok(CaseStats::of_indexed(&case, times))
        })
        .collect()
}

/// The outcomes of the current case's queries in an acyclic game of `values` (no DRAW).
pub(crate) fn outcomes(reader: &mut CaseReader, values: &Values) -> Result<Outcomes, Error> {
    let table = values.nim_table();
    let outcomes = count(reader, |positions| Outcome::of_nim_sum(table.nim_sum(positions)).into())?;
    Ok(Outcomes { draws: None, ..outcomes })
}

/// The outcomes of the current case's queries in a loopy game (WIN, LOSE or DRAW).
pub(crate) fn loopy_outcomes(
    reader: &mut CaseReader,
    (graph, values): (&GameGraph, &Values),
) -> Result<Outcomes, Error> {
    count(reader, |positions| {
        answer::loopy_answer_of(graph, values, positions, false).outcome.into()
    })
}

/// [`count`] of `n` tallies at once: `tally(positions, j)` is the `j`-th, for `j` below `n`;
/// one pass over the queries (what `index --play` counts: normal play and each play kept).
pub(crate) fn count_each(
    reader: &mut CaseReader,
    n: usize,
    tally: impl Fn(&[u32], usize) -> Tally + Sync,
) -> Result<Vec<Outcomes>, Error> {
    let mut counts = vec![[0u64; 4]; n];
    reader.queries(
        |_, positions, bufs: &mut Bufs| {
            bufs.main.extend((0..n).map(|j| tally(positions, j) as u8));
        },
        |bufs| {
            for query in bufs.main.chunks_exact(n) {
                query.iter().zip(&mut counts).for_each(|(&b, c)| c[b as usize] += 1);
            }
            Ok(())
        },
    )?;
    let outcomes = counts.into_iter().map(|[losses, wins, draws, undecided]| Outcomes {
        wins,
        losses,
        draws: Some(draws),
        undecided,
    });
    Ok(outcomes.collect())
}

/// What one query came to, as [`count`] tallies it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tally {
    Win = 1,
    Lose = 0,
    Draw = 2,
    Undecided = 3,
}

impl From<Outcome> for Tally {
    fn from(outcome: Outcome) -> Tally {
        match outcome {
            Outcome::Win => Tally::Win,
            Outcome::Lose => Tally::Lose,
            Outcome::Draw => Tally::Draw,
        }
    }
}

/// The outcomes of the current case's queries, by `tally(positions)`.
pub(crate) fn count(
    reader: &mut CaseReader,
    tally: impl Fn(&[u32]) -> Tally + Sync,
) -> Result<Outcomes, Error> {
    let mut outcomes = count_each(reader, 1, |positions, _| tally(positions))?;
    Ok(outcomes.remove(0))
}
