//! Runs and twins, computed from (scenario, strategy, seed). A run of a
//! built-in takes a tenth of a millisecond, so nothing is cached beyond the
//! world on screen (which `app::App` keeps): a run is a pure function of its
//! inputs, and recomputing it can never show a stale picture.

use lousa_core::Strategy;
use lousa_core::builtins::builtin;
use lousa_core::run::Run;
use lousa_core::story::{self, Twin};
use std::sync::Arc;

/// A shared value compared by identity: cheap for memos to tell "the same
/// run" from "another run" without comparing every frame.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The run of a built-in under `strategy` with `seed`.
pub fn run(scenario: &'static str, strategy: Strategy, seed: u64) -> Result<Shared<Run>, String> {
    let mut s = builtin(scenario).ok_or_else(|| format!("unknown scenario {scenario}"))?;
    s.strategy = strategy;
    s.seed = seed;
    lousa_core::run(&s)
        .map(|r| Shared(Arc::new(r)))
        .map_err(|e| e.to_string())
}

/// Two designs of a built-in side by side.
pub fn twin(
    scenario: &'static str,
    left: Strategy,
    right: Strategy,
    seed: u64,
) -> Result<Shared<Twin>, String> {
    let mut s = builtin(scenario).ok_or_else(|| format!("unknown scenario {scenario}"))?;
    s.seed = seed;
    story::twin(&s, left, right)
        .map(|t| Shared(Arc::new(t)))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_runs_under_every_strategy_and_pairs_as_a_twin() {
        for name in lousa_core::builtins::NAMES {
            for strategy in Strategy::ALL {
                let first =
                    run(name, strategy, 1).unwrap_or_else(|e| panic!("{name} {strategy}: {e}"));
                assert!(first.frame_count() > 1, "{name} {strategy}");
            }
            twin(name, Strategy::CheckThenAct, Strategy::IdempotencyKey, 1)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let a = run("timeout-retry", Strategy::CheckThenAct, 7).expect("valid");
        assert!(
            a == a.clone() && a != run("timeout-retry", Strategy::CheckThenAct, 7).expect("valid")
        );
    }

    #[test]
    fn an_unknown_scenario_is_an_error_not_a_panic() {
        assert!(run("nope", Strategy::Naive, 1).is_err());
    }
}
