//! How far a run has got: the small trait through which the engine reports progress.
//!
//! The engine (readers, ordering, evaluation, writers) knows how much work a stage holds and
//! how much is done; it does not know whether anyone is watching. It reports through a
//! [`Meter`]; the terminal bar (`io::progress::Progress`) is one implementation, `()` the
//! silent one that tests, benches and the fuzz target pass.
//!
//! Reports are cheap but not free (a virtual call, a lock in the bar), so hot loops report
//! through a [`Ticker`], which calls the meter once per [`TICK`] units of work at most.

/// What a stage counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Bytes of an input (a position in the file).
    Bytes,
    /// Nodes (positions) of a game.
    Nodes,
    /// Queries.
    Queries,
    /// Rows of a CSV output.
    Rows,
}

impl Unit {
    /// The unit's name as shown after a count (`nodes`), empty for bytes (shown as `MB`).
    pub fn name(self) -> &'static str {
        match self {
            Unit::Bytes => "",
            Unit::Nodes => "nodes",
            Unit::Queries => "queries",
            Unit::Rows => "rows",
        }
    }
}

/// A stage of work: what is being done, to which case, and how many units it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    /// 1-based case (or record) the stage works on; 0 when there is none.
    pub case: u64,
    /// What is being done, e.g. `evaluating`.
    pub name: &'static str,
    /// What `total` and the updates count.
    pub unit: Unit,
    /// Units in the stage; 0 when unknown.
    pub total: u64,
}

/// Receives progress reports. Implementations must be cheap when nobody watches.
pub trait Meter: Sync {
    /// A stage starts; its count of done units is 0.
    fn start(&self, stage: Stage);
    /// `done` units of the current stage are done (a count, not an increment).
    fn set(&self, done: u64);

    /// The current stage goes on as a named phase of `total` units of the same kind, counted
    /// from 0 (Kahn's ordering: `indexing` its predecessors, then `peeling`).
    fn phase(&self, name: &'static str, total: u64);
}

impl std::fmt::Debug for dyn Meter + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Meter")
    }
}

/// The silent meter.
impl Meter for () {
    fn start(&self, _: Stage) {}
    fn set(&self, _: u64) {}
    fn phase(&self, _: &'static str, _: u64) {}
}

/// Units of work between two reports of a [`Ticker`]: at 30 M nodes/s, 450 reports a second.
pub const TICK: u64 = 1 << 16;

/// Reports a stage's progress from a hot loop, at most once per [`TICK`] units. The stage
/// itself is started by the caller, who knows what it is (the case, the name); the engine
/// only counts.
pub struct Ticker<'m> {
    meter: &'m dyn Meter,
    next: u64,
}

impl<'m> Ticker<'m> {
    /// A ticker reporting to `meter`.
    pub fn new(meter: &'m dyn Meter) -> Ticker<'m> {
        Ticker { meter, next: TICK }
    }

    /// `done` units are done; reports when a tick's worth has passed since the last report.
    #[inline]
    pub fn at(&mut self, done: u64) {
        if done >= self.next {
            self.meter.set(done);
            self.next = done + TICK;
        }
    }
}

/// A meter that records what it is told, for tests: `u64::MAX` for a stage's start, else
/// the count set.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Log(pub(crate) std::sync::Mutex<Vec<u64>>);

#[cfg(test)]
impl Meter for Log {
    fn start(&self, _: Stage) {
        self.0.lock().unwrap().push(u64::MAX);
    }
    fn set(&self, done: u64) {
        self.0.lock().unwrap().push(done);
    }
    fn phase(&self, _: &'static str, _: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticker_reports_once_per_tick() {
        let log = Log::default();
        let stage = Stage { case: 1, name: "x", unit: Unit::Nodes, total: 10 * TICK };
        log.start(stage);
        let mut ticker = Ticker::new(&log);
        for done in 0..=3 * TICK + 5 {
            ticker.at(done);
        }
        assert_eq!(*log.0.lock().unwrap(), vec![u64::MAX, TICK, 2 * TICK, 3 * TICK]);
    }
}
