//! The lease designs' key (`chave_idempotencia`, the second post's state
//! machine): the claim, the read and what a repeat decides from it, the
//! retake of a `failed_safe` key, and the fenced write of the answer.

use super::BODY_RECONCILING;
use super::{BODY_ACQUIRER_SILENT, BODY_ESCALATED, BODY_KEY_REUSED, BODY_PROCESSING};
use super::{Job, Pc, Situation, StmtInputs};
use super::{body, created_headers, first_row, respond, scope, text};
use crate::scenario::{Intent, Scenario, Strategy};
use crate::store::{Name, Stmt, StmtResult, Value};

/// The statement of a lease step.
pub(super) fn statement(scenario: &Scenario, it: &Intent, inputs: &StmtInputs) -> Stmt {
    let key = &*inputs.key;
    let id = inputs.row_id.unwrap_or(0);
    let now_ms = inputs.now_ms;
    match inputs.pc {
        Pc::LeaseClaim => Stmt::Insert {
            table: "chave_idempotencia".into(),
            values: vec![
                ("escopo".into(), text(&scope(scenario, it))),
                ("chave".into(), text(key)),
                ("impressao".into(), text(&inputs.fingerprint)),
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("estado".into(), text("processing")),
                // No lifetime yet: it starts when the key is resolved, so a
                // key whose effect stays unknown for long is still kept in
                // full for `key_ttl_ms` once it is known.
                (
                    "lease_ate_ms".into(),
                    Value::Int((now_ms + scenario.lease_ms) as i64),
                ),
            ],
            on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
            // The lease comes back as the job's fencing token.
            returning: vec!["id".into(), "lease_ate_ms".into()],
        },
        Pc::LeaseRead => Stmt::Select {
            table: "chave_idempotencia".into(),
            columns: [
                "id",
                "impressao",
                "estado",
                "expira_em_ms",
                "resposta_http",
                "resposta_corpo",
                "resposta_headers",
            ]
            .map(Name::Borrowed)
            .to_vec(),
            filter: vec![
                ("escopo".into(), text(&scope(scenario, it))),
                ("chave".into(), text(key)),
            ],
            for_update: false,
        },
        Pc::LeaseDelete => Stmt::Delete {
            table: "chave_idempotencia".into(),
            filter: vec![("id".into(), Value::Int(id))],
        },
        Pc::LeaseRetake => Stmt::Update {
            table: "chave_idempotencia".into(),
            set: vec![
                ("estado".into(), text("processing")),
                (
                    "lease_ate_ms".into(),
                    Value::Int((now_ms + scenario.lease_ms) as i64),
                ),
            ],
            increment: vec![],
            filter: vec![
                ("id".into(), Value::Int(id)),
                ("estado".into(), text("failed_safe")),
            ],
            returning: vec!["lease_ate_ms".into()],
        },
        Pc::LeaseFinish => {
            let (state, http, body) = lease_answer(scenario.strategy, inputs.capture_result, id);
            let mut set = vec![("estado".into(), text(state))];
            if state == "completed" {
                set.push((
                    "expira_em_ms".into(),
                    Value::Int((now_ms + scenario.key_ttl_ms) as i64),
                ));
                set.push(("resposta_http".into(), Value::Int(i64::from(http))));
                set.push(("resposta_corpo".into(), text(&body)));
                if let Some(h) = lease_headers(scenario.strategy, http, id) {
                    set.push(("resposta_headers".into(), text(&h)));
                }
            }
            // Fenced: only while the key is still processing under this
            // job's lease. Recovery or a retake changes one or the other,
            // and the late write then matches no row.
            let lease = inputs.lease_token.unwrap_or(0);
            Stmt::Update {
                table: "chave_idempotencia".into(),
                set,
                increment: vec![],
                filter: vec![
                    ("id".into(), Value::Int(id)),
                    ("estado".into(), text("processing")),
                    ("lease_ate_ms".into(), Value::Int(lease)),
                ],
                returning: vec!["id".into()],
            }
        }
        _ => unreachable!("not a lease step"),
    }
}

/// (key state, HTTP status, body) of the lease designs once the effect is
/// known: the local effect always completed; a refusal is an answer too,
/// stored and replayed; silence leaves the key `unknown` for recovery.
pub(super) fn lease_answer(
    strategy: Strategy,
    capture: Option<bool>,
    id: i64,
) -> (&'static str, u16, String) {
    match (strategy, capture) {
        (Strategy::LocalEffect, _) | (_, Some(true)) => ("completed", 201, body("CAPTURADA", id)),
        (_, Some(false)) => ("completed", 402, body("RECUSADA", id)),
        (_, None) => ("unknown", 504, BODY_ACQUIRER_SILENT.to_string()),
    }
}

/// The headers the lease design stores with an answer: a created charge's
/// `Location`. `local-effect` shares the table and answers as it did.
pub(super) fn lease_headers(strategy: Strategy, http: u16, id: i64) -> Option<String> {
    (strategy == Strategy::IdempotencyKeyLease && http == 201).then(|| created_headers(id))
}

/// Where a job claims a key again (vanished, or forgotten past its
/// lifetime): `local-effect` in a new transaction, so that its claim and
/// its effect still commit together; the lease design on its own.
pub(super) fn claim_again(strategy: Strategy) -> Pc {
    if strategy == Strategy::LocalEffect {
        Pc::Begin
    } else {
        Pc::LeaseClaim
    }
}

pub(super) fn decide(w: &Situation, job: &mut Job, result: &StmtResult) {
    let Some(row) = first_row(result) else {
        // The key vanished between the claim and the read: claim again, once.
        if job.reclaims < 2 {
            job.reclaims += 1;
            job.pc = claim_again(w.strategy);
        } else {
            respond(job, 409, BODY_PROCESSING);
        }
        return;
    };
    job.row_id = row[0].as_int();
    let fp = &**w.fingerprint;
    let expired = row[3].as_int().is_some_and(|t| w.now_ms as i64 >= t);
    match row[2].as_text().unwrap_or_default() {
        // After its lifetime a completed key is forgotten: this is a new
        // request. The state is read before the lifetime: a key still
        // processing or unknown may have charged, so it is kept whatever
        // its age, and only recovery resolves it (see `world::recover`).
        "completed" if expired && job.reclaims < 2 => job.pc = Pc::LeaseDelete,
        _ if row[1].as_text() != Some(fp) => respond(job, 422, BODY_KEY_REUSED),
        "completed" => {
            // The stored answer, headers included, byte for byte.
            let http = row[4].as_int().unwrap_or(500) as u16;
            respond(job, http, row[5].as_text().unwrap_or_default());
            job.headers = row[6].as_text().map(Into::into);
        }
        "failed_safe" => job.pc = Pc::LeaseRetake,
        // The effect may have happened: reconcile before anyone retries.
        "unknown" => respond(job, 409, BODY_RECONCILING),
        // Recovery could not tell from the acquirer's answers: a person
        // decides, and until then nobody charges.
        "escalated" => respond(job, 409, BODY_ESCALATED),
        // processing, lease live or not: never start parallel work.
        _ => respond(job, 409, BODY_PROCESSING),
    }
}
