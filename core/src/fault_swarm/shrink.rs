//! Shrinking a violating run by replaying smaller candidates: fewest faults
//! first (drop one at a time while the same property still breaks), then
//! fewest edits (each field the swarm drew put back to the built-in's own
//! value), then the smallest numbers (each timing, retry count and fault's
//! number still edited brought down to its field's floor, or as near it as
//! still breaks). A candidate is kept only when the same property is still
//! broken *and still claimed* there, so shrinking never walks into a fault
//! class the design disclaims.

use crate::link;
use crate::scenario::{Fault, Scenario};
use serde_json::Value;

/// One number of a scenario the shrinker may lower, and its floor (the
/// field's limit in `Scenario::validate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Knob {
    NetworkLatency,
    Jitter,
    AcquirerLatency,
    AcquirerTimeout,
    Lease,
    RecoveryEvery,
    KeyTtl,
    ClientTimeout(usize),
    ClientRetries(usize),
    ClientBackoff(usize),
    ClientStart(usize),
    /// A crash's restart delay, or its time.
    Restart(usize),
    CrashAt(usize),
    /// A fault's attempt or call number, or a crash's instance.
    FaultNumber(usize),
}

impl Knob {
    fn all(s: &Scenario) -> Vec<Knob> {
        let mut out = vec![
            Knob::NetworkLatency,
            Knob::Jitter,
            Knob::AcquirerLatency,
            Knob::AcquirerTimeout,
            Knob::Lease,
            Knob::RecoveryEvery,
            Knob::KeyTtl,
        ];
        for i in 0..s.clients.len() {
            out.extend([
                Knob::ClientTimeout(i),
                Knob::ClientRetries(i),
                Knob::ClientBackoff(i),
                Knob::ClientStart(i),
            ]);
        }
        for (i, f) in s.faults.iter().enumerate() {
            if let Fault::Crash { at_ms, .. } = f {
                out.push(Knob::Restart(i));
                if at_ms.is_some() {
                    out.push(Knob::CrashAt(i));
                }
            }
            out.push(Knob::FaultNumber(i));
        }
        out
    }

    /// Whether `s` holds another value here than the built-in `base`: a
    /// fault's numbers always (the faults are the swarm's own), a client
    /// the built-in lacks too.
    fn edited(self, s: &Scenario, base: &Scenario) -> bool {
        match self {
            Knob::Restart(_) | Knob::CrashAt(_) | Knob::FaultNumber(_) => true,
            Knob::ClientTimeout(i)
            | Knob::ClientRetries(i)
            | Knob::ClientBackoff(i)
            | Knob::ClientStart(i)
                if i >= base.clients.len() =>
            {
                true
            }
            _ => self.get(s) != self.get(base),
        }
    }

    fn floor(self) -> u64 {
        match self {
            Knob::AcquirerTimeout
            | Knob::Lease
            | Knob::KeyTtl
            | Knob::ClientTimeout(_)
            | Knob::FaultNumber(_) => 1,
            Knob::RecoveryEvery => 100,
            _ => 0,
        }
    }

    fn get(self, s: &Scenario) -> u64 {
        match self {
            Knob::NetworkLatency => s.network.latency_ms,
            Knob::Jitter => u64::from(s.network.jitter_ms),
            Knob::AcquirerLatency => s.acquirer.latency_ms,
            Knob::AcquirerTimeout => s.acquirer.timeout_ms,
            Knob::Lease => s.lease_ms,
            Knob::RecoveryEvery => s.recovery_every_ms,
            Knob::KeyTtl => s.key_ttl_ms,
            Knob::ClientTimeout(i) => s.clients[i].timeout_ms,
            Knob::ClientRetries(i) => u64::from(s.clients[i].retries_max),
            Knob::ClientBackoff(i) => s.clients[i].backoff_ms,
            Knob::ClientStart(i) => s.clients[i].start_ms,
            Knob::Restart(i) => match s.faults[i] {
                Fault::Crash {
                    restart_after_ms, ..
                } => restart_after_ms,
                _ => 0,
            },
            Knob::CrashAt(i) => match s.faults[i] {
                Fault::Crash { at_ms, .. } => at_ms.unwrap_or(0),
                _ => 0,
            },
            Knob::FaultNumber(i) => match s.faults[i] {
                Fault::DropRequest { attempt } | Fault::DropResponse { attempt } => {
                    u64::from(attempt)
                }
                Fault::AcquirerTimeoutAfterAccept { call } | Fault::AcquirerDeclines { call } => {
                    u64::from(call)
                }
                // Instances count from 0: shown one up, so the floor is 1.
                Fault::Crash { instance, .. } => u64::from(instance) + 1,
            },
        }
    }

    /// `s` with this number set to `v`, which lies between the floor and
    /// the current value, so it fits the field's type.
    fn set(self, s: &mut Scenario, v: u64) {
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        match self {
            Knob::NetworkLatency => s.network.latency_ms = v,
            Knob::Jitter => s.network.jitter_ms = small(v),
            Knob::AcquirerLatency => s.acquirer.latency_ms = v,
            Knob::AcquirerTimeout => s.acquirer.timeout_ms = v,
            Knob::Lease => s.lease_ms = v,
            Knob::RecoveryEvery => s.recovery_every_ms = v,
            Knob::KeyTtl => s.key_ttl_ms = v,
            Knob::ClientTimeout(i) => s.clients[i].timeout_ms = v,
            Knob::ClientRetries(i) => s.clients[i].retries_max = small(v),
            Knob::ClientBackoff(i) => s.clients[i].backoff_ms = v,
            Knob::ClientStart(i) => s.clients[i].start_ms = v,
            Knob::Restart(i) => {
                if let Fault::Crash {
                    restart_after_ms, ..
                } = &mut s.faults[i]
                {
                    *restart_after_ms = v;
                }
            }
            Knob::CrashAt(i) => {
                if let Fault::Crash { at_ms, .. } = &mut s.faults[i] {
                    *at_ms = Some(v);
                }
            }
            Knob::FaultNumber(i) => match &mut s.faults[i] {
                Fault::DropRequest { attempt } | Fault::DropResponse { attempt } => {
                    *attempt = small(v)
                }
                Fault::AcquirerTimeoutAfterAccept { call } | Fault::AcquirerDeclines { call } => {
                    *call = small(v)
                }
                Fault::Crash { instance, .. } => *instance = small(v - 1),
            },
        }
    }
}

/// What shrinking came to: the smallest candidate that still breaks the
/// property, and how many replays it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub scenario: Scenario,
    pub replays: u32,
}

/// The fields where `s` differs from `base`, each as a link's path and
/// `base`'s value there: a list of another length, or an object of
/// another shape, whole. Left out: what names the scenario, the design
/// under test, the seed, and the faults (which the first pass shrinks).
fn edits_from(s: &Value, base: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    const KEPT: [&str; 7] = [
        "name",
        "title",
        "description",
        "strategy",
        "design",
        "seed",
        "faults",
    ];
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (s, base) {
        _ if s == base => {}
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => {
            for (key, value) in a {
                if !(path.is_empty() && KEPT.contains(&key.as_str())) {
                    edits_from(value, &b[key], &at(key), out);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                edits_from(x, y, &at(&i.to_string()), out);
            }
        }
        _ if !path.is_empty() => out.push((path.to_string(), base.clone())),
        _ => {}
    }
}

/// Shrinks `start`, which `breaks` holds of, within `budget` replays and
/// while `stop` says go on. `base` is the built-in it was drawn from.
/// `breaks` replays a candidate: whether it still breaks the property (a
/// candidate `validate` refuses is never asked).
pub fn shrink(
    start: &Scenario,
    base: &Scenario,
    budget: u32,
    stop: &dyn Fn() -> bool,
    breaks: &mut dyn FnMut(&Scenario) -> bool,
) -> Shrunk {
    let mut best = start.clone();
    let mut replays = 0u32;
    let mut try_it = |cand: &Scenario, replays: &mut u32| -> bool {
        if *replays >= budget || stop() || cand.validate().is_err() {
            return false;
        }
        *replays += 1;
        breaks(cand)
    };
    // Fewest faults: drop each in turn, from the last, while it still breaks.
    let mut i = best.faults.len();
    while i > 0 {
        i -= 1;
        let mut cand = best.clone();
        cand.faults.remove(i);
        if try_it(&cand, &mut replays) {
            best = cand;
        }
    }
    // Fewest edits: each field the swarm drew, back to the built-in's value
    // while it still breaks, so that the link names only what matters.
    let json = |s: &Scenario| serde_json::to_value(s).expect("a scenario is JSON");
    let mut edits = Vec::new();
    edits_from(&json(&best), &json(base), "", &mut edits);
    for (path, value) in edits {
        if let Ok(cand) = link::edit(&best, &[(path.as_str(), value)])
            && try_it(&cand, &mut replays)
        {
            best = cand;
        }
    }
    // Smallest numbers, of the fields still edited: the floor, else the
    // least value that still breaks by halving the distance (breaking need
    // not be monotone: this finds a small value, not always the least).
    for knob in Knob::all(&best) {
        let (floor, mut hi) = (knob.floor(), knob.get(&best));
        if hi <= floor || !knob.edited(&best, base) {
            continue;
        }
        let mut cand = best.clone();
        knob.set(&mut cand, floor);
        if try_it(&cand, &mut replays) {
            best = cand;
            continue;
        }
        let mut lo = floor + 1;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let mut cand = best.clone();
            knob.set(&mut cand, mid);
            if try_it(&cand, &mut replays) {
                best = cand;
                hi = mid;
            } else {
                lo = mid + 1;
            }
            if replays >= budget || stop() {
                break;
            }
        }
    }
    Shrunk {
        scenario: best,
        replays,
    }
}
