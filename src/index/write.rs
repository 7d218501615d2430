//! Writing an index: the head, then each case's sections as the case is solved (so a file of
//! many cases holds one in memory at a time), then the table and the footer.

use super::format::{self, CaseRecord, Entry, Footer, Kind, ALIGN, LOOPY, SUMS};
use crate::eval::Values;
use crate::graph::{Csr, GameGraph, Offset};
use crate::io::error::IoError;
use crate::io::sink::Put;
use crate::io::store::Plain;
use crate::play::{Measures, Play, NO_HEAP};

/// What an index keeps of one solved case.
pub struct CaseParts<'a> {
    /// The game.
    pub graph: &'a GameGraph,
    /// Every node's value ([`Values::INFINITE`] for `inf` in a loopy game).
    pub values: &'a Values,
    /// Every node's level; `None` in a loopy game.
    pub levels: Option<&'a [u32]>,
    /// The input's queries of the case: how many, and how many were WIN and DRAW.
    pub outcomes: (u64, u64, u64),
    /// The numbers of the plays asked for (`index --play`), kept beside the values.
    pub plays: &'a [Measures],
    /// True when the misère numbers among them carry the genus (`--genus`): kept too.
    pub genus: bool,
    /// The input's queries of the case under each of those plays: WIN, LOSE, UNDECIDED.
    pub play_outcomes: &'a [(Play, [u64; 3])],
}

/// An index being written to `out`.
pub struct Writer<'o, P: Put> {
    out: &'o mut P,
    at: u64,
    entries: Vec<Entry>,
    cases: u32,
    loopy: bool,
    format: u64,
}

impl<'o, P: Put> Writer<'o, P> {
    /// Starts an index of a game read in `format` (0 chess, 1 sums, 2 edges); `loopy` for
    /// generalized values.
    pub fn new(out: &'o mut P, format: u64, loopy: bool) -> Result<Writer<'o, P>, IoError> {
        let mut writer = Writer { out, at: 0, entries: Vec::new(), cases: 0, loopy, format };
        writer.put(&format::head())?;
        Ok(writer)
    }

    /// Appends the sections of the next case.
    pub fn case(&mut self, case: &CaseParts) -> Result<(), IoError> {
        self.cases += 1;
        let (queries, wins, draws) = case.outcomes;
        let mut record = CaseRecord { queries, wins, draws, ..CaseRecord::default() };
        record.nodes = case.graph.node_count() as u64;
        record.moves = case.graph.total_moves() as u64;
        match case.graph {
            GameGraph::Chess(g) => self.graph(g, &mut record)?,
            GameGraph::ChessWide(g) => self.graph(g, &mut record)?,
            GameGraph::Sums(g) => {
                record.flags |= SUMS;
                self.graph(g.deps(), &mut record)?;
                self.section(Kind::Moves, g.move_offsets())?;
                self.section(Kind::Parts, g.part_offsets())?;
            }
        }
        let loopy = self.loopy.then_some(Values::INFINITE);
        self.narrowest(Kind::Values, || case.values.iter(), loopy)?;
        for measures in case.plays {
            self.play(measures, case.genus)?;
        }
        if !case.play_outcomes.is_empty() {
            let words: Vec<u64> = case
                .play_outcomes
                .iter()
                .flat_map(|&(play, [wins, losses, undecided])| {
                    [format::play_code(play), wins, losses, undecided]
                })
                .collect();
            self.section(Kind::PlayOutcomes, &words)?;
        }
        if let Some(levels) = case.levels {
            match levels.iter().max() {
                Some(&max) if max > u16::MAX.into() => self.section(Kind::Levels, levels)?,
                _ => {
                    let narrow: Vec<u16> = levels.iter().map(|&l| l as u16).collect();
                    self.section(Kind::Levels, &narrow)?;
                }
            }
        }
        self.section(Kind::Case, &record.encode())
    }

    /// The table and the footer: the index is complete once they are written.
    pub fn finish(mut self) -> Result<(), IoError> {
        self.pad()?;
        let table: Vec<u8> = self.entries.iter().flat_map(|e| e.encode()).collect();
        let at = self.at;
        self.put(&table)?;
        let footer = Footer {
            table: at,
            sections: self.entries.len() as u64,
            cases: self.cases.into(),
            flags: if self.loopy { LOOPY } else { 0 },
            format: self.format,
            table_checksum: format::checksum(&table),
            length: self.at + format::HEAD as u64,
        };
        self.put(&footer.encode())
    }

    fn graph<O: Offset>(&mut self, g: &Csr<O>, record: &mut CaseRecord) -> Result<(), IoError> {
        record.targets = g.edge_count() as u64;
        self.section(Kind::Offsets, g.offsets())?;
        match g.is_in_mex_order() {
            true => self.section(Kind::TargetsInMexOrder, g.targets()),
            false => self.section(Kind::Targets, g.targets()),
        }
    }

    /// The sections of one play's numbers.
    fn play(&mut self, measures: &Measures, genus: bool) -> Result<(), IoError> {
        match measures {
            Measures::None => Ok(()),
            Measures::Remoteness(r) => self.narrowest(Kind::Remoteness, || r.iter().copied(), None),
            Measures::Suspense(s) => self.narrowest(Kind::Suspense, || s.iter().copied(), None),
            Measures::Misere(m, genera) => {
                self.narrowest(Kind::MisereGrundy, || m.iter().map(|x| x.grundy()), None)?;
                self.narrowest(
                    Kind::MisereHeap,
                    || m.iter().map(|x| x.heap_or_none()),
                    Some(NO_HEAP),
                )?;
                let tame: Vec<u8> = m.iter().map(|x| u8::from(x.tame())).collect();
                self.section(Kind::MisereTame, &tame)?;
                if !genus {
                    return Ok(());
                }
                let codes: Vec<u64> = genera.codes().iter().map(|c| c.0).collect();
                self.section(Kind::MisereGenus, &codes)?;
                let words: Vec<u32> = genera
                    .long()
                    .iter()
                    .flat_map(|p| std::iter::once(p.len() as u32).chain(p.iter().copied()))
                    .collect();
                self.section(Kind::MisereLongGenera, &words)
            }
        }
    }

    /// `numbers()` as section `kind` in the narrowest width of 1, 2 or 4 bytes that holds
    /// them. With a `top`, that number is written as the width's largest (a loopy game's
    /// `inf`, a misère position equal to no known heap), and the others stay below it.
    fn narrowest<I, F>(&mut self, kind: Kind, numbers: F, top: Option<u32>) -> Result<(), IoError>
    where
        I: Iterator<Item = u32>,
        F: Fn() -> I,
    {
        let largest = numbers().filter(|&x| Some(x) != top).max().unwrap_or(0);
        let fits = |max: u32| if top.is_some() { largest < max } else { largest <= max };
        let narrow = |max: u32| numbers().map(move |x| if Some(x) == top { max } else { x });
        if fits(u8::MAX.into()) {
            let bytes: Vec<u8> = narrow(u8::MAX.into()).map(|x| x as u8).collect();
            self.section(kind, &bytes)
        } else if fits(u16::MAX.into()) {
            let halves: Vec<u16> = narrow(u16::MAX.into()).map(|x| x as u16).collect();
            self.section(kind, &halves)
        } else {
            self.section(kind, &narrow(u32::MAX).collect::<Vec<u32>>())
        }
    }

    /// Writes `values` as a section of the current case, aligned.
    fn section<T: Plain>(&mut self, kind: Kind, values: &[T]) -> Result<(), IoError> {
        self.numbered(kind as u16, values)
    }

    /// Writes `values` as a section of kind number `kind` of the current case (a kind this
    /// version does not know, in tests: readers must skip it).
    pub(crate) fn numbered<T: Plain>(&mut self, kind: u16, values: &[T]) -> Result<(), IoError> {
        self.pad()?;
        let bytes = format::as_bytes(values);
        self.entries.push(Entry {
            case: self.cases,
            kind,
            width: std::mem::size_of::<T>() as u16,
            offset: self.at,
            count: values.len() as u64,
            checksum: format::checksum(bytes),
        });
        self.put(bytes)
    }

    /// Zeros up to the next multiple of [`ALIGN`].
    fn pad(&mut self) -> Result<(), IoError> {
        let gap = (ALIGN - self.at as usize % ALIGN) % ALIGN;
        self.put(&[0u8; ALIGN][..gap])
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), IoError> {
        self.at += bytes.len() as u64;
        // A section of megabytes goes to a file by every thread ([`Put::put_large`]); the
        // head, padding, table and footer are written as they are.
        self.out.put_large(bytes)
    }
}
