//! Shared by the native suite (`tests/tests/explore.rs`, which keeps
//! tests/golden/explore-hashes.txt) and the wasm32 one
//! (`core/tests/wasm_determinism.rs`, which checks it).

use lousa_core::Strategy;
use lousa_core::builtins;
use lousa_core::explore::{self, Options};
use lousa_core::world::fnv1a;

/// What the explorer and the swarm report for a few models, one line of
/// hashed JSON each.
pub fn explorer_and_swarm() -> String {
    let mut text = String::new();
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = builtins::race(2);
        s.strategy = strategy;
        let report = explore::explore(&s, &Options::for_strategy(strategy)).unwrap();
        let json = serde_json::to_string(&report).unwrap();
        text.push_str(&format!(
            "explore race-2 {strategy} {:016x}\n",
            fnv1a(json.as_bytes())
        ));
    }
    // The flow reduction orders flows by a hash of what they hold, and its
    // examples follow that order: it must not depend on the word size.
    let mut s = builtins::race(3);
    s.strategy = Strategy::CheckThenAct;
    let mut options = Options::for_strategy(s.strategy);
    options.set_reduction(explore::Reduction::Flows);
    let report = explore::explore(&s, &options).unwrap();
    assert!(report.reductions.iter().any(|r| r == "flow-symmetry"));
    let json = serde_json::to_string(&report).unwrap();
    text.push_str(&format!(
        "explore race-3 check-then-act flows {:016x}\n",
        fnv1a(json.as_bytes())
    ));
    let base = builtins::builtin("timeout-retry").unwrap();
    let report = lousa_core::swarm::swarm(&base, 1, 40).unwrap();
    let json = serde_json::to_string(&report).unwrap();
    text.push_str(&format!(
        "swarm timeout-retry 1+40 {:016x}\n",
        fnv1a(json.as_bytes())
    ));
    text
}
