//! One position of a solved game as the server describes it: its value, outcome, level and
//! every move with the value and outcome it leads to, the winning moves first.

use serde::Serialize;

use crate::answer::{self, Outcome};
use crate::eval::{self, Values};
use crate::graph::mex_order::{moves_in_mex_order, Scratch};
use crate::graph::GameGraph;
use crate::index::IndexedCase;

/// A position of a case, as `GET /v1/position/{case}/{node}` gives it.
#[derive(Debug, Serialize)]
pub struct Position {
    /// 1-based case number.
    pub case: u64,
    /// The node, from 0.
    pub node: u32,
    /// Its Grundy value; `null` for a loopy game's infinite value.
    pub grundy: Option<u32>,
    /// A loopy game's: true when the value is infinite.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infinite: Option<bool>,
    /// A loopy game's infinite position: the finite values among its moves (its K set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<Vec<u32>>,
    /// Who wins one token here, the player to move first: `WIN`, `LOSE` or `DRAW`.
    pub outcome: &'static str,
    /// 1 + the largest level of its moves (0 for a sink); `null` where none are kept.
    pub level: Option<u32>,
    /// How many moves it has.
    pub out_degree: u32,
    /// Its moves: those to a LOSE first (the winning ones), then to a DRAW, then to a WIN;
    /// in mex order within each ([`crate::graph::mex_order`]: the first move to each value
    /// below the position's, then the others in the input's order), as an index keeps them.
    pub moves: Vec<Move>,
}

/// One move of a [`Position`].
#[derive(Debug, Serialize)]
pub struct Move {
    /// Where it goes: a node (chess and edge-list games), or the parts of the sum it leaves
    /// (sums games).
    pub to: Target,
    /// The value of where it goes (`null`: infinite).
    pub grundy: Option<u32>,
    /// Who wins there, the player then to move first.
    pub outcome: &'static str,
}

/// Where a [`Move`] goes.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Target {
    /// One node.
    Node(u32),
    /// A sum of nodes.
    Sum(Vec<u32>),
}

/// Position `node` of `case` (a loopy game's when `loopy`), or `None` when the case has no
/// such node.
pub fn position(case: &IndexedCase, loopy: bool, node: u32) -> Option<Position> {
    let (graph, values) = (&case.graph, &case.values);
    if node as usize >= graph.node_count() {
        return None;
    }
    let finite = |g: u32| (g != Values::INFINITE).then_some(g);
    let outcome = |tokens: &[u32]| -> Outcome {
        match loopy {
            true => answer::loopy_answer_of(graph, values, tokens, false).outcome,
            false => Outcome::of(values, tokens),
        }
    };
    let (value, mut scratch) = (|v: u32| values.get(v), Scratch::default());
    let mut moves: Vec<(Outcome, Move)> = match graph {
        GameGraph::Chess(g) => {
            node_moves(moves_in_mex_order(g, node, value, &mut scratch), values, outcome)
        }
        GameGraph::ChessWide(g) => {
            node_moves(moves_in_mex_order(g, node, value, &mut scratch), values, outcome)
        }
        GameGraph::Sums(g) => g
            .moves(node)
            .map(|m| {
                let parts = g.parts(m);
                let o = Outcome::of(values, parts);
                let grundy = Some(values.nim_sum(parts));
                (o, Move { to: Target::Sum(parts.to_vec()), grundy, outcome: o.word() })
            })
            .collect(),
    };
    moves.sort_by_key(|(o, _)| best_first(*o));
    let value = values.get(node);
    let k = match (loopy, graph) {
        (true, GameGraph::Chess(g)) if value == Values::INFINITE => {
            Some(eval::infinite_set(g, values, node))
        }
        (true, GameGraph::ChessWide(g)) if value == Values::INFINITE => {
            Some(eval::infinite_set(g, values, node))
        }
        _ => None,
    };
    Some(Position {
        case: case.case,
        node,
        grundy: finite(value),
        infinite: loopy.then_some(value == Values::INFINITE),
        k,
        outcome: outcome(&[node]).word(),
        level: case.levels.as_ref().map(|l| l.get(node as usize)),
        out_degree: graph.move_count(node),
        moves: moves.into_iter().map(|(_, m)| m).collect(),
    })
}

/// The moves to `targets`, each with its outcome.
fn node_moves(
    targets: &[u32],
    values: &Values,
    outcome: impl Fn(&[u32]) -> Outcome,
) -> Vec<(Outcome, Move)> {
    targets
        .iter()
        .map(|&t| {
            let (g, o) = (values.get(t), outcome(&[t]));
            let grundy = (g != Values::INFINITE).then_some(g);
            (o, Move { to: Target::Node(t), grundy, outcome: o.word() })
        })
        .collect()
}

/// The order of moves, best for the mover first: to a LOSE (the mover wins), a DRAW, a WIN.
fn best_first(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Lose => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    }
}
