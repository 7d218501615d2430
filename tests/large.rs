//! Large and deep inputs, built at run time: nothing here may recurse or go quadratic.

use crate::util::*;

/// Writes `lists` and `queries` tidily (one node or query per line) for big inputs.
fn write_tidy(lists: &[Vec<u32>], queries: &[Vec<u32>]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::with_capacity(16 * lists.len());
    writeln!(out, "{}", lists.len()).unwrap();
    for l in lists.iter().chain(queries) {
        write!(out, "{}", l.len()).unwrap();
        for x in l {
            write!(out, " {x}").unwrap();
        }
        out.push(b'\n');
    }
    out.extend_from_slice(b"0\n");
    out
}

/// Random ids for `n` nodes: `ids[rank]` is the node at topological rank `rank`.
fn shuffled_ids(rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut ids);
    ids
}

fn check(lists: &[Vec<u32>], topo: &[u32], queries: &[Vec<u32>]) {
    let dir = tempdir();
    let path = write_file(dir.path(), "big.txt", &write_tidy(lists, queries));
    let case = Case { lists: lists.to_vec(), queries: queries.to_vec() };
    let expected =
        expected_answers(std::slice::from_ref(&case), |c| values_in_order(&c.lists, topo));
    let got = solve_file(&path).ok();
    assert!(got == expected, "answers differ from the oracle's");
}

#[test]
fn million_node_chain() {
    let n = 1_000_000;
    let mut rng = Rng::new(1);
    let ids = shuffled_ids(&mut rng, n);
    let mut lists = vec![Vec::new(); n];
    for w in ids.windows(2) {
        lists[w[0] as usize].push(w[1]);
    }
    let queries: Vec<Vec<u32>> =
        (0..10_000).map(|_| (0..3).map(|_| rng.below(n as u64) as u32).collect()).collect();
    check(&lists, &ids, &queries);
}

#[test]
fn five_thousand_node_tournament() {
    let n = 5_000;
    let mut rng = Rng::new(2);
    let ids = shuffled_ids(&mut rng, n);
    let lists: Vec<Vec<u32>> = {
        let mut lists = vec![Vec::new(); n];
        for (r, &v) in ids.iter().enumerate() {
            lists[v as usize] = ids[r + 1..].to_vec();
        }
        lists
    };
    let queries: Vec<Vec<u32>> =
        (0..5_000).map(|_| (0..2).map(|_| rng.below(n as u64) as u32).collect()).collect();
    check(&lists, &ids, &queries);
}

#[test]
fn million_nodes_ten_million_edges_million_queries() {
    let n = 1_000_000usize;
    let mut rng = Rng::new(3);
    let ids = shuffled_ids(&mut rng, n);
    let mut lists = vec![Vec::new(); n];
    for r in 0..n - 1 {
        let later = (n - r - 1) as u64;
        // Average degree 10, mostly short jumps so levels stay deep and values varied.
        for _ in 0..rng.below(21) {
            let jump =
                if rng.chance(3, 4) { 1 + rng.below(later.min(64)) } else { 1 + rng.below(later) };
            lists[ids[r] as usize].push(ids[r + jump as usize]);
        }
    }
    let edges: usize = lists.iter().map(Vec::len).sum();
    assert!(edges > 9_000_000, "{edges} edges");
    let queries: Vec<Vec<u32>> = (0..1_000_000)
        .map(|_| (0..1 + rng.below(10)).map(|_| rng.below(n as u64) as u32).collect())
        .collect();
    check(&lists, &ids, &queries);
}
