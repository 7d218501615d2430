//! Checkpoints of a long octal run: how far it got, in a small file a run started again goes on
//! from, beside the file of its values.
//!
//! The sparse-space method is exact whatever its common set (see [`super::sparse`]), and the
//! look for a period at a doubling is a function of the values up to it, so the values alone
//! are the whole state: a run that goes on from G(0..L) computes, looks and ends as one that
//! never stopped. A run with `--checkpoint ck` keeps its values in `ck.values1` (or
//! `ck.values2`, `ck.values4`: the file of its width, [`super::Place::Named`]), which it
//! appends to as it goes; the checkpoint says how many of them are done and hashes them:
//!
//! | bytes | what                                                         |
//! |-------|--------------------------------------------------------------|
//! | 8     | magic `GRUNDYOC`                                             |
//! | 4     | version, 2                                                   |
//! | 4     | bytes per value w: 1, 2 or 4 (the values file `ck.values{w}`) |
//! | 4     | byte order of the values file: 1 little-endian, 2 big-endian |
//! | 4     | length of the code's canonical text, then the text (`0.6`)   |
//! | 8     | L, how many values: G(0..L), the first L x w bytes of the file |
//! | 8     | XXH3-64 of those L x w bytes                                 |
//! | 8     | XXH3-64 of every byte of the checkpoint before it            |
//!
//! Numbers in the checkpoint are little-endian. It is written whole or not at all (a
//! temporary file renamed over the last), after the values it counts are on the disk
//! (`msync`), so a run killed at any moment leaves a checkpoint whose values are whole; the
//! values computed after it are cut off when a run goes on from it. When the values widen,
//! the wider file is written whole beside the narrower, which stays (and stays what the last
//! checkpoint names) until a checkpoint names the wider one. Version 1 checkpoints (the values
//! inside the checkpoint itself) are still read.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use super::column::SCAN_STEP;
use super::{each_width, Code, Column, Place, Values};
use crate::error::Error;
use crate::io::error::IoError;
use crate::io::sink::Sink;

const MAGIC: &[u8; 8] = b"GRUNDYOC";
const VERSION: u32 = 2;

/// Hears the values as they grow, and keeps them when it chooses: a run calls it every few
/// thousand heaps.
pub trait Keeper {
    /// Why keeping failed.
    type Error;
    /// Called with G(0..L) between stretches of heaps.
    fn offer(&mut self, values: &Values) -> Result<(), Self::Error>;
}

/// Keeps nothing, so never fails (its error type is the run's own: a run in memory has none).
impl Keeper for () {
    type Error = IoError;
    fn offer(&mut self, _: &Values) -> Result<(), IoError> {
        Ok(())
    }
}

/// Where a run with the checkpoint `path` keeps its values: `{path}.values{width}`.
pub fn place(path: &Path) -> Place {
    let mut stem = path.as_os_str().to_owned();
    stem.push(".values");
    Place::Named(PathBuf::from(stem))
}

/// Removes the values files of the checkpoint `path`, whichever their width.
pub fn remove_values(path: &Path) -> Result<(), IoError> {
    let place = place(path);
    for width in [1, 2, 4] {
        let Some(file) = place.file(width) else { continue };
        match std::fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(IoError::file(&file.display().to_string(), "cannot remove", e));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Opens the checkpoint `path` of `code` for a run that computes up to `capacity` values: the
/// values to go on from (`None` when there is no checkpoint: a first run), and the writer of
/// the next checkpoints. A file that is not a whole checkpoint of `code`, or whose values file
/// does not hold what it says, is refused.
pub fn open(path: &Path, code: &Code, capacity: usize) -> Result<(Option<Values>, Writer), Error> {
    let name = path.display().to_string();
    let refuse = |message: String| Error::Checkpoint { path: name.clone(), message };
    let mut writer = Writer {
        path: path.to_path_buf(),
        code: code.clone(),
        hash: Xxh3::new(),
        hashed: 0,
        width: 0,
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A first run: values files left by a run killed before its first checkpoint
            // count for nothing.
            remove_values(path)?;
            return Ok((None, writer));
        }
        Err(e) => return Err(IoError::file(&name, "cannot read", e).into()),
    };
    let header = match decode(&bytes, code).map_err(refuse)? {
        Decoded::Values(values) => return Ok((Some(values), writer)),
        Decoded::Header(header) => header,
    };
    let file = place(path).file(header.width).unwrap_or_default();
    let values = match header.width {
        1 => reopen(&file, &header, capacity, &mut writer.hash).map(|g| g.map(Values::Byte)),
        2 => reopen(&file, &header, capacity, &mut writer.hash).map(|g| g.map(Values::Short)),
        _ => reopen(&file, &header, capacity, &mut writer.hash).map(|g| g.map(Values::Wide)),
    };
    let refuse_values =
        |message: String| Error::Checkpoint { path: file.display().to_string(), message };
    let values = values?.ok_or_else(|| {
        refuse_values(format!("holds fewer than the {} values its checkpoint says", header.len))
    })?;
    if writer.hash.digest() != header.hash {
        return Err(refuse_values(
            "corrupt: its values do not match the checkpoint's checksum".into(),
        ));
    }
    if values.get(0) != 0 {
        return Err(refuse_values("corrupt: G(0) is not 0".into()));
    }
    (writer.hashed, writer.width) = (header.len, header.width);
    Ok((Some(values), writer))
}

/// The first `header.len` values of the file at `path`, hashed into `hash` as they are read.
fn reopen<V: crate::io::store::Plain>(
    path: &Path,
    header: &Header,
    capacity: usize,
    hash: &mut Xxh3,
) -> Result<Option<Column<V>>, IoError> {
    let Some(g) = Column::<V>::reopen(path, header.len, capacity)? else { return Ok(None) };
    for start in (0..header.len).step_by(SCAN_STEP) {
        hash.update(g.bytes(start..(start + SCAN_STEP).min(header.len)));
        g.release_cold();
    }
    Ok(Some(g))
}

/// Writes the checkpoints of one run.
pub struct Writer {
    path: PathBuf,
    code: Code,
    /// The hash of the first `hashed` values of the file of `width`-byte values.
    hash: Xxh3,
    hashed: usize,
    width: usize,
}

impl Writer {
    /// Writes a checkpoint of `values` (in the file of this checkpoint's place) atomically,
    /// once they are on the disk; after a widening, removes the narrower file.
    pub fn write(&mut self, values: &Values) -> Result<(), Error> {
        let widened = self.width != values.width();
        if widened {
            (self.hash, self.hashed) = (Xxh3::new(), 0);
        }
        let len = values.len();
        each_width!(values, g => {
            g.sync()?;
            for start in (self.hashed..len).step_by(SCAN_STEP) {
                self.hash.update(g.bytes(start..(start + SCAN_STEP).min(len)));
                g.release_cold();
            }
        });
        self.hashed = len;
        let text = self.code.to_string();
        let mut bytes = Vec::with_capacity(64 + text.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(values.width() as u32).to_le_bytes());
        bytes.extend_from_slice(&ORDER.to_le_bytes());
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(&(len as u64).to_le_bytes());
        bytes.extend_from_slice(&self.hash.digest().to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        let mut sink = Sink::open(Some(&self.path))?;
        sink.put(&bytes)?;
        sink.finish()?;
        if widened && self.width != 0 {
            if let Some(old) = place(&self.path).file(self.width) {
                let _ = std::fs::remove_file(old);
            }
        }
        self.width = values.width();
        Ok(())
    }
}

/// The byte order of this machine's values files.
const ORDER: u32 = if cfg!(target_endian = "little") { 1 } else { 2 };

/// What a version 2 checkpoint says of its values file.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    width: usize,
    len: usize,
    hash: u64,
}

/// What a checkpoint's bytes hold.
#[derive(Debug, PartialEq, Eq)]
enum Decoded {
    /// A version 1 checkpoint: the values themselves.
    Values(Values),
    /// A version 2 checkpoint: where its values are.
    Header(Header),
}

/// What a checkpoint's bytes hold, or what is wrong with them.
fn decode(bytes: &[u8], code: &Code) -> Result<Decoded, String> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err("not a grundy octal checkpoint (no GRUNDYOC at its start)".into());
    }
    let truncated =
        || format!("truncated: {} bytes, too few for what its header says", bytes.len());
    let mut at = 8;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let part = bytes.get(at..at + n).ok_or_else(truncated)?;
        at += n;
        Ok(part)
    };
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let long = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
    let version = word(take(4)?);
    if version != 1 && version != VERSION {
        return Err(format!("checkpoint version {version}; this grundy reads versions 1 and 2"));
    }
    let width = word(take(4)?);
    let order = if version == 1 { ORDER } else { word(take(4)?) };
    let length = word(take(4)?) as usize;
    let text = take(length)?.to_vec();
    let count = long(take(8)?);
    let body_at = at;
    let body = if version == 1 { u64::from(width).checked_mul(count) } else { Some(8) };
    let size = body.and_then(|b| usize::try_from(b).ok()).and_then(|b| b.checked_add(body_at + 8));
    if size.is_some_and(|s| s < bytes.len()) {
        return Err(format!("{} bytes, more than its header says", bytes.len()));
    }
    if size != Some(bytes.len()) {
        return Err(truncated());
    }
    let end = bytes.len() - 8;
    if xxhash_rust::xxh3::xxh3_64(&bytes[..end]) != long(&bytes[end..]) {
        return Err("corrupt: its checksum does not match its bytes".into());
    }
    // Checked after the checksum: a damaged code is corruption, not another game.
    let theirs = String::from_utf8_lossy(&text);
    if theirs != code.to_string() {
        return Err(format!("a checkpoint of {theirs}, not of {code}"));
    }
    if ![1, 2, 4].contains(&width) {
        return Err(format!("values of {width} bytes; checkpoints hold 1, 2 or 4"));
    }
    if order != ORDER {
        return Err("its values are in the other byte order than this machine's".into());
    }
    let Ok(len) = usize::try_from(count) else { return Err(truncated()) };
    if version == VERSION {
        if len == 0 {
            return Err("corrupt: it holds no value".into());
        }
        let hash = long(&bytes[body_at..end]);
        return Ok(Decoded::Header(Header { width: width as usize, len, hash }));
    }
    let body = &bytes[body_at..end];
    let values = match width {
        1 => Values::Byte(Column::from(body.to_vec())),
        2 => Values::Short(Column::from(
            body.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect::<Vec<_>>(),
        )),
        _ => Values::Wide(Column::from(body.chunks_exact(4).map(word).collect::<Vec<_>>())),
    };
    if values.is_empty() || values.get(0) != 0 {
        return Err("corrupt: G(0) is not 0".into());
    }
    Ok(Decoded::Values(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 1 checkpoint of `values` (the values inside), as the grundy before wrote it.
    fn version_1(code: &Code, values: &Values) -> Vec<u8> {
        let text = code.to_string();
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&(values.width() as u32).to_le_bytes());
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(&(values.len() as u64).to_le_bytes());
        for v in values.iter() {
            bytes.extend_from_slice(&v.to_le_bytes()[..values.width()]);
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes
    }

    fn every_width() -> [Values; 3] {
        let byte: Vec<u8> = (0..7000u32).map(|n| (n * 5 % 250) as u8).collect();
        let short: Vec<u16> = (0..5000u32).map(|n| (n * 7 % 300) as u16).collect();
        let wide: Vec<u32> = (0..3000u32).map(|n| n * 100_003 % 900_000).collect();
        [byte.into(), short.into(), wide.into()].map(|v| v)
    }

    impl From<Vec<u8>> for Values {
        fn from(g: Vec<u8>) -> Values {
            Values::Byte(Column::from(g))
        }
    }
    impl From<Vec<u16>> for Values {
        fn from(g: Vec<u16>) -> Values {
            Values::Short(Column::from(g))
        }
    }
    impl From<Vec<u32>> for Values {
        fn from(g: Vec<u32>) -> Values {
            Values::Wide(Column::from(g))
        }
    }

    /// Every cut and every flipped byte of `bytes` is refused.
    fn every_damage_refused(bytes: &[u8], code: &Code) {
        for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
            assert!(decode(&bytes[..cut], code).is_err(), "cut at {cut}");
        }
        for at in (0..bytes.len()).step_by(61).chain([bytes.len() - 1]) {
            let mut bad = bytes.to_vec();
            bad[at] ^= 0x10;
            assert!(decode(&bad, code).is_err(), "byte {at} flipped");
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(decode(&longer, code).unwrap_err().contains("more than"));
        let other = Code::parse("0.77", false).unwrap();
        assert_eq!(decode(bytes, &other).unwrap_err(), "a checkpoint of 0.6, not of 0.77");
    }

    #[test]
    fn a_version_1_checkpoint_reads_back_and_every_damage_is_refused() {
        let code = Code::parse("0.6", false).unwrap();
        for values in every_width() {
            let bytes = version_1(&code, &values);
            assert_eq!(decode(&bytes, &code), Ok(Decoded::Values(values)));
            every_damage_refused(&bytes, &code);
        }
        assert!(decode(b"PAR1 and so on", &code).unwrap_err().contains("not a grundy"));
    }

    #[test]
    fn a_checkpoint_and_its_values_file_read_back_and_every_damage_is_refused() {
        let code = Code::parse("0.6", false).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ck");
        for values in every_width() {
            // The values as a run keeps them, in the checkpoint's file.
            let (start, mut writer) = open(&path, &code, 10).unwrap();
            assert!(start.is_none());
            let kept = values.clone().narrowest_in(&place(&path), 10).unwrap();
            assert_eq!(kept.width(), values.width());
            writer.write(&kept).unwrap();
            let bytes = std::fs::read(&path).unwrap();
            every_damage_refused(&bytes, &code);
            let (again, _) = open(&path, &code, 10_000).unwrap();
            assert_eq!(again.as_ref(), Some(&values));
            // The values file damaged or cut short: refused, naming it.
            let file = place(&path).file(values.width()).unwrap();
            // The file is as long as the run's room for values: its first L x w bytes count.
            let mut good = std::fs::read(&file).unwrap();
            good.truncate(values.len() * values.width());
            let mut bad = good.clone();
            bad[values.width() * 77] ^= 1;
            std::fs::write(&file, &bad).unwrap();
            let Err(e) = open(&path, &code, 10) else { panic!("a damaged values file read") };
            assert!(e.to_string().contains("do not match"), "{e}");
            std::fs::write(&file, &good[..good.len() - 1]).unwrap();
            let Err(e) = open(&path, &code, 10) else { panic!("a short values file read") };
            assert!(e.to_string().contains("fewer than"), "{e}");
            std::fs::remove_file(&path).unwrap();
        }
    }

    #[test]
    fn a_wider_values_file_replaces_the_narrower_once_a_checkpoint_names_it() {
        let code = Code::parse("0.6", false).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ck");
        let (_, mut writer) = open(&path, &code, 10).unwrap();
        let mut values = Values::start(&place(&path), 100).unwrap();
        writer.write(&values).unwrap();
        values.widen().unwrap();
        assert!(place(&path).file(1).unwrap().exists(), "kept until a checkpoint names the wider");
        writer.write(&values).unwrap();
        assert!(!place(&path).file(1).unwrap().exists());
        let (again, _) = open(&path, &code, 10).unwrap();
        assert_eq!(again.map(|v| v.width()), Some(2));
    }
}
