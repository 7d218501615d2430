//! Properties over random games (proptest, a fixed number of cases so CI stays fast), through
//! the library's command engines: answers equal the oracle's, values do not depend on how the
//! nodes are numbered, one thread and several give the same bytes, every reported winning move
//! wins, and `values` then `query` agree with `solve`.

use grundy::exec::{self, Exec};
use grundy::report::{Columns, Csv};
use grundy::Format;
use grundy::Input;
use proptest::prelude::*;

/// A game: each node's moves, each move a list of parts (one part in the chess format).
#[derive(Debug, Clone)]
struct Game {
    moves: Vec<Vec<Vec<u32>>>,
    queries: Vec<Vec<u32>>,
}

impl Game {
    fn text(&self, format: Format) -> String {
        let mut out = format!("{}\n", self.moves.len());
        for moves in &self.moves {
            out.push_str(&moves.len().to_string());
            for m in moves {
                if format == Format::Sums {
                    out.push_str(&format!(" {}", m.len()));
                }
                m.iter().for_each(|p| out.push_str(&format!(" {p}")));
            }
            out.push('\n');
        }
        for q in &self.queries {
            out.push_str(&q.len().to_string());
            q.iter().for_each(|p| out.push_str(&format!(" {p}")));
            out.push('\n');
        }
        out.push_str("0\n");
        out
    }

    fn query_file(&self) -> String {
        let lines: Vec<String> = self
            .queries
            .iter()
            .map(|q| {
                std::iter::once(q.len())
                    .chain(q.iter().map(|&p| p as usize))
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        lines.join("\n")
    }

    /// Values by relaxation: the mex over moves of the XOR of their parts.
    fn oracle(&self) -> Vec<u32> {
        let mut g = vec![0u32; self.moves.len()];
        for _ in 0..=self.moves.len() {
            for v in 0..self.moves.len() {
                let values: Vec<u32> = self.moves[v]
                    .iter()
                    .map(|m| m.iter().fold(0, |a, &p| a ^ g[p as usize]))
                    .collect();
                g[v] = (0..).find(|x| !values.contains(x)).unwrap();
            }
        }
        g
    }

    /// The same game with node `v` renamed `perm[v]`.
    fn renumbered(&self, perm: &[u32]) -> Game {
        let mut moves = vec![Vec::new(); self.moves.len()];
        for (v, list) in self.moves.iter().enumerate() {
            moves[perm[v] as usize] =
                list.iter().map(|m| m.iter().map(|&p| perm[p as usize]).collect()).collect();
        }
        let queries =
            self.queries.iter().map(|q| q.iter().map(|&p| perm[p as usize]).collect()).collect();
        Game { moves, queries }
    }
}

/// Random acyclic games: parts go from a lower hidden rank to a higher one.
fn game(max_parts: usize) -> impl Strategy<Value = Game> {
    (1usize..30).prop_flat_map(move |n| {
        let rank = Just((0..n as u32).collect::<Vec<u32>>()).prop_shuffle();
        let moves = prop::collection::vec(
            prop::collection::vec(
                prop::collection::vec(any::<prop::sample::Index>(), 1..=max_parts),
                0..5,
            ),
            n,
        );
        let queries = prop::collection::vec(prop::collection::vec(0..n as u32, 1..5), 0..8);
        (rank, moves, queries).prop_map(move |(by_rank, moves, queries)| {
            let mut rank_of = vec![0usize; n];
            by_rank.iter().enumerate().for_each(|(r, &v)| rank_of[v as usize] = r);
            let moves = (0..n)
                .map(|v| {
                    let later = n - rank_of[v] - 1;
                    if later == 0 {
                        return Vec::new();
                    }
                    moves[v]
                        .iter()
                        .map(|m| {
                            m.iter().map(|i| by_rank[rank_of[v] + 1 + i.index(later)]).collect()
                        })
                        .collect()
                })
                .collect();
            Game { moves, queries }
        })
    })
}

/// The sequential twins for one thread; the parallel path with 7-byte windows otherwise.
fn exec_of(threads: usize) -> Exec {
    if threads == 1 {
        Exec::Sequential
    } else {
        Exec::Rayon { chunk_bytes: 7 }
    }
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

/// `solve` with a report: (verdict lines, report).
fn run_solve(text: &str, format: Format, threads: usize) -> (String, String) {
    let input = Input::from_bytes("<prop>", text.as_bytes().to_vec());
    let (mut out, mut report) = (Vec::new(), Vec::new());
    in_pool(threads, || {
        let mut rows = Csv::new(&mut report);
        exec::solve(&input, (exec_of(threads), format, false), &mut out, Some(&mut rows), &())
    })
    .unwrap();
    (String::from_utf8(out).unwrap(), String::from_utf8(report).unwrap())
}

fn verdicts(game: &Game, g: &[u32]) -> String {
    game.queries
        .iter()
        .map(|q| if q.iter().fold(0, |a, &p| a ^ g[p as usize]) != 0 { "WIN\n" } else { "LOSE\n" })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn solve_equals_the_oracle_on_every_path(game in game(1), sums in game(3)) {
        for (game, format) in [(&game, Format::Chess), (&sums, Format::Sums)] {
            let text = game.text(format);
            let expected = verdicts(game, &game.oracle());
            let one = run_solve(&text, format, 1);
            prop_assert_eq!(&one.0, &expected);
            // One thread and several: the same bytes, report included.
            prop_assert_eq!(&run_solve(&text, format, 3), &one);
        }
    }

    #[test]
    fn values_do_not_depend_on_the_numbering(game in game(2), seed in any::<u64>()) {
        let n = game.moves.len();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        let mut state = seed | 1;
        for i in (1..n).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            perm.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let values = |g: &Game| {
            let input = Input::from_bytes("<prop>", g.text(Format::Sums).into_bytes());
            in_pool(2, || {
                let mut reader = grundy::CaseReader::new(&input, exec_of(2), Format::Sums, &());
                reader.next_case().unwrap().unwrap().values
            })
        };
        let (before, after) = (values(&game), values(&game.renumbered(&perm)));
        for (v, &p) in perm.iter().enumerate().take(n) {
            prop_assert_eq!(before.get(v as u32), after.get(p));
        }
    }

    #[test]
    fn every_reported_winning_move_wins(game in game(3)) {
        let (_, report) = run_solve(&game.text(Format::Sums), Format::Sums, 2);
        let g = game.oracle();
        for (row, q) in report.lines().skip(1).zip(&game.queries) {
            let f: Vec<&str> = row.split(',').collect();
            if f[4] == "LOSE" {
                prop_assert_eq!((f[5], f[6]), ("", ""));
                continue;
            }
            let from: u32 = f[5].parse().unwrap();
            let to: Vec<u32> = f[6].split(' ').filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
            prop_assert!(game.moves[from as usize].contains(&to));
            let at = q.iter().position(|&p| p == from).unwrap();
            let rest = q.iter().enumerate().filter(|&(i, _)| i != at).fold(0, |a, (_, &p)| a ^ g[p as usize]);
            prop_assert_eq!(to.iter().fold(rest, |a, &p| a ^ g[p as usize]), 0);
        }
    }

    #[test]
    fn values_then_query_agree_with_solve(game in game(1)) {
        let text = game.text(Format::Chess);
        let (verdict_lines, _) = run_solve(&text, Format::Chess, 2);
        // values: the nim-sums from the values column give solve's verdicts.
        let input = Input::from_bytes("<prop>", text.clone().into_bytes());
        let values = in_pool(2, || {
            let mut reader = grundy::CaseReader::new(&input, exec_of(2), Format::Chess, &());
            reader.next_case().unwrap().unwrap().values
        });
        prop_assert_eq!(&verdicts(&game, &values.to_u32()), &verdict_lines);
        // query: the result column is solve's verdict.
        let queries = Input::from_bytes("<queries>", game.query_file().into_bytes());
        let mut out = Vec::new();
        in_pool(2, || {
            exec::query(&input, &queries, (exec_of(2), Format::Chess, false), &Columns::query(), &mut Csv::new(&mut out), &())
        }).unwrap();
        let results: String = String::from_utf8(out).unwrap().lines().skip(1)
            .map(|row| format!("{}\n", row.split(',').nth(3).unwrap())).collect();
        prop_assert_eq!(results, verdict_lines);
    }
}
