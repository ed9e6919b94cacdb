//! Faults and branches: at the frame on the board, the palette of faults
//! the world admits (crash this instance, lose this message, silence the
//! acquirer, delay a message); injecting one forks the run there, and the
//! two lines show the run and its branch on one time axis. Both stay
//! navigable, and the URL holds the fork.

use crate::board::WIDTH;
use crate::state::Ws;
use leptos::prelude::*;
use lousa_core::fork;
use lousa_core::narrate::Lang;
use lousa_core::story::twin_of_runs;
use lousa_core::view::{self, Cursor};
use lousa_web::TwoLines;
use lousa_web::text::ui;
use lousa_web::twin::TwinView;
use lousa_web::words::cursor_text;
use lousa_web::worlds::Shared;
use std::sync::Arc;

/// This view's words, from the workshop's table (`crate::texts`).
fn words(lang: Lang) -> &'static crate::texts::BranchWords {
    &crate::texts::words(lang).branch
}

/// The branch's fault as a sentence: "Com a falha: derrubar a instância 1
/// (no passo 5)".
pub fn fault_caption(f: fork::Fork, lang: Lang) -> String {
    let w = words(lang);
    let label = fork::label(f.injection, lang);
    format!("{}: {label} ({} {})", w.branch, w.at_frame, f.frame)
}

#[component]
pub fn Branch() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = move || words(ws.lang.get());
    // The palette is of the run's own world at the frame on the board.
    let offers = move || {
        let lang = ws.lang.get();
        if ws.on_branch.get() {
            return Vec::new();
        }
        let frame = ws.frame();
        ws.built.with(|s| {
            ws.turn.with(|t| {
                t.as_ref()
                    .ok()
                    .and_then(|t| fork::world_at(s, &t.run, frame))
                    .map(|world| fork::palette(&world, frame, lang))
                    .unwrap_or_default()
            })
        })
    };
    let palette = move || {
        let list = offers();
        if list.is_empty() {
            return view! { <p data-testid="no-faults">{w().none}</p> }.into_any();
        }
        list.into_iter()
            .map(|offer| {
                let f = offer.fork;
                view! {
                    <button data-testid="inject" data-fork=f.to_string() on:click=move |_| ws.inject(f)>
                        {offer.label}
                    </button>
                }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section class="branch" aria-labelledby="branch-title">
            <h2 id="branch-title">{move || w().title}</h2>
            <p class="branch-intro">{move || w().intro}</p>
            <p class="palette" data-testid="palette">{palette}</p>
            <Lines />
        </section>
    }
}

/// The run and its branch on one axis, with a cursor at the frame on the
/// board that a press or a drag moves, and the switch between them.
#[component]
fn Lines() -> impl IntoView {
    let ws = expect_context::<Ws>();
    // The lines are drawn for the width they are shown at, as the reader's
    // are: drawn for the board's 760 px and shrunk to a phone's, their
    // words came out about 5 px tall.
    let width = RwSignal::new(WIDTH);
    let holder = NodeRef::<leptos::html::Div>::new();
    crate::resize::on_resize(holder, move || {
        if let Some(el) = holder.get_untracked() {
            let shown = el.get_bounding_client_rect().width().round() as i32;
            if shown > 0 && shown != width.get_untracked() {
                width.set(shown);
            }
        }
    });
    let lines = Memo::new(move |_| {
        ws.fork.track();
        let branch = ws.branch.get()?.ok()?;
        let run = ws.whole.get()?;
        let twin = twin_of_runs((*run).clone(), (*branch).clone());
        Some(Shared(Arc::new(TwinView::new(twin, width.get()))))
    });
    // The lines' names are short, as the reader's are: SVG text does not
    // wrap, and on a phone the fault's description ran off the lines' edge.
    // It goes in the caption below them.
    let names = Memo::new(move |_| {
        let w = words(ws.lang.get());
        [w.run.to_string(), w.branch.to_string()]
    });
    let fault = move || {
        let lang = ws.lang.get();
        ws.fork
            .get()
            .map_or_else(String::new, |f| fault_caption(f, lang))
    };
    // The board's run (or branch) at the frame on the board, as a place on
    // the shared axis; a seek finds the frame of the shown line there.
    let cursor = move || {
        let frame = ws.frame();
        ws.with_shown(|r| r.map(|r| view::cursor_at(r, frame)).unwrap_or_default())
    };
    let on_seek = move |stop: Cursor, _press: bool| {
        if let Some(frame) = ws.with_shown(|r| r.map(|r| view::frame_at_cursor(r, stop))) {
            ws.seek(frame);
        }
    };
    let value_text = move || {
        let (frame, lang) = (ws.frame(), ws.lang.get());
        ws.with_shown(|r| r.map(|r| cursor_text(r, frame, lang)))
            .unwrap_or_default()
    };
    move || {
        lines.with(Option::is_some).then(|| {
            let w = words(ws.lang.get());
            view! {
                <div class="branch-lines" node_ref=holder>
                    <TwoLines
                        lines=lines
                        names=names
                        lang=ws.lang
                        cursor=cursor
                        frame=move || ws.frame()
                        last=move || ws.last_frame()
                        value_text=value_text
                        label=move || ui(ws.lang.get()).cursor_label
                        testid="branch-lines"
                        on_seek=on_seek
                    />
                    <p class="branch-fault" data-testid="branch-fault">{fault}</p>
                    <p class="branch-switch">
                        <button
                            data-testid="show-run"
                            aria-pressed=move || (!ws.on_branch.get()).to_string()
                            on:click=move |_| ws.show_branch(false)
                        >
                            {w.run}
                        </button>
                        <button
                            data-testid="show-branch"
                            aria-pressed=move || ws.on_branch.get().to_string()
                            on:click=move |_| ws.show_branch(true)
                        >
                            {w.branch}
                        </button>
                        <button data-testid="unfork" on:click=move |_| ws.unfork()>
                            {w.drop}
                        </button>
                    </p>
                </div>
            }
        })
    }
}
