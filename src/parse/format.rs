//! The formats a game's graph can be read in. The command line maps its `--format` and
//! `--nodes` flags onto this type; the engine sees nothing of clap.

/// How a file describes its cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// "A Chess Game" (POJ 2425): `N`, then node `i` as `X_i` and `X_i` out-positions, then
    /// queries; several cases per file.
    #[default]
    Chess,
    /// The chess format with moves to sums: node `i` as `K_i` moves, each `c q_1 .. q_c`.
    Sums,
    /// An edge list, one `u v` per line ([`crate::parse::edges`]): one graph, no queries.
    Edges {
        /// The node count, when given; else the largest id + 1.
        nodes: Option<u32>,
    },
}

impl Format {
    /// True when the format carries queries (an edge list does not).
    pub fn has_queries(self) -> bool {
        !matches!(self, Format::Edges { .. })
    }
}
