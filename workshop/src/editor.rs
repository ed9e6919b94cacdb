//! The scenario editor: a form over the scenario on the board. A field
//! takes effect when it is left (or Enter is pressed); a value the core
//! refuses shows its message beside the field, and the board keeps the
//! last scenario that ran. The edited scenario is the URL's link, and goes
//! out and comes back as a JSON file.

use crate::edit::{self, Field, Kind};
use crate::state::Ws;
use crate::texts::refusal;
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use wasm_bindgen::JsCast;

/// This view's words, from the workshop's table (`crate::texts`).
fn words(lang: Lang) -> &'static crate::texts::EditorWords {
    &crate::texts::words(lang).editor
}

#[component]
pub fn Editor() -> impl IntoView {
    let ws = expect_context::<Ws>();
    // A refusal that is not a field's own (a client more or fewer, a file).
    let trouble = RwSignal::new(None::<String>);
    let w = move || words(ws.lang.get());
    let set_edits = move |result: Result<String, String>| match result {
        Ok(edits) => {
            trouble.set(None);
            ws.set_edits(edits);
        }
        Err(e) => trouble.set(Some(e)),
    };
    let resize = move |more: bool| {
        let name = ws.scenario.get_untracked();
        set_edits(
            ws.edits
                .with_untracked(|e| edit::resize_clients(name, e, more)),
        );
    };
    let export = move |_| {
        let json = ws.built.with_untracked(|s| s.to_json());
        let name = format!("{}.json", ws.scenario.get_untracked());
        crate::exports::download(&name, &json, "application/json");
    };
    let import = move |e: leptos::ev::Event| {
        let Some(input) = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        let text = wasm_bindgen_futures::JsFuture::from(file.text());
        leptos::task::spawn_local(async move {
            let Some(text) = text.await.ok().and_then(|t| t.as_string()) else {
                return;
            };
            match edit::import(&text, ws.scenario.get_untracked()) {
                Ok((name, edits, strategy)) => {
                    trouble.set(None);
                    // Another built-in drops the edits: the file's go after.
                    ws.choose_world(name, strategy);
                    ws.set_edits(edits);
                }
                Err(e) => trouble.set(Some(e)),
            }
        });
    };
    // The form is rebuilt when the scenario changes (a valid edit, another
    // built-in, a client more): each field then shows what it holds.
    let form = move || {
        let lang = ws.lang.get();
        let scenario = ws.built.get();
        // The world's fields, each client's, then the faults.
        let mut groups: Vec<(Option<usize>, Vec<Field>)> = Vec::new();
        for f in edit::fields(&scenario) {
            let group = match edit::client_of(&f.path) {
                None if f.path == "faults" => Some(usize::MAX),
                other => other,
            };
            match groups.last_mut() {
                Some((g, list)) if *g == group => list.push(f),
                _ => groups.push((group, vec![f])),
            }
        }
        groups
            .into_iter()
            .map(|(group, list)| {
                let legend = match group {
                    None => words(lang).world.to_string(),
                    Some(usize::MAX) => words(lang).faults.to_string(),
                    Some(i) => format!("{} {}", words(lang).client, i + 1),
                };
                let inputs = list
                    .into_iter()
                    .map(|f| {
                        let now = edit::shown(&scenario, &f.path);
                        view! { <FieldInput field=f now lang /> }
                    })
                    .collect_view();
                view! {
                    <fieldset>
                        <legend>{legend}</legend>
                        {inputs}
                    </fieldset>
                }
            })
            .collect_view()
    };
    view! {
        <details class="editor" data-testid="editor">
            <summary>{move || w().title}</summary>
            {move || {
                ws.edits
                    .with(|e| !e.is_empty())
                    .then(|| view! { <p data-testid="edited">{w().edited}</p> })
            }}
            <p class="editor-actions">
                <button data-testid="more-clients" on:click=move |_| resize(true)>
                    {move || w().more}
                </button>
                <button data-testid="fewer-clients" on:click=move |_| resize(false)>
                    {move || w().fewer}
                </button>
                <button data-testid="reset-edits" on:click=move |_| set_edits(Ok(String::new()))>
                    {move || w().reset}
                </button>
                <button data-testid="export-json" on:click=export>
                    {move || w().export}
                </button>
                <label class="import">
                    {move || w().import}
                    " "
                    <input type="file" accept=".json,application/json" data-testid="import-json" on:change=import />
                </label>
            </p>
            // Said until the attendee picks or injects again.
            {move || {
                let still = ws.dropped.get()
                    && ws.fork.with(Option::is_none)
                    && ws.choices.with(Vec::is_empty);
                still.then(|| view! { <p class="rewound" data-testid="edit-restarted">{w().restarted}</p> })
            }}
            {move || {
                trouble
                    .get()
                    .map(|t| view! { <p class="field-error" data-testid="editor-error" role="alert">{refusal(&t, ws.lang.get())}</p> })
            }}
            <div class="editor-form">{form}</div>
        </details>
    }
}

/// One field: its label, its input, and the core's words when it refuses.
#[component]
fn FieldInput(field: Field, now: String, lang: Lang) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let error = RwSignal::new(None::<String>);
    let label = match lang {
        Lang::Pt => field.pt,
        Lang::En => field.en,
    };
    let path = field.path.clone();
    let kind = field.kind;
    let commit = move |typed: String| {
        let name = ws.scenario.get_untracked();
        match ws
            .edits
            .with_untracked(|e| edit::apply(name, e, &field, &typed))
        {
            Ok(edits) => {
                error.set(None);
                ws.set_edits(edits);
            }
            Err(e) => error.set(Some(e)),
        }
    };
    let input = match kind {
        Kind::Flag => {
            let checked = now == "true";
            view! {
                <input
                    type="checkbox"
                    data-path=path.clone()
                    prop:checked=checked
                    on:change=move |e| commit(event_target_checked(&e).to_string())
                />
            }
            .into_any()
        }
        Kind::Choice(options) => {
            let options = options
                .iter()
                .map(|o| view! { <option value=*o selected=*o == now>{*o}</option> })
                .collect_view();
            view! {
                <select data-path=path.clone() on:change=move |e| commit(event_target_value(&e))>
                    {options}
                </select>
            }
            .into_any()
        }
        Kind::Json => view! {
            <textarea
                data-path=path.clone()
                rows="3"
                prop:value=now
                on:change=move |e| commit(event_target_value(&e))
            ></textarea>
        }
        .into_any(),
        Kind::Whole { min, max } => view! {
            <input
                type="text"
                inputmode="numeric"
                data-path=path.clone()
                data-min=min.to_string()
                data-max=max.to_string()
                prop:value=now
                on:change=move |e| commit(event_target_value(&e))
            />
        }
        .into_any(),
        Kind::Text => view! {
            <input type="text" data-path=path.clone() prop:value=now on:change=move |e| commit(event_target_value(&e)) />
        }
        .into_any(),
    };
    view! {
        <label class="field" data-testid="field" data-field=path>
            <span class="field-label">{label}</span>
            {input}
            {move || {
                error
                    .get()
                    .map(|e| view! { <span class="field-error" data-testid="field-error" role="alert">{refusal(&e, lang)}</span> })
            }}
        </label>
    }
}
