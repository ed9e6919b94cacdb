//! Scheduling a run by hand: the workshop's attendee is the scheduler.
//!
//! A hand-made schedule grows one choice at a time. [`turn`] replays the
//! choices made so far and stops at the next choice point: the frame the
//! board shows while the attendee decides, what kind of choice it is, and
//! what each alternative would do (the events of the step it picks), so the
//! page can label the alternatives on the actors they move. [`fit`] cuts a
//! schedule from a link down to the longest prefix the scenario accepts and
//! says where the rest did not fit.

use crate::choice::{ChoiceKind, Chooser, Misfit, Schedule, ScheduleChooser};
use crate::run::{Run, run_schedule};
use crate::scenario::{Scenario, ScenarioError};
use crate::trace::{Actor, TraceEvent};
use crate::world::World;

/// Where a hand-made schedule stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The whole run the choices made lead to, first come, first served
    /// past them: its frames up to [`Turn::frame`] are fixed by the choices,
    /// the rest is one way on.
    pub run: Run,
    /// The frame the choices reach: the world before the step that asks the
    /// next choice, or the run's last frame when none is left to make.
    pub frame: usize,
    /// The next choice to make; `None` when the run is over.
    pub next: Option<ChoicePoint>,
}

/// A choice the scheduler has to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChoicePoint {
    /// Its place in the schedule (0-based): how many choices came before.
    pub position: usize,
    /// How many choices came before the step that asks this one: fewer than
    /// `position` when an earlier choice of the same step was made already.
    /// The explorer counts from step boundaries, so "from here" counts from
    /// this many choices.
    pub step_start: usize,
    pub kind: ChoiceKind,
    /// How many alternatives the point has: any choice below it is valid.
    pub arity: u32,
    /// The alternatives described, in choice order (alternative 0 is first
    /// come, first served): all of them, or past [`DESCRIBED_MAX`] (a
    /// jitter of up to a second) a spread of [`SPREAD`] from the first to
    /// the last, since no one picks among a thousand buttons and each
    /// description costs a step of the world.
    pub alternatives: Vec<Alternative>,
}

/// The most alternatives a choice point describes one by one.
pub const DESCRIBED_MAX: u32 = 16;
/// How many alternatives a larger choice point describes, evenly spread.
pub const SPREAD: u32 = 9;

/// The choices a point of `arity` alternatives describes (see
/// [`ChoicePoint::alternatives`]).
pub fn described(arity: u32) -> Vec<u32> {
    if arity <= DESCRIBED_MAX {
        return (0..arity).collect();
    }
    let last = u64::from(arity - 1);
    let steps = u64::from(SPREAD - 1);
    (0..=steps)
        .map(|i| u32::try_from(i * last / steps).expect("at most arity - 1"))
        .collect()
}

/// What one alternative of a choice point does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alternative {
    pub choice: u32,
    /// The actor the alternative moves: the one its step's first event is
    /// about (for a route, the instance it sends the request to).
    pub actor: Actor,
    /// The events of the step this alternative runs, later choices of that
    /// step first come, first served.
    pub events: Vec<TraceEvent>,
}

/// Why a schedule could not be taken up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    Scenario(ScenarioError),
    Misfit(Misfit),
}

impl std::fmt::Display for TurnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnError::Scenario(e) => e.fmt(f),
            TurnError::Misfit(m) => m.fmt(f),
        }
    }
}

/// The run `choices` lead to and the choice point they stop at. The choices
/// must fit the scenario (see [`fit`]).
pub fn turn(scenario: &Scenario, choices: &Schedule) -> Result<Turn, TurnError> {
    scenario.validate().map_err(TurnError::Scenario)?;
    let walk = walk(scenario, &choices.0);
    if let Some(misfit) = walk.misfit {
        return Err(TurnError::Misfit(misfit));
    }
    let run = run_schedule(scenario, choices).map_err(TurnError::Scenario)?;
    Ok(turn_of(&walk, &choices.0, run))
}

/// [`turn`], with the run only as far as the choices fix it: its frames up
/// to the choice point (the whole run when no choice is left). What the
/// scheduler shows costs the frames before the point, not the run's rest;
/// its `summary` is of the world at the point, so it says how the run
/// ended only when `next` is `None`.
pub fn point(scenario: &Scenario, choices: &Schedule) -> Result<Turn, TurnError> {
    scenario.validate().map_err(TurnError::Scenario)?;
    let mut recorded = Recorded::default();
    let walk = walk_recording(scenario, &choices.0, Some(&mut recorded));
    if let Some(misfit) = walk.misfit {
        return Err(TurnError::Misfit(misfit));
    }
    recorded.steps.truncate(walk.steps);
    let run = Run {
        strategy: scenario.strategy,
        seed: scenario.seed,
        schedule: walk.chooser.schedule().to_string(),
        initial: recorded
            .initial
            .expect("a recording walk keeps its first frame"),
        steps: recorded.steps,
        summary: crate::run::summarize(&walk.world),
        store_log: recorded.store_log,
        captures: recorded.captures,
        fork: None,
    };
    Ok(turn_of(&walk, &choices.0, run))
}

/// The turn at the point `walk` stopped at, with `run` (whole or cut).
fn turn_of(walk: &Walk, choices: &[u32], run: Run) -> Turn {
    let next = walk.asked.map(|(kind, arity)| ChoicePoint {
        position: choices.len(),
        step_start: walk.chooser.taken.len(),
        kind,
        arity,
        alternatives: described(arity)
            .into_iter()
            .map(|choice| alternative(walk, choices, kind, choice))
            .collect(),
    });
    let frame = match next {
        Some(_) => walk.steps,
        None => run.frame_count() - 1,
    };
    Turn { run, frame, next }
}

/// How many of `choices` the run's first `frame` steps take: where a pick
/// made with the board stepped back to `frame` branches from.
pub fn choices_before(scenario: &Scenario, choices: &Schedule, frame: usize) -> usize {
    let mut chooser = ScheduleChooser::new(choices);
    let mut w = World::new(scenario);
    for _ in 0..frame {
        if w.is_done() {
            break;
        }
        w.step(&mut chooser);
    }
    chooser.taken.len().min(choices.0.len())
}

/// A schedule cut to the longest prefix that fits `scenario`, and how the
/// rest did not fit (`None`: all of it fits).
pub fn fit(scenario: &Scenario, schedule: &Schedule) -> (Schedule, Option<Misfit>) {
    let mut chooser = ScheduleChooser::new(schedule);
    let mut w = World::new(scenario);
    while !w.is_done() && chooser.taken.len() < schedule.0.len() {
        w.step(&mut chooser);
    }
    let Some(misfit) = chooser.misfit() else {
        return (schedule.clone(), None);
    };
    let keep = match misfit {
        Misfit::PastAlternatives { position, .. } => position,
        Misfit::TooLong { points, .. } => points,
    };
    (Schedule(schedule.0[..keep].to_vec()), Some(misfit))
}

/// The world the choices reach, stopped before the step that asks a choice
/// past them.
struct Walk {
    world: World,
    /// The chooser as it stood before that step.
    chooser: ScheduleChooser,
    /// Whole steps taken.
    steps: usize,
    /// The kind and arity of the choice past the given ones; `None` when the
    /// run ended first.
    asked: Option<(ChoiceKind, u32)>,
    misfit: Option<Misfit>,
}

fn walk(scenario: &Scenario, choices: &[u32]) -> Walk {
    walk_recording(scenario, choices, None)
}

/// The frames and store traffic of a walk's first pass, past the point by
/// the step that asks the choice (which [`point`] drops).
#[derive(Default)]
struct Recorded {
    initial: Option<crate::trace::Frame>,
    steps: Vec<crate::trace::Step>,
    store_log: Vec<crate::world::StoreStatement>,
    captures: Vec<crate::run::CaptureMark>,
}

/// [`walk`], recording the steps it takes into `record` when given.
fn walk_recording(scenario: &Scenario, choices: &[u32], mut record: Option<&mut Recorded>) -> Walk {
    let schedule = Schedule(choices.to_vec());
    // Which step asks past the given choices: found without keeping the
    // world before each step, since a world costs more to copy than to
    // step; the second pass stops before it.
    let mut world = World::new(scenario);
    if let Some(r) = record.as_deref_mut() {
        world.log_store_statements();
        r.initial = Some(world.frame());
    }
    let mut chooser = ScheduleChooser::new(&schedule);
    let mut steps = 0;
    while !world.is_done() {
        let events = world.step(&mut chooser);
        if chooser.taken.len() > choices.len() {
            let (kind, arity, _) = chooser.taken[choices.len()];
            let misfit = chooser.misfit();
            let mut world = World::new(scenario);
            let mut chooser = ScheduleChooser::new(&schedule);
            for _ in 0..steps {
                world.step(&mut chooser);
            }
            return Walk {
                world,
                misfit,
                chooser,
                steps,
                asked: Some((kind, arity)),
            };
        }
        if let Some(r) = record.as_deref_mut() {
            r.store_log.extend(world.take_store_log());
            r.captures
                .extend(crate::run::captures_in(&events, r.store_log.len()));
            // As `run::record`: a last step that did nothing is no frame.
            if !(events.is_empty() && world.is_done()) {
                r.steps.push(crate::trace::Step {
                    events,
                    frame: world.frame(),
                });
            }
        }
        steps += 1;
    }
    Walk {
        misfit: chooser.misfit(),
        world,
        chooser,
        steps,
        asked: None,
    }
}

/// Runs the step that asks the choice with `choice` picked.
fn alternative(walk: &Walk, choices: &[u32], kind: ChoiceKind, choice: u32) -> Alternative {
    let mut script = choices.to_vec();
    script.push(choice);
    let mut chooser = Picked {
        inner: ScheduleChooser::new(&Schedule(script)),
    };
    chooser.inner.taken = walk.chooser.taken.clone();
    let mut world = walk.world.clone();
    let events = world.step(&mut chooser);
    let actor = match kind {
        ChoiceKind::Route => routed_to(&events).unwrap_or(Actor::LoadBalancer),
        _ => events.first().map_or(Actor::Network, |e| e.actor),
    };
    Alternative {
        choice,
        actor,
        events,
    }
}

/// The instance the first routing event of a step names.
fn routed_to(events: &[TraceEvent]) -> Option<Actor> {
    events.iter().find_map(|e| match e.kind {
        crate::trace::EventKind::Routed { instance, .. } => Some(Actor::Instance(instance)),
        _ => None,
    })
}

/// A [`ScheduleChooser`] under another name, so the borrow of the walk's
/// chooser stays plain.
struct Picked {
    inner: ScheduleChooser,
}

impl Chooser for Picked {
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32 {
        self.inner.choose(kind, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::builtin;
    use crate::scenario::Strategy;

    fn race2(strategy: Strategy) -> Scenario {
        let mut s = builtin("race-2").expect("a built-in");
        s.strategy = strategy;
        s
    }

    #[test]
    fn the_empty_schedule_stops_at_the_first_choice_point() {
        let s = race2(Strategy::CheckThenAct);
        let t = turn(&s, &Schedule::default()).expect("fits");
        let next = t.next.expect("race-2 has choices");
        assert_eq!(next.position, 0);
        assert!(next.alternatives.len() >= 2, "{next:?}");
        assert!(t.frame < t.run.frame_count() - 1);
        // Every alternative runs a step, and they differ.
        let firsts: Vec<_> = next.alternatives.iter().map(|a| a.events.clone()).collect();
        assert!(firsts.iter().all(|e| !e.is_empty()));
        assert_ne!(firsts[0], firsts[1]);
    }

    #[test]
    fn taking_alternative_zero_everywhere_is_the_first_come_first_served_run() {
        let s = race2(Strategy::CheckThenAct);
        let whole = run_schedule(&s, &Schedule::default()).expect("valid");
        let mut choices = Schedule::default();
        let mut frames = vec![];
        loop {
            let t = turn(&s, &choices).expect("fits");
            assert_eq!(
                t.run.summary, whole.summary,
                "the run past the choices is FCFS"
            );
            frames.push(t.frame);
            match t.next {
                Some(point) => {
                    assert_eq!(point.position, choices.0.len());
                    choices.0.push(0);
                }
                None => break,
            }
        }
        assert!(frames.windows(2).all(|w| w[0] <= w[1]), "{frames:?}");
        assert_eq!(*frames.last().unwrap(), whole.frame_count() - 1);
    }

    #[test]
    fn an_alternative_shows_the_step_the_next_turn_takes() {
        let s = race2(Strategy::CheckThenAct);
        let t = turn(&s, &Schedule::default()).expect("fits");
        let point = t.next.expect("a choice");
        let pick = &point.alternatives[1];
        let after = turn(&s, &Schedule(vec![1])).expect("fits");
        // The step alternative 1 runs is the run's next step from the frame.
        assert_eq!(after.run.steps[t.frame].events, pick.events);
    }

    #[test]
    fn fit_keeps_the_longest_prefix_and_names_the_position() {
        let s = race2(Strategy::CheckThenAct);
        let (kept, misfit) = fit(&s, &Schedule(vec![1, 0, 99]));
        assert_eq!(kept, Schedule(vec![1, 0]));
        assert!(matches!(
            misfit,
            Some(Misfit::PastAlternatives {
                position: 2,
                choice: 99,
                ..
            })
        ));
        let (kept, misfit) = fit(&s, &Schedule(vec![0; 10_000]));
        let Some(Misfit::TooLong {
            given: 10_000,
            points,
        }) = misfit
        else {
            panic!("{misfit:?}");
        };
        assert_eq!(kept.0.len(), points);
        assert!(turn(&s, &kept).expect("fits").next.is_none());
        assert_eq!(fit(&s, &Schedule(vec![1])), (Schedule(vec![1]), None));
    }

    #[test]
    fn a_point_is_the_turn_with_the_run_cut_at_the_choice_point() {
        for name in [
            "race-2",
            "timeout-retry",
            "queue-redelivery",
            "unknown-reconciled",
        ] {
            let s = builtin(name).expect("a built-in");
            let mut choices = Schedule::default();
            loop {
                let whole = turn(&s, &choices).expect("fits");
                let cut = point(&s, &choices).expect("fits");
                assert_eq!(cut.frame, whole.frame, "{name} {choices}");
                assert_eq!(cut.next, whole.next, "{name} {choices}");
                let shown = 0..=whole.frame;
                for f in shown {
                    assert_eq!(cut.run.state_at(f), whole.run.state_at(f), "{name} {f}");
                }
                match whole.next {
                    Some(_) => {
                        assert_eq!(cut.run.frame_count(), whole.frame + 1, "{name}");
                        choices
                            .0
                            .push(choices.0.len() as u32 % 2 % whole.next.unwrap().arity);
                    }
                    None => {
                        // No choice left: the point's run is the whole run.
                        assert_eq!(cut.run, whole.run, "{name} {choices}");
                        break;
                    }
                }
            }
        }
        assert!(matches!(
            point(&race2(Strategy::CheckThenAct), &Schedule(vec![99])),
            Err(TurnError::Misfit(_))
        ));
    }

    #[test]
    fn the_choices_before_a_frame_reach_a_point_at_or_after_it() {
        let s = race2(Strategy::CheckThenAct);
        let (all, _) = fit(&s, &Schedule(vec![1; 100]));
        let end = turn(&s, &all).expect("fits");
        assert_eq!(choices_before(&s, &all, 0), 0);
        assert_eq!(choices_before(&s, &all, end.frame), all.0.len());
        for frame in 0..=end.frame {
            let k = choices_before(&s, &all, frame);
            let back = point(&s, &Schedule(all.0[..k].to_vec())).expect("fits");
            assert!(
                back.frame >= frame,
                "{frame}: {k} choices reach {}",
                back.frame
            );
            // The frames up to it are the run's own.
            assert_eq!(back.run.state_at(frame), end.run.state_at(frame), "{frame}");
        }
    }

    #[test]
    fn a_wide_jitter_describes_a_spread_from_first_to_last() {
        let mut s = builtin("timeout-retry").expect("a built-in");
        s.network.jitter_ms = crate::scenario::limits::JITTER_MS_MAX;
        let t = turn(&s, &Schedule::default()).expect("fits");
        let point = t.next.expect("a jitter to choose");
        assert_eq!(point.kind, ChoiceKind::Jitter);
        assert_eq!(point.arity, 1_001);
        let choices: Vec<u32> = point.alternatives.iter().map(|a| a.choice).collect();
        assert_eq!(choices, [0, 125, 250, 375, 500, 625, 750, 875, 1_000]);
        assert!(point.alternatives.iter().all(|a| !a.events.is_empty()));
        // A choice between the described ones is as valid as they are.
        assert!(turn(&s, &Schedule(vec![333])).is_ok());
        assert_eq!(described(3), [0, 1, 2]);
        assert_eq!(described(DESCRIBED_MAX).len(), DESCRIBED_MAX as usize);
    }

    #[test]
    fn a_schedule_that_does_not_fit_is_refused_by_turn() {
        let s = race2(Strategy::CheckThenAct);
        assert!(matches!(
            turn(&s, &Schedule(vec![99])),
            Err(TurnError::Misfit(Misfit::PastAlternatives {
                position: 0,
                ..
            }))
        ));
    }
}
