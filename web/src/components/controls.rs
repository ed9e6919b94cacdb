//! What the reader sets the lousa with: the settings and the help.

use super::bind::{chosen, flag, label, word};
use crate::dom;
use crate::model::Lousa;
use crate::text::{strategy_gloss, ui};
use crate::words;
use leptos::prelude::*;
use lousa_core::Strategy;
use lousa_core::builtins::NAMES;
use lousa_core::narrate::Lang;

/// A design picker bound to one design of the moment.
#[component]
pub fn StrategyPicker(
    /// The `data-testid` of the `<select>`.
    testid: &'static str,
    /// The design it shows, read from the state.
    shows: fn(&Lousa) -> Strategy,
    /// What picking another design does.
    on_pick: fn(&Lousa, Strategy),
) -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let options = Strategy::ALL
        .into_iter()
        .map(|strategy| {
            view! {
                <option value=strategy.name() prop:selected=chosen(strategy, shows)>
                    {strategy.name()}
                    " · "
                    {strategy_label(strategy)}
                </option>
            }
        })
        .collect_view();
    view! {
        <select
            data-testid=testid
            on:change=move |ev| {
                if let Some(strategy) = Strategy::from_name(&event_target_value(&ev)) {
                    on_pick(&lousa, strategy);
                }
            }
        >
            {options}
        </select>
    }
}

/// A design's gloss in the reader's language.
fn strategy_label(strategy: Strategy) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    let lang = expect_context::<Lousa>().lang;
    move || strategy_gloss(strategy, lang.get())
}

/// The scenario and design of the board, the language, and the help button.
#[component]
pub fn Settings() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let lang = lousa.lang;
    let scenarios = NAMES
        .iter()
        .map(|name| {
            let title = move || words::scenario_title(name, lang.get());
            view! {
                <option value=*name prop:selected=chosen(*name, |l| l.world.get().0)>
                    {title}
                </option>
            }
        })
        .collect_view();
    view! {
        <div class="settings">
            <label>
                <span>{label(|t| t.scenario)}</span>
                <select
                    data-testid="scenario"
                    on:change=move |ev| lousa.choose_scenario(&event_target_value(&ev))
                >
                    {scenarios}
                </select>
            </label>
            <label>
                <span>{label(|t| t.strategy)}</span>
                <StrategyPicker
                    testid="strategy"
                    shows=|l| l.world.get().1
                    on_pick=|l, s| l.choose_strategy(s)
                />
            </label>
            <button
                type="button"
                class="predict"
                data-testid="predict"
                aria-pressed=word(|l| if l.predict.get() { "true" } else { "false" })
                title=label(|t| t.predict_title)
                on:click=move |_| lousa.toggle_predict()
            >
                {label(|t| t.predict)}
            </button>
            <button
                type="button"
                data-testid="language"
                lang=word(|l| if l.lang.get() == Lang::Pt { "en" } else { "pt-BR" })
                on:click=move |_| {
                    lousa.toggle_lang();
                    // The button keeps the focus as its label changes.
                    request_animation_frame(|| dom::focus(dom::by_testid("language").as_ref()));
                }
            >
                {label(|t| t.other_language)}
            </button>
            <button
                type="button"
                data-testid="help"
                aria-keyshortcuts="?"
                aria-expanded=word(|l| if l.help_open.get() { "true" } else { "false" })
                on:click=move |_| set_help(&lousa, !lousa.help_open.get_untracked())
            >
                "? "
                {label(|t| t.help_button)}
            </button>
        </div>
    }
}

/// Opens or closes the help. Focus goes into it, and back to the play
/// button (in view, beside the board) rather than staying on a hidden
/// button when it closes; once the page shows the change.
pub fn set_help(lousa: &Lousa, open: bool) {
    lousa.help_open.set(open);
    request_animation_frame(move || {
        let target = if open { "help-close" } else { "play" };
        dom::focus(dom::by_testid(target).as_ref());
    });
}

/// The keyboard shortcuts. It opens next to the controls, where the reader
/// already is: moving focus to it then never scrolls the article.
#[component]
pub fn Help() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let lang = lousa.lang;
    let keys = move || {
        ui(lang.get())
            .help_keys
            .iter()
            .map(|(key, what)| {
                view! {
                    <dt>
                        <kbd>{*key}</kbd>
                    </dt>
                    <dd>{*what}</dd>
                }
            })
            .collect_view()
    };
    view! {
        <div
            class="help"
            role="dialog"
            aria-labelledby="lousa-help-title"
            data-testid="help-panel"
            hidden=flag(|l| !l.help_open.get())
        >
            <p id="lousa-help-title" class="help-title">
                {label(|t| t.help_button)}
            </p>
            <dl>{keys}</dl>
            <button type="button" data-testid="help-close" on:click=move |_| set_help(&lousa, false)>
                {label(|t| t.close)}
            </button>
        </div>
    }
}
