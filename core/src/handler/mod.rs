//! The handlers: every job runs a program (`crate::design`), a small state
//! machine whose every step is one atomic action (a SQL statement, a
//! capture call, a response). A scenario's strategy picks a built-in
//! program; a design of its own replaces it.

mod payload;
mod pc;
mod program;
mod tables;
mod words;

pub use payload::{intent_fingerprint, payload_fingerprint, request_body};
pub use pc::{
    Kind, Pc, commits_claim, costs_sql, deletes_key, fenced_by_lease, inserts_effect, kind,
    step_name, watched_table,
};
pub use program::{ACCOUNT_ID, builtin_design, program};
pub use tables::{account_table, store_tables, tables_of, tables_shown};

use crate::design::Serves;
use crate::scenario::{ClientKind, Intent, KeyScope, Scenario};
use crate::store::{Stmt, StmtResult, Value};
use crate::text::Text;
use crate::trace::SqlOutcome;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Job {
    pub attempt: u32,
    pub pc: Pc,
    /// The row this attempt inserted or owns.
    pub row_id: Option<i64>,
    pub call: Option<u32>,
    /// `Some(accepted)`, or `None` when the acquirer never answered.
    pub capture_result: Option<bool>,
    pub waiting_since_ms: Option<u64>,
    pub waiting_sql: Option<crate::text::Text>,
    /// What the statement it waits on will answer with.
    pub waiting_shape: ResultShape,
    pub response: Option<(u16, crate::text::Text)>,
    /// The prepared response's headers (jsonb text), when it has any.
    pub headers: Option<crate::text::Text>,
    /// The bounded jumps back (`again`) the job took, 2 bits for each step
    /// that has them.
    pub reclaims: u8,
    /// The account balance this attempt read (`local-effect` with a balance).
    pub balance: Option<i64>,
    /// The version of the account it read, with `balance.version_column`.
    pub version: Option<i64>,
    /// The lease this job holds on its key (lease designs): the
    /// `lease_ate_ms` its claim or retake wrote, read back with RETURNING.
    /// Its writes carry it in their WHERE, so a write after recovery or
    /// another worker took the key matches no row.
    pub lease_token: Option<i64>,
}

impl Job {
    /// The job of `attempt`, which is a queue's delivery when `delivery`.
    pub fn new(attempt: u32, delivery: bool) -> Job {
        let serves = if delivery {
            Serves::Queue
        } else {
            Serves::Http
        };
        Job {
            attempt,
            pc: Pc::Step(serves, 0),
            row_id: None,
            call: None,
            capture_result: None,
            waiting_since_ms: None,
            waiting_sql: None,
            waiting_shape: ResultShape::Done,
            response: None,
            headers: None,
            reclaims: 0,
            balance: None,
            version: None,
            lease_token: None,
        }
    }
}

/// Whether some client of `scenario` sends the jobs `program` serves.
pub fn serves_some_client(scenario: &Scenario, program: &crate::design::Program) -> bool {
    scenario.has_client(if program.serves_queue() {
        ClientKind::Queue
    } else {
        ClientKind::Http
    })
}

/// Refuses a design that cannot run as written on `scenario`: one that no
/// client would ever run, naming what it serves, or one that debits an
/// account the scenario does not open, which would answer every request
/// "saldo insuficiente".
pub fn check_runs_on(scenario: &Scenario, program: &crate::design::Program) -> Result<(), String> {
    let name = &program.design().name;
    if !serves_some_client(scenario, program) {
        let (serves, kind) = if program.serves_queue() {
            ("a queue's deliveries", "queue")
        } else {
            ("HTTP requests", "HTTP")
        };
        return Err(format!(
            "{name} serves {serves}, and scenario {} has no {kind} client, so it would never run",
            scenario.name
        ));
    }
    if program.account().is_some() && scenario.balance.is_none() {
        return Err(format!(
            "{name} debits an account, and scenario {} has none to debit (give it \
             balance.opening_cents)",
            scenario.name
        ));
    }
    Ok(())
}

/// Whether recovery sweeps the run's idempotency keys: where the HTTP
/// handler keeps its keys in `chave_idempotencia`, with their state and
/// lease, and calls the acquirer, whose effect a key left processing may
/// hide (a local effect commits with its key or not at all).
pub fn recovers_keys(scenario: &Scenario) -> bool {
    let p = program(scenario, Serves::Http);
    p.captures() && p.tables().iter().any(|t| t.name == "chave_idempotencia")
}

/// Whether recovery watches `mensagem_processada`: a queue's consumer
/// that claims the message id leaves it processing when it dies.
pub fn recovers_messages(s: &Scenario) -> bool {
    s.has_client(ClientKind::Queue)
        && program(s, Serves::Queue).claims_processing("mensagem_processada")
}

/// Whether an HTTP job that has called the acquirer may call it again:
/// the explorer's independence relation asks.
pub fn captures_once(scenario: &Scenario) -> bool {
    program(scenario, Serves::Http).captures_once()
}

/// Whether the design that serves `scenario`'s HTTP requests reads their
/// key at all.
pub fn reads_key(scenario: &Scenario) -> bool {
    program(scenario, Serves::Http).reads_key()
}

pub enum Action {
    Sql(StmtInputs),
    Capture,
    /// Publish the effect's event to the broker (`local-effect`, after commit).
    Publish,
    /// Status, headers (jsonb text, if any) and body.
    Respond(u16, Option<crate::text::Text>, crate::text::Text),
}

/// What a job's statement is built from: [`statement`] reads these, the
/// run's scenario and the intents drawn from it (the same for every world
/// of a run), nothing else. An explorer keys its store memo on these dozen
/// words instead of on the statement, whose table and column names alone
/// take some forty to hash, and builds the statement only when the memo has
/// not seen it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StmtInputs {
    pub pc: Pc,
    /// The attempt's intent, an index into the run's intents.
    pub intent: u32,
    pub key: crate::text::Text,
    pub row_id: Option<i64>,
    pub capture_result: Option<bool>,
    /// The time, for the statements that write a lease; 0 for the others,
    /// so that they key the same at every instant.
    pub now_ms: u64,
    /// The body's fingerprint, for the claim that writes it; empty for the
    /// others, for the same reason.
    pub fingerprint: crate::text::Text,
    /// The balance read, for the statement that writes the new one.
    pub balance: Option<i64>,
    /// The version read with it, for the optimistic write; `None` for the
    /// others.
    pub version: Option<i64>,
    /// The job's lease, for the writes fenced by it; `None` for the others.
    pub lease_token: Option<i64>,
}

pub fn body(status: &str, id: Option<i64>) -> String {
    // jsonb's canonical text: keys by length, then bytes; a space after ':'.
    // No id when the attempt never got its row back: the app has none.
    let id = id.map_or("null".to_string(), |id| id.to_string());
    format!(r#"{{"status": "{status}", "cobranca_id": {id}}}"#)
}

/// The answer to a statement's error no branch names: ask again.
const BODY_TRY_AGAIN: &str = r#"{"erro": "tente novamente"}"#;
/// A consumer's answer to such an error: hand the message back.
const BODY_NACK: &str = "nack";
const BODY_ACQUIRER_SILENT: &str = r#"{"erro": "adquirente sem resposta"}"#;

/// The headers of a created charge, as jsonb text: where it can be read.
pub fn created_headers(id: i64) -> String {
    format!(r#"{{"Location": "/cobrancas/{id}"}}"#)
}

/// The key's scope under the scenario's policy (`escopo`).
fn scope(scenario: &Scenario, it: &Intent) -> String {
    match scenario.key_scope {
        KeyScope::TenantOperation => format!("{}:cobranca", it.tenant),
        KeyScope::Global => "global".into(),
    }
}

/// What a step of a job reads of the world around it: the run's scenario,
/// the time, and its attempt's intent and key. A plain value,
/// so the handler depends on no world (the world builds it, see
/// `World::situation`).
#[derive(Clone, Copy, Debug)]
pub struct Situation<'a> {
    pub scenario: &'a Scenario,
    pub now_ms: u64,
    /// The attempt's intent, an index into the run's intents.
    pub intent_index: u32,
    pub intent: &'a Intent,
    pub key: &'a Text,
    /// The fingerprint of the attempt's body under the scenario's policy.
    pub fingerprint: &'a Text,
}

/// What the job does at its current step.
pub fn action(w: &Situation, job: &Job) -> Action {
    match job.pc {
        Pc::Step(serves, i) => program::action(program(w.scenario, serves), w, job, i),
        Pc::Awaiting(..) => unreachable!("a job awaiting the acquirer has no step scheduled"),
    }
}

/// The statement a job runs at `inputs.pc`.
pub fn statement(scenario: &Scenario, intents: &[(u32, Intent)], inputs: &StmtInputs) -> Stmt {
    let it = &intents[inputs.intent as usize].1;
    program::statement(program(scenario, inputs.pc.serves()), scenario, it, inputs)
}

/// (status column, HTTP status, body) for what the acquirer said.
fn capture_answer(capture_result: Option<bool>, id: Option<i64>) -> (&'static str, u16, String) {
    match capture_result {
        Some(true) => ("CAPTURADA", 201, body("CAPTURADA", id)),
        Some(false) => ("RECUSADA", 402, body("RECUSADA", id)),
        None => ("PROCESSANDO", 504, BODY_ACQUIRER_SILENT.into()),
    }
}

/// What a statement answers with, as psql shows it: rows, a count of the
/// rows it wrote (`UPDATE 0` is an answer: the write matched nothing), or
/// a bare "ok".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultShape {
    Done,
    Rows,
    Count,
}

pub fn shape_of(stmt: &Stmt) -> ResultShape {
    match stmt {
        Stmt::Select { .. } => ResultShape::Rows,
        Stmt::Insert { returning, .. } | Stmt::Update { returning, .. }
            if !returning.is_empty() =>
        {
            ResultShape::Rows
        }
        Stmt::Insert { .. } | Stmt::Update { .. } | Stmt::Delete { .. } => ResultShape::Count,
        Stmt::Begin { .. } | Stmt::Commit | Stmt::Rollback => ResultShape::Done,
    }
}

pub fn outcome_of(shape: ResultShape, result: &StmtResult) -> SqlOutcome {
    match (result, shape) {
        (Err(e), _) => SqlOutcome::Error {
            code: e.state.code().into(),
            message: e.message.clone(),
        },
        (Ok(r), ResultShape::Rows) => SqlOutcome::Rows {
            rows: r.rows.clone(),
        },
        (Ok(r), ResultShape::Count) => SqlOutcome::Affected { count: r.affected },
        (Ok(_), ResultShape::Done) => SqlOutcome::Ok,
    }
}

fn first_row(result: &StmtResult) -> Option<&Vec<Value>> {
    result.as_ref().ok().and_then(|r| r.rows.first())
}

/// Advances the job after its statement finished.
pub fn on_sql_result(w: &Situation, job: &mut Job, result: &StmtResult) {
    program::on_sql_result(program(w.scenario, job.pc.serves()), w, job, result)
}

/// Whether a fenced write (run at `pc`) found its lease taken: it matched
/// no row, so it stored nothing.
pub fn lease_taken(scenario: &Scenario, pc: Pc, result: &StmtResult) -> bool {
    fenced_by_lease(scenario, pc) && result.as_ref().is_ok_and(|r| r.rows.is_empty())
}

/// Moves the job on once it published its event, as its step says.
pub fn on_published(scenario: &Scenario, job: &mut Job) {
    program::on_published(program(scenario, job.pc.serves()), job)
}

/// Moves the job on once the acquirer answered or timed out.
pub fn on_capture(w: &Situation, job: &mut Job) {
    program::on_capture(program(w.scenario, job.pc.serves()), job)
}
