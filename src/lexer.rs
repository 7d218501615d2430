//! The token scanner: unsigned 32-bit integers separated by whitespace, read straight from bytes.
//!
//! Inputs are read the way `scanf("%d")` reads them: any run of whitespace (space, tab, CR, LF,
//! vertical tab, form feed) separates tokens, so lists may wrap over lines and blank lines are
//! ignored. A token must be ASCII digits only (leading zeros are fine); a sign, a letter or a
//! NUL byte makes it an error. The loop is hand-written because `str::parse` on split strings
//! runs at half the speed and needs valid UTF-8, which an input need not be.

use crate::error::{Expected, ParseError, ParseErrorKind};

/// Bytes `scanf` treats as whitespace.
#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Longest token text quoted back in an error message.
const QUOTE_MAX: usize = 40;

/// A cursor over the bytes of an input.
#[derive(Debug, Clone)]
pub struct Lexer<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Lexer<'a> {
        Lexer { bytes, pos: 0 }
    }

    /// A lexer at byte `offset` of `bytes`.
    pub fn at(bytes: &'a [u8], offset: usize) -> Lexer<'a> {
        Lexer { bytes, pos: offset.min(bytes.len()) }
    }

    /// The byte offset of the next unread byte.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes not yet read; no more than `remaining() / 2 + 1` tokens can follow, which bounds
    /// any allocation sized by a count read from the input.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// Skips whitespace; true if a token follows.
    pub fn at_token(&mut self) -> bool {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !is_space(b) {
                return true;
            }
            self.pos += 1;
        }
        false
    }

    /// The next token as a number, or `None` at the end of the input.
    #[inline]
    pub fn next_u32(&mut self, expected: Expected) -> Result<Option<u32>, ParseError> {
        if !self.at_token() {
            return Ok(None);
        }
        let start = self.pos;
        let mut value: u64 = 0;
        while let Some(&b) = self.bytes.get(self.pos) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            // Saturating just above u32::MAX keeps the loop branch-light for any digit count.
            value = (value * 10 + u64::from(digit)).min(1 << 32);
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(&b) if !is_space(b) => Err(self.not_a_number(start, expected)),
            _ if self.pos == start => Err(self.not_a_number(start, expected)),
            _ => match u32::try_from(value) {
                Ok(v) => Ok(Some(v)),
                Err(_) => Err(ParseError {
                    offset: start,
                    kind: ParseErrorKind::TooLarge { expected, token: self.quote(start) },
                }),
            },
        }
    }

    /// The next token as a number; the end of the input is an error.
    #[inline]
    pub fn expect_u32(&mut self, expected: Expected) -> Result<u32, ParseError> {
        match self.next_u32(expected)? {
            Some(v) => Ok(v),
            None => Err(self.unexpected_end(expected)),
        }
    }

    /// The error for input that ends where `expected` was needed.
    pub fn unexpected_end(&self, expected: Expected) -> ParseError {
        ParseError { offset: self.bytes.len(), kind: ParseErrorKind::UnexpectedEnd { expected } }
    }

    fn not_a_number(&self, start: usize, expected: Expected) -> ParseError {
        ParseError {
            offset: start,
            kind: ParseErrorKind::NotANumber { expected, token: self.quote(start) },
        }
    }

    /// The token starting at `start`, shortened for an error message.
    fn quote(&self, start: usize) -> String {
        let rest = &self.bytes[start..];
        let len = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
        let shown = &rest[..len.min(QUOTE_MAX)];
        let mut text = String::from_utf8_lossy(shown).into_owned();
        if len > QUOTE_MAX {
            text.push_str("...");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: Expected = Expected::NodeCount { case: 1 };

    fn all(text: &[u8]) -> Result<Vec<u32>, ParseError> {
        let mut lex = Lexer::new(text);
        let mut out = Vec::new();
        while let Some(v) = lex.next_u32(E)? {
            out.push(v);
        }
        Ok(out)
    }

    #[test]
    fn reads_numbers_across_any_whitespace() {
        let text = b" 1\t22\r\n\n333 \x0b4\x0c0005\n4294967295";
        assert_eq!(all(text).unwrap(), vec![1, 22, 333, 4, 5, u32::MAX]);
        assert_eq!(all(b"").unwrap(), Vec::<u32>::new());
        assert_eq!(all(b" \n\t ").unwrap(), Vec::<u32>::new());
    }

    #[test]
    fn rejects_signs_letters_and_nul() {
        for (text, offset, token) in [
            (&b"1 -2"[..], 2, "-2"),
            (b"1 +2", 2, "+2"),
            (b"12x 3", 0, "12x"),
            (b"7 a", 2, "a"),
            (b"5\0", 0, "5\0"),
            (b"1 2.5", 2, "2.5"),
        ] {
            let err = all(text).unwrap_err();
            assert_eq!(err.offset, offset, "{text:?}");
            assert_eq!(err.kind, ParseErrorKind::NotANumber { expected: E, token: token.into() });
        }
    }

    #[test]
    fn rejects_numbers_above_u32_max_even_with_hundreds_of_digits() {
        let err = all(b"4294967296").unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::TooLarge { .. }));
        let huge = "9".repeat(500);
        let err = all(huge.as_bytes()).unwrap_err();
        match err.kind {
            ParseErrorKind::TooLarge { token, .. } => assert!(token.len() < 50, "{token}"),
            other => panic!("{other:?}"),
        }
        // Leading zeros do not count against the limit.
        let padded = format!("{}{}", "0".repeat(300), u32::MAX);
        assert_eq!(all(padded.as_bytes()).unwrap(), vec![u32::MAX]);
    }

    #[test]
    fn invalid_utf8_is_quoted_lossily() {
        let err = all(b"\xff\xfe").unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::NotANumber { .. }));
    }
}
