//! Reading and writing rows: visibility, building a row, INSERT with its
//! unique waits, and UPDATE/DELETE/SELECT FOR UPDATE with their row locks.

use super::*;

impl Store {
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

    /// The values of the row version written last to `table`: after an
    /// INSERT, the row it inserted (versions are kept in write order).
    pub fn newest_version(&self, table: &str) -> Option<&[Value]> {
        let t = self.tables.iter().find(|t| t.def.name == table)?;
        t.versions.last().map(|v| &v.values[..])
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

    pub(super) fn table_index(&self, name: &str) -> Result<usize, SqlError> {
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

    pub(super) fn visible(&self, v: &Version, tx: TxId) -> bool {
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

    pub(super) fn build_row(
        &mut self,
        t: usize,
        values: &[(Name, Value)],
    ) -> Result<Vec<Value>, SqlError> {
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

    pub(super) fn insert(&mut self, tx: TxId, stmt: &Stmt, prepared: Option<Vec<Value>>) -> Step {
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
    pub(super) fn unique_conflict(
        &self,
        tx: TxId,
        t: usize,
        u: usize,
        row: &[Value],
    ) -> UniqueCheck {
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
    pub(super) fn scan_and_modify(
        &mut self,
        tx: TxId,
        stmt: &Stmt,
        resumed: Option<Progress>,
    ) -> Step {
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
        let increment: Vec<usize> = match stmt {
            Stmt::Update { increment, .. } => {
                let def = &self.tables[t].def;
                let resolved: Result<Vec<_>, SqlError> = increment
                    .iter()
                    .map(|c| {
                        def.column_index(c).ok_or_else(|| {
                            err(
                                SqlState::UndefinedObject,
                                format!(
                                    "column \"{c}\" of relation \"{}\" does not exist",
                                    def.name
                                ),
                            )
                        })
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
                    // `c = c + 1` reads the version the UPDATE acts on (the
                    // newest, after a wait); NULL + 1 is NULL.
                    for &i in &increment {
                        if let Some(n) = values[i].as_int() {
                            values[i] = Value::Int(n + 1);
                        }
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
    pub(super) fn lock_target(
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
}

pub(super) enum UniqueCheck {
    Free,
    Wait(TxId),
    Taken(usize),
}

pub(super) fn project(def: &TableDef, values: &[Value], cols: &[Name]) -> Option<Vec<Value>> {
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
