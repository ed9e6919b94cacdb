//! A queue's consumer: each delivery of a message is an attempt, its answer
//! an ack or a nack, and the message id its key in `mensagem_processada`.
//!
//! Its designs are three: none (charge on every delivery), check-then-act
//! on the dedupe table, and the message id claimed under the UNIQUE
//! constraint before the capture. The key designs' variants (held
//! transaction, catch, lease, local effect) are about how an HTTP answer is
//! stored and replayed; a consumer stores no answer, so under each of them
//! it claims the message id. Every statement runs on its own.
//!
//! A claimed id is a state, as the second post's key is: `processing`
//! with a lease while its delivery charges, `completed` once the acquirer
//! answered. A redelivery that finds it completed acks without charging;
//! one that finds it processing nacks, and the message comes back when its
//! visibility timeout ends. An id left processing by a consumer that died
//! is resolved by recovery (`world::recovery`), as the lease design's keys
//! are: completed on evidence of the charge, freed when the acquirer saw
//! none.

use super::{Job, Pc, StmtInputs, first_row, respond};
use crate::scenario::{Intent, Scenario, Strategy};
use crate::store::{Stmt, StmtResult, Value};

/// A consumer's ack: the message is done with, charged now or before.
const BODY_ACK: &str = "ack";
/// A consumer's nack: the message goes back to the queue.
pub(super) const BODY_NACK: &str = "nack";

pub(super) fn first_step(strategy: Strategy) -> Pc {
    match strategy {
        Strategy::Naive => Pc::Capture,
        Strategy::CheckThenAct => Pc::CheckMessage,
        _ => Pc::ClaimMessage,
    }
}

pub(super) fn statement(scenario: &Scenario, it: &Intent, inputs: &StmtInputs) -> Stmt {
    let table = "mensagem_processada";
    let id = Value::text(&*inputs.key);
    match inputs.pc {
        Pc::CheckMessage => Stmt::Select {
            table: table.into(),
            columns: vec!["id".into()],
            filter: vec![("message_id".into(), id)],
            for_update: false,
        },
        Pc::ReadMessage => Stmt::Select {
            table: table.into(),
            columns: vec!["estado".into()],
            filter: vec![("message_id".into(), id)],
            for_update: false,
        },
        Pc::FinishMessage => Stmt::Update {
            table: table.into(),
            set: vec![("estado".into(), Value::text("completed"))],
            // Fenced as the lease design's answer is: a consumer whose
            // lease recovery took matches no row.
            increment: vec![],
            filter: vec![
                ("id".into(), Value::Int(inputs.row_id.unwrap_or(0))),
                ("estado".into(), Value::text("processing")),
                (
                    "lease_ate_ms".into(),
                    Value::Int(inputs.lease_token.unwrap_or(0)),
                ),
            ],
            returning: vec!["id".into()],
        },
        Pc::ClaimMessage => Stmt::Insert {
            table: table.into(),
            values: vec![
                ("message_id".into(), id),
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("estado".into(), Value::text("processing")),
                (
                    "lease_ate_ms".into(),
                    Value::Int((inputs.now_ms + scenario.lease_ms) as i64),
                ),
            ],
            on_conflict_do_nothing: Some(vec!["message_id".into()]),
            returning: vec!["id".into(), "lease_ate_ms".into()],
        },
        // check-then-act records the message after the money moved.
        _ => Stmt::Insert {
            table: table.into(),
            values: vec![
                ("message_id".into(), id),
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("estado".into(), Value::text("completed")),
            ],
            on_conflict_do_nothing: None,
            returning: vec!["id".into()],
        },
    }
}

/// Moves a consumer on after a statement that succeeded (a failure, the
/// record the UNIQUE constraint refused among them, is a nack).
pub(super) fn on_result(job: &mut Job, result: &StmtResult) {
    let row = first_row(result);
    let first = row.and_then(|r| r.first());
    match (job.pc, row) {
        (Pc::CheckMessage, None) => job.pc = Pc::Capture,
        (Pc::ClaimMessage, Some(r)) => {
            job.row_id = r[0].as_int();
            job.lease_token = r.get(1).and_then(Value::as_int);
            job.pc = Pc::Capture;
        }
        (Pc::ClaimMessage, None) => job.pc = Pc::ReadMessage,
        // Another delivery finished it: ack without charging.
        (Pc::ReadMessage, Some(_)) if first.and_then(Value::as_text) == Some("completed") => {
            respond(job, 200, BODY_ACK)
        }
        // Another delivery holds it, or it was just freed: never charge in
        // parallel; the message comes back later.
        (Pc::ReadMessage, _) => respond(job, 503, BODY_NACK),
        // Its lease was taken: recovery resolves the message, not this one.
        (Pc::FinishMessage, None) => respond(job, 503, BODY_NACK),
        // Processed before (check-then-act), recorded, or completed.
        _ => respond(job, 200, BODY_ACK),
    }
}

/// A consumer records a known answer, a decline included, and acks it; it
/// leaves a silence to recovery and a redelivery. Under check-then-act it
/// records the message only now, after the money moved.
pub(super) fn on_capture(strategy: Strategy, job: &mut Job) {
    match (strategy, job.capture_result) {
        (_, None) => respond(job, 503, BODY_NACK),
        (Strategy::Naive, Some(_)) => respond(job, 200, BODY_ACK),
        (Strategy::CheckThenAct, Some(_)) => job.pc = Pc::RecordMessage,
        (_, Some(_)) => job.pc = Pc::FinishMessage,
    }
}
