//! The parallel code paths, on one thread and more, give the same bytes as the sequential twin
//! (`--sequential`).

use crate::util::*;

/// Runs `solve` on `path` with `--sequential` and with several thread counts and window sizes
/// (small windows put token, node and query boundaries across windows); all outputs must be
/// identical. Returns the sequential output.
fn same_bytes_every_way(path: &std::path::Path, chunks: &[&str]) -> Run {
    let file = path.to_str().unwrap();
    let sequential = run(&["solve", "--sequential", file], None);
    for threads in ["1", "2", "3"] {
        for chunk in chunks {
            let parallel =
                run(&["solve", "--threads", threads, "--chunk-bytes", chunk, file], None);
            assert_eq!(parallel.code, sequential.code, "threads {threads} chunk {chunk}");
            assert!(parallel.stdout == sequential.stdout, "threads {threads} chunk {chunk}");
            assert_eq!(parallel.stderr, sequential.stderr, "threads {threads} chunk {chunk}");
        }
    }
    sequential
}

#[test]
fn messy_multi_case_inputs_give_the_same_bytes() {
    let dir = tempdir();
    let mut rng = Rng::new(3537);
    for round in 0..6 {
        let cases: Vec<Case> = (0..40)
            .map(|_| {
                let n = 1 + rng.below(3000) as usize;
                let max_degree = rng.below(12);
                let queries = rng.below(400) as usize;
                random_case(&mut rng, n, max_degree, queries, 10)
            })
            .collect();
        let input = write_messy(&mut rng, &cases, round % 2 == 0);
        let path = write_file(dir.path(), "messy.txt", &input);
        let out = same_bytes_every_way(&path, &["5", "4096", "100000", "16777216"]);
        let expected = expected_answers(&cases, |c| relaxation_values_fast(&c.lists));
        assert_eq!(out.ok(), expected);
    }
}

#[test]
fn large_generated_inputs_give_the_same_bytes() {
    let dir = tempdir();
    for (shape, nodes, degree) in [
        ("random", "200000", "6"),
        ("layered", "200000", "4"),
        ("wide", "100000", "3"),
        ("chain", "300000", "1"),
        ("tournament", "1500", "1"),
    ] {
        let path = dir.path().join(format!("{shape}.txt"));
        let file = path.to_str().unwrap();
        run(
            &[
                "generate",
                "--shape",
                shape,
                "-n",
                nodes,
                "--avg-degree",
                degree,
                "-q",
                "50000",
                "--cases",
                "2",
                "--seed",
                "9",
                "-o",
                file,
            ],
            None,
        )
        .ok();
        let out = same_bytes_every_way(&path, &["65536", "16777216"]);
        assert_eq!(out.ok().lines().count(), 100_000, "{shape}");
    }
}

#[test]
fn errors_deep_in_large_inputs_give_the_same_bytes() {
    let dir = tempdir();
    let path = dir.path().join("big.txt");
    let file = path.to_str().unwrap();
    run(
        &[
            "generate",
            "-n",
            "50000",
            "--avg-degree",
            "3",
            "-q",
            "20000",
            "--cases",
            "3",
            "-o",
            file,
        ],
        None,
    )
    .ok();
    let text = std::fs::read(&path).unwrap();
    // A position out of range in the third case, a file cut inside a query, a bad token.
    let last_case = text.len() - text.iter().rev().position(|&b| b == b'\n').unwrap_or(0);
    let mut damaged = text.clone();
    let at = last_case - 1000;
    damaged.splice(at..at, b" 99999999 ".iter().copied());
    for (name, bytes) in [
        ("range.txt", damaged),
        ("cut.txt", [&text[..text.len() - 2], b"7 1 2"].concat()),
        ("token.txt", [&text[..text.len() / 2], b"x", &text[text.len() / 2..]].concat()),
    ] {
        let path = write_file(dir.path(), name, &bytes);
        let out = same_bytes_every_way(&path, &["4096", "16777216"]);
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
    }
}

/// `--sequential` is one thread by definition: a thread count beside it is a usage error, and
/// `-j 1` is the engine's stages on one thread, not the twins (the same bytes all the same).
#[test]
fn sequential_is_one_thread_and_refuses_a_thread_count() {
    let refused = run(&["--sequential", "-j", "2", "solve"], Some(b"1\n0\n1 0\n"));
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--sequential"), "{}", refused.stderr);
    // A file, so that the twins' own reader reads it (a stream goes to the window reader).
    let dir = tempdir();
    let path = write_file(dir.path(), "small.txt", b"3\n2 1 2\n1 2\n0\n1 0\n2 1 1\n");
    let file = path.to_str().unwrap();
    let twin = run(&["--sequential", "solve", file], None);
    let one = run(&["-j", "1", "solve", file], None);
    assert_eq!((twin.code, one.code), (0, 0));
    assert_eq!(twin.stdout_text(), "WIN\nLOSE\n");
    assert_eq!(one.stdout, twin.stdout);
}

/// A thread count far past the cores is cut to 8 threads a core (16 at least), with one
/// warning line naming both numbers (issue 63: `--threads 100000` ran 11 minutes with 13,548
/// threads started): the same answers, and (on Linux) no more threads than the bound
/// running. A count at the bound is no warning.
#[test]
fn a_thread_count_far_past_the_cores_is_cut_with_a_warning() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bound = (8 * cores).max(16);
    let asked = (4 * bound).to_string();
    let dir = tempdir();
    let path = write_file(dir.path(), "small.txt", b"3\n2 1 2\n1 2\n0\n1 0\n2 1 1\n");
    let file = path.to_str().unwrap();
    let cut = run(&["-j", &asked, "solve", file], None);
    assert_eq!(cut.code, 0, "{}", cut.stderr);
    assert_eq!(cut.stdout_text(), "WIN\nLOSE\n");
    let warning =
        format!("warning: --threads {asked} is far past the {cores} cores: using {bound}");
    assert_eq!(cut.stderr, format!("{warning}\n"));
    assert_eq!(run(&["-j", &bound.to_string(), "solve", file], None).ok(), "WIN\nLOSE\n");
    #[cfg(target_os = "linux")]
    {
        use std::process::Stdio;
        // The pool is started before stdin is read: count the threads while it waits.
        let mut child = grundy()
            .args(["-j", &asked, "solve"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("binary starts");
        let status = format!("/proc/{}/status", child.id());
        let threads = || {
            let text = std::fs::read_to_string(&status).unwrap_or_default();
            let line = text.lines().find(|l| l.starts_with("Threads:")).unwrap_or("Threads: 0");
            line[8..].trim().parse::<usize>().expect("a thread count")
        };
        let start = std::time::Instant::now();
        let mut most = 0;
        // Until the pool is up (the main thread and `bound` workers), then a little longer.
        while start.elapsed() < std::time::Duration::from_secs(5) {
            most = most.max(threads());
            if most > bound && start.elapsed() > std::time::Duration::from_millis(300) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(child.stdin.take());
        assert!(child.wait().expect("binary runs").success());
        // The workers, the main thread and the signal handler's.
        assert!(most > bound && most <= bound + 2, "{most} threads for a bound of {bound}");
    }
}
