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
//! * **por**: Lousa's partial-order reduction (`--reduction por`), its own
//!   row: it explores fewer states than either checker above for the same
//!   verdicts, so its throughput compares with nothing; its time to the
//!   verdict is set against stateright's reduced one where both finish.
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
//! (default 5) caps N. Each model's checkers are timed by turns, three to
//! twenty times each, keeping each one's fastest run (see `by_turns`). Prints
//! figures, then the lowest ratio of each kind; asserts only that complete
//! runs agree.

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

/// Times each run at least this many times and keeps the fastest...
const RUNS_MIN: usize = 5;
/// ...or this many, on the models where a round takes over 5 s (the
/// bounded reduced ones: stateright takes 12-15 s there).
const RUNS_MIN_SLOW: usize = 3;

/// Times a group of checkers on one model by turns: a round runs each
/// stateright search once and each Lousa search once, bounded by the
/// unique states its stateright counterpart reached (see `same_count`).
/// Rounds repeat until there have been `RUNS_MIN` of them and a second has
/// gone by, or `RUNS_MIN_SLOW` and 20 seconds (20 rounds at most), and each
/// checker keeps its fastest run. Taking turns exposes every checker to the
/// same drift in the VM's speed, which moves over minutes: timed one
/// checker after another, a slow minute fell on one side of a ratio only,
/// and ratios moved by 0.2x between runs.
fn by_turns(
    scenario: &lousa_core::Scenario,
    peers: &[(PeerSearch, u32)],
    lousas: &[(Search, bool, usize)],
) -> Vec<Row> {
    let start = Instant::now();
    let slots = peers.len() + lousas.len();
    let mut best: Vec<Option<Row>> = (0..slots).map(|_| None).collect();
    let keep = |slot: &mut Option<Row>, row: Row| {
        if slot.as_ref().is_none_or(|b| row.seconds < b.seconds) {
            *slot = Some(row);
        }
    };
    for round in 1..=20 {
        // The first round runs the peers first, as Lousa's bounds come from
        // them; later rounds start one checker further on, so that no
        // checker always follows the same one (a run can leave work behind
        // for the next, such as freed blocks for glibc to merge).
        for k in 0..slots {
            let i = (k + round - 1) % slots;
            let row = if i < peers.len() {
                let (search, bound) = peers[i];
                peer(scenario, search, bound)
            } else {
                let (search, reduced, of) = lousas[i - peers.len()];
                let cut = same_count(best[of].as_ref().expect("peers ran first"), peers[of].1);
                lousa(scenario, search, reduced, cut)
            };
            keep(&mut best[i], row);
        }
        let elapsed = start.elapsed().as_secs_f64();
        if (round >= RUNS_MIN && elapsed > 1.0) || (round >= RUNS_MIN_SLOW && elapsed > 20.0) {
            break;
        }
    }
    best.into_iter()
        .map(|r| r.expect("every checker ran"))
        .collect()
}

/// One timed exploration by Lousa.
fn lousa(scenario: &lousa_core::Scenario, search: Search, reduced: bool, bound: u32) -> Row {
    let mut options = Options::for_strategy(scenario.strategy);
    options.search = search;
    options.symmetry = reduced;
    options.unordered_ties = reduced;
    options.max_states = bound;
    let t = Instant::now();
    let report = explore::explore(scenario, &options).expect("valid");
    let seconds = t.elapsed().as_secs_f64();
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

/// Lousa with the partial-order reduction, depth-first, bounded by
/// `bound`: the fastest of three runs.
fn lousa_por(scenario: &lousa_core::Scenario, bound: u32) -> Row {
    let mut options = Options::for_strategy(scenario.strategy);
    options.set_reduction(explore::Reduction::Por);
    options.max_states = bound;
    let mut best: Option<Row> = None;
    for _ in 0..3 {
        let t = Instant::now();
        let report = explore::explore(scenario, &options).expect("valid");
        let row = Row {
            checker: "lousa dfs+por",
            states: report.states,
            seconds: t.elapsed().as_secs_f64(),
            complete: report.status == Status::Complete,
        };
        if best.as_ref().is_none_or(|b| row.seconds < b.seconds) {
            best = Some(row);
        }
    }
    best.expect("three runs")
}

/// One timed run of stateright.
fn peer(scenario: &lousa_core::Scenario, search: PeerSearch, bound: u32) -> Row {
    // Stateright bounds generated states (transitions), not unique ones:
    // give it room for about three transitions per state, then see whether
    // it stopped before exhausting the space.
    let target = bound as usize * 3;
    let t = Instant::now();
    let run = run_stateright(scenario, search, Some(target));
    let seconds = t.elapsed().as_secs_f64();
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
    let mut ratios: Vec<(String, &'static str, f64)> = Vec::new();
    for n in 2..=max_race {
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
            let mut s = race(n);
            s.strategy = strategy;
            let model = format!("race-{n} {strategy}");
            // Fingerprint only.
            let rows = by_turns(
                &s,
                &[(PeerSearch::Bfs, bound), (PeerSearch::Dfs, bound)],
                &[
                    (Search::BreadthFirst, false, 0),
                    (Search::DepthFirst, false, 1),
                ],
            );
            print_group(&model, "fingerprint", &rows, &[(2, 0), (3, 1)]);
            collect_ratios(&mut ratios, &model, "fingerprint", &rows, &[(2, 0), (3, 1)]);
            mismatches += count_mismatches(&rows, &[(2, 0), (3, 1)]);
            // Reductions on.
            let rows = by_turns(
                &s,
                &[(PeerSearch::DfsSymmetry, reduced_bound)],
                &[
                    (Search::BreadthFirst, true, 0),
                    (Search::DepthFirst, true, 0),
                ],
            );
            print_group(&model, "reduced", &rows, &[(1, 0), (2, 0)]);
            collect_ratios(&mut ratios, &model, "reduced", &rows, &[(1, 0), (2, 0)]);
            mismatches += count_mismatches(&rows, &[(1, 0), (2, 0)]);
            let por = lousa_por(&s, reduced_bound);
            let peer = &rows[0];
            let vs = if por.complete && peer.complete {
                format!(
                    "  {:.1}x faster to the verdict than {}",
                    peer.seconds / por.seconds,
                    peer.checker
                )
            } else {
                String::new()
            };
            println!(
                "{model:<24} {:<12} {:<19} {:>10} {:>9.3} s {:>11.0}/s {:<8} {vs}",
                "por",
                por.checker,
                por.states,
                por.seconds,
                por.rate(),
                if por.complete { "complete" } else { "bounded" },
            );
        }
    }
    print_lowest(&ratios);
    assert_eq!(mismatches, 0, "complete runs disagreed on state counts");
}

/// Each pair's throughput ratio, labelled by model, setting and pairing.
fn collect_ratios(
    out: &mut Vec<(String, &'static str, f64)>,
    model: &str,
    setting: &str,
    rows: &[Row],
    pairs: &[(usize, usize)],
) {
    for &(l, p) in pairs {
        let (lousa, peer) = (&rows[l], &rows[p]);
        let kind = match (lousa.checker, peer.checker) {
            ("lousa dfs", "stateright dfs") => "lousa dfs / stateright dfs",
            ("lousa bfs", "stateright bfs") => "lousa bfs / stateright bfs",
            ("lousa dfs", _) => "lousa dfs / stateright dfs+sym",
            _ => "lousa bfs / stateright dfs+sym (no stateright bfs+sym)",
        };
        out.push((
            format!("{model} {setting}"),
            kind,
            lousa.rate() / peer.rate(),
        ));
    }
}

/// The lowest ratio of each pairing, with the row it came from and how many
/// rows reach 3x.
fn print_lowest(ratios: &[(String, &'static str, f64)]) {
    let mut kinds: Vec<&str> = ratios.iter().map(|r| r.1).collect();
    kinds.sort();
    kinds.dedup();
    println!();
    for kind in kinds {
        let of_kind: Vec<_> = ratios.iter().filter(|r| r.1 == kind).collect();
        let lowest = of_kind
            .iter()
            .min_by(|a, b| a.2.total_cmp(&b.2))
            .expect("a kind has rows");
        let at_3x = of_kind.iter().filter(|r| r.2 >= 3.0).count();
        println!(
            "{kind}: lowest {:.2}x ({}), {at_3x} of {} rows at 3x or more",
            lowest.2,
            lowest.0,
            of_kind.len()
        );
    }
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
