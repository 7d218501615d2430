//! Running the engine so that Ctrl-C reaches the caller: the work goes to a thread of its
//! own while the interpreter's thread waits for it without the GIL, waking every [`POLL`] to
//! let Python's signal handlers run. On a `KeyboardInterrupt` the caller gets the exception at
//! once, and the work stops at its next progress report (the engine reports at every stage
//! and every 65,536 nodes), so an interrupted run does not hold the cores for long.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use grundy::exec::Exec;
use grundy::meter::{Meter, Stage};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// How long the interpreter's thread sleeps between two looks for a signal.
const POLL: Duration = Duration::from_millis(20);

/// The meter of an interruptible run: silent, and where the run stops once asked to.
pub struct Watch {
    stop: Arc<AtomicBool>,
}

/// What a stopped run unwinds with: caught by [`run`], never shown.
struct Stopped;

impl Watch {
    /// Unwinds out of the engine when the caller has given up on the run. Unwinding is what
    /// any panic in the engine's threads does (rayon carries it to the caller of the parallel
    /// loop), so every stage already leaves its memory sound when it happens.
    fn check(&self) {
        if self.stop.load(Ordering::Relaxed) {
            panic::resume_unwind(Box::new(Stopped));
        }
    }
}

impl Meter for Watch {
    fn start(&self, _: Stage) {
        self.check();
    }

    fn set(&self, _: u64) {
        self.check();
    }

    fn phase(&self, _: &'static str, _: u64) {
        self.check();
    }
}

/// `work` on `threads` threads (all cores when `None`), interruptible by Ctrl-C: its result,
/// or the `KeyboardInterrupt` (or other exception) a signal handler raised meanwhile.
pub fn run<T, F>(py: Python<'_>, threads: Option<usize>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(Exec, &Watch) -> T + Send + 'static,
{
    let pool = Pool::new(threads)?;
    let stop = Arc::new(AtomicBool::new(false));
    let watch = Watch { stop: Arc::clone(&stop) };
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("grundy".into())
        .spawn(move || {
            let done = panic::catch_unwind(AssertUnwindSafe(|| pool.run(|e| work(e, &watch))));
            // The caller may have gone (interrupted): then nobody wants the result.
            let _ = sender.send(done);
        })
        .map_err(|e| PyOSError::new_err(format!("cannot start the engine's thread: {e}")))?;
    let mut receiver = receiver;
    loop {
        // The receiver goes into the wait and comes back (it may be sent, not shared).
        let waited;
        (waited, receiver) = py.detach(move || (receiver.recv_timeout(POLL), receiver));
        match waited {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(payload)) => return Err(failure(&*payload)),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(raised) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    return Err(raised);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("grundy's engine ended without an answer"))
            }
        }
    }
}

/// The exception for a panic in the engine (a bug: say what it said).
fn failure(payload: &(dyn std::any::Any + Send)) -> PyErr {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    PyRuntimeError::new_err(format!("grundy's engine failed (a bug; please report it): {text}"))
}

/// Where the engine runs: rayon's global pool (a thread per core), or one of `threads`.
struct Pool(Option<rayon::ThreadPool>);

impl Pool {
    fn new(threads: Option<usize>) -> PyResult<Pool> {
        match threads {
            None => Ok(Pool(None)),
            Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
            Some(t) => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map(|p| Pool(Some(p)))
                .map_err(|e| PyOSError::new_err(format!("cannot start {t} threads: {e}"))),
        }
    }

    /// `f` in the pool, on the parallel stages (a pool of one thread too: they beat the
    /// sequential twins there as well, as the command line's `-j 1` does).
    fn run<T: Send>(&self, f: impl FnOnce(Exec) -> T + Send) -> T {
        let parallel = Exec::Rayon { chunk_bytes: grundy::exec::DEFAULT_CHUNK_BYTES };
        match &self.0 {
            None => f(parallel),
            Some(pool) => pool.install(|| f(parallel)),
        }
    }
}
