//! Reading games from bytes: the [`format`](format::Format)s, the token scanner
//! (`lexer`) and its parallel windows (`tokens`), the sequential and parallel readers of
//! the chess and sums formats ([`chess`], [`chess_parallel`]), edge lists ([`edges`]), and the
//! errors they report ([`error`]).

pub mod chess;
pub mod chess_parallel;
pub mod edges;
pub mod error;
pub mod format;
pub(crate) mod kernel;
pub(crate) mod lexer;
pub(crate) mod text;
pub(crate) mod tokens;
pub mod walk;
