//! What reading a cluster's graph file gives every worker ([`Read`]): its shard, where it
//! came from, who owns which node, every case and every worker's number of queries.

use super::bsp::Bsp;
use super::shard::{CaseHead, Entry, Shard, Share, Source};
use super::state::Owners;
use super::{split, Msg};
use crate::io::input::Input;

/// What reading a file's shards gives every worker.
pub(super) struct Read<'a> {
    /// Where this worker's shard lies, to read it again.
    pub(super) source: Source<'a>,
    /// This worker's shard.
    pub(super) shard: Shard,
    /// Who owns which node.
    pub(super) owners: Owners,
    /// Every case, in order.
    pub(super) cases: Vec<CaseHead>,
    /// Every worker's number of queries.
    pub(super) queries: Vec<u64>,
}

/// Reads this worker's shard: its balanced range ([`split`]), tokenized, then walked. Then
/// every worker learns every other's owned ids and cases; `None` if any worker found an input
/// error.
pub(super) fn read_shard<'a>(
    bsp: &mut Bsp<Msg>,
    input: &'a Input,
    first: Entry,
) -> Option<Read<'a>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    // The input's cap on a query's tokens, as its single-process reader (which describes any
    // error the walk finds) applies it.
    let max_query = crate::parse::walk::max_query_of(input);
    let first = Entry { walk: first.walk.with_max_query(max_query), ..first };
    let (start, end, entry) = split::balanced(bsp, input, first);
    let share = Share { input, start, end, entry, last: me + 1 == peers };
    let mine = share.read();
    gather(bsp, mine, Source::Share(share))
}

/// Tells every worker every other's owned ids, cases and queries, from this worker's shard
/// `mine` (read from `source`); `None` if any worker found an input error.
pub(super) fn gather<'a>(bsp: &mut Bsp<Msg>, mine: Shard, source: Source<'a>) -> Option<Read<'a>> {
    let (me, peers) = (bsp.index(), bsp.peers());
    let summary = Msg::Summary {
        worker: me,
        first: mine.first,
        count: mine.nodes() as u64,
        queries: mine.queries() as u64,
        cases: mine.cases.clone(),
        error: mine.error,
    };
    let (mut spans, mut cases, mut error) = (Vec::new(), Vec::new(), false);
    let mut queries = vec![0; peers];
    for message in bsp.all_gather(summary) {
        if let Msg::Summary { worker, first, count, queries: q, cases: c, error: e } = message {
            spans.push((worker, first, count));
            queries[worker] = q;
            cases.extend(c);
            error |= e;
        }
    }
    cases.sort_unstable_by_key(|c| c.case);
    let owners = Owners::new(spans);
    (!error).then_some(Read { shard: mine, owners, cases, queries, source })
}
