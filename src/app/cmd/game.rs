//! `grundy game NAME`: a seed problem's judge input in, its judge output (or the values, or the
//! state graph) out.

use crate::app::cli::{GameArgs, GameName};
use crate::app::config::Config;
use grundy::error::Error;
use grundy::games::crosses::Crosses;
use grundy::games::cutting::Cutting;
use grundy::games::geography::Geography;
use grundy::games::team_nim::TeamNim;
use grundy::games::{self, Output};
use grundy::io::input::Input;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;

/// Runs `grundy game` with the user's arguments.
pub fn run(args: &GameArgs, config: &Config) -> Result<(), Error> {
    let output_path = args.output.as_deref();
    crate::app::cmd::refuse_clobbering(&[("FILE", args.file.as_deref())], &[("-o", output_path)])?;
    let progress = Progress::new(config.progress);
    let input = Input::open(args.file.as_deref())?;
    let mut out = Sink::open_beside(output_path, &progress)?;
    let output = match (args.table, args.export) {
        (true, _) => Output::Table,
        (_, true) => Output::Export,
        _ => Output::Judge,
    };
    let (bytes, exec) = (input.bytes(), config.exec);
    let (text, read) = match args.name {
        GameName::Cutting => games::run(Cutting::default(), bytes, output, exec, &progress),
        GameName::Crosses => games::run(Crosses::default(), bytes, output, exec, &progress),
        GameName::TeamNim => games::run(TeamNim, bytes, output, exec, &progress),
        GameName::Geography => games::run(Geography, bytes, output, exec, &progress),
    };
    progress.finish();
    // The answers to the records before a bad one go out first, as solve's do; a file output
    // is then dropped unfinished (written whole or not at all).
    out.put(&text)?;
    read.map_err(|e| Error::parse(input.name(), bytes, e))?;
    Ok(out.finish()?)
}
