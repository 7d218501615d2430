//! `grundy index`: an index read in place of its input gives the input's bytes (values,
//! query, stats but their times) on every format, and every damaged index is refused with one
//! error line and exit 1.

use std::path::{Path, PathBuf};

use crate::util::{random_case, relaxation_values, run, tempdir, write_file, write_messy, Rng};

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Writes the index of `input` (read with `flags`) to `dir/name`.
fn index(dir: &Path, name: &str, input: &Path, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut args = vec!["index", s(input), "-o", s(&out)];
    args.extend_from_slice(flags);
    run(&args, None).ok();
    out
}

/// `stats --json` without what differs between a file and its index (the name, the times,
/// the peak memory).
fn stats_json(path: &Path, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["stats", "--json", s(path)];
    args.extend_from_slice(flags);
    let mut json: serde_json::Value = serde_json::from_str(&run(&args, None).ok()).expect("JSON");
    fn strip(v: &mut serde_json::Value) {
        if let Some(map) = v.as_object_mut() {
            for key in ["file", "seconds", "peak_memory_bytes"] {
                map.remove(key);
            }
            map.values_mut().for_each(strip);
        } else if let Some(list) = v.as_array_mut() {
            list.iter_mut().for_each(strip);
        }
    }
    strip(&mut json);
    json
}

/// `values`, `stats` and `query` (every column, then `--columns result`) of `index` (read
/// with `reading`) are those of `input` (read with `flags` and `reading`'s `--loopy`), on one
/// thread and two.
fn assert_same(input: &Path, index: &Path, queries: &Path, flags: &[&str], reading: &[&str]) {
    let loopy: Vec<&str> = reading.iter().copied().filter(|f| *f == "--loopy").collect();
    let mut text: Vec<&str> = flags.to_vec();
    text.extend_from_slice(&loopy);
    for threads in ["1", "2"] {
        let with = |command: &[&str], file: &Path, file_flags: &[&str]| {
            let mut args = vec!["-j", threads];
            args.extend_from_slice(command);
            args.push(s(file));
            if command[0] == "query" {
                args.push(s(queries));
            }
            args.extend_from_slice(file_flags);
            run(&args, None).ok()
        };
        for command in [&["values"][..], &["query"], &["query", "--columns", "result"]] {
            let (a, b) = (with(command, index, reading), with(command, input, &text));
            assert_eq!(a, b, "{command:?} -j {threads}");
        }
    }
    let (mut a, mut b) = (stats_json(index, reading), stats_json(input, &text));
    if a["total"]["offset_bits"] == 64 {
        // An index made with 64-bit offsets says so; the text read again narrows them.
        for json in [&mut a, &mut b] {
            json["total"]["offset_bits"] = 0.into();
            json["cases"][0]["offset_bits"] = 0.into();
        }
    }
    assert_eq!(a, b, "stats");
}

/// A query file of `count` random queries on `nodes` nodes.
fn queries(dir: &Path, rng: &mut Rng, nodes: u64, count: usize) -> PathBuf {
    let mut text = String::new();
    for _ in 0..count {
        let m = 1 + rng.below(4);
        text.push_str(&m.to_string());
        for _ in 0..m {
            text.push_str(&format!(" {}", rng.below(nodes)));
        }
        text.push('\n');
    }
    write_file(dir, "queries.txt", text.as_bytes())
}

#[test]
fn an_index_answers_as_its_chess_input_does_with_many_cases() {
    let dir = tempdir();
    let mut rng = Rng::new(26);
    for round in 0..6 {
        let cases: Vec<_> = (0..1 + rng.below(3))
            .map(|_| {
                let n = 1 + rng.below(300) as usize;
                let (degree, count) = (1 + rng.below(9), rng.below(40) as usize);
                random_case(&mut rng, n, degree, count, 5)
            })
            .collect();
        let input =
            write_file(dir.path(), "game.txt", &write_messy(&mut rng, &cases, round % 2 == 0));
        let idx = index(dir.path(), "game.grundy", &input, &[]);
        let q = queries(dir.path(), &mut rng, cases[0].lists.len() as u64, 200);
        assert_same(&input, &idx, &q, &[], &[]);
        assert_same(&input, &idx, &q, &[], &["--trust"]);
    }
}

/// Sections of 8 MiB or more go into the file through maps (`Sink::put_large`), the rest by
/// writes: the file is the bytes the index writes to stdout, with plain writes only, and it
/// answers as its input does, on one thread and two.
#[test]
fn an_index_with_sections_copied_through_maps_is_its_bytes_on_stdout() {
    let dir = tempdir();
    let input = dir.path().join("big.txt");
    // 2.3 million moves: a targets section of 9.2 MB.
    let spec = ["generate", "-n", "300000", "--edges", "2300000", "-q", "2000", "--seed", "9"];
    run(&[&spec[..], &["-o", s(&input)]].concat(), None).ok();
    for threads in ["1", "2"] {
        let idx = dir.path().join(format!("big-{threads}.grundy"));
        run(&["-j", threads, "index", s(&input), "-o", s(&idx)], None).ok();
        let piped = run(&["-j", threads, "index", s(&input), "-o", "-"], None);
        assert_eq!(piped.code, 0, "{}", piped.stderr);
        let file = std::fs::read(&idx).expect("the index");
        assert!(file.len() > 9_200_000, "the targets are written whole: {}", file.len());
        assert!(file == piped.stdout, "-j {threads}: the file differs from stdout's bytes");
    }
    let idx = dir.path().join("big-2.grundy");
    let q = dir.path().join("q.txt");
    run(&[&spec[..], &["--queries-only", "-o", s(&q)]].concat(), None).ok();
    assert_same(&input, &idx, &q, &[], &[]);
}

#[test]
fn an_index_answers_as_its_input_does_in_every_format_and_width() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2026);
    let gen = |name: &str, args: &[&str]| {
        let path = d.join(name);
        let mut all = vec!["generate"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-o", s(&path)]);
        run(&all, None).ok();
        path
    };
    // Values above 255 (two bytes) in a tournament; levels above 65,535 (four bytes) in a chain.
    let tournament = gen("tournament.txt", &["-n", "400", "--shape", "tournament", "-q", "50"]);
    let chain = gen("chain.txt", &["-n", "70000", "--shape", "chain", "-q", "50", "--seed", "4"]);
    for (input, n) in [(&tournament, 400), (&chain, 70000)] {
        let idx = index(d, "w.grundy", input, &[]);
        assert_same(input, &idx, &queries(d, &mut rng, n, 100), &[], &[]);
    }
    // The sums format: the Cutting Game's state graph.
    let sheets = write_file(d, "sheets.txt", b"2 2\n3 2\n4 3\n5 7\n");
    let sums = d.join("sums.txt");
    run(&["game", "cutting", "--export", s(&sheets), "-o", s(&sums)], None).ok();
    let idx = index(d, "sums.grundy", &sums, &["--format", "sums"]);
    let q = queries(d, &mut rng, 20, 100);
    assert_same(&sums, &idx, &q, &["--format", "sums"], &[]);
    // An edge list with isolated nodes at the end.
    let mut edges = String::from("# an edge list\n");
    for u in 0..300u64 {
        for _ in 0..rng.below(4) {
            edges.push_str(&format!("{u} {}\n", u + 1 + rng.below(40)));
        }
    }
    let list = write_file(d, "edges.tsv", edges.as_bytes());
    let flags = ["--format", "edges", "--nodes", "400"];
    let idx = index(d, "edges.grundy", &list, &flags);
    assert_same(&list, &idx, &queries(d, &mut rng, 400, 100), &flags, &[]);
    // A loopy game.
    let loopy = gen("loopy.txt", &["-n", "500", "--back-edges", "0.2", "-q", "80", "--seed", "9"]);
    let idx = index(d, "loopy.grundy", &loopy, &["--loopy"]);
    assert_same(&loopy, &idx, &queries(d, &mut rng, 500, 200), &[], &["--loopy"]);
    // 64-bit offsets (the limit lowered, as for a case of more than 2^32 edges).
    let wide = gen("wide.txt", &["-n", "300", "--edges", "2000", "-q", "40"]);
    let out = d.join("wide.grundy");
    let status = crate::util::grundy()
        .args(["index", s(&wide), "-o", s(&out)])
        .env("GRUNDY_NARROW_EDGES", "100")
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(stats_json(&out, &[])["total"]["offset_bits"], 64);
    assert_same(&wide, &out, &queries(d, &mut rng, 300, 100), &[], &[]);
}

#[test]
fn indexes_are_made_from_stdin_and_compressed_inputs() {
    use std::io::Write;
    let dir = tempdir();
    let d = dir.path();
    let input = d.join("g.txt");
    run(&["generate", "-n", "2000", "--edges", "9000", "-q", "100", "-o", s(&input)], None).ok();
    let text = std::fs::read(&input).expect("read");
    let from_file = std::fs::read(index(d, "a.grundy", &input, &[])).expect("index");
    let out = d.join("b.grundy");
    run(&["index", "-", "-o", s(&out)], Some(&text)).ok();
    assert_eq!(std::fs::read(&out).expect("index"), from_file, "stdin");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text).expect("gzip");
    let packed = write_file(d, "g.txt.gz", &gz.finish().expect("gzip"));
    assert_eq!(
        std::fs::read(index(d, "c.grundy", &packed, &[])).expect("index"),
        from_file,
        "gzip"
    );
    // An index read from a pipe is copied where it is not aligned, and answers the same.
    let q = write_file(d, "q.txt", b"1 0\n2 5 7\n3 1 2 3\n");
    let piped = run(&["query", "-", s(&q)], Some(&from_file)).ok();
    assert_eq!(piped, run(&["query", s(&input), s(&q)], None).ok());
}

/// Sections of an index by an independent reading of docs/INDEX.md's table: (offset, bytes).
fn sections(bytes: &[u8]) -> Vec<(usize, usize)> {
    let u64_at =
        |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize;
    let footer = bytes.len() - 64;
    let (table, count) = (u64_at(footer), u64_at(footer + 8));
    (0..count)
        .map(|i| {
            let entry = table + 40 * i;
            let width = u16::from_le_bytes([bytes[entry + 6], bytes[entry + 7]]) as usize;
            (u64_at(entry + 8), u64_at(entry + 16) * width)
        })
        .collect()
}

#[test]
fn every_damaged_index_is_refused_with_one_error_line() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(7);
    let cases: Vec<_> = (0..2).map(|_| random_case(&mut rng, 200, 6, 20, 4)).collect();
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let good = std::fs::read(index(d, "good.grundy", &input, &[])).expect("index");
    let out = d.join("out.csv");
    let refused = |bytes: &[u8], what: &str| {
        let bad = write_file(d, "bad.grundy", bytes);
        for command in ["values", "stats"] {
            let mut args = vec![command, s(&bad)];
            if command == "values" {
                args.extend_from_slice(&["-o", s(&out)]);
            }
            let r = run(&args, None);
            assert_eq!(r.code, 1, "{what}: {command} exit {}: {}", r.code, r.stderr);
            let line = r.error_line();
            assert!(line.starts_with(&format!("error: {}", s(&bad))), "{what}: {line}");
            assert!(!out.exists(), "{what}: no output file");
        }
    };
    let len = good.len();
    // (An empty file is a text input of no case; a cut inside the signature reads as bad text.)
    for cut in [1, 7, 8, 9, 63, 64, 65, 127, 128, len / 3, len / 2, len - 65, len - 64, len - 1] {
        refused(&good[..cut], &format!("cut at {cut}"));
    }
    let mut longer = good.clone();
    longer.extend_from_slice(b"\n");
    refused(&longer, "a byte appended");
    let flip = |at: usize, what: &str| {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        refused(&bad, what);
    };
    let found = sections(&good);
    assert_eq!(found.len(), 2 * 5, "offsets, targets, values, levels, record per case");
    for (k, &(offset, bytes)) in found.iter().enumerate() {
        if bytes > 0 {
            for at in [offset, offset + bytes / 2, offset + bytes - 1] {
                flip(at, &format!("section {k}, byte {at}"));
            }
        }
    }
    let footer = len - 64;
    let table = u64::from_le_bytes(good[footer..footer + 8].try_into().expect("8 bytes")) as usize;
    for at in [table, table + 7, footer - 1, footer, footer + 40, len - 1] {
        flip(at, &format!("table or footer, byte {at}"));
    }
    flip(1, "the signature");
    let mut version = good.clone();
    version[8] = 2;
    let bad = write_file(d, "v2.grundy", &version);
    let line = run(&["values", s(&bad)], None).error_line();
    assert!(line.contains("index version 2, and this grundy reads version 1"), "{line}");
    // A query reads what it needs: a damaged value is refused there too.
    let mut bad = good.clone();
    bad[found[2].0] ^= 1;
    let bad = write_file(d, "q.grundy", &bad);
    let q = write_file(d, "q.txt", b"1 0\n");
    assert!(run(&["query", s(&bad), s(&q)], None).error_line().contains("checksum of its values"));
}

#[test]
fn flags_for_text_inputs_and_clusters_are_refused_with_an_index() {
    let dir = tempdir();
    let d = dir.path();
    let input = write_file(d, "g.txt", b"3\n1 1\n1 2\n0\n1 0\n");
    let idx = index(d, "g.grundy", &input, &[]);
    let q = write_file(d, "q.txt", b"1 0\n");
    let usage = |args: &[&str], says: &str| {
        let r = run(args, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    };
    usage(&["values", s(&idx), "--format", "sums"], "drop --format");
    usage(&["values", s(&idx), "--loopy"], "drop --loopy");
    usage(&["query", s(&idx), s(&q), "--format", "edges"], "drop --format and --nodes");
    usage(&["solve", s(&idx)], "grundy query");
    usage(&["index", s(&idx), "-o", s(&d.join("again.grundy"))], "is an index already");
    #[cfg(feature = "cluster")]
    usage(&["query", s(&idx), s(&q), "--processes", "2"], "read on one process");
    let loopy = index(d, "l.grundy", &input, &["--loopy"]);
    usage(&["stats", s(&loopy)], "add --loopy");
    // A cycle: no index at all.
    let cyclic = write_file(d, "c.txt", b"2\n1 1\n1 0\n");
    let out = d.join("c.grundy");
    let line = run(&["index", s(&cyclic), "-o", s(&out)], None).error_line();
    assert!(line.contains("cycle"), "{line}");
    assert!(!out.exists());
}

/// `values --play` and `query --play` of an index give its input's bytes (chess cases and an
/// edge list, one thread and two), and `stats --play` of an index that counted the queries
/// under the play (`index --play`) its input's statistics; an index of a sums game, and
/// `stats --play` of an index that did not count them (its queries are gone), are refused.
#[test]
fn the_plays_read_an_index_as_its_input() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2913);
    let cases: Vec<_> = (0..3)
        .map(|_| {
            let n = 1 + rng.below(400) as usize;
            let degree = 1 + rng.below(5);
            random_case(&mut rng, n, degree, 30, 4)
        })
        .collect();
    let chess = write_file(d, "game.txt", &write_messy(&mut rng, &cases, true));
    let mut edges = String::new();
    for u in 0..200u64 {
        for _ in 0..rng.below(4) {
            edges.push_str(&format!("{u} {}\n", u + 1 + rng.below(30)));
        }
    }
    let list = write_file(d, "edges.txt", edges.as_bytes());
    let edge_flags = ["--format", "edges", "--nodes", "250"];
    let q = queries(d, &mut rng, cases[0].lists.len() as u64, 300);
    let q_edges = write_file(d, "q2.txt", b"2 0 1\n1 249\n3 5 5 7\n");
    for (input, flags, q) in [(&chess, &[][..], &q), (&list, &edge_flags[..], &q_edges)] {
        let idx = index(d, "game.grundy", input, flags);
        // An index that keeps the plays' numbers (`index --play`) reads them back.
        let mut keeping = flags.to_vec();
        keeping.extend_from_slice(&["--play", "misere,conjunctive,continued,selective", "--genus"]);
        let kept = index(d, "kept.grundy", input, &keeping);
        let (plain, more) = (std::fs::metadata(&idx), std::fs::metadata(&kept));
        assert!(more.expect("kept").len() > plain.expect("index").len(), "the plays are kept");
        for shown in ["misere", "misere --genus", "conjunctive", "continued", "selective"] {
            let play: Vec<&str> = std::iter::once("--play").chain(shown.split(' ')).collect();
            for threads in ["1", "2"] {
                let with = |command: &str, file: &Path, file_flags: &[&str]| {
                    let mut args = vec!["-j", threads, command];
                    args.extend_from_slice(&play);
                    args.push(s(file));
                    if command == "query" {
                        args.push(s(q));
                    }
                    args.extend_from_slice(file_flags);
                    run(&args, None).ok()
                };
                for command in ["values", "query"] {
                    let b = with(command, input, flags);
                    for file in [&idx, &kept] {
                        let a = with(command, file, &[]);
                        assert!(a.lines().count() > 1, "{command} --play {shown}: rows");
                        assert_eq!(a, b, "{command} --play {shown} -j {threads} {file:?}");
                    }
                }
                let mut text = vec!["-j", threads];
                text.extend_from_slice(&play);
                let own = text.len();
                text.extend_from_slice(flags);
                let want = stats_json(input, &text);
                let got = stats_json(&kept, &text[..own]);
                assert_eq!(got, want, "stats --play {shown} -j {threads}");
            }
        }
    }
    let refused = |args: &[&str], says: &str| {
        let r = run(args, None);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("error: ") && r.stderr.contains(says), "{}", r.stderr);
    };
    let idx = index(d, "game.grundy", &chess, &[]);
    refused(&["stats", "--play", "misere", s(&idx)], "keeps only their normal-play outcomes");
    let sheets = write_file(d, "sheets.txt", b"2 2\n3 2\n");
    let sums = d.join("sums.txt");
    run(&["game", "cutting", "--export", s(&sheets), "-o", s(&sums)], None).ok();
    let sums_idx = index(d, "sums.grundy", &sums, &["--format", "sums"]);
    refused(&["values", "--play", "continued", s(&sums_idx)], "indexes a sums game");
    let out = d.join("never.grundy");
    for flags in [&["--loopy"][..], &["--format", "sums"][..]] {
        let mut args = vec!["index", "--play", "misere", s(&sums), "-o", s(&out)];
        args.extend_from_slice(flags);
        refused(&args, "--play");
        assert!(!out.exists(), "{flags:?}: no index written");
    }
}

#[test]
fn a_damaged_kept_play_is_refused_by_its_name() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2914);
    let cases = [random_case(&mut rng, 300, 4, 25, 4)];
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let plain = sections(&std::fs::read(index(d, "plain.grundy", &input, &[])).expect("index"));
    let flags = ["--play", "conjunctive,continued,misere", "--genus"];
    let good = std::fs::read(index(d, "kept.grundy", &input, &flags)).expect("index");
    let found = sections(&good);
    assert_eq!(
        found.len(),
        plain.len() + 8,
        "remoteness, suspense, misère values, heaps, tame flags and genera (two), outcomes"
    );
    // The table's kind numbers (docs/INDEX.md): 8 remoteness .. 11 misère heaps, 12 the
    // queries' outcomes under the plays (which `stats --play` reads), 13 misère tame flags.
    let footer = good.len() - 64;
    let table = u64::from_le_bytes(good[footer..footer + 8].try_into().expect("8 bytes")) as usize;
    let kind_of =
        |k: usize| u16::from_le_bytes([good[table + 40 * k + 4], good[table + 40 * k + 5]]);
    for (kind, play, name) in [
        (8, "conjunctive", "remoteness"),
        (9, "continued", "suspense"),
        (10, "misere", "misère values"),
        (11, "misere", "misère heaps"),
        (12, "continued", "plays' query outcomes"),
        (13, "misere", "misère tame flags"),
        (14, "misere --genus", "misère genus codes"),
    ] {
        let k = (0..found.len()).find(|&k| kind_of(k) == kind).expect("a section of the kind");
        let (offset, bytes) = found[k];
        assert!(bytes >= if kind == 12 { 96 } else { 300 }, "{name}: one number a node");
        let mut bad = good.clone();
        bad[offset + bytes / 2] ^= 0x04;
        let bad = write_file(d, "bad.grundy", &bad);
        let command = if kind == 12 { "stats" } else { "values" };
        let mut args = vec![command, "--play"];
        args.extend(play.split(' '));
        args.push(s(&bad));
        let r = run(&args, None);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        let line = r.error_line();
        assert!(line.starts_with(&format!("error: {}", s(&bad))), "{line}");
        assert!(line.contains(&format!("checksum of its {name}")), "{name}: {line}");
        // The other plays and normal play do not read it.
        let normal = run(&["values", s(&bad)], None).ok();
        assert_eq!(normal, run(&["values", s(&input)], None).ok(), "{name}: normal play");
    }
}

/// The little-endian u64 at `at` of an index's bytes, as an offset or a count.
fn u64_at(bytes: &[u8], at: usize) -> usize {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")) as usize
}

/// Where an index's footer starts, and its section table's offset and entry count.
fn section_table(bytes: &[u8]) -> (usize, usize, usize) {
    let footer = bytes.len() - 64;
    (footer, u64_at(bytes, footer), u64_at(bytes, footer + 8))
}

/// The offset of the table entry of the section of kind `kind` (docs/INDEX.md).
fn section_entry(bytes: &[u8], kind: u16) -> usize {
    let (_, table, count) = section_table(bytes);
    (0..count)
        .map(|k| table + 40 * k)
        .find(|&e| u16::from_le_bytes([bytes[e + 4], bytes[e + 5]]) == kind)
        .expect("a section of the kind")
}

/// The checksum of `bytes` as docs/INDEX.md gives it: the XXH3-64 of the XXH3-64s of its
/// 1 MiB blocks.
fn checksum(bytes: &[u8]) -> [u8; 8] {
    use xxhash_rust::xxh3::xxh3_64;
    let blocks: Vec<u8> = bytes.chunks(1 << 20).flat_map(|b| xxh3_64(b).to_le_bytes()).collect();
    xxh3_64(&blocks).to_le_bytes()
}

/// `index` with the section of kind `kind` changed by `change(entry, file)` (the entry's
/// offset in the file), then its checksum, the table's and the footer's written again.
fn resealed(index: &[u8], kind: u16, change: impl Fn(usize, &mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = index.to_vec();
    let (footer, table, count) = section_table(&bytes);
    let entry = section_entry(&bytes, kind);
    change(entry, &mut bytes);
    let width = u16::from_le_bytes([bytes[entry + 6], bytes[entry + 7]]) as usize;
    let (offset, elements) = (u64_at(&bytes, entry + 8), u64_at(&bytes, entry + 16));
    let sum = checksum(&bytes[offset..offset + width * elements]);
    bytes[entry + 24..entry + 32].copy_from_slice(&sum);
    let sum = checksum(&bytes[table..table + 40 * count]);
    bytes[footer + 40..footer + 48].copy_from_slice(&sum);
    let own = xxhash_rust::xxh3::xxh3_64(&bytes[footer..footer + 56]);
    bytes[footer + 56..].copy_from_slice(&own.to_le_bytes());
    bytes
}

/// An index made before kind 13 (misère tame flags) has the misère values and heaps alone: its
/// misère numbers are computed again from the graph, so its answers are the text's. Made here
/// by turning the kind-13 entry into a kind this grundy does not know (which it skips).
#[test]
fn an_index_without_tame_flags_plays_misere_as_the_text() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2915);
    let cases = [random_case(&mut rng, 300, 3, 25, 4)];
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let kept =
        std::fs::read(index(d, "kept.grundy", &input, &["--play", "misere"])).expect("index");
    let unknown = |entry: usize, b: &mut Vec<u8>| {
        b[entry + 4..entry + 6].copy_from_slice(&999u16.to_le_bytes());
    };
    let old = write_file(d, "old.grundy", &resealed(&kept, 13, unknown));
    // The same flags all 0 ("no node is tame"), checksums whole: a reader trusts them.
    let untamed = |entry: usize, b: &mut Vec<u8>| {
        let at = |k: usize| u64::from_le_bytes(b[entry + k..entry + k + 8].try_into().expect("8"));
        let (offset, nodes) = (at(8) as usize, at(16) as usize);
        b[offset..offset + nodes].fill(0);
    };
    let untamed = write_file(d, "untamed.grundy", &resealed(&kept, 13, untamed));
    let asked: String = (0..400)
        .map(|_| {
            let tokens: Vec<String> =
                (0..2 + rng.below(3)).map(|_| rng.below(300).to_string()).collect();
            format!("{} {}\n", tokens.len(), tokens.join(" "))
        })
        .collect();
    let q = write_file(d, "q.txt", asked.as_bytes());
    let query = |game: &Path| run(&["query", "--play", "misere", s(game), s(&q)], None).ok();
    let text = query(&input);
    assert_eq!(query(&old), text, "no tame flags: computed again");
    // These sums need the flags: with none tame, some answers change.
    assert_ne!(query(&untamed), text, "the flags decide some of the sums");
    let values = |game: &Path| run(&["values", "--play", "misere", s(game)], None).ok();
    assert_eq!(values(&old), values(&input));
}

/// Genus codes forged with their checksums made whole are still checked: a code with bits
/// past its prefix's entries, or naming a long prefix there is not, is refused as corrupt; the
/// genus is not read without `--genus`, so misère play without it still answers.
#[test]
fn forged_genus_codes_are_refused() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2916);
    let cases = [random_case(&mut rng, 200, 3, 20, 3)];
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let flags = ["--play", "misere", "--genus"];
    let kept = std::fs::read(index(d, "kept.grundy", &input, &flags)).expect("index");
    let forge = |code: u64| {
        move |entry: usize, b: &mut Vec<u8>| {
            let offset = u64::from_le_bytes(b[entry + 8..entry + 16].try_into().expect("8"));
            let at = offset as usize + 8 * 7;
            b[at..at + 8].copy_from_slice(&code.to_le_bytes());
        }
    };
    // A prefix of 2 entries with a stray nibble; a long prefix that is not there.
    for (name, code) in [("stray", 0x1000_0000_0000_0010u64), ("absent", 1_000_000)] {
        let bad = write_file(d, &format!("{name}.grundy"), &resealed(&kept, 14, forge(code)));
        let r = run(&["values", "--play", "misere", "--genus", s(&bad)], None);
        assert_eq!(r.code, 1, "{name}: {}", r.stderr);
        assert!(r.error_line().contains("corrupt: its misère genus codes do not check"), "{name}");
        let without = run(&["values", "--play", "misere", s(&bad)], None).ok();
        assert_eq!(without, run(&["values", "--play", "misere", s(&input)], None).ok());
    }
}

/// An index keeps its out-lists in mex order (kind 16), so that a winning move is read, not
/// searched for. An index whose lists are in input order (kind 3, as one made before kind 16)
/// answers as the text does under every play; one whose lists only claim mex order (forged,
/// checksums made whole) still answers every WIN with a real move to a LOSE.
#[test]
fn lists_in_either_order_answer_and_a_false_order_still_moves_to_a_lose() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(2917);
    let cases = [random_case(&mut rng, 300, 6, 0, 4)];
    let lists = &cases[0].lists;
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let made = std::fs::read(index(d, "game.grundy", &input, &[])).expect("index");
    let in_input_order = |entry: usize, b: &mut Vec<u8>| {
        let offset = u64::from_le_bytes(b[entry + 8..entry + 16].try_into().expect("8")) as usize;
        let targets: Vec<u8> = lists.iter().flatten().flat_map(|t| t.to_le_bytes()).collect();
        b[offset..offset + targets.len()].copy_from_slice(&targets);
    };
    let relabel = |entry: usize, b: &mut Vec<u8>| {
        in_input_order(entry, b);
        b[entry + 4..entry + 6].copy_from_slice(&3u16.to_le_bytes());
    };
    let old = write_file(d, "old.grundy", &resealed(&made, 16, relabel));
    let forged = write_file(d, "forged.grundy", &resealed(&made, 16, in_input_order));
    assert_ne!(std::fs::read(&forged).expect("forged"), made, "the lists were in mex order");
    let q = queries(d, &mut rng, lists.len() as u64, 600);
    for play in ["normal", "misere", "conjunctive", "selective"] {
        let query = |game: &Path| run(&["query", "--play", play, s(game), s(&q)], None).ok();
        let text = query(&input);
        assert_eq!(query(&index(d, "made.grundy", &input, &[])), text, "{play}");
        assert_eq!(query(&old), text, "{play}: lists in input order");
    }
    // The forged lists: each WIN's move is one of its token's moves, to a LOSE.
    let values = relaxation_values(lists);
    let rows = run(&["query", s(&forged), s(&q)], None).ok();
    let mut wins = 0;
    for row in rows.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let tokens: Vec<u32> = f[1].split(' ').map(|t| t.parse().expect("token")).collect();
        let nim = tokens.iter().fold(0, |x, &t| x ^ values[t as usize]);
        assert_eq!(f[3], if nim == 0 { "LOSE" } else { "WIN" }, "{row}");
        if nim == 0 {
            continue;
        }
        wins += 1;
        let (from, to): (u32, u32) = (f[4].parse().expect("from"), f[5].parse().expect("to"));
        assert!(tokens.contains(&from) && lists[from as usize].contains(&to), "{row}");
        let after = nim ^ values[from as usize] ^ values[to as usize];
        assert_eq!(after, 0, "{row}: the move leaves a LOSE");
    }
    assert!(wins > 100, "{wins} WINs checked");
}

/// `index` with every target of its out-lists (kind 16, in mex order) set to `to`, nothing
/// resealed: what a reader with `--trust` takes as it is.
fn moves_to(index: &[u8], to: u32) -> Vec<u8> {
    let mut bytes = index.to_vec();
    let entry = section_entry(&bytes, 16);
    let (offset, targets) = (u64_at(&bytes, entry + 8), u64_at(&bytes, entry + 16));
    assert!(targets > 100, "{targets} moves");
    for t in bytes[offset..offset + 4 * targets].chunks_exact_mut(4) {
        t.copy_from_slice(&to.to_le_bytes());
    }
    bytes
}

/// The columns `keep` (by number) of CSV rows.
fn columns(csv: &str, keep: &[usize]) -> Vec<Vec<String>> {
    let row = |line: &str| {
        let fields: Vec<&str> = line.split(',').collect();
        keep.iter().map(|&k| fields[k].to_string()).collect()
    };
    csv.lines().map(row).collect()
}

/// `--trust` skips the checksums, not the bounds the readers index by (issue 63: `stats
/// --trust` panicked at a move past the node count). Every move of an index made to lead past
/// its nodes: the readers of the whole game (stats, the plays' numbers) refuse it with one
/// line naming the file; those of single positions (query's winning moves, a loopy node's
/// follower values) take such a move as no move, and answer from the values, which are whole.
#[test]
fn moves_past_the_nodes_read_with_trust_are_refused_or_skipped() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(63);
    let cases = [random_case(&mut rng, 300, 4, 0, 1)];
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let good = std::fs::read(index(d, "good.grundy", &input, &[])).expect("index");
    let q = queries(d, &mut rng, 300, 400);
    for to in [300, u32::MAX] {
        let bad = write_file(d, "bad.grundy", &moves_to(&good, to));
        let refusal = format!(
            "error: {}: case 1: corrupt: a move leads to a node that is not in the case",
            s(&bad)
        );
        for args in [
            &["stats", "--trust", s(&bad)][..],
            &["stats", "--trust", "--json", s(&bad)],
            &["values", "--trust", "--play", "misere", s(&bad)],
            &["values", "--trust", "--play", "conjunctive", s(&bad)],
            &["query", "--trust", "--play", "selective", s(&bad), s(&q)],
        ] {
            assert_eq!(run(args, None).error_line(), refusal, "{args:?}, moves to {to}");
        }
        let trusted = |args: &[&str], file: &Path| {
            let mut all = args.to_vec();
            all.extend_from_slice(&["--trust", s(file)]);
            if args[0] == "query" {
                all.push(s(&q));
            }
            run(&all, None).ok()
        };
        // values reads no move; query's outcomes are the values' (its moves are gone).
        assert_eq!(trusted(&["values"], &bad), trusted(&["values"], &d.join("good.grundy")));
        let rows = trusted(&["query"], &bad);
        let made = trusted(&["query"], &d.join("good.grundy"));
        assert_eq!(columns(&rows, &[0, 1, 2, 3]), columns(&made, &[0, 1, 2, 3]), "moves to {to}");
        assert!(made.contains(",WIN,") && rows.lines().skip(1).all(|r| r.ends_with(",,")));
    }
    // A loopy game: stats refuses; values and query answer, no crash.
    let lists: Vec<Vec<u32>> =
        (0..300).map(|_| (0..rng.below(4)).map(|_| rng.below(300) as u32).collect()).collect();
    let cyclic = [crate::util::Case { lists, queries: Vec::new() }];
    let input = write_file(d, "loopy.txt", &write_messy(&mut rng, &cyclic, false));
    let good = std::fs::read(index(d, "loopy.grundy", &input, &["--loopy"])).expect("index");
    let bad = write_file(d, "bad.grundy", &moves_to(&good, 300));
    let line = run(&["stats", "--trust", "--loopy", s(&bad)], None).error_line();
    assert!(line.ends_with("a move leads to a node that is not in the case"), "{line}");
    let values = run(&["values", "--trust", "--loopy", s(&bad)], None).ok();
    let made = run(&["values", "--loopy", s(&input)], None).ok();
    assert_eq!(columns(&values, &[0, 1, 2]), columns(&made, &[0, 1, 2]), "loopy values");
    run(&["query", "--trust", "--loopy", s(&bad), s(&q)], None).ok();
}

/// A value or a level no game has, forged with its checksums made whole, is refused by the
/// readers that count nodes per value and per level (issue 63: a forged 4-byte level would
/// size their tables at gigabytes): a value above its node's move count (a mex of that many
/// values), a level at the node count or past it.
#[test]
fn forged_values_and_levels_past_a_games_bounds_are_refused() {
    let dir = tempdir();
    let d = dir.path();
    let mut rng = Rng::new(6310);
    let cases = [random_case(&mut rng, 300, 4, 20, 2)];
    let sink = cases[0].lists.iter().position(Vec::is_empty).expect("a sink") as u32;
    let input = write_file(d, "game.txt", &write_messy(&mut rng, &cases, false));
    let good = std::fs::read(index(d, "good.grundy", &input, &[])).expect("index");
    // Entry `at` of a section of the given width set to `x`.
    let set = |at: u32, x: u32| {
        move |entry: usize, b: &mut Vec<u8>| {
            let offset = u64::from_le_bytes(b[entry + 8..entry + 16].try_into().expect("8"));
            let width = u16::from_le_bytes([b[entry + 6], b[entry + 7]]) as usize;
            let at = offset as usize + width * at as usize;
            b[at..at + width].copy_from_slice(&x.to_le_bytes()[..width]);
        }
    };
    for (kind, at, x, what) in [
        (4, sink, 1, "a value is above its node's move count"),
        (5, 7, 300, "a level is not below the node count"),
        (5, sink, 9999, "a level is not below the node count"),
    ] {
        let bad = write_file(d, "bad.grundy", &resealed(&good, kind, set(at, x)));
        for args in [&["stats", s(&bad)][..], &["values", "--play", "misere", s(&bad)]] {
            let line = run(args, None).error_line();
            assert_eq!(line, format!("error: {}: case 1: corrupt: {what}", s(&bad)), "{args:?}");
        }
    }
}
