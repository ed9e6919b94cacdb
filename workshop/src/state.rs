//! The workshop's state, as signals, and the attendee's actions on it.
//!
//! The inputs are the built-in, its strategy, the language and the choices
//! made; the next choice point is a memo of them (`scheduling::point`, the
//! run as far as the choices fix it), the whole run another. Undone choices
//! wait on a redo stack until a different pick drops them.

use crate::url::{self, Setup};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::design::Program;
use lousa_core::fork::Fork;
use lousa_core::narrate::Lang;
use lousa_core::run::Run;
use lousa_core::scheduling::{self, ChoicePoint, Turn};
use lousa_core::{Scenario, Strategy, builtins, link, run};
use lousa_web::url::{Problems, Reason};
use lousa_web::worlds::Shared;
use std::sync::Arc;

/// Choices a finish may add: more than any built-in's run has choice points.
const FINISH_MAX: usize = 100_000;

/// The workshop's signals; `Copy`, handed to components through context.
#[derive(Clone, Copy)]
pub struct Ws {
    /// The built-in the scenario starts from, and the link's edits to it.
    pub scenario: RwSignal<&'static str>,
    pub edits: RwSignal<String>,
    pub strategy: RwSignal<Strategy>,
    pub lang: RwSignal<Lang>,
    pub choices: RwSignal<Vec<u32>>,
    /// Undone choices, the last undone at the end.
    pub redo: RwSignal<Vec<u32>>,
    /// A frame the attendee stepped to; `None`: the turn's frame. Up to the
    /// turn's frame, or in presenter mode or on the branch up to the run's
    /// last.
    pub viewed: RwSignal<Option<usize>>,
    /// Presenter mode: the board fills the screen and steps through the
    /// whole run, first come, first served past the choices made.
    pub presenting: RwSignal<bool>,
    /// Counts are the fast kind: one order of independent steps.
    pub fast: RwSignal<bool>,
    pub problems: RwSignal<Problems>,
    /// A fault injected at a frame of the run on the board.
    pub fork: RwSignal<Option<Fork>>,
    /// The board shows the branch (the run with the fault), not the run.
    pub on_branch: RwSignal<bool>,
    /// The last edit started the run over while it had an injected fault
    /// or choices made, which it dropped.
    pub dropped: RwSignal<bool>,
    pub built: Memo<Scenario>,
    /// The choice point the choices reach, with the run only as far as
    /// they fix it (`scheduling::point`): what the scheduler shows.
    pub turn: Memo<Result<Turn, String>>,
    /// The whole run, first come, first served past the choices: read only
    /// where it shows (presenter mode, the events, the branch's lines, an
    /// export), so a pick does not pay for the run's rest.
    pub whole: Memo<Option<Shared<Run>>>,
    /// With the board stepped back before the choice point: how many of
    /// the choices the steps before the frame on the board took, and the
    /// point they reach. A pick then acts there, and the later choices go
    /// to redo.
    pub rewound: Memo<Option<(usize, Turn)>>,
    /// The run with the fork's fault: the same choices up to its frame.
    pub branch: Memo<Option<Result<Shared<Run>, String>>>,
    /// The whole run the board shows: the branch on the branch, else
    /// `whole`. What the event table lists and how the run ended.
    pub board_whole: Memo<Option<Shared<Run>>>,
    /// The lesson's challenge being played, by id (`lousa_core::lesson`).
    pub challenge: RwSignal<Option<&'static str>>,
    /// The design the scenario's HTTP jobs run as, in place of the
    /// strategy's handler: the design tab's, once checked.
    pub design: RwSignal<Option<Arc<Program>>>,
    /// Playback: the board steps forward on a timer (`app::playback`), at
    /// one of `lousa_web::state::SPEEDS`, until the last frame it can show.
    pub playing: RwSignal<bool>,
    pub speed: RwSignal<usize>,
}

impl Ws {
    pub fn new(setup: Setup, problems: Problems) -> Ws {
        let scenario = RwSignal::new(setup.scenario);
        let edits = RwSignal::new(setup.edits);
        let strategy = RwSignal::new(setup.strategy);
        let design = RwSignal::new(setup.design);
        let choices = RwSignal::new(setup.choices);
        // Edits are checked before they are set (`url::scenario_of`), so
        // the built-in stands in only for a bug.
        let built = Memo::new(move |_| {
            let name = scenario.get();
            let mut s = edits
                .with(|e| url::scenario_of(name, e))
                .unwrap_or_else(|_| builtins::builtin(name).expect("a listed built-in"));
            s.strategy = strategy.get();
            s.design = design.get();
            s
        });
        let turn = Memo::new(move |_| {
            built.with(|s| {
                choices
                    .with(|c| scheduling::point(s, &Schedule(c.clone())).map_err(|e| e.to_string()))
            })
        });
        let whole = Memo::new(move |_| {
            built.with(|s| {
                choices.with(|c| {
                    lousa_core::run::run_schedule(s, &Schedule(c.clone()))
                        .ok()
                        .map(|r| Shared(Arc::new(r)))
                })
            })
        });
        let viewed = RwSignal::new(setup.frame);
        let presenting = RwSignal::new(setup.presenting);
        let fast = RwSignal::new(setup.fast);
        let on_branch = RwSignal::new(setup.fork.is_some());
        let rewound = Memo::new(move |_| {
            if on_branch.get() || presenting.get() {
                return None;
            }
            let at = viewed.get()?;
            let turn_frame = turn.with(|t| t.as_ref().ok().map(|t| t.frame))?;
            if at >= turn_frame {
                return None;
            }
            built.with(|s| {
                choices.with(|c| {
                    let k = scheduling::choices_before(s, &Schedule(c.clone()), at);
                    if k == c.len() {
                        return None;
                    }
                    let back = scheduling::point(s, &Schedule(c[..k].to_vec())).ok()?;
                    Some((k, back))
                })
            })
        });
        let fork = RwSignal::new(setup.fork);
        let branch = Memo::new(move |_| {
            let f = fork.get()?;
            Some(built.with(|s| {
                choices.with(|c| {
                    lousa_core::run::run_forked(s, &Schedule(c.clone()), f.frame, f.injection)
                        .map(|r| Shared(Arc::new(r)))
                        .map_err(|e| e.to_string())
                })
            }))
        });
        let board_whole = Memo::new(move |_| {
            let forked = on_branch.get().then(|| branch.get().and_then(Result::ok));
            forked.flatten().or_else(|| whole.get())
        });
        let ws = Ws {
            board_whole,
            dropped: RwSignal::new(false),
            challenge: RwSignal::new(setup.challenge),
            design,
            on_branch,
            fork,
            branch,
            scenario,
            edits,
            strategy,
            lang: RwSignal::new(setup.lang),
            choices,
            redo: RwSignal::new(Vec::new()),
            viewed,
            presenting,
            fast,
            problems: RwSignal::new(problems),
            built,
            turn,
            whole,
            rewound,
            playing: RwSignal::new(false),
            speed: RwSignal::new(1),
        };
        if setup.presenting && setup.frame.is_none() {
            ws.seek(0);
        }
        // A frame past the run's last is named, as the reader's page names
        // it, and the board shows where it would without one.
        if let Some(at) = setup.frame
            && at > untrack(|| ws.last_frame())
        {
            ws.problems
                .update(|p| p.report("frame", &at.to_string(), Reason::FrameOutOfRange));
            ws.viewed.set(None);
        }
        ws
    }

    /// What the URL should say now.
    pub fn setup(&self) -> Setup {
        Setup {
            scenario: self.scenario.get(),
            edits: self.edits.get(),
            strategy: self.strategy.get(),
            lang: self.lang.get(),
            choices: self.choices.get(),
            fork: self.fork.get(),
            presenting: self.presenting.get(),
            fast: self.fast.get(),
            frame: self.viewed.get(),
            challenge: self.challenge.get(),
            design: self.design.get(),
        }
    }

    /// The frames the board can show: the branch's; in presenter mode the
    /// whole run's; else up to the turn's.
    pub fn last_frame(&self) -> usize {
        if self.on_branch.get()
            && let Some(last) = self.branch.with(|b| match b {
                Some(Ok(r)) => Some(r.frame_count() - 1),
                _ => None,
            })
        {
            return last;
        }
        if self.presenting.get() {
            return self
                .whole
                .with(|r| r.as_ref().map_or(0, |r| r.frame_count() - 1));
        }
        self.turn.with(|t| t.as_ref().map_or(0, |t| t.frame))
    }

    /// The turn's frame: where the scheduler acts.
    fn turn_frame(&self) -> usize {
        self.turn.with(|t| t.as_ref().map_or(0, |t| t.frame))
    }

    /// Reads the run the board shows: the branch's; in presenter mode the
    /// whole run; else the turn's, as far as the choices fix it. The run
    /// is read where it is kept, never copied.
    pub fn with_shown<R>(&self, f: impl FnOnce(Option<&Run>) -> R) -> R {
        let mut f = Some(f);
        let mut call = |r: Option<&Run>| f.take().map(|f| f(r));
        if self.on_branch.get()
            && let Some(out) = self.branch.with(|b| match b {
                Some(Ok(r)) => call(Some(&**r)),
                _ => None,
            })
        {
            return out;
        }
        let out = if self.presenting.get() {
            self.whole.with(|r| call(r.as_deref()))
        } else {
            self.turn.with(|t| call(t.as_ref().ok().map(|t| &t.run)))
        };
        out.expect("the reader is called once")
    }

    /// Injects `fork`'s fault: the branch shows from the fault's step.
    pub fn inject(&self, fork: Fork) {
        self.fork.set(Some(fork));
        self.on_branch.set(true);
        self.viewed.set(Some(fork.frame + 1));
    }

    /// Drops the fork.
    pub fn unfork(&self) {
        self.fork.set(None);
        self.on_branch.set(false);
        self.viewed.set(None);
    }

    /// Shows the run (false) or the branch (true) on the board, at the same
    /// frame where both have it.
    pub fn show_branch(&self, branch: bool) {
        if self.fork.get_untracked().is_some() {
            self.on_branch.set(branch);
        }
    }

    /// The frame on the board: the one stepped to, or the turn's.
    pub fn frame(&self) -> usize {
        let at = self.last_frame();
        if self.on_branch.get() {
            let start = self.fork.get().map_or(0, |f| f.frame + 1).min(at);
            return self.viewed.get().map_or(start, |f| f.min(at));
        }
        self.viewed
            .get()
            .map_or_else(|| self.turn_frame().min(at), |f| f.min(at))
    }

    /// Puts the board at `frame`, within what [`Ws::step`] could reach.
    pub fn seek(&self, frame: usize) {
        let (last, turn) = untrack(|| (self.last_frame(), self.turn_frame()));
        let to = frame.min(last);
        let branch = self.on_branch.get_untracked();
        self.viewed.set((branch || to != turn).then_some(to));
    }

    /// Enters presenter mode at the run's first frame, or leaves it with
    /// the board at the same frame if the scheduler can show it, else at
    /// the choice point.
    pub fn present(&self, on: bool) {
        if on == self.presenting.get_untracked() {
            return;
        }
        self.presenting.set(on);
        if on {
            self.seek(0);
        } else if !self.on_branch.get_untracked() {
            let turn = untrack(|| self.turn_frame());
            if self.viewed.get_untracked().is_some_and(|f| f >= turn) {
                self.viewed.set(None);
            }
        }
    }

    /// `f` of the turn a pick acts on: the rewound one (see
    /// [`Ws::rewound`]) or the choices' own.
    pub fn with_acting<R>(&self, f: impl FnOnce(Option<&Turn>) -> R) -> R {
        let mut f = Some(f);
        let mut call = |t: Option<&Turn>| (f.take().expect("called once"))(t);
        if let Some(r) = self
            .rewound
            .with(|r| r.as_ref().map(|(_, t)| call(Some(t))))
        {
            return r;
        }
        self.turn.with(|t| call(t.as_ref().ok()))
    }

    /// `f` of the choice point a pick acts on; `None` when the run is over.
    pub fn with_point<R>(&self, f: impl FnOnce(Option<&ChoicePoint>) -> R) -> R {
        self.with_acting(|t| f(t.and_then(|t| t.next.as_ref())))
    }

    /// How many alternatives the choice point a pick acts on has (0 when
    /// the run is over).
    pub fn arity(&self) -> usize {
        self.with_point(|p| p.map_or(0, |p| p.arity as usize))
    }

    /// Takes the `n`th alternative the choice point describes (keys 1-9).
    pub fn pick_nth(&self, n: usize) {
        let choice = self.with_point(|p| p.and_then(|p| p.alternatives.get(n)).map(|a| a.choice));
        if let Some(choice) = choice {
            self.pick(choice);
        }
    }

    /// Takes alternative `choice` at the choice point; stepped back before
    /// it, at the rewound one, the later choices going to redo.
    pub fn pick(&self, choice: u32) {
        if choice as usize >= self.arity() {
            return;
        }
        if let Some(k) = self.rewound.with_untracked(|r| r.as_ref().map(|(k, _)| *k)) {
            let later: Vec<u32> = self
                .choices
                .with_untracked(|c| c[k..].iter().rev().copied().collect());
            self.redo.set(later);
            self.choices.update(|c| c.truncate(k));
        }
        let redo = self.redo.get_untracked();
        if redo.last() == Some(&choice) {
            self.redo.update(|r| {
                r.pop();
            });
        } else if !redo.is_empty() {
            self.redo.set(Vec::new());
        }
        self.choices.update(|c| c.push(choice));
        self.on_main();
        self.problems.set(Problems::default());
    }

    /// Back on the run, at the turn's frame: where the scheduler acts.
    fn on_main(&self) {
        self.on_branch.set(false);
        self.viewed.set(None);
    }

    pub fn undo(&self) {
        let mut choices = self.choices.get_untracked();
        if let Some(last) = choices.pop() {
            self.choices.set(choices);
            self.redo.update(|r| r.push(last));
            self.on_main();
        }
    }

    pub fn redo(&self) {
        let mut redo = self.redo.get_untracked();
        if let Some(next) = redo.pop() {
            self.redo.set(redo);
            self.choices.update(|c| c.push(next));
            self.on_main();
        }
    }

    /// First come, first served to the end: choice 0 at every choice left.
    pub fn finish(&self) {
        let mut all = self.choices.get_untracked();
        all.resize(all.len() + FINISH_MAX, 0);
        let (kept, _) = self
            .built
            .with_untracked(|s| scheduling::fit(s, &Schedule(all)));
        self.redo.set(Vec::new());
        self.choices.set(kept.0);
        self.on_main();
    }

    /// The restart button: back to the first choice point as if every
    /// choice had been undone, so redo walks the same run forward again
    /// and nothing the attendee picked is lost.
    pub fn start_over(&self) {
        let mut redo = self.redo.get_untracked();
        redo.extend(self.choices.get_untracked().into_iter().rev());
        self.restart();
        self.redo.set(redo);
    }

    /// No choices made and none to redo: the board at the first choice
    /// point, for a scenario or design the old choices may not fit.
    pub fn restart(&self) {
        self.dropped.set(false);
        self.fork.set(None);
        self.on_branch.set(false);
        self.choices.set(Vec::new());
        self.redo.set(Vec::new());
        self.viewed.set(None);
        self.problems.set(Problems::default());
    }

    /// Loads a whole schedule (an explorer's example): its choices and zeros
    /// to the end, the board at its first choice point so the attendee can
    /// step through it.
    pub fn load(&self, schedule: &[u32]) {
        let mut all = schedule.to_vec();
        all.resize(all.len() + FINISH_MAX, 0);
        let (kept, _) = self
            .built
            .with_untracked(|s| scheduling::fit(s, &Schedule(all)));
        let first = self
            .built
            .with_untracked(|s| scheduling::point(s, &Schedule::default()).map_or(0, |t| t.frame));
        self.redo.set(Vec::new());
        self.choices.set(kept.0);
        self.on_branch.set(false);
        self.viewed.set(Some(first));
        self.problems.set(Problems::default());
    }

    /// Opens a seeded run on the board (a sweep cell's representative
    /// seed): the scenario `link` makes, under `strategy` (and `design`,
    /// when the sweep ran one), with the choices
    /// the run of `seed` made, loaded as [`Ws::load`] loads them. The
    /// board replays choices, not seeds, so this is exactly that run.
    pub fn open_seeded(
        &self,
        link: &str,
        strategy: Strategy,
        design: Option<Arc<Program>>,
        seed: u64,
    ) -> Result<(), String> {
        let seeded = seeded(link, strategy, design.clone(), seed)?;
        // A fault injected into the run on the board is not this run's; the
        // design is the one the sweep ran, if any.
        self.fork.set(None);
        self.design.set(design);
        self.scenario.set(seeded.scenario);
        self.edits.set(seeded.edits);
        self.strategy.set(strategy);
        self.load(&seeded.choices);
        Ok(())
    }

    /// Moves the board `by` frames: on the run, between the start and the
    /// turn's frame (in presenter mode, the run's last); on the branch,
    /// through all of its frames.
    pub fn step(&self, by: isize) {
        let now = untrack(|| self.frame());
        self.seek(now.saturating_add_signed(by));
    }

    /// Plays on from the frame on the board, from the first when it is at
    /// the last; or pauses.
    pub fn toggle_play(&self) {
        if self.playing.get_untracked() {
            self.playing.set(false);
            return;
        }
        if untrack(|| self.frame() >= self.last_frame()) {
            self.seek(0);
        }
        self.playing.set(true);
    }

    /// One tick of playback: a step forward, stopping at the last frame.
    pub fn advance(&self) {
        let (now, last) = untrack(|| (self.frame(), self.last_frame()));
        if now >= last {
            self.playing.set(false);
        } else {
            self.seek(now + 1);
        }
    }

    /// The scenario's edits changed (the editor checked them): the choices
    /// start over, as they may not fit the new scenario.
    pub fn set_edits(&self, edits: String) {
        if self.edits.with_untracked(|e| *e != edits) {
            let had = self.fork.get_untracked().is_some()
                || self.choices.with_untracked(|c| !c.is_empty());
            self.edits.set(edits);
            self.restart();
            self.dropped.set(had);
        }
    }

    /// Another built-in or strategy starts over; another built-in drops
    /// the edits.
    pub fn choose_world(&self, scenario: &'static str, strategy: Strategy) {
        if scenario != self.scenario.get_untracked() {
            self.edits.set(String::new());
        }
        self.scenario.set(scenario);
        self.strategy.set(strategy);
        self.restart();
    }

    /// The scenario as a link (`race-2;db_latency_ms=5`), which the worker
    /// and the CLI read.
    pub fn link(&self) -> String {
        let name = self.scenario.get();
        self.edits.with(|e| {
            if e.is_empty() {
                name.to_string()
            } else {
                format!("{name};{e}")
            }
        })
    }
}

/// A seeded run as the board holds it: the built-in, the link's edits
/// (without the strategy, which the board keeps apart) and the choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeded {
    pub scenario: &'static str,
    pub edits: String,
    pub choices: Vec<u32>,
}

/// The board's setup for the run of `seed` on the scenario `link` makes,
/// under `strategy` and `design`: the choices that run made, recorded by
/// `lousa_core::run::run`.
pub fn seeded(
    link: &str,
    strategy: Strategy,
    design: Option<Arc<Program>>,
    seed: u64,
) -> Result<Seeded, String> {
    let name = link.split_once(';').map_or(link, |(name, _)| name);
    let name = crate::url::scenario_name(name).map_err(|_| format!("{name}: no such built-in"))?;
    let mut s = link::decode(link).map_err(|e| e.to_string())?;
    // The edits say what differs from the built-in but its strategy and
    // seed: the board has a signal for the one and replays choices, not
    // the other.
    let plain = builtins::builtin(name).expect("a listed built-in");
    s.strategy = plain.strategy;
    s.seed = plain.seed;
    let edits = link::encode(name, &s)
        .map(|l| {
            l.split_once(';')
                .map_or(String::new(), |(_, e)| e.to_string())
        })
        .unwrap_or_default();
    s.strategy = strategy;
    s.seed = seed;
    s.design = design;
    let r = run::run(&s).map_err(|e| e.to_string())?;
    let schedule: Schedule = r.schedule.parse().map_err(|e| format!("{e}"))?;
    Ok(Seeded {
        scenario: name,
        edits,
        choices: schedule.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::run::run_schedule;

    #[test]
    fn a_seeded_run_is_the_same_run_replayed_from_its_choices() {
        let link = "timeout-retry;clients.0.timeout_ms=2500;network.jitter_ms=500";
        let cell = seeded(link, Strategy::CheckThenAct, None, 7).unwrap();
        assert_eq!(cell.scenario, "timeout-retry");
        assert_eq!(
            cell.edits,
            "clients.0.timeout_ms=2500;network.jitter_ms=500"
        );
        // Jitter makes the seed matter: its run is not first come, first served.
        assert!(cell.choices.iter().any(|&c| c != 0), "{:?}", cell.choices);
        let mut s = link::decode(link).unwrap();
        s.seed = 7;
        let by_seed = run::run(&s).unwrap();
        // The board's scenario: the built-in and the edits, the strategy
        // from its own signal, the seed the built-in's.
        let mut board = url::scenario_of(cell.scenario, &cell.edits).unwrap();
        board.strategy = Strategy::CheckThenAct;
        assert_eq!(board.seed, builtins::builtin("timeout-retry").unwrap().seed);
        let by_choices = run_schedule(&board, &Schedule(cell.choices.clone())).unwrap();
        assert_eq!(by_choices.steps, by_seed.steps);
        assert_eq!(by_choices.summary, by_seed.summary);
        // What `Ws::load` keeps of them: every choice fits.
        let (kept, misfit) = scheduling::fit(&board, &Schedule(cell.choices.clone()));
        assert_eq!(misfit, None);
        assert_eq!(kept.0, cell.choices);
    }

    #[test]
    fn a_cells_strategy_edit_moves_to_the_boards_strategy() {
        let cell = seeded(
            "race-2;strategy=\"idempotency-key\";instances=3",
            Strategy::IdempotencyKey,
            None,
            1,
        )
        .unwrap();
        assert_eq!(cell.edits, "instances=3");
        assert_eq!(
            seeded("race-9;instances=3", Strategy::Naive, None, 1).unwrap_err(),
            "race-9: no such built-in"
        );
    }
}
