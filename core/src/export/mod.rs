//! Exports that take a run home: pure functions from a (scenario, run) to
//! text, one file per format, so the CLI and the page render the same bytes.
//!
//! - [`psql_script`]: the run's store traffic, for one psql terminal per
//!   connection;
//! - [`rust_test`]: a `#[test]` that replays the run with lousa-core and
//!   asserts how it ended;
//! - [`history`]: the clients' operations as a JSON history of
//!   invoke / ok / fail / info, as Jepsen and Porcupine read them;
//! - [`mermaid`]: a Mermaid `sequenceDiagram` of the run's messages.

mod command;
mod history;
mod mermaid;
mod psql;
mod rust_test;

pub use history::{HISTORY_FORMAT, History, OpType, Operation, history, operations};
pub use mermaid::mermaid;
pub use psql::{background_owner, psql_script, terminal_label};
pub use rust_test::rust_test;

use crate::narrate::Lang;
use crate::run::Run;
use crate::scenario::Scenario;

/// The export formats, named as the CLI's `--format` takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Psql,
    RustTest,
    History,
    Mermaid,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Psql,
        Format::RustTest,
        Format::History,
        Format::Mermaid,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Psql => "psql",
            Format::RustTest => "rust-test",
            Format::History => "history",
            Format::Mermaid => "mermaid",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The run in `format`; the psql script's comments and the Mermaid
/// diagram's labels in `lang` (the test and the history are code and data,
/// in English).
pub fn render(format: Format, scenario: &Scenario, run: &Run, lang: Lang) -> String {
    match format {
        Format::Psql => psql_script(scenario, run, lang),
        Format::RustTest => rust_test(scenario, run),
        Format::History => history(scenario, run),
        Format::Mermaid => mermaid(scenario, run, lang),
    }
}

/// What handled the run's requests, as every export names it: the design,
/// when one ran in place of the strategy's handler, else the strategy.
pub fn handler_name(scenario: &Scenario, run: &Run) -> String {
    match scenario.program() {
        Some(p) => format!("design {}", p.design().name),
        None => run.strategy.name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for f in Format::ALL {
            assert_eq!(Format::from_name(f.name()), Some(f));
        }
        assert_eq!(Format::from_name("json"), None);
    }

    /// A design runs in place of the strategy's handler, so every export
    /// names the design, not the strategy the scenario keeps beside it.
    #[cfg(feature = "designs")]
    #[test]
    fn every_export_names_the_design_that_ran() {
        let mut s = crate::builtins::builtin("race-2").unwrap();
        s.design = Some(std::sync::Arc::new(
            crate::design::builtin::named("idempotency-key-catch").unwrap(),
        ));
        let r = crate::run::run_schedule(&s, &crate::Schedule::default()).unwrap();
        assert_eq!(handler_name(&s, &r), "design idempotency-key-catch");
        for f in Format::ALL {
            for lang in [Lang::Pt, Lang::En] {
                let text = render(f, &s, &r, lang);
                let names = match f {
                    Format::History => text.contains(r#""design":"idempotency-key-catch""#),
                    Format::RustTest => text.contains("design_idempotency_key_catch"),
                    _ => text.contains("design idempotency-key-catch"),
                };
                assert!(names, "{}: {text}", f.name());
            }
        }
        let history: History = serde_json::from_str(&history(&s, &r)).unwrap();
        assert_eq!(history.design.as_deref(), Some("idempotency-key-catch"));
        s.design = None;
        assert!(!history_of(&s).contains("design"));
    }

    #[cfg(feature = "designs")]
    fn history_of(s: &Scenario) -> String {
        history(
            s,
            &crate::run::run_schedule(s, &crate::Schedule::default()).unwrap(),
        )
    }
}
