//! Running a design (`crate::design`): its steps as a handler, the same
//! four moves the hand-coded ones make (the action of a step, its
//! statement, what a result or the acquirer's answer leads to).

use super::{
    Action, BODY_TRY_AGAIN, Job, Pc, Situation, StmtInputs, body, capture_answer, first_row,
};
use crate::design::{Answer, By, Program, Shape, Source, When};
use crate::scenario::{Intent, Scenario, Strategy};
use crate::store::{Stmt, StmtResult, Value};
use crate::text::Text;

/// Whether a job that has called the acquirer may call it again.
pub fn captures_once(scenario: &Scenario) -> bool {
    match scenario.program() {
        Some(p) => p.captures_once(),
        None => matches!(
            scenario.strategy,
            Strategy::Naive
                | Strategy::CheckThenAct
                | Strategy::IdempotencyKey
                | Strategy::IdempotencyKeyCatch
                | Strategy::IdempotencyKeyHeldTx
        ),
    }
}

/// The built-in design file that writes `scenario`'s strategy as its
/// options choose it; `None` for the strategies not written as designs yet.
pub fn builtin_design(scenario: &Scenario) -> Option<&'static str> {
    Some(match scenario.strategy {
        Strategy::Naive => "naive",
        Strategy::CheckThenAct if scenario.autocommit => "check-then-act-autocommit",
        Strategy::CheckThenAct => "check-then-act",
        Strategy::IdempotencyKey if super::uses_transaction(scenario) => "idempotency-key-in-tx",
        Strategy::IdempotencyKey => "idempotency-key",
        Strategy::IdempotencyKeyCatch => "idempotency-key-catch",
        Strategy::IdempotencyKeyHeldTx => "idempotency-key-held-tx",
        Strategy::IdempotencyKeyLease | Strategy::LocalEffect => return None,
    })
}

pub(super) fn action(p: &Program, w: &Situation, job: &Job, step: u16) -> Action {
    match p.site(step).shape {
        Shape::Capture => Action::Capture,
        Shape::Respond => {
            let (status, body) = job.response.clone().unwrap_or_else(|| {
                // `design::check` refuses a way here with no answer.
                (500, Text::default())
            });
            Action::Respond(status, job.headers.clone(), body)
        }
        _ => Action::Sql(StmtInputs {
            pc: Pc::Step(step),
            intent: w.intent_index,
            key: w.key.clone(),
            row_id: job.row_id,
            capture_result: job.capture_result,
            now_ms: 0,
            fingerprint: Text::default(),
            balance: None,
            version: None,
            lease_token: None,
        }),
    }
}

pub(super) fn statement(
    p: &Program,
    scenario: &Scenario,
    it: &Intent,
    inputs: &StmtInputs,
) -> Stmt {
    let Pc::Step(step) = inputs.pc else {
        unreachable!("a design's statement is at one of its steps")
    };
    let id = inputs.row_id.unwrap_or(0);
    let site = p.site(step);
    match &site.shape {
        Shape::Begin => Stmt::Begin {
            isolation: p.design().isolation.unwrap_or(scenario.isolation),
        },
        Shape::Commit => Stmt::Commit,
        Shape::Rollback => Stmt::Rollback,
        Shape::Select {
            table,
            by,
            for_update,
        } => Stmt::Select {
            table: table.clone(),
            columns: site.columns.iter().map(|c| c.clone().into()).collect(),
            filter: vec![(
                by.column().into(),
                match by {
                    By::Order => Value::Int(it.order_id),
                    By::Key => Value::text(&*inputs.key),
                    By::Id => Value::Int(id),
                },
            )],
            for_update: *for_update,
        },
        Shape::Insert {
            table,
            values,
            on_conflict,
        } => Stmt::Insert {
            table: table.clone(),
            values: values
                .iter()
                .map(|(c, s)| {
                    let v = match s {
                        Source::Key => Value::text(&*inputs.key),
                        Source::Order => Value::Int(it.order_id),
                        Source::Amount => Value::Int(it.amount_cents),
                        Source::Processing => Value::text("PROCESSANDO"),
                    };
                    (c.clone(), v)
                })
                .collect(),
            on_conflict_do_nothing: on_conflict.clone(),
            returning: site.columns.iter().map(|c| c.clone().into()).collect(),
        },
        Shape::Update { table, set } => {
            let (status, http, body) = capture_answer(inputs.capture_result, id);
            Stmt::Update {
                table: table.clone(),
                set: set
                    .iter()
                    .map(|c| {
                        let v = match &**c {
                            "status" => Value::text(status),
                            "resposta_http" => Value::Int(i64::from(http)),
                            _ => Value::text(&body),
                        };
                        (c.clone(), v)
                    })
                    .collect(),
                increment: vec![],
                filter: vec![("id".into(), Value::Int(id))],
                returning: vec![],
            }
        }
        Shape::Capture | Shape::Respond => unreachable!("a step that runs no statement"),
    }
}

/// The value of column `name` in the row a step read.
fn column<'r>(columns: &[String], row: &'r [Value], name: &str) -> Option<&'r Value> {
    row.get(columns.iter().position(|c| c == name)?)
}

/// Whether `when` holds of a statement's successful result.
fn holds(when: &When, columns: &[String], row: Option<&Vec<Value>>, it: &Intent) -> bool {
    match when {
        When::Always => true,
        When::Rows => row.is_some(),
        When::NoRows => row.is_none(),
        When::Status(s) => {
            row.and_then(|r| column(columns, r, "status")?.as_text()) == Some(s.as_str())
        }
        When::OtherRequest => row.is_some_and(|r| {
            column(columns, r, "pedido_id") != Some(&Value::Int(it.order_id))
                || column(columns, r, "valor_centavos") != Some(&Value::Int(it.amount_cents))
        }),
        _ => false,
    }
}

/// Prepares `answer`, read from `row` where it says so.
fn prepare(job: &mut Job, answer: &Answer, columns: &[String], row: Option<&Vec<Value>>) {
    let cell = |name: &str| row.and_then(|r| column(columns, r, name));
    let (status, text): (u16, Text) = match answer {
        Answer::Literal(l) => (l.status, l.body.as_str().into()),
        Answer::Capture => {
            let (_, http, b) = capture_answer(job.capture_result, job.row_id.unwrap_or(0));
            (http, b.into())
        }
        Answer::Stored => (
            cell("resposta_http")
                .and_then(Value::as_int)
                .map_or(500, |h| h as u16),
            cell("resposta_corpo")
                .and_then(Value::as_text)
                .unwrap_or_default()
                .into(),
        ),
        Answer::Charge(c) => (
            c.status,
            body(
                cell("status").and_then(Value::as_text).unwrap_or_default(),
                cell("id").and_then(Value::as_int).unwrap_or(0),
            )
            .into(),
        ),
    };
    job.response = Some((status, text));
    job.headers = None;
}

pub(super) fn on_sql_result(p: &Program, w: &Situation, job: &mut Job, result: &StmtResult) {
    let Pc::Step(step) = job.pc else {
        unreachable!("a design's result is at one of its steps")
    };
    let site = p.site(step);
    let row = match result {
        Err(e) => {
            let code = e.state.code();
            if let Some((_, answer, to)) = site
                .branches
                .iter()
                .find(|(w, _, _)| matches!(w, When::Error(c) if c == code))
            {
                if let Some(a) = answer {
                    prepare(job, a, &site.columns, None);
                }
                job.pc = Pc::Step(*to);
                return;
            }
            job.response = Some((503, BODY_TRY_AGAIN.into()));
            job.headers = None;
            job.pc = Pc::Step(if site.in_tx && !site.shape.ends_tx() {
                p.rollback()
            } else {
                p.respond()
            });
            return;
        }
        Ok(_) => first_row(result),
    };
    if matches!(site.shape, Shape::Insert { .. })
        && site.columns.first().is_some_and(|c| c == "id")
        && let Some(id) = row.and_then(|r| r.first()).and_then(Value::as_int)
    {
        job.row_id = Some(id);
    }
    let taken = site
        .branches
        .iter()
        .find(|(when, _, _)| holds(when, &site.columns, row, w.intent));
    follow(job, site.next, taken, &site.columns, row);
}

pub(super) fn on_capture(p: &Program, job: &mut Job) {
    let Pc::Awaiting(step) = job.pc else {
        unreachable!("a design's capture is awaited at one of its steps")
    };
    let site = p.site(step);
    let taken = site.branches.iter().find(|(when, _, _)| match when {
        When::Accepted => job.capture_result == Some(true),
        When::Declined => job.capture_result == Some(false),
        When::Silent => job.capture_result.is_none(),
        When::Always => true,
        _ => false,
    });
    follow(job, site.next, taken, &[], None);
}

/// Takes the branch that held, or goes on to `next`.
fn follow(
    job: &mut Job,
    next: u16,
    taken: Option<&(When, Option<Answer>, u16)>,
    columns: &[String],
    row: Option<&Vec<Value>>,
) {
    match taken {
        Some((_, answer, to)) => {
            if let Some(a) = answer {
                prepare(job, a, columns, row);
            }
            job.pc = Pc::Step(*to);
        }
        None => job.pc = Pc::Step(next),
    }
}
