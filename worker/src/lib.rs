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
//! worker.onmessage = (event) => {
//!   const data = JSON.parse(event.data);
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
//! The requests and messages are `lousa-protocol`'s types, documented
//! there: the page posts a request as JSON text (or as an object, which
//! the worker writes as text first), and the worker posts each message as
//! JSON text, `ready` first.
//!
//! Like the core, this crate reads no clock: the host passes one in
//! (`performance.now()` in the browser, `Instant` natively).

use lousa_core::design::Design;
use lousa_core::explore::{self, KeptGraph, NotKept, Report};
use lousa_core::sweep::{self, Axis};
use lousa_core::{Scenario, Schedule, Strategy};
pub use lousa_protocol::{
    Done, ExploreRequest, Figures, Message, Ready, Request, SweepDone, SweepFigures, SweepMessage,
    SweepRequest,
};
use serde::Serialize;
use std::ops::ControlFlow;

/// Seeds per cell when a sweep names none: `lousa sweep`'s default.
pub const SEEDS_DEFAULT: u64 = 10;

/// The least wall time between two progress messages of a sweep. The core
/// reports every run, far more often than a progress bar can show.
pub const SWEEP_PROGRESS_EVERY_MS: f64 = 50.0;

/// What the worker posts: an exploration's message or a sweep's. Its hosts
/// write each as the protocol's own JSON, one object with one key.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Posted {
    Explore(Message),
    Sweep(SweepMessage),
}

impl Posted {
    /// The first message, once the worker listens.
    pub fn ready() -> Posted {
        Posted::Explore(Message::Ready(Ready::now()))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a message is JSON")
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
    attach(&mut scenario, request.design.as_ref())?;
    // An option the request leaves out keeps the CLI's default.
    let mut options = explore::Options::for_scenario(&scenario);
    options.max_states = request.max_states.unwrap_or(options.max_states);
    options.symmetry = request.symmetry.unwrap_or(options.symmetry);
    if let Some(r) = request.reduction {
        options.set_reduction(r);
    }
    options.unordered_ties = request.unordered_ties.unwrap_or(options.unordered_ties);
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

/// `scenario` runs its HTTP jobs as `design`, once it checks; a refusal
/// names the design's field.
fn attach(scenario: &mut Scenario, design: Option<&Design>) -> Result<(), String> {
    if let Some(design) = design {
        let program =
            lousa_core::design::check(design.clone()).map_err(|e| format!("design: {e}"))?;
        scenario.design = Some(std::sync::Arc::new(program));
    }
    Ok(())
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
    let mut scenario = request.scenario.clone();
    scenario.validate().map_err(|e| e.to_string())?;
    let x: Axis = request.x.parse().map_err(|e| format!("x: {e}"))?;
    let y: Axis = request.y.parse().map_err(|e| format!("y: {e}"))?;
    if let Some(design) = &request.design {
        if request.strategies.is_some() {
            return Err(
                "request.sweep.strategies: give `design` or `strategies`, not both (a design is swept alone, under the scenario's strategy)"
                    .into(),
            );
        }
        attach(&mut scenario, Some(design))?;
        return Ok((scenario.clone(), x, y, vec![scenario.strategy]));
    }
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
    post: &mut dyn FnMut(SweepMessage),
) {
    let (scenario, x, y, strategies) = match prepare_sweep(request) {
        Ok(prepared) => prepared,
        Err(message) => return post(Message::Error { message }),
    };
    let (first_seed, seeds) = (
        request.first_seed.unwrap_or(0),
        request.seeds.unwrap_or(SEEDS_DEFAULT),
    );
    let start = clock();
    let mut posted = start;
    // A cell is made from the scenario's JSON, which carries no design:
    // each gets the base's again.
    let mut cells = request.cells.clone();
    for cell in cells.iter_mut().flatten() {
        cell.design = scenario.design.clone();
    }
    let result = sweep::sweep_cells(
        &scenario,
        &x,
        &y,
        &cells,
        &strategies,
        first_seed,
        seeds,
        &mut |p| {
            // The core's first call, before any run, gives the page the
            // total; after it, one post per interval at most.
            let now = clock();
            if p.runs_done == 0 || now - posted >= SWEEP_PROGRESS_EVERY_MS {
                posted = now;
                post(Message::Progress(SweepFigures::new(
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
            post(Message::Done(Box::new(SweepDone {
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
        post: &mut dyn FnMut(Posted),
    ) {
        match Request::parse(text) {
            Ok(Request::Explore(request)) => {
                self.run_explore(&request, clock, &mut |m| post(Posted::Explore(m)))
            }
            Ok(Request::Sweep(request)) => {
                run_sweep(&request, clock, &mut |m| post(Posted::Sweep(m)))
            }
            Err(message) => post(Posted::Explore(Message::Error { message })),
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
pub fn serve(text: &str, clock: &mut dyn FnMut() -> f64, post: &mut dyn FnMut(Posted)) {
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
