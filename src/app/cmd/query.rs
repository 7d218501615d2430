//! `grundy query`: a file of queries answered against one graph, as CSV with winning moves.

use grundy::error::Error;
use grundy::exec;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::report::Columns;

use crate::app::cli::QueryArgs;
use crate::app::config::{self, Config};

/// Runs `grundy query` with the user's arguments.
pub fn run(args: &QueryArgs, config: &Config) -> Result<(), Error> {
    let (format, columns) = check(args, false)?;
    let rows = super::rows_format(args.output_format, ("-o", args.output.as_deref()), false)?;
    let progress = Progress::new(config.progress);
    let graph_input = super::open_text(Some(&args.graph), config)?;
    let index = super::open_index(&graph_input, &args.format, args.loopy, &args.index)?;
    let queries_input = super::open_text(args.queries.as_deref(), config)?;
    let mut out = Sink::open_beside(args.output.as_deref(), &progress)?;
    let play = args.play.play(args.genus);
    if play != grundy::play::Play::Normal {
        super::check_play_index(play, index.as_ref())?;
    }
    let (exec, how) = (config.exec, (config.exec, format, args.loopy));
    let (played, played_text) = ((exec, play), (exec, format, play));
    let queries = &queries_input;
    let normal = play == grundy::play::Play::Normal;
    super::with_rows!(rows, &mut out, |sink| match (&index, normal) {
        (Some(index), true) => {
            exec::query_index(index, queries, exec, &columns, &mut sink, &progress)
        }
        (None, true) => exec::query(&graph_input, queries, how, &columns, &mut sink, &progress),
        (Some(index), false) => {
            exec::play::query_index(index, queries, played, &mut sink, &progress)
        }
        (None, false) => {
            exec::play::query(&graph_input, queries, played_text, &mut sink, &progress)
        }
    })?;
    progress.finish();
    Ok(out.finish()?)
}

/// The input format and the rows' columns, once the arguments are checked.
fn check(args: &QueryArgs, on_cluster: bool) -> Result<(grundy::Format, Columns), Error> {
    let format = config::format(&args.format)?;
    let is_stdin = |p: Option<&std::path::Path>| p.is_none_or(|p| p.as_os_str() == "-");
    if is_stdin(Some(&args.graph)) && is_stdin(args.queries.as_deref()) {
        return Err(Error::Usage(
            "GRAPH and QUERIES cannot both be read from stdin: give at least one as a file".into(),
        ));
    }
    let queries = args.queries.as_deref();
    if queries.is_some_and(|q| crate::app::cmd::same_file(&args.graph, q)) {
        return Err(Error::Usage(format!(
            "QUERIES {} is the graph file itself: give a file of queries (`M p_1 .. p_M` per line)",
            args.graph.display()
        )));
    }
    super::check_loopy(args.loopy, format, on_cluster)?;
    super::check_play((args.play, args.genus), (args.loopy, format, on_cluster))?;
    if args.play != crate::app::cli::PlayName::Normal && args.columns.is_some() {
        return Err(Error::Usage(
            "--columns chooses normal play's columns: not with --play".into(),
        ));
    }
    crate::app::cmd::refuse_clobbering(
        &[("GRAPH", Some(&args.graph)), ("QUERIES", queries)],
        &[("-o", args.output.as_deref())],
    )?;
    let columns = match &args.columns {
        None => Columns::query(),
        Some(list) => {
            Columns::parse_query(list).map_err(|e| Error::Usage(format!("--columns: {e}")))?
        }
    };
    Ok((format, columns))
}

/// `query` across the processes of a cluster: process 0 writes the rows; an input error or a
/// cycle is answered by process 0 alone, as without a cluster.
#[cfg(feature = "cluster")]
impl crate::app::cluster::Clustered for QueryArgs {
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
        let (format, columns) = check(args, true)?;
        super::rows_format(args.output_format, ("-o", args.output.as_deref()), true)?;
        let named = [("GRAPH", Some(args.graph.as_path())), ("QUERIES", args.queries.as_deref())];
        let graph_format = cluster::graph_format(format);
        let inputs = cluster::open_inputs(&named, config)?;
        let (graph, queries) = (Arc::clone(&inputs[0]), Arc::clone(&inputs[1]));
        let mut streams = Vec::new();
        if writes {
            let sink = Sink::open(args.output.as_deref())?;
            streams.push(Stream::new(sink, columns.header()));
        }
        let (graph_job, queries_job) = (Arc::clone(&graph), Arc::clone(&queries));
        let job = grundy::cluster::Job::Query {
            format: graph_format,
            graph: graph_job,
            queries: queries_job,
            columns: columns.clone(),
        };
        let alone = Box::new(move |sinks: &mut [Sink]| {
            let progress = Progress::new(false);
            let how = (config.exec, format, false);
            let mut rows = grundy::report::Csv::new(&mut sinks[0]);
            exec::query(&graph, &queries, how, &columns, &mut rows, &progress)
        });
        Ok(Prepared { job, streams, alone })
    }
}
