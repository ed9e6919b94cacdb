//! Exhaustive exploration: every schedule of a scenario, checked against
//! *always* and *sometimes* properties, in the spirit of stateright. A map:
//!
//! * `property`: the properties, their names and modalities.
//! * `successors`: a state's successors, one per choice vector of a step.
//! * `reduce`: client symmetry and unordered ties, as canonical renamings.
//! * `independence`: which steps commute, and the persistent sets the
//!   partial-order reduction expands states by.
//! * `cross_check`: the reduced search against the full one.
//! * `index`: the fixed-hasher state index and the store memo.
//! * `search`: the [`Explorer`], expanding states depth- or breadth-first
//!   in slices a page can interleave with rendering (no threads, no clock).
//! * `analysis`: schedule counts, shortest paths and example schedules,
//!   all from the explored graph, so both search orders report the same.
//! * `report`: what an exploration reports.
//! * `kept`: a complete exploration's graph, kept to answer the counts on
//!   from a prefix without exploring again.
//! * `words`: the properties and verdicts in Portuguese and English.
//!
//! Measurements of the explorer's speed and memory are kept in
//! `docs/performance.md`, not here, so they can be kept current.

mod analysis;
mod call_names;
#[cfg(test)]
mod call_names_tests;
#[cfg(test)]
mod canonical_tests;
mod cross_check;
mod flow_names;
#[cfg(test)]
mod flow_names_tests;
mod independence;
#[cfg(test)]
mod independence_tests;
mod index;
mod kept;
#[cfg(test)]
mod kept_tests;
mod property;
mod reduce;
mod report;
mod search;
mod successors;
#[cfg(test)]
mod tests;
mod waiting;
#[cfg(test)]
mod waiting_tests;
pub mod words;

use analysis::*;
use call_names::*;
pub use cross_check::*;
use flow_names::*;
use independence::*;
use index::*;
pub use kept::*;
pub use property::*;
pub use reduce::*;
pub use report::*;
pub use search::*;
pub use successors::*;
use waiting::*;

use crate::choice::{ChoiceKind, Chooser, Schedule, ScheduleChooser};
use crate::fingerprint::{self, Fingerprint, FingerprintHasher};
use crate::handler::StmtInputs;
use crate::part::Part;
use crate::property::Ending;
use crate::run;
use crate::scenario::{ClientSpec, LoadBalancerPolicy, Scenario, ScenarioError, Strategy};
use crate::store::{Exec, SessionId, Stmt, Store};
use crate::trace::{EndReason, Summary};
use crate::world::{AttemptId, Due, Engine, StoreExec, World};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::ops::ControlFlow;

/// Bounds on an exploration, so that none can exhaust a browser tab.
pub mod limits {
    /// The largest `max_states` accepted: about 5 GB of graph (roughly
    /// 100 bytes per state) before any frontier.
    pub const STATES_MAX: u32 = 50_000_000;
    /// The default: race-2 and race-3 fit under every strategy with the
    /// default reductions, breadth-first too, though it holds the widest
    /// level's worlds (the sizes are in docs/performance.md).
    pub const STATES_DEFAULT: u32 = 5_000_000;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Search {
    /// Level by level: memory grows with the widest level. Under a state
    /// limit it has seen every state near the start, so a cut run still
    /// holds the shallowest counterexamples.
    BreadthFirst,
    /// Path by path, the default: memory grows with depth times branching
    /// (a tenth of breadth-first's on race-3; past a bound the frontier
    /// holds steps rather than worlds) and the frontier stays warm in
    /// cache. A complete run has the same graph and every figure the same,
    /// shortest schedules included: they come from the graph, not from the
    /// order of the search.
    DepthFirst,
}

/// An explorer option outside what it accepts. Its own type rather than a
/// `ScenarioError`, which names a field of the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionsError {
    /// `max_states` outside `1..=limits::STATES_MAX`.
    MaxStates(u32),
}

impl std::fmt::Display for OptionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionsError::MaxStates(n) => {
                write!(f, "max_states: {n} is outside 1..={}", limits::STATES_MAX)
            }
        }
    }
}

impl std::error::Error for OptionsError {}

/// Why an exploration could not start: the scenario, the options, or the
/// prefix it was to start after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExploreError {
    Scenario(ScenarioError),
    Options(OptionsError),
    Prefix(crate::choice::Misfit),
    /// The prefix stops between two choices of one step (its first
    /// `choices_in_whole_steps` choices make whole steps): exploring starts at a step.
    PrefixInsideStep {
        choices_in_whole_steps: usize,
        given: usize,
    },
}

impl std::fmt::Display for ExploreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExploreError::Scenario(e) => e.fmt(f),
            ExploreError::Options(e) => e.fmt(f),
            ExploreError::Prefix(e) => e.fmt(f),
            ExploreError::PrefixInsideStep {
                choices_in_whole_steps,
                given,
            } => write!(
                f,
                "the prefix's {given} choices end inside a step: its first {choices_in_whole_steps} make whole steps, and the next step needs more"
            ),
        }
    }
}

impl std::error::Error for ExploreError {}

impl From<ScenarioError> for ExploreError {
    fn from(e: ScenarioError) -> Self {
        ExploreError::Scenario(e)
    }
}

impl From<OptionsError> for ExploreError {
    fn from(e: OptionsError) -> Self {
        ExploreError::Options(e)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Distinct states explored at most; reaching it ends the run with
    /// [`Status::StateLimit`].
    pub max_states: u32,
    pub search: Search,
    /// Merge states that differ only by a renaming of interchangeable
    /// clients.
    pub symmetry: bool,
    /// Merge states that differ only in the order of events due at the same
    /// instant. Shortest schedules are then measured in steps, not choices.
    pub unordered_ties: bool,
    /// Expand each state by a persistent set of the events due now instead
    /// of all of them (see `independence.rs`): the outcomes, verdicts, end
    /// states and shortest examples in steps stay those of the full search,
    /// the schedule counts are not kept. Implies `unordered_ties`. Applies
    /// where the only choice is which due event runs (no jitter, a load
    /// balancer that does not choose); elsewhere the search is full and
    /// the report says so.
    pub por: bool,
    /// With `por`: merge states whose flows (an attempt, its client, its
    /// instance and that instance's sessions) differ only by name, where
    /// the scenario's flows are interchangeable (`flow_names.rs`). The
    /// verdicts and their shortest examples stay those of the full search;
    /// outcomes are listed up to which attempt is which.
    pub flows: bool,
    pub properties: Vec<Claim>,
}

impl Options {
    /// Depth-first, client symmetry on, ties ordered (so the shortest
    /// counterexample is the shortest schedule text), the strategy's
    /// properties. Turn `unordered_ties` on for about half the states when
    /// the shortest schedule matters less than the time.
    pub fn for_strategy(strategy: Strategy) -> Options {
        Options {
            max_states: limits::STATES_DEFAULT,
            search: Search::DepthFirst,
            symmetry: true,
            unordered_ties: false,
            por: false,
            flows: false,
            properties: properties_for(strategy),
        }
    }

    /// The defaults of [`Options::for_strategy`], with the claims the
    /// scenario's clients call for (see [`properties_for_scenario`]).
    pub fn for_scenario(scenario: &Scenario) -> Options {
        Options {
            properties: properties_for_scenario(scenario),
            ..Options::for_strategy(scenario.strategy)
        }
    }

    pub fn validate(&self) -> Result<(), OptionsError> {
        if self.max_states == 0 || self.max_states > limits::STATES_MAX {
            return Err(OptionsError::MaxStates(self.max_states));
        }
        Ok(())
    }

    /// Whether ties are unordered: asked, or implied by the partial-order
    /// reduction.
    pub fn ties_unordered(&self) -> bool {
        self.unordered_ties || self.por
    }

    /// The reduction these options name, as `--reduction` spells it.
    pub fn reduction(&self) -> Reduction {
        match (self.flows && self.por, self.por, self.symmetry) {
            (true, _, _) => Reduction::Flows,
            (false, true, _) => Reduction::Por,
            (false, false, true) => Reduction::Symmetry,
            (false, false, false) => Reduction::None,
        }
    }

    /// Sets the reduction: `none` turns client symmetry off, `symmetry`
    /// is the default, `por` adds the partial-order reduction (and with it
    /// unordered ties) to symmetry, and `flows` whole flows to `por`.
    pub fn set_reduction(&mut self, r: Reduction) {
        self.symmetry = r != Reduction::None;
        self.por = matches!(r, Reduction::Por | Reduction::Flows);
        self.flows = r == Reduction::Flows;
    }

    /// The names of the reductions these options turn on.
    pub fn reductions(&self) -> Vec<String> {
        let mut r = vec![
            "state-fingerprint".to_string(),
            "transaction-renaming".to_string(),
        ];
        if self.symmetry {
            r.push("client-symmetry".into());
        }
        if self.ties_unordered() {
            r.push("unordered-ties".into());
        }
        if self.por {
            r.push("partial-order".into());
        }
        if self.por && self.flows {
            r.push("flow-symmetry".into());
        }
        r
    }
}

/// How much the explorer reduces, from the most exact to the fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reduction {
    /// Fingerprints only: every schedule counted, clients told apart.
    None,
    /// Interchangeable clients merged: the same counts, fewer states.
    Symmetry,
    /// Symmetry, unordered ties, and one order of independent steps:
    /// the same outcomes, verdicts and shortest examples in steps, no
    /// schedule counts.
    Por,
    /// `por`, and flows that differ only by name merged: the same
    /// verdicts and shortest examples in steps, outcomes up to which
    /// attempt is which.
    Flows,
}

impl Reduction {
    pub const ALL: [Reduction; 4] = [
        Reduction::None,
        Reduction::Symmetry,
        Reduction::Por,
        Reduction::Flows,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Reduction::None => "none",
            Reduction::Symmetry => "symmetry",
            Reduction::Por => "por",
            Reduction::Flows => "flows",
        }
    }

    pub fn parse(text: &str) -> Option<Reduction> {
        Reduction::ALL.into_iter().find(|r| r.name() == text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Work is left; call [`Explorer::run_for`] again.
    Running,
    /// Every reachable state was explored: the verdicts are final.
    Complete,
    /// `max_states` was reached. Counterexamples and examples found are
    /// real; nothing can be said to hold.
    StateLimit,
    /// [`Explorer::cancel`] was called.
    Cancelled,
    /// The state graph has a cycle, so schedules are unbounded. The world's
    /// clock and event consumption should make this impossible: it is a bug.
    Cyclic,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Complete => "complete",
            Status::StateLimit => "state-limit",
            Status::Cancelled => "cancelled",
            Status::Cyclic => "cyclic",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub status: Status,
    pub states: u64,
    pub transitions: u64,
    /// States found but not yet expanded.
    pub frontier: u64,
    /// Depth (steps from the start) of the state expanded last.
    pub depth: u32,
}

/// Explores a scenario to the end (or to `max_states`).
pub fn explore(scenario: &Scenario, options: &Options) -> Result<Report, ExploreError> {
    explore_with(scenario, options, &mut |_| ControlFlow::Continue(()))
}

/// Explores, calling `progress` between slices of a few thousand states;
/// returning `ControlFlow::Break` from it cancels the run.
pub fn explore_with(
    scenario: &Scenario,
    options: &Options,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Report, ExploreError> {
    run_explorer(Explorer::new(scenario, options)?, progress)
}

/// Explores every way on from the point a schedule prefix reaches: the
/// run replays `prefix`, then the steps that need no choice, and stops at
/// the next choice point. Its counts are of the schedules from there (the
/// workshop's "from here: 1,472 schedules, 1,388 charge twice"), and its
/// example schedules continue `prefix`: the prefix followed by one replays
/// the whole run. A prefix that does not fit the run is refused.
pub fn explore_from(
    scenario: &Scenario,
    options: &Options,
    prefix: &Schedule,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Report, ExploreError> {
    let ex = Explorer::after(scenario, options, prefix)?;
    let before = ex.start_steps;
    let report = run_explorer(ex, progress)?;
    Ok(continuing(prefix, before, report))
}

/// A report of the schedules on from `prefix` (which takes `before` steps)
/// with its examples made whole runs: the explorer's continue the prefix.
pub(super) fn continuing(prefix: &Schedule, before: u32, mut report: Report) -> Report {
    let whole = |e: &mut Example| {
        let mut choices = prefix.0.clone();
        choices.extend_from_slice(&e.schedule.0);
        let len = choices.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
        choices.truncate(len);
        e.schedule = Schedule(choices);
        e.text = e.schedule.to_string();
        e.choices = len as u32;
        e.steps += before;
    };
    for e in report
        .outcomes
        .iter_mut()
        .filter_map(|o| o.example.as_mut())
    {
        whole(e);
    }
    for e in report
        .properties
        .iter_mut()
        .filter_map(|p| p.example.as_mut())
    {
        whole(e);
    }
    report
}

fn run_explorer(
    mut ex: Explorer,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Report, ExploreError> {
    run_to_end(&mut ex, progress);
    Ok(ex.into_report().expect("a stopped explorer has a report"))
}

/// Runs `ex` in slices until it stops, calling `progress` between them.
pub(super) fn run_to_end(
    ex: &mut Explorer,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) {
    const SLICE_STATES: u32 = 4_096;
    loop {
        let p = ex.run_for(SLICE_STATES);
        if p.status != Status::Running {
            break;
        }
        if progress(&p).is_break() {
            ex.cancel();
            break;
        }
    }
}
