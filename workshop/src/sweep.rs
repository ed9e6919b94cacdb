//! The sweep: the scenario on the board over a grid of two of its fields
//! (the client's timeout by the acquirer's latency, retries by the key's
//! lifetime, ...), each cell run under several designs and seeds by
//! lousa-core's sweep in the explorer's worker, with a progress bar and a
//! cancel button. It is drawn as one heatmap per design, side by side:
//! each cell coloured by the share of its runs that charged twice, with its
//! counts. A cell is a button that opens its representative seed on the
//! board.

use crate::explorer::{Event, Explorer, Failure, Slot};
use crate::state::Ws;
use crate::sweep_map::{SweepMap, drawn_map, open_cell};
use crate::texts::{count, refusal};
use leptos::prelude::*;
use lousa_core::design::Program;
use lousa_core::narrate::Lang;
use lousa_core::sweep::{Axis, SweepReport, default_strategies, limits};
use lousa_core::{Scenario, Strategy};
use lousa_protocol::{Request, SweepDone, SweepFigures, SweepRequest};
use std::sync::Arc;

/// This view's words, from the workshop's table (`crate::texts`).
pub fn words(lang: Lang) -> &'static crate::texts::SweepWords {
    &crate::texts::words(lang).sweep
}

/// A field the attendee can sweep: a link's dotted path into the
/// scenario, the values it starts with (as `lousa sweep --x` writes them),
/// and its name in both languages.
pub struct Field {
    pub path: &'static str,
    pub values: &'static str,
    pub pt: &'static str,
    pub en: &'static str,
}

/// The fields on offer. Only the first client is swept: most built-ins
/// have one, and in the races the clients are alike.
pub const FIELDS: [Field; 11] = [
    Field {
        path: "clients.0.timeout_ms",
        values: "500..4000:8",
        pt: "Timeout do cliente (ms)",
        en: "Client timeout (ms)",
    },
    Field {
        path: "clients.0.retries_max",
        values: "0..4:5",
        pt: "Reenvios do cliente",
        en: "Client retries",
    },
    Field {
        path: "clients.0.backoff_ms",
        values: "0,500,1000,2000,5000",
        pt: "Espera antes de reenviar (ms)",
        en: "Backoff before a retry (ms)",
    },
    Field {
        path: "acquirer.latency_ms",
        values: "500,1500,3000,4500",
        pt: "Latência do adquirente (ms)",
        en: "Acquirer latency (ms)",
    },
    Field {
        path: "acquirer.timeout_ms",
        values: "1000,5000,10000",
        pt: "Timeout do serviço no adquirente (ms)",
        en: "Service's timeout at the acquirer (ms)",
    },
    Field {
        path: "key_ttl_ms",
        values: "1000,60000,86400000",
        pt: "Validade da chave (ms)",
        en: "Key lifetime (ms)",
    },
    Field {
        path: "instances",
        values: "1..4:4",
        pt: "Instâncias do serviço",
        en: "Service instances",
    },
    Field {
        path: "pool_size",
        values: "1..4:4",
        pt: "Conexões por instância",
        en: "Connections per instance",
    },
    Field {
        path: "network.latency_ms",
        values: "0,20,200",
        pt: "Latência da rede (ms)",
        en: "Network latency (ms)",
    },
    Field {
        path: "network.jitter_ms",
        values: "0,5,50,500",
        pt: "Variação da rede por ida (ms)",
        en: "Network jitter per hop (ms)",
    },
    Field {
        path: "db_latency_ms",
        values: "0,5,50",
        pt: "Latência do banco (ms)",
        en: "Database latency (ms)",
    },
];

/// The axes a sweep starts with: the story's timeout against the
/// acquirer's latency.
const X_DEFAULT: usize = 0;
const Y_DEFAULT: usize = 3;
const SEEDS_DEFAULT: u64 = 10;

/// Where a sweep stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Sweeping {
    Idle,
    Running(SweepFigures),
    /// The report, the scenario it swept (a link), the wall time it took
    /// the page, worker start included, and the design it ran, if any.
    Done(Box<SweepReport>, String, f64, Option<Arc<Program>>),
    Cancelled,
    /// Refused: the page's words or the worker's.
    Failed(String),
    /// The worker stopped or never heard the request.
    Lost(Failure),
}

/// The sweep's panel: the axes, seeds and designs, the button and the
/// progress, then the heatmaps. `explorer` is the page's workers.
#[component]
pub fn Sweep(explorer: Explorer) -> impl IntoView {
    let ws = expect_context::<Ws>();
    let w = move || words(ws.lang.get());
    let x_field = RwSignal::new(X_DEFAULT);
    let x_values = RwSignal::new(FIELDS[X_DEFAULT].values.to_string());
    let y_field = RwSignal::new(Y_DEFAULT);
    let y_values = RwSignal::new(FIELDS[Y_DEFAULT].values.to_string());
    let seeds = RwSignal::new(SEEDS_DEFAULT.to_string());
    // None until the attendee ticks a box: the designs `lousa sweep`
    // defaults to (the board's and idempotency-key), following the board.
    let picked = RwSignal::new(None::<Vec<Strategy>>);
    // A design on the board is swept alone, under the scenario's strategy,
    // as `lousa sweep --design` sweeps it.
    let chosen = move || {
        if ws.design.with(Option::is_some) {
            return vec![ws.strategy.get()];
        }
        picked
            .get()
            .unwrap_or_else(|| ws.built.with(default_strategies))
    };
    let sweeping = RwSignal::new(Sweeping::Idle);
    let running = move || sweeping.with(|s| matches!(s, Sweeping::Running(_)));
    let x_text = move || axis_text(x_field.get(), &x_values.get());
    let y_text = move || axis_text(y_field.get(), &y_values.get());
    let planned = move || {
        plan(
            &x_text(),
            &y_text(),
            &seeds.get(),
            chosen().len(),
            ws.lang.get(),
        )
    };
    let start = move |_| {
        if x_field.get_untracked() == y_field.get_untracked() {
            let lang = ws.lang.get_untracked();
            sweeping.set(Sweeping::Failed(words(lang).same_field.into()));
            return;
        }
        let seeds = match seeds.get_untracked().trim().parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                let lang = ws.lang.get_untracked();
                let said = seeds_refused(&seeds.get_untracked(), lang);
                sweeping.set(Sweeping::Failed(said));
                return;
            }
        };
        let link = untrack(|| ws.link());
        let design = ws.design.get_untracked();
        let request = ws.built.with_untracked(|base| {
            request(
                base,
                &untrack(x_text),
                &untrack(y_text),
                &untrack(chosen),
                seeds,
            )
        });
        let since = js_sys::Date::now();
        sweeping.set(Sweeping::Running(SweepFigures::default()));
        explorer.start(
            Slot::Sweep,
            &request,
            move |e: Event<SweepFigures, SweepDone>| {
                // A late message of a cancelled sweep changes nothing.
                if sweeping.with_untracked(|s| *s == Sweeping::Cancelled) {
                    return;
                }
                sweeping.set(match e {
                    Event::Progress(f) => Sweeping::Running(f),
                    Event::Done(d) => Sweeping::Done(
                        Box::new(d.report),
                        link.clone(),
                        js_sys::Date::now() - since,
                        design.clone(),
                    ),
                    Event::Failed(Failure::Said(m)) => Sweeping::Failed(m),
                    Event::Failed(f) => Sweeping::Lost(f),
                });
            },
        );
    };
    let cancel = move |_| {
        explorer.cancel(Slot::Sweep);
        sweeping.set(Sweeping::Cancelled);
    };
    let options = move |selected: RwSignal<usize>| {
        let lang = ws.lang.get();
        FIELDS
            .iter()
            .enumerate()
            .map(|(i, f)| {
                view! {
                    <option value=f.path selected=move || selected.get() == i>
                        {label(f, lang)}
                    </option>
                }
            })
            .collect_view()
    };
    let axis_picker =
        move |name: &'static str, field: RwSignal<usize>, values: RwSignal<String>| {
            view! {
                <p class="sweep-axis">
                    <label>
                        {move || if name == "x" { w().across } else { w().down }}
                        " "
                        <select
                            data-testid=format!("sweep-{name}-field")
                            prop:value=move || FIELDS[field.get()].path
                            on:change=move |e| {
                                let path = event_target_value(&e);
                                if let Some(i) = FIELDS.iter().position(|f| f.path == path) {
                                    field.set(i);
                                    values.set(FIELDS[i].values.to_string());
                                }
                            }
                        >
                            {move || options(field)}
                        </select>
                    </label>
                    " "
                    <label class="sweep-values">
                        {move || w().values}
                        " "
                        <input
                            type="text"
                            size="16"
                            spellcheck="false"
                            data-testid=format!("sweep-{name}-values")
                            prop:value=move || values.get()
                            on:input=move |e| values.set(event_target_value(&e))
                        />
                    </label>
                </p>
            }
        };
    let strategies = Strategy::ALL
        .into_iter()
        .map(|s| {
            let toggle = move |_| {
                let mut now = untrack(chosen);
                if now.contains(&s) {
                    now.retain(|c| *c != s);
                } else {
                    now.push(s);
                }
                picked.set(Some(now));
            };
            view! {
                <label class="sweep-strategy">
                    <input
                        type="checkbox"
                        data-testid="sweep-strategy"
                        value=s.name()
                        prop:checked=move || chosen().contains(&s)
                        on:change=toggle
                    />
                    {s.name()}
                </label>
            }
        })
        .collect_view();
    view! {
        <section class="sweep" aria-labelledby="sweep-title" data-testid="sweep">
            <h2 id="sweep-title">{move || w().title}</h2>
            <p class="sweep-intro">{move || w().intro}</p>
            {axis_picker("x", x_field, x_values)}
            {axis_picker("y", y_field, y_values)}
            <p class="sweep-axis">
                <label>
                    {move || w().seeds}
                    " "
                    <input
                        type="number"
                        min="1"
                        max=limits::RUNS_MAX.to_string()
                        data-testid="sweep-seeds"
                        prop:value=move || seeds.get()
                        on:input=move |e| seeds.set(event_target_value(&e))
                    />
                </label>
            </p>
            <fieldset
                class="sweep-strategies"
                style:display=move || if ws.design.with(Option::is_some) { "none" } else { "" }
            >
                <legend>{move || w().designs}</legend>
                {strategies}
            </fieldset>
            {move || {
                ws.design.get().map(|p| {
                    view! {
                        <p class="sweep-note" data-testid="sweep-design">
                            {format!("{} {}.", w().the_design, p.design().name)}
                        </p>
                    }
                })
            }}
            <p class="sweep-plan" data-testid="sweep-plan">{planned}</p>
            <p>
                <button data-testid="sweep-start" on:click=start prop:disabled=running>
                    {move || w().button}
                </button>
                " "
                <button
                    data-testid="sweep-cancel"
                    on:click=cancel
                    prop:disabled=move || !running()
                >
                    {move || w().cancel}
                </button>
            </p>
            {move || {
                let lang = ws.lang.get();
                sweeping.with(|s| status(s, lang, ws, sweeping))
            }}
        </section>
    }
}

/// `path=values`, as `lousa sweep --x` takes it.
fn axis_text(field: usize, values: &str) -> String {
    format!("{}={}", FIELDS[field].path, values.trim())
}

/// The worker's request to sweep `base` (the page's scenario: the worker
/// reads no links), with the cells the axes make of it (`SweepRequest::new`
/// makes them with the strict scenario parser, which the worker leaves to
/// the page), under `strategies` (or the design `base` carries) with
/// `seeds` seeds from seed 0.
pub fn request(base: &Scenario, x: &str, y: &str, strategies: &[Strategy], seeds: u64) -> Request {
    let mut r = SweepRequest::new(base.clone(), x, y);
    // A design is swept alone, under the base's strategy.
    match &base.design {
        Some(p) => r.design = Some(p.design().clone()),
        None => r.strategies = Some(strategies.iter().map(|s| s.name().to_string()).collect()),
    }
    r.seeds = Some(seeds);
    r.first_seed = Some(0);
    Request::Sweep(r)
}

/// How many runs the sweep asked for will make, or what is wrong with it,
/// before it starts: the same checks the core makes, in the page's words
/// where the page has them.
fn plan(x: &str, y: &str, seeds: &str, designs: usize, lang: Lang) -> String {
    let w = words(lang);
    let axis = |name: &str, text: &str| {
        text.parse::<Axis>()
            .map_err(|e| format!("{} {name}: {}", w.axis_refused, refusal(&e, lang)))
    };
    let (x, y) = match (axis("x", x), axis("y", y)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    if x.path == y.path {
        return w.same_field.to_string();
    }
    let Ok(seeds) = seeds.trim().parse::<u64>() else {
        return seeds_refused(seeds, lang);
    };
    let cells = (x.values.len() * y.values.len()) as u64;
    let runs = cells.saturating_mul(designs as u64).saturating_mul(seeds);
    let sum = format!(
        "{} {} × {} {} × {} {} = {} {}",
        count(cells.into(), lang),
        w.cells_word.of(cells.into()),
        designs,
        w.designs_word.of(designs as u128),
        count(seeds.into(), lang),
        w.seeds_word.of(seeds.into()),
        count(runs.into(), lang),
        w.runs_word.of(runs.into())
    );
    if designs == 0 {
        format!("{sum}: {}", w.no_design)
    } else if runs == 0 || runs > limits::RUNS_MAX {
        format!(
            "{sum}: {} 1 {} {} {}",
            w.outside,
            w.to_word,
            count(limits::RUNS_MAX.into(), lang),
            w.runs_word.of(limits::RUNS_MAX.into())
        )
    } else {
        sum
    }
}

fn seeds_refused(seeds: &str, lang: Lang) -> String {
    let w = words(lang);
    format!("{} {:?}", w.seeds_not_number, seeds.trim())
}

fn status(s: &Sweeping, lang: Lang, ws: Ws, sweeping: RwSignal<Sweeping>) -> AnyView {
    let w = words(lang);
    match s {
        Sweeping::Idle => ().into_any(),
        Sweeping::Cancelled => view! { <p data-testid="sweep-status">{w.cancelled}</p> }.into_any(),
        Sweeping::Failed(m) => view! {
            <p data-testid="sweep-status" role="alert">{format!("{} {}", w.failed, refusal(m, lang))}</p>
        }
        .into_any(),
        Sweeping::Lost(f) => view! {
            <p data-testid="sweep-status" role="alert">
                {f.sentence(lang)}
            </p>
        }
        .into_any(),
        Sweeping::Running(f) => {
            let said = format!(
                "{} {} {} {} {} · {} {}",
                w.sweeping,
                count(f.runs.into(), lang),
                w.of_word,
                count(f.runs_total.into(), lang),
                w.runs_word.of(f.runs_total.into()),
                count(f.runs_per_s.into(), lang),
                w.per_second
            );
            view! {
                <progress
                    data-testid="sweep-progress"
                    max=f.runs_total.max(1) as f64
                    value=f.runs as f64
                ></progress>
                <p data-testid="sweep-status" aria-live="polite">{said}</p>
            }
            .into_any()
        }
        Sweeping::Done(r, of, ms, design) => {
            let runs: u64 = r.maps.iter().flat_map(|m| &m.cells).map(|c| c.runs).sum();
            let said = format!(
                "{} {of}, {} {} {} {}: {} {} {} {}. {}",
                w.swept,
                count(r.seeds.into(), lang),
                w.seeds_per_cell,
                w.from_seed,
                r.first_seed,
                count(runs.into(), lang),
                w.runs_word.of(runs.into()),
                w.in_word,
                seconds(*ms, lang),
                w.click_a_cell
            );
            // Which cell is open on the board, as (map, x, y): a new sweep
            // draws its maps afresh, with none.
            let opened = RwSignal::new(None::<(usize, usize, usize)>);
            let maps = r
                .maps
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let design = design.as_ref().map(|p| p.design().name.as_str());
                    let drawn = drawn_map(r, i, m, design, lang);
                    view! { <SweepMap drawn opened on_open=move |at| open_cell(ws, sweeping, opened, at) /> }
                })
                .collect_view();
            view! {
                <p data-testid="sweep-status" data-elapsed-ms=format!("{ms:.0}")>{said}</p>
                <p class="sweep-legend">{w.legend}</p>
                <div class="sweep-maps" data-testid="sweep-maps">{maps}</div>
            }
            .into_any()
        }
    }
}

/// `0,4 s` or `0.4 s`.
fn seconds(ms: f64, lang: Lang) -> String {
    let text = format!("{:.1} s", ms / 1000.0);
    match lang {
        Lang::Pt => text.replace('.', ","),
        Lang::En => text,
    }
}

/// A field's name in `lang`.
pub(crate) fn label(f: &Field, lang: Lang) -> &'static str {
    match lang {
        Lang::Pt => f.pt,
        Lang::En => f.en,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::builtins;
    use lousa_core::link;

    #[test]
    fn every_field_on_offer_parses_and_exists_in_every_built_in() {
        for f in &FIELDS {
            let axis: Axis = axis_text(
                FIELDS.iter().position(|g| g.path == f.path).unwrap(),
                f.values,
            )
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", f.path));
            assert!(
                axis.values.len() >= 2,
                "{}: a sweep needs two values",
                f.path
            );
            for name in builtins::NAMES {
                let base = builtins::builtin(name).unwrap();
                // A path the built-in lacks would refuse every cell. A
                // value its design forbids is a refused cell that says why
                // (a lease outliving the key), which is worth seeing.
                for v in &axis.values {
                    if let Err(e) = link::edit(&base, &[(f.path, v.clone())]) {
                        let path_error = ["unknown field", "has no field", "past the end"]
                            .iter()
                            .any(|m| e.message.contains(m));
                        assert!(!path_error, "{name}, {}={v}: {e}", f.path);
                        assert!(e.message.contains("limit"), "{name}, {}={v}: {e}", f.path);
                    }
                }
            }
        }
    }

    #[test]
    fn a_request_is_the_workers_sweep_request() {
        let base = link::decode("race-2;instances=3").unwrap();
        let text = request(
            &base,
            "instances=1,99",
            "network.jitter_ms=0,5",
            &[Strategy::CheckThenAct, Strategy::IdempotencyKey],
            5,
        )
        .to_json();
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        let r = &r["sweep"];
        assert_eq!(r["scenario"], serde_json::to_value(&base).unwrap());
        assert_eq!(r["x"], "instances=1,99");
        assert_eq!(r["y"], "network.jitter_ms=0,5");
        assert_eq!(
            r["strategies"],
            serde_json::json!(["check-then-act", "idempotency-key"])
        );
        assert_eq!(
            (r["seeds"].as_u64(), r["first_seed"].as_u64()),
            (Some(5), Some(0))
        );
        // Row by row along y, each row along x: the cells the core makes.
        let cells = r["cells"].as_array().unwrap();
        assert_eq!(cells.len(), 4);
        let made = link::decode("race-2;instances=1;network.jitter_ms=5").unwrap();
        assert_eq!(cells[2]["scenario"], serde_json::to_value(&made).unwrap());
        assert_eq!(
            cells[3]["refused"],
            serde_json::json!({"edit": 1, "field": "instances", "message": "99 is outside 1..=8"})
        );
        // Axes the page cannot read make no cells; the worker names them.
        let unread = request(&base, "instances", "seed=1", &[Strategy::Naive], 1).to_json();
        assert!(unread.contains(r#""cells":[]"#), "{unread}");

        // A design on the board is swept alone: the request carries it and
        // no strategies, which the worker would refuse beside it.
        let mut designed = base.clone();
        let program = lousa_core::design::builtin::named("claim-after-capture").unwrap();
        designed.design = Some(Arc::new(program.clone()));
        let text = request(&designed, "instances=1,2", "seed=1", &[Strategy::Naive], 2).to_json();
        let r: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            r["sweep"]["design"],
            serde_json::to_value(program.design()).unwrap()
        );
        assert!(r["sweep"].get("strategies").is_none(), "{text}");
    }

    #[test]
    fn the_plan_counts_runs_and_names_the_limit() {
        let x = "clients.0.timeout_ms=500..4000:8";
        let y = "acquirer.latency_ms=500,1500,3000";
        assert_eq!(
            plan(x, y, "10", 2, Lang::Pt),
            "24 células × 2 estratégias × 10 sementes = 480 execuções"
        );
        assert_eq!(
            plan(x, y, "5000", 2, Lang::En),
            "24 cells × 2 strategies × 5,000 seeds = 240,000 runs: a sweep makes from 1 to 100,000 runs"
        );
        assert!(plan(x, y, "10", 0, Lang::En).ends_with("tick at least one strategy"));
        assert_eq!(
            plan(x, y, "ten", 2, Lang::En),
            r#"Seeds per cell: write a whole number, not "ten""#
        );
        assert_eq!(
            plan("instances=1..9:17", y, "10", 2, Lang::Pt),
            "Eixo recusado, x: 17 valores estão fora de 1 a 16"
        );
        // One of each is singular, in both languages.
        assert_eq!(
            plan("instances=1", "seed=1", "1", 1, Lang::Pt),
            "1 célula × 1 estratégia × 1 semente = 1 execução"
        );
        assert_eq!(
            plan("instances=1", "seed=1", "1", 1, Lang::En),
            "1 cell × 1 strategy × 1 seed = 1 run"
        );
        assert_eq!(
            plan(x, "clients.0.timeout_ms=1000", "10", 2, Lang::Pt),
            "Os dois eixos variam o mesmo campo: escolha outro para o eixo y."
        );
    }
}
