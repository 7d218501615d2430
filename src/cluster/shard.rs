//! Reading one worker's share of a chess-format file.
//!
//! Worker `w` of `P` takes the tokens that start in the byte range `[wS/P, (w+1)S/P)` and
//! tokenizes only those (4 bytes per token, about `1/P` of the file). Which token is an
//! out-degree depends on everything before, so a small [`Entry`] state (the case, where in it,
//! and how many of this range's first tokens still belong to the previous worker's record)
//! passes from worker to worker; each walk only hops over record headers. A record (a node's
//! list, a query) belongs to the worker in whose range it starts, which reads past its range
//! end with the sequential scanner to finish it. So worker `w` owns the nodes whose records
//! start in its range: one interval of global node ids (cases numbered in file order, a node's
//! global id is the node counts of earlier cases plus its own id).
//!
//! Errors are only noticed here, never described: a run with any input error is answered by
//! process 0 alone with the single-process reader, so its message and the answers before it
//! are exactly the single-process ones.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use crate::io::input::Input;
use crate::parse::lexer::{is_space, Lexer};
pub use crate::parse::walk::Mode;
use crate::parse::walk::{Next, Record, Walk};

/// Where the walk stands at the start of a range: the grammar's state ([`Walk`]), and how
/// many of the range's first tokens belong to a record the previous worker read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Where the walk stands between records.
    pub walk: Walk,
    /// Tokens at the start of the range that belong to a record the previous worker read.
    pub skip: u64,
}

impl Entry {
    /// The state at the start of a game file, reading it in `mode`.
    pub fn start(mode: Mode) -> Entry {
        Entry { walk: Walk::start(mode, false), skip: 0 }
    }

    /// The state at the start of a game file in the sums format, reading it in `mode`.
    pub fn sums(mode: Mode) -> Entry {
        Entry { walk: Walk::start(mode, true), skip: 0 }
    }

    /// The state at the start of a file of queries alone, on a graph of `nodes` nodes.
    pub fn queries(nodes: u32) -> Entry {
        Entry { walk: Walk::queries(nodes), skip: 0 }
    }
}

/// A case whose header lies in a worker's range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseHead {
    /// 1-based case number.
    pub case: u64,
    /// Node count.
    pub nodes: u32,
    /// Global id of its node 0.
    pub base: u64,
}

/// One worker's share of the input: its nodes (with their out-positions), the queries that
/// start in its range, and the cases that open in it. Ids are stored case-local (4 bytes), with
/// the global id of each case's node 0 kept once per run of nodes or queries of that case.
#[derive(Debug, Default, Clone)]
pub struct Shard {
    /// Global id of the first node this worker owns.
    pub first: u64,
    /// `targets[offsets[i]..offsets[i + 1]]` are the out-positions of node `first + i`.
    offsets: Vec<u64>,
    /// Out-positions, case-local; in the sums format, the parts of a node's moves, one move
    /// after the other.
    targets: Vec<u32>,
    /// Sums format only (empty otherwise): `move_ends[moves[i]..moves[i + 1]]` are where
    /// owned node `i`'s moves end among its parts (counted from its first part): 8 bytes per
    /// node and 4 per move, kept while values settle.
    moves: Vec<u64>,
    move_ends: Vec<u32>,
    /// `(i, base)`: nodes from index `i` on are of the case whose node 0 is `base`.
    bases: Vec<(u64, u64)>,
    /// Cases whose node count lies in the range.
    pub cases: Vec<CaseHead>,
    /// The positions of query `i` are `positions[starts[i]..starts[i + 1]]`, case-local.
    starts: Vec<u64>,
    positions: Vec<u32>,
    /// Runs of queries of one case: from query index `i` on, queries of this case, numbered
    /// on from `number`.
    runs: Vec<QueryRun>,
    /// True when something in or after the range is not a valid input (found only; process 0
    /// describes it).
    pub error: bool,
}

/// Queries of one case that follow each other in a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct QueryRun {
    index: u64,
    case: u64,
    base: u64,
    number: u64,
}

/// One query of a shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query<'a> {
    /// 1-based case number.
    pub case: u64,
    /// 1-based number of the query within its case.
    pub number: u64,
    /// Global id of the case's node 0.
    pub base: u64,
    /// The positions, case-local.
    pub positions: &'a [u32],
}

impl Shard {
    /// The shard of owned nodes `first..` with out-lists `targets[offsets[i]..offsets[i + 1]]`
    /// (ids of the one case of a graph file of `nodes` nodes, which `case` says this shard
    /// opens): an edge list's, whose lists arrive by messages.
    pub fn of_lists(first: u64, offsets: Vec<u64>, targets: Vec<u32>, case: Option<u32>) -> Shard {
        let cases = case.map(|nodes| CaseHead { case: 1, nodes, base: 0 }).into_iter().collect();
        Shard {
            first,
            offsets,
            targets,
            bases: vec![(0, 0)],
            cases,
            starts: vec![0],
            ..Shard::default()
        }
    }

    /// Number of nodes owned.
    pub fn nodes(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Number of edges owned.
    pub fn edges(&self) -> usize {
        self.targets.len()
    }

    /// Number of queries.
    pub fn queries(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The number of out-positions of owned node `i` (0-based within the shard): in the
    /// sums format, of parts of its moves.
    pub fn degree(&self, i: usize) -> usize {
        (self.offsets[i + 1] - self.offsets[i]) as usize
    }

    /// Where owned node `i`'s list starts among the shard's out-positions (or parts); `i` may
    /// be the node count (the end). Kept while the lists are unloaded.
    pub fn list_start(&self, i: usize) -> usize {
        self.offsets[i] as usize
    }

    /// True for a shard of a sums-format file.
    pub fn is_sums(&self) -> bool {
        !self.moves.is_empty()
    }

    /// The number of moves of owned node `i`: its out-degree, or in the sums format its move
    /// count (the `out_degree` of `values` rows).
    pub fn move_count(&self, i: usize) -> usize {
        if self.is_sums() {
            (self.moves[i + 1] - self.moves[i]) as usize
        } else {
            self.degree(i)
        }
    }

    /// Where owned node `i`'s moves end among its parts, counted from its first part (sums
    /// format; empty otherwise).
    pub fn move_ends(&self, i: usize) -> &[u32] {
        if !self.is_sums() {
            return &[];
        }
        &self.move_ends[self.moves[i] as usize..self.moves[i + 1] as usize]
    }

    /// Global id of node 0 of owned node `i`'s case.
    pub fn base(&self, i: usize) -> u64 {
        let k = self.bases.partition_point(|&(from, _)| from <= i as u64);
        self.bases[k - 1].1
    }

    /// The out-positions of owned node `i`, as global ids.
    pub fn successors(&self, i: usize) -> impl Iterator<Item = u64> + '_ {
        let base = self.base(i);
        let list = &self.targets[self.offsets[i] as usize..self.offsets[i + 1] as usize];
        list.iter().map(move |&t| base + u64::from(t))
    }

    /// Drops the out-positions and the queries' positions (what a worker needs only to send
    /// its edges and to answer), keeping the rest; `reload` brings them back.
    pub fn unload(&mut self) {
        self.targets = Vec::new();
        self.positions = Vec::new();
    }

    /// Drops the queries' positions (their count stays), which only answering needs: they
    /// would otherwise sit beside the reverse lists while those are built, at the worker's
    /// peak; [`Source::restore`] reads them again.
    pub fn forget_positions(&mut self) {
        self.positions = Vec::new();
    }

    /// The out-positions and queries, moved out into a shard of their own (with the offsets
    /// and bases that place them), as [`Shard::unload`] drops them.
    fn take_lists(&mut self) -> Shard {
        Shard {
            first: self.first,
            offsets: self.offsets.clone(),
            targets: std::mem::take(&mut self.targets),
            bases: self.bases.clone(),
            moves: self.moves.clone(),
            move_ends: self.move_ends.clone(),
            starts: self.starts.clone(),
            positions: std::mem::take(&mut self.positions),
            runs: self.runs.clone(),
            ..Shard::default()
        }
    }

    /// Takes the out-positions and queries back from `again`, the same shard read again.
    pub fn reload(&mut self, again: Shard) {
        debug_assert_eq!((again.first, again.offsets.len()), (self.first, self.offsets.len()));
        self.targets = again.targets;
        self.positions = again.positions;
    }

    /// Appends `next`, the shard of the next window of the same range.
    fn append(&mut self, next: Shard) {
        if self.offsets.is_empty() {
            *self = next;
            return;
        }
        if self.nodes() == 0 {
            self.first = next.first;
        }
        let (nodes, edges) = (self.nodes() as u64, self.targets.len() as u64);
        if !next.moves.is_empty() {
            let before = self.moves.last().copied().unwrap_or(0);
            if self.moves.is_empty() {
                self.moves.push(0);
            }
            self.moves.extend(next.moves[1..].iter().map(|m| before + m));
            self.move_ends.extend(next.move_ends);
        }
        for (i, base) in next.bases {
            if self.bases.last().is_none_or(|&(_, b)| b != base) {
                self.bases.push((nodes + i, base));
            }
        }
        self.offsets.extend(next.offsets[1..].iter().map(|o| edges + o));
        self.targets.extend(next.targets);
        let (queries, positions) = (self.queries() as u64, self.positions.len() as u64);
        for run in next.runs {
            self.runs.push(QueryRun { index: queries + run.index, ..run });
        }
        self.starts.extend(next.starts[1..].iter().map(|s| positions + s));
        self.positions.extend(next.positions);
        self.cases.extend(next.cases);
        self.error |= next.error;
    }

    /// Query `i`.
    pub fn query(&self, i: usize) -> Query<'_> {
        let k = self.runs.partition_point(|r| r.index <= i as u64);
        let run = self.runs[k - 1];
        Query {
            case: run.case,
            number: run.number + (i as u64 - run.index),
            base: run.base,
            positions: &self.positions[self.starts[i] as usize..self.starts[i + 1] as usize],
        }
    }
}

/// Where a worker's shard comes from, to read it again: its share of a chess-format file,
/// or (an edge list, whose lists arrive by messages) the out-lists themselves, kept aside.
pub enum Source<'a> {
    /// A byte range of the input, read again a window at a time.
    Share(Share<'a>),
    /// The out-lists, moved here while values settle (they cannot be read again).
    Kept(RefCell<Shard>),
}

impl Source<'_> {
    /// Drops the shard's out-lists and queries (settling needs neither); kept here when they
    /// cannot be read again.
    pub fn unload(&self, shard: &mut Shard) {
        match self {
            Source::Share(_) => shard.unload(),
            Source::Kept(kept) => *kept.borrow_mut() = shard.take_lists(),
        }
    }

    /// Gives the shard its out-lists and queries back (to answer).
    pub fn restore(&self, shard: &mut Shard) {
        match self {
            Source::Share(share) => {
                // The range read again gives this shard whole: dropping what it kept first
                // (its offsets, the queries' starts) holds one copy at a time, not two.
                let (first, nodes) = (shard.first, shard.nodes());
                *shard = Shard::default();
                *shard = share.read();
                debug_assert_eq!((shard.first, shard.nodes()), (first, nodes));
            }
            Source::Kept(kept) => shard.reload(kept.take()),
        }
    }

    /// The shard's out-lists a piece at a time, in order (together the pieces are the
    /// shard's), while they are unloaded.
    pub fn windows(&self, mut each: impl FnMut(&Shard)) {
        match self {
            Source::Share(share) => share.windows_of(REREAD_WINDOW, |piece| each(&piece)),
            Source::Kept(kept) => each(&kept.borrow()),
        }
    }
}

/// Where a worker's shard lies in a chess-format input.
#[derive(Clone, Copy)]
pub struct Share<'a> {
    /// The input.
    pub input: &'a Input,
    /// The byte range, from a record header (or the input's start) to a token boundary.
    pub start: usize,
    /// The range's end.
    pub end: usize,
    /// The state at `start`.
    pub entry: Entry,
    /// This is the last range.
    pub last: bool,
}

impl Share<'_> {
    /// The shard: the range tokenized and walked a window at a time (so only a window's
    /// tokens are held beside the shard).
    pub fn read(&self) -> Shard {
        self.read_in(WINDOW)
    }

    fn read_in(&self, window: usize) -> Shard {
        let mut shard = Shard::default();
        self.windows_of(window, |piece| shard.append(piece));
        shard
    }

    fn windows_of(&self, window: usize, mut each: impl FnMut(Shard)) {
        let (input, mut entry, mut at) = (self.input, self.entry, self.start);
        let bytes = input.bytes();
        loop {
            let cut = window_end(bytes, at, self.end, window);
            let read = tokenize(bytes, at, cut, |a, b| input.release(a, b));
            let last = self.last && cut == self.end;
            let (piece, exit) = walk(bytes, (cut, &read.tokens, read.bad), entry, last);
            drop(read);
            // The walk may have read past the window to finish a record.
            input.release(cut, self.end.min(cut + (1 << 20)));
            each(piece);
            (entry, at) = (exit, cut);
            if at >= self.end {
                break;
            }
        }
    }
}

/// Bytes tokenized at a time: a window's tokens, shard and file pages are held at once.
const WINDOW: usize = 4 << 20;
/// Bytes tokenized at a time when the lists are read again while values settle: smaller, as
/// the window's pieces then sit beside the reverse lists and the settling state, at the
/// worker's peak (1 MiB windows cost no measurable time).
const REREAD_WINDOW: usize = 1 << 20;

/// The end of the window from `at`: `window` bytes on, moved to a token boundary, at most
/// `end`.
fn window_end(bytes: &[u8], at: usize, end: usize, window: usize) -> usize {
    let mut cut = (at + window).min(end);
    while cut < end && !is_space(bytes[cut]) {
        cut += 1;
    }
    cut
}

/// The byte range of worker `w` of `peers`: the tokens that start in `[wS/P, (w+1)S/P)`.
pub fn range(bytes: &[u8], w: usize, peers: usize) -> (usize, usize) {
    let cut = |k: usize| (bytes.len() as u128 * k as u128 / peers as u128) as usize;
    let token_start = |at: usize| {
        // A token that starts before `at` belongs to the earlier range: skip its rest.
        let mut i = at;
        if i > 0 && i < bytes.len() && !is_space(bytes[i - 1]) {
            while i < bytes.len() && !is_space(bytes[i]) {
                i += 1;
            }
        }
        i
    };
    (token_start(cut(w)), token_start(cut(w + 1)))
}

/// The tokens of `bytes[start..end]` (which start and end at token boundaries), whether a bad
/// token stopped the tokenizing, and a mark `(byte, index)` at each window: the tokens from
/// `index` on start at or after `byte`. Read a window at a time, each window's bytes handed
/// to `release` once read: the tokens are all that is kept.
pub fn tokenize(bytes: &[u8], start: usize, end: usize, release: impl Fn(usize, usize)) -> Tokens {
    let mut read = Tokens { tokens: Vec::new(), bad: false, marks: Vec::new() };
    let mut at = start;
    while at < end {
        let cut = window_end(bytes, at, end, WINDOW);
        read.marks.push((at, read.tokens.len()));
        read.bad =
            crate::parse::kernel::tokenize_piece(&bytes[at..cut], &mut read.tokens).is_some();
        release(at, cut);
        if read.bad {
            break;
        }
        at = cut;
    }
    read
}

/// A range's tokens.
#[derive(Debug, Default)]
pub struct Tokens {
    /// The values, in order.
    pub tokens: Vec<u32>,
    /// A bad token stopped them.
    pub bad: bool,
    /// `(byte, index)`: token `index` is the first to start at or after `byte`.
    marks: Vec<(usize, usize)>,
}

impl Tokens {
    /// The byte where token `index` starts, found by scanning `bytes` from the nearest mark.
    pub fn byte_of(&self, bytes: &[u8], index: usize) -> usize {
        let m = self.marks.partition_point(|&(_, i)| i <= index);
        let Some(&(mut at, mut i)) = m.checked_sub(1).and_then(|m| self.marks.get(m)) else {
            return bytes.len();
        };
        loop {
            while at < bytes.len() && is_space(bytes[at]) {
                at += 1;
            }
            if i == index || at == bytes.len() {
                return at;
            }
            while at < bytes.len() && !is_space(bytes[at]) {
                at += 1;
            }
            i += 1;
        }
    }
}

/// The state the next worker starts from, after this worker's `tokens` walked from `entry`:
/// only record headers are read (a list is hopped over by its length), so the walks that must
/// run one after another, worker by worker, cost a step per record, not per token.
/// `header(k, state, weight)` is told of each record whose header is `tokens[k]`: the state a
/// walk starting there starts from, and the record's [`weight`]. Meaningless when the range
/// has an input error, which `walk` then finds.
pub fn hop(tokens: &[u32], entry: Entry, mut header: impl FnMut(usize, Entry, u64)) -> Entry {
    walk_or_hop(&[], (0, tokens, false), entry, Some(&mut header), false).1
}

/// About the bytes a record costs a worker that owns it, from first reading to answering: a
/// node 40 and 8 per out-position (its list, and the reverse list at the targets' owner), a
/// query 12 and 4 per position; a case header or a query list's end nothing.
pub fn weight(record: &Record) -> u64 {
    match *record {
        Record::Node { len, .. } => 40 + 8 * u64::from(len),
        Record::Moves { .. } => 48,
        Record::Move { len, .. } => 4 + 12 * u64::from(len),
        Record::Query { len, .. } => 12 + 4 * u64::from(len),
        _ => 0,
    }
}

/// Walks this worker's `tokens` (those of `bytes[..end]` from the range start, `bad` if a bad
/// token stopped them) from `entry`, reading past `end` to finish a record that starts before
/// it, and returns the shard and the state the next worker starts from. `last` says this is
/// the last range (the input ends).
pub fn walk(
    bytes: &[u8],
    range: (usize, &[u32], bool),
    entry: Entry,
    last: bool,
) -> (Shard, Entry) {
    walk_or_hop(bytes, range, entry, None, last)
}

/// Told of each record header by `hop`.
type Header<'a> = &'a mut dyn FnMut(usize, Entry, u64);

/// `walk`, or with a `header` callback `hop`: the same state machine, storing nothing.
fn walk_or_hop(
    bytes: &[u8],
    (end, tokens, bad): (usize, &[u32], bool),
    entry: Entry,
    mut told: Option<Header>,
    last: bool,
) -> (Shard, Entry) {
    let keep = told.is_none();
    let mut shard = Shard::default();
    let mut state = entry;
    if state.walk.next == Next::Done {
        finish(&mut shard, state, last);
        return (shard, state);
    }
    if entry.skip >= tokens.len() as u64 {
        // The whole range belongs to an earlier worker's record.
        state.skip = entry.skip - tokens.len() as u64;
        shard.error |= bad;
        finish(&mut shard, state, last);
        return (shard, state);
    }
    let mut k = entry.skip as usize;
    state.skip = 0;
    let mut beyond = Beyond { lex: Lexer::at(bytes, end), read: 0, keep };
    let mut owned_first = None;
    if keep {
        // Room for every token: address space only (pages are touched as they fill), and no
        // reallocation holding two copies at the peak.
        shard.targets.reserve(tokens.len() - k);
        shard.offsets.reserve(tokens.len() - k + 1);
    }
    shard.offsets.push(0);
    shard.starts.push(0);
    if state.walk.sums {
        shard.moves.push(0);
    }
    // Kept shards start at record boundaries (cuts never fall inside a sums node's moves).
    debug_assert!(!keep || !matches!(state.walk.next, Next::Move { .. }));
    // A sums node's moves are records of their own: the worker that owns the node reads the
    // ones past its range end too (its headers with the sequential scanner, as lists' tokens).
    let mid_node = |state: &Entry| matches!(state.walk.next, Next::Move { .. });
    while state.walk.next != Next::Done && (k < tokens.len() || (keep && mid_node(&state))) {
        let before = state;
        let header = if k < tokens.len() {
            k += 1;
            tokens[k - 1]
        } else {
            match beyond.header() {
                Some(h) => h,
                None => {
                    shard.error = true;
                    break;
                }
            }
        };
        let record = state.walk.take(header);
        if let Some(told) = told.as_mut() {
            told(k - 1, before, weight(&record));
        }
        let (base, nodes) = (state.walk.base, state.walk.nodes);
        let node_ends = !mid_node(&state);
        match record {
            Record::Case { case, nodes } => {
                if keep {
                    shard.cases.push(CaseHead { case, nodes, base });
                }
            }
            Record::Node { node, .. } | Record::Moves { node, .. } => {
                owned_first.get_or_insert(base + u64::from(node));
                if keep && shard.bases.last().is_none_or(|&(_, b)| b != base) {
                    shard.bases.push((shard.nodes() as u64, base));
                }
            }
            // A query over the cap is an error at its token count, before its tokens.
            Record::Query { len, .. } if len > state.walk.max_query => shard.error = true,
            Record::Query { number, len } => {
                if !list(tokens, &mut k, len.into(), &mut beyond, |t| {
                    shard.positions.push(t);
                    t < nodes
                }) {
                    shard.error = true;
                }
                if keep && shard.runs.last().is_none_or(|r| r.case != state.walk.case) {
                    let index = shard.queries() as u64;
                    let case = state.walk.case;
                    shard.runs.push(QueryRun { index, case, base, number });
                }
                if keep {
                    shard.starts.push(shard.positions.len() as u64);
                }
            }
            Record::Ended | Record::Move { .. } => {}
            // Nothing follows a query file's final 0.
            Record::Trailing => shard.error = true,
        }
        if let Record::Node { len, .. } | Record::Move { len, .. } = record {
            if !list(tokens, &mut k, len.into(), &mut beyond, |t| {
                shard.targets.push(t);
                t < nodes
            }) {
                shard.error = true;
            }
            if keep && matches!(record, Record::Move { .. }) {
                let start = shard.offsets.last().copied().unwrap_or(0);
                shard.move_ends.push((shard.targets.len() as u64 - start) as u32);
            }
        }
        if keep
            && node_ends
            && matches!(record, Record::Node { .. } | Record::Moves { .. } | Record::Move { .. })
        {
            shard.offsets.push(shard.targets.len() as u64);
            if state.walk.sums {
                shard.moves.push(shard.move_ends.len() as u64);
            }
        }
        if shard.error {
            break;
        }
    }
    // A bad token stopped the tokens: an error, unless the walk was done before it.
    shard.error |= bad && state.walk.next != Next::Done;
    state.skip = beyond.read;
    shard.first = owned_first.unwrap_or(state.walk.base + next_node(&state));
    finish(&mut shard, state, last);
    (shard, state)
}

/// The global id the next node record would have (where an empty shard sits).
fn next_node(state: &Entry) -> u64 {
    match state.walk.next {
        Next::Node(i) => u64::from(i),
        _ => u64::from(state.walk.nodes),
    }
}

/// At the end of the input, a case must not stop in the middle of its graph.
fn finish(shard: &mut Shard, state: Entry, last: bool) {
    if shard.offsets.is_empty() {
        shard.offsets.push(0);
        shard.starts.push(0);
        if state.walk.sums {
            shard.moves.push(0);
        }
        shard.first = state.walk.base + next_node(&state);
    }
    if last && (!state.walk.may_end() || state.skip > 0) {
        shard.error = true;
    }
}

/// Tokens read past the range end, by the sequential scanner (or, not `keep`ing, only
/// counted).
struct Beyond<'a> {
    lex: Lexer<'a>,
    read: u64,
    keep: bool,
}

impl Beyond<'_> {
    /// The next record header past the range end (a sums node's next move), if the input has
    /// one.
    fn header(&mut self) -> Option<u32> {
        let expected = crate::parse::error::Expected::NodeCount { case: 0 };
        let header = self.lex.next_u32(expected).ok().flatten()?;
        self.read += 1;
        Some(header)
    }
}

/// Reads a list of `len` ids from `tokens[*k..]`, then past the range end; `keep(id)` stores
/// each and says whether it is in range. False on a bad token, an id out of range, or the end
/// of the input.
fn list(
    tokens: &[u32],
    k: &mut usize,
    len: u64,
    beyond: &mut Beyond,
    mut keep: impl FnMut(u32) -> bool,
) -> bool {
    let here = (len as usize).min(tokens.len() - *k);
    if !beyond.keep {
        *k += here;
        beyond.read += len - here as u64;
        return true;
    }
    let mut fine = true;
    for &t in &tokens[*k..*k + here] {
        fine &= keep(t);
    }
    *k += here;
    for _ in here as u64..len {
        let expected = crate::parse::error::Expected::NodeCount { case: 0 };
        match beyond.lex.next_u32(expected) {
            Ok(Some(t)) => {
                beyond.read += 1;
                fine &= keep(t);
            }
            _ => return false,
        }
    }
    fine
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every worker's shard of `text` for `peers` workers, walked in order.
    fn shards(text: &[u8], peers: usize) -> Vec<Shard> {
        let mut entry = Entry::start(Mode::Cases);
        (0..peers)
            .map(|w| {
                let (start, end) = range(text, w, peers);
                let read = tokenize(text, start, end, |_, _| {});
                let (shard, exit) =
                    walk(text, (end, &read.tokens, read.bad), entry, w + 1 == peers);
                if !shard.error {
                    let hopped = hop(&read.tokens, entry, |_, _, _| {});
                    assert_eq!(hopped, exit, "worker {w} of {peers}");
                }
                entry = exit;
                shard
            })
            .collect()
    }

    #[test]
    fn shards_together_hold_every_node_and_query_once() {
        let text =
            b"4\n2 1 2\n0\n1 3\n0\n1 0\n2 0 2\n0\n\n4\n1 1\n1 2\n0\n0\n2 0 1\n2 1 1\n3 0 1 3\n0\n";
        for peers in 1..text.len() {
            let all = shards(text, peers);
            assert!(all.iter().all(|s| !s.error), "{peers} workers");
            let mut lists = Vec::new();
            let mut firsts = Vec::new();
            for s in &all {
                firsts.push((s.first, s.nodes()));
                lists.extend((0..s.nodes()).map(|i| s.successors(i).collect::<Vec<_>>()));
            }
            assert_eq!(
                lists,
                vec![vec![1, 2], vec![], vec![3], vec![], vec![5], vec![6], vec![], vec![]]
            );
            // The owned intervals tile 0..8 in order.
            let mut next = 0;
            for (first, n) in firsts.into_iter().filter(|&(_, n)| n > 0) {
                assert_eq!(first, next, "{peers} workers");
                next += n as u64;
            }
            assert_eq!(next, 8);
            let queries: Vec<(u64, u64, Vec<u64>)> = all
                .iter()
                .flat_map(|s| {
                    (0..s.queries()).map(move |i| {
                        let q = s.query(i);
                        let p = q.positions.iter().map(|&p| q.base + u64::from(p)).collect();
                        (q.case, q.number, p)
                    })
                })
                .collect();
            let expected = vec![
                (1, 1, vec![0]),
                (1, 2, vec![0, 2]),
                (2, 1, vec![4, 5]),
                (2, 2, vec![5, 5]),
                (2, 3, vec![4, 5, 7]),
            ];
            assert_eq!(queries, expected, "{peers} workers");
        }
    }

    /// A query's case, number, base and positions.
    type QueryParts = (u64, u64, u64, Vec<u32>);

    /// Everything a shard holds, comparable.
    fn contents(s: &Shard) -> (u64, Vec<Vec<u64>>, Vec<QueryParts>, bool) {
        let lists = (0..s.nodes()).map(|i| s.successors(i).collect()).collect();
        let queries = (0..s.queries())
            .map(|i| {
                let q = s.query(i);
                (q.case, q.number, q.base, q.positions.to_vec())
            })
            .collect();
        (s.first, lists, queries, s.error)
    }

    #[test]
    fn a_range_read_in_windows_is_the_range_read_whole() {
        let text =
            b"4\n2 1 2\n0\n1 3\n0\n1 0\n2 0 2\n0\n\n4\n1 1\n1 2\n0\n0\n2 0 1\n2 1 1\n3 0 1 3\n0\n";
        let input = Input::from_bytes("t", text.to_vec());
        for peers in 1..6 {
            let mut entry = Entry::start(Mode::Cases);
            for w in 0..peers {
                let (start, end) = range(text, w, peers);
                let last = w + 1 == peers;
                let source = Share { input: &input, start, end, entry, last };
                let read = tokenize(text, start, end, |_, _| {});
                let (whole, exit) = walk(text, (end, &read.tokens, read.bad), entry, last);
                for window in 1..12 {
                    let windowed = source.read_in(window);
                    assert_eq!(contents(&windowed), contents(&whole), "{w} of {peers}, {window}");
                    assert_eq!(windowed.cases, whole.cases);
                }
                entry = exit;
            }
        }
        let cut = b"2\n1 1\n";
        let input = Input::from_bytes("t", cut.to_vec());
        let whole = Share {
            input: &input,
            start: 0,
            end: cut.len(),
            entry: Entry::start(Mode::Cases),
            last: true,
        };
        assert!((1..8).all(|window| whole.read_in(window).error));
    }

    /// A sums node's moves are records of their own: a window that ends among them is
    /// finished by the walk past its end, and the next window hops over the rest.
    #[test]
    fn a_sums_range_read_in_windows_is_the_range_read_whole() {
        let text = b"3\n2 2 1 2  1 2\n3 0 1 2 2 2 2\n0\n1 0\n0\n2\n1 0\n0\n1 1\n0\n";
        let input = Input::from_bytes("t", text.to_vec());
        let share = |entry| Share { input: &input, start: 0, end: text.len(), entry, last: true };
        let whole = share(Entry::sums(Mode::Cases)).read_in(1 << 20);
        assert!(!whole.error && whole.is_sums());
        assert_eq!(whole.nodes(), 5);
        let moves: Vec<usize> = (0..5).map(|i| whole.move_count(i)).collect();
        assert_eq!(moves, vec![2, 3, 0, 1, 0]);
        assert_eq!(whole.move_ends(0), &[2, 3]);
        assert_eq!(whole.move_ends(1), &[0, 1, 3]);
        let parts: Vec<Vec<u64>> = (0..5).map(|i| whole.successors(i).collect()).collect();
        assert_eq!(parts, vec![vec![1, 2, 2], vec![2, 2, 2], vec![], vec![], vec![]]);
        for window in 1..text.len() {
            let windowed = share(Entry::sums(Mode::Cases)).read_in(window);
            assert_eq!(contents(&windowed), contents(&whole), "window {window}");
            let ends: Vec<Vec<u32>> = (0..5).map(|i| windowed.move_ends(i).to_vec()).collect();
            let expected: Vec<Vec<u32>> = (0..5).map(|i| whole.move_ends(i).to_vec()).collect();
            assert_eq!(ends, expected, "window {window}");
        }
    }

    #[test]
    fn bad_inputs_are_noticed_whatever_the_cut() {
        for text in [&b"2\n1 5\n0\n"[..], b"2\n1 1\n", b"2 1 x 0", b"1 0 1 7"] {
            for peers in 1..text.len() + 2 {
                assert!(shards(text, peers).iter().any(|s| s.error), "{text:?} {peers}");
            }
        }
    }
}
