//! `grundy solve`: WIN or LOSE per query, judge-exact, nothing else on stdout.

use std::io::Write;

use crate::chess::ChessReader;
use crate::cli::SolveArgs;
use crate::error::Error;
use crate::eval;
use crate::input::Input;
use crate::output;
use crate::topo;

/// Runs `grundy solve` with the user's arguments.
pub fn run(args: &SolveArgs) -> Result<(), Error> {
    let input = Input::open(args.file.as_deref())?;
    let mut out = output::stdout();
    solve(&input, &mut out)?;
    output::finish(&mut out)
}

/// Answers every query of every case of `input`, writing `WIN` or `LOSE` lines to `out`.
///
/// Cases are processed one after the other, so answers of earlier cases are written before a
/// later case is read: a judge-style stream, as the seed solutions behave.
pub fn solve(input: &Input, out: &mut impl Write) -> Result<(), Error> {
    let bytes = input.bytes();
    let parse_error = |e| Error::parse(input.name(), bytes, e);
    let mut reader = ChessReader::new(bytes);
    let mut positions = Vec::new();
    while let Some(graph) = reader.next_graph().map_err(parse_error)? {
        let levels = topo::levels(&graph).map_err(|cycle| Error::Cycle {
            path: input.name().to_string(),
            case: reader.case(),
            cycle,
        })?;
        let values = eval::grundy(&graph, &levels);
        drop(levels);
        while reader.next_query(&mut positions).map_err(parse_error)? {
            let nim_sum = positions.iter().fold(0, |acc, &p| acc ^ values[p as usize]);
            let line: &[u8] = if nim_sum != 0 { b"WIN\n" } else { b"LOSE\n" };
            out.write_all(line).map_err(output::stdout_error)?;
        }
    }
    Ok(())
}
