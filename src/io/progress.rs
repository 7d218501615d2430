//! Progress on stderr for long runs: the terminal face of [`Meter`].
//!
//! Drawn only when stderr is a terminal and `--quiet` is not given, and only once a run has
//! lasted half a second (a display thread shows it then, whether or not the engine has
//! reported since), so short runs and pipelines never see it. Each stage moves the bar: bytes while a
//! file is read or its queries answered, nodes while a case is ordered and evaluated, rows
//! while a CSV is written. Counts and rates are in human units (`4.5 M/10.0 M nodes, 37.1 M/s`),
//! a stage whose total is known shows the time it has left at its rate so far (`0:07 left`),
//! and the line fits 80 columns. Output to stdout on the same terminal goes through
//! [`Progress::suspend`], so the bar never overwrites answers.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::meter::{Meter, Stage, Unit};

/// Runs shorter than this draw nothing.
const SHOW_AFTER: Duration = Duration::from_millis(500);
/// The bar is redrawn this often once shown.
const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// The whole line: spinner, elapsed time, bar, message.
const LINE_WIDTH: usize = 80;
/// Columns before the message: spinner (1), space, elapsed (`00:01:02`, 8), space, bar
/// ([`BAR_WIDTH`]), space.
const PREFIX_WIDTH: usize = 12 + BAR_WIDTH;

/// A progress bar on stderr, fed through [`Meter`].
///
/// Reports only store the stage and its count under a lock; a display thread of the bar's
/// own applies them to the terminal ten times a second, so the message, the bar and the
/// count always show the same moment, and a run of a million tiny cases pays a lock per
/// report, not a redraw.
pub struct Progress {
    bar: ProgressBar,
    state: Arc<Mutex<State>>,
    /// False when nothing will ever be drawn: reports return at once.
    enabled: bool,
}

struct State {
    stage: Stage,
    stage_start: Instant,
    done: u64,
    /// Set when the run is over: the display thread stops and draws nothing more.
    finished: bool,
}

impl Progress {
    /// A bar drawn only if `wanted`, stderr is a terminal, and the run lasts long enough.
    pub fn new(wanted: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        // The bar is drawn into the message, so one update shows the count, the bar and the
        // stage of the same moment.
        let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        let stage = Stage { case: 0, name: "starting", unit: Unit::Bytes, total: 0 };
        let state = State { stage, stage_start: Instant::now(), done: 0, finished: false };
        let enabled = wanted && std::io::stderr().is_terminal();
        let progress = Progress { bar, state: Arc::new(Mutex::new(state)), enabled };
        if enabled {
            progress.display();
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

    /// Starts the display thread: after [`SHOW_AFTER`], unless the run is over, it shows the
    /// bar and applies the latest report every [`REDRAW_EVERY`].
    fn display(&self) {
        let (bar, state) = (self.bar.clone(), Arc::clone(&self.state));
        let spawned = std::thread::Builder::new().name("progress".into()).spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            let mut shown = false;
            loop {
                {
                    // Under the lock, so `finish` cannot slip between the check and a draw.
                    let state = lock(&state);
                    if state.finished {
                        return;
                    }
                    let elapsed = state.stage_start.elapsed().as_secs_f64();
                    let (stage, done) = (&state.stage, state.done);
                    bar.set_message(format!(
                        "{} {}",
                        bar_text(stage, done),
                        stage_message(stage, done, elapsed)
                    ));
                    if !shown {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                        shown = true;
                    }
                    bar.tick();
                }
                std::thread::sleep(REDRAW_EVERY);
            }
        });
        // No thread, no bar: the run itself is unaffected.
        drop(spawned);
    }
}

impl Meter for Progress {
    fn start(&self, stage: Stage) {
        if self.enabled {
            let mut state = lock(&self.state);
            (state.stage, state.stage_start, state.done) = (stage, Instant::now(), 0);
        }
    }

    fn set(&self, done: u64) {
        if self.enabled {
            lock(&self.state).done = done;
        }
    }

    fn phase(&self, name: &'static str, total: u64) {
        if self.enabled {
            let mut state = lock(&self.state);
            let stage = Stage { name, total, ..state.stage };
            (state.stage, state.stage_start, state.done) = (stage, Instant::now(), 0);
        }
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

/// Width of the bar itself, in characters: ten steps of 10 %, so that the message has room
/// for the count, the rate and the time left (`case 1: evaluating 4.5 M/10.0 M nodes,
/// 37.2 M/s, 0:07 left` is 58 columns).
const BAR_WIDTH: usize = 10;
/// A stage must have run this long before its time left is shown: a rate measured over
/// less swings too much to be read.
const TIME_LEFT_AFTER: f64 = 0.5;

/// `done` of the stage's total as a bar of [`BAR_WIDTH`] characters: `=====>              `;
/// blank when the total is unknown.
fn bar_text(stage: &Stage, done: u64) -> String {
    if stage.total == 0 {
        return " ".repeat(BAR_WIDTH);
    }
    let filled = ((done.min(stage.total) as f64 / stage.total as f64) * BAR_WIDTH as f64) as usize;
    let mut text = "=".repeat(filled.min(BAR_WIDTH));
    if filled < BAR_WIDTH {
        text.push('>');
    }
    let blank = BAR_WIDTH - text.len();
    text + &" ".repeat(blank)
}

/// The bar's message for `stage` with `done` units done after `seconds`, cut to fit the line:
/// `case 3: evaluating 4.5 M/10.0 M nodes, 37.1 M/s, 0:07 left`. When the line is too short
/// for everything, the rate goes first, the time left last.
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
    }
    let rate = (seconds > 0.05 && done > 0).then(|| {
        let rate = done as f64 / seconds;
        let rate = if bytes { human_bytes(rate) } else { human(rate) };
        format!(", {rate}/s")
    });
    let left = time_left(stage, done, seconds).map(|t| format!(", {t} left"));
    let room = LINE_WIDTH - PREFIX_WIDTH;
    // Where not everything fits, the rate goes first: the time left says more.
    let left_len = left.as_ref().map_or(0, String::len);
    let rate = rate.filter(|rate| text.chars().count() + rate.len() + left_len <= room);
    text.extend(rate.into_iter().chain(left));
    if text.chars().count() > room {
        text = text.chars().take(room - 3).collect::<String>() + "...";
    }
    text
}

/// The time `stage` has left at its rate so far, `m:ss` or `h:mm:ss`, once it has run
/// [`TIME_LEFT_AFTER`] seconds; `None` when its total is unknown or it is done.
fn time_left(stage: &Stage, done: u64, seconds: f64) -> Option<String> {
    if stage.total == 0 || done == 0 || done >= stage.total || seconds < TIME_LEFT_AFTER {
        return None;
    }
    let left = ((stage.total - done) as f64 * seconds / done as f64).ceil();
    // Past 99 hours an estimate is a shrug, and its digits would not fit.
    if left >= 100.0 * 3600.0 {
        return Some("over 99 h".into());
    }
    let left = left as u64;
    let (h, m, s) = (left / 3600, left / 60 % 60, left % 60);
    Some(if h > 0 { format!("{h}:{m:02}:{s:02}") } else { format!("{m}:{s:02}") })
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
    fn bars_fill_with_the_count() {
        let stage = Stage { case: 1, name: "x", unit: Unit::Rows, total: 100 };
        assert_eq!(bar_text(&stage, 0), format!(">{}", " ".repeat(9)));
        assert_eq!(bar_text(&stage, 50), format!("{}>{}", "=".repeat(5), " ".repeat(4)));
        assert_eq!(bar_text(&stage, 100), "=".repeat(10));
        assert_eq!(bar_text(&stage, 1000), "=".repeat(10));
        assert_eq!(bar_text(&Stage { total: 0, ..stage }, 5), " ".repeat(10));
    }

    #[test]
    fn known_totals_show_the_time_left_at_the_rate_so_far() {
        let stage = Stage { case: 1, name: "evaluating", unit: Unit::Nodes, total: 10_000_000 };
        // 4.5 M in 6 s: 5.5 M more take 7.33 s, shown rounded up.
        let text = stage_message(&stage, 4_500_000, 6.0);
        assert_eq!(text, "case 1: evaluating 4.5 M/10.0 M nodes, 750 k/s, 0:08 left");
        assert_eq!(time_left(&stage, 1_000_000, 400.0).as_deref(), Some("1:00:00"));
        assert_eq!(time_left(&stage, 1, 1000.0).as_deref(), Some("over 99 h"));
        // Not before half a second of the stage, nor without a total, nor once done.
        assert_eq!(time_left(&stage, 4_500_000, 0.4), None);
        assert_eq!(time_left(&Stage { total: 0, ..stage }, 5, 9.0), None);
        assert_eq!(time_left(&stage, 10_000_000, 9.0), None);
        let unknown = Stage { case: 0, name: "reading", unit: Unit::Bytes, total: 0 };
        assert_eq!(stage_message(&unknown, 2_000_000, 2.0), "reading 2.0 MB, 1.0 MB/s");
        // A long line drops the rate before the time left.
        let long = Stage { case: 123_456, ..stage };
        let text = stage_message(&long, 4_500_000, 6.0);
        assert_eq!(text, "case 123456: evaluating 4.5 M/10.0 M nodes, 0:08 left");
    }

    #[test]
    fn messages_fit_the_line() {
        let stage = Stage { case: 3, name: "evaluating", unit: Unit::Nodes, total: 10_000_000 };
        let text = stage_message(&stage, 4_500_000, 0.121);
        assert_eq!(text, "case 3: evaluating 4.5 M/10.0 M nodes, 37.2 M/s");
        // The usual widest line, with everything, fills the room exactly.
        let big = Stage { total: 100_000_000, ..stage };
        let text = stage_message(&big, 18_600_000, 0.5);
        assert_eq!(text, "case 3: evaluating 18.6 M/100 M nodes, 37.2 M/s, 0:03 left");
        assert_eq!(text.chars().count(), LINE_WIDTH - PREFIX_WIDTH);
        let bytes = Stage { case: 0, name: "reading", unit: Unit::Bytes, total: 860_000_000 };
        assert_eq!(stage_message(&bytes, 0, 0.0), "reading 0 B/860 MB");
        // The largest numbers and a long case number still fit.
        let huge =
            Stage { case: u64::MAX, name: "answering", unit: Unit::Queries, total: u64::MAX };
        let text = stage_message(&huge, u64::MAX / 3, 1.0);
        assert!(text.chars().count() <= LINE_WIDTH - PREFIX_WIDTH, "{text}");
        let slow = Stage { case: 99_999, name: "answering", unit: Unit::Bytes, total: 1 << 40 };
        let text = stage_message(&slow, 1 << 30, 5000.0);
        assert!(text.ends_with(", 1422:13:20 left") || text.ends_with(", over 99 h left"));
        assert!(text.chars().count() <= LINE_WIDTH - PREFIX_WIDTH, "{text}");
    }
}
