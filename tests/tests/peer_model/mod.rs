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
use lousa_core::property::{self, Ending};
use lousa_core::run::summarize;
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

/// Whether a finished run shows table property `I`: breaks it (*always*)
/// or reaches it (*sometimes*). Judged at the end of a run only.
fn shows<const I: usize>(w: &World) -> bool {
    if !w.is_done() {
        return false;
    }
    let s = summarize(w);
    property::ALL[I].shown_by(&Ending {
        world: w,
        intents: &s.intents,
        attempts: &s.attempts,
    })
}

fn holds<const I: usize>(_: &WorldModel, w: &World) -> bool {
    !shows::<I>(w)
}

fn reached<const I: usize>(_: &WorldModel, w: &World) -> bool {
    shows::<I>(w)
}

/// Stateright's conditions are plain `fn`s, so each property of the table
/// gets its own instance, by index; a property added to the table makes
/// these arrays one short, which does not compile.
type Condition = fn(&WorldModel, &World) -> bool;
const HOLDS: [Condition; property::ALL.len()] = [
    holds::<0>,
    holds::<1>,
    holds::<2>,
    holds::<3>,
    holds::<4>,
    holds::<5>,
    holds::<6>,
    holds::<7>,
    holds::<8>,
    holds::<9>,
    holds::<10>,
    holds::<11>,
    holds::<12>,
    holds::<13>,
    holds::<14>,
    holds::<15>,
    holds::<16>,
    holds::<17>,
];
const REACHED: [Condition; property::ALL.len()] = [
    reached::<0>,
    reached::<1>,
    reached::<2>,
    reached::<3>,
    reached::<4>,
    reached::<5>,
    reached::<6>,
    reached::<7>,
    reached::<8>,
    reached::<9>,
    reached::<10>,
    reached::<11>,
    reached::<12>,
    reached::<13>,
    reached::<14>,
    reached::<15>,
    reached::<16>,
    reached::<17>,
];

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
        // The explorer's claims for the strategy, from the same table.
        explore::properties_for_scenario(&self.scenario)
            .into_iter()
            .map(|claim| {
                let p = claim.property;
                let i = property::ALL
                    .iter()
                    .position(|q| *q == p)
                    .expect("in the table");
                match p.modality {
                    Modality::Always => Property::always(p.name, HOLDS[i]),
                    Modality::Sometimes => Property::sometimes(p.name, REACHED[i]),
                }
            })
            .collect()
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
