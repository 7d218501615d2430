//! The command line's side of a cluster: `--processes N` starts N-1 more copies of this
//! command on 127.0.0.1 (free ports, a fresh secret of their own), `--hosts FILE --process I`
//! names this process's place in a cluster of machines.
//!
//! A cluster command runs in three steps ([`run`]): its arguments are checked and its inputs
//! opened ([`Prepared`]), then the other local processes are started, then the job runs. A
//! process of `--hosts` that refuses its arguments tells its peers, so they stop at once.

use std::ffi::OsString;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use grundy::cluster::handshake::Secret;
use grundy::cluster::net::Peers;
use grundy::cluster::{Job, Run};
use grundy::error::Error;
use grundy::io::input::Input;
use grundy::io::sink::Sink;

use crate::app::cli::{self, ClusterArgs};
use crate::app::config::Config;

/// The environment variable that holds the run's secret (`--secret-file` is read instead when
/// given); `--processes` hands its children a fresh one through it.
pub const SECRET_VARIABLE: &str = "GRUNDY_SECRET";

/// Where this process will run, before anything is started.
pub enum Plan {
    /// `--processes N`: this process is process 0 of N it will start on 127.0.0.1.
    Local {
        /// N.
        processes: usize,
        /// Worker threads per process.
        workers: usize,
    },
    /// `--hosts` (or a local run's child): the processes and this one's place.
    Joined(Peers),
}

/// What a cluster command has ready once its arguments are checked: the job, process 0's
/// outputs, and how process 0 answers alone when the input has an error or a cycle.
pub struct Prepared<'a> {
    /// What every process computes.
    pub job: Job,
    /// Process 0's outputs, in stream order (none on the other processes).
    pub streams: Vec<Stream>,
    /// Process 0's single-process answer, on the same (still empty) sinks.
    pub alone: Alone<'a>,
}

/// How process 0 answers the whole input by itself, on its sinks.
pub type Alone<'a> = Box<dyn FnOnce(&mut [Sink]) -> Result<(), Error> + 'a>;

/// A command that runs on a cluster: its cluster flags, and how it gets ready to run once its
/// plan is known.
pub trait Clustered: Sync {
    /// The command's `--processes`, `--hosts`, ... flags.
    fn cluster(&self) -> &ClusterArgs;

    /// Checks the arguments and opens the inputs and (when `writes`) the outputs.
    fn prepare<'a>(&'a self, config: &'a Config, writes: bool) -> Result<Prepared<'a>, Error>;
}

/// The command as one that runs on a cluster, if it is one (`solve`, `values`, `query`).
pub fn clustered(command: &cli::Command) -> Option<&(dyn Clustered + Sync)> {
    match command {
        cli::Command::Solve(args) => Some(args),
        cli::Command::Values(args) => Some(args),
        cli::Command::Query(args) => Some(args),
        _ => None,
    }
}

/// This process's plan, or `None` without cluster flags. Nothing is started yet.
pub fn plan(args: &ClusterArgs) -> Result<Option<Plan>, Error> {
    let workers = args.workers.unwrap_or(1);
    if workers == 0 {
        return Err(Error::Usage("--workers must be at least 1".into()));
    }
    let listed = (&args.hosts, &args.peers);
    match (args.processes, listed, args.process) {
        (None, (None, None), None) if args.workers.is_some() => {
            Err(Error::Usage("--workers applies to a cluster (--processes or --hosts)".into()))
        }
        (None, (None, None), None) if args.secret_file.is_some() => {
            Err(Error::Usage("--secret-file applies to a cluster of machines (--hosts)".into()))
        }
        (None, (None, None), None) => Ok(None),
        (Some(0), _, _) => Err(Error::Usage("--processes must be at least 1".into())),
        (Some(processes), _, _) => Ok(Some(Plan::Local { processes, workers })),
        (None, (Some(hosts), _), Some(index)) => {
            let addresses = read_hosts(hosts)?;
            let secret = secret(args)?;
            if !secret.is_set() {
                eprintln!(
                    "warning: no --secret-file and no {SECRET_VARIABLE}: anyone who can reach \
                     the ports of {} can join this run (docs/CLUSTER.md)",
                    hosts.display()
                );
            }
            joined(addresses, index, workers, secret, &hosts.display().to_string())
        }
        (None, (None, Some(peers)), Some(index)) => {
            let addresses = peers.split(',').map(str::to_string).collect();
            joined(addresses, index, workers, secret(args)?, "--peers")
        }
        (None, _, None) => Err(Error::Usage("--hosts needs --process".into())),
        (None, (None, None), Some(_)) => Err(Error::Usage("--process needs --hosts".into())),
    }
}

fn joined(
    addresses: Vec<String>,
    index: usize,
    workers: usize,
    secret: Secret,
    source: &str,
) -> Result<Option<Plan>, Error> {
    if index >= addresses.len() {
        return Err(Error::Usage(format!(
            "--process {index} is not a line of {source} ({} processes, 0 to {})",
            addresses.len(),
            addresses.len() - 1
        )));
    }
    Ok(Some(Plan::Joined(Peers { addresses, index, workers, secret })))
}

/// The run's secret: the contents of `--secret-file`, else the environment variable's, else
/// none.
fn secret(args: &ClusterArgs) -> Result<Secret, Error> {
    let Some(path) = &args.secret_file else {
        let text = std::env::var_os(SECRET_VARIABLE).unwrap_or_default();
        return Ok(Secret::from_text(text.as_encoded_bytes()));
    };
    let name = path.display().to_string();
    let text = std::fs::read(path).map_err(|e| Error::io(&name, "cannot read", e))?;
    let secret = Secret::from_text(&text);
    if !secret.is_set() {
        return Err(Error::Usage(format!("--secret-file {name} is empty: put a secret in it")));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0, |m| m.permissions().mode());
        if mode & 0o077 != 0 {
            eprintln!("warning: {name} can be read by other users: `chmod 600 {name}`");
        }
    }
    Ok(secret)
}

impl Plan {
    /// True for the process that writes the output.
    pub fn writes(&self) -> bool {
        match self {
            Plan::Local { .. } => true,
            Plan::Joined(peers) => peers.index == 0,
        }
    }

    /// A process of `--hosts` whose arguments were refused prints `error` now and tells its
    /// peers, so that they stop at once; the error keeps its exit code.
    fn refuse(self, error: Error) -> Error {
        match self {
            Plan::Local { .. } => error,
            Plan::Joined(peers) => {
                eprintln!("error: {error}");
                grundy::cluster::refuse(&peers, &error.to_string());
                Error::Printed(error.exit_code())
            }
        }
    }

    /// Starts what the plan needs: the other local processes, with a fresh secret.
    fn start(self) -> Result<Place, Error> {
        match self {
            Plan::Local { processes, workers } => local(processes, workers),
            Plan::Joined(peers) => Ok(Place { peers, listener: None, children: Vec::new() }),
        }
    }
}

/// Runs a cluster command: `prepare` checks its arguments and opens its inputs and outputs
/// (told whether this process writes), then the plan starts, then the job runs.
pub fn run<'a>(
    plan: Plan,
    prepare: impl FnOnce(bool) -> Result<Prepared<'a>, Error>,
) -> Result<(), Error> {
    let prepared = match prepare(plan.writes()) {
        Ok(prepared) => prepared,
        Err(e) => return Err(plan.refuse(e)),
    };
    drive(plan.start()?, prepared)
}

/// This process's place in a started cluster, and what it must clean up.
struct Place {
    /// The processes and this one's index.
    peers: Peers,
    /// This process's listening socket, already bound (local clusters).
    listener: Option<TcpListener>,
    /// The processes this one started (`--processes`): reaped at the end, killed if this
    /// one fails first.
    children: Vec<Child>,
}

impl Place {
    /// True for the process that writes the output.
    fn writes(&self) -> bool {
        self.peers.index == 0
    }

    /// Waits for the processes this one started.
    fn reap(mut self) {
        for mut child in std::mem::take(&mut self.children) {
            let _ = child.wait();
        }
    }
}

impl Drop for Place {
    /// A run that fails before its children are reaped leaves none of them behind.
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// How a cluster reads a graph file of `format`.
pub fn graph_format(format: grundy::Format) -> grundy::cluster::Graph {
    match format {
        grundy::Format::Chess => grundy::cluster::Graph::Chess,
        grundy::Format::Sums => grundy::cluster::Graph::Sums,
        grundy::Format::Edges { nodes } => grundy::cluster::Graph::Edges(nodes),
    }
}

/// The inputs of a cluster run, opened (their queries capped as `config` says): every process
/// opens the same files itself, so each must be named (and reachable at that name on every
/// machine), not stdin.
pub fn open_inputs(
    inputs: &[(&str, Option<&Path>)],
    config: &Config,
) -> Result<Vec<Arc<Input>>, Error> {
    if let Some((what, _)) = inputs.iter().find(|(_, p)| p.is_none_or(|p| p.as_os_str() == "-")) {
        return Err(Error::Usage(format!(
            "a cluster reads {what} in every process: give it as a file, not stdin"
        )));
    }
    let opened: Vec<Arc<Input>> = inputs
        .iter()
        .map(|&(_, path)| {
            Ok(Arc::new(Input::open(path)?.with_max_query_tokens(config.max_query_tokens)))
        })
        .collect::<Result<_, Error>>()?;
    if let Some(((what, _), input)) =
        inputs.iter().zip(&opened).find(|(_, input)| grundy::index::is_index(input.bytes()))
    {
        return Err(Error::Usage(format!(
            "{what} {} is an index, which is read on one process: drop --processes and --hosts",
            input.name()
        )));
    }
    Ok(opened)
}

/// One output of a cluster run, on process 0: its sink and the header it opens with.
pub struct Stream {
    sink: Sink,
    header: Vec<u8>,
    started: bool,
}

impl Stream {
    /// An output that opens with `header` (empty for none).
    pub fn new(sink: Sink, header: Vec<u8>) -> Stream {
        Stream { sink, header, started: false }
    }

    /// Writes the header before the first bytes: a run that falls back to process 0 alone has
    /// written nothing, so its sinks answer the input as a run without a cluster would.
    fn put(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if !self.started {
            self.started = true;
            self.sink.put(&self.header)?;
        }
        Ok(self.sink.put(bytes)?)
    }
}

/// Runs the prepared job on the cluster. Process 0 writes stream `k` to `streams[k]` (the
/// others have none) and finishes them; if the input has an error or a cycle, process 0
/// answers it alone on the same, still empty, sinks, and the others exit with code 1.
fn drive(place: Place, prepared: Prepared) -> Result<(), Error> {
    let writes = place.writes();
    let listener = place.listener.as_ref().and_then(|l| l.try_clone().ok());
    let Prepared { job, mut streams, alone } = prepared;
    let run = grundy::cluster::run(job, &place.peers, listener, &mut |k, bytes| {
        streams.get_mut(usize::from(k)).map_or(Ok(()), |s| s.put(bytes))
    });
    place.reap();
    match run? {
        Run::Done => {
            for mut stream in streams {
                stream.put(&[])?;
                stream.sink.finish()?;
            }
            Ok(())
        }
        Run::Alone if writes => {
            let mut sinks: Vec<Sink> = streams.into_iter().map(|s| s.sink).collect();
            alone(&mut sinks)?;
            Ok(sinks.into_iter().try_for_each(Sink::finish)?)
        }
        Run::Alone => Err(Error::ReportedElsewhere),
    }
}

/// The `host:port` lines of `path` (blank lines and `#` comments skipped).
fn read_hosts(path: &Path) -> Result<Vec<String>, Error> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(&name, "cannot read", e))?;
    let hosts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if let Some((i, bad)) = hosts.iter().enumerate().find(|(_, h)| !h.contains(':')) {
        return Err(Error::Usage(format!("{name}: host {i} is {bad:?}, expected host:port")));
    }
    if hosts.is_empty() {
        return Err(Error::Usage(format!("{name}: no host:port line")));
    }
    Ok(hosts)
}

/// Starts `n - 1` more copies of this command on 127.0.0.1 and returns process 0's place.
/// The children learn the addresses from `--peers` and a fresh secret from the environment
/// (which, unlike a command line, other users cannot read); no file is written.
fn local(n: usize, workers: usize) -> Result<Place, Error> {
    let failed = |what: &str, e: std::io::Error| Error::Cluster { message: format!("{what}: {e}") };
    // Free ports: bound here, the others' released just before their processes bind them.
    let mut listeners = Vec::with_capacity(n);
    for _ in 0..n {
        listeners.push(TcpListener::bind("127.0.0.1:0").map_err(|e| failed("cannot listen", e))?);
    }
    let addresses: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.to_string()))
        .collect::<Result<_, _>>()
        .map_err(|e| failed("cannot listen", e))?;
    let secret = Secret::fresh().map_err(|e| failed("cannot make a secret", e))?;
    let mut listeners = listeners.into_iter();
    let own = listeners.next();
    drop(listeners);
    let exe = std::env::current_exe().map_err(|e| failed("cannot find this program", e))?;
    let args = without_processes(std::env::args_os().skip(1));
    let peers = Peers { addresses, index: 0, workers, secret };
    let mut place = Place { peers, listener: own, children: Vec::with_capacity(n - 1) };
    for k in 1..n {
        let child = Command::new(&exe)
            .args(&args)
            .arg("--peers")
            .arg(place.peers.addresses.join(","))
            .arg("--process")
            .arg(k.to_string())
            .env(SECRET_VARIABLE, String::from_utf8_lossy(place.peers.secret.bytes()).as_ref())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| failed("cannot start a process", e))?;
        place.children.push(child);
    }
    Ok(place)
}

/// The command line without `--processes N` (or `--processes=N`).
fn without_processes(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut skip = false;
    for arg in args {
        if skip {
            skip = false;
            continue;
        }
        match arg.to_str() {
            Some("--processes") => skip = true,
            Some(a) if a.starts_with("--processes=") => {}
            _ => out.push(arg),
        }
    }
    out
}
