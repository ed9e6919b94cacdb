//! lousa-core's exhaustive explorer and its sweep behind a message
//! protocol, for a Web Worker: the page posts a request, the worker explores
//! every schedule (or sweeps a grid of seeded runs) off the main thread,
//! posting progress while it runs and the report at the end.
//!
//! Trunk builds the binary (`src/main.rs`) from the second rust link in
//! `index.html` (`data-type="worker"`), with lousa-core's `shared-parts`
//! feature, which explorers want and the reader's page leaves off. Trunk
//! neither preloads nor loads it: its three files (`lousa-worker_loader.js`,
//! `lousa-worker.js`, `lousa-worker_bg.wasm`, named without a hash, as Trunk
//! names workers) are fetched only when a page creates the worker:
//!
//! ```js
//! const worker = new Worker(new URL('./lousa-worker_loader.js', base), { type: 'module' });
//! worker.onmessage = ({ data }) => {
//!   if (data.ready) worker.postMessage({ explore: { scenario: 'race-3', strategy: 'check-then-act', unordered_ties: true } });
//!   else if (data.progress) bar(data.progress.states);
//!   else if (data.done) show(data.done.report);
//!   else if (data.error) say(data.error.message);
//! };
//! worker.terminate(); // cancels at once, whatever the worker is doing
//! ```
//!
//! # Protocol
//!
//! Messages are JSON objects with one key, which names the message. The page
//! may post them as objects (structured clones of JSON values) or as JSON
//! text; the worker posts objects.
//!
//! **Worker to page, first:** `{"ready": {"states_default": 5000000,
//! "states_max": 50000000}}` once it listens (the explorer's default and
//! largest `max_states`). A request posted before `ready` may be lost while
//! the wasm starts, so wait for it.
//!
//! **Page to worker:** one request, served in the order posted (a request
//! posted during a run waits for that run to end):
//!
//! ```json
//! {"explore": {"scenario": "race-3", "strategy": "check-then-act",
//!              "unordered_ties": true, "symmetry": true, "max_states": 5000000}}
//! ```
//!
//! * `scenario` (required): a built-in name (`race-2`, `race-3`, any
//!   `race-N` the core builds, `timeout-retry`, ...) or a scenario as a
//!   JSON object (`lousa_core::Scenario` as serde writes it, `lousa
//!   scenarios <name> --format json`). Not a scenario link
//!   (`timeout-retry;clients.0.timeout_ms=1500`): the page decodes links
//!   with lousa-core's strict scenario parser (`link::decode`) and sends
//!   the scenario, so that the worker's wasm carries no such parser (issue
//!   #30: it was a quarter of the worker). The worker reads the JSON with
//!   plain serde, which refuses an unknown or missing field by name and a
//!   wrong type at its line of the scenario as pretty JSON, and validates
//!   it as the core does (`Scenario::validate`) before any run.
//! * `strategy`: a strategy name; the scenario's own when absent.
//! * `symmetry` (default `true`), `unordered_ties` (default `false`): the
//!   explorer's reductions, as `lousa explore` has them (`--no-symmetry`,
//!   `--unordered-ties`).
//! * `max_states` (default 5,000,000, at most 50,000,000): reaching it ends
//!   the run with the status `state-limit`.
//! * `prefix`: a schedule (`0-1x6`, as `lousa run --schedule` takes it).
//!   The run replays it and the counts are of the schedules on from there
//!   (the workshop's "from here"); example schedules include it. A prefix
//!   that does not fit the scenario, or stops inside a step, is refused.
//!
//! Unknown fields are refused by name. The search is depth-first, as the
//! CLI's default.
//!
//! **The graph kept.** An exploration without a prefix that completes
//! leaves its graph in the worker (its states' index and transitions, the
//! worlds dropped), until the next exploration without a prefix replaces
//! it. A request with a prefix for the same scenario (equal as JSON, the
//! strategy applied) and the same options is answered from that graph:
//! lousa-core's `KeptGraph::from_prefix` finds the state the prefix reaches
//! and reads the report off the states after it, equal in every figure and
//! example to a fresh exploration's, without searching again (the
//! workshop's "from here" after each pick). Any other request with a
//! prefix is explored anew, and leaves the graph kept as it was. Keeping
//! costs the graph's memory between requests: a 16-byte node a state, 8
//! bytes a transition and the index's 17 bytes a slot, as allocated (race-3's
//! figures are in docs/performance.md). A wasm's memory never shrinks, so
//! the worker held that much at the end of the exploration anyway; an
//! answer from the graph copies the part after the prefix for its analysis.
//!
//! The second kind of request sweeps a scenario over a grid of two of its
//! fields, as `lousa sweep` does (`lousa_core::sweep`):
//!
//! ```json
//! {"sweep": {"scenario": "timeout-retry", "x": "clients.0.timeout_ms=500..4000:8",
//!            "y": "acquirer.latency_ms=1000,3000",
//!            "cells": [{"scenario": {...}}, ..., {"refused": {"edit": 1, "field": "instances", "message": "..."}}],
//!            "strategies": ["check-then-act", "idempotency-key"], "seeds": 10, "first_seed": 0}}
//! ```
//!
//! * `scenario` (required): a built-in name or a scenario's JSON, as above.
//! * `x`, `y` (required): the axes, written exactly as `lousa sweep --x`
//!   and `--y` take them: a link's dotted path, then `=v1,v2,...` (JSON
//!   values) or `=from..to:n` (n whole numbers, both ends included), at
//!   most `sweep::limits::VALUES_MAX` values each.
//! * `cells` (required): each cell's scenario, row by row along y, each
//!   row along x, as the page made it with `sweep::cells` (the base with
//!   the axes' values set as a link's edits, read back by the strict
//!   parser): `{"scenario": <scenario JSON>}`, or `{"refused": <LinkError>}`
//!   (`edit`, `field`, `message`) for a cell the parser refused, which the
//!   report then shows in those words. One cell per pair of values, or the
//!   sweep is refused (`cells: 3 cells, but the axes make 4 (2 x 2)`);
//!   every cell's scenario is validated under each design before it runs.
//! * `strategies`: the designs, one heatmap each; when absent, the
//!   scenario's own and idempotency-key, as `lousa sweep` defaults.
//! * `seeds` (default 10), `first_seed` (default 0): each cell runs every
//!   design under the seeds from `first_seed` on. Cells x designs x seeds
//!   may be at most `sweep::limits::RUNS_MAX` runs.
//!
//! Unknown fields are refused by name here too.
//!
//! **Worker to page, during a run:** `{"progress": {"states", "transitions",
//! "states_per_s", "elapsed_ms"}}` (none for an answer read off the graph
//! kept), once as the run starts (0 states) and then
//! after every slice of the explorer's search (`explore::explore_with`'s
//! callback, every 4,096 states: in Chromium on the 2-core dev machine,
//! every 11 to 18 ms typically; the longest waits, 21 to 110 ms in the runs
//! measured, are mostly the slices in which the state index doubles, at
//! about 459,000 and 918,000 states). `elapsed_ms` is wall time since the
//! run started, `states_per_s` the mean rate since then. No progress comes
//! while the explorer builds its report after the last slice (counts,
//! shortest schedules, verdicts): about 0.1 to 0.2 s for race-3
//! check-then-act with both reductions, 0.3 to 0.6 s with symmetry alone
//! (README, the bench).
//!
//! **Worker to page, during a sweep:** `{"progress": {"runs", "runs_total",
//! "runs_per_s", "elapsed_ms"}}`, once when the sweep is checked (0 runs,
//! and the total) and then at most every [`SWEEP_PROGRESS_EVERY_MS`] of
//! wall time: the core reports every run, so a cell of many seeds still
//! moves the bar.
//!
//! **Worker to page, at the end:** either
//!
//! * `{"done": {"report", "passed", "failure", "states_per_s",
//!   "elapsed_ms", "reused"}}`: `reused` is true when the report was read
//!   off the graph kept rather than explored; `report` is lousa-core's `explore::Report`, the JSON
//!   `lousa explore --format json` prints less its `counterexample` replay
//!   and `passed` (`status`: `complete`, or `state-limit` when `max_states`
//!   cut the run; the outcome histogram with exact schedule counts in
//!   `outcomes`, `by_captures` and `by_answers`; each outcome's shortest
//!   schedule in `outcomes[].example.text`; the *always* and *sometimes*
//!   properties and their verdicts in `properties`). `passed` is true when
//!   the run is complete and every property met its requirement; `failure`
//!   says why not, in the words of the CLI's exit message
//!   (`exploration stopped (state-limit) after 100 states: nothing can be
//!   said to hold; raise max_states (limit 50000000)`), or is null.
//! * for a sweep, `{"done": {"report", "runs", "runs_per_s",
//!   "elapsed_ms"}}`: `report` is lousa-core's `sweep::SweepReport`, the
//!   JSON `lousa sweep --format json` prints (`scenario`, the axes `x` and
//!   `y` with their `path` and `values`, `first_seed`, `seeds`, and `maps`:
//!   one per design, its `strategy` and its `cells` row by row along x,
//!   each with its indexes `x` and `y`, `runs`, `double_charged`,
//!   `representative_seed`, the cell's scenario as a `link`, and `refused`,
//!   why the cell's scenario cannot run, or null);
//! * or `{"error": {"message"}}`: the request was refused, in lousa-core's
//!   words where the core refused it (`instances: 99 is outside 1..=8`,
//!   `max_states: 0 is outside 1..=50000000`, `strategy: unknown value
//!   "optimistic" (expected one of: ...)` as the scenario parser words it),
//!   in serde's for the request's shape, at the request's field
//!   (`request.explore.max_states: invalid type: string "many", expected
//!   u32`, `scenario: "race-x" names no built-in; ...`); for a sweep, the axis or the
//!   limit: `x: 17 values are outside 1..=16`, `seeds: 24 cells x 2
//!   designs x 5000 seeds = 240000 runs, outside 1..=100000`,
//!   `instances: every cell is refused: 99 is outside 1..=8`).
//!
//! **Cancelling:** `worker.terminate()`. The explorer and the sweep run
//! synchronously, so the worker reads no message until a run ends;
//! terminating stops it at once, and a fresh worker starts clean. A trap in
//! the wasm (a bug, or memory the tab refuses) reaches the page as the
//! worker's `error` event.
//!
//! Like the core, this crate reads no clock: the host passes one in
//! (`performance.now()` in the browser, `Instant` natively).

use lousa_core::explore::{self, KeptGraph, NotKept, Report};
use lousa_core::link::LinkError;
use lousa_core::sweep::{self, Axis, SweepReport};
use lousa_core::{Scenario, Schedule, Strategy, builtins};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::ops::ControlFlow;

/// A request from the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Explore(ExploreRequest),
    Sweep(SweepRequest),
}

/// What to explore and how: the options of `lousa explore`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreRequest {
    /// The scenario: a built-in by name, or the page's scenario as JSON.
    pub scenario: Scenario,
    /// A strategy name; the scenario's own when absent.
    pub strategy: Option<String>,
    pub symmetry: bool,
    pub unordered_ties: bool,
    pub max_states: u32,
    /// A schedule prefix (`lousa run --schedule` text): explore every way on
    /// from where it leaves the run, as `explore::explore_from` does.
    pub prefix: Option<String>,
}

/// The fields of an explore request, in the order refusals list them.
const EXPLORE_FIELDS: &[&str] = &[
    "scenario",
    "strategy",
    "symmetry",
    "unordered_ties",
    "max_states",
    "prefix",
];

/// What to sweep: the options of `lousa sweep`, and the cells the page
/// made (`sweep::cells`).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRequest {
    /// The base scenario, as an explore request's.
    pub scenario: Scenario,
    /// The axes, as `lousa sweep --x` and `--y` take them.
    pub x: String,
    pub y: String,
    /// Each cell's scenario (the base with the axes' values set), or why
    /// the page could not make it, row by row (y), each row along x.
    pub cells: Vec<Result<Scenario, LinkError>>,
    /// Strategy names, one heatmap each; when absent, the scenario's own
    /// and idempotency-key (`sweep::default_strategies`).
    pub strategies: Option<Vec<String>>,
    pub seeds: u64,
    pub first_seed: u64,
}

/// The fields of a sweep request, in the order refusals list them.
const SWEEP_FIELDS: &[&str] = &[
    "scenario",
    "x",
    "y",
    "cells",
    "strategies",
    "seeds",
    "first_seed",
];

/// Seeds per cell when a sweep names none: `lousa sweep`'s default.
pub const SEEDS_DEFAULT: u64 = 10;

/// The least wall time between two progress messages of a sweep. The core
/// reports every run, far more often than a progress bar can show.
pub const SWEEP_PROGRESS_EVERY_MS: f64 = 50.0;

/// A message to the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Message {
    Ready {
        states_default: u32,
        states_max: u32,
    },
    Progress(Figures),
    /// A sweep's progress: under the same key as an exploration's, since
    /// a page knows which it asked for.
    #[serde(rename = "progress")]
    SweepProgress(SweepFigures),
    Done(Box<Done>),
    #[serde(rename = "done")]
    SweepDone(Box<SweepDone>),
    Error {
        message: String,
    },
}

impl Message {
    /// The first message, once the worker listens.
    pub fn ready() -> Message {
        Message::Ready {
            states_default: explore::limits::STATES_DEFAULT,
            states_max: explore::limits::STATES_MAX,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a message is JSON")
    }
}

/// How far a run has come.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Figures {
    pub states: u64,
    pub transitions: u64,
    /// The mean since the run started; 0 before any time has passed.
    pub states_per_s: u64,
    /// Wall time since the run started, in milliseconds.
    pub elapsed_ms: f64,
}

impl Figures {
    fn new(states: u64, transitions: u64, elapsed_ms: f64) -> Figures {
        let states_per_s = if elapsed_ms > 0.0 {
            (states as f64 * 1000.0 / elapsed_ms).round() as u64
        } else {
            0
        };
        Figures {
            states,
            transitions,
            states_per_s,
            // Microseconds are all any clock here resolves.
            elapsed_ms: (elapsed_ms * 1000.0).round() / 1000.0,
        }
    }
}

/// The end of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Done {
    pub report: Report,
    pub passed: bool,
    /// Why the run did not pass, as `lousa explore` words its exit message.
    pub failure: Option<String>,
    pub states_per_s: u64,
    pub elapsed_ms: f64,
    /// Whether the report was read off the graph the worker kept rather
    /// than explored.
    pub reused: bool,
}

/// How far a sweep has come.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SweepFigures {
    pub runs: u64,
    /// Cells x designs x seeds: the runs the sweep will make.
    pub runs_total: u64,
    /// The mean since the sweep started; 0 before any time has passed.
    pub runs_per_s: u64,
    pub elapsed_ms: f64,
}

impl SweepFigures {
    fn new(runs: u64, runs_total: u64, elapsed_ms: f64) -> SweepFigures {
        let f = Figures::new(runs, 0, elapsed_ms);
        SweepFigures {
            runs,
            runs_total,
            runs_per_s: f.states_per_s,
            elapsed_ms: f.elapsed_ms,
        }
    }
}

/// The end of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepDone {
    /// lousa-core's `sweep::SweepReport`: the JSON `lousa sweep --format
    /// json` prints.
    pub report: SweepReport,
    pub runs: u64,
    pub runs_per_s: u64,
    pub elapsed_ms: f64,
}

/// Reads a request, naming the field it refuses. Plain serde_json reads
/// each field on its own, so that a refusal names it without a path
/// tracker (the strict scenario parser's, which the worker leaves to the
/// page: see [`scenario_of`]).
pub fn parse(text: &str) -> Result<Request, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("request: {e}"))?;
    let got = || shorten(&value.to_string());
    let (kind, body) = match &value {
        Value::Object(map) if map.len() == 1 => map.iter().next().expect("one key"),
        _ => {
            return Err(format!(
                "request: expected an object with one key, such as {{\"explore\": {{\"scenario\": \"race-2\"}}}}, got {}",
                got()
            ));
        }
    };
    match kind.as_str() {
        "explore" => {
            let f = Fields::of("explore", body, EXPLORE_FIELDS)?;
            Ok(Request::Explore(ExploreRequest {
                scenario: f.scenario()?,
                strategy: f.optional::<Option<String>>("strategy")?.flatten(),
                symmetry: f.optional("symmetry")?.unwrap_or(true),
                unordered_ties: f.optional("unordered_ties")?.unwrap_or(false),
                max_states: f
                    .optional("max_states")?
                    .unwrap_or(explore::limits::STATES_DEFAULT),
                prefix: f.optional::<Option<String>>("prefix")?.flatten(),
            }))
        }
        "sweep" => {
            let f = Fields::of("sweep", body, SWEEP_FIELDS)?;
            Ok(Request::Sweep(SweepRequest {
                scenario: f.scenario()?,
                x: f.required("x")?,
                y: f.required("y")?,
                cells: f.cells()?,
                strategies: f.optional::<Option<Vec<String>>>("strategies")?.flatten(),
                seeds: f.optional("seeds")?.unwrap_or(SEEDS_DEFAULT),
                first_seed: f.optional("first_seed")?.unwrap_or(0),
            }))
        }
        other => Err(format!(
            "request: unknown variant `{other}`, expected `explore` or `sweep`"
        )),
    }
}

/// A request's fields, read one at a time: a refusal names the field
/// (`request.explore.max_states: invalid type: ...`), as serde words it.
struct Fields<'a> {
    at: String,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// The fields of `body`, refusing a name not in `names` first.
    fn of(kind: &str, body: &'a Value, names: &[&str]) -> Result<Fields<'a>, String> {
        let at = format!("request.{kind}");
        let Value::Object(map) = body else {
            return Err(format!(
                "{at}: expected an object of fields, got {}",
                shorten(&body.to_string())
            ));
        };
        if let Some(unknown) = map.keys().find(|k| !names.contains(&k.as_str())) {
            let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            return Err(format!(
                "{at}.{unknown}: unknown field `{unknown}`, expected one of {}",
                listed.join(", ")
            ));
        }
        Ok(Fields { at, map })
    }

    fn optional<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, String> {
        self.map
            .get(name)
            .map(|v| T::deserialize(v).map_err(|e| format!("{}.{name}: {e}", self.at)))
            .transpose()
    }

    fn required<T: DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        self.optional(name)?
            .ok_or_else(|| format!("{}: missing field `{name}`", self.at))
    }

    fn scenario(&self) -> Result<Scenario, String> {
        let value = self
            .map
            .get("scenario")
            .ok_or_else(|| format!("{}: missing field `scenario`", self.at))?;
        scenario_of(value).map_err(|e| format!("scenario: {e}"))
    }

    /// `cells`: a list of `{"scenario": ...}` (a scenario as
    /// [`scenario_of`] reads it) and `{"refused": {"edit", "field",
    /// "message"}}` (a `link::LinkError`).
    fn cells(&self) -> Result<Vec<Result<Scenario, LinkError>>, String> {
        let at = format!("{}.cells", self.at);
        let Some(value) = self.map.get("cells") else {
            return Err(format!("{}: missing field `cells`", self.at));
        };
        let Value::Array(items) = value else {
            return Err(format!(
                "{at}: expected a list of cells, got {}",
                shorten(&value.to_string())
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, cell)| match cell {
                Value::Object(one) if one.len() == 1 && one.contains_key("scenario") => {
                    scenario_of(&one["scenario"])
                        .map(Ok)
                        .map_err(|e| format!("{at}[{i}].scenario: {e}"))
                }
                Value::Object(one) if one.len() == 1 && one.contains_key("refused") => {
                    LinkError::deserialize(&one["refused"])
                        .map(Err)
                        .map_err(|e| format!("{at}[{i}].refused: {e}"))
                }
                other => Err(format!(
                    "{at}[{i}]: expected {{\"scenario\": ...}} or {{\"refused\": ...}}, got {}",
                    shorten(&other.to_string())
                )),
            })
            .collect()
    }
}

/// A request's scenario: a built-in's name, or a scenario's JSON object,
/// which the page decoded and checked with lousa-core's strict parser
/// (`link::decode`, `Scenario::from_json`). The worker reads it with plain
/// serde, which refuses an unknown or missing field by name and a wrong
/// type with its position: read from pretty JSON, one field a line, the
/// refusal quotes that line. It is not validated here: the caller does.
pub fn scenario_of(value: &Value) -> Result<Scenario, String> {
    match value {
        Value::String(name) if name.contains(';') => Err(format!(
            "{:?} is a link, which the worker does not decode: send its scenario as JSON (lousa_core::link::decode makes it)",
            shorten(name)
        )),
        Value::String(name) => builtins::builtin(name).ok_or_else(|| {
            format!(
                "{:?} names no built-in; send a built-in's name ({}, ...) or a scenario as JSON",
                shorten(name),
                builtins::NAMES[..3].join(", ")
            )
        }),
        Value::Object(_) => {
            let text = serde_json::to_string_pretty(value).expect("a JSON value is text");
            serde_json::from_str(&text).map_err(|e| {
                let line = text
                    .lines()
                    .nth(e.line().saturating_sub(1))
                    .unwrap_or("")
                    .trim()
                    .trim_end_matches(',');
                if line.contains(':') {
                    format!(
                        "{e} of the scenario as pretty JSON, which reads {}",
                        shorten(line)
                    )
                } else {
                    format!("{e} of the scenario as pretty JSON")
                }
            })
        }
        other => Err(format!(
            "expected a built-in's name or a scenario as a JSON object, got {}",
            shorten(&other.to_string())
        )),
    }
}

/// The first 40 characters of `text`, and an ellipsis if there were more.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The scenario, the explorer's options and the prefix a request asks
/// for, or why not.
pub fn prepare(
    request: &ExploreRequest,
) -> Result<(lousa_core::Scenario, explore::Options, Option<Schedule>), String> {
    let mut scenario = request.scenario.clone();
    if let Some(name) = &request.strategy {
        scenario.strategy = strategy_named("strategy", name)?;
    }
    let mut options = explore::Options::for_scenario(&scenario);
    options.max_states = request.max_states;
    options.symmetry = request.symmetry;
    options.unordered_ties = request.unordered_ties;
    // The explorer checks both again; checked here, a refusal comes before
    // any progress.
    scenario.validate().map_err(|e| e.to_string())?;
    options.validate().map_err(|e| e.to_string())?;
    let prefix = match &request.prefix {
        Some(text) => Some(
            text.parse::<Schedule>()
                .map_err(|e| format!("prefix: {e}"))?,
        ),
        None => None,
    };
    Ok((scenario, options, prefix))
}

/// The strategy `name` names, or the scenario parser's words for an
/// unknown one, at `field`.
fn strategy_named(field: &str, name: &str) -> Result<Strategy, String> {
    Strategy::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        format!(
            "{field}: unknown value {name:?} (expected one of: {})",
            names.join(", ")
        )
    })
}

/// The base scenario, the axes and the designs a sweep request asks for,
/// or why not. The scenario is checked under its own strategy first, as
/// `lousa sweep` loads it.
pub fn prepare_sweep(
    request: &SweepRequest,
) -> Result<(Scenario, Axis, Axis, Vec<Strategy>), String> {
    let scenario = request.scenario.clone();
    scenario.validate().map_err(|e| e.to_string())?;
    let x: Axis = request.x.parse().map_err(|e| format!("x: {e}"))?;
    let y: Axis = request.y.parse().map_err(|e| format!("y: {e}"))?;
    let strategies = match &request.strategies {
        None => sweep::default_strategies(&scenario),
        Some(names) => names
            .iter()
            .enumerate()
            .map(|(i, name)| strategy_named(&format!("strategies[{i}]"), name))
            .collect::<Result<_, _>>()?,
    };
    Ok((scenario, x, y, strategies))
}

fn run_sweep(
    request: &SweepRequest,
    clock: &mut dyn FnMut() -> f64,
    post: &mut dyn FnMut(Message),
) {
    let (scenario, x, y, strategies) = match prepare_sweep(request) {
        Ok(prepared) => prepared,
        Err(message) => return post(Message::Error { message }),
    };
    let start = clock();
    let mut posted = start;
    let result = sweep::sweep_cells(
        &scenario,
        &x,
        &y,
        &request.cells,
        &strategies,
        request.first_seed,
        request.seeds,
        &mut |p| {
            // The core's first call, before any run, gives the page the
            // total; after it, one post per interval at most.
            let now = clock();
            if p.runs_done == 0 || now - posted >= SWEEP_PROGRESS_EVERY_MS {
                posted = now;
                post(Message::SweepProgress(SweepFigures::new(
                    p.runs_done,
                    p.runs_total,
                    now - start,
                )));
            }
            ControlFlow::Continue(())
        },
    );
    match result {
        Ok(Some(report)) => {
            let runs = report
                .maps
                .iter()
                .flat_map(|m| &m.cells)
                .map(|c| c.runs)
                .sum();
            let figures = SweepFigures::new(runs, runs, clock() - start);
            post(Message::SweepDone(Box::new(SweepDone {
                report,
                runs,
                runs_per_s: figures.runs_per_s,
                elapsed_ms: figures.elapsed_ms,
            })));
        }
        Ok(None) => unreachable!("the worker never stops a sweep: the page terminates it"),
        // The core's words: the field (x, y, seeds, strategies or the
        // scenario's field every cell refused) and the limit.
        Err(e) => post(Message::Error {
            message: e.to_string(),
        }),
    }
}

/// The worker between requests: the graph of its last complete
/// exploration of a whole scenario, kept so that the counts on from a
/// prefix of it are read off the graph instead of explored again.
#[derive(Default)]
pub struct Worker {
    kept: Option<KeptGraph>,
}

impl Worker {
    /// Serves one request, given as JSON text, as [`serve`] does, answering
    /// a prefix of the exploration kept from its graph.
    pub fn serve(
        &mut self,
        text: &str,
        clock: &mut dyn FnMut() -> f64,
        post: &mut dyn FnMut(Message),
    ) {
        match parse(text) {
            Ok(Request::Explore(request)) => self.run_explore(&request, clock, post),
            Ok(Request::Sweep(request)) => run_sweep(&request, clock, post),
            Err(message) => post(Message::Error { message }),
        }
    }

    /// The states and transitions of the graph kept, if one is.
    pub fn kept(&self) -> Option<(u64, u64)> {
        self.kept.as_ref().map(KeptGraph::size)
    }

    fn run_explore(
        &mut self,
        request: &ExploreRequest,
        clock: &mut dyn FnMut() -> f64,
        post: &mut dyn FnMut(Message),
    ) {
        let (scenario, options, prefix) = match prepare(request) {
            Ok(prepared) => prepared,
            Err(message) => return post(Message::Error { message }),
        };
        let start = clock();
        let kept = self.kept.as_ref().filter(|k| k.is_of(&scenario, &options));
        if let (Some(kept), Some(prefix)) = (kept, &prefix) {
            match kept.from_prefix(prefix) {
                Ok(report) => return post(done(report, true, clock() - start)),
                // The words a fresh exploration refuses the prefix in.
                Err(NotKept::Prefix(e)) => {
                    return post(Message::Error {
                        message: e.to_string(),
                    });
                }
                // Not met by the kept search (a graph kept from a whole
                // exploration holds every state): explore anew.
                Err(NotKept::NotInGraph) => {}
            }
        }
        post(Message::Progress(Figures::new(0, 0, 0.0)));
        let mut progress = |p: &explore::Progress| {
            post(Message::Progress(Figures::new(
                p.states,
                p.transitions,
                clock() - start,
            )));
            ControlFlow::Continue(())
        };
        let result = match &prefix {
            Some(prefix) => explore::explore_from(&scenario, &options, prefix, &mut progress),
            None => {
                // The graph kept is freed before a new one is built.
                self.kept = None;
                explore::explore_keeping(&scenario, &options, &mut progress).map(
                    |(report, kept)| {
                        self.kept = kept;
                        report
                    },
                )
            }
        };
        match result {
            Ok(report) => post(done(report, false, clock() - start)),
            // Scenario validation and the options (max_states), in the core's words.
            Err(e) => post(Message::Error {
                message: e.to_string(),
            }),
        }
    }
}

/// Serves one request, given as JSON text: posts progress while it runs,
/// then `done` or `error`. `clock` reads wall time in milliseconds; only
/// differences between its readings matter. It keeps nothing: a host that
/// serves many requests serves them through one [`Worker`].
pub fn serve(text: &str, clock: &mut dyn FnMut() -> f64, post: &mut dyn FnMut(Message)) {
    Worker::default().serve(text, clock, post)
}

/// The `done` message of an exploration's `report`, `elapsed_ms` after
/// the request came.
fn done(report: Report, reused: bool, elapsed_ms: f64) -> Message {
    let figures = Figures::new(report.states, report.transitions, elapsed_ms);
    Message::Done(Box::new(Done {
        passed: report.passed(),
        failure: report.failure("max_states"),
        states_per_s: figures.states_per_s,
        elapsed_ms: figures.elapsed_ms,
        reused,
        report,
    }))
}

#[cfg(test)]
mod tests;
