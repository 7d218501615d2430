//! `grundy octal CODE`: an octal game's Grundy sequence, its period when proved, a table and a
//! plot.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::app::cli::OctalArgs;
use crate::app::config::Config;
use grundy::error::Error;
use grundy::io::progress::{human_bytes, Progress};
use grundy::io::sink::Sink;
use grundy::octal::{self, checkpoint, Code, Keeper, Method, Place, Sequence, Values};

/// Runs `grundy octal` with the user's arguments.
pub fn run(args: &OctalArgs, config: &Config) -> Result<(), Error> {
    let code = Code::parse(&args.code, args.hex)
        .map_err(|e| Error::Code { code: args.code.clone(), message: e.to_string() })?;
    let outputs = [
        ("-o", args.output.as_deref()),
        ("--plot", args.plot.as_deref()),
        ("--histogram", args.histogram.as_deref()),
    ];
    let keep = [("--checkpoint", args.checkpoint.as_deref())];
    crate::app::cmd::refuse_clobbering(&keep, &outputs)?;
    if !(args.checkpoint_every >= 0.0 && args.checkpoint_every <= 1e9) {
        return Err(Error::Usage("--checkpoint-every: expected seconds, 0 or more".into()));
    }
    let method = if args.naive { Method::Naive } else { Method::Sparse };
    let place = match args.checkpoint.as_deref() {
        Some(path) => checkpoint::place(path),
        // A long run keeps its table in a file, resident only where the method reads it.
        None if args.n >= IN_MEMORY => Place::Temporary,
        None => Place::Memory,
    };
    check_room(&code, args.n, method, &place)?;
    let start = Instant::now();
    let sequence = match args.checkpoint.as_deref() {
        Some(path) => from_checkpoint(&code, args, method, path, config)?,
        None => {
            let progress = Progress::new(config.progress);
            let sequence =
                octal::sequence_from(&code, args.n, method, None, &place, &mut (), &progress);
            progress.finish();
            sequence?
        }
    };
    let seconds = start.elapsed().as_secs_f64();
    // The files show G(0..=N) as asked: where the computation stopped at a proved period,
    // the period gives the rest.
    let last = sequence.known_to(args.n);
    // Files first, each whole or not at all; the summary last, once they are in place.
    let plot = match args.plot.as_deref() {
        Some(path) => Some((path, plot(&code, &sequence, last)?)),
        None => None,
    };
    let mut files = Vec::new();
    if let Some(path) = args.output.as_deref() {
        let mut sink = Sink::open(Some(path))?;
        write_table(&mut sink, &sequence, last)?;
        files.push(sink);
    }
    if let Some(path) = args.histogram.as_deref() {
        let mut sink = Sink::open(Some(path))?;
        write_histogram(&mut sink, &sequence, last)?;
        files.push(sink);
    }
    if let Some((path, text)) = &plot {
        let mut sink = Sink::open(Some(path))?;
        sink.put(text.as_bytes())?;
        files.push(sink);
    }
    files.into_iter().try_for_each(Sink::finish)?;
    if let Some(path) = args.checkpoint.as_deref() {
        // The run is over and its files are in place: a checkpoint would only repeat them.
        match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                eprintln!("warning: {}: cannot remove the checkpoint: {e}", path.display())
            }
            _ => {
                if let Err(e) = checkpoint::remove_values(path) {
                    eprintln!("warning: {e}");
                }
            }
        }
    }
    let facts = facts(&sequence, last);
    let summary = if args.json {
        json(&code, &sequence, &facts, seconds)
    } else {
        human(&code, &sequence, &facts, seconds)
    };
    let mut out = Sink::stdout(None);
    out.put(summary.as_bytes())?;
    Ok(out.finish()?)
}

/// The sequence of a run with `--checkpoint path`: going on from the values in `path` when
/// it holds some, keeping them there as they grow.
fn from_checkpoint(
    code: &Code,
    args: &OctalArgs,
    method: Method,
    path: &Path,
    config: &Config,
) -> Result<Sequence, Error> {
    let (start, writer) = checkpoint::open(path, code, args.n + 1)?;
    if let Some(values) = &start {
        eprintln!(
            "grundy: going on from {}: G(0..={}) computed before",
            path.display(),
            values.len() - 1
        );
    }
    let every = Duration::from_secs_f64(args.checkpoint_every);
    let mut keeper = Every { writer, every, last: Instant::now() };
    let progress = Progress::new(config.progress);
    let place = checkpoint::place(path);
    let sequence =
        octal::sequence_from(code, args.n, method, start, &place, &mut keeper, &progress);
    progress.finish();
    sequence
}

/// Heaps from which a run keeps its table in a temporary file rather than in memory.
const IN_MEMORY: usize = 1 << 22;

/// Refuses an `-n` whose table of values cannot be had, before anything is computed or
/// written, naming `-n` and the bytes: a table of more bytes than can be counted, or (in a
/// file: the temporary folder, or beside the checkpoint) more than that folder's free space
/// or than the largest file this process may write (`ulimit -f`). A checkpoint's values file
/// already there counts as room. (Below [`IN_MEMORY`] heaps the table is at most 16 MB of
/// memory.)
fn check_room(code: &Code, n: usize, method: Method, place: &Place) -> Result<(), Error> {
    let Some(bytes) = octal::table_bytes(code, n, method) else {
        return Err(Error::Usage(format!(
            "-n {n}: G(0..=N) needs more than 2^64 bytes, more than a table can hold"
        )));
    };
    let dir = match place {
        Place::Memory => return Ok(()),
        Place::Temporary => std::env::temp_dir(),
        Place::Named(stem) => match stem.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => std::path::PathBuf::from("."),
        },
    };
    let kept: u64 = [1, 2, 4]
        .iter()
        .filter_map(|&w| place.file(w))
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let Some((room, bound, limit)) = room(&dir) else { return Ok(()) };
    if bytes.saturating_sub(kept) <= room {
        return Ok(());
    }
    let per_heap = match bytes / (n as u64 + 1) {
        1 => "a byte a heap to start with",
        _ => "4 bytes a heap",
    };
    let elsewhere = match place {
        _ if limit => "raise the limit",
        Place::Temporary => "set TMPDIR to a larger disk",
        _ => "put the checkpoint on a larger disk",
    };
    Err(Error::Usage(format!(
        "-n {n}: G(0..=N) needs {bytes} bytes ({}, {per_heap}) in a file in {}, {bound}: ask \
         for fewer heaps, or {elsewhere}",
        human_bytes(bytes as f64),
        dir.display(),
    )))
}

/// The bytes a file in `dir` can grow to, what bounds them as a message says it, and whether
/// that is the largest file this process may write (`ulimit -f`, when it is less than the
/// file system's free space for this user) rather than that space; `None` where neither can
/// be asked (not Unix, or `dir` cannot be read).
fn room(dir: &Path) -> Option<(u64, String, bool)> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: statvfs writes into the zeroed struct it is given and reads the
        // NUL-terminated path, which lives for the call.
        let mut fs: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(path.as_ptr(), &mut fs) } != 0 {
            return None;
        }
        // `fsblkcnt_t` and `c_ulong` are 32 bits on some systems, 64 on others.
        let free = (fs.f_bavail as u64).saturating_mul(fs.f_frsize as u64);
        // SAFETY: getrlimit writes into the zeroed struct it is given.
        let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
        let largest = match unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut limit) } {
            0 if limit.rlim_cur != libc::RLIM_INFINITY => limit.rlim_cur,
            _ => u64::MAX,
        };
        Some(if largest < free {
            let size = human_bytes(largest as f64);
            let bound = format!("and this process may write files of {size} at most (ulimit -f)");
            (largest, bound, true)
        } else {
            (free, format!("which has {} free", human_bytes(free as f64)), false)
        })
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// Writes a checkpoint when `every` has gone by since the last.
struct Every {
    writer: checkpoint::Writer,
    every: Duration,
    last: Instant,
}

impl Keeper for Every {
    type Error = Error;

    fn offer(&mut self, values: &Values) -> Result<(), Error> {
        if self.last.elapsed() >= self.every {
            self.writer.write(values)?;
            // From the end of the write: a slow disk does not make a run that only writes.
            self.last = Instant::now();
        }
        Ok(())
    }
}

/// Bytes of the table written at a time: a table of a billion rows is streamed.
const TABLE_CHUNK: usize = 1 << 16;

/// Writes the CSV `n,grundy` of G(0..=last) to `sink`.
fn write_table(sink: &mut Sink, sequence: &Sequence, last: usize) -> Result<(), Error> {
    let mut text = String::with_capacity(TABLE_CHUNK + 32);
    text.push_str("n,grundy\n");
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    for (n, g) in sequence.extended(last).enumerate() {
        text.push_str(a.format(n));
        text.push(',');
        text.push_str(b.format(g));
        text.push('\n');
        if text.len() >= TABLE_CHUNK {
            sink.put(text.as_bytes())?;
            text.clear();
        }
    }
    Ok(sink.put(text.as_bytes())?)
}

/// Writes the CSV `heaps,grundy,count` of G(0..=last) to `sink`: at each power of two `2^k`
/// up to `last + 1`, and at `last + 1`, how many of the heaps below it have each value (the
/// values that occur, in increasing order).
fn write_histogram(sink: &mut Sink, sequence: &Sequence, last: usize) -> Result<(), Error> {
    let mut text = String::from("heaps,grundy,count\n");
    let mut counts: Vec<u64> = Vec::new();
    for (n, g) in sequence.extended(last).enumerate() {
        let g = g as usize;
        if counts.len() <= g {
            counts.resize(g + 1, 0);
        }
        counts[g] += 1;
        let heaps = n + 1;
        if heaps.is_power_of_two() || n == last {
            for (value, &count) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
                let _ = writeln!(text, "{heaps},{value},{count}");
            }
            sink.put(text.as_bytes())?;
            text.clear();
        }
    }
    Ok(sink.put(text.as_bytes())?)
}

fn plot(code: &Code, sequence: &Sequence, last: usize) -> Result<String, Error> {
    let title = match sequence.period {
        Some(p) => format!("{code}: period {} from n = {}", p.period, p.preperiod),
        None => format!("{code}: G(n) for n <= {last}"),
    };
    // Only `value(n)` for n <= last is read, and every such value is known. The plot samples
    // a table in a file here and there: what it read is let go now and then.
    let read = std::cell::Cell::new(0u32);
    let value = |n: usize| {
        read.set(read.get().wrapping_add(1));
        if read.get() % (1 << 12) == 0 {
            sequence.values.release_cold();
        }
        sequence.value(n).unwrap_or_default()
    };
    grundy::report::plot::svg(&title, last + 1, &value)
        .map_err(|e| Error::Usage(format!("cannot draw the plot: {e}")))
}

/// What the summary and the JSON share: the figures of the computed values G(0..=last), and
/// how far the files go (`shown`: past `last` when the period gave the rest).
struct Facts {
    last: usize,
    shown: usize,
    largest: u32,
    zeros: usize,
}

fn facts(sequence: &Sequence, shown: usize) -> Facts {
    let values = &sequence.values;
    let (mut largest, mut zeros) = (0, 0);
    for g in values.iter() {
        largest = largest.max(g);
        zeros += usize::from(g == 0);
    }
    Facts { last: values.len() - 1, shown, largest, zeros }
}

fn human(code: &Code, sequence: &Sequence, f: &Facts, seconds: f64) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "code       {code}");
    let _ = writeln!(text, "computed   G(0..={})", f.last);
    if f.shown > f.last {
        let _ = writeln!(
            text,
            "extended   G({}..={}) by the period (-o and --plot show G(0..={}))",
            f.last + 1,
            f.shown,
            f.shown
        );
    }
    let _ = writeln!(text, "largest    {}", f.largest);
    let _ = writeln!(
        text,
        "zeros      {} (the second player wins a single heap of these sizes)",
        f.zeros
    );
    let _ = match sequence.period {
        Some(p) => writeln!(
            text,
            "period     {} from n = {} (proved by the values up to n = {})",
            p.period, p.preperiod, p.proved_at
        ),
        None => writeln!(text, "period     none proved up to n = {}", f.last),
    };
    let _ = writeln!(text, "time       {seconds:.3} s");
    text
}

fn json(code: &Code, sequence: &Sequence, f: &Facts, seconds: f64) -> String {
    let (period, preperiod) = match sequence.period {
        Some(p) => (serde_json::json!(p.period), serde_json::json!(p.preperiod)),
        None => (serde_json::Value::Null, serde_json::Value::Null),
    };
    let object = serde_json::json!({
        "code": code.to_string(),
        "n": f.last,
        "extended_to": f.shown,
        "max_value": f.largest,
        "zeros": f.zeros,
        "period": period,
        "preperiod": preperiod,
        "certified": sequence.period.is_some(),
        "seconds": seconds,
    });
    format!("{object}\n")
}
