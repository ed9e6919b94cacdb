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

/// What `lousa swarm all --faults` found (issue #29's fault swarm), each
/// as the shrunk link it printed: every test here failed before its fix.
mod swarm_found {
    use lousa_core::{link, run};

    fn verdict(link_text: &str, name: &str) -> (bool, String) {
        let s = link::decode(link_text).unwrap_or_else(|e| panic!("{link_text}: {e}"));
        let r = run::run(&s).expect("a valid scenario");
        let v = r.summary.verdict(name).expect("the property is judged");
        (v.holds, v.detail.clone())
    }

    fn assert_holds(link_text: &str, name: &str) {
        let (holds, detail) = verdict(link_text, name);
        assert!(holds, "{name}: {detail}\n  {link_text}");
    }

    /// The request lands after its client gave up (the network is slower
    /// than the client's patience): recovery's sweep had stopped, seeing no
    /// client waiting and no job, and the key the request then claimed
    /// stayed unknown for good. A request on the wire keeps the sweep going.
    #[test]
    fn a_key_claimed_after_its_client_gave_up_is_still_recovered() {
        assert_holds(
            "crash-before-capture;acquirer.latency_ms=10001;acquirer.timeout_ms=1;clients.0.backoff_ms=0;clients.0.retries_max=0;clients.0.timeout_ms=1;faults=[];key_ttl_ms=1;lease_ms=1;network.jitter_ms=4;network.latency_ms=3998;recovery_every_ms=100;seed=0",
            "no-key-stuck-processing-past-lease-and-recovery",
        );
    }

    /// The same cause under the outbox: the effect's row landed after the
    /// relay had stopped, and its event was never published.
    #[test]
    fn an_outbox_row_written_after_the_client_gave_up_is_still_published() {
        assert_holds(
            "event-outbox;acquirer.latency_ms=0;acquirer.provider_keys=true;acquirer.timeout_ms=1;clients.0.backoff_ms=0;clients.0.retries_max=0;clients.0.timeout_ms=1;faults=[];key_ttl_ms=1;lease_ms=1;network.latency_ms=2000;recovery_every_ms=100;seed=2",
            "every-committed-effect-has-its-event-published",
        );
    }

    /// Two shops chose the same key text; with provider keys on, the
    /// acquirer answered the second shop's charge with the first shop's
    /// capture, so shop 2 was told 201 and never charged. A provider files
    /// keys per merchant account: one shop's key is not another's.
    #[test]
    fn one_shops_provider_key_does_not_answer_anothers_charge() {
        let link_text = "scoped-key;acquirer.latency_ms=0;acquirer.provider_keys=true;acquirer.timeout_ms=1;clients.0.backoff_ms=0;clients.0.retries_max=0;clients.0.timeout_ms=1;clients.1.backoff_ms=0;clients.1.retries_max=0;clients.1.start_ms=1;clients.1.timeout_ms=11;key_ttl_ms=1;lease_ms=1;network.latency_ms=0;recovery_every_ms=100;seed=8";
        assert_holds(link_text, "every-2xx-has-exactly-one-capture");
        let s = link::decode(link_text).unwrap();
        let r = run::run(&s).unwrap();
        assert_eq!(r.summary.captures, 2, "each shop's charge is captured");
    }

    /// With the acquirer's memory per shop, shop 1's declined call and shop
    /// 2's capture are two keys that share a text; the property read them
    /// as one key declined, then captured.
    #[test]
    fn a_decline_in_one_shop_is_not_the_other_shops_key() {
        assert_holds(
            r#"scoped-key;acquirer.latency_ms=100000;acquirer.provider_keys=true;clients.0.retries_max=3;clients.1.backoff_ms=0;clients.1.retries_max=6;clients.1.timeout_ms=8000;faults=[{"call":1,"kind":"acquirer-declines"}];lease_ms=5000;network.jitter_ms=50;seed=48"#,
            "a-declined-key-is-never-charged",
        );
    }

    /// The built-ins that show a mistake by one of the scenario's options
    /// break the property the mistake is about under every fault; the
    /// designs claimed it there all the same. The claims now leave it out,
    /// and the swarm checks it without requiring it.
    #[test]
    fn what_an_option_gives_up_is_not_claimed() {
        use lousa_core::explore::properties_for_scenario;
        let cases = [
            (
                "new-key-per-retry",
                "idempotency-key",
                "at-most-one-capture-per-intent",
            ),
            (
                "unscoped-key",
                "idempotency-key-lease",
                "422-only-for-a-key-its-tenant-reused",
            ),
            (
                "timestamp-in-fingerprint",
                "idempotency-key-lease",
                "422-only-for-a-key-its-tenant-reused",
            ),
            ("balance-lost-update", "local-effect", "no-lost-update"),
            (
                "event-after-commit",
                "local-effect",
                "every-committed-effect-has-its-event-published",
            ),
            (
                "late-retry-after-ttl",
                "local-effect",
                "at-most-one-capture-per-intent",
            ),
        ];
        for (name, strategy, property) in cases {
            let mut s = lousa_core::builtins::builtin(name).unwrap();
            s.strategy = lousa_core::Strategy::from_name(strategy).unwrap();
            let claim = properties_for_scenario(&s)
                .into_iter()
                .find(|c| c.property.name == property)
                .unwrap_or_else(|| panic!("{name}: {property} is judged"));
            assert!(!claim.required, "{name} under {strategy}: {property}");
        }
        // Their fixed twins still claim it.
        for (name, strategy, property) in [
            (
                "scoped-key",
                "idempotency-key-lease",
                "422-only-for-a-key-its-tenant-reused",
            ),
            ("balance-for-update", "local-effect", "no-lost-update"),
            ("balance-version-column", "local-effect", "no-lost-update"),
            (
                "event-outbox",
                "local-effect",
                "every-committed-effect-has-its-event-published",
            ),
            (
                "late-retry-provider-key",
                "idempotency-key-lease",
                "at-most-one-capture-per-intent",
            ),
        ] {
            let mut s = lousa_core::builtins::builtin(name).unwrap();
            s.strategy = lousa_core::Strategy::from_name(strategy).unwrap();
            let required = properties_for_scenario(&s)
                .iter()
                .any(|c| c.property.name == property && c.required);
            assert!(required, "{name} under {strategy}: {property}");
        }
    }
}
