//! The two lines: one failure under two designs (or a pair of built-ins:
//! the same failure without and with one option) on one time axis, with a
//! cursor the reader drags, and a ledger under each line.

use super::bind::{flag, label, line_text, text, word};
use super::controls::StrategyPicker;
use super::drawing;
use crate::model::{Lousa, Nav};
use crate::text::{html_lang, ui};
use crate::twin::{self, HEIGHT};
use leptos::ev::PointerEvent;
use leptos::prelude::*;
use lousa_core::Strategy;
use lousa_core::view;
use wasm_bindgen::JsCast;

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

/// The twin timeline. Pressing or dragging on it moves the page's one time
/// cursor: the press adds a history entry (Back returns to before the
/// drag); the drag then replaces it as the cursor moves.
#[component]
pub fn TwinTimeline() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let Lousa {
        lang,
        twin,
        twin_width,
        moment,
        ..
    } = lousa;
    let dragging = RwSignal::new(false);
    // A memo, so that a seek (which changes the moment) redraws nothing.
    let names = Memo::new(move |_| {
        let lang = lang.get();
        moment.with(|m| m.line_names(lang))
    });
    let still = move || {
        let (lang, names) = (lang.get(), names.get());
        twin.with(|tw| {
            tw.as_ref().map_or_else(Vec::new, |tw| {
                twin::drawing(&tw.twin, &tw.axis, names, lang)
                    .iter()
                    .map(drawing::still)
                    .collect::<Vec<_>>()
            })
        })
    };
    let on_pointer = move |ev: PointerEvent, press: bool| {
        let Some(svg) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        if press {
            dragging.set(true);
            let _ = svg.set_pointer_capture(ev.pointer_id());
        } else if !dragging.get_untracked() {
            return;
        }
        let rect = svg.get_bounding_client_rect();
        let scale = f64::from(twin_width.get_untracked()) / rect.width().max(1.0);
        let x = ((f64::from(ev.client_x()) - rect.left()) * scale) as i32;
        lousa.seek_twin_x(x, if press { Nav::Push } else { Nav::Replace });
    };
    view! {
        <section
            class="twin"
            lang=word(|l| html_lang(l.lang.get()))
            aria-label=label(|t| t.twin_label)
        >
            <div class="twin-wrap" data-testid="twin-wrap">
                <svg
                    class="twin-svg"
                    data-testid="twin"
                    role="slider"
                    tabindex="0"
                    aria-label=label(|t| t.cursor_label)
                    aria-valuemin="0"
                    aria-valuemax=text(|l| l.run.with(|r| (r.frame_count() - 1).to_string()))
                    aria-valuenow=text(|l| l.frame.get().to_string())
                    aria-valuetext=text(|l| {
                        let f = l.frame.get();
                        let time = l.run.with(|r| r.state_at(f).time_ms);
                        let lang = l.lang.get();
                        format!("{} · {} {f}", view::clock(time, lang), ui(lang).step_word)
                    })
                    viewBox=text(|l| format!("0 0 {} {HEIGHT}", l.twin_width.get()))
                    data-divergence-ms=text(|l| {
                        l.twin.with(|tw| {
                            tw.as_ref()
                                .and_then(|tw| tw.twin.divergence.as_ref())
                                .map_or(String::new(), |d| d.time_ms.to_string())
                        })
                    })
                    on:pointerdown=move |ev| on_pointer(ev, true)
                    on:pointermove=move |ev| on_pointer(ev, false)
                    on:pointerup=move |_| dragging.set(false)
                    on:pointercancel=move |_| dragging.set(false)
                >
                    <g data-testid="twin-still">{still}</g>
                    <g
                        data-testid="twin-cursor"
                        transform=text(|l| {
                            let cursor = l.run.with(|r| view::cursor_at(r, l.frame.get()));
                            let x = l.twin.with(|t| t.as_ref().map_or(0, |t| t.axis.x_of(cursor)));
                            format!("translate({x} 0)")
                        })
                    >
                        <line class="cursor" x1="0" x2="0" y1="40" y2="168"></line>
                        <circle class="cursor-knob" cx="0" cy="104" r="7"></circle>
                    </g>
                </svg>
            </div>
            <Ledger top=true />
            <Ledger top=false />
        </section>
    }
}
