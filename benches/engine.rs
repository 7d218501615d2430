//! Criterion micro-benchmarks of the engine's stages, each sequential twin against its
//! parallel version, on a generated graph (200,000 nodes, about 2,000,000 edges, 200,000
//! queries) built in memory: parse a case's graph, order it into levels, evaluate it, answer
//! its queries.
//!
//! `cargo bench -p grundy-benches`; compare the `sequential` and `parallel` lines of each group
//! (both measured in the same run).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use grundy::exec::{Exec, DEFAULT_CHUNK_BYTES};
use grundy::generate::{generate, Edges, Spec};
use grundy::parse::chess::ChessReader;
use grundy::parse::chess_parallel::ParChessReader;
use grundy::{answer, eval, order};

fn input() -> Vec<u8> {
    let spec = Spec { edges: Edges::Mean(10.0), queries: 200_000, seed: 1, ..Spec::new(200_000) };
    let mut bytes = Vec::new();
    generate(&spec, &mut bytes, Exec::Sequential, &()).expect("in-memory write");
    bytes
}

fn stages(c: &mut Criterion) {
    // Every measured call runs inside the pool, as in the binary: a parallel call from outside
    // costs more to start.
    let pool = rayon::ThreadPoolBuilder::new().build().unwrap();
    let bytes = input();
    let graph = ChessReader::new(&bytes).next_graph().unwrap().unwrap().into_chess().unwrap();
    let levels = order::levels(&graph, &()).unwrap();
    let values = eval::grundy(&graph, &levels, &());

    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("sequential", |b| {
        b.iter(|| {
            let mut r = ChessReader::new(&bytes);
            let g = r.next_graph().unwrap().unwrap();
            let mut q = Vec::new();
            let mut x = 0;
            while r.next_query(&mut q).unwrap() {
                x ^= q.len();
            }
            (g.total_moves(), x)
        })
    });
    group.bench_function("parallel", |b| {
        b.iter(|| {
            pool.install(|| {
                let mut r = ParChessReader::new(&bytes, DEFAULT_CHUNK_BYTES);
                let g = r.next_graph().unwrap().unwrap();
                let mut x = 0;
                while let Some(batch) = r.next_queries().unwrap() {
                    x ^= batch.len();
                }
                (g.total_moves(), x)
            })
        })
    });
    group.finish();

    let mut group = c.benchmark_group("levels");
    group.throughput(Throughput::Elements(graph.edge_count() as u64));
    group.bench_function("sequential", |b| b.iter(|| order::levels(&graph, &()).unwrap()));
    group.bench_function("parallel", |b| {
        b.iter(|| pool.install(|| order::levels_parallel(&graph, &()).unwrap()))
    });
    group.finish();

    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(graph.edge_count() as u64));
    group.bench_function("sequential", |b| b.iter(|| eval::grundy(&graph, &levels, &())));
    group.bench_function("parallel", |b| {
        b.iter(|| pool.install(|| eval::grundy_parallel(&graph, &levels, &())))
    });
    group.finish();

    let mut group = c.benchmark_group("answer");
    let mut reader = ParChessReader::new(&bytes, usize::MAX);
    reader.next_graph().unwrap().unwrap();
    let batch = reader.next_queries().unwrap().unwrap();
    group.throughput(Throughput::Elements(batch.len() as u64));
    for threads in [1, pool.current_num_threads()] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_with_input(BenchmarkId::new("threads", threads), &batch, |b, batch| {
            b.iter(|| {
                let mut out = answer::Bufs::default();
                let answer = |_: u64, positions: &[u32], bufs: &mut answer::Bufs| {
                    let verdict = answer::Outcome::of(&values, positions).line();
                    bufs.main.extend_from_slice(verdict);
                };
                pool.install(|| answer::answer_batch(batch, &mut out, answer));
                out
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = stages
}
criterion_main!(benches);
