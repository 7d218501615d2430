//! Limits and hostile inputs, one test per thing that broke or could: each says which.
//! (The bugs users met in the end-to-end trial of issue 9 have their regression tests beside
//! their subjects, in `outputs.rs`, `formats.rs`, `generate.rs` and `reports.rs`.)

use std::os::unix::fs::FileTypeExt;

use crate::util::*;

/// Regression (found while hardening, issue 6): `-o /dev/null` wrote a temporary file and
/// renamed it over the device, which root may do.
#[test]
fn output_to_dev_null_keeps_the_device() {
    let sample = repo_path("data/chess-sample.txt");
    let run = run(&["values", sample.to_str().unwrap(), "-o", "/dev/null"], None);
    assert_eq!(run.ok(), "");
    let meta = std::fs::metadata("/dev/null").unwrap();
    assert!(meta.file_type().is_char_device(), "/dev/null is still a device");
}

/// Guard: a directory given as `-o` must be an error naming it, not a file inside it.
#[test]
fn output_to_a_directory_is_an_error() {
    let dir = tempdir();
    let sample = repo_path("data/chess-sample.txt");
    let target = dir.path().to_str().unwrap();
    let line = run(&["values", sample.to_str().unwrap(), "-o", target], None).error_line();
    assert_eq!(line, format!("error: {target}: cannot write: is a directory"));
}

/// Guard: an empty or blank input is zero cases on every command, not an error; a query graph
/// with no case is its own error.
#[test]
fn an_empty_file_is_zero_cases() {
    let dir = tempdir();
    let empty = write_file(dir.path(), "empty.txt", b"");
    let blank = write_file(dir.path(), "blank.txt", b"\n \t\r\n");
    for path in [&empty, &blank] {
        let file = path.to_str().unwrap();
        for threads in ["1", "2"] {
            assert_eq!(run(&["-j", threads, "solve", file], None).ok(), "");
            assert_eq!(run(&["-j", threads, "solve", "--format", "sums", file], None).ok(), "");
            let values = run(&["-j", threads, "values", file], None).ok();
            assert_eq!(values, "case,node,grundy,level,out_degree\n");
            assert_eq!(
                run(&["-j", threads, "stats", file], None).ok(),
                format!("{file}: no cases\n")
            );
        }
        let queries = write_file(dir.path(), "queries.txt", b"");
        let line = run(&["query", file, queries.to_str().unwrap()], None).error_line();
        assert_eq!(line, format!("error: {file}: holds no case, so there is no graph to query"));
    }
}

/// Guard: an input that cannot be read is one `error:` line naming it.
#[test]
fn an_unreadable_file_is_an_error() {
    let dir = tempdir();
    let path = write_file(dir.path(), "secret.txt", b"1 0 1 0\n");
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&path, perms).unwrap();
    let line = if std::fs::File::open(&path).is_err() {
        solve_file(&path).error_line()
    } else {
        // Root reads anything: a file whose reads fail stands in (offset 0 of this process's
        // own memory is never mapped, so reading /proc/self/mem there fails).
        solve_file(std::path::Path::new("/proc/self/mem")).error_line()
    };
    assert!(line.contains(": cannot read: ") || line.contains(": cannot open: "), "{line}");
}

/// Guard: a 12-byte file claiming four billion nodes, out-positions, tokens or parts must fail
/// at its end in a few MB, on both paths, never allocate what it claims.
#[test]
fn counts_near_two_to_the_32_fail_at_once_on_both_paths() {
    let dir = tempdir();
    for (name, text, expected) in [
        ("n", &b"4294967295 0"[..], "input ends where the out-degree of node 1 (case 1) was expected"),
        ("x", b"2 4294967295 1", "input ends where out-position 2 of 4294967295 of node 0 (case 1) was expected"),
        ("m", b"1 0 4294967295 0 0", "input ends where position 3 of 4294967295 of query 1 (case 1) was expected"),
        ("k", b"1 4294967295 0", "input ends where the part count of move 2 of 4294967295 of node 0 (case 1) was expected"),
    ] {
        let path = write_file(dir.path(), name, text);
        for threads in ["1", "2"] {
            let format = if name == "k" { "sums" } else { "chess" };
            // Under a 256 MiB address-space limit, honouring any of these counts would abort.
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(r#"ulimit -v 262144 && exec "$0" "$@""#)
                .arg(env!("CARGO_BIN_EXE_grundy"))
                // The query's count is under the cap that way: refused where the input ends.
                .args(["-j", threads, "--max-query-tokens", "4294967295", "solve"])
                .args(["--format", format, path.to_str().unwrap()])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name} -j {threads}: {stderr}");
            assert!(stderr.ends_with(&format!("{expected}\n")), "{name} -j {threads}: {stderr}");
        }
    }
}

/// Regression (found while hardening, issue 6): `game crosses` with n = 4e9 (or cutting 60000
/// x 60000) in an 11-byte input allocated 16 GB before failing.
#[test]
fn games_refuse_sizes_no_memory_could_hold() {
    for (game, input, expected) in [
        (
            "crosses",
            &b"4000000000\n"[..],
            "n of case 1: 4000000000 cells need more than 268435456 positions",
        ),
        (
            "cutting",
            b"60000 60000\n",
            "W of case 1: sheets up to 60000 x 60000 need more than 268435456 positions",
        ),
        ("geography", b"1000000000 1\n", "n of case 1: more than 268435456 airports"),
        (
            "team-nim",
            b"2000000000 5 1\n",
            "n of case 1: 4000000000 seats and 5 stones are too many positions",
        ),
    ] {
        let line = run(&["game", game], Some(input)).error_line();
        assert_eq!(line, format!("error: <stdin>:1:1: {expected}"));
    }
    // Sheets that fit alone but not together: the line that overflows the table is named.
    let line = run(&["game", "cutting"], Some(b"2 2\n30000 2\n2 30000\n")).error_line();
    let expected = "W of case 3: sheets up to 30000 x 30000 need more than 268435456 positions";
    assert_eq!(line, format!("error: <stdin>:3:1: {expected}"));
    // A claimed tree of 100 million airports in a few bytes fails at the end of the input.
    let line = run(&["game", "geography"], Some(b"100000000 1\n1 2\n")).error_line();
    assert_eq!(line, "error: <stdin>:3:1: input ends where a of case 1 was expected");
}

/// Guard (issue 11, the ceiling): a case of more than `u32::MAX` edges takes 64-bit offsets.
/// The limit is lowered through `GRUNDY_NARROW_EDGES`, so every case of more than 7 edges here
/// goes the 64-bit way, on both readers, in both formats that have edges, and every output
/// must be the 32-bit run's, byte for byte.
#[test]
fn cases_past_the_32_bit_offsets_give_the_same_answers() {
    let dir = tempdir();
    let mut rng = Rng::new(41);
    let cases: Vec<Case> = (0..40)
        .map(|_| {
            let n = 1 + rng.below(30) as usize;
            let degree = rng.below(5);
            random_case(&mut rng, n, degree, 20, 4)
        })
        .collect();
    let input = write_file(dir.path(), "in.txt", &write_messy(&mut rng, &cases, false));
    let queries = write_file(dir.path(), "q.txt", b"2 0 1\n1 3\n3 2 2 2\n");
    let edges: String = cases[0]
        .lists
        .iter()
        .enumerate()
        .flat_map(|(u, l)| l.iter().map(move |v| format!("{u} {v}\n")))
        .collect();
    let edges = write_file(dir.path(), "e.txt", edges.as_bytes());
    let (i, q, e) = (input.to_str().unwrap(), queries.to_str().unwrap(), edges.to_str().unwrap());
    let report = dir.path().join("r.csv");
    let r = report.to_str().unwrap();
    let nodes = cases[0].lists.len().to_string();
    let runs: [&[&str]; 5] = [
        &["solve", i, "--report", r],
        &["values", i],
        &["query", i, q],
        &["values", e, "--format", "edges", "--nodes", &nodes],
        &["stats", "--json", i],
    ];
    for threads in ["1", "2"] {
        for args in runs {
            let args = [&["-j", threads, "--chunk-bytes", "64"][..], args].concat();
            let output = |limit: Option<&str>| {
                let mut command = grundy();
                command.args(&args);
                if let Some(limit) = limit {
                    command.env("GRUNDY_NARROW_EDGES", limit);
                }
                let out = command.output().unwrap();
                assert_eq!(out.status.code(), Some(0), "{args:?}");
                let report = std::fs::read(&report).unwrap_or_default();
                (String::from_utf8(out.stdout).unwrap(), report)
            };
            let (narrow, narrow_report) = output(None);
            let (wide, wide_report) = output(Some("7"));
            if args.contains(&"stats") {
                // Same statistics, but the offsets: the test can tell the paths apart.
                assert!(
                    narrow.contains("\"offset_bits\":32") && wide.contains("\"offset_bits\":64")
                );
                let strip = |t: &str| {
                    let json: serde_json::Value = serde_json::from_str(t).unwrap();
                    let cases = json["cases"].as_array().unwrap().clone();
                    cases
                        .into_iter()
                        .map(|mut c| {
                            c.as_object_mut()
                                .unwrap()
                                .retain(|k, _| k != "seconds" && k != "offset_bits");
                            c
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(strip(&narrow), strip(&wide));
            } else {
                assert_eq!(narrow, wide, "{args:?}");
                assert_eq!(narrow_report, wide_report, "{args:?}");
            }
        }
    }
}

/// Regression (issue 24, item 5b): a query file with one id out of range was told "QUERIES
/// looks like a graph file", because any query file starts like a graph (`1 0` is a case of
/// one node). The hint now needs the whole file to read as a graph file; a real one, in
/// either format, still gets it.
#[test]
fn only_a_query_file_that_reads_as_a_graph_file_is_called_one() {
    let dir = tempdir();
    let graph = write_file(dir.path(), "g.txt", b"3\n1 1\n1 2\n0\n0\n");
    let queries = write_file(dir.path(), "q.txt", b"1 0\n2 0 2\n1 7\n");
    let other = write_file(dir.path(), "g2.txt", b"4\n1 1\n1 2\n1 3\n0\n2 0 3\n0\n2\n0\n0\n");
    let sums = write_file(dir.path(), "s.txt", b"2\n1 1 1\n0\n1 0\n0\n");
    let sums_other = write_file(dir.path(), "s2.txt", b"3\n1 2 1 2\n0\n0\n1 0\n");
    let [g, q, o, s, s2] =
        [&graph, &queries, &other, &sums, &sums_other].map(|p| p.to_str().unwrap());
    let error = |args: &[&str]| {
        let run = run(args, None);
        assert_eq!(run.code, 1, "{args:?}");
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        run.stderr.trim_end().to_string()
    };
    for threads in ["1", "2"] {
        let line = error(&["-j", threads, "query", g, q]);
        let bad_id = "position 1 of 1 of query 3 is 7, but the case has 3 nodes (ids 0 to 2)";
        assert_eq!(line, format!("error: {q}:3:3: {bad_id}"), "{threads}");
        let line = error(&["-j", threads, "query", g, o]);
        assert!(line.contains("(QUERIES looks like a graph file: it reads as a case of 4 nodes;"));
        let line = error(&["-j", threads, "query", "--format", "sums", s, s2]);
        assert!(line.contains("(QUERIES looks like a graph file: it reads as a case of 3 nodes;"));
    }
}

/// Regression (issue 63): a write killed by SIGKILL left its hidden `.grundy-*.tmp` beside
/// the target for good. Its name now carries the process and the machine, and the next run
/// writing into the folder removes it; the file of a live process (this test's), one of
/// another machine and one of an earlier grundy (no PID) are left alone.
#[test]
fn a_killed_writes_temporary_file_is_removed_by_the_next_run() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = tempdir();
    let d = dir.path();
    let temps = || -> Vec<String> {
        let names = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name());
        let mut names: Vec<String> = names.map(|n| n.into_string().unwrap()).collect();
        names.retain(|n| n.starts_with(".grundy-"));
        names.sort();
        names
    };
    // `values` opens its output once the input's first bytes are in (enough to tell an index
    // from a text), then waits for the rest.
    let out = d.join("killed.csv");
    let mut child = grundy()
        .args(["values", "-o", out.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(&[&b"3\n1 1\n"[..], &[b' '; 4096]].concat()).expect("the first bytes");
    let start = std::time::Instant::now();
    while temps().is_empty() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let pid = child.id();
    child.kill().expect("SIGKILL");
    child.wait().expect("the child is gone");
    drop(stdin);
    let orphan = temps().pop().expect("the killed run's temporary file");
    assert!(!out.exists());
    let prefix = format!(".grundy-{pid}-");
    assert!(orphan.starts_with(&prefix) && orphan.ends_with(".tmp"), "{orphan}");
    let host = orphan[prefix.len()..].rsplit_once('-').expect("HOST-XXXXXX.tmp").0;
    let kept = [
        format!(".grundy-{}-{host}-Live01.tmp", std::process::id()),
        format!(".grundy-{pid}-not-{host}-Other1.tmp"),
        ".grundy-Old001.tmp".to_string(),
    ];
    for name in &kept {
        write_file(d, name, b"partial");
    }
    let sample = repo_path("data/chess-sample.txt");
    let written = d.join("values.csv");
    run(&["values", sample.to_str().unwrap(), "-o", written.to_str().unwrap()], None).ok();
    assert!(written.exists());
    let mut want = kept.to_vec();
    want.sort();
    assert_eq!(temps(), want, "only the killed run's file is removed");
}

/// Regression (issue 63): `values --help` and `query --help` said `--play` was "one process,
/// CSV, no index", and both read an index and write Parquet and Arrow IPC under any play.
/// The help names what it takes, and it does take it; a cluster is still refused.
#[test]
fn the_help_of_play_says_what_values_and_query_take() {
    let dir = tempdir();
    let d = dir.path();
    let sample = repo_path("data/chess-sample.txt");
    let idx = d.join("sample.grundy");
    run(&["index", sample.to_str().unwrap(), "-o", idx.to_str().unwrap()], None).ok();
    let q = write_file(d, "q.txt", b"1 0\n2 1 2\n");
    for command in ["values", "query"] {
        let help = run(&[command, "--help"], None).ok();
        let play = help.split("--play <PLAY>").nth(1).expect("--play is helped");
        let play = play.split("Possible values").next().expect("its text");
        assert!(!play.contains("no index"), "{command}: {play}");
        assert!(play.contains("an index") && play.contains("Parquet"), "{command}: {play}");
        assert!(play.contains("one process"), "{command}: {play}");
        let mut args = vec![command, "--play", "misere", idx.to_str().unwrap()];
        if command == "query" {
            args.push(q.to_str().unwrap());
        }
        let csv = run(&args, None).ok();
        assert!(csv.lines().count() > 2, "{command}: {csv}");
        #[cfg(feature = "columnar")]
        for ext in ["parquet", "arrow"] {
            let out = d.join(format!("{command}.{ext}"));
            let mut to_file = args.clone();
            to_file.extend_from_slice(&["-o", out.to_str().unwrap()]);
            assert_eq!(run(&to_file, None).ok(), "");
            assert!(std::fs::metadata(&out).expect("written").len() > 0, "{command} {ext}");
        }
        #[cfg(feature = "cluster")]
        {
            let mut on_two = vec![command, "--play", "misere", sample.to_str().unwrap()];
            if command == "query" {
                on_two.push(q.to_str().unwrap());
            }
            on_two.extend_from_slice(&["--processes", "2"]);
            let refused = run(&on_two, None);
            assert_eq!(refused.code, 2, "{command}: {}", refused.stderr);
            assert!(refused.stderr.contains("the plays run on one process"), "{command}");
        }
    }
}
