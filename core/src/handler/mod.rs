//! The strategies as handlers: small state machines whose every step is one
//! atomic action (a SQL statement, a capture call, a response).

mod lease;
mod local;
mod payload;
mod pc;
mod program;
mod queue;
mod tables;
mod words;

pub use payload::{intent_fingerprint, payload_fingerprint, request_body};
use pc::program;
pub use pc::{
    Kind, Pc, commits_claim, costs_sql, deletes_key, fenced_by_lease, kind, step_name,
    watched_table,
};
pub use program::{builtin_design, captures_once};
pub use tables::{account_table, store_tables, tables_of, tables_shown};

use crate::scenario::{ClientKind, EventDelivery, Intent, KeyScope, Scenario, Strategy};
use crate::store::{Isolation, Name, SqlState, Stmt, StmtResult, Value};
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
    pub waiting_returns_rows: bool,
    pub response: Option<(u16, crate::text::Text)>,
    /// The prepared response's headers (jsonb text), when it has any.
    pub headers: Option<crate::text::Text>,
    /// Times a lease handler re-claimed an expired or vanished key, or a
    /// design took a bounded jump back (`again`).
    pub reclaims: u8,
    /// The account balance this attempt read (`local-effect` with a balance).
    pub balance: Option<i64>,
    /// The version of the account it read, with `balance.version_column`.
    pub version: Option<i64>,
    /// Times its versioned write matched no row and it read again.
    pub rereads: u8,
    /// The lease this job holds on its key (lease designs): the
    /// `lease_ate_ms` its claim or retake wrote, read back with RETURNING.
    /// Its writes carry it in their WHERE, so a write after recovery or
    /// another worker took the key matches no row.
    pub lease_token: Option<i64>,
}

impl Job {
    /// The job of `attempt`, which is a queue's delivery when `delivery`.
    pub fn new(attempt: u32, scenario: &Scenario, delivery: bool) -> Job {
        let pc = match scenario.strategy {
            _ if runs_design(scenario, delivery) => Pc::Step(0),
            _ if delivery => queue::first_step(scenario.strategy),
            Strategy::Naive => Pc::InsertSimple,
            Strategy::IdempotencyKeyLease => Pc::LeaseClaim,
            Strategy::CheckThenAct if scenario.autocommit => Pc::SelectOrder,
            _ if uses_transaction(scenario) => Pc::Begin,
            _ => Pc::Claim,
        };
        Job {
            attempt,
            pc,
            row_id: None,
            call: None,
            capture_result: None,
            waiting_since_ms: None,
            waiting_sql: None,
            waiting_returns_rows: false,
            response: None,
            headers: None,
            reclaims: 0,
            balance: None,
            version: None,
            rereads: 0,
            lease_token: None,
        }
    }
}

/// Whether a job runs the scenario's design: a delivery when the design is
/// a queue's consumer, a request when it serves HTTP.
pub fn runs_design(scenario: &Scenario, delivery: bool) -> bool {
    scenario
        .program()
        .is_some_and(|p| p.serves_queue() == delivery)
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

/// Whether recovery sweeps the run's idempotency keys: the lease strategy's,
/// or a design's that keeps its keys in `chave_idempotencia`, with their
/// state and lease, and calls the acquirer, whose effect a key left
/// processing may hide (a local effect commits with its key or not at all).
pub fn recovers_keys(scenario: &Scenario) -> bool {
    match scenario.program() {
        Some(p) if !p.serves_queue() => {
            p.captures() && p.tables().iter().any(|t| t.name == "chave_idempotencia")
        }
        _ => scenario.strategy == Strategy::IdempotencyKeyLease,
    }
}

/// Whether recovery watches `mensagem_processada`: a queue's consumer
/// that claims the message id leaves it processing when it dies.
pub fn recovers_messages(s: &Scenario) -> bool {
    let claims = match s.program() {
        Some(p) if p.serves_queue() => p.claims_processing("mensagem_processada"),
        _ => s.strategy.uses_key(),
    };
    claims && s.has_client(ClientKind::Queue)
}

/// Whether the handler runs its statements in an explicit transaction. The
/// plain key design claims in one autocommit statement under READ COMMITTED
/// and wraps the claim in BEGIN ... COMMIT under stricter isolation, where
/// the level only means something inside a transaction. `check-then-act`
/// with `autocommit` runs every statement on its own.
pub fn uses_transaction(scenario: &Scenario) -> bool {
    match scenario.strategy {
        Strategy::Naive | Strategy::IdempotencyKeyLease => false,
        Strategy::IdempotencyKey => scenario.isolation != Isolation::ReadCommitted,
        Strategy::CheckThenAct => !scenario.autocommit,
        _ => true,
    }
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

pub fn body(status: &str, id: i64) -> String {
    // jsonb's canonical text: keys by length, then bytes; a space after ':'.
    format!(r#"{{"status": "{status}", "cobranca_id": {id}}}"#)
}

const BODY_PROCESSING: &str = r#"{"erro": "processando"}"#;
const BODY_KEY_REUSED: &str = r#"{"erro": "chave reutilizada com outro pedido ou valor"}"#;
const BODY_TRY_AGAIN: &str = r#"{"erro": "tente novamente"}"#;
const BODY_ACQUIRER_SILENT: &str = r#"{"erro": "adquirente sem resposta"}"#;
/// A key `unknown`: the charge may have happened, recovery is asking.
const BODY_RECONCILING: &str = r#"{"erro": "conciliando"}"#;
/// A key recovery could not resolve from the acquirer's answers: escalated
/// to a person, and nobody charges it meanwhile.
const BODY_ESCALATED: &str = r#"{"erro": "em conciliação manual"}"#;

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

/// What a step of a job reads of the world around it: the run's strategy
/// and isolation, the time, and its attempt's intent and key. A plain value,
/// so the handler depends on no world (the world builds it, see
/// `World::situation`).
#[derive(Clone, Copy, Debug)]
pub struct Situation<'a> {
    pub scenario: &'a Scenario,
    pub strategy: Strategy,
    pub isolation: Isolation,
    pub now_ms: u64,
    /// The attempt's intent, an index into the run's intents.
    pub intent_index: u32,
    pub intent: &'a Intent,
    pub key: &'a Text,
    /// The fingerprint of the attempt's body under the scenario's policy.
    pub fingerprint: &'a Text,
    /// The attempt is a queue's delivery: its answer is an ack or a nack,
    /// and every statement runs on its own.
    pub delivery: bool,
}

fn text(s: &str) -> Value {
    Value::text(s)
}

/// What the job does at its current step.
pub fn action(w: &Situation, job: &Job) -> Action {
    match job.pc {
        Pc::Step(i) => program::action(program(w.scenario), w, job, i),
        Pc::Awaiting(_) => unreachable!("a job awaiting the acquirer has no step scheduled"),
        Pc::Capture => Action::Capture,
        Pc::AwaitCapture => unreachable!("a job awaiting the acquirer has no step scheduled"),
        Pc::AfterCapture => unreachable!("resolved in on_capture"),
        Pc::Publish => Action::Publish,
        Pc::Respond => {
            let (status, body) = job.response.clone().expect("a response was prepared");
            Action::Respond(status, job.headers.clone(), body)
        }
        pc => Action::Sql(StmtInputs {
            pc,
            intent: w.intent_index,
            key: w.key.clone(),
            row_id: job.row_id,
            capture_result: job.capture_result,
            now_ms: if matches!(
                pc,
                Pc::LeaseClaim | Pc::LeaseRetake | Pc::LeaseFinish | Pc::ClaimMessage
            ) {
                w.now_ms
            } else {
                0
            },
            fingerprint: if pc == Pc::LeaseClaim {
                w.fingerprint.clone()
            } else {
                Text::default()
            },
            balance: if pc == Pc::WriteBalance {
                job.balance
            } else {
                None
            },
            version: if pc == Pc::WriteBalance {
                job.version
            } else {
                None
            },
            lease_token: if fenced_by_lease(w.scenario, pc) {
                job.lease_token
            } else {
                None
            },
        }),
    }
}

/// The statement a job runs at `inputs.pc`.
pub fn statement(scenario: &Scenario, intents: &[(u32, Intent)], inputs: &StmtInputs) -> Stmt {
    let it = &intents[inputs.intent as usize].1;
    if let Pc::Step(_) = inputs.pc {
        return program::statement(program(scenario), scenario, it, inputs);
    }
    let key = &*inputs.key;
    let id = inputs.row_id.unwrap_or(0);
    match inputs.pc {
        Pc::Begin => Stmt::Begin {
            isolation: scenario.isolation,
        },
        Pc::SelectOrder => Stmt::Select {
            table: "cobranca_simples".into(),
            columns: vec!["id".into(), "status".into()],
            filter: vec![("pedido_id".into(), Value::Int(it.order_id))],
            for_update: false,
        },
        Pc::InsertSimple => Stmt::Insert {
            table: "cobranca_simples".into(),
            values: vec![
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("valor_centavos".into(), Value::Int(it.amount_cents)),
                ("status".into(), text("PROCESSANDO")),
            ],
            on_conflict_do_nothing: None,
            returning: vec!["id".into()],
        },
        Pc::CommitThenCapture | Pc::CommitThenRespond | Pc::CommitThenRead | Pc::CommitHeld => {
            Stmt::Commit
        }
        Pc::RollbackThenRead | Pc::RollbackHeld | Pc::RollbackAfterError => Stmt::Rollback,
        Pc::Claim | Pc::ClaimPlain => Stmt::Insert {
            table: "cobranca".into(),
            values: vec![
                ("idempotency_key".into(), text(key)),
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("valor_centavos".into(), Value::Int(it.amount_cents)),
                ("status".into(), text("PROCESSANDO")),
            ],
            on_conflict_do_nothing: (inputs.pc == Pc::Claim)
                .then(|| vec!["idempotency_key".into()]),
            returning: vec!["id".into()],
        },
        Pc::ReadExisting => Stmt::Select {
            table: "cobranca".into(),
            columns: [
                "pedido_id",
                "valor_centavos",
                "status",
                "resposta_http",
                "resposta_corpo",
            ]
            .map(Name::Borrowed)
            .to_vec(),
            filter: vec![("idempotency_key".into(), text(key))],
            for_update: false,
        },
        Pc::UpdateSimple => {
            let (status, _, _) = capture_answer(inputs.capture_result, id);
            Stmt::Update {
                table: "cobranca_simples".into(),
                set: vec![("status".into(), text(status))],
                increment: vec![],
                filter: vec![("id".into(), Value::Int(id))],
                returning: vec![],
            }
        }
        Pc::StoreResponse => {
            let (status, http, body) = capture_answer(inputs.capture_result, id);
            Stmt::Update {
                table: "cobranca".into(),
                set: vec![
                    ("status".into(), text(status)),
                    ("resposta_http".into(), Value::Int(i64::from(http))),
                    ("resposta_corpo".into(), text(&body)),
                ],
                increment: vec![],
                filter: vec![("id".into(), Value::Int(id))],
                returning: vec![],
            }
        }
        Pc::LeaseClaim | Pc::LeaseRead | Pc::LeaseDelete | Pc::LeaseRetake | Pc::LeaseFinish => {
            lease::statement(scenario, it, inputs)
        }
        Pc::InsertPedido => Stmt::Insert {
            table: "pedido_pago".into(),
            values: vec![
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("valor_centavos".into(), Value::Int(it.amount_cents)),
            ],
            on_conflict_do_nothing: None,
            returning: vec![],
        },
        Pc::ReadBalance | Pc::WriteBalance | Pc::InsertOutbox => {
            local::statement(scenario, it, inputs)
        }
        Pc::CheckMessage
        | Pc::ClaimMessage
        | Pc::RecordMessage
        | Pc::ReadMessage
        | Pc::FinishMessage => queue::statement(scenario, it, inputs),
        Pc::Capture
        | Pc::AwaitCapture
        | Pc::AfterCapture
        | Pc::Publish
        | Pc::Respond
        | Pc::Step(_)
        | Pc::Awaiting(_) => {
            // No `{:?}` of the step: Pc's Debug names would ship in the page.
            unreachable!("a step that runs no statement")
        }
    }
}

/// (status column, HTTP status, body) for what the acquirer said.
fn capture_answer(capture_result: Option<bool>, id: i64) -> (&'static str, u16, String) {
    match capture_result {
        Some(true) => ("CAPTURADA", 201, body("CAPTURADA", id)),
        Some(false) => ("RECUSADA", 402, body("RECUSADA", id)),
        None => ("PROCESSANDO", 504, BODY_ACQUIRER_SILENT.into()),
    }
}

/// Whether a statement returns rows (so "0 rows" is its answer, not "ok").
pub fn returns_rows(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Select { .. } => true,
        Stmt::Insert { returning, .. } | Stmt::Update { returning, .. } => !returning.is_empty(),
        _ => false,
    }
}

pub fn outcome_of(returns_rows: bool, result: &StmtResult) -> SqlOutcome {
    match result {
        Err(e) => SqlOutcome::Error {
            code: e.state.code().into(),
            message: e.message.clone(),
        },
        Ok(r) if returns_rows => SqlOutcome::Rows {
            rows: r.rows.clone(),
        },
        Ok(r) if r.affected > 0 => SqlOutcome::Affected { count: r.affected },
        Ok(_) => SqlOutcome::Ok,
    }
}

fn respond(job: &mut Job, status: u16, body: impl Into<crate::text::Text>) {
    job.response = Some((status, body.into()));
    job.headers = None;
    job.pc = Pc::Respond;
}

fn first_row(result: &StmtResult) -> Option<&Vec<Value>> {
    result.as_ref().ok().and_then(|r| r.rows.first())
}

/// Advances the job after its statement finished.
pub fn on_sql_result(w: &Situation, job: &mut Job, result: &StmtResult) {
    if let Pc::Step(_) = job.pc {
        return program::on_sql_result(program(w.scenario), w, job, result);
    }
    let in_tx_strategy = !w.delivery && uses_transaction(w.scenario);
    if let Err(e) = result {
        let caught = job.pc == Pc::ClaimPlain && e.state == SqlState::UniqueViolation;
        if caught {
            job.pc = Pc::RollbackThenRead;
            return;
        }
        // Any other failure (40001 above all; for a consumer, the record
        // its UNIQUE constraint refused): roll back and ask for a retry.
        let body = if w.delivery {
            queue::BODY_NACK
        } else {
            BODY_TRY_AGAIN
        };
        job.response = Some((503, body.into()));
        job.pc = if in_tx_strategy && !is_tx_end(job.pc) {
            Pc::RollbackAfterError
        } else {
            Pc::Respond
        };
        return;
    }
    let returned_id = first_row(result)
        .and_then(|r| r.first())
        .and_then(Value::as_int);
    let strategy = w.strategy;
    job.pc = match job.pc {
        Pc::Begin => match strategy {
            Strategy::CheckThenAct => Pc::SelectOrder,
            Strategy::IdempotencyKeyCatch => Pc::ClaimPlain,
            Strategy::LocalEffect => Pc::LeaseClaim,
            _ => Pc::Claim,
        },
        Pc::SelectOrder => match first_row(result) {
            Some(row) => {
                let id = row[0].as_int().unwrap_or(0);
                // The row's status is the order's answer: only a charge
                // still PROCESSANDO is in progress; a decline is finished.
                let (status, body) = match row[1].as_text() {
                    Some("CAPTURADA") => (200, body("CAPTURADA", id)),
                    Some("RECUSADA") => (402, body("RECUSADA", id)),
                    _ => (409, BODY_PROCESSING.to_string()),
                };
                job.response = Some((status, body.into()));
                if in_tx_strategy {
                    Pc::CommitThenRespond
                } else {
                    Pc::Respond
                }
            }
            None => Pc::InsertSimple,
        },
        // check-then-act wraps the whole handler in one transaction, the
        // design that feels safe: the capture happens with it still open.
        Pc::InsertSimple => {
            job.row_id = returned_id;
            Pc::Capture
        }
        Pc::CommitThenCapture => Pc::Capture,
        Pc::CommitThenRespond => Pc::Respond,
        Pc::Claim | Pc::ClaimPlain => match returned_id {
            Some(id) => {
                job.row_id = Some(id);
                match strategy {
                    Strategy::IdempotencyKeyHeldTx => Pc::Capture,
                    _ if in_tx_strategy => Pc::CommitThenCapture,
                    _ => Pc::Capture,
                }
            }
            None if in_tx_strategy => Pc::CommitThenRead,
            None => Pc::ReadExisting,
        },
        Pc::CommitThenRead | Pc::RollbackThenRead => match strategy {
            Strategy::LocalEffect => Pc::LeaseRead,
            _ => Pc::ReadExisting,
        },
        Pc::ReadExisting => {
            let it = w.intent;
            match first_row(result) {
                None => {
                    respond(job, 409, BODY_PROCESSING);
                    return;
                }
                Some(row) => {
                    if row[0] != Value::Int(it.order_id) || row[1] != Value::Int(it.amount_cents) {
                        respond(job, 422, BODY_KEY_REUSED);
                    } else if row[2].as_text() == Some("PROCESSANDO") {
                        respond(job, 409, BODY_PROCESSING);
                    } else {
                        // The stored answer, byte for byte.
                        let http = row[3].as_int().unwrap_or(500) as u16;
                        respond(job, http, row[4].as_text().unwrap_or_default());
                    }
                    return;
                }
            }
        }
        Pc::UpdateSimple => {
            let (_, http, b) = capture_answer(job.capture_result, job.row_id.unwrap_or(0));
            job.response = Some((http, b.into()));
            if in_tx_strategy && strategy == Strategy::CheckThenAct {
                Pc::CommitHeld
            } else {
                Pc::Respond
            }
        }
        Pc::StoreResponse => {
            let (_, http, b) = capture_answer(job.capture_result, job.row_id.unwrap_or(0));
            job.response = Some((http, b.into()));
            if strategy == Strategy::IdempotencyKeyHeldTx {
                Pc::CommitHeld
            } else {
                Pc::Respond
            }
        }
        Pc::CommitHeld
            if strategy == Strategy::LocalEffect
                && w.scenario.event == EventDelivery::AfterCommit
                && job.response.as_ref().is_some_and(|(s, _)| *s == 201) =>
        {
            Pc::Publish
        }
        Pc::CommitHeld | Pc::RollbackHeld | Pc::RollbackAfterError => Pc::Respond,
        Pc::ReadBalance | Pc::WriteBalance | Pc::InsertOutbox => {
            return local::on_result(w, job, result);
        }
        Pc::LeaseClaim => match returned_id {
            Some(id) => {
                job.row_id = Some(id);
                job.lease_token = first_row(result).and_then(|r| r.get(1)?.as_int());
                if strategy == Strategy::LocalEffect {
                    local::after_claim(w.scenario)
                } else {
                    Pc::Capture
                }
            }
            None if strategy == Strategy::LocalEffect => Pc::RollbackThenRead,
            None => Pc::LeaseRead,
        },
        Pc::LeaseRead => return lease::decide(w, job, result),
        Pc::LeaseDelete => {
            job.reclaims += 1;
            lease::claim_again(strategy)
        }
        Pc::LeaseRetake => {
            if let Some(lease) = returned_id {
                job.lease_token = Some(lease);
                Pc::Capture
            } else {
                respond(job, 409, BODY_PROCESSING);
                return;
            }
        }
        Pc::InsertPedido => local::after_insert(w.scenario),
        Pc::CheckMessage
        | Pc::ClaimMessage
        | Pc::RecordMessage
        | Pc::ReadMessage
        | Pc::FinishMessage => {
            return queue::on_result(job, result);
        }
        Pc::LeaseFinish if returned_id.is_none() => {
            // The lease was taken (recovery resolved the key, or another
            // attempt retook it): nothing was stored, so this job has no
            // answer of its own to give. The client asks again and reads
            // the key's.
            job.response = Some((503, BODY_TRY_AGAIN.into()));
            if in_tx_strategy {
                Pc::RollbackAfterError
            } else {
                Pc::Respond
            }
        }
        Pc::LeaseFinish => {
            let id = job.row_id.unwrap_or(0);
            let (_, http, b) = lease::lease_answer(strategy, job.capture_result, id);
            job.response = Some((http, b.into()));
            job.headers = lease::lease_headers(strategy, http, id).map(Into::into);
            if strategy == Strategy::LocalEffect {
                Pc::CommitHeld
            } else {
                Pc::Respond
            }
        }
        _ => unreachable!("a step that runs no SQL"),
    };
}

/// Whether a fenced write (run at `pc`) found its lease taken: it matched
/// no row, so it stored nothing.
pub fn lease_taken(scenario: &Scenario, pc: Pc, result: &StmtResult) -> bool {
    fenced_by_lease(scenario, pc) && result.as_ref().is_ok_and(|r| r.rows.is_empty())
}

fn is_tx_end(pc: Pc) -> bool {
    matches!(
        pc,
        Pc::CommitThenCapture
            | Pc::CommitThenRespond
            | Pc::CommitThenRead
            | Pc::CommitHeld
            | Pc::RollbackThenRead
            | Pc::RollbackHeld
            | Pc::RollbackAfterError
    )
}

/// Moves the job on once it published its event: a design as its step
/// says, a hand-coded handler to its answer.
pub fn on_published(scenario: &Scenario, job: &mut Job) {
    match job.pc {
        Pc::Step(_) => program::on_published(program(scenario), job),
        _ => job.pc = Pc::Respond,
    }
}

/// Moves the job on once the acquirer answered or timed out.
pub fn on_capture(w: &Situation, job: &mut Job) {
    let strategy = w.strategy;
    if let Pc::Awaiting(_) = job.pc {
        return program::on_capture(program(w.scenario), job);
    }
    if w.delivery {
        return queue::on_capture(strategy, job);
    }
    job.pc = match (strategy, job.capture_result) {
        (Strategy::Naive, None) => {
            respond(job, 504, BODY_ACQUIRER_SILENT);
            return;
        }
        (Strategy::CheckThenAct, None) if uses_transaction(w.scenario) => {
            job.response = Some((504, BODY_ACQUIRER_SILENT.into()));
            Pc::RollbackHeld
        }
        (Strategy::CheckThenAct, None) => {
            respond(job, 504, BODY_ACQUIRER_SILENT);
            return;
        }
        (Strategy::Naive | Strategy::CheckThenAct, Some(_)) => Pc::UpdateSimple,
        // The held transaction gives up and rolls back: the claim vanishes.
        (Strategy::IdempotencyKeyHeldTx, None) => {
            job.response = Some((504, BODY_ACQUIRER_SILENT.into()));
            Pc::RollbackHeld
        }
        // Nobody knows whether money moved: the row stays PROCESSANDO.
        (Strategy::IdempotencyKey | Strategy::IdempotencyKeyCatch, None) => {
            respond(job, 504, BODY_ACQUIRER_SILENT);
            return;
        }
        (Strategy::IdempotencyKeyLease, _) => Pc::LeaseFinish,
        _ => Pc::StoreResponse,
    };
}
