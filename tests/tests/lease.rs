//! The lease design keeps a key while its effect is unresolved: an expired
//! key lifetime never authorizes a second charge blindly (issue #19).

use lousa_core::builtins;
use lousa_core::run::run_with;
use lousa_core::store::Stmt;
use lousa_core::{RngChooser, Scenario, Strategy};

/// A key lifetime (2.5 s) far below the lease (30 s) and an acquirer slower
/// than both the client's timeout and the lifetime: the retry reads the key
/// still `processing`, long after a lifetime counted from the claim would
/// have run out. The lifetime counts from the key's resolution, so this
/// scenario is valid.
fn short_lifetime_slow_acquirer() -> Scenario {
    let mut s = builtins::builtin("late-retry-after-ttl").expect("built-in");
    s.strategy = Strategy::IdempotencyKeyLease;
    s.faults.clear();
    s.key_ttl_ms = 2_500;
    s.lease_ms = 30_000;
    s.acquirer.latency_ms = 8_000;
    s.clients[0].timeout_ms = 2_000;
    s.clients[0].retries_max = 1;
    s.clients[0].backoff_ms = 1_000;
    s
}

#[test]
fn an_expired_key_still_processing_is_not_forgotten() {
    let s = short_lifetime_slow_acquirer();
    let run = run_with(&s, &mut RngChooser::new(s.seed));
    let deletes = run
        .store_log
        .iter()
        .filter(
            |st| matches!(&st.stmt, Stmt::Delete { table, .. } if &**table == "chave_idempotencia"),
        )
        .count();
    assert_eq!(deletes, 0, "no DELETE of a live key");
    assert_eq!(run.summary.captures, 1, "{:#?}", run.summary);
    let statuses: Vec<_> = run.summary.attempts.iter().map(|a| a.status).collect();
    assert_eq!(statuses, vec![None, Some(409)], "the retry is told to wait");
    for v in &run.summary.invariants {
        assert!(v.holds, "{}: {}", v.name, v.detail);
    }
}

/// The lifetime starts when the key is resolved, so no lifetime is too short
/// to keep an unresolved key: validation no longer asks for one longer than
/// the lease plus a recovery sweep.
#[test]
fn validation_accepts_a_lifetime_shorter_than_lease_and_recovery() {
    let s = short_lifetime_slow_acquirer();
    assert!(s.key_ttl_ms < s.lease_ms + s.recovery_every_ms);
    s.validate().expect("a short lifetime is valid");
}

#[test]
fn no_key_is_forgotten_unresolved_over_every_schedule_of_the_lease_builtins() {
    use lousa_core::explore::{self, Options, Status, Verdict};
    use lousa_core::property::NO_KEY_FORGOTTEN_UNRESOLVED;
    let mut scenarios: Vec<Scenario> = builtins::all()
        .into_iter()
        .filter(|s| s.strategy == Strategy::IdempotencyKeyLease)
        .collect();
    assert!(!scenarios.is_empty());
    for n in [2, 3] {
        let mut s = builtins::race(n);
        s.strategy = Strategy::IdempotencyKeyLease;
        scenarios.push(s);
    }
    for s in scenarios {
        let r = explore::explore(&s, &Options::for_strategy(s.strategy)).expect("valid");
        assert_eq!(r.status, Status::Complete, "{}", s.name);
        let p = r
            .property(&NO_KEY_FORGOTTEN_UNRESOLVED)
            .unwrap_or_else(|| panic!("{}: the explorer checks the property", s.name));
        assert_eq!(p.verdict, Verdict::Holds, "{}: {p:#?}", s.name);
    }
}

/// The built-ins of the key's states and stored answers: over every
/// schedule the explorer finds, every *always* property the lease design
/// claims holds, and each ends with the captures its story tells.
#[test]
fn the_key_state_builtins_hold_every_claimed_property_over_every_schedule() {
    use lousa_core::explore::{self, Modality, Options, Status, Verdict};
    for (name, captures) in [
        ("crash-before-capture", vec![1]),
        ("unknown-reconciled", vec![1]),
        ("decline-stored", vec![0, 1]),
        ("headers-replayed", vec![1]),
    ] {
        let s = builtins::builtin(name).expect("built-in");
        assert_eq!(s.strategy, Strategy::IdempotencyKeyLease, "{name}");
        let r = explore::explore(&s, &Options::for_strategy(s.strategy)).expect("valid");
        assert_eq!(r.status, Status::Complete, "{name}");
        let always: Vec<_> = r
            .properties
            .iter()
            .filter(|p| p.claim.property.modality == Modality::Always)
            .collect();
        assert!(
            always.len() >= 7,
            "{name}: {} always properties",
            always.len()
        );
        for p in always {
            assert_eq!(p.verdict, Verdict::Holds, "{name}: {p:#?}");
        }
        for o in &r.outcomes {
            assert_eq!(o.captures, captures, "{name}: {o:#?}");
        }
    }
}

/// failed_safe under contention: two clients send the same intent, the
/// instance that claims first dies before calling the acquirer, and both
/// keep retrying. On every interleaving the key is charged once, and on
/// some the charge comes only after recovery marked the key failed_safe
/// and one retry retook it.
#[test]
fn a_failed_safe_key_is_retaken_by_one_retry_on_every_schedule() {
    use lousa_core::explore::{self, Modality, Options, Status, Verdict};
    use lousa_core::run::run_schedule;
    use lousa_core::scenario::{CrashPoint, Fault};
    use lousa_core::trace::EventKind;
    let mut s = builtins::race(2);
    s.strategy = Strategy::IdempotencyKeyLease;
    for c in &mut s.clients {
        c.timeout_ms = 150;
        c.retries_max = 2;
        c.backoff_ms = 50;
    }
    s.faults = vec![Fault::Crash {
        instance: 0,
        at_ms: None,
        at_point: Some(CrashPoint::AfterCommit),
        restart_after_ms: 20,
    }];
    s.lease_ms = 10;
    s.recovery_every_ms = 100;
    s.key_ttl_ms = 1_000;
    s.db_latency_ms = 1;
    s.acquirer.latency_ms = 2;
    s.validate().expect("valid");
    let r = explore::explore(&s, &Options::for_strategy(s.strategy)).expect("valid");
    assert_eq!(r.status, Status::Complete);
    assert!(r.schedules > 1, "{} schedules", r.schedules);
    for p in r
        .properties
        .iter()
        .filter(|p| p.claim.property.modality == Modality::Always)
    {
        assert_eq!(p.verdict, Verdict::Holds, "{p:#?}");
    }
    let mut retaken = false;
    for o in &r.outcomes {
        assert_eq!(o.captures, vec![1], "{o:#?}");
        let e = o.example.as_ref().expect("an example schedule");
        let run = run_schedule(&s, &e.schedule).expect("replays");
        retaken |= run.events().any(|(_, e)| {
            matches!(
                e.kind,
                EventKind::Reconciled {
                    outcome: lousa_core::trace::Reconciliation::NothingFound,
                    ..
                }
            )
        });
    }
    assert!(retaken, "some schedule frees the key as failed_safe first");
}
