//! The bytes a token reader ([`crate::parse::tokens`]) reads: a whole input (a map or a
//! buffer), or a stream held only from the first byte that may still be needed.
//!
//! Offsets are the input's own (global) on both: a stream keeps the bytes from `start` on and
//! counts the lines of the bytes it lets go, so a position in what it holds is still told as a
//! line and a column ([`Text::locate`]). What may still be needed is the reader's to say
//! ([`Text::forget_before`]): the bytes of tokens an error may yet point at.

use rayon::prelude::*;

use crate::io::input::Stream;
use crate::parse::lexer::is_space;

/// The bytes of an input, whole or as they arrive.
#[derive(Debug)]
pub enum Text<'a> {
    /// All of them, in memory or mapped.
    Whole(&'a [u8]),
    /// A stream's (boxed: its bookkeeping is larger than a slice).
    Stream(Box<Arriving>),
}

/// The part of a stream still held, and what is known of the part let go.
#[derive(Debug)]
pub struct Arriving {
    stream: Stream,
    /// The bytes at offsets `start .. start + held.len()`.
    held: Vec<u8>,
    start: usize,
    /// Newlines before `start`.
    lines: usize,
    /// The offset where the line that holds `start` begins.
    line_start: usize,
    /// True once the stream has ended (or failed).
    ended: bool,
    /// The read that failed, if one did, until it is taken ([`Text::take_failure`]).
    failure: Option<std::io::Error>,
}

impl Text<'_> {
    /// The text of `stream`, none of it read yet.
    pub fn stream(stream: Stream) -> Text<'static> {
        Text::Stream(Box::new(Arriving {
            stream,
            held: Vec::new(),
            start: 0,
            lines: 0,
            line_start: 0,
            ended: false,
            failure: None,
        }))
    }

    /// True for a stream.
    pub fn is_stream(&self) -> bool {
        matches!(self, Text::Stream(_))
    }

    /// The bytes held and the offset of the first of them.
    #[inline]
    pub fn held(&self) -> (&[u8], usize) {
        match self {
            Text::Whole(bytes) => (bytes, 0),
            Text::Stream(s) => (&s.held, s.start),
        }
    }

    /// The end of a window that starts at `from` and holds about `chunk` bytes: the first
    /// whitespace at or after `from + chunk`, or the end of the text (a token never straddles
    /// it); `None` when nothing is left from `from` on. A stream reads until it holds it.
    pub fn window_end(&mut self, from: usize, chunk: usize) -> Option<usize> {
        match self {
            Text::Whole(bytes) => (from < bytes.len()).then(|| boundary(bytes, from + chunk)),
            Text::Stream(s) => s.window_end(from, chunk),
        }
    }

    /// Lets go of the bytes before offset `offset` (a stream's; a whole text keeps them).
    pub fn forget_before(&mut self, offset: usize) {
        if let Text::Stream(s) = self {
            s.forget_before(offset);
        }
    }

    /// The 1-based line and byte column of `offset`, which is held (or is the end).
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        let (held, start) = self.held();
        let (lines, line_start) = match self {
            Text::Whole(_) => (0, 0),
            Text::Stream(s) => (s.lines, s.line_start),
        };
        debug_assert!(offset >= start, "offset {offset} was let go (held from {start})");
        let before = &held[..offset.saturating_sub(start).min(held.len())];
        let line = 1 + lines + count_newlines(before);
        let line_start =
            before.iter().rposition(|&b| b == b'\n').map_or(line_start, |i| start + i + 1);
        (line, start + before.len() - line_start + 1)
    }

    /// The read that ended a stream early, once: the stream then looks ended to the reader,
    /// and its caller reports this instead of what the reader made of the end.
    pub fn take_failure(&mut self) -> Option<(std::io::Error, &'static str)> {
        match self {
            Text::Whole(_) => None,
            Text::Stream(s) => s.failure.take().map(|e| (e, s.stream.failing())),
        }
    }
}

impl Arriving {
    fn end(&self) -> usize {
        self.start + self.held.len()
    }

    fn window_end(&mut self, from: usize, chunk: usize) -> Option<usize> {
        let want = from + chunk.max(1);
        loop {
            if self.end() > want {
                let rest = &self.held[want - self.start..];
                if let Some(i) = rest.iter().position(|&b| is_space(b)) {
                    return Some(want + i);
                }
            }
            if self.ended {
                return (from < self.end()).then(|| self.end());
            }
            self.read_more(chunk.max(READ_AT_LEAST));
        }
    }

    /// Reads up to `count` more bytes (fewer at the end of the stream).
    fn read_more(&mut self, count: usize) {
        let len = self.held.len();
        self.held.resize(len + count, 0);
        let mut filled = len;
        while filled < len + count {
            match self.stream.read(&mut self.held[filled..]) {
                Ok(0) => {
                    self.ended = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    (self.ended, self.failure) = (true, Some(e));
                    break;
                }
            }
        }
        self.held.truncate(filled);
    }

    fn forget_before(&mut self, offset: usize) {
        let count = offset.saturating_sub(self.start).min(self.held.len());
        if count == 0 {
            return;
        }
        let gone = &self.held[..count];
        self.lines += count_newlines(gone);
        if let Some(i) = gone.iter().rposition(|&b| b == b'\n') {
            self.line_start = self.start + i + 1;
        }
        self.held.drain(..count);
        self.start += count;
    }
}

/// A stream is read in steps of at least this many bytes (a pipe gives 64 KiB per read).
pub(crate) const READ_AT_LEAST: usize = 1 << 16;

/// The newlines in `bytes`, counted in parallel blocks when there are many.
fn count_newlines(bytes: &[u8]) -> usize {
    let count = |block: &[u8]| block.iter().filter(|&&b| b == b'\n').count();
    if bytes.len() < 1 << 20 {
        return count(bytes);
    }
    bytes.par_chunks(1 << 18).map(count).sum()
}

/// The first offset at or after `at` that is whitespace or the end: tokens never straddle it.
pub fn boundary(bytes: &[u8], at: usize) -> usize {
    let mut i = at.min(bytes.len());
    while i < bytes.len() && !is_space(bytes[i]) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::input::Input;

    fn stream_of(text: &[u8]) -> Text<'static> {
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        let input = Input::from_reader("t", reader).expect("read");
        Text::stream(input.take_stream().expect("a stream"))
    }

    #[test]
    fn a_stream_cuts_windows_at_whitespace_and_locates_what_it_holds() {
        let text = b"12 345\n6789 0\n\n 42";
        for chunk in 1..text.len() + 2 {
            let mut stream = stream_of(text);
            let (mut from, mut ends) = (0, Vec::new());
            while let Some(end) = stream.window_end(from, chunk) {
                assert!(end == text.len() || is_space(text[end]), "chunk {chunk}: {end}");
                for offset in from..=end {
                    let (line, column) = stream.locate(offset);
                    let want = crate::parse::error::line_column(text, offset);
                    assert_eq!((line, column), want, "chunk {chunk} offset {offset}");
                }
                ends.push(end);
                stream.forget_before(from);
                from = end;
            }
            assert_eq!(ends.last(), Some(&text.len()), "chunk {chunk}");
            assert_eq!(stream.locate(text.len()), crate::parse::error::line_column(text, 99));
        }
    }
}
