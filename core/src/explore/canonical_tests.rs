//! The store's renamed transaction ids (`store/engine/canonical.rs`)
//! against the ids kept: merging states that differ only in those names
//! must change how many states the search meets and nothing it reports
//! about schedules, outcomes and verdicts. The schedule counts are path
//! counts, so a merge of two states with different futures would show in
//! them (or in an outcome or a verdict).

use super::*;
use crate::builtins::{self, race};
use crate::store::{Isolation, with_ids_kept};

/// How long the shortest example is, as `o` measures it: in choices, or in
/// steps with unordered ties (which path of that many steps is shown, and
/// so its choices, depends on which of two merged states came first).
fn shortest(o: &Options, example: &Option<Example>) -> Option<u32> {
    example
        .as_ref()
        .map(|e| if o.unordered_ties { e.steps } else { e.choices })
}

/// Both searches on `s` under `o`; returns the states each met (renamed,
/// kept).
fn compare(s: &Scenario, o: &Options) -> (u64, u64) {
    let at = format!(
        "{} {} symmetry {} unordered ties {}",
        s.name, s.strategy, o.symmetry, o.unordered_ties
    );
    let renamed = explore(s, o).unwrap_or_else(|e| panic!("{at}: {e}"));
    let kept = with_ids_kept(|| explore(s, o)).unwrap_or_else(|e| panic!("{at}: {e}"));
    // A search cut at the state limit tells nothing to compare; the
    // renamed one may complete where the other is cut, not the reverse.
    if kept.status != Status::Complete {
        return (renamed.states, kept.states);
    }
    assert_eq!(renamed.status, kept.status, "{at}: status");
    assert_eq!(renamed.schedules, kept.schedules, "{at}: schedules");
    assert_eq!(renamed.max_depth, kept.max_depth, "{at}: max_depth");
    assert_eq!(
        renamed.outcomes.len(),
        kept.outcomes.len(),
        "{at}: outcomes"
    );
    for (r, k) in renamed.outcomes.iter().zip(&kept.outcomes) {
        let (captures, answers) = (&k.captures, &k.answers);
        assert_eq!((&r.captures, &r.answers), (captures, answers), "{at}");
        assert_eq!(r.schedules, k.schedules, "{at}: {captures:?} {answers:?}");
        assert_eq!(
            shortest(o, &r.example),
            shortest(o, &k.example),
            "{at}: {captures:?}'s shortest"
        );
    }
    for (r, k) in renamed.properties.iter().zip(&kept.properties) {
        let name = k.claim.property.name;
        assert_eq!(r.verdict, k.verdict, "{at}: {name}");
        assert_eq!(
            shortest(o, &r.example),
            shortest(o, &k.example),
            "{at}: {name}'s shortest"
        );
    }
    assert!(
        renamed.states <= kept.states,
        "{at}: {} states",
        renamed.states
    );
    (renamed.states, kept.states)
}

#[test]
fn every_builtin_under_every_strategy_reports_the_same_with_ids_renamed() {
    let mut merged = 0;
    for name in builtins::NAMES {
        for strategy in Strategy::ALL {
            let mut s = builtins::builtin(name).expect("built-in");
            s.strategy = strategy;
            let mut o = Options::for_scenario(&s);
            o.max_states = 5_000;
            let (renamed, kept) = compare(&s, &o);
            merged += kept - renamed;
        }
    }
    assert!(merged > 0, "the renaming merged no state in any built-in");
}

#[test]
fn races_report_the_same_with_ids_renamed_and_meet_fewer_states() {
    for s in race_2_models_at_every_level() {
        let strategy = s.strategy;
        for (symmetry, unordered_ties) in [(true, false), (false, false), (true, true)] {
            let mut o = Options::for_strategy(strategy);
            (o.symmetry, o.unordered_ties) = (symmetry, unordered_ties);
            let (renamed, kept) = compare(&s, &o);
            if strategy == Strategy::CheckThenAct {
                assert!(renamed < kept, "race-2: {renamed} states against {kept}");
            }
        }
    }
}

/// Walks every state of `s` and, for each state met again under the same
/// fingerprint, holds its successors' fingerprints to those of the world
/// first met there, and the world to its canonical form's. The explorer
/// expands a state from the first world it met and replays examples
/// through others: a name that depends on the path (as a raw id would)
/// shows here as two merged worlds with different successors. Returns how
/// many merges it checked.
fn merges_agree(s: &Scenario, o: &Options) -> usize {
    let ex = Explorer::new(s, o).expect("valid");
    let key = |w: &World| -> Fingerprint {
        let mut c = w.clone();
        ex.canon.apply(&mut c);
        c.fingerprint()
    };
    let successors = |w: &World| -> Vec<Fingerprint> {
        let mut keys: Vec<Fingerprint> = successors_with(w, &mut None)
            .iter()
            .map(|(_, n)| key(n))
            .collect();
        keys.sort_unstable();
        keys
    };
    let at = format!("{} {}", s.name, s.strategy);
    let mut first: FixedMap<Fingerprint, World> = FixedMap::default();
    let mut frontier = vec![quiet_world(s)];
    let mut checked = 0;
    while let Some(w) = frontier.pop() {
        let k = key(&w);
        if let Some(f) = first.get(&k) {
            assert_eq!(
                f.is_done(),
                w.is_done(),
                "{at}: a merge of an end with a state that goes on"
            );
            if !w.is_done() {
                assert_eq!(
                    successors(f),
                    successors(&w),
                    "{at}: merged worlds go on apart"
                );
                checked += 1;
            }
            continue;
        }
        let mut canonical = w.clone();
        ex.canon.apply(&mut canonical);
        if !w.is_done() {
            assert_eq!(
                successors(&w),
                successors(&canonical),
                "{at}: the canonical form goes on apart"
            );
            frontier.extend(
                successors_with(&canonical, &mut None)
                    .into_iter()
                    .map(|(_, n)| n),
            );
        }
        first.insert(k, canonical);
        assert!(first.len() < 50_000, "{at}: too large for this test");
    }
    checked
}

/// race-2's models, and two designs again at REPEATABLE READ, where a
/// transaction's snapshot outlives its statement and commit numbers are
/// ranked against it (`Ranks`).
fn race_2_models_at_every_level() -> Vec<Scenario> {
    let mut models = super::tests::race_2_models();
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = race(2);
        s.strategy = strategy;
        s.isolation = Isolation::RepeatableRead;
        models.push(s);
    }
    models
}

/// Three transactions are the fewest that put a snapshot between two
/// commits: race-3 with the key held in a REPEATABLE READ transaction.
#[test]
fn race_3_at_repeatable_read_reports_the_same_with_commits_ranked() {
    let mut s = race(3);
    s.strategy = Strategy::IdempotencyKey;
    s.isolation = Isolation::RepeatableRead;
    let mut o = Options::for_strategy(s.strategy);
    o.unordered_ties = true;
    let (renamed, kept) = compare(&s, &o);
    assert!(renamed < kept, "race-3: {renamed} states against {kept}");
}

#[test]
fn worlds_merged_under_one_fingerprint_go_on_alike() {
    let mut checked = 0;
    for s in race_2_models_at_every_level() {
        let mut o = Options::for_strategy(s.strategy);
        o.unordered_ties = true;
        checked += merges_agree(&s, &o);
    }
    assert!(checked > 1_000, "{checked} merges checked");
}
