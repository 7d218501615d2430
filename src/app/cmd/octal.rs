//! `grundy octal CODE`: an octal game's Grundy sequence, its period when proved, a table and a
//! plot.

use std::fmt::Write as _;
use std::time::Instant;

use crate::app::cli::OctalArgs;
use crate::app::config::Config;
use grundy::error::Error;
use grundy::io::progress::Progress;
use grundy::io::sink::Sink;
use grundy::octal::{self, Code, Method, Sequence};

/// Runs `grundy octal` with the user's arguments.
pub fn run(args: &OctalArgs, config: &Config) -> Result<(), Error> {
    let code = Code::parse(&args.code, args.hex)
        .map_err(|e| Error::Code { code: args.code.clone(), message: e.to_string() })?;
    let outputs = [("-o", args.output.as_deref()), ("--plot", args.plot.as_deref())];
    crate::app::cmd::refuse_clobbering(&[], &outputs)?;
    let progress = Progress::new(config.progress);
    let method = if args.naive { Method::Naive } else { Method::Sparse };
    let start = Instant::now();
    let sequence = octal::sequence(&code, args.n, method, &progress);
    let seconds = start.elapsed().as_secs_f64();
    progress.finish();
    // Files first, each whole or not at all; the summary last, once they are in place.
    let table = args.output.as_deref().map(|path| (path, table(&sequence)));
    let plot = match args.plot.as_deref() {
        Some(path) => Some((path, plot(&code, &sequence)?)),
        None => None,
    };
    let mut files = Vec::new();
    for (path, text) in table.iter().chain(&plot) {
        let mut sink = Sink::open(Some(path))?;
        sink.put(text.as_bytes())?;
        files.push(sink);
    }
    files.into_iter().try_for_each(Sink::finish)?;
    let summary =
        if args.json { json(&code, &sequence, seconds) } else { human(&code, &sequence, seconds) };
    let mut out = Sink::stdout(None);
    out.put(summary.as_bytes())?;
    Ok(out.finish()?)
}

/// The CSV `n,grundy`.
fn table(sequence: &Sequence) -> String {
    let values = &sequence.values;
    let mut text = String::with_capacity(values.len() * 10 + 9);
    text.push_str("n,grundy\n");
    let mut a = itoa::Buffer::new();
    let mut b = itoa::Buffer::new();
    for n in 0..values.len() {
        text.push_str(a.format(n));
        text.push(',');
        text.push_str(b.format(values.get(n)));
        text.push('\n');
    }
    text
}

fn plot(code: &Code, sequence: &Sequence) -> Result<String, Error> {
    let title = match sequence.period {
        Some(p) => format!("{code}: period {} from n = {}", p.period, p.preperiod),
        None => format!("{code}: G(n) for n <= {}", sequence.values.len() - 1),
    };
    grundy::report::plot::svg(&title, &sequence.values.to_vec())
        .map_err(|e| Error::Usage(format!("cannot draw the plot: {e}")))
}

/// What the summary and the JSON share.
struct Facts {
    last: usize,
    largest: u32,
    zeros: usize,
}

fn facts(sequence: &Sequence) -> Facts {
    let values = &sequence.values;
    let (mut largest, mut zeros) = (0, 0);
    for n in 0..values.len() {
        let g = values.get(n);
        largest = largest.max(g);
        zeros += usize::from(g == 0);
    }
    Facts { last: values.len() - 1, largest, zeros }
}

fn human(code: &Code, sequence: &Sequence, seconds: f64) -> String {
    let f = facts(sequence);
    let mut text = String::new();
    let _ = writeln!(text, "code       {code}");
    let _ = writeln!(text, "computed   G(0..={})", f.last);
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

fn json(code: &Code, sequence: &Sequence, seconds: f64) -> String {
    let f = facts(sequence);
    let (period, preperiod) = match sequence.period {
        Some(p) => (serde_json::json!(p.period), serde_json::json!(p.preperiod)),
        None => (serde_json::Value::Null, serde_json::Value::Null),
    };
    let object = serde_json::json!({
        "code": code.to_string(),
        "n": f.last,
        "max_value": f.largest,
        "zeros": f.zeros,
        "period": period,
        "preperiod": preperiod,
        "certified": sequence.period.is_some(),
        "seconds": seconds,
    });
    format!("{object}\n")
}
