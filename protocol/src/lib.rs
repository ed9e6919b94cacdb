//! The explorer's worker protocol, defined once: the requests a page posts
//! to `lousa-worker` ([`Request`]) and the messages the worker posts back
//! ([`Message`]), as serde types that the worker and the workshop both use,
//! so that neither side keeps a copy of the other's. The reports inside are
//! lousa-core's own (`explore::Report`, `sweep::SweepReport`), which read
//! back as they are written.
//!
//! A crate of its own rather than a module of lousa-core: the protocol is
//! the contract between two front ends, not part of the simulation. It
//! holds types, their JSON and the request reader, nothing heavier: the
//! worker's wasm links what the worker calls of it, and what only a page
//! calls (`SweepRequest::new`, which runs the strict scenario parser)
//! stays out of that wasm.
//!
//! # Protocol
//!
//! Messages are JSON objects with one key, which names the message. The page
//! may post them as JSON text or as objects (structured clones of JSON
//! values, which the worker writes as text first); the worker posts JSON
//! text, which a page reads with `JSON.parse` or, in Rust, as a [`Message`].
//!
//! **Worker to page, first:** `{"ready": {"states_default": 5000000,
//! "states_max": 50000000}}` once it listens (the explorer's default and
//! largest `max_states`: a page that shows the limit reads it here rather
//! than writing it a second time). A request posted before `ready` may be lost while
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
//! * `reduction` (`none`, `symmetry` or `por`; default `symmetry`): how
//!   much the explorer reduces, as `lousa explore --reduction` takes it.
//!   Under `por` the report's `schedules_counted` is false and its schedule
//!   figures are 0: it gives outcomes, verdicts and shortest examples (in
//!   steps), not counts. Answers from the graph kept (below) follow suit.
//! * `symmetry` (default `true`), `unordered_ties` (default `false`): the
//!   explorer's reductions one by one, as `lousa explore` has them
//!   (`--no-symmetry`, `--unordered-ties`). `symmetry` and `reduction`
//!   are not given together.
//! * `max_states` (default 5,000,000, at most 50,000,000): reaching it ends
//!   the run with the status `state-limit`.
//! * `prefix`: a schedule (`0-1x6`, as `lousa run --schedule` takes it).
//!   The run replays it and the counts are of the schedules on from there
//!   (the workshop's "from here"); example schedules include it. A prefix
//!   that does not fit the scenario, or stops inside a step, is refused.
//! * `design`: a design (`lousa designs <name> --format json`, lousa-core's
//!   `design::Design`) the scenario's HTTP jobs run as, in place of the
//!   strategy's handler (issue #31). The worker checks it as
//!   `lousa explore --design` does and refuses it by field path
//!   (`design: steps[2].on[0].goto: ...`); the properties explored are the
//!   ones the design claims.
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
//! * `design`: a design (as an explore request's) that every cell's HTTP
//!   jobs run as, as `lousa sweep --design` does: one heatmap, under the
//!   scenario's strategy. Not given with `strategies`.
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
//! and the total) and then at most every `lousa_worker::SWEEP_PROGRESS_EVERY_MS` (50 ms) of
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

mod message;
mod request;

pub use message::{Done, Figures, Message, Ready, SweepDone, SweepFigures, SweepMessage};
pub use request::{ExploreRequest, Request, SweepRequest, scenario_of};

#[cfg(test)]
mod tests;
