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
    /// How the stages run: sequential for one thread, else in parallel on the pool.
    pub exec: Exec,
    /// Progress bars wanted (they still need a terminal).
    pub progress: bool,
}

impl Config {
    /// Resolves the shared settings of `cli`.
    pub fn from_cli(cli: &Cli) -> Result<Config, Error> {
        let threads = match cli.threads {
            Some(0) => return Err(Error::Usage("--threads must be at least 1".into())),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let chunk_bytes = cli.chunk_bytes.unwrap_or(DEFAULT_CHUNK_BYTES).max(1);
        Ok(Config::new(threads, chunk_bytes, !cli.quiet))
    }

    /// The settings of `threads` threads tokenizing `chunk_bytes` per parallel step: the
    /// sequential twins for one thread, the parallel stages otherwise.
    pub fn new(threads: usize, chunk_bytes: usize, progress: bool) -> Config {
        let exec = if threads == 1 { Exec::Sequential } else { Exec::Rayon { chunk_bytes } };
        Config { threads, exec, progress }
    }
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
