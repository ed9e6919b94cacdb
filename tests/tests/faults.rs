//! The five wrong answers of issue #29, each run as the issue reproduces
//! it with `lousa run '<link>'`: every test here failed before its fix.

use lousa_core::link;
use lousa_core::run::{Run, run};
use lousa_core::trace::{EventKind, Reconciliation};
use lousa_core::{Scenario, Strategy};

fn scenario(link_text: &str, strategy: Option<Strategy>) -> Scenario {
    let mut s = link::decode(link_text).unwrap_or_else(|e| panic!("{link_text}: {e}"));
    if let Some(strategy) = strategy {
        s.strategy = strategy;
    }
    s
}

fn run_link(link_text: &str, strategy: Option<Strategy>) -> Run {
    run(&scenario(link_text, strategy)).expect("a valid scenario")
}

/// Every *always* verdict of the run holds.
fn assert_all_hold(run: &Run) {
    for v in &run.summary.invariants {
        assert!(v.holds, "{}: {}", v.name, v.detail);
    }
}

/// check-then-act reads the order's row: a declined charge is a finished
/// answer, not a charge in progress, and is answered as the decline it is.
#[test]
fn check_then_act_answers_a_declined_row_as_declined_not_processing() {
    let run = run_link("decline-stored", Some(Strategy::CheckThenAct));
    assert_eq!(run.summary.captures, 0);
    let read_back: Vec<_> = run
        .summary
        .attempts
        .iter()
        .filter(|a| !a.reached_acquirer && a.status.is_some())
        .collect();
    assert!(!read_back.is_empty(), "some attempt answers from the row");
    for a in read_back {
        assert_eq!(
            a.status,
            Some(402),
            "attempt {}: {:?}",
            a.attempt + 1,
            a.body
        );
        assert!(
            a.body.as_deref().is_some_and(|b| b.contains("RECUSADA")),
            "attempt {}: {:?}",
            a.attempt + 1,
            a.body
        );
    }
    assert_all_hold(&run);
}

/// The named columns of `table`'s rows in `frame`, one vector a row.
fn column_values(
    frame: &lousa_core::trace::Frame,
    table: &str,
    names: &[&str],
) -> Vec<Vec<lousa_core::store::Value>> {
    let Some(t) = frame.tables.iter().find(|t| t.name == table) else {
        return Vec::new();
    };
    let ix: Vec<usize> = names
        .iter()
        .map(|n| t.columns.iter().position(|c| c == n).expect("column"))
        .collect();
    t.rows
        .iter()
        .map(|r| ix.iter().map(|&i| r.values[i].clone()).collect())
        .collect()
}

/// Once a key is completed, its state and stored answer stay as they are
/// in every later frame (until its lifetime deletes it).
fn assert_completed_keys_never_change(run: &Run) {
    let names = ["id", "estado", "resposta_http", "resposta_corpo"];
    let mut completed: Vec<Vec<lousa_core::store::Value>> = Vec::new();
    for f in 0..run.frame_count() {
        let rows = column_values(run.state_at(f), "chave_idempotencia", &names);
        for done in &completed {
            if let Some(now) = rows.iter().find(|r| r[0] == done[0]) {
                assert_eq!(now, done, "frame {f}: a completed key changed");
            }
        }
        for r in rows {
            if r[1].as_text() == Some("completed") && !completed.contains(&r) {
                completed.push(r);
            }
        }
    }
    assert!(!completed.is_empty(), "some key was completed");
}

/// The second reproduction, with a lease (6 s) that outlasts the
/// capture's arrival at the acquirer (5 s) but not its answer (10 s):
/// recovery completes the key from the acquirer's API while the original
/// worker still waits, and the worker's late write must not turn it back.
/// (With the 2 s lease the call is still on its way when recovery
/// asks, which no API can see: see the provider-key tests below.)
const LEASE_TAKEN_LINK: &str = "unknown-reconciled;faults=[];acquirer.latency_ms=10000;\
     acquirer.timeout_ms=9000;lease_ms=6000;recovery_every_ms=2000;clients.0.backoff_ms=1500;\
     clients.0.retries_max=6";

#[test]
fn a_worker_whose_lease_was_taken_cannot_overwrite_a_completed_key() {
    let run = run_link(LEASE_TAKEN_LINK, None);
    assert_completed_keys_never_change(&run);
    let refused = run.events().any(|(_, e)| {
        matches!(
            e.kind,
            lousa_core::trace::EventKind::LeaseTaken { attempt: 0 }
        )
    });
    assert!(refused, "the late write is told as refused");
    assert_eq!(run.summary.captures, 1);
    assert_all_hold(&run);
}

/// The fourth reproduction, with a lease (55 s) that outlasts the
/// capture's arrival at the acquirer (50 s): the acquirer answers after
/// 100 s, recovery completes the key at 60 s, and the lifetime is 40 s.
/// Counted from the claim it would end at 40 s, before the key was even
/// resolved, and the retry at 92 s would charge again. Counted from the
/// resolution, the retry gets the stored answer.
const LATE_RESOLUTION_LINK: &str = "late-retry-after-ttl;faults=[];acquirer.latency_ms=100000;\
     acquirer.timeout_ms=120000;key_ttl_ms=40000;lease_ms=55000;clients.0.backoff_ms=45000;\
     clients.0.retries_max=2";

#[test]
fn a_key_resolved_late_keeps_its_whole_lifetime_from_the_resolution() {
    let run = run_link(LATE_RESOLUTION_LINK, None);
    assert_eq!(run.summary.captures, 1, "{:#?}", run.summary.attempts);
    let last = run.summary.attempts.last().expect("attempts");
    assert_eq!(last.status, Some(201), "the late retry replays the capture");
    assert!(!last.reached_acquirer);
    assert_completed_keys_never_change(&run);
    assert_all_hold(&run);
}

/// A worker whose final write matched no row does not answer as if it had
/// stored its answer: in the run above the original worker's late UPDATE
/// finds the key already completed by recovery.
#[test]
fn an_update_that_matches_no_row_is_never_answered_as_stored() {
    let run = run_link(LATE_RESOLUTION_LINK, None);
    let first_answer = run.events().find_map(|(_, e)| match &e.kind {
        lousa_core::trace::EventKind::Responded {
            attempt: 0, status, ..
        } => Some(*status),
        _ => None,
    });
    assert_eq!(first_answer, Some(503), "attempt 1 stored nothing");
}

/// crash-before-capture with a second intent for the same order, whose
/// charge goes through first. The stuck key never reached the acquirer,
/// and no provider key was sent: the acquirer's API can only answer by
/// order, and order 123 has a capture, another key's. A recovery that
/// filters the simulator's own call log by key frees the key as if it
/// could prove nothing happened; one that asks the API cannot tell whose
/// capture that is, and escalates.
fn crash_before_capture_beside_another_intent_of_the_order() -> Scenario {
    let mut s = lousa_core::builtins::builtin("crash-before-capture").expect("built-in");
    let mut other = s.clients[0].clone();
    other.name = "app-2".into();
    other.intents[0].key = lousa_core::builtins::SECOND_KEY.into();
    other.start_ms = 500;
    s.clients.push(other);
    s
}

#[test]
fn recovery_without_a_provider_key_escalates_what_the_order_cannot_tell() {
    let s = crash_before_capture_beside_another_intent_of_the_order();
    assert!(!s.acquirer.provider_keys);
    let run = run(&s).expect("valid");
    let outcomes: Vec<Reconciliation> = run
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Reconciled {
                outcome,
                by_provider_key,
                ..
            } => {
                assert!(!by_provider_key, "no key was sent to the acquirer");
                Some(*outcome)
            }
            _ => None,
        })
        .collect();
    assert_eq!(outcomes, vec![Reconciliation::Escalated], "{outcomes:?}");
    // The stuck intent is never charged while it is escalated.
    assert_eq!(run.summary.intents[0].captures, 0, "{:#?}", run.summary);
    assert_eq!(run.summary.intents[1].captures, 1);
    assert_all_hold(&run);
}

/// The same run with the key sent as the provider's key: the API answers
/// about this key alone, which never reached it, so recovery may free it.
#[test]
fn recovery_with_a_provider_key_frees_a_key_the_acquirer_never_saw() {
    let mut s = crash_before_capture_beside_another_intent_of_the_order();
    s.acquirer.provider_keys = true;
    let run = run(&s).expect("valid");
    let freed = run.events().any(|(_, e)| {
        matches!(
            e.kind,
            EventKind::Reconciled {
                outcome: Reconciliation::NothingFound,
                by_provider_key: true,
                ..
            }
        )
    });
    assert!(freed, "recovery frees the key by what the API said of it");
    assert_eq!(run.summary.intents[0].captures, 1, "{:#?}", run.summary);
    assert_eq!(run.summary.intents[1].captures, 1);
    assert_all_hold(&run);
}

/// The second reproduction as written: the lease (2 s) runs out
/// while the capture is still on its way to the acquirer (it lands at
/// 5 s). The acquirer's API has nothing to show yet, so recovery frees the
/// key, a retry charges, and the first call lands too: the limit the lease
/// design's claims name (no provider key, an acquirer silent past the
/// lease). The fence still holds: no completed key changes.
const SILENT_PAST_THE_LEASE_LINK: &str = "unknown-reconciled;faults=[];\
     acquirer.latency_ms=10000;acquirer.timeout_ms=9000;lease_ms=2000;recovery_every_ms=2000;\
     clients.0.backoff_ms=1500;clients.0.retries_max=6";

#[test]
fn without_a_provider_key_a_call_in_flight_past_the_lease_can_charge_twice() {
    let run = run_link(SILENT_PAST_THE_LEASE_LINK, None);
    assert_eq!(run.summary.captures, 2, "{:#?}", run.summary.attempts);
    assert_completed_keys_never_change(&run);
}

/// The same run with the key sent to the acquirer as its own: the retry's
/// call and the first one are one charge to the acquirer.
#[test]
fn with_a_provider_key_a_call_in_flight_past_the_lease_charges_once() {
    let mut s = scenario(SILENT_PAST_THE_LEASE_LINK, None);
    s.acquirer.provider_keys = true;
    let run = run(&s).expect("valid");
    assert_eq!(run.summary.captures, 1, "{:#?}", run.summary.attempts);
    assert_completed_keys_never_change(&run);
    assert_all_hold(&run);
}

/// The first reproduction: the consumer dies right after claiming
/// the message id. A redelivery that finds the id still processing must not
/// ack (that would drop a message nobody charged): it nacks.
const ORPHANED_MESSAGE_LINK: &str = "queue-redelivery;faults=[{\"kind\":\"crash\",\"instance\":0,\
     \"at_point\":\"after-commit\",\"restart_after_ms\":5000}]";

#[test]
fn a_redelivery_never_acks_a_message_whose_first_delivery_is_still_in_flight() {
    let run = run_link(ORPHANED_MESSAGE_LINK, Some(Strategy::IdempotencyKey));
    for a in &run.summary.attempts {
        if a.status.is_some_and(|s| (200..300).contains(&s)) {
            assert_eq!(
                run.summary.intents[a.intent as usize].captures,
                1,
                "delivery {} acked",
                a.attempt + 1
            );
        }
    }
    assert!(
        run.summary.attempts[1..]
            .iter()
            .all(|a| a.status == Some(503)),
        "{:#?}",
        run.summary.attempts
    );
    assert_all_hold(&run);
}

/// The same orphan with a short lease and recovery: recovery finds no charge
/// for the order at the acquirer, frees the id, and a later delivery charges
/// once and acks.
#[test]
fn an_orphaned_message_is_recovered_and_charged_once() {
    let link_text = format!(
        "{ORPHANED_MESSAGE_LINK};lease_ms=2000;recovery_every_ms=2000;clients.0.retries_max=8"
    );
    let run = run_link(&link_text, Some(Strategy::IdempotencyKey));
    assert_eq!(run.summary.captures, 1, "{:#?}", run.summary.attempts);
    let last = run.summary.attempts.last().expect("deliveries");
    assert_eq!(last.status, Some(200), "the message is acked in the end");
    let freed = run.events().any(|(_, e)| {
        matches!(
            e.kind,
            EventKind::Reconciled {
                message: true,
                outcome: Reconciliation::NothingFound,
                ..
            }
        )
    });
    assert!(freed, "recovery frees the orphaned id");
    assert_all_hold(&run);
}

/// A consumer with no claim charges on every delivery and acks each: the
/// ack no longer follows exactly one capture. The claiming consumer's acks
/// do, on the same run.
#[test]
fn every_ack_follows_exactly_one_capture_only_where_the_message_id_is_claimed() {
    use lousa_core::property::ACK_FOLLOWS_ONE_CAPTURE;
    let naive = run_link("queue-redelivery", Some(Strategy::Naive));
    let verdict = naive
        .summary
        .verdict(ACK_FOLLOWS_ONE_CAPTURE.name)
        .expect("judged");
    assert!(!verdict.holds, "{verdict:?}");
    let keyed = run_link("queue-redelivery", Some(Strategy::IdempotencyKey));
    let verdict = keyed
        .summary
        .verdict(ACK_FOLLOWS_ONE_CAPTURE.name)
        .expect("judged");
    assert!(verdict.holds, "{verdict:?}");
}

/// The explorer over every schedule of the fault runs: each claimed
/// property holds, the four new ones among them.
#[test]
fn the_fault_runs_hold_every_claimed_property_over_every_schedule() {
    use lousa_core::explore::{self, Modality, Options, Status, Verdict};
    use lousa_core::property;
    let orphan = format!(
        "{ORPHANED_MESSAGE_LINK};lease_ms=2000;recovery_every_ms=2000;clients.0.retries_max=8"
    );
    let runs = [
        (orphan.as_str(), Some(Strategy::IdempotencyKey)),
        (LEASE_TAKEN_LINK, None),
        (LATE_RESOLUTION_LINK, None),
    ];
    for (link_text, strategy) in runs {
        let s = scenario(link_text, strategy);
        let r = explore::explore(&s, &Options::for_strategy(s.strategy)).expect("valid");
        assert_eq!(r.status, Status::Complete, "{link_text}");
        for p in [
            property::COMPLETED_ANSWER_NEVER_CHANGES,
            property::ACK_FOLLOWS_ONE_CAPTURE,
            property::NO_WRITE_AFTER_LEASE_TAKEN,
            property::RECOVERY_FROM_THE_API,
        ] {
            let report = r
                .property(&p)
                .unwrap_or_else(|| panic!("{link_text}: {} checked", p.name));
            assert!(report.claim.required, "{link_text}: {} claimed", p.name);
        }
        for p in &r.properties {
            if p.claim.property.modality == Modality::Always && p.claim.required {
                assert_eq!(p.verdict, Verdict::Holds, "{link_text}: {p:#?}");
            }
        }
    }
}

/// A design names the faults it does not survive: its charge properties
/// are then checked but not required, and the others still are.
#[test]
fn a_design_unsafe_under_a_fault_class_says_so_in_its_claims() {
    use lousa_core::explore::{FaultClass, properties_for_scenario, unsafe_under};
    use lousa_core::property;
    let required = |s: &Scenario, p: lousa_core::property::Property| {
        properties_for_scenario(s)
            .into_iter()
            .find(|c| c.property == p)
            .unwrap_or_else(|| panic!("{} claimed", p.name))
            .required
    };
    assert_eq!(
        unsafe_under(Strategy::IdempotencyKeyHeldTx),
        &[
            FaultClass::HeldCaptureCutShort,
            FaultClass::AcquirerSilentPastLease
        ]
    );
    let crash = "crash-after-commit;faults=[{\"kind\":\"crash\",\"instance\":0,\
                 \"at_point\":\"after-capture-sent\",\"restart_after_ms\":5000}]";
    let held = scenario(crash, Some(Strategy::IdempotencyKeyHeldTx));
    assert!(!required(&held, property::AT_MOST_ONE_CAPTURE));
    assert!(required(&held, property::COMPLETED_ANSWER_NEVER_CHANGES));
    // And the run shows why: the claim rolled back with the connection.
    let run = run(&held).expect("valid");
    assert_eq!(run.summary.captures, 2);
    let lease = scenario(crash, Some(Strategy::IdempotencyKeyLease));
    assert!(required(&lease, property::AT_MOST_ONE_CAPTURE));

    let silent = scenario(SILENT_PAST_THE_LEASE_LINK, None);
    assert!(FaultClass::AcquirerSilentPastLease.may_hold_in(&silent));
    assert!(!required(&silent, property::AT_MOST_ONE_CAPTURE));
    assert!(required(&silent, property::NO_WRITE_AFTER_LEASE_TAKEN));
    let mut keyed = silent.clone();
    keyed.acquirer.provider_keys = true;
    assert!(!FaultClass::AcquirerSilentPastLease.may_hold_in(&keyed));
    assert!(required(&keyed, property::AT_MOST_ONE_CAPTURE));
}

/// What a seeded fault run found after the fixes above, one link each: the
/// queue's ack of a declined message judged as an unpaid 2xx; the
/// held-transaction design double charging when its held capture is cut
/// short by a timeout, not only by a crash; the lease design (and a queue's
/// recovered claims) double charging when the instance gives up on the
/// acquirer before the call lands, not only when the lease runs out; and a
/// recovery judged at a tie with the call's arrival. Each run keeps every
/// property its design requires there.
const FOUND_BY_THE_FAULT_RUNS: [&str; 8] = [
    "race-2;acquirer.latency_ms=1000;clients.0.backoff_ms=100;clients.0.retries_max=3;clients.0.timeout_ms=250;clients.1.backoff_ms=100;clients.1.retries_max=3;clients.1.timeout_ms=250;faults=[{\"call\":1,\"kind\":\"acquirer-timeout-after-accept\"}];seed=2;strategy=\"idempotency-key-held-tx\"",
    "unknown-reconciled;acquirer.latency_ms=20000;acquirer.timeout_ms=500;clients.0.backoff_ms=1000;clients.0.retries_max=6;faults=[];lease_ms=30000;seed=33",
    "queue-redelivery;acquirer.latency_ms=20000;clients.0.backoff_ms=5000;clients.0.retries_max=6;clients.0.timeout_ms=250;lease_ms=5000;recovery_every_ms=500;seed=41;strategy=\"idempotency-key-held-tx\"",
    "queue-redelivery;acquirer.latency_ms=100;acquirer.timeout_ms=3000;clients.0.backoff_ms=5000;clients.0.retries_max=6;faults=[{\"call\":2,\"kind\":\"acquirer-declines\"},{\"call\":1,\"kind\":\"acquirer-declines\"},{\"call\":2,\"kind\":\"acquirer-timeout-after-accept\"}];recovery_every_ms=2000;seed=60",
    "crash-after-commit;acquirer.latency_ms=20000;acquirer.timeout_ms=500;clients.0.backoff_ms=5000;clients.0.retries_max=6;clients.0.timeout_ms=1000;faults.0={\"call\":3,\"kind\":\"acquirer-declines\"};lease_ms=30000;recovery_every_ms=500;seed=66;strategy=\"idempotency-key-held-tx\"",
    "race-2;acquirer.latency_ms=20000;acquirer.timeout_ms=3000;clients.0.backoff_ms=5000;clients.0.retries_max=3;clients.0.timeout_ms=250;clients.1.backoff_ms=5000;clients.1.retries_max=1;clients.1.timeout_ms=8000;faults=[{\"at_ms\":null,\"at_point\":\"after-capture-sent\",\"instance\":1,\"kind\":\"crash\",\"restart_after_ms\":5000},{\"at_ms\":null,\"at_point\":\"after-capture-sent\",\"instance\":0,\"kind\":\"crash\",\"restart_after_ms\":100}];lease_ms=1000;seed=422;strategy=\"idempotency-key-lease\"",
    "race-2;acquirer.latency_ms=4000;acquirer.timeout_ms=500;clients.0.backoff_ms=100;clients.0.retries_max=6;clients.0.timeout_ms=3000;clients.1.backoff_ms=5000;clients.1.retries_max=6;clients.1.timeout_ms=8000;faults=[{\"attempt\":4,\"kind\":\"drop-request\"},{\"call\":1,\"kind\":\"acquirer-declines\"},{\"call\":2,\"kind\":\"acquirer-timeout-after-accept\"}];lease_ms=5000;recovery_every_ms=500;seed=527;strategy=\"idempotency-key-lease\"",
    "queue-redelivery;acquirer.latency_ms=4000;acquirer.timeout_ms=30000;clients.0.retries_max=1;clients.0.timeout_ms=8000;faults=[{\"attempt\":4,\"kind\":\"drop-request\"}];lease_ms=1000;recovery_every_ms=2000;seed=1014;strategy=\"idempotency-key-held-tx\"",
];

#[test]
fn the_fault_runs_findings_keep_every_required_property() {
    use lousa_core::explore::properties_for_scenario;
    for link_text in FOUND_BY_THE_FAULT_RUNS {
        let s = scenario(link_text, None);
        let run = run(&s).expect("valid");
        let claims = properties_for_scenario(&s);
        for v in &run.summary.invariants {
            let required = claims
                .iter()
                .any(|c| c.property.name == v.name && c.required);
            assert!(
                !required || v.holds,
                "{link_text}: {}: {}",
                v.name,
                v.detail
            );
        }
    }
}
