//! The workshop's state in the URL: `?modo=oficina&scenario=race-2&
//! strategy=check-then-act&schedule=1-0x3&lang=en&apresentar=1`. A hand-made
//! interleaving is a link that opens at the same step. The scenario may be
//! a scenario link (`race-2;db_latency_ms=5`, `lousa_core::link`): an
//! edited scenario is a link too. Reading never fails: what does not fit
//! becomes a `lousa_web::url::Problem`, the type the reader's page uses
//! too, which the page shows in the same words, and the board falls back
//! to what does.

use lousa_core::Strategy;
use lousa_core::builtins;
use lousa_core::choice::Schedule;
use lousa_core::design::{self, Design, Program};
use lousa_core::fork::Fork;
use lousa_core::lesson;
use lousa_core::narrate::Lang;
use lousa_core::scheduling;
use lousa_web::url::{self, Problems, Reason, Unknown};
use std::sync::Arc;

/// The scenario a workshop link opens when it names none: the smallest race.
pub const DEFAULT_SCENARIO: &str = "race-2";

/// Races the workshop offers beyond the built-ins both pages list
/// (`builtins::NAMES`): "what changes with a fourth client?" is a workshop
/// question, and the fast count answers race-4 in the room. race-5 is left
/// out: its fast count does not fit the explorer's state limit.
pub const MORE_RACES: [&str; 1] = ["race-4"];

/// A scenario the workshop opens by name: a built-in, or one of
/// [`MORE_RACES`]. The reader's page keeps to the built-ins.
pub fn scenario_name(value: &str) -> Result<&'static str, Reason> {
    url::scenario(value).or_else(|e| MORE_RACES.into_iter().find(|n| *n == value).ok_or(e))
}

/// The workshop's scenario picker, in order: the built-ins, with
/// [`MORE_RACES`] after the last race among them.
pub fn scenario_names() -> Vec<&'static str> {
    let mut names = builtins::NAMES.to_vec();
    let after = names
        .iter()
        .rposition(|n| n.starts_with("race-"))
        .map_or(names.len(), |i| i + 1);
    names.splice(after..after, MORE_RACES);
    names
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The built-in the scenario starts from.
    pub scenario: &'static str,
    /// The link's edits after the built-in's name (`db_latency_ms=5`), or
    /// empty: the built-in as it is.
    pub edits: String,
    pub strategy: Strategy,
    pub lang: Lang,
    pub choices: Vec<u32>,
    /// A fault injected at a frame: the branch on the two lines.
    pub fork: Option<Fork>,
    /// Presenter mode (`&apresentar=1`): the board fills the screen.
    pub presenting: bool,
    /// Counts are the fast kind (`&rapida=1`): one order of independent
    /// steps, the same verdicts, schedules not counted.
    pub fast: bool,
    /// The frame the board was stepped to (`&frame=12`), when it is not
    /// the choice point's: a link holds the exact moment.
    pub frame: Option<usize>,
    /// The lesson's challenge being played (`&desafio=corrida-no-minimo`):
    /// its panel shows above the board. A link naming only the challenge
    /// opens on the challenge's own scenario and design.
    pub challenge: Option<&'static str>,
    /// The design the scenario's HTTP jobs run as (`&design=`): a built-in
    /// design's or an exercise's name, or a design's JSON, so that an
    /// instructor can hand out a broken design as a link (issue #31).
    pub design: Option<Arc<Program>>,
}

/// The workshop's parameters, as `lousa_web::url::read_query` takes them:
/// each with its other spellings.
const PARAMS: [&[&str]; 11] = [
    &["modo", "mode"],
    &["scenario"],
    &["strategy"],
    &["lang"],
    &["schedule"],
    &["fork"],
    &["apresentar", "present"],
    &["desafio", "challenge"],
    &["frame"],
    &["design", "projeto"],
    &["rapida", "fast"],
];

/// Reads a query string (with or without its `?`) with the reader both
/// pages share (`lousa_web::url`): a parameter the workshop does not read
/// is named too, since no host page shares the workshop's query.
pub fn parse(query: &str) -> (Setup, Problems) {
    let mut problems = Problems::default();
    let mut scenario = DEFAULT_SCENARIO;
    let mut edits = String::new();
    let mut strategy = None;
    let mut lang = Lang::Pt;
    let mut schedule_text = None;
    let mut fork_text = None;
    let mut presenting = false;
    let mut fast = false;
    let mut frame = None;
    let mut challenge = None;
    let mut design_text = None;
    let mut scenario_named = false;
    url::read_query(
        query,
        &PARAMS,
        Unknown::Report,
        &mut problems,
        |param, value| {
            match param {
                "modo" => Ok(()),
                "scenario" => {
                    let (name, rest) = value.split_once(';').unwrap_or((value, ""));
                    scenario_name(name).map(|name| {
                        scenario = name;
                        edits = rest.to_string();
                        scenario_named = true;
                    })
                }
                "strategy" => url::strategy(value).map(|s| strategy = Some(s)),
                "lang" => url::lang(value).map(|l| lang = l),
                "schedule" => {
                    schedule_text = Some(value.to_string());
                    Ok(())
                }
                // A fork has no blanks: a `+` that a hand-written or older link
                // left unencoded reads as the blank it decoded to.
                "fork" => {
                    fork_text = Some(value.replace(' ', "+"));
                    Ok(())
                }
                "apresentar" => url::switch(value).map(|on| presenting = on),
                "rapida" => url::switch(value).map(|on| fast = on),
                "desafio" => lesson::challenge(value)
                    .map(|c| challenge = Some(c))
                    .ok_or(Reason::UnknownChallenge),
                "design" => {
                    design_text = Some(value.to_string());
                    Ok(())
                }
                _ => url::frame(value).map(|f| frame = Some(f)),
            }
        },
    );
    if let Some(c) = challenge.filter(|_| !scenario_named) {
        let (name, rest) = c.scenario.split_once(';').unwrap_or((c.scenario, ""));
        scenario = builtins::static_name(name).expect("a challenge names a built-in");
        edits = rest.to_string();
        strategy = strategy.or(Some(c.strategy));
    }
    let mut built = match scenario_of(scenario, &edits) {
        Ok(s) => s,
        Err(e) => {
            let link = format!("{scenario};{edits}");
            problems.report("scenario", &link, Reason::EditsRefused(Reason::words(&e)));
            edits.clear();
            builtins::builtin(scenario).expect("a listed built-in")
        }
    };
    let strategy = strategy.unwrap_or(built.strategy);
    built.strategy = strategy;
    // The design changes the run, so it is attached before the schedule
    // is fitted to it.
    let design = design_text.and_then(|text| match design_of(&text) {
        Ok(p) => match lousa_core::handler::check_runs_on(&built, &p) {
            Ok(()) => Some(Arc::new(p)),
            Err(e) => {
                problems.report("design", &text, Reason::DesignRefused(Reason::words(&e)));
                None
            }
        },
        Err(e) => {
            problems.report("design", &text, Reason::DesignRefused(Reason::words(&e)));
            None
        }
    });
    built.design = design.clone();
    let mut choices = Vec::new();
    if let Some(text) = schedule_text {
        match text.parse::<Schedule>() {
            Err(e) => problems.report(
                "schedule",
                &text,
                Reason::ScheduleUnreadable(Reason::words(&e.to_string())),
            ),
            Ok(schedule) => {
                let (kept, misfit) = scheduling::fit(&built, &schedule);
                choices = kept.0;
                if let Some(m) = misfit {
                    problems.report("schedule", &text, Reason::ScheduleMisfit(m));
                }
            }
        }
    }
    let mut fork = None;
    if let Some(text) = fork_text {
        match text.parse::<Fork>() {
            Err(e) => problems.report(
                "fork",
                &text,
                Reason::ForkRefused(Reason::words(&e.to_string())),
            ),
            Ok(f) => match lousa_core::run::run_forked(
                &built,
                &Schedule(choices.clone()),
                f.frame,
                f.injection,
            ) {
                Ok(_) => fork = Some(f),
                Err(e) => problems.report(
                    "fork",
                    &text,
                    Reason::ForkRefused(Reason::words(&format!("fork {text:?}: {e}"))),
                ),
            },
        }
    }
    let setup = Setup {
        scenario,
        edits,
        strategy,
        lang,
        choices,
        fork,
        presenting,
        fast,
        frame,
        challenge: challenge.map(|c| c.id),
        design,
    };
    (setup, problems)
}

/// The query that reopens `setup`.
pub fn query(setup: &Setup) -> String {
    let mut q = format!("?modo=oficina&scenario={}", setup.scenario);
    if !setup.edits.is_empty() {
        q.push(';');
        q.push_str(&encode(&setup.edits));
    }
    q.push_str("&strategy=");
    q.push_str(setup.strategy.name());
    if !setup.choices.is_empty() {
        q.push_str("&schedule=");
        q.push_str(&Schedule(setup.choices.clone()).exact_text());
    }
    if let Some(fork) = setup.fork {
        q.push_str("&fork=");
        q.push_str(&encode(&fork.to_string()));
    }
    if setup.lang == Lang::En {
        q.push_str("&lang=en");
    }
    if setup.presenting {
        q.push_str("&apresentar=1");
    }
    if setup.fast {
        q.push_str("&rapida=1");
    }
    if let Some(frame) = setup.frame {
        q.push_str(&format!("&frame={frame}"));
    }
    if let Some(id) = setup.challenge {
        q.push_str("&desafio=");
        q.push_str(id);
    }
    if let Some(p) = &setup.design {
        q.push_str("&design=");
        q.push_str(&encode(&design_value(p)));
    }
    q
}

/// A design as a link says it: a built-in design's or an exercise's name
/// when it is one, unchanged; else its JSON, on one line.
pub fn design_value(p: &Program) -> String {
    if design::builtin::is_builtin(p) {
        p.design().name.clone()
    } else {
        serde_json::to_string(p.design()).expect("a design is JSON")
    }
}

/// The design a link's `design=` names: JSON (it starts with `{`), read
/// and checked as `lousa run --design` does, or a built-in's name.
pub fn design_of(value: &str) -> Result<Program, String> {
    if value.trim_start().starts_with('{') {
        return Design::from_json(value).map_err(|e| e.to_string());
    }
    design::builtin::named(value).ok_or_else(|| {
        format!(
            "{value:?} names no design; built-ins are {}, or give a design's JSON",
            design::builtin::names().join(", ")
        )
    })
}

/// The scenario a built-in and a link's edits make, or the core's words
/// for why not.
pub fn scenario_of(name: &str, edits: &str) -> Result<lousa_core::Scenario, String> {
    if edits.is_empty() {
        return builtins::builtin(name).ok_or_else(|| format!("{name}: no such built-in"));
    }
    lousa_core::link::decode(&format!("{name};{edits}")).map_err(|e| e.to_string())
}

/// Percent-encoding of what a query value must not carry as it is.
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
            | b';'
            | b'='
            | b','
            | b':' => out.push(char::from(b)),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::choice::Misfit;
    use lousa_web::url::{PROBLEMS_MAX, Problem, VALUE_MAX, WORDS_MAX};

    /// The problems' parameters, values and reasons, in order.
    fn named(problems: &Problems) -> Vec<(&str, &str, &Reason)> {
        problems
            .list
            .iter()
            .map(|p| (p.param.as_str(), p.value.as_str(), &p.reason))
            .collect()
    }

    #[test]
    fn race_4_opens_in_the_workshop_only() {
        let (setup, problems) = parse("?modo=oficina&scenario=race-4&strategy=check-then-act");
        assert_eq!(problems, Problems::default());
        assert_eq!(setup.scenario, "race-4");
        assert_eq!(setup.strategy, Strategy::CheckThenAct);
        // Edited, it reads back too: the clients' timeout on all four.
        let (edited, problems) = parse("?modo=oficina&scenario=race-4;clients.3.timeout_ms=900");
        assert_eq!(problems, Problems::default());
        assert_eq!(
            (edited.scenario, edited.edits.as_str()),
            ("race-4", "clients.3.timeout_ms=900")
        );
        // The reader's page keeps to the built-ins, and the workshop to the
        // races it lists.
        assert_eq!(url::scenario("race-4"), Err(Reason::UnknownScenario));
        let (_, problems) = parse("?modo=oficina&scenario=race-5");
        assert_eq!(
            named(&problems),
            [("scenario", "race-5", &Reason::UnknownScenario)]
        );
    }

    #[test]
    fn the_picker_lists_every_built_in_and_race_4_after_race_3() {
        let names = scenario_names();
        assert_eq!(names.len(), builtins::NAMES.len() + MORE_RACES.len());
        assert!(builtins::NAMES.iter().all(|n| names.contains(n)));
        let at = |name: &str| names.iter().position(|n| *n == name).unwrap();
        assert_eq!(at("race-4"), at("race-3") + 1);
        for name in MORE_RACES {
            assert!(
                builtins::builtin(name).is_some(),
                "{name} is a race the core builds"
            );
            assert_eq!(scenario_name(name), Ok(name));
        }
    }

    #[test]
    fn a_challenge_alone_opens_its_own_scenario_and_design() {
        let c = lesson::LESSON[0];
        let (setup, problems) = parse(&format!("?modo=oficina&desafio={}", c.id));
        assert_eq!(problems, Problems::default());
        assert_eq!(setup.challenge, Some(c.id));
        assert_eq!(format!("{};{}", setup.scenario, setup.edits), c.scenario);
        assert_eq!(setup.strategy, c.strategy);
        let (none, problems) = parse("?desafio=nope");
        assert_eq!(none.challenge, None);
        assert_eq!(
            named(&problems),
            [("desafio", "nope", &Reason::UnknownChallenge)]
        );
    }

    #[test]
    fn a_setup_reads_back_from_its_query() {
        let setup = Setup {
            scenario: "race-2",
            edits: String::new(),
            strategy: Strategy::IdempotencyKey,
            lang: Lang::En,
            choices: vec![1, 0, 0],
            fork: None,
            presenting: false,
            fast: true,
            frame: Some(4),
            challenge: Some("corrida-no-minimo"),
            design: None,
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, Problems::default());
        assert_eq!(back, setup);
        let (odd, problems) = parse("?scenario=race-2&frame=-1");
        assert_eq!(odd.frame, None);
        assert_eq!(named(&problems), [("frame", "-1", &Reason::NotANumber)]);
        // The fast count is said only when it is on; `fast` reads too.
        assert!(query(&setup).contains("&rapida=1"));
        let slow = Setup {
            fast: false,
            ..setup
        };
        assert!(!query(&slow).contains("rapida"));
        assert!(parse("?scenario=race-2&fast=1").0.fast);
        let (odd, problems) = parse("?scenario=race-2&rapida=sim");
        assert!(!odd.fast);
        assert_eq!(named(&problems), [("rapida", "sim", &Reason::NotASwitch)]);
    }

    #[test]
    fn an_edited_scenario_reads_back_from_its_query() {
        let setup = Setup {
            scenario: "race-2",
            edits: r#"db_latency_ms=7;clients.0.intents.0.order_id=9"#.into(),
            strategy: Strategy::Naive,
            lang: Lang::Pt,
            choices: vec![],
            fork: None,
            presenting: false,
            fast: false,
            frame: None,
            challenge: None,
            design: None,
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, Problems::default());
        assert_eq!(back, setup);
        assert_eq!(
            scenario_of(back.scenario, &back.edits)
                .unwrap()
                .db_latency_ms,
            7
        );
    }

    #[test]
    fn a_fork_reads_back_and_a_bad_one_is_named() {
        let setup = Setup {
            scenario: "timeout-retry",
            edits: String::new(),
            strategy: Strategy::CheckThenAct,
            lang: Lang::Pt,
            choices: vec![],
            fork: Some("3:crash-1+3000".parse().unwrap()),
            presenting: false,
            fast: false,
            frame: None,
            challenge: None,
            design: None,
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, Problems::default());
        assert_eq!(back, setup);
        let (back, problems) = parse("?scenario=timeout-retry&fork=3:meteor-1");
        assert_eq!(back.fork, None);
        assert!(
            matches!(&named(&problems)[..], [("fork", "3:meteor-1", Reason::ForkRefused(e))] if e.contains("not a fault")),
            "{problems:?}"
        );
        let (back, problems) = parse("?scenario=timeout-retry&fork=9999:crash-1");
        assert_eq!(back.fork, None);
        assert!(
            matches!(&named(&problems)[..], [("fork", "9999:crash-1", Reason::ForkRefused(e))] if e.contains("past the run's end")),
            "{problems:?}"
        );
    }

    #[test]
    fn presenter_mode_reads_back_from_its_query() {
        let setup = Setup {
            scenario: "timeout-retry",
            edits: String::new(),
            strategy: Strategy::CheckThenAct,
            lang: Lang::Pt,
            choices: vec![],
            fork: None,
            presenting: true,
            fast: false,
            frame: None,
            challenge: None,
            design: None,
        };
        let q = query(&setup);
        assert!(q.ends_with("&apresentar=1"), "{q}");
        let (back, problems) = parse(&q);
        assert_eq!(problems, Problems::default());
        assert_eq!(back, setup);
        // Leaving presenter mode drops the parameter rather than writing 0.
        let q = query(&Setup {
            presenting: false,
            ..setup
        });
        assert!(!q.contains("apresentar"), "{q}");
        assert!(!parse(&q).0.presenting);
        // The English name reads too; a value other than 1 or 0 is a problem.
        assert!(parse("?scenario=race-2&present=1").0.presenting);
        let (odd, problems) = parse("?scenario=race-2&apresentar=sim");
        assert!(!odd.presenting);
        assert_eq!(
            named(&problems),
            [("apresentar", "sim", &Reason::NotASwitch)]
        );
    }

    #[test]
    fn refused_edits_leave_the_built_in_and_say_why() {
        let (setup, problems) = parse("?scenario=race-2;db_latency_ms=-1");
        assert_eq!(setup.edits, "");
        assert!(
            matches!(&named(&problems)[..], [("scenario", "race-2;db_latency_ms=-1", Reason::EditsRefused(e))] if e.contains("db_latency_ms")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_schedule_past_the_alternatives_is_cut_and_named() {
        let (setup, problems) = parse("?modo=oficina&scenario=race-2&schedule=1-0-9");
        assert_eq!(setup.choices, vec![1, 0]);
        assert!(matches!(
            named(&problems)[..],
            [(
                "schedule",
                "1-0-9",
                Reason::ScheduleMisfit(Misfit::PastAlternatives {
                    position: 2,
                    choice: 9,
                    ..
                })
            )]
        ));
    }

    #[test]
    fn bad_values_are_problems_and_the_defaults_stand() {
        let long = "x".repeat(100_000);
        let (setup, problems) = parse(&format!(
            "?scenario={long}&strategy=optimistic&lang=fr&schedule=!&zz=1"
        ));
        assert_eq!(setup.scenario, DEFAULT_SCENARIO);
        assert_eq!(problems.list.len(), 5, "{problems:?}");
        let Problem { param, value, .. } = &problems.list[0];
        assert_eq!(param, "scenario");
        assert!(value.chars().count() <= VALUE_MAX + 1);
        assert_eq!(problems.list[3].reason, Reason::UnknownParameter);
        assert!(
            matches!(&problems.list[4].reason, Reason::ScheduleUnreadable(t) if t.starts_with("schedule:")),
            "{problems:?}"
        );
    }

    /// Issue #34: 10,000 bad `strategy` pairs took 1.9 s to mount, one
    /// line each.
    #[test]
    fn thousands_of_bad_pairs_are_listed_to_eight_and_counted() {
        let query = "?scenario=race-2".to_string() + &"&strategy=nope".repeat(10_000);
        let (setup, problems) = parse(&query);
        assert_eq!(setup.scenario, "race-2");
        assert_eq!(problems.list.len(), PROBLEMS_MAX);
        assert_eq!(problems.unlisted, 10_000 - PROBLEMS_MAX);
        let (_, few) = parse(&"&zz=1".repeat(PROBLEMS_MAX));
        assert_eq!(few.list.len(), PROBLEMS_MAX);
        assert_eq!(few.unlisted, 0, "no count when every problem is listed");
    }

    /// Issue #35: a right-to-left override in a link was echoed as it is,
    /// turning the sentence around it backwards.
    #[test]
    fn direction_and_control_characters_are_shown_escaped() {
        let (_, problems) = parse("?strategy=%E2%80%AEtpyrc%07&lang=%E2%81%A6x");
        assert_eq!(
            named(&problems),
            [
                ("strategy", "\\u{202e}tpyrc\\u{7}", &Reason::UnknownStrategy),
                ("lang", "\\u{2066}x", &Reason::UnknownLanguage),
            ]
        );
    }

    /// Issue #33: a branch link whose `+` reached the page unencoded was
    /// refused ("got \"1 3000\""); both forms now open the branch.
    #[test]
    fn a_fork_with_its_plus_unencoded_still_reads() {
        for form in ["3:crash-1%2B3000", "3:crash-1+3000"] {
            let (setup, problems) = parse(&format!("?scenario=timeout-retry&fork={form}"));
            assert_eq!(problems, Problems::default(), "{form}");
            assert_eq!(
                setup.fork,
                Some("3:crash-1+3000".parse().unwrap()),
                "{form}"
            );
        }
    }

    /// Every parameter the workshop reads names itself and its value when
    /// the value will not do, each in the order of the link, and the
    /// board opens on the defaults.
    #[test]
    fn each_parameter_s_bad_value_is_named_with_its_value() {
        let (setup, problems) = parse(
            "?modo=oficina&scenario=nope;x=1&strategy=magic&lang=fr&apresentar=2\
             &desafio=nope&frame=4294967296&zz=%41",
        );
        assert_eq!(
            named(&problems),
            [
                ("scenario", "nope;x=1", &Reason::UnknownScenario),
                ("strategy", "magic", &Reason::UnknownStrategy),
                ("lang", "fr", &Reason::UnknownLanguage),
                ("apresentar", "2", &Reason::NotASwitch),
                ("desafio", "nope", &Reason::UnknownChallenge),
                ("frame", "4294967296", &Reason::TooLarge),
                ("zz", "A", &Reason::UnknownParameter),
            ]
        );
        assert_eq!(
            (setup.scenario, setup.lang, setup.presenting, setup.frame),
            (DEFAULT_SCENARIO, Lang::Pt, false, None)
        );
        // The schedule and the fork are read after the loop, against the
        // run they open: named too.
        let (_, problems) = parse("?schedule=0x&fork=x");
        assert!(
            matches!(
                &named(&problems)[..],
                [
                    ("schedule", "0x", Reason::ScheduleUnreadable(_)),
                    ("fork", "x", Reason::ForkRefused(_)),
                ]
            ),
            "{problems:?}"
        );
    }

    /// The two readers disagreed: here the last of a repeated parameter
    /// won, silently, where the reader's page kept the first and said so.
    /// Both keep the first now, as `URLSearchParams.get` does.
    #[test]
    fn a_repeated_parameter_keeps_its_first_value_and_is_named() {
        let (setup, problems) =
            parse("?scenario=race-2&strategy=naive&strategy=check-then-act&present=1&apresentar=0");
        assert_eq!(setup.strategy, Strategy::Naive);
        assert!(setup.presenting);
        assert_eq!(
            named(&problems),
            [
                ("strategy", "check-then-act", &Reason::Repeated),
                ("apresentar", "0", &Reason::Repeated),
            ]
        );
        // `modo` is read by the loader, not here, but a repeat is a repeat.
        let (_, problems) = parse("?modo=oficina&mode=oficina");
        assert_eq!(named(&problems), [("mode", "oficina", &Reason::Repeated)]);
    }

    #[test]
    fn a_huge_schedule_is_cut_in_the_value_and_in_the_core_s_words() {
        let (setup, problems) = parse(&format!("?schedule={}", "!".repeat(100_000)));
        assert_eq!(setup.choices, Vec::<u32>::new());
        let [
            Problem {
                param,
                value,
                reason: Reason::ScheduleUnreadable(words),
            },
        ] = &problems.list[..]
        else {
            panic!("{problems:?}");
        };
        assert_eq!(param, "schedule");
        assert_eq!(value.chars().count(), VALUE_MAX + 1);
        assert!(words.chars().count() <= WORDS_MAX + 1, "{words}");
    }

    /// Issue #31: a design travels in the link, by name when it is a
    /// built-in one, else as its JSON, and comes back equal; the schedule
    /// is fitted to the run under it.
    #[test]
    fn a_design_goes_out_in_the_link_and_comes_back() {
        let (setup, problems) = parse("?modo=oficina&scenario=race-2&design=claim-after-capture");
        assert!(problems.list.is_empty(), "{problems:?}");
        let p = setup.design.clone().expect("a design");
        assert_eq!(p.design().name, "claim-after-capture");
        assert!(
            query(&setup).ends_with("&design=claim-after-capture"),
            "{}",
            query(&setup)
        );

        // An edited design goes as JSON, and reads back equal.
        let mut d = p.design().clone();
        d.name = "mine".into();
        d.steps[0].label = "call-the-acquirer".into();
        let mine = Arc::new(design::check(d).unwrap());
        let out = Setup {
            design: Some(mine.clone()),
            choices: vec![1, 0, 1],
            ..setup.clone()
        };
        let q = query(&out);
        assert!(q.contains("&design=%7B%22name%22:%22mine%22"), "{q}");
        let (back, problems) = parse(&q);
        assert!(problems.list.is_empty(), "{problems:?}");
        assert_eq!(back.design, Some(mine));

        // The schedule is the design's run's: race-2's first choice under
        // claim-after-capture is not check-then-act's.
        let mut s = builtins::builtin("race-2").unwrap();
        s.design = setup.design.clone();
        let (fitted, misfit) = scheduling::fit(&s, &Schedule(vec![1, 0, 1]));
        assert!(misfit.is_none());
        assert_eq!(back.choices, fitted.0);
    }

    #[test]
    fn a_design_the_link_cannot_use_is_named_and_the_strategy_runs() {
        let (setup, problems) = parse("?modo=oficina&design=optimistic");
        assert_eq!(setup.design, None);
        let said = named(&problems);
        assert_eq!(said.len(), 1);
        assert_eq!((said[0].0, said[0].1), ("design", "optimistic"));
        assert!(
            matches!(said[0].2, Reason::DesignRefused(w) if w.contains("names no design") && w.contains("naive, check-then-act")),
            "{said:?}"
        );
        let json = r#"{"name":"x","tables":[{"name":"cobranca"}],"steps":[{"label":"a","do":"capture","next":"b"}]}"#;
        let (_, problems) = parse(&format!("?modo=oficina&design={json}"));
        let said = named(&problems);
        assert!(
            matches!(said[0].2, Reason::DesignRefused(w) if w.starts_with("steps[0].next")),
            "{said:?}"
        );
        // A queue's consumer where no queue delivers would never run.
        let (setup, problems) = parse("?modo=oficina&scenario=race-2&design=consumer-claim");
        assert_eq!(setup.design, None);
        let said = named(&problems);
        assert!(
            matches!(said[0].2, Reason::DesignRefused(w) if w.contains("has no queue client")),
            "{said:?}"
        );
        let (setup, problems) =
            parse("?modo=oficina&scenario=queue-redelivery&design=consumer-claim");
        assert!(problems.list.is_empty(), "{problems:?}");
        assert!(setup.design.is_some_and(|p| p.serves_queue()));
        // A debit where no account is open would refuse every request; a
        // composed variant's name reads back where one is.
        let (setup, problems) = parse("?modo=oficina&scenario=race-2&design=local-effect-balance");
        assert_eq!(setup.design, None);
        let said = named(&problems);
        assert!(
            matches!(said[0].2, Reason::DesignRefused(w) if w.contains("debits an account")),
            "{said:?}"
        );
        let (setup, problems) = parse(
            "?modo=oficina&scenario=balance-lost-update&design=local-effect-balance-versioned",
        );
        assert!(problems.list.is_empty(), "{problems:?}");
        assert!(
            setup
                .design
                .is_some_and(|p| p.design().name == "local-effect-balance-versioned")
        );
    }
}
