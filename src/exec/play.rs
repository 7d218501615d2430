//! The engines of `solve --play`, `query --play` and `values --play` for the plays other than normal
//! ([`crate::play`]): the verdict line of every query (`WIN`, `LOSE`, or for a misère sum the
//! theory does not decide, `UNDECIDED`), report rows with the winning move of every WIN (one
//! move per token that moves), and each node's numbers as `values` columns, through any
//! [`RowSink`] (CSV, Parquet, Arrow IPC).

use std::borrow::Cow;
use std::time::Instant;

use super::{CaseReader, Exec, StageTimes};
use crate::answer::Bufs;
use crate::error::Error;
use crate::eval::{Evaluated, Values};
use crate::graph::GameGraph;
use crate::index::{Index, IndexedCase};
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::sink::Put;
use crate::meter::{Meter, Stage, Unit};
use crate::order::Levels;
use crate::parse::format::Format;
use crate::play::{self, Answer, Measures, Play, Verdict};
use crate::report::stats::{CaseStats, Outcomes, PlayStats};
use crate::report::{PlayNumbers, PlayPiece, RowSink, Table};

/// What the plays read of a solved case, wherever it was solved: a text input just now, or an
/// index ([`Solved::of_index`]).
struct Solved<'a> {
    case: u64,
    graph: &'a GameGraph,
    values: &'a Values,
    levels: Cow<'a, [u32]>,
}

impl<'a> Solved<'a> {
    /// A case read from text with its levels ([`CaseReader::with_levels`]).
    fn of(case: &'a Evaluated) -> Solved<'a> {
        let levels = Cow::Borrowed(case.levels.as_deref().unwrap_or_default());
        Solved { case: case.case, graph: &case.graph, values: &case.values, levels }
    }

    /// A case of an index, taken with its levels; an index of the sums format or of a loopy
    /// game is refused before (`--play` takes neither).
    fn of_index(case: &'a IndexedCase) -> Solved<'a> {
        let levels = case.levels.as_ref().map_or(Cow::Borrowed(&[][..]), |l| l.to_u32());
        Solved { case: case.case, graph: &case.graph, values: &case.values, levels }
    }
}

/// Answers every query of `input` under `play`: verdict lines to `out`, and the rows of
/// [`Table::PlayQueries`] to `report` if given.
pub fn solve<S: RowSink>(
    input: &Input,
    (exec, format, play): (Exec, Format, Play),
    out: &mut impl Put,
    mut report: Option<&mut S>,
    meter: &dyn Meter,
) -> Result<(), Error> {
    if let Some(report) = &mut report {
        report.start(Table::PlayQueries)?;
    }
    let with_report = report.is_some();
    let mut reader = CaseReader::new(input, exec, format, meter).playing(play);
    while let Some(mut case) = reader.next_case()? {
        let numbers = case.numbers.take();
        let case = Solved::of(&case);
        let measures = measures(&case, numbers, play, exec, meter);
        let answer = |number: u64, positions: &[u32], bufs: &mut Bufs<S::Play>| {
            let answer = answer_of(play, &case, &measures, positions);
            bufs.main.extend_from_slice(answer.verdict.word().as_bytes());
            bufs.main.push(b'\n');
            if with_report {
                bufs.rows.play_query_row((case.case, number), positions, &answer);
            }
        };
        reader.queries(answer, |bufs: &Bufs<S::Play>| {
            out.put(&bufs.main)?;
            if let Some(report) = report.as_deref_mut() {
                report.put_play(&bufs.rows)?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Answers the queries of `queries_input` against the first case of `graph_input` under
/// `play`, as rows of [`Table::PlayQueries`] (the case column 1) to `out`.
pub fn query(
    graph_input: &Input,
    queries_input: &Input,
    (exec, format, play): (Exec, Format, Play),
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::PlayQueries)?;
    let mut graphs = CaseReader::new(graph_input, exec, format, meter).playing(play);
    let Some(mut case) = graphs.next_case()? else {
        return Err(Error::NoGraph { path: graph_input.name().to_string() });
    };
    let numbers = case.numbers.take();
    let case = Solved::of(&case);
    let measures = measures(&case, numbers, play, exec, meter);
    answer_all((&case, &measures), queries_input, (exec, play), out, meter)
}

/// [`query`] against the first case of an index (of the chess format or an edge list, not
/// loopy): the play's numbers it keeps, else computed from its graph and levels; nothing read
/// or solved again.
pub fn query_index(
    index: &Index,
    queries_input: &Input,
    (exec, play): (Exec, Play),
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::PlayQueries)?;
    if index.case_count() == 0 {
        return Err(Error::NoGraph { path: index.name().to_string() });
    }
    let case = index.whole_case(0, true)?;
    let case = Solved::of_index(&case);
    let measures = index_measures(index, 0, &case, (exec, play), meter)?;
    answer_all((&case, &measures), queries_input, (exec, play), out, meter)
}

/// Answers the queries of `queries_input` against `case`, whose numbers under `play` are
/// `measures`, as rows to `out`.
fn answer_all<S: RowSink>(
    (case, measures): (&Solved, &Measures),
    queries_input: &Input,
    (exec, play): (Exec, Play),
    out: &mut S,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let nodes = case.graph.node_count() as u32;
    let mut reader = CaseReader::queries_only(queries_input, exec, nodes, meter);
    reader.queries(
        |number, positions, bufs: &mut Bufs<S::Play>| {
            let answer = answer_of(play, case, measures, positions);
            bufs.rows.play_query_row((1, number), positions, &answer);
        },
        |bufs: &Bufs<S::Play>| {
            out.put_play(&bufs.rows)?;
            match out.is_closed() {
                true => Err(IoError::OutputClosed.into()),
                false => Ok(()),
            }
        },
    )?;
    reader.expect_end()
}

/// Writes `values`' rows of every case of `input` with `play`'s columns
/// ([`Table::PlayValues`]).
pub fn values(
    input: &Input,
    (exec, format, play): (Exec, Format, Play),
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::PlayValues(play))?;
    let mut reader = CaseReader::new(input, exec, format, meter).playing(play);
    while let Some(mut case) = reader.next_case()? {
        let numbers = case.numbers.take();
        let case = Solved::of(&case);
        let measures = measures(&case, numbers, play, exec, meter);
        write_values(&case, (&measures, play.genus()), exec, out, meter)?;
        reader.skip_queries()?;
    }
    Ok(())
}

/// [`values`] of every case of an index (of the chess format or an edge list, not loopy):
/// the play's numbers it keeps, else computed from its graphs and levels.
pub fn values_of_index(
    index: &Index,
    (exec, play): (Exec, Play),
    out: &mut impl RowSink,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.start(Table::PlayValues(play))?;
    for i in 0..index.case_count() {
        let case = index.whole_case(i, true)?;
        let case = Solved::of_index(&case);
        let measures = index_measures(index, i, &case, (exec, play), meter)?;
        write_values(&case, (&measures, play.genus()), exec, out, meter)?;
    }
    Ok(())
}

/// The statistics of every case of `input` under `play`: `stats`' own, the queries' outcomes
/// under the play, and the play's numbers ([`PlayStats`]). The time of the play's pass counts
/// as evaluation.
pub fn stats(
    input: &Input,
    (exec, format, play): (Exec, Format, Play),
    meter: &dyn Meter,
) -> Result<Vec<CaseStats>, Error> {
    use super::stats::count;
    let mut reader = CaseReader::new(input, exec, format, meter).playing(play);
    let mut cases = Vec::new();
    while let Some(mut case) = reader.next_case()? {
        let start = Instant::now();
        let numbers = case.numbers.take();
        let solved = Solved::of(&case);
        let measures = measures(&solved, numbers, play, exec, meter);
        let playing = start.elapsed();
        let start = Instant::now();
        let outcomes = count(&mut reader, |positions| {
            tally(answer_of(play, &solved, &measures, positions).verdict)
        })?;
        let outcomes = Outcomes { draws: None, ..outcomes };
        let times = StageTimes {
            evaluate: case.times.evaluate + playing,
            queries: start.elapsed(),
            ..case.times
        };
        let mut stats = CaseStats::of(&case, outcomes, times);
        stats.play = Some(PlayStats::of(play, &measures, outcomes.undecided));
        cases.push(stats);
    }
    Ok(cases)
}

/// [`stats`] of every case of an index made with `index --play` naming `play`: the outcomes
/// of the input's queries under the play, as the index counted them, and the play's numbers
/// (kept, else computed from its graph and levels). An index that did not count them is
/// refused: its queries are gone.
pub fn stats_of_index(
    index: &Index,
    (exec, play): (Exec, Play),
    meter: &dyn Meter,
) -> Result<Vec<CaseStats>, Error> {
    let mut cases = Vec::with_capacity(index.case_count());
    for i in 0..index.case_count() {
        let start = Instant::now();
        let case = index.whole_case(i, true)?;
        let Some([wins, losses, undecided]) = index.play_outcomes(i, play)? else {
            return Err(Error::Usage(format!(
                "stats --play {name} counts the queries under the play, and {file} keeps only \
                 their normal-play outcomes: index the game with `grundy index FILE --play \
                 {name}`, or read the input",
                name = play.name(),
                file = index.name(),
            )));
        };
        let read = start.elapsed();
        let solved = Solved::of_index(&case);
        let measures = index_measures(index, i, &solved, (exec, play), meter)?;
        let times =
            StageTimes { parse: read, evaluate: start.elapsed() - read, ..StageTimes::default() };
        let mut stats = CaseStats::of_indexed(&case, times);
        (stats.wins, stats.losses) = (wins, losses);
        stats.play = Some(PlayStats::of(play, &measures, undecided));
        cases.push(stats);
    }
    Ok(cases)
}

/// The outcomes of the current case's queries under normal play and under each of `plays`
/// (whose numbers are `measures`), counted in one pass: what `index --play` keeps for
/// `stats --play`. The first is normal play's.
pub(crate) fn outcomes_of(
    reader: &mut CaseReader,
    case: &Evaluated,
    plays: &[(Play, &Measures)],
) -> Result<Vec<Outcomes>, Error> {
    let solved = Solved::of(case);
    let table = case.values.nim_table();
    let outcomes = super::stats::count_each(reader, 1 + plays.len(), |positions, j| match j {
        0 => crate::answer::Outcome::of_nim_sum(table.nim_sum(positions)).into(),
        j => {
            let (play, measures) = plays[j - 1];
            tally(answer_of(play, &solved, measures, positions).verdict)
        }
    })?;
    Ok(outcomes.into_iter().map(|o| Outcomes { draws: None, ..o }).collect())
}

/// How a verdict is counted.
fn tally(verdict: Verdict) -> super::stats::Tally {
    use super::stats::Tally;
    match verdict {
        Verdict::Win => Tally::Win,
        Verdict::Lose => Tally::Lose,
        Verdict::Undecided(_) => Tally::Undecided,
    }
}

/// The numbers of `play` of a case read from text with its levels (of the chess format or an
/// edge list), for an index to keep.
pub(crate) fn measures_of(case: &Evaluated, play: Play, exec: Exec, meter: &dyn Meter) -> Measures {
    measures(&Solved::of(case), None, play, exec, meter)
}

/// The numbers of `play` of case `i` of an index: those it keeps (`index --play`), else
/// computed from its graph and levels.
fn index_measures(
    index: &Index,
    i: usize,
    case: &Solved,
    (exec, play): (Exec, Play),
    meter: &dyn Meter,
) -> Result<Measures, Error> {
    Ok(match index.measures(i, play)? {
        Some(kept) => kept,
        None => measures(case, None, play, exec, meter),
    })
}

/// The play's numbers of an evaluated case (read with its levels; a chess graph): those the
/// search took along (`numbers`), else computed from its graph and levels.
fn measures(
    case: &Solved,
    numbers: Option<crate::eval::search::Numbers>,
    play: Play,
    exec: Exec,
    meter: &dyn Meter,
) -> Measures {
    if let Some(numbers) = numbers {
        return Measures::unpacked(play, numbers);
    }
    let nodes = case.graph.node_count() as u64;
    meter.start(Stage { case: case.case, name: "playing", unit: Unit::Nodes, total: nodes });
    let levels = levels_of(&case.levels);
    let parallel = !exec.is_sequential();
    match case.graph {
        GameGraph::Chess(g) => Measures::of(play, (g, case.values), &levels, parallel),
        GameGraph::ChessWide(g) => Measures::of(play, (g, case.values), &levels, parallel),
        GameGraph::Sums(_) => unreachable!("--play refuses the sums format"),
    }
}

/// The answer for tokens on `positions` of `case` under `play`.
fn answer_of(play: Play, case: &Solved, measures: &Measures, positions: &[u32]) -> Answer {
    match case.graph {
        GameGraph::Chess(g) => play::sums::answer(play, (g, case.values, measures), positions),
        GameGraph::ChessWide(g) => play::sums::answer(play, (g, case.values, measures), positions),
        GameGraph::Sums(_) => unreachable!("--play refuses the sums format"),
    }
}

/// The levels of nodes whose levels are `node_levels`, ids increasing within a level: a
/// counting sort, one pass to count and one to place.
pub fn levels_of(node_levels: &[u32]) -> Levels {
    let count = node_levels.iter().max().map_or(0, |&l| l as usize + 1);
    let mut starts = vec![0u32; count + 1];
    for &l in node_levels {
        starts[l as usize + 1] += 1;
    }
    for l in 0..count {
        starts[l + 1] += starts[l];
    }
    let mut next = starts.clone();
    let mut order = vec![0u32; node_levels.len()];
    for (v, &l) in node_levels.iter().enumerate() {
        order[next[l as usize] as usize] = v as u32;
        next[l as usize] += 1;
    }
    // Every level holds at least one node (a node of level l + 1 moves to one of level l).
    Levels::from_groups(order, starts).unwrap_or_else(|| Levels::each(0))
}

/// Nodes per piece of rows formatted in parallel.
const NODES_PER_PIECE: usize = 1 << 15;

/// Writes the rows of one case with its play's columns, pieces filled in parallel.
fn write_values<S: RowSink>(
    case: &Solved,
    (measures, genus): (&Measures, bool),
    exec: Exec,
    out: &mut S,
    meter: &dyn Meter,
) -> Result<(), Error> {
    let nodes = case.graph.node_count();
    meter.start(Stage { case: case.case, name: "writing", unit: Unit::Rows, total: nodes as u64 });
    let levels = &case.levels;
    let row = |piece: &mut S::Play, v: u32, prefix: &mut Vec<u32>| {
        let i = v as usize;
        let graph = case.graph;
        let node = [v, case.values.get(v), levels[i], graph.move_count(v)];
        let numbers = match measures {
            Measures::None => PlayNumbers::None,
            Measures::Remoteness(r) | Measures::Suspense(r) => PlayNumbers::Count(r[i]),
            Measures::Misere(m, genera) => {
                let known = |prefix: &mut Vec<u32>| genera.prefix(v, m[i].grundy(), prefix);
                let genus = genus.then(|| known(prefix).then_some(&prefix[..]));
                PlayNumbers::Misere { grundy: m[i].grundy(), heap: m[i].heap(), genus }
            }
        };
        piece.play_value_row(case.case, node, numbers);
    };
    let starts: Vec<usize> = (0..nodes).step_by(NODES_PER_PIECE).collect();
    for batch in starts.chunks(64) {
        let pieces = exec.map(batch, |first| {
            let (mut piece, mut prefix) = (S::Play::default(), Vec::new());
            for v in first..(first + NODES_PER_PIECE).min(nodes) {
                row(&mut piece, v as u32, &mut prefix);
            }
            piece
        });
        for piece in pieces {
            out.put_play(&piece)?;
        }
        if out.is_closed() {
            return Err(IoError::OutputClosed.into());
        }
        meter.set(batch.last().map_or(nodes, |&s| (s + NODES_PER_PIECE).min(nodes)) as u64);
    }
    Ok(())
}
