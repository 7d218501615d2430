//! The routes, each a small function over the shared [`Game`]: JSON for programs, the page for
//! people, and every fault a status with a JSON `error` (never a panic, never an empty 500).

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::{error, json, position, query, Game, Options, Shared};

/// The OpenAPI description of the routes below.
const OPENAPI: &str = include_str!("openapi.json");

/// The routes over `game`, with `options`' limits.
pub fn router(game: Arc<Game>, options: &Options) -> Router {
    let shared =
        Arc::new(Shared { game, body_limit: options.body_limit, timeout: options.timeout });
    Router::new()
        .route("/", get(page))
        .route("/v1/position/{case}/{node}", get(position))
        .route("/v1/query", post(query::answer))
        .route("/v1/stats", get(stats))
        .route("/v1/openapi.json", get(|| async { json(StatusCode::OK, OPENAPI.to_string()) }))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such route: see /v1/openapi.json") })
        .layer(middleware::from_fn_with_state(shared.clone(), deadline))
        .with_state(shared)
}

/// Cuts a request that takes longer than the timeout to answer (a query's streamed rows have
/// their own deadline, [`query::answer`]).
async fn deadline(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    match tokio::time::timeout(shared.timeout, next.run(request)).await {
        Ok(response) => response,
        Err(_) => error(StatusCode::SERVICE_UNAVAILABLE, "the request took longer than --timeout"),
    }
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
    Path((case, node)): Path<(String, String)>,
) -> Response {
    let game = &shared.game;
    let Ok(number) = case.parse::<u64>() else {
        return error(StatusCode::BAD_REQUEST, &format!("case `{case}` is not a number"));
    };
    let Ok(node) = node.parse::<u32>() else {
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
