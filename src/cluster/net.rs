//! Connecting the processes of a cluster, and noticing when one is lost.
//!
//! Every pair of processes holds two TCP connections: one for timely's data, one for our own
//! heartbeats. Process `i` connects to every `j < i` (retrying until a deadline: a peer that
//! cannot be reached is an error, not an endless wait) and accepts every `j > i`; a handshake
//! names the sender and the channel, so connections may arrive in any order. We open the
//! sockets ourselves because timely's own set-up prints to stdout and retries for ever.
//!
//! timely is fail-stop: a peer that dies makes its communication threads panic, and a peer
//! that is stopped (SIGSTOP, a hung machine) is not noticed at all. The heartbeats cover both:
//! each process writes a beat to every peer every [`BEAT`] and expects one within
//! [`SILENCE`]; a closed connection, an error or a silence ends the run with one `error:` line
//! naming the lost process, after the temporary output files are removed. A process that ends
//! normally says goodbye first, so its peers stop watching it.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::thread;
use std::time::{Duration, Instant};

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

/// "GRDY": the first bytes of every connection between grundy processes.
const MAGIC: u32 = 0x5944_5247;
const DATA: u8 = 0;
const BEATS: u8 = 1;
const ALIVE: u8 = b'.';
const GOODBYE: u8 = b'!';

/// The processes of a cluster and this process's place among them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peers {
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// This process's index.
    pub index: usize,
    /// Worker threads per process.
    pub workers: usize,
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

/// Connects this process to every other. `listener`, if given, is this process's own
/// (already bound) listening socket; otherwise its address is bound here.
pub fn connect(peers: &Peers, listener: Option<TcpListener>) -> Result<Mesh, Error> {
    let n = peers.processes();
    let me = peers.index;
    let failed = |what: String| Error::Cluster { message: what };
    let listener = match listener {
        Some(l) => l,
        None => TcpListener::bind(&peers.addresses[me])
            .map_err(|e| failed(format!("cannot listen on {}: {e}", peers.addresses[me])))?,
    };
    let patience = connect_deadline();
    let deadline = Instant::now() + patience;
    let mut mesh =
        Mesh { data: (0..n).map(|_| None).collect(), beats: (0..n).map(|_| None).collect() };
    for j in 0..me {
        for channel in [DATA, BEATS] {
            let stream = connect_until(&peers.addresses[j], deadline).map_err(|e| {
                failed(format!("cannot reach {} within {}s: {e}", peers.name(j), secs(patience)))
            })?;
            hello(&stream, me as u32, channel)
                .map_err(|e| failed(format!("{}: {e}", peers.name(j))))?;
            place(&mut mesh, j, channel, stream);
        }
    }
    listener.set_nonblocking(true).map_err(|e| failed(format!("cannot listen: {e}")))?;
    let mut expected = 2 * (n - 1 - me);
    while expected > 0 {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(|e| failed(e.to_string()))?;
                stream.set_read_timeout(Some(patience)).map_err(|e| failed(e.to_string()))?;
                let (from, channel) = read_hello(&stream)
                    .map_err(|e| failed(format!("a connection that is not a grundy peer: {e}")))?;
                if from as usize <= me || from as usize >= n {
                    return Err(failed(format!("a peer calls itself process {from}")));
                }
                stream.set_read_timeout(None).map_err(|e| failed(e.to_string()))?;
                place(&mut mesh, from as usize, channel, stream);
                expected -= 1;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    let missing =
                        (me + 1..n).find(|&j| mesh.data[j].is_none() || mesh.beats[j].is_none());
                    let who = missing.map_or("a peer".to_string(), |j| peers.name(j));
                    return Err(failed(format!(
                        "{who} did not connect within {}s",
                        secs(patience)
                    )));
                }
                thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(failed(format!("cannot accept a peer: {e}"))),
        }
    }
    Ok(mesh)
}

fn secs(d: Duration) -> u64 {
    d.as_secs()
}

fn place(mesh: &mut Mesh, peer: usize, channel: u8, stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    if channel == DATA {
        mesh.data[peer] = Some(stream);
    } else {
        mesh.beats[peer] = Some(stream);
    }
}

/// Connects to `address`, retrying until `deadline` (the peer may not be listening yet).
fn connect_until(address: &str, deadline: Instant) -> io::Result<TcpStream> {
    loop {
        let attempt = address.to_socket_addrs().and_then(|mut addrs| {
            let addr = addrs.next().ok_or_else(|| io::Error::other("no address"))?;
            TcpStream::connect_timeout(&addr, Duration::from_secs(1))
        });
        match attempt {
            Ok(stream) => return Ok(stream),
            Err(e) if Instant::now() > deadline => return Err(e),
            Err(_) => thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn hello(mut stream: &TcpStream, from: u32, channel: u8) -> io::Result<()> {
    let mut message = [0u8; 9];
    message[..4].copy_from_slice(&MAGIC.to_le_bytes());
    message[4..8].copy_from_slice(&from.to_le_bytes());
    message[8] = channel;
    stream.write_all(&message)
}

fn read_hello(mut stream: &TcpStream) -> io::Result<(u32, u8)> {
    let mut message = [0u8; 9];
    stream.read_exact(&mut message)?;
    let word =
        |i: usize| u32::from_le_bytes([message[i], message[i + 1], message[i + 2], message[i + 3]]);
    if word(0) != MAGIC || message[8] > BEATS {
        return Err(io::Error::other("wrong handshake"));
    }
    Ok((word(4), message[8]))
}

/// The heartbeats of this process: started by [`watch`], ended by [`Watch::goodbye`].
pub struct Watch {
    stop: Arc<AtomicBool>,
    writers: Vec<(TcpStream, thread::JoinHandle<()>)>,
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
            let stop = Arc::clone(&stop);
            let handle =
                thread::Builder::new().name(format!("grundy:beat-{peer}")).spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        if writer.write_all(&[ALIVE]).is_err() {
                            return;
                        }
                        thread::sleep(BEAT);
                    }
                });
            if let Ok(handle) = handle {
                writers.push((stream, handle));
            }
        }
    }
    Watch { stop, writers }
}

impl Watch {
    /// Stops beating and tells every peer this process ends normally.
    pub fn goodbye(self) {
        self.stop.store(true, Ordering::Relaxed);
        for (mut stream, handle) in self.writers {
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
