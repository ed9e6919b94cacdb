//! The `lousa` command line that makes a run again, for the exports that
//! tell how to: the psql script's replay and the history's `reproduce`.

use crate::run::Run;
use crate::scenario::Scenario;

/// `lousa <verb> <scenario> --strategy <s> [--design <d>] [--fork <f>]
/// <rest>`, each argument one word of a POSIX shell; `rest` follows as it
/// is. A branch's command names its fault, else it would make the run
/// without it.
pub(super) fn lousa(verb: &str, scenario: &Scenario, run: &Run, rest: &str) -> String {
    let design = scenario.program().map_or_else(String::new, |p| {
        format!(" --design {}", shell_word(&design_arg(p)))
    });
    let fork = run.fork.map_or_else(String::new, |f| {
        format!(" --fork {}", shell_word(&f.to_string()))
    });
    format!(
        "lousa {verb} {} --strategy {}{design}{fork} {rest}",
        shell_word(&scenario_arg(scenario)),
        run.strategy,
    )
}

/// How the command finds `scenario`: a built-in's name; a built-in
/// edited, as the link of its edits (what the workshop's editor makes);
/// else the JSON file the editor saves, `<name>.json`. The strategy is
/// left out of the link: the command gives it.
fn scenario_arg(scenario: &Scenario) -> String {
    let Some(builtin) = crate::builtins::builtin(&scenario.name) else {
        return format!("{}.json", scenario.name);
    };
    let mut own = scenario.clone();
    own.strategy = builtin.strategy;
    crate::link::encode(&scenario.name, &own).unwrap_or_else(|| scenario.name.clone())
}

/// `word` as one word of a POSIX shell: as it is when it holds nothing the
/// shell reads, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/' | ',' | '+' | '=' | ':')
        });
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// How `--design` finds `p`: a built-in design's name, or the JSON file
/// the workshop's design tab saves as `<name>.json`.
fn design_arg(p: &crate::design::Program) -> String {
    let name = &p.design().name;
    if crate::design::builtin::is_builtin(p) {
        name.clone()
    } else {
        format!("{name}.json")
    }
}
