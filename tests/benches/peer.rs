//! `cargo bench -p lousa-tests --bench peer`: Lousa's explorer against
//! stateright 0.31 on the very same model (the World step function wrapped
//! as a `stateright::Model`, see `tests/tests/peer_model`), race-2 to race-5
//! under check-then-act and idempotency-key, single-threaded.
//!
//! Two settings per model:
//! * **fingerprint**: no reduction beyond merging equal states. Stateright
//!   breadth- and depth-first against Lousa breadth- and depth-first; where
//!   both finish, their state counts must agree (and the bench says so).
//! * **reduced**: Lousa with client symmetry and unordered ties, against
//!   stateright depth-first with `symmetry_fn(explore::representative)`,
//!   the same canonical form (stateright's symmetry is depth-first only).
//!
//! Models larger than the bound are cut by both checkers and marked
//! "bounded": stateright stops after about three generated states per
//! unique state of the bound, and Lousa is then bounded to the unique
//! states stateright reached, so each pair is timed over the same number of
//! states. Throughput is unique states per second either way, and the
//! time to a full verdict is compared only where both finished. Bounds:
//! `LOUSA_PEER_STATES` (default 300,000) for the fingerprint setting and
//! `LOUSA_PEER_REDUCED_STATES` (default 2,000,000, enough for race-3 under
//! check-then-act to finish) for the reduced one. `LOUSA_PEER_MAX_RACE`
//! (default 5) caps N. Prints figures; asserts only that complete runs
//! agree.

#[path = "../tests/peer_model/mod.rs"]
mod peer_model;

use lousa_core::Strategy;
use lousa_core::builtins::race;
use lousa_core::explore::{self, Options, Search, Status};
use peer_model::{PeerSearch, run_stateright};
use std::time::Instant;

struct Row {
    checker: &'static str,
    states: u64,
    seconds: f64,
    complete: bool,
}

impl Row {
    fn rate(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `f` until a second has gone by, at least 3 and at most 20 times,
/// and keeps the fastest time: small models finish in milliseconds, where
/// one timing is noise, and every checker gets at least three tries, so a
/// slow model (stateright takes 1-13 s on the bounded ones) is not timed
/// once against Lousa's best of several.
fn fastest<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let start = Instant::now();
    let mut best = f64::MAX;
    let mut runs = 0;
    loop {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed().as_secs_f64());
        runs += 1;
        if runs >= 20 || (runs >= 3 && start.elapsed().as_secs_f64() > 1.0) {
            return (out, best);
        }
    }
}

fn lousa(scenario: &lousa_core::Scenario, search: Search, reduced: bool, bound: u32) -> Row {
    let mut options = Options::for_strategy(scenario.strategy);
    options.search = search;
    options.symmetry = reduced;
    options.unordered_ties = reduced;
    options.max_states = bound;
    let (report, seconds) = fastest(|| explore::explore(scenario, &options).expect("valid"));
    let checker = match search {
        Search::BreadthFirst => "lousa bfs",
        Search::DepthFirst => "lousa dfs",
    };
    Row {
        checker,
        states: report.states,
        seconds,
        complete: report.status == Status::Complete,
    }
}

fn peer(scenario: &lousa_core::Scenario, search: PeerSearch, bound: u32) -> Row {
    // Stateright bounds generated states (transitions), not unique ones:
    // give it room for about three transitions per state, then see whether
    // it stopped before exhausting the space.
    let target = bound as usize * 3;
    let (run, seconds) = fastest(|| run_stateright(scenario, search, Some(target)));
    let checker = match search {
        PeerSearch::Bfs => "stateright bfs",
        PeerSearch::Dfs => "stateright dfs",
        PeerSearch::DfsSymmetry => "stateright dfs+sym",
    };
    Row {
        checker,
        states: run.unique_states as u64,
        seconds,
        complete: run.generated < target,
    }
}

fn print_group(model: &str, setting: &str, rows: &[Row], pairs: &[(usize, usize)]) {
    for (i, r) in rows.iter().enumerate() {
        let vs = pairs
            .iter()
            .find(|(l, _)| *l == i)
            .map(|&(_, p)| {
                let peer = &rows[p];
                let agree = if r.complete && peer.complete {
                    if r.states == peer.states {
                        "  same states"
                    } else {
                        "  STATE COUNTS DIFFER"
                    }
                } else {
                    ""
                };
                let to_end = if r.complete && peer.complete {
                    format!(", {:.1}x faster to the verdict", peer.seconds / r.seconds)
                } else {
                    String::new()
                };
                format!(
                    "{:>5.1}x the throughput of {}{to_end}{agree}",
                    r.rate() / peer.rate(),
                    peer.checker
                )
            })
            .unwrap_or_default();
        println!(
            "{model:<24} {setting:<12} {:<19} {:>10} {:>9.3} s {:>11.0}/s {:<8} {vs}",
            r.checker,
            r.states,
            r.seconds,
            r.rate(),
            if r.complete { "complete" } else { "bounded" },
        );
    }
}

fn main() {
    if cfg!(debug_assertions) {
        println!("note: built without optimisations; run `cargo bench` for figures");
    }
    let bound = env_u64("LOUSA_PEER_STATES", 300_000) as u32;
    let reduced_bound = env_u64("LOUSA_PEER_REDUCED_STATES", 2_000_000) as u32;
    let max_race = env_u64("LOUSA_PEER_MAX_RACE", 5) as u32;
    println!(
        "bounds: {bound} states (fingerprint), {reduced_bound} states (reduced), Lousa cut where stateright stopped; single-threaded"
    );
    println!(
        "{:<24} {:<12} {:<19} {:>10} {:>11} {:>13} {:<8}",
        "model", "setting", "checker", "states", "time", "throughput", "run"
    );
    let mut mismatches = 0;
    for n in 2..=max_race {
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
            let mut s = race(n);
            s.strategy = strategy;
            let model = format!("race-{n} {strategy}");
            // Fingerprint only.
            let (bfs, dfs) = (
                peer(&s, PeerSearch::Bfs, bound),
                peer(&s, PeerSearch::Dfs, bound),
            );
            let (lousa_bfs, lousa_dfs) = (
                lousa(&s, Search::BreadthFirst, false, same_count(&bfs, bound)),
                lousa(&s, Search::DepthFirst, false, same_count(&dfs, bound)),
            );
            let rows = vec![bfs, dfs, lousa_bfs, lousa_dfs];
            print_group(&model, "fingerprint", &rows, &[(2, 0), (3, 1)]);
            mismatches += count_mismatches(&rows, &[(2, 0), (3, 1)]);
            // Reductions on.
            let sym = peer(&s, PeerSearch::DfsSymmetry, reduced_bound);
            let lousa_bound = same_count(&sym, reduced_bound);
            let rows = vec![
                sym,
                lousa(&s, Search::BreadthFirst, true, lousa_bound),
                lousa(&s, Search::DepthFirst, true, lousa_bound),
            ];
            print_group(&model, "reduced", &rows, &[(1, 0), (2, 0)]);
            mismatches += count_mismatches(&rows, &[(1, 0), (2, 0)]);
        }
    }
    assert_eq!(mismatches, 0, "complete runs disagreed on state counts");
}

/// Lousa's state bound against a stateright run: where stateright stopped
/// at its bound, the unique states it had reached, so both checkers are
/// timed over the same number of states (per-state cost grows with the
/// number of states seen, as the index and the graph outgrow the caches).
fn same_count(peer: &Row, bound: u32) -> u32 {
    if peer.complete {
        bound
    } else {
        peer.states as u32
    }
}

fn count_mismatches(rows: &[Row], pairs: &[(usize, usize)]) -> usize {
    pairs
        .iter()
        .filter(|&&(l, p)| rows[l].complete && rows[p].complete && rows[l].states != rows[p].states)
        .count()
}
