//! A sweep: one scenario over a grid of two of its fields (say the client's
//! timeout by the acquirer's latency), each cell run under several designs
//! and seeds, counting the runs that charged twice. The workshop draws it as
//! one heatmap per design; a cell's representative seed opens that run.
//!
//! An axis names a field by a link's dotted path (`clients.0.timeout_ms`,
//! see [`crate::link`]) and lists its values, so any field a scenario has
//! can be swept and a bad value is refused as an edit would be. Within a
//! cell only the run's own choices vary with the seed (network jitter, a
//! random load balancer): a scenario without them gives each cell all or
//! none.

use crate::choice::RngChooser;
use crate::link::{self, LinkError};
use crate::run;
use crate::scenario::{Scenario, Strategy};
use crate::text::counted;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::ops::ControlFlow;
use std::str::FromStr;

/// Bounds on a sweep, so that none can hang a browser tab.
pub mod limits {
    /// Values on one axis.
    pub const VALUES_MAX: usize = 16;
    /// Runs in one sweep: cells x designs x seeds.
    pub const RUNS_MAX: u64 = 100_000;
}

/// One axis: a field and the values it takes, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Axis {
    pub path: String,
    pub values: Vec<Value>,
}

/// Why a sweep was refused before it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepError {
    /// What was wrong: `x`, `y`, `strategies`, `seeds`, or the scenario's
    /// field that every cell refused.
    pub field: String,
    pub message: String,
}

impl fmt::Display for SweepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for SweepError {}

fn refuse(field: &str, message: String) -> SweepError {
    SweepError {
        field: field.into(),
        message,
    }
}

impl FromStr for Axis {
    type Err = String;

    /// `path=v1,v2,...` (each a JSON value), or `path=from..to:n` for `n`
    /// whole numbers spread evenly from `from` to `to`, both included.
    fn from_str(text: &str) -> Result<Axis, String> {
        let Some((path, values)) = text.split_once('=') else {
            return Err(format!(
                "{text:?} is not an axis; write path=v1,v2,... or path=from..to:n"
            ));
        };
        let values = match values.split_once("..") {
            Some((from, rest)) => range(from, rest)?,
            None => values
                .split(',')
                .map(|v| serde_json::from_str(v).map_err(|_| format!("{v:?} is not a JSON value")))
                .collect::<Result<Vec<Value>, String>>()?,
        };
        let axis = Axis {
            path: path.to_string(),
            values,
        };
        axis.check()?;
        Ok(axis)
    }
}

impl Axis {
    /// Refuses what the sweep cannot draw: no values, more than
    /// `limits::VALUES_MAX`, or a value given twice (two columns alike,
    /// whose runs would be counted twice).
    pub fn check(&self) -> Result<(), String> {
        let n = self.values.len();
        if n == 0 || n > limits::VALUES_MAX {
            return Err(format!("{n} values are outside 1..={}", limits::VALUES_MAX));
        }
        for (i, v) in self.values.iter().enumerate() {
            if self.values[..i].contains(v) {
                return Err(format!(
                    "{v} appears twice: each value is a column or a row of its own"
                ));
            }
        }
        Ok(())
    }
}

/// `from..to:n`: `n` whole numbers from `from` to `to`, evenly spread.
fn range(from: &str, rest: &str) -> Result<Vec<Value>, String> {
    let number = |t: &str| {
        t.parse::<u64>()
            .map_err(|_| format!("{t:?} is not a whole number"))
    };
    let (to, n) = rest
        .split_once(':')
        .ok_or_else(|| "a range needs a count: from..to:n".to_string())?;
    let (from, to, n) = (number(from)?, number(to)?, number(n)?);
    if from > to {
        return Err(format!("the range {from}..{to} runs backwards"));
    }
    if n == 0 || n > limits::VALUES_MAX as u64 {
        return Err(format!("{n} values are outside 1..={}", limits::VALUES_MAX));
    }
    let whole = u128::from(to - from) + 1;
    if u128::from(n) > whole {
        return Err(format!(
            "the range {from}..{to} holds only {whole} whole numbers, fewer than the {n} asked"
        ));
    }
    if n == 1 {
        return Ok(vec![Value::from(from)]);
    }
    // Whole steps from `from`, the last one exactly `to`: u128 cannot overflow.
    Ok((0..n)
        .map(|i| {
            let at = u128::from(from) + u128::from(to - from) * u128::from(i) / u128::from(n - 1);
            Value::from(at as u64)
        })
        .collect())
}

/// One cell of one heatmap.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// Indexes into the x and y axes' values.
    pub x: usize,
    pub y: usize,
    pub runs: u64,
    pub double_charged: u64,
    /// A seed whose run double charged, if any did; else the first seed.
    pub representative_seed: u64,
    /// The scenario of this cell as a link, to open it.
    pub link: Option<String>,
    /// Why this cell's scenario cannot run (then it has no runs).
    pub refused: Option<String>,
}

/// The cells of one design, row by row (y), each row along x.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heatmap {
    pub strategy: Strategy,
    pub cells: Vec<Cell>,
}

impl Heatmap {
    pub fn cell(&self, x: usize, y: usize, width: usize) -> &Cell {
        &self.cells[y * width + x]
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepReport {
    pub scenario: String,
    pub x: Axis,
    pub y: Axis,
    pub first_seed: u64,
    pub seeds: u64,
    pub maps: Vec<Heatmap>,
}

/// How far a sweep has gone, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub runs_done: u64,
    pub runs_total: u64,
}

/// The designs a sweep compares when none are named: the scenario's own
/// and `idempotency-key`, the one the story recommends (once if they are the
/// same). `lousa sweep` and the worker both default to these.
pub fn default_strategies(base: &Scenario) -> Vec<Strategy> {
    let mut two = vec![base.strategy];
    if base.strategy != Strategy::IdempotencyKey {
        two.push(Strategy::IdempotencyKey);
    }
    two
}

/// The scenarios of a sweep's cells, row by row (y), each row along x:
/// `base` with the two axes' values set as a link's edits would set them
/// (`link::edit`, the strict scenario parser), or why that cell's scenario
/// cannot be made. Each cell is checked again, under each design, when it
/// runs.
pub fn cells(base: &Scenario, x: &Axis, y: &Axis) -> Vec<Result<Scenario, LinkError>> {
    let mut grid = Vec::with_capacity(x.values.len() * y.values.len());
    for yv in &y.values {
        for xv in &x.values {
            grid.push(link::edit(
                base,
                &[(&x.path, xv.clone()), (&y.path, yv.clone())],
            ));
        }
    }
    grid
}

/// Runs the sweep. `progress` hears once the sweep is checked (no run done
/// yet, and the total) and then after every run (a refused cell's runs
/// count as done at once), so that a host can report on time even when one
/// cell holds many seeds; it may stop the sweep (then the result is
/// `Ok(None)`).
pub fn sweep(
    base: &Scenario,
    x: &Axis,
    y: &Axis,
    strategies: &[Strategy],
    first_seed: u64,
    seeds: u64,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Option<SweepReport>, SweepError> {
    let grid = cells(base, x, y);
    sweep_cells(base, x, y, &grid, strategies, first_seed, seeds, progress)
}

/// Whether setting one path sets the other too: the same field, or one
/// inside the other (`clients.0` and `clients.0.timeout_ms`).
fn overlaps(a: &str, b: &str) -> bool {
    let inside = |outer: &str, inner: &str| {
        inner
            .strip_prefix(outer)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    };
    inside(a, b) || inside(b, a)
}

/// [`sweep`] over cells made already, by [`cells`] (here or in another
/// host): the explorer's worker runs the cells the page made, so that it
/// carries no strict scenario parser. `grid` holds one cell per pair of
/// values, in [`cells`]' order.
#[allow(clippy::too_many_arguments)]
pub fn sweep_cells(
    base: &Scenario,
    x: &Axis,
    y: &Axis,
    grid: &[Result<Scenario, LinkError>],
    strategies: &[Strategy],
    first_seed: u64,
    seeds: u64,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Option<SweepReport>, SweepError> {
    if strategies.is_empty() {
        return Err(refuse("strategies", "at least one design is needed".into()));
    }
    x.check().map_err(|m| refuse("x", m))?;
    y.check().map_err(|m| refuse("y", m))?;
    if overlaps(&x.path, &y.path) {
        return Err(refuse(
            "y",
            format!(
                "{} and {} are the same field: y would overwrite x in every cell",
                x.path, y.path
            ),
        ));
    }
    if first_seed.checked_add(seeds.saturating_sub(1)).is_none() {
        return Err(refuse(
            "seeds",
            format!(
                "{first_seed} + {seeds} seeds run past the largest seed, {}",
                u64::MAX
            ),
        ));
    }
    let cells = (x.values.len() * y.values.len()) as u64;
    let runs_total = cells * strategies.len() as u64 * seeds;
    if seeds == 0 || runs_total > limits::RUNS_MAX {
        return Err(refuse(
            "seeds",
            format!(
                "{} x {} x {} = {}, outside 1..={}",
                counted(cells, "cell", "cells"),
                counted(strategies.len() as u64, "design", "designs"),
                counted(seeds, "seed", "seeds"),
                counted(runs_total, "run", "runs"),
                limits::RUNS_MAX
            ),
        ));
    }
    if grid.len() as u64 != cells {
        return Err(refuse(
            "cells",
            format!(
                "{} cells, but the axes make {cells} ({} x {})",
                grid.len(),
                x.values.len(),
                y.values.len()
            ),
        ));
    }
    if let Some(Err(e)) = grid.first()
        && grid.iter().all(Result::is_err)
    {
        return Err(refuse(
            &e.field,
            format!("every cell is refused: {}", e.message),
        ));
    }
    let mut report = SweepReport {
        scenario: base.name.clone(),
        x: x.clone(),
        y: y.clone(),
        first_seed,
        seeds,
        maps: Vec::new(),
    };
    let mut done = 0;
    if progress(Progress {
        runs_done: 0,
        runs_total,
    })
    .is_break()
    {
        return Ok(None);
    }
    for &strategy in strategies {
        let mut map = Heatmap {
            strategy,
            cells: Vec::new(),
        };
        for (i, cell) in grid.iter().enumerate() {
            let (xi, yi) = (i % x.values.len(), i / x.values.len());
            let mut out = Cell {
                x: xi,
                y: yi,
                runs: 0,
                double_charged: 0,
                representative_seed: first_seed,
                link: None,
                refused: None,
            };
            let scenario = cell.clone().and_then(|mut s| {
                s.strategy = strategy;
                s.validate().map(|()| s).map_err(|e| LinkError {
                    edit: 0,
                    field: e.field,
                    message: e.message,
                })
            });
            match scenario {
                Err(e) => {
                    out.refused = Some(e.to_string());
                    done += seeds;
                    if progress(Progress {
                        runs_done: done,
                        runs_total,
                    })
                    .is_break()
                    {
                        return Ok(None);
                    }
                }
                Ok(mut s) => {
                    out.link = link::encode(&base.name, &s);
                    for seed in first_seed..first_seed + seeds {
                        s.seed = seed;
                        let summary = run::outcome_with(&s, &mut RngChooser::new(seed));
                        let double = !summary.double_charged_intents.is_empty();
                        if double && out.double_charged == 0 {
                            out.representative_seed = seed;
                        }
                        out.runs += 1;
                        out.double_charged += u64::from(double);
                        done += 1;
                        if progress(Progress {
                            runs_done: done,
                            runs_total,
                        })
                        .is_break()
                        {
                            return Ok(None);
                        }
                    }
                }
            }
            map.cells.push(out);
        }
        report.maps.push(map);
    }
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::builtin;

    fn axis(text: &str) -> Axis {
        text.parse().unwrap()
    }

    fn go(base: &Scenario, x: &str, y: &str, strategies: &[Strategy], seeds: u64) -> SweepReport {
        sweep(base, &axis(x), &axis(y), strategies, 1, seeds, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap()
        .unwrap()
    }

    #[test]
    fn axes_read_lists_and_ranges() {
        assert_eq!(
            axis("clients.0.timeout_ms=500..4000:8").values,
            [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000].map(Value::from)
        );
        assert_eq!(axis("instances=1,2,3").values, [1, 2, 3].map(Value::from));
        assert_eq!(
            axis("load_balancer=\"random\",\"round-robin\"")
                .values
                .len(),
            2
        );
        let refusals = [
            ("instances", "not an axis"),
            ("instances=1..4", "needs a count"),
            ("instances=4..1:2", "runs backwards"),
            ("instances=1..9:17", "17 values are outside 1..=16"),
            ("instances=a", "\"a\" is not a JSON value"),
            (
                "instances=1,2,1",
                "1 appears twice: each value is a column or a row of its own",
            ),
            (
                "instances=1..3:8",
                "the range 1..3 holds only 3 whole numbers, fewer than the 8 asked",
            ),
        ];
        for (text, expected) in refusals {
            let e = text.parse::<Axis>().unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        }
    }

    #[test]
    fn the_timeout_by_latency_map_charges_twice_only_where_the_client_gives_up_first() {
        let base = builtin("timeout-retry").unwrap();
        let report = go(
            &base,
            "clients.0.timeout_ms=1000,4000",
            "acquirer.latency_ms=500,3000",
            &[Strategy::CheckThenAct, Strategy::IdempotencyKey],
            2,
        );
        let [cta_map, key_map] = &report.maps[..] else {
            panic!("two maps");
        };
        let doubles =
            |m: &Heatmap| -> Vec<u64> { m.cells.iter().map(|c| c.double_charged).collect() };
        // Row y = 500 ms: the acquirer answers before any timeout. Row y =
        // 3000 ms: only the 1 s timeout retries while the capture is on its way.
        assert_eq!(doubles(cta_map), [0, 0, 2, 0]);
        assert_eq!(doubles(key_map), [0, 0, 0, 0]);
        let hot = cta_map.cell(0, 1, 2);
        assert_eq!(hot.runs, 2);
        let link = hot.link.as_deref().unwrap();
        let opened = link::decode(link).unwrap();
        assert_eq!(opened.clients[0].timeout_ms, 1000);
        assert_eq!(opened.acquirer.latency_ms, 3000);
    }

    #[test]
    fn axes_on_one_field_are_refused() {
        let base = builtin("timeout-retry").unwrap();
        let run = |x: &str, y: &str| {
            sweep(
                &base,
                &axis(x),
                &axis(y),
                &[Strategy::CheckThenAct],
                1,
                1,
                &mut |_| ControlFlow::Continue(()),
            )
        };
        for (x, y) in [
            ("clients.0.timeout_ms=1,2", "clients.0.timeout_ms=3000,4000"),
            ("clients.0.timeout_ms=1,2", "clients.0={}"),
        ] {
            let e = run(x, y).unwrap_err();
            assert_eq!(e.field, "y", "{x} {y}");
            assert!(e.message.contains("the same field"), "{e:?}");
        }
        // A field whose name starts as the other's does is another field.
        assert!(
            run("clients.0.timeout_ms=1,2", "clients.0.timeout_ms_x=1")
                .is_err_and(|e| e.field != "y")
        );
        assert!(
            run(
                "clients.0.timeout_ms=500,1000",
                "clients.1.timeout_ms=500,1000"
            )
            .is_ok()
        );
    }

    #[test]
    fn a_cell_that_cannot_run_says_why_and_the_others_run() {
        let base = builtin("timeout-retry").unwrap();
        let report = go(
            &base,
            "instances=1,99",
            "seed=1",
            &[Strategy::CheckThenAct],
            1,
        );
        let cells = &report.maps[0].cells;
        assert_eq!(cells[0].runs, 1);
        assert_eq!(cells[1].runs, 0);
        assert_eq!(
            cells[1].refused.as_deref(),
            Some("edit 1, instances: 99 is outside 1..=8")
        );
    }

    #[test]
    fn refusals_come_before_any_run() {
        let base = builtin("timeout-retry").unwrap();
        let run = |x: &str, strategies: &[Strategy], seeds| {
            sweep(
                &base,
                &axis(x),
                &axis("seed=1"),
                strategies,
                0,
                seeds,
                &mut |_| ControlFlow::Continue(()),
            )
            .unwrap_err()
            .to_string()
        };
        let unknown = run("retry_max=1,2", &[Strategy::CheckThenAct], 1);
        assert!(
            unknown.starts_with(
                "scenario: every cell is refused: unknown field \"retry_max\" (expected one of: name, title,"
            ),
            "{unknown}"
        );
        assert_eq!(
            run("instances=1,2", &[], 1),
            "strategies: at least one design is needed"
        );
        assert_eq!(
            run("instances=1,2", &[Strategy::CheckThenAct], 60_000),
            "seeds: 2 cells x 1 design x 60000 seeds = 120000 runs, outside 1..=100000"
        );
        assert_eq!(
            run("instances=2", &[Strategy::CheckThenAct], 0),
            "seeds: 1 cell x 1 design x 0 seeds = 0 runs, outside 1..=100000"
        );
        // Axes made elsewhere (the worker's are JSON) are held to what the
        // text reader holds them to.
        let made = |values: Vec<Value>| Axis {
            path: "instances".into(),
            values,
        };
        let refused = |x: Axis| {
            sweep(
                &base,
                &x,
                &axis("seed=1"),
                &[Strategy::CheckThenAct],
                0,
                1,
                &mut |_| ControlFlow::Continue(()),
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            refused(made(vec![1.into(), 2.into(), 2.into()])),
            "x: 2 appears twice: each value is a column or a row of its own"
        );
        assert_eq!(refused(made(vec![])), "x: 0 values are outside 1..=16");
        assert_eq!(
            refused(made((1..=17).map(Value::from).collect())),
            "x: 17 values are outside 1..=16"
        );
    }

    #[test]
    fn progress_is_heard_after_every_run_and_can_stop_the_sweep() {
        let base = builtin("timeout-retry").unwrap();
        let mut heard = Vec::new();
        let result = sweep(
            &base,
            &axis("instances=1,2,3"),
            &axis("seed=1"),
            &[Strategy::CheckThenAct],
            0,
            2,
            &mut |p| {
                heard.push((p.runs_done, p.runs_total));
                if p.runs_done == 3 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        );
        assert_eq!(result, Ok(None));
        assert_eq!(heard, [(0, 6), (1, 6), (2, 6), (3, 6)]);
    }

    #[test]
    fn the_default_designs_are_the_scenarios_own_and_the_key() {
        let mut base = builtin("race-2").unwrap();
        base.strategy = Strategy::Naive;
        assert_eq!(
            default_strategies(&base),
            [Strategy::Naive, Strategy::IdempotencyKey]
        );
        base.strategy = Strategy::IdempotencyKey;
        assert_eq!(default_strategies(&base), [Strategy::IdempotencyKey]);
    }

    #[test]
    fn a_refused_cell_counts_its_runs_as_done_at_once() {
        let base = builtin("timeout-retry").unwrap();
        let mut heard = Vec::new();
        sweep(
            &base,
            &axis("instances=99,1"),
            &axis("seed=1"),
            &[Strategy::CheckThenAct],
            0,
            3,
            &mut |p| {
                heard.push(p.runs_done);
                ControlFlow::Continue(())
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(heard, [0, 3, 4, 5, 6]);
    }

    #[test]
    fn cells_made_elsewhere_sweep_as_the_sweep_makes_them() {
        let base = builtin("timeout-retry").unwrap();
        let (x, y) = (
            axis("instances=1,99"),
            axis("clients.0.timeout_ms=1000,4000"),
        );
        let grid = cells(&base, &x, &y);
        assert_eq!(grid.len(), 4);
        // As JSON and back, as the page hands them to the worker.
        let json = serde_json::to_string(&grid).unwrap();
        let back: Vec<Result<Scenario, LinkError>> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, grid);
        let designs = [Strategy::CheckThenAct, Strategy::IdempotencyKey];
        let run = |grid: &[Result<Scenario, LinkError>]| {
            sweep_cells(&base, &x, &y, grid, &designs, 0, 2, &mut |_| {
                ControlFlow::Continue(())
            })
        };
        assert_eq!(
            run(&back).unwrap(),
            sweep(&base, &x, &y, &designs, 0, 2, &mut |_| {
                ControlFlow::Continue(())
            })
            .unwrap()
        );
        assert_eq!(
            run(&back[..3]).unwrap_err().to_string(),
            "cells: 3 cells, but the axes make 4 (2 x 2)"
        );
    }
}
