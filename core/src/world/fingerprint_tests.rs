//! Each part's fingerprint changes with each of its fields, and worlds
//! share one exactly when equal. The encodings live beside each type
//! (`impl Words`); these tests hold them to `Eq`.

use super::agenda::{NO_CODE, due_code};
use super::*;
use crate::design::Serves;
use crate::fingerprint::{Fingerprint, Words, of};
use crate::handler::Pc;
use crate::store::SessionId;
use std::fmt::Debug;

/// Every value differs from every other, and so must its fingerprint.
fn all_differ<T: Words + PartialEq + Debug>(values: &[T]) {
    for (i, a) in values.iter().enumerate() {
        for b in &values[i + 1..] {
            assert_ne!(a, b, "a variant that changes nothing");
            assert_ne!(of(a), of(b), "same fingerprint for {a:?} and {b:?}");
        }
    }
}

fn text(s: &str) -> Text {
    s.into()
}

#[test]
fn attempts_that_differ_in_any_field_differ() {
    let base = Attempt {
        client: 1,
        intent: 2,
        key: text("k-1"),
        sent_ms: 100,
        instance: None,
        answer: None,
        timed_out: false,
        reached_acquirer: false,
        in_flight: None,
        headers: None,
        body: text("{}"),
        fingerprint: text("f"),
    };
    let with = |f: &dyn Fn(&mut Attempt)| {
        let mut a = base.clone();
        f(&mut a);
        a
    };
    all_differ(&[
        base.clone(),
        with(&|a| a.client = 2),
        with(&|a| a.intent = 3),
        with(&|a| a.key = text("k-2")),
        with(&|a| a.key = text("k-1-retry-1")),
        with(&|a| a.sent_ms = 101),
        with(&|a| a.instance = Some(0)),
        with(&|a| a.instance = Some(1)),
        with(&|a| a.timed_out = true),
        with(&|a| a.reached_acquirer = true),
        with(&|a| a.answer = Some((201, text("a")))),
        with(&|a| a.answer = Some((200, text("a")))),
        with(&|a| a.answer = Some((201, text("b")))),
        with(&|a| a.in_flight = Some((201, text("a")))),
        with(&|a| a.headers = Some(text("a"))),
        with(&|a| a.headers = Some(text("b"))),
        with(&|a| {
            a.headers = Some(text("a"));
            a.in_flight = Some((201, text("a")));
        }),
        with(&|a| a.body = text("{ }")),
        with(&|a| a.fingerprint = text("g")),
        // Where the body ends and the fingerprint begins.
        with(&|a| {
            a.body = text("{}f");
            a.fingerprint = text("");
        }),
        // Where one text ends and the next begins.
        with(&|a| {
            a.answer = Some((201, text("ab")));
            a.in_flight = Some((201, text("c")));
        }),
        with(&|a| {
            a.answer = Some((201, text("a")));
            a.in_flight = Some((201, text("bc")));
        }),
        with(&|a| {
            a.key = text("k-1a");
            a.answer = Some((201, text("b")));
        }),
        with(&|a| {
            a.key = text("k-1");
            a.answer = Some((201, text("ab")));
        }),
    ]);
}

#[test]
fn clients_that_differ_in_any_field_differ() {
    let client = ClientState {
        intent: 0,
        attempts_for_intent: 1,
        knowledge: Knowledge::Idle,
        current: None,
        done: false,
    };
    let base = vec![client.clone(), client];
    let with = |f: &dyn Fn(&mut ClientState)| {
        let mut v = base.clone();
        f(&mut v[1]);
        v
    };
    let knowing = |k: Knowledge| with(&move |c: &mut ClientState| c.knowledge = k.clone());
    all_differ(&[
        base.clone(),
        base[..1].to_vec(),
        with(&|c| c.intent = 1),
        with(&|c| c.attempts_for_intent = 2),
        with(&|c| c.current = Some(0)),
        with(&|c| c.current = Some(1)),
        with(&|c| c.done = true),
        knowing(Knowledge::Waiting { attempt: 0 }),
        knowing(Knowledge::Waiting { attempt: 1 }),
        knowing(Knowledge::Unknown { attempt: 0 }),
        knowing(Knowledge::Backoff),
        knowing(Knowledge::Answered {
            attempt: 0,
            status: 201,
        }),
        knowing(Knowledge::Answered {
            attempt: 0,
            status: 409,
        }),
        knowing(Knowledge::Answered {
            attempt: 1,
            status: 201,
        }),
        knowing(Knowledge::GaveUp),
    ]);
}

#[test]
fn instances_that_differ_in_any_field_or_job_field_differ() {
    let jobs = [Job::new(0, false)];
    let connections = [Connection {
        session: SessionId(1),
        job: None,
    }];
    let base = Instance {
        alive: true,
        connections: connections.into_iter().collect(),
        jobs: jobs.into_iter().collect(),
        connection_queue: Short::new(),
        crash_at: None,
    };
    let with = |f: &dyn Fn(&mut Instance)| {
        let mut i = base.clone();
        f(&mut i);
        i
    };
    let job = |f: &dyn Fn(&mut Job)| with(&|i| f(&mut i.jobs[0]));
    all_differ(&[
        base.clone(),
        with(&|i| i.alive = false),
        with(&|i| i.connections[0].session = SessionId(2)),
        with(&|i| i.connections[0].job = Some(0)),
        with(&|i| i.connections.clear()),
        with(&|i| i.jobs.clear()),
        with(&|i| i.connection_queue.push(0)),
        with(&|i| i.connection_queue.extend([3, 4])),
        with(&|i| i.connection_queue.extend([4, 3])),
        with(&|i| i.connection_queue.extend([3, 4, 5, 6])),
        with(&|i| i.crash_at = Some((CrashPoint::AfterCommit, 5))),
        with(&|i| i.crash_at = Some((CrashPoint::AfterCommit, 6))),
        with(&|i| i.crash_at = Some((CrashPoint::AfterCaptureSent, 5))),
        job(&|j| j.attempt = 1),
        job(&|j| j.pc = Pc::Step(Serves::Http, 1)),
        job(&|j| j.pc = Pc::Step(Serves::Queue, 0)),
        job(&|j| j.pc = Pc::Awaiting(Serves::Http, 0)),
        job(&|j| j.row_id = Some(0)),
        job(&|j| j.row_id = Some(-1)),
        job(&|j| j.call = Some(0)),
        job(&|j| j.call = Some(1)),
        job(&|j| j.capture_result = Some(false)),
        job(&|j| j.capture_result = Some(true)),
        job(&|j| j.waiting_since_ms = Some(0)),
        job(&|j| j.waiting_since_ms = Some(1)),
        job(&|j| j.waiting_shape = crate::handler::ResultShape::Rows),
        job(&|j| j.waiting_shape = crate::handler::ResultShape::Count),
        job(&|j| j.reclaims = 1),
        job(&|j| j.balance = Some(0)),
        job(&|j| j.balance = Some(1)),
        job(&|j| j.version = Some(0)),
        job(&|j| j.version = Some(1)),
        job(&|j| {
            j.version = Some(7);
            j.row_id = None;
        }),
        job(&|j| j.lease_token = Some(0)),
        job(&|j| j.lease_token = Some(1)),
        job(&|j| {
            j.balance = Some(7);
            j.row_id = None;
        }),
        job(&|j| j.waiting_sql = Some(text("x"))),
        job(&|j| j.response = Some((200, text("x")))),
        job(&|j| j.response = Some((409, text("x")))),
        job(&|j| j.headers = Some(text("x"))),
        job(&|j| j.headers = Some(text("y"))),
        job(&|j| {
            j.response = Some((200, text("x")));
            j.headers = Some(text("x"));
        }),
        job(&|j| {
            j.waiting_sql = Some(text("xy"));
            j.response = Some((200, text("z")));
        }),
        job(&|j| {
            j.waiting_sql = Some(text("x"));
            j.response = Some((200, text("yz")));
        }),
    ]);
}

/// Events in one word and in two (a late time, a large number) alike;
/// the insertion counter, which `Eq` ignores, changes nothing.
#[test]
fn agendas_differ_as_their_events_do_and_only_so() {
    let agenda = |items: &[(u64, Due)]| {
        let mut a = Agenda::default();
        for (seq, (t, d)) in items.iter().enumerate() {
            a.items.push(Event::new(*t, seq as u64, d.clone()));
        }
        a
    };
    let all = [
        Due::ClientSend {
            client: ClientId(1),
        },
        Due::ClientTimeout {
            client: ClientId(1),
            attempt: AttemptId(2),
        },
        Due::ArriveAtInstance {
            attempt: AttemptId(2),
        },
        Due::Step {
            instance: InstanceId(1),
            attempt: AttemptId(2),
        },
        Due::AcquirerReceive { call: CallId(2) },
        Due::AcquirerReply { call: CallId(2) },
        Due::AcquirerTimeout { call: CallId(2) },
        Due::ResponseArrive {
            attempt: AttemptId(2),
        },
        Due::Crash {
            instance: InstanceId(1),
        },
        Due::Restart {
            instance: InstanceId(1),
        },
        Due::RecoverySweep,
    ];
    let late = 1u64 << 41;
    let mut agendas: Vec<Agenda> = vec![agenda(&[])];
    for d in &all {
        agendas.push(agenda(&[(5, d.clone())]));
        agendas.push(agenda(&[(late, d.clone())]));
    }
    agendas.extend([
        agenda(&[(
            6,
            Due::ClientSend {
                client: ClientId(1),
            },
        )]),
        agenda(&[(
            5,
            Due::AcquirerReply {
                call: CallId(1 << 15),
            },
        )]),
        agenda(&[(
            5,
            Due::Crash {
                instance: InstanceId(16),
            },
        )]),
        agenda(&[(5, all[0].clone()), (5, all[1].clone())]),
        agenda(&[(5, all[1].clone()), (5, all[0].clone())]),
    ]);
    all_differ(&agendas);
    let mut renumbered = agenda(&[(5, all[0].clone()), (late, all[1].clone())]);
    let before = of(&renumbered);
    for (i, e) in renumbered.items.iter_mut().enumerate() {
        e.seq = 10 + i as u64;
    }
    assert_eq!(of(&renumbered), before);
}

#[test]
fn an_event_keeps_its_code_through_a_renaming() {
    let mut e = Event::new(
        5,
        0,
        Due::ClientTimeout {
            client: ClientId(1),
            attempt: AttemptId(2),
        },
    );
    let before = e.code;
    e.rename_client(|c| c + 2);
    assert_eq!(
        e.due,
        Due::ClientTimeout {
            client: ClientId(3),
            attempt: AttemptId(2)
        }
    );
    assert_eq!(e.code, due_code(&e.due));
    assert_ne!(e.code, before);
    assert_eq!(
        due_code(&Due::AcquirerReply {
            call: CallId(1 << 15)
        }),
        NO_CODE
    );
}

/// Along runs of every built-in, two worlds share a fingerprint exactly
/// when they are equal.
#[test]
fn worlds_share_a_fingerprint_exactly_when_equal() {
    for name in crate::builtins::NAMES {
        let s = crate::builtins::builtin(name).expect("built-in");
        let mut worlds = worlds_along(&s, 3);
        // A world met twice (a run that waits in place) and the end of
        // another run, so that equal pairs are tested too.
        worlds.push(worlds[worlds.len() / 2].clone());
        worlds.extend(worlds_along(&s, 4).pop());
        let fps: Vec<Fingerprint> = worlds.iter_mut().map(|w| w.fingerprint()).collect();
        let mut equal_pairs = 0;
        for i in 0..worlds.len() {
            for j in i + 1..worlds.len() {
                let equal = worlds[i] == worlds[j];
                equal_pairs += usize::from(equal);
                assert_eq!(equal, fps[i] == fps[j], "{name}: worlds {i} and {j}");
            }
        }
        assert!(equal_pairs > 0, "{name}: no equal pair was tested");
    }
}

/// The keys forgotten while unresolved are state: a world that forgot one
/// differs from the one that did not, and so does its fingerprint.
#[test]
fn a_forgotten_key_changes_the_world_and_its_fingerprint() {
    let s = crate::builtins::builtin("late-retry-after-ttl").expect("built-in");
    let plain = World::new(&s);
    let mut one = plain.clone();
    one.forgotten_unresolved.push(text("k"));
    let mut other = plain.clone();
    other.forgotten_unresolved.push(text("j"));
    let mut two = one.clone();
    two.forgotten_unresolved.push(text("k"));
    let mut worlds = [plain, one, other, two.clone()];
    for (i, a) in worlds.iter().enumerate() {
        for b in &worlds[i + 1..] {
            assert_ne!(a, b);
        }
    }
    let fps: Vec<Fingerprint> = worlds.iter_mut().map(|w| w.fingerprint()).collect();
    for i in 0..fps.len() {
        for j in i + 1..fps.len() {
            assert_ne!(fps[i], fps[j], "worlds {i} and {j}");
        }
    }
    let mut copy = World::new(&s);
    two.clone_into_reusing(&mut copy);
    assert_eq!(copy, two);
    assert_eq!(copy.fingerprint(), two.fingerprint());
}
