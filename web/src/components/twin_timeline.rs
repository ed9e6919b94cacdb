//! The two lines: one failure under two designs (or a pair of built-ins:
//! the same failure without and with one option) on one time axis, with a
//! cursor the reader drags, and a ledger under each line.

use super::bind::{flag, label, line_text, text, word};
use super::controls::StrategyPicker;
use super::two_lines::TwoLines;
use crate::model::{Lousa, Nav};
use crate::text::html_lang;
use crate::words;
use leptos::prelude::*;
use lousa_core::Strategy;
use lousa_core::view::Cursor;

/// One line's ledger: what it captured and charged, and what the app heard,
/// with the picker of the line's design.
#[component]
fn Ledger(
    /// The top line (else the bottom one).
    top: bool,
) -> impl IntoView {
    let side = if top { "top" } else { "bottom" };
    let picker = if top { "line-top" } else { "line-bottom" };
    let shows: fn(&Lousa) -> Strategy = if top {
        |l| l.pair.get().0[0].strategy
    } else {
        |l| l.pair.get().0[1].strategy
    };
    let on_pick: fn(&Lousa, Strategy) = if top {
        |l, s| l.choose_line(true, s)
    } else {
        |l, s| l.choose_line(false, s)
    };
    view! {
        <div
            class=line_text(top, |l, top| {
                let double = l.ledger(top, |v| v.double);
                (if double { "ledger is-double" } else { "ledger" }).to_string()
            })
            data-testid=format!("ledger-{side}")
            data-captures=line_text(top, |l, top| l.ledger(top, |v| v.captures.to_string()))
            data-charged-cents=line_text(top, |l, top| l.ledger(top, |v| v.charged_cents.to_string()))
            data-answers=line_text(top, |l, top| l.ledger(top, |v| v.on_time.clone()))
        >
            <label class="line-pick">
                <span>{if top { label(|t| t.top_line) } else { label(|t| t.bottom_line) }}</span>
                <StrategyPicker testid=picker shows=shows on_pick=on_pick />
            </label>
            <span
                class="chip"
                data-testid=format!("onboard-{side}")
                hidden=if top {
                    flag(|l| !l.on_board.get()[0])
                } else {
                    flag(|l| !l.on_board.get()[1])
                }
            >
                {label(|t| t.shown_on_board)}
            </span>
            <p class="ledger-figures" data-testid=format!("figures-{side}")>
                {line_text(top, |l, top| l.ledger(top, |v| v.figures.clone()))}
            </p>
        </div>
    }
}

/// The twin timeline: the two lines over one time axis, their cursor the
/// page's one time cursor, and a ledger under each. Pressing on the lines
/// adds a history entry (Back returns to before the drag); the drag then
/// replaces it as the cursor moves.
#[component]
pub fn TwinTimeline() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let Lousa {
        lang, twin, moment, ..
    } = lousa;
    // A memo, so that a seek (which changes the moment) redraws nothing.
    let names = Memo::new(move |_| {
        let lang = lang.get();
        moment.with(|m| m.line_names(lang).map(String::from))
    });
    let value_text = text(|l| {
        l.run
            .with(|r| words::cursor_text(r, l.frame.get(), l.lang.get()))
    });
    let on_seek = move |stop: Cursor, press: bool| {
        lousa.seek_twin(stop, if press { Nav::Push } else { Nav::Replace });
    };
    view! {
        <section
            class="twin"
            lang=word(|l| html_lang(l.lang.get()))
            aria-label=label(|t| t.twin_label)
        >
            <div class="twin-wrap" data-testid="twin-wrap">
                <TwoLines
                    lines=twin
                    names=names
                    lang=lang
                    cursor=move || lousa.cursor()
                    frame=move || lousa.frame.get()
                    last=move || lousa.run.with(|r| r.frame_count() - 1)
                    value_text=value_text
                    label=label(|t| t.cursor_label)
                    testid="twin"
                    on_seek=on_seek
                />
            </div>
            <Ledger top=true />
            <Ledger top=false />
        </section>
    }
}
