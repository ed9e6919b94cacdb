//! How wide the board's 12 px text is drawn, without a browser, so that the
//! pure layout can wrap a line and size a box for the words it holds.
//!
//! The widths are DejaVu Sans's, the font `system-ui` gives on Linux and the
//! widest of the common ones (Roboto, San Francisco and Segoe UI set the same
//! words narrower): a line measured to fit here fits on each of them.

/// Advance widths of `' '..='~'` at 12 px, in tenths of a pixel, regular
/// and bold (the board's 650 and 700 both draw DejaVu Sans Bold).
const REGULAR: [u8; 95] = [
    38, 48, 55, 101, 76, 114, 94, 33, 47, 47, 60, 101, 38, 43, 38, 40, // ' '..'/'
    76, 76, 76, 76, 76, 76, 76, 76, 76, 76, 40, 40, 101, 101, 101, 64, // '0'..'?'
    120, 82, 82, 84, 92, 76, 69, 93, 90, 35, 35, 79, 67, 104, 90, 94, // '@'..'O'
    72, 94, 83, 76, 73, 88, 82, 119, 82, 73, 82, 47, 40, 47, 101, 60, // 'P'..'_'
    60, 74, 76, 66, 76, 74, 42, 76, 76, 33, 33, 69, 33, 117, 76, 73, // '`'..'o'
    76, 76, 49, 63, 47, 76, 71, 98, 71, 71, 63, 76, 40, 76, 101, // 'p'..'~'
];
const BOLD: [u8; 95] = [
    42, 55, 63, 101, 83, 120, 105, 37, 55, 55, 63, 101, 46, 50, 46, 44, // ' '..'/'
    83, 83, 83, 83, 83, 83, 83, 83, 83, 83, 48, 48, 101, 101, 101, 70, // '0'..'?'
    120, 93, 91, 88, 100, 82, 82, 98, 100, 45, 45, 93, 76, 119, 100, 102, // '@'..'O'
    88, 102, 92, 86, 82, 97, 93, 132, 93, 87, 87, 55, 44, 55, 101, 60, // 'P'..'_'
    60, 81, 86, 71, 86, 81, 52, 86, 85, 41, 41, 80, 41, 125, 85, 82, // '`'..'o'
    86, 86, 59, 71, 57, 85, 78, 111, 77, 78, 70, 85, 44, 85, 101, // 'p'..'~'
];

/// A Portuguese letter's width is its base letter's, and the punctuation
/// the board's words use outside ASCII is measured as an ASCII character
/// at least as wide; anything else is given the table's widest width.
fn base(c: char) -> char {
    match c {
        '·' | '‘' | '’' => '.',
        '—' | '…' => '@',
        '→' | '←' | '×' | '≥' | '≤' => '+',
        '–' => '_',
        '“' | '”' => 'k',
        'ª' | 'º' => 'z',
        'á' | 'à' | 'â' | 'ã' => 'a',
        'é' | 'ê' => 'e',
        'í' => 'i',
        'ó' | 'ô' | 'õ' => 'o',
        'ú' | 'ü' => 'u',
        'ç' => 'c',
        'Á' | 'À' | 'Â' | 'Ã' => 'A',
        'É' | 'Ê' => 'E',
        'Í' => 'I',
        'Ó' | 'Ô' | 'Õ' => 'O',
        'Ú' => 'U',
        'Ç' => 'C',
        _ => c,
    }
}

/// The width of `text` in the board's 12 px font, in tenths of a pixel.
pub fn tenths(text: &str, bold: bool) -> i32 {
    let table = if bold { &BOLD } else { &REGULAR };
    text.chars()
        .map(|c| match (base(c) as usize).checked_sub(' ' as usize) {
            Some(i) if i < table.len() => i32::from(table[i]),
            _ => 132,
        })
        .sum()
}

/// The width of `text` in the board's 12 px font, in whole pixels (rounded
/// up).
pub fn px(text: &str, bold: bool) -> i32 {
    (tenths(text, bold) + 9) / 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_measure_as_the_browser_draws_them() {
        // Chromium's measureText with DejaVu Sans, 12 px: 64.5 and 74.0.
        assert_eq!(px("tentativas:", false), 65);
        assert_eq!(px("instância 1", true), 74);
        assert!(px("mmmm", false) > px("iiii", false) * 3);
        assert!(px("a", true) > px("a", false));
        assert_eq!(px("", false), 0);
        // Punctuation outside ASCII as the browser draws it: "·" is 3.8 px.
        assert_eq!(px("a · b", false), px("a . b", false));
        assert_eq!(px("→", false), 11);
        // Outside the table: wide, never zero.
        assert_eq!(px("✓", false), 14);
    }
}
