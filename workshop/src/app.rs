//! The workshop view: settings on top, the board with its step controls,
//! and beside it the scheduler, the counts and the exports; in presenter
//! mode, the board alone. The URL follows the state, and the keyboard
//! reaches every action.

use crate::board::Board;
use crate::branch::Branch;
use crate::counts::{Counting, Counts, Fast, Whole, start_whole};
use crate::design_tab::DesignTab;
use crate::editor::Editor;
use crate::explorer::{Explorer, use_explorer};
use crate::exports::Exports;
use crate::handout::Handout;
use crate::lesson::{ChallengePanel, LessonList};
use crate::presenter::{self, Presenter, PresenterBar, QuizPanel};
use crate::scheduler::Scheduler;
use crate::share::Share;
use crate::state::Ws;
use crate::sweep::Sweep;
use crate::texts::words;
use crate::url;
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::{Strategy, builtins};
use lousa_web::keys::{self, Press, WorkshopKey};
use lousa_web::text::html_lang;
use lousa_web::{EventTable, Transport};

#[component]
pub fn Workshop() -> impl IntoView {
    let query = window().location().search().unwrap_or_default();
    let (setup, problems) = url::parse(&query);
    let ws = Ws::new(setup, problems);
    provide_context(ws);
    let p = Presenter::new(ws);
    provide_context(p);
    // The URL, the document's language and title follow the state.
    Effect::new(move |_| {
        let q = url::query(&ws.setup());
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&q));
        }
        let lang = ws.lang.get();
        if let Some(html) = document().document_element() {
            let _ = html.set_attribute("lang", html_lang(lang));
        }
        document().set_title(words(lang).title);
    });
    lousa_web::play_on_timer(ws.playing, ws.speed, move || ws.advance());
    let whole: Whole = RwSignal::new((None, Counting::Idle));
    let fast: Fast = ws.fast;
    // The explorer's workers live as long as the page, and go with it.
    let explorer = use_explorer();
    let solved = crate::lesson::progress();
    let handle = window_event_listener(leptos::ev::keydown, move |e| {
        on_key(ws, p, explorer, (whole, fast), &e)
    });
    on_cleanup(move || handle.remove());
    let on_stage = move || ws.presenting.get();
    view! {
        <div
            class="workshop lz"
            class:presenting=on_stage
            data-testid="workshop"
            data-presenting=move || on_stage().to_string()
        >
            <Settings />
            <div class="workshop-main">
                <div class="workshop-board">
                    {move || on_stage().then(|| view! { <PresenterBar /> })}
                    <ChallengePanel whole solved />
                    <Steps />
                    <Board width=p.width />
                    {move || on_stage().then(|| view! { <QuizPanel /> })}
                    <Handout />
                    <Branch />
                    <EventTable
                        run=ws.board_whole
                        frame=Memo::new(move |_| ws.frame())
                        lang=ws.lang
                        while_open=true
                    />
                    <Editor />
                    <DesignTab whole fast explorer />
                </div>
                <aside class="workshop-side">
                    <LessonList solved />
                    <Scheduler />
                    <Counts whole fast explorer />
                    <Sweep explorer />
                    <Exports />
                    <Share />
                    <Keys />
                </aside>
            </div>
        </div>
    }
}

/// The workshop's keys (`lousa_web::keys::workshop`); in presenter mode,
/// presenter mode's keys only (`presenter::key`).
fn on_key(
    ws: Ws,
    p: Presenter,
    explorer: Explorer,
    (whole, fast): (Whole, Fast),
    e: &web_sys::KeyboardEvent,
) {
    let press = Press::of(e);
    if ws.presenting.get_untracked() {
        if presenter::key(ws, p, &press) {
            e.prevent_default();
        }
        return;
    }
    let Some(key) = keys::workshop(&press) else {
        return;
    };
    match key {
        WorkshopKey::Pick(n) => ws.pick_nth(n),
        WorkshopKey::Undo => ws.undo(),
        WorkshopKey::Redo => ws.redo(),
        WorkshopKey::Finish => ws.finish(),
        WorkshopKey::Step(by) => ws.step(by),
        WorkshopKey::TogglePlay => ws.toggle_play(),
        WorkshopKey::CountAll => start_whole(ws, explorer, whole, fast),
    }
    e.prevent_default();
}

/// The title, the scenario and strategy pickers, the language and the way
/// back to the article.
#[component]
fn Settings() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    let w = move || words(ws.lang.get());
    let scenarios = url::scenario_names()
        .into_iter()
        .map(|name| view! { <option value=name>{name}</option> })
        .collect_view();
    let strategies = Strategy::ALL
        .iter()
        .map(|s| view! { <option value=s.name()>{s.name()}</option> })
        .collect_view();
    // An edited scenario is no longer the built-in its title describes.
    let title = move || {
        let lang = ws.lang.get();
        let title = ws.built.with(|s| match lang {
            Lang::Pt => s.title.pt.clone(),
            Lang::En => s.title.en.clone(),
        });
        if ws.edits.with(String::is_empty) {
            title
        } else {
            format!("{} “{title}”", w().edited_from)
        }
    };
    let reader = move || match ws.lang.get() {
        Lang::Pt => "./".to_string(),
        Lang::En => "./?lang=en".to_string(),
    };
    view! {
        <header class="workshop-head">
            <h1>{move || w().title}</h1>
            <p class="workshop-intro">{move || w().intro}</p>
            <p class="workshop-settings">
                <label>
                    {move || w().scenario}
                    " "
                    <select
                        data-testid="scenario"
                        prop:value=move || ws.scenario.get()
                        on:change=move |e| {
                            if let Ok(name) = url::scenario_name(&event_target_value(&e)) {
                                let strategy = builtins::builtin(name).map_or(Strategy::CheckThenAct, |s| s.strategy);
                                ws.choose_world(name, strategy);
                            }
                        }
                    >
                        {scenarios}
                    </select>
                </label>
                " "
                <label>
                    {move || w().strategy}
                    " "
                    <select
                        data-testid="strategy"
                        prop:value=move || ws.strategy.get().name()
                        on:change=move |e| {
                            if let Some(s) = Strategy::from_name(&event_target_value(&e)) {
                                // A strategy picked is the handler that runs:
                                // a design on the board would run in its place.
                                ws.design.set(None);
                                ws.choose_world(ws.scenario.get_untracked(), s);
                            }
                        }
                    >
                        {strategies}
                    </select>
                </label>
                " "
                <button
                    data-testid="language"
                    on:click=move |_| {
                        ws.lang.update(|l| *l = if *l == Lang::Pt { Lang::En } else { Lang::Pt })
                    }
                >
                    {move || w().other_language}
                </button>
                " "
                <button
                    data-testid="present"
                    title=move || words(ws.lang.get()).presenting.enter_title
                    on:click=move |_| p.enter(ws)
                >
                    {move || words(ws.lang.get()).presenting.enter}
                </button>
                " "
                <a href=reader>{move || w().reader_page}</a>
            </p>
            <p class="scenario-title" data-testid="scenario-title">{title}</p>
        </header>
    }
}

/// Back, play and forward through the frames the choices fixed (the
/// reader's transport), and where the board stands.
#[component]
fn Steps() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = move || words(ws.lang.get());
    let last = move || ws.last_frame();
    let counter = move || {
        format!(
            "{} {} {} {}",
            w().frame_word,
            ws.frame(),
            w().of_word,
            last()
        )
    };
    let state = move || {
        if ws.viewed.get().is_some() || ws.on_branch.get() {
            String::new()
        } else if ws.arity() > 0 {
            w().your_turn.to_string()
        } else {
            w().run_over.to_string()
        }
    };
    view! {
        <div class="workshop-steps">
            <Transport
                lang=ws.lang
                at_start=move || ws.frame() == 0
                at_end=move || { ws.frame() >= last() }
                on_step=move |by| ws.step(by)
                playing=move || ws.playing.get()
                on_play=move || ws.toggle_play()
                speed=move || ws.speed.get()
                on_speed=move |i| ws.speed.set(i)
                keys=["←", "→"]
            />
            <p>
                <span data-testid="step-counter">{counter}</span>
                " "
                <span class="turn-state" data-testid="turn-state">{state}</span>
            </p>
        </div>
    }
}

/// The keyboard shortcuts.
#[component]
fn Keys() -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        let w = words(ws.lang.get());
        let items = w
            .keys
            .iter()
            .map(|(k, what)| view! { <li><kbd>{*k}</kbd> " " {*what}</li> })
            .collect_view();
        view! {
            <section class="keys">
                <h2>{w.keys_title}</h2>
                <ul>{items}</ul>
            </section>
        }
    }
}
