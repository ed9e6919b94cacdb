//! What the frontier holds for a state waiting to be expanded: its world,
//! or the step that makes it from a world kept for its siblings.
//!
//! A world costs kilobytes, and a wide model (jitter on every hop, a random
//! balancer) gives a state hundreds of successors, so a frontier of worlds
//! grows by megabytes an expansion and a browser tab runs out of memory
//! long before the state limit. Past `WORLDS_WAITING_MAX` worlds, an
//! expansion keeps its state's world once, shared, and queues each new
//! successor as its choices; expanding one replays that step. The replay is
//! a second step of the same world, so narrow models, whose frontier stays
//! under the bound, never pay it.

use super::*;
use std::rc::Rc;

/// Worlds the frontier holds before it holds steps instead. The frontiers
/// of narrow models (the races, the built-ins) stay under it and never
/// replay a step; at the widest worlds the limits allow it is some 160 MB
/// (docs/performance.md).
pub(super) const WORLDS_WAITING_MAX: usize = 16_384;

pub(super) enum Waiting {
    World(Box<World>),
    /// The world `parent` steps to under these choices (its schedule's
    /// choices for that one step).
    Step(Rc<World>, Box<[u32]>),
}

impl Explorer {
    /// Queues `id` to be expanded: as its world, or as the step from
    /// `step`'s world when the expansion that found it keeps steps.
    pub(super) fn wait(
        &mut self,
        id: u32,
        depth: u32,
        w: Box<World>,
        step: Option<(&Rc<World>, Box<[u32]>)>,
    ) {
        let waiting = match step {
            Some((parent, choices)) => {
                self.recycle(w);
                Waiting::Step(Rc::clone(parent), choices)
            }
            None => {
                self.worlds_waiting += 1;
                Waiting::World(w)
            }
        };
        self.frontier.push_back((id, depth, waiting));
    }

    /// Whether the next expansion queues steps rather than worlds.
    pub(super) fn keeps_steps(&self) -> bool {
        self.worlds_waiting >= self.worlds_waiting_max
    }

    /// The world a frontier entry stands for, in canonical form as it was
    /// when the index met it.
    pub(super) fn world_of(&mut self, waiting: Waiting) -> Box<World> {
        match waiting {
            Waiting::World(w) => {
                self.worlds_waiting -= 1;
                w
            }
            Waiting::Step(parent, choices) => {
                // The step's own choices replay it, whichever expansion
                // (the `Next`-only one or the prefix walk) made them.
                let mut w = self.copy_of(&parent);
                let mut chooser = ScheduleChooser::new(&Schedule(choices.into_vec()));
                w.step_with(&mut chooser, &mut self.store_memo);
                // Keyed as when the index met it, so that its parts keep
                // their fingerprints for its successors to share.
                self.key_of(&mut w);
                w
            }
        }
    }
}
