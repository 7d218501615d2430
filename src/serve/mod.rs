//! `grundy serve`: a solved game over HTTP, with a page to look at it.
//!
//! The game is an index ([`crate::index`]) whose cases are opened and checked once, at start;
//! every request then reads them in place. Routes (`routes.rs`): a position and its moves, a
//! query file answered as `grundy query` answers it (streamed both ways, `query.rs`), the
//! statistics of `stats --json`, an OpenAPI description and the page. The accept loop
//! (`listen.rs`) is grundy's own, for the limits a server on a shared machine needs: a cap on
//! connections, a deadline for a request's head, a graceful stop on SIGINT and SIGTERM.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::Error;
use crate::index::{Index, IndexedCase};
use crate::report::stats::{CaseStats, Report};

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
    /// How long one request may take, from its head to the last byte of its answer.
    pub timeout: Duration,
    /// Connections served at once; more wait in the kernel's queue.
    pub connections: usize,
    /// Threads answering requests.
    pub threads: usize,
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
    /// How long one request may take.
    pub timeout: Duration,
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
