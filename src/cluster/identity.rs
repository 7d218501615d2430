//! What makes processes one run: the facts every process of a cluster must agree on before
//! any of them reads its share, so that processes started with another command, other options
//! or another file at the same path stop with an error instead of mixing their answers.
//!
//! A process's [`Claim`] is exchanged in every connection's handshake ([`super::handshake`])
//! and compared fact by fact; the first fact that differs is named in the error, with both
//! sides' values. A process that refused its own arguments claims [`Claim::Refused`] with its
//! message, so its peers fail at once with that message instead of waiting for it.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_128;

use crate::io::input::Input;

/// What a process says of itself when it connects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Claim {
    /// It runs a job: the facts that decide every worker's output, in a fixed order.
    Run(Identity),
    /// It refused its arguments (the message it printed) and will not run.
    Refused(String),
}

/// The facts that decide a run's output, as `(name, value)` pairs in the order they are
/// compared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    facts: Vec<(String, String)>,
}

impl Identity {
    /// An identity of no facts yet.
    pub fn new() -> Identity {
        Identity::default()
    }

    /// Adds the fact `name` = `value`.
    pub fn with(mut self, name: &str, value: impl std::fmt::Display) -> Identity {
        self.facts.push((name.to_string(), value.to_string()));
        self
    }

    /// Adds the fingerprint of `input` under `name` (its argument, e.g. `FILE`). With
    /// `GRUNDY_TRACE` set, says on stderr how long it took.
    pub fn input(self, name: &str, input: &Input) -> Identity {
        let started = std::time::Instant::now();
        // Each block's pages are let go once hashed: nothing of the input is read yet, and a
        // file larger than memory streams through.
        let value = fingerprint_with(input.bytes(), BLOCK, |start, end| input.release(start, end));
        if std::env::var_os("GRUNDY_TRACE").is_some() {
            let (seconds, bytes) = (started.elapsed().as_secs_f64(), input.bytes().len() as f64);
            eprintln!(
                "trace: fingerprint of {name}: {bytes:.0} bytes in {seconds:.3} s ({:.2} GB/s)",
                bytes / seconds.max(1e-9) / 1e9
            );
        }
        self.with(name, value)
    }

    /// The first fact in which `theirs` differs from this one, worded as `NAME is X there, Y
    /// here`; `None` when they agree on every fact.
    pub fn difference(&self, theirs: &Identity) -> Option<String> {
        let name_of = |facts: &[(String, String)], i: usize| facts.get(i).map(|(n, _)| n.clone());
        let longest = self.facts.len().max(theirs.facts.len());
        (0..longest).find_map(|i| {
            let (mine, other) = (self.facts.get(i), theirs.facts.get(i));
            if mine == other {
                return None;
            }
            let name = name_of(&self.facts, i).or_else(|| name_of(&theirs.facts, i));
            fn value(fact: Option<&(String, String)>) -> &str {
                fact.map_or("unset", |(_, v)| v)
            }
            Some(format!(
                "{} is {} there, {} here",
                name.unwrap_or_default(),
                value(other),
                value(mine)
            ))
        })
    }
}

/// Bytes per block of an input's fingerprint: one rayon task's work (about 2 ms at memory
/// speed), few enough hashes to combine (64 per GiB).
const BLOCK: usize = 16 << 20;

/// An input's fingerprint: its size, and the XXH3-128 of its size and of the XXH3-128 of
/// each of its 16 MiB blocks, hashed in parallel, so that a changed byte anywhere changes it.
/// XXH3 runs at memory speed; the cost is reading the whole input in every process
/// (docs/CLUSTER.md gives the figures).
pub fn fingerprint(bytes: &[u8]) -> String {
    fingerprint_with(bytes, BLOCK, |_, _| {})
}

/// [`fingerprint`] in blocks of `block` bytes; `done(start, end)` is called on each block's
/// range once it is hashed.
fn fingerprint_with(bytes: &[u8], block: usize, done: impl Fn(usize, usize) + Sync) -> String {
    let hashes: Vec<u128> = bytes
        .par_chunks(block)
        .enumerate()
        .map(|(k, chunk)| {
            let hash = xxh3_128(chunk);
            done(k * block, k * block + chunk.len());
            hash
        })
        .collect();
    let digest = combine(bytes.len(), &hashes);
    let size = match block % (1 << 20) {
        0 => format!("{} MiB", block >> 20),
        _ => format!("{block}-byte"),
    };
    format!("{} bytes (XXH3-128 of every byte, in {size} blocks: {digest:032x})", bytes.len())
}

/// The hash of an input of `len` bytes whose blocks hashed to `hashes`: the XXH3-128 of the
/// length and the hashes, little-endian.
fn combine(len: usize, hashes: &[u128]) -> u128 {
    let mut all = Vec::with_capacity(8 + 16 * hashes.len());
    all.extend_from_slice(&(len as u64).to_le_bytes());
    for hash in hashes {
        all.extend_from_slice(&hash.to_le_bytes());
    }
    xxh3_128(&all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_fact_is_named_with_both_values() {
        let mine = Identity::new().with("command", "values").with("--workers", 1);
        assert_eq!(mine.difference(&mine.clone()), None);
        let theirs = Identity::new().with("command", "values").with("--workers", 2);
        assert_eq!(mine.difference(&theirs).unwrap(), "--workers is 2 there, 1 here");
        let other = Identity::new().with("command", "solve --report").with("--workers", 2);
        assert_eq!(
            mine.difference(&other).unwrap(),
            "command is solve --report there, values here"
        );
        let shorter = Identity::new().with("command", "values");
        assert_eq!(mine.difference(&shorter).unwrap(), "--workers is unset there, 1 here");
    }

    #[test]
    fn fingerprints_see_every_byte_and_the_size() {
        let small = b"3\n1 1\n0\n".to_vec();
        let mut changed = small.clone();
        changed[0] = b'4';
        assert_ne!(fingerprint(&small), fingerprint(&changed));
        assert!(fingerprint(&small).starts_with("8 bytes (XXH3-128 of every byte, in 16 MiB "));
        // Blocks of 4 KiB here (16 MiB in use), so that the input spans many: a flipped bit
        // anywhere, in the first block, the last, either side of a boundary, changes it.
        let print = |bytes: &[u8]| fingerprint_with(bytes, 4096, |_, _| {});
        let big: Vec<u8> = (0..200_000u32).map(|i| b'0' + (i % 10) as u8).collect();
        let base = print(&big);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut places = vec![0, 4095, 4096, 4097, big.len() - 1];
        places.extend((0..200).map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % big.len() as u64) as usize
        }));
        for at in places {
            let mut other = big.clone();
            other[at] ^= 1;
            assert_ne!(print(&other), base, "byte {at}");
        }
        assert_ne!(print(&big[1..]), base, "another size");
        // The length is hashed in, and the blocks' order counts.
        assert_ne!(combine(10, &[1, 2]), combine(11, &[1, 2]));
        assert_ne!(combine(10, &[1, 2]), combine(10, &[2, 1]));
    }

    #[test]
    fn the_parallel_fingerprint_is_the_sequential_one() {
        let bytes: Vec<u8> =
            (0..300_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
        let sequential: Vec<u128> = bytes.chunks(4096).map(xxh3_128).collect();
        let expected = format!("{:032x}", combine(bytes.len(), &sequential));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let released = std::sync::Mutex::new(Vec::new());
        let print = pool.install(|| {
            fingerprint_with(&bytes, 4096, |start, end| released.lock().unwrap().push((start, end)))
        });
        assert!(print.ends_with(&format!("{expected})")), "{print}");
        // Every block released once, none past the end.
        let mut released = released.into_inner().unwrap();
        released.sort();
        let blocks: Vec<(usize, usize)> =
            (0..bytes.len()).step_by(4096).map(|s| (s, (s + 4096).min(bytes.len()))).collect();
        assert_eq!(released, blocks);
    }
}
