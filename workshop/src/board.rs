//! The lousa at the frame on screen, drawn by lousa-web's pure `board`
//! pictures, with the choice point's alternatives as numbered buttons on
//! the actors they move.

use crate::alternatives::{Label, labels};
use crate::state::Ws;
use crate::texts::words;
use leptos::prelude::*;
use lousa_core::Strategy;
use lousa_core::narrate::Lang;
use lousa_core::run::Run;
use lousa_core::trace::Actor;
use lousa_web::board::{self, Measured};
use lousa_web::text::ui;
use lousa_web::words::{narration, sql_texts};
use lousa_web::{Narration, SqlPanel};
use wasm_bindgen::JsCast;

/// The width the board is drawn for, but in presenter mode; the SVG scales
/// to its box.
pub const WIDTH: i32 = 760;
/// A board box narrower than this (a phone's) gets a drawing of its own
/// width, out of presenter mode (which picks among widths of its own).
const NARROW_BELOW: i32 = 480;

/// A badge's place over the board, in pixels from its top left corner.
#[derive(Clone, Debug, PartialEq)]
struct Badge {
    choice: u32,
    /// The key that picks it, as the list beside the board numbers it.
    key: usize,
    label: String,
    left: f64,
    top: f64,
}

/// The board, its narration and the step counter. The drawing is
/// recomputed for each run (a turn), and each frame is written whole: the
/// workshop moves on clicks, not at the reader's scrolling pace.
/// `width` is the width to draw for: [`WIDTH`], or presenter mode's.
#[component]
pub fn Board(#[prop(into)] width: Signal<i32>) -> impl IntoView {
    let ws = expect_context::<Ws>();
    // Sized by the frames the board can show, and only the frame on screen
    // drawn: a run of thousands of steps costs what its shown part costs.
    let checkpoints = StoredValue::new(Checkpoints::default());
    // On a phone the board's box is narrower than any width the board is
    // drawn for elsewhere: there it is drawn for its box (not below
    // board::narrowest, which a narrower box shows scaled), as the reader's
    // page draws it, so its text stays legible.
    let narrow = RwSignal::new(None::<i32>);
    let resized = RwSignal::new(0u32);
    let wrap = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        resized.track();
        let Some(wrap) = wrap.get() else {
            return;
        };
        let box_width = wrap.client_width();
        let fits = (box_width > 0 && box_width < NARROW_BELOW).then_some(box_width);
        if narrow.get_untracked() != fits {
            narrow.set(fits);
        }
    });
    let layout = Memo::new(move |_| {
        let lang = ws.lang.get();
        let width = match narrow.get() {
            Some(fits) if !ws.presenting.get() => fits,
            _ => width.get(),
        };
        let last = ws.last_frame();
        let scheduling = !ws.on_branch.get() && !ws.presenting.get();
        let of = (ws.link(), ws.strategy.get(), width, lang);
        let choices = ws.choices.get();
        ws.with_shown(|r| {
            let r = r?;
            if !scheduling {
                return Some((width, board::layout_through(r, last, width, lang)));
            }
            let mut measured = None;
            checkpoints.update_value(|c| measured = Some(c.measure(of, &choices, r, last)));
            measured.map(|m| (width, m.layout()))
        })
    });
    // The frame on screen, drawn: the same element trees the reader's page
    // makes its board of, made into SVG elements whole at each step.
    let parts = move || {
        let frame = ws.frame();
        let lang = ws.lang.get_untracked();
        ws.with_shown(|r| {
            layout.with(|l| match (r, l) {
                (Some(r), Some((width, layout))) => board::board(r, frame, *width, lang, layout)
                    .parts
                    .iter()
                    .map(lousa_web::still)
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
        })
    };
    // What the drawing depends on, for the effect that places the badges
    // once it is on screen.
    let drawn_at = move || {
        ws.with_shown(|_| ());
        layout.track();
        ws.frame()
    };
    let viewbox = move || {
        layout.with(|l| {
            let (w, h) = l
                .as_ref()
                .map_or((WIDTH, 200), |(_, l)| (l.width, l.tallest));
            format!("0 0 {w} {h}")
        })
    };
    let badges = RwSignal::new(Vec::<Badge>::new());
    // After the board is written, find the actors the alternatives move.
    Effect::new(move |_| {
        resized.track();
        let _ = drawn_at();
        // In presenter mode the room watches; the scheduler's badges stay off.
        let at_point = ws.viewed.get().is_none() && !ws.on_branch.get() && !ws.presenting.get();
        let lang = ws.lang.get();
        let wanted: Vec<Label> = if at_point {
            ws.turn
                .with(|t| t.as_ref().ok().map(|t| labels(t, lang)).unwrap_or_default())
        } else {
            Vec::new()
        };
        let Some(wrap) = wrap.get() else {
            return;
        };
        let small = narrow.get_untracked().is_some();
        badges.set(place(&wrap, &wanted, small));
    });
    // The board's box changes size without a window resize too (leaving
    // presenter mode brings the side panel back): the badges are placed
    // again whenever it does.
    crate::resize::on_resize(wrap, move || resized.update(|n| *n += 1));
    // Once per frame, for the SQL panel's four texts.
    let sql = Memo::new(move |_| {
        let (frame, lang) = (ws.frame(), ws.lang.get());
        ws.with_shown(|r| r.map(|r| sql_texts(r, frame, lang, false).into_view()))
            .unwrap_or_default()
    });
    let pick = move |choice: u32| ws.pick(choice);
    view! {
        <div
            class="board-wrap"
            class:narrow=move || narrow.get().is_some()
            node_ref=wrap
            data-testid="workshop-board-wrap"
        >
            <lousa_web::Board
                view_box=viewbox
                label=move || words(ws.lang.get()).board_label
                frame=move || ws.frame()
                scenario=move || ws.scenario.get().to_string()
                strategy=move || ws.strategy.get().name()
                attr:data-line=move || if ws.on_branch.get() { "branch" } else { "run" }
            >
                {parts}
            </lousa_web::Board>
            {move || {
                badges
                    .get()
                    .into_iter()
                    .map(|b| {
                        let choice = b.choice;
                        view! {
                            <button
                                class="pick-badge"
                                data-testid="pick-badge"
                                data-choice=choice.to_string()
                                aria-label=b.label.clone()
                                title=b.label
                                style:left=format!("{:.0}px", b.left)
                                style:top=format!("{:.0}px", b.top)
                                on:click=move |_| pick(choice)
                            >
                                {b.key.to_string()}
                            </button>
                        }
                    })
                    .collect_view()
            }}
        </div>
        <Narration height=|| None said=move || {
            let lang = ws.lang.get();
            let frame = ws.frame();
            ws.with_shown(|r| r.map(|r| narration(r, ws.scenario.get(), frame, lang, ui(lang))))
                .unwrap_or_else(|| ws.turn.with(|t| t.as_ref().err().cloned().unwrap_or_default()))
        } />
        <SqlPanel height=|| None sql=move || sql.get() />
    }
}

/// The layouts measured for the scheduler's run, each under the choices
/// that fixed its frames: a pick measures only the frames it adds, and an
/// undo finds its layout kept.
#[derive(Default)]
struct Checkpoints {
    /// The world, width and language they are of.
    of: Option<(String, Strategy, i32, Lang)>,
    kept: Vec<(Vec<u32>, Measured)>,
}

/// Checkpoints kept; past it the oldest goes.
const CHECKPOINTS_MAX: usize = 64;

impl Checkpoints {
    /// The layout of `run`'s frames up to `last`, the turn's frame that
    /// `choices` reach. A checkpoint under a prefix of `choices` measured
    /// frames those choices fixed, which `run` shares.
    fn measure(
        &mut self,
        of: (String, Strategy, i32, Lang),
        choices: &[u32],
        run: &Run,
        last: usize,
    ) -> Measured {
        if self.of.as_ref() != Some(&of) {
            self.kept.clear();
        }
        let (_, _, width, lang) = of;
        self.of = Some(of);
        let mut m = self
            .kept
            .iter()
            .filter(|(c, m)| choices.starts_with(c) && m.through().is_some_and(|t| t <= last))
            .max_by_key(|(c, _)| c.len())
            .map_or_else(|| Measured::new(run, width), |(_, m)| m.clone());
        m.extend(run, last, lang);
        if !self.kept.iter().any(|(c, _)| c == choices) {
            if self.kept.len() == CHECKPOINTS_MAX {
                self.kept.remove(0);
            }
            self.kept.push((choices.to_vec(), m.clone()));
        }
        m
    }
}

/// How far apart two badges on one actor are, and how far a badge reaches
/// in from its box's right edge and up from its top, in CSS pixels.
const BADGE_STEP: f64 = 30.0;
const BADGE_IN: f64 = 14.0;
const BADGE_UP: f64 = 12.0;
/// A badge's size (style.css's `.pick-badge`), and on a board drawn for a
/// phone's box (`.narrow .pick-badge`).
const BADGE: (f64, f64) = (31.0, 36.0);
const SMALL_BADGE: (f64, f64) = (24.0, 24.0);

/// Where each wanted badge goes: at the top right of its actor's box,
/// several on one actor side by side, never over the box's title (a
/// phone's board is drawn small, and a badge at the corner covered the
/// client's number), and moved up off the box, or down to its bottom
/// edge, where it would cover another word (the balancer's tag beside the
/// second client on a phone) or a badge placed before it. Alternatives about no drawn actor (the
/// network) get none; the list beside the board has them all.
fn place(wrap: &web_sys::HtmlDivElement, wanted: &[Label], small: bool) -> Vec<Badge> {
    let origin = wrap.get_bounding_client_rect();
    let (width, height) = if small { SMALL_BADGE } else { BADGE };
    let words: Vec<web_sys::DomRect> = wrap
        .query_selector_all("svg text")
        .map(|list| {
            (0..list.length())
                .filter_map(|i| list.item(i))
                .filter(|n| n.text_content().is_some_and(|t| !t.trim().is_empty()))
                .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
                .map(|e| e.get_bounding_client_rect())
                .collect()
        })
        .unwrap_or_default();
    // Whether a badge at (left, top) would cover a word, or a badge placed
    // before it (at (left, top) too).
    let overlaps = |left: f64, top: f64, (l, t, r, b): (f64, f64, f64, f64)| {
        let across = (left + width).min(r) - left.max(l);
        let down = (top + height).min(b) - top.max(t);
        across > 1.0 && down > 3.0
    };
    let covers = |left: f64, top: f64, badges: &[(f64, f64)]| {
        words
            .iter()
            .map(|w| (w.left(), w.top(), w.right(), w.bottom()))
            .chain(badges.iter().map(|&(l, t)| (l, t, l + width, t + height)))
            .any(|span| overlaps(left, top, span))
    };
    // Each wanted badge's key, label and actor element, and how many
    // badges each actor carries.
    let mut found: Vec<(usize, &Label, String, web_sys::Element)> = Vec::new();
    for (n, label) in wanted.iter().enumerate() {
        let Some(testid) = testid(label.actor) else {
            continue;
        };
        let selector = format!("[data-testid=\"{testid}\"]");
        if let Ok(Some(el)) = wrap.query_selector(&selector) {
            found.push((n + 1, label, testid, el));
        }
    }
    let mut placed: Vec<(String, usize)> = Vec::new();
    // Where the badges placed so far are, in the page's pixels.
    let mut taken: Vec<(f64, f64)> = Vec::new();
    let mut out = Vec::new();
    for (key, label, testid, el) in &found {
        let count = found.iter().filter(|f| f.2 == *testid).count();
        let slot = match placed.iter_mut().find(|(t, _)| t == testid) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                placed.push((testid.clone(), 0));
                0
            }
        };
        let rect = el.get_bounding_client_rect();
        // The box's first line is its title ("cliente 1").
        let title_end = el
            .query_selector("text")
            .ok()
            .flatten()
            .map_or(rect.left(), |t| t.get_bounding_client_rect().right());
        let first =
            (rect.right() - BADGE_IN - BADGE_STEP * (count - 1) as f64).max(title_end + 3.0);
        let left = first + BADGE_STEP * slot as f64;
        let tops = [
            rect.top() - BADGE_UP,
            rect.top() - height + 2.0,
            rect.bottom() - height / 2.0,
        ];
        let top = tops
            .into_iter()
            .find(|top| !covers(left, *top, &taken))
            .unwrap_or(tops[0]);
        taken.push((left, top));
        out.push(Badge {
            choice: label.choice,
            key: *key,
            label: label.text.clone(),
            left: left - origin.left(),
            top: top - origin.top(),
        });
    }
    out
}

/// The board's element for an actor, by its `data-testid`.
fn testid(actor: Actor) -> Option<String> {
    match actor {
        Actor::Client(i) | Actor::Queue(i) => Some(format!("client-{i}")),
        Actor::Instance(i) => Some(format!("instance-{i}")),
        Actor::LoadBalancer => Some("load-balancer".into()),
        Actor::Acquirer => Some("acquirer".into()),
        Actor::Database => Some("database".into()),
        Actor::Network | Actor::Recovery | Actor::Relay => None,
    }
}
