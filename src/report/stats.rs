//! `grundy stats`: the shape of each case's graph, of its values and of its queries' outcomes,
//! for people (an aligned table with histogram bars) and for scripts (JSON, through serde).
//!
//! A multi-case file also gets a total over all its cases, shown first.

use std::fmt::Write;
use std::time::Duration;

use rayon::prelude::*;
use serde::Serialize;

use crate::eval::{Evaluated, Labelled, StageTimes, Values};
use crate::graph::GameGraph;
use crate::graph::{Csr, Deps, Offset};
use crate::io::progress::human_bytes;

/// Rows a text histogram shows at most; longer ones are grouped into equal ranges.
const HISTOGRAM_ROWS: usize = 16;
/// Width of the longest histogram bar, in characters.
const BAR_WIDTH: usize = 40;

/// Statistics of one case, or the total of several (`case` is 0 then).
#[derive(Debug, Clone, Default, Serialize)]
pub struct CaseStats {
    /// 1-based case number; 0 (and absent from the JSON) for a total.
    #[serde(skip_serializing_if = "is_zero")]
    pub case: u64,
    /// Nodes.
    pub nodes: u64,
    /// Moves (edges in the chess format, parallel ones counted each time).
    pub edges: u64,
    /// Nodes without moves.
    pub sinks: u64,
    /// Nodes no move leads to.
    pub sources: u64,
    /// Number of Kahn levels (of the deepest case, for a total); `None` (JSON `null`) for a
    /// loopy game, whose labelling computes no levels.
    pub levels: Option<u64>,
    /// The widest level and its node count; `None` (JSON `null`) for a loopy game.
    pub widest_level: Option<WidestLevel>,
    /// Largest number of moves of a node.
    pub max_out_degree: u64,
    /// Moves per node.
    pub mean_out_degree: f64,
    /// Largest number of moves into one node (parts, in the sums format).
    pub max_in_degree: u64,
    /// Out-positions that repeat an earlier one in the same node's list (parts, in the sums
    /// format): what `generate --simple` rules out.
    pub parallel_edges: u64,
    /// Bits of the graph's offsets: 32, or 64 for a case of more than `u32::MAX` edges (the
    /// largest of the cases, for a total).
    pub offset_bits: u64,
    /// Largest Grundy value (0 for an empty graph).
    pub max_grundy: u64,
    /// Queries read.
    pub queries: u64,
    /// Queries the first player wins.
    pub wins: u64,
    /// Queries the first player loses.
    pub losses: u64,
    /// Queries no player can win (`--loopy` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u64>,
    /// Nodes of infinite value (`--loopy` only); `max_grundy` and the histogram count the
    /// finite ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infinite: Option<u64>,
    /// `grundy_histogram[g]`: nodes of value `g`.
    pub grundy_histogram: Vec<u64>,
    /// `level_histogram[l]`: nodes in level `l`; `None` (JSON `null`) for a loopy game.
    pub level_histogram: Option<Vec<u64>>,
    /// `out_degree_histogram[d]`: nodes of `d` moves.
    pub out_degree_histogram: Vec<u64>,
    /// What a play other than normal adds (`stats --play`); absent from the JSON otherwise.
    /// `wins` and `losses` then count the queries under that play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub play: Option<PlayStats>,
    /// Time of each stage, in seconds.
    pub seconds: Seconds,
}

/// What `stats --play` adds to a case's statistics: the queries the play's theory leaves
/// undecided, and how the play's number of a node spreads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PlayStats {
    /// The play, as `--play` names it.
    pub play: &'static str,
    /// Queries the play's theory does not decide (misère sums), counted neither as wins nor
    /// as losses.
    pub undecided: u64,
    /// The number `histogram` counts: `remoteness` (conjunctive), `suspense` (continued),
    /// `misere_grundy` (misère); `None` for selective play, whose nodes have only their
    /// Grundy values.
    pub number: Option<&'static str>,
    /// `histogram[x]`: nodes whose number is `x` (empty for selective play).
    pub histogram: Vec<u64>,
    /// Misère play: nodes known to equal a nim heap in misère play (the `misere_heap` column
    /// of `values --play misere` not empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub misere_heaps: Option<u64>,
}

impl PlayStats {
    /// The statistics of a play with no nodes and no queries yet.
    pub fn new(play: crate::play::Play) -> PlayStats {
        use crate::play::Play;
        let number = match play {
            Play::Conjunctive => Some("remoteness"),
            Play::Continued => Some("suspense"),
            Play::Misere { .. } => Some("misere_grundy"),
            Play::Normal | Play::Selective => None,
        };
        let misere_heaps = matches!(play, Play::Misere { .. }).then_some(0);
        PlayStats { play: play.name(), number, misere_heaps, ..PlayStats::default() }
    }

    /// The statistics of `play`'s numbers of a case's nodes, `measures`, whose queries left
    /// `undecided` undecided.
    pub fn of(
        play: crate::play::Play,
        measures: &crate::play::Measures,
        undecided: u64,
    ) -> PlayStats {
        use crate::play::Measures;
        let mut stats = PlayStats { undecided, ..PlayStats::new(play) };
        match measures {
            Measures::None => {}
            Measures::Remoteness(r) | Measures::Suspense(r) => {
                stats.histogram = histogram(r.iter().copied());
            }
            Measures::Misere(m, _) => {
                stats.histogram = histogram(m.iter().map(|x| x.grundy()));
                stats.misere_heaps = Some(m.iter().filter(|x| x.heap().is_some()).count() as u64);
            }
        }
        stats
    }

    /// Adds `other`'s counts (a total over cases).
    fn add(&mut self, other: &PlayStats) {
        self.undecided += other.undecided;
        add_histogram(&mut self.histogram, &other.histogram);
        if let (Some(sum), Some(x)) = (&mut self.misere_heaps, other.misere_heaps) {
            *sum += x;
        }
    }
}

/// The widest level of a case.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct WidestLevel {
    /// Its number (0: the sinks).
    pub level: u64,
    /// Its node count.
    pub nodes: u64,
}

/// Seconds spent in each stage.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Seconds {
    /// Reading the graph.
    pub parse: f64,
    /// Kahn ordering.
    pub order: f64,
    /// Grundy evaluation.
    pub evaluate: f64,
    /// Reading and answering the queries.
    pub queries: f64,
}

impl From<StageTimes> for Seconds {
    fn from(t: StageTimes) -> Seconds {
        let s = Duration::as_secs_f64;
        Seconds {
            parse: s(&t.parse),
            order: s(&t.order),
            evaluate: s(&t.evaluate),
            queries: s(&t.queries),
        }
    }
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// What a case's queries came to.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outcomes {
    /// Queries the first player wins.
    pub wins: u64,
    /// Queries the first player loses.
    pub losses: u64,
    /// Queries no player wins (loopy games; `None` for acyclic ones).
    pub draws: Option<u64>,
    /// Queries the play's theory does not decide (`--play misere` sums).
    pub undecided: u64,
}

impl Outcomes {
    /// Every query.
    pub fn total(&self) -> u64 {
        self.wins + self.losses + self.draws.unwrap_or(0) + self.undecided
    }
}

impl CaseStats {
    /// The statistics of an evaluated case.
    pub fn of(case: &Evaluated, outcomes: Outcomes, times: StageTimes) -> CaseStats {
        let parts = (case.case, &case.graph, &case.values);
        CaseStats::of_graph(parts, case.levels.as_deref(), outcomes, times)
    }

    /// The statistics of case `number`'s `graph` of `values`, with its level histogram when
    /// `levels` are given; for a loopy game's values (some [`Values::INFINITE`]), give no
    /// levels and set `infinite` from [`CaseStats::count_infinite`]. What the Python module
    /// reports of a graph it holds.
    pub fn of_graph(
        (number, graph, values): (u64, &GameGraph, &Values),
        levels: Option<&[u32]>,
        outcomes: Outcomes,
        times: StageTimes,
    ) -> CaseStats {
        let histogram = levels.map(|levels| histogram(levels.iter().copied()));
        CaseStats::of_parts((number, graph, values), histogram, outcomes, times)
    }

    /// How many of `values` are infinite (a loopy game's).
    pub fn count_infinite(values: &Values) -> u64 {
        values.iter().filter(|&g| g == Values::INFINITE).count() as u64
    }

    /// The statistics of a case read from an index: its levels' histogram counted from each
    /// node's level (`None`, a loopy game's, shows none), its queries' outcomes from its
    /// record.
    pub fn of_indexed(case: &crate::index::IndexedCase, times: StageTimes) -> CaseStats {
        let histogram = case.levels.as_ref().map(|levels| histogram(levels.iter()));
        let (queries, wins, draws) = case.outcomes;
        let loopy = histogram.is_none();
        let outcomes = Outcomes {
            wins,
            losses: queries.saturating_sub(wins + draws),
            draws: loopy.then_some(draws),
            undecided: 0,
        };
        let mut stats =
            CaseStats::of_parts((case.case, &case.graph, &case.values), histogram, outcomes, times);
        if loopy {
            stats.infinite = Some(CaseStats::count_infinite(&case.values));
        }
        stats
    }

    /// The statistics of a case labelled as a loopy game: no levels (none are computed, so
    /// none are shown); values and their histogram count the finite nodes, `infinite` the
    /// others.
    pub fn of_loopy(case: &Labelled, outcomes: Outcomes, times: StageTimes) -> CaseStats {
        let mut stats =
            CaseStats::of_parts((case.case, &case.graph, &case.values), None, outcomes, times);
        stats.infinite = Some(CaseStats::count_infinite(&case.values));
        stats
    }

    fn of_parts(
        (number, graph, values): (u64, &GameGraph, &Values),
        level_histogram: Option<Vec<u64>>,
        outcomes: Outcomes,
        times: StageTimes,
    ) -> CaseStats {
        let deps = graph.deps();
        let n = graph.node_count();
        let mut in_degree = vec![0u32; n];
        for &t in deps.targets() {
            in_degree[t as usize] += 1;
        }
        let finite = || values.iter().filter(|&g| g != Values::INFINITE);
        let max_grundy = finite().max().unwrap_or(0);
        let any = finite().next().is_some();
        let mut grundy_histogram = vec![0u64; if any { max_grundy as usize + 1 } else { 0 }];
        for g in finite() {
            grundy_histogram[g as usize] += 1;
        }
        let edges = graph.total_moves() as u64;
        CaseStats {
            case: number,
            nodes: n as u64,
            edges,
            sinks: (0..n as u32).filter(|&v| graph.move_count(v) == 0).count() as u64,
            sources: in_degree.iter().filter(|&&d| d == 0).count() as u64,
            levels: level_histogram.as_ref().map(|h| h.len() as u64),
            widest_level: level_histogram.as_deref().map(widest),
            max_out_degree: (0..n as u32).map(|v| graph.move_count(v)).max().unwrap_or(0).into(),
            mean_out_degree: if n == 0 { 0.0 } else { edges as f64 / n as f64 },
            max_in_degree: in_degree.iter().copied().max().unwrap_or(0).into(),
            parallel_edges: match deps {
                Deps::Narrow(g) => parallel_edges(g),
                Deps::Wide(g) => parallel_edges(g),
            },
            offset_bits: match deps {
                Deps::Narrow(_) => 32,
                Deps::Wide(_) => 64,
            },
            max_grundy: max_grundy.into(),
            queries: outcomes.total(),
            wins: outcomes.wins,
            losses: outcomes.losses,
            draws: outcomes.draws,
            infinite: None,
            grundy_histogram,
            level_histogram,
            out_degree_histogram: histogram((0..n as u32).map(|v| graph.move_count(v))),
            play: None,
            seconds: times.into(),
        }
    }

    /// The total over `cases`: sums of counts, maxima of maxima, histograms added up. With
    /// `loopy`, the cases are loopy games: the total has their counts of draws and infinite
    /// nodes, and no levels (also when there is no case).
    pub fn total(cases: &[CaseStats], loopy: bool) -> CaseStats {
        let mut t = CaseStats::default();
        if loopy {
            (t.draws, t.infinite) = (Some(0), Some(0));
        } else {
            (t.levels, t.level_histogram) = (Some(0), Some(Vec::new()));
        }
        let add = add_histogram;
        for c in cases {
            t.nodes += c.nodes;
            t.edges += c.edges;
            t.sinks += c.sinks;
            t.sources += c.sources;
            t.levels = t.levels.max(c.levels);
            t.max_out_degree = t.max_out_degree.max(c.max_out_degree);
            t.max_in_degree = t.max_in_degree.max(c.max_in_degree);
            t.parallel_edges += c.parallel_edges;
            t.offset_bits = t.offset_bits.max(c.offset_bits);
            t.max_grundy = t.max_grundy.max(c.max_grundy);
            t.queries += c.queries;
            t.wins += c.wins;
            t.losses += c.losses;
            let sum =
                |a: Option<u64>, b: Option<u64>| a.or(b).map(|_| a.unwrap_or(0) + b.unwrap_or(0));
            t.draws = sum(t.draws, c.draws);
            t.infinite = sum(t.infinite, c.infinite);
            add(&mut t.grundy_histogram, &c.grundy_histogram);
            add(&mut t.out_degree_histogram, &c.out_degree_histogram);
            if let (Some(sum), Some(h)) = (&mut t.level_histogram, &c.level_histogram) {
                add(sum, h);
            }
            match (&mut t.play, &c.play) {
                (Some(sum), Some(p)) => sum.add(p),
                (None, Some(p)) => t.play = Some(p.clone()),
                _ => {}
            }
            t.seconds.parse += c.seconds.parse;
            t.seconds.order += c.seconds.order;
            t.seconds.evaluate += c.seconds.evaluate;
            t.seconds.queries += c.seconds.queries;
        }
        t.mean_out_degree = if t.nodes == 0 { 0.0 } else { t.edges as f64 / t.nodes as f64 };
        t.widest_level = t.level_histogram.as_deref().map(widest);
        t
    }

    /// The text report of this case (or total, titled `title`), for people.
    pub fn to_text(&self, title: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{title}");
        let n = thousands;
        let s = &self.seconds;
        let mut rows: Vec<(&str, String)> = vec![
            ("nodes", n(self.nodes)),
            ("edges", n(self.edges)),
            ("mean out-degree", format!("{:.2}", self.mean_out_degree)),
            ("max out-degree", n(self.max_out_degree)),
            ("max in-degree", n(self.max_in_degree)),
            ("parallel edges", n(self.parallel_edges)),
            ("offsets", format!("{}-bit", self.offset_bits)),
            ("sinks", n(self.sinks)),
            ("sources", n(self.sources)),
            ("levels", self.levels.map(n).unwrap_or_default()),
            (
                "widest level",
                self.widest_level
                    .map(|w| format!("{} nodes (level {})", n(w.nodes), w.level))
                    .unwrap_or_default(),
            ),
            ("max grundy value", n(self.max_grundy)),
            ("queries", n(self.queries)),
            ("WIN", share(self.wins, self.queries)),
            ("LOSE", share(self.losses, self.queries)),
            ("DRAW", self.draws.map(|d| share(d, self.queries)).unwrap_or_default()),
            (
                "UNDECIDED",
                self.play
                    .as_ref()
                    .filter(|p| p.misere_heaps.is_some())
                    .map(|p| share(p.undecided, self.queries))
                    .unwrap_or_default(),
            ),
            ("play", self.play.as_ref().map(|p| p.play.to_string()).unwrap_or_default()),
            (
                "misère heaps",
                self.play
                    .as_ref()
                    .and_then(|p| p.misere_heaps)
                    .map(|h| share(h, self.nodes))
                    .unwrap_or_default(),
            ),
            ("infinite nodes", self.infinite.map(n).unwrap_or_default()),
            (
                "time (s)",
                format!(
                    "parse {:.3}, order {:.3}, evaluate {:.3}, queries {:.3}",
                    s.parse, s.order, s.evaluate, s.queries
                ),
            ),
        ];
        // The loopy rows only for loopy runs, the level rows only where levels were computed,
        // the play's rows only for a play.
        rows.retain(|(name, value)| {
            !value.is_empty()
                || !matches!(
                    *name,
                    "DRAW"
                        | "infinite nodes"
                        | "levels"
                        | "widest level"
                        | "UNDECIDED"
                        | "play"
                        | "misère heaps"
                )
        });
        for (name, value) in rows {
            let _ = writeln!(out, "  {name:<17}{value}");
        }
        let _ = writeln!(out, "  grundy values:");
        histogram_text(&mut out, &self.grundy_histogram);
        if let Some(levels) = &self.level_histogram {
            let _ = writeln!(out, "  nodes per level:");
            histogram_text(&mut out, levels);
        }
        if let Some(PlayStats { number: Some(number), histogram, .. }) = &self.play {
            let _ = writeln!(out, "  {} values:", number.replace('_', " "));
            histogram_text(&mut out, histogram);
        }
        out
    }
}

/// The whole `stats` report of a file, for scripts.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// The file, or `<stdin>`.
    pub file: &'a str,
    /// All cases together.
    pub total: CaseStats,
    /// Each case.
    pub cases: &'a [CaseStats],
    /// Wall-clock time of the whole run.
    pub seconds: f64,
    /// Peak resident memory of the run, when the system tells it.
    pub peak_memory_bytes: Option<u64>,
}

impl Report<'_> {
    /// The report as people read it: the total first (for more than one case), then each
    /// case, then the time and memory of the run.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.cases.len() > 1 {
            let title = format!("{}: all {} cases", self.file, thousands(self.cases.len() as u64));
            out.push_str(&self.total.to_text(&title));
        }
        for case in self.cases {
            out.push_str(&case.to_text(&format!("{}: case {}", self.file, case.case)));
        }
        let memory = self
            .peak_memory_bytes
            .map_or(String::new(), |b| format!(", peak memory {}", human_bytes(b as f64)));
        let _ = writeln!(out, "{}: {:.3} s in all{memory}", self.file, self.seconds);
        out
    }

    /// The report as one JSON document (one line).
    pub fn to_json(&self) -> String {
        // Serializing plain numbers, strings and vectors into memory cannot fail.
        let mut text = serde_json::to_string(self).expect("JSON of plain data");
        text.push('\n');
        text
    }
}

/// Adds histogram `h` to `sum`, bar by bar.
fn add_histogram(sum: &mut Vec<u64>, h: &[u64]) {
    sum.resize(sum.len().max(h.len()), 0);
    sum.iter_mut().zip(h).for_each(|(s, x)| *s += x);
}

/// How many nodes each level (or number) holds, from every node's level.
fn histogram(levels: impl Iterator<Item = u32>) -> Vec<u64> {
    let mut histogram = Vec::new();
    for l in levels {
        if histogram.len() <= l as usize {
            histogram.resize(l as usize + 1, 0);
        }
        histogram[l as usize] += 1;
    }
    histogram
}

/// The widest level of a histogram of nodes per level (the first, on ties).
fn widest(level_histogram: &[u64]) -> WidestLevel {
    level_histogram
        .iter()
        .enumerate()
        .max_by_key(|&(l, &w)| (w, std::cmp::Reverse(l)))
        .map_or(WidestLevel::default(), |(l, &w)| WidestLevel { level: l as u64, nodes: w })
}

/// Out-positions that repeat an earlier one of the same node. Each thread takes a range of
/// nodes and marks targets with the node's id in a scratch of its own (4 bytes per node per
/// thread): linear, no sorting.
fn parallel_edges<O: Offset>(graph: &Csr<O>) -> u64 {
    let n = graph.node_count();
    let threads = rayon::current_num_threads().max(1);
    let span = n.div_ceil(threads).max(1);
    (0..n.div_ceil(span))
        .into_par_iter()
        .map(|k| {
            let mut seen = vec![u32::MAX; n];
            let mut repeats = 0u64;
            for v in (k * span) as u32..((k + 1) * span).min(n) as u32 {
                for &t in graph.successors(v) {
                    let mark = &mut seen[t as usize];
                    repeats += u64::from(*mark == v);
                    *mark = v;
                }
            }
            repeats
        })
        .sum()
}

/// `x` with a comma between groups of three digits: `1,234,567`.
pub fn thousands(x: u64) -> String {
    let digits = x.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `count` and its share of `total`: `889,123 (88.9%)`.
fn share(count: u64, total: u64) -> String {
    if total == 0 {
        return thousands(count);
    }
    format!("{} ({:.1}%)", thousands(count), 100.0 * count as f64 / total as f64)
}

/// Appends a histogram: one row per value, or per range of values when there are more than
/// [`HISTOGRAM_ROWS`], with a bar scaled to the largest row and the share of all nodes.
fn histogram_text(out: &mut String, counts: &[u64]) {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        let _ = writeln!(out, "    (none)");
        return;
    }
    let group = counts.len().div_ceil(HISTOGRAM_ROWS);
    let rows: Vec<(String, u64)> = counts
        .chunks(group)
        .enumerate()
        .map(|(i, c)| {
            let (lo, hi) = (i * group, i * group + c.len() - 1);
            let label = if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
            (label, c.iter().sum())
        })
        .collect();
    let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(1);
    let count_width = rows.iter().map(|(_, c)| thousands(*c).len()).max().unwrap_or(1);
    let largest = rows.iter().map(|&(_, c)| c).max().unwrap_or(1).max(1);
    for (label, count) in rows {
        let bar = "#".repeat(((count * BAR_WIDTH as u64).div_ceil(largest)) as usize);
        let share = 100.0 * count as f64 / total as f64;
        let count = thousands(count);
        let _ =
            writeln!(out, "    {label:>label_width$}  {count:>count_width$}  {share:5.1}%  {bar}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Csr;

    #[test]
    fn histograms_group_long_ranges() {
        let mut out = String::new();
        histogram_text(&mut out, &[5, 0, 5]);
        assert_eq!(out.lines().count(), 3);
        assert!(out.contains(" 50.0%"), "{out}");
        let mut out = String::new();
        histogram_text(&mut out, &vec![1; 100]);
        assert_eq!(out.lines().count(), 15, "{out}");
        assert!(out.starts_with("      0-6  7    7.0%  #"), "{out}");
    }

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn parallel_edges_count_repeats_within_a_list_only() {
        let g = Csr::from_lists(&[vec![1, 2, 1, 1], vec![2, 2], vec![], vec![1, 2]]).unwrap();
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            assert_eq!(pool.install(|| parallel_edges(&g)), 3);
        }
    }
}
