//! `grundy query`: a file of queries answered against one graph, as CSV with winning moves.

use crate::cases::CaseReader;
use crate::cli::QueryArgs;
use crate::config::Config;
use crate::error::Error;
use crate::input::Input;
use crate::output::Sink;
use crate::progress::Progress;
use crate::report::{self, Rows, QUERY_HEADER};

/// Runs `grundy query` with the user's arguments.
pub fn run(args: &QueryArgs, config: &Config) -> Result<(), Error> {
    let graph_input = Input::open(Some(&args.graph))?;
    let queries_input = Input::open(Some(&args.queries))?;
    let mut out = Sink::open(args.output.as_deref())?;
    out.put(&Rows::header(QUERY_HEADER))?;
    let mut progress = Progress::new(config.progress, queries_input.bytes().len() as u64);
    progress.stage("reading the graph");
    let Some(case) = CaseReader::new(&graph_input, config, args.format).next_case()? else {
        return Err(Error::Limit {
            path: graph_input.name().to_string(),
            case: 1,
            message: "the file has no case, so no graph to query".into(),
        });
    };
    let nodes = case.graph.node_count() as u32;
    let mut reader = CaseReader::queries_only(&queries_input, config, nodes);
    let (graph, values) = (&case.graph, &case.values);
    reader.queries(
        |number, positions, bufs| {
            report::push_query_row(&mut bufs.main, None, number, positions, graph, values);
        },
        |bufs, done| {
            out.put(&bufs.main)?;
            progress.bytes(done.bytes);
            progress.items(0, "queries");
            Ok(())
        },
    )?;
    reader.expect_end()?;
    progress.finish();
    out.finish()
}
