//! The workshop's lesson (issue #33): a sequence of challenges that walks
//! from the first post's race (check-then-act, two instances, a retry after
//! a timeout, both charge) to the second post's state machine (a key with
//! UNIQUE, the claim committed before the acquirer, the stored response,
//! 409 while in flight, a held transaction, recovery). A challenge is data,
//! so the CLI, the tests and the workshop page read the same lesson.
//!
//! * `challenges`: the lesson itself, in order.
//! * `goal`: what a challenge asks for and the checks that say it is met.
//! * `solve`: a solution for each challenge, found by the explorer, by a
//!   bounded search of schedules, or from a known edit.

mod challenges;
mod goal;
pub mod solve;

pub use challenges::LESSON;
pub use goal::Goal;

use crate::link::{self, LinkError};
use crate::predict::Said;
use crate::run::Run;
use crate::scenario::{Scenario, Strategy};

/// One step of the lesson: a scenario, a design, and something to make the
/// run show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// Kebab-case and stable: links name it (`?desafio=<id>`).
    pub id: &'static str,
    /// A short title, pt-BR first, then English.
    pub title: Said,
    /// What the attendee must do, in one or two sentences.
    pub task: Said,
    /// The scenario as a link (`race-2` or `race-2;db_latency_ms=5`).
    pub scenario: &'static str,
    /// The design the scenario runs under, whatever the link's built-in says.
    pub strategy: Strategy,
    /// What the attendee does to solve it.
    pub how: How,
    /// What the run (or the explorer) must show.
    pub goal: Goal,
    /// Two or three hints, shown one at a time.
    pub hints: &'static [Said],
    /// Shown on success: why it happened and what it teaches.
    pub success: Said,
}

/// What the attendee does to solve a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum How {
    /// Makes choices by hand on the scheduler, on the scenario as given.
    Picks,
    /// Edits the scenario, then runs it first come, first served: such
    /// edits as the task allows.
    Edit(Edits),
    /// Runs the explorer over every interleaving.
    Explore,
}

/// Which edits an edit challenge counts, as its task words them. Faults
/// never count: a fault can make the goal's outcome without the lesson's
/// fix (dropped retries charge once with a key minted per retry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Edits {
    /// One value of the scenario ("mude um valor").
    OneValue,
    /// The clients' fields, none of them a time ("corrija o cliente, sem
    /// mexer nos tempos").
    ClientsNotTimes,
}

/// Why an edited scenario does not count for its challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditMisfit {
    /// Nothing was changed.
    Nothing,
    /// A fault was added, removed or changed.
    Faults,
    /// More than the one value the task allows: the paths changed.
    NotOneValue(Vec<String>),
    /// A path outside the clients, or a time: the first such.
    NotClient(String),
}

impl How {
    /// The name links and fixtures spell: `picks`, `edit` or `explore`.
    pub fn name(self) -> &'static str {
        match self {
            How::Picks => "picks",
            How::Edit(_) => "edit",
            How::Explore => "explore",
        }
    }
}

impl Challenge {
    /// The built-in the challenge's link edits (`race-2` of
    /// `race-2;db_latency_ms=5`).
    pub fn built_in(&self) -> &'static str {
        self.scenario.split(';').next().unwrap_or(self.scenario)
    }

    /// The scenario the challenge starts from: its link decoded, under its
    /// strategy.
    pub fn start(&self) -> Result<Scenario, LinkError> {
        self.scenario_from(self.scenario)
    }

    /// The scenario an edited link describes, under the challenge's
    /// strategy, as the workshop runs an attendee's edit.
    pub fn scenario_from(&self, link_text: &str) -> Result<Scenario, LinkError> {
        let mut s = link::decode(link_text)?;
        s.strategy = self.strategy;
        Ok(s)
    }

    /// Whether the run on screen meets the challenge: its goal, on a run
    /// made the way the challenge asks (an edit's run takes no picks; an
    /// exploration is judged by its report, never by a run).
    pub fn met_by_run(&self, run: &Run, picks: usize) -> bool {
        match self.how {
            How::Picks => self.goal.met_by_run(run, picks),
            How::Edit(_) => picks == 0 && self.goal.met_by_run(run, picks),
            How::Explore => false,
        }
    }
}

impl Challenge {
    /// Whether `edited` (under the challenge's strategy) changes the
    /// challenge's scenario only as its task allows; a challenge solved
    /// another way takes any scenario.
    pub fn edit_fits(&self, edited: &Scenario) -> Result<(), EditMisfit> {
        let How::Edit(allowed) = self.how else {
            return Ok(());
        };
        let start = self.start().map_err(|_| EditMisfit::Nothing)?;
        let changed = link::changes(&start, edited);
        if changed.is_empty() {
            return Err(EditMisfit::Nothing);
        }
        if changed
            .iter()
            .any(|p| p == "faults" || p.starts_with("faults."))
        {
            return Err(EditMisfit::Faults);
        }
        match allowed {
            Edits::OneValue if changed.len() > 1 => Err(EditMisfit::NotOneValue(changed)),
            Edits::OneValue => Ok(()),
            Edits::ClientsNotTimes => match changed
                .iter()
                .find(|p| !p.starts_with("clients.") || p.ends_with("_ms"))
            {
                Some(p) => Err(EditMisfit::NotClient(p.clone())),
                None => Ok(()),
            },
        }
    }
}

/// The challenge called `id`, if the lesson has one.
pub fn challenge(id: &str) -> Option<&'static Challenge> {
    LESSON.iter().find(|c| c.id == id)
}
