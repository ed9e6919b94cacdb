//! A query string's values as both pages read and quote them: decoded from
//! percent escapes, and shown back cut short with every character that
//! could reorder or hide the sentence around it written as an escape.

use crate::text::cut;

/// `value` with its percent escapes and `+` decoded. A broken escape is
/// kept as it came; bytes that are not UTF-8 become U+FFFD.
pub fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    char::from(b).to_digit(16).map(|d| d as u8)
}

/// [`cut`] of the decoded `value`, decoding no more of it than can show:
/// a megabyte of a value costs what its first characters cost.
pub fn quoted(value: &str, max: usize) -> String {
    // An escaped character takes at most 4 escapes of 3 bytes.
    let mut end = value.len().min(max.saturating_add(1).saturating_mul(12));
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    cut(&decode(&value[..end]), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_survives_broken_escapes() {
        assert_eq!(decode("a%20b+c"), "a b c");
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("%C3%A9"), "é");
        assert_eq!(decode("%é%"), "%é%");
    }

    #[test]
    fn a_quoted_value_is_decoded_cut_and_escaped() {
        assert_eq!(quoted("race%2D9", 40), "race-9");
        assert_eq!(quoted("%E2%80%AEabc", 40), "\\u{202e}abc");
        assert_eq!(quoted(&"x".repeat(1_000_000), 3), "xxx…");
        assert_eq!(quoted(&"%C3%A9".repeat(100), 2), "éé…");
    }
}
