//! Helpers shared by the integration tests: running the real binary, a seeded random source,
//! random chess-format inputs written with messy whitespace, and deliberately simple oracles.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a run of the binary left behind.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// Asserts success with an empty stderr and returns stdout as text.
    pub fn ok(&self) -> String {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert!(self.stderr.is_empty(), "stderr: {}", self.stderr);
        self.stdout_text()
    }

    /// Asserts a failure with exit code 1, nothing on stdout, and one `error:` line on stderr;
    /// returns that line without its newline.
    pub fn error_line(&self) -> String {
        assert_eq!(self.code, 1, "stdout: {:?} stderr: {}", self.stdout_text(), self.stderr);
        assert!(self.stderr.starts_with("error: "), "{}", self.stderr);
        assert_eq!(self.stderr.lines().count(), 1, "{}", self.stderr);
        self.stderr.trim_end().to_string()
    }
}

/// The binary under test.
pub fn grundy() -> Command {
    Command::new(env!("CARGO_BIN_EXE_grundy"))
}

/// Runs the binary with `args`, feeding `stdin` (empty if `None`).
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = grundy()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let input = stdin.unwrap_or_default().to_vec();
    let mut pipe = child.stdin.take().expect("stdin is piped");
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().expect("binary runs");
    feeder.join().expect("feeder thread");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `grundy solve FILE`.
pub fn solve_file(path: &Path) -> Run {
    run(&["solve", path.to_str().expect("UTF-8 path")], None)
}

/// A temporary folder for one test, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temporary folder")
}

/// Writes `bytes` to `name` in `dir` and returns the path.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write test input");
    path
}

/// The repository's own files (`data/`, `tests/data/`).
pub fn repo_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// SplitMix64: small, seeded, good enough to generate test inputs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// One test case: adjacency lists and queries.
#[derive(Debug, Clone)]
pub struct Case {
    pub lists: Vec<Vec<u32>>,
    pub queries: Vec<Vec<u32>>,
}

/// A random DAG on `n` nodes: ids are shuffled against a hidden topological rank, edges only
/// go from lower to higher rank; duplicates and parallel edges happen.
pub fn random_case(rng: &mut Rng, n: usize, max_degree: u64, queries: usize, max_m: u64) -> Case {
    let mut rank: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut rank);
    let mut by_rank = vec![0u32; n];
    for (v, &r) in rank.iter().enumerate() {
        by_rank[r as usize] = v as u32;
    }
    let lists = (0..n)
        .map(|v| {
            let r = rank[v] as usize;
            let later = (n - r - 1) as u64;
            if later == 0 {
                return Vec::new();
            }
            let degree = rng.below(max_degree + 1);
            (0..degree).map(|_| by_rank[r + 1 + rng.below(later) as usize]).collect()
        })
        .collect();
    let queries = (0..queries)
        .map(|_| (0..1 + rng.below(max_m)).map(|_| rng.below(n as u64) as u32).collect())
        .collect();
    Case { lists, queries }
}

/// A query file's text: each query as its token count and positions, one per line.
pub fn query_lines(queries: &[Vec<u32>]) -> String {
    let line = |q: &Vec<u32>| {
        let items: Vec<String> = q.iter().map(u32::to_string).collect();
        format!("{} {}\n", q.len(), items.join(" "))
    };
    queries.iter().map(line).collect()
}

/// Writes cases in the chess format with randomly chosen whitespace; when `omit_final_zero`,
/// the last case's terminating `0` is left out (which the format allows at end of input).
pub fn write_messy(rng: &mut Rng, cases: &[Case], omit_final_zero: bool) -> Vec<u8> {
    const SPACES: [&str; 8] = [" ", "  ", "\t", " \t ", "\r\n", "\n\n", " \x0b", "\x0c"];
    let mut out = Vec::new();
    let mut sep = |out: &mut Vec<u8>, rng: &mut Rng, line_end: bool| {
        let s = if line_end && rng.chance(3, 4) {
            if rng.chance(1, 5) {
                "\r\n"
            } else {
                "\n"
            }
        } else if rng.chance(3, 4) {
            " "
        } else {
            SPACES[rng.below(SPACES.len() as u64) as usize]
        };
        out.extend_from_slice(s.as_bytes());
    };
    if rng.chance(1, 3) {
        sep(&mut out, rng, true);
    }
    for (i, case) in cases.iter().enumerate() {
        out.extend_from_slice(case.lists.len().to_string().as_bytes());
        sep(&mut out, rng, true);
        for list in &case.lists {
            write_list(&mut out, rng, list, &mut sep);
        }
        for q in &case.queries {
            write_list(&mut out, rng, q, &mut sep);
        }
        if !(omit_final_zero && i + 1 == cases.len()) {
            out.push(b'0');
            if i + 1 < cases.len() || rng.chance(1, 2) {
                sep(&mut out, rng, true);
            }
        }
    }
    out
}

fn write_list(
    out: &mut Vec<u8>,
    rng: &mut Rng,
    list: &[u32],
    sep: &mut impl FnMut(&mut Vec<u8>, &mut Rng, bool),
) {
    out.extend_from_slice(list.len().to_string().as_bytes());
    for &x in list {
        sep(out, rng, false);
        // Leading zeros are legal and rare; they must not change the value.
        if rng.chance(1, 50) {
            out.push(b'0');
        }
        out.extend_from_slice(x.to_string().as_bytes());
    }
    sep(out, rng, true);
}

/// The expected `solve` output for `cases`, given each case's node values.
pub fn expected_answers(cases: &[Case], values: impl Fn(&Case) -> Vec<u32>) -> String {
    let mut out = String::new();
    for case in cases {
        let g = values(case);
        for q in &case.queries {
            let x = q.iter().fold(0, |acc, &p| acc ^ g[p as usize]);
            out.push_str(if x != 0 { "WIN\n" } else { "LOSE\n" });
        }
    }
    out
}

fn naive_mex(values: &[u32]) -> u32 {
    (0..).find(|x| !values.contains(x)).expect("some value is missing")
}

/// Grundy values by relaxation: recompute every node from its successors `n + 1` times. On a
/// DAG a node is right once all its successors are, so after `height + 1` rounds all are.
/// Quadratic and obviously correct: the oracle for small graphs.
pub fn relaxation_values(lists: &[Vec<u32>]) -> Vec<u32> {
    let mut g = vec![0u32; lists.len()];
    for _ in 0..=lists.len() {
        for v in 0..lists.len() {
            let succ: Vec<u32> = lists[v].iter().map(|&s| g[s as usize]).collect();
            g[v] = naive_mex(&succ);
        }
    }
    g
}

/// Relaxation until nothing changes: the same oracle, stopped early (each round that changes
/// nothing proves the fixed point), for graphs of thousands of nodes.
pub fn relaxation_values_fast(lists: &[Vec<u32>]) -> Vec<u32> {
    let mut g = vec![0u32; lists.len()];
    let mut succ = Vec::new();
    loop {
        let mut changed = false;
        for v in 0..lists.len() {
            succ.clear();
            succ.extend(lists[v].iter().map(|&s| g[s as usize]));
            let x = naive_mex(&succ);
            changed |= x != g[v];
            g[v] = x;
        }
        if !changed {
            return g;
        }
    }
}

/// Reads a tidy chess-format text (as `grundy generate` writes it) back into cases, with a
/// plain whitespace split: an independent reader for checking generated files.
pub fn parse_cases(text: &[u8]) -> Vec<Case> {
    let text = std::str::from_utf8(text).expect("generated text is ASCII");
    let mut tokens = text.split_whitespace().map(|t| t.parse::<u32>().expect("a number"));
    let mut cases = Vec::new();
    while let Some(n) = tokens.next() {
        let mut lists = Vec::new();
        for _ in 0..n {
            let d = tokens.next().expect("out-degree");
            lists.push((0..d).map(|_| tokens.next().expect("out-position")).collect());
        }
        let mut queries = Vec::new();
        loop {
            match tokens.next() {
                None | Some(0) => break,
                Some(m) => queries.push((0..m).map(|_| tokens.next().expect("position")).collect()),
            }
        }
        cases.push(Case { lists, queries });
    }
    cases
}

/// Grundy values computed in reverse of a known topological order (the generator's ranks):
/// the oracle for graphs too large for relaxation.
pub fn values_in_order(lists: &[Vec<u32>], topo: &[u32]) -> Vec<u32> {
    let mut g = vec![u32::MAX; lists.len()];
    let mut succ = Vec::new();
    for &v in topo.iter().rev() {
        succ.clear();
        succ.extend(lists[v as usize].iter().map(|&s| g[s as usize]));
        assert!(succ.iter().all(|&x| x != u32::MAX), "order is not topological");
        succ.sort_unstable();
        succ.dedup();
        g[v as usize] = succ
            .iter()
            .enumerate()
            .find(|&(i, &x)| i as u32 != x)
            .map_or(succ.len() as u32, |(i, _)| i as u32);
    }
    g
}

/// Out-positions of `list` that repeat one earlier in it (parallel edges).
pub fn repeats(list: &[u32]) -> usize {
    let mut distinct = list.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    list.len() - distinct.len()
}

/// The nim-sum of tokens on `query` under values `g`.
pub fn nim_sum(query: &[u32], g: &[u32]) -> u32 {
    query.iter().fold(0, |x, &p| x ^ g[p as usize])
}

/// Whether the player to move wins with tokens on `tokens`, by searching the game tree of the
/// sum itself (no Sprague-Grundy theory): a position wins iff some move reaches a losing one.
pub fn game_tree_wins(
    lists: &[Vec<u32>],
    tokens: &[u32],
    memo: &mut HashMap<Vec<u32>, bool>,
) -> bool {
    let mut key = tokens.to_vec();
    key.sort_unstable();
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let mut wins = false;
    'search: for i in 0..key.len() {
        for &s in &lists[key[i] as usize] {
            let mut next = key.clone();
            next[i] = s;
            if !game_tree_wins(lists, &next, memo) {
                wins = true;
                break 'search;
            }
        }
    }
    memo.insert(key, wins);
    wins
}
