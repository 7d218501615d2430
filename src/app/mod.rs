//! The command-line face: what the user typed ([`cli`]), the settings resolved from it before
//! any work starts ([`config`]), and one module per subcommand ([`cmd`]). Nothing in the
//! engine imports this folder.
//!
//! All work runs inside one rayon pool: a parallel iterator started inside `install` costs
//! about 2 us, outside it about 7.5 us, which matters for graphs of a million thin levels.

use grundy::error::Error;

pub mod cli;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod cmd;
pub mod config;

use cli::{Cli, Command};
use cmd::{game, generate, index, octal, query, serve, solve, stats, values};
use config::Config;

/// Runs the command the user asked for.
pub fn run(cli: Cli) -> Result<(), Error> {
    let config = Config::from_cli(&cli)?;
    // The server stops on SIGINT and SIGTERM by finishing its requests (it writes no file).
    if !matches!(cli.command, Command::Serve(_)) {
        grundy::io::signals::install();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| Error::Threads { threads: config.threads, reason: e.to_string() })?;
    // The one place where a run is put on a cluster: the commands never look at the flags.
    #[cfg(feature = "cluster")]
    if let Some(command) = cluster::clustered(&cli.command) {
        if let Some(plan) = cluster::plan(command.cluster())? {
            return pool.install(|| cluster::run(plan, |writes| command.prepare(&config, writes)));
        }
    }
    #[cfg(not(feature = "cluster"))]
    if cli.runs_on_a_cluster() {
        return Err(Error::Usage(
            "this grundy was built without the cluster feature: rebuild it with the default \
             features for --processes and --hosts"
                .into(),
        ));
    }
    pool.install(|| match &cli.command {
        Command::Solve(args) => solve::run(args, &config),
        Command::Values(args) => values::run(args, &config),
        Command::Query(args) => query::run(args, &config),
        Command::Stats(args) => stats::run(args, &config),
        Command::Index(args) => index::run(args, &config),
        Command::Game(args) => game::run(args, &config),
        Command::Generate(args) => generate::run(args, &config),
        Command::Octal(args) => octal::run(args, &config),
        Command::Serve(args) => serve::run(args, &config),
    })
}
