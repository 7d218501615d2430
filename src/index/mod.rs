//! The solved game as a file: `grundy index` writes each case's graph, values and levels once,
//! and `query`, `values` and `stats` read them back by a memory map instead of solving the
//! game again. The layout is docs/INDEX.md's ([`mod@format`]); [`mod@write`] writes it as cases are
//! solved, [`read`] opens and checks it.
//!
//! A case read from an index is the same [`crate::graph::GameGraph`] and
//! [`crate::eval::Values`] a text input gives, over arrays read in place
//! ([`crate::io::store::Store`]), so everything after the reading stage is shared.

pub mod format;
pub mod read;
pub mod write;

pub use read::{is_index, Index, IndexedCase};
pub use write::{CaseParts, Writer};

use crate::parse::format::Format;

/// How the format of the game an index was read from is recorded.
pub fn format_code(format: Format) -> u64 {
    match format {
        Format::Chess => 0,
        Format::Sums => 1,
        Format::Edges { .. } => 2,
    }
}

#[cfg(test)]
mod tests {
    use crate::exec::{self, Exec};
    use crate::report::Csv;
    use crate::{Format, Input};

    /// The `values` rows of an index, or its error.
    fn rows(bytes: Vec<u8>) -> Result<Vec<u8>, String> {
        let input = Input::from_bytes("<index>", bytes);
        let index = super::Index::open(&input, true).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        exec::values_of_index(&index, Exec::Sequential, &mut Csv::new(&mut out), &())
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    /// Every byte of a small index flipped (each bit in turn, over the bytes), and every
    /// truncation: refused, or (a flip in padding or the head's reserved bytes) read as the
    /// whole index reads. Never a panic, never another game.
    #[test]
    fn every_flip_and_every_cut_is_refused_or_harmless() {
        let chess: &[u8] = b"5\n2 1 2\n1 3\n1 3\n0\n1 3\n2 0 4\n1 1\n0\n3\n1 1\n1 2\n0\n";
        let loopy: &[u8] = b"4\n2 1 2\n1 0\n1 3\n0\n1 0\n2 1 2\n";
        let sums: &[u8] = b"3\n2 1 1 2 1 2\n1 1 2\n0\n1 0\n2 0 1\n";
        let inputs = [
            (chess, Format::Chess, false),
            (loopy, Format::Chess, true),
            (sums, Format::Sums, false),
        ];
        for (text, format, loopy) in inputs {
            let input = Input::from_bytes("<text>", text.to_vec());
            let mut index = Vec::new();
            let cases =
                exec::index(&input, (Exec::Sequential, format, loopy, &[]), &mut index, &());
            assert!(cases.expect("indexed") >= 1, "{format:?}");
            let whole = rows(index.clone()).expect("a fresh index reads back");
            let mut text_rows = Vec::new();
            exec::values(
                &input,
                (Exec::Sequential, format, loopy),
                &mut Csv::new(&mut text_rows),
                &(),
            )
            .expect("text");
            assert_eq!(whole, text_rows, "{format:?} loopy {loopy}");
            let mut refused = 0;
            for at in 0..index.len() {
                let mut bad = index.clone();
                bad[at] ^= 1 << (at % 8);
                match rows(bad) {
                    Ok(read) => assert_eq!(read, whole, "a flip at byte {at} read as another game"),
                    Err(_) => refused += 1,
                }
            }
            assert!(refused > index.len() / 2, "{refused} of {} flips refused", index.len());
            for cut in 1..index.len() {
                assert!(rows(index[..cut].to_vec()).is_err(), "cut at {cut}");
            }
        }
    }

    /// An index of one case (normal play, chess format) with the numbers of `plays`; with
    /// `extra`, a section of kind 99 (unknown to this version) before it.
    fn one_case(
        (graph, values, levels): (&crate::graph::GameGraph, &crate::eval::Values, &[u32]),
        plays: &[crate::play::Measures],
        extra: bool,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = super::Writer::new(&mut out, 0, false).expect("head");
        if extra {
            writer.numbered(99, &[7u32, 7, 7]).expect("extra");
        }
        let case = super::CaseParts {
            graph,
            values,
            levels: Some(levels),
            outcomes: (0, 0, 0),
            plays,
            genus: true,
            play_outcomes: &[],
        };
        writer.case(&case).expect("case");
        writer.finish().expect("end");
        out
    }

    /// A section of a kind this version does not know (a later grundy's column) is skipped:
    /// the index reads as it reads without it.
    #[test]
    fn sections_of_unknown_kinds_are_skipped() {
        use crate::eval::Values;
        use crate::graph::{Csr, GameGraph};
        let graph =
            GameGraph::Chess(Csr::from_lists(&[vec![1u32, 2], vec![2], vec![]]).expect("csr"));
        let values = Values::from_vec(vec![2, 1, 0]);
        let write = |extra: bool| one_case((&graph, &values, &[2, 1, 0]), &[], extra);
        let (plain, extended) = (write(false), write(true));
        assert_ne!(plain, extended);
        assert_eq!(rows(extended).expect("read"), rows(plain).expect("read"));
    }

    /// A case's lists come back in the order written: mex order (kind 16, marked so) or
    /// input order (kind 3); a case with both is refused.
    #[test]
    fn lists_read_back_in_their_order_and_never_twice() {
        use crate::eval::Values;
        use crate::graph::{Csr, GameGraph};
        // Node 0 (value 2) lists a move to 1 before its first move to 0.
        let lists = [vec![2u32, 1, 3], vec![], vec![1], vec![]];
        let values = Values::from_vec(vec![2, 0, 1, 0]);
        let plain = GameGraph::Chess(Csr::from_lists(&lists).expect("csr"));
        let ordered = plain.clone().in_mex_order(&|v| values.get(v));
        for (graph, first) in [(&plain, [2, 1, 3]), (&ordered, [1, 2, 3])] {
            let out = one_case((graph, &values, &[2, 0, 1, 0]), &[], false);
            let index = super::Index::open(&Input::from_bytes("<index>", out), true).expect("open");
            let GameGraph::Chess(g) = index.case(0, false).expect("case").graph else {
                panic!("a chess case")
            };
            assert_eq!(g.successors(0), first);
            assert_eq!(g.is_in_mex_order(), first == [1, 2, 3]);
        }
        let mut out = Vec::new();
        let mut writer = super::Writer::new(&mut out, 0, false).expect("head");
        let case = super::CaseParts {
            graph: &ordered,
            values: &values,
            levels: Some(&[2, 0, 1, 0]),
            outcomes: (0, 0, 0),
            plays: &[],
            genus: false,
            play_outcomes: &[],
        };
        writer.case(&case).expect("case");
        writer.numbered(super::format::Kind::Targets as u16, &[2u32, 1, 3, 1]).expect("again");
        writer.finish().expect("end");
        let error = super::Index::open(&Input::from_bytes("<index>", out), true).err();
        let message = error.map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("targets section is missing or of the wrong size"), "{message}");
    }

    /// The plays' numbers come back as written, in each width: a misère position equal to no
    /// heap stays so whatever the width, and a heap just below the width's top stays a heap.
    #[test]
    fn kept_plays_read_back_in_every_width() {
        use crate::eval::Values;
        use crate::graph::{Csr, GameGraph};
        use crate::play::genus::{Code, Genera};
        use crate::play::{Measures, Misere, Play};
        let graph = GameGraph::Chess(Csr::from_lists(&[vec![1u32], vec![], vec![]]).expect("csr"));
        let values = Values::from_vec(vec![1, 0, 0]);
        for top in [3, 254, 255, 65_534, 65_535, 70_000, u32::MAX - 1] {
            let plays = vec![
                Measures::Remoteness(vec![1, 0, top]),
                Measures::Suspense(vec![top, 0, 1]),
                Measures::Misere(
                    vec![
                        Misere::new(top, None, false),
                        Misere::new(1, Some(top.min(Misere::LARGEST_HEAP)), true),
                        Misere::new(0, Some(1), true),
                    ],
                    Genera::new(
                        vec![Code(1), Code::UNKNOWN, Code(0x2000_0000_0000_0003)],
                        vec![vec![top, 5, 7].into()],
                    ),
                ),
            ];
            let out = one_case((&graph, &values, &[1, 0, 0]), &plays, false);
            let index = super::Index::open(&Input::from_bytes("<index>", out), true).expect("open");
            let play = [Play::Conjunctive, Play::Continued, Play::Misere { genus: true }];
            for (play, kept) in play.into_iter().zip(&plays) {
                let read = index.measures(0, play).expect("read");
                assert_eq!(read.as_ref(), Some(kept), "{play:?} up to {top}");
            }
            assert_eq!(index.measures(0, Play::Selective).expect("read"), None);
        }
    }
}
