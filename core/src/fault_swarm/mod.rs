//! The fault swarm (issue #29), in the spirit of TigerBeetle's VOPR: per
//! seed, each target scenario draws faults and timings (`draw`), each design
//! that makes sense for it runs the drawn scenario, and every *always*
//! property the design claims there (`explore::properties_for_scenario`,
//! which already leaves out the charge properties under the fault classes
//! `explore::unsafe_under` names for it) is checked. A violation is kept
//! with its seed, the scenario link that reproduces it with `lousa run`,
//! and a shrunk link (`shrink`).
//!
//! A pure function of (targets, seeds): no clock, no global RNG. The caller
//! passes a stop callback, asked before every run and every shrinking
//! replay, and a progress callback, told after every run; a stopped swarm
//! still reports what it ran.

mod draw;
mod shrink;
#[cfg(test)]
mod tests;

pub use draw::{FAULTS_DRAWN_MAX, draw};
pub use shrink::{Shrunk, shrink};

use crate::builtins;
use crate::choice::RngChooser;
use crate::explore::{Modality, properties_for_scenario};
use crate::link;
use crate::property;
use crate::run;
use crate::scenario::{Scenario, ScenarioError, Strategy};
use serde::Serialize;

/// Bounds on a fault swarm.
pub mod limits {
    /// Seeds one swarm may run (each seed is a run per target and design).
    pub const SEEDS_MAX: u64 = 1_000_000;
    /// Distinct violations shrunk; past this they are counted, not shrunk.
    pub const SHRUNK_MAX: usize = 32;
    /// Replays the shrinker may spend on one violation.
    pub const SHRINK_REPLAYS_MAX: u32 = 400;
}

/// A scenario to draw from, with the built-in its link starts from and the
/// designs to run it under.
#[derive(Clone, Debug)]
pub struct Target {
    /// The built-in the link names (`link::encode`'s base).
    pub base: String,
    pub scenario: Scenario,
    pub strategies: Vec<Strategy>,
}

/// The designs worth running `s` under. Options only one design reads make
/// the scenario that design's alone (`autocommit`: check-then-act; a
/// balance or an event: local-effect): under another it would be a copy of
/// a plainer built-in. `local-effect` has no acquirer, so a scenario whose
/// story is the acquirer's refusal is not run under it.
pub fn designs_for(s: &Scenario) -> Vec<Strategy> {
    use crate::scenario::EventDelivery;
    if s.autocommit {
        return vec![Strategy::CheckThenAct];
    }
    if s.balance.is_some() || s.event != EventDelivery::None {
        return vec![Strategy::LocalEffect];
    }
    let declines = s.acquirer.decline
        || s.faults
            .iter()
            .any(|f| matches!(f, crate::scenario::Fault::AcquirerDeclines { .. }));
    Strategy::ALL
        .into_iter()
        .filter(|st| !(declines && *st == Strategy::LocalEffect))
        .collect()
}

/// One target per built-in (`builtins::NAMES`), each under its designs.
pub fn all_targets() -> Vec<Target> {
    builtins::all()
        .into_iter()
        .map(|s| Target {
            base: s.name.clone(),
            strategies: designs_for(&s),
            scenario: s,
        })
        .collect()
}

/// Runs one swarm does per seed.
pub fn runs_per_seed(targets: &[Target]) -> u64 {
    targets.iter().map(|t| t.strategies.len() as u64).sum()
}

/// How many runs checked a property there, and how many broke it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PropertyCount {
    pub property: &'static str,
    /// Runs whose design claimed it there.
    pub checked: u64,
    pub violated: u64,
}

/// One distinct violation: a property broken under a design in a target,
/// first found at `seed`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub property: &'static str,
    pub strategy: Strategy,
    pub base: String,
    pub seed: u64,
    /// Runs that broke it under this design and target.
    pub runs: u64,
    /// The property's own words on the first run.
    pub detail: String,
    /// `lousa run '<link>'` replays the run.
    pub link: String,
    pub faults: usize,
    /// The shrunk run's link, its faults and detail, when it was shrunk.
    pub shrunk: Option<ShrunkViolation>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShrunkViolation {
    pub link: String,
    pub faults: usize,
    pub detail: String,
    pub replays: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultSwarmReport {
    pub first_seed: u64,
    pub seeds: u64,
    /// Runs planned (seeds x designs x targets) and done.
    pub runs_planned: u64,
    pub runs: u64,
    /// The stop callback ended it before every planned run.
    pub stopped: bool,
    /// Runs that broke at least one claimed property.
    pub violating_runs: u64,
    /// Every *always* property, in `property::ALL`'s order.
    pub properties: Vec<PropertyCount>,
    pub violations: Vec<Violation>,
}

impl FaultSwarmReport {
    /// Claimed properties broken, counted per run and property.
    pub fn violations_total(&self) -> u64 {
        self.properties.iter().map(|p| p.violated).sum()
    }
}

/// What the swarm has done, told after every run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub runs_done: u64,
    pub runs_total: u64,
    pub violations: u64,
}

/// The claimed *always* properties `s` breaks, each with its words.
pub fn claimed_broken(s: &Scenario) -> Vec<(&'static str, String)> {
    let summary = run::outcome_with(s, &mut RngChooser::new(s.seed));
    let claims = properties_for_scenario(s);
    let mut out = Vec::new();
    for c in claims {
        if !c.required || c.property.modality != Modality::Always {
            continue;
        }
        if let Some(v) = summary.verdict(c.property.name)
            && !v.holds
        {
            out.push((c.property.name, v.detail.clone()));
        }
    }
    out
}

/// Checks `targets` over seeds `first_seed .. first_seed + seeds`.
pub fn fault_swarm(
    targets: &[Target],
    first_seed: u64,
    seeds: u64,
    stop: &dyn Fn() -> bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<FaultSwarmReport, ScenarioError> {
    let refuse = |field: &str, message: String| ScenarioError {
        field: field.into(),
        message,
    };
    if seeds == 0 || seeds > limits::SEEDS_MAX {
        return Err(refuse(
            "seeds",
            format!("{seeds} is outside 1..={}", limits::SEEDS_MAX),
        ));
    }
    if first_seed.checked_add(seeds - 1).is_none() {
        return Err(refuse(
            "first_seed",
            format!(
                "{first_seed} + {seeds} seeds run past the largest seed, {}",
                u64::MAX
            ),
        ));
    }
    for t in targets {
        t.scenario.validate()?;
        if builtins::builtin(&t.base).is_none() {
            return Err(refuse("scenario", format!("{:?} is no built-in", t.base)));
        }
    }
    let mut report = FaultSwarmReport {
        first_seed,
        seeds,
        runs_planned: seeds.saturating_mul(runs_per_seed(targets)),
        runs: 0,
        stopped: false,
        violating_runs: 0,
        properties: property::ALL
            .into_iter()
            .filter(|p| p.modality == Modality::Always)
            .map(|p| PropertyCount {
                property: p.name,
                checked: 0,
                violated: 0,
            })
            .collect(),
        violations: Vec::new(),
    };
    // The first violating scenario of each distinct violation, to shrink.
    let mut firsts: Vec<Scenario> = Vec::new();
    'seeds: for seed in first_seed..first_seed + seeds {
        for t in targets {
            let drawn = draw(&t.scenario, seed);
            for &strategy in &t.strategies {
                if stop() {
                    report.stopped = true;
                    break 'seeds;
                }
                let mut s = drawn.clone();
                s.strategy = strategy;
                check_one(t, &s, seed, &mut report, &mut firsts);
                report.runs += 1;
                progress(&Progress {
                    runs_done: report.runs,
                    runs_total: report.runs_planned,
                    violations: report.violations_total(),
                });
            }
        }
    }
    let shrinkable = report.violations.iter_mut().zip(&firsts);
    for (v, first) in shrinkable.take(limits::SHRUNK_MAX) {
        if stop() {
            break;
        }
        v.shrunk = shrink_one(&v.base, v.property, first, stop);
    }
    Ok(report)
}

/// Runs `s` and counts what it checked and broke into `report`.
fn check_one(
    t: &Target,
    s: &Scenario,
    seed: u64,
    report: &mut FaultSwarmReport,
    firsts: &mut Vec<Scenario>,
) {
    let summary = run::outcome_with(s, &mut RngChooser::new(s.seed));
    let mut broke = false;
    for c in properties_for_scenario(s) {
        if !c.required || c.property.modality != Modality::Always {
            continue;
        }
        let Some(v) = summary.verdict(c.property.name) else {
            continue;
        };
        let count = report
            .properties
            .iter_mut()
            .find(|p| p.property == c.property.name)
            .expect("every always property is counted");
        count.checked += 1;
        if v.holds {
            continue;
        }
        count.violated += 1;
        broke = true;
        let known = report.violations.iter_mut().find(|x| {
            x.property == c.property.name && x.strategy == s.strategy && x.base == t.base
        });
        if let Some(x) = known {
            x.runs += 1;
            continue;
        }
        report.violations.push(Violation {
            property: c.property.name,
            strategy: s.strategy,
            base: t.base.clone(),
            seed,
            runs: 1,
            detail: v.detail.clone(),
            link: link::encode(&t.base, s).expect("the base is a built-in"),
            faults: s.faults.len(),
            shrunk: None,
        });
        firsts.push(s.clone());
    }
    report.violating_runs += u64::from(broke);
}

/// The shrunk form of `first`, which breaks `property`, if it is one of
/// the first [`limits::SHRUNK_MAX`] violations.
fn shrink_one(
    base: &str,
    property: &'static str,
    first: &Scenario,
    stop: &dyn Fn() -> bool,
) -> Option<ShrunkViolation> {
    let mut breaks = |cand: &Scenario| claimed_broken(cand).iter().any(|(p, _)| *p == property);
    let from = crate::builtins::builtin(base)?;
    let shrunk = shrink(first, &from, limits::SHRINK_REPLAYS_MAX, stop, &mut breaks);
    let detail = claimed_broken(&shrunk.scenario)
        .into_iter()
        .find(|(p, _)| *p == property)
        .map(|(_, d)| d)?;
    Some(ShrunkViolation {
        link: link::encode(base, &shrunk.scenario)?,
        faults: shrunk.scenario.faults.len(),
        detail,
        replays: shrunk.replays,
    })
}
