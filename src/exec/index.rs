//! The engine of `grundy index`: every case of an input solved once and written as an index
//! ([`crate::index`]), with the outcomes of its queries for `stats`.

use super::{play, stats, CaseReader, Exec};
use crate::error::Error;
use crate::index::{self, CaseParts, Writer};
use crate::io::input::Input;
use crate::io::sink::Put;
use crate::meter::Meter;
use crate::parse::format::Format;
use crate::play::Play;

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
            let Some(case) = reader.next_loopy_case()? else { break };
            let (graph, values) = (&case.graph, &case.values);
            let outcomes = stats::loopy_outcomes(&mut reader, (graph, values))?;
            let outcomes = (outcomes.total(), outcomes.wins, outcomes.draws.unwrap_or(0));
            let parts =
                CaseParts { graph, values, levels: None, outcomes, plays: &[], play_outcomes: &[] };
            writer.case(&parts)?;
        } else {
            let Some(case) = reader.next_case()? else { break };
            let measures: Vec<_> =
                plays.iter().map(|&p| play::measures_of(&case, p, exec, meter)).collect();
            let counted = play::outcomes_of(&mut reader, &case, (plays, &measures))?;
            let outcomes = (counted[0].total(), counted[0].wins, 0);
            let play_outcomes: Vec<_> = plays
                .iter()
                .zip(&counted[1..])
                .map(|(&p, o)| (p, [o.wins, o.losses, o.undecided]))
                .collect();
            let levels = case.levels.as_deref().unwrap_or_default();
            let (graph, values) = (&case.graph, &case.values);
            writer.case(&CaseParts {
                graph,
                values,
                levels: Some(levels),
                outcomes,
                plays: &measures,
                play_outcomes: &play_outcomes,
            })?;
        }
        cases += 1;
    }
    writer.finish()?;
    Ok(cases)
}
