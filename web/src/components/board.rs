//! The lousa itself: the SVG board, and the heading above it.

use super::bind::{label, text, word};
use super::drawing;
use crate::fit::px;
use crate::model::Lousa;
use crate::text::strategy_gloss;
use crate::words;
use leptos::prelude::*;
use lousa_core::story;

/// The lousa's SVG: the board the page draws (its children), scaled to its
/// box, its `data-*` attributes saying which world and frame it shows, for
/// the tests and for the embed. Both pages mount it; the reader binds its
/// drawing to the frame, the workshop draws the frame on screen whole. A
/// page adds its own `data-*` with `attr:` (the reader's seed and story
/// beats, the workshop's line).
///
/// Props are closures (derived signals): each page passes its own, and the
/// component is compiled for them alone, with no signal wrapper per value.
#[component]
pub fn Board<Ch: IntoView + 'static>(
    /// `"0 0 width height"`: the drawing's size. A drawing that keeps its
    /// run's tallest height keeps one size through the run.
    view_box: impl Fn() -> String + Send + Sync + 'static,
    /// Its accessible name.
    label: impl Fn() -> &'static str + Send + Sync + 'static,
    /// The frame on screen.
    frame: impl Fn() -> usize + Send + Sync + 'static,
    /// The world on the board: its scenario and design.
    scenario: impl Fn() -> String + Send + Sync + 'static,
    strategy: impl Fn() -> &'static str + Send + Sync + 'static,
    children: TypedChildren<Ch>,
) -> impl IntoView {
    view! {
        <svg
            data-testid="lousa"
            class="board"
            role="group"
            aria-label=label
            viewBox=view_box
            preserveAspectRatio="xMidYMin meet"
            data-frame=move || frame().to_string()
            data-scenario=scenario
            data-strategy=strategy
        >
            {children.into_inner()()}
        </svg>
    }
}

/// The reader's board: every actor, message and table row of the world at
/// the frame on screen. Its elements are made when a world opens (or the
/// width or language changes) and bound to the frame, so a seek only
/// rewrites the attributes and texts that differ.
#[component]
pub fn ReaderBoard() -> impl IntoView {
    let Lousa { drawn, frame, .. } = expect_context::<Lousa>();
    view! {
        <div class="board-wrap" data-testid="board-wrap">
            <Board
                view_box=text(|l| l.drawn.with(|d| format!("0 0 {} {}", d.width, d.tallest)))
                label=label(|t| t.board_label)
                frame=move || frame.get()
                scenario=text(|l| l.world.get().0.to_string())
                strategy=word(|l| l.world.get().1.name())
                attr:data-seed=text(|l| l.world.get().2.to_string())
                attr:data-beats=text(beats_at_frame)
            >
                {move || drawing::board_parts(&drawn.get(), frame)}
            </Board>
        </div>
    }
}

/// The story beats of the frame on screen, by name.
fn beats_at_frame(l: &Lousa) -> String {
    let at = Some(l.frame.get());
    l.run.with(|run| {
        story::BEATS
            .iter()
            .filter(|beat| story::beat_frame(run, beat) == at)
            .copied()
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The scenario's title, the design on the board, the clock and the step
/// counter.
#[component]
pub fn Heading() -> impl IntoView {
    view! {
        <div class="lousa-head">
            <p class="lousa-title" data-testid="scenario-title">
                {text(|l| words::scenario_title(l.world.get().0, l.lang.get()))}
            </p>
            <p class="lousa-meta">
                <span
                    class="chip"
                    data-testid="board-strategy"
                    title=text(|l| strategy_gloss(l.world.get().1, l.lang.get()).to_string())
                >
                    // On a phone the common prefix goes: "key-held-tx" fits
                    // where "idempotency-key-held-tx" was cut to
                    // "idempotency-ke…", which named none of the key's designs.
                    <span class="chip-head">{text(|l| name_parts(l.world.get().1.name()).0.into())}</span>
                    <span class="chip-tail">{text(|l| name_parts(l.world.get().1.name()).1.into())}</span>
                </span>
                <span data-testid="clock" style:width=text_px(|l| l.fit.get().clock)>
                    {text(|l| l.run.with(|r| words::clock_text(r, l.frame.get(), l.lang.get())))}
                </span>
                <span data-testid="step-counter" style:width=text_px(|l| l.fit.get().counter)>
                    {text(|l| l.run.with(|r| words::counter_text(r, l.frame.get(), l.lang.get())))}
                </span>
            </p>
        </div>
    }
}

/// A design's name as the prefix the key's designs share and the rest:
/// "idempotency-" and "key-lease"; "" and "check-then-act".
fn name_parts(name: &str) -> (&str, &str) {
    let prefix = "idempotency-";
    match name.strip_prefix(prefix) {
        Some(rest) => (prefix, rest),
        None => ("", name),
    }
}

/// A size the text boxes were given, in pixels, for a style property.
pub fn text_px(
    pick: fn(&Lousa) -> i32,
) -> impl Fn() -> Option<String> + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || px(pick(&lousa))
}
