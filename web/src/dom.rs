//! The places the page touches the browser: the URL and its history, the
//! article's step paragraphs and the reading line, the panels' elements, and
//! timers. Decisions are made elsewhere, from the plain values these return.

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

/// The height, from the top of the viewport, at which a paragraph counts as
/// being read: the middle of the viewport when the board sits beside the
/// text, or the middle of what is left below it when it sits above.
pub fn reading_line(board: Option<&Element>, first_step: &Element) -> f64 {
    let height = window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(800.0);
    let Some(board) = board else {
        return height / 2.0;
    };
    let board_rect = board.get_bounding_client_rect();
    let text_rect = first_step.get_bounding_client_rect();
    let beside = board_rect.left() >= text_rect.right() - 1.0
        || board_rect.right() <= text_rect.left() + 1.0;
    if beside {
        height / 2.0
    } else {
        // max/min rather than clamp: f64::clamp's assertion would format floats,
        // and float formatting costs the page kilobytes.
        (board_rect.bottom().max(0.0).min(height) + height) / 2.0
    }
}

/// The last step paragraph whose top has crossed the reading line, or `None`
/// while the reader is still above the first one. A pure function of where
/// the paragraphs are now: no scroll history is involved.
pub fn active_paragraph(steps: &[Element], line: f64) -> Option<usize> {
    let crossed = steps.partition_point(|el| el.get_bounding_client_rect().top() <= line);
    crossed.checked_sub(1)
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
    first
        .insert_adjacent_html(
            "beforebegin",
            r#"<div id="lousa-root" class="lousa-embedded"></div>"#,
        )
        .ok()?;
    by_id("lousa-root")
}

/// The element with this id. (A selector, so the page needs one fewer
/// browser function.)
pub fn by_id(id: &str) -> Option<Element> {
    document().query_selector(&format!("#{id}")).ok().flatten()
}

/// The elements of the two panels the app writes to, found by the
/// `data-testid` the browser tests also use.
pub struct Refs {
    lousa: Element,
    twin: Option<Element>,
    found: Vec<(String, Element)>,
}

impl Refs {
    pub fn new(lousa: Element, twin: Option<Element>) -> Refs {
        // The stylesheet scopes its rules to `.lz`, the two roots.
        for root in std::iter::once(&lousa).chain(&twin) {
            let _ = root.class_list().toggle_with_force("lz", true);
        }
        Refs {
            lousa,
            twin,
            found: Vec::new(),
        }
    }

    /// Replaces both panels' markup and finds their elements again.
    pub fn rebuild(&mut self, lousa: &str, twin: &str) {
        self.lousa.set_inner_html(lousa);
        if let Some(root) = &self.twin {
            root.set_inner_html(twin);
        }
        self.found.clear();
        for root in std::iter::once(&self.lousa).chain(&self.twin) {
            for el in all(root, "[data-testid]") {
                if let Some(name) = el.get_attribute("data-testid") {
                    self.found.push((name, el));
                }
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Element> {
        self.found.iter().find(|(n, _)| n == name).map(|(_, el)| el)
    }

    pub fn lousa_root(&self) -> &Element {
        &self.lousa
    }

    pub fn twin_root(&self) -> Option<&Element> {
        self.twin.as_ref()
    }
}

pub fn set_text(el: Option<&Element>, text: &str) {
    if let Some(el) = el {
        el.set_text_content(Some(text));
    }
}

pub fn set_html(el: Option<&Element>, html: &str) {
    if let Some(el) = el {
        el.set_inner_html(html);
    }
}

pub fn set_attr(el: Option<&Element>, name: &str, value: &str) {
    if let Some(el) = el {
        let _ = el.set_attribute(name, value);
    }
}

/// Adds or removes a boolean attribute such as `hidden` or `disabled`.
pub fn set_flag(el: Option<&Element>, name: &str, on: bool) {
    if let Some(el) = el {
        let _ = if on {
            el.set_attribute(name, "")
        } else {
            el.remove_attribute(name)
        };
    }
}

pub fn toggle_class(el: Option<&Element>, class: &str, on: bool) {
    if let Some(el) = el {
        let _ = el.class_list().toggle_with_force(class, on);
    }
}

/// Sets the `value` property of a `<select>` or `<input>`. (Through the
/// property by name: one import serves both kinds of control.)
pub fn set_value(el: Option<&Element>, value: &str) {
    if let Some(el) = el {
        let _ = js_sys::Reflect::set(el, &"value".into(), &value.into());
    }
}

/// The `value` property of a form control, as text.
pub fn value_of(el: &Element) -> Option<String> {
    js_sys::Reflect::get(el, &"value".into()).ok()?.as_string()
}

pub fn focus(el: Option<&Element>) {
    if let Some(el) = el.and_then(|el| el.dyn_ref::<HtmlElement>()) {
        let _ = el.focus();
    }
}

/// Highlights the event table's rows of `frame` and only those.
pub fn mark_rows(body: &Element, frame: usize) {
    for row in all(body, ".current") {
        let _ = row.class_list().toggle_with_force("current", false);
        let _ = row.remove_attribute("aria-current");
    }
    for row in all(body, &format!("[data-frame=\"{frame}\"]")) {
        let _ = row.class_list().toggle_with_force("current", true);
        let _ = row.set_attribute("aria-current", "step");
    }
}

/// Whether the tab is in the background.
pub fn page_hidden() -> bool {
    document().hidden()
}

/// Starts the playback timer, which calls `crate::on_timer` every `period_ms`.
pub fn set_interval(period_ms: u32) -> Option<i32> {
    crate::callbacks::with(|c| {
        window()
            .set_interval_with_callback_and_timeout_and_arguments_0(
                c.timer.as_ref().unchecked_ref(),
                period_ms as i32,
            )
            .ok()
    })
}

pub fn clear_interval(id: i32) {
    window().clear_interval_with_handle(id);
}

/// Logs a problem to the console: a panic, or an author's `data-*`
/// attribute that names nothing.
pub fn log_error(message: &str) {
    web_sys::console::error_1(&message.into());
}
