//! Any bytes as the workshop's query string, through `parse` in
//! `workshop/src/url.rs`: reading never fails, the board it opens runs (the
//! scenario, the schedule it kept, the fork it kept), and the query it writes
//! for that board reads back as the same setup with nothing to report. A
//! panic or a hang is a finding.
//!
//! The module is compiled here by path rather than through lousa-workshop:
//! it needs lousa-core alone, and the fuzz build then stays clear of Leptos.
#![no_main]

#[path = "../../workshop/src/url.rs"]
#[allow(dead_code)]
mod url;

use libfuzzer_sys::fuzz_target;
use lousa_core::choice::Schedule;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (setup, _) = url::parse(text);
    let mut scenario =
        url::scenario_of(setup.scenario, &setup.edits).expect("the kept edits are valid");
    scenario.strategy = setup.strategy;
    let schedule = Schedule(setup.choices.clone());
    lousa_core::scheduling::turn(&scenario, &schedule).expect("the kept schedule fits");
    if let Some(f) = setup.fork {
        lousa_core::run::run_forked(&scenario, &schedule, f.frame, f.injection)
            .expect("the kept fork forks");
    }
    let written = url::query(&setup);
    let (again, problems) = url::parse(&written);
    assert!(problems.is_empty(), "{written}: {problems:?}");
    assert_eq!(again, setup, "{written}");
});
