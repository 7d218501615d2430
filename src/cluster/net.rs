//! Connecting the processes of a cluster, and noticing when one is lost.
//!
//! Every pair of processes holds two TCP connections: one for timely's data, one for our own
//! heartbeats. Process `i` calls every `j < i` (retrying until a deadline: a peer that cannot
//! be reached is an error, not an endless wait) and accepts every `j > i`. Each connection
//! opens with a [`handshake`]: the caller, the channel, a proof of the run's secret and each
//! side's claim of what it runs, so connections may arrive in any order, strangers are
//! closed without ending the run, and processes that would not run the same job stop before
//! any of them starts. We open the sockets ourselves because timely's own set-up prints to
//! stdout, retries for ever and trusts whoever connects.
//!
//! timely is fail-stop: a peer that dies makes its communication threads panic, and a peer
//! that is stopped (SIGSTOP, a hung machine) is not noticed at all. The heartbeats cover both:
//! each process writes a beat to every peer every [`BEAT`] and expects one within
//! [`SILENCE`]; a closed connection, an error or a silence ends the run with one `error:` line
//! naming the lost process, after the temporary output files are removed. A process that ends
//! normally says goodbye first, so its peers stop watching it.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, Once};
use std::thread;
use std::time::{Duration, Instant};

use super::handshake::{self, CallError, Hello, Secret, Stage, Ticket, BEATS, DATA};
use super::identity::Claim;
use crate::error::Error;

/// How often a process tells its peers it is alive.
pub const BEAT: Duration = Duration::from_millis(250);
/// A peer silent this long is lost.
pub const SILENCE: Duration = Duration::from_secs(5);
/// How long start-up waits for every peer to be reachable: 20 s, or the seconds the
/// environment variable `GRUNDY_CONNECT_SECONDS` says (tests shorten it).
pub fn connect_deadline() -> Duration {
    let set = std::env::var("GRUNDY_CONNECT_SECONDS").ok().and_then(|s| s.parse().ok());
    Duration::from_secs(set.unwrap_or(20))
}

const ALIVE: u8 = b'.';
const GOODBYE: u8 = b'!';
/// Handshakes under way at once (each on a thread of its own), so that a flood of connections
/// cannot exhaust threads. When a connection comes and all are taken, a stranger's is closed
/// to make room: of those least far along, the oldest ([`make_room`]).
const HANDSHAKES: usize = 64;
/// Addresses told apart in the count of strangers: a flood from more is counted, not listed.
const STRANGER_ADDRESSES: usize = 256;

/// The processes of a cluster and this process's place among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peers {
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// This process's index.
    pub index: usize,
    /// Worker threads per process.
    pub workers: usize,
    /// The run's secret (empty: none).
    pub secret: Secret,
}

impl Peers {
    /// Number of processes.
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// How a lost or unreachable process is named in messages: `1 (10.0.0.2:4000)`.
    pub fn name(&self, process: usize) -> String {
        format!("process {process} ({})", self.addresses[process])
    }
}

/// The connections of this process to every other, in process order (`None` for itself).
pub struct Mesh {
    /// timely's data connections.
    pub data: Vec<Option<TcpStream>>,
    /// Heartbeat connections.
    pub beats: Vec<Option<TcpStream>>,
}

impl Mesh {
    fn new(n: usize) -> Mesh {
        Mesh { data: (0..n).map(|_| None).collect(), beats: (0..n).map(|_| None).collect() }
    }

    /// Places `stream`; false if the slot was taken (the new connection replaces the old: a
    /// caller only calls again when it saw its first call fail).
    fn place(&mut self, peer: usize, channel: u8, stream: TcpStream) -> bool {
        let _ = stream.set_nodelay(true);
        let slot = if channel == DATA { &mut self.data[peer] } else { &mut self.beats[peer] };
        slot.replace(stream).is_none()
    }

    /// The first process from `from` on that has not connected on both channels.
    fn missing(&self, from: usize) -> Option<usize> {
        (from..self.data.len()).find(|&j| self.data[j].is_none() || self.beats[j].is_none())
    }
}

/// Connects this process to every other, each connection opened by a handshake that proves
/// the secret and exchanges claims ([`handshake`]). `listener`, if given, is this process's
/// own (already bound) listening socket; otherwise its address is bound here.
///
/// Connections that are not a peer's (a scanner, a health check, a wrong secret, silence) are
/// closed and the process goes on waiting; a peer whose claim differs from `claim` (another
/// command, option or input) or that refused its arguments is an error naming it and what
/// differs, reported once this process has met every peer (so that each of them learns it
/// too) or the deadline has passed. Nothing of the run has started then.
pub fn connect(peers: &Peers, listener: Option<TcpListener>, claim: &Claim) -> Result<Mesh, Error> {
    let (n, me) = (peers.processes(), peers.index);
    let listener = match listener {
        Some(l) => l,
        None => TcpListener::bind(&peers.addresses[me])
            .map_err(|e| failed(format!("cannot listen on {}: {e}", peers.addresses[me])))?,
    };
    let patience = connect_deadline();
    let deadline = Instant::now() + patience;
    let quick = handshake::PATIENCE.min(patience);
    // The listener answers from the start, while this process calls the others: a process
    // waiting for its own lower peers still answers the higher ones at once.
    let accepting = Accepting::start(listener, peers.secret.clone(), claim.clone(), quick)?;
    let mut mesh = Mesh::new(n);
    let mut verdict = Verdict::default();
    for j in 0..me {
        for channel in [DATA, BEATS] {
            let hello = Hello { channel, from: me as u32, to: j as u32, processes: n as u32 };
            let (stream, theirs) = call_until(peers, j, hello, claim, (deadline, quick))?;
            verdict.judge(peers, j, claim, &theirs);
            mesh.place(j, channel, stream);
        }
    }
    while let Some(first) = mesh.missing(me + 1) {
        let left = deadline.saturating_duration_since(Instant::now());
        match accepting.results.recv_timeout(left.min(Duration::from_millis(100))) {
            Ok(Accepted::Peer { hello, claim: theirs, stream }) => {
                let from = hello.from as usize;
                if hello.to as usize != me
                    || from <= me
                    || from >= n
                    || hello.processes as usize != n
                {
                    verdict.note(format!(
                        "a process of this run calls itself process {} of {} and this one process \
                         {}: the hosts files differ",
                        hello.from, hello.processes, hello.to
                    ));
                    continue;
                }
                verdict.judge(peers, from, claim, &theirs);
                mesh.place(from, hello.channel, stream);
            }
            Ok(Accepted::Stranger(stranger)) => verdict.stranger(stranger),
            Err(_) if Instant::now() >= deadline => {
                // The handshakes still under way held the port too: they are named with the rest.
                for stranger in accepting.stop() {
                    verdict.stranger(stranger);
                }
                if let Some(e) = verdict.difference {
                    return Err(failed(e));
                }
                return Err(failed(format!(
                    "{} did not connect within {}s{}",
                    peers.name(first),
                    patience.as_secs(),
                    verdict.strangers_seen()
                )));
            }
            Err(_) => {}
        }
    }
    // Strangers still in a handshake are closed now; they held nothing up.
    drop(accepting.stop());
    if let Some(e) = verdict.difference {
        return Err(failed(e));
    }
    for stream in mesh.data.iter().chain(&mesh.beats).flatten() {
        let timeouts = stream.set_read_timeout(None).and(stream.set_write_timeout(None));
        timeouts.map_err(|e| failed(format!("cannot set up a connection: {e}")))?;
    }
    Ok(mesh)
}

fn failed(message: String) -> Error {
    Error::Cluster { message }
}

/// What the handshakes so far say of the run: the first difference found, and the
/// connections that were not a peer's, by address.
#[derive(Default)]
struct Verdict {
    difference: Option<String>,
    strangers: Vec<Strangers>,
    /// All the strangers, those of addresses past [`STRANGER_ADDRESSES`] included.
    count: usize,
}

/// The connections from one address that failed at one point of the handshake: how many,
/// and why the last did (at the deadline, the one that had held its place longest).
struct Strangers {
    ip: IpAddr,
    /// Whether they sent a well-formed hello (and failed later).
    hello: bool,
    count: usize,
    last: String,
}

impl Verdict {
    /// Compares a peer's claim with this process's own.
    fn judge(&mut self, peers: &Peers, peer: usize, mine: &Claim, theirs: &Claim) {
        let name = peers.name(peer);
        match (mine, theirs) {
            (_, Claim::Refused(why)) => self.note(format!("{name} refused to run: {why}")),
            (Claim::Run(mine), Claim::Run(theirs)) => {
                if let Some(what) = mine.difference(theirs) {
                    self.note(format!("{name} does not run the same job: {what}"));
                }
            }
            (Claim::Refused(_), Claim::Run(_)) => {}
        }
    }

    fn note(&mut self, difference: String) {
        self.difference.get_or_insert(difference);
    }

    fn stranger(&mut self, stranger: Stranger) {
        self.count += 1;
        let (ip, hello) = (stranger.address.ip(), stranger.stage > Stage::Hello);
        let full = self.strangers.len() >= STRANGER_ADDRESSES;
        match self.strangers.iter_mut().find(|s| s.ip == ip && s.hello == hello) {
            Some(seen) => {
                seen.count += 1;
                seen.last = stranger.reason;
            }
            None if full => {}
            None => {
                self.strangers.push(Strangers { ip, hello, count: 1, last: stranger.reason });
            }
        }
    }

    /// What held the port: `; meanwhile 70 connections from 10.0.0.9 sent no valid hello
    /// (the last ran out of time after 5.0 s, having sent 3 of a hello's 34 bytes), 1
    /// connection from ...`, the three largest groups, or nothing.
    fn strangers_seen(&self) -> String {
        if self.count == 0 {
            return String::new();
        }
        let mut groups: Vec<&Strangers> = self.strangers.iter().collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.count));
        let shown = &groups[..groups.len().min(3)];
        let mut parts: Vec<String> = shown
            .iter()
            .map(|g| {
                let what = if g.hello { "failed the handshake" } else { "sent no valid hello" };
                let which = if g.count == 1 { "it" } else { "the last" };
                let s = if g.count == 1 { "" } else { "s" };
                format!("{} connection{s} from {} {what} ({which} {})", g.count, g.ip, g.last)
            })
            .collect();
        let rest = self.count - shown.iter().map(|g| g.count).sum::<usize>();
        if rest > 0 {
            parts.push(format!("{rest} more from other addresses"));
        }
        format!("; meanwhile {}", parts.join(", "))
    }
}

/// Calls process `j` until its handshake succeeds or `deadline` passes (the peer may not be
/// listening yet); a listener without the run's secret ends it at once.
fn call_until(
    peers: &Peers,
    j: usize,
    hello: Hello,
    claim: &Claim,
    (deadline, quick): (Instant, Duration),
) -> Result<(TcpStream, Claim), Error> {
    let address = &peers.addresses[j];
    loop {
        let attempt = connect_once(address).map_err(|e| CallError::Retry(e.to_string()));
        let called = attempt.and_then(|stream| {
            let by = Instant::now() + quick;
            handshake::call(&stream, hello, &peers.secret, claim, by).map(|theirs| (stream, theirs))
        });
        match called {
            Ok(done) => return Ok(done),
            Err(CallError::Fatal(why)) => return Err(failed(format!("{}: {why}", peers.name(j)))),
            Err(CallError::Retry(why)) if Instant::now() > deadline => {
                let patience = connect_deadline().as_secs();
                return Err(failed(format!(
                    "cannot reach {} within {patience}s: {why}",
                    peers.name(j)
                )));
            }
            Err(CallError::Retry(_)) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// One connection to `address` (the handshake sets its timeouts).
fn connect_once(address: &str) -> io::Result<TcpStream> {
    let mut addrs = address.to_socket_addrs()?;
    let addr = addrs.next().ok_or_else(|| io::Error::other("no address"))?;
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    stream.set_nodelay(true)?;
    Ok(stream)
}

/// What one accepted connection's handshake came to.
enum Accepted {
    /// A process of the run (it proved the secret) and its claim.
    Peer { hello: Hello, claim: Claim, stream: TcpStream },
    /// Not a peer: closed.
    Stranger(Stranger),
}

/// A connection that was not a peer's: where from, how far its handshake came and why it
/// failed.
struct Stranger {
    address: SocketAddr,
    stage: Stage,
    reason: String,
}

/// A handshake under way, as the accepting thread keeps it.
struct Pending {
    ticket: Arc<Ticket>,
    /// A handle on its connection, to close it.
    stream: TcpStream,
    address: SocketAddr,
}

impl Pending {
    /// Closes the connection: its handshake's next read fails at once, saying it was closed.
    fn close(&self) {
        self.ticket.evict();
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}

/// What every handshake of the listener needs, and the handshakes under way.
#[derive(Clone)]
struct Door {
    secret: Secret,
    claim: Claim,
    quick: Duration,
    results: mpsc::Sender<Accepted>,
    pending: Arc<Mutex<Vec<Pending>>>,
}

impl Door {
    fn pending(&self) -> MutexGuard<'_, Vec<Pending>> {
        // A handshake thread that panicked leaves the list as it was: still a list.
        self.pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs the handshake of a connection just accepted on a thread of its own, making room
    /// first if [`HANDSHAKES`] are under way.
    fn admit(&self, stream: TcpStream, address: SocketAddr) {
        let Ok(handle) = stream.try_clone() else { return };
        let ticket = Arc::new(Ticket::new(self.quick));
        {
            let mut pending = self.pending();
            if pending.len() >= HANDSHAKES {
                make_room(&mut pending, self.secret.is_set());
            }
            pending.push(Pending { ticket: Arc::clone(&ticket), stream: handle, address });
        }
        let door = self.clone();
        let mine = Arc::clone(&ticket);
        let spawned = thread::Builder::new().name("grundy:handshake".into()).spawn(move || {
            let result = welcome(stream, &door.secret, &door.claim, &mine);
            let result = result.unwrap_or_else(|reason| {
                Accepted::Stranger(Stranger { address, stage: mine.stage(), reason })
            });
            door.pending().retain(|p| !Arc::ptr_eq(&p.ticket, &mine));
            let _ = door.results.send(result);
        });
        if spawned.is_err() {
            // No thread: the connection closes, as if refused.
            self.pending().retain(|p| !Arc::ptr_eq(&p.ticket, &ticket));
        }
    }
}

/// Closes one stranger's handshake to make room for a new connection: of those least far
/// along, the oldest. A peer sends its hello at once and proves the secret one round trip
/// later, so it is rarely either; strangers that send nothing, or a byte at a time, are
/// both. A handshake that proved the run's secret is a peer's and is kept (without a secret
/// the proof proves nothing, and every handshake may be closed); if all are, none is closed
/// and the new one runs beside them (there are then at most twice as many as peers, plus one).
fn make_room(pending: &mut Vec<Pending>, secret: bool) {
    let closable = |p: &&Pending| !secret || p.ticket.stage() < Stage::Proven;
    let oldest = pending
        .iter()
        .enumerate()
        .filter(|(_, p)| closable(p))
        .min_by_key(|(_, p)| (p.ticket.stage(), p.ticket.started()))
        .map(|(i, _)| i);
    if let Some(i) = oldest {
        pending.swap_remove(i).close();
    }
}

/// The listener's thread: every accepted connection's handshake runs on a thread of its own,
/// with its own deadline, so a silent connection holds nothing but that thread, until its
/// deadline or until its place is needed.
struct Accepting {
    results: mpsc::Receiver<Accepted>,
    stop: Arc<AtomicBool>,
    thread: thread::JoinHandle<()>,
    door: Door,
}

impl Accepting {
    fn start(
        listener: TcpListener,
        secret: Secret,
        claim: Claim,
        quick: Duration,
    ) -> Result<Accepting, Error> {
        listener.set_nonblocking(true).map_err(|e| failed(format!("cannot listen: {e}")))?;
        let (send, results) = mpsc::channel();
        let pending = Arc::new(Mutex::new(Vec::with_capacity(HANDSHAKES + 1)));
        let door = Door { secret, claim, quick, results: send, pending };
        let stop = Arc::new(AtomicBool::new(false));
        let (stopped, at_door) = (Arc::clone(&stop), door.clone());
        let thread = thread::Builder::new()
            .name("grundy:accept".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    match listener.accept() {
                        Ok((stream, address)) => at_door.admit(stream, address),
                        Err(_) => thread::sleep(Duration::from_millis(5)),
                    }
                }
            })
            .map_err(|e| failed(format!("cannot listen: {e}")))?;
        Ok(Accepting { results, stop, thread, door })
    }

    /// Stops accepting (the listening socket is closed, later connections are refused) and
    /// closes the handshakes still under way; returns the strangers not yet received, those
    /// closed here among them.
    fn stop(self) -> Vec<Stranger> {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
        let mut pending = std::mem::take(&mut *self.door.pending());
        let mut strangers: Vec<Stranger> = self
            .results
            .try_iter()
            .filter_map(|a| match a {
                Accepted::Stranger(stranger) => Some(stranger),
                Accepted::Peer { .. } => None,
            })
            .collect();
        // The newest first, so that the last of each address is the one that held its place
        // longest: what kept the port busy.
        pending.sort_by_key(|p| std::cmp::Reverse(p.ticket.started()));
        for p in &pending {
            let reason = format!("was still in its handshake {}", p.ticket.progress());
            strangers.push(Stranger { address: p.address, stage: p.ticket.stage(), reason });
            p.close();
        }
        strangers
    }
}

/// The listener's side of one connection's handshake.
fn welcome(
    stream: TcpStream,
    secret: &Secret,
    claim: &Claim,
    ticket: &Ticket,
) -> Result<Accepted, String> {
    stream.set_nonblocking(false).map_err(|e| e.to_string())?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (hello, claim) = handshake::answer(&stream, secret, claim, ticket)?;
    Ok(Accepted::Peer { hello, claim, stream })
}

/// The heartbeats of this process: started by [`watch`], ended by [`Watch::goodbye`].
pub struct Watch {
    stop: Arc<AtomicBool>,
    /// Each beating thread's stream, its thread, and the sender whose drop wakes it at once
    /// (a beat's sleep would otherwise hold up the end of every run by up to [`BEAT`]).
    writers: Vec<(TcpStream, thread::JoinHandle<()>, mpsc::Sender<()>)>,
}

/// Starts beating to every peer and watching every peer's beats. A lost peer ends the process
/// (exit code 1) with one `error:` line naming it.
pub fn watch(peers: &Peers, beats: Vec<Option<TcpStream>>) -> Watch {
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for (peer, stream) in beats.into_iter().enumerate() {
        let Some(stream) = stream else { continue };
        let name = peers.name(peer);
        if let Ok(reader) = stream.try_clone() {
            let name = name.clone();
            let stop = Arc::clone(&stop);
            let _ = thread::Builder::new()
                .name(format!("grundy:watch-{peer}"))
                .spawn(move || watch_peer(reader, &name, &stop));
        }
        if let Ok(mut writer) = stream.try_clone() {
            let (wake, sleep) = mpsc::channel::<()>();
            let handle =
                thread::Builder::new().name(format!("grundy:beat-{peer}")).spawn(move || {
                    // Beats until the sender is dropped (a timeout is the next beat's time).
                    while writer.write_all(&[ALIVE]).is_ok()
                        && sleep.recv_timeout(BEAT) == Err(mpsc::RecvTimeoutError::Timeout)
                    {
                    }
                });
            if let Ok(handle) = handle {
                writers.push((stream, handle, wake));
            }
        }
    }
    Watch { stop, writers }
}

impl Watch {
    /// Stops beating and tells every peer this process ends normally.
    pub fn goodbye(self) {
        self.stop.store(true, Ordering::Relaxed);
        for (mut stream, handle, wake) in self.writers {
            drop(wake);
            let _ = handle.join();
            let _ = stream.write_all(&[GOODBYE]);
            let _ = stream.flush();
        }
    }
}

/// Reads `peer`'s beats until its goodbye; anything else ends the process.
fn watch_peer(mut stream: TcpStream, name: &str, stop: &AtomicBool) {
    if stream.set_read_timeout(Some(SILENCE)).is_err() {
        return;
    }
    let mut byte = [0u8; 1];
    loop {
        match stream.read(&mut byte) {
            Ok(1) if byte[0] == GOODBYE => return,
            Ok(1) => {}
            _ if stop.load(Ordering::Relaxed) => return,
            Ok(_) => lost(name, "its connection closed"),
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                lost(name, &format!("silent for {}s", SILENCE.as_secs()))
            }
            Err(e) => lost(name, &e.to_string()),
        }
    }
}

/// Ends the run: one `error:` line naming the lost process, temporary files removed, exit 1.
pub fn lost(name: &str, reason: &str) -> ! {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        crate::io::signals::remove_all();
        eprintln!("error: lost {name}: {reason}");
    });
    std::process::exit(1)
}

/// Makes a panic of one of timely's communication threads (`timely:recv-3`), which is how
/// timely reports a lost peer, end the run like a lost heartbeat; other panics keep the
/// default report.
pub fn report_lost_peers(peers: &Peers) {
    let names: Vec<String> = (0..peers.processes()).map(|p| peers.name(p)).collect();
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let thread = thread::current();
        let peer = thread
            .name()
            .and_then(|n| n.strip_prefix("timely:recv-").or_else(|| n.strip_prefix("timely:send-")))
            .and_then(|i| i.parse::<usize>().ok());
        match peer.and_then(|p| names.get(p)) {
            Some(name) => lost(name, "its connection failed"),
            None => default(info),
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::identity::Identity;

    /// Runs `connect` for every claim, as processes of one cluster on free loopback ports.
    fn connect_all(claims: Vec<Claim>, secrets: Vec<&str>) -> Vec<Result<usize, String>> {
        let listeners: Vec<TcpListener> =
            claims.iter().map(|_| TcpListener::bind("127.0.0.1:0").unwrap()).collect();
        let addresses: Vec<String> =
            listeners.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
        let threads: Vec<_> = listeners
            .into_iter()
            .zip(claims)
            .zip(secrets)
            .enumerate()
            .map(|(index, ((listener, claim), secret))| {
                let secret = Secret::from_text(secret.as_bytes());
                let peers = Peers { addresses: addresses.clone(), index, workers: 1, secret };
                thread::spawn(move || {
                    let mesh =
                        connect(&peers, Some(listener), &claim).map_err(|e| e.to_string())?;
                    Ok(mesh.data.iter().chain(&mesh.beats).flatten().count())
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    }

    fn claim(command: &str) -> Claim {
        Claim::Run(Identity::new().with("the command", command))
    }

    #[test]
    fn processes_of_one_run_connect_on_both_channels() {
        let results = connect_all(vec![claim("values"); 3], vec!["s"; 3]);
        assert_eq!(results, vec![Ok(4), Ok(4), Ok(4)]);
    }

    #[test]
    fn every_process_names_the_one_that_differs() {
        let claims = vec![claim("values"), claim("values"), claim("solve")];
        let results = connect_all(claims, vec!["s"; 3]);
        for (i, result) in results.iter().enumerate() {
            let e = result.as_ref().unwrap_err();
            assert!(e.contains("does not run the same job: the command is"), "{i}: {e}");
        }
        assert!(results[0].as_ref().unwrap_err().starts_with("process 2 (127.0.0.1:"));
        let refused = connect_all(vec![claim("values"), Claim::Refused("no".into())], vec!["s"; 2]);
        assert!(refused[0].as_ref().unwrap_err().ends_with("refused to run: no"), "{refused:?}");
    }

    #[test]
    fn strangers_are_counted_by_address_and_the_largest_groups_named() {
        let mut verdict = Verdict::default();
        assert_eq!(verdict.strangers_seen(), "");
        let mut stranger = |ip: &str, stage: Stage, reason: &str| {
            let address = SocketAddr::new(ip.parse().unwrap(), 4000);
            verdict.stranger(Stranger { address, stage, reason: reason.into() });
        };
        for k in 0..70 {
            stranger("10.0.0.9", Stage::Hello, &format!("ran out of time {k}"));
        }
        stranger("10.0.0.7", Stage::Proof, "did not prove it holds this run's secret");
        for ip in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
            stranger(ip, Stage::Hello, "sent no grundy hello");
        }
        assert_eq!(
            verdict.strangers_seen(),
            "; meanwhile 70 connections from 10.0.0.9 sent no valid hello (the last ran out of \
             time 69), 1 connection from 10.0.0.7 failed the handshake (it did not prove it \
             holds this run's secret), 1 connection from 10.0.0.1 sent no valid hello (it sent \
             no grundy hello), 2 more from other addresses"
        );
    }

    #[test]
    fn room_is_made_by_closing_the_stranger_least_far_along_the_oldest_first() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        // Handshakes at these stages, the oldest first.
        let stages = [Stage::Proof, Stage::Hello, Stage::Proven, Stage::Hello];
        let mut pending: Vec<Pending> = stages
            .iter()
            .map(|&stage| {
                thread::sleep(Duration::from_millis(2));
                let ticket = Arc::new(Ticket::new(handshake::PATIENCE));
                ticket.reach(stage);
                let stream = TcpStream::connect(address).unwrap();
                Pending { ticket, stream, address }
            })
            .collect();
        let order = |pending: &Vec<Pending>| {
            let mut order: Vec<(Instant, Stage)> =
                pending.iter().map(|p| (p.ticket.started(), p.ticket.stage())).collect();
            order.sort();
            order.into_iter().map(|(_, stage)| stage).collect::<Vec<Stage>>()
        };
        use Stage::{Hello, Proof, Proven};
        make_room(&mut pending, true);
        assert_eq!(order(&pending), [Proof, Proven, Hello], "the oldest of those least far along");
        make_room(&mut pending, true);
        assert_eq!(order(&pending), [Proof, Proven]);
        make_room(&mut pending, true);
        assert_eq!(order(&pending), [Proven]);
        make_room(&mut pending, true);
        assert_eq!(order(&pending), [Proven], "a peer that proved the secret is kept");
        make_room(&mut pending, false);
        assert!(pending.is_empty(), "without a secret, a proof proves nothing");
    }
}
