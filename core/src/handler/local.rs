//! `local-effect`'s options: a balance debit that depends on the value it
//! reads, and an event announcing the effect, in an outbox or after commit.

use super::{Job, Pc, StmtInputs};
use crate::scenario::{EventDelivery, Intent, Scenario, VERSION_RETRIES_MAX};
use crate::store::{Stmt, StmtResult, Value};

/// The one account the balance scenarios debit.
pub const ACCOUNT_ID: i64 = 1;

const BODY_NO_FUNDS: &str = r#"{"erro": "saldo insuficiente"}"#;
/// The answer of an optimistic debit that lost the race every time it
/// tried: the claim rolls back with it, so a retry of the key starts over.
const BODY_VERSION_CONFLICT: &str = r#"{"erro": "saldo alterado por outra transação"}"#;

/// Where the transaction goes after the key is claimed.
pub(super) fn after_claim(scenario: &Scenario) -> Pc {
    if scenario.balance.is_some() {
        Pc::ReadBalance
    } else {
        Pc::InsertPedido
    }
}

/// Where it goes after the order is recorded.
pub(super) fn after_insert(scenario: &Scenario) -> Pc {
    if scenario.event == EventDelivery::Outbox {
        Pc::InsertOutbox
    } else {
        Pc::LeaseFinish
    }
}

pub(super) fn statement(scenario: &Scenario, it: &Intent, inputs: &StmtInputs) -> Stmt {
    let balance = scenario.balance.as_ref();
    let versioned = balance.is_some_and(|b| b.version_column);
    let table = balance.map_or("conta", |b| b.table());
    match inputs.pc {
        Pc::ReadBalance => Stmt::Select {
            table: table.into(),
            columns: if versioned {
                vec!["saldo".into(), "versao".into()]
            } else {
                vec!["saldo".into()]
            },
            filter: vec![("id".into(), Value::Int(ACCOUNT_ID))],
            for_update: balance.is_some_and(|b| b.for_update),
        },
        Pc::WriteBalance => debit(table.into(), versioned, inputs, it),
        Pc::InsertOutbox => Stmt::Insert {
            table: "evento_outbox".into(),
            values: vec![
                ("pedido_id".into(), Value::Int(it.order_id)),
                ("valor_centavos".into(), Value::Int(it.amount_cents)),
                ("publicado".into(), Value::Int(0)),
            ],
            on_conflict_do_nothing: None,
            returning: vec![],
        },
        // Not a local-effect option's statement (no Debug text: page bytes).
        _ => unreachable!(),
    }
}

/// The debit of the account. The new balance is computed by the
/// application from the one it read, and written as a literal: the
/// read-compute-write a lock must cover. The optimistic write names the
/// version it read and bumps it, so it lands only if no other debit landed
/// in between, and returns the account, so that a write that lost the race
/// reads "0 rows" on the board where a plain UPDATE 0 would read "ok".
pub(super) fn debit(
    table: crate::store::Name,
    versioned: bool,
    inputs: &StmtInputs,
    it: &Intent,
) -> Stmt {
    let mut filter = vec![("id".into(), Value::Int(ACCOUNT_ID))];
    if versioned {
        filter.push(("versao".into(), Value::Int(inputs.version.unwrap_or(0))));
    }
    Stmt::Update {
        table,
        set: vec![(
            "saldo".into(),
            Value::Int(inputs.balance.unwrap_or(0) - it.amount_cents),
        )],
        increment: if versioned {
            vec!["versao".into()]
        } else {
            vec![]
        },
        filter,
        returning: if versioned { vec!["id".into()] } else { vec![] },
    }
}

pub(super) fn on_result(w: &super::Situation, job: &mut Job, result: &StmtResult) {
    job.pc = match job.pc {
        Pc::ReadBalance => {
            let row = super::first_row(result);
            let balance = row.and_then(|r| r.first()).and_then(Value::as_int);
            job.balance = balance;
            job.version = row.and_then(|r| r.get(1)).and_then(Value::as_int);
            match balance {
                Some(b) if b >= w.intent.amount_cents => Pc::WriteBalance,
                // Not enough (or no account): nothing is debited, the claim
                // rolls back with the rest.
                _ => {
                    job.response = Some((402, BODY_NO_FUNDS.into()));
                    Pc::RollbackHeld
                }
            }
        }
        // A versioned write that matched no row lost the race to another
        // debit: read the balance again and retry, a few times at most.
        Pc::WriteBalance
            if w.scenario
                .balance
                .as_ref()
                .is_some_and(|b| b.version_column)
                && result.as_ref().is_ok_and(|r| r.affected == 0) =>
        {
            if job.rereads < VERSION_RETRIES_MAX {
                job.rereads += 1;
                Pc::ReadBalance
            } else {
                job.response = Some((409, BODY_VERSION_CONFLICT.into()));
                Pc::RollbackHeld
            }
        }
        Pc::WriteBalance => Pc::InsertPedido,
        Pc::InsertOutbox => Pc::LeaseFinish,
        _ => unreachable!(),
    };
}
