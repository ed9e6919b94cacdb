//! The places the page touches the browser: the URL and its history, the
//! article's step paragraphs and the reading line, the panels' elements, and
//! timers. Decisions are made elsewhere, from the plain values these return.

use crate::markup::El;
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
    if beside(board, first_step) {
        height / 2.0
    } else {
        let bottom = board.get_bounding_client_rect().bottom();
        // max/min rather than clamp: f64::clamp's assertion would format floats,
        // and float formatting costs the page kilobytes.
        (bottom.max(0.0).min(height) + height) / 2.0
    }
}

/// Whether the board sits beside the text (the page's wide layout) rather
/// than above it.
pub fn beside(board: &Element, first_step: &Element) -> bool {
    let board_rect = board.get_bounding_client_rect();
    let text_rect = first_step.get_bounding_client_rect();
    board_rect.left() >= text_rect.right() - 1.0 || board_rect.right() <= text_rect.left() + 1.0
}

/// The last step paragraph whose top has crossed the reading line, or `None`
/// while the reader is still above the first one. A pure function of where
/// the paragraphs are now: no scroll history is involved. A hidden paragraph
/// (`hidden`, `display: none` on a host page) has no box and reports its top
/// as 0: it is skipped, never taken for the top of the page.
pub fn active_paragraph(steps: &[Element], line: f64) -> Option<usize> {
    steps
        .iter()
        .rposition(|el| shown(el) && el.get_bounding_client_rect().top() <= line)
}

/// Whether an element has a box on the page.
pub fn shown(el: &Element) -> bool {
    el.get_client_rects().length() > 0
}

/// Marks the paragraph the lousa follows, and only that one.
pub fn mark_current(steps: &[Element], current: Option<usize>) {
    for (i, el) in steps.iter().enumerate() {
        let _ = el
            .class_list()
            .toggle_with_force("is-current", Some(i) == current);
    }
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

/// An element of the page and what the app last wrote to it. A write of
/// the value already there is skipped: it would still be a call into the
/// browser, and some writes (`textContent`, SVG coordinates) make it style
/// or lay out the element again even when nothing changed. A seek should
/// cost only what really changed.
pub struct Live {
    pub el: Element,
    tag: &'static str,
    /// `None` for an attribute known to be absent; an attribute not listed
    /// is unknown (the still markup may have set it) and is always written.
    attrs: Vec<(&'static str, Option<String>)>,
    text: Option<String>,
    /// The text node `text` went into.
    text_node: Option<web_sys::Node>,
    /// Whether children are made in the SVG namespace. (Known from where
    /// the element is rather than asked of the browser: one call fewer.)
    svg: bool,
    pub kids: Vec<Live>,
}

const SVG: &str = "http://www.w3.org/2000/svg";
const HTML: &str = "http://www.w3.org/1999/xhtml";

impl Live {
    fn new(el: Element, svg: bool) -> Live {
        Live {
            el,
            tag: "",
            attrs: Vec::new(),
            text: None,
            text_node: None,
            svg,
            kids: Vec::new(),
        }
    }

    /// Sets attribute `name`, or removes it for `None`.
    pub fn set(&mut self, name: &'static str, value: Option<&str>) {
        let at = self.attrs.iter().position(|(n, _)| *n == name);
        if let Some(i) = at {
            if self.attrs[i].1.as_deref() == value {
                return;
            }
            self.attrs.remove(i);
        }
        match (name, value) {
            // Through the CSSOM: the page's Content-Security-Policy refuses
            // a `style` attribute written as markup.
            ("style", Some(value)) => set_css(&self.el, value),
            (_, Some(value)) => {
                let _ = self.el.set_attribute(name, value);
            }
            (_, None) => {
                let _ = self.el.remove_attribute(name);
            }
        }
        self.attrs.push((name, value.map(str::to_string)));
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        let (_, value) = self.attrs.iter().find(|(n, _)| *n == name)?;
        value.as_deref()
    }

    /// Replaces the element's content with `text`. Once the element holds
    /// a text node, the node's data is changed instead: setting
    /// `textContent` would replace the node, and the browser would style it
    /// and build its layout again.
    pub fn set_text(&mut self, text: &str) {
        if self.text.as_deref() == Some(text) {
            return;
        }
        match &self.text_node {
            Some(node) => node.set_node_value(Some(text)),
            None => {
                self.el.set_text_content(Some(text));
                self.text_node = self.el.last_child();
            }
        }
        self.text = Some(text.to_string());
    }

    /// Makes the element's children what `want` describes. The children
    /// are kept and updated up to the first one whose tag differs; from
    /// there on they are made anew. A new frame of a picture has the same
    /// elements in the same places, so it rewrites attributes and text only.
    pub fn patch(&mut self, want: &[El]) {
        let mut i = 0;
        for wanted in want {
            if self.kids.get(i).is_some_and(|kid| kid.tag == wanted.tag) {
                self.kids[i].update(wanted);
            } else {
                self.truncate(i);
                let made = self.make(wanted);
                let _ = self.el.append_child(&made.el);
                self.kids.push(made);
            }
            i += 1;
        }
        self.truncate(i);
    }

    fn truncate(&mut self, len: usize) {
        for gone in self.kids.drain(len.min(self.kids.len())..) {
            gone.el.remove();
        }
    }

    /// A new element for `wanted`, in this element's namespace (SVG or
    /// HTML), filled while it is detached: the browser then styles and lays
    /// out the finished element once.
    fn make(&self, wanted: &El) -> Live {
        let namespace = if self.svg { SVG } else { HTML };
        let el = document()
            .create_element_ns(Some(namespace), wanted.tag)
            .unwrap_or_else(|_| panic!("cannot create an element"));
        // A leaf gets its text node now, even an empty one: a text that
        // comes later then changes the node, and a seek adds no node.
        let text_node = if wanted.kids.is_empty() {
            let _ = el.append_with_str_1(&wanted.text);
            el.last_child()
        } else {
            None
        };
        let mut made = Live {
            tag: wanted.tag,
            text: Some(wanted.text.clone()),
            text_node,
            ..Live::new(el, self.svg)
        };
        made.update(wanted);
        made
    }

    fn update(&mut self, wanted: &El) {
        // Attributes no longer wanted go. (`set` moves the entry it changes
        // to the end, as absent, so the same index is looked at again.)
        let mut i = 0;
        while let Some(&(name, ref value)) = self.attrs.get(i) {
            if value.is_some() && !wanted.attrs.iter().any(|(n, _)| *n == name) {
                self.set(name, None);
            } else {
                i += 1;
            }
        }
        for (name, value) in &wanted.attrs {
            self.set(name, Some(value));
        }
        if wanted.kids.is_empty() {
            self.set_text(&wanted.text);
        }
        self.patch(&wanted.kids);
    }
}

/// The width `el` is laid out at, in whole pixels (0 when hidden).
pub fn width(el: Option<&Element>) -> i32 {
    // Whole pixels: formatting a float would add kilobytes to the page.
    el.map_or(0, |el| el.get_bounding_client_rect().width().ceil() as i32)
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

/// The elements of the two panels the app writes to, found by the
/// `data-testid` the browser tests also use.
pub struct Refs {
    lousa: Element,
    twin: Option<Element>,
    found: Vec<(String, Live)>,
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
                    // The pictures' roots, whose children are SVG.
                    let svg = matches!(name.as_str(), "lousa" | "twin-still");
                    self.found.push((name, Live::new(el, svg)));
                }
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Element> {
        self.found
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, live)| &live.el)
    }

    /// The element named `name`, to write to.
    pub fn live(&mut self, name: &str) -> Option<&mut Live> {
        self.found
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, live)| live)
    }

    /// Sets (or, for `None`, removes) an attribute of the element named `name`.
    pub fn put(&mut self, name: &str, attr: &'static str, value: Option<&str>) {
        if let Some(live) = self.live(name) {
            live.set(attr, value);
        }
    }

    pub fn put_text(&mut self, name: &str, text: &str) {
        if let Some(live) = self.live(name) {
            live.set_text(text);
        }
    }

    pub fn lousa_root(&self) -> &Element {
        &self.lousa
    }

    pub fn twin_root(&self) -> Option<&Element> {
        self.twin.as_ref()
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

/// Runs the callback that measures worlds ahead in `ms` milliseconds.
pub fn set_timeout_ahead(ms: i32) {
    crate::callbacks::with(|c| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(
            c.ahead.as_ref().unchecked_ref(),
            ms,
        );
    });
}

pub fn clear_interval(id: i32) {
    window().clear_interval_with_handle(id);
}

/// Logs a problem to the console: a panic, or an author's `data-*`
/// attribute that names nothing.
pub fn log_error(message: &str) {
    web_sys::console::error_1(&message.into());
}
