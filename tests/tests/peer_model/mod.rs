//! Lousa's world as a `stateright::Model`, for the peer benchmark
//! (`tests/benches/peer.rs`) and the state-count agreement test
//! (`tests/tests/peer.rs`).
//!
//! It wraps the very step function the explorer uses: the state is a
//! [`World`], and the actions of a state come from the same prefix
//! enumeration ([`explore::successors`]). Enumerating the choices of a step
//! means taking it, so an action is the world that step reached and
//! `next_state` hands it over: each transition is stepped once, as in
//! Lousa's explorer. (An action that held the choice vector instead, replayed
//! by `next_state`, would step every transition twice and flatter Lousa by
//! about 1.5x; the first versions of this benchmark did that.) The properties are
//! the explorer's: every invariant as *always*, judged at the end of a run,
//! plus the strategy's *sometimes*. One invariant always holds in race-N, so
//! stateright cannot stop early and explores the whole space, as Lousa does.

use lousa_core::explore::{self, Modality};
use lousa_core::run::{self, summarize};
use lousa_core::{Scenario, World};
use stateright::{Checker, Model, Property};

pub struct WorldModel {
    pub scenario: Scenario,
}

impl WorldModel {
    pub fn new(scenario: Scenario) -> Self {
        Self { scenario }
    }
}

fn broken(w: &World, name: &str) -> bool {
    w.is_done() && summarize(w).verdict(name).is_some_and(|v| !v.holds)
}

fn sometimes(w: &World, name: &str) -> bool {
    if !w.is_done() {
        return false;
    }
    let s = summarize(w);
    match name {
        explore::DOUBLE_CHARGE_REACHABLE => !s.double_charged_intents.is_empty(),
        explore::CONFLICT_REACHABLE => s.statuses().contains(&Some(409)),
        _ => s.attempts.iter().enumerate().any(|(i, a)| {
            a.status.is_some_and(|st| (200..300).contains(&st))
                && s.attempts[..i]
                    .iter()
                    .any(|b| b.intent == a.intent && b.status == a.status && b.body == a.body)
        }),
    }
}

impl Model for WorldModel {
    type State = World;
    type Action = World;

    fn init_states(&self) -> Vec<World> {
        vec![explore::quiet_world(&self.scenario)]
    }

    fn actions(&self, state: &World, actions: &mut Vec<World>) {
        if state.is_done() {
            return;
        }
        actions.extend(explore::successors(state).into_iter().map(|(_, w)| w));
    }

    fn next_state(&self, _: &World, reached: World) -> Option<World> {
        Some(reached)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        // Properties are plain `fn`s, so each name gets its own.
        let mut out = vec![
            Property::always("at-most-one-capture-per-intent", |_, w| {
                !broken(w, run::AT_MOST_ONE_CAPTURE)
            }),
            Property::always("every-2xx-has-exactly-one-capture", |_, w| {
                !broken(w, run::EVERY_2XX_ONE_CAPTURE)
            }),
            Property::always("replay-equals-first-response", |_, w| {
                !broken(w, run::REPLAY_EQUALS_FIRST)
            }),
            Property::always("409-and-422-never-reach-the-acquirer", |_, w| {
                !broken(w, run::CONFLICTS_NEVER_CHARGE)
            }),
        ];
        for p in explore::properties_for(self.scenario.strategy) {
            if p.modality == Modality::Sometimes {
                out.push(match p.name.as_str() {
                    explore::DOUBLE_CHARGE_REACHABLE => {
                        Property::sometimes("double-charge-reachable", |_, w| {
                            sometimes(w, explore::DOUBLE_CHARGE_REACHABLE)
                        })
                    }
                    explore::CONFLICT_REACHABLE => Property::sometimes("409-reachable", |_, w| {
                        sometimes(w, explore::CONFLICT_REACHABLE)
                    }),
                    _ => Property::sometimes("replay-reachable", |_, w| {
                        sometimes(w, explore::REPLAY_REACHABLE)
                    }),
                });
            }
        }
        out
    }
}

/// How stateright searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerSearch {
    Bfs,
    Dfs,
    /// Depth-first with `symmetry_fn(explore::representative)`: the same
    /// canonical form Lousa's reductions use (stateright offers symmetry
    /// reduction only depth-first).
    DfsSymmetry,
}

/// What a stateright run found. (The bench and the test each read some of
/// the fields.)
#[allow(dead_code)]
pub struct PeerRun {
    pub unique_states: usize,
    /// Transitions generated (stateright's `state_count`).
    pub generated: usize,
    pub discoveries: Vec<&'static str>,
}

/// Runs stateright single-threaded; `target_states` bounds generated
/// states (stateright's own bound) when given.
pub fn run_stateright(
    scenario: &Scenario,
    search: PeerSearch,
    target_states: Option<usize>,
) -> PeerRun {
    let mut builder = WorldModel::new(scenario.clone()).checker().threads(1);
    if let Some(n) = target_states {
        builder = builder.target_state_count(n);
    }
    let (unique_states, generated, discoveries) = match search {
        PeerSearch::Bfs => summarise(builder.spawn_bfs().join()),
        PeerSearch::Dfs => summarise(builder.spawn_dfs().join()),
        PeerSearch::DfsSymmetry => summarise(
            builder
                .symmetry_fn(explore::representative)
                .spawn_dfs()
                .join(),
        ),
    };
    PeerRun {
        unique_states,
        generated,
        discoveries,
    }
}

fn summarise(c: impl Checker<WorldModel>) -> (usize, usize, Vec<&'static str>) {
    let mut names: Vec<&'static str> = c.discoveries().into_keys().collect();
    names.sort();
    (c.unique_state_count(), c.state_count(), names)
}
