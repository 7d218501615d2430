//! The bytes a token reader ([`crate::parse::tokens`]) reads: a whole input (a map or a
//! buffer), or a stream held only from the first byte that may still be needed.
//!
//! Offsets are the input's own (global) on both: a stream keeps the bytes from `start` on and
//! counts the lines of the bytes it lets go, so a position in what it holds is still told as a
//! line and a column ([`Text::locate`]). What may still be needed is the reader's to say
//! ([`Text::forget_before`]): the bytes of tokens an error may yet point at.

use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use rayon::prelude::*;

use crate::io::input::Stream;
use crate::parse::error::line_column;
use crate::parse::lexer::is_space;

/// The bytes of an input, whole or as they arrive.
#[derive(Debug)]
pub enum Text<'a> {
    /// All of them, in memory or mapped.
    Whole(&'a [u8]),
    /// A stream's (boxed: its bookkeeping is larger than a slice).
    Stream(Box<Arriving>),
}

/// Where a window may end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// At whitespace (before it): a token never straddles two windows.
    Space,
    /// After a newline: a line never straddles two windows (edge lists).
    Line,
}

impl Cut {
    /// The first place at or after `at` where a window may end, or the end of `bytes`.
    #[inline]
    pub fn end(self, bytes: &[u8], at: usize) -> usize {
        let at = at.min(bytes.len());
        self.after(&bytes[at..]).map_or(bytes.len(), |i| at + i)
    }

    /// The most bytes after a window's nominal end that a stream reads looking for this cut:
    /// past them, the window ends there all the same (see [`Arriving::window_end`]).
    fn longest(self) -> Option<usize> {
        match self {
            Cut::Space => Some(crate::parse::lexer::MAX_TOKEN),
            Cut::Line => Some(MAX_LINE),
        }
    }

    /// The first place in `bytes` where a window may end, if there is one.
    fn after(self, bytes: &[u8]) -> Option<usize> {
        match self {
            Cut::Space => bytes.iter().position(|&b| is_space(b)),
            Cut::Line => bytes.iter().position(|&b| b == b'\n').map(|i| i + 1),
        }
    }
}

/// The longest line of an edge list, in bytes before its line end: a stream's window ends at
/// a line end, so a line is held whole, and a longer one is an error found within its first
/// `MAX_LINE + 1` bytes, wherever the input comes from ([`crate::parse::edges`]).
pub const MAX_LINE: usize = 1 << 20;

/// The part of a stream still held, and what is known of the part let go.
#[derive(Debug)]
pub struct Arriving {
    ahead: Ahead,
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
            ahead: Ahead::start(stream),
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
    /// place at or after `from + chunk` where `cut` may cut, or the end of the text; `None`
    /// when nothing is left from `from` on. A stream reads until it holds it.
    pub fn window_end(&mut self, from: usize, chunk: usize, cut: Cut) -> Option<usize> {
        match self {
            Text::Whole(bytes) => (from < bytes.len()).then(|| cut.end(bytes, from + chunk)),
            Text::Stream(s) => s.window_end(from, chunk, cut),
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
        let at = offset.saturating_sub(start).min(held.len());
        match line_column(held, at) {
            // Still on the line that began before the bytes held.
            (1, _) => (1 + lines, start + at - line_start + 1),
            (line, column) => (line + lines, column),
        }
    }

    /// The read that ended a stream early, once: the stream then looks ended to the reader,
    /// and its caller reports this instead of what the reader made of the end.
    pub fn take_failure(&mut self) -> Option<(std::io::Error, &'static str)> {
        match self {
            Text::Whole(_) => None,
            Text::Stream(s) => s.failure.take().map(|e| (e, s.ahead.failing)),
        }
    }
}

impl Arriving {
    fn end(&self) -> usize {
        self.start + self.held.len()
    }

    /// The end of the window from `from` ([`Text::window_end`]). A token longer than the lexer
    /// reads ([`MAX_TOKEN`](crate::parse::lexer::MAX_TOKEN)), or an edge list's line longer
    /// than [`MAX_LINE`], is not read to its end: the window
    /// ends inside it, where its first bytes already make it an error (the same one a whole
    /// text gives), so a stranger's endless token or line is never held.
    fn window_end(&mut self, from: usize, chunk: usize, cut: Cut) -> Option<usize> {
        let want = from + chunk.max(1);
        loop {
            if self.end() > want {
                let tail = &self.held[want - self.start..];
                if let Some(i) = cut.after(tail) {
                    return Some(want + i);
                }
                if let Some(longest) = cut.longest().filter(|&l| tail.len() > l) {
                    return Some(want + longest + 1);
                }
            }
            if self.ended {
                return (from < self.end()).then(|| self.end());
            }
            self.read_more(chunk.max(READ_AT_LEAST));
        }
    }

    /// Reads `count` more bytes, or what is left of the stream.
    fn read_more(&mut self, count: usize) {
        let goal = self.held.len() + count;
        while self.held.len() < goal && !self.ended {
            match self.ahead.blocks.recv() {
                Ok(Ok(block)) => {
                    self.held.extend_from_slice(&block);
                    // The reading thread writes its next block there, if it has not made one.
                    let _ = self.ahead.spent.try_send(block);
                }
                Ok(Err(e)) => (self.ended, self.failure) = (true, Some(e)),
                Err(_) => self.ended = true,
            }
        }
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
const READ_AT_LEAST: usize = 1 << 16;

/// Bytes the reading thread reads per block, and blocks it may read ahead of the windows.
pub(crate) const BLOCK: usize = 1 << 18;
const BLOCKS_AHEAD: usize = 4;

/// A stream read by a thread of its own, a few blocks ahead of the windows: a pipe's writer
/// or a decompressor (one core's work for gzip) runs while the windows before are parsed,
/// instead of taking turns with them. Blocks are handed back to be read into again.
#[derive(Debug)]
struct Ahead {
    /// The blocks in order; a read error is the last; the end closes the channel.
    blocks: Receiver<std::io::Result<Vec<u8>>>,
    spent: SyncSender<Vec<u8>>,
    failing: &'static str,
}

impl Ahead {
    fn start(mut stream: Stream) -> Ahead {
        let failing = stream.failing();
        let (send, blocks) = sync_channel(BLOCKS_AHEAD);
        let (spent, reuse) = sync_channel::<Vec<u8>>(BLOCKS_AHEAD + 2);
        std::thread::spawn(move || loop {
            let mut block = reuse.try_recv().unwrap_or_else(|_| Vec::with_capacity(BLOCK));
            block.clear();
            let read = (&mut stream).take(BLOCK as u64).read_to_end(&mut block);
            let last = !matches!(read, Ok(n) if n > 0);
            // What was read before an error is text all the same, and goes first.
            if !block.is_empty() && send.send(Ok(block)).is_err() {
                return;
            }
            if let Err(e) = read {
                let _ = send.send(Err(e));
            }
            if last {
                return;
            }
        });
        Ahead { blocks, spent, failing }
    }
}

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
    Cut::Space.end(bytes, at)
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
            while let Some(end) = stream.window_end(from, chunk, Cut::Space) {
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
