//! Reports read off a kept graph against fresh explorations from the same
//! prefixes.
//!
//! What must be equal: everything. Reading off the graph numbers its states
//! and outcomes in the order a fresh search meets them (see `kept.rs`), so
//! the analysis breaks ties between equally short schedules the same way
//! and the example schedules are the same ones, not merely as short. The
//! figures are compared one by one first, so that a failure names the
//! first figure that differs, then the reports whole.

use super::*;
use crate::builtins::race;

/// Every choice the run that `schedule` replays takes, to its end (the
/// zeros past the schedule's text included).
fn choices_of(s: &Scenario, schedule: &Schedule) -> Vec<u32> {
    let mut w = quiet_world(s);
    let mut chooser = ScheduleChooser::new(schedule);
    while !w.is_done() {
        w.step(&mut chooser);
    }
    chooser.taken.iter().map(|&(_, _, c)| c).collect()
}

fn fresh(s: &Scenario, o: &Options, prefix: &Schedule) -> Result<Report, ExploreError> {
    explore_from(s, o, prefix, &mut |_| ControlFlow::Continue(()))
}

/// The figures of `reused` against `fresh`'s, the first that differs named.
fn assert_same(reused: &Report, fresh: &Report, at: &str) {
    assert_eq!(reused.status, fresh.status, "{at}: status");
    assert_eq!(reused.states, fresh.states, "{at}: states");
    assert_eq!(reused.transitions, fresh.transitions, "{at}: transitions");
    assert_eq!(reused.schedules, fresh.schedules, "{at}: schedules");
    assert_eq!(
        reused.terminal_states, fresh.terminal_states,
        "{at}: terminals"
    );
    assert_eq!(reused.max_depth, fresh.max_depth, "{at}: max_depth");
    assert_eq!(
        reused.outcomes.len(),
        fresh.outcomes.len(),
        "{at}: outcomes"
    );
    for (i, (r, f)) in reused.outcomes.iter().zip(&fresh.outcomes).enumerate() {
        assert_eq!(r.captures, f.captures, "{at}: outcome {i}'s captures");
        assert_eq!(r.answers, f.answers, "{at}: outcome {i}'s answers");
        assert_eq!(r.states, f.states, "{at}: outcome {i}'s states");
        assert_eq!(r.schedules, f.schedules, "{at}: outcome {i}'s schedules");
        let lengths = |o: &Outcome| o.example.as_ref().map(|e| (e.choices, e.steps));
        assert_eq!(lengths(r), lengths(f), "{at}: outcome {i}'s shortest");
        assert_eq!(r.example, f.example, "{at}: outcome {i}'s example");
    }
    for (r, f) in reused.properties.iter().zip(&fresh.properties) {
        let name = f.claim.property.name;
        assert_eq!(r.verdict, f.verdict, "{at}: {name}'s verdict");
        assert_eq!(r.example, f.example, "{at}: {name}'s example");
    }
    assert_eq!(reused, fresh, "{at}: the whole report");
}

/// For each prefix of the runs of the start's all-zero schedule, the
/// shortest double charge and the first outcomes' examples, the kept
/// graph's report is the fresh one; a prefix that ends inside a step is
/// refused by both alike. The empty prefix is compared with the whole
/// exploration's report; the others with fresh explorations, but only
/// where the graph after the prefix has at most `fresh_max` states, to
/// bound the test's time on large models. Returns how many reports were
/// compared with fresh ones and how many prefixes refused.
fn compare_along(s: &Scenario, o: &Options, fresh_max: u64) -> (usize, usize) {
    let (whole, kept) = explore_keeping(s, o, &mut |_| ControlFlow::Continue(())).expect("valid");
    let kept = kept.expect("a complete exploration is kept");
    assert_eq!(kept.size(), (whole.states, whole.transitions));
    let at = |prefix: &Schedule| {
        format!(
            "{} {} {:?} {} unordered ties {}, prefix {:?}",
            s.name,
            s.strategy,
            o.search,
            o.reduction().name(),
            o.unordered_ties,
            prefix.0
        )
    };
    let start = Schedule::default();
    let reused = kept.from_prefix(&start).expect("the start is in the graph");
    assert_same(&reused, &whole, &at(&start));
    let mut schedules = vec![start];
    let double = whole
        .property(&crate::property::AT_MOST_ONE_CAPTURE)
        .and_then(|p| p.example.clone());
    schedules.extend(double.map(|e| e.schedule));
    schedules.extend(
        whole
            .outcomes
            .iter()
            .filter_map(|o| o.example.as_ref())
            .map(|e| e.schedule.clone())
            .take(3),
    );
    let (mut compared, mut refused) = (0, 0);
    for schedule in &schedules {
        let choices = choices_of(s, schedule);
        for k in 1..=choices.len() {
            let prefix = Schedule(choices[..k].to_vec());
            let at = at(&prefix);
            match kept.from_prefix(&prefix) {
                Ok(reused) if reused.states > fresh_max => {}
                Ok(reused) => {
                    let fresh = fresh(s, o, &prefix).unwrap_or_else(|e| panic!("{at}: {e}"));
                    assert_same(&reused, &fresh, &at);
                    compared += 1;
                }
                Err(NotKept::Prefix(e)) => {
                    assert_eq!(Err(e), fresh(s, o, &prefix), "{at}");
                    refused += 1;
                }
                // The reduced graph holds only the states its persistent
                // sets reach: a worker explores anew from the others.
                Err(NotKept::NotInGraph) if o.por => {}
                Err(NotKept::NotInGraph) => panic!("{at}: not in a whole graph"),
            }
        }
    }
    assert!(
        compared > 10,
        "{}: {compared} compared",
        at(&Schedule::default())
    );
    (compared, refused)
}

/// Client symmetry on, ties ordered or not; depth-first (the workshop's
/// search) and breadth-first, whose walk pops the other end; and the
/// partial-order reduction, whose persistent sets are the kept graph's
/// edges too.
fn option_sets(strategy: Strategy) -> Vec<Options> {
    let base = Options::for_strategy(strategy);
    let mut unordered = base.clone();
    unordered.unordered_ties = true;
    let mut breadth = base.clone();
    breadth.search = Search::BreadthFirst;
    let mut plain = base.clone();
    plain.symmetry = false;
    let mut por = base.clone();
    por.set_reduction(Reduction::Por);
    vec![base, unordered, breadth, plain, por]
}

/// Race-2 as built (each step one `Next` choice), and with network
/// jitter, whose steps make several choices: the prefix walk, prefixes
/// that end inside a step, and with unordered ties the examples rebuilt
/// by fingerprints, which read the copied index.
#[test]
fn race_2_from_every_prefix_reads_the_fresh_report_off_the_graph() {
    let mut refused = 0;
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = race(2);
        s.strategy = strategy;
        let mut jittered = s.clone();
        jittered.network.latency_ms = 1;
        jittered.network.jitter_ms = 1;
        assert!(!only_next_choices(&jittered));
        for s in [s, jittered] {
            for o in option_sets(strategy) {
                refused += compare_along(&s, &o, u64::MAX).1;
            }
        }
    }
    assert!(refused > 0, "some prefixes end inside a step");
}

/// Race-3 has hundreds of thousands of states, and this test runs
/// unoptimised: a fresh exploration is compared only where the graph
/// after the prefix is small (the deeper half of each run), and the
/// start, the largest, against the whole report; with unordered ties,
/// which halve the graphs (race-2 covers the other options).
#[test]
fn race_3_from_prefixes_reads_the_fresh_report_off_the_graph() {
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = race(3);
        s.strategy = strategy;
        let mut o = Options::for_strategy(strategy);
        o.unordered_ties = true;
        compare_along(&s, &o, 5_000);
    }
}

/// A graph kept from a prefix holds only what follows it: a prefix whose
/// state it never reached is not answered from it, and no graph is kept
/// from a run cut at the state limit.
#[test]
fn a_state_outside_the_graph_or_a_cut_run_is_refused() {
    let s = race(2);
    let o = Options::for_strategy(s.strategy);
    let choices = choices_of(&s, &Schedule::default());
    // The first prefix that ends between steps, past the start.
    let prefix = (1..choices.len())
        .map(|k| Schedule(choices[..k].to_vec()))
        .find(|p| fresh(&s, &o, p).is_ok())
        .expect("a prefix of whole steps");
    let mut ex = Explorer::after(&s, &o, &prefix).expect("fits");
    run_to_end(&mut ex, &mut |_| ControlFlow::Continue(()));
    let kept = KeptGraph::of(ex).expect("complete");
    assert_eq!(
        kept.from_prefix(&Schedule::default()),
        Err(NotKept::NotInGraph),
        "the start comes before the graph"
    );
    // Race-2's steps make one choice each: every prefix is of whole steps.
    let deeper = Schedule(choices[..choices.len() - 1].to_vec());
    let want = fresh(&s, &o, &deeper).expect("whole steps");
    assert_eq!(kept.from_prefix(&deeper), Ok(want), "a state inside it");
    let mut cut = o.clone();
    cut.max_states = 100;
    let (report, kept) = explore_keeping(&s, &cut, &mut |_| ControlFlow::Continue(())).unwrap();
    assert_eq!(report.status, Status::StateLimit);
    assert!(kept.is_none(), "a cut run keeps no graph");
    let mut ex = Explorer::new(&s, &cut).unwrap();
    run_to_end(&mut ex, &mut |_| ControlFlow::Continue(()));
    assert_eq!(KeptGraph::of(ex).err(), Some(Status::StateLimit));
}

/// A kept graph answers only for the scenario and options that built it.
#[test]
fn a_kept_graph_is_of_its_scenario_and_options_only() {
    let s = race(2);
    let o = Options::for_strategy(s.strategy);
    let (_, kept) = explore_keeping(&s, &o, &mut |_| ControlFlow::Continue(())).unwrap();
    let kept = kept.expect("complete");
    assert!(kept.is_of(&s, &o));
    let mut other = s.clone();
    other.strategy = Strategy::IdempotencyKey;
    assert!(!kept.is_of(&other, &o));
    let mut edited = s.clone();
    edited.db_latency_ms += 1;
    assert!(!kept.is_of(&edited, &o));
    let mut unordered = o.clone();
    unordered.unordered_ties = true;
    assert!(!kept.is_of(&s, &unordered));
    assert!(kept.bytes() > 0);
}
