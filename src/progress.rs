//! Progress on stderr for long runs: bytes read (with bytes per second) and what is being done.
//!
//! Drawn only when stderr is a terminal and `--quiet` is not given, and only once a run has
//! lasted half a second, so short runs and pipelines never see it. Updates come once per case
//! or per batch of queries, never per item, so the bar costs nothing measurable.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Runs shorter than this draw nothing.
const SHOW_AFTER: Duration = Duration::from_millis(500);

/// A progress bar over the bytes of one input.
pub struct Progress {
    bar: ProgressBar,
    enabled: bool,
    shown: bool,
    start: Instant,
    stage_start: Instant,
}

impl Progress {
    /// A bar over `total` bytes; drawn only if `wanted` and stderr is a terminal.
    pub fn new(wanted: bool, total: u64) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {bytes}/{total_bytes} ({bytes_per_sec}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        Progress {
            bar,
            enabled: wanted && std::io::stderr().is_terminal(),
            shown: false,
            start: Instant::now(),
            stage_start: Instant::now(),
        }
    }

    /// Says what is being done (e.g. `case 3: evaluating 1000000 nodes`).
    pub fn stage(&mut self, message: impl Into<std::borrow::Cow<'static, str>>) {
        self.stage_start = Instant::now();
        self.show_if_due();
        self.bar.set_message(message);
    }

    /// Bytes of the input read so far.
    pub fn bytes(&mut self, position: usize) {
        self.show_if_due();
        self.bar.set_position(position as u64);
    }

    /// `done` items (queries, rows) of the current stage `what` are done; shows the count and
    /// the rate since the stage started.
    pub fn items(&mut self, done: u64, what: &str) {
        self.show_if_due();
        if self.shown {
            let rate = done as f64 / self.stage_start.elapsed().as_secs_f64().max(1e-9);
            self.bar.set_message(format!("{what}: {done} ({rate:.0}/s)"));
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn show_if_due(&mut self) {
        if self.enabled && !self.shown && self.start.elapsed() >= SHOW_AFTER {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
            self.shown = true;
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
