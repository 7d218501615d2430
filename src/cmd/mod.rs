//! One module per subcommand; `run` dispatches.

use crate::cli::{Cli, Command};
use crate::error::Error;

pub mod solve;

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
        Command::Solve(args) => solve::run(&args),
    }
}
