//! Interruptions: SIGINT, SIGTERM or SIGHUP during a run remove the temporary output files,
//! so an interrupted run leaves no partial file, then exit with 128 + the signal number
//! (130 for Ctrl-C).
//!
//! Temporary files register here while they exist. The handler runs on a thread of its own
//! (signal-hook), where taking a lock and removing files is allowed.

use std::path::PathBuf;
use std::sync::{Mutex, Once};

static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Starts the handler thread (once); without it the default actions apply.
pub fn install() {
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        // Failing to install leaves the default behaviour: the run still stops, the target
        // file is still untouched; only the temporary file may remain.
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                remove_all();
                std::process::exit(128 + signal);
            }
        });
    });
}

/// Records a temporary file to remove on interruption.
pub fn register(path: PathBuf) {
    lock().push(path);
}

/// Forgets a temporary file (renamed into place, or already removed).
pub fn unregister(path: &std::path::Path) {
    lock().retain(|p| p != path);
}

/// Removes every registered temporary file (an interrupted or lost run).
pub fn remove_all() {
    for path in lock().drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

fn lock() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // A panic while holding the lock cannot leave the list inconsistent: use it anyway.
    TEMPORARIES.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
