//! The connections the accept loop holds, as it sees them: since when each has waited for a
//! request's head (since it opened, or since its last answer ended), or the deadline of the
//! request it is answering.
//!
//! Two rules follow from it. A request's deadline holds for the whole exchange: the
//! connection's task drops the connection [`GRACE`] after it (a 503 or a cut answer has gone
//! out at the deadline itself, when the client reads), which frees the slot whether or not
//! the client reads. And when every slot is taken, the connection that has waited longest for
//! a head, for [`EVICT_AFTER`] at least, is closed to make room for the new one: a flood of
//! slow heads (slowloris) then costs each of its connections its slot within about a second,
//! instead of keeping every request out until the head deadline. nginx does the like for its
//! idle keep-alive connections when it runs out (`ngx_drain_connections`); a connection
//! answering a request is never closed for another, so a full server of busy ones makes new
//! ones wait in the kernel's queue, each for at most one request's deadline.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// How long after its request's deadline a connection is dropped: the time to write a 503
/// (or a cut answer's last chunk) to a client that reads. One that does not read is then
/// dropped all the same.
pub const GRACE: Duration = Duration::from_millis(500);

/// How long a connection must have waited for a head before it may be closed for a new one:
/// long enough for a head to cross a slow network, short enough that a flood of slow heads
/// keeps a new request waiting no more than about this long.
pub const EVICT_AFTER: Duration = Duration::from_millis(500);

/// Where a connection is, as its task and the accept loop see it.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    /// Since when it has waited for a request's head; `None` while it answers one.
    pub waiting_since: Option<Instant>,
    /// The deadline of its last request (`None` before its first).
    pub deadline: Option<Instant>,
    /// Closed to make room for another: its task drops it.
    pub closed: bool,
}

/// Every connection held, by number.
#[derive(Default)]
pub struct Conns {
    all: Mutex<HashMap<u64, Arc<watch::Sender<Phase>>>>,
    next: AtomicU64,
}

/// What [`Conns::evict`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum Eviction {
    /// It closed one: its slot comes back when its task has dropped it.
    Closed,
    /// None has waited long enough; the first will have at this instant.
    Later(Instant),
    /// Every connection is answering a request.
    None,
}

impl Conns {
    /// A connection opened now, waiting for its first head.
    pub fn open(self: &Arc<Conns>) -> Conn {
        let phase = Phase { waiting_since: Some(Instant::now()), deadline: None, closed: false };
        let phase = Arc::new(watch::Sender::new(phase));
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(id, phase.clone());
        Conn { id, phase, conns: self.clone() }
    }

    /// Closes the connection that has waited longest for a head, if it has waited
    /// [`EVICT_AFTER`] by `now`.
    pub fn evict(&self, now: Instant) -> Eviction {
        let all = self.lock();
        let oldest = all
            .values()
            .filter_map(|p| {
                let phase = *p.borrow();
                Some((phase.waiting_since.filter(|_| !phase.closed)?, p))
            })
            .min_by_key(|(since, _)| *since);
        match oldest {
            Some((since, phase)) if now >= since + EVICT_AFTER => {
                phase.send_modify(|p| p.closed = true);
                Eviction::Closed
            }
            Some((since, _)) => Eviction::Later(since + EVICT_AFTER),
            None => Eviction::None,
        }
    }

    /// How many connections are held.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<watch::Sender<Phase>>>> {
        // The map is consistent between any two statements: a panic elsewhere leaves it whole.
        self.all.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One connection's entry: told when a request begins and when its answer ends; forgotten
/// when dropped.
pub struct Conn {
    id: u64,
    phase: Arc<watch::Sender<Phase>>,
    conns: Arc<Conns>,
}

impl Conn {
    /// A request's head has arrived: its deadline, `timeout` from now.
    pub fn begin(&self, timeout: Duration) -> Instant {
        let deadline = Instant::now() + timeout;
        self.phase.send_modify(|p| {
            p.waiting_since = None;
            p.deadline = Some(deadline);
        });
        deadline
    }

    /// The answer's body has ended (or was given up): the connection waits for its next head.
    /// Its request's deadline still holds, for the answer's last bytes still in its buffers.
    pub fn end(&self) {
        self.phase.send_modify(|p| p.waiting_since = Some(Instant::now()));
    }

    /// The connection's phase, told of every change.
    pub fn watch(&self) -> watch::Receiver<Phase> {
        self.phase.subscribe()
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.conns.lock().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Time passes by the instants given to `evict`, not by sleeping.
    #[test]
    fn the_longest_waiting_for_a_head_is_closed_and_never_a_busy_one() {
        let conns = Arc::new(Conns::default());
        let first = conns.open();
        let second = conns.open();
        let busy = conns.open();
        busy.begin(Duration::from_secs(60));
        let since = first.watch().borrow().waiting_since.expect("waiting");
        // Nobody has waited long enough yet: the first will have at `since + EVICT_AFTER`.
        assert_eq!(conns.evict(since), Eviction::Later(since + EVICT_AFTER));
        let later = Instant::now() + EVICT_AFTER;
        assert_eq!(conns.evict(later), Eviction::Closed);
        assert!(first.watch().borrow().closed && !second.watch().borrow().closed);
        assert_eq!(conns.evict(later), Eviction::Closed);
        assert!(second.watch().borrow().closed && !busy.watch().borrow().closed);
        assert_eq!(conns.evict(later), Eviction::None);
        // Its answer ended: it waits for a head again, from now on.
        busy.end();
        let ended = busy.watch().borrow().waiting_since.expect("waiting");
        assert_eq!(conns.evict(ended), Eviction::Later(ended + EVICT_AFTER));
        assert_eq!(conns.evict(ended + EVICT_AFTER), Eviction::Closed);
        assert_eq!(conns.len(), 3);
        drop((first, second, busy));
        assert_eq!(conns.len(), 0);
    }
}
