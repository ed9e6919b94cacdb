//! The five wrong answers of issue #29, each run as the issue reproduces
//! it with `lousa run '<link>'`: every test here failed before its fix.

use lousa_core::link;
use lousa_core::run::{Run, run};
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

/// Recovery completes the key while the original worker still waits on a
/// slow acquirer; the worker's late write must not turn it back.
#[test]
fn a_worker_whose_lease_was_taken_cannot_overwrite_a_completed_key() {
    let run = run_link(
        "unknown-reconciled;faults=[];acquirer.latency_ms=10000;acquirer.timeout_ms=9000;\
         lease_ms=2000;recovery_every_ms=2000;clients.0.backoff_ms=1500;clients.0.retries_max=6",
        None,
    );
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

/// The acquirer answers after 100 s, recovery completes the key at 60 s,
/// and the lifetime is 40 s: counted from the claim it would end at 40 s,
/// before the key was even resolved, and the retry at 92 s would charge
/// again. Counted from the resolution, the retry gets the stored answer.
#[test]
fn a_key_resolved_late_keeps_its_whole_lifetime_from_the_resolution() {
    let link_text = "late-retry-after-ttl;faults=[];acquirer.latency_ms=100000;\
                     acquirer.timeout_ms=120000;key_ttl_ms=40000;clients.0.backoff_ms=45000;\
                     clients.0.retries_max=2";
    let run = run_link(link_text, None);
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
    let link_text = "late-retry-after-ttl;faults=[];acquirer.latency_ms=100000;\
                     acquirer.timeout_ms=120000;key_ttl_ms=40000;clients.0.backoff_ms=45000;\
                     clients.0.retries_max=2";
    let run = run_link(link_text, None);
    let first_answer = run.events().find_map(|(_, e)| match &e.kind {
        lousa_core::trace::EventKind::Responded {
            attempt: 0, status, ..
        } => Some(*status),
        _ => None,
    });
    assert_eq!(first_answer, Some(503), "attempt 1 stored nothing");
}
