//! A queue's consumer: each delivery of a message is an attempt, its answer
//! an ack or a nack, and the message id its key in `mensagem_processada`.
//!
//! Its designs are three: none (charge on every delivery), check-then-act
//! on the dedupe table, and the message id claimed under the UNIQUE
//! constraint before the capture. The key designs' variants (held
//! transaction, catch, lease, local effect) are about how an HTTP answer is
//! stored and replayed; a consumer stores no answer, so under each of them
//! it claims the message id. Every statement runs on its own.

use super::{Job, Pc, StmtInputs, respond};
use crate::scenario::{Intent, Strategy};
use crate::store::{Stmt, Value};

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

pub(super) fn statement(it: &Intent, inputs: &StmtInputs) -> Stmt {
    let id = Value::text(&*inputs.key);
    match inputs.pc {
        Pc::CheckMessage => Stmt::Select {
            table: "mensagem_processada".into(),
            columns: vec!["id".into()],
            filter: vec![("message_id".into(), id)],
            for_update: false,
        },
        _ => Stmt::Insert {
            table: "mensagem_processada".into(),
            values: vec![
                ("message_id".into(), id),
                ("pedido_id".into(), Value::Int(it.order_id)),
            ],
            on_conflict_do_nothing: (inputs.pc == Pc::ClaimMessage)
                .then(|| vec!["message_id".into()]),
            returning: vec!["id".into()],
        },
    }
}

/// Moves a consumer on after a statement that succeeded (a failure, the
/// record the UNIQUE constraint refused among them, is a nack).
pub(super) fn on_result(job: &mut Job, returned_id: Option<i64>) {
    match (job.pc, returned_id) {
        (Pc::CheckMessage, None) => job.pc = Pc::Capture,
        (Pc::ClaimMessage, Some(id)) => {
            job.row_id = Some(id);
            job.pc = Pc::Capture;
        }
        // Processed before, or claimed by another delivery that is done
        // or still working: ack without charging. The owner acks its own
        // delivery when it is done.
        _ => respond(job, 200, BODY_ACK),
    }
}

/// A consumer acks a known answer, a decline included, and leaves a
/// silence to a redelivery. Under check-then-act it records the message
/// only now, after the money moved.
pub(super) fn on_capture(strategy: Strategy, job: &mut Job) {
    match (strategy, job.capture_result) {
        (_, None) => respond(job, 503, BODY_NACK),
        (Strategy::CheckThenAct, Some(_)) => job.pc = Pc::RecordMessage,
        (_, Some(_)) => respond(job, 200, BODY_ACK),
    }
}
