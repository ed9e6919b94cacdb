//! Leaf helpers every layer may use: the shared string type, a stable
//! hash, and the one way to cut a text for a message. They live apart so that the handler, the world and the fingerprint
//! need not import one another to name a string (issue #20).

use std::sync::Arc;

/// Text a world keeps but never edits (keys, response bodies): shared, so
/// cloning a world, which explorers do millions of times, copies no string.
/// It hashes as `str` does, like `String`.
pub(crate) type Text = Arc<str>;

/// FNV-1a: a stable hash for sticky routing and fingerprints (std's hasher
/// is not guaranteed stable across releases).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `n` and its noun, singular for one: "1 choice", "3 choices".
pub fn counted(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first `max` characters of `text`, and an ellipsis if there were
/// more, with control and direction-changing characters written as escapes
/// (`\u{202e}`): a link's text shown back must not reorder or hide the
/// sentence around it.
pub fn cut(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control()
            || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn a_cut_keeps_short_text_marks_the_cut_and_escapes_what_reorders() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("9d2f4c1a-6b3e", 8), "9d2f4c1a…");
        assert_eq!(cut("a\u{202e}b\n", 9), "a\\u{202e}b\\u{a}");
    }
}
