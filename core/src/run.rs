//! Running a scenario to the end: the trace, a frame per step for the view,
//! and the outcome with its invariant verdicts.

use crate::choice::{Chooser, Recording, RngChooser, Schedule, ScheduleChooser};
use crate::property::{self, Ending};
use crate::scenario::{Scenario, ScenarioError, Strategy};
use crate::trace::*;
use crate::world::{InjectError, Injection, World};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub strategy: Strategy,
    pub seed: u64,
    /// The choices the run made; replaying them gives the same run.
    pub schedule: String,
    pub initial: Frame,
    pub steps: Vec<Step>,
    pub summary: Summary,
    /// Every statement the instances sent to the store, in issue order.
    pub store_log: Vec<crate::world::StoreStatement>,
    /// Where the acquirer captured, among the store's statements: what the
    /// psql script marks. Derived while the run is recorded, so a run read
    /// back from JSON has none, and the JSON stays as it was.
    #[serde(skip)]
    pub captures: Vec<CaptureMark>,
    /// Where a fault went in, for a branch ([`run_forked`]): the exports
    /// name it so that what they make again is the branch. Like the
    /// captures, a run read back from JSON has none.
    #[serde(skip)]
    pub fork: Option<Fork>,
}

/// A branch point: the frame, and what is injected there (its text form is
/// `crate::fork`'s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fork {
    pub frame: usize,
    pub injection: Injection,
}

/// A capture placed among the store's statements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureMark {
    /// How many of `Run::store_log`'s statements were issued before it.
    pub after_statements: usize,
    pub time_ms: u64,
    pub intent: u32,
    /// The acquirer's call that captured, counted from 0.
    pub call: u32,
}

/// The captures among `events`, each after the `statements` issued so far.
pub(crate) fn captures_in(
    events: &[TraceEvent],
    statements: usize,
) -> impl Iterator<Item = CaptureMark> {
    events.iter().filter_map(move |e| match e.kind {
        EventKind::Captured { call, intent, .. } => Some(CaptureMark {
            after_statements: statements,
            time_ms: e.time_ms,
            intent,
            call,
        }),
        _ => None,
    })
}

impl Run {
    /// Frames: 0 is the start, `i` is the world after step `i - 1`.
    pub fn frame_count(&self) -> usize {
        self.steps.len() + 1
    }

    /// The picture at `frame`, clamped to the last one. O(1): every frame is
    /// kept, which for the largest allowed run is a few megabytes.
    pub fn state_at(&self, frame: usize) -> &Frame {
        match frame {
            0 => &self.initial,
            i => &self.steps[(i - 1).min(self.steps.len() - 1)].frame,
        }
    }

    /// All events in order, with the frame each belongs to.
    pub fn events(&self) -> impl Iterator<Item = (usize, &TraceEvent)> {
        self.steps
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.events.iter().map(move |e| (i + 1, e)))
    }
}

/// Runs with the scenario's seeded RNG deciding every choice.
pub fn run(scenario: &Scenario) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    let mut chooser = Recording::new(RngChooser::new(scenario.seed));
    let mut r = run_with(scenario, &mut chooser);
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

/// Replays a schedule; choices past its end are 0 (first come, first served).
pub fn run_schedule(scenario: &Scenario, schedule: &Schedule) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    let mut chooser = ScheduleChooser::new(schedule);
    let mut r = run_with(scenario, &mut chooser);
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

/// Replays a schedule that must fit the scenario: every choice within the
/// alternatives of its choice point, and no more choices than the run has.
/// What a reader types or a link carries goes through this; the lenient
/// [`run_schedule`] serves shrinking and exploring.
pub fn run_schedule_exact(scenario: &Scenario, schedule: &Schedule) -> Result<Run, String> {
    scenario.validate().map_err(|e| e.to_string())?;
    let mut chooser = ScheduleChooser::new(schedule);
    let mut r = run_with(scenario, &mut chooser);
    if let Some(misfit) = chooser.misfit() {
        return Err(misfit.to_string());
    }
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

/// Runs with any chooser, recording a frame per step. The scenario must be
/// valid.
pub fn run_with(scenario: &Scenario, chooser: &mut dyn Chooser) -> Run {
    match record(scenario, chooser, None) {
        Ok(run) => run,
        Err(_) => unreachable!("nothing was injected"),
    }
}

/// Why a run could not be forked where asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForkError {
    Scenario(ScenarioError),
    /// The run has only `frames` frames.
    PastEnd {
        frame: usize,
        frames: usize,
    },
    Inject(InjectError),
    /// The schedule does not fit the branch ([`run_forked_exact`]).
    Misfit(String),
}

impl std::fmt::Display for ForkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ForkError::Scenario(e) => e.fmt(f),
            ForkError::PastEnd { frame, frames } => write!(
                f,
                "frame {frame} is past the run's end: it has frames 0 to {}",
                frames - 1
            ),
            ForkError::Inject(e) => e.fmt(f),
            ForkError::Misfit(why) => write!(f, "the schedule does not fit the branch: {why}"),
        }
    }
}

/// The branch of a run: `schedule`'s choices up to `frame` (the world after
/// that many steps, exactly as the unforked run shows it), then `injection`
/// as a step of its own, then on to the end with the choices left (0 past
/// them). The frames before the fork are the unforked run's.
pub fn run_forked(
    scenario: &Scenario,
    schedule: &Schedule,
    frame: usize,
    injection: Injection,
) -> Result<Run, ForkError> {
    forked(scenario, schedule, frame, injection, false)
}

/// [`run_forked`] for a schedule a reader typed, which must fit the branch
/// as [`run_schedule_exact`]'s must fit the run.
pub fn run_forked_exact(
    scenario: &Scenario,
    schedule: &Schedule,
    frame: usize,
    injection: Injection,
) -> Result<Run, ForkError> {
    forked(scenario, schedule, frame, injection, true)
}

fn forked(
    scenario: &Scenario,
    schedule: &Schedule,
    frame: usize,
    injection: Injection,
    exact: bool,
) -> Result<Run, ForkError> {
    scenario.validate().map_err(ForkError::Scenario)?;
    let mut chooser = ScheduleChooser::new(schedule);
    let mut r = record(scenario, &mut chooser, Some((frame, injection)))?;
    if let Some(misfit) = chooser.misfit().filter(|_| exact) {
        return Err(ForkError::Misfit(misfit.to_string()));
    }
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

fn record(
    scenario: &Scenario,
    chooser: &mut dyn Chooser,
    mut injection: Option<(usize, Injection)>,
) -> Result<Run, ForkError> {
    let fork = injection.map(|(frame, injection)| Fork { frame, injection });
    let mut w = World::new(scenario);
    w.log_store_statements();
    let initial = w.frame();
    let mut steps = Vec::new();
    let mut store_log = Vec::new();
    let mut captures = Vec::new();
    loop {
        if let Some((_, what)) = injection.take_if(|(frame, _)| *frame == steps.len()) {
            w.inject(what).map_err(ForkError::Inject)?;
            store_log.extend(w.take_store_log());
            let events = w.take_events();
            captures.extend(captures_in(&events, store_log.len()));
            steps.push(Step {
                events,
                frame: w.frame(),
            });
        }
        if w.is_done() {
            break;
        }
        let events = w.step(chooser);
        store_log.extend(w.take_store_log());
        captures.extend(captures_in(&events, store_log.len()));
        if events.is_empty() && w.is_done() {
            break;
        }
        steps.push(Step {
            events,
            frame: w.frame(),
        });
    }
    if let Some((frame, _)) = injection {
        return Err(ForkError::PastEnd {
            frame,
            frames: steps.len() + 1,
        });
    }
    Ok(Run {
        strategy: scenario.strategy,
        seed: scenario.seed,
        schedule: String::new(),
        initial,
        steps,
        summary: summarize(&w),
        store_log,
        captures,
        fork,
    })
}

/// Runs to the end without recording frames: for explorers and swarms.
pub fn outcome_with(scenario: &Scenario, chooser: &mut dyn Chooser) -> Summary {
    let mut w = World::new(scenario);
    w.set_quiet();
    while !w.is_done() {
        w.step(chooser);
    }
    summarize(&w)
}

pub fn summarize(w: &World) -> Summary {
    let effects = crate::world::effects_per_intent(w);
    let intents: Vec<IntentOutcome> = w
        .intents
        .iter()
        .zip(&effects)
        .map(|((client, it), &n)| IntentOutcome {
            client: *client,
            order_id: it.order_id,
            amount_cents: it.amount_cents,
            key: it.key.clone(),
            captures: n,
            charged_cents: i64::from(n) * it.amount_cents,
        })
        .collect();
    let attempts: Vec<AttemptOutcome> = w
        .attempts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let i = i as u32;
            let knowledge = match (&a.answer, a.timed_out) {
                (Some((status, _)), _) => Knowledge::Answered {
                    attempt: i,
                    status: *status,
                },
                (None, true) => Knowledge::Unknown { attempt: i },
                (None, false) => Knowledge::Waiting { attempt: i },
            };
            AttemptOutcome {
                attempt: i,
                client: a.client,
                intent: a.intent,
                key: a.key.to_string(),
                instance: a.instance,
                status: a.answer.as_ref().map(|x| x.0),
                headers: a
                    .answer
                    .as_ref()
                    .and(a.headers.as_deref())
                    .map(String::from),
                body: a.answer.as_ref().map(|x| x.1.to_string()),
                knowledge,
                reached_acquirer: a.reached_acquirer,
            }
        })
        .collect();
    let double_charged_intents = intents
        .iter()
        .enumerate()
        .filter(|(_, o)| o.captures > 1)
        .map(|(i, _)| i as u32)
        .collect();
    let invariants = property::verdicts(&Ending {
        world: w,
        intents: &intents,
        attempts: &attempts,
    });
    Summary {
        end: w.end().unwrap_or(EndReason::Quiescent),
        end_ms: w.now_ms(),
        captures: effects.iter().sum(),
        charged_cents: intents.iter().map(|o| o.charged_cents).sum(),
        intents,
        double_charged_intents,
        attempts,
        blocked_ms: w.blocked_ms,
        invariants,
    }
}

// The names stay at their old paths; the properties themselves are values
// in `crate::property`.
pub const AT_MOST_ONE_CAPTURE: &str = property::AT_MOST_ONE_CAPTURE.name;
pub const EVERY_2XX_ONE_CAPTURE: &str = property::EVERY_2XX_ONE_CAPTURE.name;
pub const REPLAY_EQUALS_FIRST: &str = property::REPLAY_EQUALS_FIRST.name;
pub const CONFLICTS_NEVER_CHARGE: &str = property::CONFLICTS_NEVER_CHARGE.name;
pub const NO_KEY_STUCK: &str = property::NO_KEY_STUCK.name;
pub const NO_KEY_FORGOTTEN_UNRESOLVED: &str = property::NO_KEY_FORGOTTEN_UNRESOLVED.name;
pub const DECLINED_KEY_NEVER_CAPTURES: &str = property::DECLINED_KEY_NEVER_CAPTURES.name;

#[cfg(test)]
mod old_lease_order {
    use crate::choice::RngChooser;
    use crate::design::Serves;
    use crate::handler::Pc;
    use crate::property::{Ending, NO_KEY_FORGOTTEN_UNRESOLVED};
    use crate::scenario::Scenario;
    use crate::world::World;

    /// The run of tests/tests/lease.rs: a 2.5 s key lifetime under a 30 s
    /// lease and an 8 s acquirer, so the retry reads a live key past its
    /// lifetime.
    fn short_lifetime() -> Scenario {
        let mut s = crate::builtins::builtin("late-retry-after-ttl").expect("built-in");
        s.faults.clear();
        s.key_ttl_ms = 2_500;
        s.acquirer.latency_ms = 8_000;
        s.clients[0].retries_max = 1;
        s.clients[0].backoff_ms = 1_000;
        s
    }

    /// Runs to the end; with `old_order`, a retry about to answer 409 on
    /// an expired key takes the decision the handler took before issue
    /// #19 (lifetime before state): delete the key and claim it again.
    fn finish(old_order: bool) -> (World, Vec<String>) {
        let s = short_lifetime();
        let mut w = World::new(&s);
        let mut chooser = RngChooser::new(s.seed);
        let lease = crate::handler::program(&s, Serves::Http);
        let expire = lease
            .step("expire-key")
            .expect("the lease design expires keys");
        while !w.is_done() {
            w.step(&mut chooser);
            if !old_order {
                continue;
            }
            for inst in w.instances.iter_mut() {
                for job in inst.jobs.iter_mut() {
                    let refused = matches!(job.response, Some((409, _)));
                    if job.pc == Pc::Step(Serves::Http, lease.respond())
                        && refused
                        && job.reclaims == 0
                    {
                        job.response = None;
                        job.pc = Pc::Step(Serves::Http, expire);
                    }
                }
            }
        }
        let summary = super::summarize(&w);
        let broken = (NO_KEY_FORGOTTEN_UNRESOLVED.check)(&Ending {
            world: &w,
            intents: &summary.intents,
            attempts: &summary.attempts,
        });
        (w, broken)
    }

    #[test]
    fn forgetting_a_live_key_breaks_the_property_and_charges_twice() {
        let (old, broken) = finish(true);
        assert_eq!(old.acquirer.captures, vec![2]);
        assert_eq!(
            broken,
            vec![format!(
                "key {} deleted while its effect was unresolved",
                crate::builtins::STORY_KEY
            )]
        );
        let (new, broken) = finish(false);
        assert_eq!(new.acquirer.captures, vec![1]);
        assert!(broken.is_empty(), "{broken:?}");
    }
}
