//! The model runner: a fresh [`Store`] per permutation.

use crate::{Outcome, PgError, Side, Spec, StepOutput};
use lousa_core::store::{Exec, SessionId, SqlError, Stmt, StmtResult, Store, TableDef};

pub struct ModelSide {
    tables: Vec<TableDef>,
    setup: Vec<Stmt>,
    sessions: usize,
    store: Store,
    ids: Vec<SessionId>,
    /// The statement each waiting session runs, to shape its completion.
    pending: Vec<Option<Stmt>>,
}

pub fn outcome(stmt: &Stmt, r: StmtResult) -> Outcome {
    match r {
        Ok(q) => Outcome::ok(stmt, q.rows, q.affected),
        Err(SqlError { state, message }) => Outcome::Error {
            code: state.code().to_string(),
            message,
        },
    }
}

impl ModelSide {
    pub fn new(spec: &Spec) -> ModelSide {
        ModelSide {
            tables: spec.tables.clone(),
            setup: spec.setup.clone(),
            sessions: spec.sessions.len(),
            store: Store::new(&spec.tables),
            ids: Vec::new(),
            pending: Vec::new(),
        }
    }

    fn run_alone(&mut self, stmt: &Stmt) -> Outcome {
        let s = self.store.open_session();
        match self.store.execute(s, stmt.clone()) {
            Exec::Done(r) => outcome(stmt, r),
            Exec::Waiting { on } => panic!(
                "`{}` waits on {on:?} with every session idle",
                stmt.to_sql()
            ),
        }
    }
}

impl ModelSide {
    /// The waiting statements that finished since the last call, by
    /// session.
    fn finished(&mut self) -> Vec<(usize, Outcome)> {
        self.store
            .take_completions()
            .into_iter()
            .map(|c| {
                let idx = self
                    .ids
                    .iter()
                    .position(|&i| i == c.session)
                    .expect("a spec session");
                let waited = self.pending[idx]
                    .take()
                    .expect("a completion of a waiting statement");
                (idx, outcome(&waited, c.result))
            })
            .collect()
    }
}

impl Side for ModelSide {
    fn reset(&mut self) -> Result<(), PgError> {
        self.store = Store::new(&self.tables);
        for stmt in self.setup.clone() {
            if let Outcome::Error { code, message } = self.run_alone(&stmt) {
                panic!(
                    "setup `{}` failed in the model: {code} {message}",
                    stmt.to_sql()
                );
            }
        }
        self.ids = (0..self.sessions)
            .map(|_| self.store.open_session())
            .collect();
        self.pending = vec![None; self.sessions];
        Ok(())
    }

    fn step(&mut self, session: usize, stmt: &Stmt) -> Result<StepOutput, PgError> {
        let own = match self.store.execute(self.ids[session], stmt.clone()) {
            Exec::Done(r) => Some(outcome(stmt, r)),
            Exec::Waiting { .. } => {
                self.pending[session] = Some(stmt.clone());
                None
            }
        };
        let finished = self.finished();
        Ok(StepOutput {
            own,
            finished,
            race: false,
        })
    }

    fn cleanup(&mut self) -> Result<(), PgError> {
        // As the server side does: waiting statements are cancelled first
        // (a crash, to the store: the same abort), those nobody waits for
        // first, then every session rolls back.
        loop {
            let waiting: Vec<SessionId> = self
                .ids
                .iter()
                .copied()
                .filter(|&s| self.store.waiting_on(s).is_some())
                .collect();
            let Some(&first) = waiting.first() else { break };
            let leaf = waiting
                .iter()
                .copied()
                .find(|&s| !waiting.iter().any(|&o| self.store.waiting_on(o) == Some(s)))
                .unwrap_or(first);
            self.store.terminate(leaf);
            self.store.take_completions();
        }
        for s in self.ids.clone() {
            let _ = self.store.execute(s, Stmt::Rollback);
        }
        self.store.take_completions();
        self.pending.iter_mut().for_each(|p| *p = None);
        Ok(())
    }

    fn check(&mut self, stmt: &Stmt) -> Result<Outcome, PgError> {
        Ok(self.run_alone(stmt))
    }

    fn close(&mut self, session: usize) -> Result<StepOutput, PgError> {
        // The store's terminate is what the world does at a crash.
        self.pending[session] = None;
        self.store.terminate(self.ids[session]);
        let finished = self.finished();
        Ok(StepOutput {
            own: Some(Outcome::Ok {
                rows: None,
                affected: None,
            }),
            finished,
            race: false,
        })
    }
}
