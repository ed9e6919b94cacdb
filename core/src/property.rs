//! The properties a run is judged by and an explorer checks, as values: one
//! table ([`ALL`]) of [`Property`] read by the run's verdicts
//! (`run::summarize`), the explorer, the CLI and the stateright peer model
//! in tests/. A new property is one entry here; a misspelt one does not
//! compile, where a name matched against strings would silently never hold.

use crate::scenario::{ClientKind, Strategy};
use crate::trace::Reconciliation;
use crate::trace::{AttemptOutcome, IntentOutcome, Verdict};
use crate::world::{Breach, World};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// Must hold at the end of every complete schedule.
    Always,
    /// Must hold at the end of at least one, or the check fails: a green run
    /// cannot be vacuous.
    Sometimes,
}

/// What a property is judged on: a finished world and what its run came to.
pub struct Ending<'a> {
    pub world: &'a World,
    pub intents: &'a [IntentOutcome],
    pub attempts: &'a [AttemptOutcome],
}

/// A property as a value. Equal when named alike: names are unique in
/// [`ALL`] (a test checks).
#[derive(Clone, Copy, Debug)]
pub struct Property {
    pub name: &'static str,
    pub modality: Modality,
    /// What an ending shows of the property, one line each: for an *always*
    /// property the ways it is broken (none: it holds), for a *sometimes*
    /// property the ways it is reached (none: not here).
    pub check: fn(&Ending) -> Vec<String>,
    /// The one strategy the property is about, when it is specific to one;
    /// under the others it is not judged.
    pub only_under: Option<Strategy>,
}

impl PartialEq for Property {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for Property {}
impl Hash for Property {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.name.hash(h);
    }
}

impl Property {
    /// Whether the property is judged under `strategy`.
    pub fn applies_to(&self, strategy: Strategy) -> bool {
        self.only_under.is_none_or(|s| s == strategy)
    }

    /// Whether the property is judged in `scenario`: under its strategy, and
    /// the lease design's under any design that keeps its keys as the lease
    /// design does (`handler::recovers_keys`), whatever the strategy.
    pub fn applies_in(&self, scenario: &crate::Scenario) -> bool {
        self.applies_to(scenario.strategy)
            || (self.only_under == Some(Strategy::IdempotencyKeyLease)
                && crate::handler::recovers_keys(scenario))
    }

    /// Whether `ending` shows the property (reached, or broken).
    pub fn shown_by(&self, ending: &Ending) -> bool {
        !(self.check)(ending).is_empty()
    }
}

pub const AT_MOST_ONE_CAPTURE: Property = Property {
    name: "at-most-one-capture-per-intent",
    modality: Modality::Always,
    check: at_most_one_capture,
    only_under: None,
};

pub const EVERY_2XX_ONE_CAPTURE: Property = Property {
    name: "every-2xx-has-exactly-one-capture",
    modality: Modality::Always,
    check: every_2xx_one_capture,
    only_under: None,
};

pub const REPLAY_EQUALS_FIRST: Property = Property {
    name: "replay-equals-first-response",
    modality: Modality::Always,
    check: replay_equals_first,
    only_under: None,
};

pub const CONFLICTS_NEVER_CHARGE: Property = Property {
    name: "409-and-422-never-reach-the-acquirer",
    modality: Modality::Always,
    check: conflicts_never_charge,
    only_under: None,
};

pub const NO_KEY_STUCK: Property = Property {
    name: "no-key-stuck-processing-past-lease-and-recovery",
    modality: Modality::Always,
    check: |e| stuck_keys(e.world),
    only_under: Some(Strategy::IdempotencyKeyLease),
};

/// The second seed's rule for an expired lease: a key whose effect may have
/// happened (`processing`, `unknown`) is resolved by recovery, never deleted,
/// whatever its age; otherwise the next retry charges again.
pub const NO_KEY_FORGOTTEN_UNRESOLVED: Property = Property {
    name: "no-key-forgotten-while-its-effect-is-unresolved",
    modality: Modality::Always,
    check: |e| {
        e.world
            .forgotten_unresolved
            .iter()
            .map(|k| format!("key {k} deleted while its effect was unresolved"))
            .collect()
    },
    only_under: Some(Strategy::IdempotencyKeyLease),
};

/// A refusal is the key's answer: once the acquirer declined a call for a
/// key, no later call for that key captures. A design that stores the 402
/// replays it; one that does not sends the retry to the acquirer again,
/// and a card that passes the second time is charged after the client was
/// (or would have been) told no.
pub const DECLINED_KEY_NEVER_CAPTURES: Property = Property {
    name: "a-declined-key-is-never-charged",
    modality: Modality::Always,
    check: declined_key_captures,
    only_under: None,
};

/// A 422 says "this key was used for another intent". It is true only when
/// the same tenant sent the same key for another intent; a key another
/// tenant happened to choose (an unscoped key), or a retry whose
/// fingerprint changed (a client timestamp hashed in), is a false 422: a
/// legitimate request refused.
pub const NO_FALSE_422: Property = Property {
    name: "422-only-for-a-key-its-tenant-reused",
    modality: Modality::Always,
    check: false_422s,
    // The design with a scope and a fingerprint to get wrong.
    only_under: Some(Strategy::IdempotencyKeyLease),
};

/// A debit that reads the balance and writes the new one must not write
/// over another's: the balance ends as the opening balance minus every
/// committed debit (`local-effect` with a balance).
pub const NO_LOST_UPDATE: Property = Property {
    name: "no-lost-update",
    modality: Modality::Always,
    check: lost_updates,
    only_under: Some(Strategy::LocalEffect),
};

/// Every committed effect's event reaches the broker (`local-effect` with
/// an event): the effect and the promise to announce it commit together.
pub const EVERY_EFFECT_PUBLISHED: Property = Property {
    name: "every-committed-effect-has-its-event-published",
    modality: Modality::Always,
    check: unpublished_effects,
    only_under: Some(Strategy::LocalEffect),
};

/// Once a key is completed, its state and stored answer stay as they are
/// (until its lifetime deletes it): a replay is only as true as the answer
/// it replays. A worker that comes back late, or recovery, must not write
/// over it.
pub const COMPLETED_ANSWER_NEVER_CHANGES: Property = Property {
    name: "a-completed-key-never-changes-its-stored-answer",
    modality: Modality::Always,
    check: |e| {
        breaches(
            e,
            Breach::CompletedAnswerChanged,
            "key {} changed after it was completed",
        )
    },
    only_under: None,
};

/// A queue consumer's ack says "this message is done": it follows exactly
/// one charge decision for the message (one capture; or none and the
/// decline that is its answer), and no charge comes after it.
pub const ACK_FOLLOWS_ONE_CAPTURE: Property = Property {
    name: "every-ack-follows-exactly-one-capture",
    modality: Modality::Always,
    check: acks_without_one_capture,
    only_under: None,
};

/// A worker whose lease recovery or another attempt took writes nothing
/// more: its writes carry the lease, and match no row once it is taken.
pub const NO_WRITE_AFTER_LEASE_TAKEN: Property = Property {
    name: "no-write-by-a-worker-whose-lease-was-taken",
    modality: Modality::Always,
    check: |e| {
        breaches(
            e,
            Breach::WriteAfterLeaseTaken,
            "a write for key {} landed after its lease was taken",
        )
    },
    only_under: None,
};

/// Recovery resolves a key only from what the acquirer's API could have
/// answered when it asked: calls the acquirer had received, found by the
/// key when the key was sent as the provider's, by the order otherwise.
pub const RECOVERY_FROM_THE_API: Property = Property {
    name: "recovery-resolves-a-key-only-from-the-acquirers-answer",
    modality: Modality::Always,
    check: resolutions_without_evidence,
    only_under: None,
};

/// Some complete schedule ends with an intent captured more than once.
pub const DOUBLE_CHARGE_REACHABLE: Property = Property {
    name: "double-charge-reachable",
    modality: Modality::Sometimes,
    check: double_charge,
    only_under: None,
};

/// Some attempt is answered 409 (someone else is processing the key).
pub const CONFLICT_REACHABLE: Property = Property {
    name: "409-reachable",
    modality: Modality::Sometimes,
    check: conflict,
    only_under: None,
};

/// Two attempts of one intent receive the same 2xx, the second a replay of
/// the first.
pub const REPLAY_REACHABLE: Property = Property {
    name: "replay-reachable",
    modality: Modality::Sometimes,
    check: replay,
    only_under: None,
};

/// A queue's redelivery is acked without a charge of its own, because the
/// message's intent was charged by another delivery: what the message id as
/// key is for.
pub const REDELIVERY_ACKED: Property = Property {
    name: "redelivery-acked-without-charging",
    modality: Modality::Sometimes,
    check: redelivery_acked,
    only_under: None,
};

/// Every property, *always* ones first, each in the order reports list it.
pub const ALL: [Property; 18] = [
    AT_MOST_ONE_CAPTURE,
    EVERY_2XX_ONE_CAPTURE,
    REPLAY_EQUALS_FIRST,
    CONFLICTS_NEVER_CHARGE,
    NO_KEY_STUCK,
    NO_KEY_FORGOTTEN_UNRESOLVED,
    DECLINED_KEY_NEVER_CAPTURES,
    NO_FALSE_422,
    NO_LOST_UPDATE,
    EVERY_EFFECT_PUBLISHED,
    COMPLETED_ANSWER_NEVER_CHANGES,
    ACK_FOLLOWS_ONE_CAPTURE,
    NO_WRITE_AFTER_LEASE_TAKEN,
    RECOVERY_FROM_THE_API,
    DOUBLE_CHARGE_REACHABLE,
    CONFLICT_REACHABLE,
    REPLAY_REACHABLE,
    REDELIVERY_ACKED,
];

/// The property called `name`, if any.
pub fn named(name: &str) -> Option<Property> {
    ALL.into_iter().find(|p| p.name == name)
}

/// The properties of one modality judged under `strategy`, in table order.
pub fn of(modality: Modality, strategy: Strategy) -> impl Iterator<Item = Property> {
    ALL.into_iter()
        .filter(move |p| p.modality == modality && p.applies_to(strategy))
}

/// The *sometimes* properties, whatever the strategy.
pub fn sometimes() -> impl Iterator<Item = Property> {
    ALL.into_iter()
        .filter(|p| p.modality == Modality::Sometimes)
}

/// The run's verdicts: each *always* property judged in its scenario.
pub(crate) fn verdicts(e: &Ending) -> Vec<Verdict> {
    ALL.into_iter()
        .filter(|p| p.modality == Modality::Always && p.applies_in(&e.world.scenario))
        .map(|p| {
            let failures = (p.check)(e);
            Verdict {
                name: p.name.into(),
                holds: failures.is_empty(),
                detail: if failures.is_empty() {
                    "holds".into()
                } else {
                    failures.join("; ")
                },
            }
        })
        .collect()
}

fn at_most_one_capture(e: &Ending) -> Vec<String> {
    e.intents
        .iter()
        .enumerate()
        .filter(|(_, o)| o.captures > 1)
        .map(|(i, o)| {
            format!(
                "intent {i} (order {}) captured {} times",
                o.order_id, o.captures
            )
        })
        .collect()
}

/// The attempts of intent `i` answered 2xx, in order.
fn answered_2xx<'a>(e: &'a Ending, i: usize) -> Vec<&'a AttemptOutcome> {
    e.attempts
        .iter()
        .filter(|a| a.intent == i as u32 && a.status.is_some_and(|s| (200..300).contains(&s)))
        .collect()
}

// A queue consumer's 2xx is an ack, which also closes a declined message:
// acks are judged by `ACK_FOLLOWS_ONE_CAPTURE` instead.
fn every_2xx_one_capture(e: &Ending) -> Vec<String> {
    let queue = |client: u32| e.world.scenario.clients[client as usize].kind == ClientKind::Queue;
    let mut out = Vec::new();
    for (i, o) in e.intents.iter().enumerate() {
        let answered = answered_2xx(e, i).iter().any(|a| !queue(a.client));
        if answered && o.captures != 1 {
            out.push(format!(
                "intent {i} answered 2xx but captured {} times",
                o.captures
            ));
        }
    }
    out
}

// Sentences number attempts from 1, as the timeline and the CLI's listing
// do; the data (`AttemptOutcome::attempt`) stays 0-based.
fn replay_equals_first(e: &Ending) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..e.intents.len() {
        let answered = answered_2xx(e, i);
        if let Some(first) = answered.first() {
            for a in &answered[1..] {
                if (a.status, &a.headers, &a.body) != (first.status, &first.headers, &first.body) {
                    out.push(format!(
                        "attempt {} answered {}, attempt {} first answered {}",
                        a.attempt + 1,
                        answer(a.status, a.body.as_deref()),
                        first.attempt + 1,
                        answer(first.status, first.body.as_deref())
                    ));
                }
            }
        }
    }
    out
}

fn conflicts_never_charge(e: &Ending) -> Vec<String> {
    e.attempts
        .iter()
        .filter(|a| a.reached_acquirer)
        .filter_map(|a| match a.status {
            Some(status @ (409 | 422)) => Some(format!(
                "attempt {} answered {status} after calling the acquirer",
                a.attempt + 1
            )),
            _ => None,
        })
        .collect()
}

// A key is its tenant's: two shops that chose the same text hold two keys.
fn declined_key_captures(e: &Ending) -> Vec<String> {
    let calls = &e.world.acquirer.calls;
    let intents = &e.world.intents;
    let same = |a: &crate::world::Call, b: &crate::world::Call| {
        a.key == b.key && intents[a.intent as usize].1.tenant == intents[b.intent as usize].1.tenant
    };
    let mut out = Vec::new();
    for (i, declined) in calls.iter().enumerate() {
        let earlier_refusal = calls[..i]
            .iter()
            .any(|c| same(c, declined) && c.accepted == Some(false));
        if declined.accepted != Some(false) || earlier_refusal {
            continue; // not a refusal, or not the key's first one
        }
        if calls[i + 1..]
            .iter()
            .any(|c| same(c, declined) && c.accepted == Some(true))
        {
            out.push(format!("key {} was declined, then captured", declined.key));
        }
    }
    out
}

// Plain loops below rather than iterator chains: each chain is its own
// code in the page's wasm, which runs every verdict.
fn false_422s(e: &Ending) -> Vec<String> {
    let intents = &e.world.intents;
    let mut out = Vec::new();
    for a in e.attempts {
        if a.status != Some(422) {
            continue;
        }
        let mine = &intents[a.intent as usize].1;
        let mut reused = false;
        for (j, (_, it)) in intents.iter().enumerate() {
            reused |= j != a.intent as usize && it.tenant == mine.tenant && *it.key == *a.key;
        }
        if !reused {
            out.push(format!(
                "attempt {} answered 422 for key {}, which tenant {} used for one intent only",
                a.attempt + 1,
                a.key,
                mine.tenant
            ));
        }
    }
    out
}

/// The committed integers of one column of `table`.
fn committed_ints(w: &World, table: &str, name: &str) -> Vec<i64> {
    let Some(col) = w.store.table_def(table).and_then(|d| d.column_index(name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for r in w.store.committed_rows(table) {
        if let Some(v) = r[col].as_int() {
            out.push(v);
        }
    }
    out
}

fn lost_updates(e: &Ending) -> Vec<String> {
    let w = e.world;
    // Some only where the scenario has a balance.
    let Some(table) = crate::handler::account_table(&w.scenario) else {
        return Vec::new();
    };
    let opening = w.scenario.balance.as_ref().map_or(0, |b| b.opening_cents);
    let debited: i64 = committed_ints(w, "pedido_pago", "valor_centavos")
        .iter()
        .sum();
    let expected = opening - debited;
    let mut out = Vec::new();
    for balance in committed_ints(w, table, "saldo") {
        if balance != expected {
            out.push(format!("the balance is {balance}, not {expected}"));
        }
    }
    out
}

fn unpublished_effects(e: &Ending) -> Vec<String> {
    let w = e.world;
    if w.scenario.event == crate::scenario::EventDelivery::None {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, n) in crate::world::effects_per_intent(w).into_iter().enumerate() {
        let mut published = 0;
        for &p in &w.acquirer.published {
            published += u32::from(p == i as u32);
        }
        if published < n {
            out.push(format!(
                "order {}: an effect without its event",
                w.intents[i].1.order_id
            ));
        }
    }
    out
}

/// The keys a run noted under `breach`, one sentence each (`{}` is the key).
fn breaches(e: &Ending, breach: Breach, sentence: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (b, key) in &e.world.watch.breaches {
        if *b == breach {
            out.push(sentence.replace("{}", key));
        }
    }
    out
}

/// Acks noted without one charge decision, and acked messages charged
/// again after the ack.
fn acks_without_one_capture(e: &Ending) -> Vec<String> {
    let mut out = breaches(
        e,
        Breach::AckWithoutOneCapture,
        "message {} acked without exactly one charge",
    );
    let queue = |client: u32| e.world.scenario.clients[client as usize].kind == ClientKind::Queue;
    for a in e.attempts {
        let acked = queue(a.client) && a.status.is_some_and(|s| (200..300).contains(&s));
        if acked && e.intents[a.intent as usize].captures > 1 {
            out.push(format!(
                "message {} acked and charged more than once",
                a.key
            ));
        }
    }
    out
}

/// Each resolution checked against the calls the acquirer had received by
/// then, found the only way the scenario lets the service ask: every call
/// its answer listed must be one the API could show (received, and carrying
/// the identifier asked about), no such call received strictly earlier may
/// be missing (one received at the same instant may come after the
/// question), and the outcome must follow from the calls listed.
fn resolutions_without_evidence(e: &Ending) -> Vec<String> {
    let w = e.world;
    let provider_keys = w.scenario.acquirer.provider_keys;
    let mut out = Vec::new();
    for r in &w.watch.resolutions {
        // A provider key is found in the key's own merchant account.
        let merchant = crate::world::merchant_of(w, &r.key, r.order_id);
        let findable = |i: usize| {
            let c = &w.acquirer.calls[i];
            let found = if provider_keys {
                c.key == r.key && merchant == Some(w.intents[c.intent as usize].1.tenant.as_str())
            } else {
                w.intents[c.intent as usize].1.order_id == r.order_id
            };
            found && c.accepted.is_some()
        };
        let mut fits = r.by_provider_key == provider_keys;
        let (mut captured, mut declined) = (false, false);
        for &i in &r.evidence {
            let c = &w.acquirer.calls[i as usize];
            fits &= findable(i as usize) && c.received_ms.is_some_and(|t| t <= r.at_ms);
            captured |= c.accepted == Some(true);
            declined |= c.accepted == Some(false);
        }
        for (i, c) in w.acquirer.calls.iter().enumerate() {
            let earlier = c.received_ms.is_some_and(|t| t < r.at_ms);
            fits &= !(earlier && findable(i) && !r.evidence.contains(&(i as u32)));
        }
        fits &= match r.outcome {
            Reconciliation::Captured => captured,
            Reconciliation::Declined => declined && !captured,
            Reconciliation::NothingFound => r.evidence.is_empty(),
            // An answer by the key is always the key's own.
            Reconciliation::Escalated => !r.by_provider_key,
        };
        if !fits {
            out.push(format!(
                "key {} resolved {} at {} ms without the acquirer's answer for it",
                r.key,
                r.outcome.name(),
                r.at_ms
            ));
        }
    }
    out
}

fn double_charge(e: &Ending) -> Vec<String> {
    e.intents
        .iter()
        .enumerate()
        .filter(|(_, o)| o.captures > 1)
        .map(|(i, o)| format!("intent {i} captured {} times", o.captures))
        .collect()
}

fn conflict(e: &Ending) -> Vec<String> {
    e.attempts
        .iter()
        .filter(|a| a.status == Some(409))
        .map(|a| format!("attempt {} answered 409", a.attempt + 1))
        .collect()
}

fn redelivery_acked(e: &Ending) -> Vec<String> {
    let queue = |client: u32| e.world.scenario.clients[client as usize].kind == ClientKind::Queue;
    e.attempts
        .iter()
        .filter(|a| queue(a.client) && a.status.is_some_and(|st| (200..300).contains(&st)))
        .filter(|a| !a.reached_acquirer && e.intents[a.intent as usize].captures > 0)
        .map(|a| format!("delivery {} acked without charging", a.attempt + 1))
        .collect()
}

fn replay(e: &Ending) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in e.attempts.iter().enumerate() {
        if !a.status.is_some_and(|st| (200..300).contains(&st)) {
            continue;
        }
        let first = e.attempts[..i]
            .iter()
            .find(|b| b.intent == a.intent && b.status == a.status && b.body == a.body);
        if let Some(b) = first {
            out.push(format!(
                "attempt {} replays attempt {}",
                a.attempt + 1,
                b.attempt + 1
            ));
        }
    }
    out
}

/// An answer as the CLI's listing prints it: `201 {"status": …}`. A
/// status the attempt never got reads "no status", a missing body "with
/// no body"; control characters print as spaces, so a detail stays on one
/// line whatever a design's literal body holds.
fn answer(status: Option<u16>, body: Option<&str>) -> String {
    let status = status.map_or_else(|| "no status".to_string(), |s| s.to_string());
    match body {
        None => format!("{status} with no body"),
        Some(body) => {
            let one_line: String = body
                .chars()
                .map(|c| if c.is_ascii_control() { ' ' } else { c })
                .collect();
            format!("{status} {one_line}")
        }
    }
}

fn stuck_keys(w: &World) -> Vec<String> {
    let def = w
        .store
        .table_def("chave_idempotencia")
        .cloned()
        .expect("table exists");
    let col = |n: &str| def.column_index(n).expect("column exists");
    let limit = |lease: i64| lease + w.scenario.recovery_every_ms as i64;
    w.store
        .committed_rows("chave_idempotencia")
        .into_iter()
        .filter(|r| matches!(r[col("estado")].as_text(), Some("processing" | "unknown")))
        .filter(|r| {
            r[col("lease_ate_ms")]
                .as_int()
                .is_some_and(|l| w.now_ms() as i64 > limit(l))
        })
        .map(|r| {
            format!(
                "key {} still {}",
                r[col("chave")].as_text().unwrap_or_default(),
                r[col("estado")]
            )
        })
        .collect()
}

#[cfg(test)]
mod tests;
