//! What makes processes one run: the facts every process of a cluster must agree on before
//! any of them reads its share, so that processes started with another command, other options
//! or another file at the same path stop with an error instead of mixing their answers.
//!
//! A process's [`Claim`] is exchanged in every connection's handshake ([`super::handshake`])
//! and compared fact by fact; the first fact that differs is named in the error, with both
//! sides' values. A process that refused its own arguments claims [`Claim::Refused`] with its
//! message, so its peers fail at once with that message instead of waiting for it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

    /// Adds the fingerprint of `input` under `name` (its argument, e.g. `FILE`).
    pub fn input(self, name: &str, input: &Input) -> Identity {
        let value = fingerprint(input.bytes());
        // Each sampled block's page fault maps the cached pages around it too (fault-around,
        // up to 64 KiB): 256 of them left about 20 MB of the file resident in every process
        // (measured on the 1M/10M file). Nothing is read yet, so every page can go.
        input.release(0, input.bytes().len());
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

/// Bytes hashed per sampled block of an input.
const BLOCK: usize = 4096;
/// Blocks sampled from an input larger than `BLOCK * BLOCKS` (1 MiB, hashed whole): reading
/// them costs each process about a millisecond on a cached file, and a few milliseconds of
/// random reads on shared storage, whatever the file's size.
const BLOCKS: usize = 256;

/// An input's fingerprint: its size, and a SHA-256 of its size and of 256 blocks of 4 KiB
/// spread evenly through it (the first and the last among them), or of all of it up to 1 MiB.
/// Two files of the same size that differ only between the sampled blocks share a fingerprint:
/// the check catches another file at the same path, not a changed byte in the middle of a big
/// one (docs/CLUSTER.md).
pub fn fingerprint(bytes: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update((bytes.len() as u64).to_le_bytes());
    if bytes.len() <= BLOCK * BLOCKS {
        hash.update(bytes);
    } else {
        let last = bytes.len() - BLOCK;
        for k in 0..BLOCKS {
            let start = (last as u128 * k as u128 / (BLOCKS - 1) as u128) as usize;
            hash.update(&bytes[start..start + BLOCK]);
        }
    }
    let digest = hash.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("{} bytes (sampled SHA-256 {hex})", bytes.len())
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
    fn fingerprints_see_size_and_sampled_contents() {
        let small = b"3\n1 1\n0\n".to_vec();
        let mut changed = small.clone();
        changed[0] = b'4';
        assert_ne!(fingerprint(&small), fingerprint(&changed));
        assert!(fingerprint(&small).starts_with("8 bytes (sampled SHA-256 "));
        // A large input: a byte in a sampled block (the first, the last) changes it; a byte
        // between two blocks does not (the documented limit).
        let big: Vec<u8> = (0..5_000_000u32).map(|i| b'0' + (i % 10) as u8).collect();
        let base = fingerprint(&big);
        let middle = (big.len() - BLOCK) * 128 / (BLOCKS - 1) + 7;
        for at in [0, big.len() - 1, middle] {
            let mut other = big.clone();
            other[at] ^= 1;
            assert_ne!(fingerprint(&other), base, "byte {at}");
        }
        let step = (big.len() - BLOCK) / (BLOCKS - 1);
        let mut between = big.clone();
        between[step / 2 + BLOCK] ^= 1;
        assert_eq!(fingerprint(&between), base);
        assert_ne!(fingerprint(&big[1..]), base, "another size");
    }
}
