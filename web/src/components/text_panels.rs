//! The board's text equivalents: the SQL panel, the narration and the
//! event table.

use crate::text::{Ui, events_summary, ui};
use crate::words::SqlView;
use crate::worlds::Shared;
use leptos::prelude::*;
use lousa_core::narrate::{self, Lang};
use lousa_core::run::Run;
use lousa_core::view;

/// The latest SQL statement at the frame on screen, its result, and when
/// and by whom it ran. Its four children stay the same from frame to frame.
#[component]
pub fn SqlPanel(
    /// The statement, its result's class and text, and when it ran
    /// (`words::sql_texts`).
    sql: impl Fn() -> SqlView + Copy + Send + Sync + 'static,
    /// A fixed height (the tallest of the run's), so that the page below
    /// does not move as the panel's text changes; none lets it follow it.
    height: impl Fn() -> Option<String> + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="sql-panel" data-testid="sql" style:height=height>
            <span class="sql-title">"SQL"</span>
            <code class="sql-statement" data-testid="sql-statement">
                {move || sql().0}
            </code>
            <p class=move || sql().1 data-testid="sql-result">
                {move || sql().2}
            </p>
            <p class="sql-when">{move || sql().3}</p>
        </div>
    }
}

/// One paragraph saying what the last step did, read out by screen readers
/// as it changes.
#[component]
pub fn Narration(
    /// What the step on screen did (`words::narration`).
    said: impl Fn() -> String + Send + Sync + 'static,
    /// A fixed height, as [`SqlPanel`]'s.
    height: impl Fn() -> Option<String> + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <p
            class="narration"
            aria-live="polite"
            aria-atomic="true"
            data-testid="narration"
            style:height=height
        >
            {said}
        </p>
    }
}

/// One row of the event table.
#[derive(Clone, PartialEq, Eq, Hash)]
struct EventRow {
    /// Its place in the run's events.
    n: usize,
    /// The step that shows it.
    at: usize,
    time: String,
    who: String,
    what: String,
}

/// Every event of `run`, one row each under the step that shows it (the
/// step counter's numbers, so "passo 26 de 30" and 22 events read as one
/// story), the rows of `frame` marked as the current step. Both pages
/// mount it: the reader with its run, the workshop with the whole run on
/// its board, whose rows it writes only while the table is open
/// (`while_open`: a run at the limits has thousands of events).
#[component]
pub fn EventTable(
    /// The run whose events are listed; none, an empty table.
    run: Memo<Option<Shared<Run>>>,
    /// The frame on screen.
    frame: Memo<usize>,
    lang: RwSignal<Lang>,
    /// Write the rows only while the table is open.
    #[prop(optional)]
    while_open: bool,
) -> impl IntoView {
    let open = RwSignal::new(false);
    // Keyed by what a row says and where: a run that grows (the workshop's
    // next pick) keeps the rows it shares with the one before.
    let rows = move || {
        if while_open && !open.get() {
            return Vec::new();
        }
        let lang = lang.get();
        run.with(|r| {
            r.as_ref().map_or_else(Vec::new, |run| {
                run.events()
                    .enumerate()
                    .map(|(n, (at, event))| EventRow {
                        n,
                        at,
                        time: view::clock(event.time_ms, lang),
                        who: narrate::actor(event.actor, lang).to_string(),
                        what: narrate::describe(event, lang),
                    })
                    .collect::<Vec<_>>()
            })
        })
    };
    let summary = move || {
        let (events, steps) = run.with(|r| {
            r.as_ref()
                .map_or((0, 0), |r| (r.events().count(), r.frame_count() - 1))
        });
        events_summary(lang.get(), events, steps)
    };
    let col = move |pick: fn(&Ui) -> &'static str| move || pick(ui(lang.get()));
    // A row reads whether its step is on screen from this, not from the
    // frame: a seek then wakes the rows of the two steps it leaves and
    // reaches, not every row of the run.
    let current = Selector::new(move || frame.get());
    view! {
        <details
            class="events"
            data-testid="events"
            on:toggle=move |_| open.update(|o| *o = !*o)
        >
            <summary data-testid="events-summary">{summary}</summary>
            <div class="table-scroll">
                <table>
                    <thead>
                        <tr>
                            <th scope="col">{col(|t| t.col_step)}</th>
                            <th scope="col">{col(|t| t.col_time)}</th>
                            <th scope="col">{col(|t| t.col_who)}</th>
                            <th scope="col">{col(|t| t.col_what)}</th>
                        </tr>
                    </thead>
                    <tbody data-testid="event-rows">
                        <For each=rows key=|row| row.clone() let(row)>
                            <tr
                                data-frame=row.at.to_string()
                                aria-current={
                                    let current = current.clone();
                                    move || current.selected(&row.at).then_some("step")
                                }
                            >
                                <td class="num">{row.at}</td>
                                <td class="num">{row.time}</td>
                                <td>{row.who}</td>
                                <td>{row.what}</td>
                            </tr>
                        </For>
                    </tbody>
                </table>
            </div>
        </details>
    }
}
