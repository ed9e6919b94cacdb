//! The workshop's state in the URL: `?modo=oficina&scenario=race-2&
//! strategy=check-then-act&schedule=1-0x3&lang=en&apresentar=1`. A hand-made
//! interleaving is a link that opens at the same step. The scenario may be
//! a scenario link (`race-2;db_latency_ms=5`, `lousa_core::link`): an
//! edited scenario is a link too. Reading never fails:
//! what does not fit becomes a [`Problem`] the page shows, and the board
//! falls back to what does.

use lousa_core::Strategy;
use lousa_core::builtins;
use lousa_core::choice::{Misfit, Schedule};
use lousa_core::fork::Fork;
use lousa_core::lesson;
use lousa_core::narrate::Lang;
use lousa_core::query::decode;
use lousa_core::scheduling;
use lousa_core::text::cut;

/// The scenario a workshop link opens when it names none: the smallest race.
pub const DEFAULT_SCENARIO: &str = "race-2";

/// Longest parameter value shown back in a message.
const SHOWN_MAX: usize = 40;

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
    /// The frame the board was stepped to (`&frame=12`), when it is not
    /// the choice point's: a link holds the exact moment.
    pub frame: Option<usize>,
    /// The lesson's challenge being played (`&desafio=corrida-no-minimo`):
    /// its panel shows above the board. A link naming only the challenge
    /// opens on the challenge's own scenario and design.
    pub challenge: Option<&'static str>,
}

/// What a link asked for that the workshop could not give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// `name=value` is not one the workshop knows; the default stands.
    Value { name: String, value: String },
    /// The schedule does not parse (the core's words).
    ScheduleText(String),
    /// The scenario link names a built-in but its edits are refused (the
    /// core's words); the built-in stands.
    Edits(String),
    /// The fork does not read, or cannot be made on this run (the core's
    /// words); the board shows the run without it.
    Fork(String),
    /// The schedule parses but does not fit; the board shows the prefix
    /// that does.
    Misfit(Misfit),
    /// How many problems past the first [`PROBLEMS_MAX`] were only counted.
    More(usize),
}

/// How many problems a link's reading lists: a link with thousands of bad
/// pairs must open at once, and thousands of lines tell an attendee
/// nothing more than eight and a count.
pub const PROBLEMS_MAX: usize = 8;

/// Reads a query string (with or without its `?`).
pub fn parse(query: &str) -> (Setup, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut scenario = DEFAULT_SCENARIO;
    let mut edits = String::new();
    let mut strategy = None;
    let mut lang = Lang::Pt;
    let mut schedule_text = None;
    let mut fork_text = None;
    let mut presenting = false;
    let mut frame = None;
    let mut challenge = None;
    let mut scenario_named = false;
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = decode(value);
        let bad = |problems: &mut Vec<Problem>| {
            problems.push(Problem::Value {
                name: shown(name),
                value: shown(&value),
            })
        };
        match name {
            "modo" | "mode" => {}
            "scenario" => {
                let (name, rest) = value.split_once(';').unwrap_or((&value, ""));
                match builtins::static_name(name) {
                    Some(n) => {
                        scenario = n;
                        edits = rest.to_string();
                        scenario_named = true;
                    }
                    None => bad(&mut problems),
                }
            }
            "strategy" => match Strategy::from_name(&value) {
                Some(s) => strategy = Some(s),
                None => bad(&mut problems),
            },
            "lang" => match value.as_str() {
                "pt" | "pt-BR" => lang = Lang::Pt,
                "en" => lang = Lang::En,
                _ => bad(&mut problems),
            },
            "schedule" => schedule_text = Some(value),
            // A fork has no blanks: a `+` that a hand-written or older link
            // left unencoded reads as the blank it decoded to.
            "fork" => fork_text = Some(value.replace(' ', "+")),
            "apresentar" | "present" => match value.as_str() {
                "1" => presenting = true,
                "0" => presenting = false,
                _ => bad(&mut problems),
            },
            "desafio" | "challenge" => match lesson::challenge(&value) {
                Some(c) => challenge = Some(c),
                None => bad(&mut problems),
            },
            "frame" => match value.parse::<usize>() {
                Ok(f) => frame = Some(f),
                Err(_) => bad(&mut problems),
            },
            _ => bad(&mut problems),
        }
    }
    if let Some(c) = challenge.filter(|_| !scenario_named) {
        let (name, rest) = c.scenario.split_once(';').unwrap_or((c.scenario, ""));
        scenario = builtins::static_name(name).expect("a challenge names a built-in");
        edits = rest.to_string();
        strategy = strategy.or(Some(c.strategy));
    }
    let mut built = match scenario_of(scenario, &edits) {
        Ok(s) => s,
        Err(e) => {
            problems.push(Problem::Edits(shown_long(&e)));
            edits.clear();
            builtins::builtin(scenario).expect("a listed built-in")
        }
    };
    let strategy = strategy.unwrap_or(built.strategy);
    built.strategy = strategy;
    let mut choices = Vec::new();
    if let Some(text) = schedule_text {
        match text.parse::<Schedule>() {
            Err(e) => problems.push(Problem::ScheduleText(shown_long(&e.to_string()))),
            Ok(schedule) => {
                let (kept, misfit) = scheduling::fit(&built, &schedule);
                choices = kept.0;
                problems.extend(misfit.map(Problem::Misfit));
            }
        }
    }
    let mut fork = None;
    if let Some(text) = fork_text {
        match text.parse::<Fork>() {
            Err(e) => problems.push(Problem::Fork(shown_long(&e.to_string()))),
            Ok(f) => match lousa_core::run::run_forked(
                &built,
                &Schedule(choices.clone()),
                f.frame,
                f.injection,
            ) {
                Ok(_) => fork = Some(f),
                Err(e) => problems.push(Problem::Fork(format!("fork {text:?}: {e}"))),
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
        frame,
        challenge: challenge.map(|c| c.id),
    };
    if problems.len() > PROBLEMS_MAX {
        let more = problems.len() - PROBLEMS_MAX;
        problems.truncate(PROBLEMS_MAX);
        problems.push(Problem::More(more));
    }
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
    if let Some(frame) = setup.frame {
        q.push_str(&format!("&frame={frame}"));
    }
    if let Some(id) = setup.challenge {
        q.push_str("&desafio=");
        q.push_str(id);
    }
    q
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

/// Percent-decoding of a query value (`+` is a space); bytes that do not
/// make UTF-8 become U+FFFD.
/// At most [`SHOWN_MAX`] characters of what a link said, for a message.
fn shown(text: &str) -> String {
    cut(text, SHOWN_MAX)
}

/// A message quoting a link, cut to a readable length.
fn shown_long(text: &str) -> String {
    cut(text, SHOWN_MAX * 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_challenge_alone_opens_its_own_scenario_and_design() {
        let c = lesson::LESSON[0];
        let (setup, problems) = parse(&format!("?modo=oficina&desafio={}", c.id));
        assert_eq!(problems, vec![]);
        assert_eq!(setup.challenge, Some(c.id));
        assert_eq!(format!("{};{}", setup.scenario, setup.edits), c.scenario);
        assert_eq!(setup.strategy, c.strategy);
        let (none, problems) = parse("?desafio=nope");
        assert_eq!(none.challenge, None);
        assert!(
            matches!(&problems[..], [Problem::Value { name, value }] if name == "desafio" && value == "nope"),
            "{problems:?}"
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
            frame: Some(4),
            challenge: Some("corrida-no-minimo"),
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, vec![]);
        assert_eq!(back, setup);
        let (odd, problems) = parse("?scenario=race-2&frame=-1");
        assert_eq!(odd.frame, None);
        assert!(
            matches!(&problems[..], [Problem::Value { name, value }] if name == "frame" && value == "-1"),
            "{problems:?}"
        );
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
            frame: None,
            challenge: None,
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, vec![]);
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
            frame: None,
            challenge: None,
        };
        let (back, problems) = parse(&query(&setup));
        assert_eq!(problems, vec![]);
        assert_eq!(back, setup);
        let (back, problems) = parse("?scenario=timeout-retry&fork=3:meteor-1");
        assert_eq!(back.fork, None);
        assert!(
            matches!(&problems[..], [Problem::Fork(e)] if e.contains("not a fault")),
            "{problems:?}"
        );
        let (back, problems) = parse("?scenario=timeout-retry&fork=9999:crash-1");
        assert_eq!(back.fork, None);
        assert!(
            matches!(&problems[..], [Problem::Fork(e)] if e.contains("past the run's end")),
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
            frame: None,
            challenge: None,
        };
        let q = query(&setup);
        assert!(q.ends_with("&apresentar=1"), "{q}");
        let (back, problems) = parse(&q);
        assert_eq!(problems, vec![]);
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
        assert!(
            matches!(&problems[..], [Problem::Value { name, value }] if name == "apresentar" && value == "sim"),
            "{problems:?}"
        );
    }

    #[test]
    fn refused_edits_leave_the_built_in_and_say_why() {
        let (setup, problems) = parse("?scenario=race-2;db_latency_ms=-1");
        assert_eq!(setup.edits, "");
        assert!(
            matches!(&problems[..], [Problem::Edits(e)] if e.contains("db_latency_ms")),
            "{problems:?}"
        );
    }

    #[test]
    fn a_schedule_past_the_alternatives_is_cut_and_named() {
        let (setup, problems) = parse("?modo=oficina&scenario=race-2&schedule=1-0-9");
        assert_eq!(setup.choices, vec![1, 0]);
        assert!(matches!(
            problems[..],
            [Problem::Misfit(Misfit::PastAlternatives {
                position: 2,
                choice: 9,
                ..
            })]
        ));
    }

    #[test]
    fn bad_values_are_problems_and_the_defaults_stand() {
        let long = "x".repeat(100_000);
        let (setup, problems) = parse(&format!(
            "?scenario={long}&strategy=optimistic&lang=fr&schedule=!&zz=1"
        ));
        assert_eq!(setup.scenario, DEFAULT_SCENARIO);
        assert_eq!(problems.len(), 5, "{problems:?}");
        let Problem::Value { value, .. } = &problems[0] else {
            panic!("{problems:?}");
        };
        assert!(value.chars().count() <= SHOWN_MAX + 1);
        assert!(matches!(&problems[4], Problem::ScheduleText(t) if t.starts_with("schedule:")));
    }

    /// Issue #34: 10,000 bad `strategy` pairs took 1.9 s to mount, one
    /// line each.
    #[test]
    fn thousands_of_bad_pairs_are_listed_to_eight_and_counted() {
        let query = "?scenario=race-2".to_string() + &"&strategy=nope".repeat(10_000);
        let (setup, problems) = parse(&query);
        assert_eq!(setup.scenario, "race-2");
        assert_eq!(problems.len(), PROBLEMS_MAX + 1);
        assert_eq!(problems[PROBLEMS_MAX], Problem::More(10_000 - PROBLEMS_MAX));
        let (_, few) = parse(&"&zz=1".repeat(PROBLEMS_MAX));
        assert_eq!(
            few.len(),
            PROBLEMS_MAX,
            "no count when every problem is listed"
        );
    }

    /// Issue #35: a right-to-left override in a link was echoed as it is,
    /// turning the sentence around it backwards.
    #[test]
    fn direction_and_control_characters_are_shown_escaped() {
        let (_, problems) = parse("?strategy=%E2%80%AEtpyrc%07&lang=%E2%81%A6x");
        assert_eq!(
            problems,
            vec![
                Problem::Value {
                    name: "strategy".into(),
                    value: "\\u{202e}tpyrc\\u{7}".into()
                },
                Problem::Value {
                    name: "lang".into(),
                    value: "\\u{2066}x".into()
                },
            ]
        );
    }

    /// Issue #33: a branch link whose `+` reached the page unencoded was
    /// refused ("got \"1 3000\""); both forms now open the branch.
    #[test]
    fn a_fork_with_its_plus_unencoded_still_reads() {
        for form in ["3:crash-1%2B3000", "3:crash-1+3000"] {
            let (setup, problems) = parse(&format!("?scenario=timeout-retry&fork={form}"));
            assert_eq!(problems, vec![], "{form}");
            assert_eq!(
                setup.fork,
                Some("3:crash-1+3000".parse().unwrap()),
                "{form}"
            );
        }
    }
}
