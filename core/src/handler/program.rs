//! Running a design (`crate::design`) as a handler: which program a job
//! runs, and its four moves (the action of a step, its statement, what a
//! result or the acquirer's answer leads to).

use super::{
    Action, BODY_NACK, BODY_TRY_AGAIN, Job, Pc, Situation, StmtInputs, body, capture_answer,
    created_headers, first_row, scope,
};
use crate::design::builtin::STRATEGIES;
use crate::design::{Answer, Jump, Program, Serves, Shape, Site, Source, When};
use crate::scenario::{ClientKind, EventDelivery, Intent, Scenario, Strategy};
use crate::store::{Isolation, Stmt, StmtResult, Value};
use crate::text::Text;
use std::sync::OnceLock;

/// The one account the balance scenarios debit.
pub const ACCOUNT_ID: i64 = 1;

/// Each built-in program, made once (see `design::builtin::strategy`) the
/// first time a job runs it: every job of every world asks for its program
/// at each step.
static PROGRAMS: [OnceLock<Program>; STRATEGIES.len()] =
    [const { OnceLock::new() }; STRATEGIES.len()];

/// Which built-in design runs `scenario`'s jobs of the kind `serves`.
fn builtin_index(scenario: &Scenario, serves: Serves) -> usize {
    let event = match scenario.event {
        EventDelivery::None => 0,
        EventDelivery::Outbox => 1,
        EventDelivery::AfterCommit => 2,
    };
    match (serves, scenario.strategy) {
        // The key designs' variants are about answers a consumer does not
        // store.
        (Serves::Queue, Strategy::Naive) => 8,
        (Serves::Queue, Strategy::CheckThenAct) => 9,
        (Serves::Queue, _) => 10,
        (Serves::Http, Strategy::Naive) => 0,
        (Serves::Http, Strategy::CheckThenAct) if scenario.autocommit => 2,
        (Serves::Http, Strategy::CheckThenAct) => 1,
        // The plain key claims in one autocommit statement under READ
        // COMMITTED, and in a transaction at a stricter level, where the
        // level only means something inside one.
        (Serves::Http, Strategy::IdempotencyKey)
            if scenario.isolation != Isolation::ReadCommitted =>
        {
            4
        }
        (Serves::Http, Strategy::IdempotencyKey) => 3,
        (Serves::Http, Strategy::IdempotencyKeyCatch) => 5,
        (Serves::Http, Strategy::IdempotencyKeyHeldTx) => 6,
        (Serves::Http, Strategy::IdempotencyKeyLease) => 7,
        (Serves::Http, Strategy::LocalEffect) => match &scenario.balance {
            None => 11 + event,
            // A scenario takes the lock or the version, not both.
            Some(b) if b.for_update => 17 + event,
            Some(b) if b.version_column => 20 + event,
            Some(_) => 14 + event,
        },
    }
}

/// The program `scenario`'s jobs of the kind `serves` run: its own design
/// where it has one for them, else the built-in its strategy and options
/// pick.
pub fn program(scenario: &Scenario, serves: Serves) -> &Program {
    match scenario.program() {
        Some(p) if p.design().serves == serves => p,
        _ => {
            let i = builtin_index(scenario, serves);
            PROGRAMS[i].get_or_init(|| {
                crate::design::builtin::strategy(STRATEGIES[i]).expect("a built-in design")
            })
        }
    }
}

/// The name of the built-in design that runs `scenario` (see
/// `design::builtin::named`): its queue's consumer where only a queue
/// delivers.
pub fn builtin_design(scenario: &Scenario) -> String {
    let serves = if scenario.has_client(ClientKind::Http) {
        Serves::Http
    } else {
        Serves::Queue
    };
    STRATEGIES[builtin_index(scenario, serves)].into()
}

pub(super) fn action(p: &Program, w: &Situation, job: &Job, step: u16) -> Action {
    let site = p.site(step);
    match site.shape {
        Shape::Capture => Action::Capture,
        Shape::Publish => Action::Publish,
        Shape::Respond => {
            let (status, body) = job.response.clone().unwrap_or_else(|| {
                // `design::check` refuses a way here with no answer.
                (500, Text::default())
            });
            Action::Respond(status, job.headers.clone(), body)
        }
        _ => {
            let debit = matches!(site.shape, Shape::Debit { .. });
            Action::Sql(StmtInputs {
                pc: Pc::Step(p.design().serves, step),
                intent: w.intent_index,
                key: w.key.clone(),
                row_id: job.row_id,
                capture_result: job.capture_result,
                // Only what the statement reads, so that the others key the
                // explorer's memo alike at every instant.
                now_ms: if site.needs_now { w.now_ms } else { 0 },
                fingerprint: if site.needs_fingerprint {
                    w.fingerprint.clone()
                } else {
                    Text::default()
                },
                balance: debit.then_some(job.balance).flatten(),
                version: debit.then_some(job.version).flatten(),
                lease_token: if site.shape.fenced() {
                    job.lease_token
                } else {
                    None
                },
            })
        }
    }
}

pub(super) fn statement(
    p: &Program,
    scenario: &Scenario,
    it: &Intent,
    inputs: &StmtInputs,
) -> Stmt {
    let Pc::Step(_, step) = inputs.pc else {
        unreachable!("a design's statement is at one of its steps")
    };
    // An attempt that never got its row back has no id to write: NULL,
    // which matches no row, as a real app's unset parameter would.
    let id = inputs.row_id;
    let site = p.site(step);
    let value = |s: &Source| match s {
        Source::Scope => Value::text(scope(scenario, it)),
        Source::Key => Value::text(&*inputs.key),
        Source::Fingerprint => Value::text(&*inputs.fingerprint),
        Source::Order => Value::Int(it.order_id),
        Source::Amount => Value::Int(it.amount_cents),
        Source::Processing => Value::text("PROCESSANDO"),
        Source::StateProcessing => Value::text("processing"),
        Source::StateCompleted => Value::text("completed"),
        Source::LeaseFromNow => Value::Int((inputs.now_ms + scenario.lease_ms) as i64),
        Source::Unpublished => Value::Int(0),
        Source::Id => id.map_or(Value::Null, Value::Int),
        Source::Account => Value::Int(ACCOUNT_ID),
    };
    match &site.shape {
        Shape::Begin => Stmt::Begin {
            isolation: p.design().isolation.unwrap_or(scenario.isolation),
        },
        Shape::Commit => Stmt::Commit,
        Shape::Rollback => Stmt::Rollback,
        Shape::Select {
            table,
            filter,
            for_update,
        } => Stmt::Select {
            table: table.clone(),
            columns: site.columns.iter().map(|c| c.clone().into()).collect(),
            filter: filter.iter().map(|(c, s)| (c.clone(), value(s))).collect(),
            for_update: *for_update,
        },
        Shape::Insert {
            table,
            values,
            on_conflict,
        } => Stmt::Insert {
            table: table.clone(),
            values: values.iter().map(|(c, s)| (c.clone(), value(s))).collect(),
            on_conflict_do_nothing: on_conflict.clone(),
            returning: site.columns.iter().map(|c| c.clone().into()).collect(),
        },
        Shape::Update {
            table,
            set,
            fenced,
            local,
        } => {
            // A local effect is done: its answer is a created charge's.
            let result = if *local {
                Some(true)
            } else {
                inputs.capture_result
            };
            let (status, http, body) = capture_answer(result, id);
            // After a silence a key's state is all that is known: no answer
            // to keep, and no lifetime to start.
            let answered = result.is_some();
            let state = if answered { "completed" } else { "unknown" };
            let writes_answer = answered || !set.iter().any(|c| c == "estado");
            let set = set
                .iter()
                .filter_map(|c| {
                    let v = match &**c {
                        "status" => Value::text(status),
                        "estado" => Value::text(state),
                        _ if !writes_answer => return None,
                        "expira_em_ms" => Value::Int((inputs.now_ms + scenario.key_ttl_ms) as i64),
                        "resposta_http" => Value::Int(i64::from(http)),
                        "resposta_headers" if http == 201 => {
                            id.map_or(Value::Null, |id| Value::text(created_headers(id)))
                        }
                        "resposta_headers" => return None,
                        _ => Value::text(&body),
                    };
                    Some((c.clone(), v))
                })
                .collect();
            let mut filter = vec![("id".into(), value(&Source::Id))];
            if *fenced {
                filter.push(("estado".into(), Value::text("processing")));
                filter.push((
                    "lease_ate_ms".into(),
                    inputs.lease_token.map_or(Value::Null, Value::Int),
                ));
            }
            Stmt::Update {
                table: table.clone(),
                set,
                increment: vec![],
                filter,
                returning: site.columns.iter().map(|c| c.clone().into()).collect(),
            }
        }
        Shape::Debit { table, versioned } => debit(table.clone(), *versioned, inputs, it),
        Shape::Delete { table } => Stmt::Delete {
            table: table.clone(),
            filter: vec![("id".into(), value(&Source::Id))],
        },
        Shape::Retake { table, from } => Stmt::Update {
            table: table.clone(),
            set: vec![
                ("estado".into(), Value::text("processing")),
                ("lease_ate_ms".into(), value(&Source::LeaseFromNow)),
            ],
            increment: vec![],
            filter: vec![
                ("id".into(), value(&Source::Id)),
                ("estado".into(), Value::text(from)),
            ],
            returning: site.columns.iter().map(|c| c.clone().into()).collect(),
        },
        Shape::Capture | Shape::Publish | Shape::Respond => {
            unreachable!("a step that runs no statement")
        }
    }
}

/// The value of column `name` in the row a step read.
fn column<'r>(columns: &[String], row: &'r [Value], name: &str) -> Option<&'r Value> {
    row.get(columns.iter().position(|c| c == name)?)
}

/// Whether `when` holds of a statement's successful result: `some` says
/// whether it returned a row, or, returning none, touched one.
fn holds(
    when: &When,
    columns: &[String],
    row: Option<&Vec<Value>>,
    some: bool,
    w: &Situation,
) -> bool {
    let cell = |name: &str| row.and_then(|r| column(columns, r, name));
    match when {
        When::Always => true,
        When::Rows => some,
        When::NoRows => !some,
        When::InsufficientFunds => cell("saldo")
            .and_then(Value::as_int)
            .is_none_or(|b| b < w.intent.amount_cents),
        When::Status(s) => {
            cell("status")
                .or_else(|| cell("estado"))
                .and_then(Value::as_text)
                == Some(s.as_str())
        }
        When::OtherRequest if columns.iter().any(|c| c == "impressao") => {
            row.is_some() && cell("impressao").and_then(Value::as_text) != Some(&**w.fingerprint)
        }
        When::OtherRequest => {
            row.is_some()
                && (cell("pedido_id") != Some(&Value::Int(w.intent.order_id))
                    || cell("valor_centavos") != Some(&Value::Int(w.intent.amount_cents)))
        }
        When::Expired => cell("expira_em_ms")
            .and_then(Value::as_int)
            .is_some_and(|t| w.now_ms as i64 >= t),
        _ => false,
    }
}

/// Whether the branch may still be taken: a bounded one (`again`) only
/// while the job has taken fewer bounded jumps from its step than it
/// allows.
fn open(b: &Jump, slot: u8, job: &Job) -> bool {
    b.again.is_none_or(|n| loops(job, slot) < n)
}

/// The bounded jumps a job took from the steps that count in `slot`: 2
/// bits each of `reclaims`.
fn loops(job: &Job, slot: u8) -> u8 {
    (job.reclaims >> (2 * slot)) & 3
}

/// Prepares `answer`, read from `row` where it says so.
fn prepare(
    p: &Program,
    job: &mut Job,
    answer: &Answer,
    columns: &[String],
    row: Option<&Vec<Value>>,
) {
    let cell = |name: &str| row.and_then(|r| column(columns, r, name));
    let mut headers = None;
    let (status, text): (u16, Text) = match answer {
        Answer::Literal(l) => (l.status, l.body.as_str().into()),
        Answer::Capture => {
            let (_, http, b) = capture_answer(job.capture_result, job.row_id);
            if http == 201 && p.stores_headers() {
                headers = job.row_id.map(|id| created_headers(id).into());
            }
            (http, b.into())
        }
        Answer::Local => {
            let (_, http, b) = capture_answer(Some(true), job.row_id);
            (http, b.into())
        }
        Answer::Stored => {
            headers = cell("resposta_headers")
                .and_then(Value::as_text)
                .map(Into::into);
            (
                cell("resposta_http")
                    .and_then(Value::as_int)
                    .map_or(500, |h| h as u16),
                cell("resposta_corpo")
                    .and_then(Value::as_text)
                    .unwrap_or_default()
                    .into(),
            )
        }
        Answer::Charge(c) => (
            c.status,
            body(
                cell("status").and_then(Value::as_text).unwrap_or_default(),
                cell("id").and_then(Value::as_int),
            )
            .into(),
        ),
    };
    job.response = Some((status, text));
    job.headers = headers;
}

pub(super) fn on_sql_result(p: &Program, w: &Situation, job: &mut Job, result: &StmtResult) {
    let Pc::Step(_, step) = job.pc else {
        unreachable!("a design's result is at one of its steps")
    };
    let site = p.site(step);
    let row = match result {
        Err(e) => {
            let code = e.state.code();
            let caught = site.branches.iter().find(|b| {
                matches!(&b.when, When::Error(c) if c == code) && open(b, site.loop_slot, job)
            });
            if let Some(b) = caught {
                return follow(p, job, site, Some(b), None);
            }
            let body = if p.serves_queue() {
                BODY_NACK
            } else {
                BODY_TRY_AGAIN
            };
            job.response = Some((503, body.into()));
            job.headers = None;
            let to = if site.in_tx && !site.shape.ends_tx() {
                p.rollback()
            } else {
                p.respond()
            };
            job.pc = Pc::Step(p.design().serves, to);
            return;
        }
        Ok(_) => first_row(result),
    };
    if let Some(r) = row {
        if matches!(site.shape, Shape::Insert { .. } | Shape::Select { .. })
            && site.columns.first().is_some_and(|c| c == "id")
        {
            job.row_id = r.first().and_then(Value::as_int);
        }
        // What a debit later writes from: the balance and version read.
        if matches!(site.shape, Shape::Select { .. })
            && let Some(balance) = column(&site.columns, r, "saldo")
        {
            job.balance = balance.as_int();
            job.version = column(&site.columns, r, "versao").and_then(Value::as_int);
        }
        if matches!(site.shape, Shape::Insert { .. } | Shape::Retake { .. })
            && let Some(lease) = column(&site.columns, r, "lease_ate_ms")
        {
            job.lease_token = lease.as_int();
        }
    }
    let some = if site.columns.is_empty() {
        result.as_ref().is_ok_and(|r| r.affected > 0)
    } else {
        row.is_some()
    };
    let taken = site
        .branches
        .iter()
        .find(|b| open(b, site.loop_slot, job) && holds(&b.when, &site.columns, row, some, w));
    follow(p, job, site, taken, row);
}

pub(super) fn on_capture(p: &Program, job: &mut Job) {
    let Pc::Awaiting(_, step) = job.pc else {
        unreachable!("a design's capture is awaited at one of its steps")
    };
    let site = p.site(step);
    let taken = site.branches.iter().find(|b| {
        open(b, site.loop_slot, job)
            && match b.when {
                When::Accepted => job.capture_result == Some(true),
                When::Declined => job.capture_result == Some(false),
                When::Silent => job.capture_result.is_none(),
                When::Always => true,
                _ => false,
            }
    });
    follow(p, job, site, taken, None);
}

pub(super) fn on_published(p: &Program, job: &mut Job) {
    let Pc::Step(_, step) = job.pc else {
        unreachable!("a design publishes at one of its steps")
    };
    let site = p.site(step);
    // `design::check` lets a publish ask only "always".
    let taken = site.branches.iter().find(|b| open(b, site.loop_slot, job));
    follow(p, job, site, taken, None);
}

/// Takes the branch that held (counting it when it is bounded), or goes
/// on to the step's `next`.
fn follow(p: &Program, job: &mut Job, site: &Site, taken: Option<&Jump>, row: Option<&Vec<Value>>) {
    match taken {
        Some(b) => {
            if let Some(a) = &b.answer {
                prepare(p, job, a, &site.columns, row);
            }
            if b.again.is_some() {
                job.reclaims += 1 << (2 * site.loop_slot);
            }
            job.pc = Pc::Step(p.design().serves, b.to);
        }
        None => job.pc = Pc::Step(p.design().serves, site.next),
    }
}

/// The debit of the account. The new balance is computed by the
/// application from the one it read, and written as a literal: the
/// read-compute-write a lock must cover. The optimistic write names the
/// version it read and bumps it, so it lands only if no other debit landed
/// in between, and returns the account, so that a write that lost the race
/// reads "0 rows" on the board where a plain UPDATE 0 would read "ok".
fn debit(table: crate::store::Name, versioned: bool, inputs: &StmtInputs, it: &Intent) -> Stmt {
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

#[cfg(test)]
mod tests {
    use super::{PROGRAMS, STRATEGIES};

    /// Every name a strategy and its options can pick is a built-in design
    /// of that name, so no scenario's first step panics on a missing one.
    #[test]
    fn every_name_a_strategy_picks_is_a_builtin_design() {
        assert_eq!(STRATEGIES.len(), PROGRAMS.len());
        for name in STRATEGIES {
            let p = crate::design::builtin::strategy(name).expect(name);
            assert_eq!(p.design().name, name);
        }
    }
}
