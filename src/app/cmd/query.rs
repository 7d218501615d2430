//! `grundy query`: a file of queries answered against one graph, as CSV with winning moves.

use crate::app::cli::QueryArgs;
use crate::app::config::{self, Config};
use crate::error::Error;
use crate::exec::CaseReader;
use crate::exec::Exec;
use crate::io::input::Input;
use crate::io::progress::Progress;
use crate::io::sink::{Put, Sink};
use crate::meter::Meter;
use crate::parse::chess::ChessReader;
use crate::parse::format::Format;
use crate::report::{self, Rows, QUERY_HEADER};

/// Runs `grundy query` with the user's arguments.
pub fn run(args: &QueryArgs, config: &Config) -> Result<(), Error> {
    let format = config::format(&args.format)?;
    let is_stdin = |p: Option<&std::path::Path>| p.map_or(true, |p| p.as_os_str() == "-");
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
    let output = args.output.as_deref();
    crate::app::cmd::refuse_clobbering(
        &[("GRAPH", Some(&args.graph)), ("QUERIES", queries)],
        &[("-o", output)],
    )?;
    let progress = Progress::new(config.progress);
    let graph_input = Input::open(Some(&args.graph))?;
    let queries_input = Input::open(queries)?;
    let mut out = Sink::open_beside(output, &progress)?;
    query(&graph_input, &queries_input, config.exec, format, &mut out, &progress)?;
    progress.finish();
    out.finish()
}

/// Answers the queries of `queries_input` against the first case of `graph_input`, as CSV
/// rows (with a header) to `out`. The engine of `grundy query`, apart from files and terminals.
pub fn query(
    graph_input: &Input,
    queries_input: &Input,
    exec: Exec,
    format: Format,
    out: &mut impl Put,
    meter: &dyn Meter,
) -> Result<(), Error> {
    out.put(&Rows::header(QUERY_HEADER))?;
    let Some(case) = CaseReader::new(graph_input, exec, format, meter).next_case()? else {
        return Err(Error::NoGraph { path: graph_input.name().to_string() });
    };
    let nodes = case.graph.node_count() as u32;
    let mut reader = CaseReader::queries_only(queries_input, exec, nodes, meter);
    let (graph, values) = (&case.graph, &case.values);
    let answered = reader.queries(
        |number, positions, bufs| {
            report::push_query_row(&mut bufs.main, None, number, positions, graph, values);
        },
        |bufs| {
            out.put(&bufs.main)?;
            crate::app::cmd::stop_if_all_closed(&[&*out])
        },
    );
    answered.and_then(|_| reader.expect_end()).map_err(|e| hint_graph_file(e, queries_input))
}

/// Adds to an error in a query file that the file reads as a graph, when it does: the likely
/// mistake is a graph file given where the queries belong.
fn hint_graph_file(error: Error, queries: &Input) -> Error {
    match error {
        Error::Parse { path, line, column, message } if path == queries.name() => {
            let graph = ChessReader::new(queries.bytes()).next_graph();
            let message = match graph {
                Ok(Some(g)) if g.node_count() > 0 => format!(
                    "{message} (QUERIES looks like a graph file: it reads as a case of {} nodes; \
                     give a file of queries, `M p_1 .. p_M` per line)",
                    g.node_count()
                ),
                _ => message,
            };
            Error::Parse { path, line, column, message }
        }
        other => other,
    }
}
