//! The store as the explorer's fingerprint reads it: transaction ids
//! renamed by what tells transactions apart, so that two stores that differ
//! only in the order their transactions began count as one state.
//!
//! Two clients that each BEGIN at the same instant draw ids 1 and 2 in
//! either order; everything after depends on who committed when, not on
//! the numbers. Outside SSI, the engine only compares ids for equality
//! (a version's creator, deleter and locker; a session's transaction; what
//! a wait waits on) and reads a transaction's status, commit number and
//! snapshot, so a renaming that keeps those keeps every future of the
//! store, and the explorer's counts stay exact (the tests in
//! `explore/canonical_tests.rs` compare every report with the ids kept).
//!
//! The new name of a transaction is its session and its place among that
//! session's transactions: a session runs one transaction at a time, so
//! that place is its own history, whatever the others did meanwhile. The
//! frozen transaction 0 keeps its own name. A name must not depend on the
//! old numbers at all: two merged stores are one state, so everything that
//! follows from them must get one name too.
//!
//! The step counter only stamps when a wait began, and waits are compared
//! by that stamp only with each other (the deadlock victim is the one that
//! began first): the counter is left out, and each wait is hashed by its
//! age in steps. Absolute stamps would tell merged stores apart again: the
//! explorer's store memo hands a statement's result on one store to every
//! store with its fingerprint, counter and stamps included.
//!
//! Commit numbers are hashed by where they fall among the live snapshots
//! (see `Ranks`). Outside SSI a commit number is only compared with a
//! snapshot (`visible`): a version is seen when its creator committed at or
//! before the snapshot. The snapshots still to be read are those of open
//! transactions above READ COMMITTED and those of statements that wait; a
//! READ COMMITTED transaction takes a new one at each statement, and every
//! snapshot taken later sees every commit made so far. So two stores whose
//! commits fall alike among their live snapshots answer every later
//! statement alike, whatever order their transactions committed in: two
//! COMMITs with no reader between them are one state, not two. The commit
//! counter itself only feeds later snapshots and later commits, which
//! compare alike with it in either store, and is left out.
//!
//! SSI walks transactions in id order and compares commit numbers with
//! each other (`ssi.rs`), so a store that holds a serializable transaction
//! keeps its ids, its commit numbers and its counter.

use super::{FROZEN, Isolation, Store, Tx, TxId, TxStatus};
use std::hash::{Hash, Hasher};

/// A transaction's new name (see the module's doc).
type Name = (u32, u32);

/// What tells a transaction apart, under its new name: its isolation, its
/// snapshot, its commit number if committed, whether it aborted, whether
/// SSI doomed it.
type Facts = (Name, Isolation, Option<usize>, Option<usize>, bool, bool);

impl Hash for Store {
    /// This store with its transaction ids renamed.
    fn hash<H: Hasher>(&self, h: &mut H) {
        #[cfg(test)]
        if tests::ids_kept() {
            return self.hash_as_is(h);
        }
        if self
            .txs
            .iter()
            .any(|tx| tx.isolation == Isolation::Serializable)
        {
            return self.hash_as_is(h);
        }
        let mut per_session: Vec<(u32, u32)> = Vec::new();
        let names: Vec<Name> = self
            .txs
            .iter()
            .enumerate()
            .map(|(i, tx)| {
                if TxId(i as u32) == FROZEN {
                    return (u32::MAX, 0);
                }
                let s = tx.session.0;
                match per_session.iter_mut().find(|(session, _)| *session == s) {
                    Some((_, n)) => {
                        *n += 1;
                        (s, *n)
                    }
                    None => {
                        per_session.push((s, 0));
                        (s, 0)
                    }
                }
            })
            .collect();
        let name = |t: TxId| names[t.0 as usize];
        let seqs = Ranks::of(self);
        for table in &self.tables {
            table.next_id.hash(h);
            table.versions.len().hash(h);
            for v in &table.versions {
                name(v.xmin).hash(h);
                v.xmax.map(name).hash(h);
                v.locker.map(name).hash(h);
                v.next.hash(h);
                v.values.hash(h);
            }
        }
        let mut txs: Vec<Facts> = self
            .txs
            .iter()
            .zip(&names)
            .map(|(tx, &n)| {
                let committed = match tx.status {
                    TxStatus::Committed(seq) => Some(seqs.rank(seq)),
                    _ => None,
                };
                // A snapshot no statement reads again counts only as taken.
                let snapshot = tx
                    .snapshot
                    .map(|s| if reads_again(tx) { seqs.rank(s) } else { 0 });
                let aborted = tx.status == TxStatus::Aborted;
                (n, tx.isolation, snapshot, committed, aborted, tx.doomed)
            })
            .collect();
        txs.sort_unstable();
        txs.hash(h);
        for s in &self.sessions {
            s.tx.map(name).hash(h);
            s.explicit.hash(h);
            s.failed_block.hash(h);
            s.pending
                .as_deref()
                .map(|p| {
                    (
                        &p.stmt,
                        &p.progress,
                        seqs.rank(p.snapshot),
                        name(p.waiting_on),
                        self.steps.saturating_sub(p.since_step),
                    )
                })
                .hash(h);
        }
        self.completions.hash(h);
    }
}

/// The snapshots still to be read, in increasing order: those of open
/// transactions above READ COMMITTED, and those of statements waiting.
struct Ranks(Vec<u64>);

/// Whether a later statement of `tx` reads its snapshot: an open
/// transaction above READ COMMITTED (READ COMMITTED takes a new one each
/// statement).
fn reads_again(tx: &Tx) -> bool {
    tx.status == TxStatus::InProgress && tx.isolation != Isolation::ReadCommitted
}

impl Ranks {
    fn of(store: &Store) -> Ranks {
        let mut live: Vec<u64> = store
            .txs
            .iter()
            .filter(|tx| reads_again(tx))
            .filter_map(|tx| tx.snapshot)
            .chain(
                store
                    .sessions
                    .iter()
                    .filter_map(|s| s.pending.as_ref().map(|p| p.snapshot)),
            )
            .collect();
        live.sort_unstable();
        live.dedup();
        Ranks(live)
    }

    /// How many live snapshots come before `seq`: a version made by the
    /// commit numbered `c` is visible to the snapshot `s` exactly when
    /// `rank(c) <= rank(s)`, for every `s` still to be read.
    fn rank(&self, seq: u64) -> usize {
        self.0.partition_point(|&l| l < seq)
    }
}

impl Store {
    /// Every field as it is, ids and the step counter included.
    fn hash_as_is<H: Hasher>(&self, h: &mut H) {
        self.tables.hash(h);
        self.txs.hash(h);
        self.sessions.hash(h);
        self.commit_seq.hash(h);
        self.steps.hash(h);
        self.completions.hash(h);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        static KEPT: Cell<bool> = const { Cell::new(false) };
    }

    pub(super) fn ids_kept() -> bool {
        KEPT.with(Cell::get)
    }

    /// `f`'s result with the store fingerprinted as it is, ids and all: the
    /// baseline the renaming is held to.
    pub(crate) fn with_ids_kept<R>(f: impl FnOnce() -> R) -> R {
        KEPT.with(|k| k.set(true));
        let result = f();
        KEPT.with(|k| k.set(false));
        result
    }
}
