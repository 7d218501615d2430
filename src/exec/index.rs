//! The engine of `grundy index`: every case of an input solved once and written as an index
//! ([`crate::index`]), with the outcomes of its queries for `stats`.

use super::{play, stats, CaseReader, Exec};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::GameGraph;
use crate::index::{self, CaseParts, Writer};
use crate::io::input::Input;
use crate::io::sink::Put;
use crate::io::store::Ints;
use crate::meter::Meter;
use crate::parse::format::Format;
use crate::play::{Measures, Play};

/// Solves every case of `input` and writes the index to `out`; with `loopy`, generalized
/// values (cycles allowed); with `plays`, their numbers too (chess and edge-list formats,
/// not loopy: the caller refuses the others). Returns the number of cases.
pub fn index(
    input: &Input,
    (exec, format, loopy, plays): (Exec, Format, bool, &[Play]),
    out: &mut impl Put,
    meter: &dyn Meter,
) -> Result<u64, Error> {
    let mut writer = Writer::new(out, index::format_code(format), loopy)?;
    let mut reader = CaseReader::new(input, exec, format, meter);
    let mut cases = 0;
    loop {
        if loopy {
            let Some(mut case) = reader.next_loopy_case()? else { break };
            case.graph = in_mex_order(case.graph, &case.values);
            let (graph, values) = (&case.graph, &case.values);
            let outcomes = stats::loopy_outcomes(&mut reader, (graph, values))?;
            let outcomes = (outcomes.total(), outcomes.wins, outcomes.draws.unwrap_or(0));
            let parts = CaseParts {
                graph,
                values,
                levels: None,
                outcomes,
                plays: &[],
                genus: false,
                play_outcomes: &[],
            };
            writer.case(&parts)?;
        } else {
            let Some(mut case) = reader.next_case()? else { break };
            case.graph = in_mex_order(case.graph, &case.values);
            let measures: Vec<_> =
                plays.iter().map(|&p| play::measures_of(&case, p, exec, meter)).collect();
            // Misère play with the genus is counted without it too, from the same numbers,
            // so `stats --play misere` reads the index with or without `--genus`.
            let mut counted: Vec<(Play, &Measures)> =
                plays.iter().copied().zip(&measures).collect();
            let without = Play::Misere { genus: false };
            if let Some(&(_, m)) = counted.iter().find(|(p, _)| p.genus()) {
                if !plays.contains(&without) {
                    counted.push((without, m));
                }
            }
            let outcomes_of = play::outcomes_of(&mut reader, &case, &counted)?;
            let outcomes = (outcomes_of[0].total(), outcomes_of[0].wins, 0);
            let play_outcomes: Vec<_> = counted
                .iter()
                .zip(&outcomes_of[1..])
                .map(|(&(p, _), o)| (p, [o.wins, o.losses, o.undecided]))
                .collect();
            let levels = case.levels.as_deref().unwrap_or_default();
            let (graph, values) = (&case.graph, &case.values);
            writer.case(&CaseParts {
                graph,
                values,
                levels: Some(levels),
                outcomes,
                plays: &measures,
                genus: plays.iter().any(|p| p.genus()),
                play_outcomes: &play_outcomes,
            })?;
        }
        cases += 1;
    }
    writer.finish()?;
    Ok(cases)
}

/// `graph` with its lists in mex order ([`crate::graph::mex_order`]), so that a winning move
/// read from the index is one read; the plays' searches take moves in that order on every
/// path, so their answers do not change. The values' width is matched once here, not at each
/// of the moves' reads: with a match per read the gather of every move's value (a random read
/// each, 100M of them on a 100M-edge file) kept fewer reads in flight.
fn in_mex_order(graph: GameGraph, values: &Values) -> GameGraph {
    match values.ints() {
        Ints::U8(s) => graph.in_mex_order(&|v| u32::from(s[v as usize])),
        Ints::U16(s) => graph.in_mex_order(&|v| u32::from(s[v as usize])),
        Ints::U32(s) => graph.in_mex_order(&|v| s[v as usize]),
    }
}
