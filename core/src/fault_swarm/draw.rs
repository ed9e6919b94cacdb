//! What one seed draws for one scenario: faults of every kind the scenario
//! format has, and timings, each inside the limits `Scenario::validate`
//! documents. A pure function of (scenario, seed): ChaCha8 from the seed,
//! on a stream of its own per scenario name, so `all` does not draw the
//! same faults for every built-in; no global RNG, and only integer
//! arithmetic, so native and wasm draw alike.

use crate::scenario::{Backoff, CrashPoint, Fault, Scenario, limits};
use crate::text::fnv1a;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

/// Faults one seed draws at most (the format allows `limits::FAULTS_MAX`;
/// more than this mostly stops a run before anything interesting).
pub const FAULTS_DRAWN_MAX: u64 = 4;

/// The values each timing is drawn from, in ms: from none to past a
/// client's patience, every one inside its field's limit.
pub const NETWORK_LATENCIES_MS: [u64; 5] = [0, 5, 50, 500, 5_000];
/// Per-hop jitter: how late any one message may come (a delayed message).
pub const JITTERS_MS: [u32; 5] = [0, 5, 50, 500, limits::JITTER_MS_MAX];
pub const ACQUIRER_LATENCIES_MS: [u64; 6] = [0, 100, 1_000, 4_000, 20_000, 100_000];
pub const ACQUIRER_TIMEOUTS_MS: [u64; 5] = [500, 3_000, 10_000, 30_000, 120_000];
pub const LEASES_MS: [u64; 4] = [1_000, 5_000, 30_000, 120_000];
/// Recovery's period: its limit's floor (100 ms) upwards.
pub const RECOVERY_PERIODS_MS: [u64; 4] = [100, 500, 2_000, 10_000];
pub const CLIENT_TIMEOUTS_MS: [u64; 5] = [250, 1_000, 3_000, 8_000, 30_000];
pub const RETRIES: [u32; 5] = [0, 1, 2, 3, 6];
pub const BACKOFFS_MS: [u64; 5] = [0, 100, 1_000, 5_000, 45_000];
/// A client's retry policy beyond its first wait: how the wait grows, its
/// cap, its jitter and the intent's deadline (0: none).
pub const BACKOFF_GROWTHS: [Backoff; 2] = [Backoff::Constant, Backoff::Exponential];
pub const BACKOFF_CAPS_MS: [u64; 3] = [0, 2_000, 30_000];
pub const BACKOFF_JITTERS_MS: [u32; 3] = [0, 50, limits::JITTER_MS_MAX];
pub const DEADLINES_MS: [u64; 4] = [0, 1_000, 10_000, 120_000];
/// How long a crashed instance stays down (a restart).
pub const RESTARTS_MS: [u64; 6] = [0, 100, 1_000, 5_000, 30_000, 120_000];
/// When a crash at a time strikes.
pub const CRASH_TIMES_MS: [u64; 6] = [0, 10, 100, 1_000, 5_000, 30_000];

struct Draw(ChaCha8Rng);

impl Draw {
    /// `0..n`, by multiply-shift as `RngChooser` does: no modulo, no float.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.0.next_u64()) * u128::from(n)) >> 64) as u64
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
    /// The base's value one time in three, else one drawn from `from`:
    /// a drawn run keeps some of its story, and the shrinker has the
    /// built-in's own values to find.
    fn keep_or<T: Copy>(&mut self, base: T, from: &[T]) -> T {
        if self.below(3) == 0 {
            base
        } else {
            self.pick(from)
        }
    }
}

/// The attempts a scenario may make in all (each intent's first try and
/// its retries).
pub(crate) fn attempts(s: &Scenario) -> u64 {
    s.clients
        .iter()
        .map(|c| c.intents.len() as u64 * (u64::from(c.retries_max) + 1))
        .sum()
}

/// The scenario seed `seed` draws from `base`: its design, clients and
/// intents as they are; faults, timings, retry policies and provider keys
/// drawn; the run's own choices seeded by `seed`. Always valid when `base`
/// is.
pub fn draw(base: &Scenario, seed: u64) -> Scenario {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(fnv1a(base.name.as_bytes()));
    let mut d = Draw(rng);
    let mut s = base.clone();
    s.seed = seed;
    s.network.latency_ms = d.keep_or(base.network.latency_ms, &NETWORK_LATENCIES_MS);
    s.network.jitter_ms = d.keep_or(base.network.jitter_ms, &JITTERS_MS);
    s.acquirer.latency_ms = d.keep_or(base.acquirer.latency_ms, &ACQUIRER_LATENCIES_MS);
    s.acquirer.timeout_ms = d.keep_or(base.acquirer.timeout_ms, &ACQUIRER_TIMEOUTS_MS);
    s.acquirer.provider_keys = match d.below(3) {
        0 => base.acquirer.provider_keys,
        n => n == 1,
    };
    s.lease_ms = d.keep_or(base.lease_ms, &LEASES_MS);
    s.recovery_every_ms = d.keep_or(base.recovery_every_ms, &RECOVERY_PERIODS_MS);
    for c in &mut s.clients {
        c.timeout_ms = d.keep_or(c.timeout_ms, &CLIENT_TIMEOUTS_MS);
        c.retries_max = d.keep_or(c.retries_max, &RETRIES);
        c.backoff_ms = d.keep_or(c.backoff_ms, &BACKOFFS_MS);
    }
    // Fewer retries, the most eager client first, until the attempts fit.
    while attempts(&s) > limits::ATTEMPTS_MAX {
        let most = s.clients.iter_mut().max_by_key(|c| c.retries_max);
        match most {
            Some(c) if c.retries_max > 0 => c.retries_max -= 1,
            _ => break,
        }
    }
    let attempts = attempts(&s).max(1);
    let n = d.below(FAULTS_DRAWN_MAX + 1);
    s.faults = (0..n).map(|_| fault(&mut d, &s, attempts)).collect();
    // Drawn last, so that a seed draws the faults and timings it drew
    // before clients had a policy beyond a constant wait.
    for c in &mut s.clients {
        c.backoff = d.keep_or(c.backoff, &BACKOFF_GROWTHS);
        c.backoff_max_ms = d.keep_or(c.backoff_max_ms, &BACKOFF_CAPS_MS);
        c.backoff_jitter_ms = d.keep_or(c.backoff_jitter_ms, &BACKOFF_JITTERS_MS);
        c.deadline_ms = d.keep_or(c.deadline_ms, &DEADLINES_MS);
    }
    s
}

/// One fault of the kinds the fork palette offers, as the scenario format
/// writes them: a crash at either crash point or at a time, then a restart;
/// a lost request or answer; an accepted capture whose answer never comes
/// (the acquirer's timeout and silence); a declined call.
fn fault(d: &mut Draw, s: &Scenario, attempts: u64) -> Fault {
    let attempt = |d: &mut Draw| 1 + d.below(attempts) as u32;
    let call = |d: &mut Draw| 1 + d.below(attempts.min(4)) as u32;
    match d.below(6) {
        0 => Fault::DropRequest {
            attempt: attempt(d),
        },
        1 => Fault::DropResponse {
            attempt: attempt(d),
        },
        2 => Fault::AcquirerTimeoutAfterAccept { call: call(d) },
        3 => Fault::AcquirerDeclines { call: call(d) },
        _ => {
            let instance = d.below(u64::from(s.instances)) as u32;
            let (at_ms, at_point) = match d.below(3) {
                0 => (Some(d.pick(&CRASH_TIMES_MS) + d.below(100)), None),
                1 => (None, Some(CrashPoint::AfterCommit)),
                _ => (None, Some(CrashPoint::AfterCaptureSent)),
            };
            Fault::Crash {
                instance,
                at_ms,
                at_point,
                restart_after_ms: d.pick(&RESTARTS_MS),
            }
        }
    }
}
