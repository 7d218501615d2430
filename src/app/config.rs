//! Settings shared by every command, resolved from the command line before any work starts.

use crate::app::cli::{Cli, FormatArgs, FormatName};
use grundy::error::Error;
use grundy::exec::{Exec, DEFAULT_CHUNK_BYTES};
use grundy::parse::format::Format;

/// Resolved shared settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Worker threads of the pool, at least 1.
    pub threads: usize,
    /// How the stages run: in parallel on the pool (of one thread too), or the sequential
    /// twins (`--sequential`).
    pub exec: Exec,
    /// Progress bars wanted (they still need a terminal).
    pub progress: bool,
    /// The most tokens one query of an input may hold (`--max-query-tokens`).
    pub max_query_tokens: u32,
}

impl Config {
    /// Resolves the shared settings of `cli`.
    pub fn from_cli(cli: &Cli) -> Result<Config, Error> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = match cli.threads {
            Some(0) => return Err(Error::Usage("--threads must be at least 1".into())),
            Some(n) if n > max_threads(cores) => {
                let bound = max_threads(cores);
                eprintln!("warning: --threads {n} is far past the {cores} cores: using {bound}");
                bound
            }
            Some(n) => n,
            None => cores,
        };
        let chunk_bytes = cli.chunk_bytes.unwrap_or(DEFAULT_CHUNK_BYTES).max(1);
        let config = match cli.sequential {
            true => Config { threads: 1, exec: Exec::Sequential, ..Config::new(1, 1, !cli.quiet) },
            false => Config::new(threads, chunk_bytes, !cli.quiet),
        };
        Ok(Config { max_query_tokens: cli.max_query_tokens, ..config })
    }

    /// The settings of `threads` threads tokenizing `chunk_bytes` per parallel step: the
    /// parallel stages, on one thread too. They beat the sequential twins there as well (the
    /// window reader's vector tokenizer, the search without a reverse graph: the 10M-node
    /// file in 0.84x the time and 44% of the memory, BENCHMARKS.md), which `--sequential`
    /// keeps as the reference the tests compare them with.
    pub fn new(threads: usize, chunk_bytes: usize, progress: bool) -> Config {
        let max_query_tokens = grundy::parse::walk::DEFAULT_MAX_QUERY;
        Config { threads, exec: Exec::Rayon { chunk_bytes }, progress, max_query_tokens }
    }
}

/// The most threads a run starts on `cores` cores: 8 a core, and 16 at least (so that the
/// tests' `-j 8` on two cores means 8). Threads past the cores only take turns on them, and
/// thousands cost more than the work: each is a stack and a rayon worker that the others
/// wake and steal from (`solve --threads 4000` on a 1 MB file took 87 s against 0.02 s with
/// 2; `--threads 100000` ran 11 minutes with 13,548 threads started, issue 63).
pub fn max_threads(cores: usize) -> usize {
    cores.saturating_mul(8).max(16)
}

/// The input format the user asked for.
pub fn format(args: &FormatArgs) -> Result<Format, Error> {
    match (args.format, args.nodes) {
        (FormatName::Edges, nodes) => Ok(Format::Edges { nodes }),
        (_, Some(_)) => Err(Error::Usage(
            "--nodes applies to --format edges only: the other formats give each case's node count"
                .into(),
        )),
        (FormatName::Chess, None) => Ok(Format::Chess),
        (FormatName::Sums, None) => Ok(Format::Sums),
    }
}
