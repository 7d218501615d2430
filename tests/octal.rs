//! `grundy octal CODE`: published periods, a brute force over all moves on random codes, the
//! sparse method against the naive one at both thread counts, the traps of a zero preperiod,
//! bad codes, the table and the plot.

use crate::util::*;

/// G(0..=n) of an octal code (digits d0.d1..dk, octal or hexadecimal), by trying every way of
/// removing j tokens and leaving 0, 1, 2 or 3 non-empty heaps, over all orders of the parts:
/// written from the definition, independently of the engine.
fn brute_force(digits: &[u32], n: usize) -> Vec<u32> {
    let mut g: Vec<u32> = Vec::new();
    for h in 0..=n {
        let mut options = std::collections::HashSet::new();
        for (j, &d) in digits.iter().enumerate() {
            if j > h {
                break;
            }
            let rest = h - j;
            if d & 1 != 0 && rest == 0 && j > 0 {
                options.insert(0);
            }
            if d & 2 != 0 && rest >= 1 && j > 0 {
                options.insert(g[rest]);
            }
            if d & 4 != 0 {
                for a in 1..rest {
                    options.insert(g[a] ^ g[rest - a]);
                }
            }
            if d & 8 != 0 {
                for a in 1..rest {
                    for b in 1..rest - a {
                        options.insert(g[a] ^ g[b] ^ g[rest - a - b]);
                    }
                }
            }
        }
        g.push((0..).find(|x| !options.contains(x)).unwrap());
    }
    g
}

/// The smallest period and preperiod `g` shows over its whole length with at least `tail`
/// values of repeats beyond the preperiod, by search.
fn observed_period(g: &[u32], tail: usize) -> Option<(usize, usize)> {
    (1..g.len() / 4).find_map(|p| {
        let n0 = (0..g.len() - p).rev().find(|&n| g[n + p] != g[n]).map_or(0, |n| n + 1);
        (n0 + p + tail <= g.len()).then_some((p, n0))
    })
}

struct Octal {
    json: serde_json::Value,
    table: Vec<u32>,
}

/// Runs `grundy [threads] octal code extra.. -o table --json` and reads both outputs.
fn octal(threads: &str, code: &str, extra: &[&str]) -> Octal {
    let dir = tempdir();
    let table = dir.path().join("t.csv");
    let mut args =
        vec!["--threads", threads, "octal", code, "--json", "-o", table.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = run(&args, None).ok();
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let text = std::fs::read_to_string(&table).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("n,grundy"));
    let table = lines
        .enumerate()
        .map(|(i, line)| {
            let (n, g) = line.split_once(',').unwrap();
            assert_eq!(n.parse::<usize>().unwrap(), i);
            g.parse().unwrap()
        })
        .collect();
    Octal { json, table }
}

fn period_of(json: &serde_json::Value) -> Option<(usize, usize)> {
    let p = json["period"].as_u64()?;
    Some((p as usize, json["preperiod"].as_u64().unwrap() as usize))
}

#[test]
fn published_periods_are_found_and_certified() {
    // OEIS A002186 (Kayles), A002187 (Dawson's Chess), Winning Ways, tczajka's solved games.
    for (code, period, preperiod) in [
        ("0.77", 12, 71),
        (".137", 34, 52),
        ("0.07", 34, 53),
        (".4", 34, 54),
        (".45", 20, 498),
        (".156", 349, 3479),
        (".356", 142, 7315),
        (".644", 442, 3256),
        (".165", 1550, 5181),
    ] {
        let run = octal("2", code, &["-n", "100000"]);
        assert_eq!(period_of(&run.json), Some((period, preperiod)), "{code}");
        assert_eq!(run.json["certified"], true, "{code}");
        // It stopped where the proof is complete, the table goes on to the n asked for, and
        // every value computed is right.
        let n = run.json["n"].as_u64().unwrap() as usize;
        assert_eq!(run.table.len(), 100_001, "{code}");
        assert_eq!(run.json["extended_to"], 100_000, "{code}");
        assert!(n < 100_000, "{code}: stopped at {n}");
        if n <= 8000 {
            let digits: Vec<u32> = code
                .trim_start_matches('0')
                .chars()
                .skip(1)
                .map(|c| c.to_digit(8).unwrap())
                .collect();
            let mut all = vec![0];
            all.extend(digits);
            assert_eq!(run.table[..=n], brute_force(&all, n), "{code}");
        }
    }
    // Kayles' values from OEIS A002186.
    let kayles = octal("1", "0.77", &[]).table;
    assert_eq!(
        kayles[..24],
        [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7]
    );
}

/// Regression (issue 24, item 8): `octal 0.77 -n 20000 -o t.csv` wrote 167 rows, since the
/// computation stops where the period is proved. The table (and the plot) now go to the n
/// asked for, the rest given by the period; `n` and `computed` still say where the
/// computation stopped, `extended_to` and `extended` how far the files go.
#[test]
fn the_table_goes_to_the_n_asked_for_past_a_proved_period() {
    let n = 4000;
    for (code, digits) in [("0.77", vec![0, 7, 7]), ("0.07", vec![0, 0, 7]), (".45", vec![0, 4, 5])]
    {
        let truth = brute_force(&digits, n);
        let naive = octal("1", code, &["-n", &n.to_string(), "--naive"]);
        for threads in ["1", "2"] {
            let run = octal(threads, code, &["-n", &n.to_string()]);
            assert_eq!(run.table, truth, "{code}");
            assert_eq!(run.table, naive.table, "{code}");
            let computed = run.json["n"].as_u64().unwrap() as usize;
            assert!(computed < n / 2, "{code}: computed to {computed}");
            assert_eq!(run.json["extended_to"], n, "{code}");
        }
        let text = run(&["octal", code, "-n", &n.to_string()], None).ok();
        let computed = naive.json["n"].as_u64().unwrap();
        assert!(text.contains(&format!("computed   G(0..={computed})\n")), "{text}");
        let extended = format!(
            "extended   G({}..={n}) by the period (-o and --plot show G(0..={n}))\n",
            computed + 1
        );
        assert!(text.contains(&extended), "{text}");
    }
    // Without a period nothing is extended.
    let plain = octal("2", "0.007", &["-n", "300"]);
    let ends = (plain.json["n"].as_u64(), plain.json["extended_to"].as_u64());
    assert_eq!((ends, plain.table.len()), ((Some(300), Some(300)), 301));
    assert!(!run(&["octal", "0.007", "-n", "300"], None).ok().contains("extended"));
}

#[test]
fn codes_with_splits_and_takes_of_every_kind_prove_what_a_brute_force_shows() {
    // 0.51: take one (emptying the heap, or leaving two heaps), or a heap of exactly two;
    // 4.07: split a heap, or take two (any way); both from the list.
    for (code, digits) in [("0.51", vec![0, 5, 1]), ("4.07", vec![4, 0, 7])] {
        let truth = brute_force(&digits, 3000);
        let run = octal("2", code, &["-n", "3000"]);
        assert_eq!(run.table, truth[..run.table.len()], "{code}");
        let (p, n0) = period_of(&run.json).unwrap_or_else(|| panic!("{code}: no period"));
        assert_eq!(observed_period(&truth, 500), Some((p, n0)), "{code}");
    }
}

/// A random code: up to `len` digits after the dot, octal or (with `hex`) hexadecimal, with
/// d0 0 or 4 (hexadecimal: 0, 4, 8 or c).
fn random_code(rng: &mut Rng, len: usize, hex: bool) -> (String, Vec<u32>) {
    let radix = if hex { 16 } else { 8 };
    let d0 = [0, 4, 8, 12][rng.below(if hex { 4 } else { 2 }) as usize];
    let mut digits = vec![d0];
    for _ in 0..1 + rng.below(len as u64) {
        digits.push(rng.below(radix) as u32);
    }
    let text =
        format!("{:x}.{}", d0, digits[1..].iter().map(|d| format!("{d:x}")).collect::<String>());
    (text, digits)
}

#[test]
fn random_codes_agree_with_a_brute_force_and_their_periods_hold() {
    let mut rng = Rng::new(14);
    let mut certified = 0;
    for round in 0..120 {
        let hex = round % 6 == 5;
        let (code, digits) = random_code(&mut rng, 4, hex);
        if digits.iter().all(|&d| d & if hex { 15 } else { 7 } == 0)
            || digits[1..].iter().all(|&d| d == 0) && digits[0] == 0
        {
            continue;
        }
        let n = if hex { 150 } else { 1500 };
        let mut extra = vec!["-n", "1500"];
        if hex {
            extra = vec!["-n", "150", "--hex"];
        }
        let truth = brute_force(&digits, n);
        let run = octal("2", &code, &extra);
        assert_eq!(run.table, truth[..run.table.len()], "{code}");
        match period_of(&run.json) {
            Some((p, n0)) => {
                certified += 1;
                // The period holds over everything the brute force computed, and is the
                // smallest it shows.
                assert!((n0..=n - p).all(|k| truth[k + p] == truth[k]), "{code}: {p} from {n0}");
                assert_eq!(observed_period(&truth, p), Some((p, n0)), "{code}");
            }
            None => assert_eq!(run.table.len(), n + 1, "{code}: computed all"),
        }
    }
    assert!(certified >= 30, "only {certified} codes certified");
}

#[test]
fn the_sparse_method_equals_the_naive_one_at_both_thread_counts() {
    let mut rng = Rng::new(7);
    let mut codes: Vec<String> = vec!["0.007".into(), "0.77".into(), "4.07".into(), "0.51".into()];
    codes.extend((0..40).map(|_| random_code(&mut rng, 5, false).0));
    for code in codes {
        let naive = run(&["--sequential", "octal", &code, "-n", "3000", "--naive", "--json"], None);
        if naive.code != 0 {
            continue; // a code with no move
        }
        let naive = octal("1", &code, &["-n", "3000", "--naive"]);
        for threads in ["1", "2"] {
            let sparse = octal(threads, &code, &["-n", "3000"]);
            assert_eq!(sparse.table, naive.table, "{code} on {threads} threads");
            assert_eq!(sparse.json["period"], naive.json["period"], "{code}");
        }
    }
}

#[test]
fn zero_preperiods_are_not_certified_early() {
    // The textbook bound 2 n0 + p + k proves false periods when n0 = 0.
    for (code, period, preperiod) in [(".4", 34, 54), ("0.1", 1, 2), ("0.002", 6, 1)] {
        let digits: Vec<u32> =
            code.split('.').nth(1).unwrap().chars().map(|c| c.to_digit(8).unwrap()).collect();
        let mut all = vec![0];
        all.extend(digits);
        let truth = brute_force(&all, 400);
        assert_eq!(observed_period(&truth, 100), Some((period, preperiod)), "{code}");
        for n in [1, 2, 3, 5, 8, 13, 40] {
            let run = octal("1", code, &["-n", &n.to_string()]);
            if let Some((p, n0)) = period_of(&run.json) {
                assert_eq!((p, n0), (period, preperiod), "{code} at -n {n}");
            }
        }
        assert_eq!(period_of(&octal("1", code, &[]).json), Some((period, preperiod)), "{code}");
    }
}

#[test]
fn bad_codes_are_one_error_line_and_write_nothing() {
    let dir = tempdir();
    let table = dir.path().join("t.csv");
    for (code, hex, says) in [
        ("0.8", false, "character 3"),
        ("0.", false, "no move"),
        (".", false, "no move"),
        ("0.000", false, "no move"),
        ("1.07", false, "character 1"),
        ("0.0g", true, "character 4"),
        ("kayles", false, "expected d0.d1d2"),
        ("0.7x", false, "character 4"),
    ] {
        let mut args = vec!["octal", code, "-o", table.to_str().unwrap()];
        if hex {
            args.push("--hex");
        }
        let out = run(&args, None);
        assert_eq!(out.code, 1, "{code}");
        assert!(out.stderr.starts_with("error: "), "{code}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{code}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{code}: {}", out.stderr);
        assert!(!table.exists(), "{code}");
    }
    // Valid edge cases: a split-only game, hexadecimal three-heap splits.
    for (code, digits, hex) in
        [("4.", vec![4], false), ("0.f", vec![0, 15], true), ("c.3", vec![12, 3], true)]
    {
        let mut extra = vec!["-n", "40"];
        if hex {
            extra.push("--hex");
        }
        let table = octal("1", code, &extra).table;
        assert_eq!(table, brute_force(&digits, 40)[..table.len()], "{code}");
    }
}

#[test]
fn the_plot_is_valid_svg() {
    let dir = tempdir();
    let svg = dir.path().join("g.svg");
    let points = |n: &str| {
        let out = run(&["octal", "0.07", "-n", n, "--plot", svg.to_str().unwrap()], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("period 34 from n = 53"));
        let doc = roxmltree::Document::parse(&text).unwrap();
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        root.descendants().filter(|n| n.tag_name().name() == "circle").count()
    };
    // One point per value of G(0..=n), past the proof too: the picture holds the sequence.
    assert_eq!(points("3000"), 3001);
    // A long one is sampled evenly: every sixth of G(0..=100000).
    assert_eq!(points("100000"), 100_001usize.div_ceil(6));
}

#[test]
fn crosses_is_treblecross_shifted_by_two() {
    // g_crosses(n) = G_0.007(n + 2), on the game command's table.
    let input: String = (1..=600).map(|n| format!("{n}\n")).collect();
    let table = run(&["game", "crosses", "--table"], Some(input.as_bytes())).ok();
    let octal = octal("2", "0.007", &["-n", "602"]).table;
    for line in table.lines().skip(1) {
        let (n, g) = line.split_once(',').unwrap();
        let (n, g): (usize, u32) = (n.parse().unwrap(), g.parse().unwrap());
        assert_eq!(g, octal[n + 2], "strip {n}");
    }
}

/// `--histogram` counts each value among G(0..2^k) for every power of two up to N + 1 and at
/// N + 1, as the table's own rows count them; past a proved period too (0.77 stops early,
/// the period gives the rest).
#[test]
fn the_histogram_counts_the_tables_values_up_to_each_power_of_two() {
    for (code, n) in [("0.6", 3000usize), ("0.77", 5000), ("0.137", 1023)] {
        let dir = tempdir();
        let counts = dir.path().join("h.csv");
        let counts_arg = counts.to_str().expect("UTF-8 path");
        let Octal { table, .. } =
            octal("2", code, &["-n", &n.to_string(), "--histogram", counts_arg]);
        assert_eq!(table.len(), n + 1);
        let mut expected = String::from("heaps,grundy,count\n");
        let mut bounds: Vec<usize> =
            (0..).map(|k| 1usize << k).take_while(|&b| b <= n + 1).collect();
        if bounds.last() != Some(&(n + 1)) {
            bounds.push(n + 1);
        }
        for heaps in bounds {
            let mut by_value = std::collections::BTreeMap::new();
            for &g in &table[..heaps] {
                *by_value.entry(g).or_insert(0u64) += 1;
            }
            for (g, c) in by_value {
                expected.push_str(&format!("{heaps},{g},{c}\n"));
            }
        }
        assert_eq!(std::fs::read_to_string(&counts).expect("the histogram"), expected, "{code}");
    }
}

/// `--checkpoint`: a run killed (SIGKILL) once its checkpoint is on disk, started again with
/// the same command, says where it goes on from and writes the bytes of a run never stopped;
/// the checkpoint is gone once the run ends.
#[test]
fn a_run_killed_and_started_again_from_its_checkpoint_writes_the_same_bytes() {
    let dir = tempdir();
    let path = |name: &str| dir.path().join(name).to_str().expect("UTF-8 path").to_string();
    let (ck, table, counts) = (path("ck"), path("t.csv"), path("h.csv"));
    let n = "400000";
    let args = |table: &str, counts: &str| {
        let mut args = vec!["--sequential", "octal", "0.6", "-n", n, "-o", table];
        args.extend(["--histogram", counts, "--checkpoint", &ck, "--checkpoint-every", "0"]);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let whole =
        run(&["octal", "0.6", "-n", n, "-o", &path("w.csv"), "--histogram", &path("w.h")], None);
    whole.ok();
    let mut child = grundy()
        .args(args(&table, &counts))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("binary starts");
    let start = std::time::Instant::now();
    // Killed once the checkpoint counts more than 2^16 values.
    while std::fs::read(&ck).ok().and_then(|b| checkpoint_count(&b)).unwrap_or(0) <= 1 << 16 {
        assert!(start.elapsed().as_secs() < 60, "no checkpoint written");
        assert!(child.try_wait().expect("the run").is_none(), "ended before a checkpoint");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("the killed run");
    assert!(!std::path::Path::new(&table).exists(), "a killed run left a table");
    let args = args(&table, &counts);
    let again = run(&args.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let heaps: usize = again
        .stderr
        .strip_prefix(&format!("grundy: going on from {ck}: G(0..="))
        .and_then(|rest| rest.strip_suffix(") computed before\n"))
        .and_then(|h| h.parse().ok())
        .unwrap_or_else(|| panic!("no note of the checkpoint: {}", again.stderr));
    assert!(heaps > 60_000 && heaps < 400_000, "went on from {heaps}");
    let read = |p: &str| std::fs::read(p).expect("an output");
    assert!(read(&table) == read(&path("w.csv")), "the tables differ");
    assert!(read(&counts) == read(&path("w.h")), "the histograms differ");
    assert!(!std::path::Path::new(&ck).exists(), "the checkpoint outlived the run");
    for width in [1, 2, 4] {
        let values = format!("{ck}.values{width}");
        assert!(!std::path::Path::new(&values).exists(), "{values} outlived the run");
    }
}

/// How many values a version 2 checkpoint counts (docs: magic, version, width, byte order,
/// the code's length and text, then the count), if its bytes go that far.
fn checkpoint_count(bytes: &[u8]) -> Option<u64> {
    let text = u32::from_le_bytes(bytes.get(20..24)?.try_into().ok()?) as usize;
    Some(u64::from_le_bytes(bytes.get(24 + text..32 + text)?.try_into().ok()?))
}

/// A checkpoint that is not a whole one of this code is refused with one line, exit 1, and
/// nothing written: damaged anywhere, cut short, of another code, not a checkpoint at all.
#[test]
fn a_damaged_or_foreign_checkpoint_is_refused() {
    let dir = tempdir();
    let ck = dir.path().join("ck");
    let ck_arg = ck.to_str().expect("UTF-8 path");
    let table = dir.path().join("t.csv");
    let table_arg = table.to_str().expect("UTF-8 path");
    // A checkpoint of 0.007 to a heap count past 2^16, from a run killed as soon as one exists.
    let mut child = grundy()
        .args(["octal", "0.007", "-n", "3000000", "--checkpoint", ck_arg])
        .args(["--checkpoint-every", "0"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("binary starts");
    while !ck.exists() {
        assert!(child.try_wait().expect("the run").is_none(), "ended before a checkpoint");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("the killed run");
    let good = std::fs::read(&ck).expect("the checkpoint");
    let mut bad: Vec<(Vec<u8>, &str)> = vec![
        (good[..good.len() - 1].to_vec(), "truncated"),
        (good[..20].to_vec(), "truncated"),
        (b"n,grundy\n0,0\n".to_vec(), "not a grundy octal checkpoint"),
        ([&good[..], b"x"].concat(), "more than its header says"),
    ];
    for at in [9, 13, 40, good.len() / 2, good.len() - 3] {
        let mut flipped = good.clone();
        flipped[at] ^= 1;
        bad.push((flipped, ""));
    }
    for (bytes, words) in bad {
        std::fs::write(&ck, &bytes).expect("a checkpoint");
        let args = ["octal", "0.007", "-n", "100000", "--checkpoint", ck_arg, "-o", table_arg];
        let line = run(&args, None).error_line();
        assert!(line.starts_with(&format!("error: {ck_arg}: ")), "{line}");
        assert!(line.contains(words), "{line}");
        assert!(!table.exists());
        assert_eq!(std::fs::read(&ck).expect("kept"), bytes, "a refused checkpoint was changed");
    }
    std::fs::write(&ck, &good).expect("a checkpoint");
    let line = run(&["octal", "0.6", "--checkpoint", ck_arg], None).error_line();
    assert_eq!(line, format!("error: {ck_arg}: a checkpoint of 0.007, not of 0.6"));
    // The checkpoint whole, its values file (0.007's values fit a byte) damaged or cut short.
    let values = format!("{ck_arg}.values1");
    let count = checkpoint_count(&good).expect("a count") as usize;
    let kept = std::fs::read(&values).expect("the values file");
    let mut flipped = kept.clone();
    flipped[count / 2] ^= 1;
    let args = ["octal", "0.007", "-n", "100000", "--checkpoint", ck_arg, "-o", table_arg];
    for (bytes, words) in [(flipped, "do not match"), (kept[..count - 1].to_vec(), "fewer than")] {
        std::fs::write(&values, &bytes).expect("a values file");
        let line = run(&args, None).error_line();
        assert!(line.starts_with(&format!("error: {values}: ")), "{line}");
        assert!(line.contains(words), "{line}");
        assert!(!table.exists());
    }
    std::fs::write(&values, &kept).expect("a values file");
    assert_eq!(run(&args, None).code, 0, "the checkpoint mended reads");
}

/// Regression (issue 63): `octal -n 99999999999999` failed with "a temporary file: cannot
/// write: File too large", `-n` past 2^64 - 2 panicked on an overflow, and a file size limit
/// (`ulimit -f`) killed the run with SIGXFSZ. An `-n` whose table cannot be had is refused
/// before anything is computed or written, naming `-n` and the bytes its table needs.
#[test]
fn an_n_whose_table_no_disk_holds_names_n_and_its_bytes() {
    let dir = tempdir();
    let checkpoint = dir.path().join("run.ck");
    let checkpoint = checkpoint.to_str().unwrap();
    let huge = "99999999999999";
    for (n, extra, needs) in [
        (huge, &[][..], "needs 100000000000000 bytes (100 TB, a byte a heap to start with)"),
        (huge, &["--naive"], "needs 400000000000000 bytes (400 TB, 4 bytes a heap)"),
        (huge, &["--checkpoint", checkpoint], "needs 100000000000000 bytes"),
        ("18446744073709551615", &[], "needs more than 2^64 bytes"),
        ("4611686018427387904", &["--naive"], "needs more than 2^64 bytes"),
    ] {
        let r = run(&[&["octal", "0.07", "-n", n][..], extra].concat(), None);
        assert_eq!(r.code, 2, "{n} {extra:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        let start = format!("error: -n {n}: G(0..=N) {needs}");
        assert!(r.stderr.starts_with(&start), "{n} {extra:?}: {}", r.stderr);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing written");
    }
    // 5000001 bytes in a temporary file, past a limit of 1000 blocks of at most 1 KiB.
    let limited = std::process::Command::new("sh")
        .args(["-c", "ulimit -f 1000 && exec \"$0\" octal 0.07 -n 5000000"])
        .arg(env!("CARGO_BIN_EXE_grundy"))
        .output()
        .expect("sh runs");
    let stderr = String::from_utf8_lossy(&limited.stderr);
    assert_eq!(limited.status.code(), Some(2), "{stderr}");
    let start = "error: -n 5000000: G(0..=N) needs 5000001 bytes (5.0 MB, a byte a heap";
    assert!(stderr.starts_with(start) && stderr.contains("(ulimit -f)"), "{stderr}");
}
