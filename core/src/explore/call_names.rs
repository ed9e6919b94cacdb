//! Capture calls renamed by what they are, not by when they were made:
//! part of client symmetry (see `reduce.rs`).
//!
//! A call's number is its place in the acquirer's list, so two flows that
//! capture in either order make two worlds that differ only in those
//! numbers: race-4 has four captures that may come in any of 24 orders.
//! Nothing in the model reads a call's number but to find the call (its
//! job, its agenda events, the calls a recovery lookup returned), unless
//! the scenario names a call by its number (a fault on the n-th call), or
//! a call can be refused: a property then reads which refusal of a key
//! came first. Outside those, a renaming that moves every reference with
//! its call keeps every future of the world, and the counts stay exact.
//!
//! The new order is by attempt, then by the old number: an attempt's own
//! calls come one after another from its one job, so their order is its
//! own history, whatever the others did meanwhile. Attempt numbers are
//! send order, which client symmetry leaves alone.

use crate::permutation::{permuted, placing};
use crate::scenario::{Fault, Scenario};
use crate::world::World;

/// Whether a call's number is only a name in `s` (see the module's doc).
pub(crate) fn calls_interchangeable(s: &Scenario) -> bool {
    !s.acquirer.decline
        && !s.faults.iter().any(|f| {
            matches!(
                f,
                Fault::AcquirerDeclines { .. } | Fault::AcquirerTimeoutAfterAccept { .. }
            )
        })
}

/// Each call's new number, old number first; empty when the calls are in
/// the canonical order already.
pub(crate) fn call_renaming(w: &World) -> Vec<u32> {
    let calls = &w.acquirer.calls;
    if calls.windows(2).all(|p| p[0].attempt <= p[1].attempt) {
        return Vec::new();
    }
    let mut order: Vec<u32> = (0..calls.len() as u32).collect();
    order.sort_unstable_by_key(|&i| (calls[i as usize].attempt, i));
    placing(&order)
}

/// Moves call `c` to `new_of[c]` and renames every reference to it.
pub(crate) fn rename_calls(w: &mut World, new_of: &[u32]) {
    let acquirer = &mut *w.acquirer;
    acquirer.calls = permuted(std::mem::take(&mut acquirer.calls), new_of);
    let to = |c: u32| new_of[c as usize];
    for inst in w.instances.iter_mut() {
        // Only instances with a renamed call are written: a write unshares
        // the instance and drops its cached fingerprint.
        let renamed = inst.jobs.iter().any(|j| j.call.is_some_and(|c| to(c) != c));
        if renamed {
            for job in inst.jobs.iter_mut() {
                job.call = job.call.map(to);
            }
        }
    }
    for e in &mut w.agenda.items {
        e.rename_call(to);
    }
    for r in &mut w.watch.resolutions {
        // A lookup lists calls in increasing number, as it would have here.
        for c in &mut r.evidence {
            *c = to(*c);
        }
        r.evidence.sort_unstable();
    }
}
