//! Bounded memory whatever the input (issue 63): runs of blanks after a count, endless tokens
//! and lines, and queries longer than the cap, from a pipe, a named file and a compressed
//! file. Each run's peak resident memory is the kernel's own figure (`wait4`'s `ru_maxrss`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use crate::util::{grundy, tempdir};

/// The most a run may hold resident, whatever these inputs' sizes (they are 100 MB and more).
const BOUND_KB: i64 = 64 << 10;

/// Bytes of blanks (and of digits, for the endless token) in each input: past the bound, so
/// an input held whole fails the test.
const RUN: usize = 100 << 20;

/// What a measured run gave: exit code, stdout, stderr and peak resident memory in KiB.
struct Measured {
    code: i32,
    stdout: String,
    stderr: String,
    peak_kb: i64,
}

/// Runs the binary with `args`, writing `head`, then `run` bytes of `fill`, then `tail` to its
/// stdin (a pipe, fed as the binary reads it; a binary that stops reading early is fine).
fn piped(args: &[&str], (head, fill, run, tail): (&[u8], u8, usize, &[u8])) -> Measured {
    let (head, tail) = (head.to_vec(), tail.to_vec());
    measured(args, Some(move |pipe: &mut dyn Write| write_input(pipe, (&head, fill, run, &tail))))
}

/// Writes `head`, `run` bytes of `fill`, then `tail` to `out`, a block at a time.
fn write_input(out: &mut dyn Write, (head, fill, run, tail): (&[u8], u8, usize, &[u8])) {
    let block = vec![fill; 1 << 16];
    let _ = out.write_all(head);
    let mut left = run;
    while left > 0 {
        let n = left.min(block.len());
        if out.write_all(&block[..n]).is_err() {
            return;
        }
        left -= n;
    }
    let _ = out.write_all(tail);
}

/// Runs the binary with `args` and, if given, a writer of its stdin; its peak memory is the
/// last `VmHWM` read from `/proc/PID/status` while it runs, every millisecond. (Not `wait4`'s
/// `ru_maxrss`: a child started by `posix_spawn` inherits this test process's peak there.)
fn measured(args: &[&str], feed: Option<impl FnOnce(&mut dyn Write) + Send + 'static>) -> Measured {
    let mut child = grundy()
        .args(args)
        .stdin(if feed.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let status = format!("/proc/{}/status", child.id());
    let poller = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(kb) = high_water_kb(&status) {
            peak = kb;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        peak
    });
    let feeder = feed.map(|feed| {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        std::thread::spawn(move || feed(&mut pipe))
    });
    let drain = |mut from: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = from.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("stdout is piped")));
    let stderr = drain(Box::new(child.stderr.take().expect("stderr is piped")));
    let code = child.wait().expect("binary runs").code().unwrap_or(-1);
    if let Some(feeder) = feeder {
        feeder.join().expect("feeder thread");
    }
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    Measured { code, stdout, stderr, peak_kb: poller.join().expect("poller") }
}

/// The `VmHWM` line of a `/proc/PID/status` file, in KiB; `None` once the process has let
/// go of its memory (it has exited).
fn high_water_kb(status: &str) -> Option<i64> {
    let text = std::fs::read_to_string(status).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Writes `head`, `run` bytes of `fill`, then `tail` to `path`, zstd-compressed when `zstd`.
fn write_file(path: &Path, input: (&[u8], u8, usize, &[u8]), zstd: bool) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).expect("create input"));
    match zstd {
        true => {
            let mut encoder = zstd::stream::Encoder::new(file, 1).expect("zstd");
            write_input(&mut encoder, input);
            encoder.finish().expect("zstd end").flush().expect("flush");
        }
        false => {
            let mut file = file;
            write_input(&mut file, input);
            file.flush().expect("flush");
        }
    }
}

/// A small game whose answers the bombs below must not change: three nodes, 0 -> 1 -> 2.
const GRAPH: &[u8] = b"3\n1 1\n1 2\n0\n";

fn assert_bounded(run: &Measured, what: &str) {
    assert!(run.peak_kb < BOUND_KB, "{what}: peak {} KiB (stderr {})", run.peak_kb, run.stderr);
}

#[test]
fn blanks_after_a_node_count_are_not_held_from_a_pipe_or_a_file() {
    let dir = tempdir();
    let bomb: (&[u8], u8, usize, &[u8]) = (b"3\n", b' ', RUN, b"1 1\n1 2\n0\n2 0 2\n1 1\n0\n");
    let want = "LOSE\nWIN\n";
    let run = piped(&["solve"], bomb);
    assert_eq!((run.code, run.stdout.as_str()), (0, want), "{}", run.stderr);
    assert_bounded(&run, "solve, a pipe");
    for (name, zstd) in [("bomb.txt", false), ("bomb.txt.zst", true)] {
        let path = dir.path().join(name);
        write_file(&path, bomb, zstd);
        let run = measured(&["solve", path.to_str().unwrap()], None::<fn(&mut dyn Write)>);
        assert_eq!((run.code, run.stdout.as_str()), (0, want), "{}", run.stderr);
        assert_bounded(&run, name);
    }
}

#[test]
fn blanks_after_the_largest_node_count_end_in_an_error_not_a_gigabyte() {
    let dir = tempdir();
    let path = dir.path().join("count.zst");
    write_file(&path, (b"4294967295", b' ', RUN, b""), true);
    let run = measured(&["solve", path.to_str().unwrap()], None::<fn(&mut dyn Write)>);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("input ends where the out-degree of node 0 (case 1) was expected"),
        "{}",
        run.stderr
    );
    assert_bounded(&run, "a zstd file");
}

#[test]
fn blanks_after_a_query_count_or_position_are_not_held() {
    let dir = tempdir();
    let graph = crate::util::write_file(dir.path(), "g.txt", GRAPH);
    let graph = graph.to_str().unwrap();
    for head in [&b"2"[..], b"2 0"] {
        let tail: &[u8] = if head.len() == 1 { b" 0 2\n0\n" } else { b" 2\n0\n" };
        let run = piped(&["query", graph, "-"], (head, b' ', RUN, tail));
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("\n1,0 2,0,LOSE,,\n"), "{}", run.stdout);
        assert_bounded(&run, "query, a pipe");
    }
}

#[test]
fn an_endless_token_or_line_is_an_error_within_its_first_bytes() {
    let run = piped(&["solve"], (b"3\n1 ", b'0', RUN, b"1\n"));
    assert_eq!(run.code, 1);
    let start = "error: <stdin>:2:3: expected out-position 1 of 1 of node 0 (case 1), found 000";
    assert!(run.stderr.starts_with(start), "{}", run.stderr);
    assert!(run.stderr.contains("a token of more than 4096 digits"), "{}", run.stderr);
    assert_bounded(&run, "a token of zeros");
    let run = piped(&["values", "--format", "edges"], (b"0 1\n1", b' ', RUN, b"2\n"));
    assert_eq!(run.code, 1);
    assert!(run.stderr.starts_with("error: <stdin>:2:1:"), "{}", run.stderr);
    assert!(run.stderr.contains("a line of more than 1048576 bytes"), "{}", run.stderr);
    assert_bounded(&run, "an edge list's line");
}

#[test]
fn a_query_longer_than_the_cap_is_refused_at_its_count() {
    // 30 million tokens promised, and sent: refused at the count, before they are read.
    let head = format!("{}30000000 ", String::from_utf8_lossy(GRAPH));
    let run = piped(&["solve"], (head.as_bytes(), b' ', 0, &b"0 ".repeat(30_000_000)));
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr.trim_end(),
        "error: <stdin>:5:1: the token count of query 1 (case 1; 0 ends the case): 30000000 \
         tokens, more than a query may hold (1000000; --max-query-tokens raises it)"
    );
    assert_bounded(&run, "a 30M-token query");
    // The cap is the user's: the queries before the long one are answered, in order.
    let text = format!("{}1 1\n3 0 1 2\n0\n", String::from_utf8_lossy(GRAPH));
    let run = piped(&["--max-query-tokens", "2", "solve"], (text.as_bytes(), b' ', 0, b""));
    assert_eq!((run.code, run.stdout.as_str()), (1, "WIN\n"));
    assert!(run.stderr.contains(":6:1: the token count of query 2"), "{}", run.stderr);
    let run = piped(&["--max-query-tokens", "3", "solve"], (text.as_bytes(), b' ', 0, b""));
    assert_eq!((run.code, run.stdout.as_str()), (0, "WIN\nWIN\n"), "{}", run.stderr);
}

/// A cluster refuses a query over the cap as one process does: the same output and error.
#[cfg(feature = "cluster")]
#[test]
fn a_cluster_refuses_a_query_over_the_cap_as_one_process_does() {
    let dir = tempdir();
    let graph = crate::util::write_file(dir.path(), "g.txt", b"3\n1 1\n1 2\n0\n1 0\n0\n");
    let queries = crate::util::write_file(dir.path(), "q.txt", b"1 0\n3 1 2 0\n2 1 2\n0\n");
    let (graph, queries) = (graph.to_str().unwrap(), queries.to_str().unwrap());
    let cap = ["--max-query-tokens", "2", "query", graph, queries];
    let alone = crate::util::run(&cap, None);
    assert_eq!(alone.code, 1);
    assert!(alone.stderr.contains("q.txt:2:1: the token count of query 2"), "{}", alone.stderr);
    let cluster = crate::util::run(&[&cap[..], &["--processes", "2"]].concat(), None);
    assert_eq!(
        (cluster.code, &cluster.stdout, &cluster.stderr),
        (alone.code, &alone.stdout, &alone.stderr)
    );
}
