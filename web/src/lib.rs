//! The browser view of Lousa: the lousa beside the article, driven by
//! scrolling, and the twin timeline inside it, as a Leptos client-side app.
//!
//! Architecture invariant: this crate only reads core data. It computes runs
//! from (scenario, strategy, seed) and maps what the reader does (scroll,
//! keys, a drag) to a frame index; every picture is a pure function of
//! (scenario, strategy, seed, frame). Codemap, in import order:
//!
//! - `url`: the tolerant URL reader both pages share: a query read pair by
//!   pair, and one [`url::Problem`] type for what a page could not use.
//! - `state`: the [`state::Moment`] a URL holds, parsing and writing it.
//! - `worlds`: runs and twins computed from a moment.
//! - `markup`, `board`, `twin`, `words`, `text`: pure functions from a run
//!   and a frame to element trees (`markup::El`) and text (tested natively,
//!   no browser needed); `text_width`: how wide the board's font draws a
//!   text, for wrapping it; `sql_short`: a statement's short form for the SQL
//!   panel above the text; `drawn`: a world's board for all its frames;
//!   `board_aspect`: the width to draw a board at in a box of fixed height;
//!   `label_place`: where a message's label goes, clear of the words.
//! - `keys`: both pages' keyboards, as maps from a key press to a command
//!   (the reader's, the workshop's, presenter mode's).
//! - `quiz`: predict, then reveal: the questions asked at the decisive
//!   steps when the reader turns them on (the workshop's presenter mode
//!   asks them too).
//! - `model`: the state as signals and memos, and the reader's actions.
//! - `components`: the Leptos components that render it.
//! - `dom`, `fit`, `scroll`, `effects`: the browser outside the view (URL,
//!   measuring, the step paragraphs' observer, listeners and timers).

pub mod board;
mod board_aspect;
mod components;
pub use components::{
    Board, EventTable, Narration, ProblemList, QuizPanel, SqlPanel, Transport, TwoLines,
    play_on_timer, still,
};
mod dom;
mod drawn;
mod effects;
mod fit;
pub mod keys;
mod label_place;
pub mod markup;
mod model;
pub mod quiz;
mod scroll;
mod sql_short;
pub mod state;
pub mod text;
mod text_width;
pub mod twin;
pub mod url;
pub mod words;
pub mod worlds;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Finds the page's roots and mounts the lousa (and the twin timeline when
/// the page has a `#twin-root`). A page that only marked paragraphs with
/// `data-step` gets a `#lousa-root` created before the first of them.
pub fn start() {
    #[cfg(not(panic = "immediate-abort"))]
    show_panics_on_the_page();
    let Some(root) = dom::lousa_root() else {
        return;
    };
    let page_scenario = root
        .get_attribute("data-scenario")
        .and_then(|name| lousa_core::builtins::static_name(&name))
        .unwrap_or(state::DEFAULT_SCENARIO);
    let twin_root = dom::by_id("twin-root");
    let query = dom::location_query();
    let explicit = state::parse_query(&query).explicit;
    // The page's reactive owner lives as long as the page.
    let owner = Owner::new();
    owner.with(|| {
        let lousa = model::Lousa::new(&query, page_scenario);
        provide_context(lousa);
        for (root, twin) in std::iter::once((root, false)).chain(twin_root.map(|r| (r, true))) {
            // The stylesheet scopes its rules to `.lz`, the two roots; the
            // static fallback text gives way to the app.
            let _ = root.class_list().add_1("lz");
            root.set_text_content(None);
            let root: web_sys::HtmlElement = root.unchecked_into();
            if twin {
                mount_to(root, components::TwinTimeline).forget();
            } else {
                mount_to(root, components::LousaPanel).forget();
            }
        }
        effects::install(lousa, !explicit);
    });
    std::mem::forget(owner);
}

/// A panic logs its message and place to the console (the browser tests
/// fail on it) and replaces the lousa with a sentence saying so, instead of
/// a frozen board. (Written here rather than with console_error_panic_hook:
/// the stack trace that crate adds costs the page more than it tells.)
/// The page that ships is built so that a panic traps at once, before any
/// hook (see `x`, PAGE_TOOLCHAIN); `web/loader.js` then says the same
/// sentence. Other builds (native tests, a stable `trunk build`) keep this.
#[cfg(not(panic = "immediate-abort"))]
fn show_panics_on_the_page() {
    std::panic::set_hook(Box::new(|info| {
        let what = info.payload_as_str().unwrap_or("panic");
        let place = info
            .location()
            .map(|l| format!(" ({}:{})", l.file(), l.line()))
            .unwrap_or_default();
        let detail = format!("{what}{place}");
        dom::log_error(&format!("lousa: {detail}"));
        for id in ["lousa-root", "twin-root"] {
            if let Some(root) = dom::by_id(id) {
                dom::show_failure(&root, text::PT.failure, &detail, text::EN.failure);
            }
        }
    }));
}
