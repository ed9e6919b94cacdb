//! Where a message's label goes: beside its dot, clear of the words in the
//! boxes, the other dots and the labels placed before it.
//!
//! A label drawn at one fixed corner of its dot ran into a box's line when
//! the dot sat on the box's border, and into its neighbour's label where
//! several wires meet (five requests reaching the load balancer at once).
//! Each label tries spots around its dot on rows above and below it and
//! takes the one that covers least: a word, a dot or another label counts
//! for much more than a box's empty part, and a spot farther out for a
//! little more than a nearer one.

use crate::text_width;

/// A rectangle by its edges, in the board's pixels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

impl Span {
    pub fn new(x: i32, y: i32, width: i32, height: i32) -> Span {
        Span {
            left: x,
            top: y,
            right: x + width,
            bottom: y + height,
        }
    }

    /// The area this span and `other` share, in square pixels.
    pub fn overlap(self, other: Span) -> i32 {
        let w = self.right.min(other.right) - self.left.max(other.left);
        let h = self.bottom.min(other.bottom) - self.top.max(other.top);
        if w > 0 && h > 0 { w * h } else { 0 }
    }

    /// The part of this span's area outside `bounds`.
    fn outside(self, bounds: Span) -> i32 {
        let area = (self.right - self.left) * (self.bottom - self.top);
        area - self.overlap(bounds)
    }
}

/// What a label should keep clear of.
#[derive(Clone, Debug, Default)]
pub struct Obstacles {
    /// Words already drawn: each line of each box, and the tables.
    pub words: Vec<Span>,
    /// The boxes: a label may cover a box's empty part, but would rather not.
    pub boxes: Vec<Span>,
    /// The drawing: a label outside it would be cut off.
    pub bounds: Span,
}

/// How a label's text sits on its `x`: SVG's `text-anchor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// Where a label's text goes, from its dot's centre: `dy` is the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spot {
    pub dx: i32,
    pub dy: i32,
    pub anchor: Anchor,
}

/// One label to place.
#[derive(Clone, Copy, Debug)]
pub struct Wanted {
    /// Its dot's centre.
    pub dot: (i32, i32),
    /// Its text's width (see [`width`]).
    pub width: i32,
    /// Whether it would rather go right of its dot: away from the box the
    /// dot has just left or is about to reach.
    pub right: bool,
}

/// A dot's radius (style.css's `.msg circle`).
const DOT: i32 = 6;
/// How far a label's text rises above and falls below its baseline at the
/// labels' 10 px bold (digits and `#` have no descender).
const ASCENT: i32 = 8;
const DESCENT: i32 = 1;
/// The baselines tried, nearest first: just above the dot, just below, then
/// a line further each way, up to four lines (a crowded board's acquirer
/// may have room for ten captures' label only above its box).
const ROWS: [i32; 10] = [-9, 17, -21, 29, -33, 41, -45, 53, -57, 65];
/// A word, a dot or another label covered costs this much more than the
/// same area of a box's empty part.
const HARD: i32 = 16;
/// What each step of [`ROWS`] away from the dot costs, in square pixels of
/// a box's empty part: a label moves one line away rather than cover most
/// of its area in a box (about 150 px²), where it would read as the box's.
const FARTHER: i32 = 100;

/// The width of a label's text: the labels are 10 px bold, the widths
/// [`text_width`] knows are 12 px.
pub fn width(text: &str) -> i32 {
    (text_width::tenths(text, true) + 11) / 12
}

/// The span a label's text covers when placed at `spot` from `dot`.
fn covers(dot: (i32, i32), width: i32, spot: Spot) -> Span {
    let x = dot.0 + spot.dx;
    let left = match spot.anchor {
        Anchor::Start => x,
        Anchor::Middle => x - width / 2,
        Anchor::End => x - width,
    };
    let baseline = dot.1 + spot.dy;
    Span {
        left,
        top: baseline - ASCENT,
        right: left + width,
        bottom: baseline + DESCENT,
    }
}

/// Places each of `wanted`, in order, clear of `obstacles`, of every dot in
/// `dots` and of the labels placed before it.
pub fn place(wanted: &[Wanted], dots: &[(i32, i32)], obstacles: &Obstacles) -> Vec<Spot> {
    let dot_spans: Vec<Span> = dots
        .iter()
        .map(|&(x, y)| Span::new(x - DOT, y - DOT, 2 * DOT, 2 * DOT))
        .collect();
    let mut placed: Vec<Span> = Vec::with_capacity(wanted.len());
    let mut out = Vec::with_capacity(wanted.len());
    for label in wanted {
        // Only what lies within reach of this label's spots can be
        // covered: a board has a hundred words, a label's reach a few.
        let (x, y) = label.dot;
        let reach = Span {
            left: x - DOT - 2 - label.width,
            top: y + ROWS[ROWS.len() - 2] - ASCENT - 1,
            right: x + DOT + 2 + label.width,
            bottom: y + ROWS[ROWS.len() - 1] + DESCENT + 1,
        };
        let near = |spans: &[Span]| -> Vec<Span> {
            spans
                .iter()
                .copied()
                .filter(|s| s.overlap(reach) > 0)
                .collect()
        };
        let mut hard = near(&obstacles.words);
        hard.extend(near(&dot_spans));
        hard.extend(near(&placed));
        let soft = near(&obstacles.boxes);
        let cost = |span: Span| {
            let covered: i32 = hard.iter().map(|o| span.overlap(*o)).sum();
            let boxes: i32 = soft.iter().map(|o| span.overlap(*o)).sum();
            (covered + span.outside(obstacles.bounds)) * HARD + boxes
        };
        let mut best = (
            i32::MAX,
            Spot {
                dx: DOT + 2,
                dy: ROWS[0],
                anchor: Anchor::Start,
            },
        );
        // On each row, nearest first: the preferred side, the other side,
        // then centred over the dot (which it must then clear).
        let (near_side, other_side) = if label.right {
            ((DOT + 2, Anchor::Start), (-DOT - 2, Anchor::End))
        } else {
            ((-DOT - 2, Anchor::End), (DOT + 2, Anchor::Start))
        };
        for (row, dy) in ROWS.into_iter().enumerate() {
            let far = (row / 2) as i32 * FARTHER;
            // No spot on this row or beyond can beat the best one.
            if far >= best.0 {
                break;
            }
            let centred = (0, Anchor::Middle);
            for (dx, anchor) in [near_side, other_side, centred] {
                let dy = match anchor {
                    Anchor::Middle if dy < 0 => dy - 1,
                    Anchor::Middle => dy + 1,
                    _ => dy,
                };
                let spot = Spot { dx, dy, anchor };
                let c = cost(covers(label.dot, label.width, spot)) + far;
                if c < best.0 {
                    best = (c, spot);
                }
            }
        }
        placed.push(covers(label.dot, label.width, best.1));
        out.push(best.1);
    }
    out
}

/// The attempts a label names, in order, with runs of three or more folded
/// into a range: "#1 #3–#5" rather than "#1 #3 #4 #5". Four or more that
/// still make three parts, or six or more that are not one range, are said
/// as the first and last with an ellipsis for what lies between
/// ("#11…#15"): where ten captures reach the
/// acquirer within a few steps, a label listing them all was wider than
/// the gap between two boxes. The
/// messages' group names every one of them to assistive technology.
pub fn numbers(attempts: &[u32]) -> String {
    let mut sorted = attempts.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("#{}–#{}", sorted[i] + 1, sorted[j] + 1));
        } else {
            parts.extend((i..=j).map(|k| format!("#{}", sorted[k] + 1)));
        }
        i = j + 1;
    }
    match (sorted.first(), sorted.last()) {
        (Some(first), Some(last))
            if parts.len() > 1 && sorted.len() > 5 || parts.len() > 2 && sorted.len() > 3 =>
        {
            format!("#{}…#{}", first + 1, last + 1)
        }
        _ => parts.join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(width: i32, height: i32) -> Obstacles {
        Obstacles {
            bounds: Span::new(0, 0, width, height),
            ..Obstacles::default()
        }
    }

    /// Where a lone label of `width` at `dot` goes among `obstacles`.
    fn one(dot: (i32, i32), width: i32, right: bool, obstacles: &Obstacles) -> Spot {
        place(&[Wanted { dot, width, right }], &[dot], obstacles)[0]
    }

    #[test]
    fn a_label_with_room_goes_to_its_preferred_side_above() {
        let spot = one((100, 100), 12, false, &open(300, 300));
        assert_eq!((spot.dx, spot.dy, spot.anchor), (-DOT - 2, -9, Anchor::End));
    }

    #[test]
    fn a_label_moves_off_a_word_it_would_cover() {
        let mut obstacles = open(300, 300);
        // A line of a box to the dot's right, level with the label's row.
        obstacles.words.push(Span::new(102, 85, 80, 12));
        let spot = one((100, 100), 12, true, &obstacles);
        let span = covers((100, 100), 12, spot);
        assert_eq!(span.overlap(obstacles.words[0]), 0, "{spot:?}");
        assert_eq!(spot.anchor, Anchor::End, "the other side, same row");
    }

    #[test]
    fn two_labels_of_near_dots_do_not_cover_each_other() {
        let dots = [(100, 100), (104, 114)];
        let wanted = dots.map(|dot| Wanted {
            dot,
            width: 14,
            right: true,
        });
        let spots = place(&wanted, &dots, &open(300, 300));
        let a = covers(dots[0], 14, spots[0]);
        let b = covers(dots[1], 14, spots[1]);
        assert_eq!(a.overlap(b), 0, "{spots:?}");
        for (span, dot) in [a, b].iter().zip(dots) {
            for other in dots {
                let circle = Span::new(other.0 - DOT, other.1 - DOT, 2 * DOT, 2 * DOT);
                assert_eq!(span.overlap(circle), 0, "{dot:?} {spots:?}");
            }
        }
    }

    #[test]
    fn with_no_free_spot_a_label_covers_the_least() {
        let mut obstacles = open(300, 300);
        // Words everywhere but a 3 px band left of the dot, just below it:
        // the spot low and left covers 6 of its 9 rows, every other more.
        obstacles.words.push(Span::new(0, 0, 300, 111));
        obstacles.words.push(Span::new(92, 111, 208, 3));
        obstacles.words.push(Span::new(0, 114, 300, 186));
        let spot = one((100, 100), 12, true, &obstacles);
        assert_eq!((spot.anchor, spot.dy), (Anchor::End, 17), "{spot:?}");
    }

    #[test]
    fn a_label_is_kept_inside_the_drawing() {
        let spot = one((4, 5), 20, false, &open(300, 300));
        let span = covers((4, 5), 20, spot);
        assert!(span.left >= 0 && span.top >= 0, "{spot:?} {span:?}");
    }

    #[test]
    fn runs_of_three_attempts_or_more_fold_into_a_range() {
        assert_eq!(numbers(&[0]), "#1");
        assert_eq!(numbers(&[1, 0]), "#1 #2");
        assert_eq!(numbers(&[4, 0, 2, 3]), "#1 #3–#5");
        assert_eq!(numbers(&[0, 1, 2, 3, 4]), "#1–#5");
        assert_eq!(numbers(&[10, 13, 14]), "#11 #14 #15");
        assert_eq!(numbers(&[10, 11, 13, 14]), "#11…#15");
        assert_eq!(numbers(&[5, 6, 7, 8, 9, 14]), "#6…#15");
        assert_eq!(numbers(&[5, 6, 7, 8, 9, 10]), "#6–#11");
    }

    #[test]
    fn widths_follow_the_labels_smaller_font() {
        // 12 px bold "#1" is 18.4 px; at 10 px it is 15.3.
        assert_eq!(width("#1"), 16);
        assert!(width("#1–#5") > width("#1 #2"));
    }
}
