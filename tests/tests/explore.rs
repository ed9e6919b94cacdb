//! The exhaustive explorer (`lousa_core::explore`): its counts against brute
//! force, its reductions against the unreduced graph, its shortest schedules
//! against every schedule, and its bounds.

use lousa_core::builtins::race;
use lousa_core::explore::{
    self, CONFLICT_REACHABLE, Claim, DOUBLE_CHARGE_REACHABLE, ExploreError, Explorer, Options,
    OptionsError, REPLAY_REACHABLE, Report, Search, Shortest, Status, Verdict,
};
use lousa_core::property::{self, AT_MOST_ONE_CAPTURE, Ending};
use lousa_core::run;
use lousa_core::scenario::{Fault, LoadBalancerPolicy};
use lousa_core::trace::{EndReason, Summary};
use lousa_core::{Scenario, Schedule, Strategy, World};
use std::collections::{BTreeMap, BTreeSet};

fn race_with(n: u32, strategy: Strategy) -> Scenario {
    let mut s = race(n);
    s.strategy = strategy;
    s
}

/// race-2 behind a random load balancer with one connection per instance:
/// the attempts race only when they land on different instances.
fn random_race_2(strategy: Strategy) -> Scenario {
    let mut s = race_with(2, strategy);
    s.load_balancer = LoadBalancerPolicy::Random;
    s
}

/// Staggered clients, latencies and a jittery network: many choice kinds,
/// few schedules.
fn staggered(strategy: Strategy) -> Scenario {
    let mut s = race_with(2, strategy);
    s.clients[1].start_ms = 1;
    s.db_latency_ms = 1;
    s.acquirer.latency_ms = 2;
    s.network.latency_ms = 1;
    s.network.jitter_ms = 1;
    s
}

fn options(strategy: Strategy, symmetry: bool, unordered_ties: bool) -> Options {
    let mut o = Options::for_strategy(strategy);
    o.symmetry = symmetry;
    o.unordered_ties = unordered_ties;
    o
}

fn explore(s: &Scenario, o: &Options) -> Report {
    let r = explore::explore(s, o).expect("valid scenario and options");
    assert_eq!(r.status, Status::Complete, "{} {}", s.name, s.strategy);
    r
}

/// Captures per intent, answers, how the run ended, invariants broken.
type Key = (Vec<u32>, Vec<Option<u16>>, String, Vec<String>);

fn key_of(s: &Summary) -> Key {
    (
        s.intents.iter().map(|i| i.captures).collect(),
        s.statuses(),
        end_name(s.end),
        s.invariants
            .iter()
            .filter(|v| !v.holds)
            .map(|v| v.name.clone())
            .collect(),
    )
}

fn outcome_key(o: &explore::Outcome) -> Key {
    (
        o.captures.clone(),
        o.answers.clone(),
        end_name(o.end),
        o.broken.clone(),
    )
}

fn end_name(e: EndReason) -> String {
    format!("{e:?}")
}

#[derive(Default, Debug, PartialEq)]
struct Brute {
    schedules: u128,
    fewest_choices: u32,
    fewest_steps: u32,
}

/// Every complete schedule, one by one: per outcome, how many, and the
/// fewest choices (up to the last non-zero one) and steps among them.
fn brute_force(s: &Scenario) -> BTreeMap<Key, Brute> {
    fn walk(w: &World, choices: usize, trimmed: usize, steps: u32, out: &mut BTreeMap<Key, Brute>) {
        if w.is_done() {
            let b = out.entry(key_of(&run::summarize(w))).or_insert(Brute {
                schedules: 0,
                fewest_choices: u32::MAX,
                fewest_steps: u32::MAX,
            });
            b.schedules += 1;
            b.fewest_choices = b.fewest_choices.min(trimmed as u32);
            b.fewest_steps = b.fewest_steps.min(steps);
            return;
        }
        for (c, next) in explore::successors(w) {
            let trimmed = match c.iter().rposition(|&x| x != 0) {
                Some(i) => choices + i + 1,
                None => trimmed,
            };
            walk(&next, choices + c.len(), trimmed, steps + 1, out);
        }
    }
    let mut out = BTreeMap::new();
    walk(&World::new(s), 0, 0, 0, &mut out);
    out
}

fn small_models() -> Vec<Scenario> {
    vec![
        race_with(2, Strategy::IdempotencyKey),
        race_with(2, Strategy::IdempotencyKeyHeldTx),
        random_race_2(Strategy::IdempotencyKey),
        staggered(Strategy::CheckThenAct),
        staggered(Strategy::IdempotencyKeyCatch),
    ]
}

#[test]
fn schedule_counts_and_outcomes_match_brute_force_enumeration() {
    for s in small_models() {
        let brute = brute_force(&s);
        for (symmetry, ties) in [(false, false), (true, false), (false, true), (true, true)] {
            let r = explore(&s, &options(s.strategy, symmetry, ties));
            let total: u128 = brute.values().map(|b| b.schedules).sum();
            assert_eq!(
                r.schedules, total,
                "{} {}: total schedules",
                s.name, s.strategy
            );
            assert!(!r.schedules_saturated);
            let got: BTreeMap<Key, u128> = r
                .outcomes
                .iter()
                .map(|o| (outcome_key(o), o.schedules))
                .collect();
            let want: BTreeMap<Key, u128> = brute
                .iter()
                .map(|(k, b)| (k.clone(), b.schedules))
                .collect();
            assert_eq!(
                got, want,
                "{} {} symmetry={symmetry} unordered_ties={ties}",
                s.name, s.strategy
            );
        }
    }
}

#[test]
fn shortest_schedules_are_the_shortest_of_all_schedules() {
    for s in small_models() {
        let brute = brute_force(&s);
        for ties in [false, true] {
            let r = explore(&s, &options(s.strategy, true, ties));
            for o in &r.outcomes {
                let b = &brute[&outcome_key(o)];
                let e = o.example.as_ref().expect("every outcome has an example");
                match r.shortest {
                    Shortest::Choices => {
                        assert_eq!(
                            e.choices, b.fewest_choices,
                            "{} {} {o:?}",
                            s.name, s.strategy
                        )
                    }
                    Shortest::Steps => {
                        assert_eq!(e.steps, b.fewest_steps, "{} {} {o:?}", s.name, s.strategy)
                    }
                }
            }
        }
    }
}

#[test]
fn every_example_replays_to_its_outcome() {
    let mut models = small_models();
    models.push(race_with(2, Strategy::CheckThenAct));
    models.push(race_with(3, Strategy::IdempotencyKey));
    for s in models {
        for ties in [false, true] {
            let r = explore(&s, &options(s.strategy, true, ties));
            for o in &r.outcomes {
                let e = o.example.as_ref().expect("an example");
                assert_eq!(
                    e.text.parse::<lousa_core::Schedule>().unwrap(),
                    e.schedule.trimmed()
                );
                let run = run::run_schedule(&s, &e.schedule).unwrap();
                assert_eq!(
                    key_of(&run.summary),
                    outcome_key(o),
                    "{} {} replaying {}",
                    s.name,
                    s.strategy,
                    e.text
                );
                assert_eq!(
                    run.steps.len() as u32,
                    e.steps,
                    "{} {} replaying {}",
                    s.name,
                    s.strategy,
                    e.text
                );
            }
            for p in &r.properties {
                if let Some(e) = &p.example {
                    let run = run::run_schedule(&s, &e.schedule).unwrap();
                    // The example's own run, judged by the property's check
                    // and, for an invariant, by the run's verdict too.
                    let property = p.claim.property;
                    let summary = &run.summary;
                    let mut world = explore::quiet_world(&s);
                    let mut chooser = lousa_core::ScheduleChooser::new(&e.schedule);
                    while !world.is_done() {
                        world.step(&mut chooser);
                    }
                    let ending = Ending {
                        world: &world,
                        intents: &summary.intents,
                        attempts: &summary.attempts,
                    };
                    let shows = match property.modality {
                        property::Modality::Always => {
                            summary.verdict(property.name).is_some_and(|v| !v.holds)
                        }
                        property::Modality::Sometimes => property.shown_by(&ending),
                    };
                    assert!(
                        shows,
                        "{} {}: {} example {} does not show it",
                        s.name, s.strategy, property.name, e.text
                    );
                }
            }
        }
    }
}

#[test]
fn reductions_and_search_order_keep_every_verdict_and_count() {
    let verdicts = |r: &Report| r.properties.iter().map(|p| p.verdict).collect::<Vec<_>>();
    let by_outcome = |r: &Report| {
        r.outcomes
            .iter()
            .map(|o| (outcome_key(o), o.schedules))
            .collect::<BTreeMap<_, _>>()
    };
    for s in [
        race_with(2, Strategy::CheckThenAct),
        race_with(2, Strategy::IdempotencyKeyCatch),
        race_with(2, Strategy::IdempotencyKeyLease),
        race_with(3, Strategy::IdempotencyKey),
    ] {
        let base = explore(&s, &options(s.strategy, false, false));
        let mut states = Vec::new();
        for (symmetry, ties, search) in [
            (true, false, Search::BreadthFirst),
            (false, true, Search::DepthFirst),
            (true, true, Search::DepthFirst),
            (true, true, Search::BreadthFirst),
        ] {
            let mut o = options(s.strategy, symmetry, ties);
            o.search = search;
            let r = explore(&s, &o);
            let what = format!(
                "{} {} symmetry={symmetry} ties={ties} {search:?}",
                s.name, s.strategy
            );
            assert_eq!(r.schedules, base.schedules, "{what}");
            assert_eq!(r.max_depth, base.max_depth, "{what}");
            assert_eq!(verdicts(&r), verdicts(&base), "{what}");
            assert_eq!(by_outcome(&r), by_outcome(&base), "{what}");
            assert!(
                r.states < base.states,
                "{what}: the reduction merged nothing"
            );
            states.push(r.states);
        }
        assert_eq!(
            states[2], states[3],
            "the search order does not change the graph"
        );
        assert!(
            states[2] < states[0].min(states[1]),
            "two reductions merge more than one"
        );
    }
}

#[test]
fn race_figures_are_stable() {
    // Pinned so a change to the world's semantics or to the explorer shows
    // up here (update deliberately, with the reason in the commit).
    let figures = |n, strategy, symmetry, ties| {
        let s = race_with(n, strategy);
        let r = explore(&s, &options(strategy, symmetry, ties));
        (r.states, r.transitions, r.schedules)
    };
    assert_eq!(
        figures(2, Strategy::CheckThenAct, false, false),
        (1_283, 2_308, 700_922)
    );
    assert_eq!(
        figures(2, Strategy::CheckThenAct, true, true),
        (311, 537, 700_922)
    );
    assert_eq!(
        figures(2, Strategy::IdempotencyKey, false, false),
        (267, 460, 1_764)
    );
    assert_eq!(
        figures(2, Strategy::IdempotencyKey, true, true),
        (98, 159, 1_764)
    );
    assert_eq!(
        figures(3, Strategy::IdempotencyKey, true, true),
        (975, 2_288, 17_405_388)
    );
}

#[test]
fn check_then_act_can_double_charge_and_the_key_cannot_in_race_2() {
    let r = explore(
        &race_with(2, Strategy::CheckThenAct),
        &Options::for_strategy(Strategy::CheckThenAct),
    );
    assert_eq!(
        r.property(&AT_MOST_ONE_CAPTURE).unwrap().verdict,
        Verdict::Violated
    );
    assert_eq!(
        r.property(&DOUBLE_CHARGE_REACHABLE).unwrap().verdict,
        Verdict::Reached
    );
    assert!(
        r.passed(),
        "check-then-act does not claim at-most-once; it must show the race"
    );
    let (p, e) = r.counterexample().expect("a counterexample");
    assert_eq!(*p, AT_MOST_ONE_CAPTURE);
    let replay = run::run_schedule(&race_with(2, Strategy::CheckThenAct), &e.schedule).unwrap();
    assert_eq!(replay.summary.double_charged_intents, vec![0]);
    for strategy in [
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyHeldTx,
        Strategy::IdempotencyKeyLease,
        Strategy::LocalEffect,
    ] {
        let r = explore(&race_with(2, strategy), &Options::for_strategy(strategy));
        assert!(r.passed(), "{strategy}: {:#?}", r.properties);
        assert_eq!(
            r.property(&AT_MOST_ONE_CAPTURE).unwrap().verdict,
            Verdict::Holds,
            "{strategy}"
        );
        assert!(r.counterexample().is_none(), "{strategy}");
    }
}

#[test]
fn a_sometimes_property_never_reached_fails_the_run() {
    let s = race_with(2, Strategy::IdempotencyKey);
    let mut o = Options::for_strategy(s.strategy);
    o.properties.push(Claim::sometimes(DOUBLE_CHARGE_REACHABLE));
    let r = explore(&s, &o);
    let p = r.property(&DOUBLE_CHARGE_REACHABLE).unwrap();
    assert_eq!(p.verdict, Verdict::NeverReached);
    assert!(
        !p.ok && !r.passed(),
        "a vacuous sometimes must fail the run"
    );
}

#[test]
fn held_transaction_never_answers_409_in_race_2() {
    // The retry waits on the row instead of being refused: the client never
    // sees "processing" (DOMAIN.md, "commit the claim before calling").
    let s = race_with(2, Strategy::IdempotencyKeyHeldTx);
    let mut o = Options::for_strategy(s.strategy);
    o.properties.push(Claim::sometimes(CONFLICT_REACHABLE));
    let r = explore(&s, &o);
    assert_eq!(
        r.property(&CONFLICT_REACHABLE).unwrap().verdict,
        Verdict::NeverReached
    );
    assert_eq!(
        r.property(&REPLAY_REACHABLE).unwrap().verdict,
        Verdict::Reached
    );
}

#[test]
fn the_state_limit_is_a_named_outcome_not_a_hang() {
    let s = race_with(3, Strategy::CheckThenAct);
    let mut o = Options::for_strategy(s.strategy);
    o.max_states = 2_000;
    let r = explore::explore(&s, &o).unwrap();
    assert_eq!(r.status, Status::StateLimit);
    assert_eq!(r.states, 2_000);
    assert!(!r.passed());
    for p in &r.properties {
        assert!(
            matches!(
                p.verdict,
                Verdict::Unknown | Verdict::Violated | Verdict::Reached
            ),
            "{p:?}: nothing can hold or be unreachable in a partial graph"
        );
    }
}

#[test]
fn run_for_works_in_slices_and_can_be_cancelled() {
    let s = race_with(3, Strategy::IdempotencyKey);
    let o = Options::for_strategy(s.strategy);
    let mut whole = Explorer::new(&s, &o).unwrap();
    let mut slices = 0;
    while whole.run_for(100).status == Status::Running {
        slices += 1;
    }
    assert!(slices > 10, "{slices} slices");
    let sliced = whole.report().unwrap().clone();
    assert_eq!(sliced, explore(&s, &o), "slicing changes nothing");

    let mut ex = Explorer::new(&s, &o).unwrap();
    let p = ex.run_for(50);
    assert_eq!(p.status, Status::Running);
    assert!(p.states > 50 && p.transitions >= p.states - 1, "{p:?}");
    ex.cancel();
    assert_eq!(ex.progress().status, Status::Cancelled);
    let r = ex.report().unwrap();
    assert_eq!(r.status, Status::Cancelled);
    assert!(!r.passed());
}

#[test]
fn bad_options_name_the_field_and_the_limit() {
    let s = race_with(2, Strategy::IdempotencyKey);
    let mut o = Options::for_strategy(s.strategy);
    o.max_states = 0;
    let e = Explorer::new(&s, &o).err().unwrap();
    assert_eq!(e, ExploreError::Options(OptionsError::MaxStates(0)));
    assert!(e.to_string().starts_with("max_states: 0"), "{e}");
    assert!(
        e.to_string()
            .contains(&explore::limits::STATES_MAX.to_string()),
        "{e}"
    );
    o.max_states = explore::limits::STATES_MAX + 1;
    assert!(matches!(
        Explorer::new(&s, &o).err().unwrap(),
        ExploreError::Options(OptionsError::MaxStates(_))
    ));
    // A property is a value of the table: a misspelt one does not compile,
    // and a name from outside (the CLI's --sometimes) is looked up.
    assert!(property::named("money-appears").is_none());
    assert_eq!(
        property::named("double-charge-reachable"),
        Some(DOUBLE_CHARGE_REACHABLE)
    );
    // A scenario error is still the scenario's.
    let mut bad = s.clone();
    bad.clients.clear();
    assert!(matches!(
        Explorer::new(&bad, &Options::for_strategy(bad.strategy))
            .err()
            .unwrap(),
        ExploreError::Scenario(_)
    ));
}

#[test]
fn faults_and_crashes_explore_to_the_end() {
    // Drops, a crash with restart and a lost acquirer reply: every kind of
    // event the world has, on a small model.
    let mut s = staggered(Strategy::IdempotencyKeyLease);
    s.clients[0].retries_max = 1;
    s.clients[0].timeout_ms = 6;
    s.lease_ms = 3;
    s.recovery_every_ms = 100;
    s.network.jitter_ms = 0;
    s.faults = vec![
        Fault::DropResponse { attempt: 1 },
        Fault::Crash {
            instance: 1,
            at_ms: Some(3),
            at_point: None,
            restart_after_ms: 2,
        },
        Fault::AcquirerTimeoutAfterAccept { call: 2 },
    ];
    let r = explore(&s, &Options::for_strategy(s.strategy));
    assert!(r.schedules > 1 && r.terminal_states > 1, "{r:#?}");
    for o in &r.outcomes {
        let e = o.example.as_ref().unwrap();
        let run = run::run_schedule(&s, &e.schedule).unwrap();
        assert_eq!(key_of(&run.summary), outcome_key(o));
    }
}

#[test]
fn any_state_limit_gives_a_consistent_partial_report() {
    // Cut the search everywhere, including in the middle of expanding a
    // state: the report must still be built, and whatever it found must
    // replay.
    let s = race_with(2, Strategy::CheckThenAct);
    for max_states in [1, 2, 3, 7, 40, 250] {
        for ties in [false, true] {
            for search in [Search::BreadthFirst, Search::DepthFirst] {
                let mut o = options(s.strategy, true, ties);
                o.max_states = max_states;
                o.search = search;
                let r = explore::explore(&s, &o).unwrap();
                assert_eq!(r.status, Status::StateLimit, "{max_states}");
                assert!(r.states <= u64::from(max_states));
                for o in &r.outcomes {
                    if let Some(e) = &o.example {
                        let run = run::run_schedule(&s, &e.schedule).unwrap();
                        assert_eq!(
                            key_of(&run.summary),
                            outcome_key(o),
                            "{max_states} {search:?}"
                        );
                    }
                }
            }
        }
    }
}

#[path = "../../core/tests/shared/report_lines.rs"]
mod report_lines;

#[test]
fn explorer_and_swarm_reports_are_pinned_for_the_wasm_check() {
    // core/tests/wasm_determinism.rs checks the same lines under wasm32.
    expect_test::expect_file!["../golden/explore-hashes.txt"]
        .assert_eq(&report_lines::explorer_and_swarm());
}

#[test]
fn a_declined_key_never_captures_on_any_schedule_of_the_key_designs() {
    use lousa_core::property::DECLINED_KEY_NEVER_CAPTURES;
    // Two attempts of one key at once, the card refused on the first call:
    // without a stored answer the other attempt's call may still capture.
    for strategy in Strategy::ALL {
        let mut s = race_with(2, strategy);
        s.faults = vec![Fault::AcquirerDeclines { call: 1 }];
        let r = explore(&s, &Options::for_strategy(strategy));
        let p = r
            .property(&DECLINED_KEY_NEVER_CAPTURES)
            .unwrap_or_else(|| panic!("{strategy}: the explorer checks the property"));
        let want = if strategy.uses_key() {
            Verdict::Holds
        } else {
            Verdict::Violated
        };
        assert_eq!(p.verdict, want, "{strategy}: {p:#?}");
    }
    for strategy in [
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyLease,
    ] {
        let mut s = lousa_core::builtins::builtin("decline-stored").unwrap();
        s.strategy = strategy;
        let r = explore(&s, &Options::for_strategy(strategy));
        let p = r.property(&DECLINED_KEY_NEVER_CAPTURES).unwrap();
        assert_eq!(p.verdict, Verdict::Holds, "decline-stored under {strategy}");
    }
}

/// Complete schedules as their choices, each with its outcome.
type Schedules = Vec<(Vec<u32>, Key)>;

/// Every complete schedule, and the step-aligned prefixes met on the way
/// (at most `depth` choosing steps in).
fn schedules_and_prefixes(s: &Scenario, depth: usize) -> (Schedules, BTreeSet<Vec<u32>>) {
    fn walk(
        w: &World,
        choices: &mut Vec<u32>,
        choosing: usize,
        depth: usize,
        all: &mut Schedules,
        prefixes: &mut BTreeSet<Vec<u32>>,
    ) {
        if w.is_done() {
            all.push((choices.clone(), key_of(&run::summarize(w))));
            return;
        }
        for (c, next) in explore::successors(w) {
            let len = choices.len();
            choices.extend_from_slice(&c);
            let choosing = choosing + usize::from(!c.is_empty());
            if !c.is_empty() && choosing <= depth {
                prefixes.insert(choices.clone());
            }
            walk(&next, choices, choosing, depth, all, prefixes);
            choices.truncate(len);
        }
    }
    let (mut all, mut prefixes) = (Vec::new(), BTreeSet::from([Vec::new()]));
    walk(
        &World::new(s),
        &mut Vec::new(),
        0,
        depth,
        &mut all,
        &mut prefixes,
    );
    (all, prefixes)
}

/// From any point a prefix reaches, the explorer counts exactly the
/// complete schedules that begin with it, by outcome, and its examples are
/// whole schedules that begin with it and end in their outcome.
#[test]
fn counts_from_a_prefix_are_the_schedules_that_begin_with_it() {
    for s in small_models() {
        let (all, prefixes) = schedules_and_prefixes(&s, 3);
        assert!(
            prefixes.len() > 3,
            "{}: {} prefixes",
            s.name,
            prefixes.len()
        );
        for prefix in &prefixes {
            let mut want: BTreeMap<Key, u128> = BTreeMap::new();
            for (choices, key) in &all {
                if choices.starts_with(prefix) {
                    *want.entry(key.clone()).or_default() += 1;
                }
            }
            for (symmetry, ties) in [(false, false), (true, true)] {
                let o = options(s.strategy, symmetry, ties);
                let r = explore::explore_from(&s, &o, &Schedule(prefix.clone()), &mut |_| {
                    std::ops::ControlFlow::Continue(())
                })
                .expect("the prefix fits");
                let got: BTreeMap<Key, u128> = r
                    .outcomes
                    .iter()
                    .map(|o| (outcome_key(o), o.schedules))
                    .collect();
                let at = format!(
                    "{} {} from {prefix:?} symmetry={symmetry}",
                    s.name, s.strategy
                );
                assert_eq!(got, want, "{at}");
                assert_eq!(r.schedules, want.values().sum::<u128>(), "{at}");
                for o in &r.outcomes {
                    let e = o.example.as_ref().expect("every outcome has an example");
                    let mut padded = e.schedule.0.clone();
                    padded.resize(padded.len().max(prefix.len()), 0);
                    assert!(padded.starts_with(prefix), "{at}: {}", e.text);
                    let replayed = run::run_schedule(&s, &e.schedule).expect("valid");
                    assert_eq!(
                        key_of(&replayed.summary),
                        outcome_key(o),
                        "{at}: {}",
                        e.text
                    );
                    assert_eq!(e.steps as usize, replayed.steps.len(), "{at}: {}", e.text);
                }
            }
        }
    }
}

#[test]
fn a_prefix_that_does_not_fit_is_refused_with_its_place() {
    let s = race_with(2, Strategy::CheckThenAct);
    let o = explore::Options::for_strategy(s.strategy);
    let go = |p: &str| {
        explore::explore_from(&s, &o, &p.parse().unwrap(), &mut |_| {
            std::ops::ControlFlow::Continue(())
        })
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        go("7"),
        "choice 1 is 7, past the 2 alternatives of that choice point (0 to 1)"
    );
    let long = vec!["1"; 400].join("-");
    assert!(go(&long).contains("400 choices"), "{}", go(&long));
}

#[test]
fn a_prefix_that_stops_inside_a_step_is_refused() {
    // A random load balancer makes a step choose twice: which event, then
    // which instance.
    let s = random_race_2(Strategy::IdempotencyKey);
    let mut w = World::new(&s);
    let mut prefix = Vec::new();
    let split = loop {
        let next = explore::successors(&w);
        if let Some((c, _)) = next.iter().find(|(c, _)| c.len() >= 2) {
            break c[0];
        }
        let (c, n) = next.into_iter().next().expect("a step before the end");
        prefix.extend(c);
        w = n;
    };
    let whole = prefix.len();
    prefix.push(split);
    let e = explore::explore_from(
        &s,
        &explore::Options::for_strategy(s.strategy),
        &Schedule(prefix.clone()),
        &mut |_| std::ops::ControlFlow::Continue(()),
    )
    .unwrap_err();
    assert_eq!(
        e,
        explore::ExploreError::PrefixInsideStep {
            choices_in_whole_steps: whole,
            given: prefix.len()
        }
    );
}

/// Issue #19, second half: over every schedule, not only the seeded one,
/// each pair of built-ins splits where its paragraph says it does.
#[test]
fn every_schedule_of_the_second_post_pairs_keeps_or_breaks_its_property() {
    let verdict = |name: &str, property: &str| {
        let s = lousa_core::builtins::builtin(name).expect("built-in");
        let r = explore(&s, &Options::for_strategy(s.strategy));
        let p = r
            .properties
            .iter()
            .find(|p| p.claim.property.name == property)
            .unwrap_or_else(|| panic!("{name}: {property} is checked"));
        (p.verdict, r)
    };
    // The held transaction, not the check, double charges the timeout story.
    let (v, r) = verdict("timeout-retry-autocommit", DOUBLE_CHARGE_REACHABLE.name);
    assert_eq!(v, Verdict::NeverReached, "{} schedules", r.schedules);
    let (v, _) = verdict("double-click-autocommit", DOUBLE_CHARGE_REACHABLE.name);
    assert_eq!(v, Verdict::Reached);
    let false_422 = property::NO_FALSE_422.name;
    assert_eq!(verdict("scoped-key", false_422).0, Verdict::Holds);
    assert_eq!(verdict("unscoped-key", false_422).0, Verdict::Violated);
    assert_eq!(verdict("reformatted-retry", false_422).0, Verdict::Holds);
    assert_eq!(
        verdict("timestamp-in-fingerprint", false_422).0,
        Verdict::Violated
    );
    let lost = property::NO_LOST_UPDATE.name;
    let (v, r) = verdict("balance-lost-update", lost);
    assert_eq!(v, Verdict::Violated);
    assert!(r.schedules > 1, "more than one interleaving to lose it in");
    assert_eq!(verdict("balance-for-update", lost).0, Verdict::Holds);
    // The optimistic twin: every interleaving keeps both debits.
    let (v, r) = verdict("balance-version-column", lost);
    assert_eq!(v, Verdict::Holds);
    assert!(r.schedules > 1, "the race is explored, not avoided");
    let published = property::EVERY_EFFECT_PUBLISHED.name;
    assert_eq!(
        verdict("event-after-commit", published).0,
        Verdict::Violated
    );
    assert_eq!(verdict("event-outbox", published).0, Verdict::Holds);
}
