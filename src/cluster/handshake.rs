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
//! Everything after the handshake (timely's data, the heartbeats) is neither encrypted nor
//! authenticated: a private network or a tunnel is what keeps an eavesdropper out
//! (docs/CLUSTER.md).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::identity::Claim;

/// How long one side of a handshake waits for each of the other's messages: a connection that
/// says nothing for this long is closed, and the listener goes on accepting.
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
/// exchanges claims; returns the listener's claim.
pub fn call(
    mut stream: &TcpStream,
    hello: Hello,
    secret: &Secret,
    claim: &Claim,
) -> Result<Claim, CallError> {
    let retry = |e: io::Error| CallError::Retry(e.to_string());
    let hello_bytes = hello.bytes(&nonce().map_err(retry)?);
    stream.write_all(&hello_bytes).map_err(retry)?;
    let mut answer = [0u8; 4 + NONCE + TAG];
    stream.read_exact(&mut answer).map_err(retry)?;
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
        let _ = stream.write_all(&tag);
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
    stream.write_all(&message).map_err(retry)?;
    read_claim(stream).map_err(CallError::Retry)
}

/// The listener's side: reads the hello, proves the secret, checks the caller's proof, and
/// exchanges claims. `Err` says why the connection is not a peer's (it is then closed, and the
/// listener goes on accepting).
pub fn answer(
    mut stream: &TcpStream,
    secret: &Secret,
    claim: &Claim,
) -> Result<(Hello, Claim), String> {
    let said = |e: io::Error| match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            format!("said nothing for {} s", PATIENCE.as_secs())
        }
        io::ErrorKind::UnexpectedEof => "closed the connection during the handshake".into(),
        _ => e.to_string(),
    };
    let mut hello_bytes = [0u8; HELLO];
    stream.read_exact(&mut hello_bytes).map_err(said)?;
    let hello = Hello::parse(&hello_bytes)?;
    let my_nonce = nonce().map_err(|e| e.to_string())?;
    let proof = secret.tag(b"grundy listener", &hello_bytes, &my_nonce).finalize().into_bytes();
    let mut answer = Vec::with_capacity(4 + NONCE + TAG);
    answer.extend_from_slice(&MAGIC);
    answer.extend_from_slice(&my_nonce);
    answer.extend_from_slice(&proof);
    stream.write_all(&answer).map_err(said)?;
    let mut tag = [0u8; TAG];
    stream.read_exact(&mut tag).map_err(said)?;
    let expected = secret.tag(b"grundy caller", &hello_bytes, &my_nonce);
    if expected.verify_slice(&tag).is_err() {
        return Err("did not prove it holds this run's secret".into());
    }
    let theirs = read_claim(stream)?;
    stream.write_all(&claim_frame(claim).map_err(said)?).map_err(said)?;
    Ok((hello, theirs))
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

fn read_claim(mut stream: &TcpStream) -> Result<Claim, String> {
    let mut length = [0u8; 4];
    stream.read_exact(&mut length).map_err(|e| format!("sent no claim: {e}"))?;
    let length = u32::from_le_bytes(length);
    if length > MAX_CLAIM {
        return Err(format!("sent a claim of {length} bytes"));
    }
    let mut text = vec![0u8; length as usize];
    stream.read_exact(&mut text).map_err(|e| format!("sent no claim: {e}"))?;
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

    /// Runs a listener holding `theirs` on a thread and a caller holding `mine` here.
    fn shake(mine: &Secret, theirs: &Secret) -> (Result<Claim, CallError>, Result<Hello, String>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let theirs = theirs.clone();
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            stream.set_read_timeout(Some(PATIENCE)).unwrap();
            let claim = Claim::Run(Identity::new().with("side", "listener"));
            answer(&stream, &theirs, &claim).map(|(hello, _)| hello)
        });
        let stream = TcpStream::connect(address).unwrap();
        stream.set_read_timeout(Some(PATIENCE)).unwrap();
        let hello = Hello { channel: BEATS, from: 2, to: 1, processes: 3 };
        let claim = Claim::Run(Identity::new().with("side", "caller"));
        let called = call(&stream, hello, mine, &claim);
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
}
