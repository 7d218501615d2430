//! The accept loop: at most `connections` held at once, the one that has waited longest for a
//! head closed to make room for a new one when all are taken (`conns.rs`); a deadline for each
//! request's head (hyper's, from the connection's opening or its last answer's end); a
//! deadline for each request's whole exchange, after which its connection is reset whether
//! or not the client reads; and on SIGINT or SIGTERM no new connection while those in flight
//! finish their requests.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::conns::{Conn, Conns, Eviction, GRACE};
use super::{Deadline, Options};
use crate::error::Error;

/// The most a connection buffers each way, its request's head included (hyper's default is
/// 400 KiB): what a held connection may cost is this twice, whatever its client sends.
const BUFFER: usize = 64 << 10;

/// Connections the kernel queues before they are accepted (it caps this at
/// `net.core.somaxconn`, 4096 by default since Linux 5.4). Past it, a new connection's SYN is
/// dropped and its client tries again a second later or more: a flood must not fill it
/// before the loop has made room (tokio's `bind` asks for 1024).
const BACKLOG: u32 = 4096;

/// How long the loop pauses after a failed accept that is not one connection's fault (no
/// descriptors left): trying again at once would spin.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves `app` on `options.listen` until a stop signal, then waits for the connections in
/// flight (at most one request timeout).
pub async fn run(
    app: axum::Router,
    options: &Options,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let address = options.listen.to_string();
    let listener = bind(options.listen).map_err(|e| Error::io(&address, "cannot listen", e))?;
    let bound = listener.local_addr().map_err(|e| Error::io(&address, "cannot listen", e))?;
    let stop = stop_signal().map_err(|e| Error::io(&address, "cannot watch for signals", e))?;
    ready(bound);
    let slots = Arc::new(Semaphore::new(options.connections.max(1)));
    let conns = Arc::new(Conns::default());
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(options.head_timeout)
        .half_close(true)
        .max_buf_size(BUFFER);
    let app = TowerToHyperService::new(app);
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // A failed accept that is the peer's (gone already) loses that connection only.
                if !matches!(
                    e.kind(),
                    std::io::ErrorKind::ConnectionAborted | std::io::ErrorKind::ConnectionReset
                ) {
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
                continue;
            }
        };
        let slot = tokio::select! {
            slot = slot(&slots, &conns) => slot,
            () = &mut stop => break,
        };
        let Some(slot) = slot else { break };
        let conn = Arc::new(conns.open());
        let service = Tracked { app: app.clone(), conn: conn.clone(), timeout: options.timeout };
        let socket = stream.as_raw_fd();
        let watched = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(drive(watched, socket, conn, slot));
    }
    drop(listener);
    // Connections finish their request in flight and close; every one is dropped at its
    // request's deadline anyway.
    let _ = tokio::time::timeout(options.timeout + GRACE, graceful.shutdown()).await;
    Ok(())
}

/// A listener on `address`, with a queue of [`BACKLOG`] connections.
fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    // As `TcpListener::bind` does: a restarted server binds at once, past the old one's
    // connections in TIME_WAIT.
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(BACKLOG)
}

/// A slot for a new connection: a free one, else one made by closing the connection that has
/// waited longest for a head, else the first to free. `None` if the slots were closed (never).
async fn slot(slots: &Arc<Semaphore>, conns: &Conns) -> Option<OwnedSemaphorePermit> {
    loop {
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            return Some(slot);
        }
        let retry = match conns.evict(Instant::now()) {
            Eviction::Later(at) => Some(at),
            // A closed connection's slot comes back when its task has dropped it.
            Eviction::Closed | Eviction::None => None,
        };
        tokio::select! {
            slot = slots.clone().acquire_owned() => return slot.ok(),
            () = until(retry) => {}
        }
    }
}

/// Drives `connection` (hyper's over `socket`, watched for the graceful stop) until it ends,
/// it is closed to make room for another, or [`GRACE`] past its request's deadline; then
/// frees its slot. A connection given up on is reset rather than closed.
async fn drive(
    connection: impl Future,
    socket: RawFd,
    conn: Arc<Conn>,
    slot: OwnedSemaphorePermit,
) {
    let mut phase = conn.watch();
    // Boxed, so that it can be dropped (the socket closed or reset) before the slot is freed.
    let mut connection = Box::pin(connection);
    loop {
        let now = *phase.borrow_and_update();
        if now.closed {
            reset_on_close(socket);
            break;
        }
        tokio::select! {
            // A connection that fails (reset, a malformed head, its head too slow) concerns
            // its client only.
            _ = connection.as_mut() => break,
            changed = phase.changed() => if changed.is_err() { break },
            () = until(now.deadline.map(|d| d + GRACE)) => {
                reset_on_close(socket);
                break;
            }
        }
    }
    drop(connection);
    drop(slot);
}

/// Makes the close of `socket` a reset, as nginx's `reset_timedout_connection` does: the
/// answer's bytes still in the kernel's buffers are dropped with it (megabytes, for a client
/// that does not read) instead of trickling out past the deadline, and the client is told
/// plainly that the answer was cut.
fn reset_on_close(socket: RawFd) {
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: `socket` is the descriptor of a connection that the caller still owns (not yet
    // dropped, so open); the option's value lives across the call, and its size is given. A
    // failure leaves an ordinary close, which is harmless.
    unsafe {
        libc::setsockopt(
            socket,
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}

/// Sleeps until `at`, or forever.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The app as one connection's service: each request is given its deadline and told to the
/// connection's entry, as is the end of its answer.
#[derive(Clone)]
struct Tracked {
    app: TowerToHyperService<axum::Router>,
    conn: Arc<Conn>,
    timeout: Duration,
}

impl Service<hyper::Request<Incoming>> for Tracked {
    type Response = hyper::Response<Watched>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, mut request: hyper::Request<Incoming>) -> Self::Future {
        let deadline = self.conn.begin(self.timeout);
        request.extensions_mut().insert(Deadline(deadline));
        let answer = self.app.call(request);
        let conn = self.conn.clone();
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| Watched { body, conn }))
        })
    }
}

/// An answer's body that tells its connection's entry when it is done with (ended, or given
/// up: hyper drops it then).
struct Watched {
    body: Body,
    conn: Arc<Conn>,
}

impl HttpBody for Watched {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.conn.end();
    }
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
