//! The browser view of Lousa: the lousa beside the article, driven by
//! scrolling, and the twin timeline inside it.
//!
//! Architecture invariant: this crate only reads core data. It computes runs
//! from (scenario, strategy, seed) and maps what the reader does (scroll,
//! keys, a drag) to a frame index; every picture is a pure function of
//! (scenario, strategy, seed, frame). Codemap:
//!
//! - `state`: the [`state::Moment`] a URL holds, parsing and writing it.
//! - `worlds`: runs and twins computed from a moment, cached.
//! - `board`, `twin`, `words`, `skeleton`: pure functions from a run and a
//!   frame to element trees (`markup::El`), markup and text (tested
//!   natively, no browser needed).
//! - `quiz`: predict, then reveal: the questions asked at the decisive
//!   steps when the reader turns them on (the workshop's presenter mode
//!   asks them too).
//! - `app`: the state, the reader's actions, and the render step.
//! - `dom`, `callbacks`: the direct calls into the browser (including
//!   `dom::Live`, which writes a tree into the page touching only what
//!   changed) and the event listeners.

mod app;
pub mod board;
mod callbacks;
mod dom;
pub mod markup;
pub mod quiz;
mod skeleton;
pub mod state;
pub mod text;
pub mod twin;
pub mod words;
pub mod worlds;

use std::cell::RefCell;

thread_local! {
    /// The page's one app. Event handlers reach it through [`with_app`].
    static APP: RefCell<Option<app::App>> = const { RefCell::new(None) };
}

/// Runs `f` on the app, if it is mounted and not already busy (a handler
/// that fires while another runs is dropped rather than nested).
pub(crate) fn with_app<R>(f: impl FnOnce(&mut app::App) -> R) -> Option<R> {
    APP.with(|cell| {
        let mut guard = cell.try_borrow_mut().ok()?;
        guard.as_mut().map(f)
    })
}

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
        .and_then(|name| state::scenario_name(&name))
        .unwrap_or(state::DEFAULT_SCENARIO);
    let twin_root = dom::by_id("twin-root");
    let query = dom::location_query();
    let explicit = state::parse_query(&query).explicit;
    let app = app::App::new(&query, page_scenario, dom::Refs::new(root, twin_root));
    APP.with(|cell| *cell.borrow_mut() = Some(app));
    with_app(|app| {
        app.show_article_language();
        app.render();
        app.measure();
        // The paragraph at the reading line decides the first picture, unless
        // the URL named a moment: a shared link opens exactly that moment.
        app.track_scroll(app::Nav::Keep, !explicit);
    });
    callbacks::install();
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
        let message = format!(
            r#"<p class="lousa-failure" role="alert">{} <code>{}</code></p><p class="lousa-failure" lang="en">{}</p>"#,
            text::PT.failure,
            markup::escape(&detail),
            text::EN.failure,
        );
        for id in ["lousa-root", "twin-root"] {
            if let Some(root) = dom::by_id(id) {
                root.set_inner_html(&message);
            }
        }
    }));
}
