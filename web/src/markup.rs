//! Pictures as plain trees of elements.
//!
//! The lousa and the twin timeline are computed whole from one frame, as
//! [`El`] trees. Both pages make SVG elements from them
//! (`components::drawing`): the reader's page once per world, binding the
//! attributes and texts that change to the frame on screen, so a seek
//! changes a few attributes and text nodes in place instead of replacing
//! nodes, which the browser would have to style and lay out again from
//! scratch; the workshop's still pictures whole. Native unit tests read a
//! tree as markup text ([`El::markup`]). Coordinates are whole pixels:
//! formatting floats would cost the page kilobytes of code for no visible
//! gain.

use crate::text_width;
use lousa_core::text::cut;

/// Appends `text` with the five characters that are special in markup escaped.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text` escaped for markup (attribute values in [`El::markup`]).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// An element as a picture wants it: a tag, attributes in order, and either
/// text or child elements. Text and attribute values are plain (the DOM
/// takes them as they are), so nothing here needs escaping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct El {
    pub tag: &'static str,
    pub attrs: Vec<(&'static str, String)>,
    pub text: String,
    pub kids: Vec<El>,
}

pub fn el(tag: &'static str) -> El {
    El {
        tag,
        ..El::default()
    }
}

// The builders change an element in place and return it, and children are
// made inside their parent: a tree is built without moving elements around,
// which in the page's wasm would cost a copy of the element at every step.
// Plain `&str` and `i64` parameters rather than generic ones: one copy of
// each method in the page's code instead of one per argument type.
impl El {
    pub fn attr(&mut self, name: &'static str, value: &str) -> &mut El {
        self.attrs.push((name, value.to_string()));
        self
    }

    pub fn num(&mut self, name: &'static str, value: i64) -> &mut El {
        self.attr(name, &value.to_string())
    }

    pub fn class(&mut self, class: &str) -> &mut El {
        self.attr("class", class)
    }

    pub fn text(&mut self, text: &str) -> &mut El {
        self.text = text.to_string();
        self
    }

    /// A new last child.
    pub fn add(&mut self, tag: &'static str) -> &mut El {
        let at = self.kids.len();
        self.kids.push(el(tag));
        &mut self.kids[at]
    }

    /// Draws the element's content `x`, `y` pixels from the origin. A box or
    /// a row that moves between frames then changes one attribute instead
    /// of the coordinates of everything in it.
    pub fn shift(&mut self, x: i32, y: i32) -> &mut El {
        self.attr("transform", &format!("translate({x} {y})"))
    }

    /// A `<rect>` with rounded corners.
    pub fn rect(&mut self, x: i32, y: i32, width: i32, height: i32, class: &str) -> &mut El {
        self.add("rect")
            .num("x", x.into())
            .num("y", y.into())
            .num("width", width.into())
            .num("height", height.into())
            .attr("rx", "5")
            .class(class)
    }

    pub fn line(&mut self, from: (i32, i32), to: (i32, i32), class: &str) -> &mut El {
        self.add("line")
            .num("x1", from.0.into())
            .num("y1", from.1.into())
            .num("x2", to.0.into())
            .num("y2", to.1.into())
            .class(class)
    }

    /// One line of `<text>`.
    pub fn label(&mut self, x: i32, y: i32, class: &str, text: &str) -> &mut El {
        self.add("text")
            .num("x", x.into())
            .num("y", y.into())
            .class(class)
            .text(text)
    }

    /// A `<g>` that assistive technology reads as one labelled group.
    pub fn group(&mut self, testid: &str, class: &str, label: &str) -> &mut El {
        self.add("g")
            .attr("data-testid", testid)
            .class(class)
            .attr("role", "group")
            .attr("aria-label", label)
    }

    /// The element as markup: what the browser would hold (the workshop
    /// view writes the board this way).
    pub fn markup(&self) -> String {
        let mut out = format!("<{}", self.tag);
        for (name, value) in &self.attrs {
            out.push_str(&format!(r#" {name}="{}""#, escape(value)));
        }
        out.push('>');
        escape_into(&mut out, &self.text);
        for kid in &self.kids {
            out.push_str(&kid.markup());
        }
        out.push_str(&format!("</{}>", self.tag));
        out
    }
}

/// Splits `text` at spaces into lines at most `max_px` wide in the board's
/// font (a single longer word keeps its own line): SVG text does not wrap by
/// itself.
pub fn wrap(text: &str, max_px: i32, bold: bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    // Widths in tenths of a pixel, added word by word.
    let (room, space) = (max_px * 10, text_width::tenths(" ", bold));
    let mut used = 0;
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let width = text_width::tenths(word, bold);
        if !current.is_empty() && used + space + width > room {
            lines.push(std::mem::take(&mut current));
        }
        if current.is_empty() {
            used = width;
        } else {
            current.push(' ');
            used += space + width;
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// A key cut to fit its cell, keeping what tells keys apart: a key made
/// new for each retry (`<key>-r2`, `<key>-debito-2`) shows its short last
/// part, or four different keys would read the same and UNIQUE would seem
/// to fail.
pub fn short_key(key: &str) -> String {
    let tail = key.rfind('-').map_or("", |at| &key[at..]);
    if key.len() > 12 && (2..=4).contains(&tail.len()) {
        cut(&key[..key.len() - tail.len()], 6) + tail
    } else {
        cut(key, 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retry_key_shows_the_part_that_differs() {
        let key = lousa_core::builtins::STORY_KEY;
        assert_eq!(short_key(key), "9d2f4c1a…");
        assert_eq!(short_key(&format!("{key}-r2")), "9d2f4c…-r2");
        assert_ne!(
            short_key(&format!("{key}-r1")),
            short_key(&format!("{key}-r2"))
        );
        assert_eq!(short_key("k-1"), "k-1");
        // The balance scenarios' keys differ in their last part only.
        assert_eq!(short_key("5b1e0c7a-debito-2"), "5b1e0c…-2");
    }

    #[test]
    fn escape_neutralises_markup_in_data() {
        assert_eq!(
            escape(r#"<b>"it's" & more</b>"#),
            "&lt;b&gt;&quot;it&#39;s&quot; &amp; more&lt;/b&gt;"
        );
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        // In the regular face "não sabe" is 55 px, "não sabe se" 73 and
        // "se cobrou" 59.
        assert_eq!(
            wrap("não sabe se cobrou", 62, false),
            vec!["não sabe", "se cobrou"]
        );
        // Bold is wider: "se cobrou" is 66 px.
        assert_eq!(
            wrap("não sabe se cobrou", 62, true),
            vec!["não sabe", "se", "cobrou"]
        );
        assert_eq!(
            wrap("supercalifragilistic word", 30, false),
            vec!["supercalifragilistic", "word"]
        );
        assert!(wrap("", 30, false).is_empty());
    }
}
