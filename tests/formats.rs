//! Inputs as other tools write them: edge lists, gzip and zstd files, a UTF-8 byte-order mark.
//! Each gives the same answers and values as the chess format of the same graph.

use std::io::Write;

use crate::util::*;

/// `case` as an edge list: comment lines in both styles, tabs, spaces or commas between the
/// ids, networkx's empty data dict `{}` after some, CRLF or LF, blank lines, and the edges of
/// all nodes shuffled (a node's own edges keep their order).
fn edge_list(rng: &mut Rng, case: &Case) -> Vec<u8> {
    // Sources in a random interleaving; each takes its out-positions in order, since the CSR
    // lists a node's out-positions in input order.
    let mut sources: Vec<usize> =
        case.lists.iter().enumerate().flat_map(|(u, l)| std::iter::repeat_n(u, l.len())).collect();
    rng.shuffle(&mut sources);
    let mut next = vec![0usize; case.lists.len()];
    let edges = sources.into_iter().map(|u| {
        next[u] += 1;
        (u, case.lists[u][next[u] - 1])
    });
    let edges: Vec<(usize, u32)> = edges.collect();
    let mut out = b"# a SNAP-style header\n% and a Matrix Market one\n".to_vec();
    const SEPARATORS: [&str; 6] = [" ", "\t", ",", ", ", " , ", "\t,"];
    for (u, v) in edges {
        let sep = SEPARATORS[rng.below(SEPARATORS.len() as u64) as usize];
        let data = match rng.below(6) {
            0 => " {}",
            1 => ",{}",
            2 => "\t{} ",
            _ => "",
        };
        let end = if rng.chance(1, 4) { "\r\n" } else { "\n" };
        if rng.chance(1, 20) {
            out.extend_from_slice(b"\n# a comment between edges\n");
        }
        out.extend_from_slice(format!("{u}{sep}{v}{data}{end}").as_bytes());
    }
    out
}

#[test]
fn edge_lists_give_the_values_of_the_same_graph() {
    let dir = tempdir();
    let mut rng = Rng::new(91);
    for round in 0..40 {
        let n = 1 + rng.below(60) as usize;
        let degree = 1 + rng.below(6);
        let case = random_case(&mut rng, n, degree, 20, 4);
        let chess = write_file(
            dir.path(),
            "g.txt",
            &write_messy(&mut rng, std::slice::from_ref(&case), false),
        );
        let edges = write_file(dir.path(), "g.tsv", &edge_list(&mut rng, &case));
        let nodes = n.to_string();
        for threads in ["1", "2"] {
            let values = |args: &[&str]| {
                run(&[&["-j", threads, "--chunk-bytes", "16", "values"][..], args].concat(), None)
                    .ok()
            };
            let expected = values(&[chess.to_str().unwrap()]);
            let edge_args = [edges.to_str().unwrap(), "--format", "edges", "--nodes", &nodes];
            assert_eq!(values(&edge_args), expected, "round {round}");
            // Without --nodes, the count is the largest id + 1: the same when the last node
            // has an edge.
            let largest = case.lists.iter().enumerate().filter(|(_, l)| !l.is_empty());
            let last = largest.map(|(u, l)| u.max(*l.iter().max().unwrap() as usize)).max();
            if last == Some(n - 1) {
                assert_eq!(values(&edge_args[..3]), expected, "round {round}");
            }
            // query against the edge list answers as solve does on the chess file.
            let queries = query_lines(&case.queries);
            let qfile = write_file(dir.path(), "q.txt", queries.as_bytes());
            let args = ["-j", threads, "query", "--format", "edges", "--nodes", &nodes];
            let rows = run(
                &[&args[..], &[edges.to_str().unwrap(), qfile.to_str().unwrap()]].concat(),
                None,
            )
            .ok();
            let results: String = rows
                .lines()
                .skip(1)
                .map(|r| format!("{}\n", r.split(',').nth(3).unwrap()))
                .collect();
            assert_eq!(results, run(&["solve", chess.to_str().unwrap()], None).ok());
        }
    }
}

#[test]
fn edge_list_errors_name_line_and_column() {
    let dir = tempdir();
    let data = "a third field; an edge line holds two node ids and at most an empty `{}`: write \
                the list without data (networkx: write_edgelist(G, path, data=False))";
    let weight = format!("2:5: the end of an edge line `u v`: found \"{{'weight': 3}}\", {data}");
    let seven = format!("2:5: the end of an edge line `u v`: found \"7\", {data}");
    let cases: [(&[u8], &[&str], &str); 9] = [
        (b"# c\n0 1\n1 x\n", &[], "3:3: expected a non-negative integer for the second node of an edge line `u v`, found \"x\""),
        (b"0 1\n2\n", &[], "2:2: the second node of an edge line `u v`: the line ends after one node id"),
        (b"0 1\n1 2 7\n", &[], &seven),
        (b"0 1 {}\n1 2 {'weight': 3}\n", &[], &weight),
        (b"0,1\n1,\r\n", &[], "2:4: the second node of an edge line `u v`: the line ends after a `,`"),
        (b"0,1\n1;2\n", &[], "2:1: expected a non-negative integer for the first node of an edge line `u v`, found \"1;2\""),
        (b"0 1\n1 5\n", &["--nodes", "3"], "2:3: the second node of an edge line `u v` is 5, but the case has 3 nodes (ids 0 to 2)"),
        (b"0 4000000000\n", &[], "1:3: the second node of an edge line `u v`: node id 4000000000 would make a graph of 4000000001 nodes from 1 edges; give --nodes to allow it"),
        (b"0 1\n1 0\n", &[], "case 1: cycle 0 -> 1 -> 0 (cycles are allowed with --loopy)"),
    ];
    for (text, extra, message) in cases {
        let path = write_file(dir.path(), "e.txt", text);
        let file = path.to_str().unwrap();
        for threads in ["1", "2"] {
            let args = [
                &["-j", threads, "--chunk-bytes", "3", "values", file, "--format", "edges"][..],
                extra,
            ]
            .concat();
            let line = run(&args, None).error_line();
            let sep = if message.starts_with("case") { ": " } else { ":" };
            assert_eq!(line, format!("error: {file}{sep}{message}"), "{threads}");
        }
    }
    // Usage: solve has no queries in an edge list; --nodes belongs to edge lists.
    let path = write_file(dir.path(), "e.txt", b"0 1\n");
    let file = path.to_str().unwrap();
    let run1 = run(&["solve", file, "--format", "edges"], None);
    assert_eq!(run1.code, 2);
    assert!(run1.stderr.contains("grundy query --format edges"), "{}", run1.stderr);
    assert_eq!(run(&["values", file, "--nodes", "4"], None).code, 2);
}

/// Regression (issue 24, item 6): `solve --help` offered `--format edges`, which solve then
/// refused. Its help and clap's list of values name chess and sums only; `edges` still gets
/// the advice to use `query`, and the other commands still offer it.
#[test]
fn solve_offers_only_the_formats_it_takes() {
    let help = run(&["solve", "--help"], None).ok();
    assert!(help.contains("- chess:") && help.contains("- sums:"), "{help}");
    assert!(!help.contains("edges"), "{help}");
    let short = run(&["solve", "-h"], None).ok();
    assert!(short.contains("[possible values: chess, sums]"), "{short}");
    let bogus = run(&["solve", "--format", "bogus"], None);
    assert_eq!(bogus.code, 2);
    assert!(bogus.stderr.contains("[possible values: chess, sums]\n"), "{}", bogus.stderr);
    let edges = run(&["solve", "--format", "edges", "--nodes", "3"], Some(b"0 1\n"));
    assert_eq!(edges.code, 2);
    let advice = "error: solve answers the queries of a file, and an edge list has none: use \
                  `grundy query --format edges GRAPH QUERIES`\n";
    assert_eq!(edges.stderr, advice);
    for command in ["values", "query", "stats"] {
        let short = run(&[command, "-h"], None).ok();
        assert!(short.contains("[possible values: chess, sums, edges]"), "{command}: {short}");
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

#[test]
fn gzip_and_zstd_inputs_answer_as_the_plain_file() {
    let dir = tempdir();
    let mut rng = Rng::new(17);
    let cases: Vec<Case> = (0..30).map(|_| random_case(&mut rng, 50, 4, 30, 5)).collect();
    let plain = write_messy(&mut rng, &cases, false);
    let expected = expected_answers(&cases, |c| relaxation_values(&c.lists));
    let zst = zstd::stream::encode_all(&plain[..], 3).unwrap();
    // Two gzip members back to back, as `cat a.gz b.gz` makes, read as one stream.
    let (a, b) = plain.split_at(plain.len() / 2);
    let two_members = [gzip(a), gzip(b)].concat();
    for (name, bytes) in [
        ("in.gz", gzip(&plain)),
        ("in.zst", zst),
        ("in2.gz", two_members),
        ("in.txt", plain.clone()),
    ] {
        // The magic bytes decide, not the name.
        let path = write_file(dir.path(), &format!("{name}.data"), &bytes);
        for threads in ["1", "2"] {
            assert_eq!(
                run(&["-j", threads, "solve", path.to_str().unwrap()], None).ok(),
                expected,
                "{name}"
            );
        }
        assert_eq!(run(&["solve"], Some(&bytes)).ok(), expected, "{name} on stdin");
    }
    // A damaged stream is an error naming the file.
    let mut broken = gzip(&plain);
    broken.truncate(broken.len() / 2);
    let path = write_file(dir.path(), "broken.gz", &broken);
    let line = solve_file(&path).error_line();
    assert!(line.starts_with(&format!("error: {}: cannot decompress: ", path.display())), "{line}");
}

/// Regression: a file saved by an editor that starts it with a UTF-8 byte-order mark failed
/// at 1:1 with "expected a non-negative integer ... found \"\u{feff}4\"".
#[test]
fn a_byte_order_mark_is_skipped_and_positions_stay_right() {
    let dir = tempdir();
    let sample = std::fs::read(repo_path("data/chess-sample.txt")).unwrap();
    let expected = std::fs::read_to_string(repo_path("data/chess-sample.expected")).unwrap();
    let with_bom = [b"\xef\xbb\xbf".as_slice(), &sample].concat();
    let path = write_file(dir.path(), "bom.txt", &with_bom);
    assert_eq!(solve_file(&path).ok(), expected);
    assert_eq!(run(&["solve"], Some(&with_bom)).ok(), expected);
    let bad = write_file(dir.path(), "bad.txt", b"\xef\xbb\xbf2\n1 x\n");
    let line = solve_file(&bad).error_line();
    assert!(line.starts_with(&format!("error: {}:2:3: ", bad.display())), "{line}");
    let edges = write_file(dir.path(), "e.txt", b"\xef\xbb\xbf0 1\n");
    let values = run(&["values", edges.to_str().unwrap(), "--format", "edges"], None).ok();
    assert_eq!(values, "case,node,grundy,level,out_degree\n1,0,1,1,1\n1,1,0,0,0\n");
}

/// Streams (stdin, gzip, zstd) are read window by window as they arrive, holding only what an
/// error may still point at: every error is placed at the line and column the file's reader
/// places it at, wherever it falls among many small windows, on one thread and on several,
/// in every format.
#[test]
fn a_streams_errors_are_placed_as_the_files() {
    let dir = tempdir();
    let mut rng = Rng::new(27);
    let cases: Vec<Case> = (0..3).map(|_| random_case(&mut rng, 300, 4, 200, 3)).collect();
    let good = write_messy(&mut rng, &cases, false);
    // Each damage at a place of the text: an out-of-range id, a bad token, a cut-off end.
    let at = |frac: usize| {
        let i = good.len() * frac / 8;
        i + good[i..].iter().position(|b| b.is_ascii_digit()).unwrap_or(0)
    };
    let mut texts = vec![good.clone(), good[..good.len() * 5 / 8].to_vec()];
    for frac in [1, 3, 5, 7] {
        let i = at(frac);
        texts.push([&good[..i], b"999999 ", &good[i..]].concat());
        texts.push([&good[..i], b"x", &good[i..]].concat());
    }
    let edges = b"0 1\n1 2\n# c\n2 3\n".repeat(200);
    let mut edge_texts = vec![edges.clone()];
    for bad in [&b"7 x\n"[..], b"5 4000000000\n", b"1 2 3\n"] {
        let i = edges.len() / 2;
        edge_texts.push([&edges[..i], bad, &edges[i..]].concat());
    }
    let sums = b"3\n2 2 1 2 1 1\n1 1 2\n0\n2 0 1\n".repeat(100);
    let mut sums_texts = vec![sums.clone()];
    let i = sums.len() / 2 + 1;
    sums_texts.push([&sums[..i], b"9 ", &sums[i..]].concat());
    let runs = [
        (&[][..], texts),
        (&["--format", "edges"][..], edge_texts),
        (&["--format", "sums"][..], sums_texts),
    ];
    for (format, texts) in runs {
        for text in texts {
            let path = write_file(dir.path(), "t.txt", &text);
            let file = path.to_str().unwrap();
            let gz = write_file(dir.path(), "t.gz", &gzip(&text));
            let zst = zstd::stream::encode_all(&text[..], 1).unwrap();
            let zst = write_file(dir.path(), "t.zst", &zst);
            for threads in ["1", "2"] {
                let args = |input: &'_ str| -> Vec<String> {
                    let common = ["--threads", threads, "--chunk-bytes", "64", "values", input];
                    common.iter().chain(format).map(|s| s.to_string()).collect()
                };
                let output = |input: &str, stdin: Option<&[u8]>| {
                    let args = args(input);
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    let run = run(&args, stdin);
                    (run.code, run.stdout_text(), run.stderr)
                };
                let (code, out, err) = output(file, None);
                let unnamed = |text: &str, name: &str| text.replace(name, "NAME");
                let want = (code, out, unnamed(&err, file));
                let from_stdin = output("-", Some(&text));
                assert_eq!((from_stdin.0, from_stdin.1, unnamed(&from_stdin.2, "<stdin>")), want);
                for packed in [&gz, &zst] {
                    let name = packed.to_str().unwrap();
                    let got = output(name, None);
                    assert_eq!((got.0, got.1, unnamed(&got.2, name)), want, "{name}");
                }
            }
        }
    }
}
