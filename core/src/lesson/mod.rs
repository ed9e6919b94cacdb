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
    /// Edits the scenario, then runs it first come, first served.
    Edit,
    /// Runs the explorer over every interleaving.
    Explore,
}

impl How {
    /// The name links and fixtures spell: `picks`, `edit` or `explore`.
    pub fn name(self) -> &'static str {
        match self {
            How::Picks => "picks",
            How::Edit => "edit",
            How::Explore => "explore",
        }
    }
}

impl Challenge {
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
            How::Edit => picks == 0 && self.goal.met_by_run(run, picks),
            How::Explore => false,
        }
    }
}

/// The challenge called `id`, if the lesson has one.
pub fn challenge(id: &str) -> Option<&'static Challenge> {
    LESSON.iter().find(|c| c.id == id)
}
