//! `lousa`: the terminal front end. Every command is a thin view over
//! `lousa-core`; bad input exits non-zero with the core's precise error.

use clap::{Parser, Subcommand, ValueEnum};
use lousa_core::narrate::{self, Lang};
use lousa_core::{Scenario, Schedule, Strategy, builtins, run};
use std::process::ExitCode;

/// Lousa: simulate duplicate charges on retry and the designs that prevent them.
#[derive(Parser)]
#[command(name = "lousa", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum LangArg {
    Pt,
    En,
}

#[derive(Subcommand)]
enum Command {
    /// List the built-in scenarios.
    Scenarios,
    /// Run a scenario and print its timeline and outcome.
    Run {
        /// A built-in name (see `lousa scenarios`) or a path to scenario JSON.
        scenario: String,
        /// Override the scenario's strategy (naive, check-then-act, idempotency-key, ...).
        #[arg(long)]
        strategy: Option<String>,
        /// Override the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Replay this schedule instead of drawing choices from the seed.
        #[arg(long)]
        schedule: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[arg(long, value_enum, default_value = "en")]
        lang: LangArg,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A built-in by name, or scenario JSON from a file, with overrides applied.
pub fn load(name: &str, strategy: Option<&str>, seed: Option<u64>) -> Result<Scenario, String> {
    let mut s = match builtins::builtin(name) {
        Some(s) => s,
        None if name.ends_with(".json") || std::path::Path::new(name).exists() => {
            let text = std::fs::read_to_string(name).map_err(|e| format!("{name}: {e}"))?;
            Scenario::from_json(&text).map_err(|e| format!("{name}: {e}"))?
        }
        None => {
            return Err(format!(
                "scenario: unknown built-in {name:?}; built-ins are {}",
                builtins::NAMES.join(", ")
            ));
        }
    };
    if let Some(st) = strategy {
        s.strategy = Strategy::from_name(st).ok_or_else(|| {
            let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
            format!("--strategy: unknown strategy {st:?}; choose one of {}", names.join(", "))
        })?;
    }
    if let Some(seed) = seed {
        s.seed = seed;
    }
    s.validate().map_err(|e| e.to_string())?;
    Ok(s)
}

fn execute(cmd: Command) -> Result<(), String> {
    match cmd {
        Command::Scenarios => {
            for s in builtins::all() {
                println!("{:<30} {:<24} {}", s.name, s.strategy.name(), s.title.en);
            }
            Ok(())
        }
        Command::Run {
            scenario,
            strategy,
            seed,
            schedule,
            format,
            lang,
        } => {
            let s = load(&scenario, strategy.as_deref(), seed)?;
            let r = match schedule {
                Some(text) => {
                    let sched: Schedule = text.parse().map_err(|e| format!("--schedule: {e}"))?;
                    run::run_schedule(&s, &sched)
                }
                None => run(&s),
            }
            .map_err(|e| e.to_string())?;
            let lang = match lang {
                LangArg::Pt => Lang::Pt,
                LangArg::En => Lang::En,
            };
            match format {
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&run_json(&r)).expect("serializes")
                ),
                Format::Text => print_run(&s, &r, lang),
            }
            Ok(())
        }
    }
}

fn run_json(r: &lousa_core::Run) -> serde_json::Value {
    let events: Vec<&lousa_core::trace::TraceEvent> = r.events().map(|(_, e)| e).collect();
    serde_json::json!({
        "strategy": r.strategy.name(),
        "seed": r.seed,
        "schedule": r.schedule,
        "events": events,
        "summary": {
            "captures": r.summary.captures,
            "charged_cents": r.summary.charged_cents,
            "double_charged_intents": r.summary.double_charged_intents,
            "intents": r.summary.intents,
            "attempts": r.summary.attempts,
            "blocked_ms": r.summary.blocked_ms,
            "invariants": r.summary.invariants,
            "end": r.summary.end,
            "end_ms": r.summary.end_ms,
        },
    })
}

fn print_run(s: &Scenario, r: &lousa_core::Run, lang: Lang) {
    let title = match lang {
        Lang::Pt => &s.title.pt,
        Lang::En => &s.title.en,
    };
    println!("{} ({}) — strategy {}, seed {}", s.name, title, r.strategy, r.seed);
    for (_, e) in r.events() {
        println!("{}", narrate::line(e, lang));
    }
    let sm = &r.summary;
    println!();
    println!(
        "captures: {}   charged: {}   double-charged intents: {:?}   blocked: {} ms",
        sm.captures,
        narrate::amount(sm.charged_cents),
        sm.double_charged_intents,
        sm.blocked_ms
    );
    for a in &sm.attempts {
        println!(
            "  attempt {} (client {}, key {}, instance {}): {} {}",
            a.attempt + 1,
            a.client + 1,
            a.key,
            a.instance.map_or("-".into(), |i| (i + 1).to_string()),
            a.status.map_or("no answer".into(), |s| s.to_string()),
            a.body.as_deref().unwrap_or("")
        );
    }
    for v in &sm.invariants {
        println!("  [{}] {}: {}", if v.holds { "ok" } else { "FAIL" }, v.name, v.detail);
    }
    println!("schedule: {}", r.schedule);
}
