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

use super::{FROZEN, Isolation, Store, TxId, TxStatus};
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
                let (committed, snapshot) = match tx.status {
                    TxStatus::Committed(seq) => (Some(seqs.rank(seq)), tx.snapshot.map(|_| 0)),
                    TxStatus::Aborted => (None, tx.snapshot.map(|_| 0)),
                    TxStatus::InProgress if tx.isolation == Isolation::ReadCommitted => {
                        (None, tx.snapshot.map(|_| 0))
                    }
                    TxStatus::InProgress => (None, tx.snapshot.map(|s| seqs.rank(s))),
                };
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

impl Ranks {
    fn of(store: &Store) -> Ranks {
        let open = store.txs.iter().filter(|tx| {
            tx.status == TxStatus::InProgress && tx.isolation != Isolation::ReadCommitted
        });
        let mut live: Vec<u64> = open
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

    use super::super::{Exec, SessionId};
    use crate::fingerprint::{Fingerprint, of};
    use crate::store::{Isolation, Stmt, Store, Value};

    fn insert(pedido: i64) -> Stmt {
        Stmt::Insert {
            table: "cobranca_simples".into(),
            values: vec![
                ("pedido_id".into(), Value::Int(pedido)),
                ("valor_centavos".into(), Value::Int(25000)),
                ("status".into(), Value::text("PROCESSANDO")),
            ],
            on_conflict_do_nothing: None,
            returning: vec!["id".into()],
        }
    }

    fn read_all() -> Stmt {
        Stmt::Select {
            table: "cobranca_simples".into(),
            columns: vec!["id".into()],
            filter: vec![],
            for_update: false,
        }
    }

    fn run(st: &mut Store, s: SessionId, stmt: Stmt) -> usize {
        match st.execute(s, stmt) {
            Exec::Done(Ok(r)) => r.rows.len(),
            other => panic!("{other:?}"),
        }
    }

    /// Sessions 1 and 2 each insert a row in a transaction, and session 3
    /// holds a transaction at `isolation` open so that nothing is vacuumed;
    /// then 1 and 2 commit in the order `first_one`, with session 3's read
    /// between the two commits when `read_between`, before both when not.
    /// Returns the store's fingerprint and how many rows that read saw.
    fn commits(isolation: Isolation, first_one: bool, read_between: bool) -> (Fingerprint, usize) {
        let mut st = Store::with_all_tables();
        let [a, b, reader] = [st.open_session(), st.open_session(), st.open_session()];
        run(&mut st, reader, Stmt::Begin { isolation });
        for s in [a, b] {
            run(
                &mut st,
                s,
                Stmt::Begin {
                    isolation: Isolation::ReadCommitted,
                },
            );
        }
        run(&mut st, a, insert(1));
        run(&mut st, b, insert(2));
        let order = if first_one { [a, b] } else { [b, a] };
        let mut seen = 0;
        if !read_between {
            seen = run(&mut st, reader, read_all());
        }
        run(&mut st, order[0], Stmt::Commit);
        if read_between {
            seen = run(&mut st, reader, read_all());
        }
        run(&mut st, order[1], Stmt::Commit);
        (of(&st), seen)
    }

    #[test]
    fn two_commits_no_snapshot_tells_apart_are_one_state() {
        for isolation in [Isolation::ReadCommitted, Isolation::RepeatableRead] {
            assert_eq!(
                commits(isolation, true, false),
                commits(isolation, false, false),
                "{isolation:?}: the reader's snapshot came before both commits"
            );
        }
        // A READ COMMITTED reader takes its next snapshot after both.
        assert_eq!(
            commits(Isolation::ReadCommitted, true, true).0,
            commits(Isolation::ReadCommitted, false, true).0
        );
    }

    #[test]
    fn a_snapshot_between_two_commits_keeps_their_order() {
        // REPEATABLE READ keeps the snapshot it took between the commits:
        // it saw one row, and which one decides every later read.
        let (one_first, saw) = commits(Isolation::RepeatableRead, true, true);
        let (two_first, _) = commits(Isolation::RepeatableRead, false, true);
        assert_eq!(saw, 1);
        assert_ne!(one_first, two_first);
        // The same stores with the numbers kept differ too: the ranking
        // merges no more than the raw numbers do here, and no less above.
        assert_ne!(
            with_ids_kept(|| commits(Isolation::ReadCommitted, true, false).0),
            with_ids_kept(|| commits(Isolation::ReadCommitted, false, false).0)
        );
    }
}
