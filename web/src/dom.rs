//! The places the page touches the browser outside Leptos's own view: the
//! URL and its history, the article's step paragraphs, focus, and measuring
//! text. Decisions are made elsewhere, from the plain values these return.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, Window};

pub fn window() -> Window {
    web_sys::window().expect("a page has a window")
}

pub fn document() -> Document {
    window().document().expect("a page has a document")
}

/// The query string of the page's URL, with its `?`.
pub fn location_query() -> String {
    window().location().search().unwrap_or_default()
}

/// Writes `query` into the URL, keeping the path and the hash (an anchor the
/// reader jumped to stays in the address). `push` adds a history entry, so
/// the browser's Back returns here; otherwise the entry is replaced.
pub fn write_url(query: &str, push: bool) {
    let location = window().location();
    if location.search().ok().as_deref() == Some(query) {
        return;
    }
    // A URL made of a query and a hash keeps the current path.
    let url = format!("{query}{}", location.hash().unwrap_or_default());
    let Ok(history) = window().history() else {
        return;
    };
    let state = wasm_bindgen::JsValue::NULL;
    let _ = if push {
        history.push_state_with_url(&state, "", Some(&url))
    } else {
        history.replace_state_with_url(&state, "", Some(&url))
    };
}

/// The elements under `root` that match `selector`, in document order.
pub fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into::<Element>().ok())
        .collect()
}

/// Every element of the document that names a story step, in page order.
pub fn step_paragraphs() -> Vec<Element> {
    document()
        .document_element()
        .map_or_else(Vec::new, |html| all(&html, "[data-step]"))
}

/// Whether the board sits beside the text (the page's wide layout) rather
/// than above it.
pub fn beside(board: &Element, first_step: &Element) -> bool {
    let board_rect = board.get_bounding_client_rect();
    let text_rect = first_step.get_bounding_client_rect();
    board_rect.left() >= text_rect.right() - 1.0 || board_rect.right() <= text_rect.left() + 1.0
}

/// Whether an element has a box on the page (`hidden` and `display: none`
/// give it none).
pub fn shown(el: &Element) -> bool {
    el.get_client_rects().length() > 0
}

/// Shows the article in one language (`code`, a `<html lang>` value): the
/// stylesheet shows the `.lang-en` or `.lang-pt` parts by `<html lang>`. The
/// title follows, and the twin timeline moves into that article's slot for
/// it (a page without slots, such as an embedding one, keeps it in place).
pub fn show_language(code: &str) {
    let doc = document();
    let Some(html) = doc.document_element() else {
        return;
    };
    if html.get_attribute("lang").as_deref() != Some(code) {
        let _ = html.set_attribute("lang", code);
    }
    let key = if code == "en" {
        "data-title-en"
    } else {
        "data-title-pt"
    };
    if let Some(title) = html.get_attribute(key) {
        doc.set_title(&title);
    }
    let slot = doc
        .query_selector(&format!(".twin-slot[data-lang=\"{code}\"]"))
        .ok()
        .flatten();
    if let (Some(slot), Some(twin)) = (slot, by_id("twin-root"))
        && twin.parent_element().as_ref() != Some(&slot)
    {
        let _ = slot.append_child(&twin);
    }
}

/// Marks the paragraph the lousa follows, and only that one.
pub fn mark_current(steps: &[Element], current: Option<usize>) {
    for (i, el) in steps.iter().enumerate() {
        let _ = el
            .class_list()
            .toggle_with_force("is-current", Some(i) == current);
    }
}

/// The root the lousa mounts into: `#lousa-root`, or one created before the
/// first step paragraph of a page that only added `data-step` attributes.
pub fn lousa_root() -> Option<Element> {
    let doc = document();
    if let Some(root) = by_id("lousa-root") {
        return Some(root);
    }
    let first = doc.query_selector("[data-step]").ok().flatten()?;
    let root = doc.create_element("div").ok()?;
    root.set_id("lousa-root");
    root.set_class_name("lousa-embedded");
    first
        .parent_node()?
        .insert_before(&root, Some(&first))
        .ok()?;
    Some(root)
}

/// Replaces what `root` holds with the sentence a panic leaves: `pt` with
/// the panic's `detail` in code, then `en`. (Built from nodes, not markup:
/// the detail is text, whatever it holds.)
#[cfg(not(panic = "immediate-abort"))]
pub fn show_failure(root: &Element, pt: &str, detail: &str, en: &str) {
    let doc = document();
    root.set_text_content(None);
    let paragraph = |text: &str| {
        let p = doc.create_element("p").ok()?;
        p.set_class_name("lousa-failure");
        p.set_text_content(Some(text));
        root.append_child(&p).ok()?;
        Some(p)
    };
    if let Some(p) = paragraph(&format!("{pt} ")) {
        let _ = p.set_attribute("role", "alert");
        if let Ok(code) = doc.create_element("code") {
            code.set_text_content(Some(detail));
            let _ = p.append_child(&code);
        }
    }
    if let Some(p) = paragraph(en) {
        let _ = p.set_attribute("lang", "en");
    }
}

/// The element with this id.
pub fn by_id(id: &str) -> Option<Element> {
    document().get_element_by_id(id)
}

/// The width `el` is laid out at, in whole pixels (0 when hidden).
pub fn width(el: Option<&Element>) -> i32 {
    // Whole pixels: formatting a float would add kilobytes to the page.
    el.map_or(0, |el| el.get_bounding_client_rect().width().ceil() as i32)
}

/// The height `el` is held to where the stylesheet says so, else 0: its
/// height where it is fixed (the custom property `--lousa-height: fixed`),
/// its `max-height` where only that limits it (`--lousa-height: max`, an
/// embedded board). A box whose height follows its drawing is not read
/// itself: each measure would feed back into the next.
pub fn fixed_height(el: &Element) -> i32 {
    let Some(style) = window().get_computed_style(el).ok().flatten() else {
        return 0;
    };
    let held = style
        .get_property_value("--lousa-height")
        .unwrap_or_default();
    match held.trim() {
        "fixed" => el.client_height(),
        // Whole pixels, read as an integer: parsing a float would link
        // the float parser, about 15 kB of the page's gzip.
        "max" => style
            .get_property_value("max-height")
            .ok()
            .and_then(|v| v.strip_suffix("px")?.split('.').next()?.parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

/// Copies of `el` with each of `n` contents, which `fill` writes, put in
/// a hidden box next to `el`, `width` pixels wide: the page, and a screen
/// reader, see none of them. [`largest`] reads their size. `None` when
/// `el` is not laid out (`width` 0).
///
/// The box contains its own layout, and several probes made one after
/// the other are laid out together by the first read: one layout, not
/// one for each content.
pub fn probe(
    el: Option<&Element>,
    width: i32,
    n: usize,
    mut fill: impl FnMut(&Element, usize),
) -> Option<Element> {
    let el = el.filter(|_| width > 0)?;
    let parent = el.parent_node()?;
    let holder = document().create_element("div").ok()?;
    let style = format!(
        "position:absolute;top:0;left:0;width:{width}px;height:0;overflow:hidden;visibility:hidden;contain:strict"
    );
    set_css(&holder, &style);
    let _ = holder.set_attribute("aria-hidden", "true");
    // A line of text (a span) is measured on one line, however narrow the
    // box it fits in now.
    let style = if el.tag_name() == "SPAN" {
        "display:block;width:max-content;white-space:nowrap"
    } else {
        "margin:0;contain:none;height:auto"
    };
    for i in 0..n {
        let Ok(copy) = el.clone_node_with_deep(true) else {
            continue;
        };
        let copy: Element = copy.unchecked_into();
        set_css(&copy, style);
        // Not a second narration or test target, even for a moment.
        for name in ["aria-live", "data-testid"] {
            let _ = copy.remove_attribute(name);
        }
        fill(&copy, i);
        let _ = holder.append_child(&copy);
    }
    let _ = parent.append_child(&holder);
    Some(holder)
}

/// Sets an element's inline style through the CSSOM: the page's
/// Content-Security-Policy refuses `style` attributes written as markup.
fn set_css(el: &Element, css: &str) {
    if let Some(el) = el.dyn_ref::<HtmlElement>() {
        el.style().set_css_text(css);
    }
}

/// The largest width and height, in whole pixels, of the copies in a
/// [`probe`] (zeros for none). Reading lays them out; removing the probes
/// only after all are read keeps that to one layout.
pub fn largest(probe: Option<&Element>) -> (i32, i32) {
    let mut most = (0, 0);
    let mut copy = probe.and_then(Element::first_element_child);
    while let Some(at) = copy {
        let size = at.get_bounding_client_rect();
        most.0 = most.0.max(size.width().ceil() as i32);
        most.1 = most.1.max(size.height().ceil() as i32);
        copy = at.next_element_sibling();
    }
    most
}

/// Writes a class (when given) and a text (when given) into each child of
/// `el`, in order.
pub fn fill_kids(el: &Element, kids: &[(Option<&str>, Option<&str>)]) {
    let mut kid = el.first_element_child();
    for (class, text) in kids {
        let Some(at) = kid else {
            return;
        };
        if let Some(class) = class {
            let _ = at.set_attribute("class", class);
        }
        if text.is_some() {
            at.set_text_content(*text);
        }
        kid = at.next_element_sibling();
    }
}

/// The element of the page whose `data-testid` is `name`.
pub fn by_testid(name: &str) -> Option<Element> {
    let selector = format!("[data-testid={name}]");
    document().query_selector(&selector).ok().flatten()
}

pub fn focus(el: Option<&Element>) {
    if let Some(el) = el.and_then(|el| el.dyn_ref::<HtmlElement>()) {
        // Without scrolling: the page's scroll position is the story's
        // position, and a control the app focuses is one the reader is at.
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = el.focus_with_options(&options);
    }
}

/// Whether the tab is in the background.
pub fn page_hidden() -> bool {
    document().hidden()
}

/// Logs a problem to the console: a panic, or an author's `data-*`
/// attribute that names nothing.
pub fn log_error(message: &str) {
    web_sys::console::error_1(&message.into());
}
