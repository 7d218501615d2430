//! Opening an index: a memory map and checks. Whatever the bytes, a file is either refused
//! with a message naming what is wrong, or every array handed out satisfies the invariants
//! the engine's types state (so no read goes out of bounds and no answer is made up).

use std::sync::Arc;

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use super::format::{
    self, CaseRecord, Entry, Footer, Kind, ALIGN, BLOCK, ENTRY, HEAD, KINDS, LOOPY, MAGIC, SUMS,
    VERSION,
};
use crate::error::Error;
use crate::eval::Values;
use crate::graph::{Csr, GameGraph, Offset, SumsGraph};
use crate::io::input::Input;
use crate::io::store::{Ints, Pinned, Plain, Store};
use crate::play::genus::{Code, Genera};
use crate::play::{Measures, Misere, Play};

/// An index file, opened: its table read and checked; each case's arrays are checked when
/// the case is taken ([`Index::case`]).
pub struct Index {
    name: String,
    owner: Arc<dyn Pinned>,
    /// Where the index starts in the owner's bytes.
    base: usize,
    footer: Footer,
    cases: Vec<Sections>,
    verify: bool,
}

/// One case's record and sections.
struct Sections {
    record: CaseRecord,
    /// By [`Kind`] number.
    entries: [Option<Entry>; KINDS],
}

impl Sections {
    fn get(&self, kind: Kind) -> Option<Entry> {
        self.entries[kind as usize]
    }

    /// The out-lists' section, and whether they are in mex order.
    fn targets(&self) -> Result<(Entry, bool), String> {
        match self.get(Kind::TargetsInMexOrder) {
            Some(entry) => Ok((entry, true)),
            None => Ok((need(self, Kind::Targets)?, false)),
        }
    }
}

/// A case as an index gives it back.
#[derive(Debug)]
pub struct IndexedCase {
    /// 1-based case number.
    pub case: u64,
    /// The game.
    pub graph: GameGraph,
    /// Every node's value.
    pub values: Values,
    /// Every node's level, when asked for and kept (not in a loopy game).
    pub levels: Option<Ints>,
    /// The input's queries of the case, and how many were WIN and DRAW.
    pub outcomes: (u64, u64, u64),
}

/// True when `bytes` start as an index does, whatever the file's name.
pub fn is_index(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

impl Index {
    /// Opens the index held by `input`, checking its head, footer and section table; with
    /// `verify`, each case's checksums are checked when it is taken.
    pub fn open(input: &Input, verify: bool) -> Result<Index, Error> {
        let name = input.name().to_string();
        let fail = |message: String| Error::Index { path: name.clone(), message };
        if cfg!(target_endian = "big") {
            return Err(fail("indexes are little-endian and this machine is not".into()));
        }
        let (owner, base) = input.owner();
        let bytes = input.bytes();
        if !is_index(bytes) {
            return Err(fail("not an index: it does not start with grundy's signature".into()));
        }
        if bytes.len() < 2 * HEAD {
            return Err(fail(format!(
                "truncated: {} bytes, where an index has at least {}",
                bytes.len(),
                2 * HEAD
            )));
        }
        let version = format::u32_at(bytes, 8);
        if version != VERSION {
            return Err(fail(format!(
                "index version {version}, and this grundy reads version {VERSION}: index the game again"
            )));
        }
        let Some(footer) = Footer::decode(&bytes[bytes.len() - HEAD..]) else {
            return Err(fail(
                "truncated or corrupt: its footer does not check (cut short, or written by a run that did not finish)".into(),
            ));
        };
        if footer.length != bytes.len() as u64 {
            return Err(fail(format!(
                "{} bytes, where its footer says {}: the file was cut or extended",
                bytes.len(),
                footer.length
            )));
        }
        let table_end = (bytes.len() - HEAD) as u64;
        let fits =
            footer.sections.checked_mul(ENTRY as u64).and_then(|b| b.checked_add(footer.table));
        if fits != Some(table_end) || footer.table < HEAD as u64 {
            return Err(fail("corrupt: its section table is not where the footer says".into()));
        }
        let table = &bytes[footer.table as usize..table_end as usize];
        if format::checksum(table) != footer.table_checksum {
            return Err(fail("corrupt: the section table's checksum does not match".into()));
        }
        let cases = sections(table, &footer, bytes).map_err(fail)?;
        Ok(Index { name, owner, base, footer, cases, verify })
    }

    /// Number of cases.
    pub fn case_count(&self) -> usize {
        self.cases.len()
    }

    /// True when the values are a loopy game's.
    pub fn is_loopy(&self) -> bool {
        self.footer.flags & LOOPY != 0
    }

    /// The format the game was read in: 0 chess, 1 sums, 2 an edge list.
    pub fn format(&self) -> u64 {
        self.footer.format
    }

    /// The name to use in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Case `i` (from 0), its arrays checked (checksums with `verify`, and the invariants of
    /// the graph always); its levels only when `levels` asks for them.
    pub fn case(&self, i: usize, levels: bool) -> Result<IndexedCase, Error> {
        let sections = &self.cases[i];
        let record = sections.record;
        let fail = |message: String| Error::Index {
            path: self.name.clone(),
            message: format!("case {}: {message}", i + 1),
        };
        let nodes = record.nodes as usize;
        let wide = sections.get(Kind::Offsets).is_some_and(|e| e.width == 8);
        let graph = if wide {
            let g = self.csr::<u64>(sections, nodes).map_err(fail)?;
            GameGraph::ChessWide(g)
        } else {
            let g = self.csr::<u32>(sections, nodes).map_err(fail)?;
            if record.flags & SUMS != 0 {
                GameGraph::Sums(self.sums(sections, g, record).map_err(fail)?)
            } else {
                GameGraph::Chess(g)
            }
        };
        let values = self.values(sections).map_err(fail)?;
        let levels = match (levels, sections.get(Kind::Levels)) {
            (true, Some(entry)) => Some(self.ints(entry).map_err(fail)?),
            _ => None,
        };
        let outcomes = (record.queries, record.wins, record.draws);
        Ok(IndexedCase { case: i as u64 + 1, graph, values, levels, outcomes })
    }

    /// Case `i` as [`Index::case`] takes it, for a reader of the whole game (`stats`, the
    /// plays' numbers): every move checked to lead to a node of the case with `--trust` too
    /// (such a reader reads every move anyway, so the check costs it no page), and every value
    /// and level checked to be one a game can have, a value at most its node's move count (a
    /// mex of that many values), a level below the node count: these readers count nodes per
    /// value and per level in tables that long, which a forged 4-byte number would make
    /// gigabytes.
    pub fn whole_case(&self, i: usize, levels: bool) -> Result<IndexedCase, Error> {
        let case = self.case(i, levels)?;
        let fail = |what: &str| Error::Index {
            path: self.name.clone(),
            message: format!("case {}: corrupt: {what}", i + 1),
        };
        let nodes = case.graph.node_count();
        // Verifying, `csr` checked the moves with their checksum.
        if !self.verify
            && !case.graph.deps().targets().par_chunks(BLOCK / 4).all(|c| below(c, nodes))
        {
            return Err(fail("a move leads to a node that is not in the case"));
        }
        let (graph, values, loopy) = (&case.graph, &case.values, self.is_loopy());
        let value_fits = |v: u32| {
            let g = values.get(v);
            g <= graph.move_count(v) || (loopy && g == Values::INFINITE)
        };
        if !(0..nodes as u32).into_par_iter().all(value_fits) {
            return Err(fail("a value is above its node's move count"));
        }
        if let Some(levels) = &case.levels {
            if !(0..nodes).into_par_iter().all(|v| (levels.get(v) as usize) < nodes) {
                return Err(fail("a level is not below the node count"));
            }
        }
        Ok(case)
    }

    /// The store of section `entry`: read in place when aligned in memory, else copied.
    fn store<T: Plain>(&self, entry: Entry) -> Store<T> {
        let offset = self.base + entry.offset as usize;
        let count = entry.count as usize;
        // The table's check put every section inside the file, so either read succeeds.
        Store::pinned(&self.owner, offset, count)
            .or_else(|| Store::copied(self.owner.pinned(), offset, count))
            .unwrap_or_default()
    }

    /// The store of section `entry`, its checksum checked when verifying.
    fn checked<T: Plain>(&self, entry: Entry) -> Result<Store<T>, String> {
        let store = self.store::<T>(entry);
        if self.verify && format::checksum(format::as_bytes(&store)) != entry.checksum {
            return Err(mismatch(entry));
        }
        Ok(store)
    }

    /// The case's graph (its dependency graph in the sums format): offsets that start at 0,
    /// never decrease and end at the targets' count, and (when verifying) every target a
    /// node, checked in the same pass as the targets' checksum.
    fn csr<O: Offset>(&self, sections: &Sections, nodes: usize) -> Result<Csr<O>, String> {
        let (offsets, (targets, mex_order)) = (need(sections, Kind::Offsets)?, sections.targets()?);
        let offsets = self.checked::<O>(offsets)?;
        if !starts_and_rises(&offsets, targets.count) {
            return Err("corrupt: its offsets do not run from 0 up to its edge count".into());
        }
        let store = self.store::<u32>(targets);
        if self.verify {
            let blocks: Vec<(u64, bool)> = store
                .par_chunks(BLOCK / 4)
                .map(|c| (xxh3_64(format::as_bytes(c)), below(c, nodes)))
                .collect();
            let hashes: Vec<u64> = blocks.iter().map(|b| b.0).collect();
            if format::combine(&hashes) != targets.checksum {
                return Err(mismatch(targets));
            }
            if !blocks.iter().all(|b| b.1) {
                return Err("corrupt: a move leads to a node that is not in the case".into());
            }
        }
        let graph = Csr::from_checked_stores(offsets, store);
        Ok(if mex_order { graph.marked_in_mex_order() } else { graph })
    }

    /// The sums format's move and part offsets, consistent with the dependency graph `deps`.
    fn sums(
        &self,
        sections: &Sections,
        deps: Csr,
        record: CaseRecord,
    ) -> Result<SumsGraph, String> {
        let moves = self.checked::<u32>(need(sections, Kind::Moves)?)?;
        let parts = self.checked::<u32>(need(sections, Kind::Parts)?)?;
        let consistent = starts_and_rises(&moves, record.moves)
            && starts_and_rises(&parts, record.targets)
            && moves.len() == deps.node_count() + 1
            && moves
                .par_iter()
                .zip(deps.offsets().par_iter())
                .all(|(&m, &d)| parts.get(m as usize) == Some(&d));
        if !consistent {
            return Err("corrupt: its moves and their parts do not agree".into());
        }
        Ok(SumsGraph::from_checked_stores(deps, moves, parts))
    }

    /// The values, read in place when acyclic; a loopy game's narrow `inf` made
    /// [`Values::INFINITE`].
    fn values(&self, sections: &Sections) -> Result<Values, String> {
        let ints = self.ints(need(sections, Kind::Values)?)?;
        if !self.is_loopy() {
            return Ok(Values::from_ints(ints));
        }
        let top = top(ints.width());
        let wide = ints.iter().map(|g| if g == top { Values::INFINITE } else { g }).collect();
        Ok(Values::from_vec(wide))
    }

    /// The numbers of `play` kept for case `i` (from 0) by `index --play`, if they were;
    /// normal and selective play keep none (they need the values only).
    pub fn measures(&self, i: usize, play: Play) -> Result<Option<Measures>, Error> {
        let sections = &self.cases[i];
        let fail = |message: String| Error::Index {
            path: self.name.clone(),
            message: format!("case {}: {message}", i + 1),
        };
        let numbers = |kind: Kind| -> Result<Option<Ints>, Error> {
            sections.get(kind).map(|entry| self.ints(entry).map_err(fail)).transpose()
        };
        Ok(match play {
            Play::Normal | Play::Selective => None,
            Play::Conjunctive => {
                numbers(Kind::Remoteness)?.map(|r| Measures::Remoteness(r.iter().collect()))
            }
            Play::Continued => {
                numbers(Kind::Suspense)?.map(|s| Measures::Suspense(s.iter().collect()))
            }
            Play::Misere { .. } => {
                let (Some(grundy), Some(heap), Some(tame)) = (
                    numbers(Kind::MisereGrundy)?,
                    numbers(Kind::MisereHeap)?,
                    numbers(Kind::MisereTame)?,
                ) else {
                    return Ok(None);
                };
                let genus = match play.genus() {
                    true => match self.genera(i)? {
                        Some(genera) => Some(genera),
                        // Kept without the genus: computed again, genus and all.
                        None => return Ok(None),
                    },
                    false => None,
                };
                let none = top(heap.width());
                let heap = |i: usize| Some(heap.get(i)).filter(|&h| h != none);
                let flag = |i: usize| match tame.get(i) {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(fail(format!("corrupt: {} not 0 or 1", Kind::MisereTame.name()))),
                };
                let numbers = (0..grundy.len())
                    .map(|i| Ok(Misere::new(grundy.get(i), heap(i), flag(i)?)))
                    .collect::<Result<_, Error>>()?;
                Some(Measures::Misere(numbers, genus.unwrap_or_default()))
            }
        })
    }

    /// Case `i`'s misère genus codes and long prefixes, if kept (`index --play misere
    /// --genus`): each code unknown, inline with no stray bits, or naming a long prefix there
    /// is; each long prefix 2 entries or more; anything else refused as corrupt.
    fn genera(&self, i: usize) -> Result<Option<Genera>, Error> {
        let sections = &self.cases[i];
        let (Some(codes), Some(long)) =
            (sections.get(Kind::MisereGenus), sections.get(Kind::MisereLongGenera))
        else {
            return Ok(None);
        };
        let fail = |message: String| Error::Index {
            path: self.name.clone(),
            message: format!("case {}: {message}", i + 1),
        };
        let corrupt = |kind: Kind| fail(format!("corrupt: its {} do not check", kind.name()));
        let words = self.checked::<u32>(long).map_err(fail)?;
        let mut prefixes = Vec::new();
        let mut rest = &words[..];
        while let Some((&len, after)) = rest.split_first() {
            let len = len as usize;
            if len < 2 || len > after.len() {
                return Err(corrupt(Kind::MisereLongGenera));
            }
            prefixes.push(after[..len].into());
            rest = &after[len..];
        }
        let codes = self.checked::<u64>(codes).map_err(fail)?;
        let codes: Vec<Code> = codes.iter().map(|&c| Code(c)).collect();
        if !codes.iter().all(|c| c.is_valid(prefixes.len())) {
            return Err(corrupt(Kind::MisereGenus));
        }
        Ok(Some(Genera::new(codes, prefixes)))
    }

    /// The outcomes of case `i`'s queries (from 0) under `play`, if `index --play` kept them:
    /// WIN, LOSE and UNDECIDED.
    pub fn play_outcomes(&self, i: usize, play: Play) -> Result<Option<[u64; 3]>, Error> {
        let fail = |message: String| Error::Index {
            path: self.name.clone(),
            message: format!("case {}: {message}", i + 1),
        };
        let Some(entry) = self.cases[i].get(Kind::PlayOutcomes) else { return Ok(None) };
        let words = self.checked::<u64>(entry).map_err(fail)?;
        let corrupt = || fail(format!("corrupt: its {} do not check", Kind::PlayOutcomes.name()));
        if words.len() % 4 != 0 {
            return Err(corrupt());
        }
        let code = format::play_code(play);
        let mut found = None;
        for play in words.chunks_exact(4) {
            if play[0] > format::LAST_PLAY_CODE {
                return Err(corrupt());
            }
            if play[0] == code && found.replace([play[1], play[2], play[3]]).is_some() {
                return Err(corrupt());
            }
        }
        // The record counts every query once, under any play.
        let queries = self.cases[i].record.queries;
        match found {
            Some(c) if c.iter().try_fold(0u64, |a, &x| a.checked_add(x)) != Some(queries) => {
                Err(corrupt())
            }
            found => Ok(found),
        }
    }

    fn ints(&self, entry: Entry) -> Result<Ints, String> {
        Ok(match entry.width {
            1 => Ints::U8(self.checked(entry)?),
            2 => Ints::U16(self.checked(entry)?),
            _ => Ints::U32(self.checked(entry)?),
        })
    }
}

/// The largest number of a width: a loopy game's `inf`, a misère position equal to no heap.
fn top(width: usize) -> u32 {
    match width {
        1 => u8::MAX.into(),
        2 => u16::MAX.into(),
        _ => u32::MAX,
    }
}

/// The section of `kind`, which the table's check found.
fn need(sections: &Sections, kind: Kind) -> Result<Entry, String> {
    sections.get(kind).ok_or_else(|| format!("corrupt: no {} section", kind.name()))
}

fn mismatch(entry: Entry) -> String {
    let name = Kind::of(entry.kind).map_or("unknown", Kind::name);
    format!("corrupt: the checksum of its {name} does not match")
}

/// True when `offsets` start at 0, never decrease and end at `end`.
fn starts_and_rises<O: Offset>(offsets: &[O], end: u64) -> bool {
    offsets.first() == Some(&O::default())
        && offsets.last().is_some_and(|&o| o.into() == end)
        && never_decrease(offsets)
}

/// Offsets compared per parallel task (the last one of a task is compared with the next's
/// first too).
const RUN: usize = 1 << 16;

/// True when no offset is above the next, in parallel runs. Each run is compared whole,
/// without stopping at the first decrease: a loop without an exit is vectorized (a corrupt
/// file is rare; the check is on every open).
fn never_decrease<O: Offset>(offsets: &[O]) -> bool {
    let pairs = offsets.len().saturating_sub(1);
    (0..pairs.div_ceil(RUN)).into_par_iter().all(|run| {
        let (start, end) = (run * RUN, (run * RUN + RUN).min(pairs));
        let (these, next) = (&offsets[start..end], &offsets[start + 1..end + 1]);
        these.iter().zip(next).fold(true, |rising, (a, b)| rising & (a <= b))
    })
}

/// True when every target of `targets` is below `nodes`: their largest, vectorized.
fn below(targets: &[u32], nodes: usize) -> bool {
    targets.iter().copied().max().is_none_or(|m| (m as usize) < nodes)
}

/// Each case's sections, from the table: every section inside the file and aligned, of a
/// width its kind takes, and each case with the sections its record calls for, of the
/// counts it gives. Sections of kinds this version does not know are skipped.
fn sections(table: &[u8], footer: &Footer, bytes: &[u8]) -> Result<Vec<Sections>, String> {
    let case_count = usize::try_from(footer.cases).ok().filter(|&c| c <= table.len() / ENTRY);
    let case_count = case_count.ok_or("corrupt: more cases than sections")?;
    let mut cases: Vec<[Option<Entry>; KINDS]> = vec![[None; KINDS]; case_count];
    for raw in table.chunks_exact(ENTRY) {
        let entry = Entry::decode(raw);
        let Some(kind) = Kind::of(entry.kind) else { continue };
        let inside = entry
            .bytes()
            .and_then(|b| b.checked_add(entry.offset))
            .is_some_and(|end| end <= footer.table && entry.offset >= HEAD as u64);
        let slot = (entry.case as usize).checked_sub(1).and_then(|c| cases.get_mut(c));
        let shaped =
            inside && entry.offset % ALIGN as u64 == 0 && kind.widths().contains(&entry.width);
        match slot {
            Some(slot) if shaped && slot[kind as usize].is_none() => {
                slot[kind as usize] = Some(entry)
            }
            _ => return Err(format!("corrupt: a {} section is out of place", kind.name())),
        }
    }
    let loopy = footer.flags & LOOPY != 0;
    cases
        .into_iter()
        .enumerate()
        .map(|(i, entries)| {
            let fail = |what: &str| format!("case {}: corrupt: {what}", i + 1);
            let record = entries[Kind::Case as usize].ok_or_else(|| fail("no case record"))?;
            if record.count != 8 {
                return Err(fail("its record does not check"));
            }
            let words = &bytes[record.offset as usize..][..64];
            if format::checksum(words) != record.checksum {
                return Err(fail("its record does not check"));
            }
            let words: Vec<u64> = (0..8).map(|k| format::u64_at(words, k * 8)).collect();
            let record = CaseRecord::decode(&words);
            let sums = record.flags & SUMS != 0;
            // The chess format's lists in input order or in mex order: one of the two.
            let (targets, other) = match entries[Kind::TargetsInMexOrder as usize] {
                Some(_) if !sums => (Kind::TargetsInMexOrder, Kind::Targets),
                _ => (Kind::Targets, Kind::TargetsInMexOrder),
            };
            let counts = [
                (Kind::Offsets, record.nodes.checked_add(1)),
                (targets, Some(record.targets)),
                (other, None),
                (Kind::Values, Some(record.nodes)),
                (Kind::Levels, (!loopy).then_some(record.nodes)),
                (Kind::Moves, if sums { record.nodes.checked_add(1) } else { None }),
                (Kind::Parts, if sums { record.moves.checked_add(1) } else { None }),
            ];
            // The plays' numbers are kept when asked for: absent, or one per node (misère
            // play's two sections together).
            let misere = entries[Kind::MisereGrundy as usize].is_some();
            let plays = [
                (Kind::Remoteness, entries[Kind::Remoteness as usize].is_some()),
                (Kind::Suspense, entries[Kind::Suspense as usize].is_some()),
                (Kind::MisereGrundy, misere),
                (Kind::MisereHeap, misere),
                (Kind::MisereTame, misere && entries[Kind::MisereTame as usize].is_some()),
                (Kind::MisereGenus, misere && entries[Kind::MisereGenus as usize].is_some()),
            ];
            let plays = plays.map(|(kind, kept)| (kind, kept.then_some(record.nodes)));
            for (kind, count) in counts.into_iter().chain(plays) {
                if entries[kind as usize].map(|e| e.count) != count {
                    return Err(fail(&format!(
                        "its {} section is missing or of the wrong size",
                        kind.name()
                    )));
                }
            }
            // The long genera go with the genus codes, and with them only.
            let (codes, long) = (Kind::MisereGenus as usize, Kind::MisereLongGenera as usize);
            if entries[codes].is_some() != entries[long].is_some() {
                return Err(fail("its misère genus codes and long genera are not kept together"));
            }
            let wide = entries[Kind::Offsets as usize].is_some_and(|e| e.width == 8);
            if record.nodes > u32::MAX as u64
                || (sums && wide)
                || (!sums && record.moves != record.targets)
            {
                return Err(fail("its record does not describe a game"));
            }
            Ok(Sections { record, entries })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decrease anywhere (inside a run, at a run's last pair, across two runs) is found, on
    /// both widths of offsets; rising offsets pass, and so do equal ones.
    #[test]
    fn a_decrease_is_found_wherever_it_is() {
        let len = 2 * RUN + 3;
        let rising: Vec<u64> = (0..len as u64).map(|i| i / 2).collect();
        assert!(never_decrease(&rising));
        assert!(never_decrease(&rising.iter().map(|&o| o as u32).collect::<Vec<u32>>()));
        assert!(never_decrease::<u32>(&[]) && never_decrease(&[7u32]));
        for at in [1, 2, RUN - 1, RUN, RUN + 1, 2 * RUN, len - 1] {
            let mut bad = rising.clone();
            // Only the pair (at - 1, at) decreases.
            bad[at - 1] = bad[at] + 1;
            assert!(!never_decrease(&bad), "a decrease at {at} of u64 offsets");
            let narrow: Vec<u32> = bad.iter().map(|&o| o as u32).collect();
            assert!(!never_decrease(&narrow), "a decrease at {at} of u32 offsets");
        }
    }

    /// A target at or above the node count is found wherever it is.
    #[test]
    fn a_target_past_the_nodes_is_found() {
        let targets: Vec<u32> = (0..1000).map(|i| i % 10).collect();
        assert!(below(&targets, 10) && below(&[], 0));
        for at in [0, 1, 500, 999] {
            let mut bad = targets.clone();
            bad[at] = 10;
            assert!(!below(&bad, 10), "target {at}");
        }
    }
}
