//! `values`, `solve --report`, `query` and `stats`: every column against the oracles, every
//! winning move replayed, and no partial output file after a failed or interrupted run.

use std::collections::HashMap;
use std::path::Path;

use crate::util::*;

/// Levels by relaxation: 0 for a sink, else 1 + the largest level of an out-position.
fn relaxation_levels(lists: &[Vec<u32>]) -> Vec<u32> {
    let mut level = vec![0u32; lists.len()];
    for _ in 0..=lists.len() {
        for v in 0..lists.len() {
            level[v] = lists[v].iter().map(|&s| level[s as usize] + 1).max().unwrap_or(0);
        }
    }
    level
}

fn random_cases(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let n = 1 + rng.below(40) as usize;
            let degree = rng.below(5);
            let queries = rng.below(30) as usize;
            random_case(&mut rng, n, degree, queries, 6)
        })
        .collect()
}

fn csv_rows(text: &str, header: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header));
    lines.map(|l| l.split(',').map(str::to_string).collect()).collect()
}

/// Checks one query row (without its case column) against the oracle values, replaying the
/// winning move.
fn check_query_row(row: &[String], number: usize, query: &[u32], lists: &[Vec<u32>], g: &[u32]) {
    let positions: Vec<String> = query.iter().map(u32::to_string).collect();
    let nim_sum = query.iter().fold(0, |acc, &p| acc ^ g[p as usize]);
    assert_eq!(row[0], number.to_string());
    assert_eq!(row[1], positions.join(" "));
    assert_eq!(row[2], nim_sum.to_string());
    if nim_sum == 0 {
        assert_eq!((&row[3][..], &row[4][..], &row[5][..]), ("LOSE", "", ""));
        return;
    }
    assert_eq!(row[3], "WIN");
    let from: u32 = row[4].parse().expect("move_from");
    let to: u32 = row[5].parse().expect("move_to");
    let at = query.iter().position(|&p| p == from).expect("move_from holds a token");
    assert!(lists[from as usize].contains(&to), "{from} -> {to} is a move");
    let mut after = query.to_vec();
    after[at] = to;
    assert_eq!(after.iter().fold(0, |acc, &p| acc ^ g[p as usize]), 0, "the move wins");
    // And by the game tree: the opponent is left in a lost position.
    if query.len() <= 2 && lists.len() <= 12 {
        assert!(!game_tree_wins(lists, &after, &mut HashMap::new()));
    }
}

fn for_both_paths(mut check: impl FnMut(&[&str])) {
    check(&["--sequential"]);
    check(&["--threads", "3", "--chunk-bytes", "64"]);
}

#[test]
fn values_columns_match_the_oracles() {
    let dir = tempdir();
    let cases = random_cases(4, 300);
    let path = write_file(dir.path(), "in.txt", &write_messy(&mut Rng::new(5), &cases, false));
    for_both_paths(|threads| {
        let mut args = threads.to_vec();
        args.extend(["values", path.to_str().unwrap()]);
        let text = run(&args, None).ok();
        let rows = csv_rows(&text, "case,node,grundy,level,out_degree");
        let mut i = 0;
        for (c, case) in cases.iter().enumerate() {
            let (g, level) = (relaxation_values(&case.lists), relaxation_levels(&case.lists));
            for v in 0..case.lists.len() {
                let expected = [c + 1, v, g[v] as usize, level[v] as usize, case.lists[v].len()];
                let expected: Vec<String> = expected.iter().map(usize::to_string).collect();
                assert_eq!(rows[i], expected, "case {} node {v}", c + 1);
                i += 1;
            }
        }
        assert_eq!(i, rows.len());
    });
}

#[test]
fn solve_report_rows_match_the_oracle_and_moves_win() {
    let dir = tempdir();
    let cases = random_cases(6, 300);
    let input = write_messy(&mut Rng::new(7), &cases, true);
    let path = write_file(dir.path(), "in.txt", &input);
    let report = dir.path().join("report.csv");
    for_both_paths(|threads| {
        let mut args = threads.to_vec();
        args.extend(["solve", path.to_str().unwrap(), "--report", report.to_str().unwrap()]);
        let stdout = run(&args, None).ok();
        assert_eq!(stdout, expected_answers(&cases, |c| relaxation_values(&c.lists)));
        let text = std::fs::read_to_string(&report).unwrap();
        let rows = csv_rows(&text, "case,query,positions,nim_sum,result,move_from,move_to");
        let mut i = 0;
        for (c, case) in cases.iter().enumerate() {
            let g = relaxation_values(&case.lists);
            for (q, query) in case.queries.iter().enumerate() {
                assert_eq!(rows[i][0], (c + 1).to_string());
                check_query_row(&rows[i][1..], q + 1, query, &case.lists, &g);
                i += 1;
            }
        }
        assert_eq!(i, rows.len());
    });
}

#[test]
fn query_answers_a_separate_file_against_the_first_case() {
    let dir = tempdir();
    let mut rng = Rng::new(8);
    let case = random_case(&mut rng, 200, 4, 50, 5);
    let other = random_case(&mut rng, 5, 2, 3, 2);
    let graph = write_messy(&mut rng, &[case.clone(), other], false);
    let graph = write_file(dir.path(), "graph.txt", &graph);
    let queries: Vec<Vec<u32>> =
        (0..3000).map(|_| (0..1 + rng.below(6)).map(|_| rng.below(200) as u32).collect()).collect();
    let g = relaxation_values(&case.lists);
    for ending in ["0\n", ""] {
        let mut text = String::new();
        for q in &queries {
            let items: Vec<String> = q.iter().map(u32::to_string).collect();
            text.push_str(&format!("{}\n{}\n", q.len(), items.join("\t")));
        }
        text.push_str(ending);
        let qpath = write_file(dir.path(), "queries.txt", text.as_bytes());
        for_both_paths(|threads| {
            let mut args = threads.to_vec();
            args.extend(["query", graph.to_str().unwrap(), qpath.to_str().unwrap()]);
            let out = run(&args, None).ok();
            let rows = csv_rows(&out, "query,positions,nim_sum,result,move_from,move_to");
            assert_eq!(rows.len(), queries.len());
            for (i, q) in queries.iter().enumerate() {
                check_query_row(&rows[i], i + 1, q, &case.lists, &g);
            }
        });
    }
    // Input after the terminating 0 is an error, on both paths.
    let qpath = write_file(dir.path(), "extra.txt", b"1 3\n0\n1 2\n");
    for_both_paths(|threads| {
        let mut args = threads.to_vec();
        args.extend(["query", graph.to_str().unwrap(), qpath.to_str().unwrap()]);
        let line = run(&args, None).error_line();
        let expected = "expected the end of the input after the 0 that ends the queries";
        assert_eq!(line, format!("error: {}:3:1: {expected}", qpath.display()));
    });
    // A position beyond the first case's nodes is an error naming the query file.
    let qpath = write_file(dir.path(), "bad.txt", b"1 3\n2 0 200\n");
    let line = run(&["query", graph.to_str().unwrap(), qpath.to_str().unwrap()], None).error_line();
    let expected = "position 2 of 2 of query 2 is 200, but the case has 200 nodes (ids 0 to 199)";
    assert_eq!(line, format!("error: {}:2:5: {expected}", qpath.display()));
}

#[test]
fn stats_match_the_oracle() {
    let dir = tempdir();
    let cases = random_cases(9, 20);
    let path = write_file(dir.path(), "in.txt", &write_messy(&mut Rng::new(10), &cases, false));
    // What the oracle says each case's statistics are, in the JSON's own terms.
    let expected: Vec<serde_json::Value> = cases
        .iter()
        .enumerate()
        .map(|(c, case)| {
            let n = case.lists.len();
            let g = relaxation_values(&case.lists);
            let level = relaxation_levels(&case.lists);
            let mut in_degree = vec![0u64; n];
            case.lists.iter().flatten().for_each(|&t| in_degree[t as usize] += 1);
            let levels = *level.iter().max().unwrap() as usize + 1;
            let mut by_level = vec![0u64; levels];
            level.iter().for_each(|&l| by_level[l as usize] += 1);
            let widest = (0..levels).max_by_key(|&l| (by_level[l], std::cmp::Reverse(l))).unwrap();
            let mut by_g = vec![0u64; *g.iter().max().unwrap() as usize + 1];
            g.iter().for_each(|&x| by_g[x as usize] += 1);
            let edges: usize = case.lists.iter().map(Vec::len).sum();
            let parallel: usize = case.lists.iter().map(|l| repeats(l)).sum();
            let wins = case.queries.iter().filter(|q| nim_sum(q, &g) != 0).count();
            serde_json::json!({
                "case": c + 1,
                "nodes": n,
                "edges": edges,
                "sinks": case.lists.iter().filter(|l| l.is_empty()).count(),
                "sources": in_degree.iter().filter(|&&d| d == 0).count(),
                "levels": levels,
                "widest_level": {"level": widest, "nodes": by_level[widest]},
                "max_out_degree": case.lists.iter().map(Vec::len).max().unwrap(),
                "mean_out_degree": edges as f64 / n as f64,
                "max_in_degree": in_degree.iter().max().unwrap(),
                "parallel_edges": parallel,
                "max_grundy": by_g.len() - 1,
                "queries": case.queries.len(),
                "wins": wins,
                "losses": case.queries.len() - wins,
                "grundy_histogram": by_g,
                "level_histogram": by_level,
            })
        })
        .collect();
    for_both_paths(|threads| {
        let mut args = threads.to_vec();
        args.extend(["stats", "--json", path.to_str().unwrap()]);
        let json: serde_json::Value = serde_json::from_str(&run(&args, None).ok()).unwrap();
        let got = json["cases"].as_array().unwrap();
        assert_eq!(got.len(), cases.len());
        for (got, expected) in got.iter().zip(&expected) {
            for (key, value) in expected.as_object().unwrap() {
                match value.as_f64().filter(|_| value.is_f64()) {
                    // Decimal text of a float reads back within a rounding step.
                    Some(x) => assert!((got[key].as_f64().unwrap() - x).abs() < 1e-9, "{key}"),
                    None => assert_eq!(&got[key], value, "case {}: {key}", expected["case"]),
                }
            }
            assert!(got["seconds"]["evaluate"].is_f64());
        }
        // The total adds counts up and takes the largest of the largest.
        let total = &json["total"];
        let sum = |key: &str| expected.iter().map(|e| e[key].as_u64().unwrap()).sum::<u64>();
        let max = |key: &str| expected.iter().map(|e| e[key].as_u64().unwrap()).max().unwrap();
        for key in ["nodes", "edges", "sinks", "sources", "parallel_edges", "queries", "wins"] {
            assert_eq!(total[key].as_u64(), Some(sum(key)), "total {key}");
        }
        for key in ["levels", "max_out_degree", "max_in_degree", "max_grundy"] {
            assert_eq!(total[key].as_u64(), Some(max(key)), "total {key}");
        }
        assert!(total.get("case").is_none());
        assert!(json["peak_memory_bytes"].as_u64().unwrap() > 1 << 20);
    });
    let text = run(&["stats", path.to_str().unwrap()], None).ok();
    assert_eq!(text.matches(": case ").count(), cases.len());
    // The total comes first, then the cases, then the run's time and memory.
    assert!(text.starts_with(&format!("{}: all 20 cases\n", path.display())), "{text}");
    assert!(text.contains("  grundy values:\n") && text.contains("%  #"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.contains(" s in all, peak memory ") && last.ends_with("MB"), "{last}");
}

#[test]
fn stats_separates_thousands_and_counts_outcomes() {
    let dir = tempdir();
    let path = dir.path().join("g.txt");
    let file = path.to_str().unwrap();
    run(&["generate", "-n", "20000", "--edges", "60000", "--lose-share", "0.25", "-o", file], None)
        .ok();
    let text = run(&["stats", file], None).ok();
    assert!(text.contains("  nodes            20,000\n"), "{text}");
    assert!(text.contains("  edges            60,000\n"), "{text}");
    assert!(text.contains("  mean out-degree  3.00\n"), "{text}");
    assert!(!text.contains("all 1 cases"), "no total for one case: {text}");
    let outcome = |name: &str| -> u64 {
        let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap();
        line.split_whitespace().nth(1).unwrap().replace(',', "").parse().unwrap()
    };
    let verdicts = run(&["solve", file], None).ok();
    assert_eq!(outcome("WIN"), verdicts.matches("WIN").count() as u64);
    assert_eq!(outcome("LOSE"), verdicts.matches("LOSE").count() as u64);
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn failed_runs_leave_no_output_and_existing_files_untouched() {
    let dir = tempdir();
    let mut cases = random_cases(11, 8);
    // Case 7 has an out-of-range query position.
    cases[6].queries.push(vec![0, 9999]);
    let input = write_file(dir.path(), "in.txt", &write_messy(&mut Rng::new(12), &cases, false));
    let input = input.to_str().unwrap();
    let report = dir.path().join("report.csv");
    let values = dir.path().join("values.csv");
    std::fs::write(&values, "old values\n").unwrap();
    for threads in ["1", "2"] {
        let r = run(
            &["--threads", threads, "solve", input, "--report", report.to_str().unwrap()],
            None,
        );
        assert!(r.error_line().contains("case 7"), "{}", r.stderr);
        let r = run(&["--threads", threads, "values", input, "-o", values.to_str().unwrap()], None);
        assert!(r.error_line().contains("case 7"), "{}", r.stderr);
        assert_eq!(std::fs::read_to_string(&values).unwrap(), "old values\n");
        assert_eq!(files_in(dir.path()), vec!["in.txt", "values.csv"]);
    }
}

#[test]
fn values_into_a_closed_pipe_exits_0_quietly() {
    let dir = tempdir();
    let path = dir.path().join("big.txt");
    run(&["generate", "-n", "300000", "-q", "0", "-o", path.to_str().unwrap()], None).ok();
    let mut child = grundy()
        .args(["values", path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(&first, b"case,node,");
    assert_eq!((out.status.code(), String::from_utf8_lossy(&out.stderr).as_ref()), (Some(0), ""));
}

/// A run long enough to show progress (over half a second): `values` or `solve` of a big
/// generated file.
fn long_run(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("big.txt");
    let file = path.to_str().unwrap();
    let args = ["generate", "-n", "3000000", "--avg-degree", "5", "-q", "1000000", "-o", file];
    run(&args, None).ok();
    path
}

/// What a terminal showed: the typescript `script(1)` recorded of `args`, or `None` when
/// there is no `script` here.
fn on_a_terminal(args: &[&str]) -> Option<String> {
    std::process::Command::new("script").arg("--version").output().ok()?;
    let command = format!("{} {}", env!("CARGO_BIN_EXE_grundy"), args.join(" "));
    let out = std::process::Command::new("script")
        .args(["-qefc", &command, "/dev/null"])
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The lines of a typescript as they were last drawn: escape sequences removed, each line cut
/// at its last carriage return (a redraw), the frames drawn over before it kept apart.
fn screen(typescript: &str) -> (Vec<String>, Vec<String>) {
    let mut plain = String::new();
    let mut chars = typescript.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, then one final letter.
            chars.next();
            while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
        } else {
            plain.push(c);
        }
    }
    let (mut last, mut frames) = (Vec::new(), Vec::new());
    for line in plain.split('\n') {
        let mut parts: Vec<&str> = line.trim_end_matches('\r').split('\r').collect();
        last.push(parts.pop().unwrap_or("").to_string());
        frames.extend(parts.into_iter().filter(|p| !p.trim().is_empty()).map(str::to_string));
    }
    (last, frames)
}

/// Regression: on a 10M-node file the bar showed nothing for 8 s and then jumped to 100 %,
/// with rates like `37109928/s`.
#[test]
fn progress_moves_through_the_stages_on_a_terminal_only() {
    let dir = tempdir();
    let big = long_run(dir.path());
    let out = dir.path().join("v.csv");
    let args = ["--sequential", "values", big.to_str().unwrap(), "-o", out.to_str().unwrap()];
    // stderr is a pipe here: nothing may appear on it.
    assert_eq!(run(&args, None).ok(), "");
    let Some(typescript) = on_a_terminal(&args) else { return };
    let (last, frames) = screen(&typescript);
    let drawn: Vec<&String> =
        frames.iter().chain(&last).filter(|f| f.contains("case 1: ")).collect();
    assert!(drawn.len() > 1, "more than one frame: {typescript:?}");
    // Which stages are still running when the bar appears (after half a second) depends on
    // the machine's speed: what matters is that the bar moves, from stage to stage or (when
    // only the last is still running then) within it, not that it jumps to the end.
    let stages = ["reading", "indexing", "peeling", "evaluating", "writing", "answering"];
    let shown = stages.iter().filter(|s| drawn.iter().any(|f| f.contains(&format!(": {s} "))));
    let position = |f: &&String| f.split("case 1: ").nth(1)?.split(',').next().map(str::to_owned);
    let mut positions: Vec<String> = drawn.iter().filter_map(position).collect();
    positions.dedup();
    assert!(shown.count() >= 2 || positions.len() >= 2, "the bar moves: {drawn:?}");
    for frame in &drawn {
        assert!(frame.chars().count() <= 80, "fits 80 columns: {frame:?}");
        let raw_rate = frame.split(' ').any(|w| w.len() > 6 && w.ends_with("/s"));
        assert!(!raw_rate, "rates in human units: {frame:?}");
    }
    let (quiet_last, quiet_frames) =
        screen(&on_a_terminal(&[&args[..], &["--quiet"]].concat()).unwrap());
    assert!(quiet_frames.is_empty() && quiet_last.iter().all(|l| l.trim().is_empty()));
}

/// When stdout is the bar's own terminal, answers are never drawn over: every line on the
/// screen is an answer, whole, and the bar was there too.
#[test]
fn progress_never_overwrites_answers_on_the_same_terminal() {
    let dir = tempdir();
    let big = long_run(dir.path());
    let args = ["--sequential", "solve", big.to_str().unwrap()];
    let expected = run(&args, None).ok();
    let Some(typescript) = on_a_terminal(&args) else { return };
    let (last, frames) = screen(&typescript);
    assert!(frames.iter().any(|f| f.contains("case 1: ")), "the bar was drawn");
    let answers: Vec<&str> = last.iter().map(String::as_str).filter(|l| !l.is_empty()).collect();
    assert_eq!(answers.len(), 1_000_000);
    assert!(answers.iter().all(|&l| l == "WIN" || l == "LOSE"), "every answer line is whole");
    assert_eq!(answers.join("\n") + "\n", expected);
}

#[test]
fn interrupted_runs_leave_no_file() {
    let dir = tempdir();
    let big = long_run(dir.path());
    let out = dir.path().join("v.csv");
    let (big, out) = (big.to_str().unwrap(), out.to_str().unwrap());
    let values = ["--sequential", "values", big, "-o", out];
    let queries = dir.path().join("queries.txt");
    std::fs::copy(big, &queries).unwrap();
    let query = ["--sequential", "query", big, queries.to_str().unwrap(), "-o", out];
    for (args, signal, code) in
        [(&values[..], "INT", 130), (&values[..], "TERM", 143), (&query[..], "INT", 130)]
    {
        let child = grundy().args(args).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        let kill = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait_with_output().unwrap().status;
        assert_eq!(status.code(), Some(code), "SIG{signal} {args:?}");
        let left = files_in(dir.path());
        assert_eq!(left, vec!["big.txt", "queries.txt"], "SIG{signal} {args:?}");
    }
}

/// `stats --html` writes one self-contained page (nothing fetched: no script or style from
/// elsewhere, no explorer, which needs a server) with a chart per histogram of `stats --json`,
/// one bar per value up to 64; a bad input leaves no page behind.
#[test]
fn stats_html_is_a_self_contained_page_of_the_histograms() {
    let dir = tempdir();
    let mut rng = Rng::new(77);
    for n in [30usize, 500] {
        let cases = [random_case(&mut rng, n, 4, 10, 3)];
        let input = write_file(dir.path(), "game.txt", &write_messy(&mut rng, &cases, false));
        let page_path = dir.path().join("report.html");
        let path = |p: &std::path::Path| p.to_str().expect("UTF-8").to_string();
        let (input_s, page_s) = (path(&input), path(&page_path));
        assert_eq!(run(&["stats", &input_s, "--html", &page_s], None).ok(), "");
        let page = std::fs::read_to_string(&page_path).expect("the page");
        let json = run(&["stats", "--json", &input_s], None).ok();
        let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let charts = [
            ("grundy", "grundy_histogram"),
            ("level", "level_histogram"),
            ("out-degree", "out_degree_histogram"),
        ];
        for (chart, histogram) in charts {
            let counts = json["total"][histogram].as_array().expect(histogram);
            let sum: u64 = counts.iter().map(|c| c.as_u64().expect("count")).sum();
            assert_eq!(sum, n as u64, "{histogram}");
            let at = page.find(&format!("<svg id=\"chart-{chart}\"")).expect(chart);
            let svg = &page[at..at + page[at..].find("</svg>").expect("end")];
            assert_eq!(svg.matches("<rect class=\"bar\"").count(), counts.len().min(64));
        }
        let mut degrees = vec![0u64; 5];
        cases[0].lists.iter().for_each(|l| degrees[l.len()] += 1);
        while degrees.last() == Some(&0) {
            degrees.pop();
        }
        assert_eq!(json["total"]["out_degree_histogram"], serde_json::json!(degrees));
        assert!(!page.contains("explorer") && !page.contains("src=") && !page.contains("http"));
        let bad = write_file(dir.path(), "bad.txt", b"2\n1 5\n0\n");
        std::fs::remove_file(&page_path).expect("removed");
        run(&["stats", &path(&bad), "--html", &page_s], None).error_line();
        assert!(!page_path.exists(), "a failed run left a page");
    }
}
