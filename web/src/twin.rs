//! The twin timeline ("as duas linhas"): two runs with one seed, drawn as
//! two lines on one time axis: two designs of one scenario, or the two
//! scenarios of a pair (the same failure without and with one option).
//!
//! Events that share an instant are common (a race happens entirely at
//! 0 ms), so a linear time axis would pile them into one pixel. The axis
//! gives each instant as many slots as the busier line has events then, and
//! puts a gap between instants that grows with the time between them: order
//! and simultaneity stay exact, and long waits still look long.
//!
//! Everything here is a pure function of a `Twin` and a width; the cursor is
//! a [`Cursor`] (time, events at that time), so both lines can be read at the
//! same place even though their frame numbers differ.

use crate::markup::{El, el};
use crate::text::ui;
use crate::text_width;
use lousa_core::narrate::Lang;
use lousa_core::story::Twin;
use lousa_core::trace::{EventKind, TraceEvent};
use lousa_core::view::{self, Cursor};

/// Height of the drawing in pixels.
pub const HEIGHT: i32 = 220;
/// Where the axis's instants are written, under the bottom line.
const TICKS_Y: i32 = 198;
const TOP_LINE_Y: i32 = 72;
const BOTTOM_LINE_Y: i32 = 136;
const MARGIN: i32 = 14;

/// Where things sit on the axis, in pixels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// Every place the cursor can stop, left to right.
    pub stops: Vec<(Cursor, i32)>,
    pub left_x: Vec<i32>,
    pub right_x: Vec<i32>,
    /// Where a long wait is drawn much shorter than it lasted: a break
    /// mark on both lines says the axis is not to scale there.
    pub breaks: Vec<i32>,
    pub width: i32,
}

/// Half the width a label takes, estimated from its characters: what keeps
/// labels of one row, and the ticks, apart.
fn half_width(text: &str) -> i32 {
    4 * text.chars().count() as i32
}

/// Waits longer than this are marked as breaks in the axis.
const BREAK_MS: u64 = 100;

/// Half-slots of gap between two instants `gap_ms` apart: one more for each
/// tenfold longer wait.
fn gap_halves(gap_ms: u64) -> i64 {
    let mut halves = 2;
    let mut limit = 10;
    while gap_ms > limit && halves < 12 {
        halves += 2;
        limit *= 10;
    }
    halves
}

/// The distinct values of two lists, ascending: the instants either run
/// has an event at.
fn distinct_sorted(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut all = [a, b].concat();
    all.sort_unstable();
    all.dedup();
    all
}

fn times(events: &[&TraceEvent]) -> Vec<u64> {
    events.iter().map(|e| e.time_ms).collect()
}

/// A twin and its axis at one width: what the timeline draws.
#[derive(Debug)]
pub struct TwinView {
    pub twin: Twin,
    pub axis: Axis,
}

impl TwinView {
    pub fn new(twin: Twin, width: i32) -> TwinView {
        let axis = Axis::new(&twin, width);
        TwinView { twin, axis }
    }
}

impl Axis {
    pub fn new(twin: &Twin, width: i32) -> Axis {
        let left: Vec<&TraceEvent> = twin.left.events().map(|(_, e)| e).collect();
        let right: Vec<&TraceEvent> = twin.right.events().map(|(_, e)| e).collect();
        let (left_t, right_t) = (times(&left), times(&right));
        let instants = distinct_sorted(&left_t, &right_t);
        let count = |ts: &[u64], t: u64| ts.iter().filter(|x| **x == t).count() as i64;

        // Positions in half-slots first; scaled to pixels at the end.
        let mut start_of = Vec::with_capacity(instants.len());
        let mut gaps = Vec::new();
        let mut halves: i64 = 0;
        for (i, &t) in instants.iter().enumerate() {
            if i > 0 {
                let gap = gap_halves(t - instants[i - 1]);
                if t - instants[i - 1] > BREAK_MS {
                    gaps.push(halves + gap / 2);
                }
                halves += gap;
            }
            start_of.push(halves);
            halves += 2 * count(&left_t, t).max(count(&right_t, t));
        }
        let total = halves.max(1);
        let span = i64::from(width - 2 * MARGIN).max(1);
        let px = |h: i64| MARGIN + (h * span / total) as i32;
        let start = |t: u64| start_of[instants.partition_point(|x| *x < t)];

        let place = |ts: &[u64]| {
            let mut seen_at = (u64::MAX, 0);
            ts.iter()
                .map(|&t| {
                    let nth = if seen_at.0 == t { seen_at.1 + 1 } else { 0 };
                    seen_at = (t, nth);
                    px(start(t) + 2 * nth + 1)
                })
                .collect::<Vec<i32>>()
        };
        let left_x = place(&left_t);
        let right_x = place(&right_t);

        let first = instants.first().copied().unwrap_or(0);
        let mut stops = vec![
            (Cursor::default(), px(0)),
            (
                Cursor {
                    time_ms: first,
                    events_at_time: 0,
                },
                px(0),
            ),
        ];
        for (i, &t) in instants.iter().enumerate() {
            let n = count(&left_t, t).max(count(&right_t, t));
            for k in 1..=n {
                let cursor = Cursor {
                    time_ms: t,
                    events_at_time: k as usize,
                };
                stops.push((cursor, px(start_of[i] + 2 * k)));
            }
        }
        stops.dedup_by(|a, b| a.0 == b.0);
        Axis {
            stops,
            left_x,
            right_x,
            breaks: gaps.into_iter().map(px).collect(),
            width,
        }
    }

    /// The x of a cursor: its stop, or the nearest stop before it when the
    /// cursor comes from a design that is on neither line.
    pub fn x_of(&self, cursor: Cursor) -> i32 {
        let after = self.stops.partition_point(|(c, _)| *c <= cursor);
        self.stops[after.saturating_sub(1)].1
    }

    /// The stop nearest to `x` pixels.
    pub fn nearest(&self, x: i32) -> Cursor {
        self.stops
            .iter()
            .min_by_key(|(_, sx)| (sx - x).abs())
            .map(|(c, _)| *c)
            .unwrap_or_default()
    }
}

/// What a mark looks like: its class, and a label for the events a reader
/// compares between the lines (captures, timeouts, answers).
fn mark(event: &TraceEvent, lang: Lang) -> (&'static str, Option<String>) {
    match &event.kind {
        EventKind::Captured {
            captures_for_intent,
            ..
        } => (
            if *captures_for_intent > 1 {
                "m-capture m-again"
            } else {
                "m-capture"
            },
            Some(match lang {
                Lang::Pt => format!("{captures_for_intent}ª captura"),
                Lang::En => format!("capture {captures_for_intent}"),
            }),
        ),
        EventKind::TimedOut { .. } => ("m-timeout", Some("timeout".into())),
        EventKind::ResponseReceived { status, .. } => ("m-answer", Some(status.to_string())),
        EventKind::LateResponseIgnored { status, .. } => ("m-late", Some(format!("({status})"))),
        EventKind::Sql { sql, .. } | EventKind::SqlResumed { sql, .. } => {
            if sql.starts_with("SELECT") {
                ("m-read", None)
            } else if sql.starts_with("INSERT") || sql.starts_with("UPDATE") {
                ("m-write", None)
            } else {
                ("m-other", None)
            }
        }
        EventKind::AttemptSent { .. } => ("m-send", None),
        EventKind::Crashed { .. } => ("m-crash", Some("✕".into())),
        _ => ("m-other", None),
    }
}

/// One line: its design's name, its marks, and the labels of the marks a
/// reader compares, above the top line and below the bottom one.
fn draw_line(
    svg: &mut El,
    name: &str,
    events: &[&TraceEvent],
    xs: &[i32],
    y: i32,
    above: bool,
    lang: Lang,
) {
    let (name_y, label_y, step) = if above {
        (y - 44, y - 10, -13)
    } else {
        (y + 50, y + 20, 13)
    };
    svg.label(MARGIN, name_y, "line-name", name);
    // Each label takes the first of two rows where it does not overlap the
    // previous label of that row; with both rows taken it is left out (the
    // mark keeps its colour) rather than drawn over another.
    let mut row_end = [-1000; 2];
    for (event, &x) in events.iter().zip(xs) {
        let (class, text) = mark(event, lang);
        svg.add("circle")
            .num("cx", x.into())
            .num("cy", y.into())
            .attr("r", "4")
            .class(&format!("mark {class}"));
        if let Some(text) = text {
            let half = half_width(&text);
            let Some(row) = row_end.iter().position(|&end| x - half >= end + 4) else {
                continue;
            };
            row_end[row] = x + half;
            svg.label(
                x,
                label_y + step * row as i32,
                &format!("mark-label {class}"),
                &text,
            );
        }
    }
}

/// How wide a divergence label draws: 11 px bold, the board's 12 px
/// widths scaled.
fn label_px(text: &str) -> i32 {
    text_width::px(text, true) * 11 / 12
}

/// The still part of the drawing: lines, marks, links and the divergence,
/// each line under its name (top, bottom: `Moment::line_names`). The cursor
/// is drawn apart, so scrubbing does not redraw all of this.
pub fn drawing(twin: &Twin, axis: &Axis, names: [&str; 2], lang: Lang) -> Vec<El> {
    let t = ui(lang);
    let left: Vec<&TraceEvent> = twin.left.events().map(|(_, e)| e).collect();
    let right: Vec<&TraceEvent> = twin.right.events().map(|(_, e)| e).collect();
    let end = axis.width - MARGIN;
    // One root whose children are the drawing, built in place.
    let mut svg = el("g");
    let links = svg.add("g").class("links").attr("aria-hidden", "true");
    for &(i, j) in &twin.links {
        if let (Some(&x1), Some(&x2)) = (axis.left_x.get(i), axis.right_x.get(j)) {
            links.line((x1, TOP_LINE_Y), (x2, BOTTOM_LINE_Y), "link");
        }
    }
    svg.line((MARGIN, TOP_LINE_Y), (end, TOP_LINE_Y), "axis-line");
    svg.line((MARGIN, BOTTOM_LINE_Y), (end, BOTTOM_LINE_Y), "axis-line");
    for &x in &axis.breaks {
        for y in [TOP_LINE_Y, BOTTOM_LINE_Y] {
            svg.add("path")
                .class("axis-break")
                .attr("d", &format!("M{} {} l4 -10 m2 10 l4 -10", x - 5, y + 5));
        }
    }

    if let Some(divergence) = &twin.divergence {
        let x = divergence
            .left_event
            .and_then(|i| axis.left_x.get(i))
            .or_else(|| divergence.right_event.and_then(|j| axis.right_x.get(j)))
            .copied()
            .unwrap_or(MARGIN)
            - 4;
        let anchor = if x > axis.width / 2 { "end" } else { "start" };
        let offset = if anchor == "end" { -10 } else { 10 };
        // Where the whole label would pass the drawing's edge (a phone's,
        // with the worlds splitting near one end) it drops its time: the
        // mark still shows where on the axis the split is.
        let room = if anchor == "end" {
            x + offset - MARGIN
        } else {
            axis.width - MARGIN - (x + offset)
        };
        let whole = format!(
            "{} · {}",
            t.divergence,
            view::clock(divergence.time_ms, lang)
        );
        let text = if label_px(&whole) <= room {
            whole
        } else {
            t.divergence.to_string()
        };
        let g = svg
            .add("g")
            .attr("data-testid", "divergence")
            .class("divergence")
            .num("data-time-ms", divergence.time_ms as i64);
        g.line((x, 14), (x, BOTTOM_LINE_Y + 8), "divergence-line");
        g.add("path")
            .class("divergence-mark")
            .attr("d", &format!("M{x} 6 l6 7 l-6 7 l-6 -7 z"));
        g.label(x + offset, 17, "divergence-label", &text)
            .attr("text-anchor", anchor);
    } else {
        svg.label(MARGIN, 17, "divergence-label", t.no_divergence);
    }

    let top = svg
        .add("g")
        .class("line-top")
        .attr("data-testid", "twin-line-top");
    draw_line(top, names[0], &left, &axis.left_x, TOP_LINE_Y, true, lang);
    let bottom = svg
        .add("g")
        .class("line-bottom")
        .attr("data-testid", "twin-line-bottom");
    draw_line(
        bottom,
        names[1],
        &right,
        &axis.right_x,
        BOTTOM_LINE_Y,
        false,
        lang,
    );

    // A few instants under the axis, as far apart as the width allows.
    let mut last_end = -1000;
    for &(cursor, x) in &axis.stops {
        if cursor.events_at_time != 1 {
            continue;
        }
        let text = view::clock(cursor.time_ms, lang);
        let half = half_width(&text);
        if x - half >= last_end.max(0) + 4 && x + half <= axis.width {
            svg.label(x, TICKS_Y, "tick", &text);
            last_end = x + half;
        }
    }
    // In the drawing, not beside it: a caption's text would change the
    // article's layout around the paragraphs that drive the board.
    svg.label(MARGIN, HEIGHT - 4, "scale-note", t.twin_scale)
        .attr("data-testid", "twin-scale");
    svg.kids
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::Strategy;
    use lousa_core::builtins::builtin;
    use lousa_core::story::twin;

    fn story() -> Twin {
        twin(
            &builtin("timeout-retry").expect("built-in"),
            Strategy::CheckThenAct,
            Strategy::IdempotencyKey,
        )
        .expect("valid")
    }

    #[test]
    fn each_instant_is_kept_once_in_order() {
        assert_eq!(
            distinct_sorted(&[0, 0, 20, 25], &[0, 20, 30]),
            vec![0, 20, 25, 30]
        );
        assert_eq!(distinct_sorted(&[], &[5, 5]), vec![5]);
        assert!(distinct_sorted(&[], &[]).is_empty());
        assert_eq!(distinct_sorted(&[30, 10], &[20, 10]), vec![10, 20, 30]);
    }

    #[test]
    fn linked_events_before_the_split_sit_at_the_same_x() {
        let twin = story();
        let axis = Axis::new(&twin, 600);
        let split = twin
            .divergence
            .as_ref()
            .and_then(|d| d.left_event)
            .expect("split");
        for &(i, j) in twin.links.iter().filter(|(i, _)| *i < split) {
            assert_eq!(
                axis.left_x[i], axis.right_x[j],
                "event {i} is drawn once per line, aligned"
            );
        }
    }

    #[test]
    fn marks_and_stops_stay_inside_the_drawing_and_in_order() {
        for name in lousa_core::builtins::NAMES {
            let twin = twin(
                &builtin(name).expect("built-in"),
                Strategy::CheckThenAct,
                Strategy::IdempotencyKey,
            )
            .expect("valid");
            for width in [300, 700] {
                let axis = Axis::new(&twin, width);
                let inside = |x: &i32| (MARGIN..=width - MARGIN).contains(x);
                assert!(
                    axis.left_x.iter().chain(&axis.right_x).all(inside),
                    "{name} at {width}"
                );
                assert!(
                    axis.stops
                        .windows(2)
                        .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1),
                    "{name}"
                );
            }
        }
    }

    /// Every `<text>` under `el`: (x, y, text).
    fn texts(el: &El, out: &mut Vec<(i32, i32, String)>) {
        let attr = |name| el.attrs.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        if el.tag == "text" {
            let num = |name| attr(name).and_then(|v| v.parse().ok()).unwrap_or(0);
            out.push((num("x"), num("y"), el.text.clone()));
        }
        for kid in &el.kids {
            texts(kid, out);
        }
    }

    #[test]
    fn no_two_mark_labels_overlap_and_long_waits_are_marked_as_breaks() {
        let mut worlds: Vec<Twin> = lousa_core::builtins::NAMES
            .iter()
            .map(|name| {
                let s = builtin(name).expect("built-in");
                twin(&s, Strategy::CheckThenAct, Strategy::IdempotencyKey).expect("valid")
            })
            .collect();
        worlds.extend(lousa_core::builtins::PAIRS.iter().map(|p| {
            let (a, b) = (
                builtin(p.top).expect("top"),
                builtin(p.bottom).expect("bottom"),
            );
            lousa_core::story::twin_of(&a, &b).expect("a pair")
        }));
        for (n, tw) in worlds.iter().enumerate() {
            for width in [300, 500, 700] {
                let axis = Axis::new(tw, width);
                let mut labels = Vec::new();
                for kid in drawing(tw, &axis, ["a", "b"], Lang::Pt) {
                    texts(&kid, &mut labels);
                }
                for (i, a) in labels.iter().enumerate() {
                    for b in &labels[i + 1..] {
                        let apart = (a.0 - b.0).abs() >= half_width(&a.2) + half_width(&b.2) + 4;
                        assert!(
                            a.1 != b.1 || apart || a.2 == "a" || a.2 == "b",
                            "world {n} at {width}: {a:?} over {b:?}"
                        );
                    }
                }
                let times = |r: &lousa_core::run::Run| -> Vec<u64> {
                    r.events().map(|(_, e)| e.time_ms).collect()
                };
                let all = distinct_sorted(&times(&tw.left), &times(&tw.right));
                let long = all.windows(2).filter(|w| w[1] - w[0] > BREAK_MS).count();
                assert_eq!(axis.breaks.len(), long, "world {n}: a break per long wait");
            }
        }
        assert!(!Axis::new(&story(), 600).breaks.is_empty());
    }

    #[test]
    fn every_frame_of_a_line_maps_to_a_stop_and_back() {
        let twin = story();
        let axis = Axis::new(&twin, 640);
        for frame in 0..twin.left.frame_count() {
            let cursor = view::cursor_at(&twin.left, frame);
            let x = axis.x_of(cursor);
            assert_eq!(axis.nearest(x), cursor, "frame {frame}");
        }
    }

    fn markup(twin: &Twin, names: [&str; 2], lang: Lang) -> String {
        drawing(twin, &Axis::new(twin, 640), names, lang)
            .iter()
            .map(El::markup)
            .collect()
    }

    #[test]
    fn the_drawing_marks_the_split_and_both_captures() {
        let twin = story();
        let names = ["check-then-act", "idempotency-key"];
        let markup = |lang| markup(&twin, names, lang);
        let drawn = markup(Lang::Pt);
        assert!(drawn.contains(r#"data-testid="divergence""#));
        assert!(
            drawn.contains("2ª captura"),
            "check-then-act captures twice"
        );
        assert!(drawn.contains(">409<"), "the key design answers 409");
        let english = markup(Lang::En);
        assert!(english.contains("capture 2"));
        assert!(drawn.contains(">check-then-act<") && drawn.contains(">idempotency-key<"));
    }

    /// The label that says where the worlds split stays inside the
    /// drawing, for every built-in from a 320 px phone's width up, in both
    /// languages; it keeps its time wherever there is room for it.
    #[test]
    fn the_split_label_stays_inside_the_drawing() {
        let mut timed = 0;
        for name in lousa_core::builtins::NAMES {
            let scenario = builtin(name).expect("built-in");
            let Ok(twin) = twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey) else {
                continue;
            };
            for width in [288, 400, 640, 1000] {
                let axis = Axis::new(&twin, width);
                for lang in [Lang::Pt, Lang::En] {
                    let drawn = drawing(&twin, &axis, ["a", "b"], lang);
                    let Some(label) = drawn
                        .iter()
                        .find(|e| {
                            e.attrs
                                .iter()
                                .any(|(n, v)| *n == "data-testid" && v == "divergence")
                        })
                        .and_then(|g| g.kids.iter().find(|k| k.tag == "text"))
                    else {
                        continue;
                    };
                    let attr = |name| {
                        label
                            .attrs
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map(|(_, v)| v.as_str())
                    };
                    let x: i32 = attr("x").and_then(|v| v.parse().ok()).expect("x");
                    let w = label_px(&label.text);
                    let (from, to) = if attr("text-anchor") == Some("end") {
                        (x - w, x)
                    } else {
                        (x, x + w)
                    };
                    assert!(
                        from >= 0 && to <= width,
                        "{name} at {width} ({lang:?}): {:?} drawn {from}..{to}",
                        label.text
                    );
                    timed += usize::from(label.text.contains(" · "));
                }
            }
        }
        assert!(timed > 0, "the label keeps its time where it fits");
    }

    /// The text of every label of one line's group, in order.
    fn labels_of(markup: &str, testid: &str) -> Vec<String> {
        let start = markup
            .find(&format!(r#"data-testid="{testid}""#))
            .expect("the line is drawn");
        let group = &markup[start..];
        let group = &group[..group.find("</g>").unwrap_or(group.len())];
        group
            .split("</text>")
            .filter_map(|piece| piece.rsplit_once('>').map(|(_, text)| text.to_string()))
            .filter(|text| !text.is_empty())
            .collect()
    }

    #[test]
    fn a_pair_draws_its_lines_under_the_option_s_names_and_the_second_capture_on_top_only() {
        use crate::state::{Lines, Moment};
        let moment = Moment {
            scenario: "late-retry-provider-key",
            strategy: Strategy::IdempotencyKeyLease,
            lines: Lines::Pair,
            ..Moment::default()
        };
        let [top, bottom] = moment.lines();
        let twin = crate::worlds::twin(top, bottom, 1).expect("valid");
        for (lang, second) in [(Lang::Pt, "2ª captura"), (Lang::En, "capture 2")] {
            let drawn = markup(&twin, moment.line_names(lang), lang);
            let (top, bottom) = (
                labels_of(&drawn, "twin-line-top"),
                labels_of(&drawn, "twin-line-bottom"),
            );
            assert_eq!(top[0], moment.line_names(lang)[0], "{top:?}");
            assert_eq!(bottom[0], moment.line_names(lang)[1], "{bottom:?}");
            assert!(top.iter().any(|l| l == second), "{top:?}");
            assert!(!bottom.iter().any(|l| l == second), "{bottom:?}");
            assert!(
                !drawn.contains(">idempotency-key-lease<"),
                "a pair's lines are named for the option, not the design"
            );
        }
    }
}
