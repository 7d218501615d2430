//! `grundy generate`: a random, valid chess-format file.

use crate::cli::GenerateArgs;
use crate::error::Error;
use crate::generate::{self, Spec};
use crate::output::Sink;

/// Runs `grundy generate` with the user's arguments.
pub fn run(args: &GenerateArgs) -> Result<(), Error> {
    let avg_degree = match args.edges {
        Some(e) if args.nodes > 0 => e as f64 / f64::from(args.nodes),
        _ => args.avg_degree,
    };
    let spec = Spec {
        nodes: args.nodes,
        avg_degree,
        queries: args.queries,
        max_tokens: args.max_tokens,
        cases: args.cases,
        seed: args.seed,
        shape: args.shape,
    };
    spec.validate().map_err(Error::Usage)?;
    let mut sink = Sink::open(args.output.as_deref())?;
    let name = sink.name();
    generate::generate(&spec, &mut sink).map_err(|e| Error::io(&name, "cannot write", e))?;
    sink.finish()
}
