//! The design tab: the attendee's own handler as a list of steps, each a
//! row whose shape and parameters come from menus, its branches as
//! labelled arrows; the check's refusal beside the step it names; and the
//! design run on the board or explored in the worker, with each broken
//! property's shortest counterexample a click away (issue #31).
//!
//! The draft is edited freely and kept in localStorage, so a reload loses
//! nothing; the board and the link take the design only when it checks
//! and the attendee runs or checks it.

use crate::counts::{Counting, Fast, Whole, start_whole};
use crate::design_edit::{self as edit, ANSWERS, Kind, TABLES, WHENS};
use crate::explorer::Explorer;
use crate::state::Ws;
use crate::texts::{checks_line, design_about, menu_word, refusal};
use leptos::prelude::*;
use lousa_core::builtins;
use lousa_core::design::{
    self, Answer, By, Claims, Design, Do, Program, RESPOND, Serves, Step, TableUse, When, builtin,
};
use lousa_core::explore::{Modality, words as property_words};
use lousa_core::json::FieldError;
use lousa_core::narrate::Lang;
use lousa_core::scenario::Strategy;
use lousa_core::store::Isolation;
use std::sync::Arc;

/// This view's words, from the workshop's table (`crate::texts`).
fn words(lang: Lang) -> &'static crate::texts::DesignWords {
    &crate::texts::words(lang).design
}

/// Where the draft waits between visits.
const DRAFT_KEY: &str = "lousa-design-draft";
/// The design that was on the board while the draft was edited: a link
/// that still carries it is the same page reloaded, not a new design.
const DRAFT_BOARD_KEY: &str = "lousa-design-draft-board";

#[component]
pub fn DesignTab(whole: Whole, fast: Fast, explorer: Explorer) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let draft = RwSignal::new(first_draft(ws));
    let checked: Memo<Result<Arc<Program>, FieldError>> =
        Memo::new(move |_| draft.with(|d| design::check(d.clone()).map(Arc::new)));
    Effect::new(move |_| {
        draft.with(store_draft);
        ws.design
            .with(|board| store_board(board.as_deref().map(Program::design)));
    });
    let check_on = RwSignal::new(
        ws.design
            .with_untracked(|d| d.as_ref().map(|p| builtin::scenario_for(&p.design().name)))
            .unwrap_or("race-2"),
    );
    // A consumer is checked where a queue delivers, a handler where
    // requests race: switching what the design serves moves the check.
    let serves = Memo::new(move |_| draft.with(|d| d.serves));
    Effect::new(move |first: Option<()>| {
        let queue = serves.get() == Serves::Queue;
        if first.is_some() && queue != (check_on.get_untracked() == "queue-redelivery") {
            check_on.set(if queue { "queue-redelivery" } else { "race-2" });
        }
    });
    let w = move || words(ws.lang.get());
    let program = move || checked.get().ok();
    // The world and strategy on the board before a design took it: running
    // or checking a design may move to another world and strategy, and
    // "back to the strategy" returns to these.
    let before = StoredValue::new(None::<(&'static str, String, Strategy)>);
    let remember = move || {
        if ws.design.with_untracked(Option::is_none) {
            before.set_value(Some((
                ws.scenario.get_untracked(),
                ws.edits.get_untracked(),
                ws.strategy.get_untracked(),
            )));
        }
    };
    let run_on_board = move |_| {
        if let Some(p) = program() {
            remember();
            // A design shows where it can run: a consumer, or a debit where
            // no account is open, moves the board to the scenario it is
            // checked on.
            let here = ws.scenario.get_untracked();
            let served = ws
                .edits
                .with_untracked(|e| crate::url::scenario_of(here, e))
                .is_ok_and(|s| lousa_core::handler::check_runs_on(&s, &p).is_ok());
            if !served {
                let name = check_on.get_untracked();
                let strategy =
                    builtins::builtin(name).map_or(ws.strategy.get_untracked(), |s| s.strategy);
                ws.choose_world(name, strategy);
            }
            ws.design.set(Some(p));
            ws.restart();
        }
    };
    let check = move |_| {
        if let Some(p) = program() {
            remember();
            // The scenario's own strategy, as `lousa explore --design`
            // keeps it: a design's *sometimes* property is its strategy's.
            let name = check_on.get_untracked();
            let strategy =
                builtins::builtin(name).map_or(ws.strategy.get_untracked(), |s| s.strategy);
            ws.choose_world(name, strategy);
            ws.design.set(Some(p));
            start_whole(ws, explorer, whole, fast);
        }
    };
    let start_from = move |e| {
        let name = event_target_value(&e);
        if let Some(p) = builtin::named(&name) {
            draft.set(p.design().clone());
            check_on.set(builtin::scenario_for(&name));
        }
    };
    let starts = move || {
        let group = |names: Vec<&'static str>| {
            names
                .into_iter()
                .map(|n| view! { <option value=n>{n}</option> })
                .collect_view()
        };
        let exercise = |n: &str| builtin::EXERCISES.iter().any(|(e, _)| *e == n);
        let (exercises, builtins) = builtin::names().into_iter().partition(|n| exercise(n));
        view! {
            <option value="" selected=true>"—"</option>
            <optgroup label=w().builtins>{group(builtins)}</optgroup>
            <optgroup label=w().exercises>{group(exercises)}</optgroup>
        }
    };
    let scenarios = builtins::NAMES
        .iter()
        .map(|n| view! { <option value=*n>{*n}</option> })
        .collect_view();
    let overall = move || {
        let lang = ws.lang.get();
        match checked.get() {
            Ok(_) => view! {
                <p class="design-ok" data-testid="design-checks">
                    {draft.with(|d| checks_line(d.steps.len(), lang))}
                </p>
            }
            .into_any(),
            Err(e) if edit::step_named(&e.field).is_none() => refusal_line(&e, lang).into_any(),
            Err(_) => ().into_any(),
        }
    };
    let on_board = move || {
        ws.design.get().map(|p| {
            view! {
                <p data-testid="design-on-board">
                    {format!("{} {}.", w().on_board, p.design().name)} " "
                    <button data-testid="design-off" on:click=move |_| {
                        ws.design.set(None);
                        if let Some((scenario, edits, strategy)) = before.get_value() {
                            ws.choose_world(scenario, strategy);
                            ws.set_edits(edits);
                        }
                        ws.restart();
                    }>{w().off}</button>
                </p>
            }
        })
    };
    view! {
        <details class="design-tab" data-testid="design-tab" open=ws.design.with_untracked(Option::is_some)>
            <summary>{move || w().title}</summary>
            <p>{move || w().intro}</p>
            {on_board}
            <p class="design-start">
                <label>
                    {move || w().start_from} " "
                    <select data-testid="design-start" on:change=start_from>{starts}</select>
                </label>
            </p>
            <Head draft />
            {overall}
            <Steps draft checked />
            <p class="design-actions">
                <button data-testid="design-run" on:click=run_on_board prop:disabled=move || program().is_none()>
                    {move || w().run_on_board}
                </button>
                " "
                <label>
                    {move || w().check_on} " "
                    <select
                        data-testid="design-check-on"
                        prop:value=move || check_on.get()
                        on:change=move |e| {
                            if let Some(n) = builtins::static_name(&event_target_value(&e)) {
                                check_on.set(n);
                            }
                        }
                    >
                        {scenarios}
                    </select>
                </label>
                " "
                <button data-testid="design-check" on:click=check prop:disabled=move || program().is_none()>
                    {move || w().check}
                </button>
                " "
                <button
                    data-testid="design-download"
                    on:click=move |_| draft.with_untracked(|d| {
                        crate::exports::download(&format!("{}.json", d.name), &d.to_json(), "application/json")
                    })
                >
                    {move || w().download}
                </button>
            </p>
            <Found whole />
            <JsonBox draft />
        </details>
    }
}

/// The draft to start from: the design on the board, else the one kept
/// from the last visit, else the built-in design of the board's strategy.
/// The draft the tab opens with: the one kept from before a reload, unless
/// the link brings a design other than the one that was on the board
/// then (a shared link, or the board changed in another tab), which the
/// attendee opened to see.
fn first_draft(ws: Ws) -> Design {
    let stored = stored_draft();
    if let Some(p) = ws.design.get_untracked() {
        let board = p.design();
        return match stored {
            Some(d) if stored_board().as_ref() == Some(board) => d,
            _ => board.clone(),
        };
    }
    if let Some(d) = stored {
        return d;
    }
    let strategy = ws.strategy.get_untracked();
    builtin::named(strategy.name())
        .or_else(|| builtin::named("idempotency-key"))
        .expect("a built-in design")
        .design()
        .clone()
}

fn stored_draft() -> Option<Design> {
    stored(DRAFT_KEY)
}

fn stored_board() -> Option<Design> {
    stored(DRAFT_BOARD_KEY)
}

fn stored(key: &str) -> Option<Design> {
    let storage = window().local_storage().ok().flatten()?;
    let text = storage.get_item(key).ok().flatten()?;
    read_design(&text).ok()
}

fn store_draft(d: &Design) {
    store(DRAFT_KEY, Some(d));
}

fn store_board(d: Option<&Design>) {
    store(DRAFT_BOARD_KEY, d);
}

fn store(key: &str, d: Option<&Design>) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = match d {
            Some(d) => storage.set_item(key, &serde_json::to_string(d).unwrap_or_default()),
            None => storage.remove_item(key),
        };
    }
}

/// The design's name, its claims, its isolation and its tables.
#[component]
fn Head(draft: RwSignal<Design>) -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        let w = words(ws.lang.get());
        let d = draft.get();
        let serves = [(Serves::Http, w.serves_http), (Serves::Queue, w.serves_queue)]
            .into_iter()
            .enumerate()
            .map(|(i, (v, said))| view! { <option value=i.to_string() selected=d.serves == v>{said}</option> })
            .collect_view();
        let claims = [(Claims::ChargeOnce, w.claims_once), (Claims::Nothing, w.claims_nothing)]
            .into_iter()
            .enumerate()
            .map(|(i, (c, said))| view! { <option value=i.to_string() selected=d.claims == c>{said}</option> })
            .collect_view();
        let levels = [
            None,
            Some(Isolation::ReadCommitted),
            Some(Isolation::RepeatableRead),
            Some(Isolation::Serializable),
        ];
        let isolation = levels
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let said = l.map_or(w.isolation_scenario, Isolation::sql);
                view! { <option value=i.to_string() selected=d.isolation == l>{said}</option> }
            })
            .collect_view();
        let tables = d
            .tables
            .iter()
            .enumerate()
            .map(|(i, t)| view! { <TableRow draft i table=t.clone() /> })
            .collect_view();
        view! {
            <p class="design-head">
                <label>
                    {w.name} " "
                    <input
                        type="text"
                        data-testid="design-name"
                        prop:value=d.name.clone()
                        on:change=move |e| draft.update(|d| d.name = event_target_value(&e))
                    />
                </label>
                " "
                <label>
                    {w.serves} " "
                    <select data-testid="design-serves" on:change=move |e| {
                        let v = if event_target_value(&e) == "1" { Serves::Queue } else { Serves::Http };
                        draft.update(|d| d.serves = v);
                    }>{serves}</select>
                </label>
                " "
                <label>
                    {w.claims} " "
                    <select data-testid="design-claims" on:change=move |e| {
                        let c = if event_target_value(&e) == "1" { Claims::Nothing } else { Claims::ChargeOnce };
                        draft.update(|d| d.claims = c);
                    }>{claims}</select>
                </label>
                " "
                <label>
                    {w.isolation} " "
                    <select data-testid="design-isolation" on:change=move |e| {
                        let i: usize = event_target_value(&e).parse().unwrap_or(0);
                        draft.update(|d| d.isolation = levels[i.min(3)]);
                    }>{isolation}</select>
                </label>
            </p>
            <p class="design-about" data-testid="design-about">{design_about(&d, ws.lang.get())}</p>
            <p class="design-tables">{w.tables} ": " {tables}</p>
        }
    }
}

/// A table the design uses, and the UNIQUE it is given.
#[component]
fn TableRow(draft: RwSignal<Design>, i: usize, table: TableUse) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = words(ws.lang.get_untracked());
    let names = TABLES
        .iter()
        .map(|n| view! { <option value=*n selected=table.name == *n>{*n}</option> })
        .collect_view();
    // The UNIQUE choices: the table's own, none, or one column.
    let columns: Vec<String> = edit::table(&table.name)
        .map(|t| {
            t.columns
                .iter()
                .map(|c| c.name.clone())
                .filter(|c| c != "id")
                .collect()
        })
        .unwrap_or_default();
    let mut choices: Vec<(String, Option<Vec<String>>)> = vec![
        (w.unique_table.to_string(), None),
        ("—".to_string(), Some(Vec::new())),
    ];
    choices.extend(columns.iter().map(|c| (c.clone(), Some(vec![c.clone()]))));
    if let Some(u) = &table.unique
        && !choices.iter().any(|(_, c)| c.as_ref() == Some(u))
    {
        choices.push((u.join(", "), Some(u.clone())));
    }
    let options = choices
        .iter()
        .enumerate()
        .map(|(k, (said, u))| view! { <option value=k.to_string() selected=*u == table.unique>{said.clone()}</option> })
        .collect_view();
    view! {
        <span class="design-table" data-testid="design-table">
            <select aria-label=w.table on:change=move |e| {
                let name = event_target_value(&e);
                draft.update(|d| d.tables[i] = TableUse { name, unique: None });
            }>{names}</select>
            " " {w.unique_on} " "
            <select data-testid="design-unique" on:change=move |e| {
                let k: usize = event_target_value(&e).parse().unwrap_or(0);
                if let Some((_, u)) = choices.get(k) {
                    let u = u.clone();
                    draft.update(|d| d.tables[i].unique = u);
                }
            }>{options}</select>
            " "
        </span>
    }
}

/// The steps, each a row; the check's refusal beside the step it names.
#[component]
fn Steps(
    draft: RwSignal<Design>,
    checked: Memo<Result<Arc<Program>, FieldError>>,
) -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        let lang = ws.lang.get();
        let refused = checked.with(|c| {
            c.as_ref()
                .err()
                .and_then(|e| edit::step_named(&e.field).map(|i| (i, e.clone())))
        });
        let d = draft.get();
        let labels: Vec<String> = d.steps.iter().map(|s| s.label.clone()).collect();
        let rows = d
            .steps
            .iter()
            .enumerate()
            .map(|(i, step)| {
                let refusal = refused
                    .as_ref()
                    .filter(|(at, _)| *at == i)
                    .map(|(_, e)| e.clone());
                view! { <StepRow draft i step=step.clone() labels=labels.clone() refusal lang /> }
            })
            .collect_view();
        view! {
            <h3>{words(lang).steps}</h3>
            <ol class="design-steps" data-testid="design-steps">{rows}</ol>
        }
    }
}

/// Edits step `i` of the draft.
fn edit_step(draft: RwSignal<Design>, i: usize, f: impl FnOnce(&mut Step)) {
    draft.update(|d| {
        if let Some(s) = d.steps.get_mut(i) {
            f(s)
        }
    });
}

/// One step: its label, what it does and with which parameters, its
/// branches as arrows, where it goes after, and its buttons.
#[component]
fn StepRow(
    draft: RwSignal<Design>,
    i: usize,
    step: Step,
    labels: Vec<String>,
    refusal: Option<FieldError>,
    lang: Lang,
) -> impl IntoView {
    let w = words(lang);
    let kinds = Kind::ALL
        .iter()
        .map(|k| {
            view! { <option value=k.name() selected=Kind::of(&step.action) == *k>{menu_word(w.kinds, k.name())}</option> }
        })
        .collect_view();
    let count = labels.len();
    let refused = refusal.is_some();
    // A jump's menu: `first` (none chosen), every step, then respond.
    let targets = move |now: Option<&str>, first: &'static str| {
        let head = view! { <option value="" selected=now.is_none()>{first}</option> };
        let rest = labels
            .clone()
            .into_iter()
            .map(|l| (l.clone(), l))
            .chain([(RESPOND.to_string(), w.respond.to_string())])
            .map(|(v, said)| {
                let on = now == Some(v.as_str());
                view! { <option value=v selected=on>{said}</option> }
            })
            .collect_view();
        view! { {head} {rest} }.into_any()
    };
    let branches = step
        .on
        .iter()
        .enumerate()
        .map(|(j, b)| {
            let goto = targets(Some(b.goto.as_str()), "—");
            view! { <BranchRow draft i j branch=b.clone() goto lang /> }
        })
        .collect_view();
    let next = targets(step.next.as_deref(), w.next_step);
    let sql = edit::sql(&step.action);
    view! {
        <li class="design-step" class:refused=refused data-testid="design-step" data-label=step.label.clone()>
            <p class="step-head">
                <input
                    type="text"
                    class="step-label"
                    aria-label=w.label
                    data-testid="step-label"
                    prop:value=step.label.clone()
                    on:change=move |e| draft.update(|d| edit::rename_step(d, i, &event_target_value(&e)))
                />
                " " {w.does} " "
                <select data-testid="step-kind" on:change=move |e| {
                    if let Some(k) = Kind::from_name(&event_target_value(&e)) {
                        edit_step(draft, i, |s| {
                            let table = s.action.table().unwrap_or(TABLES[0]).to_string();
                            s.action = k.action(&table);
                        });
                    }
                }>{kinds}</select>
                " "
                <Params draft i action=step.action.clone() lang />
                <span class="step-buttons">
                    <button aria-label=w.up title=w.up prop:disabled={i == 0} on:click=move |_| draft.update(|d| { edit::move_step(d, i, -1); })>"↑"</button>
                    <button aria-label=w.down title=w.down prop:disabled={i + 1 >= count} on:click=move |_| draft.update(|d| { edit::move_step(d, i, 1); })>"↓"</button>
                    <button aria-label=w.remove title=w.remove data-testid="step-remove" on:click=move |_| draft.update(|d| edit::remove_step(d, i))>"✕"</button>
                </span>
            </p>
            <code class="step-sql" data-testid="step-sql">{sql}</code>
            <ul class="step-branches">{branches}</ul>
            <p class="step-next">
                {w.then} " → "
                <select data-testid="step-next" on:change=move |e| {
                    let v = event_target_value(&e);
                    edit_step(draft, i, |s| s.next = (!v.is_empty()).then_some(v));
                }>{next}</select>
                " "
                <button data-testid="branch-add" on:click=move |_| draft.update(|d| edit::add_branch(d, i))>{w.add_branch}</button>
                " "
                <button data-testid="step-add" on:click=move |_| draft.update(|d| { edit::add_step(d, i); })>{w.add_step}</button>
            </p>
            {refusal.map(|e| refusal_line(&e, lang))}
        </li>
    }
}

/// The check's refusal, in the page's words, beside what it names.
fn refusal_line(e: &FieldError, lang: Lang) -> impl IntoView + use<> {
    view! {
        <p class="field-error" role="alert" data-testid="design-refusal" data-field=e.field.clone()>
            {format!("{} {}", words(lang).refused, refusal(&e.to_string(), lang))}
        </p>
    }
}

/// A statement's parameters: the table, and what its shape takes.
#[component]
fn Params(draft: RwSignal<Design>, i: usize, action: Do, lang: Lang) -> impl IntoView {
    let w = words(lang);
    let table_of = |t: &str| {
        let names = TABLES
            .iter()
            .map(|n| view! { <option value=*n selected=*n == t>{*n}</option> })
            .collect_view();
        view! {
            <select aria-label=w.table data-testid="step-table" on:change=move |e| {
                let table = event_target_value(&e);
                edit_step(draft, i, |s| {
                    s.action = Kind::of(&s.action).action(&table);
                });
            }>{names}</select>
        }
    };
    let columns_of = |t: &str| -> Vec<String> {
        edit::table(t)
            .map(|t| t.columns.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default()
    };
    match action {
        Do::Select(s) => {
            let order = columns_of(&s.table);
            let bys = [
                (By::Order, w.by_order),
                (By::Key, w.by_key),
                (By::Id, w.by_id),
                (By::Account, w.by_account),
            ]
                .into_iter()
                .enumerate()
                .map(|(k, (b, said))| view! { <option value=k.to_string() selected=s.by == b>{said}</option> })
                .collect_view();
            view! {
                {table_of(&s.table)}
                " " {w.by} " "
                <select data-testid="step-by" on:change=move |e| {
                    let by = match event_target_value(&e).as_str() { "0" => By::Order, "1" => By::Key, "3" => By::Account, _ => By::Id };
                    edit_step(draft, i, |s| if let Do::Select(x) = &mut s.action { x.by = by });
                }>{bys}</select>
                " " {w.columns} " "
                <Checks options={order.clone()} chosen={s.columns.clone()} set={move |v| edit_step(draft, i, |s| if let Do::Select(x) = &mut s.action { x.columns = v })} />
                <label>
                    <input type="checkbox" prop:checked=s.for_update on:change=move |e| {
                        let on = event_target_checked(&e);
                        edit_step(draft, i, |s| if let Do::Select(x) = &mut s.action { x.for_update = on });
                    } />
                    {w.for_update}
                </label>
            }
            .into_any()
        }
        Do::Insert(x) => {
            let order = columns_of(&x.table);
            let conflict: Vec<String> = x.on_conflict_do_nothing.clone().unwrap_or_default();
            // What a guard names: the columns a UNIQUE can be on, and the
            // row's id and status to read back.
            let keys = edit::offered(
                &order,
                &["idempotency_key", "escopo", "chave", "message_id", "pedido_id"],
                &conflict,
            );
            let stateful = order.iter().any(|c| c == "estado");
            let completed = x.completed;
            let returned = edit::offered(&order, &["id", "status", "lease_ate_ms"], &x.returning);
            view! {
                {table_of(&x.table)}
                " " {w.on_conflict} " "
                <Checks options={keys} chosen={conflict} set={move |v: Vec<String>| edit_step(draft, i, |s| if let Do::Insert(x) = &mut s.action { x.on_conflict_do_nothing = (!v.is_empty()).then_some(v) })} />
                " " {w.returning} " "
                <Checks options={returned} chosen={x.returning.clone()} set={move |v| edit_step(draft, i, |s| if let Do::Insert(x) = &mut s.action { x.returning = v })} />
                {(stateful || completed).then(|| view! {
                    <label>
                        <input type="checkbox" data-testid="step-completed" prop:checked=completed on:change=move |e| {
                            let on = event_target_checked(&e);
                            edit_step(draft, i, |s| if let Do::Insert(x) = &mut s.action { x.completed = on });
                        } />
                        {w.completed}
                    </label>
                })}
            }
            .into_any()
        }
        Do::Update(u) => {
            // An account's update is its debit, of `saldo`.
            let order: Vec<String> = columns_of(&u.table)
                .into_iter()
                .filter(|c| design::ANSWERED.contains(&c.as_str()) || c == "saldo")
                .collect();
            view! {
                {table_of(&u.table)}
                " " {w.set} " "
                <Checks options={order} chosen={u.set.clone()} set={move |v| edit_step(draft, i, |s| if let Do::Update(x) = &mut s.action { x.set = v })} />
                <label>
                    <input type="checkbox" data-testid="step-fenced" prop:checked=u.fenced on:change=move |e| {
                        let on = event_target_checked(&e);
                        edit_step(draft, i, |s| if let Do::Update(x) = &mut s.action { x.fenced = on });
                    } />
                    {w.fenced}
                </label>
                <label>
                    <input type="checkbox" data-testid="step-local" prop:checked=u.local on:change=move |e| {
                        let on = event_target_checked(&e);
                        edit_step(draft, i, |s| if let Do::Update(x) = &mut s.action { x.local = on });
                    } />
                    {w.local}
                </label>
            }
            .into_any()
        }
        Do::Delete(d) => table_of(&d.table).into_any(),
        Do::Retake(r) => view! {
            {table_of(&r.table)}
            " " {w.from_state} " "
            <input type="text" size="11" data-testid="step-from" prop:value=r.from.clone() on:change=move |e| {
                let from = event_target_value(&e);
                edit_step(draft, i, |s| if let Do::Retake(x) = &mut s.action { x.from = from });
            } />
        }
        .into_any(),
        _ => ().into_any(),
    }
}

/// A checkbox a column, the list kept in `options`' order.
#[component]
fn Checks(
    options: Vec<String>,
    chosen: Vec<String>,
    set: impl Fn(Vec<String>) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let order = Arc::new(options.clone());
    let on = Arc::new(chosen);
    options
        .into_iter()
        .map(|c| {
            let checked = on.contains(&c);
            let (order, on, name) = (order.clone(), on.clone(), c.clone());
            view! {
                <label class="column-check">
                    <input type="checkbox" data-column=c.clone() prop:checked=checked on:change=move |e| {
                        set(edit::toggled(&on, &name, event_target_checked(&e), &order));
                    } />
                    {c}
                </label>
            }
        })
        .collect_view()
}

/// One branch: "if <test> → answer <answer>, goes to <step>".
#[component]
fn BranchRow(
    draft: RwSignal<Design>,
    i: usize,
    j: usize,
    branch: design::Branch,
    goto: AnyView,
    lang: Lang,
) -> impl IntoView {
    let w = words(lang);
    let edit_branch = move |f: Box<dyn FnOnce(&mut design::Branch)>| {
        edit_step(draft, i, |s| {
            if let Some(b) = s.on.get_mut(j) {
                f(b)
            }
        })
    };
    let whens = WHENS
        .iter()
        .map(|n| view! { <option value=*n selected=edit::when_name(&branch.when) == *n>{menu_word(w.whens, n)}</option> })
        .collect_view();
    let answers = ANSWERS
        .iter()
        .map(|n| view! { <option value=*n selected=edit::answer_name(branch.answer.as_ref()) == *n>{menu_word(w.answers, n)}</option> })
        .collect_view();
    let value = match &branch.when {
        When::Error(v) | When::Status(v) => Some(v.clone()),
        _ => None,
    };
    let status = match &branch.answer {
        Some(Answer::Literal(l)) => Some((l.status, Some(l.body.clone()))),
        Some(Answer::Charge(c)) => Some((c.status, None)),
        _ => None,
    };
    let when_now = branch.when.clone();
    let answer_now = branch.answer.clone();
    view! {
        <li class="design-branch" data-testid="design-branch">
            {w.when} " "
            <select data-testid="branch-when" on:change=move |e| {
                let name = event_target_value(&e);
                if let Some(when) = edit::when_named(&name, &when_now) {
                    edit_branch(Box::new(move |b| b.when = when));
                }
            }>{whens}</select>
            {value.map(|v| view! {
                " "
                <input type="text" class="branch-value" size="11" data-testid="branch-value" prop:value=v on:change=move |e| {
                    let v = event_target_value(&e);
                    edit_branch(Box::new(move |b| match &mut b.when {
                        When::Error(x) | When::Status(x) => *x = v,
                        _ => {}
                    }));
                } />
            })}
            " → " {w.answer} " "
            <select data-testid="branch-answer" on:change=move |e| {
                let name = event_target_value(&e);
                if let Some(answer) = edit::answer_named(&name, answer_now.as_ref()) {
                    edit_branch(Box::new(move |b| b.answer = answer));
                }
            }>{answers}</select>
            {status.map(|(code, body)| view! {
                " "
                <input type="text" inputmode="numeric" size="3" data-testid="branch-status" prop:value=code.to_string() on:change=move |e| {
                    if let Ok(code) = event_target_value(&e).parse::<u16>() {
                        edit_branch(Box::new(move |b| match &mut b.answer {
                            Some(Answer::Literal(l)) => l.status = code,
                            Some(Answer::Charge(c)) => c.status = code,
                            _ => {}
                        }));
                    }
                } />
                {body.map(|body| view! {
                    " "
                    <input type="text" size="24" data-testid="branch-body" prop:value=body on:change=move |e| {
                        let body = event_target_value(&e);
                        edit_branch(Box::new(move |b| if let Some(Answer::Literal(l)) = &mut b.answer { l.body = body }));
                    } />
                })}
            })}
            " " {w.goes_to} " "
            <select data-testid="branch-goto" on:change=move |e| {
                let to = event_target_value(&e);
                edit_branch(Box::new(move |b| b.goto = to));
            }>{goto}</select>
            " " {w.again} " "
            <input type="text" inputmode="numeric" size="1" data-testid="branch-again" title=w.again_title prop:value=branch.again.map(|n| n.to_string()).unwrap_or_default() on:change=move |e| {
                // Empty: no bound. A number the check keeps in its range.
                let v = event_target_value(&e);
                let again = v.trim().parse::<u8>().ok();
                edit_branch(Box::new(move |b| b.again = again));
            } />
            " "
            <button aria-label=w.remove_branch title=w.remove_branch data-testid="branch-remove" on:click=move |_| {
                edit_step(draft, i, |s| {
                    if j < s.on.len() {
                        s.on.remove(j);
                    }
                })
            }>"✕"</button>
        </li>
    }
}

/// The explorer's verdicts on the design on the board, once counted, each
/// broken one with its shortest counterexample to load.
#[component]
fn Found(whole: Whole) -> impl IntoView {
    let ws = expect_context::<Ws>();
    move || {
        let lang = ws.lang.get();
        let w = words(lang);
        let design = ws.design.get()?;
        let link = ws.link();
        let counting = whole.with(|(of, c)| {
            of.as_ref()
                .filter(|o| o.design.as_ref() == Some(&design) && o.link == link)
                .map(|_| c.clone())
        })?;
        let body = match counting {
            Counting::Running(_) => {
                view! { <p data-testid="design-exploring">{w.exploring}</p> }.into_any()
            }
            Counting::Done(r) => {
                let items = r
                    .properties
                    .iter()
                    .map(|p| {
                        let name = p.claim.property.name;
                        let (mark, said) = property_words::verdict(p.verdict, lang);
                        let what = property_words::sentence(name, lang).unwrap_or(name);
                        let note = match (p.claim.required, p.claim.property.modality) {
                            (true, _) => String::new(),
                            (false, Modality::Always) => format!(" ({})", w.not_claimed),
                            (false, Modality::Sometimes) => format!(" ({})", w.not_required),
                        };
                        let example = p.example.clone().filter(|_| !p.ok).map(|e| {
                            let schedule = e.schedule.0.clone();
                            view! {
                                " "
                                <button data-testid="design-example" data-schedule=e.text.clone() on:click=move |_| ws.load(&schedule)>
                                    {w.load_example}
                                </button>
                            }
                        });
                        view! {
                            <li data-testid="design-verdict" data-property=name data-verdict=p.verdict.name() data-ok=p.ok.to_string()>
                                {format!("{mark} {what}: {said}{note}")}
                                {example}
                            </li>
                        }
                    })
                    .collect_view();
                view! { <ul class="design-verdicts">{items}</ul> }.into_any()
            }
            // The counts panel says why a count stopped or failed.
            _ => return None,
        };
        Some(view! {
            <section class="design-found" aria-live="polite">
                <h3>{w.found}</h3>
                {body}
            </section>
        })
    }
}

/// The draft as JSON, to copy, paste or edit by hand, read back with the
/// same strict reader as `lousa --design` (unknown fields refused by path).
#[component]
fn JsonBox(draft: RwSignal<Design>) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let text = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| text.set(draft.with(Design::to_json)));
    let read = move |_| {
        let typed = text.get_untracked();
        match read_design(&typed) {
            Ok(d) => {
                error.set(None);
                draft.set(d);
            }
            Err(e) => error.set(Some(refusal(&e.to_string(), ws.lang.get_untracked()))),
        }
    };
    let w = move || words(ws.lang.get());
    view! {
        <details class="design-json">
            <summary>{move || w().json}</summary>
            <textarea
                rows="16"
                data-testid="design-json"
                prop:value=move || text.get()
                on:input=move |e| text.set(event_target_value(&e))
            ></textarea>
            <p>
                <button data-testid="design-read" on:click=read>{move || w().read_json}</button>
            </p>
            {move || error.get().map(|e| view! { <p class="field-error" role="alert" data-testid="design-json-error">{e}</p> })}
        </details>
    }
}

/// A design's JSON read strictly but not checked: a draft may be wrong,
/// and the tab then shows where.
pub fn read_design(text: &str) -> Result<Design, FieldError> {
    use lousa_core::design::limits;
    if text.len() > limits::JSON_BYTES_MAX {
        return Err(FieldError {
            field: "design".into(),
            message: format!(
                "{} bytes exceed the limit {}",
                text.len(),
                limits::JSON_BYTES_MAX
            ),
        });
    }
    lousa_core::json::parse(
        text,
        lousa_core::json::Root {
            name: "design",
            depth_max: limits::JSON_DEPTH_MAX,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_box_reads_what_it_shows_and_names_what_it_refuses() {
        let d = builtin::named("claim-after-capture")
            .unwrap()
            .design()
            .clone();
        assert_eq!(read_design(&d.to_json()), Ok(d.clone()));
        let mut v = serde_json::to_value(&d).unwrap();
        v["steps"][1]["do"]["insert"]["returnin"] = serde_json::json!(["id"]);
        let e = read_design(&v.to_string()).unwrap_err();
        assert_eq!(e.field, "steps[1].do.insert", "{e}");
        assert!(e.message.contains("unknown field \"returnin\""), "{e}");
        assert_eq!(edit::step_named(&e.field), Some(1));
        // A draft that reads but does not check is still read: the tab
        // shows the check's refusal beside its step.
        v["steps"][1]["do"]["insert"]
            .as_object_mut()
            .unwrap()
            .remove("returnin");
        v["steps"][0]["on"][0]["goto"] = serde_json::json!("nowhere");
        let wrong = read_design(&v.to_string()).unwrap();
        let refused = design::check(wrong).unwrap_err();
        assert_eq!(edit::step_named(&refused.field), Some(0), "{refused}");
        let big = " ".repeat(design::limits::JSON_BYTES_MAX + 1);
        assert!(
            read_design(&big)
                .unwrap_err()
                .message
                .contains("exceed the limit")
        );
    }
}
