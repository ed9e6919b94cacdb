//! Where a job is (`Pc`), and what the step there is: its name on the
//! lousa, whether it runs a statement, whether a crash after it strikes a
//! committed claim. Each answers from the program the job runs.

use crate::design::{Serves, Shape, Site};
use crate::scenario::Scenario;

/// Where a job is: a step of the program it runs (the HTTP handler's, or
/// the queue's consumer's), or, at a capture step, awaiting the acquirer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pc {
    Step(Serves, u16),
    Awaiting(Serves, u16),
}

/// More than a design's steps, with the ROLLBACK and the response the
/// compiler adds.
const SITES_MAX: u64 = crate::design::limits::STEPS_MAX as u64 + 2;

impl Pc {
    /// A number for each place, distinct and under 512, for fingerprints.
    pub fn code(self) -> u64 {
        let (serves, step, awaiting) = match self {
            Pc::Step(s, i) => (s, i, 0),
            Pc::Awaiting(s, i) => (s, i, 1),
        };
        let queue = u64::from(serves == Serves::Queue);
        u64::from(step) + SITES_MAX * (awaiting + 2 * queue)
    }

    /// Where the job goes while the acquirer works on its capture.
    pub fn awaiting(self) -> Pc {
        match self {
            Pc::Step(s, i) | Pc::Awaiting(s, i) => Pc::Awaiting(s, i),
        }
    }

    /// Whose program the job runs.
    pub fn serves(self) -> Serves {
        match self {
            Pc::Step(s, _) | Pc::Awaiting(s, _) => s,
        }
    }

    fn index(self) -> u16 {
        match self {
            Pc::Step(_, i) | Pc::Awaiting(_, i) => i,
        }
    }
}

/// The program a job at `pc` runs, and its step there.
fn site(scenario: &Scenario, pc: Pc) -> &Site {
    super::program(scenario, pc.serves()).site(pc.index())
}

/// What a step is, for those who schedule and reorder steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sql,
    Capture,
    Awaiting,
    Publish,
    Respond,
}

/// What the step at `pc` is.
pub fn kind(scenario: &Scenario, pc: Pc) -> Kind {
    if let Pc::Awaiting(..) = pc {
        return Kind::Awaiting;
    }
    match site(scenario, pc).shape {
        Shape::Capture => Kind::Capture,
        Shape::Publish => Kind::Publish,
        Shape::Respond => Kind::Respond,
        _ => Kind::Sql,
    }
}

/// The name the lousa prints on an instance for a job at `pc`.
pub fn step_name(scenario: &Scenario, pc: Pc) -> &str {
    match pc {
        Pc::Step(..) => &site(scenario, pc).shown,
        Pc::Awaiting(..) => "awaiting-acquirer",
    }
}

/// Whether the step at `pc` runs a statement (and so costs the database's
/// latency).
pub fn costs_sql(scenario: &Scenario, pc: Pc) -> bool {
    kind(scenario, pc) == Kind::Sql
}

/// Whether a claim (or first insert) is durable once the step at `pc`
/// succeeds outside a transaction: where a crash `after-commit` strikes.
/// A local effect's COMMIT makes its claim durable with the effect.
pub fn commits_claim(scenario: &Scenario, pc: Pc) -> bool {
    site(scenario, pc).commits_claim
}

/// Whether the write at `pc` carries the job's lease in its WHERE.
pub fn fenced_by_lease(scenario: &Scenario, pc: Pc) -> bool {
    site(scenario, pc).shape.fenced()
}

/// Whether the step at `pc` deletes a key of `chave_idempotencia`, which the
/// world watches for a key forgotten with its effect unresolved.
pub fn deletes_key(scenario: &Scenario, pc: Pc) -> bool {
    matches!(&site(scenario, pc).shape, Shape::Delete { table } if table == "chave_idempotencia")
}

/// Whether the step at `pc` inserts an effect row: `Some(false)` a local
/// effect (`pedido_pago`), `Some(true)` an outbox event (`evento_outbox`).
pub fn inserts_effect(scenario: &Scenario, pc: Pc) -> Option<bool> {
    match &site(scenario, pc).shape {
        Shape::Insert { table, .. } if table == "pedido_pago" => Some(false),
        Shape::Insert { table, .. } if table == "evento_outbox" => Some(true),
        _ => None,
    }
}

/// The table whose key row the step at `pc` writes, for the steps watched
/// (see `world::watch`).
pub fn watched_table(scenario: &Scenario, pc: Pc) -> Option<&'static str> {
    match &site(scenario, pc).shape {
        Shape::Update { table, .. } | Shape::Retake { table, .. } => {
            ["cobranca", "chave_idempotencia", "mensagem_processada"]
                .into_iter()
                .find(|t| table == t)
        }
        _ => None,
    }
}
