//! Where a job is (`Pc`), and what the step there is: its name on the
//! lousa, whether it runs a statement, whether a crash after it strikes a
//! committed claim. A design's step (`Pc::Step`) answers from its program.

use crate::scenario::Scenario;

/// Where a handler is. The names are what the lousa prints on an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pc {
    Begin,
    SelectOrder,
    InsertSimple,
    /// COMMIT, then go and capture.
    CommitThenCapture,
    /// COMMIT after a read found the row, then answer from it.
    CommitThenRespond,
    Claim,
    ClaimPlain,
    /// COMMIT after the claim found the key taken, then read it.
    CommitThenRead,
    RollbackThenRead,
    ReadExisting,
    Capture,
    AwaitCapture,
    AfterCapture,
    UpdateSimple,
    StoreResponse,
    /// `idempotency-key-held-tx`: the commit that ends the long transaction.
    CommitHeld,
    RollbackHeld,
    RollbackAfterError,
    LeaseClaim,
    LeaseRead,
    LeaseDelete,
    LeaseRetake,
    LeaseFinish,
    InsertPedido,
    /// `local-effect` with a balance: read it (`FOR UPDATE` when asked).
    ReadBalance,
    /// Write the balance computed from the one read.
    WriteBalance,
    /// `local-effect` with an outbox: the event, in the effect's transaction.
    InsertOutbox,
    /// `local-effect`, event after commit: publish, outside any transaction.
    Publish,
    /// A queue's consumer under check-then-act: has this message been
    /// processed?
    CheckMessage,
    /// A queue's consumer with the message id as its key: the claim,
    /// committed before the capture.
    ClaimMessage,
    /// A queue's consumer under check-then-act: the record, after the
    /// capture, that the UNIQUE constraint may refuse.
    RecordMessage,
    /// A queue's consumer whose claim found the message id taken: is it
    /// completed, or still being processed?
    ReadMessage,
    /// A queue's consumer after the capture: mark the message completed,
    /// fenced by its lease.
    FinishMessage,
    Respond,
    /// A design's step (`crate::design`), an index into its program.
    Step(u16),
    /// A design's capture step, awaiting the acquirer.
    Awaiting(u16),
}

impl Pc {
    pub fn name(self) -> &'static str {
        match self {
            Pc::Begin => "begin",
            Pc::SelectOrder => "select-order",
            Pc::InsertSimple => "insert",
            Pc::CommitThenCapture | Pc::CommitThenRespond | Pc::CommitThenRead | Pc::CommitHeld => {
                "commit"
            }
            Pc::Claim | Pc::ClaimPlain | Pc::LeaseClaim => "claim",
            Pc::RollbackThenRead | Pc::RollbackHeld | Pc::RollbackAfterError => "rollback",
            Pc::ReadExisting | Pc::LeaseRead => "read-key",
            Pc::Capture => "capture",
            Pc::AwaitCapture => "awaiting-acquirer",
            Pc::AfterCapture => "acquirer-answered",
            Pc::UpdateSimple | Pc::StoreResponse | Pc::LeaseFinish => "store-response",
            Pc::LeaseDelete => "expire-key",
            Pc::LeaseRetake => "retake-key",
            Pc::InsertPedido => "insert-order",
            Pc::ReadBalance => "read-balance",
            Pc::WriteBalance => "write-balance",
            Pc::InsertOutbox => "insert-outbox",
            Pc::Publish => "publish-event",
            Pc::CheckMessage => "check-message",
            Pc::ClaimMessage => "claim-message",
            Pc::RecordMessage => "record-message",
            Pc::ReadMessage => "read-message",
            Pc::FinishMessage => "finish-message",
            Pc::Respond => "respond",
            Pc::Step(_) => "step",
            Pc::Awaiting(_) => "awaiting-acquirer",
        }
    }

    /// A number for each step, distinct and under 256, for fingerprints.
    pub fn code(self) -> u64 {
        match self {
            Pc::Begin => 0,
            Pc::SelectOrder => 1,
            Pc::InsertSimple => 2,
            Pc::CommitThenCapture => 3,
            Pc::CommitThenRespond => 4,
            Pc::Claim => 5,
            Pc::ClaimPlain => 6,
            Pc::CommitThenRead => 7,
            Pc::RollbackThenRead => 8,
            Pc::ReadExisting => 9,
            Pc::Capture => 10,
            Pc::AwaitCapture => 11,
            Pc::AfterCapture => 12,
            Pc::UpdateSimple => 13,
            Pc::StoreResponse => 14,
            Pc::CommitHeld => 15,
            Pc::RollbackHeld => 16,
            Pc::RollbackAfterError => 17,
            Pc::LeaseClaim => 18,
            Pc::LeaseRead => 19,
            Pc::LeaseDelete => 20,
            Pc::LeaseRetake => 21,
            Pc::LeaseFinish => 22,
            Pc::InsertPedido => 23,
            Pc::ReadBalance => 24,
            Pc::WriteBalance => 25,
            Pc::InsertOutbox => 26,
            Pc::Publish => 27,
            Pc::CheckMessage => 28,
            Pc::ClaimMessage => 29,
            Pc::RecordMessage => 30,
            Pc::ReadMessage => 31,
            Pc::FinishMessage => 32,
            Pc::Respond => 33,
            Pc::Step(i) => 48 + u64::from(i),
            Pc::Awaiting(i) => 48 + 80 + u64::from(i),
        }
    }

    /// Where the job goes while the acquirer works on its capture.
    pub fn awaiting(self) -> Pc {
        match self {
            Pc::Step(i) => Pc::Awaiting(i),
            _ => Pc::AwaitCapture,
        }
    }

    /// Steps that run a statement (and so cost the database's latency).
    fn is_sql(self) -> bool {
        !matches!(
            self,
            Pc::Capture | Pc::AwaitCapture | Pc::AfterCapture | Pc::Publish | Pc::Respond
        )
    }

    /// Steps whose write carries the job's lease in its WHERE.
    fn fenced_by_lease(self) -> bool {
        matches!(self, Pc::LeaseFinish | Pc::FinishMessage)
    }

    /// Steps after whose success a claim (or first insert) is durable: where
    /// a crash `after-commit` strikes.
    fn commits_claim(self) -> bool {
        matches!(
            self,
            Pc::InsertSimple
                | Pc::Claim
                | Pc::CommitThenCapture
                | Pc::LeaseClaim
                | Pc::ClaimMessage
        )
    }
}

/// The design a scenario runs its HTTP handler as, when it has one.
pub(super) fn program(scenario: &Scenario) -> &crate::design::Program {
    scenario
        .program()
        .expect("a design's step runs under its design")
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
    use crate::design::Shape;
    match pc {
        Pc::Step(i) => match program(scenario).site(i).shape {
            Shape::Capture => Kind::Capture,
            Shape::Publish => Kind::Publish,
            Shape::Respond => Kind::Respond,
            _ => Kind::Sql,
        },
        Pc::Capture => Kind::Capture,
        Pc::Awaiting(_) | Pc::AwaitCapture | Pc::AfterCapture => Kind::Awaiting,
        Pc::Publish => Kind::Publish,
        Pc::Respond => Kind::Respond,
        _ => Kind::Sql,
    }
}

/// The name the lousa prints on an instance for a job at `pc`.
pub fn step_name(scenario: &Scenario, pc: Pc) -> &str {
    match pc {
        Pc::Step(i) => &program(scenario).site(i).shown,
        _ => pc.name(),
    }
}

/// Whether the step at `pc` runs a statement (and so costs the database's
/// latency).
pub fn costs_sql(scenario: &Scenario, pc: Pc) -> bool {
    match pc {
        Pc::Step(_) => kind(scenario, pc) == Kind::Sql,
        _ => pc.is_sql(),
    }
}

/// Whether a claim (or first insert) is durable once the step at `pc`
/// succeeds outside a transaction: where a crash `after-commit` strikes.
/// A local effect's COMMIT makes its claim durable with the effect.
pub fn commits_claim(scenario: &Scenario, pc: Pc) -> bool {
    match pc {
        Pc::Step(i) => program(scenario).site(i).commits_claim,
        Pc::CommitHeld => scenario.strategy == crate::scenario::Strategy::LocalEffect,
        _ => pc.commits_claim(),
    }
}

/// Whether the write at `pc` carries the job's lease in its WHERE.
pub fn fenced_by_lease(scenario: &Scenario, pc: Pc) -> bool {
    match pc {
        Pc::Step(i) => program(scenario).site(i).shape.fenced(),
        _ => pc.fenced_by_lease(),
    }
}

/// Whether the step at `pc` deletes a key of `chave_idempotencia`, which the
/// world watches for a key forgotten with its effect unresolved.
pub fn deletes_key(scenario: &Scenario, pc: Pc) -> bool {
    match pc {
        Pc::Step(i) => matches!(
            &program(scenario).site(i).shape,
            crate::design::Shape::Delete { table } if table == "chave_idempotencia"
        ),
        _ => pc == Pc::LeaseDelete,
    }
}

/// The table whose key row the step at `pc` writes, for the steps watched
/// (see `world::watch`).
pub fn watched_table(scenario: &Scenario, pc: Pc) -> Option<&'static str> {
    use crate::design::Shape;
    match pc {
        Pc::LeaseFinish | Pc::LeaseRetake => Some("chave_idempotencia"),
        Pc::StoreResponse => Some("cobranca"),
        Pc::FinishMessage => Some("mensagem_processada"),
        Pc::Step(i) => match &program(scenario).site(i).shape {
            Shape::Update { table, .. } | Shape::Retake { table, .. } => {
                ["cobranca", "chave_idempotencia", "mensagem_processada"]
                    .into_iter()
                    .find(|t| table == t)
            }
            _ => None,
        },
        _ => None,
    }
}
