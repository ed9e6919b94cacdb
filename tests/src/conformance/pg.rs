//! The real runner: one connection, on its own thread, per spec session, and
//! a control connection that sets up tables and watches for blocked
//! backends.
//!
//! A step is sent to its session's thread; the runner then polls until the
//! statement has returned or its backend is waiting for a heavyweight lock
//! (`pg_blocking_pids` is not empty). The same happens for every session that
//! was already waiting, so a statement that another step unblocked is seen to
//! finish "after" that step, as PostgreSQL's isolation tester reports it.
//! `pg_blocking_pids` reads the lock table, where a lock is granted by the
//! backend that releases it before that backend's COMMIT returns: once COMMIT
//! has returned, a woken waiter no longer shows as blocked, so there is no
//! window where it is wrongly taken as still waiting.

use super::{Outcome, Side, Spec, StepOutput};
use lousa_core::store::{ColumnType, Name, Stmt, TableDef, Value};
use postgres::{Client, NoTls, SimpleQueryMessage};
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a statement may neither finish nor block before the runner gives
/// up (a runner bug or a wedged server, never a legitimate outcome).
const SETTLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Session settings that make PostgreSQL pick the plans the model assumes.
///
/// The model's SSI takes an index-range lock when a filter names every
/// column of a unique index (the primary key or a UNIQUE constraint) and a
/// relation lock otherwise, as a sequential scan does. On a table of a few
/// rows the planner would seq-scan everything, so:
/// - `enable_seqscan = off` makes equality on a unique key an Index Scan;
///   a filter on unindexed columns has no index path and still seq-scans
///   (the setting only adds cost). Checked with EXPLAIN on PostgreSQL 15.18:
///   `WHERE idempotency_key = 'k'` gives `Index Scan using
///   uq_cobranca_idempotency_key`, `WHERE pedido_id = 123` gives `Seq Scan`.
/// - `enable_indexonlyscan = off`: with seq scans penalised, a SELECT of
///   only `id` and no filter becomes a full Index Only Scan of the primary
///   key, which takes page locks instead of the relation lock.
/// - `enable_bitmapscan = off`: keeps unique probes plain Index Scans.
/// - `jit = off`: the seq-scan penalty pushes costs past `jit_above_cost`,
///   and compiling every statement would only make the suite slow.
pub const SESSION_SETTINGS: &str = "SET enable_seqscan = off; SET enable_indexonlyscan = off; SET enable_bitmapscan = off; SET jit = off";

/// `deadlock_timeout` for a statement issued while `waiting` other sessions
/// already wait.
///
/// PostgreSQL aborts the backend whose `deadlock_timeout` fires first once a
/// cycle exists; the model aborts the session that started waiting first.
/// Steps are a millisecond apart, so with one timeout for all the two
/// timers of a deadlock fire a millisecond apart and scheduling (or the
/// runner's own `pg_blocking_pids` polls, which take the same lock-table
/// locks as the detector) decides: the suite saw both outcomes. Each later
/// waiter gets a longer timeout, so the first waiter's timer fires first by
/// a wide margin, while the first timeout stays far above the gap between
/// two steps (the first waiter must not check before the cycle closes).
fn deadlock_timeout_ms(waiting: usize) -> usize {
    200 + 200 * waiting
}

/// A statement for a session's thread, with SQL to send before it in the
/// same query string.
struct Command {
    prefix: String,
    stmt: Stmt,
}

struct PgSession {
    cmd: Option<Sender<Command>>,
    res: Receiver<Outcome>,
    pid: i32,
    busy: bool,
    _thread: JoinHandle<()>,
}

pub struct PgSide {
    url: String,
    schema: String,
    control: Client,
    tables: Vec<TableDef>,
    setup: Vec<Stmt>,
    sessions: Vec<PgSession>,
    /// Blocked backends and who blocks them, as of the last settle.
    blocked_by: HashMap<i32, Vec<i32>>,
    /// Every (waiter, blocker) pair seen since the step began, including
    /// waits that began and ended within it (a deadlock's).
    seen_blocked: HashMap<i32, Vec<i32>>,
}

fn connect(url: &str) -> Result<Client, String> {
    Client::connect(url, NoTls).map_err(|e| format!("cannot connect to {url}: {e}"))
}

/// The value of column `col` of `table` as the model holds it.
fn column_type(tables: &[TableDef], table: &str, col: &str) -> ColumnType {
    tables
        .iter()
        .find(|t| t.name == table)
        .and_then(|t| t.columns.iter().find(|c| c.name == col))
        .map(|c| c.ty)
        .unwrap_or(ColumnType::Text)
}

/// The columns a statement returns, in order.
fn returned_columns(stmt: &Stmt) -> &[Name] {
    match stmt {
        Stmt::Select { columns, .. } => columns,
        Stmt::Insert { returning, .. } | Stmt::Update { returning, .. } => returning,
        _ => &[],
    }
}

/// Runs one statement and converts the result to the model's values:
/// bigint and identity columns become `Value::Int`, text and jsonb (read as
/// text) `Value::Text`, SQL NULL `Value::Null`.
pub fn run_sql(client: &mut Client, tables: &[TableDef], stmt: &Stmt) -> Outcome {
    run_sql_after(client, tables, "", stmt)
}

/// [`run_sql`] with `prefix` (utility statements that return no rows) sent
/// first in the same simple query.
fn run_sql_after(client: &mut Client, tables: &[TableDef], prefix: &str, stmt: &Stmt) -> Outcome {
    match client.simple_query(&format!("{prefix}{}", stmt.to_sql())) {
        Ok(messages) => {
            let table = stmt.table().unwrap_or("");
            let types: Vec<ColumnType> = returned_columns(stmt)
                .iter()
                .map(|c| column_type(tables, table, c))
                .collect();
            let mut rows = Vec::new();
            let mut affected = 0;
            for m in messages {
                match m {
                    SimpleQueryMessage::Row(r) => {
                        let row = (0..r.len())
                            .map(|i| match (r.get(i), types.get(i)) {
                                (None, _) => Value::Null,
                                (Some(s), Some(ColumnType::Identity | ColumnType::BigInt)) => {
                                    Value::Int(
                                        s.parse().expect("a bigint column returns an integer"),
                                    )
                                }
                                (Some(s), _) => Value::Text(s.to_string()),
                            })
                            .collect();
                        rows.push(row);
                    }
                    SimpleQueryMessage::CommandComplete(n) => affected = n,
                    _ => {}
                }
            }
            Outcome::ok(stmt, rows, affected)
        }
        Err(e) => match e.as_db_error() {
            Some(db) => Outcome::Error {
                code: db.code().code().to_string(),
                message: db.message().to_string(),
            },
            None => panic!("connection failed running `{}`: {e}", stmt.to_sql()),
        },
    }
}

impl PgSide {
    /// Creates the case's tables in a schema of its own and opens one
    /// connection per session.
    pub fn connect(url: &str, spec: &Spec) -> Result<PgSide, String> {
        let mut control = connect(url)?;
        // One schema per case and process: cases run in parallel test threads,
        // and two test runs may share a server.
        let schema = format!(
            "lousa_conformance_{}_{}",
            std::process::id(),
            spec.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        let mut ddl = format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; SET search_path TO {schema};"
        );
        for t in &spec.tables {
            ddl.push_str(&t.create_sql());
            ddl.push(';');
        }
        control
            .batch_execute(&ddl)
            .map_err(|e| format!("creating the tables of {}: {e}", spec.name))?;
        let mut side = PgSide {
            url: url.to_string(),
            schema,
            control,
            tables: spec.tables.clone(),
            setup: spec.setup.clone(),
            sessions: Vec::new(),
            blocked_by: HashMap::new(),
            seen_blocked: HashMap::new(),
        };
        for _ in &spec.sessions {
            let s = side.open_session()?;
            side.sessions.push(s);
        }
        Ok(side)
    }

    /// The scan PostgreSQL plans for `stmt` in a session's settings:
    /// `Index Scan using <index>` or `Seq Scan`, from EXPLAIN.
    pub fn planned_scan(&self, stmt: &Stmt) -> String {
        let mut client = connect(&self.url).expect("connect");
        client
            .batch_execute(&format!(
                "SET search_path TO {}; {SESSION_SETTINGS}",
                self.schema
            ))
            .expect("session settings");
        let plan: Vec<String> = client
            .simple_query(&format!("EXPLAIN (COSTS OFF) {}", stmt.to_sql()))
            .expect("explain")
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                _ => None,
            })
            .collect();
        plan.iter()
            .find_map(|line| {
                let line = line.trim_start_matches([' ', '-', '>']);
                let scan = line.split(" on ").next().unwrap_or("");
                (scan.starts_with("Index Scan using") || scan.starts_with("Seq Scan"))
                    .then(|| scan.trim().to_string())
            })
            .unwrap_or_else(|| format!("unexpected plan: {}", plan.join(" / ")))
    }

    fn open_session(&self) -> Result<PgSession, String> {
        let mut client = connect(&self.url)?;
        client
            .batch_execute(&format!(
                "SET search_path TO {}; {SESSION_SETTINGS}",
                self.schema
            ))
            .map_err(|e| format!("session settings: {e}"))?;
        let pid: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .map_err(|e| e.to_string())?
            .get(0);
        let (cmd_tx, cmd_rx) = channel::<Command>();
        let (res_tx, res_rx) = channel();
        let tables = self.tables.clone();
        let thread = std::thread::spawn(move || {
            for Command { prefix, stmt } in cmd_rx {
                let out = run_sql_after(&mut client, &tables, &prefix, &stmt);
                // A backend sends an error before it aborts the transaction
                // and releases its locks (ReadyForQuery comes after). An
                // empty query returns only once that is done, so statements
                // that the abort wakes are seen to finish after this step.
                if matches!(out, Outcome::Error { .. }) {
                    let _ = client.simple_query("");
                }
                if res_tx.send(out).is_err() {
                    break;
                }
            }
        });
        Ok(PgSession {
            cmd: Some(cmd_tx),
            res: res_rx,
            pid,
            busy: false,
            _thread: thread,
        })
    }

    /// Which of our sessions' backends are waiting on a lock, and for whom.
    fn blockers(&mut self) -> HashMap<i32, Vec<i32>> {
        let pids: Vec<i32> = self.sessions.iter().map(|s| s.pid).collect();
        self.control
            .query(
                "SELECT pid, pg_blocking_pids(pid) FROM unnest($1::int4[]) AS pid",
                &[&pids],
            )
            .expect("pg_blocking_pids")
            .into_iter()
            .map(|r| (r.get::<_, i32>(0), r.get::<_, Vec<i32>>(1)))
            .filter(|(_, b)| !b.is_empty())
            .collect()
    }

    /// Waits until each of `active` has either returned (its outcome is in
    /// the result) or is blocked on a lock. A cycle of blocked sessions is a
    /// deadlock PostgreSQL will break after `deadlock_timeout`, so the wait
    /// goes on through it.
    /// Leaves the sessions' final blockers in `self.blocked_by`.
    fn settle(&mut self, active: &[usize]) -> Vec<(usize, Outcome)> {
        let deadline = Instant::now() + SETTLE_TIMEOUT;
        let mut pending: Vec<usize> = active.to_vec();
        let mut done = Vec::new();
        loop {
            pending.retain(|&s| match self.sessions[s].res.try_recv() {
                Ok(out) => {
                    self.sessions[s].busy = false;
                    done.push((s, out));
                    false
                }
                Err(TryRecvError::Empty) => true,
                Err(TryRecvError::Disconnected) => panic!("session thread {s} died"),
            });
            let blockers = self.blockers();
            for (w, by) in &blockers {
                let seen = self.seen_blocked.entry(*w).or_default();
                for b in by {
                    if !seen.contains(b) {
                        seen.push(*b);
                    }
                }
            }
            if pending.is_empty() {
                self.blocked_by = blockers;
                return done;
            }
            let all_blocked = pending
                .iter()
                .all(|&s| blockers.contains_key(&self.sessions[s].pid));
            let deadlock = has_cycle(&blockers);
            if all_blocked && !deadlock {
                self.blocked_by = blockers;
                return done;
            }
            if Instant::now() > deadline {
                panic!(
                    "sessions {pending:?} neither finished nor blocked within {SETTLE_TIMEOUT:?} (blockers: {blockers:?})"
                );
            }
            // While a deadlock waits for its detector, poll gently: each poll
            // takes the lock-table locks the detector needs.
            std::thread::sleep(Duration::from_micros(if deadlock { 5000 } else { 300 }));
        }
    }

    fn send(&mut self, session: usize, stmt: &Stmt) {
        let waiting = self.sessions.iter().filter(|s| s.busy).count();
        // Only a data statement can wait. (A SET is transactional, so it is
        // sent with every statement rather than tracked; in an aborted block
        // it fails with 25P02 as the statement itself would.)
        let prefix = match stmt {
            Stmt::Begin { .. } | Stmt::Commit | Stmt::Rollback => String::new(),
            _ => format!(
                "SET deadlock_timeout = '{}ms'; ",
                deadlock_timeout_ms(waiting)
            ),
        };
        let s = &mut self.sessions[session];
        assert!(!s.busy, "session {session} is busy");
        s.busy = true;
        s.cmd
            .as_ref()
            .expect("open session")
            .send(Command {
                prefix,
                stmt: stmt.clone(),
            })
            .expect("session thread alive");
    }
}

/// Whether this step woke backends whose order is up to the scheduler:
/// * two or more that had waited (before or during it) for the same one.
///   They wake together: with three claims of one key and the first rolled
///   back, the suite saw either waiter win.
/// * one that another waited for. Waiters for one row queue on its tuple
///   lock, behind the first, but the first lets go of that lock when it
///   wakes and moves on to the row's new version (EvalPlanQual), and the
///   next can take the new version first: the suite saw it happen once in
///   many runs, on a loaded machine.
fn released_together(before: &HashMap<i32, Vec<i32>>, after: &HashMap<i32, Vec<i32>>) -> bool {
    let released = |w: i32, h: i32| {
        before.get(&w).is_some_and(|by| by.contains(&h))
            && !after.get(&w).is_some_and(|a| a.contains(&h))
    };
    let holders: std::collections::BTreeSet<i32> = before.values().flatten().copied().collect();
    let together = holders
        .iter()
        .any(|&h| before.keys().filter(|&&w| released(w, h)).count() >= 2);
    let queued_behind_woken = before.iter().any(|(&w, by)| {
        by.iter().any(|&h| released(w, h)) && before.values().any(|by2| by2.contains(&w))
    });
    together || queued_behind_woken
}

fn has_cycle(blockers: &HashMap<i32, Vec<i32>>) -> bool {
    blockers.keys().any(|&start| {
        let mut cur = start;
        for _ in 0..=blockers.len() {
            match blockers
                .get(&cur)
                .and_then(|b| b.iter().find(|p| blockers.contains_key(p)))
            {
                Some(&next) if next == start => return true,
                Some(&next) => cur = next,
                None => return false,
            }
        }
        false
    })
}

impl Side for PgSide {
    fn reset(&mut self) {
        assert!(
            self.sessions.iter().all(|s| !s.busy),
            "reset with a busy session"
        );
        self.blocked_by.clear();
        let names: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
        self.control
            .batch_execute(&format!("TRUNCATE {} RESTART IDENTITY", names.join(", ")))
            .expect("truncate");
        for stmt in self.setup.clone() {
            if let Outcome::Error { code, message } =
                run_sql(&mut self.control, &self.tables, &stmt)
            {
                panic!(
                    "setup `{}` failed on PostgreSQL: {code} {message}",
                    stmt.to_sql()
                );
            }
        }
    }

    fn step(&mut self, session: usize, stmt: &Stmt) -> StepOutput {
        self.seen_blocked = std::mem::take(&mut self.blocked_by);
        let mut active: Vec<usize> = (0..self.sessions.len())
            .filter(|&s| self.sessions[s].busy)
            .collect();
        self.send(session, stmt);
        active.push(session);
        let mut out = StepOutput::default();
        for (s, o) in self.settle(&active) {
            if s == session {
                out.own = Some(o);
            } else {
                out.finished.push((s, o));
            }
        }
        out.race = released_together(&self.seen_blocked, &self.blocked_by);
        out
    }

    fn cleanup(&mut self) {
        // Waiting statements are cancelled first, those nobody waits for
        // first: rolling back a transaction that two statements wait for
        // would wake both at once, and their race would decide what is left
        // committed for `final_check`.
        for _ in 0..=self.sessions.len() {
            let busy: Vec<usize> = (0..self.sessions.len())
                .filter(|&s| self.sessions[s].busy)
                .collect();
            let Some(&first) = busy.first() else { break };
            let pid = |s: usize| self.sessions[s].pid;
            let leaf = busy
                .iter()
                .copied()
                .find(|&s| {
                    !busy.iter().any(|&o| {
                        self.blocked_by
                            .get(&pid(o))
                            .is_some_and(|b| b.contains(&pid(s)))
                    })
                })
                .unwrap_or(first);
            self.control
                .execute("SELECT pg_cancel_backend($1)", &[&pid(leaf)])
                .expect("pg_cancel_backend");
            // The cancelled statement returns once its backend takes the
            // signal; until then it still shows as blocked.
            self.sessions[leaf]
                .res
                .recv_timeout(SETTLE_TIMEOUT)
                .expect("a cancelled statement returns");
            self.sessions[leaf].busy = false;
            let rest: Vec<usize> = busy.into_iter().filter(|&s| s != leaf).collect();
            self.settle(&rest);
        }
        assert!(
            self.sessions.iter().all(|s| !s.busy),
            "sessions still blocked after their statements were cancelled"
        );
        for s in 0..self.sessions.len() {
            self.send(s, &Stmt::Rollback);
            self.settle(&[s]);
        }
    }

    fn check(&mut self, stmt: &Stmt) -> Outcome {
        run_sql(&mut self.control, &self.tables, stmt)
    }
}

impl Drop for PgSide {
    fn drop(&mut self) {
        // Ends the session threads; a backend still blocked (after a panic)
        // is terminated so its thread returns too.
        for s in &mut self.sessions {
            s.cmd = None;
        }
        let pids: Vec<i32> = self.sessions.iter().map(|s| s.pid).collect();
        let _ = self.control.query(
            "SELECT pg_terminate_backend(pid) FROM unnest($1::int4[]) AS pid",
            &[&pids],
        );
        let _ = self
            .control
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
    }
}
