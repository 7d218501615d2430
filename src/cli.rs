//! The command line as the user typed it (clap derive). Checked and resolved into the
//! commands' own settings by each `cmd` module before any work starts.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Sprague-Grundy analyzer for impartial games on large DAGs.
#[derive(Debug, Parser)]
#[command(name = "grundy", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer WIN or LOSE for each query of a chess-format file, one line each.
    ///
    /// The input holds one or more cases: N, then for each node i its out-degree X_i and X_i
    /// out-positions, then queries `M p_1 .. p_M`, ended by a query `0` or the end of input.
    Solve(SolveArgs),
}

/// Arguments of `grundy solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Input file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
