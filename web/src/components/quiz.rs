//! "Ask first": the board's question at a decisive step, its choices, and
//! the verdict of the last answer (the logic is `crate::quiz`).

use crate::dom;
use crate::model::Lousa;
use crate::quiz::{Quiz, about, hint_text, noted_text, verdict_text};
use leptos::prelude::*;
use lousa_core::narrate::Lang;

/// Answers the question on screen with `choice` (0 is the first). The
/// choice's button goes with the question, so the focus moves, once the
/// page shows the change, to the next question's first choice or else to
/// the forward button. False when nothing is asked.
pub fn answer(lousa: &Lousa, choice: usize) -> bool {
    if !lousa.answer(choice) {
        return false;
    }
    request_animation_frame(|| {
        let next = dom::by_testid("prompt-choice").or_else(|| dom::by_testid("step-forward"));
        dom::focus(next.as_ref());
    });
    true
}

/// The question being asked, with one button per choice, the verdicts of
/// the answers the board has just shown, and the answer just given when
/// the board shows it later; empty while none of these is shown. Read out
/// politely by screen readers as it changes. The reader's page and the
/// workshop's presenter mode both mount it.
#[component]
pub fn QuizPanel(
    /// The run's questions and where the board stands with them; none
    /// while nobody is asked.
    quiz: Memo<Option<Quiz>>,
    lang: RwSignal<Lang>,
    /// The question's accessible name, in a language.
    label: fn(Lang) -> &'static str,
    /// Answers the question on screen with a choice (0 is the first).
    on_answer: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let panel = move || {
        let lang = lang.get();
        quiz.with(|q| {
            let q = q.as_ref()?;
            if q.is_quiet() {
                return None;
            }
            let verdicts = q
                .verdicts()
                .map(|(prompt, chosen)| {
                    let right = chosen == prompt.answer;
                    view! {
                        <p
                            class=if right { "quiz-verdict" } else { "quiz-verdict wrong" }
                            data-testid="verdict"
                            data-about=about(prompt.about)
                            data-right=if right { "true" } else { "false" }
                            role="status"
                        >
                            {verdict_text(prompt, chosen, lang)}
                        </p>
                    }
                })
                .collect_view();
            let noted = q.noted().map(|(prompt, chosen)| {
                view! {
                    <p class="quiz-noted" data-testid="noted" data-about=about(prompt.about)>
                        {noted_text(prompt, chosen, lang)}
                    </p>
                }
            });
            let asking = q.asking().map(|prompt| {
                let choices = prompt
                    .choices
                    .iter()
                    .enumerate()
                    .map(|(i, choice)| {
                        view! {
                            <button
                                type="button"
                                class="quiz-choice"
                                data-testid="prompt-choice"
                                data-choice=i.to_string()
                                on:click=move |_| on_answer(i)
                            >
                                <kbd>{(i + 1).to_string()}</kbd>
                                <span>" " {choice.get(lang)}</span>
                            </button>
                        }
                    })
                    .collect_view();
                view! {
                    <section
                        class="quiz-prompt"
                        data-testid="prompt"
                        data-about=about(prompt.about)
                        data-ask-at=prompt.ask_at.to_string()
                        aria-label=label(lang)
                    >
                        <p class="quiz-question" data-testid="prompt-question">
                            {prompt.question.get(lang)}
                        </p>
                        <p class="quiz-choices">{choices}</p>
                        <p class="quiz-hint">{hint_text(prompt, lang)}</p>
                    </section>
                }
            });
            Some(view! { <div class="quiz">{verdicts}{noted}{asking}</div> })
        })
    };
    view! {
        <div class="quiz-slot" data-testid="quiz" aria-live="polite">
            {panel}
        </div>
    }
}
