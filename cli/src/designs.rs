//! `--design` and `lousa designs`: handlers written as data (issue #31).

use lousa_core::Scenario;
use lousa_core::design::{self, Design, Program};
use lousa_core::narrate::Lang;
use std::sync::Arc;

/// A built-in design by name, or design JSON from a file, checked.
pub fn load(arg: &str) -> Result<Program, String> {
    if let Some(p) = design::builtin::named(arg) {
        return Ok(p);
    }
    let path = std::path::Path::new(arg);
    if !arg.ends_with(".json") && !path.exists() {
        return Err(format!(
            "unknown built-in design {arg:?}; built-ins are {}, or give a path to design JSON",
            design::builtin::names().join(", ")
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{arg}: {e}"))?;
    Design::from_json(&text).map_err(|e| format!("{arg}: {e}"))
}

/// `s` runs the jobs the design `arg` serves as it, when one is given.
pub fn attach(s: &mut Scenario, arg: Option<&str>) -> Result<(), String> {
    if let Some(arg) = arg {
        let program = load(arg).map_err(|e| format!("--design: {e}"))?;
        lousa_core::handler::check_runs_on(s, &program).map_err(|e| format!("--design: {e}"))?;
        s.design = Some(Arc::new(program));
    }
    Ok(())
}

/// The scenario argument of the commands a report prints to replay what it
/// found: the design goes with it.
pub fn with_flag(scenario: String, design: Option<&str>) -> String {
    match design {
        Some(d) => format!("{scenario} --design {d}"),
        None => scenario,
    }
}

/// What a report's first line names: the design, or else the strategy.
pub fn named(s: &Scenario, lang: Lang) -> String {
    match (&s.design, lang) {
        (Some(p), _) => format!("design {}", p.design().name),
        (None, Lang::En) => format!("strategy {}", s.strategy.name()),
        (None, Lang::Pt) => format!("estratégia {}", s.strategy.name()),
    }
}

/// Names the design in a report's JSON, when one ran.
pub fn label(v: &mut serde_json::Value, s: &Scenario) {
    if let Some(p) = &s.design {
        v["design"] = p.design().name.clone().into();
    }
}

/// The list of built-in designs, or one of them (or a file) as JSON.
pub fn execute(name: Option<&str>, json: bool) -> Result<(), String> {
    match name {
        Some(arg) => {
            let p = load(arg).map_err(|e| format!("design: {e}"))?;
            if json {
                println!("{}", p.design().to_json());
            } else {
                print_steps(&p);
            }
        }
        None => {
            for name in design::builtin::names() {
                let p = design::builtin::named(name).ok_or("a built-in is listed")?;
                if json {
                    println!("{}", p.design().to_json());
                } else {
                    println!("{:<32} {}", p.design().name, p.design().about);
                }
            }
        }
    }
    Ok(())
}

/// A design's steps, one a line, with where each goes.
fn print_steps(p: &Program) {
    let d = p.design();
    println!("{} — {}", d.name, d.about);
    for (i, step) in d.steps.iter().enumerate() {
        let action = serde_json::to_string(&step.action).expect("a step serializes");
        println!("{i:>2}. {:<22} {action}", step.label);
        for b in &step.on {
            let when = serde_json::to_string(&b.when).expect("serializes");
            let answer = b
                .answer
                .as_ref()
                .map(|a| format!(" answer {}", serde_json::to_string(a).expect("serializes")))
                .unwrap_or_default();
            let again = b
                .again
                .map(|n| format!(" (at most {n} times)"))
                .unwrap_or_default();
            println!("      if {when}{answer} → {}{again}", b.goto);
        }
        if let Some(next) = &step.next {
            println!("      then → {next}");
        }
    }
}
