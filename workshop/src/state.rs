//! The workshop's state, as signals, and the attendee's actions on it.
//!
//! The inputs are the built-in, its strategy, the language and the choices
//! made; the run and the next choice point are a memo of them
//! (`scheduling::turn`). Undone choices wait on a redo stack until a
//! different pick drops them.

use crate::url::{self, Problem, Setup};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::narrate::Lang;
use lousa_core::scheduling::{self, Turn};
use lousa_core::{Scenario, Strategy, builtins};

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
    /// turn's frame, or in presenter mode up to the run's last.
    pub viewed: RwSignal<Option<usize>>,
    /// Presenter mode: the board fills the screen and steps through the
    /// whole run, first come, first served past the choices made.
    pub presenting: RwSignal<bool>,
    pub problems: RwSignal<Vec<Problem>>,
    pub built: Memo<Scenario>,
    pub turn: Memo<Result<Turn, String>>,
}

impl Ws {
    pub fn new(setup: Setup, problems: Vec<Problem>) -> Ws {
        let scenario = RwSignal::new(setup.scenario);
        let edits = RwSignal::new(setup.edits);
        let strategy = RwSignal::new(setup.strategy);
        let choices = RwSignal::new(setup.choices);
        // Edits are checked before they are set (`url::scenario_of`), so
        // the built-in stands in only for a bug.
        let built = Memo::new(move |_| {
            let name = scenario.get();
            let mut s = edits
                .with(|e| url::scenario_of(name, e))
                .unwrap_or_else(|_| builtins::builtin(name).expect("a listed built-in"));
            s.strategy = strategy.get();
            s
        });
        let turn = Memo::new(move |_| {
            built.with(|s| {
                choices
                    .with(|c| scheduling::turn(s, &Schedule(c.clone())).map_err(|e| e.to_string()))
            })
        });
        let ws = Ws {
            scenario,
            edits,
            strategy,
            lang: RwSignal::new(setup.lang),
            choices,
            redo: RwSignal::new(Vec::new()),
            viewed: RwSignal::new(None),
            presenting: RwSignal::new(setup.presenting),
            problems: RwSignal::new(problems),
            built,
            turn,
        };
        if setup.presenting {
            ws.seek(0);
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
            presenting: self.presenting.get(),
        }
    }

    /// The frame on the board: the one stepped to, or the turn's.
    pub fn frame(&self) -> usize {
        let (at, last) = self.bounds(true);
        self.viewed.get().map_or(at, |f| f.min(last))
    }

    /// [`Ws::frame`], for event handlers.
    pub fn frame_untracked(&self) -> usize {
        let (at, last) = self.bounds(false);
        self.viewed.get_untracked().map_or(at, |f| f.min(last))
    }

    /// The last frame the board can step to: the run's last in presenter
    /// mode, the turn's otherwise.
    pub fn last_frame(&self) -> usize {
        self.bounds(true).1
    }

    /// [`Ws::last_frame`], for event handlers.
    pub fn last_frame_untracked(&self) -> usize {
        self.bounds(false).1
    }

    /// The turn's frame and the last frame the board can step to, read
    /// tracked or not.
    fn bounds(&self, tracked: bool) -> (usize, usize) {
        let of = |t: &Result<Turn, String>| {
            t.as_ref()
                .map_or((0, 0), |t| (t.frame, t.run.frame_count() - 1))
        };
        let ((at, last), presenting) = if tracked {
            (self.turn.with(of), self.presenting.get())
        } else {
            (
                self.turn.with_untracked(of),
                self.presenting.get_untracked(),
            )
        };
        (at, if presenting { last } else { at })
    }

    /// Puts the board at `frame`, within what [`Ws::step`] could reach.
    pub fn seek(&self, frame: usize) {
        let (at, last) = self.bounds(false);
        let to = frame.min(last);
        self.viewed.set((to != at).then_some(to));
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
        } else {
            let (at, _) = self.bounds(false);
            if self.viewed.get_untracked().is_some_and(|f| f >= at) {
                self.viewed.set(None);
            }
        }
    }

    /// How many alternatives the choice point has (0 when the run is over).
    pub fn arity(&self) -> usize {
        self.turn.with(|t| {
            t.as_ref()
                .ok()
                .and_then(|t| t.next.as_ref())
                .map_or(0, |p| p.alternatives.len())
        })
    }

    /// Takes alternative `choice` at the choice point.
    pub fn pick(&self, choice: u32) {
        if choice as usize >= self.arity() {
            return;
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
        self.viewed.set(None);
        self.problems.set(Vec::new());
    }

    pub fn undo(&self) {
        let mut choices = self.choices.get_untracked();
        if let Some(last) = choices.pop() {
            self.choices.set(choices);
            self.redo.update(|r| r.push(last));
            self.viewed.set(None);
        }
    }

    pub fn redo(&self) {
        let mut redo = self.redo.get_untracked();
        if let Some(next) = redo.pop() {
            self.redo.set(redo);
            self.choices.update(|c| c.push(next));
            self.viewed.set(None);
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
        self.viewed.set(None);
    }

    /// No choices made: the board at the first choice point.
    pub fn restart(&self) {
        self.choices.set(Vec::new());
        self.redo.set(Vec::new());
        self.viewed.set(None);
        self.problems.set(Vec::new());
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
            .with_untracked(|s| scheduling::turn(s, &Schedule::default()).map_or(0, |t| t.frame));
        self.redo.set(Vec::new());
        self.choices.set(kept.0);
        self.viewed.set(Some(first));
        self.problems.set(Vec::new());
    }

    /// Moves the board `by` frames, between the start and the turn's frame
    /// (in presenter mode, the run's last frame).
    pub fn step(&self, by: isize) {
        let now = self.frame_untracked();
        self.seek(now.saturating_add_signed(by));
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
