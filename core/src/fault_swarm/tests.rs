use super::*;

#[test]
fn a_seed_always_draws_the_same_scenario_and_every_draw_is_valid() {
    for name in builtins::NAMES {
        let base = builtins::builtin(name).unwrap();
        for seed in 0..40 {
            let s = draw(&base, seed);
            assert_eq!(s, draw(&base, seed), "{name} seed {seed}");
            s.validate()
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            let link = link::encode(name, &s).unwrap();
            assert_eq!(link::decode(&link).unwrap(), s, "{link}");
        }
    }
}

fn one(name: &str, strategies: &[Strategy]) -> Vec<Target> {
    vec![Target {
        base: name.into(),
        scenario: builtins::builtin(name).unwrap(),
        strategies: strategies.to_vec(),
    }]
}

#[test]
fn a_swarm_is_a_pure_function_of_its_seeds() {
    let targets = one("crash-before-capture", &Strategy::ALL);
    let go = || fault_swarm(&targets, 5, 30, &|| false, &mut |_| {}).unwrap();
    let (a, b) = (go(), go());
    assert_eq!(a, b);
    assert_eq!(a.runs, 30 * 7);
    assert_eq!(a.runs, a.runs_planned);
    assert!(!a.stopped);
}

#[test]
fn the_stop_callback_stops_the_swarm_and_the_report_counts_what_ran() {
    let targets = all_targets();
    let asked = std::cell::Cell::new(0u64);
    let stop = || {
        asked.set(asked.get() + 1);
        asked.get() > 40
    };
    let mut last = None;
    let r = fault_swarm(&targets, 0, 100, &stop, &mut |p| last = Some(*p)).unwrap();
    assert!(r.stopped);
    assert_eq!(r.runs, 40);
    assert_eq!(r.runs_planned, 100 * runs_per_seed(&targets));
    assert_eq!(last.map(|p| p.runs_done), Some(40));
}

#[test]
fn bad_seed_counts_are_refused_naming_the_field_and_limit() {
    let targets = one("timeout-retry", &[Strategy::IdempotencyKey]);
    let e = fault_swarm(&targets, 0, 0, &|| false, &mut |_| {}).unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("seeds", "0 is outside 1..=1000000")
    );
    let e = fault_swarm(&targets, u64::MAX, 2, &|| false, &mut |_| {}).unwrap_err();
    assert_eq!(e.field, "first_seed");
}

#[test]
fn all_runs_each_built_in_under_the_designs_that_read_its_options() {
    for t in all_targets() {
        let s = &t.scenario;
        if s.autocommit {
            assert_eq!(t.strategies, [Strategy::CheckThenAct], "{}", t.base);
        } else if s.balance.is_some() || s.event != crate::scenario::EventDelivery::None {
            assert_eq!(t.strategies, [Strategy::LocalEffect], "{}", t.base);
        } else {
            assert!(t.strategies.len() >= 6, "{}", t.base);
        }
    }
}

/// Timings the swarm drew that the double charge does not need go back to
/// the built-in's own values, so that the shrunk link names no edit: the
/// check-then-act race of timeout-retry breaks as it stands.
#[test]
fn shrinking_puts_back_the_timings_the_break_does_not_need() {
    let base = builtins::builtin("timeout-retry").unwrap();
    assert_eq!(base.strategy, Strategy::CheckThenAct);
    let doubled = |s: &Scenario| {
        let summary = run::outcome_with(s, &mut RngChooser::new(s.seed));
        !summary.double_charged_intents.is_empty()
    };
    assert!(doubled(&base));
    let mut drawn = base.clone();
    drawn.network.latency_ms = 7;
    drawn.key_ttl_ms = 5_000;
    drawn.lease_ms = 1;
    drawn.recovery_every_ms = 100;
    drawn.clients[0].backoff_ms = 123;
    drawn.clients[0].backoff = crate::scenario::Backoff::Exponential;
    drawn.clients[0].deadline_ms = 120_000;
    assert!(doubled(&drawn));
    let shrunk = shrink(&drawn, &base, 400, &|| false, &mut |c| doubled(c));
    assert_eq!(
        crate::link::encode("timeout-retry", &shrunk.scenario).as_deref(),
        Some("timeout-retry"),
        "{:?}",
        shrunk.scenario
    );
}

/// The held transaction is unsafe when its capture is cut short (a crash
/// after the capture left): forced there, with three faults besides that
/// change nothing, the shrinker replays its way down to the one crash.
#[test]
fn shrinking_a_held_capture_cut_short_keeps_only_the_crash() {
    use crate::scenario::{CrashPoint, Fault};
    let mut s = builtins::builtin("timeout-retry").unwrap();
    s.strategy = Strategy::IdempotencyKeyHeldTx;
    s.acquirer.timeout_ms = 30_000;
    s.faults = vec![
        Fault::AcquirerDeclines { call: 9 },
        Fault::Crash {
            instance: 0,
            at_ms: None,
            at_point: Some(CrashPoint::AfterCaptureSent),
            restart_after_ms: 5_000,
        },
        Fault::DropResponse { attempt: 9 },
        Fault::DropRequest { attempt: 10 },
    ];
    let doubled = |s: &Scenario| {
        let summary = run::outcome_with(s, &mut RngChooser::new(s.seed));
        !summary.double_charged_intents.is_empty()
    };
    assert!(doubled(&s), "the forced run charges twice");
    assert!(
        crate::explore::FaultClass::HeldCaptureCutShort.may_hold_in(&s),
        "and the design says it is unsafe there"
    );
    let base = builtins::builtin("timeout-retry").unwrap();
    let shrunk = shrink(&s, &base, 400, &|| false, &mut |c| doubled(c));
    let small = &shrunk.scenario;
    assert!(doubled(small));
    assert!(
        matches!(
            small.faults[..],
            [Fault::Crash {
                at_point: Some(CrashPoint::AfterCaptureSent),
                ..
            }]
        ),
        "{:?}",
        small.faults
    );
    // Smallest timings: a restart of 0 ms still loses the capture.
    assert!(matches!(
        small.faults[0],
        Fault::Crash {
            restart_after_ms: 0,
            ..
        }
    ));
    assert!(shrunk.replays > 4 && shrunk.replays <= 400);
    // And a stop callback that says stop gets the start back untouched.
    let none = shrink(&s, &base, 400, &|| true, &mut |c| doubled(c));
    assert_eq!((none.scenario, none.replays), (s, 0));
}
