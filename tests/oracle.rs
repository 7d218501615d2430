//! `solve` against deliberately simple oracles on thousands of random multi-case inputs.

use std::collections::HashMap;

use crate::util::*;

/// Thousands of random cases, written with messy whitespace, in files and through stdin,
/// checked against Grundy values computed by relaxation.
#[test]
fn random_cases_match_the_relaxation_oracle() {
    let dir = tempdir();
    let mut rng = Rng::new(2425);
    let mut total = 0;
    for file in 0..30 {
        let cases: Vec<Case> = (0..100)
            .map(|_| {
                let limit = if rng.chance(1, 4) { 60 } else { 12 };
                let n = 1 + rng.below(limit) as usize;
                let max_degree = rng.below(6);
                let queries = rng.below(8) as usize;
                random_case(&mut rng, n, max_degree, queries, 10)
            })
            .collect();
        total += cases.len();
        let input = write_messy(&mut rng, &cases, file % 3 == 0);
        let expected = expected_answers(&cases, |c| relaxation_values(&c.lists));
        let got = if file % 2 == 0 {
            solve_file(&write_file(dir.path(), "in.txt", &input)).ok()
        } else {
            run(&["solve"], Some(&input)).ok()
        };
        assert_eq!(got, expected, "file {file}: {}", String::from_utf8_lossy(&input));
    }
    assert_eq!(total, 3000);
}

/// Tiny graphs and sums of up to three tokens, checked against a search of the sum's own game
/// tree: this oracle does not assume the Sprague-Grundy theorem, so it checks it too.
#[test]
fn random_sums_match_a_game_tree_search() {
    let mut rng = Rng::new(909);
    for round in 0..40 {
        let cases: Vec<Case> = (0..25)
            .map(|_| {
                let n = 1 + rng.below(7) as usize;
                random_case(&mut rng, n, 3, 6, 3)
            })
            .collect();
        let mut expected = String::new();
        for case in &cases {
            let mut memo = HashMap::new();
            for q in &case.queries {
                let wins = game_tree_wins(&case.lists, q, &mut memo);
                expected.push_str(if wins { "WIN\n" } else { "LOSE\n" });
            }
        }
        let input = write_messy(&mut rng, &cases, round % 2 == 1);
        assert_eq!(run(&["solve"], Some(&input)).ok(), expected);
    }
}

#[test]
fn empty_input_is_zero_cases() {
    assert_eq!(run(&["solve"], Some(b"")).ok(), "");
    assert_eq!(run(&["solve"], Some(b" \n\r\n\t")).ok(), "");
}

#[test]
fn cases_without_queries_and_empty_cases_answer_nothing() {
    // A case with no queries, a case of zero nodes, then a case with one query.
    let input = b"2 1 1 0 0\n0 0\n1 0 1 0 0";
    assert_eq!(run(&["solve"], Some(input)).ok(), "LOSE\n");
}
