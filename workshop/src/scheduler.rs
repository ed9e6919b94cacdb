//! The scheduler's panel: the choice point's alternatives as a numbered
//! list (keys 1-9 pick; screen readers read the list), undo, redo, first
//! come first served, the schedule made so far, and what a link asked for
//! that did not fit.

use crate::alternatives::labels;
use crate::state::Ws;
use crate::texts::{choice_kind, words};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_web::ProblemList;

#[component]
pub fn Scheduler() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = move || words(ws.lang.get());
    let kind = move || {
        let lang = ws.lang.get();
        ws.with_point(|p| p.map_or(w().run_over, |p| choice_kind(p.kind, lang)))
    };
    // The alternatives at the choice point, numbered for keys 1-9; keyed,
    // so that a list that keeps an alternative keeps its button.
    let items = move || {
        let lang = ws.lang.get();
        let list = ws.with_acting(|t| t.map(|t| labels(t, lang)).unwrap_or_default());
        list.into_iter()
            .enumerate()
            .map(|(n, l)| (n, l.choice, l.text))
            .collect::<Vec<_>>()
    };
    let item = move |(n, choice, text): (usize, u32, String)| {
        // Keys 1-9 pick the first nine listed.
        let key = (n < 9).then(|| view! { <kbd>{(n + 1).to_string()}</kbd> " " });
        view! {
            <li>
                <button
                    class="pick"
                    data-testid="pick"
                    data-choice=choice.to_string()
                    on:click=move |_| ws.pick(choice)
                >
                    {key}
                    {text}
                </button>
            </li>
        }
    };
    let schedule_text = move || {
        ws.choices.with(|c| {
            if c.is_empty() {
                w().no_choices_yet.to_string()
            } else {
                Schedule(c.clone()).exact_text()
            }
        })
    };
    // The core's words inside a problem, in the page's language.
    let shown_problems = Memo::new(move |_| {
        let lang = ws.lang.get();
        ws.problems.with(|p| crate::texts::problems_in(p, lang))
    });
    view! {
        <section class="scheduler" aria-labelledby="scheduler-title">
            <h2 id="scheduler-title">{move || w().choices_label}</h2>
            <ProblemList problems=shown_problems lang=ws.lang />
            <p class="turn-kind" data-testid="turn-kind">{kind}</p>
            {move || {
                ws.rewound
                    .with(Option::is_some)
                    .then(|| view! { <p class="rewound" data-testid="rewound">{w().rewound}</p> })
            }}
            <BranchNote />
            <ol class="picks" data-testid="picks">
                <For each=items key=|i| i.clone() children=item />
            </ol>
            <OtherChoice />
            <Ending />
            <p class="scheduler-actions">
                <button
                    data-testid="undo"
                    on:click=move |_| ws.undo()
                    prop:disabled=move || ws.choices.with(Vec::is_empty)
                >
                    {move || w().undo}
                </button>
                <button
                    data-testid="redo"
                    on:click=move |_| ws.redo()
                    prop:disabled=move || ws.redo.with(Vec::is_empty)
                >
                    {move || w().redo}
                </button>
                <button
                    data-testid="finish"
                    on:click=move |_| ws.finish()
                    prop:disabled=move || ws.arity() == 0
                >
                    {move || w().first_come}
                </button>
                <button data-testid="restart" on:click=move |_| ws.start_over()>
                    {move || w().restart}
                </button>
            </p>
            <p class="schedule-line">
                {move || w().schedule_word}
                ": "
                <code data-testid="schedule">{schedule_text}</code>
            </p>
        </section>
    }
}

/// A field for any choice of a point the list only samples: a jitter of a
/// second has 1,001 alternatives, and the list shows nine of them.
#[component]
fn OtherChoice() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let last = move || {
        ws.with_point(|p| {
            p.filter(|p| p.arity as usize > p.alternatives.len())
                .map(|p| p.arity - 1)
        })
    };
    let typed = RwSignal::new(String::new());
    move || {
        let last = last()?;
        let w = words(ws.lang.get());
        let take = move || {
            if let Ok(choice) = typed.get_untracked().trim().parse::<u32>()
                && choice <= last
            {
                ws.pick(choice);
                typed.set(String::new());
            }
        };
        Some(view! {
            <form
                class="other-choice"
                on:submit=move |e| {
                    e.prevent_default();
                    take();
                }
            >
                <label>
                    {format!("{} {last}: ", w.other_choice)}
                    <input
                        type="number"
                        data-testid="other-choice"
                        min="0"
                        max=last.to_string()
                        step="1"
                        prop:value=move || typed.get()
                        on:input=move |e| typed.set(event_target_value(&e))
                    />
                </label>
                " "
                <button type="submit" data-testid="take-choice">{w.take_choice}</button>
            </form>
        })
    }
}

/// How the run on the board ended, once no choice is left (the branch
/// with a fault always runs to its end): the captures per intent and
/// whether the money left more than once.
#[component]
fn Ending() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let said = move |s: &lousa_core::trace::Summary| {
        let captures: Vec<String> = s.intents.iter().map(|i| i.captures.to_string()).collect();
        let twice = !s.double_charged_intents.is_empty();
        let text = ending(s, ws.lang.get());
        view! {
            <p
                class="ending"
                class:double=twice
                data-testid="ending"
                data-captures=captures.join(",")
            >
                {text}
            </p>
        }
    };
    move || {
        if ws.on_branch.get() {
            return ws.branch.with(|b| match b {
                Some(Ok(r)) => Some(said(&r.summary)),
                _ => None,
            });
        }
        ws.turn.with(|t| {
            let t = t.as_ref().ok().filter(|t| t.next.is_none())?;
            Some(said(&t.run.summary))
        })
    }
}

/// While the board shows the branch: the alternatives listed are the run's,
/// and picking one goes back to it.
#[component]
fn BranchNote() -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        ws.on_branch.get().then(|| {
            view! { <p class="rewound" data-testid="branch-note">{words(ws.lang.get()).branch_choices}</p> }
        })
    }
}

/// How a run ended, in words: its captures per intent, the money charged
/// and how many times the intent charged most often was.
pub fn ending(s: &lousa_core::trace::Summary, lang: lousa_core::narrate::Lang) -> String {
    use lousa_core::narrate::Lang;
    let captures: Vec<String> = s.intents.iter().map(|i| i.captures.to_string()).collect();
    let captures = captures.join(", ");
    // How many times the intent charged most often was: a crash after the
    // capture with no key charges three or four times, not twice.
    let twice = !s.double_charged_intents.is_empty();
    let most = s.intents.iter().map(|i| i.captures).max().unwrap_or(0);
    let money = lousa_core::narrate::amount(s.charged_cents, lang);
    let head = match lang {
        Lang::Pt => format!("Fim: capturas por intenção [{captures}], {money} cobrados."),
        Lang::En => format!("End: captures per intent [{captures}], {money} charged."),
    };
    let tail = match (lang, twice, most) {
        (Lang::Pt, true, n @ 3..) => format!("A cobrança saiu {n} vezes."),
        (Lang::Pt, true, _) => "A cobrança saiu duas vezes.".into(),
        (Lang::Pt, false, _) => "Nenhuma intenção foi cobrada duas vezes.".into(),
        (Lang::En, true, n @ 3..) => format!("The charge went through {n} times."),
        (Lang::En, true, _) => "The charge went through twice.".into(),
        (Lang::En, false, _) => "No intent was charged twice.".into(),
    };
    format!("{head} {tail}")
}

#[cfg(test)]
mod tests {
    use super::ending;
    use lousa_core::narrate::Lang;
    use lousa_core::{Strategy, builtins};

    /// Twice is said only of two charges: a timed-out client's retries
    /// with no key charge four times, and the ending says four.
    #[test]
    fn the_ending_counts_the_charges_past_two() {
        let said = |strategy| {
            let mut s = builtins::builtin("timeout-retry").expect("built-in");
            s.strategy = strategy;
            let r = lousa_core::run(&s).expect("runs");
            let most = r.summary.intents.iter().map(|i| i.captures).max();
            (
                most,
                ending(&r.summary, Lang::Pt),
                ending(&r.summary, Lang::En),
            )
        };
        let (most, pt, en) = said(Strategy::Naive);
        assert_eq!(most, Some(4), "{pt}");
        assert!(pt.ends_with("A cobrança saiu 4 vezes."), "{pt}");
        assert!(en.ends_with("The charge went through 4 times."), "{en}");
        let (most, pt, _) = said(Strategy::CheckThenAct);
        assert_eq!(most, Some(2), "{pt}");
        assert!(pt.ends_with("A cobrança saiu duas vezes."), "{pt}");
        let (_, pt, en) = said(Strategy::IdempotencyKey);
        assert!(
            pt.ends_with("Nenhuma intenção foi cobrada duas vezes."),
            "{pt}"
        );
        assert!(en.ends_with("No intent was charged twice."), "{en}");
    }
}
