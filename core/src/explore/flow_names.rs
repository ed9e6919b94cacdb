//! Whole flows renamed (`--reduction flows`): attempts that differ only by
//! name, with the instance each runs on and that instance's store sessions.
//!
//! In race-N every client sends one attempt, and each attempt runs on an
//! instance of its own. Client symmetry merges the orders of the sends, but
//! once the attempts are routed, attempt 0 on instance 0 and attempt 1 on
//! instance 1 are names: a state where the first is ahead and one where the
//! second is ahead are the same state with the flows swapped. Nothing
//! renames them, and race-5 check-then-act needs 51 million states under
//! `por` because of it.
//!
//! A flow is an attempt, its client, the instance it was routed to, that
//! instance's connections and their store sessions, and its acquirer call.
//! Renaming flows moves every reference with them: the attempts' list, a
//! client's current attempt and what it knows, a job's attempt, a
//! connection's job and session, the connection queue, a call's attempt
//! and instance, the agenda's events, and the store's sessions (a session's
//! number is only a name there: waiters wake in the order their waits
//! began, which no two share). Clients and calls are then renamed as client
//! symmetry renames them (by attempt), so they follow.
//!
//! Where it applies ([`flows_interchangeable`]): every client has the same
//! spec and sends once (one intent, no retry, HTTP), no fault is injected
//! and the acquirer declines nothing. A world is renamed once every
//! attempt is routed, each to an instance of its own (no instance left
//! without one), and no send, arrival or recovery sweep is due: from there
//! the load balancer never routes again, so its counter is no name of
//! anyone.
//!
//! The new order sorts flows by what they hold ([`key`]), names left out;
//! flows with equal keys keep their order. Any such order is a renaming of
//! a state into its own class, so the search stays sound whatever the key;
//! the more the key tells, the more states merge.
//!
//! What the report then says: the verdicts of every property, the shortest
//! example of each in steps, and the outcomes up to which attempt is which.
//! An outcome names attempts by number (an answer per attempt; "attempt 2
//! answered 409"), so outcomes that differ only in that are one line,
//! standing for every order of its attempts. `cross_check.rs` compares
//! such a report with the full search class by class.

use crate::fingerprint::FingerprintHasher;
use crate::permutation::{permuted, placing};
use crate::scenario::{ClientKind, Scenario};
use crate::store::SessionId;
use crate::trace::Knowledge;
use crate::world::{Due, World};
use std::hash::Hash;

/// Whether `s`'s flows are interchangeable once routed (module doc);
/// `classes` are its classes of interchangeable clients.
pub(crate) fn flows_interchangeable(s: &Scenario, classes: &[Vec<u32>]) -> bool {
    classes.len() == 1
        && classes[0].len() == s.clients.len()
        && s.faults.is_empty()
        && !s.acquirer.decline
        && s.clients
            .iter()
            .all(|c| c.intents.len() == 1 && c.retries_max == 0 && c.kind == ClientKind::Http)
}

/// Where each flow goes: attempt `a` becomes `attempts[a]`, instance `i`
/// becomes `instances[i]`, session `s` becomes `sessions[s]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FlowMap {
    pub(crate) attempts: Vec<u32>,
    pub(crate) instances: Vec<u32>,
    pub(crate) sessions: Vec<u32>,
}

/// The canonical renaming of `w`'s flows, when they are all routed and it
/// moves any.
pub(crate) fn flow_renaming(w: &World) -> Option<FlowMap> {
    let instance_of = routed(w)?;
    let n = instance_of.len() as u32;
    let keys: Vec<u128> = (0..n).map(|a| key(w, a)).collect();
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_by_key(|&a| (keys[a as usize], a));
    if order.iter().enumerate().all(|(j, &a)| j as u32 == a) {
        return None;
    }
    Some(flow_map(w, &order, &instance_of))
}

/// Each attempt's instance, when every attempt is routed to an instance of
/// its own, every instance has one, and nothing is left to route.
fn routed(w: &World) -> Option<Vec<u32>> {
    let n = w.attempts.len();
    if n < 2 || n != w.instances.len() {
        return None;
    }
    let mut instance_of = vec![0u32; n];
    let mut taken = vec![false; n];
    for (a, at) in w.attempts.iter().enumerate() {
        let i = at.instance? as usize;
        if std::mem::replace(&mut taken[i], true) {
            return None;
        }
        instance_of[a] = i as u32;
    }
    let routing = |d: &Due| {
        matches!(
            d,
            Due::ClientSend { .. } | Due::ArriveAtInstance { .. } | Due::RecoverySweep
        )
    };
    (!w.agenda.items.iter().any(|e| routing(&e.due))).then_some(instance_of)
}

/// The renaming that makes attempt `order[j]` attempt `j`, whatever the
/// flows hold, when `w`'s flows are routed: what the tests try every
/// permutation with.
#[cfg(test)]
pub(crate) fn flow_map_by(w: &World, order: &[u32]) -> Option<FlowMap> {
    let instance_of = routed(w)?;
    Some(flow_map(w, order, &instance_of))
}

/// The renaming that makes attempt `order[j]` attempt `j`, moved to the
/// instance attempt `j` was on (so each attempt keeps the instance of its
/// number), with that instance's sessions, connection by connection.
fn flow_map(w: &World, order: &[u32], instance_of: &[u32]) -> FlowMap {
    let attempts = placing(order);
    let mut instances = vec![0u32; order.len()];
    for (j, &a) in order.iter().enumerate() {
        instances[instance_of[a as usize] as usize] = instance_of[j];
    }
    let mut sessions: Vec<u32> = (0..w.store.sessions_len() as u32).collect();
    for (i, inst) in w.instances.iter().enumerate() {
        let to = &w.instances[instances[i] as usize];
        for (from, to) in inst.connections.iter().zip(to.connections.iter()) {
            sessions[from.session.0 as usize] = to.session.0;
        }
    }
    FlowMap {
        attempts,
        instances,
        sessions,
    }
}

/// What flow `a` holds, with no number of anyone in it: its attempt, its
/// client, its instance with its job and its call, its sessions (with where
/// their versions lie in each table), and its events due.
fn key(w: &World, a: u32) -> u128 {
    let mut h = FingerprintHasher::new();
    let at = &w.attempts[a as usize];
    let c = &w.clients[at.client as usize];
    let knowledge = match c.knowledge {
        Knowledge::Idle => (0u8, 0u16),
        Knowledge::Waiting { .. } => (1, 0),
        Knowledge::Unknown { .. } => (2, 0),
        Knowledge::Backoff => (3, 0),
        Knowledge::Answered { status, .. } => (4, status),
        Knowledge::GaveUp => (5, 0),
    };
    (
        (
            &at.answer,
            at.timed_out,
            at.reached_acquirer,
            &at.in_flight,
            &at.headers,
        ),
        (c.attempts_for_intent, knowledge, c.done),
    )
        .hash(&mut h);
    let inst = &w.instances[at.instance.expect("routed") as usize];
    (
        inst.alive,
        &inst.crash_at,
        inst.jobs.len() as u32,
        inst.connection_queue.len() as u32,
    )
        .hash(&mut h);
    for job in inst.jobs.iter() {
        let call = job.call.map(|c| {
            let c = &w.acquirer.calls[c as usize];
            (
                c.sent_ms,
                c.received_ms,
                c.accepted,
                c.reply_lost,
                c.settled,
            )
        });
        let mut job = job.clone();
        job.attempt = 0;
        job.call = None;
        (job, call).hash(&mut h);
    }
    for conn in inst.connections.iter() {
        (conn.job.is_some(), w.store.session_key(conn.session)).hash(&mut h);
    }
    for e in &w.agenda.items {
        let mine = match e.due {
            Due::ClientTimeout { attempt, .. }
            | Due::ResponseArrive { attempt }
            | Due::Step { attempt, .. } => attempt.0 == a,
            Due::AcquirerReceive { call }
            | Due::AcquirerReply { call }
            | Due::AcquirerTimeout { call } => w.acquirer.calls[call.ix()].attempt == a,
            _ => false,
        };
        if mine {
            (e.at, std::mem::discriminant(&e.due)).hash(&mut h);
        }
    }
    h.finish128()
}

/// Renames `w`'s flows by `m`, every reference with them (module doc).
pub(crate) fn rename_flows(w: &mut World, m: &FlowMap) {
    let to = |a: u32| m.attempts[a as usize];
    w.attempts = permuted(std::mem::take(&mut w.attempts), &m.attempts);
    for at in w.attempts.iter_mut() {
        at.instance = at.instance.map(|i| m.instances[i as usize]);
    }
    for c in w.clients.iter_mut() {
        c.current = c.current.map(to);
        if let Knowledge::Waiting { attempt }
        | Knowledge::Unknown { attempt }
        | Knowledge::Answered { attempt, .. } = &mut c.knowledge
        {
            *attempt = to(*attempt);
        }
    }
    w.instances = permuted(std::mem::take(&mut w.instances), &m.instances);
    for inst in w.instances.iter_mut() {
        let edit = &mut **inst;
        for job in edit.jobs.iter_mut() {
            job.attempt = to(job.attempt);
        }
        for conn in edit.connections.iter_mut() {
            conn.session = SessionId(m.sessions[conn.session.0 as usize]);
            conn.job = conn.job.map(to);
        }
        for a in edit.connection_queue.iter_mut() {
            *a = to(*a);
        }
    }
    for c in w.acquirer.calls.iter_mut() {
        c.attempt = to(c.attempt);
        c.instance = m.instances[c.instance as usize];
    }
    for e in &mut w.agenda.items {
        e.rename_flow(to, |i| m.instances[i as usize]);
    }
    w.store.rename_sessions(&m.sessions);
}
