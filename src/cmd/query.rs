//! `grundy query`: a file of queries answered against one graph, as CSV with winning moves.

use crate::cases::CaseReader;
use crate::cli::Format;
use crate::cli::QueryArgs;
use crate::config::Config;
use crate::error::Error;
use crate::input::Input;
use crate::output::{Put, Sink};
use crate::progress::Progress;
use crate::report::{self, Rows, QUERY_HEADER};

/// Runs `grundy query` with the user's arguments.
pub fn run(args: &QueryArgs, config: &Config) -> Result<(), Error> {
    let graph_input = Input::open(Some(&args.graph))?;
    let queries_input = Input::open(Some(&args.queries))?;
    let mut out = Sink::open(args.output.as_deref())?;
    let mut progress = Progress::new(config.progress, queries_input.bytes().len() as u64);
    query(&graph_input, &queries_input, config, args.format, &mut out, &mut progress)?;
    progress.finish();
    out.finish()
}

/// Answers the queries of `queries_input` against the first case of `graph_input`, as CSV
/// rows (with a header) to `out`. The engine of `grundy query`, apart from files and terminals.
pub fn query(
    graph_input: &Input,
    queries_input: &Input,
    config: &Config,
    format: Format,
    out: &mut impl Put,
    progress: &mut Progress,
) -> Result<(), Error> {
    out.put(&Rows::header(QUERY_HEADER))?;
    progress.stage("reading the graph");
    let Some(case) = CaseReader::new(graph_input, config, format).next_case()? else {
        return Err(Error::Limit {
            path: graph_input.name().to_string(),
            case: 1,
            message: "the file has no case, so no graph to query".into(),
        });
    };
    let nodes = case.graph.node_count() as u32;
    let mut reader = CaseReader::queries_only(queries_input, config, nodes);
    let (graph, values) = (&case.graph, &case.values);
    reader.queries(
        |number, positions, bufs| {
            report::push_query_row(&mut bufs.main, None, number, positions, graph, values);
        },
        |bufs, done| {
            out.put(&bufs.main)?;
            progress.bytes(done.bytes);
            progress.items(done.queries, "queries");
            Ok(())
        },
    )?;
    reader.expect_end()
}
