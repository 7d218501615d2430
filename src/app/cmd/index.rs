//! `grundy index`: a game solved once and written as an index file, which `query`, `values`
//! and `stats` read in place of the input.

use crate::app::cli::IndexArgs;
use crate::app::config::{self, Config};
use grundy::error::Error;
use grundy::exec;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::play::Play;

/// Runs `grundy index` with the user's arguments.
pub fn run(args: &IndexArgs, config: &Config) -> Result<(), Error> {
    let format = config::format(&args.format)?;
    super::check_loopy(args.loopy, format, false)?;
    for &play in &args.play {
        let genus = args.genus && play == crate::app::cli::PlayName::Misere;
        super::check_play((play, genus), (args.loopy, format, false))?;
    }
    if args.genus && !args.play.contains(&crate::app::cli::PlayName::Misere) {
        return Err(Error::Usage("--genus goes with --play misere".into()));
    }
    let plays: Vec<Play> = args.play.iter().map(|&p| p.play(args.genus)).collect();
    let output = Some(args.output.as_path());
    super::refuse_clobbering(&[("FILE", args.file.as_deref())], &[("-o", output)])?;
    let progress = Progress::new(config.progress);
    let input = super::open_text(args.file.as_deref(), config)?;
    if grundy::index::is_index(input.bytes()) {
        return Err(Error::Usage(format!("{} is an index already", input.name())));
    }
    let mut out = Sink::open_beside(output, &progress)?;
    exec::index(&input, (config.exec, format, args.loopy, &plays), &mut out, &progress)?;
    progress.finish();
    Ok(out.finish()?)
}
