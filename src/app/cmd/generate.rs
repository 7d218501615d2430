//! `grundy generate`: a random, valid chess-format file (or a file of queries only).

use crate::app::cli::GenerateArgs;
use crate::app::config::Config;
use grundy::error::Error;
use grundy::generate::{self, Edges, Spec};
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;

/// Runs `grundy generate` with the user's arguments.
pub fn run(args: &GenerateArgs, config: &Config) -> Result<(), Error> {
    let spec = Spec {
        nodes: args.nodes,
        edges: args.edges.map_or(Edges::Mean(args.avg_degree), Edges::Exact),
        max_out_degree: args.max_out_degree,
        simple: args.simple,
        queries: args.queries,
        min_tokens: args.min_tokens,
        max_tokens: args.max_tokens,
        lose_share: args.lose_share,
        cases: args.cases,
        seed: args.seed,
        shape: args.shape.into(),
        sorted: args.sorted,
        queries_only: args.queries_only,
        back_edges: args.back_edges,
    };
    spec.validate().map_err(Error::Usage)?;
    let progress = Progress::new(config.progress);
    let mut sink = Sink::open_beside(args.output.as_deref(), &progress)?;
    let written = generate::generate(&spec, &mut sink, config.exec, &progress);
    written.map_err(|e| Error::io(sink.name(), "cannot write", e))?;
    progress.finish();
    Ok(sink.finish()?)
}
