//! Every interleaving, counted in the explorer's worker: a progress bar and
//! a cancel button while it runs, then the outcome histogram with exact
//! schedule counts, the properties' verdicts, and each outcome's shortest
//! schedule as a button that loads it. Once it has run, every choice the
//! attendee makes recounts from where they stand ("daqui"), read off the
//! graph the whole count's worker kept rather than explored again.

use crate::alternatives::taken;
use crate::explorer::{Event, Explorer, Failure, Slot};
use crate::state::Ws;
use crate::texts::{Words, count, words};
use leptos::prelude::*;
use lousa_core::choice::Schedule;
use lousa_core::design::Program;
use lousa_core::explore::{Modality, Reduction, Report, Status, words as property_words};
use lousa_core::narrate::Lang;
use lousa_core::{Scenario, Strategy};
use lousa_protocol::{ExploreRequest, Figures, Request};
use std::sync::Arc;

/// Where a count stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Counting {
    Idle,
    Running(Figures),
    Done(Box<Report>),
    Cancelled,
    Failed(Failure),
}

/// The world a count is of: the scenario's link, its strategy, the design
/// its HTTP jobs run as, and whether the count is the fast one (the
/// partial-order reduction).
#[derive(Clone, Debug, PartialEq)]
pub struct Of {
    pub link: String,
    pub strategy: Strategy,
    pub design: Option<Arc<Program>>,
    pub fast: bool,
}

impl Of {
    /// The world on the board now, counted the fast way when `fast` says so.
    pub fn now(ws: Ws, fast: Fast) -> Of {
        Of {
            link: ws.link(),
            strategy: ws.strategy.get(),
            design: ws.design.get(),
            fast: fast.get(),
        }
    }
}

/// Whether counts are the fast kind: one order of independent steps, the
/// same outcomes and verdicts, no schedule counts. Held by the page, so
/// that a key starts the count the panel shows.
pub type Fast = RwSignal<bool>;

/// The count of every schedule, and the world it is of.
pub type Whole = RwSignal<(Option<Of>, Counting)>;

/// The counts' panel. `whole` and `fast` are held by the page, so that a
/// key can start the count; `explorer` is the page's workers.
#[component]
pub fn Counts(whole: Whole, fast: Fast, explorer: Explorer) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let here = RwSignal::new(Counting::Idle);
    // Counts from here asked so far: only the last one's answer shows.
    let asked = StoredValue::new(0u64);
    let of = move || Of::now(ws, fast);
    let start = move || start_whole(ws, explorer, whole, fast);
    // A new world forgets the counts of the old one.
    Effect::new(move |_| {
        let now = of();
        if whole.with_untracked(|(o, _)| o.as_ref().is_some_and(|o| *o != now)) {
            explorer.cancel(Slot::Whole);
            explorer.cancel(Slot::Here);
            whole.set((None, Counting::Idle));
            here.set(Counting::Idle);
        }
    });
    // A count cut off at the state limit starts none from here: it would
    // stop at the same limit, and say nothing more.
    let whole_finished =
        move || whole.with(|(o, c)| (*o == Some(of())).then(|| finished(c)).flatten());
    let whole_done = Memo::new(move |_| whole_finished() == Some(true));
    let whole_cut = Memo::new(move |_| whole_finished() == Some(false));
    // Once every schedule is counted, count again from each new position.
    Effect::new(move |_| {
        let done = whole_done.get();
        let prefix = ws.turn.with(|t| {
            t.as_ref().ok().map(|t| match &t.next {
                Some(p) => ws.choices.with_untracked(|c| c[..p.step_start].to_vec()),
                None => ws.choices.get_untracked(),
            })
        });
        match (done, prefix) {
            (true, Some(prefix)) => {
                let strategy = ws.strategy.get_untracked();
                let text = Schedule(prefix).exact_text();
                let reduced = fast.get_untracked();
                let request = ws
                    .built
                    .with_untracked(|s| request(s, strategy, Some(text), reduced));
                here.set(Counting::Running(Figures::default()));
                let now = asked.get_value() + 1;
                asked.set_value(now);
                let tell = move |e| {
                    if asked.get_value() == now {
                        here.set(from_event(e));
                    }
                };
                // The whole count's worker kept its graph: it reads the
                // counts from here off it instead of exploring again.
                if !explorer.ask(Slot::Whole, &request, tell) {
                    explorer.start(Slot::Here, &request, tell);
                }
            }
            _ => {
                explorer.cancel(Slot::Here);
                // An answer still on its way is for a position left.
                asked.update_value(|n| *n += 1);
                here.set(Counting::Idle);
            }
        }
    });
    let w = move || words(ws.lang.get());
    let running = move || whole.with(|(_, c)| matches!(c, Counting::Running(_)));
    view! {
        <section class="counts" aria-labelledby="counts-title">
            <h2 id="counts-title">{move || w().explore_title}</h2>
            <p>
                <button data-testid="explore" on:click=move |_| start() prop:disabled=running>
                    {move || w().explore_button}
                </button>
                " "
                <button
                    data-testid="cancel"
                    on:click=move |_| {
                        explorer.cancel(Slot::Whole);
                        whole.update(|(_, c)| *c = Counting::Cancelled);
                    }
                    prop:disabled=move || !running()
                >
                    {move || w().cancel}
                </button>
            </p>
            <p class="reduction">
                <label>
                    <input
                        type="checkbox"
                        data-testid="reduction-por"
                        prop:checked=move || fast.get()
                        prop:disabled=running
                        on:change=move |e| fast.set(event_target_checked(&e))
                    />
                    " "
                    {move || w().por_option}
                </label>
                <small>{move || w().por_hint}</small>
            </p>
            <FromHere here whole_cut limit=explorer.states_default />
            {move || {
                let lang = ws.lang.get();
                let limit = explorer.states_default.get();
                let c = whole.with(|(_, c)| c.clone());
                status(&c, limit, lang)
            }}
        </section>
    }
}

/// Starts counting every schedule of the world on the board, the fast way
/// when `fast` says so.
pub fn start_whole(ws: Ws, explorer: Explorer, whole: Whole, fast: Fast) {
    let of = untrack(|| Of::now(ws, fast));
    let request = ws
        .built
        .with_untracked(|s| request(s, of.strategy, None, of.fast));
    whole.set((Some(of), Counting::Running(Figures::default())));
    explorer.start(Slot::Whole, &request, move |e| {
        let was = whole.with_untracked(|(_, c)| c.clone());
        let next = match (e, was) {
            // A late message of a cancelled run changes nothing.
            (_, Counting::Cancelled) => return,
            (e, _) => from_event(e),
        };
        whole.update(|(_, c)| *c = next);
    });
}

/// The worker's request to explore `scenario` (the page's, decoded and
/// checked: the worker reads no links) under `strategy` (or the design it
/// carries, which the request carries beside it), on from `prefix`
/// (exact schedule text) when given, with the partial-order reduction when
/// `reduced`; every other option the worker's default, the state limit its
/// `ready` names.
fn request(
    scenario: &Scenario,
    strategy: Strategy,
    prefix: Option<String>,
    reduced: bool,
) -> Request {
    let mut r = ExploreRequest::new(scenario.clone());
    r.strategy = Some(strategy.name().into());
    r.prefix = prefix;
    r.reduction = reduced.then_some(Reduction::Por);
    r.design = scenario.design.as_ref().map(|p| p.design().clone());
    Request::Explore(r)
}

/// Whether a count finished whole (`Some(true)`), stopped at the state
/// limit (`Some(false)`), or has not finished.
fn finished(c: &Counting) -> Option<bool> {
    match c {
        Counting::Done(r) => Some(r.status == Status::Complete),
        _ => None,
    }
}

fn from_event(e: Event) -> Counting {
    match e {
        Event::Progress(f) => Counting::Running(f),
        Event::Done(d) => Counting::Done(Box::new(d.report)),
        Event::Failed(f) => Counting::Failed(f),
    }
}

/// "daqui: 1.472 escalonamentos, 1.388 cobram duas vezes".
#[component]
fn FromHere(
    here: RwSignal<Counting>,
    whole_cut: Memo<bool>,
    limit: RwSignal<Option<u32>>,
) -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        let lang = ws.lang.get();
        let w = words(lang);
        if whole_cut.get() {
            return Some(view! {
                <p class="from-here" data-testid="from-here" aria-live="polite">
                    {w.here_state_limit.to_string()}
                </p>
            });
        }
        let inside = ws.turn.with(|t| {
            t.as_ref()
                .ok()
                .and_then(|t| t.next.as_ref())
                .is_some_and(|p| p.step_start < p.position)
        });
        let said = match here.get() {
            Counting::Idle | Counting::Cancelled => return None,
            Counting::Running(_) => w.counting_here.to_string(),
            Counting::Failed(f) => f.sentence(lang),
            // A from-here count can stop at the limit where the whole one
            // did not (it starts from a state the whole count merged).
            Counting::Done(r) if r.status != Status::Complete => {
                format!("{}: {}", w.from_here, state_limit(&r, limit.get(), lang))
            }
            // The fast count has outcomes, not schedules, to tell.
            Counting::Done(r) if !r.schedules_counted => {
                let twice = r.outcomes.iter().filter(|o| o.double_charge).count();
                format!(
                    "{}: {} {}, {} {}",
                    w.from_here,
                    count(r.outcomes.len() as u128, lang),
                    w.outcomes_word.of(r.outcomes.len() as u128),
                    count(twice as u128, lang),
                    w.charge_twice.of(twice as u128)
                )
            }
            Counting::Done(r) => {
                let mut s = format!(
                    "{}: {} {}, {} {}",
                    w.from_here,
                    count(r.schedules, lang),
                    w.schedules_word.of(r.schedules),
                    count(double_charging(&r), lang),
                    w.charge_twice.of(double_charging(&r))
                );
                if inside {
                    s = format!("{s} ({})", w.from_step_start);
                }
                s
            }
        };
        Some(view! { <p class="from-here" data-testid="from-here" aria-live="polite">{said}</p> })
    }
}

/// Schedules that end charging some intent twice.
fn double_charging(r: &Report) -> u128 {
    r.outcomes
        .iter()
        .filter(|o| o.double_charge)
        .map(|o| o.schedules)
        .fold(0u128, u128::saturating_add)
}

/// Why a count stopped at the state limit, naming the limit: the one the
/// worker's `ready` said it explores under, or, before any worker said it,
/// the states the count reached (equal to it when it stopped there). An
/// exact count cut off points to the fast one, which merges far more
/// (race-4's exact count never fits; its fast count takes a second).
pub fn state_limit(r: &Report, limit: Option<u32>, lang: Lang) -> String {
    let w = words(lang);
    let limit = limit.map_or(r.states, u64::from);
    let said = format!(
        "{} {} {}: {}",
        w.state_limit,
        count(limit.into(), lang),
        w.states_word.of(limit.into()),
        w.state_limit_why
    );
    if r.schedules_counted {
        format!("{said} {}", w.state_limit_try_fast)
    } else {
        said
    }
}

fn status(c: &Counting, limit: Option<u32>, lang: Lang) -> AnyView {
    let w = words(lang);
    match c {
        Counting::Idle => ().into_any(),
        Counting::Cancelled => {
            view! { <p data-testid="explore-status">{w.cancelled}</p> }.into_any()
        }
        Counting::Failed(f) => view! {
            <p data-testid="explore-status" role="alert">
                {f.sentence(lang)}
            </p>
        }
        .into_any(),
        Counting::Running(f) => {
            let figures = format!(
                "{} {} {} · {} {} · {} {}",
                w.exploring,
                count(u128::from(f.states), lang),
                w.states_word.of(f.states.into()),
                count(u128::from(f.transitions), lang),
                w.transitions_word.of(f.transitions.into()),
                count(u128::from(f.states_per_s), lang),
                w.per_second
            );
            // How many states a search will visit is not known until it
            // ends: the bar says it is working (indeterminate) rather than
            // fill against the state limit, which a small model never nears.
            view! {
                <progress data-testid="explore-progress" data-states=f.states.to_string()></progress>
                <p data-testid="explore-status" aria-live="polite">{figures}</p>
            }
            .into_any()
        }
        Counting::Done(r) => result(r, w, limit, lang).into_any(),
    }
}

fn result(r: &Report, w: &'static Words, limit: Option<u32>, lang: Lang) -> impl IntoView + use<> {
    let ws = expect_context::<Ws>();
    let complete = r.status == Status::Complete;
    let counted = r.schedules_counted;
    let head = if complete {
        let schedules = if counted {
            format!(
                "{} {}",
                count(r.schedules, lang),
                w.schedules_word.of(r.schedules)
            )
        } else {
            w.schedules_not_counted.to_string()
        };
        format!(
            "{}{}: {} {} · {} {} · {schedules}",
            w.complete,
            if counted { "" } else { w.por_complete },
            count(u128::from(r.states), lang),
            w.states_word.of(r.states.into()),
            count(u128::from(r.transitions), lang),
            w.transitions_word.of(r.transitions.into()),
        )
    } else {
        state_limit(r, limit, lang)
    };
    // Past the state limit, an outcome's schedules were not all reached,
    // and the fast count keeps none: a count would read as exact.
    let schedules = move |n: u128| {
        if complete && counted {
            count(n, lang)
        } else {
            w.not_counted.to_string()
        }
    };
    let rows = r
        .outcomes
        .iter()
        .map(|o| {
            let captures = o
                .captures
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let answers = answers_text(o, w);
            let example = o.example.clone().map(|e| {
                let schedule = e.schedule.0.clone();
                let text = e.text.clone();
                // The schedule as the picks a person would make, step by step.
                let steps = ws
                    .built
                    .with_untracked(|s| taken(s, &e.schedule.0, lang))
                    .into_iter()
                    .map(|t| view! { <li>{t}</li> })
                    .collect_view();
                view! {
                    <button
                        data-testid="load-example"
                        data-schedule=e.text
                        on:click=move |_| ws.load(&schedule)
                    >
                        {text}
                    </button>
                    <details class="example-steps">
                        <summary>{w.example_steps}</summary>
                        <ol data-testid="example-steps">{steps}</ol>
                    </details>
                }
            });
            view! {
                <tr data-testid="outcome" class:double=o.double_charge>
                    <td>"[" {captures} "]"</td>
                    <td>{answers}</td>
                    <td data-testid="outcome-schedules">{schedules(o.schedules)}</td>
                    <td>{example}</td>
                </tr>
            }
        })
        .collect_view();
    let properties = r
        .properties
        .iter()
        .map(|p| {
            let property = p.claim.property;
            let modality = match property.modality {
                Modality::Always => w.always,
                Modality::Sometimes => w.sometimes,
            };
            let (mark, said) = property_words::verdict(p.verdict, lang);
            let what = property_words::sentence(property.name, lang).unwrap_or(property.name);
            let note = match (p.claim.required, property.modality) {
                (true, _) => String::new(),
                (false, Modality::Always) => format!(" ({})", property_words::not_claimed(lang)),
                (false, Modality::Sometimes) => {
                    format!(" ({})", property_words::not_required(lang))
                }
            };
            view! {
                <li
                    data-testid="property"
                    data-verdict=p.verdict.name()
                    data-property=property.name
                    data-ok=p.ok.to_string()
                    title=property.name
                >
                    {format!("{mark} {modality} {what}: {said}{note}")}
                </li>
            }
        })
        .collect_view();
    view! {
        <p data-testid="explore-status">{head}</p>
        // Its own scroll: on a phone the table is wider than the page.
        <div class="outcomes-scroll">
        <table class="outcomes" data-testid="outcomes">
            <thead>
                <tr>
                    <th scope="col">{w.captures_col}</th>
                    <th scope="col">{w.answers_col}</th>
                    <th scope="col">{w.schedules_col}</th>
                    <th scope="col">{w.shortest_col}</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
        </div>
        <h3>{w.properties_title}</h3>
        <ul class="properties">{properties}</ul>
    }
}

/// An outcome's answers as its row shows them, and whether a retry got
/// the stored answer, which is what tells two outcomes of the same
/// answers apart (race-4 has three such pairs).
fn answers_text(o: &lousa_core::explore::Outcome, w: &Words) -> String {
    let answers = o
        .answers
        .iter()
        .map(|a| a.map_or_else(|| w.no_answer.to_string(), |s| s.to_string()))
        .collect::<Vec<_>>()
        .join(", ");
    if o.replay {
        format!("[{answers}] ({})", w.replayed)
    } else {
        format!("[{answers}]")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lousa_core::{builtins, explore};

    /// Two outcomes of the same captures and answers, one of which a
    /// retry got the stored answer in, read apart.
    #[test]
    fn an_outcome_with_a_replay_says_so() {
        let outcome = |replay| lousa_core::explore::Outcome {
            captures: vec![2],
            answers: vec![Some(201), Some(201), None],
            end: lousa_core::trace::EndReason::Quiescent,
            broken: Vec::new(),
            double_charge: true,
            replay,
            shown: Vec::new(),
            states: 1,
            schedules: 1,
            example: None,
        };
        let pt = words(Lang::Pt);
        assert_eq!(
            answers_text(&outcome(false), pt),
            "[201, 201, sem resposta]"
        );
        assert_eq!(
            answers_text(&outcome(true), pt),
            "[201, 201, sem resposta] (um reenvio recebeu a resposta guardada)"
        );
    }

    /// race-2 check-then-act counted by the core, cut at `max_states`.
    pub(crate) fn counted(max_states: u32) -> Report {
        let mut s = builtins::builtin("race-2").unwrap();
        s.strategy = Strategy::CheckThenAct;
        let mut options = explore::Options::for_scenario(&s);
        options.max_states = max_states;
        explore::explore(&s, &options).unwrap()
    }

    /// Issue #35: a count stopped at the state limit started a from-here
    /// count, which then read as exact.
    #[test]
    fn only_a_whole_count_that_finished_counts_from_here() {
        let done = |r| Counting::Done(Box::new(r));
        assert_eq!(finished(&done(counted(1_000_000))), Some(true));
        assert_eq!(finished(&done(counted(100))), Some(false));
        assert_eq!(finished(&Counting::Running(Figures::default())), None);
        assert_eq!(finished(&Counting::Cancelled), None);
    }

    #[test]
    fn a_request_carries_the_scenario_and_the_prefix_only_when_given() {
        let s = lousa_core::link::decode("race-2;db_latency_ms=5").unwrap();
        let r: serde_json::Value =
            serde_json::from_str(&request(&s, Strategy::Naive, None, false).to_json()).unwrap();
        assert_eq!(
            r,
            serde_json::json!({"explore": {"scenario": s, "strategy": "naive"}})
        );
        let from = request(&s, Strategy::Naive, Some("1-0".into()), false).to_json();
        assert!(from.contains(r#""prefix":"1-0""#), "{from}");
        let fast = request(&s, Strategy::Naive, None, true).to_json();
        assert!(fast.contains(r#""reduction":"por""#), "{fast}");
    }

    #[test]
    fn double_charging_sums_the_schedules_of_the_outcomes_that_charge_twice() {
        let whole = counted(1_000_000);
        let twice: Vec<u128> = whole
            .outcomes
            .iter()
            .filter(|o| o.double_charge)
            .map(|o| o.schedules)
            .collect();
        assert!(!twice.is_empty(), "check-then-act charges twice");
        assert_eq!(double_charging(&whole), twice.iter().sum::<u128>());
        assert!(double_charging(&whole) < whole.schedules);
    }

    #[test]
    fn the_state_limit_is_named_as_the_worker_said_it() {
        let cut = counted(100);
        assert_eq!(
            state_limit(&cut, Some(5_000_000), Lang::Pt),
            "A exploração parou no limite de 5.000.000 estados: nada pode ser afirmado sobre os escalonamentos que faltaram. \
             A contagem rápida, que segue uma ordem só para passos independentes, pode chegar a um veredito: marque-a e conte de novo."
        );
        // Before any worker said it: the states the count stopped at.
        assert!(state_limit(&cut, None, Lang::En).contains("limit of 100 states: nothing"));
    }

    /// The fast count cut off says so and no more: there is no faster
    /// count to point to.
    #[test]
    fn only_an_exact_count_cut_off_points_to_the_fast_one() {
        let mut s = builtins::builtin("race-3").unwrap();
        s.strategy = Strategy::CheckThenAct;
        let mut options = explore::Options::for_scenario(&s);
        options.max_states = 100;
        options.por = true;
        let fast = explore::explore(&s, &options).unwrap();
        assert_eq!(fast.status, explore::Status::StateLimit);
        let said = state_limit(&fast, Some(100), Lang::En);
        assert!(said.ends_with("did not reach."), "{said}");
        assert!(
            state_limit(&counted(100), Some(100), Lang::En).ends_with("tick it and count again.")
        );
    }
}
