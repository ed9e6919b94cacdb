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

use crate::connect::connect;
pub use crate::connect::{
    Deadlocks, SUPPORTED_VERSIONS, ServerInfo, config, describe, preflight, why,
};
use crate::{Outcome, PgError, Side, Spec, StepOutput};
use lousa_core::store::{ColumnType, Name, Stmt, TableDef, Value};
use postgres::{Client, Config, SimpleQueryMessage};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a statement may neither finish nor block before the runner gives
/// up (a runner bug or a wedged server, never a legitimate outcome), unless
/// the caller says otherwise ([`Settings::timeout`]).
pub const SETTLE_TIMEOUT: Duration = Duration::from_secs(30);

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

/// Settings a reader's server may have changed from PostgreSQL's defaults,
/// put back for the sessions: the model's autocommit statements run at
/// READ COMMITTED, and nothing in it times out on its own or refuses a
/// write. A server the conformance suite starts has these already.
pub const PINNED_DEFAULTS: &str = "SET default_transaction_isolation = 'read committed'; \
     SET default_transaction_read_only = off; SET statement_timeout = 0; SET lock_timeout = 0; \
     SET idle_in_transaction_session_timeout = 0";

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
    /// A statement's outcome, or why its connection failed.
    res: Receiver<Result<Outcome, String>>,
    pid: i32,
    busy: bool,
    _thread: JoinHandle<()>,
}

/// Where a [`PgSide`] works and how long it waits.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The schema to create the tables in; every connection's `search_path`
    /// is set to it.
    pub schema: String,
    /// Drop a schema of that name first. Only for names no one else uses
    /// (the conformance suite's): `lousa replay` never drops what it did
    /// not create, so its schema must be new.
    pub replace: bool,
    /// How long a statement may neither finish nor block.
    pub timeout: Duration,
    /// Set (by a Ctrl-C handler) to stop the run at the next poll.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// How the run orders deadlock victims as the model does.
    pub deadlocks: Deadlocks,
}

pub struct PgSide {
    config: Config,
    settings: Settings,
    control: Client,
    tables: Vec<TableDef>,
    setup: Vec<Stmt>,
    sessions: Vec<PgSession>,
    /// Blocked backends and who blocks them, as of the last settle.
    blocked_by: HashMap<i32, Vec<i32>>,
    /// Every (waiter, blocker) pair seen since the step began, including
    /// waits that began and ended within it (a deadlock's).
    seen_blocked: HashMap<i32, Vec<i32>>,
    /// Whether the schema is this side's to drop: set once CREATE SCHEMA
    /// succeeded, cleared once it is dropped.
    owns_schema: bool,
    /// When a settle last saw a backend start waiting, for
    /// [`Deadlocks::Spaced`].
    last_wait_began: Option<Instant>,
    /// (waiter, blocker) pairs of the last poll whose blocker is no session
    /// of the run.
    outside: Vec<(i32, i32)>,
}

/// Why [`PgSide::create`] failed, and whether it had created the schema
/// (then dropped, unless `drop_error` says why not).
#[derive(Debug)]
pub struct CreateFailed {
    pub error: PgError,
    pub schema_created: bool,
    pub drop_error: Option<PgError>,
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
/// int, bigint and identity columns become `Value::Int`, text and jsonb (read as
/// text) `Value::Text`, SQL NULL `Value::Null`. A statement's own error is
/// an outcome; a broken connection is a [`PgError`].
pub fn run_sql(client: &mut Client, tables: &[TableDef], stmt: &Stmt) -> Result<Outcome, PgError> {
    run_sql_after(client, tables, "", stmt)
        .map_err(|e| PgError::Server(format!("the control connection failed: {e}")))
}

/// [`run_sql`] with `prefix` (utility statements that return no rows) sent
/// first in the same simple query; `Err` only when the connection failed.
fn run_sql_after(
    client: &mut Client,
    tables: &[TableDef],
    prefix: &str,
    stmt: &Stmt,
) -> Result<Outcome, String> {
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
                                (
                                    Some(s),
                                    Some(
                                        ColumnType::Identity | ColumnType::BigInt | ColumnType::Int,
                                    ),
                                ) => Value::Int(
                                    s.parse().expect("a bigint column returns an integer"),
                                ),
                                (Some(s), _) => Value::Text(s.to_string()),
                            })
                            .collect();
                        rows.push(row);
                    }
                    SimpleQueryMessage::CommandComplete(n) => affected = n,
                    _ => {}
                }
            }
            Ok(Outcome::ok(stmt, rows, affected))
        }
        Err(e) => match e.as_db_error() {
            Some(db) => Ok(Outcome::Error {
                code: db.code().code().to_string(),
                message: db.message().to_string(),
            }),
            None => Err(format!("running `{}`: {e}", stmt.to_sql())),
        },
    }
}

impl PgSide {
    /// The conformance suite's side: the case's tables in a schema of its
    /// own (named after the process and the case), one connection per
    /// session.
    pub fn connect(url: &str, spec: &Spec) -> Result<PgSide, PgError> {
        // One schema per connection: cases run in parallel test threads, two
        // tests of one process may run the same case at once (the suite and
        // the scan plans; with one name, one's CREATE dropped the other's
        // schema mid-run, and a plain SELECT was seen blocked), and two test
        // runs may share a server. The number comes before the case's name,
        // which PostgreSQL may cut at 63 bytes.
        static CONNECTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let schema = format!(
            "lousa_conformance_{}_{}_{}",
            std::process::id(),
            CONNECTED.fetch_add(1, Ordering::Relaxed),
            spec.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        let settings = Settings {
            schema,
            replace: true,
            timeout: SETTLE_TIMEOUT,
            interrupt: None,
            // The suite's server is one it started, as a superuser.
            deadlocks: Deadlocks::SetPerStatement,
        };
        PgSide::create(&config(url)?, spec, settings).map_err(|f| f.error)
    }

    /// Creates the spec's tables in `settings.schema` and opens one
    /// connection per session. On an error nothing is left behind: a schema
    /// already created is dropped, and [`CreateFailed`] says so.
    pub fn create(
        config: &Config,
        spec: &Spec,
        settings: Settings,
    ) -> Result<PgSide, Box<CreateFailed>> {
        let not_created = |error| {
            Box::new(CreateFailed {
                error,
                schema_created: false,
                drop_error: None,
            })
        };
        let mut control = connect(config).map_err(not_created)?;
        // On its own: a read-only default would already hold for a
        // transaction that began with these SETs.
        control
            .batch_execute(PINNED_DEFAULTS)
            .map_err(|e| not_created(PgError::Server(format!("session settings: {}", why(&e)))))?;
        let schema = settings.schema.clone();
        let mut ddl = String::new();
        if settings.replace {
            ddl.push_str(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE; "));
        }
        ddl.push_str(&format!("CREATE SCHEMA {schema}"));
        if let Err(e) = control.batch_execute(&ddl) {
            let denied = e
                .as_db_error()
                .is_some_and(|db| db.code().code() == "42501");
            return Err(not_created(if denied {
                match control.query_one("SELECT current_user::text, current_database()::text", &[])
                {
                    Ok(row) => PgError::NoCreate {
                        role: row.get(0),
                        database: row.get(1),
                    },
                    Err(e) => PgError::Server(why(&e)),
                }
            } else {
                PgError::Server(format!("creating schema {schema}: {}", why(&e)))
            }));
        }
        let mut side = PgSide {
            config: config.clone(),
            settings,
            control,
            tables: spec.tables.clone(),
            setup: spec.setup.clone(),
            sessions: Vec::new(),
            blocked_by: HashMap::new(),
            seen_blocked: HashMap::new(),
            owns_schema: true,
            last_wait_began: None,
            outside: Vec::new(),
        };
        match side.fill(spec) {
            Ok(()) => Ok(side),
            Err(error) => Err(Box::new(CreateFailed {
                error,
                schema_created: true,
                drop_error: side.release().err(),
            })),
        }
    }

    /// The tables in the new schema, and the sessions' connections.
    fn fill(&mut self, spec: &Spec) -> Result<(), PgError> {
        let mut tables = format!("SET search_path TO {};", self.settings.schema);
        for t in &spec.tables {
            tables.push_str(&t.create_sql());
            tables.push(';');
        }
        self.control.batch_execute(&tables).map_err(|e| {
            PgError::Server(format!("creating the tables of {}: {}", spec.name, why(&e)))
        })?;
        for _ in &spec.sessions {
            let s = self.open_session()?;
            self.sessions.push(s);
        }
        Ok(())
    }

    /// The schema this side works in.
    pub fn schema(&self) -> &str {
        &self.settings.schema
    }

    /// Ends the sessions and drops the schema, saying whether the drop
    /// worked (dropping `self` does the same, silently).
    pub fn close(mut self) -> Result<(), PgError> {
        self.release()
    }

    /// Terminates the sessions' backends (a statement still blocked, after
    /// an error or a Ctrl-C, would hold its locks) and drops the schema.
    fn release(&mut self) -> Result<(), PgError> {
        for s in &mut self.sessions {
            s.cmd = None;
        }
        if !self.owns_schema {
            return Ok(());
        }
        let pids: Vec<i32> = self.sessions.iter().map(|s| s.pid).collect();
        let _ = self.control.query(
            "SELECT pg_terminate_backend(pid) FROM unnest($1::int4[]) AS pid",
            &[&pids],
        );
        let schema = &self.settings.schema;
        // A terminated backend lets go of its locks as it exits; DROP waits
        // for them on its own.
        let dropped = self
            .control
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
        self.owns_schema = false;
        dropped.map_err(|e| {
            PgError::Server(format!(
                "could not drop schema {schema}: {}; drop it with DROP SCHEMA {schema} CASCADE;",
                why(&e)
            ))
        })
    }

    /// The scan PostgreSQL plans for `stmt` in a session's settings:
    /// `Index Scan using <index>` or `Seq Scan`, from EXPLAIN.
    pub fn planned_scan(&self, stmt: &Stmt) -> Result<String, PgError> {
        let mut client = connect(&self.config)?;
        let failed = |e: postgres::Error| PgError::Server(format!("EXPLAIN: {}", why(&e)));
        client
            .batch_execute(&format!(
                "SET search_path TO {}; {SESSION_SETTINGS}",
                self.settings.schema
            ))
            .map_err(failed)?;
        let plan: Vec<String> = client
            .simple_query(&format!("EXPLAIN (COSTS OFF) {}", stmt.to_sql()))
            .map_err(failed)?
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                _ => None,
            })
            .collect();
        Ok(plan
            .iter()
            .find_map(|line| {
                let line = line.trim_start_matches([' ', '-', '>']);
                let scan = line.split(" on ").next().unwrap_or("");
                (scan.starts_with("Index Scan using") || scan.starts_with("Seq Scan"))
                    .then(|| scan.trim().to_string())
            })
            .unwrap_or_else(|| format!("unexpected plan: {}", plan.join(" / "))))
    }

    fn open_session(&self) -> Result<PgSession, PgError> {
        let mut client = connect(&self.config)?;
        let failed =
            |e: postgres::Error| PgError::Server(format!("opening a session: {}", why(&e)));
        client
            .batch_execute(&format!(
                "SET search_path TO {}; {SESSION_SETTINGS}; {PINNED_DEFAULTS}",
                self.settings.schema
            ))
            .map_err(failed)?;
        let pid: i32 = client
            .query_one("SELECT pg_backend_pid()", &[])
            .map_err(failed)?
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
                if matches!(out, Ok(Outcome::Error { .. })) {
                    let _ = client.simple_query("");
                }
                let lost = out.is_err();
                if res_tx.send(out).is_err() || lost {
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

    fn interrupted(&self) -> bool {
        self.settings
            .interrupt
            .as_ref()
            .is_some_and(|i| i.load(Ordering::SeqCst))
    }

    /// Which of our sessions' backends wait on a lock that another of our
    /// sessions holds or waits for, and for whom. A wait on a backend outside
    /// the run (autovacuum truncating a table it emptied, another client of
    /// the server) is nothing the model has: that statement is taken as
    /// still running, and `outside` keeps who held it up for a timeout's
    /// message.
    fn blockers(&mut self) -> Result<HashMap<i32, Vec<i32>>, PgError> {
        let pids: Vec<i32> = self.sessions.iter().map(|s| s.pid).collect();
        let rows = self
            .control
            .query(
                "SELECT pid, pg_blocking_pids(pid) FROM unnest($1::int4[]) AS pid",
                &[&pids],
            )
            .map_err(|e| PgError::Server(format!("pg_blocking_pids: {}", why(&e))))?;
        self.outside.clear();
        let mut ours = HashMap::new();
        for row in rows {
            let (waiter, by): (i32, Vec<i32>) = (row.get(0), row.get(1));
            let (inside, outside): (Vec<i32>, Vec<i32>) =
                by.into_iter().partition(|b| pids.contains(b));
            self.outside
                .extend(outside.into_iter().map(|b| (waiter, b)));
            if !inside.is_empty() {
                ours.insert(waiter, inside);
            }
        }
        Ok(ours)
    }

    /// What a timeout says about who blocks: the run's own waits by backend,
    /// then each backend outside the run that a session waits for, as
    /// `pg_stat_activity` shows it.
    fn describe_blockers(&mut self, ours: &HashMap<i32, Vec<i32>>) -> String {
        let mut text = format!("{ours:?}");
        if self.outside.is_empty() {
            return text;
        }
        let theirs: Vec<i32> = self.outside.iter().map(|&(_, b)| b).collect();
        let rows = self.control.query(
            "SELECT pid, backend_type, coalesce(state, ''), left(query, 120) \
             FROM pg_stat_activity WHERE pid = ANY($1)",
            &[&theirs],
        );
        for &(waiter, blocker) in &self.outside {
            let about = rows
                .as_ref()
                .ok()
                .and_then(|rows| rows.iter().find(|r| r.get::<_, i32>(0) == blocker))
                .map(|r| {
                    let (kind, state, query): (String, String, String) =
                        (r.get(1), r.get(2), r.get(3));
                    format!("{kind}, {state}: {query}")
                })
                .unwrap_or_else(|| "gone".to_string());
            text.push_str(&format!(
                "; {waiter} waits for {blocker}, outside the run ({about})"
            ));
        }
        text
    }

    /// Waits until each of `active` has either returned (its outcome is in
    /// the result) or is blocked on a lock. A cycle of blocked sessions is a
    /// deadlock PostgreSQL will break after `deadlock_timeout`, so the wait
    /// goes on through it.
    /// Leaves the sessions' final blockers in `self.blocked_by`.
    fn settle(&mut self, active: &[usize]) -> Result<Vec<(usize, Outcome)>, PgError> {
        let deadline = Instant::now() + self.settings.timeout;
        let mut pending: Vec<usize> = active.to_vec();
        let mut done = Vec::new();
        let mut waiting: Vec<i32> = self.blocked_by.keys().copied().collect();
        loop {
            let mut lost = None;
            pending.retain(|&s| match self.sessions[s].res.try_recv() {
                Ok(Ok(out)) => {
                    self.sessions[s].busy = false;
                    done.push((s, out));
                    false
                }
                Ok(Err(e)) => {
                    lost = Some(format!("the connection of session {s} failed: {e}"));
                    false
                }
                Err(TryRecvError::Empty) => true,
                Err(TryRecvError::Disconnected) => {
                    lost = Some(format!("the connection of session {s} is gone"));
                    false
                }
            });
            if let Some(e) = lost {
                return Err(PgError::Server(e));
            }
            let blockers = self.blockers()?;
            for w in blockers.keys() {
                if !waiting.contains(w) {
                    waiting.push(*w);
                    self.last_wait_began = Some(Instant::now());
                }
            }
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
                return Ok(done);
            }
            let all_blocked = pending
                .iter()
                .all(|&s| blockers.contains_key(&self.sessions[s].pid));
            let deadlock = has_cycle(&blockers);
            if all_blocked && !deadlock {
                self.blocked_by = blockers;
                return Ok(done);
            }
            if self.interrupted() {
                return Err(PgError::Interrupted);
            }
            if Instant::now() > deadline {
                return Err(PgError::Timeout {
                    what: format!("the statement of session {pending:?}"),
                    after: self.settings.timeout,
                    blockers: self.describe_blockers(&blockers),
                });
            }
            // While a deadlock waits for its detector, poll gently: each poll
            // takes the lock-table locks the detector needs.
            std::thread::sleep(Duration::from_micros(if deadlock { 5000 } else { 300 }));
        }
    }

    fn send(&mut self, session: usize, stmt: &Stmt) -> Result<(), PgError> {
        let waiting = self.sessions.iter().filter(|s| s.busy).count();
        // Only a data statement can wait. (A SET is transactional, so it is
        // sent with every statement rather than tracked; in an aborted block
        // it fails with 25P02 as the statement itself would.)
        let prefix = match (stmt, self.settings.deadlocks) {
            (Stmt::Begin { .. } | Stmt::Commit | Stmt::Rollback, _) => String::new(),
            (_, Deadlocks::SetPerStatement) => format!(
                "SET deadlock_timeout = '{}ms'; ",
                deadlock_timeout_ms(waiting)
            ),
            (_, Deadlocks::Spaced { gap }) => {
                if let Some(began) = self.last_wait_began.filter(|_| waiting > 0) {
                    std::thread::sleep((began + gap).saturating_duration_since(Instant::now()));
                }
                String::new()
            }
        };
        let s = &mut self.sessions[session];
        assert!(!s.busy, "session {session} is busy");
        s.busy = true;
        s.cmd
            .as_ref()
            .ok_or_else(|| PgError::Server(format!("session {session} was closed")))?
            .send(Command {
                prefix,
                stmt: stmt.clone(),
            })
            .map_err(|_| PgError::Server(format!("the connection of session {session} is gone")))
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
    fn reset(&mut self) -> Result<(), PgError> {
        assert!(
            self.sessions.iter().all(|s| !s.busy),
            "reset with a busy session"
        );
        self.blocked_by.clear();
        let names: Vec<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
        self.control
            .batch_execute(&format!("TRUNCATE {} RESTART IDENTITY", names.join(", ")))
            .map_err(|e| PgError::Server(format!("TRUNCATE: {}", why(&e))))?;
        for stmt in self.setup.clone() {
            if let Outcome::Error { code, message } =
                run_sql(&mut self.control, &self.tables, &stmt)?
            {
                return Err(PgError::Server(format!(
                    "setup `{}` failed on PostgreSQL: {code} {message}",
                    stmt.to_sql()
                )));
            }
        }
        Ok(())
    }

    fn step(&mut self, session: usize, stmt: &Stmt) -> Result<StepOutput, PgError> {
        // Checked here too: a run whose statements never wait would
        // otherwise never look at the flag.
        if self.interrupted() {
            return Err(PgError::Interrupted);
        }
        self.seen_blocked = std::mem::take(&mut self.blocked_by);
        let mut active: Vec<usize> = (0..self.sessions.len())
            .filter(|&s| self.sessions[s].busy)
            .collect();
        self.send(session, stmt)?;
        active.push(session);
        let mut out = StepOutput::default();
        for (s, o) in self.settle(&active)? {
            if s == session {
                out.own = Some(o);
            } else {
                out.finished.push((s, o));
            }
        }
        out.race = released_together(&self.seen_blocked, &self.blocked_by);
        Ok(out)
    }

    fn cleanup(&mut self) -> Result<(), PgError> {
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
                .map_err(|e| PgError::Server(format!("pg_cancel_backend: {}", why(&e))))?;
            // The cancelled statement returns once its backend takes the
            // signal; until then it still shows as blocked.
            match self.sessions[leaf].res.recv_timeout(self.settings.timeout) {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => return Err(PgError::Server(e)),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(PgError::Timeout {
                        what: format!("the cancelled statement of session {leaf}"),
                        after: self.settings.timeout,
                        blockers: format!("{:?}", self.blocked_by),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PgError::Server(format!(
                        "the connection of session {leaf} is gone"
                    )));
                }
            }
            self.sessions[leaf].busy = false;
            let rest: Vec<usize> = busy.into_iter().filter(|&s| s != leaf).collect();
            self.settle(&rest)?;
        }
        assert!(
            self.sessions.iter().all(|s| !s.busy),
            "sessions still blocked after their statements were cancelled"
        );
        // A closed session has nothing left to roll back.
        for s in 0..self.sessions.len() {
            if self.sessions[s].cmd.is_some() {
                self.send(s, &Stmt::Rollback)?;
                self.settle(&[s])?;
            }
        }
        Ok(())
    }

    fn check(&mut self, stmt: &Stmt) -> Result<Outcome, PgError> {
        run_sql(&mut self.control, &self.tables, stmt)
    }

    fn close(&mut self, session: usize) -> Result<StepOutput, PgError> {
        if self.interrupted() {
            return Err(PgError::Interrupted);
        }
        self.seen_blocked = std::mem::take(&mut self.blocked_by);
        let pid = self.sessions[session].pid;
        // Without its channel the session's thread ends once its statement,
        // if any, returns.
        self.sessions[session].cmd = None;
        self.control
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .map_err(|e| PgError::Server(format!("pg_terminate_backend: {}", why(&e))))?;
        if self.sessions[session].busy {
            // The waiting statement returns with the termination's error:
            // that is the close, not an outcome to compare.
            if let Err(RecvTimeoutError::Timeout) = self.sessions[session]
                .res
                .recv_timeout(self.settings.timeout)
            {
                return Err(PgError::Timeout {
                    what: format!("closing session {session}"),
                    after: self.settings.timeout,
                    blockers: format!("{:?}", self.blocked_by),
                });
            }
            self.sessions[session].busy = false;
        }
        self.wait_until_gone(pid)?;
        let active: Vec<usize> = (0..self.sessions.len())
            .filter(|&s| self.sessions[s].busy)
            .collect();
        let finished = self.settle(&active)?;
        Ok(StepOutput {
            own: Some(Outcome::Ok {
                rows: None,
                affected: None,
            }),
            finished,
            race: released_together(&self.seen_blocked, &self.blocked_by),
        })
    }
}

impl PgSide {
    /// Waits until backend `pid` has exited: a terminated backend lets go
    /// of its locks only then, and what it wakes must be seen to finish
    /// during the close.
    fn wait_until_gone(&mut self, pid: i32) -> Result<(), PgError> {
        let deadline = Instant::now() + self.settings.timeout;
        loop {
            let alive: i64 = self
                .control
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = $1",
                    &[&pid],
                )
                .map_err(|e| PgError::Server(format!("pg_stat_activity: {}", why(&e))))?
                .get(0);
            if alive == 0 {
                return Ok(());
            }
            if self.interrupted() {
                return Err(PgError::Interrupted);
            }
            if Instant::now() > deadline {
                return Err(PgError::Timeout {
                    what: format!("the backend {pid} of a closed session"),
                    after: self.settings.timeout,
                    blockers: format!("{:?}", self.blocked_by),
                });
            }
            std::thread::sleep(Duration::from_micros(300));
        }
    }
}

impl Drop for PgSide {
    fn drop(&mut self) {
        // Ends the session threads and drops the schema, after a panic or an
        // early return too; `close` reports what this ignores.
        let _ = self.release();
    }
}
