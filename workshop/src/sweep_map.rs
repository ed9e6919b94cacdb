//! The sweep's heatmaps: one design's cells worked out for drawing
//! ([`DrawnMap`], pure and tested natively) and drawn as an SVG grid of
//! buttons ([`SweepMap`]), each opening its representative seed on the
//! board.

use crate::state::Ws;
use crate::sweep::{FIELDS, Sweeping, label, words};
use crate::texts::{count, refusal};
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::sweep::{Cell, Heatmap, SweepReport};
use serde_json::Value;

/// A heatmap cell's size and the room for the axes' values, in the SVG's
/// units (pixels: the SVG is drawn at its own size). The axes' names are
/// text beside it, where they can wrap.
const CELL_W: i32 = 50;
const CELL_H: i32 = 32;
const LEFT: i32 = 58;
const BELOW: i32 = 22;

/// A JSON value as an axis shows it: a string without its quotes.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The name of the field at `path`, or the path itself.
fn field_name(path: &str, lang: Lang) -> String {
    FIELDS
        .iter()
        .find(|f| f.path == path)
        .map_or_else(|| path.to_string(), |f| label(f, lang).to_string())
}

/// The share of a cell's runs that charged twice, 0 to 1.
fn rate(c: &Cell) -> f64 {
    if c.runs == 0 {
        0.0
    } else {
        c.double_charged as f64 / c.runs as f64
    }
}

/// What a cell says to a screen reader: where it is, its figures and
/// which seed it opens.
fn cell_label(r: &SweepReport, c: &Cell, lang: Lang) -> String {
    let w = words(lang);
    let at = format!(
        "{} {}, {} {}",
        field_name(&r.x.path, lang),
        r.x.values.get(c.x).map(shown).unwrap_or_default(),
        field_name(&r.y.path, lang),
        r.y.values.get(c.y).map(shown).unwrap_or_default()
    );
    match &c.refused {
        Some(why) => format!("{at}: {} {}", w.refused, refusal(why, lang)),
        None => format!(
            "{at}: {} {} {} {} ({}%). {} {}.",
            count(c.double_charged.into(), lang),
            w.of_word,
            count(c.runs.into(), lang),
            w.runs_charged_twice,
            (rate(c) * 100.0).round(),
            w.opens_seed,
            c.representative_seed
        ),
    }
}

/// One design's heatmap, worked out for drawing: rows down the y values,
/// columns across the x values, each cell a button (see [`SweepMap`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnMap {
    pub index: usize,
    pub strategy: &'static str,
    pub caption: String,
    pub aria: String,
    pub width: i32,
    pub height: i32,
    /// Each value across and down: where its label sits, and the label.
    pub x_ticks: Vec<(i32, String)>,
    pub y_ticks: Vec<(i32, String)>,
    pub x_title: String,
    pub y_title: String,
    pub cells: Vec<DrawnCell>,
}

/// A cell of a [`DrawnMap`]: its place, its colour and its words.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawnCell {
    pub x: usize,
    pub y: usize,
    /// Its top left corner.
    pub at: (i32, i32),
    pub runs: u64,
    pub double_charged: u64,
    pub seed: u64,
    /// The link it opens; none for a refused cell, which opens nothing.
    pub link: Option<String>,
    pub label: String,
    pub rect_class: &'static str,
    pub opacity: String,
    pub text_class: &'static str,
    pub figures: String,
}

pub(crate) fn drawn_map(
    r: &SweepReport,
    index: usize,
    m: &Heatmap,
    design: Option<&str>,
    lang: Lang,
) -> DrawnMap {
    // What ran: the design the sweep carried, else the map's strategy.
    let handler = design.unwrap_or(m.strategy.name());
    let w = words(lang);
    let (cols, rows) = (r.x.values.len() as i32, r.y.values.len() as i32);
    let twice: u64 = m.cells.iter().map(|c| c.double_charged).sum();
    let runs: u64 = m.cells.iter().map(|c| c.runs).sum();
    let figures = |c: &Cell| match c.refused {
        Some(_) => "—".to_string(),
        None => format!("{}/{}", c.double_charged, c.runs),
    };
    // One size for every figure of a map, set by its longest.
    let small = m.cells.iter().any(|c| figures(c).chars().count() > 5);
    let cells = m
        .cells
        .iter()
        .map(|c| {
            let share = rate(c);
            let (rect_class, opacity) = match (&c.refused, c.double_charged) {
                (Some(_), _) => ("sweep-refused", 1.0),
                (None, 0) => ("sweep-none", 1.0),
                // The faintest double charge must still show.
                (None, _) => ("sweep-some", 0.2 + 0.8 * share),
            };
            let strong = c.refused.is_none() && share > 0.55;
            DrawnCell {
                x: c.x,
                y: c.y,
                at: (LEFT + c.x as i32 * CELL_W, c.y as i32 * CELL_H),
                runs: c.runs,
                double_charged: c.double_charged,
                seed: c.representative_seed,
                link: c.link.clone().filter(|_| c.refused.is_none()),
                label: cell_label(r, c, lang),
                rect_class,
                opacity: format!("{opacity:.2}"),
                text_class: match (strong, small) {
                    (true, true) => "sweep-figures strong small",
                    (true, false) => "sweep-figures strong",
                    (false, true) => "sweep-figures small",
                    (false, false) => "sweep-figures",
                },
                figures: figures(c),
            }
        })
        .collect();
    DrawnMap {
        index,
        strategy: m.strategy.name(),
        caption: format!(
            "{}: {} {} {} {}",
            handler,
            count(twice.into(), lang),
            w.of_word,
            count(runs.into(), lang),
            w.runs_charged_twice
        ),
        aria: format!("{} {handler}", w.map_of),
        width: LEFT + cols * CELL_W + 4,
        height: rows * CELL_H + BELOW,
        x_ticks: r
            .x
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| (LEFT + i as i32 * CELL_W + CELL_W / 2, shown(v)))
            .collect(),
        y_ticks: r
            .y
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as i32 * CELL_H + CELL_H / 2 + 4, shown(v)))
            .collect(),
        x_title: format!("{} →", field_name(&r.x.path, lang)),
        y_title: format!("↓ {}", field_name(&r.y.path, lang)),
        cells,
    }
}

/// One design's heatmap: a figure with its caption, the axes' titles and
/// an SVG grid whose every cell is a button that opens its run on the
/// board (`on_open` gets its map, x and y); `opened` marks the one open.
#[component]
pub(crate) fn SweepMap(
    drawn: DrawnMap,
    opened: RwSignal<Option<(usize, usize, usize)>>,
    on_open: impl Fn((usize, usize, usize)) + Copy + 'static,
) -> impl IntoView {
    let index = drawn.index;
    let rows = drawn.y_ticks.len() as i32;
    let x_ticks = drawn
        .x_ticks
        .into_iter()
        .map(|(x, label)| {
            view! { <text x=x y=rows * CELL_H + 14 class="sweep-tick" text-anchor="middle">{label}</text> }
        })
        .collect_view();
    let y_ticks = drawn
        .y_ticks
        .into_iter()
        .map(|(y, label)| {
            view! { <text x=LEFT - 6 y=y class="sweep-tick" text-anchor="end">{label}</text> }
        })
        .collect_view();
    let cells = drawn
        .cells
        .into_iter()
        .map(|c| {
            let at = (index, c.x, c.y);
            let open = c.link.is_some();
            let class = move || {
                if opened.get() == Some(at) {
                    "sweep-cell opened"
                } else {
                    "sweep-cell"
                }
            };
            let on_key = move |e: leptos::ev::KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    if open {
                        on_open(at);
                    }
                }
            };
            let (x0, y0) = c.at;
            view! {
                <g
                    class=class
                    role="button"
                    tabindex="0"
                    aria-label=c.label
                    data-testid="sweep-cell"
                    data-map=index
                    data-x=c.x
                    data-y=c.y
                    data-runs=c.runs.to_string()
                    data-double=c.double_charged.to_string()
                    data-seed=c.seed.to_string()
                    data-link=c.link
                    aria-disabled=(!open).then_some("true")
                    on:click=move |_| {
                        if open {
                            on_open(at);
                        }
                    }
                    on:keydown=on_key
                >
                    <rect
                        x=x0 + 1
                        y=y0 + 1
                        width=CELL_W - 2
                        height=CELL_H - 2
                        rx="3"
                        class=c.rect_class
                        fill-opacity=c.opacity
                    ></rect>
                    <text
                        x=x0 + CELL_W / 2
                        y=y0 + CELL_H / 2 + 4
                        class=c.text_class
                        text-anchor="middle"
                    >
                        {c.figures}
                    </text>
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="sweep-map" data-testid="sweep-map" data-strategy=drawn.strategy>
            <figcaption>{drawn.caption}</figcaption>
            <p class="sweep-y-title">{drawn.y_title}</p>
            <svg
                class="sweep-svg"
                role="group"
                aria-label=drawn.aria
                viewBox=format!("0 0 {} {}", drawn.width, drawn.height)
                width=drawn.width
                height=drawn.height
            >
                {x_ticks}
                {y_ticks}
                {cells}
            </svg>
            <p class="sweep-x-title">{drawn.x_title}</p>
        </figure>
    }
}

/// Opens cell `at` (map, x, y) on the board and marks it as the one shown
/// there, then brings the board into sight.
pub(crate) fn open_cell(
    ws: Ws,
    sweeping: RwSignal<Sweeping>,
    opened: RwSignal<Option<(usize, usize, usize)>>,
    at: (usize, usize, usize),
) {
    let (map, x, y) = at;
    let wanted = sweeping.with_untracked(|s| {
        let Sweeping::Done(r, _, _, design) = s else {
            return None;
        };
        let m = r.maps.get(map)?;
        let c = m.cells.iter().find(|c| c.x == x && c.y == y)?;
        Some((
            c.link.clone()?,
            m.strategy,
            design.clone(),
            c.representative_seed,
        ))
    });
    let Some((link, strategy, design, seed)) = wanted else {
        return;
    };
    if ws.open_seeded(&link, strategy, design, seed).is_ok() {
        opened.set(Some(at));
        // The board the cell opened, in sight (the heatmaps sit below it),
        // once the new run is drawn: drawing it moves what is above.
        request_animation_frame(|| {
            if let Ok(Some(board)) = document().query_selector("[data-testid=workshop-board-wrap]")
            {
                board.scroll_into_view();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heatmap_is_a_button_per_cell_with_its_figures_and_its_place() {
        let text = r#"{"scenario": "race-2", "x": {"path": "instances", "values": [2, 99]},
            "y": {"path": "network.jitter_ms", "values": ["<5>"]}, "first_seed": 0, "seeds": 5,
            "maps": [{"strategy": "check-then-act", "cells": [
                {"x": 0, "y": 0, "runs": 5, "double_charged": 5, "representative_seed": 3, "link": "race-2", "refused": null},
                {"x": 1, "y": 0, "runs": 0, "double_charged": 0, "representative_seed": 0, "link": null,
                 "refused": "edit 1, instances: 99 is outside 1..=8"}]}]}"#;
        let r: SweepReport = serde_json::from_str(text).unwrap();
        let map = drawn_map(&r, 0, &r.maps[0], None, Lang::En);
        assert_eq!(map.strategy, "check-then-act");
        assert_eq!(map.caption, "check-then-act: 5 of 5 runs charged twice");
        assert_eq!(
            (map.width, map.height),
            (LEFT + 2 * CELL_W + 4, CELL_H + BELOW)
        );
        let [all, refused] = &map.cells[..] else {
            panic!("two cells: {map:?}");
        };
        assert_eq!(
            (all.x, all.y, all.runs, all.double_charged, all.seed),
            (0, 0, 5, 5, 3)
        );
        assert_eq!(all.link.as_deref(), Some("race-2"));
        // All of them charged twice: the strongest red, the paper's colour on it.
        assert_eq!(
            (all.rect_class, all.opacity.as_str()),
            ("sweep-some", "1.00")
        );
        assert_eq!(
            (all.text_class, all.figures.as_str()),
            ("sweep-figures strong", "5/5")
        );
        assert_eq!(all.at, (LEFT, 0));
        // The refused cell opens nothing and says why.
        assert_eq!(refused.link, None);
        assert_eq!(
            (refused.rect_class, refused.figures.as_str()),
            ("sweep-refused", "—")
        );
        assert!(
            refused
                .label
                .contains("scenario refused: edit 1, instances: 99 is outside 1..=8")
        );
        // Values are text as the axis shows them: a string without quotes.
        assert_eq!(map.y_ticks, vec![(CELL_H / 2 + 4, "<5>".to_string())]);
        assert_eq!(
            map.x_ticks[1],
            (LEFT + CELL_W + CELL_W / 2, "99".to_string())
        );
    }

    #[test]
    fn a_report_reads_as_the_worker_posts_it() {
        let text = r#"{"scenario": "race-2", "x": {"path": "instances", "values": [2, 3]},
            "y": {"path": "network.jitter_ms", "values": [0]}, "first_seed": 0, "seeds": 5,
            "maps": [{"strategy": "check-then-act", "cells": [
                {"x": 0, "y": 0, "runs": 5, "double_charged": 2, "representative_seed": 3, "link": "race-2", "refused": null},
                {"x": 1, "y": 0, "runs": 0, "double_charged": 0, "representative_seed": 0, "link": null,
                 "refused": "edit 1, instances: 99 is outside 1..=8"}]}]}"#;
        let r: SweepReport = serde_json::from_str(text).unwrap();
        let [hot, refused] = &r.maps[0].cells[..] else {
            panic!("two cells");
        };
        assert_eq!(rate(hot), 0.4);
        assert_eq!(
            cell_label(&r, hot, Lang::Pt),
            "Instâncias do serviço 2, Variação da rede por ida (ms) 0: 2 de 5 execuções cobraram duas vezes (40%). Abre na lousa a semente 3."
        );
        assert_eq!(
            cell_label(&r, refused, Lang::En),
            "Service instances 3, Network jitter per hop (ms) 0: scenario refused: edit 1, instances: 99 is outside 1..=8"
        );
    }
}
