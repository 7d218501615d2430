//! What setters and bulk users reached for (issue 24): `solve --check EXPECTED` compares the
//! answers with a judge's expected output; `query --columns` writes the columns asked for, in
//! the order asked, on one process and on a cluster.

use crate::util::*;

/// A generated game file and its answers.
fn game(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let file = dir.join("game.txt");
    let f = file.to_str().unwrap();
    run(&["generate", "-n", "3000", "-q", "400", "--cases", "3", "--seed", "9", "-o", f], None)
        .ok();
    let answers = run(&["solve", f], None).ok();
    (file, answers)
}

#[test]
fn check_is_silent_when_the_answers_are_the_expected_ones() {
    let dir = tempdir();
    let (file, answers) = game(dir.path());
    let f = file.to_str().unwrap();
    // A judge's file may end its lines with CRLF or spaces, and end with blank lines.
    let judge: String = answers.lines().map(|l| format!("{l} \r\n")).collect::<String>() + "\n\n";
    for expected in [answers.clone(), judge] {
        let want = write_file(dir.path(), "want.txt", expected.as_bytes());
        let w = want.to_str().unwrap();
        for threads in ["1", "2"] {
            let out = run(&["solve", f, "--check", w, "--threads", threads], None);
            assert_eq!((out.code, out.stdout.len(), out.stderr.as_str()), (0, 0, ""));
        }
        let report = dir.path().join("r.csv");
        let args = ["solve", f, "--check", w, "--report", report.to_str().unwrap()];
        assert_eq!(run(&args, None).code, 0);
        assert!(report.exists(), "--report is written beside --check");
        let cluster = run(&["solve", f, "--check", w, "--processes", "2"], None);
        assert_eq!((cluster.code, cluster.stderr.as_str()), (0, ""));
    }
}

#[test]
fn check_names_the_first_line_that_differs_with_both_lines() {
    let dir = tempdir();
    let (file, answers) = game(dir.path());
    let f = file.to_str().unwrap();
    let lines: Vec<&str> = answers.lines().collect();
    let flip = |l: &str| if l == "WIN" { "LOSE" } else { "WIN" };
    // A changed line, a missing last line, an extra line.
    let mut changed = lines.clone();
    changed[700] = flip(lines[700]);
    let shorter = &lines[..lines.len() - 1];
    let mut longer = lines.clone();
    longer.push("WIN");
    for (expected, words) in [
        (
            changed.join("\n") + "\n",
            format!(
                "want.txt:701: the answer is `{}` where the file has `{}`",
                lines[700], changed[700]
            ),
        ),
        (
            shorter.join("\n") + "\n",
            format!(
                "want.txt:{}: the file ends here, but the answers go on with `{}`",
                lines.len(),
                lines[lines.len() - 1]
            ),
        ),
        (
            longer.join("\n"),
            format!(
                "want.txt:{}: the answers end here, but the file goes on with `WIN`",
                lines.len() + 1
            ),
        ),
    ] {
        let want = write_file(dir.path(), "want.txt", expected.as_bytes());
        let w = want.to_str().unwrap();
        for args in [&["solve", f, "--check", w][..], &["solve", f, "--check", w, "--sequential"]] {
            let line = run(args, None).error_line();
            assert!(line.starts_with("error: ") && line.ends_with(&words), "{line} / {words}");
        }
        let cluster = run(&["solve", f, "--check", w, "--processes", "2"], None).error_line();
        assert!(cluster.ends_with(&words), "{cluster}");
    }
    let same = run(&["solve", f, "--check", f, "-o", "x"], None);
    assert_eq!(same.code, 2, "--check and -o together: {}", same.stderr);
}

#[test]
fn query_columns_are_the_full_rows_projected() {
    let dir = tempdir();
    let (file, _) = game(dir.path());
    let f = file.to_str().unwrap();
    let queries = dir.path().join("q.txt");
    let q = queries.to_str().unwrap();
    let args = ["generate", "-n", "3000", "-q", "300", "--seed", "9", "--queries-only", "-o", q];
    run(&args, None).ok();
    let full = run(&["query", f, q], None).ok();
    let mut lines = full.lines();
    let names: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    for list in ["result", "query,result", "move_to,move_from,nim_sum", "positions"] {
        let picked: Vec<usize> =
            list.split(',').map(|c| names.iter().position(|n| n == &c).unwrap()).collect();
        let expected: String = std::iter::once(list.to_string())
            .chain(rows.iter().map(|r| picked.iter().map(|&i| r[i]).collect::<Vec<_>>().join(",")))
            .map(|l| l + "\n")
            .collect();
        let ways: [&[&str]; 5] = [
            &["--sequential"],
            &["-j", "1"],
            &["-j", "2"],
            &["--processes", "2"],
            &["--processes", "3"],
        ];
        for extra in ways {
            let args = [&["query", f, q, "--columns", list][..], extra].concat();
            assert!(run(&args, None).ok() == expected, "--columns {list} {extra:?}");
        }
    }
    for (bad, words) in [
        ("case", "`case` is not a column of query rows"),
        ("result,result", "`result` is named twice"),
        ("", "`` is not a column"),
    ] {
        let out = run(&["query", f, q, "--columns", bad], None);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stderr.contains(words), "{bad}: {}", out.stderr);
    }
}
