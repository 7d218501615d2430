//! The `grundy` binary: parse arguments, run, map the outcome to an exit code.
//!
//! Exit codes: 0 success (also when stdout is a pipe closed early, as in `grundy solve | head`);
//! 1 bad input or a failed run, with one `error:` line on stderr; 2 usage error (clap's).

use std::process::ExitCode;

use clap::Parser;

mod app;

fn main() -> ExitCode {
    let cli = app::cli::Cli::parse();
    #[cfg(feature = "cluster")]
    if cli.runs_on_a_cluster() {
        // SAFETY: nothing has started a thread yet: only the arguments have been parsed.
        unsafe { grundy::cluster::fix_mmap_threshold() };
    }
    match app::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(grundy::Error::ReportedElsewhere) => ExitCode::from(1),
        Err(e @ grundy::Error::Printed(_)) => ExitCode::from(e.exit_code()),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
