//! Take it home: the run on the board (the choices made, first come first
//! served past them; on a branch, with its fault) as lousa-core's four
//! exports, each by download and by copy. The page renders the same bytes
//! as `lousa export`.

use crate::state::Ws;
use crate::texts::{Words, words};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::export::{self, Format};
use lousa_core::fork::Fork;
use wasm_bindgen::JsCast;

/// The file name's extension and MIME type of each format.
fn file_kind(format: Format) -> (&'static str, &'static str) {
    match format {
        Format::Psql => ("sql", "application/sql"),
        Format::RustTest => ("rs", "text/x-rust"),
        Format::History => ("json", "application/json"),
        Format::Mermaid => ("mmd", "text/plain"),
    }
}

/// `race-2-check-then-act-0-1x6.sql`; under a design, the design's name
/// in place of the strategy's; a branch's adds its fault,
/// `…-0-1x6-at5-crash-1+3000.sql` (no `:`, which some systems refuse).
pub fn file_name(
    scenario: &str,
    strategy: &str,
    choices: &[u32],
    fork: Option<Fork>,
    format: Format,
) -> String {
    let schedule = Schedule(choices.to_vec()).to_string();
    let fault = fork.map_or_else(String::new, |f| {
        format!("-at{}", f.to_string().replacen(':', "-", 1))
    });
    format!(
        "{scenario}-{strategy}-{schedule}{fault}.{}",
        file_kind(format).0
    )
}

#[component]
pub fn Exports() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let said = RwSignal::new(None::<&'static str>);
    // Which file went to the clipboard: with four buttons, "copied" alone
    // does not say which.
    let copied = RwSignal::new(0usize);
    let text_of = move |format: Format| {
        ws.built.with_untracked(|s| {
            ws.board_whole.with_untracked(|r| {
                r.as_ref()
                    .map(|r| export::render(format, s, r, ws.lang.get_untracked()))
            })
        })
    };
    let rows = Format::ALL
        .into_iter()
        .enumerate()
        .map(|(i, format)| {
            view! {
                <li data-testid="export" data-format=format.name()>
                    <span class="export-name">{move || words(ws.lang.get()).export_names[i]}</span>
                    " "
                    <button
                        data-testid="download"
                        on:click=move |_| {
                            if let Some(text) = text_of(format) {
                                // What handled the requests: the design, or the strategy.
                                let handler = ws.design.with_untracked(|d| {
                                    d.as_ref().map_or_else(
                                        || ws.strategy.get_untracked().name().to_string(),
                                        |p| p.design().name.clone(),
                                    )
                                });
                                let fork = ws
                                    .board_whole
                                    .with_untracked(|r| r.as_ref().and_then(|r| r.fork));
                                let name = file_name(
                                    ws.scenario.get_untracked(),
                                    &handler,
                                    &ws.choices.get_untracked(),
                                    fork,
                                    format,
                                );
                                download(&name, &text, file_kind(format).1);
                            }
                        }
                    >
                        {move || words(ws.lang.get()).download}
                    </button>
                    " "
                    <button
                        data-testid="copy"
                        on:click=move |_| {
                            if let Some(text) = text_of(format) {
                                copied.set(i);
                                copy(&text, said, ws, |w| w.copied_file, |w| w.copy_failed);
                            }
                        }
                    >
                        {move || words(ws.lang.get()).copy}
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="exports" aria-labelledby="exports-title">
            <h2 id="exports-title">{move || words(ws.lang.get()).exports_title}</h2>
            // On the branch the files carry its fault: say so, since the
            // run beside it is the one without.
            {move || {
                let forked = ws.board_whole.with(|r| r.as_ref().is_some_and(|r| r.fork.is_some()));
                forked
                    .then(|| {
                        view! {
                            <p class="rewound" data-testid="exports-with-fault">
                                {words(ws.lang.get()).exports_with_fault}
                            </p>
                        }
                    })
            }}
            <ul>{rows}</ul>
            <p data-testid="copy-status" aria-live="polite">
                {move || {
                    let w = words(ws.lang.get());
                    said.get()
                        .map(|s| {
                            if s == w.copied_file {
                                format!("{} {}.", s, w.export_names[copied.get()])
                            } else {
                                s.to_string()
                            }
                        })
                }}
            </p>
        </section>
    }
}

/// Saves `text` as a file named `name`, through a link to a blob.
pub fn download(name: &str, text: &str, mime: &str) {
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let a: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .expect("an anchor")
        .unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    // The download reads the blob after this handler returns.
    gloo_timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
}

/// Puts `text` on the clipboard, and says whether it went: `done` picks the
/// word for a copy, `failed` the sentence for a refusal, which names what
/// to do instead.
pub fn copy(
    text: &str,
    said: RwSignal<Option<&'static str>>,
    ws: Ws,
    done: fn(&Words) -> &'static str,
    failed: fn(&Words) -> &'static str,
) {
    let promise = window().navigator().clipboard().write_text(text);
    leptos::task::spawn_local(async move {
        let words = words(ws.lang.get_untracked());
        let went = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        said.set(Some(if went { done(words) } else { failed(words) }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_after_the_run() {
        assert_eq!(
            file_name(
                "race-2",
                "check-then-act",
                &[0, 1, 1, 1, 0],
                None,
                Format::Psql
            ),
            "race-2-check-then-act-0-1x3.sql"
        );
        assert_eq!(
            file_name("race-2", "naive", &[], None, Format::Mermaid),
            "race-2-naive-0.mmd"
        );
        let fork = "5:crash-1+3000".parse().unwrap();
        assert_eq!(
            file_name("timeout-retry", "naive", &[0], Some(fork), Format::RustTest),
            "timeout-retry-naive-0-at5-crash-1+3000.rs"
        );
    }
}
