//! `grundy game NAME`: a seed problem's judge input in, its judge output (or the values, or the
//! state graph) out.

use crate::cli::{GameArgs, GameName};
use crate::config::Config;
use crate::error::Error;
use crate::games::{self, Output};
use crate::input::Input;
use crate::output::Sink;

/// Runs `grundy game` with the user's arguments.
pub fn run(args: &GameArgs, config: &Config) -> Result<(), Error> {
    let input = Input::open(args.file.as_deref())?;
    let mut out = Sink::open(args.output.as_deref())?;
    let output = match (args.table, args.export) {
        (true, _) => Output::Table,
        (_, true) => Output::Export,
        _ => Output::Judge,
    };
    let run = match args.name {
        GameName::Cutting => games::cutting::run,
        GameName::Crosses => games::crosses::run,
        GameName::TeamNim => games::team_nim::run,
        GameName::Geography => games::geography::run,
    };
    let text = run(input.bytes(), output, config.sequential())
        .map_err(|e| Error::parse(input.name(), input.bytes(), e))?;
    out.put(&text)?;
    out.finish()
}
