//! Which properties an exploration checks under each strategy, and their
//! verdicts over the outcomes; the properties themselves are the values in
//! `crate::property`.

use super::*;

pub use crate::property::{
    CONFLICT_REACHABLE, DOUBLE_CHARGE_REACHABLE, Modality, Property, REDELIVERY_ACKED,
    REPLAY_REACHABLE,
};
use crate::scenario::Strategy;

/// A property an exploration checks, and whether the design under test must
/// meet it. An *always* property a design does not claim (check-then-act's
/// at-most-one-capture) is still checked and reported with its
/// counterexample, but does not fail the run. Reports show it as the
/// property's name and modality beside `required`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Claim {
    pub property: Property,
    pub required: bool,
}

impl Claim {
    pub fn always(property: Property, required: bool) -> Claim {
        Claim { property, required }
    }
    /// A *sometimes* property asked for (`lousa explore --sometimes`): the
    /// run fails if no schedule reaches it.
    pub fn sometimes(property: Property) -> Claim {
        Claim {
            property,
            required: true,
        }
    }

    /// A *sometimes* property a design is expected to show where its
    /// scenario can lead there: reported, not required. Whether a scenario
    /// can is the scenario's business (key-reuse, one client after the
    /// other, never meets a claim in progress, so no design answers it 409).
    pub fn expected(property: Property) -> Claim {
        Claim {
            property,
            required: false,
        }
    }
}

impl Serialize for Claim {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Shown {
            name: &'static str,
            modality: Modality,
            required: bool,
        }
        Shown {
            name: self.property.name,
            modality: self.property.modality,
            required: self.required,
        }
        .serialize(s)
    }
}

/// A claim as the workshop reads it off the worker's report: the property
/// by its name (names are unique), which must have the modality written.
impl<'de> Deserialize<'de> for Claim {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Claim, D::Error> {
        #[derive(Deserialize)]
        struct Shown {
            name: String,
            modality: Modality,
            required: bool,
        }
        let shown = Shown::deserialize(d)?;
        match crate::property::named(&shown.name) {
            Some(property) if property.modality == shown.modality => Ok(Claim {
                property,
                required: shown.required,
            }),
            _ => Err(serde::de::Error::custom(format!(
                "no {:?} property named {:?}",
                shown.modality, shown.name
            ))),
        }
    }
}

/// What each design is expected to show: the unprotected ones to double
/// charge; the key designs that answer "processing" to answer 409; the ones
/// that make a repeat wait for the first (held transaction, local effect)
/// to replay. These are reported, and required only when asked for, as a
/// scenario may not lead there. Key designs claim every invariant; the
/// unprotected ones claim none.
pub fn properties_for(strategy: Strategy) -> Vec<Claim> {
    let claimed = strategy.uses_key();
    let mut out: Vec<Claim> = crate::property::of(Modality::Always, strategy)
        .map(|p| Claim::always(p, claimed))
        .collect();
    out.push(Claim::expected(expected_of(strategy)));
    out
}

/// The *sometimes* property `strategy` is expected to show.
fn expected_of(strategy: Strategy) -> Property {
    match strategy {
        Strategy::Naive | Strategy::CheckThenAct => DOUBLE_CHARGE_REACHABLE,
        Strategy::IdempotencyKey
        | Strategy::IdempotencyKeyCatch
        | Strategy::IdempotencyKeyLease => CONFLICT_REACHABLE,
        Strategy::IdempotencyKeyHeldTx | Strategy::LocalEffect => REPLAY_REACHABLE,
    }
}

/// What a design (`crate::design`) is expected to show: its *always*
/// properties claimed when it claims to charge once, and then the
/// scenario's key strategy's *sometimes* property, as a written twin of a
/// key strategy shows what it does; one written to guard a scenario of the
/// unprotected designs owes no *sometimes* (nobody knows what it shows);
/// one that claims nothing is expected to charge twice. Its invariants are
/// those judged in `scenario` (`Property::applies_in`), in table order: one
/// that keeps its keys as the lease design does is judged as it is,
/// whatever the scenario's strategy.
pub fn properties_for_design(claims: crate::design::Claims, scenario: &Scenario) -> Vec<Claim> {
    let claimed = claims == crate::design::Claims::ChargeOnce;
    let strategy = scenario.strategy;
    let mut out: Vec<Claim> = crate::property::ALL
        .into_iter()
        .filter(|q| q.modality == Modality::Always && q.applies_in(scenario))
        .map(|q| Claim::always(q, claimed))
        .collect();
    if claimed == strategy.uses_key() {
        out.push(Claim::expected(expected_of(strategy)));
    }
    if !claimed && strategy.uses_key() {
        out.push(Claim::expected(DOUBLE_CHARGE_REACHABLE));
    }
    out
}

/// A class of faults under which a key design does not claim to charge
/// once: the design's limit, said in its claims rather than hidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultClass {
    /// The capture held inside the transaction is cut short
    /// (`idempotency-key-held-tx`): the instance dies, or gives up on an
    /// acquirer that has not answered, and the claim rolls back with the
    /// transaction while the capture may still happen; the retry claims and
    /// charges again.
    HeldCaptureCutShort,
    /// No provider key, and a capture still on its way to the acquirer
    /// when the lease runs out or the instance gives up on it: no API shows
    /// a call it has not received, so recovery frees the key (or the
    /// message id) and a retry charges again when the first call lands
    /// (the lease design, and a queue's consumer whose claims recovery
    /// resolves).
    AcquirerSilentPastLease,
}

impl FaultClass {
    pub fn name(self) -> &'static str {
        match self {
            FaultClass::HeldCaptureCutShort => "held-capture-cut-short",
            FaultClass::AcquirerSilentPastLease => "acquirer-silent-past-lease",
        }
    }

    /// Whether `scenario` may fall in this class: read from its options and
    /// faults, erring towards yes (a crash at a fixed time may strike
    /// during the capture).
    pub fn may_hold_in(self, scenario: &Scenario) -> bool {
        match self {
            FaultClass::HeldCaptureCutShort => {
                use crate::scenario::Fault;
                let cut = scenario.acquirer.latency_ms >= scenario.acquirer.timeout_ms
                    || scenario.faults.iter().any(|f| {
                        matches!(
                            f,
                            Fault::Crash { .. } | Fault::AcquirerTimeoutAfterAccept { .. }
                        )
                    });
                scenario.strategy == Strategy::IdempotencyKeyHeldTx && cut
            }
            FaultClass::AcquirerSilentPastLease => {
                let recovers = crate::handler::recovers_keys(scenario)
                    || crate::handler::recovers_messages(scenario);
                // The call lands half the round trip after it left; the
                // key is open to recovery once the lease runs out, or as
                // soon as the instance marks it unknown on its timeout.
                let open_ms = scenario.lease_ms.min(scenario.acquirer.timeout_ms);
                recovers
                    && !scenario.acquirer.provider_keys
                    && scenario.acquirer.latency_ms / 2 >= open_ms
            }
        }
    }
}

/// The fault classes under which `strategy` does not claim to charge once.
pub fn unsafe_under(strategy: Strategy) -> &'static [FaultClass] {
    match strategy {
        Strategy::IdempotencyKeyHeldTx => &[
            FaultClass::HeldCaptureCutShort,
            FaultClass::AcquirerSilentPastLease,
        ],
        // A queue's consumer under any key design is recovered as the
        // lease design's keys are.
        Strategy::IdempotencyKey
        | Strategy::IdempotencyKeyCatch
        | Strategy::IdempotencyKeyLease
        | Strategy::LocalEffect => &[FaultClass::AcquirerSilentPastLease],
        Strategy::Naive | Strategy::CheckThenAct => &[],
    }
}

/// The properties about how often money moves: the ones a design's fault
/// classes suspend. The others (a completed answer never changes, the
/// fence, recovery's evidence, no key forgotten) hold under every fault.
const CHARGE_PROPERTIES: [Property; 5] = [
    crate::property::AT_MOST_ONE_CAPTURE,
    crate::property::EVERY_2XX_ONE_CAPTURE,
    crate::property::REPLAY_EQUALS_FIRST,
    crate::property::DECLINED_KEY_NEVER_CAPTURES,
    crate::property::ACK_FOLLOWS_ONE_CAPTURE,
];

/// What a design is expected to show in `scenario`: as [`properties_for`]
/// its strategy, except where every client is a queue, whose consumer never
/// answers 409 and stores no answer to replay: there a key design must be
/// able to ack a redelivery without charging. In a scenario that may fall
/// in one of the design's fault classes ([`unsafe_under`]) its charge
/// properties are checked and reported but not required.
pub fn properties_for_scenario(scenario: &Scenario) -> Vec<Claim> {
    let mut out = match scenario.program() {
        Some(p) => properties_for_design(p.design().claims, scenario),
        None => properties_for(scenario.strategy),
    };
    // A design that keeps its keys as the lease design does has the lease
    // design's limit, whatever the scenario's strategy.
    let keeps_keys = crate::handler::recovers_keys(scenario);
    let exposed = unsafe_under(scenario.strategy)
        .iter()
        .chain(keeps_keys.then_some(&FaultClass::AcquirerSilentPastLease))
        .any(|c| c.may_hold_in(scenario));
    if exposed {
        for claim in &mut out {
            if CHARGE_PROPERTIES.contains(&claim.property) {
                claim.required = false;
            }
        }
    }
    for claim in &mut out {
        if given_up_by_options(scenario).contains(&claim.property) {
            claim.required = false;
        }
    }
    let queues = !scenario.has_client(crate::scenario::ClientKind::Http);
    let guards = match scenario.program() {
        Some(p) if p.serves_queue() => p.design().claims == crate::design::Claims::ChargeOnce,
        _ => scenario.strategy.uses_key(),
    };
    if queues && guards {
        for claim in &mut out {
            if claim.property.modality == Modality::Sometimes {
                *claim = Claim::expected(REDELIVERY_ACKED);
            }
        }
    }
    out
}

/// The properties a scenario's own options give up, whatever the design:
/// the options the built-ins set to show a mistake, and a key lifetime
/// shorter than the clients' retries. Checked and reported, not required.
///
/// * A client that mints a new key per retry: no design sees a repeat, so
///   none claims the charge properties.
/// * A key kept for less time than a client goes on retrying, without a
///   provider key (or under `local-effect`, which calls no acquirer): a
///   retry after the key's lifetime is a new request and charges again
///   (README, "Two scenario options matter for late retries").
/// * One key scope for every tenant, or a fingerprint of more than the
///   intent's fields: the false 422 those options show.
/// * A balance read without `FOR UPDATE` or a version column: the lost
///   update it shows.
/// * An event published after the COMMIT: the event a crash loses.
pub fn given_up_by_options(scenario: &Scenario) -> Vec<Property> {
    use crate::scenario::{EventDelivery, FingerprintPolicy, KeyScope};
    let mut out = Vec::new();
    let retry_span = |c: &crate::scenario::ClientSpec| {
        c.retry_span_ms()
            .saturating_add(2 * scenario.network.latency_ms)
            .saturating_add(2 * u64::from(scenario.network.jitter_ms))
    };
    let outlived = scenario
        .clients
        .iter()
        .any(|c| c.retries_max > 0 && scenario.key_ttl_ms <= retry_span(c));
    let unprotected =
        !scenario.acquirer.provider_keys || scenario.strategy == Strategy::LocalEffect;
    if scenario.clients.iter().any(|c| c.new_key_per_retry) || (outlived && unprotected) {
        out.extend(CHARGE_PROPERTIES);
    }
    if scenario.key_scope == KeyScope::Global
        || scenario.fingerprint != FingerprintPolicy::Canonical
    {
        out.push(crate::property::NO_FALSE_422);
    }
    // A debit is guarded or not by the program's own steps: the built-in
    // follows the scenario's options, a design of its own may not.
    let unguarded = scenario.balance.is_some()
        && crate::handler::program(scenario, crate::design::Serves::Http).debits_unguarded();
    if unguarded {
        out.push(crate::property::NO_LOST_UPDATE);
    }
    if scenario.event == EventDelivery::AfterCommit {
        out.push(crate::property::EVERY_EFFECT_PUBLISHED);
    }
    out
}

pub(super) fn property_report(
    claim: &Claim,
    outcomes: &[Outcome],
    complete: bool,
    shortest: Shortest,
) -> PropertyReport {
    let p = claim.property;
    let shows = |o: &&Outcome| match p.modality {
        Modality::Always => o.broken.iter().any(|b| b == p.name),
        Modality::Sometimes => o.shown.contains(&p.name),
    };
    let found = outcomes.iter().any(|o| shows(&o));
    let example = outcomes
        .iter()
        .filter(shows)
        .filter_map(|o| o.example.clone())
        .min_by_key(|e| match shortest {
            Shortest::Choices => (e.choices, e.steps),
            Shortest::Steps => (e.steps, e.choices),
        });
    let verdict = match (p.modality, found, complete) {
        (Modality::Always, true, _) => Verdict::Violated,
        (Modality::Always, false, true) => Verdict::Holds,
        (Modality::Sometimes, true, _) => Verdict::Reached,
        (Modality::Sometimes, false, true) => Verdict::NeverReached,
        (_, false, false) => Verdict::Unknown,
    };
    PropertyReport {
        claim: *claim,
        verdict,
        example,
        ok: !claim.required || matches!(verdict, Verdict::Holds | Verdict::Reached),
    }
}
