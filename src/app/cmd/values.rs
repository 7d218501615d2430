//! `grundy values`: every node's Grundy value, level and out-degree, as CSV, Parquet or Arrow
//! IPC; with `--loopy`, generalized values (finite or `inf`), the set K of an infinite node
//! and its outcome.

use crate::app::cli::ValuesArgs;
use crate::app::config::{self, Config};
use grundy::error::Error;
use grundy::exec;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;

/// Runs `grundy values` with the user's arguments.
pub fn run(args: &ValuesArgs, config: &Config) -> Result<(), Error> {
    let format = check(args, false)?;
    let rows = super::rows_format(args.output_format, ("-o", args.output.as_deref()), false)?;
    let progress = Progress::new(config.progress);
    let input = super::open_text(args.file.as_deref(), config)?;
    let index = super::open_index(&input, &args.format, args.loopy, &args.index)?;
    let mut out = Sink::open_beside(args.output.as_deref(), &progress)?;
    let play = args.play.play(args.genus);
    if play != grundy::play::Play::Normal {
        super::check_play_index(play, index.as_ref())?;
    }
    let how = (config.exec, format, args.loopy);
    let played = (config.exec, play);
    let normal = play == grundy::play::Play::Normal;
    super::with_rows!(rows, &mut out, |sink| match (&index, normal) {
        (Some(index), true) => exec::values_of_index(index, config.exec, &mut sink, &progress),
        (None, true) => exec::values(&input, how, &mut sink, &progress),
        (Some(index), false) => exec::play::values_of_index(index, played, &mut sink, &progress),
        (None, false) => {
            exec::play::values(&input, (config.exec, format, play), &mut sink, &progress)
        }
    })?;
    progress.finish();
    Ok(out.finish()?)
}

/// The input format, once the arguments are checked.
fn check(args: &ValuesArgs, on_cluster: bool) -> Result<grundy::Format, Error> {
    let format = config::format(&args.format)?;
    super::check_loopy(args.loopy, format, on_cluster)?;
    super::check_play((args.play, args.genus), (args.loopy, format, on_cluster))?;
    let output = args.output.as_deref();
    crate::app::cmd::refuse_clobbering(&[("FILE", args.file.as_deref())], &[("-o", output)])?;
    Ok(format)
}

/// `values` across the processes of a cluster: process 0 writes the rows; an input error or a
/// cycle is answered by process 0 alone, as without a cluster.
#[cfg(feature = "cluster")]
impl crate::app::cluster::Clustered for ValuesArgs {
    fn cluster(&self) -> &crate::app::cli::ClusterArgs {
        &self.cluster
    }

    fn prepare<'a>(
        &'a self,
        config: &'a Config,
        writes: bool,
    ) -> Result<crate::app::cluster::Prepared<'a>, Error> {
        use crate::app::cluster::{self, Prepared, Stream};
        use std::sync::Arc;
        let args = self;
        let format = check(args, true)?;
        super::rows_format(args.output_format, ("-o", args.output.as_deref()), true)?;
        let graph = cluster::graph_format(format);
        let inputs = cluster::open_inputs(&[("FILE", args.file.as_deref())], config)?;
        let input = Arc::clone(&inputs[0]);
        let mut streams = Vec::new();
        if writes {
            let header = grundy::report::Rows::header(grundy::report::VALUES_HEADER);
            streams.push(Stream::new(Sink::open(args.output.as_deref())?, header));
        }
        let job = grundy::cluster::Job::Values(Arc::clone(&input), graph);
        let alone = Box::new(move |sinks: &mut [Sink]| {
            let mut rows = grundy::report::Csv::new(&mut sinks[0]);
            exec::values(&input, (config.exec, format, false), &mut rows, &Progress::new(false))
        });
        Ok(Prepared { job, streams, alone })
    }
}
