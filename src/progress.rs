//! Progress on stderr for long runs: the terminal face of [`Meter`].
//!
//! Drawn only when stderr is a terminal and `--quiet` is not given, and only once a run has
//! lasted half a second (a timer thread shows it then, whether or not the engine has reported
//! since), so short runs and pipelines never see it. Each stage moves the bar: bytes while a
//! file is read or its queries answered, nodes while a case is ordered and evaluated, rows
//! while a CSV is written. Counts and rates are in human units (`4.5 M/10.0 M nodes, 37.1 M/s`)
//! and the line fits 80 columns. Output to stdout on the same terminal goes through
//! [`Progress::suspend`], so the bar never overwrites answers.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::meter::{Meter, Stage, Unit};

/// Runs shorter than this draw nothing.
const SHOW_AFTER: Duration = Duration::from_millis(500);
/// The message (counts, rate) is rebuilt at most this often.
const MESSAGE_EVERY: Duration = Duration::from_millis(100);
/// The whole line: spinner, elapsed time, bar, message.
const LINE_WIDTH: usize = 80;
/// Columns before the message: spinner (1), space, elapsed (`00:01:02`, 8), space, bar (20),
/// space.
const PREFIX_WIDTH: usize = 32;

/// A progress bar on stderr, fed through [`Meter`].
pub struct Progress {
    bar: ProgressBar,
    state: Arc<Mutex<State>>,
    /// False when nothing will ever be drawn: reports return at once.
    enabled: bool,
}

struct State {
    stage: Stage,
    stage_start: Instant,
    last_message: Option<Instant>,
    /// Set when the run is over: the timer must not show the bar any more.
    finished: bool,
}

impl Progress {
    /// A bar drawn only if `wanted`, stderr is a terminal, and the run lasts long enough.
    pub fn new(wanted: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {bar:20} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        bar.set_style(style);
        let stage = Stage { case: 0, name: "starting", unit: Unit::Bytes, total: 0 };
        let state =
            State { stage, stage_start: Instant::now(), last_message: None, finished: false };
        let enabled = wanted && std::io::stderr().is_terminal();
        let progress = Progress { bar, state: Arc::new(Mutex::new(state)), enabled };
        if enabled {
            progress.show_later();
        }
        progress
    }

    /// Runs `f` with the bar cleared from the terminal, then draws it again: for writes to a
    /// stdout that is the same terminal.
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        self.bar.suspend(f)
    }

    /// A handle that suspends this bar, for a writer that outlives the borrow; `None` when
    /// the bar is never drawn.
    pub fn handle(&self) -> Option<ProgressBar> {
        self.enabled.then(|| self.bar.clone())
    }

    /// Removes the bar; it is not shown again.
    pub fn finish(&self) {
        let mut state = lock(&self.state);
        state.finished = true;
        self.bar.finish_and_clear();
    }

    /// Starts the timer that shows the bar after [`SHOW_AFTER`], unless the run is over.
    fn show_later(&self) {
        let (bar, state) = (self.bar.clone(), Arc::clone(&self.state));
        let spawned = std::thread::Builder::new().name("progress".into()).spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            // Under the lock, so `finish` cannot slip between the check and the showing.
            let state = lock(&state);
            if !state.finished {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(Duration::from_millis(120));
            }
        });
        // No thread, no bar: the run itself is unaffected.
        drop(spawned);
    }

    /// Rebuilds the message from the current stage and `done`.
    fn message(&self, state: &mut State, done: u64) {
        let now = Instant::now();
        if state.last_message.is_some_and(|t| now - t < MESSAGE_EVERY) {
            return;
        }
        state.last_message = Some(now);
        let elapsed = (now - state.stage_start).as_secs_f64();
        let text = stage_message(&state.stage, done, elapsed);
        self.bar.set_message(text);
    }
}

impl Meter for Progress {
    fn start(&self, stage: Stage) {
        if !self.enabled {
            return;
        }
        let mut state = lock(&self.state);
        state.stage = stage;
        state.stage_start = Instant::now();
        self.bar.set_length(stage.total.max(1));
        self.bar.set_position(0);
        self.message(&mut state, 0);
    }

    fn set(&self, done: u64) {
        if !self.enabled {
            return;
        }
        let mut state = lock(&self.state);
        self.bar.set_position(done);
        self.message(&mut state, done);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while drawing leaves nothing inconsistent worth refusing to draw for.
    state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The bar's message for `stage` with `done` units done after `seconds`, cut to fit the line:
/// `case 3: evaluating 4.5 M/10.0 M nodes, 37.1 M/s`.
pub fn stage_message(stage: &Stage, done: u64, seconds: f64) -> String {
    let mut text = String::new();
    if stage.case > 0 {
        text.push_str(&format!("case {}: ", stage.case));
    }
    text.push_str(stage.name);
    let bytes = stage.unit == Unit::Bytes;
    let count = |x: u64| if bytes { human_bytes(x as f64) } else { human(x as f64) };
    if stage.total > 0 || done > 0 {
        text.push(' ');
        text.push_str(&count(done));
        if stage.total > 0 {
            text.push('/');
            text.push_str(&count(stage.total));
        }
        if !bytes {
            text.push(' ');
            text.push_str(stage.unit.name());
        }
        if seconds > 0.05 && done > 0 {
            let rate = done as f64 / seconds;
            let rate = if bytes { human_bytes(rate) } else { human(rate) };
            text.push_str(&format!(", {rate}/s"));
        }
    }
    let room = LINE_WIDTH - PREFIX_WIDTH;
    if text.chars().count() > room {
        text = text.chars().take(room - 3).collect::<String>() + "...";
    }
    text
}

/// `x` with three significant digits and an SI prefix: `512`, `37.1 k`, `4.5 M`, `1.2 G`.
pub fn human(x: f64) -> String {
    const PREFIXES: [&str; 5] = ["", " k", " M", " G", " T"];
    let mut x = x.max(0.0);
    let mut i = 0;
    while x >= 999.95 && i + 1 < PREFIXES.len() {
        x /= 1000.0;
        i += 1;
    }
    match i {
        0 => format!("{x:.0}"),
        _ if x >= 99.95 => format!("{x:.0}{}", PREFIXES[i]),
        _ => format!("{x:.1}{}", PREFIXES[i]),
    }
}

/// A byte count in decimal units: `870 B`, `12.3 MB`, `5.1 GB`.
pub fn human_bytes(x: f64) -> String {
    let text = human(x);
    if text.ends_with(|c: char| c.is_ascii_digit()) {
        text + " B"
    } else {
        text + "B"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_rates_are_in_human_units() {
        assert_eq!(human(0.0), "0");
        assert_eq!(human(512.0), "512");
        assert_eq!(human(37_109_928.0), "37.1 M");
        assert_eq!(human(999_999.0), "1.0 M");
        assert_eq!(human(123_456.0), "123 k");
        assert_eq!(human_bytes(870.0), "870 B");
        assert_eq!(human_bytes(12_345_678.0), "12.3 MB");
    }

    #[test]
    fn messages_fit_the_line() {
        let stage = Stage { case: 3, name: "evaluating", unit: Unit::Nodes, total: 10_000_000 };
        let text = stage_message(&stage, 4_500_000, 0.121);
        assert_eq!(text, "case 3: evaluating 4.5 M/10.0 M nodes, 37.2 M/s");
        let bytes = Stage { case: 0, name: "reading", unit: Unit::Bytes, total: 860_000_000 };
        assert_eq!(stage_message(&bytes, 0, 0.0), "reading 0 B/860 MB");
        // The largest numbers and a long case number still fit.
        let huge =
            Stage { case: u64::MAX, name: "answering", unit: Unit::Queries, total: u64::MAX };
        let text = stage_message(&huge, u64::MAX / 3, 1.0);
        assert!(text.chars().count() <= LINE_WIDTH - PREFIX_WIDTH, "{text}");
    }
}
