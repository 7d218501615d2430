//! POJ 2599, A funny game: airports joined by flights that form a tree; starting at airport m,
//! players alternately fly from the current airport to one not yet visited; who cannot fly
//! loses. On a tree the visited airports are the path from m, so a move goes to a child of the
//! current airport in the tree rooted at m: the game is that rooted tree, an explicit graph,
//! ordered by Kahn and evaluated by the engine like any chess-format case.
//!
//! Input: cases to the end, each `n m`, then n-1 lines `a b` (airports 1..n); output
//! `First player wins flying to airport X` (the smallest winning X) or `First player loses`.

use super::{expect_field, field_at_least, Game, MAX_POSITIONS};
use crate::eval::Values;
use crate::exec::Exec;
use crate::graph::Csr;
use crate::order::Levels;
use crate::parse::error::{Expected, ParseError, ParseErrorKind};
use crate::parse::lexer::Lexer;

/// The tree rooted at `root`: each airport's children in increasing order, or the first
/// airport the flights do not reach from the root (they then do not form a tree).
pub fn rooted_tree(n: u32, edges: &[(u32, u32)], root: u32) -> Result<Csr, u32> {
    let undirected = {
        let mut lists = vec![Vec::new(); n as usize];
        for &(a, b) in edges {
            lists[a as usize].push(b);
            lists[b as usize].push(a);
        }
        lists
    };
    let mut parent = vec![u32::MAX; n as usize];
    let mut queue = vec![root];
    parent[root as usize] = root;
    let mut head = 0;
    while let Some(&v) = queue.get(head) {
        head += 1;
        for &c in &undirected[v as usize] {
            if parent[c as usize] == u32::MAX {
                parent[c as usize] = v;
                queue.push(c);
            }
        }
    }
    if let Some(unreached) = parent.iter().position(|&p| p == u32::MAX) {
        return Err(unreached as u32);
    }
    let mut children = vec![Vec::new(); n as usize];
    for v in 0..n {
        if v != root {
            children[parent[v as usize] as usize].push(v);
        }
    }
    children.iter_mut().for_each(|c| c.sort_unstable());
    Ok(Csr::from_lists(&children).expect("children are airports"))
}

/// A funny game's judge: cases `n m` and n-1 flights, each its own tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Geography;

/// One case: the tree of flights rooted at the start, and the start.
#[derive(Debug, Clone)]
pub struct Flights {
    tree: Csr,
    start: u32,
}

impl Game for Geography {
    type Record = Flights;
    type Positions<'r> = &'r Csr;
    const SHARED: bool = false;
    const COLUMNS: &'static [&'static str] = &["case", "airport", "grundy"];

    fn read(&mut self, lex: &mut Lexer, case: u64) -> Result<Option<Flights>, ParseError> {
        lex.at_token();
        let start = lex.offset();
        let Some(n) = field_at_least(lex, case, "n", 1)? else { return Ok(None) };
        if u64::from(n) > MAX_POSITIONS {
            let expected = Expected::Field { case, name: "n" };
            let reason = format!("more than {MAX_POSITIONS} airports");
            return Err(ParseError {
                offset: start,
                kind: ParseErrorKind::Invalid { expected, reason },
            });
        }
        let m = airport(lex, case, "m", n)?;
        let mut edges = Vec::with_capacity((n as usize - 1).min(lex.remaining() / 4 + 1));
        for _ in 1..n {
            edges.push((airport(lex, case, "a", n)?, airport(lex, case, "b", n)?));
        }
        let tree = rooted_tree(n, &edges, m).map_err(|unreached| ParseError {
            offset: start,
            kind: ParseErrorKind::Invalid {
                expected: Expected::Field { case, name: "flights" },
                reason: format!(
                    "they do not form a tree: airport {} cannot be reached from {}",
                    unreached + 1,
                    m + 1
                ),
            },
        })?;
        Ok(Some(Flights { tree, start: m }))
    }

    /// The tree is an explicit graph: Kahn orders it, as any chess-format case.
    fn positions<'r>(&self, cases: &'r [Flights], exec: Exec) -> (&'r Csr, Levels) {
        let tree = &cases[0].tree;
        (tree, exec.order(tree, &()).expect("a rooted tree has no cycle"))
    }

    fn judge(&self, tree: &&Csr, values: &Values, flights: &Flights, out: &mut Vec<u8>) {
        match tree.successors(flights.start).iter().find(|&&c| values.get(c) == 0) {
            Some(&x) => out.extend_from_slice(
                format!("First player wins flying to airport {}\n", x + 1).as_bytes(),
            ),
            None => out.extend_from_slice(b"First player loses\n"),
        }
    }

    fn table(&self, _: &&Csr, values: &Values, case: u64, row: &mut dyn FnMut(&[u64])) {
        for (v, g) in values.iter().enumerate() {
            row(&[case, v as u64 + 1, g.into()]);
        }
    }

    fn parts(&self, tree: &&Csr, v: u32, k: usize, buf: &mut Vec<u32>) {
        buf.push(tree.successors(v)[k]);
    }

    fn start(&self, _: &&Csr, flights: &Flights) -> u32 {
        flights.start
    }
}

/// An airport number `1..=n`, returned 0-based.
fn airport(lex: &mut Lexer, case: u64, name: &'static str, n: u32) -> Result<u32, ParseError> {
    lex.at_token();
    let offset = lex.offset();
    let a = expect_field(lex, case, name, 1)?;
    if a > n {
        let expected = Expected::Field { case, name };
        let reason = format!("{a} is not an airport (1 to {n})");
        return Err(ParseError { offset, kind: ParseErrorKind::Invalid { expected, reason } });
    }
    Ok(a - 1)
}
