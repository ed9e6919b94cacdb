//! The width to draw a board at when its box has a fixed height as well as
//! a width (the reader's board above the text on a phone), or a maximum
//! height (an embedded board), so that the drawing, scaled to fit both,
//! draws its text as large as it can.
//!
//! A board laid out for a narrow box wraps its texts into many lines and
//! comes out taller than the box; scaled down to the box's height it then
//! leaves the sides empty. Laid out wider, its boxes wrap less and it gets
//! shorter: its scale is set by the width once the drawing is wide enough.
//! The best width is where the two scales meet.

use crate::board::{Layout, layout};
use lousa_core::narrate::Lang;
use lousa_core::run::Run;

/// How many widths past the box's own the search lays the board out at:
/// each is a layout of every frame, so a world opened on a phone costs up
/// to this many more.
const TRIES: usize = 5;

/// The widest drawing tried, as a multiple of the box's width: past it the
/// text would be a third of its size however short the board.
const WIDEST: i32 = 3;

/// How large `layout` draws in a box `width` × `height`: the factor from
/// the drawing's pixels to the box's.
fn scale(layout: &Layout, width: i32, height: i32) -> f64 {
    let across = f64::from(width) / f64::from(layout.width.max(1));
    let down = f64::from(height) / f64::from(layout.tallest.max(1));
    across.min(down)
}

/// The width to lay `run` out at for a box `width` × `height` pixels: the
/// box's width when the board fits it that way (or the box has no fixed
/// height, `height` 0), else the width, of those tried, whose drawing
/// scales largest.
pub fn drawing_width(run: &Run, width: i32, height: i32, lang: Lang) -> i32 {
    // A box whose height follows its drawing needs no layout here.
    if height <= 0 {
        return width;
    }
    let first = layout(run, width, lang);
    if !height_bound(&first, width, height) {
        return first.width;
    }
    let mut best = (scale(&first, width, height), first.width);
    // At `narrow` the height sets the scale, at `wide` the width does (a
    // board drawn wider is never taller): the best width lies between.
    let mut narrow = first.width;
    let mut wide = (i64::from(width) * i64::from(first.tallest) / i64::from(height))
        .min(i64::from(width) * i64::from(WIDEST)) as i32;
    for _ in 0..TRIES {
        if wide - narrow < 2 {
            break;
        }
        let middle = narrow + (wide - narrow) / 2;
        let tried = layout(run, middle, lang);
        let s = scale(&tried, width, height);
        if s > best.0 {
            best = (s, tried.width);
        }
        if height_bound(&tried, width, height) {
            narrow = middle;
        } else {
            wide = middle;
        }
    }
    best.1
}

/// Whether `layout` in that box is scaled by its height, not its width.
fn height_bound(layout: &Layout, width: i32, height: i32) -> bool {
    i64::from(layout.tallest) * i64::from(width) > i64::from(height) * i64::from(layout.width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::Strategy;
    use lousa_core::builtins::{NAMES, builtin};

    fn run(name: &str, strategy: Strategy) -> Option<Run> {
        let mut scenario = builtin(name).expect("built-in");
        scenario.strategy = strategy;
        lousa_core::run(&scenario).ok()
    }

    /// The boxes of a 320 px and a 375 px phone held upright.
    const PHONES: [(i32, i32); 2] = [(296, 230), (351, 240)];

    #[test]
    fn a_board_never_draws_smaller_than_laid_out_for_its_box() {
        for name in NAMES {
            for strategy in Strategy::ALL {
                let Some(run) = run(name, strategy) else {
                    continue;
                };
                for (w, h) in PHONES {
                    let own = scale(&layout(&run, w, Lang::Pt), w, h);
                    let drawn = drawing_width(&run, w, h, Lang::Pt);
                    let fitted = scale(&layout(&run, drawn, Lang::Pt), w, h);
                    assert!(
                        fitted >= own,
                        "{name} {strategy:?} in {w}x{h}: {fitted:.3} at {drawn} px < {own:.3}"
                    );
                    assert!(drawn >= w && drawn <= w * WIDEST, "{name} at {drawn} px");
                }
            }
        }
    }

    #[test]
    fn a_tall_board_on_a_phone_is_drawn_wider_and_its_text_larger() {
        // race-2 under check-then-act wraps into a board half again as
        // tall as a 320 px phone's box.
        let run = run("race-2", Strategy::CheckThenAct).expect("runs");
        let (w, h) = PHONES[0];
        let own = scale(&layout(&run, w, Lang::Pt), w, h);
        let drawn = drawing_width(&run, w, h, Lang::Pt);
        let fitted = scale(&layout(&run, drawn, Lang::Pt), w, h);
        assert!(drawn > w, "drawn at {drawn} px");
        assert!(fitted > own * 1.1, "{fitted:.3} against {own:.3}");
    }

    #[test]
    fn a_board_that_fits_its_box_keeps_the_box_width() {
        let run = run("timeout-retry", Strategy::IdempotencyKey).expect("runs");
        assert_eq!(drawing_width(&run, 351, 240, Lang::Pt), 351);
        // A box with no height set (beside the text) takes its width.
        assert_eq!(drawing_width(&run, 400, 0, Lang::Pt), 400);
    }
}
