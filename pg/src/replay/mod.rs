//! `lousa replay`: a simulated run's store traffic on a real PostgreSQL,
//! one connection per store session, in the run's order, with the model's
//! outcome of every statement beside the server's.
//!
//! The steps, in the order the CLI takes them:
//! 1. [`Plan::new`]: the run's statements as a one-permutation spec
//!    ([`crate::spec_from_store_trace`]), with a terminal label (A, B, ...,
//!    as the psql export names them) for each connection;
//! 2. [`model_record`]: what the store model answers to that permutation;
//! 3. [`crate::server::preflight`], then [`replay`]: the same permutation on
//!    the server in a new schema, compared statement by statement with the
//!    model's record, stopping at the first disagreement; the schema is
//!    dropped whatever happens, and [`Finished::schema`] says whether it was.
//!
//! The model's record is an argument of [`replay`] rather than computed
//! inside it so that a test can hand it a wrong one and see the
//! disagreement reported: the CLI passes [`model_record`]'s, untouched.

pub mod text;

use crate::model::ModelSide;
use crate::record::render_row;
use crate::server::{PgSide, ServerInfo, Settings};
use crate::{Outcome, PgError, Side, Spec, StepOutput, spec_from_store_trace};
use lousa_core::Scenario;
use lousa_core::export::{background_owner, terminal_label};
use lousa_core::narrate::Lang;
use lousa_core::store::{Stmt, Value};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// One connection of the run, as a terminal.
#[derive(Clone, Debug, Serialize)]
pub struct Terminal {
    /// A, B, ... in order of first statement.
    pub label: String,
    /// `instance 1`, or who owns a connection no instance does: `the
    /// set-up`, `the relay`, `recovery` (`export::background_owner`).
    pub connection_of: String,
}

/// One statement of the run.
#[derive(Clone, Debug, Serialize)]
pub struct Statement {
    /// From 1, in issue order.
    pub n: usize,
    pub terminal: String,
    /// When the simulation issued it.
    pub at_ms: u64,
    pub sql: String,
    /// Not a statement: the connection closes here, because its instance
    /// crashed (see `StoreStatement::closed`).
    pub closed: bool,
    /// The connection's index in [`Plan::terminals`] (and the spec's
    /// sessions).
    #[serde(skip)]
    pub session: usize,
    #[serde(skip)]
    pub stmt: Stmt,
}

/// What a replay will run: the run's identity, its connections and
/// statements, and the spec the runner executes.
#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: String,
    pub strategy: String,
    /// The design that ran in place of the strategy's handler, if any.
    pub design: Option<String>,
    pub seed: u64,
    pub schedule: String,
    /// The fault of a branch (`lousa replay --fork`), as its text.
    pub fork: Option<String>,
    pub terminals: Vec<Terminal>,
    pub statements: Vec<Statement>,
    pub spec: Spec,
    /// The language of the report's words (`lousa replay --lang`); the
    /// SQL and the server's answers are the same in both.
    pub lang: Lang,
}

impl Plan {
    /// What handled the requests, as the exports name it: the design, or
    /// else the strategy.
    pub fn handler(&self) -> String {
        match &self.design {
            Some(d) => format!("{} {d}", self.lang.pick("o projeto", "design")),
            None => self.strategy.clone(),
        }
    }

    pub fn new(scenario: &Scenario, run: &lousa_core::Run, lang: Lang) -> Plan {
        // The spec holds the statements; a close is no statement, and the
        // replay runs it itself (`Side::close`).
        let trace: Vec<_> = run
            .store_log
            .iter()
            .filter(|s| !s.closed)
            .map(|s| (lousa_core::store::SessionId(s.session), s.stmt.clone()))
            .collect();
        let mut spec = spec_from_store_trace(&scenario.name, &trace);
        // The tables as the run's store had them: a design may give one
        // its own UNIQUE constraint (`lousa replay --design`).
        let own = lousa_core::handler::store_tables(scenario);
        for t in &mut spec.tables {
            if let Some(def) = own.iter().find(|d| d.name == t.name) {
                *t = def.clone();
            }
        }
        // The spec numbers its sessions in order of first statement, as the
        // psql export does its terminals.
        let mut firsts: Vec<u32> = Vec::new();
        let mut terminals = Vec::new();
        let mut statements = Vec::new();
        for (i, s) in run.store_log.iter().enumerate() {
            let session = match firsts.iter().position(|&f| f == s.session) {
                Some(ix) => ix,
                None => {
                    firsts.push(s.session);
                    terminals.push(Terminal {
                        label: terminal_label(firsts.len() - 1),
                        connection_of: s.instance.map_or_else(
                            || background_owner(run, s.session, lang),
                            |i| format!("{} {}", lang.pick("da instância", "instance"), i + 1),
                        ),
                    });
                    firsts.len() - 1
                }
            };
            statements.push(Statement {
                n: i + 1,
                terminal: terminals[session].label.clone(),
                at_ms: s.time_ms,
                sql: if s.closed {
                    // Only a crashed instance closes a connection.
                    let i = s.instance.map_or(0, |i| i + 1);
                    match lang {
                        Lang::Pt => format!("(a conexão fecha: a instância {i} caiu)"),
                        Lang::En => format!("(the connection closes: instance {i} crashed)"),
                    }
                } else {
                    s.stmt.to_sql()
                },
                closed: s.closed,
                session,
                stmt: s.stmt.clone(),
            });
        }
        Plan {
            scenario: scenario.name.clone(),
            strategy: run.strategy.name().to_string(),
            design: scenario.program().map(|p| p.design().name.clone()),
            seed: run.seed,
            schedule: run.schedule.clone(),
            fork: run.fork.map(|f| f.to_string()),
            terminals,
            statements,
            spec,
            lang,
        }
    }

    /// The tables the replay creates, in creation order.
    pub fn table_names(&self) -> Vec<String> {
        self.spec.tables.iter().map(|t| t.name.clone()).collect()
    }
}

/// One side's answers: each statement's [`StepOutput`], then the rows of
/// each table once every connection has rolled back what it left open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub steps: Vec<StepOutput>,
    pub tables: Vec<Outcome>,
}

/// The store model's answers to the plan: the same runner loop as the
/// conformance suite's, on [`ModelSide`].
pub fn model_record(plan: &Plan) -> Record {
    let mut model = ModelSide::new(&plan.spec);
    let never = "the store model never fails";
    model.reset().expect(never);
    let steps = plan
        .statements
        .iter()
        .map(|s| step(&mut model, s).expect(never))
        .collect();
    model.cleanup().expect(never);
    let tables = plan
        .spec
        .final_check
        .iter()
        .map(|stmt| model.check(stmt).expect(never))
        .collect();
    Record { steps, tables }
}

/// Runs one entry of the plan: a statement, or a connection's close.
fn step(side: &mut dyn Side, s: &Statement) -> Result<StepOutput, PgError> {
    match s.closed {
        true => side.close(s.session),
        false => side.step(s.session, &s.stmt),
    }
}

/// A statement's outcome as data, with the text the terminal shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// `INSERT 1 [(2)]`, `ERROR 23505: ...`, `ok`.
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<Vec<Value>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affected: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sqlstate: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Answer {
    fn of(outcome: &Outcome, stmt: &Stmt) -> Answer {
        let text = outcome.render(stmt);
        match outcome {
            Outcome::Ok { rows, affected } => Answer {
                text,
                rows: rows.clone(),
                affected: *affected,
                sqlstate: None,
                message: None,
            },
            Outcome::Error { code, message } => Answer {
                text,
                rows: None,
                affected: None,
                sqlstate: Some(code.clone()),
                message: Some(message.clone()),
            },
        }
    }
}

/// A statement that had waited and finished during a later one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Woken {
    pub terminal: String,
    /// The waiting statement's number.
    pub n: usize,
    /// The number of the statement it finished during.
    pub after: usize,
    pub answer: Answer,
}

/// What one side did at one statement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    /// `None`: the statement waits (blocked on a lock).
    pub answer: Option<Answer>,
    /// Earlier statements this one woke, which finished after it.
    pub woke: Vec<Woken>,
}

/// One statement, both sides.
#[derive(Clone, Debug, Serialize)]
pub struct StepLine {
    #[serde(flatten)]
    pub statement: Statement,
    pub model: Cell,
    pub postgres: Cell,
    pub agree: bool,
    /// PostgreSQL woke waiters at once here, so the order in which they ran
    /// was its scheduler's: from here on a difference is not the model's.
    pub race: bool,
}

/// One table at the end, both sides.
#[derive(Clone, Debug, Serialize)]
pub struct TableLine {
    pub table: String,
    pub columns: Vec<String>,
    pub model: Vec<String>,
    pub postgres: Vec<String>,
    pub agree: bool,
}

/// How a replay ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Every statement and every table's rows agree. (Named apart from the
    /// report's own `tables`, since the verdict is flattened into it.)
    Agree {
        #[serde(rename = "statements_compared")]
        statements: usize,
        #[serde(rename = "tables_compared")]
        tables: usize,
    },
    /// The first disagreement: at statement `n`, or in `table`'s rows.
    Disagree {
        #[serde(skip_serializing_if = "Option::is_none")]
        n: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        table: Option<String>,
        model: String,
        postgres: String,
    },
    /// Everything agreed up to statement `race_at`, where PostgreSQL woke
    /// waiters at once; a difference after it (at `n`, or in the tables)
    /// was the server's scheduling, and is not compared.
    AgreeUntilRace { race_at: usize },
}

impl Verdict {
    /// The CLI's exit code: 0 when the model and the server agree, 1 at a
    /// disagreement.
    pub fn exit_code(&self) -> u8 {
        match self {
            Verdict::Agree { .. } | Verdict::AgreeUntilRace { .. } => 0,
            Verdict::Disagree { .. } => 1,
        }
    }
}

/// Everything a replay showed, as the JSON output gives it.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub strategy: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    pub seed: u64,
    pub schedule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork: Option<String>,
    pub server: ServerInfo,
    pub schema: String,
    pub terminals: Vec<Terminal>,
    pub steps: Vec<StepLine>,
    /// Empty when the replay stopped at a statement.
    pub tables: Vec<TableLine>,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub elapsed_ms: u64,
    /// Whether the schema was dropped at the end.
    pub schema_dropped: bool,
}

/// What became of the replay's schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaFate {
    /// It was never created (the server refused, or the run stopped first).
    NotCreated,
    Dropped,
    /// Dropping it failed: the message says how to drop it by hand.
    NotDropped(PgError),
}

/// A replay's result and its schema's fate, which is known even when the
/// replay failed.
#[derive(Debug)]
pub struct Finished {
    pub result: Result<Report, PgError>,
    pub schema: SchemaFate,
}

/// How long to wait and what stops the replay.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long a statement may neither finish nor block on a lock.
    pub timeout: Duration,
    /// Set by a Ctrl-C handler: the replay stops at its next poll and drops
    /// the schema.
    pub interrupt: Option<Arc<AtomicBool>>,
}

/// A fresh schema name, `lousa_replay_` and 16 hexadecimal digits. The
/// digits come from the standard library's per-process random hash keys,
/// so two replays on one server (two attendees, two terminals) do not
/// collide; a collision would only make CREATE SCHEMA fail.
pub fn schema_name() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    format!("lousa_replay_{:016x}", h.finish())
}

/// Replays `plan` on the server in a new schema `schema`, comparing every
/// statement with `model` (see [`model_record`]) and calling `on_step` as
/// each is compared. Stops at the first disagreement; drops the schema in
/// every case.
pub fn replay(
    plan: &Plan,
    model: &Record,
    config: &postgres::Config,
    server: &ServerInfo,
    schema: &str,
    options: &Options,
    on_step: &mut dyn FnMut(&StepLine),
) -> Finished {
    let start = Instant::now();
    let settings = Settings {
        schema: schema.to_string(),
        replace: false,
        timeout: options.timeout,
        interrupt: options.interrupt.clone(),
        deadlocks: server.deadlocks(),
    };
    let mut pg = match PgSide::create(config, &plan.spec, settings) {
        Ok(pg) => pg,
        Err(failed) => {
            return Finished {
                result: Err(failed.error),
                schema: match (failed.schema_created, failed.drop_error) {
                    (false, _) => SchemaFate::NotCreated,
                    (true, None) => SchemaFate::Dropped,
                    (true, Some(e)) => SchemaFate::NotDropped(e),
                },
            };
        }
    };
    let compared = compare(plan, model, &mut pg, on_step);
    let schema_fate = match pg.close() {
        Ok(()) => SchemaFate::Dropped,
        Err(e) => SchemaFate::NotDropped(e),
    };
    let result = compared.map(|(steps, tables, verdict)| Report {
        scenario: plan.scenario.clone(),
        strategy: plan.strategy.clone(),
        design: plan.design.clone(),
        seed: plan.seed,
        schedule: plan.schedule.clone(),
        fork: plan.fork.clone(),
        server: server.clone(),
        schema: schema.to_string(),
        terminals: plan.terminals.clone(),
        steps,
        tables,
        verdict,
        elapsed_ms: start.elapsed().as_millis() as u64,
        schema_dropped: schema_fate == SchemaFate::Dropped,
    });
    Finished {
        result,
        schema: schema_fate,
    }
}

type Compared = (Vec<StepLine>, Vec<TableLine>, Verdict);

/// Runs the plan on `pg` statement by statement against the model's record.
fn compare(
    plan: &Plan,
    model: &Record,
    pg: &mut dyn Side,
    on_step: &mut dyn FnMut(&StepLine),
) -> Result<Compared, PgError> {
    assert_eq!(
        model.steps.len(),
        plan.statements.len(),
        "the model's record is of another plan"
    );
    pg.reset()?;
    // Each connection's waiting statement (its index in the plan), per side.
    let mut waiting_model = vec![None; plan.terminals.len()];
    let mut waiting_pg = vec![None; plan.terminals.len()];
    let mut lines = Vec::new();
    let mut race_at = None;
    for (i, statement) in plan.statements.iter().enumerate() {
        let theirs = step(pg, statement).map_err(|e| match e {
            // The runner knows sessions; the reader knows terminals.
            PgError::Timeout {
                after, blockers, ..
            } => PgError::Timeout {
                what: format!(
                    "statement #{} on terminal {} ({})",
                    statement.n, statement.terminal, statement.sql
                ),
                after,
                blockers,
            },
            other => other,
        })?;
        let model_cell = cell(plan, i, &model.steps[i], &mut waiting_model);
        let postgres = cell(plan, i, &theirs, &mut waiting_pg);
        if theirs.race && race_at.is_none() {
            race_at = Some(statement.n);
        }
        let line = StepLine {
            statement: statement.clone(),
            agree: model_cell == postgres,
            model: model_cell,
            postgres,
            race: theirs.race,
        };
        on_step(&line);
        let agree = line.agree;
        lines.push(line);
        if !agree {
            let verdict = match race_at {
                Some(race_at) => Verdict::AgreeUntilRace { race_at },
                None => Verdict::Disagree {
                    n: Some(statement.n),
                    table: None,
                    model: cell_text(&lines[i].model, plan.lang),
                    postgres: cell_text(&lines[i].postgres, plan.lang),
                },
            };
            return Ok((lines, Vec::new(), verdict));
        }
    }
    pg.cleanup()?;
    let mut tables = Vec::new();
    for (k, stmt) in plan.spec.final_check.iter().enumerate() {
        let theirs = pg.check(stmt)?;
        let columns = match stmt {
            Stmt::Select { columns, .. } => columns.iter().map(|c| c.to_string()).collect(),
            _ => Vec::new(),
        };
        tables.push(TableLine {
            table: stmt.table().unwrap_or_default().to_string(),
            columns,
            model: rows_text(&model.tables[k]),
            postgres: rows_text(&theirs),
            agree: model.tables[k] == theirs,
        });
    }
    let verdict = match (tables.iter().find(|t| !t.agree), race_at) {
        (None, _) => Verdict::Agree {
            statements: lines.len(),
            tables: tables.len(),
        },
        (Some(_), Some(race_at)) => Verdict::AgreeUntilRace { race_at },
        (Some(t), None) => Verdict::Disagree {
            n: None,
            table: Some(t.table.clone()),
            model: format!("[{}]", t.model.join(", ")),
            postgres: format!("[{}]", t.postgres.join(", ")),
        },
    };
    Ok((lines, tables, verdict))
}

/// One side's cell for statement `i`, tracking which statement each
/// connection is waiting on.
fn cell(plan: &Plan, i: usize, out: &StepOutput, waiting: &mut [Option<usize>]) -> Cell {
    let statement = &plan.statements[i];
    let answer = match &out.own {
        Some(_) if statement.closed => Some(Answer {
            text: plan.lang.pick("fechada", "closed").into(),
            rows: None,
            affected: None,
            sqlstate: None,
            message: None,
        }),
        Some(o) => Some(Answer::of(o, &statement.stmt)),
        None => {
            waiting[statement.session] = Some(i);
            None
        }
    };
    let mut woke: Vec<Woken> = out
        .finished
        .iter()
        .map(|(session, o)| {
            // A side that reports a wake-up of a connection that was not
            // waiting disagrees with itself; it shows as the statement 0.
            let w = waiting[*session].take();
            let stmt = w.map_or(&statement.stmt, |w| &plan.statements[w].stmt);
            Woken {
                terminal: plan.terminals[*session].label.clone(),
                n: w.map_or(0, |w| plan.statements[w].n),
                after: statement.n,
                answer: Answer::of(o, stmt),
            }
        })
        .collect();
    woke.sort_by_key(|w| w.n);
    Cell { answer, woke }
}

/// A cell in one line: `waits`, or the answer, then what it woke.
pub fn cell_text(cell: &Cell, lang: Lang) -> String {
    text::cell_lines(cell, lang).join("; ")
}

fn rows_text(outcome: &Outcome) -> Vec<String> {
    match outcome {
        Outcome::Ok {
            rows: Some(rows), ..
        } => rows.iter().map(|r| render_row(r)).collect(),
        other => vec![format!("{other:?}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::{Strategy, builtins};

    /// The replay's model side re-runs the run's statements on a fresh
    /// store; it must wait exactly where the simulation's own store did,
    /// or the replay would compare PostgreSQL with something other than
    /// the run.
    #[test]
    fn the_model_record_waits_where_the_run_waited() {
        let mut checked = 0;
        for name in builtins::NAMES {
            for strategy in Strategy::ALL {
                let mut s = builtins::builtin(name).unwrap();
                s.strategy = strategy;
                let r = lousa_core::run(&s).unwrap();
                let plan = Plan::new(&s, &r, Lang::En);
                let model = model_record(&plan);
                let waits: Vec<bool> = model.steps.iter().map(|o| o.own.is_none()).collect();
                let ran: Vec<bool> = r.store_log.iter().map(|s| s.waited).collect();
                assert_eq!(waits, ran, "{name} under {strategy}");
                checked += 1;
            }
        }
        assert!(checked > 100);
    }
}
