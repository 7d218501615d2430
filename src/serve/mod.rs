//! `grundy serve`: a solved game over HTTP, with a page to look at it.
//!
//! The game is an index ([`crate::index`]) whose cases are opened and checked once, at start;
//! every request then reads them in place. Routes (`routes.rs`): a position and its moves, a
//! query file answered as `grundy query` answers it (streamed both ways, `query.rs`), the
//! statistics of `stats --json`, an OpenAPI description and the page. The accept loop
//! (`listen.rs`, with `conns.rs`) is grundy's own, for the limits a server facing hostile
//! clients needs: a cap on connections where the one that has waited longest for a head makes
//! room for a new one, a short deadline for a request's head, a deadline for the whole
//! exchange that holds whether or not the client reads, and a graceful stop on SIGINT and
//! SIGTERM. What one query body may cost is bounded too (`query.rs`): its answer's bytes, and
//! the answers in flight at once.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::error::Error;
use crate::index::{Index, IndexedCase};
use crate::report::stats::{CaseStats, Report};

mod conns;
mod listen;
pub mod position;
mod query;
mod routes;

/// How the server listens, and its limits.
#[derive(Debug, Clone)]
pub struct Options {
    /// The address to bind (loopback unless the user asks for another).
    pub listen: SocketAddr,
    /// The largest request body taken, in bytes (a query file).
    pub body_limit: u64,
    /// The longest answer to one query body, in bytes.
    pub answer_limit: u64,
    /// How long one request may take, from its head to the last byte of its answer.
    pub timeout: Duration,
    /// How long a connection may take to send a request's head, from its opening or from the
    /// end of its previous answer.
    pub head_timeout: Duration,
    /// Connections held at once (see `conns.rs` for who makes room for a new one).
    pub connections: usize,
    /// Query bodies answered at once.
    pub query_slots: usize,
    /// Threads answering requests.
    pub threads: usize,
    /// The most tokens one query of a body may hold (`--max-query-tokens`).
    pub max_query_tokens: u32,
}

/// A solved game as the server holds it: its cases, checked once, and what is computed once
/// about them (the statistics' JSON, the page).
pub struct Game {
    name: String,
    loopy: bool,
    cases: Vec<IndexedCase>,
    stats: String,
    page: String,
}

impl Game {
    /// The game of `index`, every case taken (and checked) now, with its levels.
    pub fn open(index: &Index) -> Result<Game, Error> {
        let cases: Vec<IndexedCase> =
            (0..index.case_count()).map(|i| index.whole_case(i, true)).collect::<Result<_, _>>()?;
        let stats: Vec<CaseStats> = cases
            .iter()
            .map(|c| CaseStats::of_indexed(c, crate::eval::StageTimes::default()))
            .collect();
        let total = CaseStats::total(&stats, index.is_loopy());
        let report = Report {
            file: index.name(),
            total,
            cases: &stats,
            seconds: 0.0,
            peak_memory_bytes: None,
        };
        Ok(Game {
            name: index.name().to_string(),
            loopy: index.is_loopy(),
            stats: stats_json(&report),
            page: crate::report::html::page(&report, true),
            cases,
        })
    }
}

/// What every handler reads: the game and the limits.
pub struct Shared {
    /// The game served.
    pub game: Arc<Game>,
    /// The largest request body taken.
    pub body_limit: u64,
    /// The longest answer to one query body.
    pub answer_limit: u64,
    /// How long one request may take.
    pub timeout: Duration,
    /// A permit per query body that may be answered at once.
    pub query_slots: Arc<Semaphore>,
    /// How many there are (for the 503's message).
    pub query_slot_count: usize,
    /// The most tokens one query of a body may hold.
    pub max_query_tokens: u32,
}

/// When a request must be answered by: its head's arrival plus `--timeout`. The accept loop
/// puts it in each request's extensions (and resets the connection a moment after it); a
/// request without one (never, from the accept loop) is given `--timeout` from now.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline(pub Instant);

impl Deadline {
    /// The deadline of `request`.
    pub(crate) fn of(request: &Request, timeout: Duration) -> Instant {
        match request.extensions().get::<Deadline>() {
            Some(deadline) => deadline.0,
            None => Instant::now() + timeout,
        }
    }
}

/// A response of JSON text.
pub fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A fault: `status`, and `{"error": message}`.
pub fn error(status: StatusCode, message: &str) -> Response {
    json(status, serde_json::json!({ "error": message }).to_string())
}

/// The `stats --json` object of `report` without its times (which describe reading the
/// index at start, not the game): one line.
fn stats_json(report: &Report) -> String {
    fn drop_times(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("seconds");
                map.remove("peak_memory_bytes");
                map.values_mut().for_each(drop_times);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(drop_times),
            _ => {}
        }
    }
    // Serializing plain numbers, strings and vectors cannot fail.
    let mut value = serde_json::to_value(report).expect("JSON of plain data");
    drop_times(&mut value);
    value.to_string()
}

/// Serves `game` until SIGINT or SIGTERM, then finishes the requests in flight and returns.
/// `ready` is told the address bound (port 0 picks a free one) before the first request is
/// taken.
pub fn serve(game: Game, options: &Options, ready: impl FnOnce(SocketAddr)) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(options.threads.max(1))
        .thread_name("grundy-serve")
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the server's threads: {e}")))?;
    let app = routes::router(Arc::new(game), options);
    runtime.block_on(listen::run(app, options, ready))
}
