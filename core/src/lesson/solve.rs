//! A solution for each challenge, found the way an attendee would solve
//! it: a schedule of picks (the explorer's shortest example of an outcome
//! that meets the goal, or else a bounded search of short schedules), an
//! edit of the scenario (from a short table of known edits), or a complete
//! exploration. Every solution is checked by the challenge's own test
//! before it is returned, so the CLI and the fixtures never show one that
//! does not work.

use super::{Challenge, Goal, How};
use crate::choice::{Schedule, ScheduleChooser};
use crate::explore::{self, Claim, Options, Report};
use crate::link;
use crate::property;
use crate::run::{outcome_with, run_schedule};
use crate::scenario::Scenario;

/// How a challenge was solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Solution {
    /// These picks on the scenario as given, first come, first served past
    /// them.
    Schedule(Schedule),
    /// The edited scenario, as a link, run with no picks.
    Edit(String),
    /// A complete exploration whose report meets the goal.
    Explore(Box<Report>),
}

impl Solution {
    /// The solution in the words of a link: the schedule's text, the edited
    /// link, or `explore`.
    pub fn text(&self) -> String {
        match self {
            Solution::Schedule(s) => s.to_string(),
            Solution::Edit(link) => link.clone(),
            Solution::Explore(_) => "explore".into(),
        }
    }
}

/// A solution and the picks it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// What solves the challenge.
    pub solution: Solution,
    /// Choices made by hand: the schedule's length up to its last non-zero
    /// choice; 0 for an edit or an exploration.
    pub picks: usize,
}

/// Most picks the bounded search of schedules tries.
pub const SEARCH_PICKS_MAX: usize = 8;
/// Most schedules the bounded search lists before it gives up.
pub const SEARCH_SCHEDULES_MAX: usize = 20_000;

/// A checked solution to `challenge`, or why none was found.
pub fn solve(challenge: &Challenge) -> Result<Solved, String> {
    let start = challenge.start().map_err(|e| e.to_string())?;
    match challenge.how {
        How::Picks => solve_by_picks(challenge, &start),
        How::Edit(_) => solve_by_edit(challenge),
        How::Explore => solve_by_exploring(challenge, &start),
    }
}

/// Whether `schedule` meets the challenge on its scenario as given.
pub fn schedule_meets(challenge: &Challenge, scenario: &Scenario, schedule: &Schedule) -> bool {
    let picks = schedule.trimmed().0.len();
    run_schedule(scenario, schedule).is_ok_and(|run| challenge.met_by_run(&run, picks))
}

fn solve_by_picks(challenge: &Challenge, start: &Scenario) -> Result<Solved, String> {
    let options = Options::for_scenario(start);
    let report = explore::explore(start, &options).map_err(|e| e.to_string())?;
    let mut examples: Vec<Schedule> = report
        .outcomes
        .iter()
        .filter_map(|o| o.example.as_ref().map(|e| e.schedule.clone()))
        .collect();
    examples.sort_by_key(|s| s.trimmed().0.len());
    let found = examples
        .into_iter()
        .find(|s| schedule_meets(challenge, start, s))
        .or_else(|| {
            schedules_up_to(start, SEARCH_PICKS_MAX)
                .into_iter()
                .find(|s| schedule_meets(challenge, start, s))
        });
    match found {
        Some(s) => Ok(Solved {
            picks: s.trimmed().0.len(),
            solution: Solution::Schedule(s.trimmed()),
        }),
        None => Err(format!("{}: no schedule meets the goal", challenge.id)),
    }
}

/// Every schedule of at most `picks` choices that fits `scenario` (each
/// choice below its point's alternatives), shortest first, at most
/// [`SEARCH_SCHEDULES_MAX`] of them.
pub fn schedules_up_to(scenario: &Scenario, picks: usize) -> Vec<Schedule> {
    let mut out = vec![Schedule::default()];
    let mut at = 0;
    while at < out.len() && out.len() < SEARCH_SCHEDULES_MAX {
        let prefix = out[at].clone();
        at += 1;
        if prefix.0.len() >= picks {
            continue;
        }
        let mut chooser = ScheduleChooser::new(&prefix);
        outcome_with(scenario, &mut chooser);
        let Some(&(_, arity, _)) = chooser.taken.get(prefix.0.len()) else {
            continue;
        };
        for choice in 0..arity {
            let mut next = prefix.clone();
            next.0.push(choice);
            out.push(next);
        }
    }
    out.truncate(SEARCH_SCHEDULES_MAX);
    out
}

/// The edits known to solve the edit challenges: dotted paths and JSON
/// values, as a link writes them (the browser tests type them into the
/// workshop's editor).
pub fn known_edit(id: &str) -> Option<&'static [(&'static str, &'static str)]> {
    Some(match id {
        "o-timeout-que-dispara" => &[("clients.0.timeout_ms", "1500")],
        "processando-responde-409" => &[("acquirer.latency_ms", "3000")],
        "transacao-aberta" => &[("acquirer.latency_ms", "4000")],
        "chave-por-tentativa" => &[("clients.0.new_key_per_retry", "false")],
        "conciliacao" => &[("recovery_every_ms", "2000")],
        _ => return None,
    })
}

fn solve_by_edit(challenge: &Challenge) -> Result<Solved, String> {
    let edits =
        known_edit(challenge.id).ok_or_else(|| format!("{}: no known edit", challenge.id))?;
    let edits: Vec<(&str, serde_json::Value)> = edits
        .iter()
        .map(|(path, json)| (*path, serde_json::from_str(json).expect("a JSON value")))
        .collect();
    // Edited as the link's built-in has it, so the link carries no strategy.
    let given = link::decode(challenge.scenario).map_err(|e| e.to_string())?;
    let edited = link::edit(&given, &edits).map_err(|e| e.to_string())?;
    let text = link::encode(challenge.built_in(), &edited).ok_or("the link names no built-in")?;
    let scenario = challenge.scenario_from(&text).map_err(|e| e.to_string())?;
    challenge.edit_fits(&scenario).map_err(|e| {
        format!(
            "{}: the known edit {text} does not fit: {e:?}",
            challenge.id
        )
    })?;
    let run = run_schedule(&scenario, &Schedule::default()).map_err(|e| e.to_string())?;
    if !challenge.met_by_run(&run, 0) {
        return Err(format!(
            "{}: the known edit {text} does not meet the goal",
            challenge.id
        ));
    }
    Ok(Solved {
        solution: Solution::Edit(text),
        picks: 0,
    })
}

/// The explorer's options for a challenge: the scenario's own, with the
/// goal's property checked too.
pub fn options_for(challenge: &Challenge, scenario: &Scenario) -> Options {
    let mut options = Options::for_scenario(scenario);
    if let Goal::Proven { property: name } = challenge.goal {
        let checked = options.properties.iter().any(|c| c.property.name == name);
        if let (false, Some(p)) = (checked, property::named(name)) {
            options.properties.push(Claim::always(p, true));
        }
    }
    options
}

fn solve_by_exploring(challenge: &Challenge, start: &Scenario) -> Result<Solved, String> {
    let report =
        explore::explore(start, &options_for(challenge, start)).map_err(|e| e.to_string())?;
    if !challenge.goal.met_by_report(&report) {
        return Err(format!(
            "{}: the exploration ({}) does not meet the goal",
            challenge.id,
            report.status.name()
        ));
    }
    Ok(Solved {
        solution: Solution::Explore(Box::new(report)),
        picks: 0,
    })
}
