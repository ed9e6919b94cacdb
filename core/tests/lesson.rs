//! The lesson (issue #33): every challenge has a solution or a proof, none
//! is met at its start, and the browser tests' fixture holds the solutions
//! found here (`UPDATE_EXPECT=1` rewrites it).
#![cfg(not(target_arch = "wasm32"))]

use lousa_core::choice::Schedule;
use lousa_core::lesson::solve::{self, Solution, Solved};
use lousa_core::lesson::{Challenge, Goal, How, LESSON, challenge};
use lousa_core::run::run_schedule;
use lousa_core::{Strategy, link, property};
use serde_json::json;
use std::time::Instant;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/e2e/fixtures/lesson.json"
);

/// Each challenge's checked solution, timed. The clock times the test, not
/// the simulation, which never reads it.
#[allow(clippy::disallowed_methods)]
fn solutions() -> Vec<(&'static Challenge, Solved)> {
    LESSON
        .iter()
        .map(|c| {
            let began = Instant::now();
            let solved = solve::solve(c).unwrap_or_else(|e| panic!("{e}"));
            println!(
                "{:<28} {:<8} {:<40} {:>4} picks  {:>6} ms",
                c.id,
                c.how.name(),
                solved.solution.text(),
                solved.picks,
                began.elapsed().as_millis()
            );
            (c, solved)
        })
        .collect()
}

#[test]
fn every_challenge_is_solved_and_none_is_met_at_its_start() {
    for (c, solved) in solutions() {
        let start = c.start().expect("the link decodes");
        let run = run_schedule(&start, &Schedule::default()).expect("valid");
        assert!(!c.met_by_run(&run, 0), "{}: met at its start", c.id);
        assert!(
            !c.goal.met_by_run(&run, 0),
            "{}: goal met at its start",
            c.id
        );
        match (&solved.solution, c.how) {
            (Solution::Schedule(schedule), How::Picks) => {
                // Replayed as the page does: the picks, then first come,
                // first served.
                let run = run_schedule(&start, schedule).expect("valid");
                assert!(c.met_by_run(&run, solved.picks), "{}", c.id);
                assert_eq!(solved.picks, schedule.trimmed().0.len(), "{}", c.id);
                if let Goal::DoubleCharge {
                    picks_max: Some(max),
                } = c.goal
                {
                    // Tight: the solution takes all the picks allowed, and
                    // no schedule of fewer charges twice.
                    assert_eq!(
                        solved.picks, max as usize,
                        "{}: the limit is not tight",
                        c.id
                    );
                    let fewer = solve::schedules_up_to(&start, max as usize - 1);
                    assert!(fewer.len() < solve::SEARCH_SCHEDULES_MAX, "{}", c.id);
                    let double = Goal::DoubleCharge { picks_max: None };
                    for s in fewer {
                        let run = run_schedule(&start, &s).expect("valid");
                        assert!(!double.met_by_run(&run, s.0.len()), "{}: {s}", c.id);
                    }
                    let (pt, en) = (max.to_string(), max.to_string());
                    assert!(
                        c.task.pt.contains(&pt) && c.task.en.contains(&en),
                        "{}",
                        c.id
                    );
                }
            }
            (Solution::Edit(text), How::Edit(_)) => {
                let edited = c.scenario_from(text).expect("the edited link decodes");
                assert_ne!(edited, start, "{}: the edit changes nothing", c.id);
                assert_eq!(c.edit_fits(&edited), Ok(()), "{}", c.id);
                let run = run_schedule(&edited, &Schedule::default()).expect("valid");
                assert!(c.met_by_run(&run, 0), "{}", c.id);
                assert!(!c.met_by_run(&run, 1), "{}: an edit takes no picks", c.id);
            }
            (Solution::Explore(report), How::Explore) => {
                assert!(c.goal.met_by_report(report), "{}", c.id);
                assert_eq!(report.status.name(), "complete", "{}", c.id);
            }
            (s, how) => panic!("{}: {how:?} solved by {s:?}", c.id),
        }
    }
}

#[test]
fn the_browser_tests_play_the_solutions_the_core_finds() {
    let entries: Vec<serde_json::Value> = solutions()
        .into_iter()
        .map(|(c, solved)| {
            let solution = match &solved.solution {
                Solution::Schedule(s) => json!({ "schedule": s.to_string() }),
                Solution::Edit(link) => {
                    json!({ "scenario": link, "fields": solve::known_edit(c.id) })
                }
                Solution::Explore(_) => json!({ "explore": true }),
            };
            json!({
                "id": c.id,
                "scenario": c.scenario,
                "strategy": c.strategy.name(),
                "how": c.how.name(),
                "solution": solution,
                "picks": solved.picks,
            })
        })
        .collect();
    let want = serde_json::to_string_pretty(&entries).expect("JSON") + "\n";
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(FIXTURE, &want).expect("writes the fixture");
    }
    let have = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        have == want,
        "{FIXTURE} differs from the lesson's solutions: rerun with UPDATE_EXPECT=1"
    );
}

#[test]
fn every_challenge_is_well_formed() {
    assert!((8..=12).contains(&LESSON.len()), "{}", LESSON.len());
    for (i, c) in LESSON.iter().enumerate() {
        assert!(
            !c.id.is_empty()
                && c.id.split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
            "{}: not kebab-case",
            c.id
        );
        assert!(
            LESSON[..i].iter().all(|other| other.id != c.id),
            "{}: id twice",
            c.id
        );
        assert_eq!(challenge(c.id), Some(c));
        let decoded = link::decode(c.scenario).unwrap_or_else(|e| panic!("{}: {e}", c.id));
        assert_eq!(Strategy::from_name(c.strategy.name()), Some(c.strategy));
        let start = c.start().expect("decodes");
        assert_eq!(start.strategy, c.strategy);
        start
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e} under {}", c.id, c.strategy));
        assert_eq!(start.name, decoded.name);
        assert!((2..=3).contains(&c.hints.len()), "{}: hints", c.id);
        let texts = [c.title, c.task, c.success]
            .into_iter()
            .chain(c.hints.iter().copied());
        for t in texts {
            assert!(
                !t.pt.trim().is_empty() && !t.en.trim().is_empty(),
                "{}",
                c.id
            );
            assert_ne!(t.pt, t.en, "{}: one language twice", c.id);
        }
        if let Goal::Proven { property } = c.goal {
            assert!(property::named(property).is_some(), "{}: {property}", c.id);
            assert_eq!(c.how, How::Explore, "{}", c.id);
        }
        if c.how == How::Explore {
            assert!(matches!(c.goal, Goal::Proven { .. }), "{}", c.id);
        }
    }
    assert_eq!(challenge("nope"), None);
}

/// An edit challenge counts only the edits its task allows: a fault makes
/// the goal's outcome without the lesson's fix (retries dropped on the
/// way charge once with a key minted per retry), and "change one value"
/// is one value. A single wait of the held row is what "waits 1 s" means,
/// not seven short ones that add up to it.
#[test]
fn edit_challenges_count_only_the_edits_their_task_allows() {
    use lousa_core::lesson::EditMisfit;
    let edited = |id: &str, link: &str| {
        let c = challenge(id).expect("a challenge");
        (c, c.scenario_from(link).expect("a link"))
    };
    let met = |c: &Challenge, s: &lousa_core::Scenario| {
        let run = run_schedule(s, &Schedule::default()).expect("valid");
        c.edit_fits(s).is_ok() && c.met_by_run(&run, 0)
    };
    let dropped = r#"new-key-per-retry;faults=[{"kind":"drop-request","attempt":2},{"kind":"drop-request","attempt":3},{"kind":"drop-request","attempt":4}]"#;
    let (c, s) = edited("chave-por-tentativa", dropped);
    assert_eq!(c.edit_fits(&s), Err(EditMisfit::Faults));
    let run = run_schedule(&s, &Schedule::default()).expect("valid");
    assert!(
        c.met_by_run(&run, 0),
        "the goal alone is met: the rule is what refuses it"
    );
    assert!(!met(c, &s));
    let (c, s) = edited(
        "chave-por-tentativa",
        "new-key-per-retry;clients.0.timeout_ms=9000",
    );
    assert_eq!(
        c.edit_fits(&s),
        Err(EditMisfit::NotClient("clients.0.timeout_ms".into()))
    );
    let (c, s) = edited(
        "chave-por-tentativa",
        "new-key-per-retry;clients.0.new_key_per_retry=false",
    );
    assert!(met(c, &s));

    let queued = "held-transaction;acquirer.latency_ms=500;clients.0.timeout_ms=50;clients.0.retries_max=20;clients.0.backoff_ms=0";
    let (c, s) = edited("transacao-aberta", queued);
    assert!(matches!(c.edit_fits(&s), Err(EditMisfit::NotOneValue(p)) if p.len() == 3));
    let run = run_schedule(&s, &Schedule::default()).expect("valid");
    assert!(run.summary.blocked_ms >= 1_000, "the waits add up past 1 s");
    assert!(!c.met_by_run(&run, 0), "but none of them alone waits 1 s");
    let (c, s) = edited(
        "transacao-aberta",
        "held-transaction;acquirer.latency_ms=4000",
    );
    assert!(met(c, &s));

    let crashed = r#"lost-response;faults=[{"kind":"crash","instance":0,"at_ms":100,"restart_after_ms":1000}]"#;
    let (c, s) = edited("processando-responde-409", crashed);
    assert_eq!(c.edit_fits(&s), Err(EditMisfit::Faults));
    let (c, s) = edited("processando-responde-409", "lost-response");
    assert_eq!(c.edit_fits(&s), Err(EditMisfit::Nothing));
}
