//! One size for the boxes whose text changes at every step (the SQL panel,
//! the narration, the clock and the step counter): the size of their
//! longest text over the whole run. The stylesheet makes each a box that
//! contains its own layout, so a step lays out only what is inside them: a
//! new text in a box that may change size would make the browser lay out
//! the whole page again (issue #6). It also keeps the controls below them
//! from moving as the texts change.
//!
//! Measuring takes milliseconds, so each world's sizes are kept for its
//! width and language, and the worlds the article's paragraphs show are
//! measured ahead of time while the page is idle.

use crate::dom;
use crate::model::{Fit, WorldKey};
use crate::text::ui;
use crate::words::{self, SqlTexts};
use lousa_core::narrate::Lang;
use lousa_core::run::Run;

/// A world measured at one board width, in one language.
pub type FitKey = (WorldKey, i32, Lang);

/// The sizes measured so far.
#[derive(Default)]
pub struct Fits(Vec<(FitKey, Fit)>);

impl Fits {
    pub fn get(&self, key: &FitKey) -> Option<Fit> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, fit)| *fit)
    }

    /// Keeps a measure, if the boxes were laid out (a hidden box measures
    /// 0). A window resized by dragging passes through many widths: the
    /// list starts over rather than grow without end.
    pub fn remember(&mut self, key: FitKey, fit: Fit) -> bool {
        let laid_out = fit.sql > 0 && fit.narration > 0;
        if laid_out {
            if self.0.len() >= 64 {
                self.0.clear();
            }
            self.0.push((key, fit));
        }
        laid_out
    }
}

/// Adds `item` to `list` unless an equal one is there.
fn add_new<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// Measures the largest size each box takes over `run`, with copies of the
/// boxes filled with each different text, in a hidden holder beside them.
pub fn measure(run: &Run, scenario: &str, lang: Lang) -> Fit {
    // Each different content once. The clock and the counter differ only
    // in digits, which all have one width (tabular figures): one of each
    // shape is enough.
    let mut sql: Vec<SqlTexts> = Vec::new();
    let mut said: Vec<String> = Vec::new();
    let (mut clocks, mut counters): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let shape = |text: &str| -> String {
        text.chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect()
    };
    for f in 0..run.frame_count() {
        // The full statements: where the panel shows short forms, above the
        // text, its height is the stylesheet's.
        add_new(&mut sql, words::sql_texts(run, f, lang, false));
        add_new(
            &mut said,
            words::narration(run, scenario, f, lang, ui(lang)),
        );
        add_new(&mut clocks, shape(&words::clock_text(run, f, lang)));
        add_new(&mut counters, shape(&words::counter_text(run, f, lang)));
    }
    let names = ["sql", "narration", "clock", "step-counter"];
    let els = names.map(dom::by_testid);
    // Every width first, then every probe: one layout of the page, then
    // one of the probes.
    let widths = els.each_ref().map(|el| dom::width(el.as_ref()));
    let text = |at: usize, texts: &[String]| {
        dom::probe(els[at].as_ref(), widths[at], texts.len(), |probe, i| {
            probe.set_text_content(Some(&texts[i]));
        })
    };
    let probes = [
        dom::probe(els[0].as_ref(), widths[0], sql.len(), |probe, i| {
            let texts = &sql[i];
            dom::fill_kids(
                probe,
                &[
                    (None, None),
                    (None, Some(&texts.sql)),
                    (Some(texts.class), Some(&texts.result)),
                    (None, Some(&texts.when)),
                ],
            );
        }),
        text(1, &said),
        text(2, &clocks),
        text(3, &counters),
    ];
    let sizes = probes.each_ref().map(|p| dom::largest(p.as_ref()));
    for probe in probes.into_iter().flatten() {
        probe.remove();
    }
    Fit {
        sql: sizes[0].1,
        narration: sizes[1].1,
        clock: sizes[2].0,
        counter: sizes[3].0,
    }
}

/// A size in pixels for a style property, or none while unmeasured.
pub fn px(size: i32) -> Option<String> {
    (size > 0).then(|| format!("{size}px"))
}
