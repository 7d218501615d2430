//! `--play`: every play's answers against a search of the sum's own game tree, the winning
//! moves replayed, the values' columns against their definitions, misère Nim fully decided.

use std::collections::HashMap;

use crate::util::*;

const PLAYS: [&str; 5] = ["normal", "misere", "conjunctive", "continued", "selective"];

/// Misère play with the genus (`--play misere --genus`), beside [`PLAYS`] where it applies.
const GENUS: &str = "misere+genus";

/// The plays of [`PLAYS`] and misère play with the genus.
fn plays_and_genus() -> impl Iterator<Item = &'static str> {
    PLAYS.into_iter().chain([GENUS])
}

/// The arguments that choose `play`, between the command and its files.
fn play_args(play: &str) -> Vec<&str> {
    match play {
        GENUS => vec!["--play", "misere", "--genus"],
        play => vec!["--play", play],
    }
}

/// `args` with the play's arguments after the first (the command).
fn with_play<'a>(play: &'a str, args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec![args[0]];
    all.extend(play_args(play));
    all.extend_from_slice(&args[1..]);
    all
}

/// The rules a play's sums follow in the game tree (the genus is misère play's).
fn rules(play: &str) -> &str {
    if play == GENUS {
        "misere"
    } else {
        play
    }
}

/// The positions a move under `play` leads to from tokens on `tokens` (each a list of tokens).
fn moves(lists: &[Vec<u32>], play: &str, tokens: &[u32]) -> Vec<Vec<u32>> {
    let movable: Vec<usize> =
        (0..tokens.len()).filter(|&i| !lists[tokens[i] as usize].is_empty()).collect();
    // Each token of `chosen` moves, the others stay: every combination of their moves.
    let every = |chosen: &[usize]| {
        let mut all = vec![tokens.to_vec()];
        for &i in chosen {
            all = all
                .iter()
                .flat_map(|t| {
                    lists[tokens[i] as usize].iter().map(move |&s| {
                        let mut t = t.clone();
                        t[i] = s;
                        t
                    })
                })
                .collect();
        }
        all
    };
    match play {
        "normal" | "misere" => movable.iter().flat_map(|&i| every(&[i])).collect(),
        "conjunctive" if tokens.is_empty() || movable.len() < tokens.len() => Vec::new(),
        "conjunctive" => every(&movable),
        "continued" if movable.is_empty() => Vec::new(),
        "continued" => every(&movable),
        "selective" => (1..1u32 << movable.len())
            .flat_map(|set| {
                let chosen: Vec<usize> =
                    (0..movable.len()).filter(|b| set >> b & 1 == 1).map(|b| movable[b]).collect();
                every(&chosen)
            })
            .collect(),
        _ => unreachable!(),
    }
}

/// Whether the player to move wins under `play`, by searching the sum's game tree: with no
/// move the player to move loses, but in misère play, where they win.
fn wins(
    lists: &[Vec<u32>],
    play: &str,
    tokens: &[u32],
    memo: &mut HashMap<Vec<u32>, bool>,
) -> bool {
    let mut key = tokens.to_vec();
    key.sort_unstable();
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let next = moves(lists, play, &key);
    let w = if next.is_empty() {
        play == "misere"
    } else {
        next.iter().any(|t| !wins(lists, play, t, memo))
    };
    memo.insert(key, w);
    w
}

fn ids(field: &str) -> Vec<u32> {
    field.split_whitespace().map(|x| x.parse().unwrap()).collect()
}

/// Every sum of 1 to 3 tokens on `n` nodes (as multisets: tokens in ascending order).
fn every_sum(n: u32) -> Vec<Vec<u32>> {
    let mut sums = Vec::new();
    for a in 0..n {
        sums.push(vec![a]);
        for b in a..n {
            sums.push(vec![a, b]);
            sums.extend((b..n).map(|c| vec![a, b, c]));
        }
    }
    sums
}

/// Random small DAGs and sums of 1 to 3 tokens (on a DAG of 6 nodes or fewer, every such sum),
/// under every play, on one and two threads: each verdict is the game tree's (UNDECIDED only
/// for misère sums of two tokens or more), and each WIN's move, replayed, leaves the other
/// player a LOSE.
#[test]
fn every_play_matches_a_game_tree_search() {
    let dir = tempdir();
    let mut rng = Rng::new(2910);
    let (mut misere_sums, mut undecided, mut undecided_genus) = (0, 0, 0);
    // GRUNDY_PLAY_ROUNDS=500 for a longer stress run (about a minute).
    let rounds =
        std::env::var("GRUNDY_PLAY_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(12);
    for round in 0..rounds {
        let cases: Vec<Case> = (0..20)
            .map(|_| {
                let n = 1 + rng.below(if round % 3 == 2 { 11 } else { 8 }) as usize;
                let degree = 1 + rng.below(4);
                let mut case = random_case(&mut rng, n, degree, 8, 3);
                if n <= 6 {
                    case.queries = every_sum(n as u32);
                }
                case
            })
            .collect();
        let input = write_messy(&mut rng, &cases, round % 2 == 1);
        let path = write_file(dir.path(), "in.txt", &input);
        let report = dir.path().join("r.csv");
        for shown in plays_and_genus() {
            let p = path.to_str().unwrap();
            let r = report.to_str().unwrap();
            let lines = run(&with_play(shown, &["solve", p, "--report", r]), None).ok();
            let two = run(&with_play(shown, &["solve", "-j", "2", p]), None).ok();
            let one = run(&with_play(shown, &["solve", "--sequential", p]), None).ok();
            let play = rules(shown);
            assert_eq!((&one, &two), (&lines, &lines), "{play}: threads differ");
            let rows = std::fs::read_to_string(&report).unwrap();
            let mut rows = rows.lines();
            let header: Vec<&str> = rows.next().unwrap().split(',').collect();
            let at = |name: &str| header.iter().position(|&h| h == name);
            let (positions, result) = (at("positions").unwrap(), at("result").unwrap());
            let (move_from, move_to) = (at("move_from").unwrap(), at("move_to").unwrap());
            let mut lines = lines.lines();
            for case in &cases {
                let mut memo = HashMap::new();
                for q in &case.queries {
                    let line = lines.next().unwrap();
                    let row: Vec<&str> = rows.next().unwrap().split(',').collect();
                    assert_eq!(ids(row[positions]), *q);
                    assert_eq!(row[result], line);
                    let want = wins(&case.lists, play, q, &mut memo);
                    if shown == "misere" {
                        misere_sums += 1;
                    }
                    if line == "UNDECIDED" {
                        assert!(play == "misere" && q.len() >= 2, "{shown} {q:?} undecided");
                        assert!(!row[at("reason").unwrap()].is_empty(), "UNDECIDED says why");
                        match shown {
                            GENUS => undecided_genus += 1,
                            _ => undecided += 1,
                        }
                        continue;
                    }
                    assert_eq!(line == "WIN", want, "{play} {q:?} on {:?}", case.lists);
                    let (from, to) = (ids(row[move_from]), ids(row[move_to]));
                    assert_eq!(from.len(), to.len());
                    if line == "LOSE" || moves(&case.lists, play, q).is_empty() {
                        assert!(from.is_empty(), "{play} {q:?}: a move without a WIN");
                        continue;
                    }
                    // Replay the move: each listed token (a multiset) goes where the row says.
                    let mut after = q.clone();
                    let mut moved = vec![false; q.len()];
                    for (&f, &t) in from.iter().zip(&to) {
                        let k = (0..q.len())
                            .find(|&k| !moved[k] && after[k] == f)
                            .expect("a token moved");
                        assert!(
                            case.lists[f as usize].contains(&t),
                            "{play}: {f} -> {t} is no move"
                        );
                        after[k] = t;
                        moved[k] = true;
                    }
                    let legal = moves(&case.lists, play, q).iter().any(|m| {
                        let (mut a, mut b) = (m.clone(), after.clone());
                        a.sort_unstable();
                        b.sort_unstable();
                        a == b
                    });
                    assert!(legal, "{play} {q:?}: {from:?} -> {to:?} is not one move");
                    assert!(
                        !wins(&case.lists, play, &after, &mut memo),
                        "{play} {q:?}: the move does not win"
                    );
                }
            }
        }
    }
    // The misère theory decides most of these small sums, and the genus more of them.
    assert!(undecided * 4 < misere_sums, "{undecided} of {misere_sums} misère sums undecided");
    assert!(
        undecided_genus < undecided,
        "the genus leaves {undecided_genus} of the {undecided} undecided"
    );
}

/// `values --play` columns against their definitions on random DAGs, on one and two threads.
#[test]
fn the_plays_columns_follow_their_definitions() {
    let mut rng = Rng::new(29);
    let cases: Vec<Case> = (0..30)
        .map(|_| {
            let n = 1 + rng.below(40) as usize;
            random_case(&mut rng, n, 4, 0, 1)
        })
        .collect();
    let input = write_messy(&mut rng, &cases, false);
    let column = |play: &str, name: &str| {
        let one = run(&["values", "--sequential", "--play", play], Some(&input)).ok();
        let two = run(&["values", "-j", "2", "--play", play], Some(&input)).ok();
        assert_eq!(one, two, "{play}: threads differ");
        let mut lines = one.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let at = header.iter().position(|&h| h == name).unwrap();
        lines.map(|l| l.split(',').nth(at).unwrap().to_string()).collect::<Vec<_>>()
    };
    let (mut remoteness, mut suspense, mut misere) = (Vec::new(), Vec::new(), Vec::new());
    for case in &cases {
        let d = definitions(&case.lists);
        remoteness.extend(d.remoteness.iter().map(u32::to_string));
        suspense.extend(d.suspense.iter().map(u32::to_string));
        misere.extend(
            d.misere_grundy.iter().map(|&g| if g != 0 { "WIN" } else { "LOSE" }.to_string()),
        );
    }
    assert_eq!(column("conjunctive", "remoteness"), remoteness);
    assert_eq!(column("continued", "suspense"), suspense);
    assert_eq!(column("misere", "misere_outcome"), misere);
}

/// Each node's numbers by the plays' definitions, memoised in topological order (a node's
/// moves before it).
struct Definitions {
    remoteness: Vec<u32>,
    suspense: Vec<u32>,
    /// A sink 1, else the mex of the moves' (0 exactly for a misère loss).
    misere_grundy: Vec<u32>,
}

fn definitions(lists: &[Vec<u32>]) -> Definitions {
    let n = lists.len();
    let (mut r, mut s, mut m) = (vec![0u32; n], vec![0u32; n], vec![0u32; n]);
    for &v in &topological(lists) {
        let l = &lists[v as usize];
        let rs: Vec<u32> = l.iter().map(|&w| r[w as usize]).collect();
        let ss: Vec<u32> = l.iter().map(|&w| s[w as usize]).collect();
        let even = |xs: &[u32]| xs.iter().copied().filter(|x| x % 2 == 0).collect::<Vec<_>>();
        r[v as usize] = match (even(&rs).iter().min(), rs.iter().max()) {
            (Some(e), _) => e + 1,
            (None, Some(x)) => x + 1,
            _ => 0,
        };
        s[v as usize] = match (even(&ss).iter().max(), ss.iter().min()) {
            (Some(e), _) => e + 1,
            (None, Some(x)) => x + 1,
            _ => 0,
        };
        m[v as usize] = match l.is_empty() {
            true => 1,
            false => (0..).find(|&x| l.iter().all(|&w| m[w as usize] != x)).unwrap(),
        };
    }
    Definitions { remoteness: r, suspense: s, misere_grundy: m }
}

/// How many of `xs` take each value.
fn histogram(xs: &[u32]) -> Vec<u64> {
    let mut h = vec![0u64; xs.iter().max().map_or(0, |&x| x as usize + 1)];
    xs.iter().for_each(|&x| h[x as usize] += 1);
    h
}

/// `stats --play`: each case's WIN and LOSE counts against the game tree (UNDECIDED only for
/// misère sums, as many as `solve --play` says), the play's histogram against the definitions,
/// the total adding the cases up, one and two threads the same.
#[test]
fn stats_count_each_play_against_the_game_tree() {
    let dir = tempdir();
    let mut rng = Rng::new(2912);
    let cases: Vec<Case> = (0..12)
        .map(|_| {
            let (n, degree) = (1 + rng.below(9) as usize, 1 + rng.below(3));
            random_case(&mut rng, n, degree, 12, 3)
        })
        .collect();
    let path = write_file(dir.path(), "in.txt", &write_messy(&mut rng, &cases, false));
    let p = path.to_str().unwrap();
    for play in PLAYS.iter().skip(1) {
        let stats = |j| run(&["stats", "-j", j, "--json", "--play", play, p], None).ok();
        let json: serde_json::Value = serde_json::from_str(&stats("1")).unwrap();
        let lines = run(&["solve", "--play", play, p], None).ok();
        let mut lines = lines.lines();
        let got = json["cases"].as_array().unwrap();
        let mut total_histogram: Vec<u64> = Vec::new();
        for (case, got) in cases.iter().zip(got) {
            let mut memo = HashMap::new();
            let (mut won, mut undecided) = (0, 0);
            for q in &case.queries {
                match lines.next().unwrap() {
                    "UNDECIDED" => undecided += 1,
                    _ => won += u64::from(wins(&case.lists, play, q, &mut memo)),
                }
            }
            let queries = case.queries.len() as u64;
            assert_eq!(got["queries"].as_u64(), Some(queries), "{play}");
            assert_eq!(got["wins"].as_u64(), Some(won), "{play} wins");
            assert_eq!(got["losses"].as_u64(), Some(queries - won - undecided), "{play}");
            let d = definitions(&case.lists);
            let (number, numbers) = match *play {
                "conjunctive" => (Some("remoteness"), histogram(&d.remoteness)),
                "continued" => (Some("suspense"), histogram(&d.suspense)),
                "misere" => (Some("misere_grundy"), histogram(&d.misere_grundy)),
                _ => (None, Vec::new()),
            };
            let want = serde_json::json!({"play": play, "undecided": undecided,
                "number": number, "histogram": numbers});
            let got = got["play"].as_object().unwrap();
            for (key, value) in want.as_object().unwrap() {
                assert_eq!(&got[key], value, "{play}: {key}");
            }
            assert_eq!(got.contains_key("misere_heaps"), *play == "misere");
            let h: Vec<u64> = serde_json::from_value(got["histogram"].clone()).unwrap();
            total_histogram.resize(total_histogram.len().max(h.len()), 0);
            total_histogram.iter_mut().zip(&h).for_each(|(t, x)| *t += x);
        }
        let total = &json["total"];
        assert_eq!(total["play"]["histogram"], serde_json::json!(total_histogram), "{play}");
        let two: serde_json::Value = serde_json::from_str(&stats("2")).unwrap();
        let counts = |j: &serde_json::Value| {
            let c = j["cases"].as_array().unwrap();
            c.iter().map(|c| (c["wins"].clone(), c["play"].clone())).collect::<Vec<_>>()
        };
        assert_eq!(counts(&json), counts(&two), "{play}: threads differ");
    }
    // The text report names the play and its histogram.
    let text = run(&["stats", "--play", "misere", p], None).ok();
    assert!(
        text.contains(
            "  play             misere
"
        ),
        "{text}"
    );
    assert!(
        text.contains("  UNDECIDED ")
            && text.contains(
                "  misere grundy values:
"
            ),
        "{text}"
    );
}

/// Nodes in an order where each node's moves come before it.
fn topological(lists: &[Vec<u32>]) -> Vec<u32> {
    fn visit(v: u32, lists: &[Vec<u32>], done: &mut [bool], out: &mut Vec<u32>) {
        if done[v as usize] {
            return;
        }
        done[v as usize] = true;
        for &w in &lists[v as usize] {
            visit(w, lists, done, out);
        }
        out.push(v);
    }
    let mut done = vec![false; lists.len()];
    let mut out = Vec::new();
    for v in 0..lists.len() as u32 {
        visit(v, lists, &mut done, &mut out);
    }
    out
}

/// Misère Nim (HDU 1907 "John"): heaps as a DAG, node k moving to every smaller heap. Every
/// sum is decided, as misère Nim's rule says: a win exactly when the nim-sum is not 0, unless
/// no heap exceeds 1, where exactly when the count of heaps of 1 is even.
#[test]
fn misere_nim_is_fully_decided() {
    let n = 12u32;
    let lists: Vec<Vec<u32>> = (0..n).map(|k| (0..k).collect()).collect();
    let mut rng = Rng::new(1907);
    let queries: Vec<Vec<u32>> = (0..400)
        .map(|_| (0..1 + rng.below(4)).map(|_| rng.below(n as u64) as u32).collect())
        .collect();
    let case = Case { lists, queries: queries.clone() };
    let input = write_messy(&mut rng, &[case], false);
    let got = run(&["solve", "--play", "misere"], Some(&input)).ok();
    let want: String = queries
        .iter()
        .map(|q| {
            let nim = q.iter().fold(0, |x, &h| x ^ h);
            let win = if q.iter().any(|&h| h >= 2) { nim != 0 } else { nim == 0 };
            if win {
                "WIN\n"
            } else {
                "LOSE\n"
            }
        })
        .collect();
    assert_eq!(got, want);
}

/// The tame rule: sums of tame positions (every reachable position's misère value equal to
/// its normal one, or the other of 0 and 1) are decided as misère Nim is, and a token whose
/// own genus is tame but which reaches a wild position is not trusted. Node 3 = {*2} is `0^0`
/// and equals no heap, so its sums are decided by the tame rule alone; node 6 is `3^3` but
/// moves to 5 (`2^0`, wild): the rule without "every reachable position" calls 3 + 6 + 6 a
/// WIN, where it is a LOSE (found by a search of small DAGs).
#[test]
fn tame_sums_are_decided_and_a_wild_follower_is_not_trusted() {
    let lists: Vec<Vec<u32>> = vec![
        vec![],
        vec![0],
        vec![0, 1],
        vec![2],
        vec![0, 3],
        vec![0, 4],
        vec![0, 4, 5],
        vec![3, 4],
    ];
    let n = lists.len() as u32;
    let mut queries = Vec::new();
    for a in 0..n {
        for b in a..n {
            queries.push(vec![a, b]);
            queries.extend((b..n).map(|c| vec![a, b, c]));
        }
    }
    let case = Case { lists: lists.clone(), queries: queries.clone() };
    let input = write_messy(&mut Rng::new(29), &[case], false);
    let got = run(&["solve", "--play", "misere"], Some(&input)).ok();
    let mut memo = HashMap::new();
    let mut decided_by_tameness = 0;
    for (q, line) in queries.iter().zip(got.lines()) {
        let tame = q.iter().all(|&t| t <= 3);
        if line == "UNDECIDED" {
            assert!(!tame, "{q:?}: a sum of tame positions is decided");
            continue;
        }
        assert_eq!(line == "WIN", wins(&lists, "misere", q, &mut memo), "{q:?}");
        decided_by_tameness += usize::from(tame && q.contains(&3));
    }
    assert_eq!(got.lines().count(), queries.len());
    assert!(decided_by_tameness > 10, "{decided_by_tameness} sums decided by tameness");
}

/// Why restive sums stay UNDECIDED (README, "misère"): beside a token that is not tame but
/// whose moves all are (normal value 1), a tame position with the genus of `*2` and `*2`
/// itself give different outcomes, so the genera alone cannot decide such a sum; grundy
/// decides neither, with or without the genus.
#[test]
fn a_restive_token_beside_tame_companions_of_one_genus_is_not_decided() {
    // 0 = *0, 1 = *1, 2 = *2, 3 = {*2}, 4 = R = {{*2}, *0}, 5 = B = {{*2}, *2},
    // 6 = Y = {B, {*2}, *0, *0}, 7 = *0.
    let lists: Vec<Vec<u32>> = vec![
        vec![],
        vec![0],
        vec![0, 1],
        vec![2],
        vec![3, 0],
        vec![3, 2],
        vec![5, 3, 0, 7],
        vec![],
    ];
    let mut memo = HashMap::new();
    let mut genus = |token: u32| -> Vec<u32> {
        (0..6)
            .map(|k| misere_value(&lists, &[&[token][..], &vec![2; k][..]].concat(), &mut memo))
            .collect()
    };
    assert_eq!(genus(6), genus(2), "Y has the genus of *2");
    let (loses, wins_) = (vec![4, 2, 5], vec![4, 6, 5]);
    let mut memo = HashMap::new();
    assert!(!wins(&lists, "misere", &loses, &mut memo), "R + *2 + B");
    assert!(wins(&lists, "misere", &wins_, &mut memo), "R + Y + B");
    let case = Case { lists, queries: vec![loses, wins_] };
    let input = write_messy(&mut Rng::new(31), &[case], false);
    for genus_flag in [&[][..], &["--genus"][..]] {
        let args = [&["solve", "--play", "misere"][..], genus_flag].concat();
        assert_eq!(run(&args, Some(&input)).ok(), "UNDECIDED\nUNDECIDED\n", "{args:?}");
    }
}

#[test]
fn the_plays_refuse_what_they_do_not_take() {
    let input = b"1\n0\n1 0\n0\n";
    for (args, words) in [
        (
            &["solve", "--play", "misere", "--loopy"][..],
            "--play misere is not combined with --loopy",
        ),
        (
            &["stats", "--play", "selective", "--loopy"][..],
            "--play selective is not combined with --loopy",
        ),
        (
            &["solve", "--play", "continued", "--format", "sums"][..],
            "the plays take the chess and edge-list formats",
        ),
    ] {
        let refused = run(args, Some(input));
        assert_eq!(refused.code, 2, "{args:?}: a usage error");
        assert!(
            refused.stderr.starts_with("error: ") && refused.stderr.contains(words),
            "{args:?}: {}",
            refused.stderr
        );
    }
}

/// A graph with levels wide enough for the parallel path: every play's rows and lines, on
/// one thread and two, the same bytes.
#[test]
fn one_and_two_threads_give_the_same_bytes() {
    let dir = tempdir();
    let path = dir.path().join("big.txt");
    let p = path.to_str().unwrap();
    run(
        &["generate", "-n", "60000", "--avg-degree", "4", "-q", "3000", "--seed", "29", "-o", p],
        None,
    )
    .ok();
    for play in plays_and_genus() {
        let values = |j| run(&with_play(play, &["values", "-j", j, p]), None).ok();
        assert_eq!(values("1"), values("2"), "{play}: values");
        let report = |j: &str| {
            let r = dir.path().join(format!("r{j}.csv"));
            let r = r.to_str().unwrap();
            let lines = run(&with_play(play, &["solve", "-j", j, p, "--report", r]), None).ok();
            (lines, std::fs::read(r).unwrap())
        };
        assert_eq!(report("1"), report("2"), "{play}: solve");
    }
}

/// `query --play` answers a file of queries as `solve --play --report` answers the same
/// queries inside the graph's file: the same rows.
#[test]
fn query_rows_are_solves_report_rows() {
    let dir = tempdir();
    let mut rng = Rng::new(2911);
    let case = random_case(&mut rng, 30, 3, 200, 3);
    let input = write_messy(&mut rng, std::slice::from_ref(&case), false);
    let graph = write_file(dir.path(), "g.txt", &input);
    let queries = write_file(dir.path(), "q.txt", query_lines(&case.queries).as_bytes());
    let report = dir.path().join("r.csv");
    let (g, q, r) = (graph.to_str().unwrap(), queries.to_str().unwrap(), report.to_str().unwrap());
    for play in plays_and_genus().skip(1) {
        run(&with_play(play, &["solve", g, "--report", r]), None).ok();
        let rows = run(&with_play(play, &["query", g, q]), None).ok();
        assert_eq!(rows, std::fs::read_to_string(&report).unwrap(), "{play}");
    }
}

/// Misère Grundy value of tokens on `tokens` of `lists` (a sum, one token moving), by its
/// game tree: 1 with no move, else the mex of the moves'.
fn misere_value(lists: &[Vec<u32>], tokens: &[u32], memo: &mut HashMap<Vec<u32>, u32>) -> u32 {
    let mut key = tokens.to_vec();
    key.sort_unstable();
    if let Some(&x) = memo.get(&key) {
        return x;
    }
    let next = moves(lists, "misere", &key);
    let seen: Vec<u32> = next.iter().map(|t| misere_value(lists, t, memo)).collect();
    let x = if next.is_empty() { 1 } else { (0..).find(|x| !seen.contains(x)).unwrap() };
    memo.insert(key, x);
    x
}

/// Random DAGs with nim heaps `*0 .. *3` added as their last four nodes (each moving to the
/// smaller ones): the lists and the heaps' ids. The first nodes are the wild positions of
/// the tame test above (5 = {0, {0, {*2}}} is `2^0`); the next `n` move to 1-3 nodes before
/// them, so wild positions are common.
fn with_heaps(rng: &mut Rng, n: usize) -> (Vec<Vec<u32>>, [u32; 4]) {
    let (lists, heaps) = with_heaps_to(rng, n, 3);
    (lists, [heaps[0], heaps[1], heaps[2], heaps[3]])
}

/// [`with_heaps`] with the heaps `*0` to `*top`.
fn with_heaps_to(rng: &mut Rng, n: usize, top: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut lists: Vec<Vec<u32>> =
        vec![vec![], vec![0], vec![0, 1], vec![2], vec![0, 3], vec![0, 4], vec![0, 4, 5]];
    for _ in 0..n {
        let v = lists.len() as u64;
        lists.push((0..1 + rng.below(3)).map(|_| rng.below(v) as u32).collect());
    }
    let first = lists.len();
    let heaps: Vec<u32> = (0..=top).map(|k| (first + k) as u32).collect();
    for k in 0..=top {
        lists.push(heaps[..k].to_vec());
    }
    (lists, heaps)
}

/// A query's answers by `solve --play misere`, with `--genus` and without: its verdict lines
/// and its report rows.
struct MisereAnswers {
    line: String,
    row: String,
    plain_line: String,
    plain_row: String,
}

/// [`MisereAnswers`] of each of `queries` on `lists` (written messily into `dir`).
fn misere_answers(
    rng: &mut Rng,
    dir: &std::path::Path,
    lists: &[Vec<u32>],
    queries: &[Vec<u32>],
) -> Vec<MisereAnswers> {
    let case = Case { lists: lists.to_vec(), queries: queries.to_vec() };
    let input = write_file(dir, "g.txt", &write_messy(rng, &[case], false));
    let (p, r) = (input.to_str().unwrap(), dir.join("r.csv"));
    let r = r.to_str().unwrap();
    let with = run(&["solve", "--play", "misere", "--genus", p, "--report", r], None).ok();
    let report = std::fs::read_to_string(r).unwrap();
    let without = run(&["solve", "--play", "misere", p, "--report", r], None).ok();
    let plain = std::fs::read_to_string(r).unwrap();
    let rows = report.lines().skip(1).zip(plain.lines().skip(1));
    let lines = with.lines().zip(without.lines());
    let answers: Vec<MisereAnswers> = lines
        .zip(rows)
        .map(|((line, plain_line), (row, plain_row))| MisereAnswers {
            line: line.into(),
            row: row.into(),
            plain_line: plain_line.into(),
            plain_row: plain_row.into(),
        })
        .collect();
    assert_eq!(answers.len(), queries.len(), "{with}");
    answers
}

/// The move of report `row`, a WIN's for tokens `q` under misère play, is one of a token's
/// moves and leaves a LOSE by the game tree.
fn assert_move_leaves_a_lose(
    lists: &[Vec<u32>],
    q: &[u32],
    row: &str,
    memo: &mut HashMap<Vec<u32>, bool>,
) {
    let fields: Vec<&str> = row.split(',').collect();
    let (from, to) = (ids(fields[4]), ids(fields[5]));
    let k = q.iter().position(|&t| Some(&t) == from.first()).expect("a move");
    let mut after = q.to_vec();
    after[k] = to[0];
    assert!(lists[from[0] as usize].contains(&to[0]), "{row}");
    assert!(!wins(lists, "misere", &after, memo), "{q:?}: {row}");
}

/// `values --play misere --genus`: each node's `misere_genus` prefix gives the misère Grundy
/// value of the node plus 0 to 5 heaps of 2 (its definition), by the sum's game tree, on
/// random DAGs; and the nim heaps have Winning Ways' genera.
#[test]
fn the_genus_column_follows_its_definition() {
    let mut rng = Rng::new(2912);
    for round in 0..30 {
        let n = rng.below(5) as usize;
        let (lists, heaps) = with_heaps(&mut rng, n);
        let case = Case { lists: lists.clone(), queries: vec![] };
        let input = write_messy(&mut rng, &[case], false);
        let out = run(&["values", "--play", "misere", "--genus"], Some(&input)).ok();
        let mut rows = out.lines();
        let header: Vec<&str> = rows.next().unwrap().split(',').collect();
        assert_eq!(header.last(), Some(&"misere_genus"));
        let mut memo = HashMap::new();
        for (v, row) in rows.enumerate() {
            let prefix = ids(row.rsplit(',').next().unwrap());
            assert!(prefix.len() >= 2, "round {round} node {v}: {row}");
            for twos in 0..6usize {
                let mut tokens = vec![v as u32];
                tokens.extend(std::iter::repeat_n(heaps[2], twos));
                let want = misere_value(&lists, &tokens, &mut memo);
                let l = prefix.len();
                let at = if twos < l { twos } else { l - 2 + ((twos - l) & 1) };
                assert_eq!(prefix[at], want, "round {round} node {v} + {twos} x *2: {row}");
            }
        }
        let genus = |v: u32| out.lines().nth(1 + v as usize).unwrap().rsplit(',').next().unwrap();
        let want = ["1 2 0", "0 3 1", "2 0", "3 1"];
        assert_eq!(heaps.map(genus), want, "round {round}: the heaps' genera");
    }
}

/// The genus rule: one token of any kind among tokens equal to heaps `*1` to `*3` (up to 5
/// of them) is decided with `--genus`, as the sum's game tree says, with a winning move;
/// without `--genus`, such a sum with a token that is neither a heap nor tame is UNDECIDED,
/// and says that `--genus` decides it.
#[test]
fn the_genus_decides_one_token_among_small_heaps() {
    let (mut rng, mut undecided) = (Rng::new(2913), 0);
    let dir = tempdir();
    for round in 0..20 {
        let n = rng.below(6) as usize;
        let (lists, heaps) = with_heaps(&mut rng, n);
        let n = heaps[0] as u64;
        let queries: Vec<Vec<u32>> = (0..60)
            .map(|_| {
                let mut q = vec![rng.below(n) as u32];
                q.extend((0..1 + rng.below(5)).map(|_| heaps[1 + rng.below(3) as usize]));
                rng.shuffle(&mut q);
                q
            })
            .collect();
        let mut memo = HashMap::new();
        for (q, a) in queries.iter().zip(misere_answers(&mut rng, dir.path(), &lists, &queries)) {
            let (line, row, before, plain_row) = (&*a.line, &*a.row, &*a.plain_line, &a.plain_row);
            let win = wins(&lists, "misere", q, &mut memo);
            assert_eq!(line, if win { "WIN" } else { "LOSE" }, "round {round} {q:?}: {row}");
            if win {
                assert_move_leaves_a_lose(&lists, q, row, &mut memo);
            }
            if before == "UNDECIDED" {
                undecided += 1;
                assert!(plain_row.contains("--genus"), "{plain_row}");
            } else {
                assert_eq!(before, line, "round {round} {q:?}");
            }
        }
    }
    assert!(undecided > 100, "only {undecided} sums needed the genus");
}

/// The genus rule with one more heap: one token of any kind among heaps `*1` to `*3` and one
/// heap `*4` to `*6` is decided as the sum's game tree says, with a winning move (without
/// `--genus` too when no heap is `*2` or `*3`: it then needs only the misère Grundy value).
/// With two heaps above `*3` beside a wild token, the big-heaps rule decides the sums whose
/// token reaches only positions that are tame or of value and genus entries below 4 (with
/// `--genus`; without it, the reason names `--genus`), as the game tree says, and leaves the
/// others UNDECIDED.
#[test]
fn the_genus_rule_takes_one_more_heap_of_any_size() {
    let (mut rng, mut one_big, mut plain_decided, mut two_big) = (Rng::new(2914), 0, 0, 0);
    let dir = tempdir();
    for round in 0..16 {
        let n = rng.below(6) as usize;
        let (lists, heaps) = with_heaps_to(&mut rng, n, 6);
        let n = heaps[0] as u64;
        let queries: Vec<Vec<u32>> = (0..50)
            .map(|_| {
                let mut q = vec![rng.below(n) as u32];
                q.extend((0..rng.below(4)).map(|_| heaps[1 + rng.below(3) as usize]));
                q.extend((0..1 + rng.below(2)).map(|_| heaps[4 + rng.below(3) as usize]));
                rng.shuffle(&mut q);
                q
            })
            .collect();
        let mut memo = HashMap::new();
        for (q, a) in queries.iter().zip(misere_answers(&mut rng, dir.path(), &lists, &queries)) {
            let (line, row, before, plain_row) = (&*a.line, &*a.row, &*a.plain_line, &a.plain_row);
            let bigs = q.iter().filter(|t| heaps[4..].contains(t)).count();
            let twos = q.iter().any(|&t| t == heaps[2] || t == heaps[3]);
            let win = wins(&lists, "misere", q, &mut memo);
            let want = if win { "WIN" } else { "LOSE" };
            if line == "UNDECIDED" {
                assert_eq!(bigs, 2, "round {round} {q:?}: {row}");
            } else {
                assert_eq!(line, want, "round {round} {q:?}: {row}");
                one_big += usize::from(bigs == 1);
                two_big += usize::from(bigs == 2);
            }
            if win && line == "WIN" {
                assert_move_leaves_a_lose(&lists, q, row, &mut memo);
            }
            match before {
                "UNDECIDED" if bigs == 1 => {
                    assert!(twos && plain_row.contains("--genus"), "round {round}: {plain_row}")
                }
                "UNDECIDED" => {
                    assert_eq!(bigs, 2, "round {round} {q:?}: {plain_row}");
                    assert!(plain_row.contains("--genus"), "round {round}: {plain_row}");
                }
                _ => {
                    assert_eq!(before, want, "round {round} {q:?}: {plain_row}");
                    plain_decided += usize::from(bigs == 1 && !twos);
                }
            }
        }
    }
    assert!(one_big > 200, "only {one_big} sums with one heap above *3 decided");
    assert!(plain_decided > 40, "only {plain_decided} decided without the genus");
    assert!(two_big > 20, "only {two_big} sums with two heaps above *3 decided");
}
