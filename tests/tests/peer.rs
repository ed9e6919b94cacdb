//! Stateright and Lousa's explorer, given the same model (the World step
//! function, see `peer_model`) and the same reductions, must find exactly
//! the same number of distinct states. The figures and timings live in
//! `cargo bench -p lousa-tests --bench peer`.

mod peer_model;

use lousa_core::builtins::race;
use lousa_core::explore::{self, Options, Search, Status};
use lousa_core::{Scenario, Strategy};
use peer_model::{PeerSearch, run_stateright};

fn lousa_states(s: &Scenario, reduced: bool, search: Search) -> u64 {
    let mut o = Options::for_strategy(s.strategy);
    o.symmetry = reduced;
    o.unordered_ties = reduced;
    o.search = search;
    let r = explore::explore(s, &o).unwrap();
    assert_eq!(r.status, Status::Complete);
    r.states
}

fn model(n: u32, strategy: Strategy) -> Scenario {
    let mut s = race(n);
    s.strategy = strategy;
    s
}

#[test]
fn stateright_and_lousa_count_the_same_states_in_race_2() {
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let s = model(2, strategy);
        let lousa = lousa_states(&s, false, Search::BreadthFirst);
        assert_eq!(lousa, lousa_states(&s, false, Search::DepthFirst));
        for search in [PeerSearch::Bfs, PeerSearch::Dfs] {
            let peer = run_stateright(&s, search, None);
            assert_eq!(peer.unique_states as u64, lousa, "{strategy} {search:?}");
        }
        let peer = run_stateright(&s, PeerSearch::DfsSymmetry, None);
        assert_eq!(
            peer.unique_states as u64,
            lousa_states(&s, true, Search::DepthFirst),
            "{strategy} with symmetry"
        );
    }
}

#[test]
fn stateright_and_lousa_count_the_same_states_in_race_3() {
    // Unreduced race-3 under idempotency-key (51,439 states) and reduced
    // race-3 under both strategies; unreduced race-3 under check-then-act
    // has millions of states and is left to the bench.
    let s = model(3, Strategy::IdempotencyKey);
    let peer = run_stateright(&s, PeerSearch::Dfs, None);
    assert_eq!(
        peer.unique_states as u64,
        lousa_states(&s, false, Search::DepthFirst)
    );
    let peer = run_stateright(&s, PeerSearch::DfsSymmetry, None);
    assert_eq!(
        peer.unique_states as u64,
        lousa_states(&s, true, Search::DepthFirst)
    );
}

#[test]
fn stateright_finds_what_lousa_finds_in_race_2() {
    let s = model(2, Strategy::CheckThenAct);
    let peer = run_stateright(&s, PeerSearch::Bfs, None);
    assert!(peer.discoveries.contains(&"at-most-one-capture-per-intent"));
    assert!(peer.discoveries.contains(&"double-charge-reachable"));
    let s = model(2, Strategy::IdempotencyKey);
    let peer = run_stateright(&s, PeerSearch::Bfs, None);
    assert_eq!(
        peer.discoveries,
        vec!["409-reachable"],
        "only the sometimes is discovered"
    );
}
