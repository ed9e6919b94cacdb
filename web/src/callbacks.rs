//! The event listeners: each turns a browser event into one action on the
//! app. Listeners live as long as the page, so their closures are leaked on
//! purpose; the timer's callback is kept here so one closure serves every
//! tick.

use crate::app::Nav;
use crate::dom;
use crate::with_app;
use lousa_core::Strategy;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{Element, Event, EventTarget, KeyboardEvent, PointerEvent};

/// The callbacks handed to timers, kept alive for the page's life: the
/// playback timer's, and the one that measures worlds ahead while the page
/// is idle.
pub struct Callbacks {
    pub timer: Closure<dyn FnMut()>,
    pub ahead: Closure<dyn FnMut()>,
}

/// How long the page waits before measuring the next world ahead: long
/// enough that a reader's scroll or key is never queued behind it.
const AHEAD_MS: i32 = 100;

thread_local! {
    static CALLBACKS: RefCell<Option<Callbacks>> = const { RefCell::new(None) };
}

pub fn with<R: Default>(f: impl FnOnce(&mut Callbacks) -> R) -> R {
    CALLBACKS.with(|cell| {
        cell.try_borrow_mut()
            .ok()
            .and_then(|mut c| c.as_mut().map(f))
            .unwrap_or_default()
    })
}

/// The element an event started on, or the nearest ancestor matching `selector`.
fn closest(event: &Event, selector: &str) -> Option<Element> {
    event
        .target()?
        .dyn_into::<Element>()
        .ok()?
        .closest(selector)
        .ok()
        .flatten()
}

/// Every event the page listens to goes through this one function: one
/// closure type instead of one per event keeps the page's code small.
fn on_event(event: Event) {
    match event.type_().as_str() {
        // Browsers fire scroll at most once per frame, so this runs no more
        // often than the page paints.
        "scroll" => {
            with_app(|app| app.track_scroll(Nav::Replace, false));
        }
        "resize" => {
            with_app(|app| {
                app.measure();
                app.track_scroll(Nav::Replace, false);
            });
        }
        "popstate" => {
            with_app(|app| app.restore(&dom::location_query()));
        }
        "keydown" => on_key(event.unchecked_ref()),
        "click" => on_click(&event),
        "change" => on_change(&event),
        "pointerdown" => on_pointer(event.unchecked_ref(), PointerPhase::Down),
        "pointermove" => on_pointer(event.unchecked_ref(), PointerPhase::Move),
        _ => on_pointer(event.unchecked_ref(), PointerPhase::Up),
    }
}

pub fn install() {
    CALLBACKS.with(|cell| {
        *cell.borrow_mut() = Some(Callbacks {
            timer: Closure::new(|| {
                with_app(|app| app.advance());
            }),
            // One world at a time, until none is left (or, busy, later).
            ahead: Closure::new(|| {
                if with_app(|app| app.prefetch_fit()).unwrap_or(true) {
                    dom::set_timeout_ahead(AHEAD_MS);
                }
            }),
        })
    });
    dom::set_timeout_ahead(AHEAD_MS * 5);
    // `Fn`, not `FnMut`: a handler may run inside another (removing an open
    // <select> while the language changes fires its `change` event at once),
    // and wasm-bindgen refuses to enter an `FnMut` closure twice. The app
    // itself drops the nested call (see `with_app`).
    let handler = Closure::<dyn Fn(Event)>::new(on_event);
    let listen = |target: &EventTarget, names: &[&str]| {
        for name in names {
            let _ = target.add_event_listener_with_callback(name, handler.as_ref().unchecked_ref());
        }
    };
    listen(&dom::window(), &["scroll", "resize", "popstate", "keydown"]);
    let roots = with_app(|app| app.roots()).unwrap_or_default();
    for root in &roots {
        listen(
            root,
            &[
                "click",
                "change",
                "pointerdown",
                "pointermove",
                "pointerup",
                "pointercancel",
            ],
        );
    }
    // Listeners live as long as the page.
    handler.forget();
}

/// The value of a one-digit string: the page's indexes (a speed, a
/// choice, a key) are all below ten, and `str::parse` would cost the wasm
/// more code than this.
fn digit(text: &str) -> Option<usize> {
    match text.as_bytes() {
        [d @ b'0'..=b'9'] => Some(usize::from(d - b'0')),
        _ => None,
    }
}

fn on_click(event: &Event) {
    let Some(el) = closest(event, "[data-action]") else {
        return;
    };
    let action = el.get_attribute("data-action").unwrap_or_default();
    with_app(|app| match action.as_str() {
        "back" => app.step(-1),
        "forward" => app.step(1),
        "play" => app.toggle_play(),
        "lang" => app.toggle_lang(),
        "help" => app.set_help(!app.help_open()),
        "help-close" => app.set_help(false),
        "predict" => app.toggle_predict(),
        "answer" => {
            if let Some(choice) = el.get_attribute("data-choice").as_deref().and_then(digit) {
                app.answer(choice);
            }
        }
        _ => {}
    });
}

fn on_change(event: &Event) {
    let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let name = target.get_attribute("data-testid").unwrap_or_default();
    let Some(value) = dom::value_of(&target) else {
        return;
    };
    with_app(|app| match name.as_str() {
        "speed" => {
            if let Some(index) = digit(&value) {
                app.set_speed(index);
            }
        }
        "scenario" => app.choose_scenario(&value),
        "strategy" => {
            if let Some(strategy) = Strategy::from_name(&value) {
                app.choose_strategy(strategy);
            }
        }
        "line-top" | "line-bottom" => {
            if let Some(strategy) = Strategy::from_name(&value) {
                app.choose_line(name == "line-top", strategy);
            }
        }
        _ => {}
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PointerPhase {
    Down,
    Move,
    Up,
}

/// Dragging or clicking on the twin drawing moves the cursor. The press
/// adds a history entry (Back returns to before the drag); the drag then
/// replaces it as the cursor moves.
fn on_pointer(event: &PointerEvent, phase: PointerPhase) {
    let Some(svg) = closest(event, "[data-testid=twin]") else {
        return;
    };
    with_app(|app| {
        match phase {
            PointerPhase::Up => {
                app.dragging = false;
                return;
            }
            PointerPhase::Move if !app.dragging => return,
            PointerPhase::Down => {
                app.dragging = true;
                let _ = svg.set_pointer_capture(event.pointer_id());
            }
            PointerPhase::Move => {}
        }
        let rect = svg.get_bounding_client_rect();
        let scale = f64::from(app.twin_width()) / rect.width().max(1.0);
        let x = ((f64::from(event.client_x()) - rect.left()) * scale) as i32;
        app.seek_twin_x(
            x,
            if phase == PointerPhase::Down {
                Nav::Push
            } else {
                Nav::Replace
            },
        );
    });
}

/// The keyboard: arrows or J/K step, Space plays, a digit answers the
/// board's question, `?` opens the help. Keys typed into a form control
/// stay there, and Space on a button presses that button.
fn on_key(event: &KeyboardEvent) {
    if event.default_prevented() || event.ctrl_key() || event.meta_key() {
        return;
    }
    let target = event.target().and_then(|t| t.dyn_into::<Element>().ok());
    let inside = |selector: &str| {
        target
            .as_ref()
            .and_then(|el| el.closest(selector).ok().flatten())
            .is_some()
    };
    let in_form = inside("input, select, textarea");
    let on_button = inside("button, summary, a");
    let key = event.key();
    let handled = with_app(|app| match key.as_str() {
        "Escape" if app.help_open() => {
            app.set_help(false);
            true
        }
        _ if in_form => false,
        "ArrowLeft" | "j" | "J" => {
            app.step(-1);
            true
        }
        "ArrowRight" | "k" | "K" => {
            app.step(1);
            true
        }
        " " if !on_button => {
            app.toggle_play();
            true
        }
        "?" => {
            app.set_help(!app.help_open());
            true
        }
        // A digit answers the question on screen (1 is the first choice).
        key if app.asking() => digit(key)
            .and_then(|n| n.checked_sub(1))
            .is_some_and(|choice| app.answer(choice)),
        _ => false,
    })
    .unwrap_or(false);
    if handled {
        event.prevent_default();
    }
}
