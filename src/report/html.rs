//! The page of a game's statistics: a summary, SVG bar charts of the value, level and
//! out-degree histograms and, on the server's page, a position explorer. One self-contained
//! HTML file (styles, charts and script inline, nothing fetched from a network), written by
//! `stats --html` and served at `/` by `grundy serve`.

use std::fmt::Write;

use super::stats::{thousands, CaseStats, Report};

/// Most bars a chart draws; longer histograms are drawn in groups of neighbouring bars.
const BARS: usize = 64;

/// The chart's width, in SVG units.
const WIDTH: f64 = 640.0;
/// The chart's height, in SVG units.
const HEIGHT: f64 = 220.0;

/// The page of `report`; with `explorer`, the position explorer (which asks the server that
/// served the page).
pub fn page(report: &Report, explorer: bool) -> String {
    let total = &report.total;
    let mut html = String::with_capacity(16 << 10);
    let file = escape(report.file);
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>grundy: {file}</title><style>{STYLE}</style></head><body>\n\
         <h1>grundy: <code>{file}</code></h1>\n"
    );
    summary(&mut html, report);
    html.push_str("<section id=\"charts\">\n");
    let values = total.grundy_histogram.as_slice();
    html.push_str(&chart("grundy", "Grundy values", "value", values));
    if let Some(levels) = total.level_histogram.as_deref().filter(|h| !h.is_empty()) {
        html.push_str(&chart("level", "Levels", "level", levels));
    }
    let degrees = total.out_degree_histogram.as_slice();
    html.push_str(&chart("out-degree", "Out-degrees", "moves", degrees));
    html.push_str("</section>\n");
    if explorer {
        html.push_str(EXPLORER);
    }
    html.push_str("</body></html>\n");
    html
}

/// The summary table: sizes and outcomes of all cases together.
fn summary(html: &mut String, report: &Report) {
    let t: &CaseStats = &report.total;
    let mut rows = vec![
        ("cases", thousands(report.cases.len() as u64)),
        ("nodes", thousands(t.nodes)),
        ("edges (moves)", thousands(t.edges)),
        ("sinks", thousands(t.sinks)),
        ("largest Grundy value", thousands(t.max_grundy)),
        ("most moves from a node", thousands(t.max_out_degree)),
    ];
    if let Some(levels) = t.levels {
        rows.push(("levels", thousands(levels)));
    }
    if let Some(infinite) = t.infinite {
        rows.push(("nodes of infinite value", thousands(infinite)));
    }
    rows.push(("queries in the input", thousands(t.queries)));
    rows.push(("of which WIN", thousands(t.wins)));
    if let Some(draws) = t.draws {
        rows.push(("of which DRAW", thousands(draws)));
    }
    html.push_str("<table id=\"summary\">\n");
    for (name, value) in rows {
        let _ = writeln!(html, "<tr><th>{name}</th><td>{value}</td></tr>");
    }
    html.push_str("</table>\n");
}

/// A bar chart (SVG) of `counts` (`counts[x]` nodes at `x`), in at most [`BARS`] bars, each
/// titled with its range and count (a tooltip).
fn chart(id: &str, title: &str, axis: &str, counts: &[u64]) -> String {
    let mut svg = String::new();
    let _ = write!(svg, "<figure><figcaption>{title}</figcaption>");
    let _ = write!(
        svg,
        "<svg id=\"chart-{id}\" class=\"chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" \
         role=\"img\" aria-label=\"{title}\">"
    );
    let group = counts.len().div_ceil(BARS).max(1);
    let bars: Vec<(usize, usize, u64)> = counts
        .chunks(group)
        .enumerate()
        .map(|(i, c)| (i * group, i * group + c.len() - 1, c.iter().sum()))
        .collect();
    let largest = bars.iter().map(|b| b.2).max().unwrap_or(0).max(1);
    let (left, bottom, top) = (48.0, HEIGHT - 28.0, 8.0);
    let step = (WIDTH - left - 8.0) / bars.len().max(1) as f64;
    let _ = write!(
        svg,
        "<line x1=\"{left}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\" class=\"axis\"/>\
         <text x=\"{}\" y=\"{top}\" class=\"label\" text-anchor=\"end\" dy=\"0.7em\">{}</text>",
        WIDTH - 8.0,
        left - 4.0,
        thousands(largest)
    );
    for (k, &(lo, hi, count)) in bars.iter().enumerate() {
        let height = (bottom - top) * count as f64 / largest as f64;
        let x = left + k as f64 * step;
        let range = if lo == hi { lo.to_string() } else { format!("{lo}-{hi}") };
        let _ = write!(
            svg,
            "<rect class=\"bar\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{height:.1}\">\
             <title>{axis} {range}: {} nodes</title></rect>",
            bottom - height,
            (step * 0.85).max(0.5),
            thousands(count)
        );
    }
    if let (Some(first), Some(last)) = (bars.first(), bars.last()) {
        let _ = write!(
            svg,
            "<text x=\"{left}\" y=\"{}\" class=\"label\">{}</text>\
             <text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"end\">{} ({axis})</text>",
            bottom + 16.0,
            first.0,
            WIDTH - 8.0,
            bottom + 16.0,
            last.1
        );
    }
    svg.push_str("</svg></figure>\n");
    svg
}

/// `text` safe in HTML text and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.4 system-ui,sans-serif;margin:2em auto;max-width:46em;\
padding:0 1em;color:#222}h1{font-size:1.4em}table{border-collapse:collapse;margin:1em 0}\
th,td{padding:.15em .8em;text-align:left;border-bottom:1px solid #ddd}td{text-align:right;\
font-variant-numeric:tabular-nums}figure{margin:1.5em 0}figcaption{font-weight:600}\
svg.chart{width:100%;height:auto}.bar{fill:#3b6ea5}.bar:hover{fill:#e07b39}\
.axis{stroke:#888}.label{font-size:11px;fill:#555}";

/// The position explorer: type a case and a node, see its value and moves; a move to one
/// node is a link that follows it.
const EXPLORER: &str = r#"<section id="explorer"><h2>Positions</h2>
<style>#explorer input{width:7em}a.move{cursor:pointer}.LOSE{color:#0a7d2c}.WIN{color:#b3261e}
.DRAW{color:#8a6d00}</style>
<form id="ask">case <input id="case" type="number" min="1" value="1"> node
<input id="node" type="number" min="0" value="0"> <button>Show</button></form>
<div id="position"></div>
<script>
const $ = (id) => document.getElementById(id);
const text = (tag, content, cls) => {
  const e = document.createElement(tag);
  e.textContent = content;
  if (cls) e.className = cls;
  return e;
};
async function show(c, n) {
  const out = $("position");
  const response = await fetch(`/v1/position/${c}/${n}`);
  const p = await response.json();
  out.replaceChildren();
  if (!response.ok) { out.append(text("p", p.error, "error")); return; }
  $("case").value = c; $("node").value = n;
  out.dataset.node = p.node;
  const value = p.grundy === null ? "infinite" : p.grundy;
  const head = text("p", `node ${p.node}: Grundy value ${value}, `);
  head.append(text("strong", p.outcome, p.outcome));
  head.append(` for the player to move; level ${p.level ?? "-"}, ${p.out_degree} moves`);
  if (p.k) head.append(`; K = {${p.k.join(", ")}}`);
  out.append(head);
  const list = document.createElement("ol");
  list.id = "moves";
  for (const m of p.moves) {
    const item = document.createElement("li");
    const g = m.grundy === null ? "infinite" : m.grundy;
    if (Array.isArray(m.to)) {
      item.append(`to the sum ${m.to.join(" + ")}`);
    } else {
      const link = text("a", `to ${m.to}`, "move");
      link.href = `#${c}/${m.to}`;
      link.dataset.to = m.to;
      link.onclick = (e) => { e.preventDefault(); show(c, m.to); };
      item.append(link);
    }
    item.append(`: value ${g}, `, text("span", m.outcome, m.outcome));
    list.append(item);
  }
  out.append(list);
  history.replaceState(null, "", `#${c}/${n}`);
}
$("ask").onsubmit = (e) => { e.preventDefault(); show($("case").value, $("node").value); };
const fromHash = () => {
  const at = location.hash.slice(1).split("/");
  show(at.length === 2 ? at[0] : 1, at.length === 2 ? at[1] : 0);
};
window.onhashchange = fromHash;
fromHash();
</script></section>
"#;
