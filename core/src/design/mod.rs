//! Designs as data: a handler written as a small program of steps, each
//! one atomic action (issue #31). Every job runs one: its scenario's own,
//! or the built-in its strategy picks.
//!
//! The grammar, in short:
//!
//! ```text
//! design  = { name, about?, serves?: http | queue, claims?: charge-once | nothing,
//!             isolation?: read-committed | repeatable-read | serializable,
//!             tables: [table], steps: [step] }
//! table   = { name: cobranca | cobranca_simples | pedido_pago | chave_idempotencia
//!                   | mensagem_processada | evento_outbox | conta | conta_versionada,
//!             unique?: [column] }
//! step    = { label, shown?, do, on?: [branch], next? }
//! do      = begin | commit | rollback | capture | publish
//!         | { select: { table, by: order | key | id | account, columns, for_update? } }
//!         | { insert: { table, on_conflict_do_nothing?: [column], returning?, completed? } }
//!         | { update: { table, set: [column], fenced?, local? } }
//!         | { delete: { table } }
//!         | { retake: { table, from: state } }
//! branch  = { if: when, answer?, goto: label | respond, again?: 1..=3 }
//! when    = rows | no-rows | { error: SQLSTATE } | { status: text } | other-request
//!         | expired | insufficient-funds | accepted | declined | silent | always
//! answer  = { literal: { status, body } } | capture | local | stored
//!         | { charge: { status } }
//! ```
//!
//! A step runs its `do`; its branches are tested in order and the first
//! that holds prepares its answer (if any) and jumps; when none holds, the
//! step goes on to `next`, or to the step after it. `respond` sends the
//! answer prepared. A statement's error that no branch names is answered
//! 503 ("try again"), after a ROLLBACK when a transaction is open. Inserts
//! write what the request carries into the columns the table has (the key,
//! with its scope `escopo` and the body's fingerprint `impressao` where the
//! table keeps them; `pedido_id`, `valor_centavos`; `status` as
//! PROCESSANDO, or `estado` as processing with a lease, `lease_ate_ms`,
//! from now; or, `completed`, as done, with no lease; a queue's message id
//! is its key, `message_id`). A select or insert that returns `id` first
//! makes that row the job's; one that returns `lease_ate_ms` gives the job
//! its lease. An update writes, by the job's row id, what the acquirer
//! answered: `status`, `resposta_http`, `resposta_corpo`,
//! `resposta_headers` (a created charge's `Location`), `estado` (completed,
//! or unknown after a silence, when only the state is written: no answer is
//! known to keep) and `expira_em_ms` (the key's lifetime, from now). A
//! `fenced` update matches the row only while it is still processing under
//! the job's lease, and returns `id`, so `no-rows` says the lease was
//! taken. An update that sets `saldo` is a debit of the account (`conta`,
//! or `conta_versionada`, whose write names the version read and bumps it,
//! and returns `id`): the balance the job last read less the request's
//! amount, a literal the application computed. `insufficient-funds` holds
//! when that read found less than the amount, or no account. `delete`
//! removes the job's row; `retake` takes the job's row over from a state
//! (recovery's `failed_safe`) under a new lease. A `local` update writes
//! the answer of an effect that is the transaction's own write
//! (`local-effect`): done, 201, whatever the acquirer, never called, said;
//! the answer `local` is that 201. `publish` hands the effect's event to
//! the broker, outside the database (an outbox row is an insert into
//! `evento_outbox`, unpublished, which a relay publishes once it is
//! committed).
//!
//! `rows` and `no-rows` ask what a statement returned, or, of an update or
//! a delete that returns nothing, whether it touched a row.
//!
//! A jump back to an earlier step must carry `again`: a job takes the
//! jumps with `again` from one step at most that many times in all, and
//! once it has, the branch no longer holds. So every loop ends. At most
//! [`limits::LOOPS_MAX`] steps carry `again`, each with its own count. A design
//! that [`check`] accepts always responds: every jump lands on a step, every
//! loop is bounded, and every transaction it opens ends.
//!
//! A design serves HTTP requests (the default) or a queue's deliveries
//! (`serves: queue`), whose answer is an ack (2xx) or a nack: a statement's
//! unexpected error is answered 503 "nack" there. The jobs of the other kind
//! run their strategy's built-in design. A design whose tables include
//! `chave_idempotencia` gets recovery's sweep of the keys left processing or
//! unknown (`handler::recovers_keys`); a consumer whose claim leaves a
//! message processing, the sweep of `mensagem_processada`.

pub mod builtin;
#[rustfmt::skip]
mod builtin_values;
mod check;
mod flow;
mod program_rows;
mod rows;
mod shape;

pub use check::{Jump, Program, Site, check};
pub use shape::{ANSWERED, Shape, Source};

use serde::{Deserialize, Serialize};

/// A handler as data. Read with [`Design::from_json`], which checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    pub name: String,
    /// One sentence on what the design does, for a list of them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
    /// Whose handler it is: HTTP requests', or a queue's deliveries'.
    #[serde(default, skip_serializing_if = "Serves::is_default")]
    pub serves: Serves,
    /// What the design claims: to charge once (the default: a design is
    /// written to guard), or nothing, as naive and check-then-act do. The
    /// explorer fails a run only on a broken claim.
    #[serde(default, skip_serializing_if = "Claims::is_default")]
    pub claims: Claims,
    /// The isolation level its BEGIN asks for; the scenario's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::store::Isolation>,
    /// The tables it writes, which the lousa shows, and their constraints.
    pub tables: Vec<TableUse>,
    pub steps: Vec<Step>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Claims {
    /// Every *always* property of `crate::property::ALL` that applies.
    #[default]
    ChargeOnce,
    Nothing,
}

impl Claims {
    fn is_default(&self) -> bool {
        *self == Claims::ChargeOnce
    }
}

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Serves {
    #[default]
    Http,
    /// A queue's consumer: each delivery a job, its answer an ack or a nack.
    Queue,
}

impl Serves {
    fn is_default(&self) -> bool {
        *self == Serves::Http
    }
}

/// A table the design uses; `unique`, when given, replaces the table's own
/// UNIQUE constraint (`[]`: none).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableUse {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// The name jumps use; unique in the design.
    pub label: String,
    /// What the lousa prints on an instance at this step; the label when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<String>,
    #[serde(rename = "do")]
    pub action: Do,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<Branch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Do {
    Begin,
    Commit,
    Rollback,
    Select(Select),
    Insert(Insert),
    Update(Update),
    /// Call the acquirer and wait for its answer or the timeout.
    Capture,
    /// Publish the effect's event to the broker.
    Publish,
    Delete(Delete),
    Retake(Retake),
}

impl Do {
    /// The table the step's statement touches, if it runs one on a table.
    pub fn table(&self) -> Option<&str> {
        match self {
            Do::Select(x) => Some(&x.table),
            Do::Insert(x) => Some(&x.table),
            Do::Update(x) => Some(&x.table),
            Do::Delete(x) => Some(&x.table),
            Do::Retake(x) => Some(&x.table),
            Do::Begin | Do::Commit | Do::Rollback | Do::Capture | Do::Publish => None,
        }
    }
}

/// `DELETE` of the job's row: a key past its lifetime, forgotten.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Delete {
    pub table: String,
}

/// Takes the job's row over while it is in state `from`: sets it
/// processing under a new lease, and returns the lease.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retake {
    pub table: String,
    pub from: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Select {
    pub table: String,
    pub by: By,
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub for_update: bool,
}

/// Which row a statement reads: the request's order, its key, or the row
/// the job inserted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum By {
    Order,
    Key,
    Id,
    /// The one account a balance scenario debits.
    Account,
}

impl By {
    /// The columns a select by `self` matches in `def`, and where each
    /// value comes from: a key is its scope and name where the table keeps
    /// a scope.
    pub fn columns(self, def: &crate::store::TableDef) -> Vec<(&'static str, Source)> {
        match self {
            By::Order => vec![("pedido_id", Source::Order)],
            By::Id => vec![("id", Source::Id)],
            By::Account => vec![("id", Source::Account)],
            By::Key if def.column_index("chave").is_some() => {
                vec![("escopo", Source::Scope), ("chave", Source::Key)]
            }
            By::Key if def.column_index("message_id").is_some() => {
                vec![("message_id", Source::Key)]
            }
            By::Key => vec![("idempotency_key", Source::Key)],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Insert {
    pub table: String,
    /// `ON CONFLICT (columns) DO NOTHING` when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_conflict_do_nothing: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub returning: Vec<String>,
    /// Writes the row's `estado` as completed, with no lease: a record of
    /// an effect that already happened, as check-then-act keeps one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub completed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Update {
    pub table: String,
    /// Columns written from the acquirer's answer, in this order; or
    /// `saldo` alone, a debit of the account.
    pub set: Vec<String>,
    /// Only while the row is processing under the job's lease.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fenced: bool,
    /// Writes the answer of a local effect (201) rather than the
    /// acquirer's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub local: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Branch {
    #[serde(rename = "if")]
    pub when: When,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    pub goto: String,
    /// How many jumps with `again` from this step a job may take in all
    /// while this one still holds; a jump back must have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub again: Option<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// The statement returned a row (a SELECT's, or an INSERT's RETURNING).
    Rows,
    NoRows,
    /// The statement failed with this SQLSTATE.
    Error(String),
    /// The row's `status` (or `estado`) column holds this text.
    Status(String),
    /// The row's request is not this one: its fingerprint (`impressao`)
    /// differs, or else its order or amount. A key reused.
    OtherRequest,
    /// The row's lifetime (`expira_em_ms`) is over.
    Expired,
    /// The account read (`saldo`) holds less than the request's amount, or
    /// there is no account.
    InsufficientFunds,
    /// The acquirer accepted the capture.
    Accepted,
    Declined,
    /// The acquirer never answered before the timeout.
    Silent,
    Always,
}

/// The response a branch prepares.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answer {
    Literal(Literal),
    /// 201, 402 or 504 with the charge's body, from what the acquirer said;
    /// a created charge's `Location` too when the design stores headers.
    Capture,
    /// 201 with the charge's body: the effect is the transaction's own
    /// write (`local-effect`), made once it commits.
    Local,
    /// The row's `resposta_http` and `resposta_corpo`, byte for byte, with
    /// its `resposta_headers` when it was read.
    Stored,
    /// This status, with the row's status and id as the body.
    Charge(Charge),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Literal {
    pub status: u16,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Charge {
    pub status: u16,
}

/// The reserved jump target that sends the prepared answer.
pub const RESPOND: &str = "respond";

/// The limits a design is held to.
pub mod limits {
    pub const STEPS_MAX: usize = 64;
    pub const BRANCHES_MAX: usize = 12;
    pub const AGAIN_MAX: u8 = 3;
    /// Steps with `again` branches: each keeps its count in 2 bits of a
    /// job's byte.
    pub const LOOPS_MAX: usize = 4;
    pub const TEXT_MAX: usize = 200;
    pub const JSON_BYTES_MAX: usize = 64 * 1024;
    pub const JSON_DEPTH_MAX: usize = 8;
}

impl Design {
    /// Reads and checks a design's JSON: unknown fields and every refusal
    /// name the field path, as a scenario's do.
    pub fn from_json(text: &str) -> Result<Program, crate::json::FieldError> {
        check(Design::parse(text)?)
    }

    /// Reads a design's JSON, strictly, without checking its steps.
    pub fn parse(text: &str) -> Result<Design, crate::json::FieldError> {
        if text.len() > limits::JSON_BYTES_MAX {
            return Err(crate::json::FieldError {
                field: "design".into(),
                message: format!(
                    "{} bytes exceed the limit {}",
                    text.len(),
                    limits::JSON_BYTES_MAX
                ),
            });
        }
        crate::json::parse(
            text,
            crate::json::Root {
                name: "design",
                depth_max: limits::JSON_DEPTH_MAX,
            },
        )
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a design serializes")
    }
}
