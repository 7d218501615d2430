//! The bytes of an index file, as docs/INDEX.md describes them: a 64-byte head, sections
//! aligned to 64 bytes, a table of sections, a 64-byte footer. Little-endian throughout.

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::io::store::Plain;

/// How an index starts: a byte with the high bit set (a 7-bit channel clears it), the name,
/// and a newline (a text-mode transfer changes it), as PNG's signature does. No text input
/// starts so.
pub const MAGIC: &[u8; 8] = b"\x89GRUNDY\n";
/// The version this grundy writes and reads; a change readers cannot ignore bumps it.
pub const VERSION: u32 = 1;
/// Bytes of the head and of the footer.
pub const HEAD: usize = 64;
/// Sections start at multiples of this (a cache line; any element type is aligned).
pub const ALIGN: usize = 64;
/// Bytes of one entry of the section table.
pub const ENTRY: usize = 40;
/// A checksum hashes its section in blocks of this many bytes (in parallel), then the
/// blocks' hashes.
pub const BLOCK: usize = 1 << 20;

/// What a section holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum Kind {
    /// The case's record: [`CaseRecord`], eight `u64`s.
    Case = 1,
    /// Where each node's out-list starts (`nodes + 1` entries, 4 or 8 bytes each).
    Offsets = 2,
    /// The out-lists, one after the other (one `u32` per edge; the parts of the moves in the
    /// sums format).
    Targets = 3,
    /// Each node's value (1, 2 or 4 bytes; in a loopy game the width's largest is `inf`).
    Values = 4,
    /// Each node's Kahn level (2 or 4 bytes); none in a loopy game.
    Levels = 5,
    /// Sums format: where each node's moves start among all moves (`nodes + 1` `u32`s).
    Moves = 6,
    /// Sums format: where each move's parts start among the targets (`moves + 1` `u32`s).
    Parts = 7,
    /// Conjunctive play (`index --play conjunctive`): each node's remoteness (1, 2 or 4 bytes).
    Remoteness = 8,
    /// Continued play: each node's suspense (1, 2 or 4 bytes).
    Suspense = 9,
    /// Misère play: each node's misère Grundy value (1, 2 or 4 bytes).
    MisereGrundy = 10,
    /// Misère play: the nim heap each node equals (1, 2 or 4 bytes; the width's largest
    /// number: none known).
    MisereHeap = 11,
    /// The outcomes of the input's queries of the case under each play `index --play` kept:
    /// four `u64`s a play ([`play_code`], WIN, LOSE, UNDECIDED), for `stats --play`.
    PlayOutcomes = 12,
    /// Misère play: whether each node is tame (one byte, 0 or 1). An index without it (made
    /// before it was added) keeps no misère numbers for the readers that know it.
    MisereTame = 13,
    /// Misère play with the genus (`index --play misere --genus`): each node's genus code
    /// (`u64`; [`crate::play::genus::Code`]): 0 unknown, an inline prefix, or 1 + the index of
    /// a prefix in [`Kind::MisereLongGenera`].
    MisereGenus = 14,
    /// Misère play with the genus: the prefixes too long for a code, one after the other, each
    /// its length (2 or more) then its entries (`u32`s). Kept with kind 14, maybe empty.
    MisereLongGenera = 15,
    /// The out-lists in mex order ([`crate::graph::mex_order`]): in place of
    /// [`Kind::Targets`] in the chess format, so that a winning move is one read.
    TargetsInMexOrder = 16,
}

/// One more than the largest kind number this version knows.
pub const KINDS: usize = 17;

/// The largest play number of a [`Kind::PlayOutcomes`] section ([`play_code`]).
pub const LAST_PLAY_CODE: u64 = 5;

/// How a play is numbered in a [`Kind::PlayOutcomes`] section.
pub fn play_code(play: crate::play::Play) -> u64 {
    use crate::play::Play;
    match play {
        Play::Normal => 0,
        Play::Misere { genus: false } => 1,
        Play::Conjunctive => 2,
        Play::Continued => 3,
        Play::Selective => 4,
        // The genus decides more sums, so its counts are not misère's without it.
        Play::Misere { genus: true } => 5,
    }
}

impl Kind {
    /// The kind numbered `n`, if this version knows it (a reader skips the others).
    pub fn of(n: u16) -> Option<Kind> {
        [
            Kind::Case,
            Kind::Offsets,
            Kind::Targets,
            Kind::Values,
            Kind::Levels,
            Kind::Moves,
            Kind::Parts,
            Kind::Remoteness,
            Kind::Suspense,
            Kind::MisereGrundy,
            Kind::MisereHeap,
            Kind::PlayOutcomes,
            Kind::MisereTame,
            Kind::MisereGenus,
            Kind::MisereLongGenera,
            Kind::TargetsInMexOrder,
        ]
        .into_iter()
        .find(|k| *k as u16 == n)
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Case => "case record",
            Kind::Offsets => "offsets",
            Kind::Targets => "targets",
            Kind::Values => "values",
            Kind::Levels => "levels",
            Kind::Moves => "move offsets",
            Kind::Parts => "part offsets",
            Kind::Remoteness => "remoteness",
            Kind::Suspense => "suspense",
            Kind::MisereGrundy => "misère values",
            Kind::MisereHeap => "misère heaps",
            Kind::PlayOutcomes => "plays' query outcomes",
            Kind::MisereTame => "misère tame flags",
            Kind::MisereGenus => "misère genus codes",
            Kind::MisereLongGenera => "misère long genera",
            Kind::TargetsInMexOrder => "targets in mex order",
        }
    }

    /// The element widths this kind may have.
    pub fn widths(self) -> &'static [u16] {
        match self {
            Kind::Case | Kind::PlayOutcomes => &[8],
            Kind::Offsets => &[4, 8],
            Kind::Targets | Kind::TargetsInMexOrder | Kind::Moves | Kind::Parts => &[4],
            Kind::Values
            | Kind::Remoteness
            | Kind::Suspense
            | Kind::MisereGrundy
            | Kind::MisereHeap => &[1, 2, 4],
            Kind::Levels => &[2, 4],
            Kind::MisereTame => &[1],
            Kind::MisereGenus => &[8],
            Kind::MisereLongGenera => &[4],
        }
    }
}

/// One entry of the section table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// 1-based case the section belongs to.
    pub case: u32,
    /// What it holds (the number, kept when unknown).
    pub kind: u16,
    /// Bytes per element.
    pub width: u16,
    /// Byte offset in the file (a multiple of [`ALIGN`]).
    pub offset: u64,
    /// Number of elements.
    pub count: u64,
    /// [`checksum`] of its bytes.
    pub checksum: u64,
}

impl Entry {
    /// The entry's bytes.
    pub fn encode(&self) -> [u8; ENTRY] {
        let mut out = [0u8; ENTRY];
        out[0..4].copy_from_slice(&self.case.to_le_bytes());
        out[4..6].copy_from_slice(&self.kind.to_le_bytes());
        out[6..8].copy_from_slice(&self.width.to_le_bytes());
        out[8..16].copy_from_slice(&self.offset.to_le_bytes());
        out[16..24].copy_from_slice(&self.count.to_le_bytes());
        out[24..32].copy_from_slice(&self.checksum.to_le_bytes());
        out
    }

    /// The entry of `bytes` ([`ENTRY`] of them).
    pub fn decode(bytes: &[u8]) -> Entry {
        Entry {
            case: u32_at(bytes, 0),
            kind: u16::from_le_bytes([bytes[4], bytes[5]]),
            width: u16::from_le_bytes([bytes[6], bytes[7]]),
            offset: u64_at(bytes, 8),
            count: u64_at(bytes, 16),
            checksum: u64_at(bytes, 24),
        }
    }

    /// Bytes of the section, if they fit a `u64`.
    pub fn bytes(&self) -> Option<u64> {
        self.count.checked_mul(self.width.into())
    }
}

/// The footer: where the table is and what the whole file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// Byte offset of the section table.
    pub table: u64,
    /// Entries in the table.
    pub sections: u64,
    /// Cases in the file.
    pub cases: u64,
    /// Bit 0: the values are a loopy game's (`--loopy`).
    pub flags: u64,
    /// The format the game was read in: 0 chess, 1 sums, 2 an edge list.
    pub format: u64,
    /// [`checksum`] of the table.
    pub table_checksum: u64,
    /// Length of the whole file.
    pub length: u64,
}

/// Footer flag: loopy values.
pub const LOOPY: u64 = 1;

impl Footer {
    /// The footer's bytes, its own checksum last.
    pub fn encode(&self) -> [u8; HEAD] {
        let mut out = [0u8; HEAD];
        let fields = [
            self.table,
            self.sections,
            self.cases,
            self.flags,
            self.format,
            self.table_checksum,
            self.length,
        ];
        for (i, f) in fields.iter().enumerate() {
            out[i * 8..i * 8 + 8].copy_from_slice(&f.to_le_bytes());
        }
        let own = xxh3_64(&out[..56]);
        out[56..].copy_from_slice(&own.to_le_bytes());
        out
    }

    /// The footer of `bytes` ([`HEAD`] of them), if its own checksum holds.
    pub fn decode(bytes: &[u8]) -> Option<Footer> {
        if xxh3_64(&bytes[..56]) != u64_at(bytes, 56) {
            return None;
        }
        Some(Footer {
            table: u64_at(bytes, 0),
            sections: u64_at(bytes, 8),
            cases: u64_at(bytes, 16),
            flags: u64_at(bytes, 24),
            format: u64_at(bytes, 32),
            table_checksum: u64_at(bytes, 40),
            length: u64_at(bytes, 48),
        })
    }
}

/// The head: magic and version, then zeros.
pub fn head() -> [u8; HEAD] {
    let mut out = [0u8; HEAD];
    out[..8].copy_from_slice(MAGIC);
    out[8..12].copy_from_slice(&VERSION.to_le_bytes());
    out
}

/// A case's record (the [`Kind::Case`] section): its sizes and its queries' outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CaseRecord {
    /// Nodes.
    pub nodes: u64,
    /// Entries of the targets section (edges; parts in the sums format).
    pub targets: u64,
    /// Moves (edges in the chess format).
    pub moves: u64,
    /// The input's queries of this case, and how many were WIN and DRAW (for `stats`).
    pub queries: u64,
    /// WIN queries.
    pub wins: u64,
    /// DRAW queries.
    pub draws: u64,
    /// Bit 0: the sums format.
    pub flags: u64,
}

/// Case record flag: a game of sums.
pub const SUMS: u64 = 1;

impl CaseRecord {
    /// The record as the section's eight `u64`s.
    pub fn encode(&self) -> [u64; 8] {
        [self.nodes, self.targets, self.moves, self.queries, self.wins, self.draws, self.flags, 0]
    }

    /// The record of the section's eight `u64`s.
    pub fn decode(w: &[u64]) -> CaseRecord {
        CaseRecord {
            nodes: w[0],
            targets: w[1],
            moves: w[2],
            queries: w[3],
            wins: w[4],
            draws: w[5],
            flags: w[6],
        }
    }
}

/// The checksum of a section: XXH3-64 of the XXH3-64 hashes (little-endian) of its
/// [`BLOCK`]-byte blocks, so that both cores hash one section at memory speed.
pub fn checksum(bytes: &[u8]) -> u64 {
    let hashes: Vec<u64> = bytes.par_chunks(BLOCK).map(xxh3_64).collect();
    combine(&hashes)
}

/// The checksum of a section whose blocks hashed to `hashes`.
pub fn combine(hashes: &[u64]) -> u64 {
    let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
    xxh3_64(&bytes)
}

/// The bytes of plain values, in this machine's byte order (the index checks it is
/// little-endian before reading or writing).
pub fn as_bytes<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` has no padding, so the values' memory is `size_of_val` initialised
    // bytes; u8 has alignment 1; the slice borrows `values`.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

/// The little-endian `u32` at `at`.
pub fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// The little-endian `u64` at `at`.
pub fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_footers_read_back_what_was_written() {
        let entry = Entry { case: 3, kind: 4, width: 2, offset: 640, count: 77, checksum: 9 };
        assert_eq!(Entry::decode(&entry.encode()), entry);
        let footer = Footer {
            table: 1 << 40,
            sections: 7,
            cases: 1,
            flags: LOOPY,
            format: 2,
            table_checksum: 5,
            length: 123,
        };
        let mut bytes = footer.encode();
        assert_eq!(Footer::decode(&bytes), Some(footer));
        bytes[3] ^= 1;
        assert_eq!(Footer::decode(&bytes), None, "a flipped bit fails its checksum");
        for k in 0..10 {
            assert!(Kind::of(k).is_none_or(|kind| kind as u16 == k));
        }
    }

    #[test]
    fn checksums_see_every_block() {
        let mut bytes = vec![7u8; 3 * BLOCK + 5];
        let sum = checksum(&bytes);
        for at in [0, BLOCK, 2 * BLOCK + 1, 3 * BLOCK + 4] {
            bytes[at] ^= 0x40;
            assert_ne!(checksum(&bytes), sum, "byte {at}");
            bytes[at] ^= 0x40;
        }
        assert_eq!(checksum(&bytes), sum);
    }
}
