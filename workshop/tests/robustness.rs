//! Issue #18's robustness: random edit sequences over the editor's state
//! and random URL strings never panic, and always leave a scenario the
//! board can run.

use lousa_core::builtins::{NAMES, builtin};
use lousa_core::choice::Schedule;
use lousa_core::scheduling;
use lousa_workshop::edit::{Kind, apply, fields, resize_clients};
use lousa_workshop::url::{parse, scenario_of};
use proptest::prelude::*;

/// What an attendee might type into a field: numbers around the limits,
/// words, JSON, nothing.
fn typed() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u64..5_000).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("round-robin".to_string()),
        Just("serializable".to_string()),
        Just(r#"[{"kind": "drop_response", "attempt": 1}]"#.to_string()),
        Just("[]".to_string()),
        "\\PC{0,12}",
    ]
}

/// One step of an editing session.
#[derive(Clone, Debug)]
enum Step {
    Field(usize, String),
    MoreClients,
    FewerClients,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (any::<usize>(), typed()).prop_map(|(i, t)| Step::Field(i, t)),
        1 => Just(Step::MoreClients),
        1 => Just(Step::FewerClients),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_edit_sequences_leave_a_scenario_that_runs(
        name in prop::sample::select(NAMES.to_vec()),
        steps in prop::collection::vec(step(), 1..12),
    ) {
        let mut edits = String::new();
        for s in steps {
            let result = match s {
                Step::Field(i, typed) => {
                    let scenario = scenario_of(name, &edits).unwrap();
                    let all = fields(&scenario);
                    let f = &all[i % all.len()];
                    // Whole numbers are bounded in the form; the rest is free text.
                    if let Kind::Whole { max, .. } = f.kind {
                        prop_assume!(typed.parse::<u64>().map_or(true, |n| n <= max));
                    }
                    apply(name, &edits, f, &typed)
                }
                Step::MoreClients => resize_clients(name, &edits, true),
                Step::FewerClients => resize_clients(name, &edits, false),
            };
            if let Ok(new) = result {
                edits = new;
            }
            // Whatever was refused, the board's scenario is valid and runs.
            let scenario = scenario_of(name, &edits).unwrap();
            prop_assert!(scenario.validate().is_ok());
            prop_assert!(scheduling::turn(&scenario, &Schedule::default()).is_ok());
        }
    }

    #[test]
    fn random_urls_open_a_board(query in "\\PC{0,300}") {
        let (setup, _) = parse(&query);
        let mut scenario = scenario_of(setup.scenario, &setup.edits).unwrap();
        scenario.strategy = setup.strategy;
        prop_assert!(scheduling::turn(&scenario, &Schedule(setup.choices)).is_ok());
    }

    #[test]
    fn random_urls_with_the_workshops_keys_open_a_board(
        scenario in "(race-2|timeout-retry|nope)(;[a-z_.0-9]{1,20}=[-0-9a-z\"\\[\\]]{0,8}){0,3}",
        schedule in "[0-9a-z!x-]{0,20}",
        strategy in "(naive|check-then-act|idempotency-key|x)",
    ) {
        let (setup, _) = parse(&format!("?modo=oficina&scenario={scenario}&strategy={strategy}&schedule={schedule}"));
        let mut s = scenario_of(setup.scenario, &setup.edits).unwrap();
        s.strategy = setup.strategy;
        prop_assert!(scheduling::turn(&s, &Schedule(setup.choices)).is_ok());
    }
}

#[test]
fn a_sample_of_built_ins_edits_runs() {
    // The property's premise: the built-ins themselves open.
    for name in NAMES {
        assert!(builtin(name).is_some());
        assert!(scenario_of(name, "").is_ok());
    }
}
