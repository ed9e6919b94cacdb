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

use super::sql::*;
use crate::fingerprint::{FingerprintHasher, Words};
use serde::{Deserialize, Serialize};
use std::hash::Hash as _;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SessionId(pub u32);

/// An ordered set kept as a sorted `Vec`: the sets here hold a few
/// transactions or read targets, and a `BTreeSet` would put several kB of
/// B-tree code into the page's wasm. Iterates in the same order as a
/// `BTreeSet`, and equality and `Hash` see the same elements in the same
/// order (a length, then each element), so fingerprints do not change.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Set<T>(Vec<T>);

impl<T: Ord> Set<T> {
    const fn new() -> Self {
        Set(Vec::new())
    }

    fn insert(&mut self, x: T) {
        if let Err(at) = self.0.binary_search(&x) {
            self.0.insert(at, x);
        }
    }

    fn remove(&mut self, x: &T) {
        if let Ok(at) = self.0.binary_search(x) {
            self.0.remove(at);
        }
    }

    fn contains(&self, x: &T) -> bool {
        self.0.binary_search(x).is_ok()
    }

    fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T: Ord> Default for Set<T> {
    fn default() -> Self {
        Set::new()
    }
}

impl<T: Ord> Extend<T> for Set<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.insert(x);
        }
    }
}

impl<T> IntoIterator for Set<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// Printed as a `BTreeSet` prints: `{a, b}`.
impl<T: std::fmt::Debug> std::fmt::Debug for Set<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(&self.0).finish()
    }
}

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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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
/// text (key order, spacing, numbers), not the text that was written.
fn stored_value(col: &ColumnDef, v: &Value) -> Result<Value, SqlError> {
    match (col.ty, v) {
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

    /// The latest live version of every row, committed or not, in insert order.
    pub fn rows(&self, table: &str) -> Vec<RowView> {
        let Some(t) = self.tables.iter().find(|t| t.def.name == table) else {
            return Vec::new();
        };
        t.versions
            .iter()
            .filter(|v| self.tx(v.xmin).status != TxStatus::Aborted)
            .filter(|v| match v.xmax {
                None => true,
                Some(x) => self.tx(x).status == TxStatus::Aborted,
            })
            .map(|v| RowView {
                values: v.values.to_vec(),
                uncommitted_by: (self.tx(v.xmin).status == TxStatus::InProgress)
                    .then(|| self.tx(v.xmin).session),
                locked_by: v
                    .locker
                    .filter(|l| self.tx(*l).status == TxStatus::InProgress)
                    .map(|l| self.tx(l).session),
            })
            .collect()
    }

    /// Rows as a committed-data reader sees them now.
    pub fn committed_rows(&self, table: &str) -> Vec<Vec<Value>> {
        let Some(t) = self.tables.iter().find(|t| t.def.name == table) else {
            return Vec::new();
        };
        t.versions
            .iter()
            .filter(|v| matches!(self.tx(v.xmin).status, TxStatus::Committed(_)))
            .filter(|v| {
                v.xmax
                    .is_none_or(|x| !matches!(self.tx(x).status, TxStatus::Committed(_)))
            })
            .map(|v| v.values.to_vec())
            .collect()
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

    fn table_index(&self, name: &str) -> Result<usize, SqlError> {
        self.tables
            .iter()
            .position(|t| t.def.name == name)
            .ok_or_else(|| {
                err(
                    SqlState::UndefinedObject,
                    format!("relation \"{name}\" does not exist"),
                )
            })
    }

    fn visible(&self, v: &Version, tx: TxId) -> bool {
        let snap = self.tx(tx).snapshot.expect("snapshot taken before reading");
        let sees = |x: TxId| {
            x == tx
                || match self.tx(x).status {
                    TxStatus::Committed(seq) => seq <= snap,
                    _ => false,
                }
        };
        sees(v.xmin) && !v.xmax.is_some_and(sees)
    }

    fn build_row(&mut self, t: usize, values: &[(Name, Value)]) -> Result<Vec<Value>, SqlError> {
        let def = &self.tables[t].def;
        let mut row = vec![Value::Null; def.columns.len()];
        for (c, v) in values {
            let i = def.column_index(c).ok_or_else(|| {
                err(
                    SqlState::UndefinedObject,
                    format!("column \"{c}\" of relation \"{}\" does not exist", def.name),
                )
            })?;
            row[i] = stored_value(&def.columns[i], v)?;
        }
        let id_col = def
            .columns
            .iter()
            .position(|c| c.ty == ColumnType::Identity);
        let missing = def
            .columns
            .iter()
            .enumerate()
            .find(|(i, c)| c.not_null && row[*i] == Value::Null && Some(*i) != id_col)
            .map(|(_, c)| c.name.clone());
        // The identity value is drawn before constraints are checked.
        if let Some(i) = id_col {
            row[i] = Value::Int(self.tables[t].next_id);
            self.tables[t].next_id += 1;
        }
        if let Some(name) = missing {
            return Err(err(
                SqlState::NotNullViolation,
                format!("null value in column \"{name}\" violates not-null constraint"),
            ));
        }
        Ok(row)
    }

    fn insert(&mut self, tx: TxId, stmt: &Stmt, prepared: Option<Vec<Value>>) -> Step {
        let Stmt::Insert {
            table,
            values,
            on_conflict_do_nothing,
            returning,
        } = stmt
        else {
            unreachable!()
        };
        let t = match self.table_index(table) {
            Ok(t) => t,
            Err(e) => return Step::Done(Err(e)),
        };
        let resumed = prepared.is_some();
        let row = match prepared {
            Some(r) => r,
            None => match self.build_row(t, values) {
                Ok(r) => r,
                Err(e) => return Step::Done(Err(e)),
            },
        };
        let plain = on_conflict_do_nothing.is_none();
        // A plain INSERT writes the heap tuple first (checking relation
        // SIREAD locks), then inserts index entries, which is where it waits
        // for a conflicting uncommitted key; resumed, it is past the heap.
        // ON CONFLICT probes the indexes before writing anything.
        if plain
            && !resumed
            && let Err(e) = self.ssi_write(tx, t, Write::Heap)
        {
            return Step::Done(Err(e));
        }
        for u in 0..self.tables[t].def.uniques.len() {
            match self.unique_conflict(tx, t, u, &row) {
                UniqueCheck::Free => {}
                UniqueCheck::Wait(x) => {
                    let progress = Progress {
                        row: Some(row),
                        ..Progress::default()
                    };
                    return Step::Wait(x, progress);
                }
                UniqueCheck::Taken(vi) => {
                    let name = self.tables[t].def.uniques[u].name.clone();
                    if plain {
                        // _bt_check_unique checks for conflicts in on the
                        // page before reporting the duplicate, so a
                        // serialization failure is not masked by it.
                        if let Err(e) = self.ssi_write(tx, t, Write::Index) {
                            return Step::Done(Err(e));
                        }
                        return Step::Done(Err(err(
                            SqlState::UniqueViolation,
                            format!("duplicate key value violates unique constraint \"{name}\""),
                        )));
                    }
                    // Under REPEATABLE READ and SERIALIZABLE, DO NOTHING may
                    // not skip a row its snapshot cannot see.
                    let v = &self.tables[t].versions[vi];
                    if self.tx(tx).isolation != Isolation::ReadCommitted && !self.visible(v, tx) {
                        return Step::Done(Err(concurrent_update()));
                    }
                    return Step::Done(Ok(QueryResult::default()));
                }
            }
        }
        let write = if plain {
            Write::Index
        } else {
            Write::HeapAndIndex
        };
        if let Err(e) = self.ssi_write(tx, t, write) {
            return Step::Done(Err(e));
        }
        let out = project(&self.tables[t].def, &row, returning);
        self.tables[t].versions.push(Version {
            xmin: tx,
            xmax: None,
            locker: None,
            next: None,
            values: row.into(),
        });
        Step::Done(Ok(QueryResult {
            rows: out.into_iter().collect(),
            affected: 1,
        }))
    }

    /// The unique check with a dirty snapshot: it sees uncommitted rows and
    /// waits for their transactions to end.
    fn unique_conflict(&self, tx: TxId, t: usize, u: usize, row: &[Value]) -> UniqueCheck {
        let def = &self.tables[t].def;
        let cols: Vec<usize> = def.uniques[u]
            .columns
            .iter()
            .map(|c| def.column_index(c).expect("unique column exists"))
            .collect();
        if cols.iter().any(|&i| row[i] == Value::Null) {
            return UniqueCheck::Free;
        }
        for (vi, v) in self.tables[t].versions.iter().enumerate() {
            if !cols.iter().all(|&i| v.values[i] == row[i]) {
                continue;
            }
            let inserter = self.tx(v.xmin);
            if inserter.status == TxStatus::Aborted {
                continue;
            }
            if inserter.status == TxStatus::InProgress && v.xmin != tx {
                return UniqueCheck::Wait(v.xmin);
            }
            match v.xmax.map(|x| (x, self.tx(x).status)) {
                None | Some((_, TxStatus::Aborted)) => return UniqueCheck::Taken(vi),
                Some((x, TxStatus::InProgress)) if x != tx => return UniqueCheck::Wait(x),
                Some(_) => continue,
            }
        }
        UniqueCheck::Free
    }

    /// SELECT, UPDATE and DELETE. A locking statement takes the rows in scan
    /// order and stops at the first one another transaction holds, keeping
    /// what it did to the rows before (their locks, new versions) while it
    /// waits, as PostgreSQL does.
    fn scan_and_modify(&mut self, tx: TxId, stmt: &Stmt, resumed: Option<Progress>) -> Step {
        let (table, filter) = match stmt {
            Stmt::Select { table, filter, .. }
            | Stmt::Update { table, filter, .. }
            | Stmt::Delete { table, filter } => (table, filter),
            _ => unreachable!(),
        };
        let t = match self.table_index(table) {
            Ok(t) => t,
            Err(e) => return Step::Done(Err(e)),
        };
        // What an UPDATE writes is checked before it reads or waits: in
        // PostgreSQL an unknown column or a bad jsonb literal fails when the
        // statement is parsed.
        let set: Vec<(usize, Value)> = match stmt {
            Stmt::Update { set, .. } => {
                let def = &self.tables[t].def;
                let resolved: Result<Vec<_>, SqlError> = set
                    .iter()
                    .map(|(c, val)| {
                        let i = def.column_index(c).ok_or_else(|| {
                            err(
                                SqlState::UndefinedObject,
                                format!(
                                    "column \"{c}\" of relation \"{}\" does not exist",
                                    def.name
                                ),
                            )
                        })?;
                        Ok((i, stored_value(&def.columns[i], val)?))
                    })
                    .collect();
                match resolved {
                    Ok(r) => r,
                    Err(e) => return Step::Done(Err(e)),
                }
            }
            _ => Vec::new(),
        };
        if resumed.is_none()
            && let Err(e) = self.ssi_read(tx, t, filter)
        {
            return Step::Done(Err(e));
        }
        let mut progress = resumed.unwrap_or_default();
        let scan_end = *progress
            .scan_end
            .get_or_insert(self.tables[t].versions.len());
        let def = std::sync::Arc::clone(&self.tables[t].def);
        let hits: Vec<usize> = (0..scan_end)
            .filter(|vi| !progress.done.contains(vi))
            .filter(|&vi| {
                let v = &self.tables[t].versions[vi];
                self.visible(v, tx) && matches(&def, &v.values, filter)
            })
            .collect();
        let locking = match stmt {
            Stmt::Select { for_update, .. } => *for_update,
            _ => true,
        };
        let lock_only = matches!(stmt, Stmt::Select { .. });
        let mut wait = None;
        for vi in hits {
            // A locking statement acts on the newest version of each row it
            // found (see `lock_target`); a plain SELECT on what it found.
            let target = if locking {
                match self.lock_target(tx, t, vi, filter, lock_only) {
                    Ok(Some(target)) => target,
                    Ok(None) => continue,
                    Err(Step::Wait(x, _)) => {
                        wait = Some(x);
                        break;
                    }
                    Err(step) => return step,
                }
            } else {
                vi
            };
            if !lock_only && let Err(e) = self.ssi_write(tx, t, Write::Tuple(target)) {
                return Step::Done(Err(e));
            }
            let out = &mut progress.out;
            match stmt {
                Stmt::Select { columns, .. } => {
                    let v = &mut self.tables[t].versions[target];
                    if locking && v.xmin != tx {
                        v.locker = Some(tx);
                    }
                    out.rows.extend(project(&def, &v.values, columns));
                }
                Stmt::Update { returning, .. } => {
                    let mut values = self.tables[t].versions[target].values.to_vec();
                    for (i, val) in &set {
                        values[*i] = val.clone();
                    }
                    out.rows.extend(project(&def, &values, returning));
                    let next = self.tables[t].versions.len();
                    let old = &mut self.tables[t].versions[target];
                    old.xmax = Some(tx);
                    old.next = Some(next);
                    self.tables[t].versions.push(Version {
                        xmin: tx,
                        xmax: None,
                        locker: None,
                        next: None,
                        values: values.into(),
                    });
                    out.affected += 1;
                }
                Stmt::Delete { .. } => {
                    let old = &mut self.tables[t].versions[target];
                    old.xmax = Some(tx);
                    old.next = None;
                    out.affected += 1;
                }
                _ => unreachable!(),
            }
            progress.done.push(vi);
        }
        match wait {
            Some(x) => Step::Wait(x, progress),
            None => Step::Done(Ok(progress.out)),
        }
    }

    /// The version a locking statement (UPDATE, DELETE, SELECT ... FOR
    /// UPDATE) acts on for a row version its snapshot found, as PostgreSQL's
    /// `heap_lock_tuple` and EvalPlanQual decide it. `Err` waits for a
    /// transaction that still writes or locks the row, or fails; `Ok(None)`
    /// skips the row.
    ///
    /// A row updated by a transaction that committed after the snapshot (the
    /// statement waited for it): READ COMMITTED follows the update chain to
    /// the newest version and re-checks the filter on that version alone, so
    /// rows the snapshot never had stay out; a deleted row is skipped.
    /// REPEATABLE READ and SERIALIZABLE fail with 40001.
    fn lock_target(
        &self,
        tx: TxId,
        t: usize,
        mut vi: usize,
        filter: &Filter,
        lock_only: bool,
    ) -> Result<Option<usize>, Step> {
        let versions = &self.tables[t].versions;
        loop {
            let v = &versions[vi];
            for holder in [v.xmax, v.locker].into_iter().flatten() {
                if holder != tx && self.tx(holder).status == TxStatus::InProgress {
                    return Err(Step::Wait(holder, Progress::default()));
                }
            }
            match v.xmax.map(|x| (x, self.tx(x).status)) {
                // Replaced by this transaction already: nothing left to do.
                Some((x, _)) if x == tx => return Ok(None),
                Some((x, TxStatus::Committed(_))) => {
                    // The committed writer replaced the row if it left a
                    // next version, else it deleted it. (A `next` left by an
                    // updater that aborted is not the chain.)
                    let next = v.next.filter(|&n| versions[n].xmin == x);
                    if self.tx(tx).isolation != Isolation::ReadCommitted {
                        // nodeModifyTable tells a delete apart; nodeLockRows
                        // says "update" for both.
                        return Err(Step::Done(Err(match next {
                            None if !lock_only => concurrent_delete(),
                            _ => concurrent_update(),
                        })));
                    }
                    match next {
                        Some(n) if matches(&self.tables[t].def, &versions[n].values, filter) => {
                            vi = n
                        }
                        _ => return Ok(None),
                    }
                }
                // No writer, or one that aborted.
                _ => return Ok(Some(vi)),
            }
        }
    }

    // ---- serializable snapshot isolation ----

    fn is_serializable(&self, tx: TxId) -> bool {
        self.tx(tx).isolation == Isolation::Serializable
    }

    /// The columns of the index PostgreSQL scans for `filter`, or `None` for
    /// a sequential scan. With sequential scans disabled (as the conformance
    /// suite runs it), any filter on an indexed column is an Index Scan, and
    /// a UNIQUE constraint's index wins over the primary key's (EXPLAIN on
    /// PostgreSQL 15: `WHERE id = 1 AND idempotency_key = 'k'` scans
    /// `uq_cobranca_idempotency_key`, `WHERE chave = 'k'` scans the
    /// (escopo, chave) index).
    fn scan_index(def: &TableDef, filter: &Filter) -> Option<Vec<String>> {
        let pkey = def
            .columns
            .iter()
            .filter(|c| c.ty == ColumnType::Identity)
            .map(|c| vec![c.name.clone()]);
        def.uniques
            .iter()
            .map(|u| u.columns.clone())
            .chain(pkey)
            .find(|cols| filter.iter().any(|(c, _)| cols.iter().any(|k| k == c)))
    }

    /// `PredicateLockRelation` / `PredicateLockPage` / `PredicateLockTID`
    /// and `CheckForSerializableConflictOut` for a scan. A sequential scan
    /// locks the relation and examines every tuple; an index scan locks the
    /// index (one leaf page, which is the whole index at the product's
    /// sizes), examines the tuples whose index entries match, and locks the
    /// visible ones. A statement resumed after a wait does not scan again:
    /// in PostgreSQL it carries on from the tuple it waited for.
    fn ssi_read(&mut self, tx: TxId, t: usize, filter: &Filter) -> Result<(), SqlError> {
        if !self.is_serializable(tx) {
            return Ok(());
        }
        let def = &self.tables[t].def;
        let index = Self::scan_index(def, filter);
        let key: Filter = match &index {
            Some(cols) => filter
                .iter()
                .filter(|(c, _)| cols.iter().any(|k| k == c))
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        let examined: Vec<usize> = (0..self.tables[t].versions.len())
            .filter(|&vi| matches(def, &self.tables[t].versions[vi].values, &key))
            .collect();
        if self.tx(tx).doomed && !examined.is_empty() {
            return Err(ssi_failure());
        }
        let mut locks = vec![match index {
            Some(_) => ReadTarget::Index(t as u16),
            None => ReadTarget::Table(t as u16),
        }];
        if index.is_some() {
            locks.extend(
                examined
                    .iter()
                    .filter(|&&vi| self.visible(&self.tables[t].versions[vi], tx))
                    .map(|&vi| ReadTarget::Tuple(t as u16, vi)),
            );
        }
        self.tx_mut(tx).reads.extend(locks);
        let snap = self.tx(tx).snapshot.expect("snapshot taken");
        let concurrent = |s: &Store, w: TxId| {
            w != tx
                && s.is_serializable(w)
                && match s.tx(w).status {
                    TxStatus::InProgress => true,
                    TxStatus::Committed(seq) => seq > snap,
                    TxStatus::Aborted => false,
                }
        };
        let mut writers = Set::new();
        for vi in examined {
            let v = &self.tables[t].versions[vi];
            if concurrent(self, v.xmin) {
                writers.insert(v.xmin);
            } else if let Some(x) = v.xmax.filter(|x| concurrent(self, *x))
                && self.visible(
                    &Version {
                        xmax: None,
                        ..v.clone()
                    },
                    tx,
                )
            {
                writers.insert(x);
            }
        }
        for w in writers {
            if self.tx(w).doomed || self.tx(tx).conflicts_out.contains(&w) {
                continue;
            }
            self.flag_rw_conflict(tx, w, tx)?;
        }
        Ok(())
    }

    /// `CheckForSerializableConflictIn`: a write meets the SIREAD locks of
    /// concurrent serializable readers.
    fn ssi_write(&mut self, tx: TxId, t: usize, write: Write) -> Result<(), SqlError> {
        if !self.is_serializable(tx) {
            return Ok(());
        }
        if self.tx(tx).doomed {
            return Err(ssi_failure());
        }
        let snap = self.tx(tx).snapshot.expect("snapshot taken");
        let targets = match write {
            // heap_insert checks relation locks only: a new tuple cannot
            // match an existing tuple lock.
            Write::Heap => vec![ReadTarget::Table(t as u16)],
            // Every table has at least its primary key's index.
            Write::Index => vec![ReadTarget::Index(t as u16)],
            Write::HeapAndIndex => vec![ReadTarget::Table(t as u16), ReadTarget::Index(t as u16)],
            // heap_update / heap_delete check the relation and the old tuple;
            // the product's updates never change an indexed column, so they
            // are HOT and add no index entry.
            Write::Tuple(vi) => vec![ReadTarget::Table(t as u16), ReadTarget::Tuple(t as u16, vi)],
        };
        let readers: Vec<TxId> = (0..self.txs.len() as u32)
            .map(TxId)
            .filter(|&r| {
                let rt = self.tx(r);
                r != tx
                    && rt.isolation == Isolation::Serializable
                    && !rt.doomed
                    && match rt.status {
                        TxStatus::InProgress => true,
                        TxStatus::Committed(seq) => seq > snap,
                        TxStatus::Aborted => false,
                    }
                    && targets.iter().any(|target| rt.reads.contains(target))
                    && !rt.conflicts_out.contains(&tx)
            })
            .collect();
        for r in readers {
            self.flag_rw_conflict(r, tx, tx)?;
        }
        Ok(())
    }

    fn committed_seq(&self, t: TxId) -> Option<u64> {
        match self.tx(t).status {
            TxStatus::Committed(seq) => Some(seq),
            _ => None,
        }
    }

    /// `FlagRWConflict` + `OnConflict_CheckForSerializationFailure`.
    fn flag_rw_conflict(&mut self, reader: TxId, writer: TxId, me: TxId) -> Result<(), SqlError> {
        self.tx_mut(reader).conflicts_out.insert(writer);
        self.tx_mut(writer).conflicts_in.insert(reader);
        let reader_seq = self.committed_seq(reader);
        let writer_seq = self.committed_seq(writer);
        // reader -> writer -> t2, where t2 committed first.
        let mut failure = self.tx(writer).conflicts_out.iter().any(|&t2| {
            self.committed_seq(t2).is_some_and(|t2_seq| {
                reader_seq.is_none_or(|r| t2_seq <= r) && writer_seq.is_none_or(|w| t2_seq <= w)
            })
        });
        // t0 -> reader -> writer, where the writer committed first.
        if !failure && let Some(w_seq) = writer_seq {
            failure = self.tx(reader).conflicts_in.iter().any(|&t0| {
                !self.tx(t0).doomed && self.committed_seq(t0).is_none_or(|s| s >= w_seq)
            });
        }
        if !failure {
            return Ok(());
        }
        if me == writer || writer_seq.is_some() {
            return Err(ssi_failure());
        }
        self.tx_mut(writer).doomed = true;
        Ok(())
    }

    /// `PreCommit_CheckForSerializationFailure`: a committing transaction
    /// dooms any uncommitted pivot between it and another live transaction.
    fn ssi_pre_commit(&mut self, me: TxId) -> Result<(), SqlError> {
        if self.tx(me).doomed {
            return Err(ssi_failure());
        }
        let near: Vec<TxId> = self.tx(me).conflicts_in.iter().copied().collect();
        for pivot in near {
            let p = self.tx(pivot);
            if p.status != TxStatus::InProgress || p.doomed {
                continue;
            }
            let dooms = p.conflicts_in.iter().any(|&far| {
                let f = self.tx(far);
                far == me || (f.status == TxStatus::InProgress && !f.doomed)
            });
            if dooms {
                self.tx_mut(pivot).doomed = true;
            }
        }
        Ok(())
    }
}

enum UniqueCheck {
    Free,
    Wait(TxId),
    Taken(usize),
}

fn project(def: &TableDef, values: &[Value], cols: &[Name]) -> Option<Vec<Value>> {
    if cols.is_empty() {
        return None;
    }
    Some(
        cols.iter()
            .map(|c| {
                def.column_index(c)
                    .map(|i| values[i].clone())
                    .unwrap_or(Value::Null)
            })
            .collect(),
    )
}

/// Parts an explorer rarely rehashes (the store changes on few steps, the
/// acquirer on fewer) are fed as `Hash` feeds them.
impl Words for Store {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}

#[cfg(test)]
mod set_tests {
    use super::{Set, TxId};
    use std::collections::BTreeSet;
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};

    #[test]
    fn a_set_orders_hashes_and_prints_as_a_btreeset_does() {
        let mut set = Set::new();
        let mut tree = BTreeSet::new();
        for t in [5, 1, 3, 1, 9, 5, 0] {
            set.insert(TxId(t));
            tree.insert(TxId(t));
        }
        set.remove(&TxId(3));
        tree.remove(&TxId(3));
        set.remove(&TxId(4));
        assert!(set.contains(&TxId(9)) && !set.contains(&TxId(3)));
        assert!(set.iter().eq(tree.iter()));
        let hasher = BuildHasherDefault::<DefaultHasher>::default();
        assert_eq!(hasher.hash_one(&set), hasher.hash_one(&tree));
        assert_eq!(format!("{set:?}"), format!("{tree:?}"));
        assert!(set.into_iter().eq(tree));
    }
}
