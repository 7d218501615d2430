//! `POST /v1/query`: a body of query lines answered against the game's first case, as the
//! CSV rows of `grundy query`, byte for byte.
//!
//! Both ways are streamed, so memory is bounded whatever the body's size: the body's frames
//! go to the query reader (a stream, read as `grundy query -` reads a pipe) through a queue
//! of [`QUEUE`] frames, and its rows come back in chunks of [`CHUNK`] bytes through another.
//! The reader runs on a blocking thread of its own. An error in the first [`CHUNK`] bytes of
//! rows (a small body's, always) is a 400 with the CLI's line and column; one found after
//! rows were sent cuts the response short (the chunked body never ends), so a half answer is
//! never presented as whole.

use std::io::{self, Read};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{error, Game, Shared};
use crate::error::Error;
use crate::exec::{self, Exec};
use crate::io::error::IoError;
use crate::io::input::Input;
use crate::io::sink::Put;
use crate::report::{Columns, Csv};

/// Bytes of rows gathered before they are sent: large enough that a small answer is one
/// response (and its error a 400), small enough to bound what each request holds.
const CHUNK: usize = 64 << 10;

/// Frames of body, and chunks of rows, held in each queue.
const QUEUE: usize = 4;

/// The body's name in the CLI's messages: `<body>:3:7: ...`.
const BODY_NAME: &str = "<body>";

/// How the body's forwarding ended, when an answer failed: no fault of the body's, over the
/// limit (413), past the deadline (503); anything else is the body's text (400).
const NONE: u8 = 0;
/// See [`NONE`].
const OVER: u8 = 1;
/// See [`NONE`].
const LATE: u8 = 2;

/// What the answering thread sends the response.
enum Out {
    /// A chunk of rows.
    Rows(Bytes),
    /// The end: how the answering ended, and the rows not yet sent.
    Done(Result<(), Error>, Vec<u8>),
}

/// Answers the request's body of queries.
pub async fn answer(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let limit = shared.body_limit;
    let declared = request.headers().get(header::CONTENT_LENGTH);
    let declared = declared.and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit) {
        return too_large(limit);
    }
    let deadline = Instant::now() + shared.timeout;
    let fault = Arc::new(AtomicU8::new(NONE));
    let (frames, body) = mpsc::channel(QUEUE);
    tokio::spawn(forward(request.into_body(), frames, (limit, deadline), fault.clone()));
    let (sender, mut rows) = mpsc::channel(QUEUE);
    let game = shared.game.clone();
    tokio::task::spawn_blocking(move || {
        let mut out = Chunks { sender: sender.clone(), held: Vec::new(), closed: false };
        let result =
            answer_body(&game, BodyReader { frames: body, current: Bytes::new() }, &mut out);
        let _ = sender.blocking_send(Out::Done(result, out.held));
    });
    let first = tokio::time::timeout_at(deadline, rows.recv()).await;
    match (first, fault.load(Ordering::Relaxed)) {
        (Err(_), _) | (Ok(Some(Out::Done(Err(_), _))), LATE) => too_late(),
        (Ok(None), _) => error(StatusCode::INTERNAL_SERVER_ERROR, "the query's answer stopped"),
        (Ok(Some(Out::Done(Ok(()), held))), _) => csv(Body::from(held)),
        (Ok(Some(Out::Done(Err(_), _))), OVER) => too_large(limit),
        (Ok(Some(Out::Done(Err(e), _))), _) => error(StatusCode::BAD_REQUEST, &e.to_string()),
        (Ok(Some(Out::Rows(first))), _) => csv(Body::from_stream(stream(first, rows, deadline))),
    }
}

/// The rows after the `first` chunk, as they come, until the end, an error or the deadline
/// (an error ends the response without its last chunk).
fn stream(
    first: Bytes,
    rows: mpsc::Receiver<Out>,
    deadline: Instant,
) -> impl futures_util::Stream<Item = io::Result<Bytes>> {
    futures_util::stream::unfold(
        (rows, Some(first), false),
        move |(mut rows, next, done)| async move {
            if let Some(bytes) = next {
                return Some((Ok(bytes), (rows, None, done)));
            }
            if done {
                return None;
            }
            let item = match tokio::time::timeout_at(deadline, rows.recv()).await {
                Ok(Some(Out::Rows(bytes))) => return Some((Ok(bytes), (rows, None, false))),
                Ok(Some(Out::Done(Ok(()), held))) => Ok(Bytes::from(held)),
                Ok(Some(Out::Done(Err(e), _))) => Err(io::Error::other(e.to_string())),
                Ok(None) => Err(io::Error::other("the query's answer stopped")),
                Err(_) => Err(io::Error::other("the request took longer than --timeout")),
            };
            Some((item, (rows, None, true)))
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

/// The 413 of a body over the limit.
fn too_large(limit: u64) -> Response {
    let message = format!("the body is larger than --body-limit ({limit} bytes)");
    error(StatusCode::PAYLOAD_TOO_LARGE, &message)
}

/// Sends the body's frames to the answering thread until its end, a fault, more than `limit`
/// bytes or the deadline (which also set `fault` to [`OVER`] or [`LATE`]); a fault is sent as
/// the read's error.
async fn forward(
    body: Body,
    frames: mpsc::Sender<io::Result<Bytes>>,
    (limit, deadline): (u64, Instant),
    fault: Arc<AtomicU8>,
) {
    let mut body = body.into_data_stream();
    let mut taken = 0u64;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.next()).await {
            Ok(None) => return,
            Ok(Some(Ok(bytes))) => {
                taken += bytes.len() as u64;
                if taken > limit {
                    fault.store(OVER, Ordering::Relaxed);
                    Err(io::Error::other(format!("more than --body-limit ({limit} bytes)")))
                } else {
                    Ok(bytes)
                }
            }
            Ok(Some(Err(e))) => Err(io::Error::other(e)),
            Err(_) => {
                fault.store(LATE, Ordering::Relaxed);
                Err(io::Error::new(io::ErrorKind::TimedOut, "the body took too long"))
            }
        };
        let last = frame.is_err();
        // The answering thread gone (it found an error) ends the forwarding.
        if frames.send(frame).await.is_err() || last {
            return;
        }
    }
}

/// Answers the queries `body` holds against the game's first case, as CSV rows to `out`.
fn answer_body(game: &Game, body: BodyReader, out: &mut Chunks) -> Result<(), Error> {
    let Some(case) = game.cases.first() else {
        return Err(Error::NoGraph { path: game.name.clone() });
    };
    let input = Input::from_reader(BODY_NAME, Box::new(body))?;
    let mut rows = Csv::new(out);
    let columns = Columns::query();
    exec::query_case((case, game.loopy), &input, Exec::Sequential, &columns, &mut rows, &())?;
    rows.finish()
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

/// The rows, sent to the response in chunks of [`CHUNK`] bytes; closed once the response is
/// gone (the client left, or the deadline passed), which stops the answering.
struct Chunks {
    sender: mpsc::Sender<Out>,
    held: Vec<u8>,
    closed: bool,
}

impl Put for Chunks {
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        if self.closed {
            return Ok(());
        }
        self.held.extend_from_slice(bytes);
        if self.held.len() >= CHUNK {
            let rows = Bytes::from(std::mem::take(&mut self.held));
            self.closed = self.sender.blocking_send(Out::Rows(rows)).is_err();
        }
        Ok(())
    }

    fn is_closed(&self) -> bool {
        self.closed
    }

    fn name(&self) -> &str {
        "<response>"
    }
}
