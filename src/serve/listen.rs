//! The accept loop: at most `connections` served at once (the rest wait in the kernel's
//! queue, which is where a flood belongs), a deadline for each request's head (a client that
//! opens a connection and sends nothing holds it no longer), and on SIGINT or SIGTERM no new
//! connection while those in flight finish their requests.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::Options;
use crate::error::Error;

/// Serves `app` on `options.listen` until a stop signal, then waits for the connections in
/// flight (at most one request timeout).
pub async fn run(
    app: axum::Router,
    options: &Options,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let address = options.listen.to_string();
    let listener = TcpListener::bind(options.listen)
        .await
        .map_err(|e| Error::io(&address, "cannot listen", e))?;
    let bound = listener.local_addr().map_err(|e| Error::io(&address, "cannot listen", e))?;
    let stop = stop_signal().map_err(|e| Error::io(&address, "cannot watch for signals", e))?;
    ready(bound);
    let slots = Arc::new(Semaphore::new(options.connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(options.timeout);
    tokio::pin!(stop);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot,
            () = &mut stop => break,
        };
        // The semaphore is never closed, so a slot always comes.
        let Ok(slot) = slot else { break };
        let stream = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        // A failed accept (the peer gone, no descriptors left) loses that connection only.
        let Ok((stream, _)) = stream else { continue };
        let service = TowerToHyperService::new(app.clone());
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            // A connection that fails (reset, a malformed head) concerns its client only.
            let _ = watched.await;
            drop(slot);
        });
    }
    drop(listener);
    // Connections finish their request in flight and close; a stuck one is given up on.
    let _ = tokio::time::timeout(options.timeout, graceful.shutdown()).await;
    Ok(())
}

/// A future that completes on SIGINT or SIGTERM.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}
