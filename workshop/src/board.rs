//! The lousa at the frame on screen, drawn by lousa-web's pure `board`
//! pictures, with the choice point's alternatives as numbered buttons on
//! the actors they move.

use crate::alternatives::{Label, labels};
use crate::state::Ws;
use crate::texts::words;
use leptos::prelude::*;
use lousa_core::trace::Actor;
use lousa_web::board;
use lousa_web::markup::El;
use lousa_web::text::ui;
use lousa_web::words::narration;
use wasm_bindgen::JsCast;

/// The width the board is drawn for, but in presenter mode; the SVG scales
/// to its box.
pub const WIDTH: i32 = 760;

/// A badge's place over the board, in pixels from its top left corner.
#[derive(Clone, Debug, PartialEq)]
struct Badge {
    choice: u32,
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
    let shown = Memo::new(move |_| ws.shown_run());
    let drawn = Memo::new(move |_| {
        let lang = ws.lang.get();
        let width = width.get();
        shown.with(|r| r.as_ref().map(|r| (width, board::frames(r, width, lang))))
    });
    let markup = move || {
        let frame = ws.frame();
        drawn.with(|d| {
            d.as_ref().map_or_else(String::new, |(_, (_, boards))| {
                boards
                    .get(frame)
                    .map_or_else(String::new, |b| b.parts.iter().map(El::markup).collect())
            })
        })
    };
    let viewbox = move || {
        drawn.with(|d| {
            let (w, h) = d
                .as_ref()
                .map_or((WIDTH, 200), |(w, (l, _))| (*w, l.tallest));
            format!("0 0 {w} {h}")
        })
    };
    let badges = RwSignal::new(Vec::<Badge>::new());
    let resized = RwSignal::new(0u32);
    let wrap = NodeRef::<leptos::html::Div>::new();
    // After the board is written, find the actors the alternatives move.
    Effect::new(move |_| {
        resized.track();
        let _ = markup();
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
        badges.set(place(&wrap, &wanted));
    });
    let handle = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n += 1);
    });
    on_cleanup(move || handle.remove());
    let pick = move |choice: u32| ws.pick(choice);
    view! {
        <div class="board-wrap" node_ref=wrap data-testid="workshop-board-wrap">
            <svg
                data-testid="lousa"
                class="board"
                role="group"
                aria-label=move || words(ws.lang.get()).board_label
                viewBox=viewbox
                preserveAspectRatio="xMidYMin meet"
                data-frame=move || ws.frame().to_string()
                data-scenario=move || ws.scenario.get()
                data-strategy=move || ws.strategy.get().name()
                data-line=move || if ws.on_branch.get() { "branch" } else { "run" }
                inner_html=markup
            ></svg>
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
                                {(choice + 1).to_string()}
                            </button>
                        }
                    })
                    .collect_view()
            }}
        </div>
        <p class="narration" data-testid="narration" aria-live="polite">
            {move || {
                let lang = ws.lang.get();
                let frame = ws.frame();
                match shown.get() {
                    Some(r) => narration(&r, ws.scenario.get(), frame, lang, ui(lang)),
                    None => ws.turn.with(|t| t.as_ref().err().cloned().unwrap_or_default()),
                }
            }}
        </p>
    }
}

/// Where each wanted badge goes: at the top right of its actor's box,
/// several on one actor side by side. Alternatives about no drawn actor
/// (the network) get none; the list beside the board has them all.
fn place(wrap: &web_sys::HtmlDivElement, wanted: &[Label]) -> Vec<Badge> {
    let origin = wrap.get_bounding_client_rect();
    let mut per_actor: Vec<(String, u32)> = Vec::new();
    let mut out = Vec::new();
    for label in wanted {
        let Some(testid) = testid(label.actor) else {
            continue;
        };
        let selector = format!("[data-testid=\"{testid}\"]");
        let Ok(Some(el)) = wrap.query_selector(&selector) else {
            continue;
        };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else {
            continue;
        };
        let rect = el.get_bounding_client_rect();
        let slot = match per_actor.iter_mut().find(|(t, _)| *t == testid) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                per_actor.push((testid.clone(), 0));
                0
            }
        };
        out.push(Badge {
            choice: label.choice,
            label: label.text.clone(),
            left: rect.right() - origin.left() - 14.0 - 30.0 * f64::from(slot),
            top: rect.top() - origin.top() - 12.0,
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
        Actor::Network | Actor::Recovery => None,
    }
}
