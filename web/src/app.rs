//! The page's state, the reader's actions on it, and the render step that
//! brings the DOM up to date.
//!
//! One [`Moment`] (plus the language and playback settings) is the whole
//! state. Every action changes it and calls [`App::render`], which derives
//! runs, pictures, narration and ledgers from it and writes only the parts
//! whose inputs changed. Nothing is patched incrementally from events: the
//! board at a frame is the same however the reader got there.
//!
//! Why no UI framework: Leptos was tried first, and its reactive runtime and
//! view code put the page at 202 kB gzip against a 120 kB budget, with the
//! simulation core alone near 80 kB. A render step over a dozen keyed parts
//! needs none of that machinery.

use crate::board;
use crate::dom::{self, Refs};
use crate::skeleton;
use crate::state::{
    self, Moment, Problem, SPEEDS, STEP_MS_AT_1X, check_frame, merge_query, parse_query,
    step_target, to_query,
};
use crate::text::{strategy_gloss, ui};
use crate::twin::{self, Axis};
use crate::words;
use crate::worlds::{self, Shared};
use lousa_core::Strategy;
use lousa_core::narrate::{self, Lang};
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
    /// The world and frame last narrated: a resize must not make a screen
    /// reader announce the same step again.
    narrated: Option<(usize, usize)>,
    event_rows: Option<usize>,
    transport: Option<(bool, usize, usize)>,
    settings: Option<(&'static str, Strategy, u64)>,
    lines: Option<(Strategy, Strategy, Strategy)>,
    problems: Option<Vec<Problem>>,
    help: Option<bool>,
    twin_still: Option<(usize, i32)>,
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
    /// The (scenario, top, bottom, seed) `twin` was computed for.
    twin_key: Option<(&'static str, Strategy, Strategy, u64)>,
    axis: Option<Axis>,
    refs: Refs,
    shown: Shown,
    /// The board's part groups and what each holds now.
    board_parts: Vec<(Element, String)>,
    /// The article's step paragraphs and the one last shown.
    steps: Vec<Element>,
    last_active: Option<usize>,
    /// The playback timer and its period.
    timer: Option<(i32, u32)>,
    pub dragging: bool,
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
        parsed
            .problems
            .extend(check_frame(&mut parsed.moment, run.frame_count()));
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
            board_parts: Vec::new(),
            steps: dom::step_paragraphs(),
            last_active: None,
            timer: None,
            dragging: false,
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

    // ------------------------------------------------------------ actions --

    /// Shows `next`, recording it in the URL as `nav` says.
    pub fn go(&mut self, next: Moment, nav: Nav) {
        if nav == Nav::Push {
            self.problems.clear();
        }
        if nav != Nav::Keep {
            let query = to_query(&next, self.lang);
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

    /// One step back (`-1`) or forward (`1`): a deliberate move.
    pub fn step(&mut self, delta: isize) {
        self.playing = false;
        let frame = self.moment.frame.saturating_add_signed(delta);
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
        if self.moment.frame >= self.last_frame() {
            self.playing = false;
            self.render();
        } else {
            self.seek(self.moment.frame + 1, Nav::Replace);
        }
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

    pub fn choose_line(&mut self, top: bool, strategy: Strategy) {
        let mut next = self.moment.clone();
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
        let query = to_query(&self.moment, self.lang);
        dom::write_url(&merge_query(&dom::location_query(), &query), false);
        self.render();
        // The button was rebuilt with the rest of the panel: keep the focus on it.
        dom::focus(self.refs.get("language"));
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
        let beat = paragraph.get_attribute("data-step").unwrap_or_default();
        let (target, warnings) = step_target(
            &beat,
            paragraph.get_attribute("data-scenario").as_deref(),
            paragraph.get_attribute("data-strategy").as_deref(),
            self.page_scenario,
            self.moment.left,
        );
        for attribute in warnings {
            dom::log_error(&format!(
                "lousa: a step paragraph's {attribute} names nothing known; using the default"
            ));
        }
        let mut next = Moment {
            scenario: target.scenario,
            strategy: target.strategy,
            frame: 0,
            ..self.moment.clone()
        };
        next.frame = story::beat_frame_or_before(&self.world(&next), &target.beat);
        self.playing = false;
        if next != self.moment {
            self.go(next, nav);
        } else {
            self.render();
        }
    }

    /// Shows the paragraph at the reading line when it is not the one shown
    /// last. Above the first paragraph the first one is shown, once the
    /// reader has been below it; on the first paint nothing moves unless
    /// `apply_first` (the URL named no moment).
    pub fn track_scroll(&mut self, nav: Nav, apply_first: bool) {
        let board = self.refs.get("sticky");
        let active = self
            .steps
            .first()
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
        parsed
            .problems
            .extend(check_frame(&mut parsed.moment, frames));
        self.playing = false;
        self.problems = parsed.problems;
        self.lang = parsed.lang.unwrap_or_default();
        self.go(parsed.moment, Nav::Keep);
    }

    /// Moves the cursor to the stop nearest `x` pixels on the twin drawing.
    pub fn seek_twin_x(&mut self, x: i32, nav: Nav) {
        let Some(cursor) = self.axis.as_ref().map(|a| a.nearest(x)) else {
            return;
        };
        let frame = view::frame_at_cursor(&self.run, cursor);
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
        let m = &self.moment;
        let twin_key = (m.scenario, m.left, m.right, m.seed);
        if fresh(&mut self.twin_key, twin_key) {
            self.twin = worlds::twin(twin_key.0, twin_key.1, twin_key.2, twin_key.3).ok();
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
        self.render_twin(stepped);
        self.sync_timer();
    }

    fn build_skeleton(&mut self) {
        let lousa = skeleton::lousa_panel(&self.moment, self.lang, self.speed);
        let twin = skeleton::twin_panel(&self.moment, self.lang);
        self.refs.rebuild(&lousa, &twin);
        self.board_parts.clear();
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
        let lines = (m.left, m.right, m.strategy);
        if fresh(&mut self.shown.lines, lines) {
            dom::set_value(self.refs.get("line-top"), m.left.name());
            dom::set_value(self.refs.get("line-bottom"), m.right.name());
            dom::set_flag(self.refs.get("onboard-top"), "hidden", m.strategy != m.left);
            dom::set_flag(
                self.refs.get("onboard-bottom"),
                "hidden",
                m.strategy != m.right,
            );
        }
    }

    fn render_heading(&mut self) {
        let (frame, lang) = (self.moment.frame, self.lang);
        let t = ui(lang);
        let time = self.run.state_at(frame).time_ms;
        dom::set_text(
            self.refs.get("scenario-title"),
            &skeleton::scenario_title(self.moment.scenario, lang),
        );
        dom::set_text(self.refs.get("board-strategy"), self.moment.strategy.name());
        dom::set_attr(
            self.refs.get("board-strategy"),
            "title",
            strategy_gloss(self.moment.strategy, lang),
        );
        dom::set_text(
            self.refs.get("clock"),
            &format!("t = {}", view::clock(time, lang)),
        );
        let counter = format!(
            "{} {frame} {} {}",
            t.step_word,
            t.of_word,
            self.last_frame()
        );
        dom::set_text(self.refs.get("step-counter"), &counter);
    }

    fn render_problems(&mut self) {
        if !fresh(&mut self.shown.problems, self.problems.clone()) {
            return;
        }
        let t = ui(self.lang);
        let mut html = crate::markup::Markup::default();
        for problem in &self.problems {
            let issue = match problem.issue {
                state::Issue::UnknownScenario => t.unknown_scenario,
                state::Issue::UnknownStrategy => t.unknown_strategy,
                state::Issue::NotANumber => t.not_a_number,
                state::Issue::FrameOutOfRange => t.frame_out_of_range,
            };
            html.raw("<p>");
            html.text(&format!(
                "{} “{}”: “{}” {issue}; {}.",
                t.url_param, problem.param, problem.value, t.falling_back
            ));
            html.raw("</p>");
        }
        let problems = self.refs.get("problems");
        dom::set_html(problems, &html.out);
        dom::set_flag(problems, "hidden", self.problems.is_empty());
    }

    fn render_board(&mut self) {
        let (frame, width) = (self.moment.frame, self.board_width);
        let drawn = board::board(&self.run, frame, width, self.lang);
        let Some(svg) = self.refs.get("lousa") else {
            return;
        };
        // Only when the size changed: a new viewBox makes the browser lay out
        // the whole drawing again, not just the parts that changed.
        let view_box = format!("0 0 {width} {}", drawn.height);
        if svg.get_attribute("viewBox").as_deref() != Some(view_box.as_str()) {
            let _ = svg.set_attribute("viewBox", &view_box);
        }
        // One <g> per part, made once; then only the parts that changed are written.
        if self.board_parts.len() != board::PARTS {
            svg.set_inner_html(&"<g></g>".repeat(board::PARTS));
            self.board_parts = dom::all(svg, ":scope > g")
                .into_iter()
                .map(|g| (g, String::new()))
                .collect();
        }
        for (index, (group, shown)) in self.board_parts.iter_mut().enumerate() {
            let part = drawn.part(index);
            if shown != part {
                group.set_inner_html(part);
                *shown = part.to_string();
            }
        }
        let state = self.run.state_at(frame);
        let beats: Vec<&str> = story::BEATS
            .iter()
            .zip(&self.beat_frames)
            .filter(|(_, at)| **at == Some(frame))
            .map(|(beat, _)| *beat)
            .collect();
        let data = [
            ("data-frame", frame.to_string()),
            ("data-scenario", self.moment.scenario.to_string()),
            ("data-strategy", self.moment.strategy.name().to_string()),
            ("data-seed", self.moment.seed.to_string()),
            ("data-time-ms", state.time_ms.to_string()),
            ("data-beats", beats.join(" ")),
        ];
        for (name, value) in data {
            let _ = svg.set_attribute(name, &value);
        }
    }

    fn render_sql(&mut self) {
        let (frame, lang) = (self.moment.frame, self.lang);
        let t = ui(lang);
        let mut html = crate::markup::Markup::default();
        html.raw(r#"<span class="sql-title">SQL</span>"#);
        match view::sql_at(&self.run, frame) {
            None => {
                html.raw(r#"<p class="sql-when">"#)
                    .text(t.sql_none)
                    .raw("</p>");
            }
            Some(shown) => {
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
                html.raw(r#"<code class="sql-statement" data-testid="sql-statement">"#)
                    .text(shown.sql)
                    .raw("</code>");
                html.raw(&format!(
                    r#"<p class="{class}" data-testid="sql-result">→ "#
                ))
                .text(&narrate::sql_outcome(shown.outcome, lang))
                .raw("</p>");
                html.raw(r#"<p class="sql-when">"#).text(&when).raw("</p>");
            }
        }
        dom::set_html(self.refs.get("sql"), &html.out);
    }

    fn render_transport(&mut self) {
        let key = (self.playing, self.moment.frame, self.last_frame());
        if fresh(&mut self.shown.transport, key) {
            let t = ui(self.lang);
            let play = self.refs.get("play");
            dom::set_text(
                play,
                &if self.playing {
                    format!("❚❚ {}", t.pause)
                } else {
                    format!("▶ {}", t.play)
                },
            );
            dom::set_attr(
                play,
                "aria-pressed",
                if self.playing { "true" } else { "false" },
            );
            dom::set_flag(
                self.refs.get("step-back"),
                "disabled",
                self.moment.frame == 0,
            );
            dom::set_flag(
                self.refs.get("step-forward"),
                "disabled",
                self.moment.frame >= self.last_frame(),
            );
        }
        if fresh(&mut self.shown.help, self.help_open) {
            dom::set_flag(self.refs.get("help-panel"), "hidden", !self.help_open);
            dom::set_attr(
                self.refs.get("help"),
                "aria-expanded",
                if self.help_open { "true" } else { "false" },
            );
        }
    }

    fn render_text(&mut self) {
        let (run, frame, lang) = (identity(&self.run), self.moment.frame, self.lang);
        if fresh(&mut self.shown.narrated, (run, frame)) {
            let text = words::narration(&self.run, self.moment.scenario, frame, lang, ui(lang));
            dom::set_text(self.refs.get("narration"), &text);
        }
        let body = self.refs.get("event-rows");
        if fresh(&mut self.shown.event_rows, run) {
            dom::set_html(body, &words::event_rows(&self.run, lang));
            let summary = format!(
                "{} ({})",
                ui(lang).events_summary,
                self.run.events().count()
            );
            dom::set_text(self.refs.get("events-summary"), &summary);
        }
        if let Some(body) = body {
            dom::mark_rows(body, frame);
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
            dom::set_html(
                self.refs.get("twin-still"),
                &twin::markup(&twin, &axis, self.lang),
            );
            dom::set_attr(
                self.refs.get("twin"),
                "viewBox",
                &format!("0 0 {width} {}", twin::HEIGHT),
            );
            let divergence = twin
                .divergence
                .as_ref()
                .map_or(String::new(), |d| d.time_ms.to_string());
            dom::set_attr(self.refs.get("twin"), "data-divergence-ms", &divergence);
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
        for (name, attrs) in [("twin-cursor", ["x1", "x2"]), ("knob", ["cx", "cx"])] {
            for attr in attrs {
                dom::set_attr(self.refs.get(name), attr, &x);
            }
        }
        let slider = self.refs.get("twin");
        let time = self.run.state_at(frame).time_ms;
        dom::set_attr(slider, "aria-valuemax", &self.last_frame().to_string());
        dom::set_attr(slider, "aria-valuenow", &frame.to_string());
        dom::set_attr(
            slider,
            "aria-valuetext",
            &format!("{} · {} {frame}", view::clock(time, lang), t.step_word),
        );
        for (top, line) in [(true, &twin.left), (false, &twin.right)] {
            // The world the lousa shows is read at its exact frame; the
            // other at the same place on the shared axis.
            let line_frame = if line.strategy == self.moment.strategy {
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
                narrate::amount(ledger.charged_cents),
                t.heard
            );
            let side = if top { "top" } else { "bottom" };
            dom::set_text(self.refs.get(&format!("figures-{side}")), &figures);
            let box_ = self.refs.get(&format!("ledger-{side}"));
            let on_time: Vec<String> = ledger
                .answers
                .iter()
                .filter(|a| !a.late)
                .map(|a| a.status.to_string())
                .collect();
            dom::set_attr(box_, "data-captures", &ledger.captures.to_string());
            dom::set_attr(
                box_,
                "data-charged-cents",
                &ledger.charged_cents.to_string(),
            );
            dom::set_attr(box_, "data-answers", &on_time.join(" "));
            dom::set_attr(box_, "data-frame", &line_frame.to_string());
            dom::toggle_class(box_, "is-double", ledger.double_charged);
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
