//! How explorers fingerprint a world: a fast 128-bit hasher, and the words
//! each part of a world is fed to it as.
//!
//! An explorer fingerprints every world a transition reaches. Fed the way
//! `Hash` feeds them (a word per field, per flag, per enum tag and per
//! string's end), race-4 under check-then-act hashed some 97 words per
//! transition, a fifth of the explorer's time. Here the small fields of a
//! value share a word ([`Pack`]), about half the words; every encoding is
//! inlined, so the hasher's lanes stay in registers; a string's last bytes
//! are read as one word rather than copied through a buffer; and an agenda
//! event's code is worked out when it is scheduled (`world::Event`).
//!
//! Sound as long as equal words mean equal values: each encoding writes
//! every field `Eq` compares, a length or a presence flag before whatever
//! it describes (so the words can be read back in only one way), and each
//! destructures its type, so a field added to it must be encoded here or
//! left out on purpose. Stateright and the tests still hash worlds by
//! `Hash`. The tests below change each field of each part in turn, and
//! compare fingerprint equality with `Eq` along runs of every built-in; the
//! explorer's state counts are checked against stateright's.

use crate::handler::Job;
use crate::scenario::CrashPoint;
use crate::store::Store;
use crate::trace::{EndReason, Knowledge};
use crate::world::{Acquirer, Agenda, Attempt, ClientState, Connection, Due, Instance};
use std::hash::{Hash, Hasher};

pub(crate) type Fingerprint = u128;

/// A 128-bit fingerprint hasher built for hashing many small words fast.
/// Words go round-robin into four multiply-rotate lanes, so four multiply
/// chains run side by side instead of one after another (about twice as
/// fast as ahash on a `World`), and every mixed word is also summed into a
/// fifth accumulator. Each lane step is a bijection of the lane for a given
/// word, so inputs that differ in one word always differ; otherwise two
/// states share a fingerprint only if a lane and the sum both collide, about
/// 2⁻¹²⁸ per pair. Stable across builds and platforms.
pub(crate) struct FingerprintHasher {
    lanes: [u64; 4],
    sum: u64,
}

impl FingerprintHasher {
    pub(crate) fn new() -> Self {
        Self {
            lanes: [
                0x243f_6a88_85a3_08d3,
                0x1319_8a2e_0370_7344,
                0xa409_3822_299f_31d0,
                0x082e_fa98_ec4e_6c89,
            ],
            sum: 0x4528_21e6_38d0_1377,
        }
    }

    #[inline(always)]
    pub(crate) fn word(&mut self, x: u64) {
        let m = (self.lanes[0] ^ x)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
        self.sum = self.sum.wrapping_add(m);
        self.lanes = [self.lanes[1], self.lanes[2], self.lanes[3], m];
    }

    pub(crate) fn finish128(&self) -> Fingerprint {
        let [a, b, c, d] = self.lanes;
        let hi = fmix64(a ^ b.rotate_left(17) ^ c.rotate_left(31) ^ d.rotate_left(47));
        let lo = fmix64(self.sum ^ fmix64(a.rotate_left(7) ^ c ^ d.rotate_left(53)) ^ b);
        (u128::from(hi) << 64) | u128::from(lo)
    }

    /// A part's fingerprint (or any other one folded into this), as two
    /// words.
    #[inline(always)]
    pub(crate) fn part(&mut self, fp: Fingerprint) {
        self.word((fp >> 64) as u64);
        self.word(fp as u64);
    }
}

/// The last `rest` (1 to 7) bytes of `bytes` as a little-endian word, zero
/// above them. Read in whole words that overlap bytes already hashed, not
/// copied into a buffer: a copy of a few bytes is a call to `memcpy`, and
/// reading the buffer back as a word stalls until the bytes land (keys and
/// bodies end in a partial word, and this was most of an attempt's hashing).
#[inline(always)]
fn tail(bytes: &[u8], rest: usize) -> u64 {
    let n = bytes.len();
    let at = |i: usize, w: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&bytes[i..i + w]);
        u64::from_le_bytes(b)
    };
    if n >= 8 {
        at(n - 8, 8) >> (8 * (8 - rest))
    } else if rest >= 4 {
        // Two 4-byte reads that overlap; the overlap has the same bytes in
        // the same places, so or-ing them is exact.
        at(0, 4) | at(n - 4, 4) << (8 * (rest - 4))
    } else {
        let (a, b, c) = (bytes[0], bytes[rest / 2], bytes[rest - 1]);
        u64::from(a) | u64::from(b) << (8 * (rest / 2)) | u64::from(c) << (8 * (rest - 1))
    }
}

/// MurmurHash3's finaliser: every input bit affects every output bit.
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

impl Hasher for FingerprintHasher {
    /// Whole words, then the rest (if any) in one word that also holds its
    /// length.
    #[inline(always)]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder().len();
        if rest != 0 {
            self.word(tail(bytes, rest) ^ ((rest as u64) << 59));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.word(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.word(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.word(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn finish(&self) -> u64 {
        self.finish128() as u64
    }
}

/// What an explorer feeds the hasher for a value: everything its `Eq`
/// compares, in as few words as can be read back unambiguously.
pub(crate) trait Words {
    fn words(&self, h: &mut FingerprintHasher);
}

/// The fingerprint of a value by its [`Words`].
pub(crate) fn of<T: Words>(value: &T) -> Fingerprint {
    let mut h = FingerprintHasher::new();
    value.words(&mut h);
    h.finish128()
}

/// Small fields packed into one word, lowest bits first.
///
/// A field wider than its slot panics instead of being cut, as a cut field
/// would merge different states. The widths leave a wide margin over what
/// the scenario limits allow (`scenario::limits`): at most 8 clients and 8
/// instances, 32 intents, 672 attempts (8 clients × 4 intents × 21 sends),
/// a few calls per attempt, times below 2⁴⁵ ms (20,000 events, none more
/// than 2³⁰ ms after the last), texts of kilobytes.
#[derive(Clone, Copy)]
#[must_use]
pub(crate) struct Pack {
    word: u64,
    used: u32,
}

impl Pack {
    pub(crate) const fn new() -> Pack {
        Pack { word: 0, used: 0 }
    }

    #[inline(always)]
    pub(crate) fn put(self, value: u64, bits: u32) -> Pack {
        assert!(self.used + bits <= 64, "a packed word holds 64 bits");
        assert!(
            bits == 64 || value >> bits == 0,
            "a fingerprint field outgrew its {bits} bits"
        );
        Pack {
            // `used` is below 64 whenever `bits` is not 0.
            word: self.word | value << (self.used % 64),
            used: self.used + bits,
        }
    }

    #[inline(always)]
    pub(crate) fn flag(self, b: bool) -> Pack {
        self.put(u64::from(b), 1)
    }

    /// `None` as 0, `Some(x)` as x + 1.
    #[inline(always)]
    pub(crate) fn opt(self, v: Option<u32>, bits: u32) -> Pack {
        self.put(v.map_or(0, |x| u64::from(x) + 1), bits)
    }

    #[inline(always)]
    pub(crate) fn len(self, n: usize, bits: u32) -> Pack {
        self.put(n as u64, bits)
    }

    pub(crate) fn word(self) -> u64 {
        self.word
    }
}

#[inline(always)]
fn text(h: &mut FingerprintHasher, s: &str) {
    h.write(s.as_bytes());
}

fn end_tag(end: &Option<EndReason>) -> u64 {
    match end {
        None => 0,
        Some(EndReason::Quiescent) => 1,
        Some(EndReason::Horizon) => 2,
        Some(EndReason::EventLimit) => 3,
    }
}

/// The world's own fields other than its parts: the time, the load
/// balancer's counter, how it ended, and the lengths of what follows.
#[inline(always)]
pub(crate) fn header(
    h: &mut FingerprintHasher,
    now_ms: u64,
    lb_next: u32,
    end: &Option<EndReason>,
    attempts: usize,
    instances: usize,
) {
    h.word(
        Pack::new()
            .put(now_ms, 48)
            .put(u64::from(lb_next), 16)
            .word(),
    );
    h.word(
        Pack::new()
            .len(attempts, 24)
            .len(instances, 8)
            .put(end_tag(end), 2)
            .word(),
    );
}

/// An event as (tag, first field, second field).
fn due_fields(d: &Due) -> (u64, u32, u32) {
    match *d {
        Due::ClientSend { client } => (0, client, 0),
        Due::ClientTimeout { client, attempt } => (1, client, attempt),
        Due::ArriveAtInstance { attempt } => (2, 0, attempt),
        Due::Step { instance, attempt } => (3, instance, attempt),
        Due::AcquirerReceive { call } => (4, 0, call),
        Due::AcquirerReply { call } => (5, 0, call),
        Due::AcquirerTimeout { call } => (6, 0, call),
        Due::ResponseArrive { attempt } => (7, 0, attempt),
        Due::Crash { instance } => (8, instance, 0),
        Due::Restart { instance } => (9, instance, 0),
        Due::RecoverySweep => (10, 0, 0),
    }
}

/// Marks an event whose numbers are too large for its short code.
const NO_CODE: u32 = u32::MAX;

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

#[inline(always)]
fn knowledge(k: &Knowledge) -> Pack {
    let (tag, attempt, status) = match *k {
        Knowledge::Idle => (0, 0, 0),
        Knowledge::Waiting { attempt } => (1, attempt, 0),
        Knowledge::Unknown { attempt } => (2, attempt, 0),
        Knowledge::Backoff => (3, 0, 0),
        Knowledge::Answered { attempt, status } => (4, attempt, status),
        Knowledge::GaveUp => (5, 0, 0),
    };
    Pack::new()
        .put(tag, 3)
        .put(u64::from(attempt), 32)
        .put(u64::from(status), 16)
}

/// The client count, then two words per client.
impl Words for Vec<ClientState> {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        h.word(self.len() as u64);
        for c in self {
            let ClientState {
                intent,
                attempts_for_intent,
                knowledge: k,
                current,
                done,
            } = c;
            h.word(
                Pack::new()
                    .put(u64::from(*intent), 16)
                    .put(u64::from(*attempts_for_intent), 16)
                    .opt(*current, 24)
                    .flag(*done)
                    .word(),
            );
            h.word(knowledge(k).word());
        }
    }
}

/// Two words of numbers, flags and lengths, a third for the bodies'
/// lengths when there is a body, then the key and the bodies.
impl Words for Attempt {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Attempt {
            client,
            intent,
            key,
            sent_ms,
            instance,
            answer,
            timed_out,
            reached_acquirer,
            in_flight,
        } = self;
        let status = |r: &Option<(u16, _)>| r.as_ref().map_or(0, |(s, _)| u64::from(*s));
        h.word(
            Pack::new()
                .put(u64::from(*client), 8)
                .put(u64::from(*intent), 8)
                .opt(*instance, 8)
                .flag(*timed_out)
                .flag(*reached_acquirer)
                .flag(answer.is_some())
                .flag(in_flight.is_some())
                .put(status(answer), 16)
                .put(status(in_flight), 16)
                .word(),
        );
        h.word(Pack::new().put(*sent_ms, 48).len(key.len(), 16).word());
        if answer.is_some() || in_flight.is_some() {
            let len = |r: &Option<(u16, crate::text::Text)>| r.as_ref().map_or(0, |(_, b)| b.len());
            h.word(
                Pack::new()
                    .len(len(answer), 32)
                    .len(len(in_flight), 32)
                    .word(),
            );
        }
        text(h, key);
        for (_, body) in answer.iter().chain(in_flight) {
            text(h, body);
        }
    }
}

fn crash_tag(c: &Option<(CrashPoint, u64)>) -> u64 {
    match c {
        None => 0,
        Some((CrashPoint::AfterCommit, _)) => 1,
        Some((CrashPoint::AfterCaptureSent, _)) => 2,
    }
}

/// A word of flags and lengths, the crash's time if one is armed, a word
/// per connection, the queue three to a word, then each job.
impl Words for Instance {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Instance {
            alive,
            connections,
            jobs,
            connection_queue,
            crash_at,
        } = self;
        h.word(
            Pack::new()
                .flag(*alive)
                .len(connections.len(), 16)
                .len(jobs.len(), 16)
                .len(connection_queue.len(), 16)
                .put(crash_tag(crash_at), 2)
                .word(),
        );
        if let Some((_, at)) = crash_at {
            h.word(*at);
        }
        for Connection { session, job } in connections {
            h.word(
                Pack::new()
                    .put(u64::from(session.0), 32)
                    .opt(*job, 24)
                    .word(),
            );
        }
        for three in connection_queue.chunks(3) {
            let mut p = Pack::new();
            for &q in three {
                p = p.put(u64::from(q), 21);
            }
            h.word(p.word());
        }
        for job in jobs {
            job.words(h);
        }
    }
}

/// A word of numbers and presence flags, then what is present: the row,
/// the time it started waiting, a word of the texts' lengths and the
/// response's status, and the texts.
impl Words for Job {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Job {
            attempt,
            pc,
            row_id,
            call,
            capture_result,
            waiting_since_ms,
            waiting_sql,
            waiting_returns_rows,
            response,
            reclaims,
        } = self;
        let captured = match capture_result {
            None => 0,
            Some(false) => 1,
            Some(true) => 2,
        };
        h.word(
            Pack::new()
                .put(u64::from(*attempt), 16)
                .put(*pc as u64, 8)
                .opt(*call, 24)
                .put(captured, 2)
                .flag(*waiting_returns_rows)
                .put(u64::from(*reclaims), 8)
                .flag(row_id.is_some())
                .flag(waiting_since_ms.is_some())
                .flag(waiting_sql.is_some())
                .flag(response.is_some())
                .word(),
        );
        if let Some(row) = row_id {
            h.word(*row as u64);
        }
        if let Some(since) = waiting_since_ms {
            h.word(*since);
        }
        if waiting_sql.is_some() || response.is_some() {
            h.word(
                Pack::new()
                    .len(waiting_sql.as_ref().map_or(0, |s| s.len()), 24)
                    .len(response.as_ref().map_or(0, |(_, b)| b.len()), 24)
                    .put(response.as_ref().map_or(0, |(s, _)| u64::from(*s)), 16)
                    .word(),
            );
        }
        if let Some(sql) = waiting_sql {
            text(h, sql);
        }
        if let Some((_, body)) = response {
            text(h, body);
        }
    }
}

/// Parts an explorer rarely rehashes (the store changes on few steps, the
/// acquirer on fewer) are fed as `Hash` feeds them.
impl Words for Store {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}

impl Words for Acquirer {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::Pc;
    use crate::store::Isolation;
    use crate::store::SessionId;
    use crate::world::{Event, Short, Text, worlds_along};
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
    fn a_tail_is_the_bytes_zero_padded() {
        let bytes: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37)).collect();
        for n in 1..=bytes.len() {
            let rest = n % 8;
            if rest == 0 {
                continue;
            }
            let mut buf = [0u8; 8];
            buf[..rest].copy_from_slice(&bytes[n - rest..n]);
            assert_eq!(
                tail(&bytes[..n], rest),
                u64::from_le_bytes(buf),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn a_pack_puts_fields_lowest_first() {
        let p = Pack::new()
            .put(0b101, 3)
            .flag(true)
            .opt(None, 4)
            .opt(Some(2), 4);
        // 0b101, then the flag, then None as 0, then Some(2) as 3.
        assert_eq!(p.word(), 0b101 | (1 << 3) | (3 << 8));
        assert_ne!(
            Pack::new().opt(None, 8).word(),
            Pack::new().opt(Some(0), 8).word()
        );
    }

    #[test]
    #[should_panic(expected = "outgrew its 4 bits")]
    fn a_pack_refuses_to_cut_a_field() {
        let _ = Pack::new().put(16, 4);
    }

    #[test]
    #[should_panic(expected = "holds 64 bits")]
    fn a_pack_refuses_more_than_a_word() {
        let _ = Pack::new().put(1, 40).put(1, 40);
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
        let jobs = [Job::new(
            0,
            crate::Strategy::IdempotencyKey,
            Isolation::ReadCommitted,
        )];
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
            job(&|j| j.pc = Pc::Capture),
            job(&|j| j.row_id = Some(0)),
            job(&|j| j.row_id = Some(-1)),
            job(&|j| j.call = Some(0)),
            job(&|j| j.call = Some(1)),
            job(&|j| j.capture_result = Some(false)),
            job(&|j| j.capture_result = Some(true)),
            job(&|j| j.waiting_since_ms = Some(0)),
            job(&|j| j.waiting_since_ms = Some(1)),
            job(&|j| j.waiting_returns_rows = true),
            job(&|j| j.reclaims = 1),
            job(&|j| j.waiting_sql = Some(text("x"))),
            job(&|j| j.response = Some((200, text("x")))),
            job(&|j| j.response = Some((409, text("x")))),
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
            Due::ClientSend { client: 1 },
            Due::ClientTimeout {
                client: 1,
                attempt: 2,
            },
            Due::ArriveAtInstance { attempt: 2 },
            Due::Step {
                instance: 1,
                attempt: 2,
            },
            Due::AcquirerReceive { call: 2 },
            Due::AcquirerReply { call: 2 },
            Due::AcquirerTimeout { call: 2 },
            Due::ResponseArrive { attempt: 2 },
            Due::Crash { instance: 1 },
            Due::Restart { instance: 1 },
            Due::RecoverySweep,
        ];
        let late = 1u64 << 41;
        let mut agendas: Vec<Agenda> = vec![agenda(&[])];
        for d in &all {
            agendas.push(agenda(&[(5, d.clone())]));
            agendas.push(agenda(&[(late, d.clone())]));
        }
        agendas.extend([
            agenda(&[(6, Due::ClientSend { client: 1 })]),
            agenda(&[(5, Due::AcquirerReply { call: 1 << 15 })]),
            agenda(&[(5, Due::Crash { instance: 16 })]),
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
                client: 1,
                attempt: 2,
            },
        );
        let before = e.code;
        e.rename_client(|c| c + 2);
        assert_eq!(
            e.due,
            Due::ClientTimeout {
                client: 3,
                attempt: 2
            }
        );
        assert_eq!(e.code, due_code(&e.due));
        assert_ne!(e.code, before);
        assert_eq!(due_code(&Due::AcquirerReply { call: 1 << 15 }), NO_CODE);
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
}
