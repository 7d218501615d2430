//! The command line as the user typed it (clap derive). [`crate::app::config`] resolves what is
//! shared (threads), each `cmd` module the rest, before any work starts.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use grundy::generate::{NodeRange, Shape};

/// The graph shapes of `generate`, as `--shape` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShapeName {
    /// Out-positions uniform among the later ranks: shallow, wide levels.
    Random,
    /// One path through all nodes: a million nodes make a million levels.
    Chain,
    /// Layers of about sqrt(N) nodes; edges go to the next layer.
    Layered,
    /// Eight layers of N/8 nodes; edges go to the next layer.
    Wide,
    /// Every node moves to every later one: N(N-1)/2 edges.
    Tournament,
}

impl From<ShapeName> for Shape {
    fn from(name: ShapeName) -> Shape {
        match name {
            ShapeName::Random => Shape::Random,
            ShapeName::Chain => Shape::Chain,
            ShapeName::Layered => Shape::Layered,
            ShapeName::Wide => Shape::Wide,
            ShapeName::Tournament => Shape::Tournament,
        }
    }
}

/// Sprague-Grundy analyzer for impartial games on large DAGs.
#[derive(Debug, Parser)]
#[command(name = "grundy", version, about, long_about = None)]
pub struct Cli {
    /// Worker threads [default: all cores; at most 8 a core, or 16, with a warning past it].
    #[arg(long, short = 'j', global = true, value_name = "N")]
    pub threads: Option<usize>,

    /// One thread, on the sequential twins of the parallel stages (the reference the tests
    /// compare the engine with; slower, and a game graph's peel holds about 12 B per edge).
    #[arg(long, global = true, hide = true, conflicts_with = "threads")]
    pub sequential: bool,

    /// No progress bars (they are drawn only on a terminal, for runs over half a second).
    #[arg(long, global = true)]
    pub quiet: bool,

    /// Bytes of input tokenized per parallel step (tests use small values to cross many
    /// chunk boundaries).
    #[arg(long, global = true, hide = true, value_name = "BYTES")]
    pub chunk_bytes: Option<usize>,

    /// The most tokens one query may hold: a longer one is an error at its token count, read
    /// before its tokens (each is held until the query is answered, 4 bytes).
    #[arg(long, global = true, value_name = "N", default_value_t = grundy::parse::walk::DEFAULT_MAX_QUERY)]
    pub max_query_tokens: u32,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// True when the command runs on a cluster (`--processes`, `--hosts`, or a local
    /// cluster's child).
    pub fn runs_on_a_cluster(&self) -> bool {
        let cluster = match &self.command {
            Command::Solve(a) => &a.cluster,
            Command::Values(a) => &a.cluster,
            Command::Query(a) => &a.cluster,
            _ => return false,
        };
        cluster.processes.is_some() || cluster.hosts.is_some() || cluster.peers.is_some()
    }
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
    /// Solve a game once and write it as an index file, which query, values and stats read in
    /// place of the input (recognised by its first bytes) without solving it again.
    Index(IndexArgs),
    /// Serve a solved game over HTTP (loopback unless --listen says otherwise): positions
    /// and their moves, query files answered as `query` answers them, the statistics, and a
    /// page with charts and a position explorer.
    ///
    /// GAME is an index (`grundy index`), or any file `index` reads, solved at start.
    Serve(ServeArgs),
    /// Play a seed problem's game: the judge's input in, the judge's output out.
    ///
    /// cutting (POJ 2311): lines `W H`, prints WIN or LOSE; crosses (POJ 3537): lines `n`,
    /// prints 1 or 2; team-nim (POJ 2068): lines `n S M_1 .. M_2n`, `0` ends, prints 1 or 0;
    /// geography (POJ 2599): cases `n m` and n-1 lines `a b`, prints the first player's
    /// winning airport.
    Game(GameArgs),
    /// Compute an octal game's Grundy sequence, and its period when it can be proved.
    ///
    /// CODE is d0.d1d2...: digit d_j says how a move may remove j tokens from a heap (bit 1:
    /// emptying it, 2: leaving one heap, 4: two heaps; with --hex, 8: three heaps); d0 is 0 or
    /// 4 (4: split a heap in two without removing any). Kayles is 0.77, Dawson's Kayles 0.07.
    Octal(OctalArgs),
    /// Write a random, valid chess-format file (acyclic by construction, deterministic).
    Generate(GenerateArgs),
}

/// Arguments of `grundy octal`.
#[derive(Debug, clap::Args)]
pub struct OctalArgs {
    /// The game's code, e.g. 0.77 or .07.
    pub code: String,
    /// Compute G(0..=N), or stop earlier when the period is proved (the table and the plot
    /// still show G(0..=N): the period gives the rest).
    #[arg(short = 'n', value_name = "N", default_value_t = 100_000)]
    pub n: usize,
    /// Write G(0..=N) as CSV `n,grundy` (written whole or not at all).
    #[arg(long, short = 'o', value_name = "TABLE.csv")]
    pub output: Option<PathBuf>,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Read the code's digits as hexadecimal (bit 8: leave three heaps).
    #[arg(long)]
    pub hex: bool,
    /// Draw G(n) against n as SVG.
    #[arg(long, value_name = "SEQ.svg")]
    pub plot: Option<PathBuf>,
    /// Write how often each value occurs among G(0..2^k), for each power of two up to N + 1
    /// and at N + 1 (the form published record tables take), as CSV `heaps,grundy,count`:
    /// the heaps 0 to heaps - 1 counted (written whole or not at all).
    #[arg(long, value_name = "COUNTS.csv")]
    pub histogram: Option<PathBuf>,
    /// Keep the values computed so far in FILE, written whole every --checkpoint-every
    /// seconds; when FILE holds a checkpoint of the same code, go on from it (the outputs are
    /// those of a run that never stopped). Removed once the run ends.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, requires = "checkpoint")]
    pub checkpoint_every: f64,
    /// Use the plain method (every move of every heap), the sparse method's twin.
    #[arg(long, hide = true)]
    pub naive: bool,
}

/// The input formats of a game, as `--format` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FormatName {
    /// "A Chess Game": each move leads to one position.
    #[default]
    Chess,
    /// Each move leads to a sum of positions.
    Sums,
    /// An edge list: one `u v` per line, `#` or `%` comment lines; one graph, no queries.
    Edges,
}

/// What `--genus` does, on every command that takes it.
const GENUS_HELP: &str = "With --play misere: Conway's genus of every node too (values' \
    misere_genus column; an index keeps it), which decides more sums: one token of any kind \
    among tokens equal to nim heaps *1 to *3 (*2 or *3 among them) and one more heap. It costs \
    time: about 1.5x the misère run on random graphs of 10 moves a node.";

/// How a query's tokens are played, as `--play` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PlayName {
    /// One token moves; the last to move wins (Sprague-Grundy).
    #[default]
    Normal,
    /// One token moves; the last to move loses. A sum of two or more tokens not equal to *0
    /// is decided where they are all nim heaps or tame (Winning Ways' tame rule), or all but
    /// one are heaps *1 to *3 and one more heap (the genus rule), or all but one are heaps,
    /// two or more of them *4 or more, beside a token whose wild positions all have value
    /// and genus entries below 4 (the big-heaps rule, with --genus), else UNDECIDED.
    Misere,
    /// Every token moves; the game ends as soon as one cannot (remoteness).
    Conjunctive,
    /// Every token that can move moves; the game ends when none can (suspense).
    Continued,
    /// Any non-empty set of tokens moves.
    Selective,
}

impl PlayName {
    /// The play, with Conway's genus when `genus` (misère play only: `check_play` refuses it
    /// with the others).
    pub fn play(self, genus: bool) -> grundy::play::Play {
        use grundy::play::Play;
        match self {
            PlayName::Normal => Play::Normal,
            PlayName::Misere => Play::Misere { genus },
            PlayName::Conjunctive => Play::Conjunctive,
            PlayName::Continued => Play::Continued,
            PlayName::Selective => Play::Selective,
        }
    }
}

/// The formats of rows, as `--output-format` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormatName {
    /// Comma-separated text with a header line.
    Csv,
    /// Apache Parquet, zstd-compressed, typed columns (the `columnar` feature).
    Parquet,
    /// Arrow IPC, the file format, uncompressed (the `columnar` feature).
    Arrow,
}

impl From<OutputFormatName> for grundy::report::FileFormat {
    fn from(name: OutputFormatName) -> grundy::report::FileFormat {
        use grundy::report::FileFormat;
        match name {
            OutputFormatName::Csv => FileFormat::Csv,
            OutputFormatName::Parquet => FileFormat::Parquet,
            OutputFormatName::Arrow => FileFormat::Arrow,
        }
    }
}

/// How the graph file is written: the flags every reading command shares.
#[derive(Debug, Clone, clap::Args)]
pub struct FormatArgs {
    /// Input format: `chess` (node i: X_i then X_i out-positions), `sums` (node i: K_i then
    /// K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions) or `edges` (one
    /// `u v` or `u,v` per line, a move from u to v, maybe followed by networkx's empty `{}`;
    /// `#` and `%` lines are comments).
    #[arg(long, value_enum, default_value_t = FormatName::Chess)]
    pub format: FormatName,
    /// Node count of an edge list (`--format edges`) [default: the largest id + 1].
    #[arg(long, value_name = "N")]
    pub nodes: Option<u32>,
}

/// How the input of `solve` is written: the formats with queries. `edges` is accepted but
/// hidden from the help and from clap's list of values, so that it gets the advice to use
/// `grundy query` (`Error::Usage`) rather than being offered and then refused.
#[derive(Debug, Clone, clap::Args)]
pub struct SolveFormatArgs {
    /// Input format: `chess` (node i: X_i then X_i out-positions) or `sums` (node i: K_i then
    /// K_i moves, each `c q_1 .. q_c`, a move to the sum of c positions).
    #[arg(long, default_value = "chess", value_parser = solve_formats())]
    pub format: FormatName,
    /// Node count of an edge list, which solve does not take (hidden: it only leads to the
    /// advice `--format edges` gets).
    #[arg(long, value_name = "N", hide = true)]
    pub nodes: Option<u32>,
}

impl From<&SolveFormatArgs> for FormatArgs {
    fn from(args: &SolveFormatArgs) -> FormatArgs {
        FormatArgs { format: args.format, nodes: args.nodes }
    }
}

/// The values of `solve --format`: every format, `edges` hidden (see [`SolveFormatArgs`]).
fn solve_formats() -> impl clap::builder::TypedValueParser<Value = FormatName> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    use clap::ValueEnum;
    let values = FormatName::value_variants().iter().filter_map(ValueEnum::to_possible_value);
    let values = values.map(|value| {
        let edges = value.get_name() == "edges";
        value.hide(edges)
    });
    PossibleValuesParser::new(values).try_map(|name: String| FormatName::from_str(&name, false))
}

/// Arguments of `grundy solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Input file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// How the input is written.
    #[command(flatten)]
    pub format: SolveFormatArgs,
    /// Also write a report, one row per query:
    /// case,query,positions,nim_sum,result,move_from,move_to (CSV; Parquet or Arrow IPC for
    /// a path ending in .parquet or .arrow, or with --output-format).
    #[arg(long, value_name = "CSV")]
    pub report: Option<PathBuf>,
    /// The report's format [default: by the extension of --report, else csv].
    #[arg(long, value_enum, value_name = "FORMAT", requires = "report")]
    pub output_format: Option<OutputFormatName>,
    /// Allow cycles and self-loops: generalized Sprague-Grundy values (finite or inf), and
    /// WIN, LOSE or DRAW (infinite play) per query. The chess format only (not sums).
    #[arg(long)]
    pub loopy: bool,
    /// How a query's tokens are played. Other than normal: the chess format, one process; the
    /// report's rows are case,query,positions,result,move_from,move_to,reason (a winning
    /// move's tokens and where each goes, as lists; why a misère sum is UNDECIDED).
    #[arg(long, value_enum, value_name = "PLAY", default_value_t = PlayName::Normal)]
    pub play: PlayName,
    #[arg(long, help = GENUS_HELP)]
    pub genus: bool,
    /// Where the processes of a cluster run.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// Output file for the WIN/LOSE lines (written whole or not at all); default stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Compare the WIN/LOSE lines with a judge's expected output instead of printing them:
    /// exit 0 when every line is the same (trailing spaces and blank lines at the end
    /// ignored), else 1 naming the first line that differs, with both lines.
    #[arg(long, value_name = "EXPECTED", conflicts_with = "output")]
    pub check: Option<PathBuf>,
}

/// Where the processes of a cluster run (`values`, `solve`, `query`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ClusterArgs {
    /// Run on N local processes (127.0.0.1, free ports): this one, which writes the output,
    /// and N-1 it starts.
    #[arg(long, value_name = "N", conflicts_with = "hosts")]
    pub processes: Option<usize>,
    /// A file of `host:port` lines, one per process of a cluster; every machine runs the same
    /// command with its own --process (shared storage: FILE at the same path everywhere).
    #[arg(long, value_name = "FILE", requires = "process", conflicts_with = "peers")]
    pub hosts: Option<PathBuf>,
    /// This process's line in --hosts, from 0 (process 0 writes the output).
    #[arg(long, value_name = "I")]
    pub process: Option<usize>,
    /// Worker threads per process of a cluster [default: 1].
    #[arg(long, value_name = "W")]
    pub workers: Option<usize>,
    /// A file holding the cluster's shared secret: peers prove they hold it before they join
    /// (default: the GRUNDY_SECRET environment variable; without either, anyone who can reach
    /// the ports can join).
    #[arg(long, value_name = "FILE", conflicts_with = "processes")]
    pub secret_file: Option<PathBuf>,
    /// The addresses of a local cluster's processes, comma-separated: how `--processes`
    /// tells its children where their peers are.
    #[arg(long, hide = true, value_name = "ADDRESSES", conflicts_with = "processes")]
    pub peers: Option<String>,
}

/// How an index given in place of a graph file is read.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct IndexReadArgs {
    /// When the input is an index: skip its checksums (a file you wrote and trust; reading
    /// then costs the pages answering touches, and a damaged file may give wrong answers
    /// where the checksums would refuse it; a move past the last node is still refused where
    /// every move is read, as by stats, and taken as no move elsewhere).
    #[arg(long)]
    pub trust: bool,
}

/// Arguments of `grundy index`.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Input file (any file `values` reads); `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// How the input is written.
    #[command(flatten)]
    pub format: FormatArgs,
    /// Allow cycles and self-loops: the index holds generalized values (read back with
    /// --loopy).
    #[arg(long)]
    pub loopy: bool,
    /// The index file to write (written whole or not at all); `-` writes stdout.
    #[arg(long, short = 'o', value_name = "GAME.grundy")]
    pub output: PathBuf,
    /// Keep the numbers of these plays too (comma-separated: conjunctive's remoteness,
    /// continued's suspense, misere's values and heaps), which `values --play` and `query
    /// --play` then read instead of computing them. Chess and edge-list formats, not --loopy.
    #[arg(long, value_enum, value_name = "PLAY,..", value_delimiter = ',')]
    pub play: Vec<PlayName>,
    #[arg(long, help = GENUS_HELP)]
    pub genus: bool,
}

/// Arguments of `grundy serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The game: an index, or a file `index` reads (then solved and indexed in memory).
    pub game: PathBuf,
    /// How a GAME that is not an index is written.
    #[command(flatten)]
    pub format: FormatArgs,
    /// Allow cycles and self-loops in a GAME that is not an index (an index says itself).
    #[arg(long)]
    pub loopy: bool,
    /// How an index is read.
    #[command(flatten)]
    pub index: IndexReadArgs,
    /// The address and port to listen on. Another address than loopback lets every machine
    /// that can reach this one read the game (there is no authentication): a warning says so.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// The largest request body taken (a query file), in bytes, or with a K, M or G suffix
    /// (powers of 1024); a larger one is refused with 413 (a chunked one too: it is read to its
    /// end before any row goes out).
    #[arg(long, value_name = "BYTES", default_value = "256M", value_parser = parse_bytes)]
    pub body_limit: u64,
    /// The longest answer to one query body, in bytes (K, M, G as above): past it, a 413 when
    /// no row was sent yet, else the answer is cut (its chunked body never ends); a few
    /// hundred bytes of zstd can ask for gigabytes of rows.
    #[arg(long, value_name = "BYTES", default_value = "1G", value_parser = parse_bytes)]
    pub answer_limit: u64,
    /// Seconds one request may take, from its head to its answer's last byte: at the deadline
    /// an answer not begun is a 503, one begun is cut (its chunked body never ends), and the
    /// connection is reset half a second later whether or not the client reads.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
    /// Seconds a connection may take to send a request's head, from its opening or from the
    /// end of its previous answer (an idle keep-alive connection is closed after it).
    /// Default: 10, or --timeout when shorter.
    #[arg(long, value_name = "SECONDS")]
    pub head_timeout: Option<f64>,
    /// Connections held at once. When all are taken, the one that has waited longest for a
    /// request's head (half a second at least) is reset to make room for a new one; when
    /// every one is answering a request, new ones wait in the kernel's queue.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub connections: usize,
    /// Query bodies answered at once (each holds a thread and its buffers, about 20 MiB); past
    /// them a body waits up to a second for a slot, then gets a 503.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub query_slots: usize,
}

/// A count of bytes: digits, then maybe K, M or G (powers of 1024).
fn parse_bytes(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&text[..i], c.to_ascii_uppercase()),
        _ => (text, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("`{text}`: expected bytes, maybe with a K, M or G suffix")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("`{text}`: expected a number of bytes"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("`{text}`: too many bytes"))
}

/// Arguments of `grundy values`.
#[derive(Debug, clap::Args)]
pub struct ValuesArgs {
    /// Input file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// How the input is written.
    #[command(flatten)]
    pub format: FormatArgs,
    /// Allow cycles and self-loops: generalized Sprague-Grundy values (finite or inf), and the
    /// outcome of one token (WIN, LOSE or DRAW). Columns:
    /// case,node,grundy,infinite_set,outcome,out_degree. Chess and edge-list formats.
    #[arg(long)]
    pub loopy: bool,
    /// How a query's tokens are played: the play's columns follow values' own (conjunctive:
    /// remoteness; continued: suspense; misere: misere_outcome,misere_grundy,misere_heap;
    /// selective and normal: none). Other than normal: chess and edge-list formats or an
    /// index of either, one process; CSV, Parquet or Arrow IPC as -o says.
    #[arg(long, value_enum, value_name = "PLAY", default_value_t = PlayName::Normal)]
    pub play: PlayName,
    #[arg(long, help = GENUS_HELP)]
    pub genus: bool,
    /// Where the processes of a cluster run.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// How an index is read.
    #[command(flatten)]
    pub index: IndexReadArgs,
    /// Output CSV (written whole or not at all); default stdout. Columns:
    /// case,node,grundy,level,out_degree. A path ending in .parquet or .arrow is written as
    /// Parquet or Arrow IPC.
    #[arg(long, short = 'o', value_name = "CSV")]
    pub output: Option<PathBuf>,
    /// The output's format [default: by the extension of -o, else csv].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormatName>,
}

/// Arguments of `grundy query`.
#[derive(Debug, clap::Args)]
pub struct QueryArgs {
    /// File whose first case is the graph (its queries are ignored); `-` reads stdin.
    pub graph: PathBuf,
    /// File of queries `M p_1 .. p_M` (an optional `0` ends it); `-` or nothing reads stdin.
    pub queries: Option<PathBuf>,
    /// How the input is written.
    #[command(flatten)]
    pub format: FormatArgs,
    /// Allow cycles and self-loops in GRAPH: generalized Sprague-Grundy values, and WIN, LOSE
    /// or DRAW (infinite play) per query.
    #[arg(long)]
    pub loopy: bool,
    /// How a query's tokens are played. Other than normal: rows of
    /// case,query,positions,result,move_from,move_to,reason (as `solve --play --report`;
    /// not with --columns), chess and edge-list formats or an index of either, one process;
    /// CSV, Parquet or Arrow IPC as -o says.
    #[arg(long, value_enum, value_name = "PLAY", default_value_t = PlayName::Normal)]
    pub play: PlayName,
    #[arg(long, help = GENUS_HELP)]
    pub genus: bool,
    /// Where the processes of a cluster run.
    #[command(flatten)]
    pub cluster: ClusterArgs,
    /// How an index is read.
    #[command(flatten)]
    pub index: IndexReadArgs,
    /// Output CSV (written whole or not at all); default stdout. Columns:
    /// query,positions,nim_sum,result,move_from,move_to. A path ending in .parquet or .arrow
    /// is written as Parquet or Arrow IPC.
    #[arg(long, short = 'o', value_name = "CSV")]
    pub output: Option<PathBuf>,
    /// The output's format [default: by the extension of -o, else csv].
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<OutputFormatName>,
    /// The columns to write, comma-separated, in the order given (e.g. `result` or
    /// `query,result`); without move_from and move_to no winning move is searched for.
    #[arg(long, value_name = "LIST")]
    pub columns: Option<String>,
}

/// Arguments of `grundy stats`.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Input file; `-` or nothing reads stdin.
    pub file: Option<PathBuf>,
    /// How the input is written.
    #[command(flatten)]
    pub format: FormatArgs,
    /// JSON for scripts instead of the text table.
    #[arg(long)]
    pub json: bool,
    /// Write the report as one self-contained HTML page instead (the summary and SVG charts
    /// of the value, level and out-degree histograms: the page `grundy serve` shows), to this
    /// file (written whole or not at all; `-` writes stdout).
    #[arg(long, value_name = "REPORT.html", conflicts_with = "json")]
    pub html: Option<PathBuf>,
    /// Allow cycles and self-loops: counts of finite and infinite nodes, and of WIN, LOSE and
    /// DRAW queries.
    #[arg(long)]
    pub loopy: bool,
    /// How a query's tokens are played: WIN and LOSE (and UNDECIDED, misere) count the queries
    /// under that play, and a histogram of the play's number follows (conjunctive:
    /// remoteness; continued: suspense; misere: misere grundy, and the nodes equal to misere
    /// nim heaps). Other than normal: chess and edge-list formats, one process.
    #[arg(long, value_enum, value_name = "PLAY", default_value_t = PlayName::Normal)]
    pub play: PlayName,
    #[arg(long, help = GENUS_HELP)]
    pub genus: bool,
    /// How an index is read.
    #[command(flatten)]
    pub index: IndexReadArgs,
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
    /// Nodes per case: `N`, or a range `A..B` (both ends included) to draw each case's size
    /// from.
    #[arg(long, short = 'n', value_name = "N|A..B", value_parser = parse_node_range)]
    pub nodes: NodeRange,
    /// Mean out-degree (random, layered and wide shapes); degrees are uniform in 0..=2D.
    #[arg(long, value_name = "D", conflicts_with = "edges", default_value_t = 2.0)]
    pub avg_degree: f64,
    /// Exactly this many edges in every case (needs a fixed --nodes).
    #[arg(long, value_name = "E")]
    pub edges: Option<u64>,
    /// No node has more than D out-positions.
    #[arg(long, value_name = "D")]
    pub max_out_degree: Option<u32>,
    /// No repeated out-position in a node's list (no multi-edges).
    #[arg(long)]
    pub simple: bool,
    /// Queries per case (`-q` is --queries here only: elsewhere QUERIES is a file).
    #[arg(long, short = 'q', value_name = "Q", default_value_t = 1000)]
    pub queries: u64,
    /// Tokens per query are uniform in --min-tokens..=--max-tokens.
    #[arg(long, value_name = "M", default_value_t = 1)]
    pub min_tokens: u32,
    /// Tokens per query are uniform in --min-tokens..=--max-tokens.
    #[arg(long, value_name = "M", default_value_t = 10)]
    pub max_tokens: u32,
    /// About this share of the queries (0 to 1) are LOSE, the rest WIN; the generator
    /// evaluates each graph to choose them [default: tokens uniform at random].
    #[arg(long, value_name = "F")]
    pub lose_share: Option<f64>,
    /// Number of cases.
    #[arg(long, value_name = "C", default_value_t = 1)]
    pub cases: u32,
    /// Seed of every random choice: same arguments and seed, same bytes.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Graph structure.
    #[arg(long, value_enum, default_value_t = ShapeName::Random)]
    pub shape: ShapeName,
    /// Node ids in topological order (every edge goes from a smaller id to a larger one)
    /// instead of shuffled.
    #[arg(long)]
    pub sorted: bool,
    /// Write only the queries (`M p_1 .. p_M` lines), a query file for `grundy query` against
    /// the graph the same arguments write without this flag.
    #[arg(long)]
    pub queries_only: bool,
    /// This share of the edges point back in the hidden order (to an earlier node or the node
    /// itself): a game with cycles and self-loops, for `--loopy`.
    #[arg(long, value_name = "F", conflicts_with_all = ["simple", "lose_share"])]
    pub back_edges: Option<f64>,
    /// Output file (written whole or not at all); `-` or nothing writes stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Reads `N`, `A..B` or `A..=B` (both ends included).
fn parse_node_range(text: &str) -> Result<NodeRange, String> {
    let number = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|e| format!("{t:?} is not a node count (0 to {}): {e}", u32::MAX))
    };
    match text.split_once("..") {
        None => number(text).map(|n| NodeRange { min: n, max: n }),
        Some((a, b)) => {
            let (min, max) = (number(a)?, number(b.strip_prefix('=').unwrap_or(b))?);
            if min > max {
                return Err(format!("the range {text} is empty: {min} is above {max}"));
            }
            Ok(NodeRange { min, max })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn solve_offers_the_formats_with_queries_only() {
        let cli = Cli::command();
        let solve = cli.find_subcommand("solve").expect("solve");
        let format = solve.get_arguments().find(|a| a.get_id() == "format").expect("--format");
        let shown: Vec<String> = format
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(shown, ["chess", "sums"]);
        let edges = Cli::try_parse_from(["grundy", "solve", "--format", "edges"]).expect("taken");
        let Command::Solve(args) = edges.command else { panic!("solve") };
        assert_eq!(args.format.format, FormatName::Edges);
    }

    #[test]
    fn shapes_are_named_in_messages_as_shape_names_them() {
        use clap::ValueEnum;
        for name in ShapeName::value_variants() {
            let value = name.to_possible_value().expect("a value");
            assert_eq!(Shape::from(*name).name(), value.get_name());
        }
    }

    #[test]
    fn node_ranges_parse_with_both_ends_included() {
        assert_eq!(parse_node_range("7"), Ok(NodeRange { min: 7, max: 7 }));
        assert_eq!(parse_node_range("1..100000"), Ok(NodeRange { min: 1, max: 100_000 }));
        assert_eq!(parse_node_range("3..=5"), Ok(NodeRange { min: 3, max: 5 }));
        assert!(parse_node_range("5..3").is_err());
        assert!(parse_node_range("x").is_err());
        assert!(parse_node_range("1..").is_err());
    }
}
