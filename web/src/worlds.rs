//! Runs and twins, computed from (scenario, strategy, seed). A run of a
//! built-in takes a tenth of a millisecond, so nothing is cached here
//! beyond what the page keeps (`model::Runs`, the last few worlds): a run
//! is a pure function of its inputs, and recomputing it can never show a
//! stale picture.

use crate::state::Line;
use lousa_core::Strategy;
use lousa_core::builtins::builtin;
use lousa_core::run::Run;
use lousa_core::scenario::Scenario;
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

/// A built-in under `strategy` with `seed`.
fn scenario(name: &'static str, strategy: Strategy, seed: u64) -> Result<Scenario, String> {
    let mut s = builtin(name).ok_or_else(|| format!("unknown scenario {name}"))?;
    s.strategy = strategy;
    s.seed = seed;
    Ok(s)
}

/// The run of a built-in under `strategy` with `seed`.
pub fn run(name: &'static str, strategy: Strategy, seed: u64) -> Result<Shared<Run>, String> {
    lousa_core::run(&scenario(name, strategy, seed)?)
        .map(|r| Shared(Arc::new(r)))
        .map_err(|e| e.to_string())
}

/// The two lines' runs side by side: two designs of one built-in, or two
/// built-ins of a pair (`story::twin_of` covers both).
pub fn twin(top: Line, bottom: Line, seed: u64) -> Result<Twin, String> {
    let a = scenario(top.scenario, top.strategy, seed)?;
    let b = scenario(bottom.scenario, bottom.strategy, seed)?;
    story::twin_of(&a, &b).map_err(|e| e.to_string())
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
            let line = |strategy| Line {
                scenario: name,
                strategy,
            };
            let pair = twin(
                line(Strategy::CheckThenAct),
                line(Strategy::IdempotencyKey),
                1,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            let scenario = builtin(name).expect("built-in");
            let designs = story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
                .expect("valid");
            assert_eq!(pair, designs, "{name}: the same twin as story::twin");
        }
        let a = run("timeout-retry", Strategy::CheckThenAct, 7).expect("valid");
        assert!(
            a == a.clone() && a != run("timeout-retry", Strategy::CheckThenAct, 7).expect("valid")
        );
    }

    #[test]
    fn a_pair_s_twin_charges_twice_on_top_and_once_below() {
        let line = |scenario| Line {
            scenario,
            strategy: Strategy::IdempotencyKeyLease,
        };
        let t = twin(
            line("late-retry-after-ttl"),
            line("late-retry-provider-key"),
            1,
        )
        .expect("valid");
        assert_eq!((t.left.summary.captures, t.right.summary.captures), (2, 1));
    }

    #[test]
    fn an_unknown_scenario_is_an_error_not_a_panic() {
        assert!(run("nope", Strategy::Naive, 1).is_err());
    }
}
