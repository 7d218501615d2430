//! `grundy game NAME`: a seed problem's judge input in, its judge output (or the values, or the
//! state graph) out.

use crate::app::cli::{GameArgs, GameName};
use crate::app::config::Config;
use crate::error::Error;
use crate::games::{self, Output};
use crate::io::input::Input;
use crate::io::progress::Progress;
use crate::io::sink::Sink;

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
    let run = match args.name {
        GameName::Cutting => games::cutting::run,
        GameName::Crosses => games::crosses::run,
        GameName::TeamNim => games::team_nim::run,
        GameName::Geography => games::geography::run,
    };
    let text = run(input.bytes(), output, config.exec, &progress)
        .map_err(|e| Error::parse(input.name(), input.bytes(), e))?;
    progress.finish();
    out.put(&text)?;
    out.finish()
}
