//! `grundy serve`: the flags checked, the game opened (an index, or a text game indexed in
//! memory) on the command's pool, and the library's server started ([`grundy::serve`]), whose
//! requests run on threads of their own.

use crate::app::cli::ServeArgs;
use crate::app::config::Config;
use grundy::error::Error;

/// Runs `grundy serve` with the user's arguments.
#[cfg(not(feature = "serve"))]
pub fn run(_: &ServeArgs, _: &Config) -> Result<(), Error> {
    Err(Error::Usage(
        "this grundy was built without the serve feature: build it with `cargo build --release \
         --features serve` for grundy serve"
            .into(),
    ))
}

/// Runs `grundy serve` with the user's arguments.
#[cfg(feature = "serve")]
pub fn run(args: &ServeArgs, config: &Config) -> Result<(), Error> {
    use grundy::serve::{self, Game, Options};
    if !(args.timeout > 0.0 && args.timeout <= 1e6) {
        return Err(Error::Usage("--timeout: expected seconds above 0 (at most 10^6)".into()));
    }
    if args.connections == 0 {
        return Err(Error::Usage("--connections: expected at least 1".into()));
    }
    let index = open(args, config)?;
    let game = Game::open(&index)?;
    drop(index);
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "warning: listening on {}, which other machines can reach: anyone who can connect \
             can read the game and make it work (there is no authentication)",
            args.listen
        );
    }
    let options = Options {
        listen: args.listen,
        body_limit: args.body_limit,
        timeout: std::time::Duration::from_secs_f64(args.timeout),
        connections: args.connections,
        threads: config.threads,
    };
    let name = args.game.display().to_string();
    serve::serve(game, &options, |bound| {
        // Scripts (and the tests) read the port from this line when they asked for port 0.
        eprintln!("grundy: serving {name} on http://{bound}/ (Ctrl-C or SIGTERM stops)");
    })
}

/// The game of GAME: its index, or the index of a text game, built in memory.
#[cfg(feature = "serve")]
fn open(args: &ServeArgs, config: &Config) -> Result<grundy::index::Index, Error> {
    use grundy::index::Index;
    let input = super::open_text(Some(&args.game), config)?;
    if let Some(index) = super::open_any_index(&input, &args.format, &args.index)? {
        if args.loopy && !index.is_loopy() {
            return Err(Error::Usage(format!(
                "{} holds an acyclic game's values: drop --loopy, or index the game with --loopy",
                input.name()
            )));
        }
        return Ok(index);
    }
    let format = crate::app::config::format(&args.format)?;
    super::check_loopy(args.loopy, format, false)?;
    let progress = grundy::io::progress::Progress::new(config.progress);
    let mut bytes = Vec::new();
    let how = (config.exec, format, args.loopy, &[][..]);
    grundy::exec::index(&input, how, &mut bytes, &progress)?;
    progress.finish();
    Index::open(&grundy::Input::from_bytes(input.name(), bytes), false)
}
