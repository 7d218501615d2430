//! The seed problems' samples, byte for byte.

use crate::util::*;

fn sample() -> (Vec<u8>, String) {
    let input = std::fs::read(repo_path("data/chess-sample.txt")).expect("bundled sample");
    let expected = std::fs::read_to_string(repo_path("data/chess-sample.expected")).unwrap();
    (input, expected)
}

#[test]
fn chess_sample_from_file() {
    let (_, expected) = sample();
    assert_eq!(solve_file(&repo_path("data/chess-sample.txt")).ok(), expected);
}

#[test]
fn chess_sample_from_stdin_and_dash() {
    let (input, expected) = sample();
    assert_eq!(run(&["solve"], Some(&input)).ok(), expected);
    assert_eq!(run(&["solve", "-"], Some(&input)).ok(), expected);
}

#[test]
fn the_sample_is_the_seed_statement_sample() {
    // The bundled file must be the statement's sample, not a convenient variant of it; the
    // statement's own words are kept in tests/data, so this test always runs.
    let seed = std::fs::read_to_string(repo_path("tests/data/poj2425-statement.txt")).unwrap();
    let (input, expected) = sample();
    let between = |text: &str, from: &str, to: &str| -> String {
        let start = text.find(from).expect(from) + from.len();
        let end = start + text[start..].find(to).expect(to);
        text[start..end].split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let words =
        |b: &[u8]| String::from_utf8_lossy(b).split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(between(&seed, "Sample Input", "Sample Output"), words(&input));
    assert_eq!(between(&seed, "Sample Output", "End of excerpt"), words(expected.as_bytes()));
}

#[test]
fn acwing_909_single_case_format() {
    // AcWing 909: one case, queries ended by a lone 0 on the last line.
    let input = b"4\n2 1 2\n0\n1 3\n0\n1 0\n2 0 2\n2 1 3\n1 2\n0\n";
    // Values: 1 and 3 are sinks (0), 2 -> mex{0} = 1, 0 -> mex{0, 1} = 2.
    let expected = expected_answers(
        &[Case {
            lists: vec![vec![1, 2], vec![], vec![3], vec![]],
            queries: vec![vec![0], vec![0, 2], vec![1, 3], vec![2]],
        }],
        |c| relaxation_values(&c.lists),
    );
    assert_eq!(run(&["solve"], Some(input)).ok(), expected);
    assert_eq!(expected, "WIN\nWIN\nLOSE\nWIN\n");
}
