//! `POST /v1/query`: a body of query lines answered against the game's first case, as the
//! CSV rows of `grundy query`, byte for byte.
//!
//! Both ways are streamed, so memory is bounded whatever the body's size: the body's frames
//! go to the query reader (a stream, read in windows of [`WINDOW`] bytes) through a queue of
//! [`QUEUE`] frames, and its rows come back through another in chunks of about [`CHUNK`]
//! bytes, cut at rows' ends. The reader runs on a blocking thread of its own, one of `--query-slots`: a body
//! past them waits [`SLOT_WAIT`] for one, then gets a 503, so the answers in flight, each
//! bounded, bound the server's memory whatever the connection count.
//!
//! A body with a Content-Length over `--body-limit` is refused before it is read. One without
//! (chunked) is read to its end before any row goes out, held in memory up to [`HELD`] bytes
//! and in an unlinked temporary file past that, so that one over the limit is a 413 too,
//! never a 200 cut short. A zstd body is decompressed here with windows of at most
//! 2^[`ZSTD_WINDOW_LOG`] bytes (the decoder's default takes 128 MiB for a window a body asks).
//!
//! An answer is cut at `--answer-limit` bytes (a few hundred bytes of zstd can ask for
//! gigabytes of rows) and at the request's deadline. An error or a cut in the first [`CHUNK`] bytes of rows
//! (a small body's, always) is a status with a JSON error (400 with the CLI's line and column,
//! 413, 503); one found after rows were sent cuts the response short (the chunked body never
//! ends), so a half answer is never presented as whole.

use std::io::{self, Read, Seek, Write};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit};
use tokio::time::Instant;

use super::{error, Deadline, Game, Shared};
use crate::error::Error;
use crate::exec::{self, Exec};
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::sink::Put;
use crate::report::{Columns, Csv};

/// Bytes of rows gathered before they are sent: large enough that a small answer is one
/// response (and its error a status), small enough to bound what each request holds.
const CHUNK: usize = 64 << 10;

/// Frames of body, and chunks of rows, held in each queue.
const QUEUE: usize = 4;

/// Bytes of body read per step of the query reader. A step's rows are made at once, about
/// five times its bytes for short queries: 1 MiB keeps that, and the wait for the first rows,
/// small (the CLI's 4 MiB is for files).
const WINDOW: usize = 1 << 20;

/// Bytes of a body without a length held in memory while it is read to its end; past that it
/// goes to a temporary file.
const HELD: usize = 1 << 20;

/// How long a query body waits for a slot when every one is taken, before its 503.
const SLOT_WAIT: Duration = Duration::from_secs(1);

/// The largest zstd window taken, as a power of two: 8 MiB, what levels up to 19 use
/// (`--long` and `--ultra` ask for more).
const ZSTD_WINDOW_LOG: u32 = 23;

/// How a zstd frame starts.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// How a gzip stream starts.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The body's name in the CLI's messages: `<body>:3:7: ...`.
const BODY_NAME: &str = "<body>";

/// Why an answer failed when it is no fault of the body's text, which decides its status:
/// the body over `--body-limit` (413), past the deadline (503), the answer over
/// `--answer-limit` (413), no room to hold a body without a length (500). Anything else is the
/// body's text (400). The first fault set is the one told.
const NONE: u8 = 0;
/// See [`NONE`].
const OVER: u8 = 1;
/// See [`NONE`].
const LATE: u8 = 2;
/// See [`NONE`].
const ANSWER_OVER: u8 = 3;
/// See [`NONE`].
const NO_ROOM: u8 = 4;

/// What the answering thread sends the response.
enum Out {
    /// A chunk of rows.
    Rows(Bytes),
    /// The end: how the answering ended, and the rows not yet sent.
    Done(Result<(), Error>, Vec<u8>),
}

/// The limits of one answer, and the fault that ended it.
struct Limits {
    body: u64,
    answer: u64,
    /// The most tokens one query may hold (a longer one is a 400 at its token count).
    query_tokens: u32,
    deadline: Instant,
    fault: Arc<AtomicU8>,
}

impl Limits {
    /// Sets the fault, unless one was set before.
    fn fault(&self, fault: u8) {
        let _ = self.fault.compare_exchange(NONE, fault, Ordering::Relaxed, Ordering::Relaxed);
    }

    fn fault_now(&self) -> u8 {
        self.fault.load(Ordering::Relaxed)
    }
}

/// Answers the request's body of queries.
pub async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let declared = request.headers().get(header::CONTENT_LENGTH);
    let declared = declared.and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > shared.body_limit) {
        return too_large(shared.body_limit);
    }
    let deadline = Deadline::of(&request, shared.timeout);
    let Some(slot) = query_slot(&shared, deadline).await else {
        return busy(shared.query_slot_count);
    };
    let limits = Arc::new(Limits {
        body: shared.body_limit,
        answer: shared.answer_limit,
        query_tokens: shared.max_query_tokens,
        deadline,
        fault: Arc::new(AtomicU8::new(NONE)),
    });
    let (frames, body) = mpsc::channel(QUEUE);
    // Dropped when the answering thread returns, which stops the forwarding.
    let (answering, answered) = oneshot::channel::<()>();
    tokio::spawn(forward(request.into_body(), frames, limits.clone(), answered));
    let (sender, mut rows) = mpsc::channel(QUEUE);
    // The slot is held by the answering thread and by the rows' stream: the answer's memory
    // (its rows queued for a client that does not read, too) until both are done.
    let slot = Arc::new(slot);
    let (game, thread_limits, thread_slot) = (shared.game.clone(), limits.clone(), slot.clone());
    tokio::task::spawn_blocking(move || {
        let (_slot, _answering) = (thread_slot, answering);
        let mut out = Chunks::new(sender.clone(), thread_limits.clone());
        let body = BodyReader { frames: body, current: Bytes::new() };
        let result = answer_body(&game, body, declared.is_none(), &thread_limits, &mut out);
        let _ = sender.blocking_send(Out::Done(result, out.held));
    });
    let first = tokio::time::timeout_at(deadline, rows.recv()).await;
    match (first, limits.fault_now()) {
        (Err(_), _) | (Ok(Some(Out::Done(Err(_), _))), LATE) => too_late(),
        (Ok(None), _) => error(StatusCode::INTERNAL_SERVER_ERROR, "the query's answer stopped"),
        (Ok(Some(Out::Done(Ok(()), held))), _) => csv(Body::from(held)),
        (Ok(Some(Out::Done(Err(_), _))), OVER) => too_large(limits.body),
        (Ok(Some(Out::Done(Err(_), _))), ANSWER_OVER) => answer_too_large(limits.answer),
        (Ok(Some(Out::Done(Err(e), _))), NO_ROOM) => {
            error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string())
        }
        (Ok(Some(Out::Done(Err(e), _))), _) => error(StatusCode::BAD_REQUEST, &e.to_string()),
        (Ok(Some(Out::Rows(first))), _) => {
            csv(Body::from_stream(stream(first, rows, deadline, slot)))
        }
    }
}

/// A query slot, waiting for one at most [`SLOT_WAIT`] (and not past `deadline`).
async fn query_slot(shared: &Shared, deadline: Instant) -> Option<OwnedSemaphorePermit> {
    let until = deadline.min(Instant::now() + SLOT_WAIT);
    let slot = tokio::time::timeout_at(until, shared.query_slots.clone().acquire_owned()).await;
    // The semaphore is never closed.
    slot.ok()?.ok()
}

/// The rows after the `first` chunk, as they come, until the end, an error or the deadline
/// (an error or the deadline ends the response without its last chunk). The deadline is
/// looked at before every chunk: a client that reads slowly finds the rows always ready. The
/// query `slot` is held until the stream is dropped.
fn stream(
    first: Bytes,
    rows: mpsc::Receiver<Out>,
    deadline: Instant,
    slot: Arc<OwnedSemaphorePermit>,
) -> impl futures_util::Stream<Item = io::Result<Bytes>> {
    futures_util::stream::unfold(
        (rows, Some(first), false, slot),
        move |(mut rows, next, done, slot)| async move {
            if let Some(bytes) = next {
                return Some((Ok(bytes), (rows, None, done, slot)));
            }
            if done {
                return None;
            }
            let late = || io::Error::other("the request took longer than --timeout");
            let item = match tokio::time::timeout_at(deadline, rows.recv()).await {
                _ if Instant::now() >= deadline => Err(late()),
                Ok(Some(Out::Rows(bytes))) => return Some((Ok(bytes), (rows, None, false, slot))),
                Ok(Some(Out::Done(Ok(()), held))) => Ok(Bytes::from(held)),
                Ok(Some(Out::Done(Err(e), _))) => Err(io::Error::other(e.to_string())),
                Ok(None) => Err(io::Error::other("the query's answer stopped")),
                Err(_) => Err(late()),
            };
            Some((item, (rows, None, true, slot)))
        },
    )
}

/// A CSV response.
fn csv(body: Body) -> Response {
    ([(header::CONTENT_TYPE, "text/csv; charset=utf-8")], body).into_response()
}

/// The 503 of a request past its deadline.
fn too_late() -> Response {
    error(StatusCode::SERVICE_UNAVAILABLE, "the request took longer than --timeout")
}

/// The 503 of a body that found every query slot taken.
fn busy(slots: usize) -> Response {
    let message =
        format!("the server is answering --query-slots ({slots}) query bodies already: try again");
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, &message);
    response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    response
}

/// The 413 of a body over the limit.
fn too_large(limit: u64) -> Response {
    let message = format!("the body is larger than --body-limit ({limit} bytes)");
    error(StatusCode::PAYLOAD_TOO_LARGE, &message)
}

/// The 413 of an answer over the limit, before any row was sent.
fn answer_too_large(limit: u64) -> Response {
    let message = format!(
        "the answer is longer than --answer-limit ({limit} bytes): send fewer queries at once"
    );
    error(StatusCode::PAYLOAD_TOO_LARGE, &message)
}

/// Sends the body's frames to the answering thread until its end, a fault, more than the
/// body limit or the deadline (which also set the fault [`OVER`] or [`LATE`]; a fault is sent
/// as the read's error), or until the answering is over (`answered` then closes): the body's
/// reader is a thread of the text stream's own, which would otherwise wait on a stalled
/// body, with its blocks, until the deadline, after the answer and its slot were done.
async fn forward(
    body: Body,
    frames: mpsc::Sender<io::Result<Bytes>>,
    limits: Arc<Limits>,
    mut answered: oneshot::Receiver<()>,
) {
    let mut body = body.into_data_stream();
    let mut taken = 0u64;
    loop {
        let next = tokio::select! {
            next = tokio::time::timeout_at(limits.deadline, body.next()) => next,
            _ = &mut answered => return,
        };
        let frame = match next {
            Ok(None) => return,
            Ok(Some(Ok(bytes))) => {
                taken += bytes.len() as u64;
                if taken > limits.body {
                    limits.fault(OVER);
                    let limit = limits.body;
                    Err(io::Error::other(format!("more than --body-limit ({limit} bytes)")))
                } else {
                    Ok(bytes)
                }
            }
            Ok(Some(Err(e))) => Err(io::Error::other(e)),
            Err(_) => {
                limits.fault(LATE);
                Err(io::Error::new(io::ErrorKind::TimedOut, "the body took too long"))
            }
        };
        let last = frame.is_err();
        tokio::select! {
            // The reader gone ends the forwarding.
            sent = frames.send(frame) => if sent.is_err() || last { return },
            _ = &mut answered => return,
        }
    }
}

/// Answers the queries `body` holds against the game's first case, as CSV rows to `out`;
/// a body without a length (`whole`) is read to its end first.
fn answer_body(
    game: &Game,
    body: BodyReader,
    whole: bool,
    limits: &Limits,
    out: &mut Chunks,
) -> Result<(), Error> {
    let Some(case) = game.cases.first() else {
        return Err(Error::NoGraph { path: game.name.clone() });
    };
    let body: Box<dyn Read + Send> = match whole {
        true => spool(body, limits)?,
        false => Box::new(body),
    };
    let input = Input::from_reader(BODY_NAME, bounded_zstd(body)?)?
        .with_max_query_tokens(limits.query_tokens);
    let mut rows = Csv::new(out);
    let columns = Columns::query();
    let exec = Exec::Rayon { chunk_bytes: WINDOW };
    exec::query_case((case, game.loopy), &input, exec, &columns, &mut rows, &())?;
    rows.finish()
}

/// `body` read to its end: held in memory up to [`HELD`] bytes, in an unlinked temporary
/// file (in TMPDIR) past that. A file that cannot be written is the fault [`NO_ROOM`].
fn spool(mut body: BodyReader, limits: &Limits) -> Result<Box<dyn Read + Send>, Error> {
    let reading = |e| Error::io(BODY_NAME, "cannot read", e);
    let mut held = Vec::new();
    (&mut body).take(HELD as u64 + 1).read_to_end(&mut held).map_err(reading)?;
    if held.len() <= HELD {
        return Ok(Box::new(io::Cursor::new(held)));
    }
    let no_room = |e| {
        limits.fault(NO_ROOM);
        Error::io("<temporary file>", "cannot hold the body", e)
    };
    let mut file = tempfile::tempfile().map_err(no_room)?;
    file.write_all(&held).map_err(no_room)?;
    drop(held);
    let mut buffer = vec![0u8; CHUNK];
    loop {
        let n = body.read(&mut buffer).map_err(reading)?;
        if n == 0 {
            break;
        }
        file.write_all(&buffer[..n]).map_err(no_room)?;
    }
    file.rewind().map_err(no_room)?;
    Ok(Box::new(io::BufReader::with_capacity(CHUNK, file)))
}

/// `body`, decompressed here when it is zstd, with windows of at most 2^[`ZSTD_WINDOW_LOG`]
/// bytes (the text then read as it is); any other body as it is (gzip's window is 32 KiB).
/// A zstd body whose text is compressed again is refused: it would be decompressed without
/// that bound.
fn bounded_zstd(body: Box<dyn Read + Send>) -> Result<Box<dyn Read + Send>, Error> {
    let failed = |e| Error::io(BODY_NAME, "cannot decompress", e);
    let (start, body) =
        peek(body, ZSTD_MAGIC.len()).map_err(|e| Error::io(BODY_NAME, "cannot read", e))?;
    if start != ZSTD_MAGIC {
        return Ok(body);
    }
    let mut decoder = zstd::stream::read::Decoder::new(body).map_err(failed)?;
    decoder.window_log_max(ZSTD_WINDOW_LOG).map_err(failed)?;
    let text: Box<dyn Read + Send> = Box::new(ZstdErrors(decoder));
    let (start, text) = peek(text, ZSTD_MAGIC.len()).map_err(failed)?;
    if start == ZSTD_MAGIC || start.starts_with(&GZIP_MAGIC) {
        let message = "a zstd body whose text is compressed again: compress the queries once";
        return Err(failed(io::Error::other(message)));
    }
    Ok(text)
}

/// A zstd decoder whose errors say what the server takes.
struct ZstdErrors<R>(R);

impl<R: Read> Read for ZstdErrors<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| {
            let window = 1u32 << (ZSTD_WINDOW_LOG - 20);
            io::Error::new(e.kind(), format!("{e} (windows up to {window} MiB are taken)"))
        })
    }
}

/// The first `n` bytes of `reader` (fewer at its end), and the reader, those bytes first.
fn peek(mut reader: Box<dyn Read + Send>, n: usize) -> io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut start = Vec::with_capacity(n);
    (&mut reader).take(n as u64).read_to_end(&mut start)?;
    let again: Box<dyn Read + Send> = Box::new(io::Cursor::new(start.clone()).chain(reader));
    Ok((start, again))
}

/// The body as a blocking reader, over the frames [`forward`] sends.
struct BodyReader {
    frames: mpsc::Receiver<io::Result<Bytes>>,
    current: Bytes,
}

impl Read for BodyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.current.is_empty() {
            match self.frames.blocking_recv() {
                Some(frame) => self.current = frame?,
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.current.len());
        buf[..n].copy_from_slice(&self.current[..n]);
        self.current = self.current.slice(n..);
        Ok(n)
    }
}

/// The rows, sent to the response in chunks of about [`CHUNK`] bytes, at most the answer
/// limit of them; closed once the response is gone (the client left, or the deadline
/// passed), which stops the answering.
struct Chunks {
    sender: mpsc::Sender<Out>,
    held: Vec<u8>,
    /// Bytes of rows taken so far (sent or held).
    taken: u64,
    /// True once a chunk was sent: a fault then cuts the response instead of being a status.
    sent: bool,
    closed: bool,
    limits: Arc<Limits>,
}

impl Chunks {
    fn new(sender: mpsc::Sender<Out>, limits: Arc<Limits>) -> Chunks {
        Chunks { sender, held: Vec::new(), taken: 0, sent: false, closed: false, limits }
    }

    /// Takes `bytes` (whole rows), sending the rows held whenever they fill a [`CHUNK`]: a
    /// piece of rows can be megabytes, and the queue then holds [`QUEUE`] chunks, not pieces.
    /// Chunks end at rows' ends.
    fn take(&mut self, bytes: &[u8]) {
        for part in bytes.chunks(CHUNK) {
            if self.closed {
                return;
            }
            self.held.extend_from_slice(part);
            if self.held.len() < CHUNK {
                continue;
            }
            // A row longer than a chunk is held until it ends.
            if let Some(end) = self.held.iter().rposition(|&b| b == b'\n') {
                let rest = self.held.split_off(end + 1);
                self.send();
                self.held = rest;
            }
        }
    }

    /// Sends the rows held.
    fn send(&mut self) {
        let rows = Bytes::from(std::mem::take(&mut self.held));
        self.closed = self.sender.blocking_send(Out::Rows(rows)).is_err();
        self.sent = true;
    }
}

impl Put for Chunks {
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        if self.closed {
            return Ok(());
        }
        let room = self.limits.answer.saturating_sub(self.taken);
        if bytes.len() as u64 <= room {
            self.taken += bytes.len() as u64;
            self.take(bytes);
            return Ok(());
        }
        // Past the limit: when rows were sent already, the whole rows within it go out too
        // (and the response is then cut); when none were, the answer is a 413.
        self.limits.fault(ANSWER_OVER);
        if self.sent {
            let fits = &bytes[..room as usize];
            let whole = fits.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            self.take(&fits[..whole]);
            if !self.held.is_empty() && !self.closed {
                self.send();
            }
        }
        let over = io::Error::other("the answer is longer than --answer-limit");
        Err(IoError::file("<response>", "cannot write", over))
    }

    fn is_closed(&self) -> bool {
        self.closed
    }

    fn name(&self) -> &str {
        "<response>"
    }
}
