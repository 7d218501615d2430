//! Arbitrary bytes through the whole `solve` path (chess and sums formats, and chess with
//! `--loopy`), through `query`, and read as an edge list, on both code paths. Besides crashes,
//! hangs and oversized allocations (libFuzzer's limits), it checks that the sequential and the
//! parallel path (with windows of a few bytes, so every boundary falls somewhere) give the same
//! output and the same error message, and that `--loopy` answers an acyclic file exactly as
//! the plain path does. Index bytes too: the data read as an index (refused, never a crash),
//! and the index of the data, with one byte flipped where the data's length says, either
//! refused or read back as the unflipped index reads.
#![no_main]

use grundy::Format;
use grundy::exec::{self, Exec};
use grundy::report::{Columns, Csv};
use grundy::Input;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// Output, report and error message of one run.
type Outcome = (Vec<u8>, Vec<u8>, Option<String>);

fn solve_with(input: &Input, exec: Exec, (format, loopy): (Format, bool)) -> Outcome {
    let (mut out, mut report) = (Vec::new(), Vec::new());
    let mut rows = Csv::new(&mut report);
    let result = exec::solve(input, (exec, format, loopy), &mut out, Some(&mut rows), &());
    (out, report, result.err().map(|e| e.to_string()))
}

fn query_with(graph: &Input, queries: &Input, exec: Exec, how: (Format, bool)) -> Outcome {
    let mut out = Vec::new();
    let how = (exec, how.0, how.1);
    let result = exec::query(graph, queries, how, &Columns::query(), &mut Csv::new(&mut out), &());
    (out, Vec::new(), result.err().map(|e| e.to_string()))
}

/// The values of the data read as an edge list (`--format edges --nodes 1000`: a node count
/// derived from a 9-byte id would spend the fuzzer's time on allocation), or the error.
fn edges_with(input: &Input, exec: Exec) -> Result<Vec<u32>, String> {
    let format = Format::Edges { nodes: Some(1000) };
    let mut reader = grundy::CaseReader::new(input, exec, format, &());
    match reader.next_case() {
        Ok(case) => Ok(case.map(|c| c.values.into_vec()).unwrap_or_default()),
        Err(e) => Err(e.to_string()),
    }
}

/// A one-thread and a two-thread pool, built once: starting threads per input would dominate.
fn pools() -> &'static (rayon::ThreadPool, rayon::ThreadPool) {
    static POOLS: OnceLock<(rayon::ThreadPool, rayon::ThreadPool)> = OnceLock::new();
    POOLS.get_or_init(|| {
        let build = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        (build(1), build(2))
    })
}

fuzz_target!(|data: &[u8]| {
    let sequential = Exec::Sequential;
    let parallel = Exec::Rayon { chunk_bytes: 1 + data.first().map_or(0, |&b| b as usize % 16) };
    let (one, pool) = pools();
    let input = Input::from_bytes("<fuzz>", data.to_vec());
    let hows = [(Format::Chess, false), (Format::Sums, false), (Format::Chess, true)];
    let mut plain = None;
    for how in hows {
        let a = one.install(|| solve_with(&input, sequential, how));
        let b = pool.install(|| solve_with(&input, parallel, how));
        assert_eq!(a, b, "solve, {how:?}");
        match how {
            (Format::Chess, false) => plain = Some(a),
            (Format::Chess, true) => {
                if let Some(plain @ (_, _, None)) = &plain {
                    assert_eq!(&a, plain, "--loopy on an acyclic file");
                }
            }
            _ => {}
        }
    }
    let a = one.install(|| edges_with(&input, sequential));
    let b = pool.install(|| edges_with(&input, parallel));
    assert_eq!(a, b, "edges");
    // A 0xff byte (never valid input) splits the data into a graph and a query file.
    if let Some(cut) = data.iter().position(|&b| b == 0xff) {
        let graph = Input::from_bytes("<graph>", data[..cut].to_vec());
        let queries = Input::from_bytes("<queries>", data[cut + 1..].to_vec());
        for how in hows {
            let a = one.install(|| query_with(&graph, &queries, sequential, how));
            let b = pool.install(|| query_with(&graph, &queries, parallel, how));
            assert_eq!(a, b, "query, {how:?}");
        }
    }
    one.install(|| indexes(&input, data));
});

/// The `values` rows of an index, or its error.
fn index_values(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
    let input = Input::from_bytes("<index>", bytes);
    let index = grundy::index::Index::open(&input, true).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    exec::values_of_index(&index, Exec::Sequential, &mut Csv::new(&mut out), &()).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The data read as an index must be refused or read (a checksum is no proof, but every
/// array that passes is checked); the data's index, one byte flipped, must be refused or read
/// as the unflipped one reads (a flip in padding changes nothing).
fn indexes(input: &Input, data: &[u8]) {
    let _ = index_values(data.to_vec());
    let mut index = Vec::new();
    if exec::index(input, (Exec::Sequential, Format::Chess, false, &[]), &mut index, &()).is_err() {
        return;
    }
    let whole = index_values(index.clone()).expect("a fresh index reads back");
    let at = data.len().wrapping_mul(2654435761) % index.len();
    index[at] ^= 1 << (data.len() % 8);
    if let Ok(flipped) = index_values(index) {
        assert_eq!(flipped, whole, "a flipped byte {at} read as another game");
    }
}
