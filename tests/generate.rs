//! `grundy generate`: valid, acyclic, deterministic, and written whole or not at all.

use crate::util::*;

fn generate(args: &[&str]) -> Vec<u8> {
    let mut all = vec!["generate"];
    all.extend_from_slice(args);
    let run = run(&all, None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout
}

#[test]
fn same_arguments_same_bytes_whatever_the_threads() {
    let args = ["-n", "30000", "--avg-degree", "3", "-q", "20000", "--cases", "2", "--seed", "5"];
    let a = generate(&args);
    let mut one = vec!["--threads", "1"];
    one.extend_from_slice(&args);
    assert!(a == generate(&one));
    let mut other = args.to_vec();
    other[9] = "6";
    assert!(a != generate(&other));
}

#[test]
fn every_shape_is_a_valid_input_matching_the_oracle() {
    for shape in ["random", "chain", "layered", "wide", "tournament"] {
        let text = generate(&[
            "--shape",
            shape,
            "-n",
            "60",
            "-q",
            "200",
            "--cases",
            "3",
            "--max-tokens",
            "4",
        ]);
        let cases = parse_cases(&text);
        assert_eq!(cases.len(), 3);
        for case in &cases {
            assert_eq!(case.lists.len(), 60);
            assert_eq!(case.queries.len(), 200);
            assert!(case.queries.iter().all(|q| (1..=4).contains(&q.len())));
        }
        let expected = expected_answers(&cases, |c| relaxation_values(&c.lists));
        assert_eq!(run(&["solve"], Some(&text)).ok(), expected, "{shape}");
    }
}

#[test]
fn ids_are_shuffled_so_id_order_is_not_topological() {
    let text = generate(&["-n", "1000", "--avg-degree", "3", "-q", "0"]);
    let cases = parse_cases(&text);
    let lists = &cases[0].lists;
    let up = lists
        .iter()
        .enumerate()
        .flat_map(|(v, l)| l.iter().map(move |&t| t as usize > v))
        .filter(|&b| b)
        .count();
    let edges: usize = lists.iter().map(Vec::len).sum();
    assert!(up > edges / 4 && up < edges * 3 / 4, "{up} of {edges} edges go up");
}

#[test]
fn edges_sets_the_mean_degree() {
    let text = generate(&["-n", "20000", "--edges", "100000", "-q", "0", "--shape", "layered"]);
    let edges: usize = parse_cases(&text)[0].lists.iter().map(Vec::len).sum();
    assert!((90_000..110_000).contains(&edges), "{edges}");
}

#[test]
fn output_file_appears_whole_and_bad_arguments_exit_2() {
    let dir = tempdir();
    let path = dir.path().join("out.txt");
    let file = path.to_str().unwrap();
    let run1 = run(&["generate", "-n", "100", "-q", "10", "-o", file], None);
    assert_eq!(run1.ok(), "");
    assert_eq!(std::fs::read(&path).unwrap(), generate(&["-n", "100", "-q", "10"]));
    // Tournament of 100000 nodes has more edges than fit: refused, old file untouched.
    let bad = run(&["generate", "-n", "100000", "--shape", "tournament", "-o", file], None);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), generate(&["-n", "100", "-q", "10"]));
    assert_eq!(run(&["generate", "-n", "0"], None).code, 2);
    let names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
}
