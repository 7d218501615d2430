//! Which format a table is written in: CSV, Parquet or Arrow IPC, chosen by
//! `--output-format`, else by the output path's extension (`.parquet`, `.arrow`), else CSV.
//! Known in every build, so that a build without the `columnar` feature can refuse the
//! columnar formats by name instead of writing CSV into a `.parquet` file.

use std::path::Path;

use crate::error::Error;

/// An output format of rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileFormat {
    /// Comma-separated text with a header line: the default.
    #[default]
    Csv,
    /// Apache Parquet, zstd-compressed, typed columns, in row groups of about a million rows.
    Parquet,
    /// Arrow IPC, the file format (Feather v2), uncompressed, in record batches.
    Arrow,
}

/// True when this build writes the columnar formats (the `columnar` cargo feature).
pub const COLUMNAR_BUILT: bool = cfg!(feature = "columnar");

impl FileFormat {
    /// The format's name, as `--output-format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Csv => "csv",
            FileFormat::Parquet => "parquet",
            FileFormat::Arrow => "arrow",
        }
    }

    /// The format a path's extension names (`.parquet`, `.arrow`, in any case), if any.
    pub fn of_path(path: &Path) -> Option<FileFormat> {
        let extension = path.extension()?.to_str()?;
        if extension.eq_ignore_ascii_case("parquet") {
            Some(FileFormat::Parquet)
        } else if extension.eq_ignore_ascii_case("arrow") {
            Some(FileFormat::Arrow)
        } else {
            None
        }
    }

    /// The format of an output written to `path` (`None` or `-`: stdout): `chosen` when
    /// given (the flag wins over the name), else the one the extension names, else CSV.
    pub fn resolve(chosen: Option<FileFormat>, path: Option<&Path>) -> FileFormat {
        chosen.or_else(|| path.and_then(FileFormat::of_path)).unwrap_or_default()
    }

    /// `Ok` when this build writes the format; for a columnar one without the `columnar`
    /// feature, the usage error that says how to get it (`what` names the output).
    pub fn check_built(self, what: &str) -> Result<FileFormat, Error> {
        if self == FileFormat::Csv || COLUMNAR_BUILT {
            return Ok(self);
        }
        Err(Error::Usage(format!(
            "{what} is {} and this grundy was built without the columnar feature: rebuild it \
             with `cargo build --release --features columnar` (or write CSV)",
            self.name()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_the_extension_which_wins_over_csv() {
        let resolve = |chosen, path: &str| FileFormat::resolve(chosen, Some(Path::new(path)));
        assert_eq!(resolve(None, "out.parquet"), FileFormat::Parquet);
        assert_eq!(resolve(None, "dir.v2/OUT.Arrow"), FileFormat::Arrow);
        assert_eq!(resolve(None, "out.csv"), FileFormat::Csv);
        assert_eq!(resolve(None, "parquet"), FileFormat::Csv);
        assert_eq!(resolve(Some(FileFormat::Csv), "out.parquet"), FileFormat::Csv);
        assert_eq!(resolve(Some(FileFormat::Arrow), "out.parquet"), FileFormat::Arrow);
        assert_eq!(FileFormat::resolve(Some(FileFormat::Parquet), None), FileFormat::Parquet);
        assert_eq!(FileFormat::resolve(None, None), FileFormat::Csv);
        assert!(FileFormat::Csv.check_built("-o").is_ok());
        assert_eq!(FileFormat::Parquet.check_built("-o").is_ok(), COLUMNAR_BUILT);
    }
}
