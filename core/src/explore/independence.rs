//! Independence of steps, for the partial-order reduction: which parts of
//! a world each due event reads and writes, and the persistent set a state
//! is expanded by.
//!
//! **Transitions.** Under `--reduction por` ties are unordered, and the
//! explorer's only choice is which of the events due at the earliest
//! instant runs (`only_next_choices`). A transition is "run event `e`".
//! Events due later cannot run until every event of this instant has run,
//! so every path that leaves an event of this instant pending stays at this
//! instant: the rest of the run matters to a persistent set only as far as
//! it can reach *at this instant*.
//!
//! **Footprints.** Each event gets the tokens it reads and writes:
//! `STORE` (the tables, their rows, locks and transactions), `ACQUIRER`
//! (its list of calls, its captures, the keys it has seen, the broker),
//! `WATCH` (the history the properties read, `forgotten_unresolved`
//! included), one token per client (the client's state, its attempts and
//! their acquirer calls) and one per instance (its jobs, connections and
//! queue). The load balancer's counter and the list of attempts have no
//! token: only events given every token touch them. A capture only appends
//! its own call to the acquirer's list, so where the search renames calls
//! (`call_names.rs`) two captures in either order reach one canonical
//! world, and a capture is given only its flow's tokens. Two events are
//! *independent* when neither writes a token the
//! other reads or writes. Then, from any state where both are due, running
//! them in either order reaches the same world (up to the renamings the
//! search already makes: the store's transaction ids and commit numbers,
//! and the capture calls), and neither
//! removes the other from the agenda. `independence_tests.rs` checks both
//! facts on every pair the relation calls independent, state by state.
//!
//! **What is left coarse, on purpose.** Every statement writes the whole
//! store: a commit wakes waiters and publishes rows, a serializable read
//! records what it read, and even a BEGIN, which takes no snapshot, keeps
//! the store from forgetting its history (`Store::vacuum` runs after any
//! statement while no transaction is open, so a BEGIN and another
//! session's last statement reach different stores in the two orders).
//! Events that touch everything (a send, which makes
//! an attempt and may route it at once; an arrival, which the balancer
//! routes; a crash, a restart, a recovery sweep; any step of an instance
//! armed to crash) are given every token.
//!
//! **Futures at this instant.** A pending event `f` can lead, at this
//! instant, to its flow's later steps: a handler's next step is due at once
//! when it is not a statement (or when `db_latency_ms` is 0), an acquirer
//! call is answered at once when its latency is 0, a response arrives at
//! once when the network has no latency, and a retry or a next intent
//! leaves at once when the client waits 0 ms. `future` over-approximates
//! the footprint of `f` and all of that. A flow with a live job may touch
//! the store, the acquirer (unless it has called it already, in a design
//! that captures once a job), the watch, its instance and its client; a job
//! waiting for a lock or a connection resumes on someone else's step, so
//! while any job waits every flow's future includes every job's instance
//! and client; and a response that can be retried at once may start a new
//! flow anywhere, which is every token.
//!
//! **Persistent sets.** From a seed event, the set grows by every pending
//! event whose future conflicts with the footprint of an event in the set,
//! until closed. Then no path of events outside the set (and of what they
//! lead to at this instant) touches what the set's events touch, so each
//! stays due with the same footprint, and each commutes with the whole
//! path. That is Godefroid's persistent set; the explorer expands the
//! smallest one over all seeds.
//!
//! **Why the verdicts stay exact.** The state graph is acyclic (time and
//! the agenda only move forward). A search that expands a persistent set at
//! every state reaches every terminal state the full search reaches, by a
//! path of the same length (Godefroid, 1996, theorem 6.14: a path to a
//! terminal state must contain an event of the set, and the first such
//! event commutes to the front). Every property is judged on terminal
//! worlds, whose history the world carries (`watch`, the attempts, the
//! acquirer's calls). So the end states, the outcomes, the *always* and
//! *sometimes* verdicts, and the shortest example of each in steps are
//! those of the full search. What is not kept is the number of paths: the
//! reduced report gives no schedule counts. Client symmetry merges states
//! with the same future up to a renaming of clients, and the relation is
//! the same under any such renaming (its tokens are per client and the
//! clients of a class have equal specs), so the two reductions compose.
//! Renaming whole flows (`flow_names.rs`) moves a client's and an
//! instance's tokens with them, and composes the same way.
//!
//! **A limit.** A run ends early at `limits::EVENTS_MAX` steps, which is
//! not a terminal state of the model but a cut. The full search already
//! merges states whatever their step counts; models the explorer can finish
//! are far below the limit.

use super::*;
use crate::handler::{self, Kind};
use crate::world::InstanceId;

/// What one event (or a future) reads and writes, as token bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Footprint {
    pub(crate) reads: u32,
    pub(crate) writes: u32,
}

impl Footprint {
    pub(crate) const ALL: Footprint = Footprint {
        reads: u32::MAX,
        writes: u32::MAX,
    };

    fn writing(writes: u32) -> Footprint {
        Footprint { reads: 0, writes }
    }

    fn reading(reads: u32) -> Footprint {
        Footprint { reads, writes: 0 }
    }

    fn with(self, o: Footprint) -> Footprint {
        Footprint {
            reads: self.reads | o.reads,
            writes: self.writes | o.writes,
        }
    }

    /// Whether running the two in either order could differ.
    pub(crate) fn conflicts(self, o: Footprint) -> bool {
        self.writes & (o.reads | o.writes) != 0 || o.writes & self.reads != 0
    }
}

/// The tokens. Clients and instances take a bit each, within the limits.
pub(crate) mod token {
    pub const STORE: u32 = 1 << 0;
    pub const ACQUIRER: u32 = 1 << 1;
    pub const WATCH: u32 = 1 << 2;

    pub fn client(c: u32) -> u32 {
        1 << (8 + c)
    }

    pub fn instance(i: u32) -> u32 {
        1 << (16 + i)
    }
}

const _: () = assert!(crate::scenario::limits::CLIENTS_MAX <= 8);
const _: () = assert!(crate::scenario::limits::INSTANCES_MAX <= 8);

/// Which waits of a scenario are 0 ms, so that one event leads to another
/// at the same instant.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instants {
    /// A response arrives in the step after it is sent.
    response_now: bool,
    /// A client may send again (a retry, or its next intent) at once.
    send_now: bool,
    /// The acquirer answers a call the instant it receives it.
    reply_now: bool,
}

impl Instants {
    pub(crate) fn of(s: &Scenario) -> Instants {
        Instants {
            response_now: s.network.latency_ms == 0 && s.network.jitter_ms == 0,
            send_now: s.clients.iter().any(|c| {
                (c.retries_max > 0 && c.backoff_ms == 0)
                    || (c.intents.len() > 1 && c.gap_between_intents_ms == 0)
            }),
            reply_now: s.acquirer.latency_ms - s.acquirer.latency_ms / 2 == 0,
        }
    }
}

/// The client that sent `attempt`.
fn client_of(w: &World, attempt: AttemptId) -> u32 {
    w.attempts[attempt.ix()].client
}

/// What `due` reads and writes if it runs now in `w`, where `waiting` are
/// the tokens of the jobs waiting (see [`Waits`]) and `calls_renamed` says
/// whether the search renames capture calls (`call_names.rs`).
fn footprint(w: &World, due: &Due, waiting: u32, calls_renamed: bool) -> Footprint {
    use token::*;
    match *due {
        Due::ClientSend { .. }
        | Due::ArriveAtInstance { .. }
        | Due::Crash { .. }
        | Due::Restart { .. }
        | Due::RecoverySweep => Footprint::ALL,
        Due::ClientTimeout { client: c, .. } => Footprint::writing(client(c.0)),
        Due::ResponseArrive { attempt } => Footprint::writing(client(client_of(w, attempt))),
        Due::AcquirerReceive { call } => {
            let c = &w.acquirer.calls[call.ix()];
            Footprint::writing(ACQUIRER | client(client_of(w, AttemptId(c.attempt))))
        }
        Due::AcquirerReply { call } | Due::AcquirerTimeout { call } => {
            let c = &w.acquirer.calls[call.ix()];
            Footprint::writing(client(client_of(w, AttemptId(c.attempt))) | instance(c.instance))
        }
        Due::Step {
            instance: i,
            attempt,
        } => {
            if w.instances[i.ix()].crash_at.is_some() {
                return Footprint::ALL;
            }
            let Some(job) = w.job(i, attempt) else {
                return Footprint::reading(instance(i.0));
            };
            let mine = instance(i.0) | client(client_of(w, attempt));
            match handler::kind(&w.scenario, job.pc) {
                // A capture appends its call to the acquirer's list: two
                // appends in either order differ only in the calls'
                // numbers, which the renaming puts back in one order.
                Kind::Capture if calls_renamed => Footprint::writing(mine),
                Kind::Capture => Footprint::writing(ACQUIRER | mine),
                Kind::Publish => Footprint::writing(ACQUIRER | instance(i.0)),
                Kind::Respond => respond(w, attempt, mine),
                // A statement may wake any job waiting on a lock.
                _ => Footprint::writing(STORE | WATCH | instance(i.0) | waiting),
            }
        }
    }
}

/// An answer's footprint: its instance and client; a queue's ack is also
/// judged against the acquirer's captures and noted in the watch.
fn respond(w: &World, attempt: AttemptId, mine: u32) -> Footprint {
    if w.is_delivery(attempt) {
        Footprint {
            reads: token::ACQUIRER,
            writes: token::WATCH | mine,
        }
    } else {
        Footprint::writing(mine)
    }
}

/// Who waits in a state, worked out once for all its events.
struct Waits {
    /// The instances and clients of every job waiting for a lock or a
    /// connection: what a statement elsewhere can set going again.
    waiting: u32,
    /// While any job waits, the instances and clients of every job: a
    /// woken job runs on someone else's step, so every flow's future holds
    /// them; 0 while none waits.
    woken: u32,
}

impl Waits {
    fn of(w: &World) -> Waits {
        let (mut waiting, mut all, mut anyone) = (0, 0, false);
        for (i, inst) in w.instances.iter().enumerate() {
            anyone |= !inst.connection_queue.is_empty();
            for job in inst.jobs.iter() {
                let t =
                    token::instance(i as u32) | token::client(client_of(w, AttemptId(job.attempt)));
                all |= t;
                if job.waiting_since_ms.is_some() || inst.connection_queue.contains(&job.attempt) {
                    waiting |= t;
                    anyone = true;
                }
            }
        }
        Waits {
            waiting,
            woken: if anyone { all } else { 0 },
        }
    }
}

/// What the flow of `attempt`'s job at instance `i` may touch at this
/// instant: its later steps, its call's answer, its response and what the
/// client does with it.
fn flow_future(w: &World, i: u32, attempt: AttemptId, inst: &Instants, woken: u32) -> Footprint {
    use token::*;
    if inst.response_now && inst.send_now {
        return Footprint::ALL;
    }
    let mine = instance(i) | client(client_of(w, attempt));
    // A job about to answer (or to publish, then answer) has no statement
    // and no capture left.
    let job = w.job(InstanceId(i), attempt);
    // A job that has called the acquirer calls it no more, in the designs
    // whose handlers have no way back to the capture (the lease and the
    // queue's handlers may retake a key and capture again).
    let called = job.is_some_and(|j| j.call.is_some())
        && !w.is_delivery(attempt)
        && handler::captures_once(&w.scenario);
    let acquirer = if called { 0 } else { ACQUIRER };
    let rest = match job.map(|j| handler::kind(&w.scenario, j.pc)) {
        Some(Kind::Respond) => respond(w, attempt, mine),
        Some(Kind::Publish) => respond(w, attempt, mine).with(Footprint::writing(ACQUIRER)),
        _ => Footprint::writing(STORE | acquirer | WATCH | mine),
    };
    rest.with(Footprint::writing(woken))
}

/// What `due` (whose own footprint is `own`) and everything it may lead to
/// at this instant may touch.
fn future(w: &World, due: &Due, own: Footprint, inst: &Instants, woken: u32) -> Footprint {
    let flow = |i: u32, a: AttemptId| flow_future(w, i, a, inst, woken);
    match *due {
        Due::ClientTimeout { .. } | Due::ResponseArrive { .. } if inst.send_now => Footprint::ALL,
        Due::ClientTimeout { .. } | Due::ResponseArrive { .. } => own,
        Due::AcquirerReceive { call } if inst.reply_now => {
            let c = &w.acquirer.calls[call.ix()];
            own.with(flow(c.instance, AttemptId(c.attempt)))
        }
        Due::AcquirerReceive { .. } => own,
        Due::AcquirerReply { call } | Due::AcquirerTimeout { call } => {
            let c = &w.acquirer.calls[call.ix()];
            own.with(flow(c.instance, AttemptId(c.attempt)))
        }
        Due::Step { instance, attempt } if w.job(instance, attempt).is_some() => {
            own.with(flow(instance.0, attempt))
        }
        _ => own,
    }
}

/// The relation a persistent set is built with: footprints and futures of
/// the events due now. A trait, so that the tests can hand the search a
/// deliberately wrong relation and see the cross-checks fail.
pub(crate) trait Relation {
    /// For each of the first `n` agenda events, its own footprint and its
    /// future at this instant.
    fn of(&self, w: &World, n: usize) -> Vec<(Footprint, Footprint)>;
}

/// The relation the module doc describes.
pub(crate) struct Tokens {
    instants: Instants,
    /// The search renames capture calls (`Canonicalizer::calls`).
    calls_renamed: bool,
}

impl Tokens {
    pub(crate) fn new(s: &Scenario, canon: &Canonicalizer) -> Tokens {
        Tokens {
            instants: Instants::of(s),
            calls_renamed: canon.calls,
        }
    }
}

impl Relation for Tokens {
    fn of(&self, w: &World, n: usize) -> Vec<(Footprint, Footprint)> {
        let waits = Waits::of(w);
        w.agenda.items[..n]
            .iter()
            .map(|e| {
                let own = footprint(w, &e.due, waits.waiting, self.calls_renamed);
                (own, future(w, &e.due, own, &self.instants, waits.woken))
            })
            .collect()
    }
}

/// The smallest persistent set among the first `n` due events of `w`, as
/// agenda positions in increasing order: all `n` when no smaller set is
/// closed.
pub(crate) fn persistent_set(w: &World, n: usize, relation: &dyn Relation) -> Vec<u32> {
    let prints = relation.of(w, n);
    let mut best: Option<Vec<u32>> = None;
    let mut inside = vec![false; n];
    for seed in 0..n {
        inside.iter_mut().for_each(|x| *x = false);
        inside[seed] = true;
        let mut members = vec![seed];
        let mut k = 0;
        while k < members.len() {
            let own = prints[members[k]].0;
            for (h, print) in prints.iter().enumerate() {
                if !inside[h] && own.conflicts(print.1) {
                    inside[h] = true;
                    members.push(h);
                }
            }
            k += 1;
        }
        if best.as_ref().is_none_or(|b| members.len() < b.len()) {
            let done = members.len() == 1;
            members.sort_unstable();
            best = Some(members.into_iter().map(|m| m as u32).collect());
            if done {
                break;
            }
        }
    }
    best.unwrap_or_default()
}
