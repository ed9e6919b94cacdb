//! Capture calls renamed under symmetry (`call_names.rs`): where it is on,
//! and that a renaming forced on where a fault names a call by its number
//! changes the counts, which the guard exists to prevent.

use super::*;
use crate::builtins::race;
use crate::scenario::Fault;

fn report(s: &Scenario, symmetry: bool, calls: Option<bool>) -> Report {
    let mut o = Options::for_strategy(s.strategy);
    o.symmetry = symmetry;
    let mut ex = Explorer::new(s, &o).expect("valid");
    if let Some(calls) = calls {
        ex.canon.calls = calls;
    }
    while ex.run_for(u32::MAX).status == Status::Running {}
    ex.into_report().expect("stopped")
}

/// What a report says about schedules: every figure the renaming must keep.
fn counts(r: &Report) -> Vec<(Vec<u32>, Vec<Option<u16>>, u128)> {
    r.outcomes
        .iter()
        .map(|o| (o.captures.clone(), o.answers.clone(), o.schedules))
        .collect()
}

#[test]
fn calls_are_names_unless_a_call_can_be_refused_or_is_named_by_a_fault() {
    let s = race(3);
    assert!(calls_interchangeable(&s));
    let mut declined = s.clone();
    declined.acquirer.decline = true;
    assert!(!calls_interchangeable(&declined));
    for fault in [
        Fault::AcquirerDeclines { call: 2 },
        Fault::AcquirerTimeoutAfterAccept { call: 1 },
    ] {
        let mut named = s.clone();
        named.faults = vec![fault];
        assert!(!calls_interchangeable(&named));
    }
    assert!(Canonicalizer::new(&s, true, false).calls);
    assert!(!Canonicalizer::new(&s, false, false).calls);
}

#[test]
fn renamed_calls_keep_every_count_and_merge_states() {
    let mut s = race(3);
    s.strategy = Strategy::CheckThenAct;
    let without = report(&s, true, Some(false));
    let with = report(&s, true, None);
    assert_eq!(with.schedules, without.schedules);
    assert_eq!(counts(&with), counts(&without));
    assert!(
        with.states * 2 < without.states,
        "{} states against {}",
        with.states,
        without.states
    );
}

#[test]
fn renaming_calls_a_fault_names_would_change_the_counts() {
    let mut s = race(2);
    s.strategy = Strategy::CheckThenAct;
    s.faults = vec![Fault::AcquirerDeclines { call: 1 }];
    let told_apart = report(&s, false, None);
    let guarded = report(&s, true, None);
    assert_eq!(counts(&guarded), counts(&told_apart));
    let forced = report(&s, true, Some(true));
    assert_ne!(
        counts(&forced),
        counts(&told_apart),
        "the fault on call 1 reads the number the renaming changes"
    );
}

#[test]
fn a_renamed_world_keeps_each_reference_on_its_call() {
    let mut s = race(3);
    s.strategy = Strategy::CheckThenAct;
    let canon = Canonicalizer::new(&s, true, true);
    // Walk every state; wherever the calls are out of attempt order,
    // rename them and check that each job and agenda event still names a
    // call of its own attempt.
    let mut seen = FixedSet::default();
    let mut stack = vec![quiet_world(&s)];
    let mut renamed = 0;
    while let Some(w) = stack.pop() {
        let mut c = w.clone();
        canon.apply(&mut c);
        if !seen.insert(c.fingerprint()) {
            continue;
        }
        let new_of = call_renaming(&w);
        if !new_of.is_empty() {
            let mut r = w.clone();
            rename_calls(&mut r, &new_of);
            let calls = &r.acquirer.calls;
            assert!(calls.windows(2).all(|p| p[0].attempt <= p[1].attempt));
            for (i, inst) in r.instances.iter().enumerate() {
                for job in inst.jobs.iter() {
                    if let Some(c) = job.call {
                        assert_eq!(calls[c as usize].attempt, job.attempt);
                        assert_eq!(calls[c as usize].instance, i as u32);
                    }
                }
            }
            for e in &r.agenda.items {
                if let Due::AcquirerReceive { call } | Due::AcquirerReply { call } = e.due {
                    let before = w
                        .agenda
                        .items
                        .iter()
                        .find(|x| x.seq == e.seq)
                        .expect("same event");
                    let (Due::AcquirerReceive { call: old } | Due::AcquirerReply { call: old }) =
                        before.due
                    else {
                        panic!("the event kept its kind");
                    };
                    assert_eq!(calls[call.ix()], w.acquirer.calls[old.ix()]);
                }
            }
            renamed += 1;
        }
        if !w.is_done() {
            stack.extend(successors_with(&w, &mut None).into_iter().map(|(_, n)| n));
        }
        assert!(seen.len() < 60_000, "too large for this test");
    }
    assert!(renamed > 100, "{renamed} worlds with calls out of order");
}
