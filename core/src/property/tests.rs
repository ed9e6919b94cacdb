//! The properties' own tests: each catches what it names, on worlds
//! built to break it.

use super::{ALL, Ending, Property, answer};
use crate::property;
use crate::world::World;

/// The lease design's story run to its end, with its verdicts.
fn finished(name: &str) -> World {
    let s = crate::builtins::builtin(name).expect("built-in");
    let mut w = World::new(&s);
    let mut chooser = crate::choice::RngChooser::new(s.seed);
    while !w.is_done() {
        w.step(&mut chooser);
    }
    w
}

/// The property's findings on `w`; these properties read the world's
/// watch alone, not the run's outcomes.
fn broken(w: &World, p: Property) -> Vec<String> {
    (p.check)(&Ending {
        world: w,
        intents: &[],
        attempts: &[],
    })
}

/// A late, unfenced write over a completed key is seen as both a
/// write after the lease was taken and a changed stored answer.
#[test]
fn an_unfenced_write_over_a_completed_key_breaks_both_properties() {
    let mut w = finished("unknown-reconciled");
    assert!(broken(&w, property::COMPLETED_ANSWER_NEVER_CHANGES).is_empty());
    assert!(broken(&w, property::NO_WRITE_AFTER_LEASE_TAKEN).is_empty());
    let session = w.recovery_session();
    let serves = crate::design::Serves::Http;
    let lease = crate::handler::program(&w.scenario, serves);
    let finish = lease
        .step("store-response")
        .expect("the lease design stores");
    let inputs = crate::handler::StmtInputs {
        pc: crate::handler::Pc::Step(serves, finish),
        intent: 0,
        key: "k".into(),
        row_id: Some(1),
        capture_result: None,
        now_ms: 0,
        fingerprint: Default::default(),
        balance: None,
        version: None,
        lease_token: Some(1),
    };
    let before = w
        .watch_before(session, &inputs, inputs.lease_token)
        .expect("a watched write");
    let late = crate::store::Stmt::Update {
        table: "chave_idempotencia".into(),
        set: vec![("estado".into(), crate::store::Value::text("unknown"))],
        increment: vec![],
        filter: vec![("id".into(), crate::store::Value::Int(1))],
        returning: vec![],
    };
    w.store.execute(session, late);
    w.watch_after(before, &inputs.key);
    assert_eq!(
        broken(&w, property::COMPLETED_ANSWER_NEVER_CHANGES).len(),
        1
    );
    assert_eq!(broken(&w, property::NO_WRITE_AFTER_LEASE_TAKEN).len(), 1);
}

/// A resolution the acquirer's answers do not support is reported, and
/// one asked the way the scenario does not allow (by a key never sent).
#[test]
fn a_resolution_without_the_acquirers_answer_is_reported() {
    let mut w = finished("crash-before-capture");
    assert!(!w.watch.resolutions.is_empty(), "recovery resolved the key");
    assert!(broken(&w, property::RECOVERY_FROM_THE_API).is_empty());
    let mut unsupported = w.watch.resolutions[0].clone();
    unsupported.outcome = crate::trace::Reconciliation::Captured;
    w.watch.resolutions.push(unsupported.clone());
    unsupported.outcome = crate::trace::Reconciliation::NothingFound;
    unsupported.by_provider_key = true;
    w.watch.resolutions.push(unsupported);
    assert_eq!(broken(&w, property::RECOVERY_FROM_THE_API).len(), 2);
}

#[test]
fn names_are_unique() {
    for (i, a) in ALL.iter().enumerate() {
        assert!(ALL[i + 1..].iter().all(|b| b.name != a.name), "{}", a.name);
    }
}

#[test]
fn a_verdict_prints_an_answer_as_the_listing_does_on_one_line() {
    let body = r#"{"status": "CAPTURADA", "cobranca_id": 1}"#;
    assert_eq!(answer(Some(201), Some(body)), format!("201 {body}"));
    assert_eq!(answer(Some(409), None), "409 with no body");
    assert_eq!(answer(None, Some("a\nb\tc")), "no status a b c");
}
