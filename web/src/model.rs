//! The page's state as signals, what is derived from it, and the reader's
//! actions on it.
//!
//! One [`Moment`] signal (scenario, designs, what the two lines compare,
//! seed, frame), the language and "ask first" are the state a URL holds;
//! playback, the help, the questions' answers and the measured widths are
//! the rest. Runs, the twin, the drawn board and the twin's axis are
//! memos of exactly the inputs they depend on, so a seek recomputes none
//! of them, and every picture is read from (run, frame): the board at a
//! frame is the same however the reader got there. Actions change signals
//! and write the URL; they never touch the page's elements.

use crate::board_aspect;
use crate::dom;
use crate::drawn::Drawn;
use crate::quiz::Quiz;
use crate::state::{
    self, Line, Lines, Moment, SPEEDS, StepTarget, check_frame, merge_query, parse_query,
    step_target, to_query,
};
use crate::twin::TwinView;
use crate::url::Problems;
use crate::words::{self, LedgerView, SqlView};
use crate::worlds::{self, Shared};
use leptos::prelude::*;
use lousa_core::Strategy;
use lousa_core::narrate::Lang;
use lousa_core::predict;
use lousa_core::run::Run;
use lousa_core::story;
use lousa_core::view::{self, Cursor};
use std::sync::Arc;

/// How a change of moment reaches the browser's history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nav {
    /// A step the reader chose: a new history entry, so Back returns here.
    Push,
    /// Scrolling or playing: the current entry follows along.
    Replace,
    /// Restoring from history or the first paint: the URL already says it.
    Keep,
}

/// The sizes the text boxes get for one world (see `fit`); 0 is unset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fit {
    pub sql: i32,
    pub narration: i32,
    pub clock: i32,
    pub counter: i32,
}

/// The (scenario, design, seed) of one world.
pub type WorldKey = (&'static str, Strategy, u64);

/// Below this window width the stylesheet puts the board above the text
/// (`web/style.css`, `max-width: 899px`).
pub const STACKED_BELOW_PX: f64 = 900.0;

/// The page's state, shared with every component through context.
#[derive(Clone, Copy)]
pub struct Lousa {
    pub moment: RwSignal<Moment>,
    pub lang: RwSignal<Lang>,
    pub playing: RwSignal<bool>,
    /// Index into [`SPEEDS`].
    pub speed: RwSignal<usize>,
    pub problems: RwSignal<Problems>,
    pub help_open: RwSignal<bool>,
    /// Whether the board asks before the decisive steps (`predict=1`).
    pub predict: RwSignal<bool>,
    /// The questions of each world met, with their answers.
    pub quizzes: RwSignal<Quizzes>,
    /// The widths, in CSS pixels, the board and the twin drawing have.
    pub board_width: RwSignal<i32>,
    pub twin_width: RwSignal<i32>,
    /// The board's height where the stylesheet fixes it (above the text on
    /// a phone), else 0: the board is then drawn at the width that makes
    /// its text largest in that box (see `board_aspect`).
    pub board_height: RwSignal<i32>,
    /// Whether the board sits above the text (a window under
    /// [`STACKED_BELOW_PX`]), where the SQL panel shows a statement's short
    /// form in three lines.
    pub stacked: RwSignal<bool>,
    pub fit: RwSignal<Fit>,
    /// The scenario of paragraphs and links that name none.
    pub page_scenario: &'static str,
    // Few memos, of few types: each type of memo is compiled on its own
    // into the page's wasm.
    pub world: Memo<WorldKey>,
    pub run: Memo<Shared<Run>>,
    /// The frame on screen: the moment's, within the run.
    pub frame: Memo<usize>,
    /// The runs on the two lines of the twin timeline, and the seed.
    pub pair: Memo<PairKey>,
    /// Whether each line (top, bottom) draws the lousa's own world.
    pub on_board: Memo<[bool; 2]>,
    /// The questions of the world on screen, while they are on.
    pub quiz: Memo<Option<Quiz>>,
    /// The twin timeline and its axis at its width.
    pub twin: Memo<Option<Shared<TwinView>>>,
    pub drawn: Memo<Shared<Drawn>>,
    /// The two lines' cursor when a press or drag took it past the end of
    /// the lousa's run: the lousa stays at its last frame while the other
    /// line goes on to its own end. Any other move clears it.
    pub beyond: RwSignal<Option<Cursor>>,
    /// The texts that follow the frame: the SQL panel and the ledgers.
    pub at: Memo<AtFrame>,
    runs: StoredValue<Runs>,
}

/// The runs on the twin timeline's top and bottom lines, and their seed.
pub type PairKey = ([Line; 2], u64);

/// The questions of each world met, so that answers stay with their world
/// while the article visits others; `at` is the one used last.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Quizzes {
    list: Vec<(WorldKey, Quiz)>,
    at: usize,
}

impl Quizzes {
    /// The questions of world `key` (whose run is `run`), made on first
    /// use. The quiz of the world used before closes; its answers stay.
    fn of(&mut self, key: WorldKey, run: &Run) -> &mut Quiz {
        let at = match self.list.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.list.push((key, Quiz::new(predict::prompts(run))));
                self.list.len() - 1
            }
        };
        if at != self.at {
            self.close();
            self.at = at;
        }
        &mut self.list[at].1
    }

    /// Closes the question of the quiz used last, if one is asked.
    fn close(&mut self) {
        if let Some((_, quiz)) = self.list.get_mut(self.at) {
            quiz.close();
        }
    }

    /// The quiz used last, if it is world `key`'s.
    fn shown(&self, key: WorldKey) -> Option<&Quiz> {
        self.list
            .get(self.at)
            .filter(|(k, _)| *k == key)
            .map(|(_, q)| q)
    }
}

/// The texts that follow the frame on screen, besides the board's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AtFrame {
    pub sql: SqlView,
    /// The ledgers of the twin's top and bottom lines, when the twin runs.
    pub ledgers: Option<[LedgerView; 2]>,
}

/// The run of a world, or of the default world if that one cannot run
/// (the built-ins all can: a native test runs every pair).
fn compute_run((scenario, strategy, seed): WorldKey) -> Shared<Run> {
    match worlds::run(scenario, strategy, seed)
        .or_else(|_| worlds::run(state::DEFAULT_SCENARIO, state::DEFAULT_LEFT, 1))
    {
        Ok(run) => run,
        // Display, not Debug: an `expect` would pull string escaping into the page.
        Err(message) => panic!("the default world does not run: {message}"),
    }
}

/// The runs of the last few worlds shown or asked about. An action often
/// needs the run of the world it moves to (to check a frame, find a beat)
/// before the page shows it, and an article switches between a handful of
/// worlds as it scrolls.
#[derive(Default)]
pub struct Runs(Vec<(WorldKey, Shared<Run>)>);

impl Runs {
    const KEPT: usize = 6;

    fn get(&mut self, key: WorldKey) -> Shared<Run> {
        if let Some(at) = self.0.iter().position(|(k, _)| *k == key) {
            let hit = self.0.remove(at);
            let run = hit.1.clone();
            self.0.push(hit);
            return run;
        }
        let run = compute_run(key);
        if self.0.len() == Self::KEPT {
            self.0.remove(0);
        }
        self.0.push((key, run.clone()));
        run
    }
}

/// Sets `signal` to `value` only when it differs: a write of the same value
/// would still wake everything that reads the signal.
fn put<T: PartialEq + Send + Sync + 'static>(signal: RwSignal<T>, value: T) {
    if signal.with_untracked(|v| *v != value) {
        signal.set(value);
    }
}

fn key_of(m: &Moment) -> WorldKey {
    (m.scenario, m.strategy, m.seed)
}

impl Lousa {
    /// The state a URL describes, with its problems listed. Must be called
    /// inside the reactive owner that lives as long as the page.
    pub fn new(query: &str, page_scenario: &'static str) -> Lousa {
        let mut parsed = parse_query(query);
        if !parsed.scenario_named {
            parsed.moment.scenario = page_scenario;
        }
        let runs = StoredValue::new(Runs::default());
        let frames = runs
            .try_update_value(|r| r.get(key_of(&parsed.moment)))
            .map_or(1, |run| run.frame_count());
        if let Some(problem) = check_frame(&mut parsed.moment, frames) {
            parsed.problems.push(problem);
        }
        let moment = RwSignal::new(parsed.moment);
        let lang = RwSignal::new(parsed.lang.unwrap_or_default());
        let board_width = RwSignal::new(560);
        let board_height = RwSignal::new(0);
        let twin_width = RwSignal::new(560);
        let stacked = RwSignal::new(false);
        let world = Memo::new(move |_| moment.with(key_of));
        let run = Memo::new(move |_| {
            let key = world.get();
            runs.try_update_value(|r| r.get(key))
                .unwrap_or_else(|| compute_run(key))
        });
        let frame = Memo::new(move |_| {
            let last = run.with(|r| r.frame_count() - 1);
            moment.with(|m| m.frame).min(last)
        });
        let pair = Memo::new(move |_| moment.with(|m| (m.lines(), m.seed)));
        let on_board = Memo::new(move |_| moment.with(Moment::on_board));
        let twin = Memo::new(move |_| {
            let ([top, bottom], seed) = pair.get();
            let width = twin_width.get();
            worlds::twin(top, bottom, seed)
                .ok()
                .map(|twin| Shared(Arc::new(TwinView::new(twin, width))))
        });
        let predict_on = RwSignal::new(parsed.predict);
        let quizzes = RwSignal::new(Quizzes::default());
        let quiz = Memo::new(move |_| {
            if !predict_on.get() {
                return None;
            }
            let key = world.get();
            quizzes.with(|q| q.shown(key).cloned())
        });
        let drawn = Memo::new(move |_| {
            let (width, height, lang) = (board_width.get(), board_height.get(), lang.get());
            run.with(|r| {
                let width = board_aspect::drawing_width(r, width, height, lang);
                Shared(Arc::new(Drawn::new(r, width, lang)))
            })
        });
        let beyond = RwSignal::new(None);
        let at = Memo::new(move |_| {
            let (frame, on_board, lang) = (frame.get(), on_board.get(), lang.get());
            let short = stacked.get();
            let past = beyond.get();
            run.with(|r| {
                let t = words::sql_texts(r, frame, lang, short);
                let cursor = past.unwrap_or_else(|| view::cursor_at(r, frame));
                let ledgers = twin.with(|t| {
                    t.as_ref().map(|t| {
                        [(true, on_board[0]), (false, on_board[1])].map(|(top, shown)| {
                            words::ledger_view(&t.twin, top, frame, cursor, shown, lang)
                        })
                    })
                });
                AtFrame {
                    sql: t.into_view(),
                    ledgers,
                }
            })
        });
        Lousa {
            moment,
            lang,
            playing: RwSignal::new(false),
            speed: RwSignal::new(1),
            problems: RwSignal::new(parsed.problems),
            help_open: RwSignal::new(false),
            predict: predict_on,
            quizzes,
            board_width,
            twin_width,
            board_height,
            stacked,
            fit: RwSignal::new(Fit::default()),
            page_scenario,
            world,
            run,
            frame,
            pair,
            on_board,
            quiz,
            twin,
            drawn,
            beyond,
            at,
            runs,
        }
    }

    /// The run of a world, from the runs kept when it is one of them.
    pub fn world_run(&self, key: WorldKey) -> Shared<Run> {
        self.runs
            .try_update_value(|r| r.get(key))
            .unwrap_or_else(|| compute_run(key))
    }

    /// The ledger of the top line (or the bottom one), when the twin runs.
    pub fn ledger<R: Default>(&self, top: bool, read: impl FnOnce(&LedgerView) -> R) -> R {
        self.at.with(|at| {
            at.ledgers
                .as_ref()
                .map_or_else(R::default, |l| read(&l[usize::from(!top)]))
        })
    }

    pub fn last_frame(&self) -> usize {
        self.run.with_untracked(|r| r.frame_count() - 1)
    }

    /// Runs `change` on the questions of world `key`, writing the signal
    /// only when they changed.
    fn with_quiz<R>(&self, key: WorldKey, change: impl FnOnce(&mut Quiz) -> R) -> R {
        let run = self.world_run(key);
        let mut quizzes = self.quizzes.get_untracked();
        let out = change(quizzes.of(key, &run));
        put(self.quizzes, quizzes);
        out
    }

    /// Closes the question asked last, keeping every answer.
    fn close_quiz(&self) {
        let mut quizzes = self.quizzes.get_untracked();
        quizzes.close();
        put(self.quizzes, quizzes);
    }

    /// Whether a question waits for the reader's answer.
    pub fn asking(&self) -> bool {
        self.quiz
            .with_untracked(|q| q.as_ref().is_some_and(|q| q.asking().is_some()))
    }

    /// Shows `next`, recording it in the URL as `nav` says.
    pub fn go(&self, next: Moment, nav: Nav) {
        put(self.beyond, None);
        if nav == Nav::Push {
            put(self.problems, Problems::default());
        }
        if nav != Nav::Keep {
            self.write_url(&next, nav == Nav::Push);
        }
        put(self.moment, next);
    }

    fn write_url(&self, moment: &Moment, push: bool) {
        let query = to_query(
            moment,
            self.lang.get_untracked(),
            self.predict.get_untracked(),
        );
        dom::write_url(&merge_query(&dom::location_query(), &query), push);
    }

    pub fn seek(&self, frame: usize, nav: Nav) {
        let frame = frame.min(self.last_frame());
        let current = self.moment.with_untracked(|m| m.frame);
        if frame != current {
            let next = Moment {
                frame,
                ..self.moment.get_untracked()
            };
            self.go(next, nav);
        }
    }

    /// One step back (`-1`) or forward (`1`): a deliberate move. With the
    /// questions on, a step forward may stop at a question instead.
    pub fn step(&self, delta: isize) {
        put(self.playing, false);
        let (now, last) = (self.frame.get_untracked(), self.last_frame());
        let mut frame = now.saturating_add_signed(delta);
        if self.predict.get_untracked() {
            frame = self.with_quiz(self.world.get_untracked(), |q| {
                if delta > 0 {
                    q.forward(now, last)
                } else {
                    q.jump(now, frame)
                }
            });
        }
        self.seek(frame, Nav::Push);
    }

    pub fn toggle_play(&self) {
        if self.playing.get_untracked() {
            put(self.playing, false);
        } else {
            if self.frame.get_untracked() >= self.last_frame() {
                self.seek(0, Nav::Push);
            }
            self.playing.set(true);
        }
    }

    /// One tick of playback. It stops at the last step, and skips ticks
    /// while the tab is hidden rather than spend time nobody watches.
    pub fn advance(&self) {
        if dom::page_hidden() {
            return;
        }
        let (now, last) = (self.frame.get_untracked(), self.last_frame());
        if now >= last {
            put(self.playing, false);
        } else if self.predict.get_untracked() {
            let to = self.with_quiz(self.world.get_untracked(), |q| q.forward(now, last));
            // A question pauses playback until it is answered.
            put(self.playing, !self.asking());
            self.seek(to, Nav::Replace);
        } else {
            self.seek(now + 1, Nav::Replace);
        }
    }

    pub fn set_speed(&self, index: usize) {
        self.speed.set(index.min(SPEEDS.len() - 1));
    }

    pub fn choose_scenario(&self, name: &str) {
        let Some(scenario) = lousa_core::builtins::static_name(name) else {
            return;
        };
        put(self.playing, false);
        let next = Moment {
            scenario,
            frame: 0,
            ..self.moment.get_untracked()
        };
        self.go(next, Nav::Push);
    }

    /// Another design for the lousa, kept at the same place on the time axis.
    pub fn choose_strategy(&self, strategy: Strategy) {
        let cursor = self
            .run
            .with_untracked(|r| view::cursor_at(r, self.frame.get_untracked()));
        let next = Moment {
            strategy,
            ..self.moment.get_untracked()
        };
        let frame = view::frame_at_cursor(&self.world_run(key_of(&next)), cursor);
        self.go(Moment { frame, ..next }, Nav::Push);
    }

    /// A design for one line: the lines then compare designs, even if they
    /// showed a pair.
    pub fn choose_line(&self, top: bool, strategy: Strategy) {
        let mut next = Moment {
            lines: Lines::Designs,
            ..self.moment.get_untracked()
        };
        if top {
            next.left = strategy;
        } else {
            next.right = strategy;
        }
        self.go(next, Nav::Push);
    }

    pub fn toggle_lang(&self) {
        self.lang.update(|lang| {
            *lang = match lang {
                Lang::Pt => Lang::En,
                Lang::En => Lang::Pt,
            }
        });
        self.write_url(&self.moment.get_untracked(), false);
    }

    /// Turns the questions on or off, writing the setting into the URL's
    /// entry (a setting is not a step to go back to). Off, the question on
    /// screen closes and the board stays where it is.
    pub fn toggle_predict(&self) {
        self.predict.update(|on| *on = !*on);
        self.close_quiz();
        self.write_url(&self.moment.get_untracked(), false);
    }

    /// Answers the question on screen with `choice`: the board goes on.
    /// False when nothing is asked or there is no such choice.
    pub fn answer(&self, choice: usize) -> bool {
        if !self.asking() {
            return false;
        }
        let Some(to) = self.with_quiz(self.world.get_untracked(), |q| q.answer(choice)) else {
            return false;
        };
        put(self.playing, false);
        self.seek(to, Nav::Push);
        true
    }

    /// Back to what the URL says (the browser's Back and Forward).
    pub fn restore(&self, query: &str) {
        let mut parsed = parse_query(query);
        if !parsed.scenario_named {
            parsed.moment.scenario = self.page_scenario;
        }
        let frames = self.world_run(key_of(&parsed.moment)).frame_count();
        if let Some(problem) = check_frame(&mut parsed.moment, frames) {
            parsed.problems.push(problem);
        }
        put(self.playing, false);
        put(self.problems, parsed.problems);
        put(self.lang, parsed.lang.unwrap_or_default());
        put(self.predict, parsed.predict);
        self.close_quiz();
        self.go(parsed.moment, Nav::Keep);
    }

    /// The world and beat a step paragraph names, given its attributes, and
    /// the attributes that named nothing known.
    pub fn target_of(
        &self,
        beat: &str,
        scenario: Option<&str>,
        strategy: Option<&str>,
        lines: Option<&str>,
    ) -> (StepTarget, Vec<&'static str>) {
        let left = self.moment.with_untracked(|m| m.left);
        step_target(beat, scenario, strategy, lines, self.page_scenario, left)
    }

    /// Moves the lousa to a step paragraph's target. The target comes from
    /// the paragraph's attributes and the page's settings alone, so it is
    /// the same however the reader reached the paragraph.
    pub fn show_target(&self, target: &StepTarget, nav: Nav) {
        let mut next = Moment {
            scenario: target.scenario,
            strategy: target.strategy,
            lines: target.lines,
            frame: 0,
            ..self.moment.get_untracked()
        };
        next.frame = story::beat_frame_or_before(&self.world_run(key_of(&next)), &target.beat);
        if self.predict.get_untracked() {
            // A world met anew is asked from its start.
            let now = self.moment.get_untracked();
            let same = (next.scenario, next.strategy) == (now.scenario, now.strategy);
            let from = if same { now.frame } else { 0 };
            let aim = next.frame;
            next.frame = self.with_quiz(key_of(&next), |q| q.jump(from, aim));
        }
        put(self.playing, false);
        if next != self.moment.get_untracked() {
            self.go(next, nav);
        }
    }

    /// Moves the cursor to a stop of the two lines' axis.
    pub fn seek_twin(&self, cursor: Cursor, nav: Nav) {
        let mut frame = self
            .run
            .with_untracked(|r| view::frame_at_cursor(r, cursor));
        if self.predict.get_untracked() {
            let now = self.frame.get_untracked();
            frame = self.with_quiz(self.world.get_untracked(), |q| q.jump(now, frame));
        }
        put(self.playing, false);
        self.seek(frame, nav);
        let past = self.run.with_untracked(|r| {
            (frame + 1 == r.frame_count() && cursor > view::cursor_at(r, frame)).then_some(cursor)
        });
        put(self.beyond, past);
    }

    /// Where the two lines' cursor stands: past the lousa's run, or at its
    /// frame.
    pub fn cursor(&self) -> Cursor {
        self.beyond
            .get()
            .unwrap_or_else(|| self.run.with(|r| view::cursor_at(r, self.frame.get())))
    }
}
