//! A frontier of steps explores the graph a frontier of worlds does.

use super::tests::race_2_models;
use super::*;
use crate::builtins::builtin;

/// The report of exploring `s` under `o`, the frontier holding at most
/// `worlds` worlds.
fn explored(s: &Scenario, o: &Options, worlds: usize) -> Report {
    let mut ex = Explorer::new(s, o).expect("valid");
    ex.worlds_waiting_max = worlds;
    while ex.run_for(u32::MAX).status == Status::Running {}
    ex.into_report().expect("stopped")
}

#[test]
fn queued_steps_give_the_report_queued_worlds_give() {
    let mut models: Vec<Scenario> = ["crash-after-commit", "held-transaction", "timeout-retry"]
        .iter()
        .map(|n| builtin(n).expect("built-in"))
        .collect();
    models.extend(race_2_models());
    for s in &models {
        for (search, reduction, max_states) in [
            (Search::DepthFirst, Reduction::Symmetry, 20_000),
            (Search::BreadthFirst, Reduction::None, 20_000),
            (Search::DepthFirst, Reduction::Por, 20_000),
            (Search::DepthFirst, Reduction::None, 300),
        ] {
            let mut o = Options::for_strategy(s.strategy);
            o.search = search;
            o.set_reduction(reduction);
            o.max_states = max_states;
            let worlds = explored(s, &o, WORLDS_WAITING_MAX);
            for steps_past in [0, 3] {
                assert_eq!(
                    explored(s, &o, steps_past),
                    worlds,
                    "{} {} {search:?} {reduction:?} {max_states}, steps past {steps_past} worlds",
                    s.name,
                    s.strategy,
                );
            }
        }
    }
}

/// The widest jitter the limits allow gives a state a successor per
/// millisecond of it: the frontier holds them as steps.
#[test]
fn a_wide_frontier_holds_steps_not_worlds() {
    let mut s = builtin("timeout-retry").expect("built-in");
    s.network.jitter_ms = crate::scenario::limits::JITTER_MS_MAX;
    let o = Options::for_strategy(s.strategy);
    let mut ex = Explorer::new(&s, &o).expect("valid");
    ex.worlds_waiting_max = 64;
    for _ in 0..40 {
        let p = ex.run_for(1);
        assert_eq!(p.status, Status::Running);
        // One expansion may queue its worlds before the bound is seen.
        assert!(
            ex.worlds_waiting <= 64 + 1_001,
            "{} worlds",
            ex.worlds_waiting
        );
    }
    let steps = ex
        .frontier
        .iter()
        .filter(|(_, _, w)| matches!(w, Waiting::Step(..)))
        .count();
    let worlds = ex.worlds_waiting;
    assert_eq!(steps + worlds, ex.frontier.len());
    assert!(steps > 5 * worlds, "{steps} steps, {worlds} worlds");
}
