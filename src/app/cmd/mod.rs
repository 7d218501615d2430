//! One module per subcommand, each with its `run(args, config)`; what they share (stopping
//! when no output is read, refusing outputs that would replace inputs) lives here once.

use std::path::Path;

use crate::app::config::Config;
use grundy::error::Error;

/// Runs `$run` with `$rows` bound to a row sink of `$format` writing to `$out`, then
/// finishes the sink (a columnar file's footer; the output itself is finished, renamed, by
/// its owner). A macro rather than a function: `$run` is generic over the sink, which a
/// closure cannot be, so each format gets the engine monomorphised for it (no dispatch per
/// row, and the CSV path is the code it always was).
macro_rules! with_rows {
    ($format:expr, $out:expr, |$rows:ident| $run:expr) => {
        match $format {
            grundy::report::FileFormat::Csv => {
                let mut $rows = grundy::report::Csv::new($out);
                $run.and_then(|()| $rows.finish())
            }
            #[cfg(feature = "columnar")]
            grundy::report::FileFormat::Parquet => {
                let mut $rows = grundy::report::parquet::ParquetSink::new($out);
                $run.and_then(|()| $rows.finish())
            }
            #[cfg(feature = "columnar")]
            grundy::report::FileFormat::Arrow => {
                let mut $rows = grundy::report::arrow::ArrowSink::new($out);
                $run.and_then(|()| $rows.finish())
            }
            // Refused by `rows_format` before anything is read.
            #[cfg(not(feature = "columnar"))]
            other => other.check_built("the output").map(|_| ()),
        }
    };
}
pub(crate) use with_rows;

pub mod game;
pub mod generate;
pub mod index;
pub mod octal;
pub mod query;
pub mod serve;
pub mod solve;
pub mod stats;
pub mod values;

/// A path as the user named it on the command line, with the name of its argument.
pub type Named<'p> = (&'static str, Option<&'p Path>);

/// Refuses a run whose output would replace one of its inputs (the same file, also through a
/// link), or two outputs that are one file: a failed run never loses data, and neither may a
/// successful one. Stdin, stdout (`-` or nothing) and special files (`/dev/null`) are free.
pub fn refuse_clobbering(inputs: &[Named], outputs: &[Named]) -> Result<(), Error> {
    fn given<'p>(named: &[Named<'p>]) -> Vec<(&'static str, &'p Path)> {
        let file = |p: &&Path| p.as_os_str() != "-";
        named.iter().filter_map(|&(what, p)| Some((what, p.filter(file)?))).collect()
    }
    let (inputs, outputs) = (given(inputs), given(outputs));
    for (i, &(what, out)) in outputs.iter().enumerate() {
        if let Some((input, path)) = inputs.iter().find(|(_, p)| same_file(p, out)) {
            return Err(Error::Usage(format!(
                "{what} {} would replace the input {input} ({}): write the output elsewhere",
                out.display(),
                path.display()
            )));
        }
        if let Some((other, _)) = outputs[..i].iter().find(|(_, p)| same_file(p, out)) {
            return Err(Error::Usage(format!(
                "{other} and {what} name the same file ({}): give each output its own",
                out.display()
            )));
        }
    }
    Ok(())
}

/// True when `a` and `b` are the same regular file, or the same path of a file not created yet.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.is_file() && y.is_file() && file_id(&x) == file_id(&y),
        (Err(_), Err(_)) => absolute(a).is_some_and(|x| absolute(b) == Some(x)),
        _ => false,
    }
}

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(meta: &std::fs::Metadata) -> (u64, u64) {
    // Without inode numbers, files of the same length and time are taken to be one.
    let time = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    (meta.len(), time.map_or(0, |t| t.as_nanos() as u64))
}

/// The path of a file that does not exist yet, made absolute through its (existing) folder.
fn absolute(p: &Path) -> Option<std::path::PathBuf> {
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(dir.canonicalize().ok()?.join(p.file_name()?))
}

/// Opens the text a command reads cases from (`path`, or stdin): a pipe or a compressed input
/// as a stream, read as it arrives, unless it is an index, which is read whole; its queries
/// are capped as `config` says.
pub fn open_text(path: Option<&Path>, config: &Config) -> Result<grundy::Input, Error> {
    let input = grundy::Input::open_streaming(path, grundy::index::is_index)?;
    Ok(input.with_max_query_tokens(config.max_query_tokens))
}

/// The index `input` holds, opened and checked, when it is one (recognised by its first
/// bytes, whatever its name); `None` for a text input. The flags that say how a text input is
/// written are refused with an index, which records how it was made, and `--loopy` must say
/// what the index holds.
pub fn open_index(
    input: &grundy::Input,
    format: &crate::app::cli::FormatArgs,
    loopy: bool,
    read: &crate::app::cli::IndexReadArgs,
) -> Result<Option<grundy::index::Index>, Error> {
    let Some(index) = open_any_index(input, format, read)? else { return Ok(None) };
    let name = input.name();
    match (index.is_loopy(), loopy) {
        (true, false) => Err(Error::Usage(format!(
            "{name} holds a loopy game's values (indexed with --loopy): add --loopy"
        ))),
        (false, true) => Err(Error::Usage(format!(
            "{name} holds an acyclic game's values: drop --loopy, or index the game with --loopy"
        ))),
        _ => Ok(Some(index)),
    }
}

/// The index `input` holds, loopy or not (`None` when it is not an index); refused with
/// `--format` or `--nodes`, which an index records itself.
pub fn open_any_index(
    input: &grundy::Input,
    format: &crate::app::cli::FormatArgs,
    read: &crate::app::cli::IndexReadArgs,
) -> Result<Option<grundy::index::Index>, Error> {
    if !grundy::index::is_index(input.bytes()) {
        return Ok(None);
    }
    if format.format != crate::app::cli::FormatName::Chess || format.nodes.is_some() {
        return Err(Error::Usage(format!(
            "{} is an index, which records how its game was read: drop --format and --nodes",
            input.name()
        )));
    }
    Ok(Some(grundy::index::Index::open(input, !read.trust)?))
}

/// The format of the rows written to `path` (`what` names it in messages): `--output-format`
/// (`flag`), else the one its extension names, else CSV. A columnar format is refused by a
/// build without the `columnar` feature, and on a cluster (whose processes send CSV rows).
pub fn rows_format(
    flag: Option<crate::app::cli::OutputFormatName>,
    (what, path): Named,
    on_cluster: bool,
) -> Result<grundy::report::FileFormat, Error> {
    use grundy::report::FileFormat;
    let path = path.filter(|p| p.as_os_str() != "-");
    let format = FileFormat::resolve(flag.map(FileFormat::from), path);
    let shown = match path {
        Some(path) => format!("{what} {}", path.display()),
        None => format!("{what} (stdout)"),
    };
    format.check_built(&shown)?;
    if on_cluster && format != FileFormat::Csv {
        return Err(Error::Usage(format!(
            "{shown} is {}: columnar outputs run on one process, no cluster for them yet",
            format.name()
        )));
    }
    Ok(format)
}

/// What `--play` other than normal is not combined with: `--loopy`, the sums format and a
/// cluster; and `--genus` goes with misère play only.
pub fn check_play(
    (play, genus): (crate::app::cli::PlayName, bool),
    (loopy, format, on_cluster): (bool, grundy::Format, bool),
) -> Result<(), Error> {
    use crate::app::cli::PlayName;
    if genus && play != PlayName::Misere {
        return Err(Error::Usage("--genus goes with --play misere".into()));
    }
    if play == PlayName::Normal {
        return Ok(());
    }
    let name = play.play(genus).name();
    let refused = if loopy {
        "--loopy: loopy games are played normally only"
    } else if format == grundy::Format::Sums {
        "--format sums: the plays take the chess and edge-list formats"
    } else if on_cluster {
        "a cluster: the plays run on one process for now"
    } else {
        return Ok(());
    };
    Err(Error::Usage(format!("--play {name} is not combined with {refused}")))
}

/// Refuses `--play` (other than normal) on an index of the sums format, as on the text (an
/// index of a loopy game asks for `--loopy`, which `--play` refuses already).
pub fn check_play_index(
    play: grundy::play::Play,
    index: Option<&grundy::index::Index>,
) -> Result<(), Error> {
    match index {
        Some(index) if index.format() == grundy::index::format_code(grundy::Format::Sums) => {
            Err(Error::Usage(format!(
                "--play {} is not combined with --format sums: {} indexes a sums game, and the \
                 plays take the chess and edge-list formats",
                play.name(),
                index.name()
            )))
        }
        _ => Ok(()),
    }
}

/// What `--loopy` is not combined with: the sums format (moves to sums of loopy games follow
/// another theory) and a cluster (loopy games run on one process for now).
pub fn check_loopy(loopy: bool, format: grundy::Format, on_cluster: bool) -> Result<(), Error> {
    if loopy && format == grundy::Format::Sums {
        return Err(Error::Usage(
            "--loopy --format sums: moves to sums of loopy games are not supported (their \
             theory is not the one of acyclic games)"
                .into(),
        ));
    }
    if loopy && on_cluster {
        return Err(Error::Usage("--loopy runs on one process: no cluster for it yet".into()));
    }
    Ok(())
}
