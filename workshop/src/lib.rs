//! The workshop view of Lousa (`?modo=oficina`): the board gets the screen,
//! the attendee picks every choice of the scheduler, the explorer's worker
//! counts every interleaving, and any schedule goes home as an export.
//!
//! Codemap, in import order (each module uses only those above it):
//!
//! - `texts`: every sentence of the view, one table per language
//!   (`texts/pt.rs`, `texts/en.rs`) with a section per part of the screen;
//! - `url`: the state a link carries, read (with lousa-web's `url`, the
//!   reader both pages share) and written;
//! - `state`: that state as signals, the run as a memo, the actions;
//! - `alternatives`: the words for a choice point's alternatives;
//! - `edit`: the scenario editor's fields and what an edit makes;
//! - `design_edit`: the design tab's edits of a design (add, move,
//!   remove, rename, the menus' choices);
//! - `explorer`: the explorer's Web Workers, owned by the page that calls
//!   `use_explorer`, started, asked and cancelled;
//! - `resize`: a box's size changes, watched, for what is drawn for its
//!   width (the board on a phone, the branch's two lines);
//! - `board`, `scheduler`, `counts`, `sweep`, `exports`, `share`,
//!   `handout`, `lesson`, `editor`, `design_tab`, `branch`: the components of each part of the
//!   screen (`sweep_map` draws the sweep's heatmaps, worked out as data);
//! - `presenter`: presenter mode, the board alone for a room, and its
//!   predict-then-reveal questions;
//! - `app`: the page that holds them.
//!
//! Like the reader's page, it only reads lousa-core's data and draws with
//! lousa-web's pure pictures; the simulation is the core's.

mod alternatives;
mod app;
mod board;
mod branch;
mod counts;
mod design_edit;
mod design_tab;
pub mod edit;
mod editor;
mod explorer;
mod exports;
mod handout;
mod lesson;
mod presenter;
mod resize;
mod scheduler;
mod share;
mod state;
mod sweep;
mod sweep_map;
mod texts;
pub mod url;

use wasm_bindgen::JsCast;

/// Mounts the workshop into `#oficina-root`, creating it if the page has none.
pub fn start() {
    let document = leptos::prelude::document();
    let root = match document.get_element_by_id("oficina-root") {
        Some(root) => root,
        None => {
            let root = document.create_element("div").expect("a div");
            root.set_id("oficina-root");
            document
                .body()
                .expect("a body")
                .append_child(&root)
                .expect("appended");
            root
        }
    };
    root.remove_attribute("hidden").ok();
    let root: web_sys::HtmlElement = root.unchecked_into();
    leptos::mount::mount_to(root, app::Workshop).forget();
}
