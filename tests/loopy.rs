//! `--loopy`: games with cycles, checked against an oracle that knows no Sprague-Grundy
//! theory: retrograde analysis of the game of token tuples. Each random graph gets Nim heaps
//! beside it (heap `k` moves to every smaller heap), so that the outcome of a token at `u`
//! plus heap `k` pins down `u`'s value (a LOSE exactly at `k` = its finite value) or, for an
//! infinite one, its set K (a WIN exactly for `k` in K).

use crate::util::{query_lines, run, tempdir, write_file, write_messy, Case, Rng};

/// The outcome (`W`, `L` or `D`) of every ordered tuple of `k` tokens on the graph `lists`,
/// tuple `(p_0, .., p_{k-1})` at index `sum p_i n^i`: terminal tuples lose, a tuple with a
/// move to a losing one wins, one whose moves all reach winning ones loses, the rest draw.
fn retrograde(lists: &[Vec<u32>], k: usize) -> Vec<u8> {
    let n = lists.len();
    let states = n.pow(k as u32);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); states];
    let mut left = vec![0usize; states];
    for s in 0..states {
        let mut place = 1;
        for _ in 0..k {
            let p = s / place % n;
            for &t in &lists[p] {
                preds[s - p * place + t as usize * place].push(s);
                left[s] += 1;
            }
            place *= n;
        }
    }
    let mut out = vec![b'D'; states];
    let mut queue: Vec<usize> = (0..states).filter(|&s| left[s] == 0).collect();
    for &s in &queue {
        out[s] = b'L';
    }
    while let Some(t) = queue.pop() {
        for &s in &preds[t] {
            if out[s] != b'D' {
                continue;
            }
            if out[t] == b'L' {
                out[s] = b'W';
                queue.push(s);
            } else {
                left[s] -= 1;
                if left[s] == 0 {
                    out[s] = b'L';
                    queue.push(s);
                }
            }
        }
    }
    out
}

fn index(n: usize, tokens: &[u32]) -> usize {
    tokens.iter().rev().fold(0, |acc, &p| acc * n + p as usize)
}

/// A random graph of `n` nodes with cycles, self-loops and repeated edges, then `n + 2` Nim
/// heaps; queries: every node with every heap, and random tuples of 1 to 3 tokens.
fn loopy_case(rng: &mut Rng, n: usize) -> Case {
    let heaps = n + 2;
    let mut lists: Vec<Vec<u32>> =
        (0..n).map(|_| (0..rng.below(4)).map(|_| rng.below(n as u64) as u32).collect()).collect();
    for k in 0..heaps {
        lists.push((0..k as u32).map(|j| (n as u32) + j).collect());
    }
    let total = lists.len() as u64;
    let mut queries = Vec::new();
    for u in 0..n as u32 {
        for k in 0..heaps as u32 {
            queries.push(vec![u, n as u32 + k]);
        }
    }
    for _ in 0..12 {
        let graph_only = rng.chance(1, 2);
        let range = if graph_only { n as u64 } else { total };
        queries.push((0..1 + rng.below(3)).map(|_| rng.below(range) as u32).collect());
    }
    Case { lists, queries }
}

/// The `values --loopy` rows of a run: per case, per node, (grundy, infinite_set, outcome).
fn value_rows(csv: &str) -> Vec<Vec<(String, String, String)>> {
    let mut cases: Vec<Vec<(String, String, String)>> = Vec::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 6, "{line}");
        let case: usize = f[0].parse().unwrap();
        if cases.len() < case {
            cases.push(Vec::new());
        }
        assert_eq!(f[1].parse::<usize>().unwrap(), cases[case - 1].len(), "{line}");
        cases[case - 1].push((f[2].into(), f[3].into(), f[4].into()));
    }
    cases
}

#[test]
fn random_cyclic_games_agree_with_retrograde_analysis() {
    let dir = tempdir();
    let mut rng = Rng::new(1966);
    let mut checked = 0;
    for file in 0..4 {
        let cases: Vec<Case> = (0..250)
            .map(|_| {
                let n = 1 + rng.below(6) as usize;
                loopy_case(&mut rng, n)
            })
            .collect();
        let path = write_file(
            dir.path(),
            &format!("loopy{file}.txt"),
            &write_messy(&mut rng, &cases, false),
        );
        let path = path.to_str().unwrap();
        let report = dir.path().join("report.csv");
        let report = report.to_str().unwrap();
        let lines = run(&["solve", "--loopy", path, "--report", report, "--sequential"], None).ok();
        let rows = std::fs::read_to_string(report).unwrap();
        let values = run(&["values", "--loopy", path, "--sequential"], None).ok();
        // The parallel path gives the same bytes, on every core and on one.
        assert_eq!(run(&["solve", "--loopy", path], None).ok(), lines);
        assert_eq!(run(&["values", "--loopy", path], None).ok(), values);
        assert_eq!(run(&["-j", "1", "values", "--loopy", path], None).ok(), values);
        // `query --loopy` on the first case: its rows are the report's, without the case.
        let first = &cases[0];
        let queries = query_lines(&first.queries);
        let queries = write_file(dir.path(), "queries.txt", queries.as_bytes());
        let answered = run(&["query", "--loopy", path, queries.to_str().unwrap()], None).ok();
        let expected = rows.lines().skip(1).take(first.queries.len());
        let expected: Vec<&str> = expected.map(|r| r.split_once(',').unwrap().1).collect();
        assert_eq!(answered.lines().skip(1).collect::<Vec<_>>(), expected);
        let values = value_rows(&values);
        let mut lines = lines.lines();
        let mut rows = rows.lines().skip(1);
        for (c, case) in cases.iter().enumerate() {
            let outcomes: Vec<Vec<u8>> = (0..=3).map(|k| retrograde(&case.lists, k)).collect();
            let total = case.lists.len();
            for q in &case.queries {
                let expected = outcomes[q.len()][index(total, q)];
                let line = lines.next().unwrap();
                assert_eq!(line.as_bytes()[0], expected, "case {} query {q:?}", c + 1);
                let row = rows.next().unwrap();
                check_row(row, case, q, &outcomes, &values[c]);
                checked += 1;
            }
            check_values(case, &outcomes[2], &values[c]);
        }
        assert!(lines.next().is_none() && rows.next().is_none());
    }
    assert!(checked > 10_000, "{checked} queries");
}

/// The number of heaps `loopy_case` put after a graph, from the node count in all.
fn heap_count(total: usize) -> usize {
    // total = n + (n + 2)
    (total + 2) / 2
}

/// A report row: the result is the oracle's, the nim-sum is the XOR of the finite values, and
/// a WIN's move is a move of one of the tokens after which the oracle says LOSE.
fn check_row(
    row: &str,
    case: &Case,
    q: &[u32],
    outcomes: &[Vec<u8>],
    values: &[(String, String, String)],
) {
    let f: Vec<&str> = row.split(',').collect();
    let positions: Vec<u32> = f[2].split(' ').map(|p| p.parse().unwrap()).collect();
    assert_eq!(positions, q, "{row}");
    let nim_sum = q
        .iter()
        .filter_map(|&p| values[p as usize].0.parse::<u32>().ok())
        .fold(0, |acc, g| acc ^ g);
    assert_eq!(f[3], nim_sum.to_string(), "{row}");
    let total = case.lists.len();
    let expected = outcomes[q.len()][index(total, q)];
    assert_eq!(f[4].as_bytes()[0], expected, "{row}");
    if expected == b'W' {
        let from: u32 = f[5].parse().unwrap();
        let to: u32 = f[6].parse().unwrap();
        let i = q.iter().position(|&p| p == from).expect("the move's token is a position");
        assert!(case.lists[from as usize].contains(&to), "{row}: no move {from} -> {to}");
        let mut after = q.to_vec();
        after[i] = to;
        assert_eq!(outcomes[q.len()][index(total, &after)], b'L', "{row}: the move does not win");
    } else {
        assert_eq!((f[5], f[6]), ("", ""), "{row}");
    }
}

/// Every graph node's value and set K, as the heap queries pin them down, and its outcome.
fn check_values(case: &Case, pairs: &[u8], values: &[(String, String, String)]) {
    let total = case.lists.len();
    let heaps = heap_count(total);
    let n = total - heaps;
    for u in 0..n {
        let with_heap = |k: usize| pairs[index(total, &[u as u32, (n + k) as u32])];
        let loses: Vec<usize> = (0..heaps).filter(|&k| with_heap(k) == b'L').collect();
        let (grundy, set, outcome) = &values[u];
        match loses[..] {
            [m] => {
                assert_eq!(
                    (grundy.as_str(), set.as_str()),
                    (m.to_string().as_str(), ""),
                    "node {u}"
                );
                assert!((0..heaps).all(|k| k == m || with_heap(k) == b'W'), "node {u}");
            }
            [] => {
                let wins: Vec<String> =
                    (0..heaps).filter(|&k| with_heap(k) == b'W').map(|k| k.to_string()).collect();
                assert_eq!(
                    (grundy.as_str(), set.as_str()),
                    ("inf", wins.join(" ").as_str()),
                    "node {u}"
                );
            }
            _ => panic!("node {u} loses beside several heaps: {loses:?}"),
        }
        let alone = retrograde(&case.lists, 1)[u];
        assert_eq!(outcome.as_bytes()[0], alone, "node {u}");
    }
}

#[test]
fn acyclic_files_give_the_plain_answers_and_values() {
    let dir = tempdir();
    let mut rng = Rng::new(1986);
    let cases: Vec<Case> = (0..40)
        .map(|_| {
            let n = 1 + rng.below(300) as usize;
            crate::util::random_case(&mut rng, n, 6, 30, 4)
        })
        .collect();
    let path = write_file(dir.path(), "dag.txt", &write_messy(&mut rng, &cases, true));
    let path = path.to_str().unwrap();
    let (plain, loopy) = (dir.path().join("plain.csv"), dir.path().join("loopy.csv"));
    let (plain, loopy) = (plain.to_str().unwrap(), loopy.to_str().unwrap());
    let lines = run(&["solve", path, "--report", plain], None).ok();
    // One thread labels the peeled graph; two search it first (a DAG's search never stops).
    for threads in ["1", "2"] {
        let args = ["-j", threads, "solve", "--loopy", path, "--report", loopy];
        assert_eq!(run(&args, None).ok(), lines, "-j {threads}");
        assert_eq!(std::fs::read(loopy).unwrap(), std::fs::read(plain).unwrap());
    }
    // values: the same grundy column; no node is infinite, so K is empty.
    let plain = run(&["values", path], None).ok();
    let loopy = run(&["values", "--loopy", path], None).ok();
    let column = |csv: &str, i: usize| -> Vec<String> {
        csv.lines().skip(1).map(|l| l.split(',').nth(i).unwrap().to_string()).collect()
    };
    assert_eq!(column(&loopy, 2), column(&plain, 2));
    assert!(column(&loopy, 3).iter().all(String::is_empty));
    assert_eq!(column(&loopy, 5), column(&plain, 4));
}

#[test]
fn the_edge_cases_one_by_one() {
    let values = |text: &[u8]| run(&["values", "--loopy"], Some(text)).ok();
    let header = "case,node,grundy,infinite_set,outcome,out_degree\n";
    // A self-loop beside a sink: infinite with K = {0}, a WIN.
    assert_eq!(values(b"2\n2 0 1\n0\n0\n"), format!("{header}1,0,inf,0,WIN,2\n1,1,0,,LOSE,0\n"));
    // A 2-cycle with no exit: DRAW, K empty.
    assert_eq!(values(b"2\n1 1\n1 0\n0\n"), format!("{header}1,0,inf,,DRAW,1\n1,1,inf,,DRAW,1\n"));
    // 0 <-> 1 and 0 -> 2: node 1 is 0 although on a cycle.
    assert_eq!(
        values(b"3\n2 1 2\n1 0\n0\n0\n"),
        format!("{header}1,0,1,,WIN,2\n1,1,0,,LOSE,1\n1,2,0,,LOSE,0\n")
    );
    // Sums: two infinite tokens draw; one infinite token wins when the others' nim-sum is in K.
    let solve = |text: &[u8]| run(&["solve", "--loopy"], Some(text)).ok();
    // (Node 2 has value 1, not in node 0's K = {0}.)
    assert_eq!(solve(b"3\n2 0 1\n0\n1 1\n2 0 0\n1 0\n2 0 2\n2 0 1\n0\n"), "DRAW\nWIN\nDRAW\nWIN\n");
}

#[test]
fn loopy_refuses_what_it_does_not_do_and_cycles_suggest_it() {
    let sums = run(&["solve", "--loopy", "--format", "sums"], Some(b"1\n0\n0\n"));
    assert_eq!(sums.code, 2);
    assert!(sums.stderr.starts_with("error: --loopy --format sums"), "{}", sums.stderr);
    let cycle = run(&["solve"], Some(b"2\n1 1\n1 0\n1 0\n0\n"));
    assert!(cycle.error_line().ends_with("(cycles are allowed with --loopy)"));
    assert_eq!(run(&["solve", "--loopy"], Some(b"2\n1 1\n1 0\n1 0\n0\n")).ok(), "DRAW\n");
}

#[test]
fn stats_counts_infinite_nodes_and_draws() {
    let dir = tempdir();
    let mut rng = Rng::new(2026);
    let cases: Vec<Case> = (0..30)
        .map(|_| {
            let n = 1 + rng.below(6) as usize;
            loopy_case(&mut rng, n)
        })
        .collect();
    let path = write_file(dir.path(), "stats.txt", &write_messy(&mut rng, &cases, false));
    let path = path.to_str().unwrap();
    let lines = run(&["solve", "--loopy", path], None).ok();
    let values = run(&["values", "--loopy", path], None).ok();
    let json: serde_json::Value =
        serde_json::from_str(&run(&["stats", "--loopy", "--json", path], None).ok()).unwrap();
    let total = &json["total"];
    let count = |word: &str| lines.lines().filter(|l| *l == word).count() as u64;
    assert_eq!(total["wins"], count("WIN"));
    assert_eq!(total["losses"], count("LOSE"));
    assert_eq!(total["draws"], count("DRAW"));
    let grundy: Vec<&str> = values.lines().skip(1).map(|l| l.split(',').nth(2).unwrap()).collect();
    assert_eq!(total["infinite"], grundy.iter().filter(|g| **g == "inf").count() as u64);
    let finite = grundy.iter().filter_map(|g| g.parse::<u64>().ok());
    assert_eq!(total["max_grundy"], finite.max().unwrap_or(0));
    assert_eq!(json["cases"].as_array().unwrap().len(), cases.len());
    // Without --loopy the counts of loopy runs are absent.
    let dag = run(&["stats", "--json"], Some(b"2\n1 1\n0\n1 0\n0\n")).ok();
    assert!(!dag.contains("draws") && !dag.contains("infinite"), "{dag}");
}

/// Regression (issue 24, item 7): `stats --loopy` printed `levels 0`, `widest level 0 nodes
/// (level 0)` and JSON `"levels": 0`, `"level_histogram": []`: figures the labelling never
/// computes. The text leaves them out; the JSON has them as `null`. Without --loopy they stay.
#[test]
fn stats_shows_no_levels_of_a_loopy_game() {
    let input: &[u8] = b"3\n1 1\n1 0\n0\n1 2\n0\n2\n1 1\n0\n1 0\n0\n";
    for threads in ["1", "2"] {
        let text = run(&["-j", threads, "stats", "--loopy"], Some(input)).ok();
        for line in ["levels", "widest level", "nodes per level"] {
            assert!(!text.contains(line), "{line}: {text}");
        }
        assert!(text.contains("  infinite nodes   2\n"), "{text}");
        let json = run(&["-j", threads, "stats", "--loopy", "--json"], Some(input)).ok();
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        let cases = json["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 2);
        for stats in cases.iter().chain([&json["total"]]) {
            for key in ["levels", "widest_level", "level_histogram"] {
                assert!(stats[key].is_null(), "{key}: {stats}");
            }
        }
        let acyclic: &[u8] = b"2\n1 1\n0\n1 0\n0\n";
        let plain = run(&["-j", threads, "stats", "--json"], Some(acyclic)).ok();
        let plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
        assert_eq!(plain["total"]["levels"], 2);
        assert_eq!(plain["total"]["level_histogram"], serde_json::json!([1, 1]));
        let text = run(&["-j", threads, "stats"], Some(acyclic)).ok();
        assert!(text.contains("  levels           2\n"), "{text}");
        assert!(text.contains("  widest level     1 nodes (level 0)\n"), "{text}");
    }
}

#[test]
fn large_cyclic_games_give_the_same_bytes_on_both_paths() {
    // Frontiers of thousands of nodes: the parallel rounds run, and must agree with the
    // sequential twin (checked against the oracle above) byte for byte.
    let dir = tempdir();
    for (seed, back) in [("1", "0.005"), ("2", "0.05"), ("3", "0.3")] {
        let file = dir.path().join(format!("big{seed}.txt"));
        let file = file.to_str().unwrap();
        let args = ["generate", "-n", "200000", "--edges", "1000000", "-q", "20000"];
        run(&[&args[..], &["--seed", seed, "--back-edges", back, "-o", file]].concat(), None).ok();
        let report = dir.path().join("r.csv");
        let report = report.to_str().unwrap();
        let one = run(&["solve", "--loopy", file, "--sequential", "--report", report], None).ok();
        let rows = std::fs::read(report).unwrap();
        let two = run(&["solve", "--loopy", file, "--threads", "2", "--report", report], None).ok();
        assert_eq!(two, one, "seed {seed}");
        assert_eq!(std::fs::read(report).unwrap(), rows, "seed {seed}");
        let values =
            |threads: &str| run(&["values", "--loopy", file, "--threads", threads], None).ok();
        assert_eq!(values("2"), values("1"), "seed {seed}");
        assert!(one.contains("WIN") && one.contains("LOSE"), "seed {seed}");
    }
}
