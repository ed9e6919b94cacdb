//! The two lines' drawing: one failure as two runs on one time axis, with a
//! cursor at the frame on screen that a press or a drag moves. The reader
//! mounts it for its pair of designs, the workshop for a run and the branch
//! a fault forked from it.

use super::drawing;
use crate::twin::{self, HEIGHT, TwinView};
use crate::worlds::Shared;
use leptos::ev::PointerEvent;
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::view::Cursor;
use wasm_bindgen::JsCast;

/// A slider over the two lines. Pressing calls `on_seek` with the stop
/// nearest the pointer and `true` (a page adds a history entry for it);
/// dragging then calls it with `false` as the cursor moves.
#[component]
pub fn TwoLines(
    /// The two runs and their axis; none draws nothing.
    lines: impl With<Value = Option<Shared<TwinView>>> + Copy + Send + Sync + 'static,
    /// The lines' names, top then bottom.
    names: impl With<Value = [String; 2]> + Copy + Send + Sync + 'static,
    lang: impl Get<Value = Lang> + Copy + Send + Sync + 'static,
    /// The frame on screen as a place on the axis.
    cursor: impl Fn() -> Cursor + Send + Sync + 'static,
    /// The frame on screen and the last frame, the slider's ARIA values.
    frame: impl Fn() -> usize + Send + Sync + 'static,
    last: impl Fn() -> usize + Send + Sync + 'static,
    /// The frame on screen read out (its time and step).
    value_text: impl Fn() -> String + Send + Sync + 'static,
    /// The slider's accessible name.
    label: impl Fn() -> &'static str + Send + Sync + 'static,
    /// Its `data-testid`.
    testid: &'static str,
    /// Called with the stop nearest the pointer, and whether this is the
    /// press that starts a drag.
    on_seek: impl Fn(Cursor, bool) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let dragging = RwSignal::new(false);
    // Redrawn when the lines, their names or the language change; a seek
    // moves the cursor alone.
    let still = move || {
        let lang = lang.get();
        names.with(|names| {
            lines.with(|tw| {
                tw.as_ref().map_or_else(Vec::new, |tw| {
                    twin::drawing(&tw.twin, &tw.axis, [&names[0], &names[1]], lang)
                        .iter()
                        .map(drawing::still)
                        .collect::<Vec<_>>()
                })
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
        let stop = untrack(|| {
            lines.with(|tw| {
                tw.as_ref().map(|tw| {
                    let scale = f64::from(tw.axis.width) / rect.width().max(1.0);
                    let x = (f64::from(ev.client_x()) - rect.left()) * scale;
                    tw.axis.nearest(x as i32)
                })
            })
        });
        if let Some(stop) = stop {
            on_seek(stop, press);
        }
    };
    view! {
        <svg
            class="twin-svg"
            data-testid=testid
            role="slider"
            tabindex="0"
            aria-label=label
            aria-valuemin="0"
            aria-valuemax=move || last().to_string()
            aria-valuenow=move || frame().to_string()
            aria-valuetext=value_text
            viewBox=move || {
                let width = lines.with(|tw| tw.as_ref().map_or(0, |tw| tw.axis.width));
                format!("0 0 {width} {HEIGHT}")
            }
            data-divergence-ms=move || {
                lines.with(|tw| {
                    tw.as_ref()
                        .and_then(|tw| tw.twin.divergence.as_ref())
                        .map_or(String::new(), |d| d.time_ms.to_string())
                })
            }
            on:pointerdown=move |ev| on_pointer(ev, true)
            on:pointermove=move |ev| on_pointer(ev, false)
            on:pointerup=move |_| dragging.set(false)
            on:pointercancel=move |_| dragging.set(false)
        >
            <g data-testid="twin-still">{still}</g>
            <g
                data-testid="twin-cursor"
                transform=move || {
                    let at = cursor();
                    let x = lines.with(|tw| tw.as_ref().map_or(0, |tw| tw.axis.x_of(at)));
                    format!("translate({x} 0)")
                }
            >
                <line class="cursor" x1="0" x2="0" y1="40" y2="168"></line>
                <circle class="cursor-knob" cx="0" cy="104" r="7"></circle>
            </g>
        </svg>
    }
}
