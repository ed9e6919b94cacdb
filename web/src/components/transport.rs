//! Step back, play or pause, step forward, and the playback speed: the
//! frames of a run under a page's hand. Both pages mount it, say what a
//! step, a play and a speed do, and run [`play_on_timer`] with their own
//! tick (the reader's stops at a question).

use crate::state::{SPEEDS, STEP_MS_AT_1X};
use crate::text::ui;
use gloo_timers::callback::Interval;
use leptos::prelude::*;
use lousa_core::narrate::Lang;

/// The playback timer a page runs beside its [`Transport`]: while
/// `playing`, `tick` every step's time at the chosen speed. Dropping the
/// old interval stops it.
pub fn play_on_timer(
    playing: impl Get<Value = bool> + Send + Sync + 'static,
    speed: impl Get<Value = usize> + Send + Sync + 'static,
    tick: impl Fn() + Copy + 'static,
) {
    let timer = StoredValue::new_local(None::<Interval>);
    Effect::new(move |_| {
        let period = playing
            .get()
            .then(|| STEP_MS_AT_1X * 1000 / SPEEDS[speed.get()].1);
        timer.set_value(period.map(|ms| Interval::new(ms, tick)));
    });
}

/// The buttons and the speed menu, as a labelled group.
#[component]
pub fn Transport(
    lang: impl Get<Value = Lang> + Copy + Send + Sync + 'static,
    /// Whether the frame on screen is the first (stepping back is off) and
    /// the last the page can show (stepping forward is off).
    at_start: impl Fn() -> bool + Send + Sync + 'static,
    at_end: impl Fn() -> bool + Send + Sync + 'static,
    /// Steps one frame back (-1) or forward (1).
    on_step: impl Fn(isize) + Copy + Send + Sync + 'static,
    /// Whether it plays, and what the play button does.
    playing: impl Fn() -> bool + Copy + Send + Sync + 'static,
    on_play: impl Fn() + Copy + Send + Sync + 'static,
    /// The speed's index in [`SPEEDS`], and what picking one does.
    speed: impl Fn() -> usize + Copy + Send + Sync + 'static,
    on_speed: impl Fn(usize) + Copy + Send + Sync + 'static,
    /// The keys that step back and forward, for the buttons' titles.
    keys: [&'static str; 2],
) -> impl IntoView {
    let [back_keys, forward_keys] = keys;
    let t = move || ui(lang.get());
    let speeds = SPEEDS
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            view! { <option value=i.to_string() prop:selected=move || speed() == i>{*name}</option> }
        })
        .collect_view();
    view! {
        <div class="transport" role="group" aria-label=move || t().controls_label>
            <button
                type="button"
                data-testid="step-back"
                aria-label=move || t().back
                title=move || format!("{} ({back_keys})", t().back)
                disabled=at_start
                on:click=move |_| on_step(-1)
            >
                "◀"
            </button>
            <button
                type="button"
                class="play"
                data-testid="play"
                aria-pressed=move || if playing() { "true" } else { "false" }
                on:click=move |_| on_play()
            >
                {move || {
                    let t = t();
                    if playing() { format!("❚❚ {}", t.pause) } else { format!("▶ {}", t.play) }
                }}
            </button>
            <button
                type="button"
                data-testid="step-forward"
                aria-label=move || t().forward
                title=move || format!("{} ({forward_keys})", t().forward)
                disabled=at_end
                on:click=move |_| on_step(1)
            >
                "▶"
            </button>
            <label class="speed">
                <span>{move || t().speed}</span>
                <select
                    data-testid="speed"
                    on:change=move |ev| {
                        if let Ok(index) = event_target_value(&ev).parse::<usize>() {
                            on_speed(index.min(SPEEDS.len() - 1));
                        }
                    }
                >
                    {speeds}
                </select>
            </label>
        </div>
    }
}
