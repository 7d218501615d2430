//! Settings shared by every command, resolved from the command line before any work starts.

use crate::app::cli::{Cli, FormatArgs, FormatName};
use crate::error::Error;
use crate::parse::format::Format;

/// Default bytes tokenized per parallel step: large enough that a rayon dispatch (a few
/// microseconds) is noise, small enough that the token buffers of a query section stay small
/// (a window's tokens are held twice, in the pieces' buffers and the reader's: about 2 x 4 B
/// per 5 B of input, 7 MB at 4 MiB). 16 MiB windows ran no faster and held 26 MB.
pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;

/// Resolved shared settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Worker threads, at least 1; 1 selects the sequential code paths.
    pub threads: usize,
    /// Bytes tokenized per parallel step.
    pub chunk_bytes: usize,
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
        Ok(Config { threads, chunk_bytes, progress: !cli.quiet })
    }

    /// True when the sequential twins should run.
    pub fn sequential(&self) -> bool {
        self.threads == 1
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
