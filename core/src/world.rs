//! The discrete-event world: clients, load balancer, instances running a
//! strategy's handler one atomic step at a time, the acquirer, and the store.
//!
//! `World::step` runs exactly one due event. When several are due at the same
//! instant it asks the [`Chooser`]; so do the load balancer's random policy
//! and network jitter. Nothing else is nondeterministic, so a world is a pure
//! function of (scenario, choices), and clones of it can be explored.

use crate::choice::{ChoiceKind, Chooser};
use crate::fingerprint;
use crate::handler::{self, Action, Job, Pc};
use crate::part::{Part, share};
use crate::scenario::*;
use crate::store::{Completion, Exec, SessionId, Stmt, Store};
use crate::trace::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub(crate) use crate::text::Text;
/// Kept at its old path for callers outside the crate.
pub use crate::text::fnv1a;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Due {
    ClientSend { client: u32 },
    ClientTimeout { client: u32, attempt: u32 },
    ArriveAtInstance { attempt: u32 },
    Step { instance: u32, attempt: u32 },
    AcquirerReceive { call: u32 },
    AcquirerReply { call: u32 },
    AcquirerTimeout { call: u32 },
    ResponseArrive { attempt: u32 },
    Crash { instance: u32 },
    Restart { instance: u32 },
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
    /// `due` as explorers fingerprint it (see `fingerprint::due_code`),
    /// worked out once when the event is scheduled rather than at every
    /// fingerprint, where it was a `match` on the kind of each of some
    /// eight events per transition: race-4 explored 4% faster without it.
    pub(crate) code: u32,
}

impl Event {
    pub(crate) fn new(at: u64, seq: u64, due: Due) -> Event {
        let code = fingerprint::due_code(&due);
        Event { at, seq, due, code }
    }

    /// Gives the event another client number (send and timeout events).
    pub(crate) fn rename_client(&mut self, to: impl Fn(u32) -> u32) {
        if let Due::ClientSend { client } | Due::ClientTimeout { client, .. } = &mut self.due {
            *client = to(*client);
            self.code = fingerprint::due_code(&self.due);
        }
    }
}

/// Events ordered by (time, insertion). Hashing and equality ignore the
/// insertion counter, so worlds reached by different paths can be merged.
#[derive(Clone, Debug, Default)]
pub(crate) struct Agenda {
    pub(crate) items: Vec<Event>,
    next_seq: u64,
}

impl Agenda {
    fn push(&mut self, at_ms: u64, due: Due) {
        let seq = self.next_seq;
        self.next_seq += 1;
        let pos = self
            .items
            .partition_point(|e| (e.at, e.seq) <= (at_ms, seq));
        self.items.insert(pos, Event::new(at_ms, seq, due));
    }
    fn remove(&mut self, due: &Due) {
        self.items.retain(|e| e.due != *due);
    }
    fn earliest(&self) -> Option<u64> {
        self.items.first().map(|e| e.at)
    }
    fn due_count(&self, at_ms: u64) -> usize {
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

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ClientState {
    pub intent: u32,
    pub attempts_for_intent: u32,
    pub knowledge: Knowledge,
    pub current: Option<u32>,
    pub done: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Attempt {
    pub client: u32,
    /// Global intent index (into `Summary::intents`).
    pub intent: u32,
    pub key: Text,
    pub sent_ms: u64,
    pub instance: Option<u32>,
    pub answer: Option<(u16, Text)>,
    pub timed_out: bool,
    pub reached_acquirer: bool,
    /// The answer on its way back to the client.
    pub in_flight: Option<(u16, Text)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Connection {
    pub session: SessionId,
    pub job: Option<u32>,
}

/// A list that is short in every scenario (an instance's connections, jobs
/// and queue), kept inline where worlds are explored: a step that edits an
/// instance copies it, and a copy of an instance with inline lists is one
/// allocation instead of three. In the peer bench (race-4, check-then-act,
/// one run each way) that made the explorer 10% faster depth-first and 27%
/// faster breadth-first; explored alone in a process, 2% depth-first. A
/// `Vec` on the page, which never explores: smallvec's code costs 3 kB of
/// gzip there.
#[cfg(feature = "shared-parts")]
pub(crate) type Short<T, const N: usize> = smallvec::SmallVec<[T; N]>;
#[cfg(not(feature = "shared-parts"))]
pub(crate) type Short<T, const N: usize> = Vec<T>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Instance {
    pub alive: bool,
    pub connections: Short<Connection, 2>,
    pub jobs: Short<Job, 2>,
    /// Jobs waiting for a free connection, in arrival order.
    pub connection_queue: Short<u32, 2>,
    /// A crash armed to strike at a point of this instance's handler.
    pub crash_at: Option<(CrashPoint, u64)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Call {
    pub instance: u32,
    pub attempt: u32,
    pub intent: u32,
    pub key: Text,
    pub sent_ms: u64,
    pub accepted: Option<bool>,
    pub reply_lost: bool,
    pub settled: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Acquirer {
    pub captures: Vec<u32>,
    pub calls: Vec<Call>,
    /// Provider-side keys already seen, with the answer given.
    pub seen_keys: Vec<(Text, bool)>,
}

#[derive(Clone, Debug)]
pub struct World {
    pub(crate) scenario: Arc<Scenario>,
    /// Distinct intents: clients that send the same (tenant, key, order,
    /// amount) are retrying one intent, as a double click does.
    pub(crate) intents: Arc<Vec<(u32, Intent)>>,
    /// For each client, its intents as indexes into `intents`.
    client_intents: Arc<Vec<Vec<u32>>>,
    pub(crate) now_ms: u64,
    pub(crate) agenda: Agenda,
    pub(crate) store: Part<Store>,
    pub(crate) clients: Part<Vec<ClientState>>,
    pub(crate) attempts: Vec<Part<Attempt>>,
    pub(crate) instances: Vec<Part<Instance>>,
    pub(crate) acquirer: Part<Acquirer>,
    pub(crate) recovery_session: SessionId,
    lb_next: u32,
    pub(crate) blocked_ms: u64,
    pub(crate) end: Option<EndReason>,
    steps: u32,
    events: Vec<TraceEvent>,
    /// Statements sent to the store since the last `take_store_log`.
    store_log: Vec<StoreStatement>,
    /// Off by default: explorers clone worlds and need no log.
    log_store: bool,
    /// No trace events and no SQL text: for explorers and swarms, which only
    /// read outcomes.
    quiet: bool,
}

/// Runs one statement on a world's store. The plain path runs the engine;
/// the explorer passes one that remembers what each statement did to each
/// store it met (see `explore::StoreMemo`), as a statement's effect is a
/// function of the store, the session and the statement alone.
pub(crate) trait StoreExec {
    /// Runs the statement `stmt` builds from `inputs` (see
    /// `handler::StmtInputs`: equal inputs build equal statements, so a
    /// memo can key on them and build the statement only on a miss).
    /// Borrowed when the answer is one already known: a memo hit then
    /// copies no rows.
    fn execute(
        &mut self,
        store: &mut Part<Store>,
        session: SessionId,
        inputs: &handler::StmtInputs,
        stmt: &dyn Fn() -> Stmt,
    ) -> std::borrow::Cow<'_, Exec>;
}

/// One statement as the store saw it: which connection, what, and how it
/// ended. Enough to replay the run's store traffic on a real PostgreSQL.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct StoreStatement {
    /// The store session (one per pooled connection).
    pub session: u32,
    pub instance: Option<u32>,
    pub time_ms: u64,
    pub stmt: Stmt,
    /// True when the statement had to wait for another transaction.
    pub waited: bool,
}

/// Identity of a world for exploration: everything that affects the future,
/// nothing that only records the past.
impl PartialEq for World {
    fn eq(&self, o: &Self) -> bool {
        self.now_ms == o.now_ms
            && self.agenda == o.agenda
            && self.store == o.store
            && self.clients == o.clients
            && self.attempts == o.attempts
            && self.instances == o.instances
            && self.acquirer == o.acquirer
            && self.lb_next == o.lb_next
            && self.end == o.end
    }
}
impl Eq for World {}
impl Hash for World {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.now_ms.hash(h);
        self.agenda.hash(h);
        self.clients.hash(h);
        self.attempts.hash(h);
        self.instances.hash(h);
        self.acquirer.hash(h);
        self.lb_next.hash(h);
        self.end.hash(h);
        self.store.hash(h);
    }
}

impl World {
    /// The world's fingerprint for explorers: what `Eq` compares, with each
    /// [`Part`] (clients, each attempt, each instance, the acquirer, the
    /// store) written as its own fingerprint, computed only for the parts
    /// changed since (see `crate::fingerprint`).
    pub(crate) fn fingerprint(&mut self) -> fingerprint::Fingerprint {
        // Destructured, so that a field added to `World` must be put here or
        // left out on purpose.
        let World {
            scenario: _,
            intents: _,
            client_intents: _,
            now_ms,
            agenda,
            store,
            clients,
            attempts,
            instances,
            acquirer,
            recovery_session: _,
            lb_next,
            blocked_ms: _,
            end,
            steps: _,
            events: _,
            store_log: _,
            log_store: _,
            quiet: _,
        } = self;
        let mut h = fingerprint::FingerprintHasher::new();
        fingerprint::header(
            &mut h,
            *now_ms,
            *lb_next,
            end,
            attempts.len(),
            instances.len(),
        );
        fingerprint::Words::words(agenda, &mut h);
        h.part(clients.fingerprint(fingerprint::of));
        for attempt in attempts {
            h.part(attempt.fingerprint(fingerprint::of));
        }
        for instance in instances {
            h.part(instance.fingerprint(fingerprint::of));
        }
        h.part(acquirer.fingerprint(fingerprint::of));
        h.part(store.fingerprint(fingerprint::of));
        h.finish128()
    }
}

impl World {
    /// Makes `target` a copy of `self`, reusing `target`'s buffers (the
    /// agenda, the attempts, the instances): an explorer copies a world for
    /// every transition and drops most copies at once (their state was seen
    /// before), so it copies into the last one dropped instead of
    /// allocating. Destructured, so that a field added to `World` must be
    /// copied here.
    pub(crate) fn clone_into_reusing(&self, target: &mut World) {
        let World {
            scenario,
            intents,
            client_intents,
            now_ms,
            agenda,
            store,
            clients,
            attempts,
            instances,
            acquirer,
            recovery_session,
            lb_next,
            blocked_ms,
            end,
            steps,
            events,
            store_log,
            log_store,
            quiet,
        } = self;
        share(&mut target.scenario, scenario);
        share(&mut target.intents, intents);
        share(&mut target.client_intents, client_intents);
        target.now_ms = *now_ms;
        target.agenda.items.clone_from(&agenda.items);
        target.agenda.next_seq = agenda.next_seq;
        target.store.clone_from(store);
        target.clients.clone_from(clients);
        target.attempts.clone_from(attempts);
        target.instances.clone_from(instances);
        target.acquirer.clone_from(acquirer);
        target.recovery_session = *recovery_session;
        target.lb_next = *lb_next;
        target.blocked_ms = *blocked_ms;
        target.end = *end;
        target.steps = *steps;
        target.events.clone_from(events);
        target.store_log.clone_from(store_log);
        target.log_store = *log_store;
        target.quiet = *quiet;
    }
}

impl World {
    /// A world at time zero. The scenario must have passed validation.
    pub fn new(scenario: &Scenario) -> World {
        let scenario = Arc::new(scenario.clone());
        let mut intents: Vec<(u32, Intent)> = Vec::new();
        let mut client_intents = Vec::new();
        for (ci, c) in scenario.clients.iter().enumerate() {
            let mut mine = Vec::new();
            for it in &c.intents {
                let ix = match intents.iter().position(|(_, x)| x == it) {
                    Some(ix) => ix,
                    None => {
                        intents.push((ci as u32, it.clone()));
                        intents.len() - 1
                    }
                };
                mine.push(ix as u32);
            }
            client_intents.push(mine);
        }
        let mut store = Store::with_all_tables();
        let instances = (0..scenario.instances)
            .map(|i| {
                Part::new(Instance {
                    alive: true,
                    connections: (0..scenario.pool_size)
                        .map(|_| Connection {
                            session: store.open_session(),
                            job: None,
                        })
                        .collect(),
                    jobs: Default::default(),
                    connection_queue: Default::default(),
                    crash_at: scenario.faults.iter().find_map(|f| match f {
                        Fault::Crash {
                            instance,
                            at_point: Some(p),
                            restart_after_ms,
                            ..
                        } if *instance == i => Some((*p, *restart_after_ms)),
                        _ => None,
                    }),
                })
            })
            .collect();
        let recovery_session = store.open_session();
        let mut w = World {
            intents: Arc::new(intents.clone()),
            client_intents: Arc::new(client_intents),
            now_ms: 0,
            agenda: Agenda::default(),
            store: Part::new(store),
            clients: Part::new(
                scenario
                    .clients
                    .iter()
                    .map(|_| ClientState {
                        intent: 0,
                        attempts_for_intent: 0,
                        knowledge: Knowledge::Idle,
                        current: None,
                        done: false,
                    })
                    .collect(),
            ),
            attempts: Vec::new(),
            instances,
            acquirer: Part::new(Acquirer {
                captures: vec![0; intents.len()],
                ..Acquirer::default()
            }),
            recovery_session,
            lb_next: 0,
            blocked_ms: 0,
            end: None,
            steps: 0,
            events: Vec::new(),
            store_log: Vec::new(),
            log_store: false,
            quiet: false,
            scenario,
        };
        for (i, c) in w.scenario.clone().clients.iter().enumerate() {
            w.agenda
                .push(c.start_ms, Due::ClientSend { client: i as u32 });
        }
        for f in &w.scenario.clone().faults {
            if let Fault::Crash {
                instance,
                at_ms: Some(t),
                ..
            } = f
            {
                w.agenda.push(
                    *t,
                    Due::Crash {
                        instance: *instance,
                    },
                );
            }
        }
        if w.scenario.strategy == Strategy::IdempotencyKeyLease {
            w.agenda
                .push(w.scenario.recovery_every_ms, Due::RecoverySweep);
        }
        w
    }

    /// Stops producing trace events: `step` returns nothing, outcomes are
    /// unchanged. Explorers and swarms run this way.
    pub fn set_quiet(&mut self) {
        self.quiet = true;
    }

    /// Records every statement sent to the store (see `take_store_log`).
    pub fn log_store_statements(&mut self) {
        self.log_store = true;
    }

    /// Statements issued since the last call, in issue order.
    pub fn take_store_log(&mut self) -> Vec<StoreStatement> {
        std::mem::take(&mut self.store_log)
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn is_done(&self) -> bool {
        self.end.is_some()
    }

    pub fn end(&self) -> Option<EndReason> {
        self.end
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// Runs one due event (asking `chooser` where there is a choice) and
    /// returns the trace events it produced.
    pub fn step(&mut self, chooser: &mut dyn Chooser) -> Vec<TraceEvent> {
        self.step_with(chooser, None)
    }

    /// `step`, with SQL statements run by `store_exec` when given.
    pub(crate) fn step_with(
        &mut self,
        chooser: &mut dyn Chooser,
        store_exec: Option<&mut dyn StoreExec>,
    ) -> Vec<TraceEvent> {
        if self.end.is_some() {
            return Vec::new();
        }
        let Some(at) = self.agenda.earliest() else {
            self.end = Some(EndReason::Quiescent);
            return Vec::new();
        };
        if at > self.scenario.horizon_ms {
            self.end = Some(EndReason::Horizon);
            self.emit(Actor::Network, EventKind::HorizonReached);
            return std::mem::take(&mut self.events);
        }
        if self.steps as usize >= limits::EVENTS_MAX {
            self.end = Some(EndReason::EventLimit);
            self.emit(Actor::Network, EventKind::EventLimitReached);
            return std::mem::take(&mut self.events);
        }
        self.steps += 1;
        let ready = self.agenda.due_count(at);
        let pick = if ready > 1 {
            chooser.choose(ChoiceKind::Next, ready as u32) as usize
        } else {
            0
        };
        let Event { at: time, due, .. } = self.agenda.items.remove(pick);
        debug_assert!(time >= self.now_ms, "time went backwards");
        self.now_ms = time;
        self.handle(due, chooser, store_exec);
        if self.agenda.items.is_empty() {
            self.end = Some(EndReason::Quiescent);
        }
        std::mem::take(&mut self.events)
    }

    /// `emit` for events whose text costs an allocation: quiet worlds skip
    /// building it.
    fn emit_with(&mut self, actor: Actor, kind: impl FnOnce() -> EventKind) {
        if !self.quiet {
            self.emit(actor, kind());
        }
    }

    fn emit(&mut self, actor: Actor, kind: EventKind) {
        if self.quiet {
            return;
        }
        self.events.push(TraceEvent {
            time_ms: self.now_ms,
            actor,
            kind,
        });
    }

    fn hop_ms(&self, chooser: &mut dyn Chooser) -> u64 {
        let jitter = self.scenario.network.jitter_ms;
        let extra = if jitter > 0 {
            chooser.choose(ChoiceKind::Jitter, jitter + 1)
        } else {
            0
        };
        self.scenario.network.latency_ms + u64::from(extra)
    }

    fn handle(
        &mut self,
        due: Due,
        chooser: &mut dyn Chooser,
        store_exec: Option<&mut dyn StoreExec>,
    ) {
        match due {
            Due::ClientSend { client } => self.client_send(client, chooser),
            Due::ClientTimeout { client, attempt } => self.client_timeout(client, attempt),
            Due::ArriveAtInstance { attempt } => self.route(attempt, chooser),
            Due::Step { instance, attempt } => {
                self.run_step(instance, attempt, chooser, store_exec)
            }
            Due::AcquirerReceive { call } => self.acquirer_receive(call),
            Due::AcquirerReply { call } => self.acquirer_reply(call),
            Due::AcquirerTimeout { call } => self.acquirer_timeout(call),
            Due::ResponseArrive { attempt } => self.response_arrive(attempt),
            Due::Crash { instance } => self.crash(instance),
            Due::Restart { instance } => self.restart(instance),
            Due::RecoverySweep => self.recovery_sweep(),
        }
    }

    // ---- clients ----

    fn intent_index(&self, client: u32, local: u32) -> u32 {
        self.client_intents[client as usize][local as usize]
    }

    fn client_send(&mut self, client: u32, chooser: &mut dyn Chooser) {
        let spec = self.scenario.clients[client as usize].clone();
        let c = &self.clients[client as usize];
        let local = c.intent;
        let n = c.attempts_for_intent;
        let intent_ix = self.intent_index(client, local);
        let base = &spec.intents[local as usize].key;
        let key = if spec.new_key_per_retry && n > 0 {
            format!("{base}-r{n}")
        } else {
            base.clone()
        };
        let attempt = self.attempts.len() as u32;
        self.attempts.push(Part::new(Attempt {
            client,
            intent: intent_ix,
            key: key.as_str().into(),
            sent_ms: self.now_ms,
            instance: None,
            answer: None,
            timed_out: false,
            reached_acquirer: false,
            in_flight: None,
        }));
        let c = &mut self.clients[client as usize];
        c.attempts_for_intent += 1;
        c.current = Some(attempt);
        c.knowledge = Knowledge::Waiting { attempt };
        self.emit(
            Actor::Client(client),
            EventKind::AttemptSent {
                client,
                attempt,
                intent: intent_ix,
                key,
                retry: n > 0,
            },
        );
        self.agenda.push(
            self.now_ms + spec.timeout_ms,
            Due::ClientTimeout { client, attempt },
        );
        if self.dropped(attempt, true) {
            self.emit(Actor::Network, EventKind::RequestDropped { attempt });
            return;
        }
        let hop = self.hop_ms(chooser);
        if hop == 0 {
            self.route(attempt, chooser);
        } else {
            self.agenda
                .push(self.now_ms + hop, Due::ArriveAtInstance { attempt });
        }
    }

    fn dropped(&self, attempt: u32, request: bool) -> bool {
        self.scenario.faults.iter().any(|f| match f {
            Fault::DropRequest { attempt: a } => request && *a == attempt + 1,
            Fault::DropResponse { attempt: a } => !request && *a == attempt + 1,
            _ => false,
        })
    }

    fn client_timeout(&mut self, client: u32, attempt: u32) {
        self.attempts[attempt as usize].timed_out = true;
        self.clients[client as usize].knowledge = Knowledge::Unknown { attempt };
        self.emit(
            Actor::Client(client),
            EventKind::TimedOut { client, attempt },
        );
        self.retry_or_give_up(client);
    }

    fn retry_or_give_up(&mut self, client: u32) {
        let spec = &self.scenario.clients[client as usize];
        let c = &self.clients[client as usize];
        if c.attempts_for_intent <= spec.retries_max {
            let at = self.now_ms + spec.backoff_ms;
            if !matches!(c.knowledge, Knowledge::Unknown { .. }) {
                self.clients[client as usize].knowledge = Knowledge::Backoff;
            }
            self.agenda.push(at, Due::ClientSend { client });
        } else {
            let intent = self.intent_index(client, c.intent);
            if !matches!(c.knowledge, Knowledge::Answered { .. }) {
                self.clients[client as usize].knowledge = Knowledge::GaveUp;
            }
            self.emit(Actor::Client(client), EventKind::GaveUp { client, intent });
            self.next_intent(client);
        }
    }

    fn next_intent(&mut self, client: u32) {
        let spec = &self.scenario.clients[client as usize];
        let c = &mut self.clients[client as usize];
        c.current = None;
        if (c.intent as usize) + 1 < spec.intents.len() {
            c.intent += 1;
            c.attempts_for_intent = 0;
            let at = self.now_ms + spec.gap_between_intents_ms;
            self.agenda.push(at, Due::ClientSend { client });
        } else {
            c.done = true;
        }
    }

    fn response_arrive(&mut self, attempt: u32) {
        let a = &self.attempts[attempt as usize];
        let client = a.client;
        let (status, body) = a.pending_answer().expect("a response carries an answer");
        if a.timed_out || self.clients[client as usize].current != Some(attempt) {
            self.emit(
                Actor::Client(client),
                EventKind::LateResponseIgnored {
                    client,
                    attempt,
                    status,
                },
            );
            return;
        }
        self.agenda.remove(&Due::ClientTimeout { client, attempt });
        self.attempts[attempt as usize].answer = Some((status, body.clone()));
        self.clients[client as usize].knowledge = Knowledge::Answered { attempt, status };
        self.emit_with(Actor::Client(client), || EventKind::ResponseReceived {
            client,
            attempt,
            status,
            body: body.to_string(),
        });
        // 409: someone is still working on it; 5xx: try again. Both retry.
        if status == 409 || status >= 500 {
            self.retry_or_give_up(client);
        } else {
            self.next_intent(client);
        }
    }

    // ---- load balancer ----

    fn route(&mut self, attempt: u32, chooser: &mut dyn Chooser) {
        let alive: Vec<u32> = (0..self.instances.len() as u32)
            .filter(|&i| self.instances[i as usize].alive)
            .collect();
        if alive.is_empty() {
            self.emit(Actor::LoadBalancer, EventKind::NoInstanceAlive { attempt });
            self.send_response(
                attempt,
                None,
                503,
                r#"{"erro": "sem instancias"}"#.into(),
                chooser,
            );
            return;
        }
        let n = alive.len() as u32;
        let pick = match self.scenario.load_balancer {
            LoadBalancerPolicy::RoundRobin => {
                let p = alive[(self.lb_next % n) as usize];
                self.lb_next = self.lb_next.wrapping_add(1);
                p
            }
            LoadBalancerPolicy::Random => alive[chooser.choose(ChoiceKind::Route, n) as usize],
            LoadBalancerPolicy::LeastBusy => {
                let least = alive
                    .iter()
                    .map(|&i| self.instances[i as usize].jobs.len())
                    .min()
                    .expect("some instance is alive");
                let tied: Vec<u32> = alive
                    .iter()
                    .copied()
                    .filter(|&i| self.instances[i as usize].jobs.len() == least)
                    .collect();
                if tied.len() > 1 {
                    tied[chooser.choose(ChoiceKind::Route, tied.len() as u32) as usize]
                } else {
                    tied[0]
                }
            }
            LoadBalancerPolicy::StickyByKey => {
                let h = fnv1a(self.attempts[attempt as usize].key.as_bytes());
                alive[(h % u64::from(n)) as usize]
            }
        };
        self.attempts[attempt as usize].instance = Some(pick);
        self.emit(
            Actor::LoadBalancer,
            EventKind::Routed {
                attempt,
                instance: pick,
            },
        );
        self.instances[pick as usize].jobs.push(Job::new(
            attempt,
            self.scenario.strategy,
            self.scenario.isolation,
        ));
        self.schedule_step(pick, attempt);
    }

    // ---- instances ----

    fn schedule_step(&mut self, instance: u32, attempt: u32) {
        let job = self.job(instance, attempt).expect("job exists");
        let cost = if job.pc.is_sql() {
            self.scenario.db_latency_ms
        } else {
            0
        };
        self.agenda
            .push(self.now_ms + cost, Due::Step { instance, attempt });
    }

    pub(crate) fn job(&self, instance: u32, attempt: u32) -> Option<&Job> {
        self.instances[instance as usize]
            .jobs
            .iter()
            .find(|j| j.attempt == attempt)
    }

    fn job_mut(&mut self, instance: u32, attempt: u32) -> Option<&mut Job> {
        self.instances[instance as usize]
            .jobs
            .iter_mut()
            .find(|j| j.attempt == attempt)
    }

    fn run_step(
        &mut self,
        instance: u32,
        attempt: u32,
        chooser: &mut dyn Chooser,
        store_exec: Option<&mut dyn StoreExec>,
    ) {
        let Some(job) = self.job(instance, attempt) else {
            return; // the instance crashed since this step was scheduled
        };
        match handler::action(self, job) {
            Action::Sql(inputs) => self.run_sql(instance, attempt, inputs, store_exec),
            Action::Capture => self.capture(instance, attempt),
            Action::Respond(status, body) => {
                self.finish_job(instance, attempt);
                self.send_response(attempt, Some(instance), status, body, chooser);
            }
        }
    }

    fn run_sql(
        &mut self,
        instance: u32,
        attempt: u32,
        inputs: handler::StmtInputs,
        store_exec: Option<&mut dyn StoreExec>,
    ) {
        let inst = &mut self.instances[instance as usize];
        let conn_ix = match inst.connections.iter().position(|c| c.job == Some(attempt)) {
            Some(ix) => ix,
            None => match inst.connections.iter().position(|c| c.job.is_none()) {
                Some(ix) => {
                    inst.connections[ix].job = Some(attempt);
                    ix
                }
                None => {
                    inst.connection_queue.push(attempt);
                    self.emit(
                        Actor::Instance(instance),
                        EventKind::ConnectionWait { attempt },
                    );
                    return;
                }
            },
        };
        let session = self.instances[instance as usize].connections[conn_ix].session;
        let build = || handler::statement(&self.scenario, &self.intents, &inputs);
        // Quiet worlds with a memo (every explorer transition) build the
        // statement only when the memo has not seen it.
        let mut stmt = (!self.quiet || self.log_store || store_exec.is_none()).then(build);
        let sql = match (&stmt, self.quiet) {
            (Some(stmt), false) => stmt.to_sql(),
            _ => String::new(),
        };
        let rows = stmt.as_ref().map(handler::returns_rows);
        if self.log_store {
            self.store_log.push(StoreStatement {
                session: session.0,
                instance: Some(instance),
                time_ms: self.now_ms,
                stmt: stmt.clone().expect("built when logging"),
                waited: false,
            });
        }
        let exec = match store_exec {
            Some(x) => x.execute(&mut self.store, session, &inputs, &build),
            None => std::borrow::Cow::Owned(
                self.store
                    .execute(session, stmt.take().expect("built without a memo")),
            ),
        };
        if self.log_store && matches!(*exec, Exec::Waiting { .. }) {
            self.store_log.last_mut().expect("just pushed").waited = true;
        }
        match exec.as_ref() {
            &Exec::Waiting { on } => {
                let on_instance = self.instance_of_session(on);
                // A quiet world with a memo built no statement; one that
                // waits is rare, so build it now to ask.
                let returns_rows = rows.unwrap_or_else(|| handler::returns_rows(&build()));
                let (now, quiet) = (self.now_ms, self.quiet);
                let job = self.job_mut(instance, attempt).expect("job exists");
                job.waiting_since_ms = Some(now);
                // Quiet worlds keep no SQL text, so none is shared here either.
                job.waiting_sql = (!quiet).then(|| sql.as_str().into());
                job.waiting_returns_rows = returns_rows;
                self.emit(
                    Actor::Instance(instance),
                    EventKind::Sql {
                        attempt: Some(attempt),
                        sql,
                        outcome: SqlOutcome::Waiting { on_instance },
                    },
                );
            }
            Exec::Done(result) => {
                // Lazily: the outcome copies the rows, and quiet worlds
                // (every explorer transition) keep no events.
                self.emit_with(Actor::Instance(instance), || EventKind::Sql {
                    attempt: Some(attempt),
                    sql,
                    outcome: handler::outcome_of(rows.expect("built when not quiet"), result),
                });
                self.after_sql(instance, attempt, result);
            }
        }
        self.drain_completions();
    }

    fn instance_of_session(&self, s: SessionId) -> Option<u32> {
        self.instances
            .iter()
            .position(|i| i.connections.iter().any(|c| c.session == s))
            .map(|i| i as u32)
    }

    fn drain_completions(&mut self) {
        while self.store.has_completions() {
            let done = self.store.take_completions();
            for Completion { session, result } in done {
                let Some(instance) = self.instance_of_session(session) else {
                    continue; // recovery's own statements never wait long
                };
                let Some(attempt) = self.instances[instance as usize]
                    .connections
                    .iter()
                    .find(|c| c.session == session)
                    .and_then(|c| c.job)
                else {
                    continue;
                };
                let now = self.now_ms;
                let job = self
                    .job_mut(instance, attempt)
                    .expect("connection's job exists");
                let waited_ms = job.waiting_since_ms.take().map_or(0, |t| now - t);
                let sql = job
                    .waiting_sql
                    .take()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                let rows = job.waiting_returns_rows;
                self.blocked_ms += waited_ms;
                self.emit_with(Actor::Instance(instance), || EventKind::SqlResumed {
                    attempt: Some(attempt),
                    sql,
                    outcome: handler::outcome_of(rows, &result),
                    waited_ms,
                });
                self.after_sql(instance, attempt, &result);
            }
        }
    }

    fn after_sql(&mut self, instance: u32, attempt: u32, result: &crate::store::StmtResult) {
        let session = self.instances[instance as usize]
            .connections
            .iter()
            .find(|c| c.job == Some(attempt))
            .map(|c| c.session)
            .expect("a statement ran on a held connection");
        let committed = result.is_ok() && !self.store.in_transaction(session);
        let pc_before = self.job(instance, attempt).expect("job").pc;
        let mut job = self.job(instance, attempt).cloned().expect("job");
        handler::on_sql_result(self, &mut job, result);
        *self.job_mut(instance, attempt).expect("job") = job;
        if !self.store.in_transaction(session) {
            self.release_connection(instance, attempt);
        }
        if committed
            && pc_before.commits_claim()
            && self.crash_point_hit(instance, CrashPoint::AfterCommit)
        {
            return;
        }
        self.schedule_step(instance, attempt);
    }

    fn release_connection(&mut self, instance: u32, attempt: u32) {
        let inst = &mut self.instances[instance as usize];
        if let Some(c) = inst.connections.iter_mut().find(|c| c.job == Some(attempt)) {
            c.job = None;
            if !inst.connection_queue.is_empty() {
                let next = inst.connection_queue.remove(0);
                self.schedule_step(instance, next);
            }
        }
    }

    fn finish_job(&mut self, instance: u32, attempt: u32) {
        self.release_connection(instance, attempt);
        self.instances[instance as usize]
            .jobs
            .retain(|j| j.attempt != attempt);
    }

    fn send_response(
        &mut self,
        attempt: u32,
        instance: Option<u32>,
        status: u16,
        body: Text,
        chooser: &mut dyn Chooser,
    ) {
        let actor = instance.map_or(Actor::LoadBalancer, Actor::Instance);
        self.attempts[attempt as usize].answer_in_flight(status, body.clone());
        self.emit_with(actor, || EventKind::Responded {
            attempt,
            status,
            body: body.to_string(),
        });
        if self.dropped(attempt, false) {
            self.emit(Actor::Network, EventKind::ResponseDropped { attempt });
            return;
        }
        let hop = self.hop_ms(chooser);
        self.agenda
            .push(self.now_ms + hop, Due::ResponseArrive { attempt });
    }

    // ---- acquirer ----

    fn capture(&mut self, instance: u32, attempt: u32) {
        let a = &self.attempts[attempt as usize];
        let call = self.acquirer.calls.len() as u32;
        let intent = a.intent;
        let key = a.key.clone();
        self.attempts[attempt as usize].reached_acquirer = true;
        self.acquirer.calls.push(Call {
            instance,
            attempt,
            intent,
            key,
            sent_ms: self.now_ms,
            accepted: None,
            reply_lost: false,
            settled: false,
        });
        let job = self.job_mut(instance, attempt).expect("job");
        job.call = Some(call);
        job.pc = Pc::AwaitCapture;
        self.emit(
            Actor::Instance(instance),
            EventKind::CaptureRequested {
                attempt,
                call,
                intent,
            },
        );
        let half = self.scenario.acquirer.latency_ms / 2;
        self.agenda
            .push(self.now_ms + half, Due::AcquirerReceive { call });
        self.agenda.push(
            self.now_ms + self.scenario.acquirer.timeout_ms,
            Due::AcquirerTimeout { call },
        );
        self.crash_point_hit(instance, CrashPoint::AfterCaptureSent);
    }

    fn acquirer_receive(&mut self, call: u32) {
        let c = self.acquirer.calls[call as usize].clone();
        let accept = !self.scenario.acquirer.decline;
        let repeat = self.scenario.acquirer.provider_keys
            && self.acquirer.seen_keys.iter().any(|(k, _)| *k == c.key);
        if repeat {
            self.emit(
                Actor::Acquirer,
                EventKind::ProviderReplayed {
                    call,
                    intent: c.intent,
                },
            );
        } else if accept {
            self.acquirer.captures[c.intent as usize] += 1;
            let n = self.acquirer.captures[c.intent as usize];
            self.emit(
                Actor::Acquirer,
                EventKind::Captured {
                    call,
                    intent: c.intent,
                    captures_for_intent: n,
                },
            );
        } else {
            self.emit(
                Actor::Acquirer,
                EventKind::Declined {
                    call,
                    intent: c.intent,
                },
            );
        }
        let accepted = if repeat {
            self.acquirer
                .seen_keys
                .iter()
                .find(|(k, _)| *k == c.key)
                .map(|(_, a)| *a)
                .unwrap_or(accept)
        } else {
            accept
        };
        if !repeat {
            self.acquirer.seen_keys.push((c.key.clone(), accept));
        }
        let lost =
            self.scenario.faults.iter().any(
                |f| matches!(f, Fault::AcquirerTimeoutAfterAccept { call: n } if *n == call + 1),
            );
        let entry = &mut self.acquirer.calls[call as usize];
        entry.accepted = Some(accepted);
        entry.reply_lost = lost;
        if lost {
            self.emit(Actor::Acquirer, EventKind::AcquirerReplyLost { call });
            return;
        }
        let rest = self.scenario.acquirer.latency_ms - self.scenario.acquirer.latency_ms / 2;
        self.agenda
            .push(self.now_ms + rest, Due::AcquirerReply { call });
    }

    fn acquirer_reply(&mut self, call: u32) {
        let accepted = self.acquirer.calls[call as usize]
            .accepted
            .expect("received before replying");
        self.settle_capture(call, Some(accepted));
    }

    fn acquirer_timeout(&mut self, call: u32) {
        self.settle_capture(call, None);
    }

    /// The first of the acquirer's reply (`Some(accepted)`) and the
    /// instance's timeout (`None`) settles the call; the other is cancelled.
    fn settle_capture(&mut self, call: u32, result: Option<bool>) {
        let c = self.acquirer.calls[call as usize].clone();
        if c.settled {
            return;
        }
        self.acquirer.calls[call as usize].settled = true;
        let other = match result {
            Some(_) => Due::AcquirerTimeout { call },
            None => Due::AcquirerReply { call },
        };
        self.agenda.remove(&other);
        let Some(mut job) = self.job(c.instance, c.attempt).cloned() else {
            return; // the instance died while the acquirer worked
        };
        job.capture_result = result;
        handler::on_capture(self, &mut job);
        *self.job_mut(c.instance, c.attempt).expect("job exists") = job;
        let (attempt, actor) = (c.attempt, Actor::Instance(c.instance));
        let kind = match result {
            Some(accepted) => EventKind::AcquirerReplied {
                attempt,
                call,
                accepted,
            },
            None => EventKind::AcquirerTimedOut { attempt, call },
        };
        self.emit(actor, kind);
        self.schedule_step(c.instance, c.attempt);
    }

    // ---- crashes and recovery ----

    /// Fires an armed crash at this point; true if the instance died.
    fn crash_point_hit(&mut self, instance: u32, point: CrashPoint) -> bool {
        match self.instances[instance as usize].crash_at {
            Some((p, _)) if p == point => {
                self.crash(instance);
                true
            }
            _ => false,
        }
    }

    fn crash(&mut self, instance: u32) {
        let inst = &mut self.instances[instance as usize];
        if !inst.alive {
            return;
        }
        let restart_after = inst.crash_at.take().map(|c| c.1).or_else(|| {
            self.scenario.faults.iter().find_map(|f| match f {
                Fault::Crash {
                    instance: i,
                    at_ms: Some(_),
                    restart_after_ms,
                    ..
                } if *i == instance => Some(*restart_after_ms),
                _ => None,
            })
        });
        let inst = &mut self.instances[instance as usize];
        inst.alive = false;
        let lost: Vec<u32> = inst.jobs.drain(..).map(|j| j.attempt).collect();
        inst.connection_queue.clear();
        let sessions: Vec<SessionId> = inst.connections.iter().map(|c| c.session).collect();
        for c in &mut inst.connections {
            c.job = None;
        }
        self.agenda
            .items
            .retain(|e| !matches!(e.due, Due::Step { instance: i, .. } if i == instance));
        self.emit(
            Actor::Instance(instance),
            EventKind::Crashed {
                instance,
                lost_attempts: lost,
            },
        );
        // A dead process's connections close, so its open transactions roll back.
        for s in sessions {
            self.store.terminate(s);
        }
        self.drain_completions();
        if let Some(after) = restart_after {
            self.agenda
                .push(self.now_ms + after, Due::Restart { instance });
        }
    }

    fn restart(&mut self, instance: u32) {
        let sessions: Vec<SessionId> = (0..self.scenario.pool_size)
            .map(|_| self.store.open_session())
            .collect();
        let inst = &mut self.instances[instance as usize];
        inst.alive = true;
        inst.connections = sessions
            .into_iter()
            .map(|session| Connection { session, job: None })
            .collect();
        self.emit(Actor::Instance(instance), EventKind::Restarted { instance });
    }

    fn recovery_sweep(&mut self) {
        let reconciled = handler::recover(self);
        for (key, captured) in reconciled {
            self.emit(Actor::Recovery, EventKind::Reconciled { key, captured });
        }
        let work_left = self.clients.iter().any(|c| !c.done)
            || self.instances.iter().any(|i| !i.jobs.is_empty())
            || handler::keys_need_recovery(self);
        if work_left {
            self.agenda.push(
                self.now_ms + self.scenario.recovery_every_ms,
                Due::RecoverySweep,
            );
        }
    }

    pub(crate) fn recovery_session(&self) -> SessionId {
        self.recovery_session
    }

    // ---- the view ----

    /// The data the lousa draws for this instant.
    pub fn frame(&self) -> Frame {
        let clients = self
            .clients
            .iter()
            .enumerate()
            .map(|(i, c)| ClientView {
                name: self.scenario.clients[i].name.clone(),
                knowledge: c.knowledge.clone(),
                intent: self.intent_index(i as u32, c.intent),
                attempts_sent: self
                    .attempts
                    .iter()
                    .filter(|a| a.client == i as u32)
                    .count() as u32,
            })
            .collect();
        let instances = self
            .instances
            .iter()
            .map(|inst| InstanceView {
                alive: inst.alive,
                connections_free: inst.connections.iter().filter(|c| c.job.is_none()).count()
                    as u32,
                jobs: inst
                    .jobs
                    .iter()
                    .map(|j| {
                        let conn = inst.connections.iter().find(|c| c.job == Some(j.attempt));
                        JobView {
                            attempt: j.attempt,
                            step: j.pc.name().into(),
                            holds_connection: conn.is_some(),
                            in_transaction: conn
                                .is_some_and(|c| self.store.in_transaction(c.session)),
                            waiting_on_instance: conn
                                .and_then(|c| self.store.waiting_on(c.session))
                                .and_then(|s| self.instance_of_session(s)),
                            waiting_since_ms: j.waiting_since_ms,
                        }
                    })
                    .collect(),
            })
            .collect();
        let tables = handler::tables_of(self.scenario.strategy)
            .iter()
            .map(|name| {
                let def = self
                    .store
                    .table_defs()
                    .find(|d| d.name == *name)
                    .expect("strategy tables exist");
                TableView {
                    name: name.to_string(),
                    columns: def.columns.iter().map(|c| c.name.clone()).collect(),
                    rows: self.store.rows(name),
                }
            })
            .collect();
        let mut in_flight = Vec::new();
        for Event { at: t, due: d, .. } in &self.agenda.items {
            let msg = match d {
                Due::ArriveAtInstance { attempt } => Some((
                    MessageKind::Request,
                    *attempt,
                    Actor::Client(self.attempts[*attempt as usize].client),
                    Actor::LoadBalancer,
                )),
                Due::ResponseArrive { attempt } => {
                    let a = &self.attempts[*attempt as usize];
                    Some((
                        MessageKind::Response,
                        *attempt,
                        a.instance.map_or(Actor::LoadBalancer, Actor::Instance),
                        Actor::Client(a.client),
                    ))
                }
                Due::AcquirerReceive { call } => {
                    let c = &self.acquirer.calls[*call as usize];
                    Some((
                        MessageKind::Capture,
                        c.attempt,
                        Actor::Instance(c.instance),
                        Actor::Acquirer,
                    ))
                }
                Due::AcquirerReply { call } => {
                    let c = &self.acquirer.calls[*call as usize];
                    Some((
                        MessageKind::CaptureReply,
                        c.attempt,
                        Actor::Acquirer,
                        Actor::Instance(c.instance),
                    ))
                }
                _ => None,
            };
            if let Some((kind, attempt, from, to)) = msg {
                let sent_ms = match kind {
                    MessageKind::Request => self.attempts[attempt as usize].sent_ms,
                    _ => self.now_ms.min(*t),
                };
                in_flight.push(MessageView {
                    kind,
                    attempt,
                    from,
                    to,
                    sent_ms,
                    arrives_ms: *t,
                });
            }
        }
        let charged_cents = self
            .acquirer
            .captures
            .iter()
            .zip(self.intents.iter())
            .map(|(n, (_, it))| i64::from(*n) * it.amount_cents)
            .sum::<i64>()
            + handler::local_effect_cents(self);
        Frame {
            time_ms: self.now_ms,
            clients,
            instances,
            tables,
            captures: handler::effects_per_intent(self),
            charged_cents,
            in_flight,
        }
    }
}

impl Attempt {
    fn answer_in_flight(&mut self, status: u16, body: Text) {
        self.answer = None;
        self.in_flight = Some((status, body));
    }
    fn pending_answer(&self) -> Option<(u16, Text)> {
        self.in_flight.clone()
    }
}

/// Every world a seeded run of `s` passes through, the first and the last
/// included: what tests compare copies and fingerprints along.
#[cfg(test)]
pub(crate) fn worlds_along(s: &Scenario, seed: u64) -> Vec<World> {
    let mut w = World::new(s);
    let mut worlds = vec![w.clone()];
    let mut chooser = crate::RngChooser::new(seed);
    while !w.is_done() {
        w.step(&mut chooser);
        worlds.push(w.clone());
    }
    worlds
}
