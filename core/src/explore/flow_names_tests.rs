//! Flow renaming against the worlds themselves: every renaming of routed
//! flows commutes with every step and keeps what the properties say, and
//! the flow reduction reports what the full search reports, up to which
//! attempt is which. The oracle returns what it found wrong, so that a
//! deliberately wrong renaming can be seen to fail it.

use super::independence_tests::under_every_strategy;
use super::*;
use crate::builtins::race;
use crate::store::Isolation;
use std::collections::VecDeque;

/// Race models whose flows are interchangeable, under every strategy, with
/// latencies, a pool of two and another isolation level among them.
fn models() -> Vec<Scenario> {
    let mut slow = race(2);
    slow.db_latency_ms = 5;
    slow.acquirer.latency_ms = 30;
    let mut pooled = race(2);
    pooled.pool_size = 2;
    let mut repeatable = race(2);
    repeatable.isolation = Isolation::RepeatableRead;
    under_every_strategy([race(2), race(3), slow, pooled, repeatable])
}

/// Every permutation of `0..n`.
fn permutations(n: u32) -> Vec<Vec<u32>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for at in 0..=p.len() {
            let mut q = p.clone();
            q.insert(at, n - 1);
            out.push(q);
        }
    }
    out
}

/// The canonical fingerprint under client symmetry and unordered ties
/// alone: what the full search tells states apart by.
fn plain(canon: &Canonicalizer, w: &World) -> Fingerprint {
    let mut c = w.clone();
    canon.apply(&mut c);
    c.fingerprint()
}

/// What a terminal world says: captures, answers as a multiset, the end,
/// and each property's finding.
fn said_at_end(w: &World) -> (Vec<u32>, Vec<Option<u16>>, Option<EndReason>, Vec<bool>) {
    let summary = run::summarize(w);
    let ending = Ending {
        world: w,
        intents: &summary.intents,
        attempts: &summary.attempts,
    };
    let mut answers = summary.statuses();
    answers.sort();
    (
        summary.intents.iter().map(|i| i.captures).collect(),
        answers,
        w.end,
        crate::property::ALL
            .iter()
            .map(|p| p.shown_by(&ending))
            .collect(),
    )
}

/// Walks `s`'s states (at most `max_states`) and, at each with routed
/// flows, renames them by every permutation with `rename`: the successors
/// of the renamed world must be the renamed successors, and an end must
/// say the same renamed. Returns the renamings checked.
fn oracle(
    s: &Scenario,
    rename: &dyn Fn(&mut World, &FlowMap),
    max_states: usize,
) -> Result<u32, String> {
    let canon = Canonicalizer::new(s, true, true);
    let at = |e: String| format!("{} {}: {e}", s.name, s.strategy);
    let mut seen = FixedSet::default();
    let mut queue = VecDeque::from([quiet_world(s)]);
    let mut checked = 0;
    while let Some(w) = queue.pop_front() {
        if seen.len() >= max_states || !seen.insert(plain(&canon, &w)) {
            continue;
        }
        let n = if w.is_done() { 0 } else { next_arity(&w) };
        let next: Vec<World> = (0..n).map(|k| step_next_with(&w, k, &mut None).1).collect();
        for order in permutations(w.attempts.len() as u32) {
            let Some(m) = flow_map_by(&w, &order) else {
                break;
            };
            let mut renamed = w.clone();
            rename(&mut renamed, &m);
            if w.is_done() {
                if !renamed.is_done() || said_at_end(&w) != said_at_end(&renamed) {
                    return Err(at(format!("an end says otherwise renamed by {order:?}")));
                }
                checked += 1;
                continue;
            }
            let mut want: Vec<Fingerprint> = next
                .iter()
                .map(|u| {
                    let mut u = u.clone();
                    rename(&mut u, &m);
                    plain(&canon, &u)
                })
                .collect();
            let mut got: Vec<Fingerprint> = (0..next_arity(&renamed))
                .map(|k| plain(&canon, &step_next_with(&renamed, k, &mut None).1))
                .collect();
            want.sort_unstable();
            got.sort_unstable();
            if want != got {
                return Err(at(format!(
                    "renamed by {order:?}, the successors differ at {:?}",
                    w.agenda.items.iter().map(|e| &e.due).collect::<Vec<_>>()
                )));
            }
            checked += 1;
        }
        queue.extend(next);
    }
    Ok(checked)
}

#[test]
fn every_renaming_of_routed_flows_commutes_with_every_step() {
    let mut checked = 0;
    for s in &models() {
        checked += oracle(s, &|w, m| rename_flows(w, m), 3_000).unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(checked > 10_000, "{checked} renamings checked");
}

/// The oracle catches a renaming that leaves the store's sessions where
/// they were: the instances then hold sessions whose transactions are
/// another flow's.
#[test]
fn a_renaming_that_forgets_the_sessions_fails_the_oracle() {
    let forgetful = |w: &mut World, m: &FlowMap| {
        rename_flows(w, m);
        let mut back = vec![0u32; m.sessions.len()];
        for (s, &to) in m.sessions.iter().enumerate() {
            back[to as usize] = s as u32;
        }
        w.store.rename_sessions(&back);
    };
    let mut s = race(2);
    s.strategy = Strategy::CheckThenAct;
    let said = oracle(&s, &forgetful, 3_000);
    assert!(said.is_err(), "the oracle passed: {said:?}");
    eprintln!("with the sessions left behind: {said:?}");
}

/// The flow reduction says what the full search says, class by class, on
/// every model above and on race-3 under each strategy.
#[test]
fn the_flow_reduction_reports_what_the_full_search_reports() {
    let (mut reduced, mut full) = (0, 0);
    for s in &models() {
        let checked = check_with(s, 200_000, None, true).expect("the full search finishes");
        let (r, f) = checked.unwrap_or_else(|e| panic!("{e}"));
        (reduced, full) = (reduced + r, full + f);
    }
    eprintln!("{reduced} states with flows renamed, {full} in full");
    assert!(
        reduced * 2 < full,
        "{reduced} states reduced, {full} in full"
    );
}

/// Renamed flows merge states the partial-order reduction keeps apart.
#[test]
fn race_3_check_then_act_takes_fewer_states_with_flows_renamed() {
    let mut s = race(3);
    s.strategy = Strategy::CheckThenAct;
    let states = |flows| {
        let reduction = if flows {
            Reduction::Flows
        } else {
            Reduction::Por
        };
        let r = explored(&s, reduction);
        assert_eq!(r.status, Status::Complete);
        assert_eq!(said(&r, "flow-symmetry"), flows, "{:?}", r.reductions);
        r.states
    };
    let (por, flows) = (states(false), states(true));
    assert!(
        flows * 3 < por,
        "{flows} states with flows renamed, {por} without"
    );
}

/// Where clients differ, or send more than once, nothing is renamed and
/// the report says so.
#[test]
fn flows_stay_apart_where_they_are_not_interchangeable() {
    let mut retrying = race(2);
    retrying.clients[1].retries_max = 1;
    let mut other_order = race(2);
    other_order.clients[1].intents[0].order_id += 1;
    for s in [retrying, other_order] {
        let r = explored(&s, Reduction::Flows);
        assert!(!said(&r, "flow-symmetry"), "{:?}", r.reductions);
        assert!(said(&r, "partial-order"));
    }
}

/// `s` explored under `reduction` with its other options as they are.
fn explored(s: &Scenario, reduction: Reduction) -> Report {
    let mut o = Options::for_scenario(s);
    o.set_reduction(reduction);
    explore(s, &o).expect("explores")
}

/// Whether the report names `reduction` among those it applied.
fn said(r: &Report, reduction: &str) -> bool {
    r.reductions.iter().any(|n| n == reduction)
}
