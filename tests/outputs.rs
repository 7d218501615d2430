//! Where results go: a closed pipe never cancels another output, no output replaces an input,
//! error messages name the paths the user gave, and every command reads stdin the same way.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::util::*;

/// A file whose `solve` output is far larger than a pipe's buffer (1 MiB, as grundy asks
/// for on its stdout; 64 KiB for a report's FIFO).
fn big_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("big.txt");
    let file = path.to_str().unwrap();
    run(&["generate", "-n", "200000", "-q", "500000", "-o", file], None).ok();
    path
}

/// Runs `args`, reads one line of stdout, closes it, and returns the exit code and stderr.
fn run_and_close_stdout_after_one_line(args: &[&str]) -> (Option<i32>, String, String) {
    let mut child =
        grundy().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // The reader is dropped here: the pipe is closed, as `| head -1` closes it.
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), first)
}

/// Regression: `solve big.txt --report r.csv | head -1` exited 0 and wrote no report (an
/// existing one kept its old contents): the closed stdout cancelled the whole run.
#[test]
fn a_closed_stdout_does_not_cancel_the_report() {
    let dir = tempdir();
    let big = big_file(dir.path());
    let big = big.to_str().unwrap();
    let expected_report = dir.path().join("expected.csv");
    run(&["solve", big, "--report", expected_report.to_str().unwrap()], None);
    let expected = std::fs::read_to_string(&expected_report).unwrap();
    assert_eq!(expected.lines().count(), 500_001);
    for threads in ["1", "2"] {
        let report = dir.path().join("r.csv");
        std::fs::write(&report, "old report\n").unwrap();
        let args = ["-j", threads, "solve", big, "--report", report.to_str().unwrap()];
        let (code, stderr, first) = run_and_close_stdout_after_one_line(&args);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "--threads {threads}");
        assert!(first == "WIN\n" || first == "LOSE\n", "{first:?}");
        assert!(std::fs::read_to_string(&report).unwrap() == expected, "--threads {threads}");
    }
}

#[test]
fn closed_pipes_end_query_and_values_quietly() {
    let dir = tempdir();
    let big = big_file(dir.path());
    let big = big.to_str().unwrap();
    let queries = dir.path().join("q.txt");
    let q = queries.to_str().unwrap();
    run(
        &["generate", "-n", "200000", "--seed", "0", "--queries-only", "-q", "300000", "-o", q],
        None,
    )
    .ok();
    for args in [&["query", big, q][..], &["values", big][..], &["stats", big][..]] {
        let (code, stderr, first) = run_and_close_stdout_after_one_line(args);
        assert_eq!((code, stderr.as_str()), (Some(0), ""), "{args:?}");
        assert!(!first.is_empty());
    }
}

/// A pipe on stdout gets a 1 MiB buffer (Linux gives 64 KiB): a million answers then cost
/// the writer and the reader a few dozen turns instead of a thousand.
#[cfg(target_os = "linux")]
#[test]
fn a_pipe_on_stdout_gets_a_wide_buffer() {
    use std::os::fd::AsRawFd;
    let sample = repo_path("data/chess-sample.txt");
    let mut child =
        grundy().args(["solve", sample.to_str().unwrap()]).stdout(Stdio::piped()).spawn().unwrap();
    let out = child.stdout.take().unwrap();
    assert!(child.wait().unwrap().success());
    // SAFETY: F_GETPIPE_SZ only reads the size of the pipe behind our open read end.
    let size = unsafe { libc::fcntl(out.as_raw_fd(), libc::F_GETPIPE_SZ) };
    assert!(size >= 1 << 20, "a pipe buffer of {size} bytes");
}

/// A report written to a FIFO whose reader goes away does not cancel the verdicts written to
/// a file: the outputs still read are finished.
#[test]
fn a_closed_report_pipe_does_not_cancel_the_output_file() {
    let dir = tempdir();
    let big = big_file(dir.path());
    let fifo = dir.path().join("report.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let out = dir.path().join("verdicts.txt");
    let expected = run(&["solve", big.to_str().unwrap()], None).ok();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            let file = std::fs::File::open(fifo).unwrap();
            BufReader::new(file).read_line(&mut line).unwrap();
            line
        })
    };
    let args = ["solve", big.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let run = run(&[&args[..], &["--report", fifo.to_str().unwrap()]].concat(), None);
    assert_eq!(reader.join().unwrap(), "case,query,positions,nim_sum,result,move_from,move_to\n");
    assert_eq!(run.ok(), "");
    assert!(std::fs::read_to_string(&out).unwrap() == expected);
}

/// Regression: `values in.txt -o in.txt` replaced its own input; `query - -` read the graph
/// from all of stdin and answered nothing with exit 0; `--report -` mixed CSV rows into the
/// judge's output.
#[test]
fn outputs_never_replace_inputs_and_stdin_is_read_once() {
    let dir = tempdir();
    let sample = std::fs::read(repo_path("data/chess-sample.txt")).unwrap();
    let input = write_file(dir.path(), "in.txt", &sample);
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&input, &link).unwrap();
    let (i, l) = (input.to_str().unwrap(), link.to_str().unwrap());
    let usage = |args: &[&str], words: &str| {
        let run = run(args, Some(&sample));
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: ") && run.stderr.contains(words), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
    };
    usage(&["values", i, "-o", i], "would replace the input");
    usage(&["values", l, "-o", i], "would replace the input");
    usage(&["values", i, "-o", l], "would replace the input");
    usage(&["solve", i, "--report", l], "would replace the input");
    usage(&["solve", i, "-o", i], "would replace the input");
    usage(&["game", "cutting", i, "-o", l], "would replace the input");
    let other = dir.path().join("out.csv");
    let o = other.to_str().unwrap();
    usage(&["solve", i, "-o", o, "--report", o], "name the same file");
    usage(&["query", "-", "-"], "cannot both be read from stdin");
    usage(&["query", "-"], "cannot both be read from stdin");
    usage(&["query", i, l], "is the graph file itself");
    usage(&["solve", i, "--report", "-"], "--report -");
    assert_eq!(std::fs::read(&input).unwrap(), sample, "the input is intact");
    assert!(!other.exists());
    // The same outputs elsewhere are fine.
    assert_eq!(run(&["values", l, "-o", o], None).ok(), "");
}

/// Regression: the error for an output in a missing folder named the temporary file
/// (`nodir/.grundy-XXXX.tmp`), not the path given.
#[test]
fn errors_name_the_output_path_given() {
    let sample = repo_path("data/chess-sample.txt");
    let line = run(&["values", sample.to_str().unwrap(), "-o", "nodir/x.csv"], None).error_line();
    assert_eq!(line, "error: nodir/x.csv: cannot create: No such file or directory (os error 2)");
}

/// Regression: `query GRAPH GRAPH2` (a graph file given as the queries) printed rows, then an
/// error about the end of the input that did not say what was wrong.
#[test]
fn a_graph_file_given_as_queries_is_named_as_such() {
    let dir = tempdir();
    let graph = write_file(dir.path(), "g.txt", b"3\n1 1\n1 2\n0\n1 0\n0\n4\n0\n0\n0\n0\n0\n");
    let copy = write_file(dir.path(), "copy.txt", &std::fs::read(&graph).unwrap());
    let run = run(&["query", graph.to_str().unwrap(), copy.to_str().unwrap()], None);
    let line = run.stderr.trim_end();
    assert_eq!(run.code, 1);
    assert!(line.contains("QUERIES looks like a graph file"), "{line}");
    assert!(line.contains("a case of 3 nodes"), "{line}");
}

#[test]
fn every_command_reads_stdin_without_a_file_and_solve_writes_o() {
    let sample = std::fs::read(repo_path("data/chess-sample.txt")).unwrap();
    let path = repo_path("data/chess-sample.txt");
    let file = path.to_str().unwrap();
    for command in ["solve", "values", "stats"] {
        let from_file = run(&[command, file], None).ok();
        let from_stdin = run(&[command], Some(&sample)).ok();
        let from_dash = run(&[command, "-"], Some(&sample)).ok();
        let unnamed = |text: &str| text.replace(file, "<stdin>");
        // stats times differ between runs: compare what is not a time.
        let stable = |text: String| -> String {
            text.lines().filter(|l| !l.contains("time") && !l.contains(" s in all")).collect()
        };
        assert_eq!(stable(unnamed(&from_file)), stable(from_stdin.clone()), "{command}");
        assert_eq!(stable(from_stdin), stable(from_dash), "{command}");
    }
    // query GRAPH with the queries on stdin.
    let rows = run(&["query", file], Some(b"1 0\n2 0 2\n")).ok();
    assert_eq!(rows.lines().count(), 3);
    let dir = tempdir();
    let out = dir.path().join("answers.txt");
    assert_eq!(run(&["solve", file, "-o", out.to_str().unwrap()], None).ok(), "");
    let expected = std::fs::read_to_string(repo_path("data/chess-sample.expected")).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
}
