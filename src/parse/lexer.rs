//! The token scanner: unsigned 32-bit integers separated by whitespace, read straight from bytes.
//!
//! Inputs are read the way `scanf("%d")` reads them: any run of whitespace (space, tab, CR, LF,
//! vertical tab, form feed) separates tokens, so lists may wrap over lines and blank lines are
//! ignored. A token must be ASCII digits only (leading zeros are fine); a sign, a letter or a
//! NUL byte makes it an error. The loop is hand-written because `str::parse` on split strings
//! runs at half the speed and needs valid UTF-8, which an input need not be.

use crate::parse::error::{Expected, ParseError, ParseErrorKind};

/// Bytes `scanf` treats as whitespace.
#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// What the token at some offset turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scanned {
    /// A number, and the offset just past its digits.
    Number(u32, usize),
    /// Not made of digits only (or not followed by whitespace or the end).
    NotANumber,
    /// Digits only, but above `u32::MAX`.
    TooLarge,
    /// A run of more than [`MAX_TOKEN`] digits (leading zeros): no window need hold it.
    TooLong,
}

/// The longest token read, in bytes (digits, leading zeros included): a window of a stream
/// is cut at whitespace, so a token is held whole, and a longer run of digits is an error
/// found within its first `MAX_TOKEN + 1` bytes, wherever the input comes from.
pub const MAX_TOKEN: usize = 4096;

/// Reads the token that starts at `start` (a non-whitespace byte) as a number.
///
/// Tokens of up to seven digits followed by a byte of input are read eight bytes at a time
/// with no branch per digit (SWAR): token lengths vary, and a digit loop's exit is a branch
/// mispredicted once per token, which dominates parsing.
#[inline]
pub fn scan_number(bytes: &[u8], start: usize) -> Scanned {
    if let Some(word) = bytes.get(start..start + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let non_digits = non_digit_mask(x);
        if non_digits != 0 {
            let len = (non_digits.trailing_zeros() / 8) as usize;
            if len == 0 || !is_space(word[len]) {
                return Scanned::NotANumber;
            }
            return Scanned::Number(eight_digits(x, len), start + len);
        }
    }
    scan_number_slowly(bytes, start)
}

/// The digit loop, for long tokens and the last bytes of the input.
fn scan_number_slowly(bytes: &[u8], start: usize) -> Scanned {
    let mut value: u64 = 0;
    let mut end = start;
    while let Some(&b) = bytes.get(end) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        if end - start == MAX_TOKEN {
            return Scanned::TooLong;
        }
        // Saturating just above u32::MAX keeps the value bounded for any digit count.
        value = (value * 10 + u64::from(digit)).min(1 << 32);
        end += 1;
    }
    match bytes.get(end) {
        Some(&b) if !is_space(b) => Scanned::NotANumber,
        _ if end == start => Scanned::NotANumber,
        _ => match u32::try_from(value) {
            Ok(v) => Scanned::Number(v, end),
            Err(_) => Scanned::TooLarge,
        },
    }
}

/// The high bit of each byte of `x` set exactly when that byte is not an ASCII digit.
#[inline]
fn non_digit_mask(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = x & LOW7;
    let at_least_0 = (low + 0x5050_5050_5050_5050) & HIGH; // 0x80 - 0x30
    let above_9 = (low + 0x4646_4646_4646_4646) & HIGH; // 0x80 - 0x3a
    !(at_least_0 & !above_9 & !x) & HIGH
}

/// The value of the first `len` (1 to 8) bytes of `x`, all ASCII digits, most significant
/// first (Lemire's eight-digit method: pairs, then quads, then the whole).
#[inline]
pub(crate) fn eight_digits(x: u64, len: usize) -> u32 {
    digits_value(digit_word(x, len))
}

/// The first `len` (1 to 8) bytes of `x`, ASCII digits, as digit values in the last `len`
/// bytes of eight, behind zeros (leading zero digits): the token's bytes moved to the top so
/// the bytes after it fall off. A byte after the token that is below `'0'` borrows only from
/// the bytes above it, which fall off too.
#[inline(always)]
pub(crate) fn digit_word(x: u64, len: usize) -> u64 {
    x.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - len))
}

/// The number whose eight decimal digits, most significant first, are the bytes of `v` (a
/// [`digit_word`]).
#[inline(always)]
pub(crate) fn digits_value(v: u64) -> u32 {
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let v = ((v & 0x0000_00ff_0000_00ff).wrapping_mul(100 + (1_000_000 << 32)))
        .wrapping_add(((v >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    v as u32
}

/// Longest token text quoted back in an error message.
pub(crate) const QUOTE_MAX: usize = 40;

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

    /// Moves to byte `offset` (at most the end).
    pub fn seek(&mut self, offset: usize) {
        self.pos = offset.min(self.bytes.len());
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
        match scan_number(self.bytes, start) {
            Scanned::Number(value, end) => {
                self.pos = end;
                Ok(Some(value))
            }
            Scanned::NotANumber => Err(self.not_a_number(start, expected)),
            Scanned::TooLarge => Err(ParseError {
                offset: start,
                kind: ParseErrorKind::TooLarge { expected, token: self.quote(start) },
            }),
            Scanned::TooLong => Err(ParseError {
                offset: start,
                kind: ParseErrorKind::TooLong {
                    expected,
                    token: self.quote(start),
                    max: MAX_TOKEN,
                },
            }),
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
        quote(self.bytes, start)
    }
}

/// The token of `bytes` starting at `start` (up to whitespace), shortened and lossily decoded
/// for an error message.
pub fn quote(bytes: &[u8], start: usize) -> String {
    let rest = &bytes[start.min(bytes.len())..];
    let len = rest.iter().position(|&b| is_space(b)).unwrap_or(rest.len());
    let shown = &rest[..len.min(QUOTE_MAX)];
    let mut text = String::from_utf8_lossy(shown).into_owned();
    if len > QUOTE_MAX {
        text.push_str("...");
    }
    text
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

    /// A token of more than `MAX_TOKEN` digits is an error, found within its first
    /// `MAX_TOKEN + 1` bytes (so a cut there finds it too); one of `MAX_TOKEN` is read.
    #[test]
    fn rejects_tokens_longer_than_the_longest_read() {
        let longest = format!("{}7", "0".repeat(MAX_TOKEN - 1));
        assert_eq!(all(format!("{longest} 1").as_bytes()).unwrap(), vec![7, 1]);
        for tail in ["0", "05 1", "0x"] {
            let err = all(format!("3 {longest}{tail}").as_bytes()).unwrap_err();
            assert_eq!(err.offset, 2);
            assert!(
                matches!(err.kind, ParseErrorKind::TooLong { ref token, .. } if token.len() < 50)
            );
        }
        let err = all(format!("3 {}x", "0".repeat(100)).as_bytes()).unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::NotANumber { .. }), "{err:?}");
        let cut = format!("{longest}0");
        assert_eq!(scan_number(cut.as_bytes(), 0), Scanned::TooLong);
    }

    #[test]
    fn scan_number_agrees_with_the_digit_loop() {
        let mut rng = crate::testing::Xorshift::new(0x1234_5678_9abc_def0);
        let mut next = || rng.bits();
        for _ in 0..200_000 {
            let len = 1 + (next() % 12) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            // Sometimes a bad byte inside, always some tail (whitespace, junk, or nothing).
            if next() % 8 == 0 {
                let at = (next() % len as u64) as usize;
                text[at] = [b'x', b'-', 0, 0xff, b'/', b':'][(next() % 6) as usize];
            }
            let tail: &[u8] =
                [&b" 12345678"[..], b"\n", b"", b"x", b"\t\t\t\t\t\t\t\t"][(next() % 5) as usize];
            text.extend_from_slice(tail);
            assert_eq!(scan_number(&text, 0), scan_number_slowly(&text, 0), "{text:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_quoted_lossily() {
        let err = all(b"\xff\xfe").unwrap_err();
        assert!(matches!(err.kind, ParseErrorKind::NotANumber { .. }));
    }
}
