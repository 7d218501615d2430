//! The columns of query rows (`solve --report`, `query`), and the choice `query --columns`
//! makes of them: a million answers with their positions are 74 MB of CSV, the results alone
//! 5 MB, and rows without a move column skip the search for the winning move.

/// One column of a query row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The case, from 1 (`solve --report` only).
    Case,
    /// The query's number in its case or file, from 1.
    Query,
    /// The tokens' positions, separated by spaces.
    Positions,
    /// The XOR of the tokens' values (of the finite ones, in a loopy game).
    NimSum,
    /// `WIN`, `LOSE` or `DRAW`.
    Result,
    /// The position of the token a winning move moves (empty unless a WIN).
    MoveFrom,
    /// Where it goes: a position, or the parts of a sum separated by spaces.
    MoveTo,
}

impl Column {
    const ALL: [Column; 7] = [
        Column::Case,
        Column::Query,
        Column::Positions,
        Column::NimSum,
        Column::Result,
        Column::MoveFrom,
        Column::MoveTo,
    ];

    /// The column's name in the header.
    pub fn name(self) -> &'static str {
        match self {
            Column::Case => "case",
            Column::Query => "query",
            Column::Positions => "positions",
            Column::NimSum => "nim_sum",
            Column::Result => "result",
            Column::MoveFrom => "move_from",
            Column::MoveTo => "move_to",
        }
    }
}

/// The columns of a query row, in the order they are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    list: Vec<Column>,
    /// A column shows the winning move.
    moves: bool,
    /// The whole row of `solve --report` or `query` (`Some(true)`: with the case), which has
    /// a straight-line writer: a row per query is formatted on the hot path of a report.
    whole: Option<bool>,
}

impl Columns {
    fn of(list: Vec<Column>) -> Columns {
        let moves = list.iter().any(|c| matches!(c, Column::MoveFrom | Column::MoveTo));
        let whole = if list == Column::ALL {
            Some(true)
        } else if list == Column::ALL[1..] {
            Some(false)
        } else {
            None
        };
        Columns { list, moves, whole }
    }

    /// The rows of `solve --report`: `case,query,positions,nim_sum,result,move_from,move_to`.
    pub fn solve() -> Columns {
        Columns::of(Column::ALL.to_vec())
    }

    /// The rows of `query`: `query,positions,nim_sum,result,move_from,move_to`.
    pub fn query() -> Columns {
        Columns::of(Column::ALL[1..].to_vec())
    }

    /// `Some(with_case)` when these are all the columns of `solve --report` (with the case)
    /// or of `query`, in their order.
    pub fn whole(&self) -> Option<bool> {
        self.whole
    }

    /// The columns `list` names (comma-separated, in the order given), among those of
    /// `query`; `Err` says which name is not one, or which is repeated.
    pub fn parse_query(list: &str) -> Result<Columns, String> {
        let known = Columns::query();
        let mut chosen = Vec::new();
        for name in list.split(',').map(str::trim) {
            let Some(&column) = known.list.iter().find(|c| c.name() == name) else {
                return Err(format!("`{name}` is not a column of query rows ({})", known.names()));
            };
            if chosen.contains(&column) {
                return Err(format!("`{name}` is named twice"));
            }
            chosen.push(column);
        }
        Ok(Columns::of(chosen))
    }

    /// The columns, in order.
    pub fn iter(&self) -> impl Iterator<Item = Column> + '_ {
        self.list.iter().copied()
    }

    /// The names, comma-separated: the header line without its newline.
    pub fn names(&self) -> String {
        self.list.iter().map(|c| c.name()).collect::<Vec<_>>().join(",")
    }

    /// The header line.
    pub fn header(&self) -> Vec<u8> {
        (self.names() + "\n").into_bytes()
    }

    /// True when a row shows the winning move (so it must be found).
    #[inline]
    pub fn wants_move(&self) -> bool {
        self.moves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_columns_are_chosen_by_name_in_the_order_given() {
        let columns = Columns::parse_query("result, query").unwrap();
        assert_eq!(columns.names(), "result,query");
        assert!(!columns.wants_move());
        assert!(Columns::parse_query("move_to").unwrap().wants_move());
        assert_eq!(
            Columns::query().header(),
            b"query,positions,nim_sum,result,move_from,move_to\n"
        );
        assert_eq!(
            Columns::solve().names(),
            "case,query,positions,nim_sum,result,move_from,move_to"
        );
        let unknown = Columns::parse_query("result,case").unwrap_err();
        assert!(unknown.starts_with("`case` is not a column of query rows (query,"), "{unknown}");
        assert_eq!(Columns::parse_query("result,result").unwrap_err(), "`result` is named twice");
        assert!(Columns::parse_query("").is_err());
        assert_eq!(
            Columns::parse_query("query,positions,nim_sum,result,move_from,move_to")
                .unwrap()
                .whole(),
            Some(false)
        );
        assert_eq!((Columns::solve().whole(), columns.whole()), (Some(true), None));
    }
}
