//! The Rust test: the text of a `#[test]` that replays one run with
//! lousa-core's public API (`run::run_schedule`, as `lousa run --schedule`
//! does) and asserts how it ended, so an interleaving found by hand or by the
//! explorer becomes a regression test in any crate that depends on
//! lousa-core.

use crate::builtins;
use crate::run::Run;
use crate::scenario::Scenario;
use crate::text::fnv1a;
use std::fmt::Write;

/// What the exported test asserts, read from the run: captures per intent,
/// each attempt's answer with its client, and each *always* property's
/// verdict, in `property::ALL` order.
struct Expected {
    captures: Vec<u32>,
    answers: Vec<(u32, Option<u16>)>,
    verdicts: Vec<(String, bool)>,
}

fn expected(run: &Run) -> Expected {
    let summary = &run.summary;
    Expected {
        captures: summary.intents.iter().map(|i| i.captures).collect(),
        answers: summary
            .attempts
            .iter()
            .map(|a| (a.client, a.status))
            .collect(),
        // Every always-property the run judged: the strategy's, and those
        // its design takes on (a design that keeps keys as the lease design
        // does is judged by the lease's properties).
        verdicts: summary
            .invariants
            .iter()
            .map(|v| (v.name.clone(), v.holds))
            .collect(),
    }
}

/// A Rust identifier from free text: lowercase ASCII letters and digits,
/// everything else one `_`.
fn ident(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The test's name: scenario, strategy and schedule, the schedule as its
/// hash when it is long (a seeded run's schedule can be hundreds of choices).
fn test_name(scenario: &Scenario, run: &Run) -> String {
    let schedule = if run.schedule.len() <= 24 {
        ident(&run.schedule)
    } else {
        format!("h{:08x}", fnv1a(run.schedule.as_bytes()) as u32)
    };
    let mut name = format!(
        "{}_under_{}_schedule_{schedule}",
        ident(&scenario.name),
        ident(&super::handler_name(scenario, run))
    );
    if let Some(fork) = run.fork {
        name.push_str(&format!("_fork_{}", ident(&fork.to_string())));
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "scenario_");
    }
    name
}

/// `text` as a raw string literal with enough `#`s that nothing inside ends
/// it.
fn raw_literal(text: &str) -> String {
    let mut most = 0;
    for (i, _) in text.match_indices('"') {
        let run = text[i + 1..].chars().take_while(|&c| c == '#').count();
        most = most.max(run);
    }
    let hashes = "#".repeat(most + 1);
    format!("r{hashes}\"{text}\"{hashes}")
}

/// rustfmt's line width: the exported test is written as rustfmt would
/// format it, so that pasting it into a formatted crate changes nothing.
const WIDTH: usize = 100;

/// `line` with a newline, or, past [`WIDTH`], with `from` (after `head`)
/// replaced by `to`, where rustfmt would break it.
fn fitted(line: String, head: &str, from: &str, to: &str) -> String {
    let mut line = if line.len() > WIDTH {
        let at = line.find(head).map_or(0, |i| i + head.len());
        let (a, b) = line.split_at(at);
        format!("{a}{}", b.replacen(from, to, 1))
    } else {
        line
    };
    line.push('\n');
    line
}

/// Whether `scenario` is a built-in with only its strategy, seed and
/// design changed: then the test names it, else it embeds the scenario's
/// JSON.
fn is_builtin(scenario: &Scenario) -> bool {
    builtins::builtin(&scenario.name).is_some_and(|mut b| {
        b.strategy = scenario.strategy;
        b.seed = scenario.seed;
        #[cfg(feature = "designs")]
        {
            b.design = scenario.design.clone();
        }
        b == *scenario
    })
}

/// The lines that attach the run's design to `scenario`, its JSON embedded:
/// a design travels beside a scenario, not in its JSON.
fn design_lines(scenario: &Scenario) -> String {
    let Some(p) = scenario.program() else {
        return String::new();
    };
    let json = serde_json::to_string(p.design()).expect("a design is JSON");
    format!(
        "    let design = lousa_core::design::Design::from_json({})\n        .expect(\"the embedded design is valid\");\n\
         \x20   scenario.design = Some(std::sync::Arc::new(design));\n",
        raw_literal(&json)
    )
}

/// The text of a `#[test]` that replays `run` (of `scenario`) from its
/// schedule and asserts its outcome. A built-in is named; any other scenario
/// is embedded as JSON. The test needs only `lousa-core` as a dependency.
pub fn rust_test(scenario: &Scenario, run: &Run) -> String {
    let e = expected(run);
    let strategy = run.strategy.name();
    let designed = scenario.program().is_some();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Exported by Lousa: scenario {:?} under {}, schedule {}{}.",
        scenario.name,
        super::handler_name(scenario, run),
        run.schedule,
        run.fork
            .map_or_else(String::new, |f| format!(",\n// a fault injected at {f}"))
    );
    let _ = writeln!(
        out,
        "// It replays that run with lousa-core and asserts how it ended; put it in a\n\
         // crate that depends on lousa-core, e.g. as tests/replay.rs."
    );
    let _ = writeln!(out, "#[test]\nfn {}() {{", test_name(scenario, run));
    if is_builtin(scenario) {
        let _ = writeln!(
            out,
            "    let mut scenario = lousa_core::builtins::builtin({:?}).expect(\"a built-in scenario\");",
            scenario.name
        );
        let line = format!(
            "    scenario.strategy = lousa_core::Strategy::from_name({strategy:?}).expect(\"a strategy\");"
        );
        out.push_str(&fitted(
            line,
            "scenario.strategy =",
            " lousa_core",
            "\n        lousa_core",
        ));
        let _ = writeln!(out, "    scenario.seed = {};", scenario.seed);
    } else {
        let _ = writeln!(
            out,
            "    let {}scenario = lousa_core::Scenario::from_json({})\n        .expect(\"the embedded scenario is valid\");",
            if designed { "mut " } else { "" },
            raw_literal(&scenario.to_json())
        );
    }
    out.push_str(&design_lines(scenario));
    let line = format!(
        "    let schedule: lousa_core::Schedule = {:?}.parse().expect(\"the schedule parses\");",
        run.schedule
    );
    let chained = line
        .replace(".parse()", "\n        .parse()")
        .replace(".expect(", "\n        .expect(");
    out.push_str(&if line.len() > WIDTH { chained } else { line });
    out.push('\n');
    match run.fork {
        // The branch: the schedule's choices up to the fork's frame, the
        // fault, then the choices left.
        Some(fork) => {
            let _ = writeln!(
                out,
                "    let fork: lousa_core::fork::Fork = {:?}.parse().expect(\"the fork parses\");\n\
                 \x20   let run = lousa_core::run::run_forked(&scenario, &schedule, fork.frame, fork.injection)\n\
                 \x20       .expect(\"the scenario is valid and the run reaches the fork\");",
                fork.to_string()
            );
        }
        None => out.push_str(
            "    let run = lousa_core::run::run_schedule(&scenario, &schedule).expect(\"the scenario is valid\");\n",
        ),
    }
    out.push_str("    let summary = &run.summary;\n\n");
    let _ = writeln!(
        out,
        "    let captures: Vec<u32> = summary.intents.iter().map(|i| i.captures).collect();\n\
         \x20   let expected: &[u32] = &{:?};\n\
         \x20   assert_eq!(captures, expected, \"captures per intent\");\n",
        e.captures
    );
    let _ = writeln!(
        out,
        "    // (client, HTTP status) of each attempt in order; None: no answer in time.\n\
         \x20   let answers: Vec<(u32, Option<u16>)> = summary\n\
         \x20       .attempts\n\
         \x20       .iter()\n\
         \x20       .map(|a| (a.client, a.status))\n\
         \x20       .collect();\n\
         \x20   let expected: &[(u32, Option<u16>)] = &{:?};\n\
         \x20   assert_eq!(answers, expected, \"each client's answers\");\n",
        e.answers
    );
    out.push_str("    // Whether each always-property of lousa_core::property::ALL holds.\n");
    out.push_str("    let verdicts: &[(&str, bool)] = &[\n");
    for (name, holds) in &e.verdicts {
        let _ = writeln!(out, "        ({name:?}, {holds}),");
    }
    out.push_str(
        "    ];\n\
         \x20   let always: Vec<&str> = lousa_core::property::ALL\n\
         \x20       .iter()\n\
         \x20       .filter(|p| p.modality == lousa_core::property::Modality::Always)\n\
         \x20       .filter(|p| p.applies_in(&scenario))\n\
         \x20       .map(|p| p.name)\n\
         \x20       .collect();\n\
         \x20   let listed: Vec<&str> = verdicts.iter().map(|(name, _)| *name).collect();\n\
         \x20   assert_eq!(\n\
         \x20       listed, always,\n\
         \x20       \"the always-properties judged in this scenario\"\n\
         \x20   );\n\
         \x20   for (name, holds) in verdicts {\n\
         \x20       let verdict = summary\n\
         \x20           .verdict(name)\n\
         \x20           .unwrap_or_else(|| panic!(\"no verdict for {name}\"));\n\
         \x20       assert_eq!(verdict.holds, *holds, \"{name}: {}\", verdict.detail);\n\
         \x20   }\n\
         }\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::Schedule;

    fn race2(schedule: &str) -> (Scenario, Run) {
        let mut s = builtins::builtin("race-2").unwrap();
        s.strategy = crate::Strategy::CheckThenAct;
        let sched: Schedule = schedule.parse().unwrap();
        let r = crate::run::run_schedule(&s, &sched).unwrap();
        (s, r)
    }

    #[test]
    fn asserts_the_runs_own_captures_answers_and_verdicts() {
        let (s, r) = race2("0");
        let t = rust_test(&s, &r);
        assert!(
            t.contains("fn race_2_under_check_then_act_schedule_0()"),
            "{t}"
        );
        assert!(t.contains("builtin(\"race-2\")"), "{t}");
        assert!(t.contains("let expected: &[u32] = &[2];"), "{t}");
        assert!(
            t.contains("(\"at-most-one-capture-per-intent\", false),"),
            "{t}"
        );
        assert!(
            t.contains("(\"409-and-422-never-reach-the-acquirer\", true),"),
            "{t}"
        );
    }

    #[test]
    fn another_schedule_asserts_another_outcome() {
        let (s, double) = race2("0");
        let (_, single) = race2("0-1x6");
        assert_ne!(rust_test(&s, &double), rust_test(&s, &single));
        assert!(rust_test(&s, &single).contains("let expected: &[u32] = &[1];"));
    }

    /// A design that keeps its keys as the lease design does is judged by
    /// the lease's properties too, whatever the strategy: the test asserts
    /// every verdict the run has, not only the strategy's.
    #[cfg(feature = "designs")]
    #[test]
    fn every_verdict_the_run_judged_is_asserted() {
        let (s, r) = race2_under("idempotency-key-lease");
        let t = rust_test(&s, &r);
        let strategy_claims = crate::property::of(crate::property::Modality::Always, s.strategy);
        assert!(r.summary.invariants.len() > strategy_claims.count());
        for v in &r.summary.invariants {
            assert!(
                t.contains(&format!("({:?}, {}),", v.name, v.holds)),
                "{}: {t}",
                v.name
            );
        }
    }

    /// race-2 under the built-in design `name`, run first come first served.
    #[cfg(feature = "designs")]
    fn race2_under(name: &str) -> (Scenario, Run) {
        let (mut s, _) = race2("0");
        s.design = Some(std::sync::Arc::new(
            crate::design::builtin::named(name).unwrap(),
        ));
        let r = crate::run::run_schedule(&s, &Schedule::default()).unwrap();
        (s, r)
    }

    /// A design travels beside the scenario: the test embeds it and
    /// attaches it, and keeps naming a built-in scenario.
    #[cfg(feature = "designs")]
    #[test]
    fn a_design_is_embedded_and_attached() {
        let (s, r) = race2_under("claim-after-capture");
        let t = rust_test(&s, &r);
        assert!(
            t.contains("under design claim-after-capture, schedule 0."),
            "{t}"
        );
        assert!(
            t.contains("fn race_2_under_design_claim_after_capture_schedule_0()"),
            "{t}"
        );
        assert!(
            t.contains("let mut scenario = lousa_core::builtins::builtin(\"race-2\")"),
            "{t}"
        );
        assert!(
            t.contains("Design::from_json(r#\"{\"name\":\"claim-after-capture\""),
            "{t}"
        );
        assert!(
            t.contains("scenario.design = Some(std::sync::Arc::new(design));"),
            "{t}"
        );
        // The run under the design, not the strategy's: it charges twice.
        assert!(t.contains("let expected: &[u32] = &[2];"), "{t}");
    }

    #[test]
    fn a_changed_scenario_is_embedded_as_json() {
        let (mut s, _) = race2("0");
        s.db_latency_ms += 1;
        let r = crate::run::run_schedule(&s, &Schedule::default()).unwrap();
        let t = rust_test(&s, &r);
        assert!(t.contains("Scenario::from_json(r#\"{"), "{t}");
        assert!(!t.contains("builtin("), "{t}");
    }

    #[test]
    fn raw_literals_outlast_the_text() {
        assert_eq!(raw_literal("a\"b"), "r#\"a\"b\"#");
        assert_eq!(raw_literal("\"#x"), "r##\"\"#x\"##");
    }

    #[test]
    fn long_schedules_are_named_by_hash() {
        let s = builtins::builtin("timeout-retry").unwrap();
        let mut r = crate::run(&s).unwrap();
        r.schedule = "1-0".repeat(20);
        assert!(test_name(&s, &r).starts_with("timeout_retry_under_check_then_act_schedule_h"));
    }
}
