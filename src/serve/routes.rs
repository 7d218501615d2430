//! The routes, each a small function over the shared [`Game`]: JSON for programs, the page for
//! people, and every fault a status with a JSON `error` (never a panic, never an empty 500,
//! never axum's plain-text rejections: a wrong method, a path that is not UTF-8).

use std::str::FromStr;
use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{header, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Semaphore;

use super::{error, json, position, query, Deadline, Game, Options, Shared};

/// The OpenAPI description of the routes below.
const OPENAPI: &str = include_str!("openapi.json");

/// The routes over `game`, with `options`' limits.
pub fn router(game: Arc<Game>, options: &Options) -> Router {
    let shared = Arc::new(Shared {
        game,
        body_limit: options.body_limit,
        answer_limit: options.answer_limit,
        timeout: options.timeout,
        query_slots: Arc::new(Semaphore::new(options.query_slots.max(1))),
        query_slot_count: options.query_slots.max(1),
        max_query_tokens: options.max_query_tokens,
    });
    Router::new()
        .route("/", get(page))
        .route("/v1/position/{case}/{node}", get(position))
        .route("/v1/query", post(query::answer))
        .route("/v1/stats", get(stats))
        .route("/v1/openapi.json", get(|| async { json(StatusCode::OK, OPENAPI.to_string()) }))
        .method_not_allowed_fallback(wrong_method)
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such route: see /v1/openapi.json") })
        .layer(middleware::from_fn_with_state(shared.clone(), deadline))
        .with_state(shared)
}

/// Cuts a request that is not answered by its deadline (a query's streamed rows have their
/// own, the same, [`query::answer`]).
async fn deadline(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let deadline = Deadline::of(&request, shared.timeout);
    match tokio::time::timeout_at(deadline, next.run(request)).await {
        Ok(response) => response,
        Err(_) => error(StatusCode::SERVICE_UNAVAILABLE, "the request took longer than --timeout"),
    }
}

/// A known route asked with another method: 405 (axum adds the `Allow` header).
async fn wrong_method(method: Method, uri: Uri) -> Response {
    let message = format!("{} does not take {method}: see /v1/openapi.json", uri.path());
    error(StatusCode::METHOD_NOT_ALLOWED, &message)
}

/// `text` as a number when it is plain decimal digits, as the routes' ids are written: Rust's
/// `from_str` also takes a leading `+`, so `/v1/position/1/%2B1` was node 1.
fn plain_number<T: FromStr>(text: &str) -> Option<T> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    digits.then(|| text.parse().ok()).flatten()
}

/// `GET /`: the page.
async fn page(State(shared): State<Arc<Shared>>) -> Response {
    let html = shared.game.page.clone();
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// `GET /v1/stats`: `stats --json` of the game, without the times.
async fn stats(State(shared): State<Arc<Shared>>) -> Response {
    json(StatusCode::OK, shared.game.stats.clone())
}

/// `GET /v1/position/{case}/{node}`: a position, its value, outcome and moves.
async fn position(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let game = &shared.game;
    let (case, node) = match path {
        Ok(Path(ids)) => ids,
        Err(rejection) => {
            // A path that is not UTF-8 once decoded: 400.
            let message = format!("{}: {}", uri.path(), rejection.body_text());
            return error(rejection.status(), &message);
        }
    };
    let Some(number) = plain_number::<u64>(&case) else {
        return error(StatusCode::BAD_REQUEST, &format!("case `{case}` is not a number"));
    };
    let Some(node) = plain_number::<u32>(&node) else {
        return error(StatusCode::BAD_REQUEST, &format!("node `{node}` is not a node number"));
    };
    let cases = game.cases.len() as u64;
    let Some(indexed) = number.checked_sub(1).and_then(|i| game.cases.get(i as usize)) else {
        let message = format!("no case {number}: {} holds cases 1 to {cases}", game.name);
        return error(StatusCode::NOT_FOUND, &message);
    };
    match position::position(indexed, game.loopy, node) {
        // Serializing plain numbers, strings and vectors cannot fail.
        Some(p) => json(StatusCode::OK, serde_json::to_string(&p).expect("JSON of plain data")),
        None => {
            let last = indexed.graph.node_count() as i64 - 1;
            let message = format!("case {number} has no node {node}: its nodes are 0 to {last}");
            error(StatusCode::NOT_FOUND, &message)
        }
    }
}
