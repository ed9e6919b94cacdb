//! The page's state, the reader's actions on it, and the render step that
//! brings the DOM up to date.
//!
//! One [`Moment`] (plus the language and playback settings) is the whole
//! state. Every action changes it and calls [`App::render`], which derives
//! runs, pictures, narration and ledgers from it, skips the parts whose
//! inputs did not change, and writes the rest through `dom::Live`, which
//! touches only the attributes and text that differ from the page. Nothing
//! is patched from events: every picture is computed whole from the moment,
//! so the board at a frame is the same however the reader got there.
//!
//! Why no UI framework: Leptos was tried first, and its reactive runtime and
//! view code put the page at 202 kB gzip against a 120 kB budget, with the
//! simulation core alone near 80 kB. A render step over a dozen keyed parts
//! needs none of that machinery.

use crate::board;
use crate::dom::{self, Refs};
use crate::markup::el;
use crate::quiz::{Quiz, quiz_markup};
use crate::skeleton;
use crate::state::{
    self, Line, Lines, Moment, Problem, SPEEDS, STEP_MS_AT_1X, StepTarget, check_frame,
    merge_query, parse_query, step_target, to_query,
};
use crate::text::{strategy_gloss, ui};
use crate::twin::{self, Axis};
use crate::words;
use crate::worlds::{self, Shared};
use lousa_core::Strategy;
use lousa_core::narrate::{self, Lang};
use lousa_core::predict;
use lousa_core::run::Run;
use lousa_core::story::{self, Twin};
use lousa_core::trace::SqlOutcome;
use lousa_core::view;
use std::sync::Arc;
use web_sys::Element;

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

/// What was last written for each part of the page, so [`App::render`]
/// rewrites a part only when its inputs changed.
#[derive(Default)]
struct Shown {
    lang: Option<Lang>,
    /// The world, frame and widths: what everything that follows the frame
    /// depends on.
    step: Option<(usize, usize, i32, i32)>,
    event_rows: Option<usize>,
    transport: Option<(bool, usize, usize)>,
    settings: Option<(&'static str, Strategy, u64)>,
    /// The two lines' runs and which of them the lousa draws.
    lines: Option<([Line; 2], [bool; 2])>,
    problems: Option<(Vec<Problem>, usize)>,
    help: Option<bool>,
    twin_still: Option<(usize, i32)>,
    /// The world and width the board's layout was measured for, and that
    /// layout. (The language is implied: a new one resets all of `Shown`.)
    board_box: Option<(usize, i32)>,
    layout: board::Layout,
    /// Every frame of that world drawn for that width, made when the world
    /// opens: a seek then only compares two drawings and writes what
    /// differs.
    frames: Vec<board::Board>,
    /// The world the heading names.
    heading: Option<usize>,
    /// The world and width the text boxes were fitted for.
    text_boxes: Option<(usize, i32)>,
    /// The question panel's markup, and whether the questions are on.
    quiz: Option<String>,
    predict: Option<bool>,
}

/// The sizes `App::fit_text_boxes` measured, kept for each world, width
/// and language: measuring takes milliseconds, and a reader scrolling
/// back and forth between two designs switches worlds often.
type FitKey = (&'static str, Strategy, u64, i32, Lang);

#[derive(Clone, Copy)]
struct Fit {
    sql: i32,
    narration: i32,
    clock: i32,
    counter: i32,
}

/// True, and remembers `key`, when `key` differs from what `slot` holds.
fn fresh<K: PartialEq>(slot: &mut Option<K>, key: K) -> bool {
    if slot.as_ref() == Some(&key) {
        return false;
    }
    *slot = Some(key);
    true
}

fn identity<T>(shared: &Shared<T>) -> usize {
    Arc::as_ptr(&shared.0) as usize
}

/// The run of a moment's world, or of the default world if that one cannot
/// run (the built-ins all can: a native test runs every pair).
fn world_of(moment: &Moment) -> Shared<Run> {
    match worlds::run(moment.scenario, moment.strategy, moment.seed)
        .or_else(|_| worlds::run(state::DEFAULT_SCENARIO, state::DEFAULT_LEFT, 1))
    {
        Ok(run) => run,
        // Display, not Debug: an `expect` would pull string escaping into the page.
        Err(message) => panic!("the default world does not run: {message}"),
    }
}

pub struct App {
    pub moment: Moment,
    pub lang: Lang,
    playing: bool,
    /// Index into [`SPEEDS`].
    speed: usize,
    problems: Vec<Problem>,
    /// How many more problems the URL had than `problems` lists.
    unlisted: usize,
    help_open: bool,
    pub board_width: i32,
    twin_width: i32,
    /// The scenario of paragraphs that name none.
    page_scenario: &'static str,
    pub run: Shared<Run>,
    /// The (scenario, strategy, seed) `run` was computed for.
    run_key: (&'static str, Strategy, u64),
    /// The frame of each story beat in `run` (`story::BEATS`, in order).
    beat_frames: Vec<Option<usize>>,
    twin: Option<Shared<Twin>>,
    /// The (top, bottom, seed) `twin` was computed for.
    twin_key: Option<([Line; 2], u64)>,
    axis: Option<Axis>,
    refs: Refs,
    shown: Shown,
    /// The article's step paragraphs and the one last shown.
    steps: Vec<Element>,
    last_active: Option<usize>,
    /// The playback timer and its period.
    timer: Option<(i32, u32)>,
    pub dragging: bool,
    fits: Vec<(FitKey, Fit)>,
    /// Whether the board asks before the decisive steps (`crate::quiz`).
    predict: bool,
    /// The questions of each world met: answers stay with their world
    /// while the article visits others. `quiz_at` is the last one used.
    quizzes: Vec<((&'static str, Strategy, u64), Quiz)>,
    quiz_at: usize,
}

impl App {
    /// The state a URL describes, with its problems listed, mounted into the
    /// page's roots.
    pub fn new(query: &str, page_scenario: &'static str, refs: Refs) -> App {
        let mut parsed = parse_query(query);
        if !parsed.scenario_named {
            parsed.moment.scenario = page_scenario;
        }
        let run = world_of(&parsed.moment);
        if let Some(problem) = check_frame(&mut parsed.moment, run.frame_count()) {
            parsed.push(problem);
        }
        let run_key = (
            parsed.moment.scenario,
            parsed.moment.strategy,
            parsed.moment.seed,
        );
        App {
            moment: parsed.moment,
            lang: parsed.lang.unwrap_or_default(),
            playing: false,
            speed: 1,
            problems: parsed.problems,
            unlisted: parsed.unlisted,
            help_open: false,
            board_width: 560,
            twin_width: 560,
            page_scenario,
            run_key,
            beat_frames: Vec::new(),
            run,
            twin: None,
            twin_key: None,
            axis: None,
            refs,
            shown: Shown::default(),
            steps: dom::step_paragraphs(),
            last_active: None,
            timer: None,
            dragging: false,
            fits: Vec::new(),
            predict: parsed.predict,
            quizzes: Vec::new(),
            quiz_at: 0,
        }
    }

    /// The run of `moment`'s world: the one on screen when it is the same
    /// world, else computed (and kept as the one on screen).
    fn world(&mut self, moment: &Moment) -> Shared<Run> {
        let key = (moment.scenario, moment.strategy, moment.seed);
        if self.run_key != key || self.beat_frames.is_empty() {
            self.run = world_of(moment);
            self.run_key = key;
            self.beat_frames = story::BEATS
                .iter()
                .map(|b| story::beat_frame(&self.run, b))
                .collect();
        }
        self.run.clone()
    }

    fn last_frame(&self) -> usize {
        self.run.frame_count() - 1
    }

    /// The questions of the world on screen, made on first use. The quiz
    /// of the world left behind closes; its answers stay.
    fn quiz(&mut self) -> &mut Quiz {
        let key = self.run_key;
        let at = match self.quizzes.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                let quiz = Quiz::new(predict::prompts(&self.run));
                self.quizzes.push((key, quiz));
                self.quizzes.len() - 1
            }
        };
        if at != self.quiz_at {
            self.close_quiz();
            self.quiz_at = at;
        }
        &mut self.quizzes[at].1
    }

    /// Closes the question of the quiz used last, if one is asked.
    fn close_quiz(&mut self) {
        if let Some((_, quiz)) = self.quizzes.get_mut(self.quiz_at) {
            quiz.close();
        }
    }

    /// The quiz of the world on screen, if the questions are on and it has one.
    fn shown_quiz(&self) -> Option<&Quiz> {
        let (key, quiz) = self.quizzes.get(self.quiz_at)?;
        (self.predict && *key == self.run_key).then_some(quiz)
    }

    /// Whether a question waits for the reader's answer.
    pub fn asking(&self) -> bool {
        self.shown_quiz().is_some_and(|q| q.asking().is_some())
    }

    // ------------------------------------------------------------ actions --

    /// Shows `next`, recording it in the URL as `nav` says.
    pub fn go(&mut self, next: Moment, nav: Nav) {
        if nav == Nav::Push {
            self.problems.clear();
            self.unlisted = 0;
        }
        if nav != Nav::Keep {
            let query = to_query(&next, self.lang, self.predict);
            dom::write_url(
                &merge_query(&dom::location_query(), &query),
                nav == Nav::Push,
            );
        }
        self.moment = next;
        self.render();
    }

    pub fn seek(&mut self, frame: usize, nav: Nav) {
        let frame = frame.min(self.last_frame());
        if frame != self.moment.frame {
            let next = Moment {
                frame,
                ..self.moment.clone()
            };
            self.go(next, nav);
        }
    }

    /// One step back (`-1`) or forward (`1`): a deliberate move. With the
    /// questions on, a step forward may stop at a question instead.
    pub fn step(&mut self, delta: isize) {
        self.playing = false;
        let (now, last) = (self.moment.frame, self.last_frame());
        let mut frame = now.saturating_add_signed(delta);
        if self.predict {
            frame = if delta > 0 {
                self.quiz().forward(now, last)
            } else {
                self.quiz().jump(now, frame)
            };
        }
        self.seek(frame, Nav::Push);
        self.render();
    }

    pub fn toggle_play(&mut self) {
        if self.playing {
            self.playing = false;
        } else {
            if self.moment.frame >= self.last_frame() {
                self.seek(0, Nav::Push);
            }
            self.playing = true;
        }
        self.render();
    }

    /// One tick of playback. It stops at the last step, and skips ticks
    /// while the tab is hidden rather than spend time nobody watches.
    pub fn advance(&mut self) {
        if dom::page_hidden() {
            return;
        }
        let (now, last) = (self.moment.frame, self.last_frame());
        if now >= last {
            self.playing = false;
        } else if self.predict {
            let to = self.quiz().forward(now, last);
            // A question pauses playback until it is answered.
            self.playing = !self.asking();
            self.seek(to, Nav::Replace);
        } else {
            self.seek(now + 1, Nav::Replace);
        }
        self.render();
    }

    pub fn set_speed(&mut self, index: usize) {
        self.speed = index.min(SPEEDS.len() - 1);
        self.render();
    }

    pub fn choose_scenario(&mut self, name: &str) {
        let Some(scenario) = state::scenario_name(name) else {
            return;
        };
        self.playing = false;
        let next = Moment {
            scenario,
            frame: 0,
            ..self.moment.clone()
        };
        self.go(next, Nav::Push);
    }

    /// Another design for the lousa, kept at the same place on the time axis.
    pub fn choose_strategy(&mut self, strategy: Strategy) {
        let cursor = view::cursor_at(&self.run, self.moment.frame);
        let next = Moment {
            strategy,
            ..self.moment.clone()
        };
        let frame = view::frame_at_cursor(&self.world(&next), cursor);
        self.go(Moment { frame, ..next }, Nav::Push);
    }

    /// A design for one line: the lines then compare designs, even if they
    /// showed a pair.
    pub fn choose_line(&mut self, top: bool, strategy: Strategy) {
        let mut next = Moment {
            lines: Lines::Designs,
            ..self.moment.clone()
        };
        if top {
            next.left = strategy;
        } else {
            next.right = strategy;
        }
        self.go(next, Nav::Push);
    }

    pub fn toggle_lang(&mut self) {
        self.lang = match self.lang {
            Lang::Pt => Lang::En,
            Lang::En => Lang::Pt,
        };
        self.write_settings();
        self.show_article_language();
        self.render();
        // The button was rebuilt with the rest of the panel: keep the focus on it.
        dom::focus(self.refs.get("language"));
    }

    /// Writes the reader's settings (language, questions) into the URL,
    /// replacing its entry: a setting is not a step to go back to.
    fn write_settings(&self) {
        let query = to_query(&self.moment, self.lang, self.predict);
        dom::write_url(&merge_query(&dom::location_query(), &query), false);
    }

    /// Turns the questions on or off. Off, the question on screen closes
    /// and the board stays where it is.
    pub fn toggle_predict(&mut self) {
        self.predict = !self.predict;
        self.close_quiz();
        self.write_settings();
        self.render();
    }

    /// Answers the question on screen with `choice`: the board goes on, and
    /// the focus (its buttons are gone) to the next question's first
    /// choice, or to the forward button. False when nothing is asked.
    pub fn answer(&mut self, choice: usize) -> bool {
        if !self.asking() {
            return false;
        }
        let Some(to) = self.quiz().answer(choice) else {
            return false;
        };
        self.playing = false;
        self.seek(to, Nav::Push);
        self.render();
        let next = dom::all(self.refs.lousa_root(), "[data-action=answer]");
        dom::focus(next.first().or(self.refs.get("step-forward")));
        true
    }

    /// Shows the article in the reader's language. The paragraph at the
    /// reading line is replaced by the same paragraph in the other language,
    /// at the same place on screen: the reader keeps their place, and the
    /// board its step.
    pub fn show_article_language(&mut self) {
        let visible = |steps: &[Element]| -> Vec<usize> {
            (0..steps.len())
                .filter(|&i| dom::shown(&steps[i]))
                .collect()
        };
        let anchor = self.last_active.and_then(|active| {
            let rank = visible(&self.steps).iter().position(|&i| i == active)?;
            Some((rank, self.steps[active].get_bounding_client_rect().top()))
        });
        dom::show_language(crate::text::html_lang(self.lang));
        let Some((rank, top)) = anchor else {
            return;
        };
        if let Some(&now) = visible(&self.steps).get(rank) {
            let moved = self.steps[now].get_bounding_client_rect().top() - top;
            dom::window().scroll_by_with_x_and_y(0.0, moved);
        }
    }

    /// Opens or closes the help. Focus goes into it, and back to the play
    /// button (in view, beside the board) rather than staying on a hidden
    /// button when it closes.
    pub fn set_help(&mut self, open: bool) {
        self.help_open = open;
        self.render();
        dom::focus(self.refs.get(if open { "help-close" } else { "play" }));
    }

    pub fn help_open(&self) -> bool {
        self.help_open
    }

    /// Moves the lousa to what a step paragraph names. The target comes from
    /// the paragraph's attributes and the page's settings alone, so it is the
    /// same however the reader reached the paragraph.
    fn show_paragraph(&mut self, index: usize, nav: Nav) {
        let Some(paragraph) = self.steps.get(index) else {
            return;
        };
        let (target, warnings) = self.target_of(paragraph);
        for attribute in warnings {
            dom::log_error(&format!(
                "lousa: a step paragraph's {attribute} names nothing known; using the default"
            ));
        }
        let mut next = Moment {
            scenario: target.scenario,
            strategy: target.strategy,
            lines: target.lines,
            frame: 0,
            ..self.moment.clone()
        };
        next.frame = story::beat_frame_or_before(&self.world(&next), &target.beat);
        if self.predict {
            // A world met anew is asked from its start.
            let same =
                (next.scenario, next.strategy) == (self.moment.scenario, self.moment.strategy);
            let from = if same { self.moment.frame } else { 0 };
            next.frame = self.quiz().jump(from, next.frame);
        }
        self.playing = false;
        if next != self.moment {
            self.go(next, nav);
        } else {
            self.render();
        }
    }

    /// The world and beat a step paragraph shows, and the attributes that
    /// named nothing known.
    fn target_of(&self, paragraph: &Element) -> (StepTarget, Vec<&'static str>) {
        let attribute = |name| paragraph.get_attribute(name);
        step_target(
            &attribute("data-step").unwrap_or_default(),
            attribute("data-scenario").as_deref(),
            attribute("data-strategy").as_deref(),
            attribute("data-lines").as_deref(),
            self.page_scenario,
            self.moment.left,
        )
    }

    /// Shows the paragraph at the reading line when it is not the one shown
    /// last. Above the first paragraph the first one is shown, once the
    /// reader has been below it; on the first paint nothing moves unless
    /// `apply_first` (the URL named no moment).
    pub fn track_scroll(&mut self, nav: Nav, apply_first: bool) {
        let board = self.refs.get("sticky");
        let active = self
            .steps
            .iter()
            .find(|step| dom::shown(step))
            .and_then(|first| dom::active_paragraph(&self.steps, dom::reading_line(board, first)));
        if active == self.last_active && !apply_first {
            return;
        }
        let was = std::mem::replace(&mut self.last_active, active);
        dom::mark_current(&self.steps, active);
        match (active, was, nav) {
            (Some(i), _, Nav::Keep) if apply_first => self.show_paragraph(i, Nav::Keep),
            (_, _, Nav::Keep) => {}
            (Some(i), _, _) => self.show_paragraph(i, nav),
            (None, Some(_), _) => self.show_paragraph(0, nav),
            (None, None, _) => {}
        }
    }

    /// Back to what the URL says (the browser's Back and Forward).
    pub fn restore(&mut self, query: &str) {
        let mut parsed = parse_query(query);
        if !parsed.scenario_named {
            parsed.moment.scenario = self.page_scenario;
        }
        let frames = self.world(&parsed.moment).frame_count();
        if let Some(problem) = check_frame(&mut parsed.moment, frames) {
            parsed.push(problem);
        }
        self.playing = false;
        self.problems = parsed.problems;
        self.unlisted = parsed.unlisted;
        self.predict = parsed.predict;
        self.close_quiz();
        let lang = parsed.lang.unwrap_or_default();
        if lang != self.lang {
            self.lang = lang;
            self.show_article_language();
        }
        self.go(parsed.moment, Nav::Keep);
    }

    /// Moves the cursor to the stop nearest `x` pixels on the twin drawing.
    pub fn seek_twin_x(&mut self, x: i32, nav: Nav) {
        let Some(cursor) = self.axis.as_ref().map(|a| a.nearest(x)) else {
            return;
        };
        let mut frame = view::frame_at_cursor(&self.run, cursor);
        if self.predict {
            let now = self.moment.frame;
            frame = self.quiz().jump(now, frame);
        }
        self.playing = false;
        if nav == Nav::Push && frame == self.moment.frame {
            self.render();
            return;
        }
        self.seek(frame, nav);
        self.render();
    }

    /// Reads the widths the board and the twin timeline really have.
    pub fn measure(&mut self) {
        if let Some(width) = self
            .refs
            .get("board-wrap")
            .map(|el| el.client_width())
            .filter(|w| *w > 0)
        {
            self.board_width = width;
        }
        if let Some(width) = self
            .refs
            .get("twin-wrap")
            .map(|el| el.client_width())
            .filter(|w| *w > 0)
        {
            self.twin_width = width;
        }
        self.render();
    }

    pub fn twin_width(&self) -> i32 {
        self.twin_width
    }

    /// The elements the panels are mounted in, for the event listeners.
    pub fn roots(&self) -> Vec<Element> {
        std::iter::once(self.refs.lousa_root().clone())
            .chain(self.refs.twin_root().cloned())
            .collect()
    }

    // ------------------------------------------------------------- render --

    /// Brings the page up to date with the state. Cheap when little changed:
    /// each part is rewritten only when its inputs differ from last time.
    pub fn render(&mut self) {
        let moment = self.moment.clone();
        self.world(&moment);
        let twin_key = (self.moment.lines(), self.moment.seed);
        if fresh(&mut self.twin_key, twin_key) {
            let ([top, bottom], seed) = twin_key;
            self.twin = worlds::twin(top, bottom, seed).ok();
        }
        self.moment.frame = self.moment.frame.min(self.last_frame());
        if fresh(&mut self.shown.lang, self.lang) {
            self.build_skeleton();
        }
        self.render_settings();
        self.render_problems();
        self.render_transport();
        let step = (
            identity(&self.run),
            self.moment.frame,
            self.board_width,
            self.twin_width,
        );
        let stepped = fresh(&mut self.shown.step, step);
        if stepped {
            self.render_heading();
            self.render_board();
            self.render_sql();
            self.render_text();
        }
        // After the texts are written: the SQL panel's copies need its
        // elements, which a new skeleton (a new language) has not yet made.
        let boxes = (identity(&self.run), self.board_width);
        if fresh(&mut self.shown.text_boxes, boxes) {
            self.fit_text_boxes();
        }
        self.render_twin(stepped);
        self.render_quiz();
        self.sync_timer();
    }

    fn render_quiz(&mut self) {
        let lang = self.lang;
        let markup = self.shown_quiz().map_or_else(String::new, |q| {
            quiz_markup(q, ui(lang).question_label, lang)
        });
        if fresh(&mut self.shown.quiz, markup)
            && let Some(slot) = self.refs.get("quiz")
        {
            slot.set_inner_html(self.shown.quiz.as_deref().unwrap_or_default());
        }
        if fresh(&mut self.shown.predict, self.predict) {
            let pressed = if self.predict { "true" } else { "false" };
            self.refs.put("predict", "aria-pressed", Some(pressed));
        }
    }

    fn build_skeleton(&mut self) {
        let lousa = skeleton::lousa_panel(&self.moment, self.lang, self.speed);
        let twin = skeleton::twin_panel(&self.moment, self.lang);
        self.refs.rebuild(&lousa, &twin);
        let lang = self.lang;
        self.shown = Shown {
            lang: Some(lang),
            ..Shown::default()
        };
    }

    fn render_settings(&mut self) {
        let m = &self.moment;
        let key = (m.scenario, m.strategy, m.seed);
        if fresh(&mut self.shown.settings, key) {
            dom::set_value(self.refs.get("scenario"), m.scenario);
            dom::set_value(self.refs.get("strategy"), m.strategy.name());
        }
        let lines = (m.lines(), m.on_board());
        if fresh(&mut self.shown.lines, lines) {
            let ([top, bottom], [top_shown, bottom_shown]) = lines;
            dom::set_value(self.refs.get("line-top"), top.strategy.name());
            dom::set_value(self.refs.get("line-bottom"), bottom.strategy.name());
            let hidden = |shown: bool| (!shown).then_some("");
            self.refs.put("onboard-top", "hidden", hidden(top_shown));
            self.refs
                .put("onboard-bottom", "hidden", hidden(bottom_shown));
        }
    }

    fn render_heading(&mut self) {
        let (frame, lang) = (self.moment.frame, self.lang);
        let refs = &mut self.refs;
        // Once per world: a title is read from the built-in, which builds
        // the whole scenario.
        if fresh(&mut self.shown.heading, identity(&self.run)) {
            refs.put_text(
                "scenario-title",
                &skeleton::scenario_title(self.moment.scenario, lang),
            );
            refs.put_text("board-strategy", self.moment.strategy.name());
            refs.put(
                "board-strategy",
                "title",
                Some(strategy_gloss(self.moment.strategy, lang)),
            );
        }
        refs.put_text("clock", &clock_text(&self.run, frame, lang));
        refs.put_text("step-counter", &counter_text(&self.run, frame, lang));
    }

    fn render_problems(&mut self) {
        let key = (self.problems.clone(), self.unlisted);
        if !fresh(&mut self.shown.problems, key) {
            return;
        }
        let t = ui(self.lang);
        let mut lines = el("div");
        for problem in &self.problems {
            let issue = match problem.issue {
                state::Issue::UnknownScenario => t.unknown_scenario,
                state::Issue::UnknownStrategy => t.unknown_strategy,
                state::Issue::UnknownLanguage => t.unknown_language,
                state::Issue::UnknownLines => t.unknown_lines,
                state::Issue::NotANumber => t.not_a_number,
                state::Issue::TooLarge => t.too_large,
                state::Issue::FrameOutOfRange => t.frame_out_of_range,
                state::Issue::Repeated => t.repeated,
                state::Issue::NotASwitch => t.not_a_switch,
            };
            lines.add("p").text(&format!(
                "{} “{}”: “{}” {issue}; {}.",
                t.url_param, problem.param, problem.value, t.falling_back
            ));
        }
        if self.unlisted > 0 {
            lines
                .add("p")
                .text(&format!("{} {}.", t.unlisted, self.unlisted));
        }
        if let Some(panel) = self.refs.live("problems") {
            panel.patch(&lines.kids);
            panel.set("hidden", self.problems.is_empty().then_some(""));
        }
    }

    fn render_board(&mut self) {
        let (frame, width) = (self.moment.frame, self.board_width);
        if fresh(&mut self.shown.board_box, (identity(&self.run), width)) {
            (self.shown.layout, self.shown.frames) = board::frames(&self.run, width, self.lang);
        }
        let Some(drawn) = self.shown.frames.get(frame) else {
            return;
        };
        let beats: Vec<&str> = story::BEATS
            .iter()
            .zip(&self.beat_frames)
            .filter(|(_, at)| **at == Some(frame))
            .map(|(beat, _)| *beat)
            .collect();
        // The drawing keeps its run's tallest size in every frame, wherever
        // the board sits (beside the text, above it on a phone, on another
        // page): a new size at every step would make the browser lay out
        // the whole page again, and move what is below the board. A box
        // with a height of its own (a phone's) scales the drawing to fit.
        let height = self.shown.layout.tallest;
        let Some(svg) = self.refs.live("lousa") else {
            return;
        };
        svg.set("viewBox", Some(&format!("0 0 {width} {height}")));
        svg.patch(&drawn.parts);
        let data = [
            ("data-frame", frame.to_string()),
            ("data-scenario", self.moment.scenario.to_string()),
            ("data-strategy", self.moment.strategy.name().to_string()),
            ("data-seed", self.moment.seed.to_string()),
            ("data-beats", beats.join(" ")),
        ];
        for (name, value) in data {
            svg.set(name, Some(&value));
        }
    }

    fn render_sql(&mut self) {
        let texts = sql_texts(&self.run, self.moment.frame, self.lang);
        let mut panel = el("div");
        panel.add("span").class("sql-title").text("SQL");
        panel
            .add("code")
            .class("sql-statement")
            .attr("data-testid", "sql-statement")
            .text(texts.sql);
        panel
            .add("p")
            .class(texts.class)
            .attr("data-testid", "sql-result")
            .text(&texts.result);
        panel.add("p").class("sql-when").text(&texts.when);
        if let Some(sql) = self.refs.live("sql") {
            sql.patch(&panel.kids);
        }
    }

    /// Gives the boxes whose text changes at every step (the SQL panel, the
    /// narration, the clock and the step counter) one size for the whole
    /// run, the size of their longest text, and the stylesheet makes each a
    /// box that contains its own layout. A step then lays out only what is
    /// inside them: a new text in a box that may change size would make
    /// the browser lay out the whole page again (issue #6). It also keeps
    /// the controls below them from moving as the texts change.
    fn fit_text_boxes(&mut self) {
        // Keyed by the world `run` was computed for: the one measured.
        let (scenario, strategy, seed) = self.run_key;
        let key = (scenario, strategy, seed, self.board_width, self.lang);
        let fit = match self.fits.iter().find(|(k, _)| *k == key) {
            Some((_, fit)) => *fit,
            None => {
                let fit = self.measure_text_boxes(&self.run, scenario);
                self.remember_fit(key, fit);
                fit
            }
        };
        let refs = &mut self.refs;
        refs.put("sql", "style", height_style(fit.sql).as_deref());
        refs.put("narration", "style", height_style(fit.narration).as_deref());
        let width = |px: i32| (px > 0).then(|| format!("width:{px}px"));
        refs.put("clock", "style", width(fit.clock).as_deref());
        refs.put("step-counter", "style", width(fit.counter).as_deref());
    }

    /// Keeps a measure, if the boxes were laid out (a hidden box measures
    /// 0). A window resized by dragging passes through many widths: the
    /// list starts over rather than grow without end.
    fn remember_fit(&mut self, key: FitKey, fit: Fit) -> bool {
        let laid_out = fit.sql > 0 && fit.narration > 0;
        if laid_out {
            if self.fits.len() >= 64 {
                self.fits.clear();
            }
            self.fits.push((key, fit));
        }
        laid_out
    }

    /// Measures the text boxes of one world that a paragraph of the article
    /// shows and that has no measure yet at this width and language, while
    /// the page is idle: scrolling into that world later then measures
    /// nothing (a first visit costs several milliseconds more without).
    /// True while others remain.
    pub fn prefetch_fit(&mut self) -> bool {
        let (seed, width, lang) = (self.moment.seed, self.board_width, self.lang);
        let missing = self.steps.iter().find_map(|paragraph| {
            let (target, _) = self.target_of(paragraph);
            let key = (target.scenario, target.strategy, seed, width, lang);
            (!self.fits.iter().any(|(k, _)| *k == key)).then_some(key)
        });
        let Some(key) = missing else {
            return false;
        };
        let Ok(run) = worlds::run(key.0, key.1, seed) else {
            return false;
        };
        let fit = self.measure_text_boxes(&run, key.0);
        self.remember_fit(key, fit)
    }

    fn measure_text_boxes(&self, run: &Run, scenario: &'static str) -> Fit {
        let lang = self.lang;
        let frames = 0..run.frame_count();
        // Each different content once. The clock and the counter differ
        // only in digits, which all have one width (tabular figures): one
        // of each shape is enough.
        let mut sql: Vec<SqlTexts> = Vec::new();
        let mut said: Vec<String> = Vec::new();
        let (mut clocks, mut counters): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        let shape = |text: &str| -> String {
            text.chars()
                .map(|c| if c.is_ascii_digit() { '0' } else { c })
                .collect()
        };
        for f in frames {
            add_new(&mut sql, sql_texts(run, f, lang));
            add_new(
                &mut said,
                words::narration(run, scenario, f, lang, ui(lang)),
            );
            add_new(&mut clocks, shape(&clock_text(run, f, lang)));
            add_new(&mut counters, shape(&counter_text(run, f, lang)));
        }
        let refs = &self.refs;
        // Every width first, then every probe: one layout of the page, then
        // one of the probes.
        let names = ["sql", "narration", "clock", "step-counter"];
        let widths = names.map(|name| dom::width(refs.get(name)));
        let text = |at: usize, texts: &[String]| {
            dom::probe(refs.get(names[at]), widths[at], texts.len(), |probe, i| {
                probe.set_text_content(Some(&texts[i]));
            })
        };
        let probes = [
            dom::probe(refs.get(names[0]), widths[0], sql.len(), |probe, i| {
                let texts = &sql[i];
                dom::fill_kids(
                    probe,
                    &[
                        (None, None),
                        (None, Some(texts.sql)),
                        (Some(texts.class), Some(&texts.result)),
                        (None, Some(&texts.when)),
                    ],
                );
            }),
            text(1, &said),
            text(2, &clocks),
            text(3, &counters),
        ];
        let sizes = probes.each_ref().map(|p| dom::largest(p.as_ref()));
        for probe in probes.into_iter().flatten() {
            probe.remove();
        }
        Fit {
            sql: sizes[0].1,
            narration: sizes[1].1,
            clock: sizes[2].0,
            counter: sizes[3].0,
        }
    }

    fn render_transport(&mut self) {
        let key = (self.playing, self.moment.frame, self.last_frame());
        if fresh(&mut self.shown.transport, key) {
            let t = ui(self.lang);
            let (playing, frame, last) = key;
            let refs = &mut self.refs;
            refs.put_text(
                "play",
                &if playing {
                    format!("❚❚ {}", t.pause)
                } else {
                    format!("▶ {}", t.play)
                },
            );
            let pressed = if playing { "true" } else { "false" };
            refs.put("play", "aria-pressed", Some(pressed));
            refs.put("step-back", "disabled", (frame == 0).then_some(""));
            refs.put("step-forward", "disabled", (frame >= last).then_some(""));
        }
        if fresh(&mut self.shown.help, self.help_open) {
            let open = self.help_open;
            self.refs.put("help-panel", "hidden", (!open).then_some(""));
            let expanded = if open { "true" } else { "false" };
            self.refs.put("help", "aria-expanded", Some(expanded));
        }
    }

    fn render_text(&mut self) {
        let (run, frame, lang) = (identity(&self.run), self.moment.frame, self.lang);
        let text = words::narration(&self.run, self.moment.scenario, frame, lang, ui(lang));
        self.refs.put_text("narration", &text);
        if fresh(&mut self.shown.event_rows, run) {
            let summary = format!(
                "{} ({})",
                ui(lang).events_summary,
                self.run.events().count()
            );
            self.refs.put_text("events-summary", &summary);
            if let Some(body) = self.refs.live("event-rows") {
                body.patch(&words::event_rows(&self.run, lang));
            }
        }
        // The rows of this frame are marked, and only those: each row is
        // looked at, but only the ones that change are written.
        let frame = frame.to_string();
        if let Some(body) = self.refs.live("event-rows") {
            for row in &mut body.kids {
                let current = row.get("data-frame") == Some(frame.as_str());
                row.set("aria-current", current.then_some("step"));
            }
        }
    }

    /// The still drawing when the twin or its width changed; the cursor and
    /// ledgers when that or the step did.
    fn render_twin(&mut self, stepped: bool) {
        let Some(twin) = self.twin.clone() else {
            return;
        };
        let (twin_id, width) = (identity(&twin), self.twin_width);
        let redrawn = fresh(&mut self.shown.twin_still, (twin_id, width));
        if redrawn {
            let axis = Axis::new(&twin, width);
            let names = self.moment.line_names(self.lang);
            if let Some(still) = self.refs.live("twin-still") {
                still.patch(&twin::drawing(&twin, &axis, names, self.lang));
            }
            let view_box = format!("0 0 {width} {}", twin::HEIGHT);
            self.refs.put("twin", "viewBox", Some(&view_box));
            let divergence = twin
                .divergence
                .as_ref()
                .map_or(String::new(), |d| d.time_ms.to_string());
            self.refs
                .put("twin", "data-divergence-ms", Some(&divergence));
            self.axis = Some(axis);
        }
        if !(redrawn || stepped) {
            return;
        }
        let frame = self.moment.frame;
        let lang = self.lang;
        let t = ui(lang);
        let cursor = view::cursor_at(&self.run, frame);
        let x = self.axis.as_ref().map_or(0, |a| a.x_of(cursor)).to_string();
        let refs = &mut self.refs;
        refs.put(
            "twin-cursor",
            "transform",
            Some(&format!("translate({x} 0)")),
        );
        let time = self.run.state_at(frame).time_ms;
        let last = (self.run.frame_count() - 1).to_string();
        refs.put("twin", "aria-valuemax", Some(&last));
        refs.put("twin", "aria-valuenow", Some(&frame.to_string()));
        refs.put(
            "twin",
            "aria-valuetext",
            Some(&format!(
                "{} · {} {frame}",
                view::clock(time, lang),
                t.step_word
            )),
        );
        let on_board = self.moment.on_board();
        for ((top, line), on_board) in [(true, &twin.left), (false, &twin.right)]
            .into_iter()
            .zip(on_board)
        {
            // The world the lousa shows is read at its exact frame; the
            // other at the same place on the shared axis.
            let line_frame = if on_board {
                frame
            } else {
                view::frame_at_cursor(line, cursor)
            };
            let ledger = view::ledger_at(line, line_frame);
            let heard: Vec<String> = ledger
                .answers
                .iter()
                .map(|a| {
                    if a.late {
                        format!("{} ({})", a.status, t.late)
                    } else {
                        a.status.to_string()
                    }
                })
                .collect();
            let heard = if heard.is_empty() {
                t.heard_none.to_string()
            } else {
                heard.join(", ")
            };
            let figures = format!(
                "{}: {} · {}: {} · {}: {heard}",
                t.captures,
                ledger.captures,
                t.charged,
                narrate::amount(ledger.charged_cents, lang),
                t.heard
            );
            let side = if top { "top" } else { "bottom" };
            refs.put_text(&format!("figures-{side}"), &figures);
            let on_time: Vec<String> = ledger
                .answers
                .iter()
                .filter(|a| !a.late)
                .map(|a| a.status.to_string())
                .collect();
            let Some(box_) = refs.live(&format!("ledger-{side}")) else {
                continue;
            };
            box_.set("data-captures", Some(&ledger.captures.to_string()));
            box_.set(
                "data-charged-cents",
                Some(&ledger.charged_cents.to_string()),
            );
            box_.set("data-answers", Some(&on_time.join(" ")));
            let class = if ledger.double_charged {
                "ledger is-double"
            } else {
                "ledger"
            };
            box_.set("class", Some(class));
        }
    }

    /// Starts, restarts or stops the playback timer to match the state.
    fn sync_timer(&mut self) {
        let wanted = self
            .playing
            .then(|| STEP_MS_AT_1X * 1000 / SPEEDS[self.speed].1);
        if self.timer.map(|(_, period)| period) == wanted {
            return;
        }
        if let Some((id, _)) = self.timer.take() {
            dom::clear_interval(id);
        }
        if let Some(period) = wanted {
            self.timer = dom::set_interval(period).map(|id| (id, period));
        }
    }
}

/// Adds `item` to `list` unless an equal one is there.
fn add_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// What the SQL panel says at a frame.
#[derive(PartialEq)]
struct SqlTexts<'a> {
    sql: &'a str,
    class: &'static str,
    result: String,
    when: String,
}

fn sql_texts(run: &Run, frame: usize, lang: Lang) -> SqlTexts<'_> {
    let t = ui(lang);
    // Before the first statement the statement and its result are empty
    // rather than absent: the panel keeps the same four elements from frame
    // to frame, and new elements would cost the browser a style and a
    // layout of their own.
    let Some(shown) = view::sql_at(run, frame) else {
        return SqlTexts {
            sql: "",
            class: "sql-result",
            result: String::new(),
            when: t.sql_none.to_string(),
        };
    };
    let class = match shown.outcome {
        SqlOutcome::Waiting { .. } => "sql-result is-waiting",
        SqlOutcome::Error { .. } => "sql-result is-error",
        _ => "sql-result",
    };
    let mut when = if shown.frame == frame {
        t.sql_now.to_string()
    } else {
        format!("{} {}", t.sql_earlier, view::clock(shown.time_ms, lang))
    };
    when.push_str(&format!(" · {}", narrate::actor(shown.actor, lang)));
    if let Some(waited) = shown.waited_ms {
        when.push_str(&format!(" · {} {waited} ms", t.sql_waited));
    }
    SqlTexts {
        sql: shown.sql,
        class,
        result: format!("→ {}", narrate::sql_outcome(shown.outcome, lang)),
        when,
    }
}

fn clock_text(run: &Run, frame: usize, lang: Lang) -> String {
    format!("t = {}", view::clock(run.state_at(frame).time_ms, lang))
}

fn counter_text(run: &Run, frame: usize, lang: Lang) -> String {
    let t = ui(lang);
    let last = run.frame_count() - 1;
    format!("{} {frame} {} {last}", t.step_word, t.of_word)
}

/// A fixed height, or none when the box could not be measured (hidden).
fn height_style(height: i32) -> Option<String> {
    (height > 0).then(|| format!("height:{height}px"))
}
