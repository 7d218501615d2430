//! `grundy game NAME`: the seed samples, and each game against a brute-force oracle written
//! here over its whole judge range; `--table`; `--export` piped into `solve --format sums`.

use std::collections::HashMap;

use crate::util::*;

fn game(name: &str, input: &[u8], extra: &[&str]) -> String {
    let mut args = vec!["game", name];
    args.extend_from_slice(extra);
    run(&args, Some(input)).ok()
}

fn both_paths(name: &str, input: &[u8]) -> String {
    let parallel = game(name, input, &[]);
    let sequential = run(&["--sequential", "game", name], Some(input)).ok();
    assert_eq!(parallel, sequential, "{name}: the paths agree");
    parallel
}

fn naive_mex(values: impl IntoIterator<Item = u32>) -> u32 {
    let set: std::collections::HashSet<u32> = values.into_iter().collect();
    (0..).find(|x| !set.contains(x)).unwrap()
}

#[test]
fn seed_samples() {
    for (name, file) in [("cutting", "cutting-sample"), ("team-nim", "team-nim-sample")] {
        let input = std::fs::read(repo_path(&format!("data/{file}.txt"))).unwrap();
        let expected =
            std::fs::read_to_string(repo_path(&format!("data/{file}.expected"))).unwrap();
        assert_eq!(both_paths(name, &input), expected, "{name}");
        let path = repo_path(&format!("data/{file}.txt"));
        assert_eq!(run(&["game", name, path.to_str().unwrap()], None).ok(), expected);
    }
}

/// Cutting values by the statement's rule, every cut (mirror images included), all sides to 200.
fn cutting_oracle(max: usize) -> Vec<Vec<u32>> {
    let mut g = vec![vec![0u32; max + 1]; max + 1];
    for w in 2..=max {
        for h in 2..=max {
            let across = (2..=w.saturating_sub(2)).map(|i| g[i][h] ^ g[w - i][h]);
            let down = (2..=h.saturating_sub(2)).map(|j| g[w][j] ^ g[w][h - j]);
            g[w][h] = naive_mex(across.chain(down).collect::<Vec<_>>());
        }
    }
    g
}

#[test]
fn cutting_matches_the_oracle_for_every_sheet_up_to_200() {
    let g = cutting_oracle(200);
    let table = game("cutting", b"200 200\n", &["--table"]);
    let mut rows = table.lines();
    assert_eq!(rows.next(), Some("w,h,grundy"));
    let mut count = 0;
    for row in rows {
        let f: Vec<usize> = row.split(',').map(|x| x.parse().unwrap()).collect();
        assert_eq!(f[2] as u32, g[f[0]][f[1]], "{row}");
        count += 1;
    }
    assert_eq!(count, 199 * 199);
    let mut rng = Rng::new(2311);
    let mut input = String::new();
    let mut expected = String::new();
    for _ in 0..3000 {
        let (w, h) = (2 + rng.below(199) as usize, 2 + rng.below(199) as usize);
        input.push_str(&format!("{w} {h}\n"));
        expected.push_str(if g[w][h] != 0 { "WIN\n" } else { "LOSE\n" });
    }
    assert_eq!(both_paths("cutting", input.as_bytes()), expected);
}

/// Crosses by the seed's decomposition.
fn crosses_oracle(max: usize) -> Vec<u32> {
    let mut g = vec![0u32; max + 1];
    let part = |g: &Vec<u32>, x: i64| if x < 0 { 0 } else { g[x as usize] };
    for x in 0..=max {
        let moves: Vec<u32> =
            (1..=x as i64).map(|i| part(&g, i - 3) ^ part(&g, x as i64 - i - 2)).collect();
        g[x] = naive_mex(moves);
    }
    g
}

/// Whether the player to move wins the real game on a 1 x n strip with X on `mask`: some cell
/// completes three in a row, or leads to a position the opponent loses.
fn crosses_real(n: usize, mask: u32, memo: &mut HashMap<u32, bool>) -> bool {
    if let Some(&w) = memo.get(&mask) {
        return w;
    }
    let three = |m: u32| (0..n.saturating_sub(2)).any(|i| (m >> i) & 0b111 == 0b111);
    let mut wins = false;
    for c in 0..n {
        let next = mask | (1 << c);
        if next != mask && (three(next) || !crosses_real(n, next, memo)) {
            wins = true;
            break;
        }
    }
    memo.insert(mask, wins);
    wins
}

#[test]
fn crosses_matches_the_oracles() {
    let g = crosses_oracle(2000);
    let table = game("crosses", b"2000\n", &["--table"]);
    let expected: String = std::iter::once("n,grundy\n".to_string())
        .chain(g.iter().enumerate().map(|(n, v)| format!("{n},{v}\n")))
        .collect();
    assert_eq!(table, expected);
    // The decomposition agrees with the real game (three in a row wins) on short strips.
    for (n, &value) in g.iter().enumerate().take(15).skip(3) {
        let real = crosses_real(n, 0, &mut HashMap::new());
        assert_eq!(value != 0, real, "n = {n}");
    }
    let mut rng = Rng::new(3537);
    let ns: Vec<usize> = (0..2000).map(|_| 1 + rng.below(2000) as usize).collect();
    let input: String = ns.iter().map(|n| format!("{n}\n")).collect();
    let expected: String = ns.iter().map(|&n| if g[n] != 0 { "1\n" } else { "2\n" }).collect();
    assert_eq!(both_paths("crosses", input.as_bytes()), expected);
}

/// Round-table Nim by memoised recursion: with no stones left the player to move has won.
fn team_nim_oracle(limits: &[u32], stones: u32) -> bool {
    let seats = limits.len();
    let mut win = vec![vec![false; stones as usize + 1]; seats];
    for s in 0..=stones as usize {
        for i in 0..seats {
            win[i][s] =
                s == 0 || (1..=(limits[i] as usize).min(s)).any(|k| !win[(i + 1) % seats][s - k]);
        }
    }
    win[0][stones as usize]
}

#[test]
fn team_nim_matches_the_oracle() {
    let mut rng = Rng::new(2068);
    let mut input = String::new();
    let mut expected = String::new();
    for case in 0..400 {
        let n = 1 + rng.below(10) as usize;
        let stones = if case % 50 == 0 { 8191 } else { rng.below(300) as u32 };
        let limits: Vec<u32> = (0..2 * n).map(|_| 1 + rng.below(16) as u32).collect();
        let items: Vec<String> = limits.iter().map(u32::to_string).collect();
        input.push_str(&format!("{n} {stones} {}\n", items.join(" ")));
        expected.push_str(if team_nim_oracle(&limits, stones) { "1\n" } else { "0\n" });
    }
    input.push_str("0\n");
    assert_eq!(both_paths("team-nim", input.as_bytes()), expected);
}

/// Geography by the statement: players fly to unvisited neighbours, with the visited set in the
/// state; returns the smallest winning first flight (1-based), if any.
fn geography_real(adj: &[Vec<usize>], start: usize) -> Option<usize> {
    fn wins(adj: &[Vec<usize>], at: usize, visited: &mut Vec<bool>) -> bool {
        for &next in &adj[at] {
            if !visited[next] {
                visited[next] = true;
                let opponent = wins(adj, next, visited);
                visited[next] = false;
                if !opponent {
                    return true;
                }
            }
        }
        false
    }
    let mut visited = vec![false; adj.len()];
    visited[start] = true;
    let mut firsts: Vec<usize> = adj[start].clone();
    firsts.sort_unstable();
    firsts
        .into_iter()
        .find(|&x| {
            visited[x] = true;
            let lost = !wins(adj, x, &mut visited);
            visited[x] = false;
            lost
        })
        .map(|x| x + 1)
}

#[test]
fn geography_matches_the_oracle_on_random_trees() {
    let mut rng = Rng::new(2599);
    let mut input = String::new();
    let mut expected = String::new();
    for case in 0..300 {
        let n = 1 + rng.below(if case % 10 == 0 { 400 } else { 12 }) as usize;
        let mut adj = vec![Vec::new(); n];
        let mut edges = Vec::new();
        for v in 1..n {
            let p = rng.below(v as u64) as usize;
            adj[p].push(v);
            adj[v].push(p);
            edges.push((p, v));
        }
        // Relabel so airport order is not the construction order.
        let mut label: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut label);
        let mut relabeled = vec![Vec::new(); n];
        for (v, list) in adj.iter().enumerate() {
            relabeled[label[v]] = list.iter().map(|&u| label[u]).collect();
        }
        let m = rng.below(n as u64) as usize;
        input.push_str(&format!("{n} {}\n", m + 1));
        for &(a, b) in &edges {
            input.push_str(&format!("{} {}\n", label[a] + 1, label[b] + 1));
        }
        expected.push_str(&match geography_real(&relabeled, m) {
            Some(x) => format!("First player wins flying to airport {x}\n"),
            None => "First player loses\n".to_string(),
        });
    }
    assert_eq!(both_paths("geography", input.as_bytes()), expected);
}

/// `--export` piped into `solve --format sums` gives the same answers as the game.
#[test]
fn exports_solve_to_the_same_answers() {
    let inputs: [(&str, &str, [&str; 2]); 4] = [
        ("cutting", "2 2\n3 2\n4 2\n7 9\n12 5\n", ["WIN", "LOSE"]),
        ("crosses", "1\n2\n3\n6\n40\n77\n", ["1", "2"]),
        ("team-nim", "1 101 4 4\n1 100 4 4\n3 97 8 7 6 5 4 3\n0\n", ["1", "0"]),
        ("geography", "3 1\n1 2\n2 3\n5 5\n1 2\n1 3\n3 4\n3 5\n4 2\n1 2\n2 3\n2 4\n", ["", ""]),
    ];
    for (name, input, [win, lose]) in inputs {
        let answers = game(name, input.as_bytes(), &[]);
        let export = game(name, input.as_bytes(), &["--export"]);
        for threads in ["1", "2"] {
            let solved =
                run(&["--threads", threads, "solve", "--format", "sums"], Some(export.as_bytes()))
                    .ok();
            let mapped: Vec<bool> = solved.lines().map(|l| l == "WIN").collect();
            let direct: Vec<bool> = if name == "geography" {
                answers.lines().map(|l| l.starts_with("First player wins")).collect()
            } else {
                answers
                    .lines()
                    .map(|l| {
                        assert!(l == win || l == lose, "{l}");
                        l == win
                    })
                    .collect()
            };
            assert_eq!(mapped, direct, "{name}");
        }
    }
}

#[test]
fn bad_game_input_gets_clear_errors() {
    let cases: [(&str, &[u8], &str); 6] = [
        ("cutting", b"2 2\n1 5\n", "error: <stdin>:2:1: W of case 2: 1 is below 2"),
        ("cutting", b"2 2\n3", "error: <stdin>:2:2: input ends where H of case 2 was expected"),
        ("crosses", b"5\nfive\n", "error: <stdin>:2:1: expected a non-negative integer for n of case 2, found \"five\""),
        ("team-nim", b"1 10 4\n", "error: <stdin>:2:1: input ends where M_i of case 1 was expected"),
        ("geography", b"3 1\n1 2\n1 2\n", "error: <stdin>:1:1: flights of case 1: they do not form a tree: airport 3 cannot be reached from 1"),
        ("geography", b"2 1\n1 3\n", "error: <stdin>:2:3: b of case 1: 3 is not an airport (1 to 2)"),
    ];
    for (name, input, expected) in cases {
        for threads in ["1", "2"] {
            let line = run(&["--threads", threads, "game", name], Some(input)).error_line();
            assert_eq!(line, expected, "{name} {input:?}");
        }
    }
}

/// Regression (issue 63): `game` printed nothing when a later record was bad. The records
/// before it are answered first, as `solve` answers the cases before a bad one, on stdout
/// (judge lines, `--table`, `--export`: what the good records alone give), then one error
/// line and exit 1; with `-o` no file is written. A bad first record writes nothing.
#[test]
fn the_records_before_a_bad_one_are_answered_first() {
    let dir = tempdir();
    let out = dir.path().join("out.txt");
    for (name, good, bad, error) in [
        ("cutting", &b"2 2\n3 2\n7 5\n"[..], &b"1 5\n"[..], "4:1: W of case 4: 1 is below 2"),
        (
            "crosses",
            b"1\n3\n40\n",
            b"five\n",
            "4:1: expected a non-negative integer for n of case 4, found \"five\"",
        ),
        ("crosses", b"6\n", b"0\n", "2:1: n of case 2: 0 is below 1"),
        (
            "team-nim",
            b"1 101 4 4\n1 100 4 4\n",
            b"3 97 8 7\n",
            "4:1: input ends where M_i of case 3 was expected",
        ),
        ("team-nim", b"1 5 2 2\n", b"1 5 0 2\n", "2:5: M_i of case 2: 0 is below 1"),
        (
            "geography",
            b"3 1\n1 2\n2 3\n",
            b"2 1\n1 3\n",
            "5:3: b of case 2: 3 is not an airport (1 to 2)",
        ),
    ] {
        for flags in [&[][..], &["--table"], &["--export"]] {
            let alone = game(name, good, flags);
            assert!(!alone.is_empty(), "{name} {flags:?}");
            for threads in ["1", "2"] {
                let mut args = vec!["-j", threads, "game", name];
                args.extend_from_slice(flags);
                let input = [good, bad].concat();
                let r = run(&args, Some(&input));
                let line = r.error_line();
                assert_eq!(line, format!("error: <stdin>:{error}"), "{name} {flags:?}");
                assert_eq!(r.stdout_text(), alone, "{name} {flags:?}: the good records' answers");
                args.extend_from_slice(&["-o", out.to_str().unwrap()]);
                assert_eq!(run(&args, Some(&input)).error_line(), line);
                assert!(!out.exists(), "{name}: no file");
                let first = run(&args[..args.len() - 2], Some(bad));
                assert_eq!((first.code, first.stdout_text()), (1, String::new()), "{name}");
            }
        }
    }
}
