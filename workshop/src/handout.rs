//! The printed handout of a run: on A4 paper, the board at the frame on
//! screen (the stylesheet's print rules keep it and hide the controls),
//! then the moment's link, the schedule (and a branch's fault), how the
//! whole run ends and the psql script that replays it. Written only while the browser prints
//! (between `beforeprint` and `afterprint`), so no pick pays for an export.

use crate::branch::fault_caption;
use crate::scheduler::ending;
use crate::share::moment_link;
use crate::state::Ws;
use crate::texts::words;
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::export::{self, Format};

#[component]
pub fn Handout() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let printing = RwSignal::new(false);
    let before = window_event_listener_untyped("beforeprint", move |_| printing.set(true));
    let after = window_event_listener_untyped("afterprint", move |_| printing.set(false));
    on_cleanup(move || {
        before.remove();
        after.remove();
    });
    move || {
        if !printing.get() {
            return None;
        }
        let lang = ws.lang.get();
        let w = words(lang);
        let choices = ws.choices.get();
        let schedule = if choices.is_empty() {
            w.no_choices_yet.to_string()
        } else {
            Schedule(choices).to_string()
        };
        let link = moment_link(&ws.setup());
        // The run the board shows: on a branch, the branch, whose fault is
        // said under the schedule that leads to it.
        let (end, psql, fault) = ws.built.with(|s| {
            ws.board_whole.with(|r| {
                r.as_ref().map(|r| {
                    (
                        ending(&r.summary, lang),
                        export::render(Format::Psql, s, r, lang),
                        r.fork.map(|f| fault_caption(f, lang)),
                    )
                })
            })
        })?;
        Some(view! {
            <section class="handout" data-testid="handout">
                <p><strong>{w.handout_link}</strong>" "<code>{link}</code></p>
                <p><strong>{w.schedule_word}</strong>": "<code>{schedule}</code>" "{w.handout_then}</p>
                {fault.map(|f| view! { <p data-testid="handout-fault">{f}</p> })}
                <p data-testid="handout-ending">{end}</p>
                <h2>{w.export_names[0]}</h2>
                <pre data-testid="handout-psql">{psql}</pre>
            </section>
        })
    }
}
