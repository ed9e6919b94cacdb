//! The lesson (`lousa_core::lesson`): a list of challenges beside the
//! board, each a link, with the attendee's progress kept in the browser;
//! and, while one is played, its panel above the board: the task, hints
//! one at a time, and the success sentence the moment the goal is met,
//! with the way on to the next.

use crate::counts::{Counting, Whole};
use crate::state::Ws;
use crate::texts::{Words, words};
use crate::url::{self, Setup};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::lesson::{self, Challenge, EditMisfit, How};
use lousa_core::narrate::Lang;

/// Where the browser keeps the solved challenges' ids, comma-separated.
const PROGRESS_KEY: &str = "lousa-lesson-solved";

/// The solved challenges' ids as the browser keeps them.
fn stored() -> Vec<String> {
    let Some(storage) = window().local_storage().ok().flatten() else {
        return Vec::new();
    };
    let text = storage
        .get_item(PROGRESS_KEY)
        .ok()
        .flatten()
        .unwrap_or_default();
    solved_ids(&text)
}

/// The known challenge ids in `text`, in lesson order: an id the lesson no
/// longer has is dropped.
fn solved_ids(text: &str) -> Vec<String> {
    lesson::LESSON
        .iter()
        .filter(|c| text.split(',').any(|id| id == c.id))
        .map(|c| c.id.to_string())
        .collect()
}

fn store(ids: &[String]) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = storage.set_item(PROGRESS_KEY, &ids.join(","));
    }
}

/// The link that opens challenge `c` in `lang`.
pub fn link_to(c: &Challenge, lang: Lang) -> String {
    let (name, edits) = c.scenario.split_once(';').unwrap_or((c.scenario, ""));
    url::query(&Setup {
        scenario: lousa_core::builtins::static_name(name).unwrap_or(url::DEFAULT_SCENARIO),
        edits: edits.to_string(),
        strategy: c.strategy,
        lang,
        choices: Vec::new(),
        fork: None,
        presenting: false,
        fast: false,
        frame: None,
        challenge: Some(c.id),
        design: None,
    })
}

/// What the attendee does to solve a challenge, in words.
fn how_words(how: How, w: &Words) -> &'static str {
    match how {
        How::Picks => w.lesson_by_picks,
        How::Edit(_) => w.lesson_by_edit,
        How::Explore => w.lesson_by_explore,
    }
}

/// Whether the board, or the count, meets `c`'s goal: on the challenge's
/// scenario and design (its own edits for picks, any edit for an edit, the
/// count of the challenge's world for a proof).
fn met(c: &Challenge, ws: Ws, whole: Whole) -> bool {
    // A challenge is about its strategy's own handler, not a design's.
    if ws.strategy.get() != c.strategy || ws.design.with(Option::is_some) {
        return false;
    }
    let link = ws.link();
    // Choices past the last one off first come, first served (what "play
    // out the rest" adds) change nothing, and are no picks.
    let picks = ws.choices.with(|c| Schedule(c.clone()).trimmed().0.len());
    match c.how {
        How::Explore => whole.with(|(of, counting)| {
            of.as_ref()
                .is_some_and(|of| of.link == c.scenario && of.strategy == c.strategy)
                && matches!(counting, Counting::Done(r) if c.goal.met_by_report(r))
        }),
        How::Picks if link != c.scenario => false,
        How::Edit(_) if ws.scenario.get() != c.built_in() || link == c.scenario => false,
        How::Edit(_) if ws.built.with(|s| c.edit_fits(s).is_err()) => false,
        _ => ws
            .whole
            .with(|r| r.as_ref().is_some_and(|r| c.met_by_run(r, picks))),
    }
}

/// The lesson's challenges, each a link marked when solved, with the
/// progress and a reset. `solved` is shared with [`Challenge`]'s panel.
#[component]
pub fn LessonList(solved: RwSignal<Vec<String>>) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = move || words(ws.lang.get());
    let items = move || {
        let lang = ws.lang.get();
        let now = ws.challenge.get();
        solved.with(|done| {
            lesson::LESSON
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let ok = done.iter().any(|d| d == c.id);
                    view! {
                        <li data-testid="lesson-item" data-challenge=c.id data-solved=ok.to_string()>
                            <a
                                href=link_to(c, lang)
                                aria-current=(now == Some(c.id)).then_some("step")
                            >
                                {format!("{}. {}", i + 1, c.title.get(lang))}
                            </a>
                            {ok.then(|| view! { <span class="lesson-mark" aria-label=words(lang).lesson_solved>" ✓"</span> })}
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let progress = move || {
        let w = w();
        format!(
            "{} {} {} {}",
            solved.with(Vec::len),
            w.of_word,
            lesson::LESSON.len(),
            w.lesson_progress
        )
    };
    view! {
        <details class="lesson-list" data-testid="lesson-list" open=ws.challenge.get_untracked().is_none()>
            <summary>
                {move || w().lesson_title}
                " · "
                <span data-testid="lesson-progress">{progress}</span>
            </summary>
            <p>{move || w().lesson_intro}</p>
            <ol>{items}</ol>
            <button
                data-testid="lesson-reset"
                prop:disabled=move || solved.with(Vec::is_empty)
                on:click=move |_| {
                    store(&[]);
                    solved.set(Vec::new());
                }
            >
                {move || w().lesson_reset}
            </button>
        </details>
    }
}

/// The panel of the challenge being played, above the board: nothing when
/// none is.
#[component]
pub fn ChallengePanel(whole: Whole, solved: RwSignal<Vec<String>>) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let shown_hints = RwSignal::new(0usize);
    let current = move || ws.challenge.get().and_then(lesson::challenge);
    // Solved stays solved: undoing after the goal does not take it back.
    let done_now = Memo::new(move |_| current().is_some_and(|c| met(c, ws, whole)));
    Effect::new(move |_| {
        if !done_now.get() {
            return;
        }
        let Some(c) = current() else { return };
        if solved.with_untracked(|s| s.iter().any(|d| d == c.id)) {
            return;
        }
        let mut ids = stored();
        ids.push(c.id.to_string());
        let ids = solved_ids(&ids.join(","));
        store(&ids);
        solved.set(ids);
    });
    move || {
        let c = current()?;
        let lang = ws.lang.get();
        let w = words(lang);
        let place = lesson::LESSON
            .iter()
            .position(|x| x.id == c.id)
            .unwrap_or(0);
        let next = lesson::LESSON.get(place + 1);
        let hints = move || {
            let lang = ws.lang.get();
            c.hints[..shown_hints.get().min(c.hints.len())]
                .iter()
                .map(|h| view! { <li data-testid="hint">{h.get(lang)}</li> })
                .collect_view()
        };
        let success = move || {
            let lang = ws.lang.get();
            let w = words(lang);
            let solved_here = done_now.get() || solved.with(|s| s.iter().any(|d| d == c.id));
            solved_here.then(|| {
                // After the last challenge, the lesson is done only when
                // every challenge is; else the first one left is offered.
                let left = solved.with(|s| {
                    lesson::LESSON
                        .iter()
                        .find(|x| x.id != c.id && !s.iter().any(|d| d == x.id))
                });
                let onward = match (next, left) {
                    (Some(n), _) => view! {
                        <a data-testid="next-challenge" href=link_to(n, lang)>{w.lesson_next}</a>
                    }
                    .into_any(),
                    (None, Some(l)) => view! {
                        {w.lesson_left}" "
                        <a data-testid="next-challenge" href=link_to(l, lang)>{l.title.get(lang)}</a>
                    }
                    .into_any(),
                    (None, None) => view! { <strong data-testid="lesson-done">{w.lesson_done}</strong> }
                        .into_any(),
                };
                // A picks goal is judged on where the picks lead: the
                // board may not show it yet, and says so.
                let at_choice = ws.turn.with(|t| t.as_ref().is_ok_and(|t| t.next.is_some()));
                let not_shown = (c.how == How::Picks && at_choice).then(|| {
                    view! {
                        <p data-testid="not-shown-yet">
                            {w.lesson_not_shown_yet}" "
                            <button data-testid="play-out" on:click=move |_| ws.finish()>
                                {w.lesson_play_out}
                            </button>
                        </p>
                    }
                });
                // Solved stays solved; the board may show another run now.
                let moved_on = (!done_now.get()).then(|| {
                    view! { <p data-testid="moved-on">{w.lesson_moved_on}</p> }
                });
                view! {
                    <div class="challenge-success" data-testid="challenge-success" role="status">
                        <p><strong>{w.lesson_solved}</strong>" "{c.success.get(lang)}</p>
                        {moved_on}
                        {not_shown}
                        <p>{onward}</p>
                    </div>
                }
            })
        };
        // An edit the task does not allow, said as soon as it is made.
        let misfit = move || {
            let w = words(ws.lang.get());
            if ws.scenario.get() != c.built_in() {
                return None;
            }
            let why = ws.built.with(|s| c.edit_fits(s)).err()?;
            let said = match why {
                EditMisfit::Nothing => return None,
                EditMisfit::Faults => w.edit_misfit_faults.to_string(),
                EditMisfit::NotOneValue(paths) => {
                    let more = if paths.len() > 4 { ", …" } else { "" };
                    let shown = paths[..paths.len().min(4)].join(", ");
                    format!("{} {shown}{more}.", w.edit_misfit_one_value)
                }
                EditMisfit::NotClient(path) => format!("{} {path}.", w.edit_misfit_client),
            };
            Some(
                view! { <p class="edit-misfit" data-testid="edit-misfit" role="status">{said}</p> },
            )
        };
        Some(view! {
            <section
                class="challenge"
                data-testid="challenge"
                data-challenge=c.id
                data-met=move || done_now.get().to_string()
                aria-labelledby="challenge-title"
            >
                <p class="challenge-place">
                    {format!("{} {} {} {}", w.lesson_challenge, place + 1, w.of_word, lesson::LESSON.len())}
                </p>
                <h2 id="challenge-title">{c.title.get(lang)}</h2>
                <p data-testid="challenge-task">{c.task.get(lang)}</p>
                <p class="challenge-how">{how_words(c.how, w)}</p>
                <ol class="hints">{hints}</ol>
                <button
                    data-testid="hint-button"
                    prop:disabled=move || { shown_hints.get() >= c.hints.len() }
                    on:click=move |_| shown_hints.update(|n| *n += 1)
                >
                    {move || {
                        let w = words(ws.lang.get());
                        format!("{} ({} {} {})", w.lesson_hint, shown_hints.get().min(c.hints.len()), w.of_word, c.hints.len())
                    }}
                </button>
                {misfit}
                {success}
            </section>
        })
    }
}

/// The solved challenges as the browser keeps them, for the page to share.
pub fn progress() -> RwSignal<Vec<String>> {
    RwSignal::new(stored())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_challenge_link_opens_that_challenge_on_its_world() {
        for c in lesson::LESSON {
            for lang in [Lang::Pt, Lang::En] {
                let (setup, problems) = url::parse(&link_to(c, lang));
                assert!(problems.is_empty(), "{}: {problems:?}", c.id);
                assert_eq!(setup.challenge, Some(c.id));
                assert_eq!(setup.strategy, c.strategy);
                assert_eq!(setup.lang, lang);
                let link = if setup.edits.is_empty() {
                    setup.scenario.to_string()
                } else {
                    format!("{};{}", setup.scenario, setup.edits)
                };
                assert_eq!(link, c.scenario, "{}", c.id);
            }
        }
    }

    #[test]
    fn every_edit_a_solution_needs_is_a_field_of_the_editor() {
        for c in lesson::LESSON
            .iter()
            .filter(|c| matches!(c.how, How::Edit(_)))
        {
            let start = c.start().expect("the challenge's scenario");
            let offered: Vec<String> = crate::edit::fields(&start)
                .into_iter()
                .map(|f| f.path)
                .collect();
            let needed = lesson::solve::known_edit(c.id).expect("a known edit");
            for (path, _) in needed {
                assert!(
                    offered.iter().any(|p| p == path),
                    "{}: no field {path}",
                    c.id
                );
            }
        }
    }

    #[test]
    fn kept_progress_drops_unknown_ids_and_keeps_lesson_order() {
        let first = lesson::LESSON[0].id;
        let third = lesson::LESSON[2].id;
        assert_eq!(
            solved_ids(&format!("{third},gone,{first},{first}")),
            vec![first.to_string(), third.to_string()]
        );
        assert_eq!(solved_ids(""), Vec::<String>::new());
    }
}
