//! Swarm testing: many seeded variants of one scenario, each a pure function
//! of (scenario, seed), bucketed by the knobs that decide whether a retry
//! can double charge.
//!
//! One seed picks every knob (TigerBeetle's VOPR style): the client's
//! timeout, the network's jitter, the retry policy (retries and backoff), the
//! key's lifetime, and the seed of the run's own choices. The variant is
//! [`apply`]-ed to the scenario, so `lousa run <scenario> --variant <seed>`
//! replays exactly the run the swarm made.

use crate::choice::RngChooser;
use crate::run;
use crate::scenario::{Scenario, ScenarioError};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::Serialize;

/// Bounds on a swarm, so that none can hang a browser tab.
pub mod limits {
    /// Seeds one swarm may run.
    pub const SEEDS_MAX: u64 = 100_000;
}

/// Client timeouts the family draws from, in ms.
pub const TIMEOUTS_MS: [u64; 6] = [250, 500, 1_000, 2_000, 4_000, 8_000];
/// Extra milliseconds per network hop, at most.
pub const JITTERS_MS: [u32; 4] = [0, 5, 50, 500];
pub const RETRIES: [u32; 4] = [0, 1, 2, 4];
pub const BACKOFFS_MS: [u64; 4] = [0, 100, 1_000, 10_000];
/// Key lifetimes: a second, a minute, and Stripe's 24 hours.
pub const KEY_TTLS_MS: [u64; 3] = [1_000, 60_000, 86_400_000];

/// The knobs one seed sets.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Variant {
    pub seed: u64,
    pub timeout_ms: u64,
    pub jitter_ms: u32,
    pub retries_max: u32,
    pub backoff_ms: u64,
    pub key_ttl_ms: u64,
    /// Seeds the run's own choices (`RngChooser`).
    pub run_seed: u64,
}

fn pick<T: Copy>(rng: &mut ChaCha8Rng, from: &[T]) -> T {
    // Multiply-shift, as `RngChooser` does: no modulo, no float.
    from[((u64::from(rng.next_u32()) * from.len() as u64) >> 32) as usize]
}

/// The variant a seed stands for. Deterministic on every platform.
pub fn variant(seed: u64) -> Variant {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Variant {
        seed,
        timeout_ms: pick(&mut rng, &TIMEOUTS_MS),
        jitter_ms: pick(&mut rng, &JITTERS_MS),
        retries_max: pick(&mut rng, &RETRIES),
        backoff_ms: pick(&mut rng, &BACKOFFS_MS),
        key_ttl_ms: pick(&mut rng, &KEY_TTLS_MS),
        run_seed: rng.next_u64(),
    }
}

/// The variant a seed stands for on `base`: as [`variant`], with the key
/// lifetime the design allows, which is the one its runs use and its
/// reports show.
pub fn variant_for(base: &Scenario, seed: u64) -> Variant {
    let mut v = variant(seed);
    v.key_ttl_ms = key_ttl(base, &v);
    v
}

/// The scenario with the variant's knobs: every client gets its timeout and
/// retry policy; the network its jitter; the store its key lifetime.
pub fn apply(base: &Scenario, v: &Variant) -> Scenario {
    let mut s = base.clone();
    for c in &mut s.clients {
        c.timeout_ms = v.timeout_ms;
        c.retries_max = v.retries_max;
        c.backoff_ms = v.backoff_ms;
    }
    s.network.jitter_ms = v.jitter_ms;
    s.key_ttl_ms = key_ttl(&s, v);
    s.seed = v.run_seed;
    s
}

/// The variant's key lifetime, under the lease design raised to its lease
/// plus one recovery sweep: the swarm asks what retry timings do, and a
/// lifetime shorter than a retry's delay makes any key design charge again
/// by definition (the late-retry built-ins tell that story).
fn key_ttl(s: &Scenario, v: &Variant) -> u64 {
    let least = match s.strategy {
        crate::scenario::Strategy::IdempotencyKeyLease => {
            s.lease_ms.saturating_add(s.recovery_every_ms)
        }
        _ => 0,
    };
    v.key_ttl_ms.max(least)
}

/// The three questions that decide whether a retry can double charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Bucket {
    /// The client gives up before the acquirer can answer.
    pub timeout_before_acquirer: bool,
    /// The client retries at all.
    pub retries: bool,
    /// The key can expire before the last retry is sent.
    pub key_expires_before_last_retry: bool,
}

impl Bucket {
    pub fn of(base: &Scenario, v: &Variant) -> Bucket {
        let round_trip_ms = base.acquirer.latency_ms + 2 * base.network.latency_ms;
        let last_retry_ms = u64::from(v.retries_max) * (v.timeout_ms + v.backoff_ms);
        Bucket {
            timeout_before_acquirer: v.timeout_ms < round_trip_ms,
            retries: v.retries_max > 0,
            key_expires_before_last_retry: v.retries_max > 0 && key_ttl(base, v) < last_retry_ms,
        }
    }

    pub fn label(&self) -> String {
        let yes_no =
            |b: bool, yes: &str, no: &str| if b { yes.to_string() } else { no.to_string() };
        [
            yes_no(
                self.timeout_before_acquirer,
                "timeout < acquirer",
                "timeout >= acquirer",
            ),
            yes_no(self.retries, "retries", "no retries"),
            yes_no(
                self.key_expires_before_last_retry,
                "key expires before last retry",
                "key outlives retries",
            ),
        ]
        .join(", ")
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BucketReport {
    pub bucket: Bucket,
    pub label: String,
    pub runs: u64,
    pub double_charged: u64,
    /// A seed of this bucket that double charged, if any did; else its
    /// first seed.
    pub representative_seed: u64,
    pub representative_double_charged: bool,
}

impl BucketReport {
    pub fn rate(&self) -> f64 {
        self.double_charged as f64 / self.runs.max(1) as f64
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SwarmReport {
    pub scenario: String,
    pub strategy: crate::Strategy,
    pub first_seed: u64,
    pub runs: u64,
    pub double_charged: u64,
    /// Runs that broke an invariant other than a double charge only.
    pub invariant_failures: u64,
    pub buckets: Vec<BucketReport>,
}

/// Runs seeds `first_seed .. first_seed + seeds` of the family.
pub fn swarm(base: &Scenario, first_seed: u64, seeds: u64) -> Result<SwarmReport, ScenarioError> {
    if seeds == 0 || seeds > limits::SEEDS_MAX {
        return Err(ScenarioError {
            field: "seeds".into(),
            message: format!("{seeds} is outside 1..={}", limits::SEEDS_MAX),
        });
    }
    let Some(last) = first_seed.checked_add(seeds - 1) else {
        return Err(ScenarioError {
            field: "first_seed".into(),
            message: format!(
                "{first_seed} + {seeds} seeds run past the largest seed, {}",
                u64::MAX
            ),
        });
    };
    base.validate()?;
    let mut buckets: Vec<BucketReport> = Vec::new();
    let mut report = SwarmReport {
        scenario: base.name.clone(),
        strategy: base.strategy,
        first_seed,
        runs: 0,
        double_charged: 0,
        invariant_failures: 0,
        buckets: Vec::new(),
    };
    for seed in first_seed..=last {
        let v = variant_for(base, seed);
        let s = apply(base, &v);
        s.validate()?;
        let summary = run::outcome_with(&s, &mut RngChooser::new(s.seed));
        let double = !summary.double_charged_intents.is_empty();
        let broken = summary.invariants.iter().any(|x| !x.holds);
        report.runs += 1;
        report.double_charged += u64::from(double);
        report.invariant_failures += u64::from(broken && !double);
        let bucket = Bucket::of(base, &v);
        let b = match buckets.iter().position(|b| b.bucket == bucket) {
            Some(i) => &mut buckets[i],
            None => {
                buckets.push(BucketReport {
                    bucket,
                    label: bucket.label(),
                    runs: 0,
                    double_charged: 0,
                    representative_seed: seed,
                    representative_double_charged: false,
                });
                buckets.last_mut().expect("just pushed")
            }
        };
        b.runs += 1;
        b.double_charged += u64::from(double);
        if double && !b.representative_double_charged {
            b.representative_seed = seed;
            b.representative_double_charged = true;
        }
    }
    buckets.sort_by_key(|b| b.bucket);
    report.buckets = buckets;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins;

    #[test]
    fn a_seed_always_gives_the_same_variant() {
        assert_eq!(variant(7), variant(7));
        let distinct: std::collections::BTreeSet<_> =
            (0..64).map(|s| variant(s).timeout_ms).collect();
        assert!(distinct.len() > 3, "the family varies");
    }

    #[test]
    fn variants_of_builtins_are_valid() {
        for name in builtins::NAMES {
            let base = builtins::builtin(name).unwrap();
            for seed in 0..20 {
                apply(&base, &variant(seed))
                    .validate()
                    .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            }
        }
    }

    #[test]
    fn swarm_refuses_zero_and_too_many_seeds() {
        let base = builtins::builtin("timeout-retry").unwrap();
        let e = swarm(&base, 0, 0).unwrap_err();
        assert_eq!(e.field, "seeds");
        let e = swarm(&base, 0, limits::SEEDS_MAX + 1).unwrap_err();
        assert!(e.message.contains("100000"), "{e}");
        let e = swarm(&base, u64::MAX, 2).unwrap_err();
        assert_eq!(e.field, "first_seed");
    }
}
