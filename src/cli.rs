//! The command line as the user typed it (clap derive). [`crate::config`] resolves what is
//! shared (threads), each `cmd` module the rest, before any work starts.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::generate::Shape;

/// Sprague-Grundy analyzer for impartial games on large DAGs.
#[derive(Debug, Parser)]
#[command(name = "grundy", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads [default: all cores]; 1 runs the sequential code path.
    #[arg(long, short = 'j', global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// No progress bars (they are drawn only on a terminal, for runs over half a second).
    #[arg(long, global = true)]
    pub quiet: bool,

    /// Bytes of input tokenized per parallel step (tests use small values to cross many
    /// chunk boundaries).
    #[arg(long, global = true, hide = true, value_name = "BYTES")]
    pub chunk_bytes: Option<usize>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer WIN or LOSE for each query of a chess-format file, one line each.
    ///
    /// The input holds one or more cases: N, then for each node i its out-degree X_i and X_i
    /// out-positions, then queries `M p_1 .. p_M`, ended by a query `0` or the end of input.
    Solve(SolveArgs),
    /// Write every node's Grundy value, level and out-degree as CSV.
    Values(ValuesArgs),
    /// Answer a file of queries against the graph of a chess-format file, as CSV with a
    /// winning move for each WIN.
    Query(QueryArgs),
    /// Show the shape of each case: sizes, levels, degrees, value histograms, stage times.
    Stats(StatsArgs),
    /// Play a seed problem's game: the judge's input in, the judge's output out.
    ///
    /// cutting (POJ 2311): lines `W H`, prints WIN or LOSE; crosses (POJ 3537): lines `n`,
    /// prints 1 or 2; team-nim (POJ 2068): lines `n S M_1 .. M_2n`, `0` ends, prints 1 or 0;
    /// geography (POJ 2599): cases `n m` and n-1 lines `a b`, prints the first player's
    /// winning airport.
    Game(GameArgs),
    /// Write a random, valid chess-format file (acyclic by construction, deterministic).
    Generate(GenerateArgs),
}

/// The input formats of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// "A Chess Game": each move leads to one position.
    #[default]
    Chess,
    /// Each move leads to a sum of positions.
    Sums,
}

/// Arguments of `grundy solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Input file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Input format: `chess` (node i: X_i then X_i out-positions) or `sums` (node i: K_i
    /// then K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions).
    #[arg(long, value_enum, default_value_t = Format::Chess)]
    pub format: Format,

    /// Also write a CSV report, one row per query:
    /// case,query,positions,nim_sum,result,move_from,move_to.
    #[arg(long, value_name = "CSV")]
    pub report: Option<PathBuf>,
}

/// Arguments of `grundy values`.
#[derive(Debug, clap::Args)]
pub struct ValuesArgs {
    /// Input file; `-` reads stdin.
    pub file: PathBuf,
    /// Input format: `chess` (node i: X_i then X_i out-positions) or `sums` (node i: K_i
    /// then K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions).
    #[arg(long, value_enum, default_value_t = Format::Chess)]
    pub format: Format,

    /// Output CSV (written whole or not at all); default stdout. Columns:
    /// case,node,grundy,level,out_degree.
    #[arg(long, short = 'o', value_name = "CSV")]
    pub output: Option<PathBuf>,
}

/// Arguments of `grundy query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// File whose first case is the graph (its queries are ignored).
    pub graph: PathBuf,
    /// Format of the graph file: `chess` (node i: X_i then X_i out-positions) or `sums` (node i: K_i
    /// then K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions).
    #[arg(long, value_enum, default_value_t = Format::Chess)]
    pub format: Format,

    /// File of queries `M p_1 .. p_M` (an optional `0` ends it); `-` reads stdin.
    pub queries: PathBuf,
    /// Output CSV (written whole or not at all); default stdout. Columns:
    /// query,positions,nim_sum,result,move_from,move_to.
    #[arg(long, short = 'o', value_name = "CSV")]
    pub output: Option<PathBuf>,
}

/// Arguments of `grundy stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Input file; `-` reads stdin.
    pub file: PathBuf,
    /// Input format: `chess` (node i: X_i then X_i out-positions) or `sums` (node i: K_i
    /// then K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions).
    #[arg(long, value_enum, default_value_t = Format::Chess)]
    pub format: Format,

    /// JSON for scripts instead of the text table.
    #[arg(long)]
    pub json: bool,
}

/// The built-in games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GameName {
    /// POJ 2311, the Cutting Game.
    Cutting,
    /// POJ 3537, Crosses and Crosses.
    Crosses,
    /// POJ 2068, Nim on a round table of two teams.
    TeamNim,
    /// POJ 2599, A funny game (geography on a tree of flights).
    Geography,
}

/// Arguments of `grundy game`.
#[derive(Debug, clap::Args)]
pub struct GameArgs {
    /// Which game.
    #[arg(value_enum)]
    pub name: GameName,
    /// The judge's input; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// Write the game's values as CSV instead (cutting: w,h,grundy; crosses: n,grundy;
    /// team-nim: case,seat,stones,grundy; geography: case,airport,grundy).
    #[arg(long, conflicts_with = "export")]
    pub table: bool,
    /// Write the game's state graph in the sums format instead, with one query per input
    /// record, for `grundy solve --format sums`.
    #[arg(long)]
    pub export: bool,
    /// Output file (written whole or not at all); `-` or nothing writes stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `grundy generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Nodes per case.
    #[arg(long, short = 'n', value_name = "N")]
    pub nodes: u32,
    /// Mean out-degree (random, layered and wide shapes).
    #[arg(long, value_name = "D", conflicts_with = "edges", default_value_t = 2.0)]
    pub avg_degree: f64,
    /// About this many edges per case: sets the mean out-degree to EDGES / NODES.
    #[arg(long, value_name = "E")]
    pub edges: Option<u64>,
    /// Queries per case.
    #[arg(long, short = 'q', value_name = "Q", default_value_t = 1000)]
    pub queries: u64,
    /// Tokens per query are uniform in 1..=M.
    #[arg(long, value_name = "M", default_value_t = 10)]
    pub max_tokens: u32,
    /// Number of cases.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub cases: u32,
    /// Seed of every random choice: same arguments and seed, same bytes.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Graph structure.
    #[arg(long, value_enum, default_value_t = Shape::Random)]
    pub shape: Shape,
    /// Output file (written whole or not at all); `-` or nothing writes stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
