//! The partial-order reduction against the full search, and its relation
//! against the worlds themselves. Each check returns what it found wrong
//! instead of panicking, so that the last test can hand the search a
//! deliberately wrong relation and see the checks fail.

use super::*;
use crate::builtins::{self, race};
use std::collections::VecDeque;

/// Every built-in under every strategy, and race-2 and race-3, where the
/// reduction applies (only `Next` choices); and race-2 where a card is
/// declined, whose capture calls are not renamed, so that two captures
/// there stay dependent.
fn models() -> Vec<Scenario> {
    let mut declined = race(2);
    declined.acquirer.decline = true;
    let mut out = vec![race(2), race(3), declined];
    out.extend(under_every_strategy(builtins::all()));
    out
}

/// Each of `scenarios` under every strategy, where the partial-order
/// reduction applies (only `Next` choices).
pub(super) fn under_every_strategy(scenarios: impl IntoIterator<Item = Scenario>) -> Vec<Scenario> {
    let mut out = Vec::new();
    for s in scenarios {
        for strategy in Strategy::ALL {
            let mut s = s.clone();
            s.strategy = strategy;
            out.push(s);
        }
    }
    out.retain(only_next_choices);
    out
}

#[test]
fn the_reduced_search_reports_what_the_full_search_reports() {
    let mut compared = 0;
    let (mut reduced, mut full) = (0, 0);
    let all = models();
    for s in &all {
        // A model past the bound has cost the bound's states before it is
        // left out, so the bound sits just above the largest model compared:
        // a lower one leaves that model out too, and the count below fails.
        if let Some(result) = check_with(s, 25_000, None, false) {
            let (r, f) = result.unwrap_or_else(|e| panic!("{e}"));
            (reduced, full, compared) = (reduced + r, full + f, compared + 1);
        }
    }
    eprintln!(
        "{compared} of {} models compared: {reduced} states reduced, {full} in full",
        all.len()
    );
    // Those left out are the large ones (race-3 and the like, with
    // hundreds of thousands of states): one more left out is coverage lost.
    let left_out = all.len() - compared;
    assert!(
        left_out <= 9,
        "{left_out} models are past the bound: raise it, or the cross-check loses them"
    );
    // The reduction must reduce something, or these checks test nothing.
    assert!(
        reduced * 10 < full * 9,
        "{reduced} states reduced, {full} in full"
    );
}

/// race-3 under check-then-act is past the bound of the models above:
/// checked alone (and beside them, on a test thread of its own).
#[test]
fn the_reduced_search_reports_what_the_full_search_reports_on_race_3() {
    let mut s = race(3);
    s.strategy = Strategy::CheckThenAct;
    let checked = check_with(&s, 200_000, None, false).expect("race-3 finishes in full");
    let (r, f) = checked.unwrap_or_else(|e| panic!("{e}"));
    assert!(r * 2 < f, "race-3: {r} states reduced, {f} in full");
}

/// The canonical fingerprint of `w` under symmetry and unordered ties.
fn canonical(canon: &Canonicalizer, w: &World) -> Fingerprint {
    let mut c = w.clone();
    canon.apply(&mut c);
    c.fingerprint()
}

/// Where `due` is among the events due now in `w`.
fn position(w: &World, due: &Due) -> Option<u32> {
    let at = w.agenda.items.first()?.at;
    w.agenda
        .items
        .iter()
        .take_while(|e| e.at == at)
        .position(|e| e.due == *due)
        .map(|p| p as u32)
}

fn after(w: &World, due: &Due) -> Option<World> {
    Some(step_next_with(w, position(w, due)?, &mut None).1)
}

/// Runs `a` then `b` and `b` then `a` from `w`: neither may take the other
/// off the agenda, and both orders must reach one canonical world.
fn diamond(canon: &Canonicalizer, w: &World, a: &Due, b: &Due) -> Result<(), String> {
    let ab = after(w, a).and_then(|x| after(&x, b));
    let ba = after(w, b).and_then(|x| after(&x, a));
    match (ab, ba) {
        (Some(ab), Some(ba)) if canonical(canon, &ab) == canonical(canon, &ba) => Ok(()),
        (Some(_), Some(_)) => Err(format!(
            "{a:?} and {b:?} ({:?}) end apart",
            [a, b].map(|d| match d {
                Due::Step { instance, attempt } => w.job(*instance, *attempt).map(|j| j.pc),
                _ => None,
            })
        )),
        _ => Err(format!(
            "{a:?} and {b:?}: one takes the other off the agenda"
        )),
    }
}

/// The persistent set `set` of `w` against every path of events outside
/// it at this instant (up to `depth` steps): each event of the set stays
/// due and commutes with every event such a path can run.
fn persistent(canon: &Canonicalizer, w: &World, set: &[Due], depth: u32) -> Result<(), String> {
    let now = w.agenda.items[0].at;
    let mut paths = vec![(w.clone(), 0)];
    while let Some((u, d)) = paths.pop() {
        let due: Vec<Due> = u
            .agenda
            .items
            .iter()
            .take_while(|e| e.at == now)
            .map(|e| e.due.clone())
            .filter(|e| !set.contains(e))
            .collect();
        for p in set {
            if position(&u, p).is_none() {
                return Err(format!("{p:?} left the agenda on a path outside the set"));
            }
            for x in &due {
                diamond(canon, &u, p, x)?;
            }
        }
        if d < depth {
            for x in &due {
                let next = after(&u, x).expect("due");
                if !next.is_done() {
                    paths.push((next, d + 1));
                }
            }
        }
    }
    Ok(())
}

/// Walks `s`'s states breadth-first (at most `max_states`) and checks, at
/// each with a choice, every pair `relation` calls independent and the
/// persistent set it gives. Returns the pairs checked.
fn oracle(s: &Scenario, relation: &dyn Relation, max_states: usize) -> Result<u32, String> {
    let canon = Canonicalizer::new(s, true, true);
    let mut seen = FixedSet::default();
    let mut queue = VecDeque::from([quiet_world(s)]);
    let mut pairs = 0;
    while let Some(w) = queue.pop_front() {
        if seen.len() >= max_states {
            break;
        }
        if w.is_done() || !seen.insert(canonical(&canon, &w)) {
            continue;
        }
        let n = next_arity(&w);
        let at = |e: String| format!("{} {}: {e}", s.name, s.strategy);
        if n > 1 {
            let prints = relation.of(&w, n as usize);
            let due: Vec<Due> = w.agenda.items[..n as usize]
                .iter()
                .map(|e| e.due.clone())
                .collect();
            for a in 0..due.len() {
                for b in a + 1..due.len() {
                    if !prints[a].0.conflicts(prints[b].0) {
                        diamond(&canon, &w, &due[a], &due[b]).map_err(at)?;
                        pairs += 1;
                    }
                }
            }
            let set: Vec<Due> = persistent_set(&w, n as usize, relation)
                .into_iter()
                .map(|p| due[p as usize].clone())
                .collect();
            if set.len() < due.len() {
                persistent(&canon, &w, &set, 4).map_err(at)?;
            }
        }
        for pick in 0..n {
            queue.push_back(step_next_with(&w, pick, &mut None).1);
        }
    }
    Ok(pairs)
}

#[test]
fn events_called_independent_commute_state_by_state() {
    let mut pairs = 0;
    for s in models() {
        let relation = Tokens::new(&s, &Canonicalizer::new(&s, true, true));
        pairs += oracle(&s, &relation, 400).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(pairs > 1_000, "only {pairs} independent pairs checked");
}

/// A wrong relation: statements are called independent of one another,
/// as if two writes to one row commuted.
struct StatementsCommute(Tokens);

impl Relation for StatementsCommute {
    fn of(&self, w: &World, n: usize) -> Vec<(Footprint, Footprint)> {
        let store = token::STORE | token::WATCH;
        let strip = |f: Footprint| Footprint {
            reads: f.reads & !store,
            writes: f.writes & !store,
        };
        self.0
            .of(w, n)
            .into_iter()
            .map(|(own, future)| (strip(own), strip(future)))
            .collect()
    }
}

#[test]
fn a_wrong_relation_fails_both_checks() {
    let s = race(2);
    let wrong = || {
        Box::new(StatementsCommute(Tokens::new(
            &s,
            &Canonicalizer::new(&s, true, true),
        )))
    };
    let oracle_says = oracle(&s, wrong().as_ref(), 400);
    assert!(oracle_says.is_err(), "the oracle passed: {oracle_says:?}");
    let compared = check_with(&s, 60_000, Some(wrong()), false).expect("race-2 finishes");
    assert!(compared.is_err(), "the comparison passed: {compared:?}");
    eprintln!(
        "with statements called independent:\n  oracle: {oracle_says:?}\n  comparison: {compared:?}"
    );
    // And the right relation passes both on the same model.
    assert!(
        oracle(
            &s,
            &Tokens::new(&s, &Canonicalizer::new(&s, true, true)),
            400
        )
        .is_ok()
    );
    assert!(
        check_with(&s, 60_000, None, false)
            .expect("finishes")
            .is_ok()
    );
}
