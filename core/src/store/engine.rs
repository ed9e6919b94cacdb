//! A model of the parts of PostgreSQL 15 the product shows: MVCC snapshots,
//! UNIQUE checks that wait for an uncommitted row, `ON CONFLICT DO NOTHING`,
//! row locks, aborted transaction blocks, and serializable snapshot isolation.
//!
//! The model is step-wise: a statement either completes or waits on another
//! session's transaction; when that transaction ends, the waiting statement is
//! run again and its result is queued as a [`Completion`]. The conformance
//! suite (tests/conformance) holds every behaviour here against a real server.
//!
//! SSI follows PostgreSQL's `predicate.c` (rw-conflict flags, dangerous
//! structures, dooming the pivot) at coarse granularity: a read locks the
//! table when it scans and the table's index when it probes by the unique key,
//! plus each row it returns. That equals PostgreSQL's page granularity while a
//! table fits in one page, which holds for every table the product shows.

use super::sql::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

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
    Index(u16),
    Row(u16, i64),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Tx {
    session: SessionId,
    isolation: Isolation,
    /// Commit sequence number visible to this transaction's snapshot.
    snapshot: Option<u64>,
    status: TxStatus,
    // SSI state; empty unless `isolation` is serializable.
    reads: BTreeSet<ReadTarget>,
    /// rw-conflicts out: this transaction read what these wrote.
    conflicts_out: BTreeSet<TxId>,
    /// rw-conflicts in: these read what this transaction wrote.
    conflicts_in: BTreeSet<TxId>,
    doomed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Version {
    xmin: TxId,
    /// The transaction that deleted or replaced this version.
    xmax: Option<TxId>,
    /// A `SELECT ... FOR UPDATE` lock.
    locker: Option<TxId>,
    values: Vec<crate::store::Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TableData {
    def: TableDef,
    versions: Vec<Version>,
    /// Identity sequence; like PostgreSQL's, not rolled back.
    next_id: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Pending {
    stmt: Stmt,
    /// The row an INSERT built before it had to wait: its identity value is
    /// drawn once, as in PostgreSQL.
    row: Option<Vec<Value>>,
    waiting_on: TxId,
    since_step: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Session {
    tx: Option<TxId>,
    /// The transaction is explicit (BEGIN) rather than one statement long.
    explicit: bool,
    /// An error aborted the transaction block: only ROLLBACK/COMMIT end it.
    failed_block: bool,
    pending: Option<Pending>,
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
    Wait(TxId, Option<Vec<Value>>),
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
                    def: def.clone(),
                    versions: Vec::new(),
                    next_id: 1,
                })
                .collect(),
            txs: Vec::new(),
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
        self.tables.iter().map(|t| &t.def)
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

    /// Statements that were waiting and finished since the last call.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    /// Issues one statement. The session must not be waiting.
    pub fn execute(&mut self, s: SessionId, stmt: Stmt) -> Exec {
        assert!(
            self.session(s).pending.is_none(),
            "session {s:?} issued a statement while waiting"
        );
        self.steps += 1;
        self.issue(s, stmt, None)
    }

    /// Ends the session as a crash does: its transaction rolls back.
    pub fn terminate(&mut self, s: SessionId) {
        self.steps += 1;
        self.session_mut(s).pending = None;
        if let Some(tx) = self.session(s).tx {
            self.abort(tx);
        }
        *self.session_mut(s) = Session::default();
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
                values: v.values.clone(),
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
            .map(|v| v.values.clone())
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
        self.txs.push(Tx {
            session: s,
            isolation,
            snapshot: None,
            status: TxStatus::InProgress,
            reads: BTreeSet::new(),
            conflicts_out: BTreeSet::new(),
            conflicts_in: BTreeSet::new(),
            doomed: false,
        });
        TxId(self.txs.len() as u32 - 1)
    }

    fn issue(&mut self, s: SessionId, stmt: Stmt, row: Option<Vec<Value>>) -> Exec {
        match stmt {
            Stmt::Begin { isolation } => {
                // PostgreSQL only warns on a nested BEGIN.
                if self.session(s).tx.is_none() && !self.session(s).failed_block {
                    let tx = self.begin_tx(s, isolation);
                    let sess = self.session_mut(s);
                    sess.tx = Some(tx);
                    sess.explicit = true;
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
            data => self.issue_data(s, data, row),
        }
    }

    fn issue_data(&mut self, s: SessionId, stmt: Stmt, row: Option<Vec<Value>>) -> Exec {
        if self.session(s).failed_block {
            return Exec::Done(Err(err(
                SqlState::InFailedTransaction,
                "current transaction is aborted, commands ignored until end of transaction block",
            )));
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
        if isolation == Isolation::ReadCommitted || self.tx(tx).snapshot.is_none() {
            self.tx_mut(tx).snapshot = Some(self.commit_seq);
        }
        let step = match &stmt {
            Stmt::Insert { .. } => self.insert(tx, &stmt, row),
            Stmt::Select { .. } | Stmt::Update { .. } | Stmt::Delete { .. } => {
                self.scan_and_modify(tx, &stmt)
            }
            _ => unreachable!("transaction control is handled in issue"),
        };
        match step {
            Step::Wait(on, row) => {
                if let Some(victim) = self.deadlock_victim(tx, on) {
                    self.fail_waiting(victim);
                    // The victim's abort woke this statement's blocker chain; run again.
                    return self.issue_data(s, stmt, row);
                }
                let since_step = self.steps;
                self.session_mut(s).pending = Some(Pending {
                    stmt,
                    row,
                    waiting_on: on,
                    since_step,
                });
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
        if self.tx(tx).isolation == Isolation::Serializable {
            if let Err(e) = self.ssi_pre_commit(tx) {
                self.abort(tx);
                return Err(e);
            }
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

    fn wake_waiters(&mut self, ended: TxId) {
        let waiters: Vec<SessionId> = (0..self.sessions.len() as u32)
            .map(SessionId)
            .filter(|s| {
                self.session(*s)
                    .pending
                    .as_ref()
                    .is_some_and(|p| p.waiting_on == ended)
            })
            .collect();
        for s in waiters {
            let p = self
                .session_mut(s)
                .pending
                .take()
                .expect("filtered on pending");
            match self.issue_data(s, p.stmt, p.row) {
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

    fn build_row(&mut self, t: usize, values: &[(String, Value)]) -> Result<Vec<Value>, SqlError> {
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
        let row = match prepared {
            Some(r) => r,
            None => match self.build_row(t, values) {
                Ok(r) => r,
                Err(e) => return Step::Done(Err(e)),
            },
        };
        // ON CONFLICT probes the index before inserting; a plain INSERT
        // writes the heap tuple first (where SSI checks for conflicts in).
        if on_conflict_do_nothing.is_none() {
            if let Err(e) = self.ssi_write(tx, t, None) {
                return Step::Done(Err(e));
            }
        }
        for u in 0..self.tables[t].def.uniques.len() {
            match self.unique_conflict(tx, t, u, &row) {
                UniqueCheck::Free => {}
                UniqueCheck::Wait(x) => return Step::Wait(x, Some(row)),
                UniqueCheck::Taken(vi) => {
                    let name = self.tables[t].def.uniques[u].name.clone();
                    if on_conflict_do_nothing.is_none() {
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
        if on_conflict_do_nothing.is_some() {
            if let Err(e) = self.ssi_write(tx, t, None) {
                return Step::Done(Err(e));
            }
        }
        let out = project(&self.tables[t].def, &row, returning);
        self.tables[t].versions.push(Version {
            xmin: tx,
            xmax: None,
            locker: None,
            values: row,
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

    fn scan_and_modify(&mut self, tx: TxId, stmt: &Stmt) -> Step {
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
        if let Err(e) = self.ssi_read(tx, t, filter) {
            return Step::Done(Err(e));
        }
        let def = self.tables[t].def.clone();
        let hits: Vec<usize> = (0..self.tables[t].versions.len())
            .filter(|&vi| {
                let v = &self.tables[t].versions[vi];
                self.visible(v, tx) && matches(&def, &v.values, filter)
            })
            .collect();
        let locking = match stmt {
            Stmt::Select { for_update, .. } => *for_update,
            _ => true,
        };
        if locking {
            for &vi in &hits {
                if let Some(step) = self.row_lock_conflict(tx, t, vi) {
                    return step;
                }
            }
        }
        let id_col = def
            .columns
            .iter()
            .position(|c| c.ty == ColumnType::Identity);
        let mut out = QueryResult::default();
        match stmt {
            Stmt::Select {
                columns,
                for_update,
                ..
            } => {
                for &vi in &hits {
                    let v = &mut self.tables[t].versions[vi];
                    if *for_update && v.xmin != tx {
                        v.locker = Some(tx);
                    }
                    out.rows.extend(project(&def, &v.values, columns));
                }
                self.ssi_read_rows(tx, t, id_col, &hits);
            }
            Stmt::Update { returning, .. } => {
                if !hits.is_empty() {
                    for &vi in &hits {
                        let row_id =
                            id_col.and_then(|i| self.tables[t].versions[vi].values[i].as_int());
                        if let Err(e) = self.ssi_write(tx, t, row_id) {
                            return Step::Done(Err(e));
                        }
                    }
                }
                for &vi in &hits {
                    let mut values = self.tables[t].versions[vi].values.clone();
                    for (i, val) in &set {
                        values[*i] = val.clone();
                    }
                    out.rows.extend(project(&def, &values, returning));
                    self.tables[t].versions[vi].xmax = Some(tx);
                    self.tables[t].versions.push(Version {
                        xmin: tx,
                        xmax: None,
                        locker: None,
                        values,
                    });
                    out.affected += 1;
                }
            }
            Stmt::Delete { .. } => {
                for &vi in &hits {
                    let row_id =
                        id_col.and_then(|i| self.tables[t].versions[vi].values[i].as_int());
                    if let Err(e) = self.ssi_write(tx, t, row_id) {
                        return Step::Done(Err(e));
                    }
                    self.tables[t].versions[vi].xmax = Some(tx);
                    out.affected += 1;
                }
            }
            _ => unreachable!(),
        }
        Step::Done(Ok(out))
    }

    /// Whether another transaction's write or lock on this version makes the
    /// statement wait (in progress) or fail (committed after our snapshot).
    fn row_lock_conflict(&self, tx: TxId, t: usize, vi: usize) -> Option<Step> {
        let v = &self.tables[t].versions[vi];
        for holder in [v.xmax, v.locker].into_iter().flatten() {
            if holder == tx {
                continue;
            }
            match self.tx(holder).status {
                TxStatus::InProgress => return Some(Step::Wait(holder, None)),
                // A committed xmax invisible to us: the row changed under us.
                TxStatus::Committed(_) if Some(holder) == v.xmax => {
                    return Some(Step::Done(Err(concurrent_update())));
                }
                _ => {}
            }
        }
        None
    }

    // ---- serializable snapshot isolation ----

    fn is_serializable(&self, tx: TxId) -> bool {
        self.tx(tx).isolation == Isolation::Serializable
    }

    /// A probe by every column of a unique constraint uses the index;
    /// anything else scans the table.
    fn uses_index(def: &TableDef, filter: &Filter) -> bool {
        def.uniques.iter().any(|u| {
            u.columns.len() == filter.len()
                && u.columns
                    .iter()
                    .all(|c| filter.iter().any(|(fc, _)| fc == c))
        })
    }

    fn ssi_read(&mut self, tx: TxId, t: usize, filter: &Filter) -> Result<(), SqlError> {
        if !self.is_serializable(tx) {
            return Ok(());
        }
        let def = &self.tables[t].def;
        let by_index = Self::uses_index(def, filter);
        let examined: Vec<usize> = (0..self.tables[t].versions.len())
            .filter(|&vi| !by_index || matches(def, &self.tables[t].versions[vi].values, filter))
            .collect();
        if self.tx(tx).doomed && !examined.is_empty() {
            return Err(ssi_failure());
        }
        let target = if by_index {
            ReadTarget::Index(t as u16)
        } else {
            ReadTarget::Table(t as u16)
        };
        self.tx_mut(tx).reads.insert(target);
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
        let mut writers = BTreeSet::new();
        for vi in examined {
            let v = &self.tables[t].versions[vi];
            if concurrent(self, v.xmin) {
                writers.insert(v.xmin);
            } else if let Some(x) = v.xmax.filter(|x| concurrent(self, *x)) {
                if self.visible(
                    &Version {
                        xmax: None,
                        ..v.clone()
                    },
                    tx,
                ) {
                    writers.insert(x);
                }
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

    fn ssi_read_rows(&mut self, tx: TxId, t: usize, id_col: Option<usize>, hits: &[usize]) {
        if !self.is_serializable(tx) {
            return;
        }
        for &vi in hits {
            if let Some(id) = id_col.and_then(|i| self.tables[t].versions[vi].values[i].as_int()) {
                self.tx_mut(tx).reads.insert(ReadTarget::Row(t as u16, id));
            }
        }
    }

    /// `CheckForSerializableConflictIn`: a write meets the SIREAD locks of
    /// concurrent serializable readers.
    fn ssi_write(&mut self, tx: TxId, t: usize, row_id: Option<i64>) -> Result<(), SqlError> {
        if !self.is_serializable(tx) {
            return Ok(());
        }
        if self.tx(tx).doomed {
            return Err(ssi_failure());
        }
        let snap = self.tx(tx).snapshot.expect("snapshot taken");
        let has_index = !self.tables[t].def.uniques.is_empty();
        let mut targets = vec![ReadTarget::Table(t as u16)];
        match row_id {
            // HOT update: the product's updates never change indexed columns.
            Some(id) => targets.push(ReadTarget::Row(t as u16, id)),
            None if has_index => targets.push(ReadTarget::Index(t as u16)),
            None => {}
        }
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
        if !failure {
            if let Some(w_seq) = writer_seq {
                failure = self.tx(reader).conflicts_in.iter().any(|&t0| {
                    !self.tx(t0).doomed && self.committed_seq(t0).is_none_or(|s| s >= w_seq)
                });
            }
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

fn project(def: &TableDef, values: &[Value], cols: &[String]) -> Option<Vec<Value>> {
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
