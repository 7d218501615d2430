//! `grundy generate`'s engine: deterministic, valid chess-format files for benchmarks and for
//! problem setters.
//!
//! Every case hides a topological rank behind shuffled node ids (so id order is not an order
//! a solver can rely on), and edges only go from a lower rank to a higher one, so the graph is
//! acyclic by construction. Work is cut into fixed blocks of nodes and of queries, each with its
//! own random stream derived from the seed, so the bytes depend on the arguments and the seed
//! only, never on the number of threads. Blocks are formatted in parallel and written in order,
//! a bounded batch at a time.

use std::io::{self, Write};

use rayon::prelude::*;

use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Csr;
use crate::meter::{Meter, Stage, Unit};

mod aim;
mod case;
mod random;
mod spec;

use aim::ValueIndex;
use case::CaseGen;
pub use spec::{Edges, NodeRange, Shape, Spec};

/// Nodes per block; a block is one unit of parallel work and one random stream.
const NODE_BLOCK: u32 = 1 << 14;
/// Queries per block.
const QUERY_BLOCK: u64 = 1 << 14;
/// Blocks formatted before a batch is written: bounds memory to a few tens of MB.
const BATCH: usize = 64;
/// Random tries at a LOSE (or WIN) query before the sure construction.
const QUERY_TRIES: usize = 16;

/// Writes the file described by `spec` to `out`; `exec` runs the engine when values must be
/// computed (`lose_share`), and `meter` hears how far it got.
pub fn generate(
    spec: &Spec,
    out: &mut impl Write,
    exec: Exec,
    meter: &dyn Meter,
) -> io::Result<()> {
    for case in 0..spec.cases {
        let gen = CaseGen::new(spec, case);
        let number = u64::from(case) + 1;
        let text = !spec.queries_only;
        if text {
            writeln!(out, "{}", gen.n)?;
        }
        let keep = spec.lose_share.is_some();
        let (mut offsets, mut targets) = (Vec::new(), Vec::new());
        if keep {
            offsets.reserve(gen.n as usize + 1);
            offsets.push(0u32);
        }
        let stage =
            Stage { case: number, name: "generating", unit: Unit::Nodes, total: gen.n.into() };
        meter.start(stage);
        // A query file without LOSE shares needs nothing of the graph.
        let blocks = if text || keep { u64::from(gen.n.div_ceil(NODE_BLOCK)) } else { 0 };
        write_batched(
            out,
            blocks,
            meter,
            NODE_BLOCK.into(),
            |b| gen.node_block(b as u32, text, keep),
            |block| {
                for d in &block.degrees {
                    let end = offsets.last().copied().unwrap_or(0) + d;
                    offsets.push(end);
                }
                targets.extend_from_slice(&block.targets);
                block.text
            },
        )?;
        let index = keep.then(|| {
            let graph = Csr::from_checked_parts(offsets, targets);
            ValueIndex::new(evaluate(&graph, number, exec, meter).into_vec())
        });
        let stage =
            Stage { case: number, name: "generating", unit: Unit::Queries, total: spec.queries };
        meter.start(stage);
        let blocks = spec.queries.div_ceil(QUERY_BLOCK);
        write_batched(
            out,
            blocks,
            meter,
            QUERY_BLOCK,
            |b| gen.query_block(b, index.as_ref()),
            |t| t,
        )?;
        if text {
            out.write_all(b"0\n")?;
        }
    }
    Ok(())
}

/// The Grundy values of a generated graph, by the engine.
fn evaluate(graph: &Csr, case: u64, exec: Exec, meter: &dyn Meter) -> Values {
    let nodes = graph.node_count() as u64;
    meter.start(Stage { case, name: "ordering", unit: Unit::Nodes, total: nodes });
    let levels = exec.order(graph, meter).expect("generated graphs are acyclic by construction");
    meter.start(Stage { case, name: "evaluating", unit: Unit::Nodes, total: nodes });
    exec.evaluate(graph, &levels, meter)
}

/// Makes `blocks` blocks with `make` in parallel and writes what `take` keeps of each, in
/// order, `BATCH` at a time; tells `meter` the units done (`per_block` a block).
fn write_batched<B: Send>(
    out: &mut impl Write,
    blocks: u64,
    meter: &dyn Meter,
    per_block: u64,
    make: impl Fn(u64) -> B + Sync,
    mut take: impl FnMut(B) -> Vec<u8>,
) -> io::Result<()> {
    let mut start = 0;
    while start < blocks {
        let end = (start + BATCH as u64).min(blocks);
        let made: Vec<B> = (start..end).into_par_iter().map(&make).collect();
        for block in made {
            out.write_all(&take(block))?;
        }
        meter.set(end * per_block);
        start = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::case::sample_distinct;
    use super::random::Rng;
    use super::*;

    fn spec(shape: Shape) -> Spec {
        Spec {
            edges: Edges::Mean(3.0),
            queries: 20_000,
            max_tokens: 4,
            cases: 2,
            seed: 7,
            shape,
            ..Spec::new(40_000)
        }
    }

    fn bytes(spec: &Spec) -> Vec<u8> {
        let mut out = Vec::new();
        generate(spec, &mut out, Exec::Rayon { chunk_bytes: 1 << 20 }, &()).unwrap();
        out
    }

    #[test]
    fn same_spec_same_bytes_whatever_the_threads() {
        let s = Spec { lose_share: Some(0.5), ..spec(Shape::Random) };
        let a = bytes(&s);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let b = one.install(|| {
            let mut out = Vec::new();
            generate(&s, &mut out, Exec::Sequential, &()).unwrap();
            out
        });
        assert_eq!(a, b);
        let c = bytes(&Spec { seed: 8, ..s });
        assert_ne!(a, c);
    }

    #[test]
    fn validate_rejects_what_solve_could_not_read() {
        assert!(spec(Shape::Random).validate().is_ok());
        let n = |n| NodeRange { min: n, max: n };
        assert!(Spec { nodes: n(0), ..spec(Shape::Random) }.validate().is_err());
        // 100,000 nodes make 4,999,950,000 tournament edges: past 32-bit offsets, which only
        // --lose-share needs; 2,000,000 make 2 x 10^12, past any case.
        let tournament = |nodes| Spec { nodes: n(nodes), ..spec(Shape::Tournament) };
        assert!(tournament(100_000).validate().is_ok());
        assert!(Spec { lose_share: Some(0.5), ..tournament(100_000) }.validate().is_err());
        assert!(tournament(2_000_000).validate().is_err());
        assert!(Spec { edges: Edges::Mean(f64::NAN), ..spec(Shape::Random) }.validate().is_err());
        let exact = |e| Spec { edges: Edges::Exact(e), simple: true, ..spec(Shape::Random) };
        // 40,000 nodes hold at most 40,000 * 39,999 / 2 distinct edges.
        assert!(exact(799_980_000).validate().is_ok());
        assert!(exact(799_980_001).validate().is_err());
        let capped = Spec { max_out_degree: Some(3), ..exact(120_000) };
        assert!(capped.validate().is_err(), "the last three ranks have fewer than 3 candidates");
        assert!(Spec { min_tokens: 5, max_tokens: 4, ..spec(Shape::Random) }.validate().is_err());
        assert!(Spec { lose_share: Some(1.5), ..spec(Shape::Random) }.validate().is_err());
    }

    #[test]
    fn distinct_samples_are_distinct_and_in_range() {
        let mut rng = Rng::new(3);
        for (count, d) in [(10, 10), (10, 0), (1000, 3), (1000, 600), (100_000, 1000), (1, 1)] {
            let mut out = Vec::new();
            sample_distinct(&mut rng, count, d, &mut out);
            assert_eq!(out.len(), d as usize);
            let mut sorted = out.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), d as usize, "distinct");
            assert!(out.iter().all(|&x| x < count));
        }
    }
}
