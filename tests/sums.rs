//! The sums format (`--format sums`): node i is K_i moves, each `c q_1 .. q_c`, a move to the
//! sum of c positions. Checked against an oracle on random games with messy whitespace, on
//! both code paths, with winning moves replayed.

use crate::util::*;

/// One case: each node's moves (each a list of parts), and the queries.
pub type SumsCase = (Vec<Vec<Vec<u32>>>, Vec<Vec<u32>>);

/// A random game of sums: moves go to parts of higher rank only (acyclic), 0 to 3 parts each.
pub fn random_sums(rng: &mut Rng, n: usize) -> SumsCase {
    let mut ids: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut ids);
    let mut rank = vec![0usize; n];
    for (r, &v) in ids.iter().enumerate() {
        rank[v as usize] = r;
    }
    let nodes = (0..n)
        .map(|v| {
            let later = n - rank[v] - 1;
            if later == 0 {
                return if rng.chance(1, 3) { vec![vec![]] } else { vec![] };
            }
            (0..rng.below(5))
                .map(|_| {
                    (0..rng.below(4))
                        .map(|_| ids[rank[v] + 1 + rng.below(later as u64) as usize])
                        .collect()
                })
                .collect()
        })
        .collect();
    let queries = (0..rng.below(12))
        .map(|_| (0..1 + rng.below(4)).map(|_| rng.below(n as u64) as u32).collect())
        .collect();
    (nodes, queries)
}

/// Values by relaxation: mex over moves of the XOR of the parts.
fn sums_oracle(nodes: &[Vec<Vec<u32>>]) -> Vec<u32> {
    let mut g = vec![0u32; nodes.len()];
    for _ in 0..=nodes.len() {
        for v in 0..nodes.len() {
            let values: Vec<u32> =
                nodes[v].iter().map(|m| m.iter().fold(0, |a, &p| a ^ g[p as usize])).collect();
            g[v] = (0..).find(|x| !values.contains(x)).unwrap();
        }
    }
    g
}

pub fn write_sums(rng: &mut Rng, cases: &[SumsCase]) -> String {
    let space = |rng: &mut Rng| [" ", "  ", "\t", "\n", "\r\n", " \n "][rng.below(6) as usize];
    let mut out = String::new();
    for (nodes, queries) in cases {
        out.push_str(&format!("{}\n", nodes.len()));
        for moves in nodes {
            out.push_str(&moves.len().to_string());
            for m in moves {
                out.push_str(space(rng));
                out.push_str(&m.len().to_string());
                for p in m {
                    out.push_str(space(rng));
                    out.push_str(&p.to_string());
                }
            }
            out.push('\n');
        }
        for q in queries {
            let items: Vec<String> = q.iter().map(u32::to_string).collect();
            out.push_str(&format!("{}{}{}\n", q.len(), space(rng), items.join(space(rng))));
        }
        out.push_str("0\n");
    }
    out
}

#[test]
fn random_sums_games_match_the_oracle_on_both_paths() {
    let dir = tempdir();
    let mut rng = Rng::new(5);
    for round in 0..10 {
        let cases: Vec<_> = (0..60)
            .map(|_| {
                let n = 1 + rng.below(if round % 3 == 0 { 400 } else { 25 }) as usize;
                random_sums(&mut rng, n)
            })
            .collect();
        let text = write_sums(&mut rng, &cases);
        let path = write_file(dir.path(), "sums.txt", text.as_bytes());
        let report = dir.path().join("report.csv");
        let mut expected = String::new();
        for (nodes, queries) in &cases {
            let g = sums_oracle(nodes);
            for q in queries {
                let x = q.iter().fold(0, |a, &p| a ^ g[p as usize]);
                expected.push_str(if x != 0 { "WIN\n" } else { "LOSE\n" });
            }
        }
        let ways = [
            vec!["--sequential"],
            vec!["-j", "1", "--chunk-bytes", "7"],
            vec!["--threads", "3", "--chunk-bytes", "16"],
        ];
        for args in ways {
            let mut all = args.clone();
            all.extend([
                "solve",
                "--format",
                "sums",
                path.to_str().unwrap(),
                "--report",
                report.to_str().unwrap(),
            ]);
            assert_eq!(run(&all, None).ok(), expected, "{args:?}");
            // Every winning move: a move of the token's position whose parts leave nim-sum 0.
            let text = std::fs::read_to_string(&report).unwrap();
            let mut rows = text.lines().skip(1);
            for (nodes, queries) in &cases {
                let g = sums_oracle(nodes);
                for q in queries {
                    let row: Vec<&str> = rows.next().unwrap().split(',').collect();
                    if row[4] == "LOSE" {
                        continue;
                    }
                    let from: u32 = row[5].parse().unwrap();
                    let to: Vec<u32> = row[6]
                        .split(' ')
                        .filter(|s| !s.is_empty())
                        .map(|s| s.parse().unwrap())
                        .collect();
                    assert!(nodes[from as usize].contains(&to), "{row:?} is a move");
                    let at = q.iter().position(|&p| p == from).unwrap();
                    let rest = q
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != at)
                        .fold(0, |a, (_, &p)| a ^ g[p as usize]);
                    assert_eq!(to.iter().fold(rest, |a, &p| a ^ g[p as usize]), 0, "{row:?} wins");
                }
            }
        }
        // values and stats read the format too.
        let values = run(&["values", "--format", "sums", path.to_str().unwrap()], None).ok();
        let mut lines = values.lines().skip(1);
        for (c, (nodes, _)) in cases.iter().enumerate() {
            let g = sums_oracle(nodes);
            for v in 0..nodes.len() {
                let row: Vec<String> =
                    lines.next().unwrap().split(',').map(str::to_string).collect();
                assert_eq!(
                    (row[0].clone(), row[2].clone(), row[4].clone()),
                    ((c + 1).to_string(), g[v].to_string(), nodes[v].len().to_string())
                );
            }
        }
        run(&["stats", "--format", "sums", path.to_str().unwrap()], None).ok();
    }
}

#[test]
fn bad_sums_input_gets_clear_errors_on_both_paths() {
    let cases: [(&[u8], &str); 4] = [
        (b"2\n1 2 1 5\n0\n", "2:7: part 2 of 2 of move 1 of node 0 (case 1) is 5, but the case has 2 nodes (ids 0 to 1)"),
        (b"2\n2 1 1", "2:6: input ends where the part count of move 2 of 2 of node 0 (case 1) was expected"),
        (b"2\n1 3 1 1", "2:8: input ends where part 3 of 3 of move 1 of node 0 (case 1) was expected"),
        (b"2\n1 x\n", "2:3: expected a non-negative integer for the part count of move 1 of 1 of node 0 (case 1), found \"x\""),
    ];
    for (input, expected) in cases {
        for args in
            [vec!["--sequential"], vec!["-j", "1"], vec!["--threads", "3", "--chunk-bytes", "3"]]
        {
            let mut all = args.clone();
            all.extend(["solve", "--format", "sums"]);
            let line = run(&all, Some(input)).error_line();
            assert_eq!(line, format!("error: <stdin>:{expected}"), "{args:?} {input:?}");
        }
    }
    // A cycle through a sum is still a cycle.
    let line = run(&["solve", "--format", "sums"], Some(b"2\n1 2 1 1\n1 1 0\n")).error_line();
    assert_eq!(line, "error: <stdin>: case 1: cycle 0 -> 1 -> 0");
}
