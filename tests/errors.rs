//! Bad input: one `error:` line naming the file, line and column, exit code 1, never a panic.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::util::*;

/// Runs `solve` on `input` written to a file; returns the error line with the path replaced
/// by `FILE`, after checking it is the only thing on stderr and the exit code is 1.
/// Both code paths (sequential, and parallel with tiny windows so errors fall on window
/// boundaries) must give the same message.
fn solve_error(input: &[u8]) -> String {
    let dir = tempdir();
    let path = write_file(dir.path(), "bad.txt", input);
    let file = path.to_str().unwrap();
    let line = run(&["solve", "--sequential", file], None).error_line();
    for chunk in ["1", "3", "8", "1000"] {
        let run = run(&["solve", "--threads", "3", "--chunk-bytes", chunk, file], None);
        assert_eq!(run.error_line(), line, "chunk {chunk}");
    }
    line.replace(file, "FILE")
}

#[test]
fn token_that_is_not_a_number() {
    assert_eq!(
        solve_error(b"2\n1 1\n0\n1 x\n"),
        r#"error: FILE:4:3: expected a non-negative integer for position 1 of 1 of query 1 (case 1), found "x""#
    );
    assert_eq!(
        solve_error(b"2\n1 -1\n0\n"),
        r#"error: FILE:2:3: expected a non-negative integer for out-position 1 of 1 of node 0 (case 1), found "-1""#
    );
}

#[test]
fn nul_bytes_and_invalid_utf8_are_tokens_in_error() {
    let line = solve_error(b"1\n0\n1 0\x00\n");
    assert!(
        line.starts_with("error: FILE:3:3: expected a non-negative integer for position 1"),
        "{line}"
    );
    let line = solve_error(b"1\n\xff\xfe\n");
    assert!(
        line.starts_with(
            "error: FILE:2:1: expected a non-negative integer for the out-degree of node 0"
        ),
        "{line}"
    );
}

/// Regression (issue 24, item 9): a NUL byte was shown as `found "1\02"`, which reads like an
/// octal escape; control bytes are now `\x00` to `\x1f` and `\x7f`, on both paths and in
/// edge lists.
#[test]
fn control_bytes_in_a_token_are_shown_as_hex_escapes() {
    let query = "expected a non-negative integer for position 1 of 1 of query 1 (case 1), found";
    for (input, found) in [
        (&b"1\n0\n1 1\x002\n"[..], r#""1\x002""#),
        (b"1\n0\n1 \x01\x7f\n", r#""\x01\x7f""#),
        (b"1\n0\n1 \"\\\n", r#""\"\\""#),
    ] {
        let ways: [&[&str]; 3] = [
            &["--sequential", "solve"],
            &["-j", "1", "solve"],
            &["-j", "2", "--chunk-bytes", "3", "solve"],
        ];
        for args in ways {
            let line = run(args, Some(input)).error_line();
            assert_eq!(line, format!("error: <stdin>:3:3: {query} {found}"), "{args:?}");
        }
    }
    let line = run(&["values", "--format", "edges"], Some(b"0 1\n1 \x00\n")).error_line();
    let edge = "expected a non-negative integer for the second node of an edge line `u v`";
    assert_eq!(line, format!(r#"error: <stdin>:2:3: {edge}, found "\x00""#));
}

#[test]
fn number_that_does_not_fit_u32() {
    assert_eq!(
        solve_error(b"4294967296\n"),
        "error: FILE:1:1: expected the node count of case 1, found 4294967296, which does not fit in 32 bits (max 4294967295)"
    );
    let huge = format!("1\n0\n1 {}\n", "7".repeat(300));
    let line = solve_error(huge.as_bytes());
    assert!(
        line.starts_with(
            "error: FILE:3:3: expected position 1 of 1 of query 1 (case 1), found 7777"
        ),
        "{line}"
    );
    assert!(line.len() < 250, "the number is shortened: {line}");
}

#[test]
fn out_position_out_of_range() {
    assert_eq!(
        solve_error(b"3\n1 1\n2 2  3\n0\n"),
        "error: FILE:3:6: out-position 2 of 2 of node 1 (case 1) is 3, but the case has 3 nodes (ids 0 to 2)"
    );
}

#[test]
fn query_position_out_of_range() {
    assert_eq!(
        solve_error(b"2\n0\n0\n2 0 2\n0\n"),
        "error: FILE:4:5: position 2 of 2 of query 1 (case 1) is 2, but the case has 2 nodes (ids 0 to 1)"
    );
    assert_eq!(
        solve_error(b"0\n1 0\n"),
        "error: FILE:2:3: position 1 of 1 of query 1 (case 1) is 0, but the case has no nodes"
    );
}

#[test]
fn input_ending_inside_a_node_list() {
    assert_eq!(
        solve_error(b"3\n1 1\n2 2"),
        "error: FILE:3:4: input ends where out-position 2 of 2 of node 1 (case 1) was expected"
    );
    assert_eq!(
        solve_error(b"3\n0\n"),
        "error: FILE:3:1: input ends where the out-degree of node 1 (case 1) was expected"
    );
}

#[test]
fn input_ending_inside_a_query() {
    assert_eq!(
        solve_error(b"1\n0\n1 0\n3 0 0"),
        "error: FILE:4:6: input ends where position 3 of 3 of query 2 (case 1) was expected"
    );
}

#[test]
fn cycles_name_their_nodes_and_case() {
    let dir = tempdir();
    let path = write_file(dir.path(), "cyc.txt", b"1 0 1 0 0\n3\n1 1\n1 2\n1 1\n0\n");
    let run = solve_file(&path);
    // Case 1 was answered before case 2 was read, as a judge's stream would be.
    assert_eq!(run.stdout_text(), "LOSE\n");
    assert_eq!(run.code, 1);
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "error: {}: case 2: cycle 1 -> 2 -> 1 (cycles are allowed with --loopy)",
            path.display()
        )
    );
    assert_eq!(
        solve_error(b"2\n1 1\n1 1\n0\n"),
        "error: FILE: case 1: cycle 1 -> 1 (cycles are allowed with --loopy)"
    );
}

/// Regression (issue 24, item 5): a cycle in a sums-format file said "(cycles are allowed with
/// --loopy)", and `--loopy` then refused the sums format. The hint stays where `--loopy` takes
/// the input: the chess and edge-list formats.
#[test]
fn only_cycles_loopy_would_take_suggest_it() {
    let sums: &[u8] = b"2\n1 1 1\n1 1 0\n0\n";
    for threads in ["1", "2"] {
        let line = run(&["-j", threads, "solve", "--format", "sums"], Some(sums)).error_line();
        assert_eq!(line, "error: <stdin>: case 1: cycle 0 -> 1 -> 0", "{threads}");
    }
    let refused = run(&["solve", "--format", "sums", "--loopy"], Some(sums));
    assert_eq!(refused.code, 2, "the hint would have led here");
    let hint = "(cycles are allowed with --loopy)";
    let chess = run(&["solve"], Some(b"2\n1 1\n1 0\n0\n")).error_line();
    assert_eq!(chess, format!("error: <stdin>: case 1: cycle 0 -> 1 -> 0 {hint}"));
    let edges = run(&["values", "--format", "edges"], Some(b"0 1\n1 0\n")).error_line();
    assert_eq!(edges, format!("error: <stdin>: case 1: cycle 0 -> 1 -> 0 {hint}"));
    assert_eq!(run(&["values", "--format", "edges", "--loopy"], Some(b"0 1\n1 0\n")).code, 0);
}

#[test]
fn stdin_is_named_in_errors() {
    let run = run(&["solve"], Some(b"2\n1 7\n"));
    assert_eq!(
        run.error_line(),
        "error: <stdin>:2:3: out-position 1 of 1 of node 0 (case 1) is 7, but the case has 2 nodes (ids 0 to 1)"
    );
}

#[test]
fn huge_claimed_counts_fail_at_once_with_little_memory() {
    let dir = tempdir();
    for (name, text) in [
        ("n.txt", &b"4000000000 0"[..]),
        ("x.txt", b"1 4294967295 0"),
        ("m.txt", b"1 0 4294967295 0"),
    ] {
        let path = write_file(dir.path(), name, text);
        // Under a 256 MiB address-space limit, honouring any of these counts would abort.
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#"ulimit -v 262144 && exec "$0" "$@""#)
            .arg(env!("CARGO_BIN_EXE_grundy"))
            // The query's count is under the cap that way: refused where the input ends.
            .args(["--max-query-tokens", "4294967295", "solve", path.to_str().unwrap()])
            .output()
            .expect("sh runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains("input ends where"), "{stderr}");
    }
}

#[test]
fn missing_file_and_directory() {
    let dir = tempdir();
    let missing = dir.path().join("nope.txt");
    let line = solve_file(&missing).error_line();
    assert_eq!(
        line,
        format!(
            "error: {}: cannot open: No such file or directory (os error 2)",
            missing.display()
        )
    );
    let line = solve_file(dir.path()).error_line();
    assert_eq!(line, format!("error: {}: cannot read: is a directory", dir.path().display()));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["solve", "a", "b"], None).code, 2);
    assert_eq!(run(&["frobnicate"], None).code, 2);
    assert_eq!(run(&["solve", "--threads", "0"], Some(b"")).code, 2);
    assert_eq!(run(&["solve", "--threads", "x"], Some(b"")).code, 2);
    assert_eq!(run(&[], None).code, 2);
    assert_eq!(run(&["--version"], None).code, 0);
}

#[test]
fn closed_stdout_pipe_exits_0_quietly() {
    let dir = tempdir();
    let mut text = String::from("1\n0\n");
    for _ in 0..200_000 {
        text.push_str("1 0\n");
    }
    let path = write_file(dir.path(), "many.txt", text.as_bytes());
    let mut child = grundy()
        .args(["solve", path.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert_eq!(first, "LOSE\n");
    drop(reader);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// A build without the serve feature refuses `grundy serve` with how to get it (exit 2),
/// before it opens anything.
#[cfg(not(feature = "serve"))]
#[test]
fn serve_without_the_feature_is_refused() {
    let r = crate::util::run(&["serve", "no-such-file.grundy"], None);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.starts_with("error: this grundy was built without the serve feature"));
    assert!(r.stderr.contains("--features serve"), "{}", r.stderr);
}
