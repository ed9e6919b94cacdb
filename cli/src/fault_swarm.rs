//! `lousa swarm <scenario|all> --faults`: the fault swarm's command line
//! over `lousa_core::fault_swarm`: the targets, progress on stderr about
//! once a second, Ctrl-C to stop with the partial report, and an exit
//! status that fails when a claimed property broke.

use crate::Format;
use lousa_core::fault_swarm::{self, FaultSwarmReport, Target};
use lousa_core::text::counted;
use lousa_core::{Strategy, builtins};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Seeds a `--faults` swarm runs when `--seeds` is not given.
pub const SEEDS_DEFAULT: u64 = 100;

pub struct Args<'a> {
    pub scenario: &'a str,
    pub strategy: Option<&'a str>,
    /// A design to run every target's HTTP jobs as, under the target's own
    /// strategy (or `--strategy`'s).
    pub design: Option<&'a str>,
    pub seeds: Option<u64>,
    pub first_seed: u64,
    pub format: Format,
}

/// The targets `scenario` names: every built-in for `all`, else the one
/// scenario (a built-in, a link, or JSON whose name is a built-in's), each
/// under its designs or under `--strategy` alone.
fn targets(scenario: &str, strategy: Option<&str>) -> Result<Vec<Target>, String> {
    let only = strategy
        .map(|name| {
            Strategy::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                format!(
                    "--strategy: unknown strategy {name:?}; choose one of {}",
                    names.join(", ")
                )
            })
        })
        .transpose()?;
    let mut targets = if scenario == "all" {
        fault_swarm::all_targets()
    } else {
        let s = crate::load(scenario, None, None)?;
        let base = scenario.split(';').next().unwrap_or(scenario);
        let base = if builtins::builtin(base).is_some() {
            base.to_string()
        } else if builtins::builtin(&s.name).is_some() {
            s.name.clone()
        } else {
            return Err(format!(
                "scenario: the scenario's name {:?} names no built-in to start its links from",
                s.name
            ));
        };
        vec![Target {
            base,
            strategies: fault_swarm::designs_for(&s),
            scenario: s,
        }]
    };
    if let Some(only) = only {
        for t in &mut targets {
            t.strategies = if scenario == "all" {
                t.strategies
                    .iter()
                    .copied()
                    .filter(|s| *s == only)
                    .collect()
            } else {
                vec![only]
            };
        }
        targets.retain(|t| !t.strategies.is_empty());
    }
    Ok(targets)
}

pub fn execute(args: Args) -> Result<(), String> {
    let seeds = args.seeds.unwrap_or(SEEDS_DEFAULT);
    if seeds == 0 || seeds > fault_swarm::limits::SEEDS_MAX {
        return Err(format!(
            "--seeds: {seeds} is outside 1..={}",
            fault_swarm::limits::SEEDS_MAX
        ));
    }
    let mut targets = targets(args.scenario, args.strategy)?;
    if let Some(arg) = args.design {
        let program = Arc::new(crate::designs::load(arg).map_err(|e| format!("--design: {e}"))?);
        // A design serves HTTP requests or a queue's deliveries: the
        // targets whose clients it would not serve are left out.
        targets.retain(|t| lousa_core::handler::check_runs_on(&t.scenario, &program).is_ok());
        for t in &mut targets {
            let strategy = match args.strategy {
                Some(_) => t.strategies[0],
                None => t.scenario.strategy,
            };
            t.scenario.design = Some(program.clone());
            t.strategies = vec![strategy];
        }
    }
    let design = args.design;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // The first Ctrl-C stops the swarm, which then prints what it ran; a
    // second quits at once.
    ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nstopping: the report of the runs so far follows (Ctrl-C again quits)");
    })
    .map_err(|e| format!("cannot catch Ctrl-C: {e}"))?;
    let started = Instant::now();
    let mut shown = Instant::now();
    let report = fault_swarm::fault_swarm(
        &targets,
        args.first_seed,
        seeds,
        &|| stop.load(Ordering::Relaxed),
        &mut |p| {
            if shown.elapsed() >= Duration::from_secs(1) {
                shown = Instant::now();
                let secs = started.elapsed().as_secs_f64();
                eprintln!(
                    "swarm: {} of {} runs, {} violations, {:.0} runs/s",
                    p.runs_done,
                    p.runs_total,
                    p.violations,
                    p.runs_done as f64 / secs.max(1e-9)
                );
            }
        },
    )
    .map_err(|e| format!("--{}: {}", e.field.replace('_', "-"), e.message))?;
    let secs = started.elapsed().as_secs_f64();
    match args.format {
        Format::Json => {
            let mut v = serde_json::to_value(&report).expect("the report serializes");
            v["violations_total"] = report.violations_total().into();
            v["seconds"] = secs.into();
            for (out, x) in v["violations"]
                .as_array_mut()
                .expect("violations is a list")
                .iter_mut()
                .zip(&report.violations)
            {
                out["reproduce"] = reproduce(&x.link, design).into();
                if let Some(s) = &x.shrunk {
                    out["shrunk"]["reproduce"] = reproduce(&s.link, design).into();
                }
            }
            outln!(
                "{}",
                serde_json::to_string_pretty(&v).expect("the report serializes")
            );
        }
        Format::Text => print(&targets, &report, secs, design),
    }
    if report.violations_total() > 0 {
        return Err(format!(
            "{} violations of claimed properties in {} of {} runs",
            report.violations_total(),
            report.violating_runs,
            report.runs
        ));
    }
    if report.stopped {
        return Err(format!(
            "stopped after {} of {} runs",
            report.runs, report.runs_planned
        ));
    }
    Ok(())
}

/// The command that replays a link (under the design, if one ran), quoted
/// for a POSIX shell.
fn reproduce(link: &str, design: Option<&str>) -> String {
    let quote = |t: &str| format!("'{}'", t.replace('\'', r"'\''"));
    match design {
        Some(d) => format!("lousa run {} --design {}", quote(link), quote(d)),
        None => format!("lousa run {}", quote(link)),
    }
}

fn print(targets: &[Target], r: &FaultSwarmReport, secs: f64, design: Option<&str>) {
    let designs = fault_swarm::runs_per_seed(targets);
    outln!(
        "fault swarm: {}, {} per seed, seeds {}..={}",
        counted(targets.len() as u64, "scenario", "scenarios"),
        counted(designs as u64, "run", "runs"),
        r.first_seed,
        r.first_seed + r.seeds - 1
    );
    outln!(
        "runs: {} of {}{} in {secs:.1} s ({:.0} runs/s)",
        r.runs,
        r.runs_planned,
        if r.stopped { ", stopped" } else { "" },
        r.runs as f64 / secs.max(1e-9)
    );
    outln!(
        "violations of claimed properties: {} in {} runs, {} distinct",
        r.violations_total(),
        r.violating_runs,
        r.violations.len()
    );
    outln!();
    outln!("{:<58} {:>9} {:>9}", "property", "checked", "violated");
    for p in &r.properties {
        outln!("{:<58} {:>9} {:>9}", p.property, p.checked, p.violated);
    }
    for (i, v) in r.violations.iter().enumerate() {
        outln!();
        outln!(
            "violation {}: {} under {} in {}, first at seed {} ({} run{})",
            i + 1,
            v.property,
            design.map_or_else(|| v.strategy.to_string(), |d| format!("design {d}")),
            v.base,
            v.seed,
            v.runs,
            if v.runs == 1 { "" } else { "s" }
        );
        outln!("  {}", v.detail);
        outln!(
            "  reproduce ({} faults): {}",
            v.faults,
            reproduce(&v.link, design)
        );
        match &v.shrunk {
            Some(s) => {
                outln!(
                    "  shrunk ({}, {}): {}",
                    counted(s.faults as u64, "fault", "faults"),
                    counted(s.replays as u64, "replay", "replays"),
                    reproduce(&s.link, design)
                );
                outln!("    {}", s.detail);
            }
            None => outln!("  not shrunk"),
        }
    }
}
