//! The command line's side of a cluster: `--processes N` starts N-1 more copies of this
//! command on 127.0.0.1 (free ports, a hosts file of their own), `--hosts FILE --process I`
//! names this process's place in a cluster of machines.

use std::ffi::OsString;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use grundy::cluster::net::Peers;
use grundy::cluster::{Job, Run};
use grundy::error::Error;
use grundy::io::input::Input;
use grundy::io::sink::Sink;

use crate::app::cli::ClusterArgs;

/// This process's place in a cluster, and what it must clean up.
pub struct Place {
    /// The processes and this one's index.
    pub peers: Peers,
    /// This process's listening socket, already bound (local clusters).
    pub listener: Option<TcpListener>,
    /// The processes this one started (`--processes`): reaped at the end.
    children: Vec<Child>,
    /// The hosts file this one wrote (`--processes`).
    _hosts: Option<tempfile::NamedTempFile>,
}

impl Place {
    /// True for the process that writes the output.
    pub fn writes(&self) -> bool {
        self.peers.index == 0
    }

    /// Waits for the processes this one started.
    pub fn reap(mut self) {
        for child in &mut self.children {
            let _ = child.wait();
        }
    }
}

/// This process's place, or `None` without cluster flags.
pub fn place(args: &ClusterArgs) -> Result<Option<Place>, Error> {
    let workers = args.workers.unwrap_or(1);
    if workers == 0 {
        return Err(Error::Usage("--workers must be at least 1".into()));
    }
    match (args.processes, &args.hosts, args.process) {
        (None, None, _) if args.workers.is_some() => {
            Err(Error::Usage("--workers applies to a cluster (--processes or --hosts)".into()))
        }
        (None, None, _) => Ok(None),
        (Some(0), _, _) => Err(Error::Usage("--processes must be at least 1".into())),
        (Some(n), _, _) => local(n, workers).map(Some),
        (None, Some(hosts), Some(index)) => {
            let addresses = read_hosts(hosts)?;
            if index >= addresses.len() {
                return Err(Error::Usage(format!(
                    "--process {index} is not a line of {} ({} processes, 0 to {})",
                    hosts.display(),
                    addresses.len(),
                    addresses.len() - 1
                )));
            }
            let peers = Peers { addresses, index, workers };
            Ok(Some(Place { peers, listener: None, children: Vec::new(), _hosts: None }))
        }
        (None, Some(_), None) => Err(Error::Usage("--hosts needs --process".into())),
    }
}

/// The inputs of a cluster run, opened: every process opens the same files itself, so each
/// must be named (and reachable at that name on every machine), not stdin; and a cluster reads
/// the chess format only, so far.
pub fn open_inputs(
    format: grundy::Format,
    inputs: &[(&str, Option<&Path>)],
) -> Result<Vec<Arc<Input>>, Error> {
    if format != grundy::Format::Chess {
        return Err(Error::Usage("a cluster reads the chess format only, so far".into()));
    }
    if let Some((what, _)) = inputs.iter().find(|(_, p)| p.is_none_or(|p| p.as_os_str() == "-")) {
        return Err(Error::Usage(format!(
            "a cluster reads {what} in every process: give it as a file, not stdin"
        )));
    }
    inputs.iter().map(|&(_, path)| Ok(Arc::new(Input::open(path)?))).collect()
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
        self.sink.put(bytes)
    }
}

/// Runs `job` on the cluster. Process 0 writes stream `k` to `streams[k]` (the others pass
/// none) and finishes them; if the input has an error or a cycle, process 0 answers it with
/// `alone` on the same, still empty, sinks, and the others exit with code 1.
pub fn drive(
    place: Place,
    job: Job,
    streams: Vec<Stream>,
    alone: impl FnOnce(&mut [Sink]) -> Result<(), Error>,
) -> Result<(), Error> {
    let writes = place.writes();
    let listener = place.listener.as_ref().and_then(|l| l.try_clone().ok());
    let mut streams = streams;
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
            sinks.into_iter().try_for_each(Sink::finish)
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
    let mut hosts = tempfile::Builder::new()
        .prefix("grundy-hosts-")
        .tempfile()
        .map_err(|e| failed("cannot write the hosts file", e))?;
    std::io::Write::write_all(&mut hosts, (addresses.join("\n") + "\n").as_bytes())
        .map_err(|e| failed("cannot write the hosts file", e))?;
    let mut listeners = listeners.into_iter();
    let own = listeners.next();
    drop(listeners);
    let exe = std::env::current_exe().map_err(|e| failed("cannot find this program", e))?;
    let args = without_processes(std::env::args_os().skip(1));
    let mut children = Vec::with_capacity(n - 1);
    for k in 1..n {
        let child = Command::new(&exe)
            .args(&args)
            .arg("--hosts")
            .arg(hosts.path())
            .arg("--process")
            .arg(k.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| failed("cannot start a process", e))?;
        children.push(child);
    }
    let peers = Peers { addresses, index: 0, workers };
    Ok(Place { peers, listener: own, children, _hosts: Some(hosts) })
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
