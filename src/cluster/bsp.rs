//! Bulk-synchronous rounds over timely: every worker sends messages addressed to workers, and
//! a round ends when every message of every worker has arrived.
//!
//! The whole distributed computation is written as such rounds (ordinary Rust between them),
//! with timely carrying the messages (its exchange channel, serialized between processes) and
//! telling when a round is complete (its progress tracking, through a probe). A round is a
//! timestamp: a faster worker's messages of the next round may arrive before this worker's
//! round is complete, so messages are kept by the round they were sent in. Within a round,
//! messages arrive in no particular order; callers that need one sort by a key they send.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{de::DeserializeOwned, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;

/// What messages must be: cloneable, sendable, serializable.
pub trait Message: Clone + Send + Serialize + DeserializeOwned + 'static {}
impl<M: Clone + Send + Serialize + DeserializeOwned + 'static> Message for M {}

/// One worker's end of the rounds.
pub struct Bsp<'w, M: Message> {
    worker: &'w mut Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<(u32, M)>>>,
    probe: ProbeHandle<u64>,
    /// Messages received, by the round they were sent in.
    received: Rc<RefCell<BTreeMap<u64, Vec<M>>>>,
    round: u64,
}

impl<'w, M: Message> Bsp<'w, M> {
    /// Builds the exchange on `worker` (every worker must, in the same order).
    pub fn new(worker: &'w mut Worker) -> Bsp<'w, M> {
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let received = Rc::new(RefCell::new(BTreeMap::new()));
        let sink = Rc::clone(&received);
        worker.dataflow::<u64, _, _>(|scope| {
            // The probe watches the output of the operator that keeps the messages, not the
            // input: its frontier passes a round only once this worker has taken every
            // message of the round (on the input, only once every worker has sent them).
            scope
                .input_from(&mut input)
                .container::<Vec<_>>()
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Exchange::new(|m: &(u32, M)| u64::from(m.0)),
                    "Deliver",
                    move |_, _| {
                        move |input, _| {
                            input.for_each(|time, data| {
                                let mut sink = sink.borrow_mut();
                                let round: &mut Vec<M> =
                                    sink.entry(time.least().copied().unwrap_or(0)).or_default();
                                round.extend(data.drain(..).map(|(_, m)| m));
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        Bsp { worker, input, probe, received, round: 0 }
    }

    /// This worker's index among all workers of all processes.
    pub fn index(&self) -> usize {
        self.worker.index()
    }

    /// Number of workers of all processes.
    pub fn peers(&self) -> usize {
        self.worker.peers()
    }

    /// One round: sends every `(worker, message)` of `out`, then waits for every worker's round
    /// and returns the messages addressed to this worker.
    pub fn exchange(&mut self, out: impl IntoIterator<Item = (usize, M)>) -> Vec<M> {
        for (to, message) in out {
            self.input.send((to as u32, message));
        }
        let round = self.round;
        self.round += 1;
        self.input.advance_to(self.round);
        // Parked while waiting (timely wakes the worker when messages arrive): spinning
        // workers of several processes on few cores would starve each other.
        while self.probe.less_than(self.input.time()) {
            self.worker.step_or_park(None);
        }
        self.received.borrow_mut().remove(&round).unwrap_or_default()
    }

    /// Rounds taken so far.
    pub fn rounds(&self) -> u64 {
        self.round
    }

    /// One round in which every worker sends `message` to every worker (itself included).
    pub fn all_gather(&mut self, message: M) -> Vec<M> {
        let peers = self.peers();
        self.exchange((0..peers).map(|to| (to, message.clone())))
    }
}

/// Runs `f` on `n` workers of this process, each with its own end of the rounds; their
/// results in worker order.
#[cfg(test)]
pub fn on_workers<M: Message, T: Send + 'static>(
    n: usize,
    f: impl Fn(&mut Bsp<M>) -> T + Send + Sync + 'static,
) -> Vec<T> {
    let guards =
        timely::execute(timely::Config::process(n), move |worker| f(&mut Bsp::new(worker)))
            .expect("timely starts");
    guards.join().into_iter().map(|r| r.expect("a worker ends")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_delivers_exactly_its_own_messages() {
        let rounds = 6u64;
        let received = on_workers(3, move |bsp: &mut Bsp<(usize, u64, u64)>| {
            let (me, peers) = (bsp.index(), bsp.peers());
            let mut seen = Vec::new();
            for round in 0..rounds {
                // A slow worker: the others' next rounds start before its round ends.
                if me == 1 && round % 2 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                let out =
                    (0..peers).flat_map(|to| (0..=to as u64).map(move |k| (to, (me, round, k))));
                let mut got = bsp.exchange(out.collect::<Vec<_>>());
                got.sort_unstable();
                seen.push(got);
            }
            let gathered = bsp.all_gather((me, rounds, 0));
            (me, seen, gathered.len(), bsp.rounds())
        });
        for (me, seen, gathered, taken) in received {
            for (round, got) in seen.into_iter().enumerate() {
                let expected: Vec<(usize, u64, u64)> = (0..3)
                    .flat_map(|from| (0..=me as u64).map(move |k| (from, round as u64, k)))
                    .collect();
                assert_eq!(got, expected, "worker {me}, round {round}");
            }
            assert_eq!((gathered, taken), (3, rounds + 1));
        }
    }
}
