//! The board's text equivalents: the SQL panel, the narration and the
//! event table.

use super::bind::{label, text, word};
use super::board::text_px;
use crate::model::Lousa;
use crate::text::{put_in, ui};
use crate::words;
use leptos::prelude::*;
use lousa_core::narrate;
use lousa_core::view;

/// The latest SQL statement at the frame on screen, its result, and when
/// and by whom it ran. Its four children stay the same from frame to frame.
#[component]
pub fn SqlPanel() -> impl IntoView {
    view! {
        <div class="sql-panel" data-testid="sql" style:height=text_px(|l| l.fit.get().sql)>
            <span class="sql-title">"SQL"</span>
            <code class="sql-statement" data-testid="sql-statement">
                {text(|l| l.at.with(|a| a.sql.0.clone()))}
            </code>
            <p class=word(|l| l.at.with(|a| a.sql.1)) data-testid="sql-result">
                {text(|l| l.at.with(|a| a.sql.2.clone()))}
            </p>
            <p class="sql-when">{text(|l| l.at.with(|a| a.sql.3.clone()))}</p>
        </div>
    }
}

/// One paragraph saying what the last step did, read out by screen readers
/// as it changes.
#[component]
pub fn Narration() -> impl IntoView {
    view! {
        <p
            class="narration"
            aria-live="polite"
            aria-atomic="true"
            data-testid="narration"
            style:height=text_px(|l| l.fit.get().narration)
        >
            {text(|l| {
                let lang = l.lang.get();
                l.run.with(|r| words::narration(r, l.world.get().0, l.frame.get(), lang, ui(lang)))
            })}
        </p>
    }
}

/// `"step"` while `frame` is on screen, for a row's `aria-current`.
fn current_step(frame: usize) -> impl Fn() -> Option<&'static str> + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || (lousa.frame.get() == frame).then_some("step")
}

/// Every event of the run, one row each under the step that shows it (the
/// step counter's numbers, so "passo 26 de 30" and 22 events read as one
/// story); the rows of the frame on screen are marked as the current step.
#[component]
pub fn EventTable() -> impl IntoView {
    let Lousa { run, lang, .. } = expect_context::<Lousa>();
    let rows = move || {
        let lang = lang.get();
        run.with(|r| {
            r.events()
                .map(|(at, event)| {
                    view! {
                        <tr data-frame=at.to_string() aria-current=current_step(at)>
                            <td class="num">{at}</td>
                            <td class="num">{view::clock(event.time_ms, lang)}</td>
                            <td>{narrate::actor(event.actor, lang)}</td>
                            <td>{narrate::describe(event, lang)}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <details class="events" data-testid="events">
            <summary data-testid="events-summary">
                {text(|l| {
                    let (events, steps) = l.run.with(|r| (r.events().count(), r.frame_count() - 1));
                    let template = ui(l.lang.get()).events_summary;
                    put_in(template, &[&events.to_string(), &steps.to_string()])
                })}
            </summary>
            <div class="table-scroll">
                <table>
                    <thead>
                        <tr>
                            <th scope="col">{label(|t| t.col_step)}</th>
                            <th scope="col">{label(|t| t.col_time)}</th>
                            <th scope="col">{label(|t| t.col_who)}</th>
                            <th scope="col">{label(|t| t.col_what)}</th>
                        </tr>
                    </thead>
                    <tbody data-testid="event-rows">{rows}</tbody>
                </table>
            </div>
        </details>
    }
}
