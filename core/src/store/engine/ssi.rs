//! Serializable snapshot isolation: the reads and writes SSI tracks, and
//! the dangerous structure that makes a transaction fail with 40001.

use super::*;

impl Store {
    pub(super) fn is_serializable(&self, tx: TxId) -> bool {
        self.tx(tx).isolation == Isolation::Serializable
    }

    /// The columns of the index PostgreSQL scans for `filter`, or `None` for
    /// a sequential scan. With sequential scans disabled (as the conformance
    /// suite runs it), any filter on an indexed column is an Index Scan, and
    /// a UNIQUE constraint's index wins over the primary key's (EXPLAIN on
    /// PostgreSQL 15: `WHERE id = 1 AND idempotency_key = 'k'` scans
    /// `uq_cobranca_idempotency_key`, `WHERE chave = 'k'` scans the
    /// (escopo, chave) index).
    pub(super) fn scan_index(def: &TableDef, filter: &Filter) -> Option<Vec<String>> {
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
    pub(super) fn ssi_read(&mut self, tx: TxId, t: usize, filter: &Filter) -> Result<(), SqlError> {
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
    pub(super) fn ssi_write(&mut self, tx: TxId, t: usize, write: Write) -> Result<(), SqlError> {
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

    pub(super) fn committed_seq(&self, t: TxId) -> Option<u64> {
        match self.tx(t).status {
            TxStatus::Committed(seq) => Some(seq),
            _ => None,
        }
    }

    /// `FlagRWConflict` + `OnConflict_CheckForSerializationFailure`.
    pub(super) fn flag_rw_conflict(
        &mut self,
        reader: TxId,
        writer: TxId,
        me: TxId,
    ) -> Result<(), SqlError> {
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
    pub(super) fn ssi_pre_commit(&mut self, me: TxId) -> Result<(), SqlError> {
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
