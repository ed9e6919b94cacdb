//! The agenda: the events due, in time order, each with the code an
//! explorer fingerprints it by.

use super::*;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Due {
    ClientSend {
        client: ClientId,
    },
    ClientTimeout {
        client: ClientId,
        attempt: AttemptId,
    },
    ArriveAtInstance {
        attempt: AttemptId,
    },
    Step {
        instance: InstanceId,
        attempt: AttemptId,
    },
    AcquirerReceive {
        call: CallId,
    },
    AcquirerReply {
        call: CallId,
    },
    AcquirerTimeout {
        call: CallId,
    },
    ResponseArrive {
        attempt: AttemptId,
    },
    Crash {
        instance: InstanceId,
    },
    Restart {
        instance: InstanceId,
    },
    RecoverySweep,
}

/// An event on the agenda.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub at: u64,
    /// Insertion order, which breaks ties in `at`. Equality and `Hash`
    /// ignore it.
    pub seq: u64,
    pub due: Due,
    /// `due` as explorers fingerprint it (see `due_code`), worked out once
    /// when the event is scheduled rather than by a `match` on its kind at
    /// every fingerprint (measured in docs/performance.md).
    pub(crate) code: u32,
}

impl Event {
    pub(crate) fn new(at: u64, seq: u64, due: Due) -> Event {
        let code = due_code(&due);
        Event { at, seq, due, code }
    }

    /// Gives the event another client number (send and timeout events).
    pub(crate) fn rename_client(&mut self, to: impl Fn(u32) -> u32) {
        if self.due.rename_client(to) {
            self.code = due_code(&self.due);
        }
    }

    /// Gives the event other attempt and instance numbers (flow renaming:
    /// `explore/flow_names.rs`).
    pub(crate) fn rename_flow(
        &mut self,
        attempt: impl Fn(u32) -> u32,
        instance: impl Fn(u32) -> u32,
    ) {
        if self.due.rename_flow(attempt, instance) {
            self.code = due_code(&self.due);
        }
    }

    /// Gives the event another call number (acquirer events).
    pub(crate) fn rename_call(&mut self, to: impl Fn(u32) -> u32) {
        if self.due.rename_call(to) {
            self.code = due_code(&self.due);
        }
    }
}

/// Renamings of what an event names, each saying whether it names any:
/// an `Event` then works its code out again.
impl Due {
    pub(crate) fn rename_client(&mut self, to: impl Fn(u32) -> u32) -> bool {
        let (Due::ClientSend { client } | Due::ClientTimeout { client, .. }) = self else {
            return false;
        };
        *client = ClientId(to(client.0));
        true
    }

    pub(crate) fn rename_flow(
        &mut self,
        attempt: impl Fn(u32) -> u32,
        instance: impl Fn(u32) -> u32,
    ) -> bool {
        match self {
            Due::ClientTimeout { attempt: a, .. }
            | Due::ArriveAtInstance { attempt: a }
            | Due::ResponseArrive { attempt: a } => *a = AttemptId(attempt(a.0)),
            Due::Step {
                instance: i,
                attempt: a,
            } => {
                *i = InstanceId(instance(i.0));
                *a = AttemptId(attempt(a.0));
            }
            Due::Crash { instance: i } | Due::Restart { instance: i } => {
                *i = InstanceId(instance(i.0));
            }
            _ => return false,
        }
        true
    }

    pub(crate) fn rename_call(&mut self, to: impl Fn(u32) -> u32) -> bool {
        let (Due::AcquirerReceive { call }
        | Due::AcquirerReply { call }
        | Due::AcquirerTimeout { call }) = self
        else {
            return false;
        };
        *call = CallId(to(call.0));
        true
    }
}

/// Events ordered by (time, insertion). Hashing and equality ignore the
/// insertion counter, so worlds reached by different paths can be merged.
#[derive(Clone, Debug, Default)]
pub(crate) struct Agenda {
    pub(crate) items: Vec<Event>,
    pub(super) next_seq: u64,
}

impl Agenda {
    pub(super) fn push(&mut self, at_ms: u64, due: Due) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let pos = self
            .items
            .partition_point(|e| (e.at, e.seq) <= (at_ms, seq));
        self.items.insert(pos, Event::new(at_ms, seq, due));
    }
    pub(super) fn remove(&mut self, due: &Due) {
        self.items.retain(|e| e.due != *due);
    }
    pub(super) fn earliest(&self) -> Option<u64> {
        self.items.first().map(|e| e.at)
    }
    pub(super) fn due_count(&self, at_ms: u64) -> usize {
        self.items.iter().take_while(|e| e.at == at_ms).count()
    }
}

impl PartialEq for Agenda {
    fn eq(&self, other: &Self) -> bool {
        self.items.len() == other.items.len()
            && self
                .items
                .iter()
                .zip(&other.items)
                .all(|(a, b)| a.at == b.at && a.due == b.due)
    }
}

impl Eq for Agenda {}

impl Hash for Agenda {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for e in &self.items {
            e.at.hash(h);
            e.due.hash(h);
        }
    }
}

/// An event as (tag, first field, second field).
fn due_fields(d: &Due) -> (u64, u32, u32) {
    match *d {
        Due::ClientSend { client } => (0, client.0, 0),
        Due::ClientTimeout { client, attempt } => (1, client.0, attempt.0),
        Due::ArriveAtInstance { attempt } => (2, 0, attempt.0),
        Due::Step { instance, attempt } => (3, instance.0, attempt.0),
        Due::AcquirerReceive { call } => (4, 0, call.0),
        Due::AcquirerReply { call } => (5, 0, call.0),
        Due::AcquirerTimeout { call } => (6, 0, call.0),
        Due::ResponseArrive { attempt } => (7, 0, attempt.0),
        Due::Crash { instance } => (8, instance.0, 0),
        Due::Restart { instance } => (9, instance.0, 0),
        Due::RecoverySweep => (10, 0, 0),
    }
}

/// Marks an event whose numbers are too large for its short code.
pub(super) const NO_CODE: u32 = u32::MAX;

/// An event in 23 bits (its kind, then its two numbers in 4 and 15 bits),
/// or `NO_CODE` when a number does not fit (never, within the limits).
/// Kept on the agenda with each event (see `world::Event`).
pub(crate) fn due_code(d: &Due) -> u32 {
    let (tag, a, b) = due_fields(d);
    if a < 1 << 4 && b < 1 << 15 {
        Pack::new()
            .put(tag, 4)
            .put(u64::from(a), 4)
            .put(u64::from(b), 15)
            .word() as u32
    } else {
        NO_CODE
    }
}

/// The agenda's length, then each event in one word when its time is below
/// 2⁴⁰ ms and it has a short code (always, in practice), else in two; the
/// top bit of an event's first word says which.
impl Words for Agenda {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        h.word(self.items.len() as u64);
        for e in &self.items {
            debug_assert_eq!(e.code, due_code(&e.due), "stale code for {:?}", e.due);
            if e.at < 1 << 40 && e.code != NO_CODE {
                h.word(
                    Pack::new()
                        .put(e.at, 40)
                        .put(u64::from(e.code), 23)
                        .flag(true)
                        .word(),
                );
            } else {
                let (tag, a, b) = due_fields(&e.due);
                h.word(Pack::new().put(e.at, 63).flag(false).word());
                h.word(
                    Pack::new()
                        .put(tag, 4)
                        .put(u64::from(a), 28)
                        .put(u64::from(b), 32)
                        .word(),
                );
            }
        }
    }
}
