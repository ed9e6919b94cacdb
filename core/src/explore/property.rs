//! The properties an explorer checks: their names, modalities and which
//! hold by design under each strategy.

use super::*;

/// A *sometimes* property: some complete schedule ends with an intent
/// captured more than once.
pub const DOUBLE_CHARGE_REACHABLE: &str = "double-charge-reachable";

/// A *sometimes* property: some attempt is answered 409 (someone else is
/// processing the key).
pub const CONFLICT_REACHABLE: &str = "409-reachable";

/// A *sometimes* property: two attempts of one intent receive the same 2xx,
/// the second a replay of the first.
pub const REPLAY_REACHABLE: &str = "replay-reachable";

/// The *sometimes* property names the explorer knows.
pub const SOMETIMES_NAMES: [&str; 3] = [
    DOUBLE_CHARGE_REACHABLE,
    CONFLICT_REACHABLE,
    REPLAY_REACHABLE,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// Must hold at the end of every complete schedule.
    Always,
    /// Must hold at the end of at least one, or the check fails: a green run
    /// cannot be vacuous.
    Sometimes,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Property {
    pub name: String,
    pub modality: Modality,
    /// Whether the design under test must meet it. An *always* property a
    /// design does not claim (check-then-act's at-most-one-capture) is still
    /// checked and reported with its counterexample, but does not fail the
    /// run.
    pub required: bool,
}

impl Property {
    pub fn always(name: &str, required: bool) -> Property {
        Property {
            name: name.into(),
            modality: Modality::Always,
            required,
        }
    }
    pub fn sometimes(name: &str) -> Property {
        Property {
            name: name.into(),
            modality: Modality::Sometimes,
            required: true,
        }
    }
}

/// The *always* properties: the invariants `run::summarize` judges.
pub fn invariant_names(strategy: Strategy) -> Vec<&'static str> {
    let mut names = vec![
        run::AT_MOST_ONE_CAPTURE,
        run::EVERY_2XX_ONE_CAPTURE,
        run::REPLAY_EQUALS_FIRST,
        run::CONFLICTS_NEVER_CHARGE,
    ];
    if strategy == Strategy::IdempotencyKeyLease {
        names.push(run::NO_KEY_STUCK);
    }
    names
}

/// What each design is expected to show: the unprotected ones must be able
/// to double charge; the key designs that answer "processing" must be able
/// to answer 409; the ones that make a repeat wait for the first (held
/// transaction, local effect) must be able to replay. Key designs claim
/// every invariant; the unprotected ones claim none.
pub fn properties_for(strategy: Strategy) -> Vec<Property> {
    let claimed = strategy.uses_key();
    let mut out: Vec<Property> = invariant_names(strategy)
        .into_iter()
        .map(|n| Property::always(n, claimed))
        .collect();
    let sometimes = match strategy {
        Strategy::Naive | Strategy::CheckThenAct => DOUBLE_CHARGE_REACHABLE,
        Strategy::IdempotencyKey
        | Strategy::IdempotencyKeyCatch
        | Strategy::IdempotencyKeyLease => CONFLICT_REACHABLE,
        Strategy::IdempotencyKeyHeldTx | Strategy::LocalEffect => REPLAY_REACHABLE,
    };
    out.push(Property::sometimes(sometimes));
    out
}

pub(super) fn property_report(
    p: &Property,
    outcomes: &[Outcome],
    complete: bool,
    shortest: Shortest,
) -> PropertyReport {
    let shows = |o: &&Outcome| match p.modality {
        Modality::Always => o.broken.contains(&p.name),
        Modality::Sometimes => match p.name.as_str() {
            DOUBLE_CHARGE_REACHABLE => o.double_charge,
            CONFLICT_REACHABLE => o.answers.contains(&Some(409)),
            REPLAY_REACHABLE => o.replay,
            _ => false,
        },
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
        property: p.clone(),
        verdict,
        example,
        ok: !p.required || matches!(verdict, Verdict::Holds | Verdict::Reached),
    }
}
