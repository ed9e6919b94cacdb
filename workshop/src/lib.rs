//! The workshop view of Lousa (`?modo=oficina`): the board gets the screen,
//! the attendee picks every choice of the scheduler, the explorer's worker
//! counts every interleaving, and any schedule goes home as an export.

use leptos::prelude::*;

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
    let root: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(root);
    leptos::mount::mount_to(root, || view! { <p data-testid="workshop">"Oficina"</p> }).forget();
}
