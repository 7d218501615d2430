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
    let timeout = seconds("--timeout", args.timeout)?;
    let head_timeout = match args.head_timeout {
        Some(head) => seconds("--head-timeout", head)?,
        None => timeout.min(DEFAULT_HEAD_TIMEOUT),
    };
    if args.connections == 0 {
        return Err(Error::Usage("--connections: expected at least 1".into()));
    }
    if args.query_slots == 0 {
        return Err(Error::Usage("--query-slots: expected at least 1".into()));
    }
    if args.answer_limit == 0 {
        return Err(Error::Usage("--answer-limit: expected at least 1 byte".into()));
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
        answer_limit: args.answer_limit,
        timeout,
        head_timeout,
        connections: fit_descriptors(args.connections, FILES_BESIDES + args.query_slots),
        query_slots: args.query_slots,
        threads: config.threads,
        max_query_tokens: config.max_query_tokens,
    };
    let name = args.game.display().to_string();
    serve::serve(game, &options, |bound| {
        // Scripts (and the tests) read the port from this line when they asked for port 0.
        eprintln!("grundy: serving {name} on http://{bound}/ (Ctrl-C or SIGTERM stops)");
    })
}

/// The head deadline when --head-timeout is not given (and --timeout is longer): a head
/// crosses any network in far less, and a slow one holds its connection no longer.
#[cfg(feature = "serve")]
const DEFAULT_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Files the server holds open besides its connections and a temporary file per query slot:
/// the listener, the standard streams, the index while it is read, the runtime's own.
#[cfg(feature = "serve")]
const FILES_BESIDES: usize = 64;

/// `value` seconds of `flag`, which must be above 0 and at most 10^6.
#[cfg(feature = "serve")]
fn seconds(flag: &str, value: f64) -> Result<std::time::Duration, Error> {
    if !(value > 0.0 && value <= 1e6) {
        return Err(Error::Usage(format!("{flag}: expected seconds above 0 (at most 10^6)")));
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

/// The connections that fit the limit on open files with `besides` more: the soft limit is
/// raised toward what they need (up to the hard limit, as Go's runtime does at start), and
/// when even that is too low, fewer connections are held, with a warning. Past the limit,
/// accepting would fail instead of closing the connection that waited longest.
#[cfg(feature = "serve")]
fn fit_descriptors(connections: usize, besides: usize) -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given, which lives across the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
        return connections;
    }
    let wanted = connections.saturating_add(besides) as libc::rlim_t;
    if limit.rlim_cur < wanted {
        let raised = libc::rlimit { rlim_cur: wanted.min(limit.rlim_max), ..limit };
        // SAFETY: setrlimit reads the struct it is given, which lives across the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            limit = raised;
        }
    }
    let room = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX).saturating_sub(besides);
    if room < connections {
        eprintln!(
            "warning: --connections {connections}, but the limit on open files ({}) leaves room \
             for {}: holding at most that many at once (raise it with `ulimit -n`)",
            limit.rlim_cur,
            room.max(1)
        );
    }
    connections.min(room).max(1)
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
