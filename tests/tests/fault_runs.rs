//! Seeded fault runs, a first, bounded step towards issue #29's fault
//! swarm: each seed draws a built-in, faults of every kind the scenario
//! format has (crashes at both crash points, lost requests and answers,
//! accepted captures whose answer is lost, declines) and timings (the
//! acquirer's latency and timeout, the lease, recovery's period, each
//! client's timeout, retries and backoff, provider keys on or off), runs
//! every design, and checks every property the design requires there.
//! What it found on the way is kept in `faults.rs`.

use lousa_core::scenario::{CrashPoint, Fault};
use lousa_core::{Scenario, Strategy, builtins, explore, link, run};

/// A small xorshift: the test needs only a reproducible stream per seed.
struct Draw(u64);

impl Draw {
    fn new(seed: u64) -> Draw {
        Draw(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
}

const BUILTINS: [&str; 9] = [
    "timeout-retry",
    "race-2",
    "crash-after-commit",
    "queue-redelivery",
    "unknown-reconciled",
    "crash-before-capture",
    "lost-response",
    "decline-stored",
    "concurrent-double-click",
];

/// The scenario seed `seed` stands for, and the built-in it starts from.
fn drawn(seed: u64) -> (&'static str, Scenario) {
    let mut d = Draw::new(seed);
    let name = d.pick(&BUILTINS);
    let mut s = builtins::builtin(name).expect("built-in");
    let faults = d.below(4);
    s.faults = (0..faults)
        .map(|_| match d.below(6) {
            0 => Fault::DropRequest {
                attempt: 1 + d.below(4) as u32,
            },
            1 => Fault::DropResponse {
                attempt: 1 + d.below(4) as u32,
            },
            2 => Fault::AcquirerTimeoutAfterAccept {
                call: 1 + d.below(3) as u32,
            },
            3 => Fault::AcquirerDeclines {
                call: 1 + d.below(3) as u32,
            },
            _ => Fault::Crash {
                instance: d.below(u64::from(s.instances)) as u32,
                at_ms: None,
                at_point: Some(d.pick(&[CrashPoint::AfterCommit, CrashPoint::AfterCaptureSent])),
                restart_after_ms: d.pick(&[100, 1_000, 5_000]),
            },
        })
        .collect();
    s.acquirer.latency_ms = d.pick(&[100, 1_000, 4_000, 20_000]);
    s.acquirer.timeout_ms = d.pick(&[500, 3_000, 10_000, 30_000]);
    s.lease_ms = d.pick(&[1_000, 5_000, 30_000]);
    s.recovery_every_ms = d.pick(&[500, 2_000, 10_000]);
    s.acquirer.provider_keys = d.below(2) == 0;
    for c in &mut s.clients {
        c.timeout_ms = d.pick(&[250, 1_000, 3_000, 8_000]);
        c.retries_max = d.pick(&[0, 1, 3, 6]);
        c.backoff_ms = d.pick(&[0, 100, 1_000, 5_000]);
    }
    s.seed = seed;
    (name, s)
}

#[test]
fn seeded_fault_runs_keep_every_property_each_design_requires() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for seed in 1..=300 {
        let (name, base) = drawn(seed);
        for strategy in Strategy::ALL {
            // Two intents of one order and amount: the local effects are
            // counted per (order, amount), so each is counted for both
            // intents (a known miscount of `local-effect` in this built-in,
            // in its golden trace since before #29).
            if name == "decline-stored" && strategy == Strategy::LocalEffect {
                continue;
            }
            let mut s = base.clone();
            s.strategy = strategy;
            let run = run::run(&s).expect("a drawn scenario is valid");
            runs += 1;
            let claims = explore::properties_for_scenario(&s);
            for v in &run.summary.invariants {
                let required = claims
                    .iter()
                    .any(|c| c.property.name == v.name && c.required);
                if required && !v.holds {
                    let shown = link::encode(name, &s).unwrap_or_default();
                    failures.push(format!("seed {seed}: {}: {}\n  {shown}", v.name, v.detail));
                }
            }
        }
    }
    assert!(runs > 2_000, "{runs} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
