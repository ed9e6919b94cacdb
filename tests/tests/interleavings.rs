//! Property tests of interleavings: generated scenarios (clients, attempts,
//! instances, timings and faults, with keys drawn from a small hot set so
//! that attempts collide) under generated schedules.
//!
//! *Always* properties are `proptest!` blocks. *Sometimes* properties run a
//! seeded `TestRunner` on the negation and require it to fail: proptest must
//! find the example, and its shrunk form is checked against the explorer.
//!
//! Case counts: `LOUSA_PROPTEST_CASES` (default 2,000 per property, a few
//! seconds for the file in a debug build on two cores; 100,000 takes about
//! two minutes). Failures of *always* properties are kept in
//! `tests/proptest-regressions/interleavings.txt`.

use lousa_core::builtins::{STORY_CENTS, STORY_KEY, STORY_ORDER, race};
use lousa_core::explore::{self, DOUBLE_CHARGE_REACHABLE, Options, Status};
use lousa_core::run::{self, outcome_with};
use lousa_core::scenario::{
    AcquirerSpec, ClientKind, ClientSpec, CrashPoint, Fault, Intent, LoadBalancerPolicy,
    NetworkSpec,
};
use lousa_core::store::Isolation;
use lousa_core::trace::Summary;
use lousa_core::{Scenario, Schedule, ScheduleChooser, Strategy as Design};
use proptest::prelude::*;
use proptest::test_runner::{
    Config, FileFailurePersistence, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner,
};

fn cases() -> u32 {
    std::env::var("LOUSA_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

/// For *always* properties: random cases, failures persisted.
fn always_config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/interleavings.txt",
        ))),
        ..Config::default()
    }
}

/// For *sometimes* properties: a seeded runner whose failure is the
/// expected result, so nothing is persisted.
fn finder(seed: u8, cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4_096,
        ..Config::default()
    };
    TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

// ---- generators ----

fn story() -> Intent {
    Intent {
        order_id: STORY_ORDER,
        amount_cents: STORY_CENTS,
        key: STORY_KEY.into(),
        tenant: "loja-1".into(),
    }
}

/// The hot set: mostly the story's charge; sometimes its key reused for
/// another amount (a contract error), sometimes a second order.
fn intent() -> impl Strategy<Value = Intent> {
    prop_oneof![
        6 => Just(story()),
        1 => Just(Intent { amount_cents: 30_000, ..story() }),
        1 => Just(Intent { order_id: 124, key: "k-124".into(), ..story() }),
    ]
}

fn client() -> impl Strategy<Value = ClientSpec> {
    (
        prop::collection::vec(intent(), 1..=2),
        prop::sample::select(vec![0u64, 1, 3, 10]),
        prop::sample::select(vec![3u64, 10, 40, 1_000]),
        0u32..=2,
        prop::sample::select(vec![0u64, 2, 20]),
    )
        .prop_map(
            |(intents, start_ms, timeout_ms, retries_max, backoff_ms)| ClientSpec {
                name: "c".into(),
                kind: ClientKind::Http,
                intents,
                start_ms,
                timeout_ms,
                retries_max,
                backoff_ms,
                new_key_per_retry: false,
                gap_between_intents_ms: 0,
                client_timestamp: false,
                reformat_retries: false,
                backoff: Default::default(),
                backoff_max_ms: 0,
                backoff_jitter_ms: 0,
                deadline_ms: 0,
            },
        )
}

/// Which faults a generated scenario may carry.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Faults {
    None,
    /// Lost requests and responses only.
    Network,
    /// Everything: also crashes (at a time or at a handler point), a
    /// capture the acquirer accepts but whose answer never returns, and a
    /// declined card.
    All,
}

fn fault(instances: u32) -> impl Strategy<Value = Fault> {
    prop_oneof![
        (1u32..=4).prop_map(|attempt| Fault::DropRequest { attempt }),
        (1u32..=4).prop_map(|attempt| Fault::DropResponse { attempt }),
        (
            0..instances,
            prop::option::of(0u64..20),
            prop::sample::select(vec![CrashPoint::AfterCommit, CrashPoint::AfterCaptureSent]),
            prop::sample::select(vec![1u64, 10, 1_000]),
        )
            .prop_map(|(instance, at_ms, point, restart_after_ms)| Fault::Crash {
                instance,
                at_point: at_ms.is_none().then_some(point),
                at_ms,
                restart_after_ms,
            }),
        (1u32..=3).prop_map(|call| Fault::AcquirerTimeoutAfterAccept { call }),
        (1u32..=3).prop_map(|call| Fault::AcquirerDeclines { call }),
    ]
}

fn allowed(f: &Fault, faults: Faults) -> bool {
    match faults {
        Faults::None => false,
        Faults::Network => matches!(f, Fault::DropRequest { .. } | Fault::DropResponse { .. }),
        Faults::All => true,
    }
}

fn scenario(design: Design, faults: Faults) -> impl Strategy<Value = Scenario> {
    (1u32..=3).prop_flat_map(move |instances| {
        (
            prop::collection::vec(client(), 1..=3),
            1u32..=2,
            prop::sample::select(vec![
                LoadBalancerPolicy::RoundRobin,
                LoadBalancerPolicy::Random,
                LoadBalancerPolicy::LeastBusy,
                LoadBalancerPolicy::StickyByKey,
            ]),
            (
                prop::sample::select(vec![0u64, 1, 4]),
                prop::sample::select(vec![0u32, 1, 2]),
                prop::sample::select(vec![0u64, 3, 12]),
                prop::sample::select(vec![1u64, 8, 10_000]),
                prop::sample::select(vec![0u64, 1, 2]),
            ),
            prop::collection::vec(fault(instances), 0..=2),
        )
            .prop_map(
                move |(mut clients, pool_size, load_balancer, timing, all_faults)| {
                    let (latency_ms, jitter_ms, acquirer_ms, acquirer_timeout_ms, db_latency_ms) =
                        timing;
                    for (i, c) in clients.iter_mut().enumerate() {
                        c.name = format!("c{}", i + 1);
                    }
                    Scenario {
                        name: "generated".into(),
                        title: Default::default(),
                        description: Default::default(),
                        strategy: design,
                        isolation: Isolation::ReadCommitted,
                        seed: 0,
                        instances,
                        pool_size,
                        load_balancer,
                        clients,
                        network: NetworkSpec {
                            latency_ms,
                            jitter_ms,
                        },
                        acquirer: AcquirerSpec {
                            latency_ms: acquirer_ms,
                            timeout_ms: acquirer_timeout_ms,
                            decline: false,
                            provider_keys: false,
                        },
                        db_latency_ms,
                        faults: all_faults
                            .into_iter()
                            .filter(|f| allowed(f, faults))
                            .collect(),
                        key_ttl_ms: 24 * 3600 * 1000,
                        lease_ms: 30_000,
                        recovery_every_ms: 10_000,
                        horizon_ms: 600_000,
                        ..race(2)
                    }
                },
            )
    })
}

/// Dense schedules (any choice anywhere) and sparse ones (first come,
/// with a few deviations).
fn schedule() -> impl Strategy<Value = Schedule> {
    prop_oneof![
        prop::collection::vec(0u32..4, 0..64).prop_map(Schedule),
        sparse_schedule(),
    ]
}

/// A schedule as its non-zero choices, each at a position: `[(2, 1),
/// (3, 3)]` is `0-0-1-3`. Shrinking moves a choice earlier or deletes it
/// without shifting the others (deleting an element of a plain vector
/// renumbers every later choice, so shrinking would stop at schedules longer
/// than the shortest failing one).
fn sparse_schedule() -> impl Strategy<Value = Schedule> {
    prop::collection::vec((0usize..24, 1u32..4), 0..4).prop_map(|picks| {
        let len = picks.iter().map(|&(at, _)| at + 1).max().unwrap_or(0);
        let mut choices = vec![0; len];
        for (at, choice) in picks {
            choices[at] = choice;
        }
        Schedule(choices)
    })
}

fn outcome(s: &Scenario, schedule: &Schedule) -> Summary {
    s.validate().expect("generated scenarios are valid");
    outcome_with(s, &mut ScheduleChooser::new(schedule))
}

fn double_charged(s: &Summary) -> bool {
    !s.double_charged_intents.is_empty()
}

/// Every invariant `run::summarize` judges holds.
fn all_invariants_hold(s: &Summary) -> Result<(), TestCaseError> {
    for v in &s.invariants {
        prop_assert!(v.holds, "{} broken: {}", v.name, v.detail);
    }
    Ok(())
}

/// Every invariant the design requires in `s` holds.
fn required_invariants_hold(s: &Scenario, out: &Summary) -> Result<(), TestCaseError> {
    let claims = lousa_core::explore::properties_for_scenario(s);
    for v in &out.invariants {
        let required = claims
            .iter()
            .any(|c| c.property.name == v.name && c.required);
        prop_assert!(!required || v.holds, "{} broken: {}", v.name, v.detail);
    }
    Ok(())
}

/// An intent whose money moved ended with its client holding a 2xx.
fn every_capture_answered(s: &Summary) -> Result<(), TestCaseError> {
    for (i, intent) in s.intents.iter().enumerate() {
        if intent.captures > 0 {
            let told = s.attempts.iter().any(|a| {
                a.intent == i as u32 && a.status.is_some_and(|st| (200..300).contains(&st))
            });
            prop_assert!(
                told,
                "intent {i} was captured but its client never got a 2xx: {:?}",
                s.statuses()
            );
        }
    }
    Ok(())
}

/// The example proptest found (shrunk) for a *sometimes* property.
fn must_find<T: std::fmt::Debug + Clone>(result: Result<(), TestError<T>>, what: &str) -> T {
    match result {
        Err(TestError::Fail(_, example)) => example,
        Err(TestError::Abort(why)) => panic!("{what}: proptest gave up: {why}"),
        Ok(()) => panic!("{what}: proptest found no example, so the claim is unshown"),
    }
}

// ---- check-then-act ----

/// race-2 behind a random load balancer, one connection per instance: the
/// first-come schedule sends both attempts to instance 1, one after the
/// other, so the race needs a non-zero choice; the explorer's shortest
/// double charge is two choices long.
fn random_race_2() -> Scenario {
    let mut s = race(2);
    s.load_balancer = LoadBalancerPolicy::Random;
    s
}

/// The explorer's shortest double charge, in choices.
fn shortest_double_charge(s: &Scenario) -> Option<u32> {
    let mut o = Options::for_strategy(s.strategy);
    o.unordered_ties = false; // measure the shortest schedule text
    o.max_states = 400_000;
    let r = explore::explore(s, &o).unwrap();
    assert_eq!(r.status, Status::Complete, "{s:?}");
    r.property(&DOUBLE_CHARGE_REACHABLE)
        .and_then(|p| p.example.as_ref())
        .map(|e| e.choices)
}

#[test]
fn check_then_act_can_double_charge() {
    // Fixed models, only the schedule generated: proptest must find the
    // race and shrink it to the explorer's shortest schedule.
    let mut jittery = random_race_2();
    jittery.network.jitter_ms = 1;
    for (seed, s, shortest) in [(1, random_race_2(), 2), (7, jittery, 3)] {
        assert!(
            !double_charged(&outcome(&s, &Schedule::default())),
            "first come is safe here"
        );
        let found = must_find(
            finder(seed, 2_000).run(&sparse_schedule(), |sched| {
                prop_assert!(!double_charged(&outcome(&s, &sched)));
                Ok(())
            }),
            "check-then-act in race-2 behind a random balancer",
        );
        let shrunk = found.trimmed();
        assert!(
            double_charged(&outcome(&s, &shrunk)),
            "the shrunk schedule still double charges"
        );
        assert_eq!(
            Some(shrunk.0.len() as u32),
            shortest_double_charge(&s),
            "shrunk to {shrunk}"
        );
        assert_eq!(shrunk.0.len(), shortest, "{shrunk}");
    }

    // Generated scenarios and schedules together.
    let (s, found) = must_find(
        finder(2, 2_000).run(
            &(
                scenario(Design::CheckThenAct, Faults::None),
                sparse_schedule(),
            ),
            |(s, sched)| {
                prop_assert!(!double_charged(&outcome(&s, &sched)));
                Ok(())
            },
        ),
        "check-then-act under generated scenarios",
    );
    let shrunk = found.trimmed();
    assert!(double_charged(&outcome(&s, &shrunk)));
    assert_eq!(
        Some(shrunk.0.len() as u32),
        shortest_double_charge(&s),
        "shrunk to {shrunk} on {s:#?}"
    );
}

// ---- what the key covers ----

proptest! {
    #![proptest_config(always_config())]

    /// Crashes, lost replies, drops, key reuse, slow acquirers: with the
    /// claim committed before the capture, no schedule charges twice.
    #[test]
    fn idempotency_key_charges_at_most_once_under_every_schedule(
        s in scenario(Design::IdempotencyKey, Faults::All),
        sched in schedule(),
    ) {
        all_invariants_hold(&outcome(&s, &sched))?;
    }

    #[test]
    fn idempotency_key_catch_charges_at_most_once_under_every_schedule(
        s in scenario(Design::IdempotencyKeyCatch, Faults::All),
        sched in schedule(),
    ) {
        all_invariants_hold(&outcome(&s, &sched))?;
    }

    /// The held transaction is safe only while it outlives the effect: no
    /// crash, no lost acquirer reply, an acquirer timeout no shorter than
    /// the acquirer (see the honest properties below for the rest).
    #[test]
    fn idempotency_key_held_tx_charges_at_most_once_under_every_schedule(
        mut s in scenario(Design::IdempotencyKeyHeldTx, Faults::Network),
        sched in schedule(),
    ) {
        s.acquirer.timeout_ms = s.acquirer.timeout_ms.max(s.acquirer.latency_ms + 1);
        all_invariants_hold(&outcome(&s, &sched))?;
    }
}

// ---- what the key alone does not cover ----

/// Held transaction with the effect outliving it: a crash right after the
/// capture left, or a capture accepted whose answer never returns.
fn held_tx_effect_outlives() -> impl Strategy<Value = Scenario> {
    (
        scenario(Design::IdempotencyKeyHeldTx, Faults::Network),
        prop_oneof![
            Just(Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCaptureSent),
                restart_after_ms: 1,
            }),
            (1u32..=2).prop_map(|call| Fault::AcquirerTimeoutAfterAccept { call }),
        ],
    )
        .prop_map(|(mut s, f)| {
            s.faults.push(f);
            s
        })
}

#[test]
fn held_tx_charges_twice_when_the_effect_outlives_the_transaction() {
    let (s, sched) = must_find(
        finder(3, 4_000).run(&(held_tx_effect_outlives(), schedule()), |(s, sched)| {
            prop_assert!(!double_charged(&outcome(&s, &sched)));
            Ok(())
        }),
        "held transaction after a crash or a lost reply",
    );
    assert!(double_charged(&outcome(&s, &sched)), "{s:#?}");
}

/// Lease design with a key that expires before the retry comes. The key
/// outlives its lease and a recovery sweep, as validation requires, so
/// what expires is a resolved key.
fn late_retry_after_ttl(design: Design) -> impl Strategy<Value = Scenario> {
    (scenario(design, Faults::Network), 0u64..=20).prop_map(|(mut s, extra_ms)| {
        s.lease_ms = 1;
        s.recovery_every_ms = 100;
        let ttl_ms = s.lease_ms + s.recovery_every_ms + extra_ms;
        s.key_ttl_ms = ttl_ms;
        for c in &mut s.clients {
            c.retries_max = c.retries_max.max(1);
            c.backoff_ms = c.backoff_ms.max(ttl_ms);
        }
        s
    })
}

#[test]
fn an_expired_key_lets_a_late_retry_charge_again() {
    let (s, sched) = must_find(
        finder(4, 4_000).run(
            &(
                late_retry_after_ttl(Design::IdempotencyKeyLease),
                schedule(),
            ),
            |(s, sched)| {
                prop_assert!(!double_charged(&outcome(&s, &sched)));
                Ok(())
            },
        ),
        "lease design after the key's lifetime",
    );
    assert!(double_charged(&outcome(&s, &sched)), "{s:#?}");
}

/// The key alone, a crash after the capture left or a lost acquirer
/// reply: nobody double charges, but the money moved and the client is
/// never told (the row stays processing, every retry gets 409).
fn effect_then_silence(design: Design) -> impl Strategy<Value = Scenario> {
    (
        scenario(design, Faults::Network),
        prop_oneof![
            Just(Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCaptureSent),
                restart_after_ms: 1,
            }),
            Just(Fault::AcquirerTimeoutAfterAccept { call: 1 }),
        ],
    )
        .prop_map(|(mut s, f)| {
            s.faults.push(f);
            s
        })
}

#[test]
fn the_key_alone_leaves_a_captured_charge_unanswered_after_a_crash_or_lost_reply() {
    let (s, sched) = must_find(
        finder(5, 4_000).run(
            &(effect_then_silence(Design::IdempotencyKey), schedule()),
            |(s, sched)| every_capture_answered(&outcome(&s, &sched)),
        ),
        "idempotency key after a crash or a lost reply",
    );
    let summary = outcome(&s, &sched);
    assert!(every_capture_answered(&summary).is_err());
    assert!(
        !double_charged(&summary),
        "the key still prevents the double charge"
    );
}

/// Reconciliation needs time: clients that keep retrying past the lease
/// and a recovery sweep.
fn patient(mut s: Scenario) -> Scenario {
    s.lease_ms = 50;
    s.recovery_every_ms = 100;
    for c in &mut s.clients {
        c.retries_max = 6;
        c.timeout_ms = c.timeout_ms.max(40);
        c.backoff_ms = 100;
    }
    s
}

proptest! {
    #![proptest_config(always_config())]

    /// The provider's own key makes a repeat capture a replay, so a
    /// rolled-back claim cannot charge twice.
    #[test]
    fn held_tx_with_provider_keys_charges_at_most_once_under_every_schedule(
        mut s in held_tx_effect_outlives(),
        sched in schedule(),
    ) {
        s.acquirer.provider_keys = true;
        let out = outcome(&s, &sched);
        prop_assert!(!double_charged(&out), "{:?}", out.intents);
    }

    #[test]
    fn an_expired_key_with_provider_keys_charges_at_most_once_under_every_schedule(
        mut s in late_retry_after_ttl(Design::IdempotencyKeyLease),
        sched in schedule(),
    ) {
        s.acquirer.provider_keys = true;
        let out = outcome(&s, &sched);
        prop_assert!(!double_charged(&out), "{:?}", out.intents);
    }

    /// The lease design reconciles with the acquirer: a charge that moved
    /// money is completed and replayed to the patient client, and no key
    /// stays stuck. Recovery sees only calls the acquirer received, so
    /// where a call may land after the lease or the instance's own timeout
    /// (a fault class the design names, without provider keys) the design
    /// promises only what it still requires there.
    #[test]
    fn reconciliation_answers_every_captured_charge_under_every_schedule(
        s in effect_then_silence(Design::IdempotencyKeyLease),
        sched in schedule(),
    ) {
        let s = patient(s);
        let out = outcome(&s, &sched);
        required_invariants_hold(&s, &out)?;
        let exposed = lousa_core::explore::unsafe_under(s.strategy)
            .iter()
            .any(|c| c.may_hold_in(&s));
        if !exposed {
            all_invariants_hold(&out)?;
            every_capture_answered(&out)?;
        }
    }
}

// ---- the partial-order reduction ----

/// A scenario the reduction applies to (its only choice is which due event
/// runs: no jitter, a balancer that does not choose), under any design.
fn reducible() -> impl Strategy<Value = Scenario> {
    prop::sample::select(Design::ALL.to_vec())
        .prop_flat_map(|design| scenario(design, Faults::All))
        .prop_map(|mut s| {
            s.network.jitter_ms = 0;
            if !matches!(
                s.load_balancer,
                LoadBalancerPolicy::RoundRobin | LoadBalancerPolicy::StickyByKey
            ) {
                s.load_balancer = LoadBalancerPolicy::RoundRobin;
            }
            s
        })
}

proptest! {
    #![proptest_config(Config { cases: cases() / 10, ..always_config() })]

    /// Random scenarios (1 to 3 clients, latencies of 0 and more, every
    /// fault, every design): the reduced search reports the outcomes,
    /// verdicts, terminal states and shortest examples of the full one, and
    /// its examples replay (`explore::check_reduction`).
    #[test]
    fn the_reduced_search_says_what_the_full_search_says(s in reducible()) {
        if let Some(checked) = explore::check_reduction(&s, 20_000) {
            let (reduced, full) = checked.map_err(TestCaseError::fail)?;
            prop_assert!(reduced <= full);
        }
    }
}

/// A race whose flows are interchangeable (`--reduction flows`): 2 or 3
/// clients alike, each sending once, with random latencies, timeouts,
/// pool size, isolation and design.
fn race_like() -> impl Strategy<Value = Scenario> {
    (
        2u32..=3,
        prop::sample::select(Design::ALL.to_vec()),
        0u64..=10,
        prop::sample::select(vec![0u64, 1, 30, 3_000]),
        0u64..=5,
        1u32..=2,
        prop::sample::select(vec![
            Isolation::ReadCommitted,
            Isolation::RepeatableRead,
            Isolation::Serializable,
        ]),
        prop::sample::select(vec![20u64, 500, 500_000]),
    )
        .prop_map(
            |(n, design, db, acquirer, network, pool, isolation, timeout)| {
                let mut s = race(n);
                s.strategy = design;
                s.db_latency_ms = db;
                s.acquirer.latency_ms = acquirer;
                s.network.latency_ms = network;
                s.pool_size = pool;
                s.isolation = isolation;
                for c in &mut s.clients {
                    c.timeout_ms = timeout;
                }
                s
            },
        )
}

proptest! {
    #![proptest_config(Config { cases: cases() / 10, ..always_config() })]

    /// Random races: with flows renamed, the search reports the verdicts,
    /// the longest run and each outcome class (answers as a multiset) with
    /// its shortest example of the full search, and its examples replay
    /// (`explore::check_flow_reduction`).
    #[test]
    fn the_flow_reduction_says_what_the_full_search_says(s in race_like()) {
        prop_assert!(s.validate().is_ok(), "{:?}", s.validate());
        if let Some(checked) = explore::check_flow_reduction(&s, 20_000) {
            let (reduced, full) = checked.map_err(TestCaseError::fail)?;
            prop_assert!(reduced <= full);
        }
    }
}

#[test]
fn every_generated_scenario_is_valid_and_runs_to_an_end() {
    let mut runner = finder(6, cases());
    runner
        .run(
            &(
                scenario(Design::IdempotencyKeyLease, Faults::All),
                schedule(),
            ),
            |(s, sched)| {
                prop_assert!(s.validate().is_ok());
                let out = outcome(&s, &sched);
                prop_assert_eq!(out.end, lousa_core::trace::EndReason::Quiescent, "{:?}", s);
                Ok(())
            },
        )
        .unwrap();
    let _ = run::AT_MOST_ONE_CAPTURE;
}
