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
        assert_eq!(a.status, Some(402), "attempt {}: {:?}", a.attempt + 1, a.body);
        assert!(
            a.body.as_deref().is_some_and(|b| b.contains("RECUSADA")),
            "attempt {}: {:?}",
            a.attempt + 1,
            a.body
        );
    }
    assert_all_hold(&run);
}
