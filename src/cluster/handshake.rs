//! The handshake that opens every connection between two processes of a run: who calls whom
//! on which channel, a proof that both hold the run's secret, and each side's [`Claim`].
//!
//! The caller (the process of the higher index) sends a hello with a fresh nonce; the listener
//! answers with a nonce of its own and an HMAC-SHA-256 tag over the hello and its nonce; the
//! caller checks it and answers with a tag over the same bytes under another label; then each
//! sends its claim. The secret itself never crosses the wire, each tag covers the other side's
//! fresh nonce (a recorded handshake cannot be replayed) and the two labels differ (a tag
//! cannot be reflected back). Without a secret the key is empty: the protocol is the same,
//! and proves nothing (`--hosts` warns so).
//!
//! A handshake has a deadline for all of it ([`PATIENCE`]), not a timeout per read: a read
//! timeout starts again with every byte, so a stranger sending one every few seconds would
//! hold a listener's handshake as long as it liked. The listener's side shows how far it has
//! come on a [`Ticket`], which the accepting thread reads to choose whom to close when
//! strangers take all its places (`net`).
//!
//! Everything after the handshake (timely's data, the heartbeats) is neither encrypted nor
//! authenticated: a private network or a tunnel is what keeps an eavesdropper out
//! (docs/CLUSTER.md).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::identity::Claim;

/// How long one side of a handshake may take in all, from its first byte to the claims: a
/// connection that has not finished by then is closed, and the listener goes on accepting. A
/// peer's handshake takes two round trips.
pub const PATIENCE: Duration = Duration::from_secs(5);

/// "GRDY": the first bytes of every hello and of every answer.
const MAGIC: [u8; 4] = *b"GRDY";
/// The version of this handshake (the first, a 9-byte hello without proof, was 1).
const VERSION: u8 = 2;
/// The channel of timely's data.
pub const DATA: u8 = 0;
/// The channel of heartbeats.
pub const BEATS: u8 = 1;
const NONCE: usize = 16;
const TAG: usize = 32;
/// magic, version, channel, from, to, processes, nonce.
const HELLO: usize = 4 + 1 + 1 + 4 + 4 + 4 + NONCE;
/// A claim is a few hundred bytes; a length above this is not a grundy peer's.
const MAX_CLAIM: u32 = 1 << 20;

type Tagger = Hmac<Sha256>;

/// The secret every process of a run holds: the HMAC key of the handshake (empty: none).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_set() { "Secret(set)" } else { "Secret(none)" })
    }
}

impl Secret {
    /// No secret: anyone who can reach the ports can join.
    pub fn none() -> Secret {
        Secret(Vec::new())
    }

    /// The secret `text` holds, without the line end or spaces around it (a file written by
    /// `echo` and one written without a newline hold the same secret).
    pub fn from_text(text: &[u8]) -> Secret {
        Secret(text.trim_ascii().to_vec())
    }

    /// A fresh random secret (32 bytes from the operating system, as 64 hex digits), for the
    /// processes `--processes N` starts.
    pub fn fresh() -> io::Result<Secret> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
        Ok(Secret(hex(&bytes).into_bytes()))
    }

    /// True unless the secret is empty.
    pub fn is_set(&self) -> bool {
        !self.0.is_empty()
    }

    /// The secret's bytes (to hand to a child process's environment).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    fn tag(&self, label: &[u8], hello: &[u8; HELLO], nonce: &[u8; NONCE]) -> Tagger {
        // HMAC takes keys of any length, the empty one included.
        let mut mac = Tagger::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(label);
        mac.update(hello);
        mac.update(nonce);
        mac
    }
}

/// The first message of a connection: the caller, the listener and the channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// The channel ([`DATA`] or [`BEATS`]).
    pub channel: u8,
    /// The caller's process index.
    pub from: u32,
    /// The listener's process index, as the caller's hosts name it.
    pub to: u32,
    /// The number of processes in the caller's run.
    pub processes: u32,
}

impl Hello {
    fn bytes(&self, nonce: &[u8; NONCE]) -> [u8; HELLO] {
        let mut out = [0u8; HELLO];
        out[..4].copy_from_slice(&MAGIC);
        out[4] = VERSION;
        out[5] = self.channel;
        out[6..10].copy_from_slice(&self.from.to_le_bytes());
        out[10..14].copy_from_slice(&self.to.to_le_bytes());
        out[14..18].copy_from_slice(&self.processes.to_le_bytes());
        out[18..].copy_from_slice(nonce);
        out
    }

    fn parse(bytes: &[u8; HELLO]) -> Result<Hello, String> {
        if bytes[..4] != MAGIC {
            return Err("sent no grundy hello".into());
        }
        if bytes[4] != VERSION {
            return Err(format!(
                "speaks handshake version {}, this grundy {VERSION}: run the same grundy everywhere",
                bytes[4]
            ));
        }
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let hello = Hello { channel: bytes[5], from: word(6), to: word(10), processes: word(14) };
        if hello.channel > BEATS {
            return Err(format!("names channel {}, which does not exist", hello.channel));
        }
        Ok(hello)
    }
}

/// How far a listener's handshake has come: the accepting thread closes the handshakes least
/// far along first when it needs room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Waiting for the hello, which a peer sends at once, in one segment.
    Hello,
    /// A well-formed hello came (anyone can send one): waiting for the proof of the secret.
    Proof,
    /// The caller proved the run's secret (or the run has none): exchanging claims.
    Proven,
}

/// One accepted connection's handshake as the accepting thread sees it: when it started, how
/// far it has come and how many bytes of a hello it sent. The accepting thread may close it
/// to make room ([`Ticket::evict`]); the failure it then reports says so.
#[derive(Debug)]
pub struct Ticket {
    started: Instant,
    deadline: Instant,
    stage: AtomicU8,
    /// Bytes of the hello received so far.
    received: AtomicUsize,
    evicted: AtomicBool,
}

impl Ticket {
    /// A handshake starting now, that must be over within `patience`.
    pub fn new(patience: Duration) -> Ticket {
        let started = Instant::now();
        Ticket {
            started,
            deadline: started + patience,
            stage: AtomicU8::new(Stage::Hello as u8),
            received: AtomicUsize::new(0),
            evicted: AtomicBool::new(false),
        }
    }

    /// How far the handshake has come.
    pub fn stage(&self) -> Stage {
        match self.stage.load(Ordering::Relaxed) {
            0 => Stage::Hello,
            1 => Stage::Proof,
            _ => Stage::Proven,
        }
    }

    /// Records that the handshake has come to `stage`.
    pub(super) fn reach(&self, stage: Stage) {
        self.stage.store(stage as u8, Ordering::Relaxed);
    }

    /// When the connection was accepted.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Marks the handshake as closed by the accepting thread, which then shuts its connection
    /// down: its failure says it was closed to make room, not that the stranger closed it.
    pub fn evict(&self) {
        self.evicted.store(true, Ordering::Relaxed);
    }

    /// What the connection did, for a message: `after 2.1 s, having sent 3 of a hello's 34
    /// bytes`.
    pub fn progress(&self) -> String {
        let seconds = self.started.elapsed().as_secs_f64();
        let done = match self.stage() {
            Stage::Hello => match self.received.load(Ordering::Relaxed) {
                0 => "having sent nothing".to_string(),
                got => format!("having sent {got} of a hello's {HELLO} bytes"),
            },
            Stage::Proof => "having sent a hello but no proof of the run's secret".into(),
            Stage::Proven => "having proved the run's secret but sent no claim".into(),
        };
        format!("after {seconds:.1} s, {done}")
    }

    /// Why the handshake failed on `e`, a failed read or write.
    fn failure(&self, e: io::Error) -> String {
        if self.evicted.load(Ordering::Relaxed) {
            return format!("was closed to make room for newer connections {}", self.progress());
        }
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                format!("ran out of time {}", self.progress())
            }
            io::ErrorKind::UnexpectedEof => format!("closed the connection {}", self.progress()),
            _ => e.to_string(),
        }
    }
}

/// Why a caller's handshake failed.
#[derive(Debug)]
pub enum CallError {
    /// Nothing or something else answered (not listening yet, closed, too slow, not grundy):
    /// worth trying again until the connect deadline.
    Retry(String),
    /// The listener does not hold this run's secret: trying again cannot help.
    Fatal(String),
}

/// The caller's side: sends `hello`, checks the listener's proof, proves the secret, and
/// exchanges claims before `deadline`; returns the listener's claim.
pub fn call(
    stream: &TcpStream,
    hello: Hello,
    secret: &Secret,
    claim: &Claim,
    deadline: Instant,
) -> Result<Claim, CallError> {
    let retry = |e: io::Error| CallError::Retry(e.to_string());
    let hello_bytes = hello.bytes(&nonce().map_err(retry)?);
    write_by(stream, &hello_bytes, deadline).map_err(retry)?;
    let mut answer = [0u8; 4 + NONCE + TAG];
    read_by(stream, &mut answer, deadline, None).map_err(|e| CallError::Retry(unanswered(e)))?;
    if answer[..4] != MAGIC {
        return Err(CallError::Retry("it answers, but not as a grundy process".into()));
    }
    let their_nonce: [u8; NONCE] = answer[4..4 + NONCE].try_into().expect("a nonce's bytes");
    let proof = secret.tag(b"grundy listener", &hello_bytes, &their_nonce);
    let proved = proof.verify_slice(&answer[4 + NONCE..]).is_ok();
    // The tag is sent even to a listener that failed its proof, so that a peer with another
    // secret learns why it was refused; it is of no use elsewhere, since it covers the nonce
    // this listener chose.
    let tag = secret.tag(b"grundy caller", &hello_bytes, &their_nonce).finalize().into_bytes();
    if !proved {
        let _ = write_by(stream, &tag, deadline);
        return Err(CallError::Fatal(
            "it does not hold this run's secret: every process of a run needs the same one \
             (--secret-file or GRUNDY_SECRET)"
                .into(),
        ));
    }
    // The tag and the claim in one write: two small writes in a row wait for the first one's
    // delayed acknowledgement (Nagle's algorithm), 40 ms on Linux.
    let mut message = tag.to_vec();
    message.extend_from_slice(&claim_frame(claim).map_err(retry)?);
    write_by(stream, &message, deadline).map_err(retry)?;
    read_claim(stream, deadline, |e| format!("sent no claim: {e}")).map_err(CallError::Retry)
}

/// Why a listener's answer to the hello did not come.
fn unanswered(e: io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "it closed the connection without answering".into(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => "it did not answer in time".into(),
        _ => e.to_string(),
    }
}

/// The listener's side: reads the hello, proves the secret, checks the caller's proof, and
/// exchanges claims, before the ticket's deadline, showing its progress on `ticket`. `Err`
/// says why the connection is not a peer's (it is then closed, and the listener goes on
/// accepting).
pub fn answer(
    stream: &TcpStream,
    secret: &Secret,
    claim: &Claim,
    ticket: &Ticket,
) -> Result<(Hello, Claim), String> {
    let failed = |e: io::Error| ticket.failure(e);
    let deadline = ticket.deadline;
    let mut hello_bytes = [0u8; HELLO];
    // The magic first: anything else (an HTTP request, a scanner's probe) is closed at once,
    // without waiting for a hello's worth of bytes.
    let (magic, rest) = hello_bytes.split_at_mut(MAGIC.len());
    read_by(stream, magic, deadline, Some(&ticket.received)).map_err(failed)?;
    if *magic != MAGIC {
        return Err("sent no grundy hello".into());
    }
    read_by(stream, rest, deadline, Some(&ticket.received)).map_err(failed)?;
    let hello = Hello::parse(&hello_bytes)?;
    ticket.reach(Stage::Proof);
    let my_nonce = nonce().map_err(|e| e.to_string())?;
    let proof = secret.tag(b"grundy listener", &hello_bytes, &my_nonce).finalize().into_bytes();
    let mut answer = Vec::with_capacity(4 + NONCE + TAG);
    answer.extend_from_slice(&MAGIC);
    answer.extend_from_slice(&my_nonce);
    answer.extend_from_slice(&proof);
    write_by(stream, &answer, deadline).map_err(failed)?;
    let mut tag = [0u8; TAG];
    read_by(stream, &mut tag, deadline, None).map_err(failed)?;
    let expected = secret.tag(b"grundy caller", &hello_bytes, &my_nonce);
    if expected.verify_slice(&tag).is_err() {
        return Err("did not prove it holds this run's secret".into());
    }
    ticket.reach(Stage::Proven);
    let theirs = read_claim(stream, deadline, failed)?;
    write_by(stream, &claim_frame(claim).map_err(failed)?, deadline).map_err(failed)?;
    Ok((hello, theirs))
}

/// Fills `buf` from `stream` before `deadline`, each read waiting at most the time left;
/// `counted` adds up the bytes as they come.
fn read_by(
    mut stream: &TcpStream,
    buf: &mut [u8],
    deadline: Instant,
    counted: Option<&AtomicUsize>,
) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        stream.set_read_timeout(Some(time_left(deadline)?))?;
        match stream.read(&mut buf[filled..]) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                filled += n;
                if let Some(counted) = counted {
                    counted.fetch_add(n, Ordering::Relaxed);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes all of `bytes` before `deadline` (a handshake's messages fit a socket's buffer: a
/// write only waits on a peer that reads nothing).
fn write_by(mut stream: &TcpStream, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    stream.set_write_timeout(Some(time_left(deadline)?))?;
    stream.write_all(bytes)
}

/// The time left until `deadline`; past it, a timeout error.
fn time_left(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    Ok(left)
}

/// A fresh nonce from the operating system.
fn nonce() -> io::Result<[u8; NONCE]> {
    let mut bytes = [0u8; NONCE];
    getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(bytes)
}

/// A claim as it is sent: its length (4 bytes), then its JSON.
fn claim_frame(claim: &Claim) -> io::Result<Vec<u8>> {
    let text = serde_json::to_vec(claim).map_err(io::Error::other)?;
    let mut frame = (text.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&text);
    Ok(frame)
}

/// Reads the other side's claim before `deadline`; `said` words a failed read.
fn read_claim(
    stream: &TcpStream,
    deadline: Instant,
    said: impl Fn(io::Error) -> String,
) -> Result<Claim, String> {
    let mut length = [0u8; 4];
    read_by(stream, &mut length, deadline, None).map_err(&said)?;
    let length = u32::from_le_bytes(length);
    if length > MAX_CLAIM {
        return Err(format!("sent a claim of {length} bytes"));
    }
    let mut text = vec![0u8; length as usize];
    read_by(stream, &mut text, deadline, None).map_err(&said)?;
    serde_json::from_slice(&text).map_err(|e| format!("sent a malformed claim: {e}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::identity::Identity;
    use std::net::TcpListener;
    use std::sync::Arc;

    /// Runs a listener holding `theirs` on a thread and a caller holding `mine` here.
    fn shake(mine: &Secret, theirs: &Secret) -> (Result<Claim, CallError>, Result<Hello, String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let theirs = theirs.clone();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let claim = Claim::Run(Identity::new().with("side", "listener"));
            answer(&stream, &theirs, &claim, &Ticket::new(PATIENCE)).map(|(hello, _)| hello)
        });
        let stream = TcpStream::connect(address).unwrap();
        let hello = Hello { channel: BEATS, from: 2, to: 1, processes: 3 };
        let claim = Claim::Run(Identity::new().with("side", "caller"));
        let called = call(&stream, hello, mine, &claim, Instant::now() + PATIENCE);
        drop(stream);
        (called, server.join().unwrap())
    }

    #[test]
    fn the_same_secret_opens_the_connection_both_ways() {
        let secret = Secret::from_text(b"open sesame\n");
        let (called, answered) = shake(&secret, &Secret::from_text(b"  open sesame"));
        let expected = Claim::Run(Identity::new().with("side", "listener"));
        assert_eq!(called.unwrap(), expected);
        assert_eq!(answered.unwrap(), Hello { channel: BEATS, from: 2, to: 1, processes: 3 });
        // No secret on either side works too (and proves nothing).
        let (called, answered) = shake(&Secret::none(), &Secret::none());
        assert!(called.is_ok() && answered.is_ok());
    }

    #[test]
    fn a_different_secret_is_refused_on_both_sides() {
        for (mine, theirs) in [("a", "b"), ("a", ""), ("", "b")] {
            let (called, answered) =
                shake(&Secret::from_text(mine.as_bytes()), &Secret::from_text(theirs.as_bytes()));
            assert!(matches!(called, Err(CallError::Fatal(_))), "{mine:?} {theirs:?}: {called:?}");
            assert!(answered.is_err(), "{mine:?} {theirs:?}");
        }
    }

    #[test]
    fn strangers_are_told_apart_from_peers() {
        let bad = |bytes: &[u8]| {
            let mut hello = [0u8; HELLO];
            hello[..bytes.len()].copy_from_slice(bytes);
            Hello::parse(&hello).unwrap_err()
        };
        assert_eq!(bad(b"GET / HTTP/1.1\r\n"), "sent no grundy hello");
        assert!(bad(b"GRDY\x01").contains("handshake version 1"));
        assert!(bad(b"GRDY\x02\x07").contains("channel 7"));
        let hello = Hello { channel: DATA, from: 5, to: 0, processes: 9 };
        assert_eq!(Hello::parse(&hello.bytes(&[7; NONCE])), Ok(hello));
        assert_eq!(format!("{:?}", Secret::from_text(b"x")), "Secret(set)");
    }

    /// Runs a listener's handshake with `ticket` against a caller that sends `hello`'s bytes
    /// one at a time, every `drip`, until it is closed; the listener's failure and how long
    /// it took.
    fn drip(
        ticket: Arc<Ticket>,
        drip: Duration,
        evict_after: Option<Duration>,
    ) -> (String, Duration) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let dripping = std::thread::spawn(move || {
            let mut stream = TcpStream::connect(address).unwrap();
            let hello = Hello { channel: DATA, from: 1, to: 0, processes: 2 }.bytes(&[3; NONCE]);
            for byte in hello.iter().cycle() {
                if stream.write_all(&[*byte]).is_err() {
                    return;
                }
                std::thread::sleep(drip);
            }
        });
        let (stream, _) = listener.accept().unwrap();
        if let Some(after) = evict_after {
            let (ticket, stream) = (Arc::clone(&ticket), stream.try_clone().unwrap());
            std::thread::spawn(move || {
                std::thread::sleep(after);
                ticket.evict();
                stream.shutdown(std::net::Shutdown::Both).unwrap();
            });
        }
        let started = Instant::now();
        let claim = Claim::Run(Identity::new());
        let failure = answer(&stream, &Secret::none(), &claim, &ticket).unwrap_err();
        let took = started.elapsed();
        drop(stream);
        dripping.join().unwrap();
        (failure, took)
    }

    #[test]
    fn a_stranger_dripping_bytes_is_cut_off_at_the_deadline() {
        // A byte every 50 ms would hold a per-read timeout of 300 ms for ever.
        let ticket = Arc::new(Ticket::new(Duration::from_millis(300)));
        let (failure, took) = drip(Arc::clone(&ticket), Duration::from_millis(50), None);
        assert!(took < Duration::from_millis(1500), "{took:?}");
        assert!(failure.starts_with("ran out of time after 0."), "{failure}");
        assert!(failure.ends_with("of a hello's 34 bytes"), "{failure}");
        assert_eq!(ticket.stage(), Stage::Hello);
        // Closed by the accepting thread to make room: said so.
        let ticket = Arc::new(Ticket::new(PATIENCE));
        let after = Some(Duration::from_millis(200));
        let (failure, took) = drip(ticket, Duration::from_millis(50), after);
        assert!(took < Duration::from_millis(1500), "{took:?}");
        assert!(failure.starts_with("was closed to make room for newer connections"), "{failure}");
    }

    #[test]
    fn a_peer_is_proven_only_after_its_proof() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let secret = Secret::from_text(b"s");
        let caller = std::thread::spawn(move || {
            let stream = TcpStream::connect(address).unwrap();
            let hello = Hello { channel: DATA, from: 1, to: 0, processes: 2 };
            let claim = Claim::Run(Identity::new());
            call(&stream, hello, &Secret::from_text(b"s"), &claim, Instant::now() + PATIENCE)
        });
        let (stream, _) = listener.accept().unwrap();
        let ticket = Ticket::new(PATIENCE);
        assert_eq!(ticket.stage(), Stage::Hello);
        assert!(answer(&stream, &secret, &Claim::Run(Identity::new()), &ticket).is_ok());
        assert_eq!(ticket.stage(), Stage::Proven);
        assert!(caller.join().unwrap().is_ok());
    }
}
