//! A small writer of SVG and HTML markup.
//!
//! The lousa and the twin timeline are pictures computed whole from one
//! frame: building them as one string and handing it to the browser in a
//! single `innerHTML` write keeps a seek to any frame well under a
//! millisecond and keeps the page's wasm small, and it lets native unit tests
//! read the picture as text. Every piece of text that comes from data goes
//! through [`escape`]. Coordinates are whole pixels: formatting floats would
//! cost the page kilobytes of code for no visible gain.

use std::fmt::Write;

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

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

/// Markup under construction.
#[derive(Default)]
pub struct Markup {
    pub out: String,
}

impl Markup {
    /// Writes raw markup: only for tags and attributes this crate spells out.
    pub fn raw(&mut self, markup: &str) -> &mut Self {
        self.out.push_str(markup);
        self
    }

    /// Writes escaped text.
    pub fn text(&mut self, text: &str) -> &mut Self {
        escape_into(&mut self.out, text);
        self
    }

    /// `<rect>` with rounded corners.
    pub fn rect(&mut self, x: i32, y: i32, width: i32, height: i32, class: &str) -> &mut Self {
        let _ = write!(
            self.out,
            r#"<rect x="{x}" y="{y}" width="{width}" height="{height}" rx="5" class="{class}"/>"#
        );
        self
    }

    pub fn line(&mut self, from: (i32, i32), to: (i32, i32), class: &str) -> &mut Self {
        let _ = write!(
            self.out,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}"/>"#,
            from.0, from.1, to.0, to.1
        );
        self
    }

    /// One line of `<text>`, escaped.
    pub fn label(&mut self, x: i32, y: i32, class: &str, text: &str) -> &mut Self {
        let _ = write!(self.out, r#"<text x="{x}" y="{y}" class="{class}">"#);
        self.text(text);
        self.out.push_str("</text>");
        self
    }

    /// Opens a `<g>` that assistive technology reads as one labelled group.
    pub fn group(&mut self, testid: &str, class: &str, label: &str, data: &str) -> &mut Self {
        let _ = write!(
            self.out,
            r#"<g data-testid="{testid}" class="{class}" role="group" aria-label=""#
        );
        self.text(label);
        self.out.push('"');
        self.out.push_str(data);
        self.out.push('>');
        self
    }

    pub fn end_group(&mut self) -> &mut Self {
        self.out.push_str("</g>");
        self
    }
}

/// Splits `text` at spaces into lines of at most `max_chars` characters (a
/// single longer word keeps its own line): SVG text does not wrap by itself.
pub fn wrap(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let needed =
            current.chars().count() + usize::from(!current.is_empty()) + word.chars().count();
        if !current.is_empty() && needed > max_chars {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// At most `max_chars` characters of `text`, with an ellipsis when cut.
pub fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut short: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_markup_in_data() {
        assert_eq!(
            escape(r#"<b>"it's" & more</b>"#),
            "&lt;b&gt;&quot;it&#39;s&quot; &amp; more&lt;/b&gt;"
        );
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(
            wrap("não sabe se cobrou", 10),
            vec!["não sabe", "se cobrou"]
        );
        assert_eq!(
            wrap("supercalifragilistic word", 5),
            vec!["supercalifragilistic", "word"]
        );
        assert!(wrap("", 5).is_empty());
    }

    #[test]
    fn shorten_keeps_short_text_and_marks_the_cut() {
        assert_eq!(shorten("abc", 5), "abc");
        assert_eq!(shorten("9d2f4c1a-6b3e", 9), "9d2f4c1a…");
    }
}
