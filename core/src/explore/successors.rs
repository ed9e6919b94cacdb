//! A state's successors: every world one step can reach, one per distinct
//! choice vector, in lexicographic order.
//!
//! A state is a [`World`]. Its successors are the worlds one
//! [`World::step`] can produce: a step may meet several choice points (which
//! due event runs, where the load balancer routes, how much jitter a hop
//! gets), so the explorer replays the step with a [`ScheduleChooser`] over
//! choice prefixes. It runs the step with the prefix `[]`, reads the arity of
//! every choice point it met, and branches on each alternative not taken: a
//! depth-first walk over the choice vectors of one step. Each distinct full
//! choice vector is one transition, and the enumeration order is the
//! lexicographic order of those vectors, so transition 0 of every state is the
//! all-zero ("first come, first served") one.
//!
//! Where the only choice point a scenario can meet is `Next` (no jitter on
//! a hop or on a client's backoff, a load balancer that never asks), the
//! alternatives are known before the step runs (the number of events due at
//! the earliest instant), so the explorer steps clones for all but the last
//! and the world itself for the last; the transitions and their order are
//! the same.

use super::*;

/// The explorer's worlds produce no trace and no SQL text: it reads only
/// states and outcomes. Every world it compares must be made this way, as
/// quiet worlds keep no text that traced ones would hash.
pub fn quiet_world(scenario: &Scenario) -> World {
    let mut w = World::new(scenario);
    w.set_quiet();
    w
}

/// Every successor of `w` with the choice vector that produces it, in the
/// lexicographic order of choice vectors (the all-zero one first).
pub fn successors(w: &World) -> Vec<(Vec<u32>, World)> {
    successors_with(w, &mut None)
}

/// [`successors`], with statements run by `store` when given.
pub(super) fn successors_with(w: &World, store: &mut Option<StoreMemo>) -> Vec<(Vec<u32>, World)> {
    // The explorer's shortcut, so that the peer benchmark's stateright wrapper
    // (which enumerates with this function) gets it too: where the only
    // choice is which due event runs, its alternatives are known up front.
    if only_next_choices(w.scenario()) {
        let first = step_next_with(w, 0, store);
        if first.0.is_empty() {
            return vec![first];
        }
        let mut out = vec![first];
        for pick in 1..next_arity(w) {
            out.push(step_next_with(w, pick, store));
        }
        return out;
    }
    prefix_successors(w, store)
}

/// [`successors`] by the prefix walk alone, whatever the scenario.
pub(super) fn prefix_successors(
    w: &World,
    store: &mut Option<StoreMemo>,
) -> Vec<(Vec<u32>, World)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for_each_successor(w, &mut stack, store, |choices, next| {
        out.push((choices.to_vec(), next))
    });
    out
}

/// The prefix walk: replays `w.step` under each choice prefix and branches
/// on every alternative a run defaulted. `stack` is scratch space.
pub(super) fn for_each_successor(
    w: &World,
    stack: &mut Vec<Vec<u32>>,
    store_exec: &mut dyn StoreExec,
    mut visit: impl FnMut(&[u32], World),
) {
    debug_assert!(!w.is_done());
    stack.clear();
    stack.push(Vec::new());
    while let Some(prefix) = stack.pop() {
        let fixed = prefix.len();
        let mut next = w.clone();
        let mut chooser = ScheduleChooser::new(&Schedule(prefix));
        next.step_with(&mut chooser, &mut *store_exec);
        let choices: Vec<u32> = chooser.taken.iter().map(|t| t.2).collect();
        debug_assert!(
            fixed <= choices.len(),
            "a replayed prefix met fewer choice points"
        );
        // Later positions and larger alternatives are pushed first, so the
        // smallest vector pops next: lexicographic order.
        for i in fixed..choices.len() {
            for alt in (1..chooser.taken[i].1).rev() {
                let mut p = Vec::with_capacity(i + 1);
                p.extend_from_slice(&choices[..i]);
                p.push(alt);
                stack.push(p);
            }
        }
        visit(&choices, next);
    }
}

/// Scenarios whose only choice point is `Next` (which of the events due at
/// one instant runs): no jitter on a hop or a backoff, and a load balancer
/// that never asks. For them the alternatives of a step are known before it
/// runs, so the last one can consume the world instead of a clone of it.
pub(super) fn only_next_choices(s: &Scenario) -> bool {
    s.network.jitter_ms == 0
        && s.clients.iter().all(|c| c.backoff_jitter_ms == 0)
        && matches!(
            s.load_balancer,
            LoadBalancerPolicy::RoundRobin | LoadBalancerPolicy::StickyByKey
        )
}

/// The arity of the `Next` choice `w.step` will meet: the number of events
/// due at the earliest instant, or 1 when the step will end the run.
pub(super) fn next_arity(w: &World) -> u32 {
    let items = &w.agenda.items;
    match items.first() {
        Some(e) if e.at <= w.scenario().horizon_ms => {
            items.iter().take_while(|i| i.at == e.at).count() as u32
        }
        _ => 1,
    }
}

/// Answers the `Next` choice with `pick` and refuses every other choice
/// point: used only where none can occur (see `only_next_choices`).
pub(super) struct NextChooser {
    pub(super) pick: u32,
    pub(super) arity: u32,
    pub(super) asked: u32,
}

impl Chooser for NextChooser {
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32 {
        assert!(
            kind == ChoiceKind::Next && n == self.arity && self.asked == 0,
            "World::step met a choice point ({kind:?} of {n}) the explorer's fast path does not \
             expect; only_next_choices must learn about it"
        );
        self.asked += 1;
        self.pick
    }
}

/// One step of `w` that runs the `pick`-th event due now, for scenarios
/// whose only choice is `Next`, with the choices a schedule needs to replay
/// it (none when the step did not have to choose); statements run by
/// `store` when given.
pub(super) fn step_next_with(
    w: &World,
    pick: u32,
    store: &mut Option<StoreMemo>,
) -> (Vec<u32>, World) {
    let mut next = w.clone();
    let mut chooser = NextChooser {
        pick,
        arity: next_arity(w),
        asked: 0,
    };
    next.step_with(&mut chooser, store);
    let choices = if chooser.asked == 0 {
        vec![]
    } else {
        vec![pick]
    };
    (choices, next)
}
