//! A scenario is plain data: who sends what, through which instances, with
//! which timings and faults, under which design. [`Scenario::validate`]
//! enforces the limits that keep any scenario from hanging a browser.

use crate::store::Isolation;
use serde::{Deserialize, Serialize};
use std::fmt;

mod json;

/// The designs under comparison. The same names are used in code, CLI, UI,
/// docs and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Insert and capture, no protection.
    Naive,
    /// SELECT by order, then INSERT and capture: the race.
    CheckThenAct,
    /// `INSERT ... ON CONFLICT DO NOTHING RETURNING`, commit, capture, store
    /// the response; a repeat reads the row.
    IdempotencyKey,
    /// The same with a plain INSERT whose 23505 is caught.
    IdempotencyKeyCatch,
    /// The pitfall: the claim's transaction stays open across the capture.
    IdempotencyKeyHeldTx,
    /// The second seed's state machine: scope, fingerprint, lease, recovery.
    IdempotencyKeyLease,
    /// Claim and a local business insert in one transaction (no acquirer).
    LocalEffect,
}

impl Strategy {
    pub const ALL: [Strategy; 7] = [
        Strategy::Naive,
        Strategy::CheckThenAct,
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyHeldTx,
        Strategy::IdempotencyKeyLease,
        Strategy::LocalEffect,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Strategy::Naive => "naive",
            Strategy::CheckThenAct => "check-then-act",
            Strategy::IdempotencyKey => "idempotency-key",
            Strategy::IdempotencyKeyCatch => "idempotency-key-catch",
            Strategy::IdempotencyKeyHeldTx => "idempotency-key-held-tx",
            Strategy::IdempotencyKeyLease => "idempotency-key-lease",
            Strategy::LocalEffect => "local-effect",
        }
    }

    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the design uses an idempotency key at all.
    pub fn uses_key(self) -> bool {
        !matches!(self, Strategy::Naive | Strategy::CheckThenAct)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Text in both of the page's languages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub pt: String,
    pub en: String,
}

/// One charge the client wants to happen exactly once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Intent {
    pub order_id: i64,
    pub amount_cents: i64,
    pub key: String,
    #[serde(default = "default_tenant")]
    pub tenant: String,
}

fn default_tenant() -> String {
    "loja-1".into()
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// An app calling the API over HTTP.
    #[default]
    Http,
    /// A queue delivering a message at least once: `timeout_ms` is the
    /// visibility timeout, `retries_max` the redeliveries before the
    /// dead-letter queue, and the intent's key the message id, which the
    /// consumer records in `mensagem_processada` (see `handler::queue`).
    Queue,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    pub name: String,
    #[serde(default)]
    pub kind: ClientKind,
    pub intents: Vec<Intent>,
    #[serde(default)]
    pub start_ms: u64,
    pub timeout_ms: u64,
    #[serde(default)]
    pub retries_max: u32,
    #[serde(default)]
    pub backoff_ms: u64,
    /// The known bug: every retry mints a new key, so the server cannot tell
    /// it is a repeat.
    #[serde(default)]
    pub new_key_per_retry: bool,
    /// Another intent with the same key (key reuse): sent after the first
    /// intent ends.
    #[serde(default)]
    pub gap_between_intents_ms: u64,
    /// The body carries `client_ts`, the instant the attempt left: a field
    /// that changes on every retry without changing the intent.
    #[serde(default)]
    pub client_timestamp: bool,
    /// Retries serialize the body anew: the same fields in another order,
    /// with extra whitespace, as a second code path or library would.
    #[serde(default)]
    pub reformat_retries: bool,
    /// How the wait before a retry grows: the same `backoff_ms` every time,
    /// or doubling from it. Left out of the JSON at its default, as are the
    /// three fields below, so a scenario written before them reads and
    /// writes as it did.
    #[serde(default, skip_serializing_if = "is_default")]
    pub backoff: Backoff,
    /// The longest one wait may be, jitter aside; 0 is no cap.
    #[serde(default, skip_serializing_if = "is_default")]
    pub backoff_max_ms: u64,
    /// Up to this many extra milliseconds on each wait, chosen at the
    /// choice point (as the network's jitter is), so that clients that
    /// failed together do not all come back together.
    #[serde(default, skip_serializing_if = "is_default")]
    pub backoff_jitter_ms: u32,
    /// The most time an intent may take from its first attempt: a retry
    /// that would leave later is not sent, and the client gives up. 0 is no
    /// deadline.
    #[serde(default, skip_serializing_if = "is_default")]
    pub deadline_ms: u64,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// How a client's wait before a retry grows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backoff {
    /// `backoff_ms` before every retry.
    #[default]
    Constant,
    /// `backoff_ms` before the first retry, twice that before the second,
    /// and so on, up to `backoff_max_ms` when it is set.
    Exponential,
}

impl Backoff {
    pub fn name(self) -> &'static str {
        match self {
            Backoff::Constant => "constant",
            Backoff::Exponential => "exponential",
        }
    }
}

impl ClientSpec {
    /// The wait before retry number `retry` (1 for the first retry) of an
    /// intent, before any jitter.
    pub fn backoff_before(&self, retry: u32) -> u64 {
        let grown = match self.backoff {
            Backoff::Constant => self.backoff_ms,
            Backoff::Exponential => {
                let doublings = retry.saturating_sub(1).min(63);
                self.backoff_ms.saturating_mul(1u64 << doublings)
            }
        };
        match self.backoff_max_ms {
            0 => grown,
            cap => grown.min(cap),
        }
    }

    /// Whether the client's retry policy is more than a constant wait: its
    /// runs then tell each wait, and the deadline when it ends the retries.
    pub fn tells_backoff(&self) -> bool {
        self.backoff != Backoff::Constant || self.backoff_jitter_ms > 0 || self.deadline_ms > 0
    }

    /// How late after its first attempt an intent's last retry can leave:
    /// every earlier attempt's timeout and every wait at its longest, or the
    /// deadline when that is shorter.
    pub fn retry_span_ms(&self) -> u64 {
        let waits = (1..=self.retries_max).fold(0u64, |sum, k| {
            sum.saturating_add(self.backoff_before(k))
                .saturating_add(u64::from(self.backoff_jitter_ms))
        });
        let span = u64::from(self.retries_max)
            .saturating_mul(self.timeout_ms)
            .saturating_add(waits);
        match self.deadline_ms {
            0 => span,
            d => span.min(d),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadBalancerPolicy {
    #[default]
    RoundRobin,
    /// Seeded: goes through the choice point.
    Random,
    LeastBusy,
    /// The same key always lands on the same instance.
    StickyByKey,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    /// One way, client to instance and back.
    #[serde(default)]
    pub latency_ms: u64,
    /// Up to this many extra milliseconds per hop, chosen at the choice point.
    #[serde(default)]
    pub jitter_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcquirerSpec {
    /// Round trip of a capture call.
    pub latency_ms: u64,
    /// How long an instance waits for the acquirer before giving up.
    pub timeout_ms: u64,
    #[serde(default)]
    pub decline: bool,
    /// The service passes the intent's key on to the acquirer, which
    /// remembers every key it has seen (for longer than the service keeps
    /// its own, as a provider's window may be) and answers a repeat with
    /// its first answer instead of capturing again. It stops a late retry
    /// the service no longer recognises from charging twice (built-in
    /// `late-retry-provider-key`).
    #[serde(default)]
    pub provider_keys: bool,
}

impl Default for AcquirerSpec {
    fn default() -> Self {
        Self {
            latency_ms: 100,
            timeout_ms: 10_000,
            decline: false,
            provider_keys: false,
        }
    }
}

/// Where a crash strikes a handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CrashPoint {
    /// Right after the claim (or first insert) committed.
    AfterCommit,
    /// Right after the capture request left for the acquirer.
    AfterCaptureSent,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Fault {
    /// Attempt number `attempt` (1-based, in send order) never arrives.
    DropRequest { attempt: u32 },
    /// The answer to attempt `attempt` is lost on its way back.
    DropResponse { attempt: u32 },
    /// The instance dies at a time or at a point of its first handler, and
    /// comes back after `restart_after_ms`.
    Crash {
        instance: u32,
        #[serde(default)]
        at_ms: Option<u64>,
        #[serde(default)]
        at_point: Option<CrashPoint>,
        restart_after_ms: u64,
    },
    /// Capture call number `call` (1-based) is accepted, but its answer never
    /// comes back: the effect happened and nobody heard.
    AcquirerTimeoutAfterAccept { call: u32 },
    /// Capture call number `call` (1-based) is refused: the card is
    /// declined on that call, whatever `acquirer.decline` says of the others.
    AcquirerDeclines { call: u32 },
}

/// What the key's uniqueness is scoped by (`chave_idempotencia`'s UNIQUE
/// pair is `(escopo, chave)`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyScope {
    /// `<tenant>:cobranca`: the same key value from two tenants, or for two
    /// operations, is two keys.
    #[default]
    TenantOperation,
    /// One scope for everybody: a key value another tenant already used is
    /// taken.
    Global,
}

/// What the server hashes into a key's fingerprint (`impressao`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FingerprintPolicy {
    /// The fields that define the intent (`order_id`, `amount_cents`) in
    /// canonical JSON: whitespace, key order and other fields change nothing.
    #[default]
    Canonical,
    /// The body's bytes as they arrived.
    RawBody,
    /// The canonical fields plus the client's `client_ts`.
    WithClientTimestamp,
}

/// `local-effect` with a balance: the effect debits one account row,
/// `conta`, reading its balance first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceSpec {
    /// The account's balance before any debit.
    pub opening_cents: i64,
    /// Read the balance with `SELECT ... FOR UPDATE`, so that a concurrent
    /// debit waits for this one instead of writing over it.
    #[serde(default)]
    pub for_update: bool,
    /// The optimistic alternative: the account (`conta_versionada`) has a
    /// version column, the read takes it with the balance, and the write
    /// names it (`... versao = versao + 1 WHERE id = 1 AND versao = v`). A
    /// write that matches no row lost the race: the handler reads again and
    /// retries, three times at most (the built-in design's `again`), then
    /// answers 409. Left out of the JSON
    /// when false.
    #[serde(default, skip_serializing_if = "is_default")]
    pub version_column: bool,
}

impl BalanceSpec {
    /// The table the debit reads and writes.
    pub fn table(&self) -> &'static str {
        if self.version_column {
            "conta_versionada"
        } else {
            "conta"
        }
    }
}

/// `local-effect`: how the event that announces the effect is published.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventDelivery {
    /// No event.
    #[default]
    None,
    /// The handler publishes after its COMMIT: a crash in between loses it.
    AfterCommit,
    /// A row of `evento_outbox`, written in the effect's transaction; a
    /// relay publishes it and marks it sent.
    Outbox,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub title: Text,
    #[serde(default)]
    pub description: Text,
    pub strategy: Strategy,
    #[serde(default)]
    pub isolation: Isolation,
    #[serde(default)]
    pub seed: u64,
    pub instances: u32,
    #[serde(default = "default_pool")]
    pub pool_size: u32,
    #[serde(default)]
    pub load_balancer: LoadBalancerPolicy,
    pub clients: Vec<ClientSpec>,
    #[serde(default)]
    pub network: NetworkSpec,
    #[serde(default)]
    pub acquirer: AcquirerSpec,
    /// Time one SQL statement takes.
    #[serde(default = "default_db_latency")]
    pub db_latency_ms: u64,
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// How long a resolved key is kept, counted from when it was resolved
    /// (Stripe: at least 24 h). A key still processing or unknown is kept
    /// whatever its age: only recovery resolves it.
    #[serde(default = "default_ttl")]
    pub key_ttl_ms: u64,
    /// `idempotency-key-lease`: how long a processing claim is owned.
    #[serde(default = "default_lease")]
    pub lease_ms: u64,
    /// `idempotency-key-lease`: how often recovery looks for stuck keys.
    #[serde(default = "default_recovery")]
    pub recovery_every_ms: u64,
    /// Nothing happens after this instant.
    #[serde(default = "default_horizon")]
    pub horizon_ms: u64,
    /// `check-then-act`: every statement commits on its own, instead of
    /// one transaction held across the capture. Ignored by the others.
    #[serde(default)]
    pub autocommit: bool,
    /// `idempotency-key-lease` and `local-effect`: the key's scope.
    #[serde(default)]
    pub key_scope: KeyScope,
    /// `idempotency-key-lease` and `local-effect`: what the fingerprint hashes.
    #[serde(default)]
    pub fingerprint: FingerprintPolicy,
    /// `local-effect`: debit an account instead of only recording the order.
    #[serde(default)]
    pub balance: Option<BalanceSpec>,
    /// `local-effect`: publish an event for each effect.
    #[serde(default)]
    pub event: EventDelivery,
    /// A design run in place of the strategy's built-in one, for the jobs
    /// it serves (`lousa run --design`, issue #31). It travels beside the scenario's
    /// JSON, not in it, until links carry designs; read it with
    /// [`Scenario::program`].
    #[cfg(feature = "designs")]
    #[serde(skip)]
    pub design: Option<std::sync::Arc<crate::design::Program>>,
}

fn default_pool() -> u32 {
    4
}
fn default_db_latency() -> u64 {
    5
}
fn default_ttl() -> u64 {
    24 * 3600 * 1000
}
fn default_lease() -> u64 {
    30_000
}
fn default_recovery() -> u64 {
    10_000
}
fn default_horizon() -> u64 {
    600_000
}

/// Limits on every input, so no scenario can hang a reader's browser.
pub mod limits {
    pub const CLIENTS_MAX: usize = 8;
    pub const INTENTS_PER_CLIENT_MAX: usize = 4;
    pub const INSTANCES_MAX: u32 = 8;
    pub const POOL_SIZE_MAX: u32 = 16;
    pub const RETRIES_MAX: u32 = 20;
    /// Attempts a run may make in all: each intent of each client is tried
    /// up to `retries_max + 1` times. A run keeps a frame per step, and each
    /// frame holds every attempt, so this bounds a run's memory (see
    /// docs/performance.md, "The largest scenario the limits allow").
    pub const ATTEMPTS_MAX: u64 = 160;
    pub const FAULTS_MAX: usize = 16;
    pub const TIME_MS_MAX: u64 = 7 * 24 * 3600 * 1000;
    pub const JITTER_MS_MAX: u32 = 1_000;
    pub const TEXT_LEN_MAX: usize = 200;
    /// A title's or a description's length, in each language: prose,
    /// where the built-ins' longest is under 500.
    pub const PROSE_LEN_MAX: usize = 2_000;
    pub const AMOUNT_CENTS_MAX: i64 = 100_000_000_000;
    pub const ORDER_ID_MAX: i64 = i64::MAX / 2;
    pub const DB_LATENCY_MS_MAX: u64 = 60_000;
    pub const RECOVERY_EVERY_MS_MIN: u64 = 100;
    /// Levels of `[` and `{` scenario JSON may nest. A scenario's deepest
    /// value sits three levels down (a client's intent's field); past this,
    /// the text is refused for its nesting before anything reads its shape.
    pub const JSON_DEPTH_MAX: usize = 16;
    /// Events one run may produce; hitting it ends the run with a named outcome.
    pub const EVENTS_MAX: usize = 20_000;
}

/// A refusal that names the field and the limit: the strict reader's.
pub use crate::json::FieldError as ScenarioError;

fn fail(field: impl Into<String>, message: impl Into<String>) -> Result<(), ScenarioError> {
    Err(ScenarioError {
        field: field.into(),
        message: message.into(),
    })
}

fn at_most<T: PartialOrd + fmt::Display>(
    field: &str,
    value: T,
    max: T,
) -> Result<(), ScenarioError> {
    if value > max {
        return fail(field, format!("{value} exceeds the limit {max}"));
    }
    Ok(())
}

fn in_range<T: PartialOrd + fmt::Display>(
    field: &str,
    value: T,
    min: T,
    max: T,
) -> Result<(), ScenarioError> {
    if value < min || value > max {
        return fail(field, format!("{value} is outside {min}..={max}"));
    }
    Ok(())
}

/// A name, a key or a tenant: one line of printable text, which the
/// timeline prints and a key travels in (an HTTP header holds no control
/// character).
fn short_text(field: &str, s: &str, allow_empty: bool) -> Result<(), ScenarioError> {
    if !allow_empty && s.is_empty() {
        return fail(field, "must not be empty");
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return fail(
            field,
            format!(
                "holds the control character U+{:04X}: write it without one",
                u32::from(c)
            ),
        );
    }
    text_at_most(field, s, limits::TEXT_LEN_MAX)
}

fn text_at_most(field: &str, s: &str, max: usize) -> Result<(), ScenarioError> {
    let n = s.chars().count();
    if n > max {
        return fail(field, format!("{n} characters exceed the limit {max}"));
    }
    Ok(())
}

impl Scenario {
    /// Parses and validates scenario JSON: the one way in for scenario text.
    /// Unknown fields are refused by name, and every refusal names the field
    /// path and the expected type or the limit (see `scenario/json.rs`).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        const JSON_BYTES_MAX: usize = 256 * 1024;
        if text.len() > JSON_BYTES_MAX {
            fail(
                "scenario",
                format!("{} bytes exceed the limit {JSON_BYTES_MAX}", text.len()),
            )?;
        }
        let s = json::parse(text)?;
        s.validate()?;
        Ok(s)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("scenario serializes")
    }

    /// Whether one of its clients is of `kind`.
    pub fn has_client(&self, kind: ClientKind) -> bool {
        self.clients.iter().any(|c| c.kind == kind)
    }

    /// The design of its own, if any, which the jobs it serves run in place
    /// of the strategy's built-in (see `handler::program`).
    #[cfg(feature = "designs")]
    pub fn program(&self) -> Option<&crate::design::Program> {
        self.design.as_deref()
    }

    /// None: without the `designs` feature a scenario carries no design of
    /// its own, and runs its strategy's built-in (the reader's page).
    #[cfg(not(feature = "designs"))]
    pub fn program(&self) -> Option<&crate::design::Program> {
        None
    }

    pub fn validate(&self) -> Result<(), ScenarioError> {
        use limits::*;
        short_text("name", &self.name, false)?;
        for (field, text) in [
            ("title.pt", &self.title.pt),
            ("title.en", &self.title.en),
            ("description.pt", &self.description.pt),
            ("description.en", &self.description.en),
        ] {
            text_at_most(field, text, PROSE_LEN_MAX)?;
        }
        in_range("instances", self.instances, 1, INSTANCES_MAX)?;
        in_range("pool_size", self.pool_size, 1, POOL_SIZE_MAX)?;
        if self.clients.is_empty() {
            fail("clients", "at least one client is needed")?;
        }
        at_most("clients", self.clients.len(), CLIENTS_MAX).map_err(|_| ScenarioError {
            field: "clients".into(),
            message: format!(
                "{} clients exceed the limit {CLIENTS_MAX}",
                self.clients.len()
            ),
        })?;
        for (i, c) in self.clients.iter().enumerate() {
            let f = |name: &str| format!("clients[{i}].{name}");
            short_text(&f("name"), &c.name, false)?;
            if c.intents.is_empty() {
                fail(f("intents"), "at least one intent is needed")?;
            }
            at_most(&f("intents"), c.intents.len(), INTENTS_PER_CLIENT_MAX).map_err(|_| {
                ScenarioError {
                    field: f("intents"),
                    message: format!(
                        "{} intents exceed the limit {INTENTS_PER_CLIENT_MAX}",
                        c.intents.len()
                    ),
                }
            })?;
            at_most(&f("start_ms"), c.start_ms, TIME_MS_MAX)?;
            in_range(&f("timeout_ms"), c.timeout_ms, 1, TIME_MS_MAX)?;
            at_most(&f("retries_max"), c.retries_max, RETRIES_MAX)?;
            at_most(&f("backoff_ms"), c.backoff_ms, TIME_MS_MAX)?;
            at_most(&f("backoff_max_ms"), c.backoff_max_ms, TIME_MS_MAX)?;
            at_most(&f("backoff_jitter_ms"), c.backoff_jitter_ms, JITTER_MS_MAX)?;
            at_most(&f("deadline_ms"), c.deadline_ms, TIME_MS_MAX)?;
            at_most(
                &f("gap_between_intents_ms"),
                c.gap_between_intents_ms,
                TIME_MS_MAX,
            )?;
            for (j, it) in c.intents.iter().enumerate() {
                let g = |name: &str| format!("clients[{i}].intents[{j}].{name}");
                short_text(&g("key"), &it.key, false)?;
                short_text(&g("tenant"), &it.tenant, false)?;
                in_range(&g("amount_cents"), it.amount_cents, 1, AMOUNT_CENTS_MAX)?;
                in_range(&g("order_id"), it.order_id, 1, ORDER_ID_MAX)?;
            }
        }
        let attempts: u64 = self
            .clients
            .iter()
            .map(|c| c.intents.len() as u64 * (u64::from(c.retries_max) + 1))
            .sum();
        if attempts > ATTEMPTS_MAX {
            fail(
                "clients",
                format!(
                    "{attempts} attempts in all (each client's intents x (retries_max + 1)) exceed the limit {ATTEMPTS_MAX}"
                ),
            )?;
        }
        at_most("network.latency_ms", self.network.latency_ms, TIME_MS_MAX)?;
        at_most("network.jitter_ms", self.network.jitter_ms, JITTER_MS_MAX)?;
        at_most("acquirer.latency_ms", self.acquirer.latency_ms, TIME_MS_MAX)?;
        in_range(
            "acquirer.timeout_ms",
            self.acquirer.timeout_ms,
            1,
            TIME_MS_MAX,
        )?;
        at_most("db_latency_ms", self.db_latency_ms, DB_LATENCY_MS_MAX)?;
        in_range("key_ttl_ms", self.key_ttl_ms, 1, TIME_MS_MAX)?;
        in_range("lease_ms", self.lease_ms, 1, TIME_MS_MAX)?;
        in_range(
            "recovery_every_ms",
            self.recovery_every_ms,
            RECOVERY_EVERY_MS_MIN,
            TIME_MS_MAX,
        )?;
        in_range("horizon_ms", self.horizon_ms, 1, TIME_MS_MAX)?;
        if let Some(b) = &self.balance {
            in_range(
                "balance.opening_cents",
                b.opening_cents,
                0,
                AMOUNT_CENTS_MAX,
            )?;
            if b.for_update && b.version_column {
                fail(
                    "balance.version_column",
                    "choose one of for_update (a lock) and version_column (a version check), not both",
                )?;
            }
        }
        at_most("faults", self.faults.len(), FAULTS_MAX).map_err(|_| ScenarioError {
            field: "faults".into(),
            message: format!("{} faults exceed the limit {FAULTS_MAX}", self.faults.len()),
        })?;
        for (i, fault) in self.faults.iter().enumerate() {
            let f = |name: &str| format!("faults[{i}].{name}");
            match fault {
                Fault::DropRequest { attempt } | Fault::DropResponse { attempt } => {
                    in_range(&f("attempt"), *attempt, 1, 1_000)?;
                }
                Fault::Crash {
                    instance,
                    at_ms,
                    at_point,
                    restart_after_ms,
                } => {
                    in_range(&f("instance"), *instance, 0, self.instances - 1)?;
                    if at_ms.is_none() == at_point.is_none() {
                        fail(f("at_ms"), "give exactly one of at_ms and at_point")?;
                    }
                    if let Some(t) = at_ms {
                        at_most(&f("at_ms"), *t, TIME_MS_MAX)?;
                    }
                    at_most(&f("restart_after_ms"), *restart_after_ms, TIME_MS_MAX)?;
                }
                Fault::AcquirerTimeoutAfterAccept { call } | Fault::AcquirerDeclines { call } => {
                    in_range(&f("call"), *call, 1, 1_000)?
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategy_names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::from_name(s.name()), Some(s));
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.name()));
        }
    }
}
