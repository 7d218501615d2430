//! Octal (and hexadecimal) game codes: `d0.d1d2...dk`, what each digit allows.

use std::fmt;

/// A take-and-break game given by its code. Digit `d_j` (`j >= 1`) says how a move may remove
/// `j` tokens from one heap: bit 1 when that empties the heap, bit 2 when it leaves one
/// non-empty heap, bit 4 two, and (hexadecimal codes only) bit 8 three. `d0` may only split a
/// heap without removing tokens: bit 4 into two heaps, bit 8 (hexadecimal) into three.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Code {
    digits: Vec<u8>,
    hex: bool,
}

/// Why a text is not a game code; `at` is the 1-based character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeError {
    /// The character it is about (1-based), if one.
    pub at: Option<usize>,
    /// What was expected.
    pub message: String,
}

impl fmt::Display for CodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => write!(f, "character {at}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The moves a code allows, as the counts of tokens removed (`j`) for each kind of move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moves {
    /// Remove `j` tokens from a heap of exactly `j`.
    pub empty: Vec<u32>,
    /// Remove `j` tokens, leaving one non-empty heap.
    pub one: Vec<u32>,
    /// Remove `j` tokens (`j` may be 0), leaving two non-empty heaps.
    pub two: Vec<u32>,
    /// Remove `j` tokens (`j` may be 0), leaving three non-empty heaps (hexadecimal codes).
    pub three: Vec<u32>,
}

impl Moves {
    /// The most tokens any move removes.
    pub fn largest_take(&self) -> u32 {
        [&self.empty, &self.one, &self.two, &self.three]
            .iter()
            .filter_map(|js| js.iter().max())
            .max()
            .copied()
            .unwrap_or(0)
    }
}

impl Code {
    /// Reads `d0.d1d2...` (`.07` and `0.07` alike); digits are octal, or hexadecimal with
    /// `hex`. Refuses a code without any move.
    pub fn parse(text: &str, hex: bool) -> Result<Code, CodeError> {
        let at = |i: usize, message: String| CodeError { at: Some(i + 1), message };
        let Some(dot) = text.find('.') else {
            return Err(CodeError {
                at: None,
                message: "expected d0.d1d2... (a dot after the first digit, as in 0.07 or .07)"
                    .into(),
            });
        };
        let radix = if hex { 16 } else { 8 };
        let digit = |i: usize, c: char| {
            c.to_digit(radix).map(|d| d as u8).ok_or_else(|| {
                let kind = if hex { "a hexadecimal digit 0-f" } else { "an octal digit 0-7" };
                let hint = if !hex && c.is_ascii_hexdigit() { " (--hex allows 8-f)" } else { "" };
                at(i, format!("expected {kind}, found `{c}`{hint}"))
            })
        };
        let head: Vec<(usize, char)> = text[..dot].char_indices().collect();
        let d0 = match head.as_slice() {
            [] => 0,
            [(i, c)] => digit(*i, *c)?,
            [_, (i, c), ..] => {
                return Err(at(*i, format!("expected `.` after the first digit, found `{c}`")))
            }
        };
        if d0 & 3 != 0 || (!hex && d0 > 4) {
            let allowed = if hex { "0, 4, 8 or c" } else { "0 or 4" };
            return Err(at(
                0,
                format!("the digit before the dot must be {allowed}, found `{d0:x}`"),
            ));
        }
        let mut digits = vec![d0];
        for (i, c) in text.char_indices().skip_while(|&(i, _)| i <= dot) {
            digits.push(digit(i, c)?);
        }
        while digits.len() > 1 && digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.iter().all(|&d| d == 0) {
            return Err(CodeError { at: None, message: "the code allows no move at all".into() });
        }
        Ok(Code { digits, hex })
    }

    /// The digits `d0, d1, ..., dk`, trailing zeros dropped.
    pub fn digits(&self) -> &[u8] {
        &self.digits
    }

    /// The moves the code allows.
    pub fn moves(&self) -> Moves {
        let mut moves = Moves::default();
        for (j, &d) in self.digits.iter().enumerate() {
            let j = j as u32;
            for (bit, kind) in [
                (1, &mut moves.empty),
                (2, &mut moves.one),
                (4, &mut moves.two),
                (8, &mut moves.three),
            ] {
                // `d0` has only split bits (checked when parsed).
                if d & bit != 0 {
                    kind.push(j);
                }
            }
        }
        moves
    }
}

impl fmt::Display for Code {
    /// The canonical form: `0.07`, `4.`, `0.f` (hexadecimal digits for hexadecimal codes).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:x}.", self.digits[0])?;
        self.digits[1..].iter().try_for_each(|d| write!(f, "{d:x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_read_alike_with_or_without_the_leading_zero() {
        let a = Code::parse(".07", false).unwrap();
        assert_eq!(a, Code::parse("0.07", false).unwrap());
        assert_eq!(a, Code::parse("0.0700", false).unwrap());
        assert_eq!(a.to_string(), "0.07");
        let moves = a.moves();
        assert_eq!((moves.empty, moves.one, moves.two), (vec![2], vec![2], vec![2]));
        assert_eq!(Code::parse("4.", false).unwrap().moves().two, vec![0]);
        assert_eq!(Code::parse("0.f", true).unwrap().moves().three, vec![1]);
    }

    #[test]
    fn bad_codes_name_the_character() {
        let err = |text: &str, hex| Code::parse(text, hex).unwrap_err();
        assert_eq!(err("0.8", false).at, Some(3));
        assert!(err("0.8", false).message.contains("--hex"), "{}", err("0.8", false));
        assert_eq!(err("0.07x", false).at, Some(5));
        assert_eq!(err("1.07", false).at, Some(1));
        assert_eq!(err("12.0", false).at, Some(2));
        assert_eq!(err("0.g", true).at, Some(3));
        assert_eq!(err("007", false).at, None);
        for none in ["0.", ".", "0.000", "4.0".replace('4', "0").as_str()] {
            assert!(err(none, false).message.contains("no move"), "{none}");
        }
        assert!(Code::parse("8.", true).is_ok());
        assert!(Code::parse("8.", false).is_err());
    }
}
