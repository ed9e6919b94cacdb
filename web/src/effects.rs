//! Where the page reaches the world outside its view: the window's keys,
//! history and size, the playback timer, the measuring of text boxes, and
//! the work left for when the page is idle.

use crate::components::controls::set_help;
use crate::components::quiz::answer;
use crate::dom;
use crate::fit::{self, Fits};
use crate::keys::{self, Press, ReaderKey};
use crate::model::{Lousa, STACKED_BELOW_PX, WorldKey};
use crate::scroll::{self, Steps};
use crate::text::html_lang;
use crate::worlds;
use gloo_timers::callback::Timeout;
use leptos::ev;
use leptos::prelude::*;
use web_sys::KeyboardEvent;

/// How long the page waits before measuring the next world ahead: long
/// enough that a reader's scroll or key is never queued behind it.
const AHEAD_MS: u32 = 100;

/// Starts everything that listens to the browser, once the panels are
/// mounted. `apply_first`: the paragraph at the reading line decides the
/// first picture (the URL named no moment).
pub fn install(lousa: Lousa, apply_first: bool) {
    measure(&lousa);
    let steps = Steps::start(lousa, apply_first);
    show_article_language(lousa, steps.clone());
    if !apply_first {
        // After the effects above have laid the article out (the two lines
        // move into it).
        let at = steps.clone();
        request_animation_frame(move || at.open_at_moment());
    }
    let on_resize = steps.clone();
    window_event_listener(ev::resize, move |_| {
        measure(&lousa);
        on_resize.measure();
    });
    // The reading line sits below a board above the text, whose bottom
    // moves as its contents take their sizes or as it scrolls away (on a
    // host page it is not sticky): each scroll places the line where the
    // board now ends, before the observer looks at the paragraphs. It
    // costs one rectangle while the line stays put.
    let on_scroll = steps.clone();
    window_event_listener(ev::scroll, move |_| on_scroll.measure());
    window_event_listener(ev::popstate, move |_| lousa.restore(&dom::location_query()));
    window_event_listener(ev::keydown, move |e| on_key(&lousa, &e));
    crate::components::play_on_timer(lousa.playing, lousa.speed, move || lousa.advance());
    veil_while_asking(lousa, steps.clone());
    let fits = StoredValue::new_local(Fits::default());
    fit_text_boxes(lousa, fits);
    Timeout::new(AHEAD_MS * 5, move || measure_ahead(lousa, fits)).forget();
    // The observer lives as long as the page.
    std::mem::forget(steps);
}

/// Keeps the article, the document's `lang` and title, and the twin
/// timeline's place in the reader's language.
fn show_article_language(lousa: Lousa, steps: Steps) {
    Effect::new(move |_| {
        let code = html_lang(lousa.lang.get());
        steps.keep_place(|| dom::show_language(code));
    });
}

/// While the board asks, the text that tells its answer is veiled.
fn veil_while_asking(lousa: Lousa, steps: Steps) {
    Effect::new(move |_| {
        let asking = lousa
            .quiz
            .with(|q| q.as_ref().and_then(|q| q.asking().map(|p| p.ask_at)));
        steps.veil(asking);
    });
}

/// Reads the widths the board and the twin timeline really have, and the
/// board's height where the stylesheet fixes it.
fn measure(lousa: &Lousa) {
    let width = |name| {
        dom::by_testid(name)
            .map(|el| el.client_width())
            .filter(|w| *w > 0)
    };
    if let Some(w) = width("board-wrap") {
        lousa.board_width.set(w);
    }
    let height = dom::by_testid("board-wrap").map_or(0, |el| dom::fixed_height(&el));
    if lousa.board_height.get_untracked() != height {
        lousa.board_height.set(height);
    }
    if let Some(w) = width("twin-wrap") {
        lousa.twin_width.set(w);
    }
    let stacked = dom::window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w < STACKED_BELOW_PX);
    if lousa.stacked.get_untracked() != stacked {
        lousa.stacked.set(stacked);
    }
}

/// Gives the text boxes the sizes of their longest texts in the world on
/// screen (see `fit`), measured once per world, width and language.
fn fit_text_boxes(lousa: Lousa, fits: StoredValue<Fits, LocalStorage>) {
    Effect::new(move |_| {
        let key = (lousa.world.get(), lousa.board_width.get(), lousa.lang.get());
        let fit = match fits.with_value(|f| f.get(&key)) {
            Some(fit) => fit,
            None => {
                let fit = lousa
                    .run
                    .with_untracked(|run| fit::measure(run, key.0.0, key.2));
                fits.update_value(|f| {
                    f.remember(key, fit);
                });
                fit
            }
        };
        lousa.fit.set(fit);
    });
}

/// Measures the text boxes of one world that a paragraph of the article
/// shows and that has no measure yet at this width and language, then
/// waits and goes on to the next: scrolling into that world later measures
/// nothing (a first visit costs several milliseconds more without).
fn measure_ahead(lousa: Lousa, fits: StoredValue<Fits, LocalStorage>) {
    let (seed, width, lang) = (
        lousa.moment.with_untracked(|m| m.seed),
        lousa.board_width.get_untracked(),
        lousa.lang.get_untracked(),
    );
    let missing = dom::step_paragraphs().iter().find_map(|paragraph| {
        let (target, _) = scroll::target_of(&lousa, paragraph);
        let world: WorldKey = (target.scenario, target.strategy, seed);
        let key = (world, width, lang);
        fits.with_value(|f| f.get(&key)).is_none().then_some(key)
    });
    let Some(key) = missing else {
        return;
    };
    let Ok(run) = worlds::run(key.0.0, key.0.1, key.0.2) else {
        return;
    };
    let fit = fit::measure(&run, key.0.0, lang);
    if fits.try_update_value(|f| f.remember(key, fit)) == Some(true) {
        Timeout::new(AHEAD_MS, move || measure_ahead(lousa, fits)).forget();
    }
}

/// The keyboard: arrows or J/K step, Space plays, a digit answers the
/// board's question, `?` opens the help. Keys typed into a form control
/// stay there, and Space on a button presses that button.
fn on_key(lousa: &Lousa, event: &KeyboardEvent) {
    let help_open = lousa.help_open.get_untracked();
    let handled = match keys::reader(&Press::of(event), help_open, lousa.asking()) {
        None => false,
        Some(ReaderKey::CloseHelp) => {
            set_help(lousa, false);
            true
        }
        Some(ReaderKey::ToggleHelp) => {
            set_help(lousa, !help_open);
            true
        }
        Some(ReaderKey::Step(by)) => {
            lousa.step(by);
            true
        }
        Some(ReaderKey::TogglePlay) => {
            lousa.toggle_play();
            true
        }
        Some(ReaderKey::Answer(choice)) => answer(lousa, choice),
    };
    if handled {
        event.prevent_default();
    }
}
