//! The cluster backend on loopback: the same bytes as one process, whatever the number of
//! processes and workers, in both forms (`--processes N`, and `--hosts` with processes started
//! by hand); input errors answered as one process answers them; a lost process ends the run.

use std::net::TcpListener;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::*;

/// Inputs of the shapes the issue names: multi-case with messy whitespace, many tiny cases, a
/// chain, a tournament.
fn inputs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut rng = Rng::new(77);
    let cases: Vec<Case> = (0..12)
        .map(|_| {
            let n = 1 + rng.below(300) as usize;
            let degree = rng.below(6);
            random_case(&mut rng, n, degree, 30, 5)
        })
        .collect();
    let tiny: Vec<Case> = (0..200)
        .map(|_| {
            let n = 1 + rng.below(4) as usize;
            random_case(&mut rng, n, 2, 2, 2)
        })
        .collect();
    let generated = |name: &str, args: &[&str]| {
        let path = dir.join(name);
        let mut all = vec!["generate", "-o", path.to_str().unwrap()];
        all.extend_from_slice(args);
        run(&all, None).ok();
        path
    };
    vec![
        write_file(dir, "messy.txt", &write_messy(&mut rng, &cases, true)),
        write_file(dir, "tiny.txt", &write_messy(&mut rng, &tiny, false)),
        generated("chain.txt", &["-n", "3000", "--shape", "chain", "-q", "10"]),
        generated("tournament.txt", &["-n", "300", "--shape", "tournament", "-q", "10"]),
        generated("random.txt", &["-n", "50000", "--edges", "300000", "-q", "10", "--cases", "3"]),
    ]
}

#[test]
fn values_on_a_local_cluster_are_the_single_process_bytes() {
    let dir = tempdir();
    for input in inputs(dir.path()) {
        let file = input.to_str().unwrap();
        let expected = run(&["values", file], None).ok();
        for (processes, workers) in [("2", "1"), ("3", "1"), ("2", "2")] {
            let args = ["values", file, "--processes", processes, "--workers", workers];
            assert!(run(&args, None).ok() == expected, "{file} {processes} x {workers}");
        }
    }
}

#[test]
fn solve_and_query_on_a_local_cluster_are_the_single_process_bytes() {
    let dir = tempdir();
    let report = dir.path().join("report.csv");
    let report = report.to_str().unwrap();
    let mut rng = Rng::new(78);
    for input in inputs(dir.path()) {
        let file = input.to_str().unwrap();
        let lines = run(&["solve", file, "--report", report], None).ok();
        let rows = std::fs::read(report).unwrap();
        // Queries on the first graph: its node count is the first token.
        let text = std::fs::read_to_string(&input).unwrap();
        let nodes: u64 = text.split_whitespace().next().unwrap().parse().unwrap();
        let queries: String = (0..40)
            .map(|_| {
                let m = 1 + rng.below(5);
                let tokens: Vec<String> = (0..m).map(|_| rng.below(nodes).to_string()).collect();
                format!("{m}  {}\n", tokens.join(" "))
            })
            .collect();
        let queries = write_file(dir.path(), "queries.txt", (queries + "0\n").as_bytes());
        let q = queries.to_str().unwrap();
        let csv = run(&["query", file, q], None).ok();
        for (processes, workers) in [("2", "1"), ("3", "2")] {
            let cluster = ["--processes", processes, "--workers", workers];
            let solve = [&["solve", file, "--report", report][..], &cluster].concat();
            std::fs::remove_file(report).unwrap();
            assert!(run(&solve, None).ok() == lines, "{file} {processes} x {workers}");
            assert!(std::fs::read(report).unwrap() == rows, "report of {file}");
            let query = [&["query", file, q][..], &cluster].concat();
            assert!(run(&query, None).ok() == csv, "query {file} {processes} x {workers}");
        }
    }
}

#[test]
fn bad_queries_are_answered_as_one_process_answers_them() {
    let dir = tempdir();
    let graph = write_file(dir.path(), "graph.txt", b"3\n1 1\n1 2\n0\n1 0\n0\n");
    let graph = graph.to_str().unwrap();
    for (k, queries) in [
        &b"1 0\n2 1 2\n0\n"[..],
        b"1 0\n2 1 2\n",
        b"1 0\n2 1 2\n0\n1 1\n",
        b"1 0\n2 1 3\n0\n",
        b"1 0\n2 1 x\n0\n",
        b"1 0\n3 1 2",
        b"",
    ]
    .into_iter()
    .enumerate()
    {
        let queries = write_file(dir.path(), &format!("q{k}.txt"), queries);
        let q = queries.to_str().unwrap();
        let alone = run(&["query", graph, q], None);
        let cluster = run(&["query", graph, q, "--processes", "3"], None);
        assert_eq!(
            (cluster.code, &cluster.stdout, &cluster.stderr),
            (alone.code, &alone.stdout, &alone.stderr),
            "queries {k}"
        );
    }
    let solve = write_file(dir.path(), "solve.txt", b"2\n1 1\n0\n2 0 1\n1 2\n0\n");
    let file = solve.to_str().unwrap();
    let alone = run(&["solve", file], None);
    let cluster = run(&["solve", file, "--processes", "2"], None);
    assert_eq!(alone.code, 1);
    assert_eq!(
        (cluster.code, cluster.stdout, cluster.stderr),
        (alone.code, alone.stdout, alone.stderr)
    );
}

/// A deep thin DAG: every node but the lowest-ranked moves to the node ranked just below it,
/// some also to a random lower one (a node with two open moves stops a pointer jump), a few
/// to a third; ids shuffled, so the path crosses workers at every other step.
fn braided_case(rng: &mut Rng, n: usize, queries: usize) -> Case {
    let mut by_rank: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut by_rank);
    let mut lists = vec![Vec::new(); n];
    for r in 1..n {
        let list = &mut lists[by_rank[r] as usize];
        list.push(by_rank[r - 1]);
        for _ in 0..[0, 0, 0, 0, 0, 0, 1, 2][rng.below(8) as usize] {
            list.push(by_rank[rng.below(r as u64) as usize]);
        }
        rng.shuffle(list);
    }
    let queries = (0..queries)
        .map(|_| (0..1 + rng.below(3)).map(|_| rng.below(n as u64) as u32).collect())
        .collect();
    Case { lists, queries }
}

#[test]
fn deep_thin_graphs_settle_by_jumping_with_the_same_bytes() {
    let dir = tempdir();
    let mut rng = Rng::new(79);
    let one = [braided_case(&mut rng, 20000, 30)];
    let many: Vec<Case> = (0..6).map(|_| braided_case(&mut rng, 3000, 10)).collect();
    let report = dir.path().join("report.csv");
    let report = report.to_str().unwrap();
    for (name, cases) in [("one.txt", &one[..]), ("many.txt", &many[..])] {
        let input = write_file(dir.path(), name, &write_messy(&mut rng, cases, false));
        let file = input.to_str().unwrap();
        let values = run(&["values", file], None).ok();
        let lines = run(&["solve", file, "--report", report], None).ok();
        let rows = std::fs::read(report).unwrap();
        for (processes, workers) in [("2", "1"), ("3", "2")] {
            let cluster = ["--processes", processes, "--workers", workers];
            let args = [&["values", file][..], &cluster].concat();
            assert!(run(&args, None).ok() == values, "values of {name} {processes} x {workers}");
            let args = [&["solve", file, "--report", report][..], &cluster].concat();
            assert!(run(&args, None).ok() == lines, "solve {name} {processes} x {workers}");
            assert!(std::fs::read(report).unwrap() == rows, "report of {name}");
        }
    }
}

/// Free ports on the loopback.
pub fn free_addresses(n: usize) -> Vec<String> {
    let listeners: Vec<TcpListener> =
        (0..n).map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    listeners.iter().map(|l| l.local_addr().unwrap().to_string()).collect()
}

/// Runs `args` as process 1 (started by hand) and process 0 of a two-process cluster named in
/// a hosts file: process 0's result, after checking that process 1 succeeded silently.
fn by_hand(dir: &std::path::Path, args: &[&str]) -> Run {
    let hosts = write_file(dir, "hosts", (free_addresses(2).join("\n") + "\n").as_bytes());
    let hosts = hosts.to_str().unwrap();
    let other = grundy()
        .args(args)
        .args(["--hosts", hosts, "--process", "1"])
        .env("GRUNDY_SECRET", "by hand")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let zero = grundy()
        .args(args)
        .args(["--hosts", hosts, "--process", "0"])
        .env("GRUNDY_SECRET", "by hand")
        .output()
        .unwrap();
    let zero = Run {
        code: zero.status.code().unwrap_or(-1),
        stdout: zero.stdout,
        stderr: String::from_utf8_lossy(&zero.stderr).into_owned(),
    };
    let other = other.wait_with_output().unwrap();
    assert_eq!(other.status.code(), Some(0), "{}", String::from_utf8_lossy(&other.stderr));
    assert!(other.stdout.is_empty(), "only process 0 writes");
    zero
}

#[test]
fn every_command_with_hosts_and_processes_started_by_hand() {
    let dir = tempdir();
    let input = &inputs(dir.path())[0];
    let file = input.to_str().unwrap();
    let queries = write_file(dir.path(), "q.txt", b"2 1 2\n3 0 0 1\n1 5\n0\n");
    let q = queries.to_str().unwrap();
    let report = dir.path().join("report.csv");
    let report = report.to_str().unwrap();
    let expected = run(&["values", file], None).ok();
    assert!(by_hand(dir.path(), &["values", file]).ok() == expected);
    let expected = run(&["query", file, q], None).ok();
    assert!(by_hand(dir.path(), &["query", file, q]).ok() == expected);
    let expected = run(&["solve", file, "--report", report], None).ok();
    let rows = std::fs::read(report).unwrap();
    std::fs::remove_file(report).unwrap();
    assert!(by_hand(dir.path(), &["solve", file, "--report", report]).ok() == expected);
    assert!(std::fs::read(report).unwrap() == rows, "the report");
}

#[test]
fn input_errors_and_cycles_are_answered_as_one_process_answers_them() {
    let dir = tempdir();
    let bad = write_file(dir.path(), "bad.txt", b"2\n1 1\n0\n1 0\n0\n3\n1 7\n0\n0\n");
    let cycle = write_file(dir.path(), "cycle.txt", b"1\n0\n1 0\n0\n3\n1 1\n1 2\n1 0\n1 0\n0\n");
    let end = write_file(dir.path(), "end.txt", b"2\n1 1\n0\n1 0\n0\n3\n2 1");
    for input in [&bad, &cycle, &end] {
        let file = input.to_str().unwrap();
        let alone = run(&["values", file], None);
        let cluster = run(&["values", file, "--processes", "3"], None);
        assert_eq!(alone.code, 1);
        assert_eq!(
            (cluster.code, &cluster.stdout, &cluster.stderr),
            (alone.code, &alone.stdout, &alone.stderr)
        );
    }
}

#[test]
fn a_lost_process_ends_the_others_with_no_output_file() {
    let dir = tempdir();
    let big = dir.path().join("big.txt");
    let out = dir.path().join("v.csv");
    let b = big.to_str().unwrap();
    run(&["generate", "-n", "1000000", "--edges", "6000000", "-q", "0", "-o", b], None).ok();
    let hosts = write_file(dir.path(), "hosts", (free_addresses(2).join("\n") + "\n").as_bytes());
    let hosts = hosts.to_str().unwrap();
    let mut other = grundy()
        .args(["values", b, "--hosts", hosts, "--process", "1"])
        .env("GRUNDY_SECRET", "lost")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let zero = grundy()
        .args(["values", b, "--hosts", hosts, "--process", "0", "-o", out.to_str().unwrap()])
        .env("GRUNDY_SECRET", "lost")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    other.kill().unwrap();
    let killed = Instant::now();
    let zero = zero.wait_with_output().unwrap();
    let _ = other.wait();
    assert!(killed.elapsed() < Duration::from_secs(10), "ended within 10 s");
    let stderr = String::from_utf8_lossy(&zero.stderr);
    assert_eq!(zero.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: lost process 1 (127.0.0.1:"), "{stderr}");
    assert!(!out.exists(), "no output file");
    let names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 2, "no temporary file is left: {names:?}");
}

#[test]
fn cluster_flags_are_checked() {
    let sample = repo_path("data/chess-sample.txt");
    let file = sample.to_str().unwrap();
    for (args, words) in [
        (&["values", file, "--processes", "0"][..], "--processes must be at least 1"),
        (&["values", file, "--workers", "2"][..], "--workers applies to a cluster"),
        (&["values", file, "--processes", "2", "--loopy"][..], "--loopy runs on one process"),
        (&["solve", "--processes", "2"][..], "give it as a file, not stdin"),
        (&["query", file, "--processes", "2"][..], "QUERIES in every process"),
    ] {
        let run = run(args, None);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(words), "{}", run.stderr);
    }
    // An unreachable peer is an error after the deadline, not an endless wait: a hosts file
    // naming a port nobody listens on, the deadline shortened to 2 s.
    let dir = tempdir();
    let hosts = write_file(dir.path(), "hosts", (free_addresses(2).join("\n") + "\n").as_bytes());
    let started = Instant::now();
    let out = grundy()
        .args(["values", file, "--hosts", hosts.to_str().unwrap(), "--process", "1"])
        .env("GRUNDY_CONNECT_SECONDS", "2")
        .env("GRUNDY_SECRET", "unreachable")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.starts_with("error: cannot reach process 0 (127.0.0.1:"), "{stderr}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// `lists` as an edge list, written the ways other tools write them: tabs, commas, networkx's
/// `{}` data, comments, CRLF line ends, blank lines.
fn edge_list(rng: &mut Rng, lists: &[Vec<u32>]) -> Vec<u8> {
    let mut text = String::from("# from another tool\n% a comment\n\n");
    for (u, list) in lists.iter().enumerate() {
        for v in list {
            text += &match rng.below(5) {
                0 => format!("{u}\t{v}\n"),
                1 => format!("{u},{v}\r\n"),
                2 => format!("{u} {v} {{}}\n"),
                3 => format!("  {u}  {v}\n\n"),
                _ => format!("{u} {v}\n"),
            };
        }
    }
    text.into_bytes()
}

#[test]
fn edge_lists_on_a_local_cluster_are_the_single_process_bytes() {
    let dir = tempdir();
    let mut rng = Rng::new(80);
    let random = random_case(&mut rng, 3000, 6, 0, 1);
    let braided = braided_case(&mut rng, 20000, 0);
    let queries: String = (0..300)
        .map(|_| {
            let m = 1 + rng.below(4);
            let tokens: Vec<String> = (0..m).map(|_| rng.below(3000).to_string()).collect();
            format!("{m} {}\n", tokens.join(" "))
        })
        .collect();
    let q = write_file(dir.path(), "q.txt", queries.as_bytes());
    let q = q.to_str().unwrap();
    for (name, lists) in [("random.tsv", &random.lists), ("braided.tsv", &braided.lists)] {
        let file = write_file(dir.path(), name, &edge_list(&mut rng, lists));
        let f = file.to_str().unwrap();
        // Trailing isolated nodes need --nodes; without it the largest id decides.
        let nodes = (lists.len() + 5).to_string();
        for format in [&["--format", "edges"][..], &["--format", "edges", "--nodes", &nodes]] {
            let values = run(&[&["values", f][..], format].concat(), None).ok();
            let answers = run(&[&["query", f, q][..], format].concat(), None).ok();
            for (processes, workers) in [("2", "1"), ("3", "2")] {
                let cluster = [format, &["--processes", processes, "--workers", workers]].concat();
                let args = [&["values", f][..], &cluster].concat();
                assert!(run(&args, None).ok() == values, "values {name} {format:?} {processes}");
                let args = [&["query", f, q][..], &cluster].concat();
                assert!(run(&args, None).ok() == answers, "query {name} {format:?} {processes}");
            }
        }
    }
    // Errors are the single process's, from process 0 alone.
    for (k, (text, extra)) in [
        (&b"0 1\n1 2\n2 x\n"[..], &[][..]),
        (b"0 1\n1 9\n", &["--nodes", "5"][..]),
        (b"0 1\n1 4000000000\n", &[]),
        (b"0 1\n1 2 3\n", &[]),
        (b"0 1\n1 0\n", &[]),
    ]
    .into_iter()
    .enumerate()
    {
        let file = write_file(dir.path(), &format!("bad{k}.tsv"), text);
        let args = [&["values", file.to_str().unwrap(), "--format", "edges"][..], extra].concat();
        let alone = run(&args, None);
        let cluster = run(&[&args[..], &["--processes", "3"]].concat(), None);
        assert_eq!(alone.code, 1, "bad {k}: {}", alone.stderr);
        assert_eq!(
            (cluster.code, &cluster.stdout, &cluster.stderr),
            (1, &alone.stdout, &alone.stderr)
        );
    }
}

#[test]
fn sums_on_a_local_cluster_are_the_single_process_bytes() {
    use crate::sums::{random_sums, write_sums};
    let dir = tempdir();
    let mut rng = Rng::new(81);
    let many: Vec<_> = (0..25)
        .map(|_| {
            let n = 1 + rng.below(200) as usize;
            random_sums(&mut rng, n)
        })
        .collect();
    let one = [random_sums(&mut rng, 4000)];
    let report = dir.path().join("report.csv");
    let r = report.to_str().unwrap();
    for (name, cases) in [("many.txt", &many[..]), ("one.txt", &one[..])] {
        let file = write_file(dir.path(), name, write_sums(&mut rng, cases).as_bytes());
        let f = file.to_str().unwrap();
        let nodes = cases[0].0.len() as u64;
        let queries: String = (0..200)
            .map(|_| {
                let m = 1 + rng.below(3);
                let tokens: Vec<String> = (0..m).map(|_| rng.below(nodes).to_string()).collect();
                format!("{m} {}\n", tokens.join(" "))
            })
            .collect();
        let q = write_file(dir.path(), "q.txt", queries.as_bytes());
        let q = q.to_str().unwrap();
        let sums = ["--format", "sums"];
        let values = run(&[&["values", f][..], &sums].concat(), None).ok();
        let lines = run(&[&["solve", f, "--report", r][..], &sums].concat(), None).ok();
        let rows = std::fs::read(r).unwrap();
        let answers = run(&[&["query", f, q][..], &sums].concat(), None).ok();
        for (processes, workers) in [("2", "1"), ("3", "2")] {
            let cluster = [&sums[..], &["--processes", processes, "--workers", workers]].concat();
            let args = [&["values", f][..], &cluster].concat();
            assert!(run(&args, None).ok() == values, "values {name} {processes} x {workers}");
            std::fs::remove_file(r).unwrap();
            let args = [&["solve", f, "--report", r][..], &cluster].concat();
            assert!(run(&args, None).ok() == lines, "solve {name} {processes} x {workers}");
            assert!(std::fs::read(r).unwrap() == rows, "report of {name} {processes}");
            let args = [&["query", f, q][..], &cluster].concat();
            assert!(run(&args, None).ok() == answers, "query {name} {processes} x {workers}");
        }
    }
    // Errors and cycles are the single process's, from process 0 alone.
    for (k, text) in [&b"2\n1 1 1\n1 1 5\n0\n"[..], b"2\n1 1 1\n1 1 0\n1 0\n0\n", b"2\n2 1 1"]
        .into_iter()
        .enumerate()
    {
        let file = write_file(dir.path(), &format!("bad{k}.txt"), text);
        let args = ["values", file.to_str().unwrap(), "--format", "sums"];
        let alone = run(&args, None);
        let cluster = run(&[&args[..], &["--processes", "3"]].concat(), None);
        assert_eq!(alone.code, 1, "bad {k}: {}", alone.stderr);
        assert_eq!(
            (cluster.code, &cluster.stdout, &cluster.stderr),
            (1, &alone.stdout, &alone.stderr)
        );
    }
}
