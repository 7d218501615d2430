//! A cluster run proves it is one run (issue 24): processes that would run another command,
//! other options or another file stop with an error naming the difference and write nothing;
//! strangers on a port (an HTTP request, a silent connection, a forged hello) neither end nor
//! join a run that has a secret; a peer with the wrong secret is refused; a process that
//! refuses its arguments makes its peers stop at once; `--processes` checks its arguments
//! before it starts anything. Strangers that drip bytes at a port do not keep a cluster from
//! forming, and are named when it cannot (issue 63); a changed byte anywhere in an input
//! stops the run.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cluster::free_addresses;
use crate::util::*;

/// A hosts file of `n` free loopback ports.
fn hosts(dir: &Path, n: usize) -> (PathBuf, Vec<String>) {
    let addresses = free_addresses(n);
    let path = write_file(dir, "hosts", (addresses.join("\n") + "\n").as_bytes());
    (path, addresses)
}

/// Process `index` of the run in `hosts`: `args`, in folder `cwd`, holding `secret`, with 8 s
/// to connect.
fn process(args: &[&str], hosts: &Path, index: usize, cwd: &Path, secret: &str) -> Command {
    let mut command = grundy();
    command
        .args(args)
        .args(["--hosts", hosts.to_str().unwrap(), "--process", &index.to_string()])
        .current_dir(cwd)
        .env("GRUNDY_SECRET", secret)
        .env("GRUNDY_CONNECT_SECONDS", "8")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Starts [`process`].
fn start(args: &[&str], hosts: &Path, index: usize, cwd: &Path, secret: &str) -> Child {
    process(args, hosts, index, cwd, secret).spawn().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs one process per entry of `runs` (its arguments and folder) as a cluster with one
/// secret; their outputs, in process order.
fn cluster(dir: &Path, runs: &[(&[&str], &Path)]) -> Vec<Output> {
    let (hosts, _) = hosts(dir, runs.len());
    let children: Vec<Child> = runs
        .iter()
        .enumerate()
        .map(|(i, (args, cwd))| start(args, &hosts, i, cwd, "one run"))
        .collect();
    children.into_iter().map(|c| c.wait_with_output().unwrap()).collect()
}

/// Asserts every process failed with exit 1 and one `error:` line containing `words`.
fn all_fail_naming(outputs: &[Output], words: &[&str], what: &str) {
    for (i, out) in outputs.iter().enumerate() {
        let text = stderr(out);
        assert_eq!(out.status.code(), Some(1), "{what}: process {i}: {text}");
        assert_eq!(text.lines().count(), 1, "{what}: process {i}: {text}");
        assert!(text.starts_with("error: process "), "{what}: process {i}: {text}");
        for w in words {
            assert!(text.contains(w), "{what}: process {i} should name {w:?}: {text}");
        }
        assert!(out.stdout.is_empty(), "{what}: process {i} printed answers");
    }
}

#[test]
fn processes_that_differ_stop_naming_the_difference_and_write_nothing() {
    let dir = tempdir();
    let d = dir.path();
    let file = d.join("g.txt");
    let f = file.to_str().unwrap();
    run(&["generate", "-n", "2000", "-q", "5", "--seed", "3", "-o", f], None).ok();
    let report = d.join("rep.csv");
    let r = report.to_str().unwrap();
    let out = d.join("v.csv");
    let o = out.to_str().unwrap();
    let solve_report: &[&str] = &["solve", f, "--report", r];
    let values: &[&str] = &["values", f, "-o", o];
    for (runs, words, what) in [
        (
            vec![solve_report, values],
            vec!["the command is", "values", "solve --report"],
            "commands",
        ),
        (vec![values, solve_report], vec!["the command is"], "commands swapped"),
        (
            vec![values, &["values", f, "-o", o, "--workers", "2"][..]],
            vec!["--workers is"],
            "workers",
        ),
        (vec![values, values, &["solve", f][..]], vec!["the command is"], "three processes"),
    ] {
        let runs: Vec<(&[&str], &Path)> = runs.iter().map(|a| (*a, d)).collect();
        all_fail_naming(&cluster(d, &runs), &words, what);
        assert!(!report.exists() && !out.exists(), "{what}: no output file");
    }
    // Another file of the same size at the same relative path, from two folders.
    let (a, b) = (d.join("a"), d.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(a.join("g.txt"), b"3\n1 1\n1 2\n0\n1 0\n0\n").unwrap();
    std::fs::write(b.join("g.txt"), b"3\n1 2\n1 2\n0\n1 0\n0\n").unwrap();
    let same_name: &[&str] = &["values", "g.txt", "-o", "v.csv"];
    let outputs = cluster(d, &[(same_name, &a), (same_name, &b)]);
    all_fail_naming(&outputs, &["FILE is 18 bytes (XXH3-128 of every byte, "], "another file");
    assert!(!a.join("v.csv").exists(), "no output file");
}

#[test]
fn a_peer_that_refuses_its_arguments_stops_the_others_at_once() {
    let dir = tempdir();
    let sample = repo_path("data/chess-sample.txt");
    let f = sample.to_str().unwrap();
    let (hosts, _) = hosts(dir.path(), 3);
    for (bad, why) in [
        (&["values", f, "--loopy"][..], "--loopy runs on one process"),
        (&["values", f, "-o", f][..], "would replace the input"),
        (&["values", "missing.txt"][..], "missing.txt: cannot open"),
    ] {
        let started = Instant::now();
        let zero = start(&["values", f], &hosts, 0, dir.path(), "s");
        let one = start(bad, &hosts, 1, dir.path(), "s");
        let two = start(&["values", f], &hosts, 2, dir.path(), "s");
        let (zero, one, two) = (
            zero.wait_with_output().unwrap(),
            one.wait_with_output().unwrap(),
            two.wait_with_output().unwrap(),
        );
        assert!(started.elapsed() < Duration::from_secs(6), "{why}: at once, not after 8 s");
        let text = stderr(&one);
        assert!(text.starts_with("error: ") && text.contains(why), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
        assert_ne!(one.status.code(), Some(0));
        for other in [&zero, &two] {
            let text = stderr(other);
            assert_eq!(other.status.code(), Some(1), "{text}");
            assert!(text.contains("process 1 (127.0.0.1:"), "{text}");
            assert!(text.contains("refused to run") && text.contains(why), "{text}");
            assert!(other.stdout.is_empty());
        }
    }
}

/// Connects to `address` as soon as it listens.
fn connect_when_listening(address: &str) -> TcpStream {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match TcpStream::connect(address) {
            Ok(s) => return s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("{address} never listened: {e}"),
        }
    }
}

#[test]
fn strangers_neither_end_nor_join_a_run_with_a_secret() {
    let dir = tempdir();
    let file = dir.path().join("g.txt");
    let f = file.to_str().unwrap();
    run(&["generate", "-n", "20000", "-q", "10", "--seed", "4", "-o", f], None).ok();
    let expected = run(&["values", f], None).ok();
    let (hosts, addresses) = hosts(dir.path(), 2);
    let zero = start(&["values", f], &hosts, 0, dir.path(), "the secret");
    // An HTTP request: answered with nothing a browser wants, and closed.
    let mut http = connect_when_listening(&addresses[0]);
    http.write_all(b"GET / HTTP/1.1\r\nHost: grundy\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    let _ = http.read_to_end(&mut answer);
    // A silent connection, held open for the whole run.
    let silent = TcpStream::connect(&addresses[0]).unwrap();
    // The first handshake's 9-byte hello claiming to be process 1, then heartbeats.
    let mut forged = TcpStream::connect(&addresses[0]).unwrap();
    let mut hello = b"GRDY".to_vec();
    hello.extend_from_slice(&1u32.to_le_bytes());
    hello.push(1);
    forged.write_all(&hello).unwrap();
    let beating = std::thread::spawn(move || {
        for _ in 0..40 {
            if forged.write_all(b".").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    // Today's hello, well formed, without the secret: its proof is refused.
    let mut guess = TcpStream::connect(&addresses[0]).unwrap();
    let mut hello = b"GRDY\x02\x00".to_vec();
    for word in [1u32, 0, 2] {
        hello.extend_from_slice(&word.to_le_bytes());
    }
    hello.extend_from_slice(&[7; 16]);
    guess.write_all(&hello).unwrap();
    let mut reply = [0u8; 52];
    guess.read_exact(&mut reply).unwrap();
    assert_eq!(&reply[..4], b"GRDY");
    guess.write_all(&[0u8; 32]).unwrap();
    let mut rest = Vec::new();
    let _ = guess.read_to_end(&mut rest);
    assert!(rest.is_empty(), "a wrong proof gets no claim");
    let started = Instant::now();
    let one = start(&["values", f], &hosts, 1, dir.path(), "the secret");
    let zero = zero.wait_with_output().unwrap();
    let one = one.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(5), "the strangers held nothing up");
    assert_eq!(zero.status.code(), Some(0), "{}", stderr(&zero));
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(String::from_utf8_lossy(&zero.stdout) == expected, "process 0's rows");
    assert!(stderr(&zero).is_empty(), "{}", stderr(&zero));
    drop(silent);
    beating.join().unwrap();
}

#[test]
fn a_peer_with_the_wrong_secret_is_refused() {
    let dir = tempdir();
    let sample = repo_path("data/chess-sample.txt");
    let f = sample.to_str().unwrap();
    let (hosts, _) = hosts(dir.path(), 2);
    let secret = write_file(dir.path(), "secret", b"right\n");
    let zero = grundy()
        .args(["values", f, "--hosts", hosts.to_str().unwrap(), "--process", "0"])
        .args(["--secret-file", secret.to_str().unwrap()])
        .env("GRUNDY_CONNECT_SECONDS", "3")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let one = start(&["values", f], &hosts, 1, dir.path(), "wrong");
    let (zero, one) = (zero.wait_with_output().unwrap(), one.wait_with_output().unwrap());
    let text = stderr(&one);
    assert_eq!(one.status.code(), Some(1), "{text}");
    assert!(text.starts_with("error: process 0 (127.0.0.1:"), "{text}");
    assert!(text.contains("does not hold this run's secret"), "{text}");
    let text = stderr(&zero);
    assert_eq!(zero.status.code(), Some(1), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("error: process 1 (127.0.0.1:"), "{text}");
    assert!(last.contains("did not connect within 3s"), "{text}");
    assert!(last.contains("did not prove it holds this run's secret"), "{text}");
    // The secret file is readable by others (0644 from write_file): a warning says so.
    assert!(text.contains("can be read by other users"), "{text}");
}

#[test]
fn hosts_without_a_secret_warn_once() {
    let dir = tempdir();
    let sample = repo_path("data/chess-sample.txt");
    let (hosts, _) = hosts(dir.path(), 2);
    let out = grundy()
        .args(["values", sample.to_str().unwrap(), "--hosts", hosts.to_str().unwrap()])
        .args(["--process", "1"])
        .env("GRUNDY_CONNECT_SECONDS", "1")
        .env_remove("GRUNDY_SECRET")
        .output()
        .unwrap();
    let text = stderr(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("warning: no --secret-file and no GRUNDY_SECRET"), "{text}");
    assert!(lines[0].contains("anyone who can reach the ports"), "{text}");
    assert!(lines[1].starts_with("error: cannot reach process 0"), "{text}");
}

#[test]
fn processes_checks_its_arguments_before_it_starts_any() {
    let dir = tempdir();
    let temp = dir.path().join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let sample = repo_path("data/chess-sample.txt");
    let f = sample.to_str().unwrap();
    for (args, words, code) in [
        (&["values", "nonexist.txt", "--processes", "2"][..], "nonexist.txt: cannot open", 1),
        (&["values", "--processes", "2"][..], "not stdin", 2),
        (&["values", f, "-o", f, "--processes", "3"][..], "would replace the input", 2),
        (&["values", f, "--loopy", "--processes", "2"][..], "--loopy runs on one process", 2),
        (&["values", f, "--processes", "2", "--secret-file", "s"][..], "cannot be used with", 2),
    ] {
        let out = grundy().args(args).env("TMPDIR", &temp).stdin(Stdio::null()).output().unwrap();
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {text}");
        let errors = text.lines().filter(|l| l.starts_with("error")).count();
        assert_eq!(errors, 1, "{args:?}: one error, no child's: {text}");
        assert!(text.contains(words), "{args:?}: {text}");
        let left: Vec<_> = std::fs::read_dir(&temp).unwrap().collect();
        assert!(left.is_empty(), "{args:?}: files left in TMPDIR: {left:?}");
    }
    // A run leaves no file behind either.
    let out =
        grundy().args(["values", f, "--processes", "2"]).env("TMPDIR", &temp).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_dir(&temp).unwrap().next().is_none(), "no hosts file left");
}

/// Strangers at a port: each sends one byte of a well-formed hello every `every` (so a read
/// timeout that each byte restarts never expires), and connects again when it is closed.
struct Drippers {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<usize>,
}

impl Drippers {
    /// `count` strangers at `address`, all connected when this returns.
    fn start(address: &str, count: usize, every: Duration) -> Drippers {
        let addr: std::net::SocketAddr = address.parse().unwrap();
        let connect = move || TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok();
        let mut hello = b"GRDY\x02\x00".to_vec();
        for word in [1u32, 0, 2] {
            hello.extend_from_slice(&word.to_le_bytes());
        }
        hello.extend_from_slice(&[9; 16]);
        let mut strangers: Vec<(Option<TcpStream>, usize)> =
            (0..count).map(|_| (connect(), 0)).collect();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut connections = count;
            while !stopped.load(Ordering::Relaxed) {
                for (stream, sent) in &mut strangers {
                    let byte = [hello[*sent % hello.len()]];
                    if stream.as_mut().is_some_and(|s| s.write_all(&byte).is_ok()) {
                        *sent += 1;
                    } else {
                        // Closed: a new connection takes its place.
                        (*stream, *sent) = (connect(), 0);
                        connections += 1;
                    }
                }
                std::thread::sleep(every);
            }
            connections
        });
        Drippers { stop, thread }
    }

    /// Stops them; how many connections they opened in all.
    fn stop(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap()
    }
}

#[test]
fn a_cluster_forms_while_strangers_drip_bytes_at_process_0() {
    let dir = tempdir();
    let file = dir.path().join("g.txt");
    let f = file.to_str().unwrap();
    run(&["generate", "-n", "20000", "-q", "10", "--seed", "6", "-o", f], None).ok();
    let expected = run(&["values", f], None).ok();
    let (hosts, addresses) = hosts(dir.path(), 2);
    let zero = start(&["values", f], &hosts, 0, dir.path(), "drip");
    drop(connect_when_listening(&addresses[0]));
    // More strangers than handshakes under way at once (64), each a byte every 200 ms: the
    // first 34-byte hello is complete after 6.8 s, so before the fix they held every place
    // past the 8 s deadline and process 1 could not get in.
    let drippers = Drippers::start(&addresses[0], 80, Duration::from_millis(200));
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let one = start(&["values", f], &hosts, 1, dir.path(), "drip");
    let (zero, one) = (zero.wait_with_output().unwrap(), one.wait_with_output().unwrap());
    let took = started.elapsed();
    let connections = drippers.stop();
    assert_eq!(zero.status.code(), Some(0), "{}", stderr(&zero));
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert!(String::from_utf8_lossy(&zero.stdout) == expected, "process 0's rows");
    assert!(stderr(&zero).is_empty() && stderr(&one).is_empty(), "{}", stderr(&zero));
    assert!(took < Duration::from_secs(6), "formed in {took:?}, {connections} strangers");
}

#[test]
fn strangers_that_keep_a_cluster_from_forming_are_named() {
    let dir = tempdir();
    let sample = repo_path("data/chess-sample.txt");
    let (hosts, addresses) = hosts(dir.path(), 2);
    // Process 1 never comes: the error must say what held the port meanwhile.
    let mut zero = process(&["values", sample.to_str().unwrap()], &hosts, 0, dir.path(), "s");
    let zero = zero.env("GRUNDY_CONNECT_SECONDS", "3").spawn().unwrap();
    drop(connect_when_listening(&addresses[0]));
    let drippers = Drippers::start(&addresses[0], 70, Duration::from_millis(500));
    let zero = zero.wait_with_output().unwrap();
    let connections = drippers.stop();
    let text = stderr(&zero);
    assert_eq!(zero.status.code(), Some(1), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("error: process 1 (127.0.0.1:"), "{text}");
    assert!(text.contains("did not connect within 3s; meanwhile "), "{text}");
    // Every stranger is counted: those closed to make room, those still in a handshake.
    let (count, rest) = text.split_once("; meanwhile ").unwrap().1.split_once(' ').unwrap();
    let count: usize = count.parse().unwrap();
    assert!(count >= 70 && count <= connections + 1, "{count} of {connections}: {text}");
    assert!(
        rest.starts_with("connections from 127.0.0.1 sent no valid hello (the last "),
        "{text}"
    );
    // The one that held its place longest, still in its handshake at the deadline.
    assert!(text.contains("(the last was still in its handshake after "), "{text}");
    assert!(text.contains(", having sent "), "{text}");
}

#[test]
fn a_changed_digit_between_the_old_sampled_blocks_stops_the_run() {
    let dir = tempdir();
    let d = dir.path();
    let (a, b) = (d.join("a"), d.join("b"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let original = a.join("g.txt");
    let args = ["generate", "-n", "1000", "-q", "400000", "--max-tokens", "3", "--seed", "8"];
    run(&[&args[..], &["-o", original.to_str().unwrap()]].concat(), None).ok();
    let mut bytes = std::fs::read(&original).unwrap();
    assert!(bytes.len() > 2 << 20, "a few MB: {}", bytes.len());
    // The middle of the gap between sampled blocks 128 and 129 of the old fingerprint (256
    // blocks of 4 KiB spread evenly): there, the next digit that is not a token's first, one
    // up (a query's token of at most three digits stays a node of the 1000).
    let step = (bytes.len() - 4096) / 255;
    let from = step * 128 + 4096 + (step - 4096) / 2;
    let at =
        (from..bytes.len()).find(|&i| bytes[i - 1].is_ascii_digit() && bytes[i].is_ascii_digit());
    let at = at.unwrap();
    bytes[at] = b'0' + (bytes[at] - b'0' + 1) % 10;
    std::fs::write(b.join("g.txt"), &bytes).unwrap();
    let solve: &[&str] = &["solve", "g.txt", "-o", "out.txt"];
    let outputs = cluster(d, &[(solve, &a), (solve, &b)]);
    all_fail_naming(&outputs, &["does not run the same job: FILE is ", "XXH3-128"], "a digit");
    assert!(!a.join("out.txt").exists(), "no output file");
}
