//! Parallel tokenizing: the input is cut into windows, each window into pieces that end at
//! whitespace, and the pieces are turned into `u32` tokens in parallel.
//!
//! A reader over a window buffer lets the format walkers (`chess_parallel`) consume tokens by
//! index, fetching the next window only when they need it: a graph section is held whole (it
//! becomes the CSR targets in place), a query section streams through one window at a time.
//!
//! Tokens carry no byte offsets, which would double their memory. Errors are rare, so a token's
//! offset is recovered when needed by re-scanning from the start of its window, and a lexical
//! error is re-read with the sequential [`Lexer`], which knows what the walker expected there.

use rayon::prelude::*;

use crate::io::input::{Input, Stream};
use crate::io::memory::append_parallel;
use crate::meter::Meter;
use crate::parse::error::{Expected, ParseError};
use crate::parse::kernel::tokenize_piece;
use crate::parse::lexer::Lexer;
use crate::parse::text::{boundary, Cut, Text};

/// Pieces per thread in a window: a few, so an uneven piece does not leave a core idle.
const PIECES_PER_THREAD: usize = 4;

/// A piece of a window of input: where it starts in bytes and the global index of its first
/// token.
#[derive(Debug, Clone, Copy)]
struct Window {
    first_token: u64,
    byte_offset: usize,
}

/// Tokens of an input, fetched window by window.
///
/// Invariant: `buf` holds the tokens with global indices `base .. base + buf.len()`, all the
/// tokens of the bytes before `next`; if `lex_error` is set, the bytes from that offset do not
/// start a valid token and nothing after it is tokenized. On a stream, the bytes of every
/// token from `max(base, hold)` on are held, so an error there is located.
#[derive(Debug)]
pub struct TokenReader<'a> {
    text: Text<'a>,
    chunk_bytes: usize,
    next: usize,
    buf: Vec<u32>,
    base: u64,
    /// Where each piece of a window starts (on a stream, from the first one held).
    windows: Vec<Window>,
    lex_error: Option<usize>,
    /// The first token an error may still point at, when the walker has checked buffered
    /// tokens ahead of `base` ([`TokenReader::hold_from`]).
    hold: u64,
    /// One token buffer per piece of a window, reused by every window.
    piece_tokens: Vec<Vec<u32>>,
    /// Told the bytes tokenized after each window.
    meter: &'a dyn Meter,
    /// The input whose tokenized pages are handed back, if any.
    input: Option<&'a Input>,
    /// A token before the hold mark that an error may still point at ([`TokenReader::pin`]).
    pinned: Option<Pin>,
    /// The most bytes a stream held at once ([`TokenReader::held_bytes`]).
    #[cfg(test)]
    most_held: usize,
}

/// A token kept locatable on a stream after its bytes may go: its global index, and once its
/// bytes were about to go, its offset, line and column.
#[derive(Debug, Clone, Copy)]
struct Pin {
    token: u64,
    at: Option<(usize, (usize, usize))>,
}

impl<'a> TokenReader<'a> {
    /// A reader at the start of `bytes`, tokenizing about `chunk_bytes` per window.
    pub fn new(bytes: &'a [u8], chunk_bytes: usize) -> TokenReader<'a> {
        TokenReader::of_text(Text::Whole(bytes), chunk_bytes)
    }

    /// A reader of `stream` as it arrives, tokenizing about `chunk_bytes` per window and
    /// holding only the bytes an error may still point at.
    pub fn streaming(stream: Stream, chunk_bytes: usize) -> TokenReader<'a> {
        TokenReader::of_text(Text::stream(stream), chunk_bytes)
    }

    fn of_text(text: Text<'a>, chunk_bytes: usize) -> TokenReader<'a> {
        TokenReader {
            text,
            chunk_bytes: chunk_bytes.max(1),
            next: 0,
            buf: Vec::new(),
            base: 0,
            windows: Vec::new(),
            lex_error: None,
            hold: 0,
            piece_tokens: Vec::new(),
            meter: &(),
            input: None,
            pinned: None,
            #[cfg(test)]
            most_held: 0,
        }
    }

    /// True when the input is a stream: a token's bytes are held only while it is at or after
    /// [`TokenReader::hold_from`]'s mark, so walkers check what they hold as they go.
    pub fn is_stream(&self) -> bool {
        self.text.is_stream()
    }

    /// Says that no error will point at a buffered token before buffer index `i` (the walker
    /// has checked them): on a stream, their bytes may go at the next window.
    pub fn hold_from(&mut self, i: usize) {
        self.hold = self.base + i as u64;
    }

    /// Says that an error may still point at buffered token `i` (a sums node's move count)
    /// though the hold mark moves past it: on a stream its place is then found before its
    /// bytes go, so a run of blanks after it is not held. One token at a time: the last pinned.
    pub fn pin(&mut self, i: usize) {
        self.pinned = Some(Pin { token: self.base + i as u64, at: None });
    }

    /// The 1-based line and column of byte `offset`, a token at or after the hold mark, the
    /// pinned token, or the end of the input.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        match self.pinned.and_then(|p| p.at) {
            Some((at, place)) if at == offset => place,
            _ => self.text.locate(offset),
        }
    }

    /// The most bytes of the input held in memory by the reader itself at once so far, each
    /// window's included (a stream's; 0 for a whole text, which its owner holds).
    #[cfg(test)]
    pub fn held_bytes(&self) -> usize {
        self.most_held
    }

    /// The failed read that ended a stream early, once (then the reader's own error or end
    /// is not what went wrong).
    pub fn take_failure(&mut self) -> Option<(std::io::Error, &'static str)> {
        self.text.take_failure()
    }

    /// This reader, handing the pages of `input` it has tokenized back to the kernel before
    /// each window (the tokens are kept; the bytes are read again only for an error message).
    pub fn releasing(self, input: &'a Input) -> TokenReader<'a> {
        TokenReader { input: Some(input), ..self }
    }

    /// Hands back the pages tokenized so far (a no-op without an input, or below its step).
    pub fn release(&self) {
        if let Some(input) = self.input {
            input.release_before(self.next);
        }
    }

    /// This reader, telling `meter` the bytes tokenized after each window.
    pub fn with_meter(self, meter: &'a dyn Meter) -> TokenReader<'a> {
        TokenReader { meter, ..self }
    }

    /// The buffered tokens; index `i` is global token `base() + i`.
    #[inline]
    pub fn buf(&self) -> &[u32] {
        &self.buf
    }

    /// Bytes tokenized so far.
    pub fn offset(&self) -> usize {
        self.next
    }

    /// Global index of `buf()[0]`.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Makes `buf()[i]` available if the input has it; false if it does not (the input ended
    /// or a bad token stops it first).
    #[inline]
    pub fn ensure(&mut self, i: usize) -> bool {
        while i >= self.buf.len() {
            if !self.fill() {
                return false;
            }
        }
        true
    }

    /// Drops the first `count` buffered tokens (consumed), keeping memory to what is pending.
    pub fn consume(&mut self, count: usize) {
        self.buf.drain(..count);
        self.base += count as u64;
        self.unpin_before();
    }

    /// Forgets the pinned token once it is consumed: no error points at it any more.
    fn unpin_before(&mut self) {
        if self.pinned.is_some_and(|p| p.token < self.base) {
            self.pinned = None;
        }
    }

    /// Takes the first `count` buffered tokens out as their own vector (a graph section, to be
    /// compacted into CSR targets in place), keeping the rest buffered.
    pub fn take(&mut self, count: usize) -> Vec<u32> {
        let rest = self.buf[count..].to_vec();
        let mut taken = std::mem::replace(&mut self.buf, rest);
        taken.truncate(count);
        self.base += count as u64;
        self.unpin_before();
        taken
    }

    /// The error for a token the walker needed at buffer index `i` and could not get:
    /// the bad token's own error, or an unexpected end.
    pub fn missing(&self, i: usize, expected: Expected) -> ParseError {
        debug_assert!(i >= self.buf.len());
        let (bytes, start) = self.text.held();
        let mut e = match self.lex_error {
            Some(offset) if i == self.buf.len() => {
                let mut lex = Lexer::at(bytes, offset - start);
                match lex.next_u32(expected) {
                    Err(e) => e,
                    // Unreachable by the invariant; an end error is still a true statement.
                    Ok(_) => lex.unexpected_end(expected),
                }
            }
            _ => Lexer::at(bytes, bytes.len()).unexpected_end(expected),
        };
        e.offset += start;
        e
    }

    /// The offset of the bad token that stopped tokenizing, if one did.
    pub fn lex_error(&self) -> Option<usize> {
        self.lex_error
    }

    /// True when a token the walker could not get is missing because the input ended, not
    /// because a bad token stopped the tokenizing.
    pub fn clean_end(&self) -> bool {
        self.lex_error.is_none()
    }

    /// The byte offset of the token at buffer index `i`, found by re-scanning its window.
    pub fn offset_of(&self, i: usize) -> usize {
        self.offset_of_global(self.base + i as u64)
    }

    /// The byte offset of the token with global index `global` (it may have been consumed).
    pub fn offset_of_global(&self, global: u64) -> usize {
        if let Some(Pin { token, at: Some((offset, _)) }) = self.pinned {
            if token == global {
                return offset;
            }
        }
        let w = self.windows.partition_point(|w| w.first_token <= global).saturating_sub(1);
        let Some(window) = self.windows.get(w) else { return 0 };
        let (bytes, start) = self.text.held();
        debug_assert!(
            !self.is_stream()
                || global >= self.base.max(self.hold)
                || self.pinned.is_some_and(|p| p.token == global),
            "token let go"
        );
        let mut lex = Lexer::at(bytes, window.byte_offset - start);
        let expected = Expected::NodeCount { case: 0 };
        for _ in window.first_token..global {
            let _ = lex.next_u32(expected);
        }
        lex.at_token();
        start + lex.offset()
    }

    /// Tokenizes the next window; false if nothing is left to tokenize.
    ///
    /// Each piece is parsed in parallel into a buffer of its own, kept from window to window
    /// (no fresh memory to fault in), and the pieces are then appended in order: one pass over
    /// the bytes and a memcpy of the tokens.
    fn fill(&mut self) -> bool {
        if self.lex_error.is_some() {
            return false;
        }
        if self.is_stream() {
            self.forget();
        } else {
            self.release();
        }
        let Some(end) = self.text.window_end(self.next, self.chunk_bytes, Cut::Space) else {
            return false;
        };
        let (bytes, at) = self.text.held();
        #[cfg(test)]
        if self.text.is_stream() {
            self.most_held = self.most_held.max(bytes.len());
        }
        let (start, end) = (self.next - at, end - at);
        let pieces = pieces(bytes, start, end, rayon::current_num_threads());
        self.piece_tokens.resize_with(self.piece_tokens.len().max(pieces.len()), Vec::new);
        let parsed: Vec<Option<usize>> = pieces
            .par_iter()
            .zip(self.piece_tokens.par_iter_mut())
            .map(|(&(a, b), out)| {
                out.clear();
                tokenize_piece(&bytes[a..b], out).map(|bad| a + bad)
            })
            .collect();
        if self.buf.capacity() == 0 {
            // The first window: reserve for the whole input (bounded), when its length is
            // known; only the pages tokens are written to are ever touched. Not on huge pages:
            // tokens are written and read in order, where huge pages save no TLB miss, and
            // this first touch is serial, where a huge page's fault costs the most (a 1M-node
            // file: 0.54 s instead of 0.62; 10M: 7.0 s instead of 10.5; scripts/bench.sh).
            if let Text::Whole(whole) = self.text {
                let bound = (whole.len() - start) / 2 + 1;
                self.buf.reserve(bound.min(MAX_RESERVE));
            }
        }
        // Keep the tokens before the first bad one; nothing after it is read.
        let kept = parsed.iter().position(Option::is_some).map_or(parsed.len(), |k| k + 1);
        self.lex_error = parsed[..kept].iter().find_map(|&bad| bad.map(|bad| at + bad));
        // Each piece is a window an error's offset is found from: a rescan of a piece at most.
        let mut first_token = self.base + self.buf.len() as u64;
        for (&(a, _), tokens) in pieces.iter().zip(&self.piece_tokens).take(kept) {
            self.windows.push(Window { first_token, byte_offset: at + a });
            first_token += tokens.len() as u64;
        }
        append_parallel(&mut self.buf, &self.piece_tokens[..kept]);
        self.next = at + end;
        self.meter.set(self.next as u64);
        true
    }

    /// Lets a stream's bytes go up to the piece that holds the first token an error may still
    /// point at (the tokens from `max(base, hold)` on), with the pieces before it.
    fn forget(&mut self) {
        let keep = self.base.max(self.hold);
        let w = self.windows.partition_point(|w| w.first_token <= keep).saturating_sub(1);
        self.place_pinned(w);
        let from = self.windows.get(w).map_or(self.next, |w| w.byte_offset.min(self.next));
        self.text.forget_before(from);
        self.windows.drain(..w);
    }
}

impl TokenReader<'_> {
    /// Finds the pinned token's place if its piece is before piece `w`, whose bytes are about
    /// to go (a rescan of that piece, once per pin at most).
    fn place_pinned(&mut self, w: usize) {
        let Some(Pin { token, at: None }) = self.pinned else { return };
        let first_kept = self.windows.get(w).map_or(u64::MAX, |w| w.first_token);
        if token < first_kept && token >= self.windows.first().map_or(0, |w| w.first_token) {
            let offset = self.offset_of_global(token);
            self.pinned = Some(Pin { token, at: Some((offset, self.text.locate(offset))) });
        }
    }
}

/// Token buffers reserve at most this many tokens (4 GiB) ahead: beyond it they grow.
const MAX_RESERVE: usize = 1 << 30;

/// Cuts `start..end` into about `threads * PIECES_PER_THREAD` pieces at whitespace.
fn pieces(bytes: &[u8], start: usize, end: usize, threads: usize) -> Vec<(usize, usize)> {
    cut(bytes, start, end, threads * PIECES_PER_THREAD, boundary)
}

/// Cuts `start..end` of `bytes` into about `count` pieces, each ending where `boundary(bytes,
/// at)` says the first safe cut at or after `at` is (whitespace for tokens, a line end for
/// edge lists).
pub fn cut(
    bytes: &[u8],
    start: usize,
    end: usize,
    count: usize,
    boundary: impl Fn(&[u8], usize) -> usize,
) -> Vec<(usize, usize)> {
    let step = (end - start).div_ceil(count.max(1)).max(1);
    let mut out = Vec::with_capacity(count);
    let mut a = start;
    while a < end {
        let b = boundary(bytes, a + step).min(end);
        out.push((a, b));
        a = b;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_tokens(text: &[u8], chunk: usize) -> (Vec<u32>, Option<usize>) {
        let mut r = TokenReader::new(text, chunk);
        let mut i = 0;
        while r.ensure(i) {
            i += 1;
        }
        (r.buf().to_vec(), r.lex_error)
    }

    #[test]
    fn same_tokens_for_every_window_size() {
        let text = b"  12 0 7\n\n3\t4294967295 000 5\r\n6 ";
        for chunk in 1..text.len() + 2 {
            assert_eq!(all_tokens(text, chunk), (vec![12, 0, 7, 3, u32::MAX, 0, 5, 6], None));
        }
    }

    #[test]
    fn stops_at_the_first_bad_token_and_locates_tokens() {
        let text = b"1 2 3 4x 5";
        for chunk in 1..12 {
            assert_eq!(all_tokens(text, chunk), (vec![1, 2, 3], Some(6)));
        }
        let mut r = TokenReader::new(b"10  20\n 30", 3);
        assert!(r.ensure(2));
        assert_eq!((r.offset_of(0), r.offset_of(1), r.offset_of(2)), (0, 4, 8));
        r.consume(1);
        assert_eq!(r.offset_of(1), 8);
        assert_eq!(r.take(1), vec![20]);
        assert_eq!((r.base(), r.buf()), (2, &[30][..]));
    }

    /// A pinned token stays locatable on a stream while the blanks after it go: its offset,
    /// line and column are found before its bytes are let go.
    #[test]
    fn a_pinned_token_is_placed_before_its_bytes_go() {
        let text = format!("1\n 22{}33 44\n", " \n".repeat(1 << 18)).into_bytes();
        let reader = Box::new(std::io::Cursor::new(text.clone()));
        let input = Input::from_reader("t", reader).expect("read");
        let mut r = TokenReader::streaming(input.take_stream().expect("a stream"), 1024);
        assert!(r.ensure(1));
        r.pin(1);
        r.hold_from(2);
        assert!(r.ensure(3));
        assert!(r.held_bytes() < 2 * crate::parse::text::BLOCK, "held {}", r.held_bytes());
        assert_eq!(r.offset_of(1), 3);
        assert_eq!(r.locate(r.offset_of(1)), (2, 2));
        let last = r.offset_of(3);
        assert_eq!(crate::parse::error::line_column(&text, last), r.locate(last));
    }
}
