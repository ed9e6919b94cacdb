//! Any bytes as the workshop's query string, through `parse` in
//! `workshop/src/url.rs`: reading never fails, the board it opens runs (the
//! scenario, the schedule it kept, the fork it kept), and the query it writes
//! for that board reads back as the same setup with nothing to report. The
//! work a link can ask at mount is bounded: the choices it keeps never pass
//! the schedule limit, nor the choice points of the run they open, and the
//! problems it lists never pass the list's limit. A panic or a hang is a
//! finding.
//!
//! The module is compiled here by path rather than through lousa-workshop:
//! it needs lousa-core and the reader both pages share (`web/src/url.rs`,
//! compiled by path too, and named `lousa_web` below so that the
//! workshop's `use lousa_web::url` finds it), and the fuzz build then stays
//! clear of Leptos.
#![no_main]

extern crate self as lousa_web;

#[path = "../../web/src/url.rs"]
#[allow(dead_code)]
mod url;

#[path = "../../workshop/src/url.rs"]
#[allow(dead_code)]
mod workshop_url;

use libfuzzer_sys::fuzz_target;
use lousa_core::choice::Schedule;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (setup, problems) = workshop_url::parse(text);
    assert!(setup.choices.len() <= lousa_core::choice::SCHEDULE_LEN_MAX);
    assert!(problems.list.len() <= url::PROBLEMS_MAX);
    for p in &problems.list {
        assert!(p.param.chars().count() <= url::VALUE_MAX + 1);
        assert!(p.value.chars().count() <= url::VALUE_MAX + 1);
    }
    let mut scenario = workshop_url::scenario_of(setup.scenario, &setup.edits)
        .expect("the kept edits are valid");
    scenario.strategy = setup.strategy;
    let schedule = Schedule(setup.choices.clone());
    let point =
        lousa_core::scheduling::point(&scenario, &schedule).expect("the kept schedule fits");
    // Every kept choice was asked by the run: none waits past its end.
    assert!(point.run.frame_count() >= 1);
    assert_eq!(point.next.map_or(setup.choices.len(), |p| p.position), setup.choices.len());
    if let Some(f) = setup.fork {
        lousa_core::run::run_forked(&scenario, &schedule, f.frame, f.injection)
            .expect("the kept fork forks");
    }
    let written = workshop_url::query(&setup);
    let (again, problems) = workshop_url::parse(&written);
    assert!(problems.is_empty(), "{written}: {problems:?}");
    assert_eq!(again, setup, "{written}");
});
