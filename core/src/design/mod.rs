//! Designs as data: a handler written as a small program of steps, each as
//! atomic as a hand-coded step (issue #31).
//!
//! The grammar, in short:
//!
//! ```text
//! design  = { name, about?, claims?: charge-once | nothing,
//!             isolation?: read-committed | repeatable-read | serializable,
//!             tables: [table], steps: [step] }
//! table   = { name: cobranca | cobranca_simples | pedido_pago, unique?: [column] }
//! step    = { label, shown?, do, on?: [branch], next? }
//! do      = begin | commit | rollback | capture
//!         | { select: { table, by: order | key | id, columns, for_update? } }
//!         | { insert: { table, on_conflict_do_nothing?: [column], returning? } }
//!         | { update: { table, set: [status | resposta_http | resposta_corpo] } }
//! branch  = { if: when, answer?, goto: label | respond }
//! when    = rows | no-rows | { error: SQLSTATE } | { status: text } | other-request
//!         | accepted | declined | silent | always
//! answer  = { literal: { status, body } } | capture | stored | { charge: { status } }
//! ```
//!
//! A step runs its `do`; its branches are tested in order and the first that
//! holds prepares its answer (if any) and jumps; when none holds, the step
//! goes on to `next`, or to the step after it. `respond` sends the answer
//! prepared. A statement's error that no branch names is answered 503 ("try
//! again"), after a ROLLBACK when a transaction is open, as every hand-coded
//! handler does. Inserts write what the request carries into the columns the
//! table has (`idempotency_key`, `pedido_id`, `valor_centavos`, and `status`
//! as PROCESSANDO); an update writes, by the job's row id, what the acquirer
//! answered. A design that [`check`] accepts always responds: it has no
//! loops, every jump lands on a step, and every transaction it opens ends.
//!
//! Queue deliveries still run the built-in consumer; a design is the HTTP
//! handler.

pub mod builtin;
mod check;
mod flow;

pub use check::{Program, Shape, Site, Source, check};

use serde::{Deserialize, Serialize};

/// A handler as data. Read with [`Design::from_json`], which checks it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Design {
    pub name: String,
    /// One sentence on what the design does, for a list of them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub about: String,
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
}

impl By {
    pub fn column(self) -> &'static str {
        match self {
            By::Order => "pedido_id",
            By::Key => "idempotency_key",
            By::Id => "id",
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
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Update {
    pub table: String,
    /// Columns written from the acquirer's answer, in this order.
    pub set: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Branch {
    #[serde(rename = "if")]
    pub when: When,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
    pub goto: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// The statement returned a row (a SELECT's, or an INSERT's RETURNING).
    Rows,
    NoRows,
    /// The statement failed with this SQLSTATE.
    Error(String),
    /// The row's `status` column holds this text.
    Status(String),
    /// The row's order or amount is not this request's: a key reused.
    OtherRequest,
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
    /// 201, 402 or 504 with the charge's body, from what the acquirer said.
    Capture,
    /// The row's `resposta_http` and `resposta_corpo`, byte for byte.
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
    pub const BRANCHES_MAX: usize = 8;
    pub const TEXT_MAX: usize = 200;
    pub const JSON_BYTES_MAX: usize = 64 * 1024;
    pub const JSON_DEPTH_MAX: usize = 8;
}

impl Design {
    /// Reads and checks a design's JSON: unknown fields and every refusal
    /// name the field path, as a scenario's do.
    pub fn from_json(text: &str) -> Result<Program, crate::json::FieldError> {
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
        let design: Design = crate::json::parse(
            text,
            crate::json::Root {
                name: "design",
                depth_max: limits::JSON_DEPTH_MAX,
            },
        )?;
        check(design)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a design serializes")
    }
}
