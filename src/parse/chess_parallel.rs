//! The chess format read from parallel-tokenized windows: the parallel twin of [`crate::parse::chess`].
//!
//! The walk over the structure stays sequential, but it only hops: from one out-degree to the
//! next, from one query length to the next; the per-token work (parsing, range checks, the
//! queries' XORs) runs in parallel. A case's graph section is buffered whole and compacted in
//! place into the CSR targets, so the tokens are the targets' memory; a query section is handed
//! out one window at a time, so it streams in bounded memory.

use rayon::prelude::*;

use crate::graph::sums::SumsGraph;
use crate::graph::{GameGraph, Offset, OffsetsBuilder};
use crate::io::input::Input;
use crate::meter::Meter;
use crate::parse::error::{checked_total, Expected, ParseError, Total};
use crate::parse::tokens::TokenReader;
use crate::parse::walk::{max_query_of, out_of_range, query_too_long, Mode, Next, Record, Walk};

/// Reads cases and query batches from chess-format bytes, tokenizing in parallel.
#[derive(Debug)]
pub struct ParChessReader<'a> {
    tokens: TokenReader<'a>,
    /// Where the grammar stands (the case, its node count, the next query's number).
    walk: Walk,
    /// Buffer index of each query's length token in the current batch.
    starts: Vec<u32>,
    /// Tokens of the last batch (and its terminating 0), consumed at the next call.
    done: usize,
    /// The error of a bad position found while checking the last batch, returned once the
    /// queries before it have been handed out.
    pending: Option<ParseError>,
}

impl<'a> ParChessReader<'a> {
    /// A reader at the start of `bytes`, tokenizing about `chunk_bytes` per window.
    pub fn new(bytes: &'a [u8], chunk_bytes: usize) -> ParChessReader<'a> {
        ParChessReader {
            tokens: TokenReader::new(bytes, chunk_bytes),
            walk: Walk::start(Mode::Cases, false),
            starts: Vec::new(),
            done: 0,
            pending: None,
        }
    }

    /// A reader of `bytes` as queries only (no case header, no graph), on a graph of `nodes`
    /// nodes: the query file of `grundy query`. Errors name no case.
    pub fn queries_only(bytes: &'a [u8], chunk_bytes: usize, nodes: u32) -> ParChessReader<'a> {
        ParChessReader::new(bytes, chunk_bytes).alone(nodes)
    }

    /// This reader, reading its input as queries only on a graph of `nodes` nodes.
    pub fn alone(self, nodes: u32) -> ParChessReader<'a> {
        ParChessReader { walk: Walk::queries(nodes).with_max_query(self.walk.max_query), ..self }
    }

    /// A reader of `input`'s bytes that hands the pages it has tokenized back to the kernel
    /// ([`Input::release_before`]), so a file larger than memory streams through.
    ///
    /// A stream ([`Input::is_stream`]) is read as it arrives, holding only the windows an error
    /// may still point at, on every executor: the lists of a case are checked as they are
    /// walked instead of after the case, while their bytes are held.
    pub fn of(input: &'a Input, chunk_bytes: usize) -> ParChessReader<'a> {
        let mut reader = ParChessReader::new(input.bytes(), chunk_bytes);
        reader.walk = reader.walk.with_max_query(max_query_of(input));
        let tokens = match input.is_stream() {
            // A stream already taken has nothing left to read.
            true => match input.take_stream() {
                Some(stream) => TokenReader::streaming(stream, chunk_bytes),
                None => TokenReader::new(&[], chunk_bytes),
            },
            false => reader.tokens.releasing(input),
        };
        ParChessReader { tokens, ..reader }
    }

    /// The 1-based line and column of the byte offset of an error this reader has just
    /// returned.
    pub fn locate(&self, offset: usize) -> (usize, usize) {
        self.tokens.locate(offset)
    }

    /// The failed read that ended a stream early, once: what went wrong, rather than the
    /// error or the end the reader made of it.
    pub fn take_failure(&mut self) -> Option<(std::io::Error, &'static str)> {
        self.tokens.take_failure()
    }

    /// This reader, telling `meter` the bytes tokenized, window by window.
    pub fn with_meter(self, meter: &'a dyn Meter) -> ParChessReader<'a> {
        ParChessReader { tokens: self.tokens.with_meter(meter), ..self }
    }

    /// Bytes tokenized so far.
    pub fn offset(&self) -> usize {
        self.tokens.offset()
    }

    /// The offset of the next token (or bad token), if any input is left.
    pub fn next_token_offset(&mut self) -> Option<usize> {
        self.tokens.consume(std::mem::take(&mut self.done));
        if self.tokens.ensure(0) {
            Some(self.tokens.offset_of(0))
        } else {
            self.tokens.lex_error()
        }
    }

    /// The 1-based number of the case last started (0 before the first).
    pub fn case(&self) -> u64 {
        self.walk.case
    }

    /// Reads the node count that opens the next case: the case number, the node count and the
    /// global index of that token; `None` at the end of the input.
    fn start_case(&mut self, sums: bool) -> Result<Option<(u64, u32, u64)>, ParseError> {
        debug_assert!(self.walk.next == Next::Case, "queries of the previous case were not read");
        self.tokens.consume(std::mem::take(&mut self.done));
        self.walk.sums = sums;
        if !self.tokens.ensure(0) {
            if self.tokens.clean_end() {
                return Ok(None);
            }
            return Err(self.tokens.missing(0, self.walk.expected()));
        }
        let Record::Case { case, nodes } = self.walk.take(self.tokens.buf()[0]) else {
            unreachable!("a walk before a case opens one")
        };
        // No error points at a node count once it is read: on a stream, blanks after it go.
        if self.tokens.is_stream() {
            self.tokens.hold_from(1);
        }
        Ok(Some((case, nodes, self.tokens.base())))
    }

    /// Starts the next case and reads its graph; `None` at the end of the input. The queries
    /// of the previous case must have been read to their end.
    pub fn next_graph(&mut self) -> Result<Option<GameGraph>, ParseError> {
        let Some((case, n, first_token)) = self.start_case(false)? else { return Ok(None) };
        // A bad out-position before the point where the walk failed is the first error.
        let offsets = self.walk_nodes().map_err(|e| self.bad_target(case, n).unwrap_or(e))?;
        let section_len = 1 + n as usize + offsets.last() as usize;
        let mut targets = self.tokens.take(section_len);
        compact(&mut targets, &offsets);
        // A parallel max, vectorized; the offending edge is searched for only on the error path.
        // A stream's lists were checked as they were walked.
        let max = match self.tokens.is_stream() {
            true => None,
            false => targets.par_chunks(1 << 16).map(|c| c.iter().copied().max()).max().flatten(),
        };
        if let Some(e) = max.filter(|&m| m >= n).and_then(|_| targets.iter().position(|&t| t >= n))
        {
            let (node, index, of) = offsets.locate(e);
            let node = node as usize;
            let expected = Expected::OutPosition { case, node: node as u32, index, of };
            let global = first_token + 1 + node as u64 + 1 + e as u64;
            let offset = self.tokens.offset_of_global(global);
            return Err(out_of_range(offset, expected, targets[e], n));
        }
        // The graph's text is parsed: its pages need not stay mapped while it is evaluated.
        self.tokens.release();
        // Ids were checked by the parallel max above, offsets built by the walk.
        Ok(Some(offsets.into_graph(targets)))
    }

    /// Hops over the records of the case's nodes (buffering their lists) and returns the
    /// offsets.
    fn walk_nodes(&mut self) -> Result<OffsetsBuilder, ParseError> {
        let (tokens, walk) = (&mut self.tokens, &mut self.walk);
        let cap = (walk.nodes as usize).min(tokens.buf().len() + 1);
        let mut offsets = OffsetsBuilder::with_capacity(cap);
        let mut edges: u64 = 0;
        let mut pos = 1usize;
        while walk.in_graph() {
            if !tokens.ensure(pos) {
                return Err(tokens.missing(pos, walk.expected()));
            }
            let record = walk.take(tokens.buf()[pos]);
            let end = pos + 1 + record.len() as usize;
            if tokens.is_stream() {
                take_checked(tokens, walk, &record, pos, end, end)?;
            } else if !record.is_empty() && !tokens.ensure(end - 1) {
                let index = (tokens.buf().len() - pos) as u32;
                return Err(tokens.missing(tokens.buf().len(), walk.item(&record, index)));
            }
            edges += u64::from(record.len());
            offsets.push(edges);
            pos = end;
        }
        Ok(offsets)
    }

    /// Starts the next case and reads its game in the sums format (the parallel twin of
    /// [`ChessReader::next_sums_graph`](crate::parse::chess::ChessReader::next_sums_graph)).
    pub fn next_sums_graph(&mut self) -> Result<Option<SumsGraph>, ParseError> {
        let Some((case, n, first_token)) = self.start_case(true)? else { return Ok(None) };
        let (move_offsets, part_offsets, section_len) =
            self.walk_sums().map_err(|e| self.bad_part(case, n).unwrap_or(e))?;
        let mut parts = self.tokens.take(section_len);
        compact_sums(&mut parts, n);
        let max = match self.tokens.is_stream() {
            true => None,
            false => parts.par_chunks(1 << 16).map(|c| c.iter().copied().max()).max().flatten(),
        };
        if let Some(e) = max.filter(|&m| m >= n).and_then(|_| parts.iter().position(|&t| t >= n)) {
            let m = part_offsets.partition_point(|&o| o as usize <= e) - 1;
            let node = move_offsets.partition_point(|&o| o as usize <= m) - 1;
            let expected = Expected::Part {
                case,
                node: node as u32,
                move_index: (m - move_offsets[node] as usize) as u32 + 1,
                index: (e - part_offsets[m] as usize) as u32 + 1,
                of: part_offsets[m + 1] - part_offsets[m],
            };
            // Before part e: N, the move counts of nodes 0..=node, the part counts of moves
            // 0..=m, and e parts.
            let global = first_token + 1 + (node as u64 + 1) + (m as u64 + 1) + e as u64;
            let offset = self.tokens.offset_of_global(global);
            return Err(out_of_range(offset, expected, parts[e], n));
        }
        self.tokens.release();
        Ok(Some(SumsGraph::from_checked_parts(move_offsets, part_offsets, parts)))
    }

    /// Hops over the move and part counts of the case's nodes (buffering their parts);
    /// returns the move offsets, the part offsets and the length of the section in tokens.
    fn walk_sums(&mut self) -> Result<(Vec<u32>, Vec<u32>, usize), ParseError> {
        let (tokens, walk) = (&mut self.tokens, &mut self.walk);
        let mut move_offsets =
            Vec::with_capacity((walk.nodes as usize).min(tokens.buf().len() + 1) + 1);
        let (mut part_offsets, mut parts) = (vec![0u32], 0u64);
        move_offsets.push(0u32);
        let mut pos = 1usize;
        let mut node_pos = pos;
        while walk.in_graph() {
            if !tokens.ensure(pos) {
                return Err(tokens.missing(pos, walk.expected()));
            }
            let counted = walk.expected();
            let record = walk.take(tokens.buf()[pos]);
            match record {
                Record::Moves { .. } => {
                    node_pos = pos;
                    if tokens.is_stream() {
                        // The node's move count may yet be an error's token (too many moves).
                        tokens.pin(node_pos);
                        tokens.hold_from(node_pos + 1);
                    }
                }
                _ => {
                    if tokens.is_stream() {
                        // The part count is an error's token only if the total overflows.
                        let end = pos + 1 + record.len() as usize;
                        let overflows = parts + u64::from(record.len()) > u64::from(u32::MAX);
                        take_checked(
                            tokens,
                            walk,
                            &record,
                            pos,
                            end,
                            if overflows { pos } else { end },
                        )?;
                    } else if !record.is_empty() && !tokens.ensure(pos + record.len() as usize) {
                        let index = (tokens.buf().len() - pos) as u32;
                        let expected = walk.item(&record, index);
                        return Err(tokens.missing(tokens.buf().len(), expected));
                    }
                    parts += u64::from(record.len());
                    let at = || tokens.offset_of(pos);
                    part_offsets.push(checked_total(parts, at, counted, Total::Parts)?);
                }
            }
            pos += 1 + record.len() as usize;
            // The node's last move (or a node of none) closes its moves.
            if !matches!(walk.next, Next::Move { .. }) {
                let total = part_offsets.len() as u64 - 1;
                let at = || tokens.offset_of(node_pos);
                let node = move_offsets.len() as u32 - 1;
                let moves = Expected::MoveCount { case: walk.case, node };
                move_offsets.push(checked_total(total, at, moves, Total::Moves)?);
            }
        }
        Ok((move_offsets, part_offsets, pos))
    }

    /// The first buffered part of the current case that is not a node, found by walking the
    /// buffered part of the section again (error path only).
    fn bad_part(&self, case: u64, n: u32) -> Option<ParseError> {
        self.bad_item(case, true, n)
    }

    /// The first buffered out-position of the current case that is not a node, found by
    /// walking the buffered part of the graph section again (error path only).
    fn bad_target(&self, case: u64, n: u32) -> Option<ParseError> {
        self.bad_item(case, false, n)
    }

    /// The first list token of case `case`'s buffered graph section (from its node count on)
    /// that is not one of its `n` nodes, found by walking the section again.
    fn bad_item(&self, case: u64, sums: bool, n: u32) -> Option<ParseError> {
        let mut walk = Walk { case: case - 1, ..Walk::start(Mode::Cases, sums) };
        let buf = self.tokens.buf();
        walk.take(*buf.first()?);
        let mut pos = 1;
        while walk.in_graph() {
            let record = walk.take(*buf.get(pos)?);
            for index in 1..=record.len() {
                let value = *buf.get(pos + index as usize)?;
                if value >= n {
                    let offset = self.tokens.offset_of(pos + index as usize);
                    return Some(out_of_range(offset, walk.item(&record, index), value, n));
                }
            }
            pos += 1 + record.len() as usize;
        }
        None
    }

    /// The next batch of complete queries of the current case; `None` when the case has ended
    /// (a query of length 0, or the end of the input). Every position of a batch is a node:
    /// a batch ends before the first query with one that is not, and the next call returns
    /// that query's error.
    pub fn next_queries(&mut self) -> Result<Option<QueryBatch<'_>>, ParseError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        self.tokens.consume(std::mem::take(&mut self.done));
        let Next::Query(first_query) = self.walk.next else { return Ok(None) };
        self.starts.clear();
        let mut pos = 0usize;
        // The walk's grammar, hopped over a batch at once: a query is its length and that
        // many positions; a length of 0 ends the case. A length over the cap ends the batch
        // before that query, whose error follows the batch.
        let (mut ended, mut long) = (false, false);
        let max = self.walk.max_query as usize;
        loop {
            let buf = self.tokens.buf();
            while pos < buf.len() {
                let m = buf[pos] as usize;
                if m == 0 {
                    ended = true;
                    self.done = pos + 1;
                    break;
                }
                if m > max {
                    long = true;
                    break;
                }
                if pos + m >= buf.len() {
                    break;
                }
                self.starts.push(pos as u32);
                pos += 1 + m;
            }
            if ended || long || !self.starts.is_empty() {
                break;
            }
            // Not one complete query buffered: fetch more, or end the case.
            let mut walk = self.walk;
            if pos >= self.tokens.buf().len() {
                if !self.tokens.ensure(pos) {
                    if self.tokens.clean_end() {
                        // The end of the input ends the case (and a query file).
                        self.walk.next = match self.walk.mode {
                            Mode::Queries => Next::End,
                            _ => Next::Case,
                        };
                        self.done = pos;
                        return Ok(None);
                    }
                    return Err(self.tokens.missing(pos, walk.expected()));
                }
            } else if self.tokens.is_stream() {
                // A stream's positions are checked as they arrive, so that neither they nor
                // blanks between them are held as bytes (the tokens are, up to the cap).
                let record = walk.take(self.tokens.buf()[pos]);
                let end = pos + 1 + record.len() as usize;
                take_checked(&mut self.tokens, &walk, &record, pos, end, end)?;
            } else {
                let m = self.tokens.buf()[pos];
                if !self.tokens.ensure(pos + m as usize) {
                    let record = walk.take(m);
                    let buf = self.tokens.buf();
                    // A bad position before the end of the query is the first error.
                    let nodes = walk.nodes;
                    if let Some(index) = buf[pos + 1..].iter().position(|&v| v >= nodes) {
                        let at = pos + 1 + index;
                        let expected = walk.item(&record, index as u32 + 1);
                        let offset = self.tokens.offset_of(at);
                        return Err(out_of_range(offset, expected, buf[at], nodes));
                    }
                    let expected = walk.item(&record, (buf.len() - pos) as u32);
                    return Err(self.tokens.missing(buf.len(), expected));
                }
            }
        }
        if !ended {
            self.done = pos;
        }
        if long {
            let at = (self.walk.queries_at(), first_query + self.starts.len() as u64);
            let (m, offset) = (self.tokens.buf()[pos], self.tokens.offset_of(pos));
            let error = query_too_long(at, m, self.walk.max_query, offset);
            if self.starts.is_empty() {
                return Err(error);
            }
            self.pending = Some(error);
        }
        if let Some((i, index)) =
            first_bad_position(self.tokens.buf(), &self.starts, self.walk.nodes)
        {
            let error = self.position_error(i, index);
            self.starts.truncate(i);
            ended = false;
            if self.starts.is_empty() {
                return Err(error);
            }
            self.pending = Some(error);
        }
        self.walk.next = Next::Query(first_query + self.starts.len() as u64);
        if ended {
            self.walk.take(0);
        }
        if self.starts.is_empty() {
            return Ok(None);
        }
        Ok(Some(QueryBatch { tokens: self.tokens.buf(), starts: &self.starts, first_query }))
    }

    /// The error for position `index` (0-based) of query `i` (0-based) of the queries
    /// buffered from `starts`, before they are handed out (the walk stands before the batch).
    fn position_error(&self, i: usize, index: usize) -> ParseError {
        let start = self.starts[i] as usize;
        let buf = self.tokens.buf();
        let mut walk = self.walk;
        let Next::Query(first) = walk.next else { unreachable!("a batch is of queries") };
        walk.next = Next::Query(first + i as u64);
        let record = walk.take(buf[start]);
        let at = start + 1 + index;
        let offset = self.tokens.offset_of(at);
        out_of_range(offset, walk.item(&record, index as u32 + 1), buf[at], walk.nodes)
    }
}

/// Buffers the list of `record`, the tokens `pos + 1 .. end` (its count at `pos`), checking
/// each is one of the case's nodes as the windows arrive, and marks them checked: the way a
/// stream's lists are read, so no bytes of the case need be held once it is walked. The
/// tokens from buffer index `keep` on stay locatable (a sums node's move count).
///
/// The first error is the one the whole-text path finds: a bad item before the point where
/// the input ends or stops being numbers.
fn take_checked(
    tokens: &mut TokenReader<'_>,
    walk: &Walk,
    record: &Record,
    pos: usize,
    end: usize,
    keep: usize,
) -> Result<(), ParseError> {
    let n = walk.nodes;
    let mut from = pos + 1;
    loop {
        let have = tokens.buf().len().min(end);
        if let Some(i) = tokens.buf()[from.min(have)..have].iter().position(|&t| t >= n) {
            let at = from + i;
            let expected = walk.item(record, (at - pos) as u32);
            return Err(out_of_range(tokens.offset_of(at), expected, tokens.buf()[at], n));
        }
        tokens.hold_from(have.min(keep));
        if have >= end {
            return Ok(());
        }
        from = have;
        if !tokens.ensure(have) {
            let index = (tokens.buf().len() - pos) as u32;
            return Err(tokens.missing(tokens.buf().len(), walk.item(record, index)));
        }
    }
}

/// Queries checked per parallel task.
const QUERIES_PER_CHECK: usize = 1 << 12;

/// The first position (query, index, both 0-based) among the queries at `starts` of
/// `tokens` that is not below `nodes`.
///
/// Almost every batch is settled by one vectorized parallel max over its tokens (query
/// lengths included: they are small, node counts large); only when the max reaches `nodes`
/// are the queries walked one by one to find the first bad position, if any.
fn first_bad_position(tokens: &[u32], starts: &[u32], nodes: u32) -> Option<(usize, usize)> {
    let end = starts.last().map_or(0, |&s| s as usize + 1 + tokens[s as usize] as usize);
    let max = tokens[..end].par_chunks(1 << 16).map(|c| c.iter().copied().max()).max().flatten();
    if max.is_none_or(|m| m < nodes) {
        return None;
    }
    let bad_in = |first: usize, queries: &[u32]| {
        queries.iter().enumerate().find_map(|(i, &s)| {
            let m = tokens[s as usize] as usize;
            let positions = &tokens[s as usize + 1..s as usize + 1 + m];
            positions.iter().position(|&v| v >= nodes).map(|index| (first + i, index))
        })
    };
    starts
        .par_chunks(QUERIES_PER_CHECK)
        .enumerate()
        .map(|(c, queries)| bad_in(c * QUERIES_PER_CHECK, queries))
        .find_first(Option::is_some)
        .flatten()
}

/// Turns a graph section (N, then each node's out-degree and list) into the CSR targets, in
/// place: every target moves to a lower index, so a forward copy never overwrites unread data.
fn compact(section: &mut Vec<u32>, offsets: &OffsetsBuilder) {
    match offsets {
        OffsetsBuilder::Narrow { offsets, .. } => compact_lists(section, offsets),
        OffsetsBuilder::Wide(offsets) => compact_lists(section, offsets),
    }
}

/// [`compact`] for offsets of one width (matched once, not per node), in two halves at once.
///
/// The nodes from `a`, where the edges halve, move their lists within the section from
/// `offsets[a]` on; the nodes before `a` move theirs below it, but their last `a + 1` tokens
/// lie above it, where the second half writes: those are copied aside first (4 bytes per node
/// of the first half).
fn compact_lists<O: Offset>(section: &mut Vec<u32>, offsets: &[O]) {
    let n = offsets.len() - 1;
    let total = offsets[n].index();
    let a = offsets.partition_point(|o| o.index() < total / 2).min(n);
    let (left, right) = section.split_at_mut(offsets[a].index());
    let tail = right[..a + 1].to_vec();
    rayon::join(
        || move_lists(left, 0, &tail, offsets, 0..a),
        || move_lists(right, offsets[a].index(), &[], offsets, a..n),
    );
    section.truncate(total);
}

/// Moves the lists of `nodes` to their CSR places in `buf`, which holds the section from token
/// `base` on and is followed by the tokens `tail`.
fn move_lists<O: Offset>(
    buf: &mut [u32],
    base: usize,
    tail: &[u32],
    offsets: &[O],
    nodes: std::ops::Range<usize>,
) {
    for v in nodes {
        let (from, to) = (offsets[v].index() - base, offsets[v + 1].index() - base);
        // Node v's list follows N, the v lists and out-degrees before it, and its degree.
        let read = 2 + v + from;
        let len = to - from;
        if read + len > buf.len() {
            for i in 0..len {
                let r = read + i;
                buf[from + i] = if r < buf.len() { buf[r] } else { tail[r - buf.len()] };
            }
        } else if len <= 4 {
            // Short lists (most, in sparse graphs) move faster without a memmove call.
            for i in 0..len {
                buf[from + i] = buf[read + i];
            }
        } else {
            buf.copy_within(read..read + len, from);
        }
    }
}

/// Turns a sums section (N, then per node its move count and per move its part count and
/// parts) into the parts alone, in place (each part moves to a lower index).
fn compact_sums(section: &mut Vec<u32>, n: u32) {
    let (mut read, mut write) = (1usize, 0usize);
    for _ in 0..n {
        let moves = section[read];
        read += 1;
        for _ in 0..moves {
            let count = section[read] as usize;
            read += 1;
            section.copy_within(read..read + count, write);
            read += count;
            write += count;
        }
    }
    section.truncate(write);
}

/// A batch of complete queries, borrowed from the reader's buffer, every position checked to
/// be a node of the case.
#[derive(Debug, Clone, Copy)]
pub struct QueryBatch<'r> {
    tokens: &'r [u32],
    starts: &'r [u32],
    /// 1-based number of the batch's first query within its case.
    pub first_query: u64,
}

impl<'r> QueryBatch<'r> {
    /// Number of queries.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True if the batch has no query (never returned by the reader).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The positions of query `i` (0-based within the batch).
    #[inline]
    pub fn positions(&self, i: usize) -> &'r [u32] {
        let start = self.starts[i] as usize;
        let m = self.tokens[start] as usize;
        &self.tokens[start + 1..start + 1 + m]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::chess::ChessReader;

    /// Everything a reader yields, as plain data: graphs, then each case's queries.
    type Read = Vec<(GameGraph, Vec<Vec<u32>>)>;

    fn read_parallel(text: &[u8], chunk: usize) -> Result<Read, ParseError> {
        read_all(&mut ParChessReader::new(text, chunk), false)
    }

    /// What the window reader yields from `text` given as a stream, and for an error, the line
    /// and column it places it at, which must be those of the error's offset in `text`; with
    /// the most bytes the stream held at once, which must stay near a window whatever the
    /// size of the input.
    fn read_streamed(text: &[u8], chunk: usize, sums: bool) -> (Result<Read, ParseError>, usize) {
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        let input = Input::from_reader("t", reader).unwrap();
        let mut r = ParChessReader::of(&input, chunk);
        let mut most = 0;
        let read = read_all_watching(&mut r, sums, &mut most);
        if let Err(e) = &read {
            let at = crate::parse::error::line_column(text, e.offset);
            assert_eq!(r.locate(e.offset), at, "chunk {chunk}: {e:?} in {text:?}");
        }
        (read, most)
    }

    fn read_all(r: &mut ParChessReader, sums: bool) -> Result<Read, ParseError> {
        read_all_watching(r, sums, &mut 0)
    }

    fn read_all_watching(
        r: &mut ParChessReader,
        sums: bool,
        most: &mut usize,
    ) -> Result<Read, ParseError> {
        let mut cases = Vec::new();
        loop {
            let graph = match sums {
                true => r.next_sums_graph()?.map(GameGraph::Sums),
                false => r.next_graph()?,
            };
            let Some(g) = graph else { break };
            *most = (*most).max(r.tokens.held_bytes());
            let mut queries = Vec::new();
            while let Some(batch) = r.next_queries()? {
                queries.extend((0..batch.len()).map(|i| batch.positions(i).to_vec()));
            }
            *most = (*most).max(r.tokens.held_bytes());
            cases.push((g, queries));
        }
        Ok(cases)
    }

    fn read_sequential(text: &[u8]) -> Result<Read, ParseError> {
        read_sequential_as(text, false)
    }

    fn read_sequential_as(text: &[u8], sums: bool) -> Result<Read, ParseError> {
        let mut r = ChessReader::new(text);
        let mut cases = Vec::new();
        let mut q = Vec::new();
        loop {
            let graph = match sums {
                true => r.next_sums_graph()?.map(GameGraph::Sums),
                false => r.next_graph()?,
            };
            let Some(g) = graph else { break };
            let mut queries = Vec::new();
            while r.next_query(&mut q)? {
                queries.push(q.clone());
            }
            cases.push((g, queries));
        }
        Ok(cases)
    }

    #[test]
    fn agrees_with_the_sequential_reader_for_every_window_size() {
        let texts: [&[u8]; 6] = [
            b"4\n2 1 2\n0\n1 3\n0\n1 0\n2 0 2\n0\n\n4\n1 1\n1 2\n0\n0\n2 0 1\n2 1 1\n3 0 1 3\n0\n",
            b"1 0 1 0",
            b"2 1 1 0 0\n0 0\n1 0 1 0 0",
            b"",
            b"3 5 1 1 1 2 2 0 0 2 0 1 0",
            b"2 0 0 3 0 1 1 1 0 ",
        ];
        for text in texts {
            let expected = read_sequential(text).unwrap();
            for chunk in 1..text.len() + 3 {
                assert_eq!(read_parallel(text, chunk).unwrap(), expected, "chunk {chunk}");
                assert_eq!(read_streamed(text, chunk, false).0.unwrap(), expected, "{chunk}");
            }
        }
    }

    #[test]
    fn errors_match_the_sequential_reader_for_every_window_size() {
        let texts: [&[u8]; 14] = [
            b"3\n1 1\n2 2  3\n0\n",
            b"2\n0\n0\n2 0 2\n0\n",
            b"3\n1 1\n2 2",
            b"3\n0\n",
            b"1\n0\n1 0\n3 0 0",
            b"2\n1 1\n0\n1 x\n",
            b"2\n1 -1\n0\n",
            b"1 0 0 2 1 1 0 1 9 0",
            b"4294967296",
            b"2\n1 7\n",
            b"2 2 0 5 1",
            b"2 0 0 3 0 9",
            b"2 0 0 3 0 9 x",
            b"3 1 1 1 2 0 1 7 1 3 x",
        ];
        for text in texts {
            let expected = read_sequential(text).unwrap_err();
            for chunk in 1..text.len() + 3 {
                let got = read_parallel(text, chunk);
                assert_eq!(got.unwrap_err(), expected, "chunk {chunk} {text:?}");
                let streamed = read_streamed(text, chunk, false).0;
                assert_eq!(streamed.unwrap_err(), expected, "stream, chunk {chunk} {text:?}");
            }
        }
    }

    /// The sums format through a stream: the same graphs and the same first errors as the
    /// sequential reader's, for every window size.
    #[test]
    fn a_stream_of_sums_reads_as_the_sequential_reader() {
        let texts: [&[u8]; 7] = [
            b"3\n2 2 1 2 1 1\n1 1 2\n0\n2 0 1\n0\n",
            b"2 0 1 1 1\n1 0 0",
            b"3\n2 2 1 2 1 1\n1 1 7\n0\n",
            b"3\n2 2 1 2 1 1\n1 1 2\n0\n2 0 3\n",
            b"2\n1 2 1\n",
            b"2\n1 2 1 x\n0\n",
            b"2\n3 1 1 1 1 1 1\n0\n1 0 1 1 1 9",
        ];
        for text in texts {
            let expected = read_sequential_as(text, true);
            for chunk in 1..text.len() + 3 {
                assert_eq!(read_streamed(text, chunk, true).0, expected, "{chunk} {text:?}");
            }
        }
    }

    /// A stream is held a window or so at a time, however long: a graph of 60,000 nodes and
    /// 60,000 queries (2 MiB) in 64-byte windows never held more than one block of the stream
    /// (256 KiB) and a few hundred bytes.
    #[test]
    fn a_stream_is_held_a_window_at_a_time() {
        let n = 60_000u32;
        let mut text = format!("{n}\n");
        for v in 0..n {
            let moves: Vec<String> = (v + 1..n.min(v + 4)).map(|w| w.to_string()).collect();
            text += &format!("{} {}\n", moves.len(), moves.join(" "));
        }
        for q in 0..n {
            text += &format!("2 {} {}\n", q, (q * 7) % n);
        }
        let (read, most) = read_streamed(text.as_bytes(), 64, false);
        assert_eq!(read.unwrap(), read_sequential(text.as_bytes()).unwrap());
        let bound = crate::parse::text::BLOCK + 1024;
        assert!(most < bound, "held {most} bytes of {}", text.len());
    }

    /// A long run of blanks is never held, wherever it falls: after a node count, a query's
    /// token count or one of its positions, a sums node's move count or a part count; read
    /// as the sequential reader reads it, and an error after the run (a position out of range,
    /// the end of the input) placed at its line and column. Nor is an endless token.
    #[test]
    fn a_run_of_blanks_is_not_held() {
        let run = " \n\t ".repeat(1 << 18);
        let graph = "3\n1 1\n1 2\n0\n";
        let chess = [
            format!("3{run}1 1\n1 2\n0\n2 0 2\n0\n"),
            format!("{graph}2{run}0 2\n1 1\n0\n"),
            format!("{graph}3 0{run}1 2\n0\n"),
            format!("{graph}3 0{run}1 7\n0\n"),
            format!("{graph}3 0{run}1"),
            format!("{graph}3{run}"),
            format!("{graph}2 0 {}1\n0\n", "0".repeat(1 << 20)),
        ];
        let sums = [
            format!("2\n2{run}2 1 1 0\n0\n1 0\n0\n"),
            format!("2\n2 2{run}1 1 0\n0\n1 1\n0\n"),
            format!("2\n2 2 1{run}1 0\n0\n1 1\n0\n"),
            format!("2\n2 2 1{run}5 0\n0\n"),
            format!("2\n2{run}"),
        ];
        let bound = crate::parse::text::BLOCK * 2 + 4096;
        let texts = chess.iter().map(|t| (t, false)).chain(sums.iter().map(|t| (t, true)));
        for (text, is_sums) in texts {
            let text = text.as_bytes();
            let (read, most) = read_streamed(text, 4096, is_sums);
            let whole = read_sequential_as(text, is_sums);
            assert_eq!(read, whole, "{:?}", &text[text.len() - 20..]);
            assert!(most < bound, "held {most} bytes of {}", text.len());
        }
    }

    /// A query of more tokens than the cap is an error at its token count, on both readers
    /// and on a stream, after the queries before it; one at the cap is read.
    #[test]
    fn a_query_over_the_cap_is_refused_at_its_count() {
        let text = b"3\n1 1\n1 2\n0\n2 0 1\n3 0 1 2\n4 0 1 2 0\n0\n";
        let sequential = |max| {
            let input = Input::from_bytes("t", text.to_vec()).with_max_query_tokens(max);
            let mut r = ChessReader::of(&input);
            let (mut cases, mut q) = (Vec::new(), Vec::new());
            r.next_graph().map(|g| cases.push(g))?;
            while r.next_query(&mut q)? {
                cases.push(None);
            }
            Ok::<_, ParseError>(cases.len())
        };
        for max in [3, 4] {
            let want = sequential(max);
            for chunk in [1, 5, 64] {
                let input = Input::from_bytes("t", text.to_vec()).with_max_query_tokens(max);
                let (mut r, mut read) = (ParChessReader::of(&input, chunk), 0);
                let got = r.next_graph().and_then(|_| {
                    while let Some(batch) = r.next_queries()? {
                        read += batch.len();
                    }
                    Ok(read + 1)
                });
                assert_eq!(got, want, "max {max} chunk {chunk}");
            }
        }
        let error = sequential(3).unwrap_err();
        assert_eq!(crate::parse::error::line_column(text, error.offset), (7, 1));
        let message = error.kind.to_string();
        assert!(message.contains("4 tokens, more than a query may hold (3"), "{message}");
        assert_eq!(sequential(4), Ok(4));
        let reader = Box::new(std::io::Cursor::new(text.to_vec()));
        let input = Input::from_reader("t", reader).unwrap().with_max_query_tokens(3);
        let mut r = ParChessReader::of(&input, 7);
        r.next_graph().unwrap();
        let mut read = 0;
        let end = loop {
            match r.next_queries() {
                Ok(Some(batch)) => read += batch.len(),
                other => break other.map(|_| ()),
            }
        };
        assert_eq!((read, end), (2, Err(error)));
    }

    /// Sections of every shape (empty lists, long lists first or last, one node holding every
    /// edge), compacted in two halves: the lists in order, as reading them one by one gives.
    #[test]
    fn sections_compact_to_their_lists_in_order() {
        let mut rng = crate::testing::Xorshift::new(0x6a09_e667_f3bc_c908);
        let mut next = |bound: u32| rng.below(bound.into()) as u32;
        for round in 0..400 {
            let n = next(40);
            let lists: Vec<Vec<u32>> = (0..n)
                .map(|v| {
                    let degree = match round % 4 {
                        0 => next(3),
                        1 => next(30),
                        2 if v == round % n.max(1) => 200,
                        _ => u32::from(next(5) == 0) * next(12),
                    };
                    (0..degree).map(|_| next(1000)).collect()
                })
                .collect();
            let mut section = vec![n];
            let mut offsets = OffsetsBuilder::with_capacity(n as usize);
            let mut total = 0u64;
            for list in &lists {
                section.push(list.len() as u32);
                section.extend_from_slice(list);
                total += list.len() as u64;
                offsets.push(total);
            }
            compact(&mut section, &offsets);
            assert_eq!(section, lists.concat(), "round {round}");
        }
    }
}
