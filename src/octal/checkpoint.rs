//! Checkpoints of a long octal run: the values computed so far, in a file a run started again
//! goes on from.
//!
//! The sparse-space method is exact whatever its common set (see [`super::sparse`]), and the
//! look for a period at a doubling is a function of the values up to it, so the values alone
//! are the whole state: a run that goes on from G(0..L) computes, looks and ends as one that
//! never stopped. The file (little-endian):
//!
//! | bytes | what                                                        |
//! |-------|-------------------------------------------------------------|
//! | 8     | magic `GRUNDYOC`                                            |
//! | 4     | version, 1                                                  |
//! | 4     | bytes per value, 1, 2 or 4                                  |
//! | 4     | length of the code's canonical text, then the text (`0.6`)  |
//! | 8     | L, how many values: G(0..L)                                 |
//! | L x w | the values                                                  |
//! | 8     | XXH3-64 of every byte before it                             |
//!
//! It is written whole or not at all (a temporary file renamed over the last), so a run killed
//! at any moment leaves the previous checkpoint intact.

use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use super::{each_width, Code, Values};
use crate::error::Error;
use crate::io::error::IoError;
use crate::io::sink::Sink;

const MAGIC: &[u8; 8] = b"GRUNDYOC";
const VERSION: u32 = 1;

/// Hears the values as they grow, and keeps them when it chooses: a run calls it every few
/// thousand heaps.
pub trait Keeper {
    /// Why keeping failed.
    type Error;
    /// Called with G(0..L) between stretches of heaps.
    fn offer(&mut self, values: &Values) -> Result<(), Self::Error>;
}

/// Keeps nothing, so never fails.
impl Keeper for () {
    type Error = std::convert::Infallible;
    fn offer(&mut self, _: &Values) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Writes `values` of `code` to `path` atomically.
pub fn write(path: &Path, code: &Code, values: &Values) -> Result<(), Error> {
    let mut out = Hashed { sink: Sink::open(Some(path))?, hash: Xxh3::new() };
    let text = code.to_string();
    let width = values.width() as u32;
    out.put(MAGIC)?;
    out.put(&VERSION.to_le_bytes())?;
    out.put(&width.to_le_bytes())?;
    out.put(&(text.len() as u32).to_le_bytes())?;
    out.put(text.as_bytes())?;
    out.put(&(values.len() as u64).to_le_bytes())?;
    // A few thousand values at a time: the file of 10^9 values is never a copy in memory.
    let mut bytes = Vec::with_capacity(1 << 16);
    each_width!(values, g => {
        for chunk in g.chunks((1 << 15) / values.width()) {
            bytes.clear();
            bytes.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
            out.put(&bytes)?;
        }
    });
    let sum = out.hash.digest();
    out.sink.put(&sum.to_le_bytes())?;
    Ok(out.sink.finish()?)
}

/// The values of `code` in the checkpoint at `path`; `None` when there is no such file (a
/// first run). A file that is not a whole checkpoint of `code` is refused.
pub fn read(path: &Path, code: &Code) -> Result<Option<Values>, Error> {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(IoError::file(&name, "cannot read", e).into()),
    };
    decode(&bytes, code).map(Some).map_err(|message| Error::Checkpoint { path: name, message })
}

/// The values a checkpoint's bytes hold, or what is wrong with them.
fn decode(bytes: &[u8], code: &Code) -> Result<Values, String> {
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
    let version = word(take(4)?);
    if version != VERSION {
        return Err(format!("checkpoint version {version}; this grundy reads version {VERSION}"));
    }
    let width = word(take(4)?);
    let length = word(take(4)?) as usize;
    let text = take(length)?.to_vec();
    let count = u64::from_le_bytes(take(8)?.try_into().unwrap_or_default());
    let values_at = at;
    let size = usize::try_from(count)
        .ok()
        .and_then(|c| c.checked_mul(width as usize))
        .and_then(|s| s.checked_add(values_at + 8));
    if size.is_some_and(|s| s < bytes.len()) {
        return Err(format!("{} bytes, more than its header says", bytes.len()));
    }
    if size != Some(bytes.len()) {
        return Err(truncated());
    }
    let end = bytes.len() - 8;
    let sum = u64::from_le_bytes(bytes[end..].try_into().unwrap_or_default());
    if xxhash_rust::xxh3::xxh3_64(&bytes[..end]) != sum {
        return Err("corrupt: its checksum does not match its bytes".into());
    }
    // Checked after the checksum: a damaged code is corruption, not another game.
    let theirs = String::from_utf8_lossy(&text);
    if theirs != code.to_string() {
        return Err(format!("a checkpoint of {theirs}, not of {code}"));
    }
    let body = &bytes[values_at..end];
    let values = match width {
        1 => Values::Byte(body.to_vec()),
        2 => {
            Values::Short(body.chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect())
        }
        4 => Values::Wide(body.chunks_exact(4).map(word).collect()),
        other => return Err(format!("values of {other} bytes; checkpoints hold 1, 2 or 4")),
    };
    if values.is_empty() || values.get(0) != 0 {
        return Err("corrupt: G(0) is not 0".into());
    }
    Ok(values)
}

/// A sink that hashes what it writes.
struct Hashed {
    sink: Sink,
    hash: Xxh3,
}

impl Hashed {
    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.hash.update(bytes);
        self.sink.put(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(code: &Code, values: &Values) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ck");
        write(&path, code, values).unwrap();
        std::fs::read(&path).unwrap()
    }

    #[test]
    fn a_checkpoint_reads_back_and_every_damage_is_refused() {
        let code = Code::parse("0.6", false).unwrap();
        let byte: Vec<u8> = (0..7000u32).map(|n| (n * 5 % 250) as u8).collect();
        let short: Vec<u16> = (0..5000u32).map(|n| (n * 7 % 300) as u16).collect();
        let wide: Vec<u32> = (0..3000u32).map(|n| n * 100_003 % 900_000).collect();
        for values in [Values::Byte(byte), Values::Short(short), Values::Wide(wide)] {
            let bytes = bytes_of(&code, &values);
            assert_eq!(decode(&bytes, &code).as_ref(), Ok(&values));
            // Cut anywhere: refused.
            for cut in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
                assert!(decode(&bytes[..cut], &code).is_err(), "cut at {cut}");
            }
            // Any byte changed: refused.
            for at in (0..bytes.len()).step_by(61).chain([bytes.len() - 1]) {
                let mut bad = bytes.clone();
                bad[at] ^= 0x10;
                assert!(decode(&bad, &code).is_err(), "byte {at} flipped");
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(decode(&longer, &code).unwrap_err().contains("more than"));
            let other = Code::parse("0.77", false).unwrap();
            assert_eq!(decode(&bytes, &other).unwrap_err(), "a checkpoint of 0.6, not of 0.77");
        }
        assert!(decode(b"PAR1 and so on", &code).unwrap_err().contains("not a grundy"));
    }
}
