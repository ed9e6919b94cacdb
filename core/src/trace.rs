//! What a run produces: events, frames for the view, and the outcome.
//! Plain data with public fields; the view reads these and nothing else.

use crate::store::{RowView, Value};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "type", content = "id", rename_all = "snake_case")]
pub enum Actor {
    Client(u32),
    /// A client of kind `queue`: the broker that delivers its message to a
    /// consumer and waits for the ack.
    Queue(u32),
    LoadBalancer,
    Instance(u32),
    Database,
    Acquirer,
    Network,
    Recovery,
    /// The outbox's relay, which publishes what the outbox holds.
    Relay,
}

/// What a client knows about its current charge (Jepsen's invoke/ok/fail/info).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Knowledge {
    /// Nothing sent yet.
    Idle,
    /// A request is out and the clock is running.
    Waiting { attempt: u32 },
    /// The timeout fired: the charge may have happened, may be happening, or
    /// may never have arrived.
    Unknown { attempt: u32 },
    /// Waiting before the next attempt.
    Backoff,
    /// An answer arrived.
    Answered { attempt: u32, status: u16 },
    /// Out of retries without a final answer.
    GaveUp,
}

/// How a statement ended, as shown in the SQL panel.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum SqlOutcome {
    Ok,
    Rows {
        rows: Vec<Vec<Value>>,
    },
    Affected {
        count: u64,
    },
    /// Blocked on a row another transaction holds.
    Waiting {
        on_instance: Option<u32>,
    },
    Error {
        code: String,
        message: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    AttemptSent {
        client: u32,
        attempt: u32,
        intent: u32,
        key: String,
        retry: bool,
        /// No step of the design that serves the request reads its key, so
        /// nothing but the order stands between a retry and a new charge.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unkeyed: bool,
    },
    /// The request's body, told for clients whose body is the point (a
    /// timestamp, a reformat); its fingerprint shows in the claim's SQL.
    BodySent {
        attempt: u32,
        body: String,
    },
    RequestDropped {
        attempt: u32,
    },
    Routed {
        attempt: u32,
        instance: u32,
    },
    NoInstanceAlive {
        attempt: u32,
    },
    ConnectionWait {
        attempt: u32,
    },
    Sql {
        attempt: Option<u32>,
        sql: String,
        outcome: SqlOutcome,
    },
    /// A statement that was waiting finished.
    SqlResumed {
        attempt: Option<u32>,
        sql: String,
        outcome: SqlOutcome,
        waited_ms: u64,
    },
    CaptureRequested {
        attempt: u32,
        call: u32,
        intent: u32,
    },
    Captured {
        call: u32,
        intent: u32,
        captures_for_intent: u32,
    },
    Declined {
        call: u32,
        intent: u32,
    },
    /// The provider's own key recognised a repeat: no new capture.
    ProviderReplayed {
        call: u32,
        intent: u32,
    },
    AcquirerReplyLost {
        call: u32,
    },
    AcquirerReplied {
        attempt: u32,
        call: u32,
        accepted: bool,
    },
    AcquirerTimedOut {
        attempt: u32,
        call: u32,
    },
    Responded {
        attempt: u32,
        status: u16,
        /// The response's headers as stored (jsonb text), when the design
        /// stores any: the lease design's `Location` of a created charge.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        headers: Option<String>,
        body: String,
        /// The answer is a queue consumer's: an ack (2xx) or a nack.
        #[serde(default, skip_serializing_if = "is_false")]
        ack: bool,
    },
    ResponseDropped {
        attempt: u32,
    },
    /// An injected delay: the request (or the answer) of `attempt` arrives
    /// `by_ms` later than it would have.
    Delayed {
        attempt: u32,
        response: bool,
        by_ms: u64,
    },
    ResponseReceived {
        client: u32,
        attempt: u32,
        status: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        headers: Option<String>,
        body: String,
    },
    /// An answer that came after the client gave up on that attempt.
    LateResponseIgnored {
        client: u32,
        attempt: u32,
        status: u16,
    },
    TimedOut {
        client: u32,
        attempt: u32,
    },
    GaveUp {
        client: u32,
        intent: u32,
        /// The client's deadline ended the retries, not their count.
        #[serde(default, skip_serializing_if = "is_false")]
        deadline: bool,
    },
    /// A client with a retry policy beyond a constant wait (exponential
    /// growth, jitter or a deadline) will send retry number `retry` of its
    /// intent `wait_ms` from now: `base_ms` from the policy, plus
    /// `jitter_ms` chosen at the choice point.
    RetryScheduled {
        client: u32,
        retry: u32,
        base_ms: u64,
        jitter_ms: u64,
        wait_ms: u64,
    },
    Crashed {
        instance: u32,
        lost_attempts: Vec<u32>,
    },
    Restarted {
        instance: u32,
    },
    /// Recovery asked the acquirer's API about a stuck key, by the key
    /// itself when it was sent as the provider's key, otherwise by the
    /// order reference every capture carries, and acted on the answer.
    Reconciled {
        key: String,
        order_id: i64,
        /// The key is a queue message's id (`mensagem_processada`).
        #[serde(default, skip_serializing_if = "is_false")]
        message: bool,
        by_provider_key: bool,
        outcome: Reconciliation,
    },
    /// A worker's fenced write matched no row: recovery or another attempt
    /// took its lease, so it stored nothing and keeps no answer of its own.
    LeaseTaken {
        attempt: u32,
    },
    /// The effect's event reached the broker: from the handler after its
    /// commit (`attempt`), or from the outbox relay (`attempt` is `None`).
    EventPublished {
        attempt: Option<u32>,
        order_id: i64,
    },
    EventLimitReached,
    HorizonReached,
}

impl EventKind {
    /// The kind's name as serialized (`attempt_sent`, `sql`, ...), without
    /// going through serde: the page must not link a serializer for this.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::AttemptSent { .. } => "attempt_sent",
            EventKind::BodySent { .. } => "body_sent",
            EventKind::RequestDropped { .. } => "request_dropped",
            EventKind::Routed { .. } => "routed",
            EventKind::NoInstanceAlive { .. } => "no_instance_alive",
            EventKind::ConnectionWait { .. } => "connection_wait",
            EventKind::Sql { .. } => "sql",
            EventKind::SqlResumed { .. } => "sql_resumed",
            EventKind::CaptureRequested { .. } => "capture_requested",
            EventKind::Captured { .. } => "captured",
            EventKind::Declined { .. } => "declined",
            EventKind::ProviderReplayed { .. } => "provider_replayed",
            EventKind::AcquirerReplyLost { .. } => "acquirer_reply_lost",
            EventKind::AcquirerReplied { .. } => "acquirer_replied",
            EventKind::AcquirerTimedOut { .. } => "acquirer_timed_out",
            EventKind::Responded { .. } => "responded",
            EventKind::ResponseDropped { .. } => "response_dropped",
            EventKind::Delayed { .. } => "delayed",
            EventKind::ResponseReceived { .. } => "response_received",
            EventKind::LateResponseIgnored { .. } => "late_response_ignored",
            EventKind::TimedOut { .. } => "timed_out",
            EventKind::GaveUp { .. } => "gave_up",
            EventKind::RetryScheduled { .. } => "retry_scheduled",
            EventKind::Crashed { .. } => "crashed",
            EventKind::Restarted { .. } => "restarted",
            EventKind::Reconciled { .. } => "reconciled",
            EventKind::LeaseTaken { .. } => "lease_taken",
            EventKind::EventPublished { .. } => "event_published",
            EventKind::EventLimitReached => "event_limit_reached",
            EventKind::HorizonReached => "horizon_reached",
        }
    }
}

/// What recovery made of the acquirer's answer about one key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reconciliation {
    /// A capture: the key is completed with a 201.
    Captured,
    /// A decline: the key is completed with the 402.
    Declined,
    /// No call reached the acquirer: the key is `failed_safe`.
    NothingFound,
    /// The answer cannot be pinned on this key (no provider key, and the
    /// order has other keys here): `escalated`, for a person to decide.
    Escalated,
}

impl Reconciliation {
    /// The outcome's name as serialized (`captured`, `nothing_found`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Reconciliation::Captured => "captured",
            Reconciliation::Declined => "declined",
            Reconciliation::NothingFound => "nothing_found",
            Reconciliation::Escalated => "escalated",
        }
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TraceEvent {
    pub time_ms: u64,
    pub actor: Actor,
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClientView {
    pub name: String,
    /// A queue delivering a message, not an app.
    #[serde(default, skip_serializing_if = "is_false")]
    pub queue: bool,
    pub knowledge: Knowledge,
    pub intent: u32,
    pub attempts_sent: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct JobView {
    pub attempt: u32,
    /// The handler step it is on, e.g. `claim` or `capture`.
    pub step: String,
    pub holds_connection: bool,
    pub in_transaction: bool,
    /// Waiting for the transaction of a job on this instance.
    pub waiting_on_instance: Option<u32>,
    pub waiting_since_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InstanceView {
    pub alive: bool,
    pub jobs: Vec<JobView>,
    pub connections_free: u32,
    /// The attempts waiting for a free pool connection, first come first:
    /// the queue a pool too small for its held transactions grows
    /// (`pool-exhausted`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connection_queue: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableView {
    pub name: String,
    pub columns: Vec<String>,
    pub rows: Vec<RowView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    Request,
    Response,
    Capture,
    CaptureReply,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MessageView {
    pub kind: MessageKind,
    pub attempt: u32,
    pub from: Actor,
    pub to: Actor,
    pub sent_ms: u64,
    pub arrives_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Frame {
    pub time_ms: u64,
    pub clients: Vec<ClientView>,
    pub instances: Vec<InstanceView>,
    pub tables: Vec<TableView>,
    /// Charges per intent, indexed like `Summary::intents`: the acquirer's
    /// captures plus the local effects of `local_effects`.
    pub captures: Vec<u32>,
    pub charged_cents: i64,
    /// Of `captures`, the orders paid in the database itself (`local-effect`
    /// debits an account instead of calling the acquirer), per intent;
    /// empty when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub local_effects: Vec<u32>,
    pub in_flight: Vec<MessageView>,
}

impl Frame {
    /// The acquirer's captures per intent: the charges less the local
    /// effects.
    pub fn acquirer_captures(&self) -> impl Iterator<Item = u32> + '_ {
        self.captures
            .iter()
            .enumerate()
            .map(|(i, n)| n - self.local_effects.get(i).copied().unwrap_or(0))
    }
}

/// One step of the scheduler: what happened and the world after it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Step {
    pub events: Vec<TraceEvent>,
    pub frame: Frame,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// Nothing left to happen.
    Quiescent,
    /// The scenario's horizon passed with work left.
    Horizon,
    /// The run hit the event limit.
    EventLimit,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IntentOutcome {
    pub client: u32,
    pub order_id: i64,
    pub amount_cents: i64,
    pub key: String,
    pub captures: u32,
    pub charged_cents: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AttemptOutcome {
    pub attempt: u32,
    pub client: u32,
    pub intent: u32,
    pub key: String,
    pub instance: Option<u32>,
    /// The answer the client received, if it received one in time.
    pub status: Option<u16>,
    /// The answer's headers (jsonb text), when it carried any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<String>,
    pub body: Option<String>,
    /// The client's knowledge about this attempt at the end.
    pub knowledge: Knowledge,
    pub reached_acquirer: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Verdict {
    pub name: String,
    pub holds: bool,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Summary {
    pub end: EndReason,
    pub end_ms: u64,
    pub captures: u32,
    pub charged_cents: i64,
    pub intents: Vec<IntentOutcome>,
    /// Indexes into `intents` of those captured more than once.
    pub double_charged_intents: Vec<u32>,
    pub attempts: Vec<AttemptOutcome>,
    /// Total time statements spent waiting on another transaction's row.
    pub blocked_ms: u64,
    pub invariants: Vec<Verdict>,
}

impl Summary {
    pub fn verdict(&self, name: &str) -> Option<&Verdict> {
        self.invariants.iter().find(|v| v.name == name)
    }
    pub fn statuses(&self) -> Vec<Option<u16>> {
        self.attempts.iter().map(|a| a.status).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_kind_names_match_their_serialized_tags() {
        let kinds = [
            EventKind::Routed {
                attempt: 0,
                instance: 1,
            },
            EventKind::TimedOut {
                client: 0,
                attempt: 0,
            },
            EventKind::EventLimitReached,
            EventKind::Sql {
                attempt: None,
                sql: String::new(),
                outcome: SqlOutcome::Ok,
            },
        ];
        for k in kinds {
            let v = serde_json::to_value(&k).unwrap();
            assert_eq!(v["kind"], k.name());
        }
    }
}
