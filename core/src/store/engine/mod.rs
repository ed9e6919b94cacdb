//! A model of the parts of PostgreSQL 15 the product shows: MVCC snapshots,
//! UNIQUE checks that wait for an uncommitted row, `ON CONFLICT DO NOTHING`,
//! row locks, aborted transaction blocks, and serializable snapshot isolation.
//!
//! The model is step-wise: a statement either completes or waits on another
//! session's transaction; when that transaction ends, the waiting statement
//! goes on (with the snapshot and the row locks it had) and its result is
//! queued as a [`Completion`]. The conformance suite (tests/conformance,
//! issue #5) holds every behaviour here against a real PostgreSQL 15.
//!
//! SSI follows PostgreSQL's `predicate.c` (rw-conflict flags, dangerous
//! structures, dooming the pivot) at coarse granularity: a sequential scan
//! locks the table; an index scan (any filter on an indexed column, as the
//! planner does with sequential scans disabled) locks the index and the
//! tuples it returns. A whole index as one target equals PostgreSQL's page
//! granularity while it fits in one leaf page, which holds for every table
//! the product shows.

mod canonical;
#[cfg(test)]
pub(crate) use canonical::tests::with_ids_kept;
mod data;
mod set;
mod ssi;

use super::sql::*;
use crate::fingerprint::{FingerprintHasher, Words};
use serde::{Deserialize, Serialize};
use set::Set;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SessionId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TxId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum TxStatus {
    InProgress,
    /// Committed, with its place in commit order.
    Committed(u64),
    Aborted,
}

/// What a serializable transaction read, as PostgreSQL's SIREAD locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum ReadTarget {
    Table(u16),
    /// Any index of the table: each is one page at the product's sizes.
    Index(u16),
    /// One tuple (a version, by its place in the table: PostgreSQL's TID,
    /// so a later version of the same row is another target).
    Tuple(u16, usize),
}

/// What a write touches, for `CheckForSerializableConflictIn`.
#[derive(Clone, Copy, Debug)]
enum Write {
    Heap,
    Index,
    HeapAndIndex,
    /// The version being updated or deleted.
    Tuple(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Tx {
    session: SessionId,
    isolation: Isolation,
    /// Commit sequence number visible to this transaction's snapshot.
    snapshot: Option<u64>,
    status: TxStatus,
    // SSI state; empty unless `isolation` is serializable.
    reads: Set<ReadTarget>,
    /// rw-conflicts out: this transaction read what these wrote.
    conflicts_out: Set<TxId>,
    /// rw-conflicts in: these read what this transaction wrote.
    conflicts_in: Set<TxId>,
    doomed: bool,
}

/// The transaction that made every frozen version: committed before any
/// snapshot (see `Store::vacuum`).
const FROZEN: TxId = TxId(0);

impl Tx {
    fn frozen() -> Tx {
        Tx {
            session: SessionId(u32::MAX),
            isolation: Isolation::ReadCommitted,
            snapshot: None,
            status: TxStatus::Committed(0),
            reads: Set::new(),
            conflicts_out: Set::new(),
            conflicts_in: Set::new(),
            doomed: false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Version {
    xmin: TxId,
    /// The transaction that deleted or replaced this version.
    xmax: Option<TxId>,
    /// A `SELECT ... FOR UPDATE` lock.
    locker: Option<TxId>,
    /// The version an UPDATE replaced this one with (PostgreSQL's ctid
    /// chain), which READ COMMITTED follows after waiting for the updater.
    next: Option<usize>,
    /// Shared: a version's values never change (an UPDATE writes a new
    /// version), and explorers clone stores millions of times.
    values: std::sync::Arc<[crate::store::Value]>,
}

#[derive(Clone, Debug)]
struct TableData {
    /// Shared and left out of equality and hashing: a store's schema never
    /// changes, and explorers clone and hash stores millions of times.
    def: std::sync::Arc<TableDef>,
    versions: Vec<Version>,
    /// Identity sequence; like PostgreSQL's, not rolled back.
    next_id: i64,
}

impl PartialEq for TableData {
    fn eq(&self, other: &Self) -> bool {
        self.versions == other.versions && self.next_id == other.next_id
    }
}
impl Eq for TableData {}
impl std::hash::Hash for TableData {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.versions.hash(h);
        self.next_id.hash(h);
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pending {
    stmt: Stmt,
    progress: Progress,
    /// The statement's snapshot: a READ COMMITTED statement that waited
    /// goes on with the snapshot it started with, not a new one.
    snapshot: u64,
    waiting_on: TxId,
    since_step: u64,
}

/// What a statement that had to wait has done so far, kept for when it
/// runs again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Progress {
    /// The row an INSERT built before it had to wait: its identity value is
    /// drawn once, as in PostgreSQL.
    row: Option<Vec<Value>>,
    /// The rows (versions its snapshot found) a locking statement already
    /// locked, updated or deleted before it reached the row it waits for.
    /// PostgreSQL keeps those: its scan goes on from the row it waited for.
    done: Vec<usize>,
    /// What those rows returned.
    out: QueryResult,
    /// How many versions the table had when the statement began: the
    /// versions it wrote itself are not rows it scans (PostgreSQL's command
    /// id rule), and any other later one is invisible to its snapshot.
    scan_end: Option<usize>,
}

/// What a statement that waited resumes with.
struct Resume {
    progress: Progress,
    snapshot: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Session {
    tx: Option<TxId>,
    /// The transaction is explicit (BEGIN) rather than one statement long.
    explicit: bool,
    /// An error aborted the transaction block: only ROLLBACK/COMMIT end it.
    failed_block: bool,
    /// Boxed: few sessions wait at once, and a `Pending` inline would make
    /// every session, and every clone of the store, ten times larger.
    pending: Option<Box<Pending>>,
}

/// The result of issuing a statement.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Exec {
    Done(StmtResult),
    /// Blocked until the named session's transaction ends.
    Waiting {
        on: SessionId,
    },
}

/// A statement that had been waiting and has now finished.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Completion {
    pub session: SessionId,
    pub result: StmtResult,
}

/// A row as the lousa draws it: its latest version and who holds it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RowView {
    pub values: Vec<Value>,
    /// `Some(session)` while the insert or last update is uncommitted.
    pub uncommitted_by: Option<SessionId>,
    pub locked_by: Option<SessionId>,
}

/// Its `Hash` is the fingerprint's, with transaction ids renamed
/// (`canonical.rs`); `Eq` compares the ids as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    tables: Vec<TableData>,
    txs: Vec<Tx>,
    sessions: Vec<Session>,
    commit_seq: u64,
    steps: u64,
    completions: Vec<Completion>,
}

enum Step {
    Done(StmtResult),
    Wait(TxId, Progress),
}

fn err(state: SqlState, message: impl Into<String>) -> SqlError {
    SqlError {
        state,
        message: message.into(),
    }
}

fn ssi_failure() -> SqlError {
    err(
        SqlState::SerializationFailure,
        "could not serialize access due to read/write dependencies among transactions",
    )
}

fn in_failed_transaction() -> SqlError {
    err(
        SqlState::InFailedTransaction,
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

fn concurrent_delete() -> SqlError {
    err(
        SqlState::SerializationFailure,
        "could not serialize access due to concurrent delete",
    )
}

fn concurrent_update() -> SqlError {
    err(
        SqlState::SerializationFailure,
        "could not serialize access due to concurrent update",
    )
}

/// The value a column keeps for `v`: jsonb stores PostgreSQL's canonical
/// text (key order, spacing, numbers), not the text that was written; an
/// `int` column refuses what its four bytes cannot hold.
fn stored_value(col: &ColumnDef, v: &Value) -> Result<Value, SqlError> {
    match (col.ty, v) {
        (ColumnType::Int, Value::Int(n)) if i32::try_from(*n).is_err() => Err(err(
            SqlState::NumericValueOutOfRange,
            "integer out of range",
        )),
        (ColumnType::Jsonb, Value::Text(s)) => {
            super::jsonb::canonical(s).map(Value::Text).ok_or_else(|| {
                err(
                    SqlState::InvalidTextRepresentation,
                    "invalid input syntax for type json",
                )
            })
        }
        _ => Ok(v.clone()),
    }
}

fn matches(def: &TableDef, values: &[Value], filter: &Filter) -> bool {
    filter.iter().all(|(c, v)| {
        def.column_index(c)
            .is_some_and(|i| values[i] == *v && *v != Value::Null)
    })
}

impl Store {
    /// How many sessions the store has opened.
    pub(crate) fn sessions_len(&self) -> usize {
        self.sessions.len()
    }

    /// Session `s` becomes session `to[s]`: the explorer renames whole
    /// flows, an instance's connections with them (`explore/flow_names.rs`).
    /// A session's number is only a name here: waiters wake in the order
    /// their waits began, which no two sessions share.
    pub(crate) fn rename_sessions(&mut self, to: &[u32]) {
        self.sessions = crate::permutation::permuted(std::mem::take(&mut self.sessions), to);
        for tx in &mut self.txs {
            // The frozen transaction belongs to no session.
            if let Some(&t) = to.get(tx.session.0 as usize) {
                tx.session = SessionId(t);
            }
        }
        for c in &mut self.completions {
            c.session = SessionId(to[c.session.0 as usize]);
        }
    }

    /// What session `s` holds, with no session or transaction number in
    /// it: its block, what it waits on, its transaction's state, and what
    /// its transactions did to each version, by the version's place. The
    /// explorer orders flows by it (`explore/flow_names.rs`).
    pub(crate) fn session_key(&self, s: SessionId) -> u128 {
        use std::hash::Hash;
        let mut h = crate::fingerprint::FingerprintHasher::new();
        let status = |t: TxId| match self.tx(t).status {
            TxStatus::InProgress => 0u8,
            TxStatus::Committed(_) => 1,
            TxStatus::Aborted => 2,
        };
        let session = self.session(s);
        (session.explicit, session.failed_block).hash(&mut h);
        session
            .pending
            .as_ref()
            .map(|p| (&p.stmt, &p.progress))
            .hash(&mut h);
        session
            .tx
            .map(|t| {
                (
                    status(t),
                    self.tx(t).isolation,
                    self.tx(t).snapshot.is_some(),
                )
            })
            .hash(&mut h);
        let mine = |t: TxId| t != FROZEN && self.tx(t).session == s;
        for (t, table) in self.tables.iter().enumerate() {
            for (v, version) in table.versions.iter().enumerate() {
                let roles = (
                    mine(version.xmin).then(|| status(version.xmin)),
                    version.xmax.filter(|&x| mine(x)).map(status),
                    version.locker.is_some_and(mine),
                );
                if roles != (None, None, false) {
                    (t as u32, v as u32, roles).hash(&mut h);
                }
            }
        }
        h.finish128()
    }

    pub fn new(tables: &[TableDef]) -> Store {
        Store {
            tables: tables
                .iter()
                .map(|def| TableData {
                    def: std::sync::Arc::new(def.clone()),
                    versions: Vec::new(),
                    next_id: 1,
                })
                .collect(),
            txs: vec![Tx::frozen()],
            sessions: Vec::new(),
            commit_seq: 0,
            steps: 0,
            completions: Vec::new(),
        }
    }

    /// A store with every table of the product.
    pub fn with_all_tables() -> Store {
        Store::new(&all_tables())
    }

    pub fn open_session(&mut self) -> SessionId {
        self.sessions.push(Session::default());
        SessionId(self.sessions.len() as u32 - 1)
    }

    pub fn table_defs(&self) -> impl Iterator<Item = &TableDef> {
        self.tables.iter().map(|t| &*t.def)
    }

    /// The definition of the table called `name`, if the store has it.
    pub fn table_def(&self, name: &str) -> Option<&TableDef> {
        self.table_defs().find(|d| d.name == name)
    }

    /// The session a waiting statement waits for, if any.
    pub fn waiting_on(&self, s: SessionId) -> Option<SessionId> {
        let p = self.session(s).pending.as_ref()?;
        Some(self.tx(p.waiting_on).session)
    }

    /// The store step at which the session started to wait.
    pub fn waiting_since(&self, s: SessionId) -> Option<u64> {
        self.session(s).pending.as_ref().map(|p| p.since_step)
    }

    pub fn in_transaction(&self, s: SessionId) -> bool {
        self.session(s).tx.is_some() || self.session(s).failed_block
    }

    /// Whether statements that were waiting have finished since the last
    /// `take_completions`: asked first, so that a world with none does not
    /// borrow its store mutably (which would drop its cached fingerprint).
    pub fn has_completions(&self) -> bool {
        !self.completions.is_empty()
    }

    /// Statements that were waiting and finished since the last call.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    /// Issues one statement. The session must not be waiting.
    pub fn execute(&mut self, s: SessionId, stmt: Stmt) -> Exec {
        // The world never issues for a waiting connection; a release build
        // skips the check (its message would cost the page bytes).
        debug_assert!(
            self.session(s).pending.is_none(),
            "session {s:?} issued a statement while waiting"
        );
        self.steps += 1;
        let exec = self.issue(s, stmt);
        self.vacuum();
        exec
    }

    /// Ends the session as a crash does: its transaction rolls back.
    pub fn terminate(&mut self, s: SessionId) {
        self.steps += 1;
        self.session_mut(s).pending = None;
        if let Some(tx) = self.session(s).tx {
            self.abort(tx);
        }
        *self.session_mut(s) = Session::default();
        self.vacuum();
    }

    /// When no transaction is open or waiting, forgets what nothing can
    /// tell apart any more: versions no snapshot will ever see are dropped,
    /// the rest are frozen (made by the always-committed transaction 0,
    /// unlocked, with no update chain), and the finished transactions, the
    /// commit counter and the step counter start over. Every later snapshot
    /// would see exactly those versions, and no lock, wait or SIREAD lock
    /// outlives its transaction, so what any statement returns is
    /// unchanged; PostgreSQL's VACUUM and FREEZE do the same. Without it two
    /// stores holding the same rows differ by the history that made them
    /// (transaction ids, dead versions), and explorers count one state as
    /// many.
    fn vacuum(&mut self) {
        if self.txs.len() == 1
            || self
                .sessions
                .iter()
                .any(|s| s.tx.is_some() || s.pending.is_some() || s.failed_block)
        {
            return;
        }
        let txs = std::mem::replace(&mut self.txs, vec![Tx::frozen()]);
        let committed = |x: TxId| matches!(txs[x.0 as usize].status, TxStatus::Committed(_));
        for t in &mut self.tables {
            t.versions
                .retain(|v| committed(v.xmin) && !v.xmax.is_some_and(committed));
            for v in &mut t.versions {
                v.xmin = FROZEN;
                v.xmax = None;
                v.locker = None;
                v.next = None;
            }
        }
        self.commit_seq = 0;
        self.steps = 0;
    }

    fn session(&self, s: SessionId) -> &Session {
        &self.sessions[s.0 as usize]
    }
    fn session_mut(&mut self, s: SessionId) -> &mut Session {
        &mut self.sessions[s.0 as usize]
    }
    fn tx(&self, t: TxId) -> &Tx {
        &self.txs[t.0 as usize]
    }
    fn tx_mut(&mut self, t: TxId) -> &mut Tx {
        &mut self.txs[t.0 as usize]
    }

    fn begin_tx(&mut self, s: SessionId, isolation: Isolation) -> TxId {
        debug_assert!(!self.txs.is_empty(), "transaction 0 is the frozen one");
        self.txs.push(Tx {
            session: s,
            isolation,
            snapshot: None,
            status: TxStatus::InProgress,
            reads: Set::new(),
            conflicts_out: Set::new(),
            conflicts_in: Set::new(),
            doomed: false,
        });
        TxId(self.txs.len() as u32 - 1)
    }

    fn issue(&mut self, s: SessionId, stmt: Stmt) -> Exec {
        match stmt {
            Stmt::Begin { isolation } => {
                if self.session(s).failed_block {
                    return Exec::Done(Err(in_failed_transaction()));
                }
                match self.session(s).tx {
                    None => {
                        let tx = self.begin_tx(s, isolation);
                        let sess = self.session_mut(s);
                        sess.tx = Some(tx);
                        sess.explicit = true;
                    }
                    // A nested BEGIN only warns, but its isolation level is
                    // still applied, and that fails once the transaction has
                    // taken a snapshot (PostgreSQL's check_transaction_isolation).
                    Some(tx) if self.tx(tx).isolation != isolation => {
                        if self.tx(tx).snapshot.is_some() {
                            self.fail(s, tx);
                            return Exec::Done(Err(err(
                                SqlState::ActiveSqlTransaction,
                                "SET TRANSACTION ISOLATION LEVEL must be called before any query",
                            )));
                        }
                        self.tx_mut(tx).isolation = isolation;
                    }
                    Some(_) => {}
                }
                Exec::Done(Ok(QueryResult::default()))
            }
            Stmt::Commit => {
                let sess = self.session_mut(s);
                sess.failed_block = false;
                sess.explicit = false;
                // COMMIT of a failed block rolls back without an error.
                let Some(tx) = sess.tx.take() else {
                    return Exec::Done(Ok(QueryResult::default()));
                };
                Exec::Done(self.commit(tx).map(|_| QueryResult::default()))
            }
            Stmt::Rollback => {
                let sess = self.session_mut(s);
                sess.failed_block = false;
                sess.explicit = false;
                if let Some(tx) = sess.tx.take() {
                    self.abort(tx);
                }
                Exec::Done(Ok(QueryResult::default()))
            }
            data => self.issue_data(s, data, None),
        }
    }

    fn issue_data(&mut self, s: SessionId, stmt: Stmt, resume: Option<Resume>) -> Exec {
        if self.session(s).failed_block {
            return Exec::Done(Err(in_failed_transaction()));
        }
        let tx = match self.session(s).tx {
            Some(tx) => tx,
            None => {
                let tx = self.begin_tx(s, Isolation::ReadCommitted);
                self.session_mut(s).tx = Some(tx);
                tx
            }
        };
        let isolation = self.tx(tx).isolation;
        let (progress, resumed_snapshot) = match resume {
            Some(r) => (Some(r.progress), Some(r.snapshot)),
            None => (None, None),
        };
        // READ COMMITTED takes a snapshot per statement, and a statement
        // that waited keeps its own: rows committed meanwhile stay invisible
        // to it (only the newer versions of rows it had found are followed,
        // see `lock_target`). The other levels keep the first statement's.
        if isolation == Isolation::ReadCommitted {
            self.tx_mut(tx).snapshot = Some(resumed_snapshot.unwrap_or(self.commit_seq));
        } else if self.tx(tx).snapshot.is_none() {
            self.tx_mut(tx).snapshot = Some(self.commit_seq);
        }
        let snapshot = self.tx(tx).snapshot.expect("just taken");
        let step = match &stmt {
            Stmt::Insert { .. } => self.insert(tx, &stmt, progress.and_then(|p| p.row)),
            Stmt::Select { .. } | Stmt::Update { .. } | Stmt::Delete { .. } => {
                self.scan_and_modify(tx, &stmt, progress)
            }
            _ => unreachable!("transaction control is handled in issue"),
        };
        match step {
            Step::Wait(on, progress) => {
                if let Some(victim) = self.deadlock_victim(tx, on) {
                    self.fail_waiting(victim);
                    // The victim's abort woke this statement's blocker chain; run again.
                    return self.issue_data(s, stmt, Some(Resume { progress, snapshot }));
                }
                let since_step = self.steps;
                self.session_mut(s).pending = Some(Box::new(Pending {
                    stmt,
                    progress,
                    snapshot,
                    waiting_on: on,
                    since_step,
                }));
                Exec::Waiting {
                    on: self.tx(on).session,
                }
            }
            Step::Done(Err(e)) => {
                self.fail(s, tx);
                Exec::Done(Err(e))
            }
            Step::Done(Ok(r)) => {
                if self.session(s).explicit {
                    return Exec::Done(Ok(r));
                }
                self.session_mut(s).tx = None;
                Exec::Done(self.commit(tx).map(|_| r))
            }
        }
    }

    /// An error aborts the transaction at once (its locks are released), and
    /// an explicit block then refuses everything but ROLLBACK/COMMIT.
    fn fail(&mut self, s: SessionId, tx: TxId) {
        let sess = self.session_mut(s);
        sess.tx = None;
        sess.failed_block = sess.explicit;
        self.abort(tx);
    }

    /// PostgreSQL's deadlock detector runs in the backend whose
    /// `deadlock_timeout` fires first: the one that started waiting first.
    fn deadlock_victim(&self, me: TxId, on: TxId) -> Option<SessionId> {
        let mut cur = on;
        let mut chain = Vec::new();
        for _ in 0..self.sessions.len() + 1 {
            let s = self.tx(cur).session;
            let p = self.session(s).pending.as_ref()?;
            chain.push(s);
            if p.waiting_on == me {
                return chain
                    .iter()
                    .copied()
                    .min_by_key(|s| self.session(*s).pending.as_ref().map(|p| p.since_step));
            }
            cur = p.waiting_on;
        }
        None
    }

    fn fail_waiting(&mut self, s: SessionId) {
        self.session_mut(s).pending = None;
        if let Some(tx) = self.session(s).tx {
            self.fail(s, tx);
        }
        self.completions.push(Completion {
            session: s,
            result: Err(err(SqlState::DeadlockDetected, "deadlock detected")),
        });
    }

    fn commit(&mut self, tx: TxId) -> Result<(), SqlError> {
        if self.tx(tx).isolation == Isolation::Serializable
            && let Err(e) = self.ssi_pre_commit(tx)
        {
            self.abort(tx);
            return Err(e);
        }
        self.commit_seq += 1;
        self.tx_mut(tx).status = TxStatus::Committed(self.commit_seq);
        self.wake_waiters(tx);
        Ok(())
    }

    fn abort(&mut self, tx: TxId) {
        self.tx_mut(tx).status = TxStatus::Aborted;
        // An aborted transaction's SIREAD locks and conflicts are released.
        let t = self.tx_mut(tx);
        t.reads.clear();
        let ins = std::mem::take(&mut t.conflicts_in);
        let outs = std::mem::take(&mut t.conflicts_out);
        for r in ins {
            self.tx_mut(r).conflicts_out.remove(&tx);
        }
        for w in outs {
            self.tx_mut(w).conflicts_in.remove(&tx);
        }
        self.wake_waiters(tx);
    }

    /// Runs again, in the order they started waiting, the statements that
    /// waited for `ended`. PostgreSQL queues waiters for one row on the
    /// row's tuple lock, first come first served. (Waiters for one unique
    /// key all wake at once and race; the model lets the first one win.)
    fn wake_waiters(&mut self, ended: TxId) {
        // In session order, each placed after the waiters that started no
        // later: a stable sort by start of wait, without a sort's code (a
        // whole driftsort in the page's wasm) for a handful of sessions.
        let mut waiters: Vec<SessionId> = Vec::new();
        for s in (0..self.sessions.len() as u32).map(SessionId) {
            let Some(since) = self
                .session(s)
                .pending
                .as_ref()
                .and_then(|p| (p.waiting_on == ended).then_some(p.since_step))
            else {
                continue;
            };
            let at = waiters.partition_point(|w| self.waiting_since(*w) <= Some(since));
            waiters.insert(at, s);
        }
        for s in waiters {
            let p = self
                .session_mut(s)
                .pending
                .take()
                .expect("filtered on pending");
            let resume = Resume {
                progress: p.progress,
                snapshot: p.snapshot,
            };
            match self.issue_data(s, p.stmt, Some(resume)) {
                Exec::Done(result) => self.completions.push(Completion { session: s, result }),
                Exec::Waiting { .. } => {
                    // Keep the original start of the wait for the lousa's clock.
                    if let Some(np) = self.session_mut(s).pending.as_mut() {
                        np.since_step = p.since_step;
                    }
                }
            }
        }
    }

    // ---- serializable snapshot isolation ----
}

/// Parts an explorer rarely rehashes (the store changes on few steps, the
/// acquirer on fewer) are fed as `Hash` feeds them: the store's renames its
/// transaction ids (`canonical.rs`).
impl Words for Store {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        std::hash::Hash::hash(self, h);
    }
}
