//! `grundy stats`: the shape of each case's graph and of its values, for people (an aligned
//! table with histogram bars) and for scripts (JSON).

use std::fmt::Write;

use crate::cases::{Evaluated, StageTimes};

/// Rows a text histogram shows at most; longer ones are grouped into equal ranges.
const HISTOGRAM_ROWS: usize = 16;
/// Width of the longest histogram bar, in characters.
const BAR_WIDTH: usize = 40;

/// Statistics of one case.
#[derive(Debug, Clone)]
pub struct CaseStats {
    /// 1-based case number.
    pub case: u64,
    /// Nodes.
    pub nodes: usize,
    /// Moves (edges in the chess format, parallel ones counted each time).
    pub edges: usize,
    /// Nodes without moves.
    pub sinks: usize,
    /// Nodes no move leads to.
    pub sources: usize,
    /// Number of Kahn levels.
    pub levels: usize,
    /// The widest level and its node count (`(0, 0)` for an empty graph).
    pub widest_level: (usize, usize),
    /// Largest number of moves of a node.
    pub max_out_degree: u32,
    /// Largest Grundy value (0 for an empty graph).
    pub max_grundy: u32,
    /// `grundy_histogram[g]`: nodes of value `g`.
    pub grundy_histogram: Vec<u64>,
    /// `level_histogram[l]`: nodes in level `l`.
    pub level_histogram: Vec<u64>,
    /// Queries read.
    pub queries: u64,
    /// Time of each stage.
    pub times: StageTimes,
}

impl CaseStats {
    /// The statistics of an evaluated case.
    pub fn of(case: &Evaluated, queries: u64, times: StageTimes) -> CaseStats {
        let graph = &case.graph;
        let n = graph.node_count();
        let mut has_pred = vec![false; n];
        for &t in graph.deps().targets() {
            has_pred[t as usize] = true;
        }
        let max_grundy = case.values.iter().copied().max().unwrap_or(0);
        let mut grundy_histogram = vec![0u64; if n == 0 { 0 } else { max_grundy as usize + 1 }];
        for &g in &case.values {
            grundy_histogram[g as usize] += 1;
        }
        let level_histogram: Vec<u64> =
            (0..case.levels.level_count()).map(|l| case.levels.level(l).len() as u64).collect();
        let widest_level = level_histogram
            .iter()
            .enumerate()
            .max_by_key(|&(l, &w)| (w, std::cmp::Reverse(l)))
            .map_or((0, 0), |(l, &w)| (l, w as usize));
        CaseStats {
            case: case.case,
            nodes: n,
            edges: graph.total_moves(),
            sinks: (0..n as u32).filter(|&v| graph.move_count(v) == 0).count(),
            sources: has_pred.iter().filter(|&&p| !p).count(),
            levels: case.levels.level_count(),
            widest_level,
            max_out_degree: (0..n as u32).map(|v| graph.move_count(v)).max().unwrap_or(0),
            max_grundy,
            grundy_histogram,
            level_histogram,
            queries,
            times,
        }
    }

    /// The text report of this case, for people.
    pub fn to_text(&self, file: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{file}: case {}", self.case);
        let rows: [(&str, String); 10] = [
            ("nodes", self.nodes.to_string()),
            ("edges", self.edges.to_string()),
            ("sinks", self.sinks.to_string()),
            ("sources", self.sources.to_string()),
            ("levels", self.levels.to_string()),
            (
                "widest level",
                format!("{} nodes (level {})", self.widest_level.1, self.widest_level.0),
            ),
            ("max out-degree", self.max_out_degree.to_string()),
            ("max grundy value", self.max_grundy.to_string()),
            ("queries", self.queries.to_string()),
            (
                "time (s)",
                format!(
                    "parse {:.3}, order {:.3}, evaluate {:.3}, queries {:.3}",
                    self.times.parse.as_secs_f64(),
                    self.times.order.as_secs_f64(),
                    self.times.evaluate.as_secs_f64(),
                    self.times.queries.as_secs_f64()
                ),
            ),
        ];
        for (name, value) in rows {
            let _ = writeln!(out, "  {name:<17}{value}");
        }
        let _ = writeln!(out, "  grundy values:");
        histogram_text(&mut out, &self.grundy_histogram);
        let _ = writeln!(out, "  nodes per level:");
        histogram_text(&mut out, &self.level_histogram);
        out
    }

    /// The JSON object of this case, for scripts.
    pub fn to_json(&self) -> String {
        let secs = |d: std::time::Duration| format!("{:.6}", d.as_secs_f64());
        let list = |h: &[u64]| h.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
        format!(
            concat!(
                "{{\"case\":{},\"nodes\":{},\"edges\":{},\"sinks\":{},\"sources\":{},",
                "\"levels\":{},\"widest_level\":{{\"level\":{},\"nodes\":{}}},",
                "\"max_out_degree\":{},\"max_grundy\":{},\"queries\":{},",
                "\"grundy_histogram\":[{}],\"level_histogram\":[{}],",
                "\"seconds\":{{\"parse\":{},\"order\":{},\"evaluate\":{},\"queries\":{}}}}}"
            ),
            self.case,
            self.nodes,
            self.edges,
            self.sinks,
            self.sources,
            self.levels,
            self.widest_level.0,
            self.widest_level.1,
            self.max_out_degree,
            self.max_grundy,
            self.queries,
            list(&self.grundy_histogram),
            list(&self.level_histogram),
            secs(self.times.parse),
            secs(self.times.order),
            secs(self.times.evaluate),
            secs(self.times.queries),
        )
    }
}

/// The JSON document for all cases of `file`.
pub fn json_document(file: &str, cases: &[CaseStats]) -> String {
    let cases: Vec<String> = cases.iter().map(CaseStats::to_json).collect();
    format!("{{\"file\":{},\"cases\":[{}]}}\n", json_string(file), cases.join(","))
}

/// `text` as a JSON string literal.
pub fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
    let count_width = rows.iter().map(|(_, c)| c.to_string().len()).max().unwrap_or(1);
    let largest = rows.iter().map(|&(_, c)| c).max().unwrap_or(1).max(1);
    for (label, count) in rows {
        let bar = "#".repeat(((count * BAR_WIDTH as u64).div_ceil(largest)) as usize);
        let share = 100.0 * count as f64 / total as f64;
        let _ =
            writeln!(out, "    {label:>label_width$}  {count:>count_width$}  {share:5.1}%  {bar}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
    }
}
