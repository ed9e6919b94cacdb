//! The discrete-event world: clients, load balancer, instances running a
//! strategy's handler one atomic step at a time, the acquirer, and the store.
//!
//! `World::step` runs exactly one due event. When several are due at the same
//! instant it asks the [`Chooser`]; so do the load balancer's random policy
//! and network jitter. Nothing else is nondeterministic, so a world is a pure
//! function of (scenario, choices), and clones of it can be explored.

mod acquirer;
mod agenda;
mod client;
#[cfg(test)]
mod fingerprint_tests;
mod frame;
mod ids;
mod inject;
mod instance;
mod load_balancer;
mod recovery;
mod watch;

pub(crate) use acquirer::merchant_of;
pub(crate) use agenda::{Agenda, Due, Event};
pub(crate) use ids::{AttemptId, CallId, ClientId, InstanceId};
pub use inject::{InjectError, Injection};
pub(crate) use recovery::effects_per_intent;
pub(crate) use watch::{Breach, Resolution, Watch};

use crate::choice::{ChoiceKind, Chooser};
use crate::fingerprint::{self, FingerprintHasher, Pack, Words};
use crate::handler::{self, Action, Job};
use crate::part::{Part, share};
use crate::scenario::*;
use crate::store::{Completion, Exec, SessionId, Stmt, Store};
use crate::trace::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub(crate) use crate::text::Text;
/// Kept at its old path for callers outside the crate.
pub use crate::text::fnv1a;

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
    /// The headers of the answer in flight or received (jsonb text).
    pub headers: Option<Text>,
    /// The request body, as the client serialized it.
    pub body: Text,
    /// The fingerprint the server keeps of `body` (scenario's policy).
    pub fingerprint: Text,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Connection {
    pub session: SessionId,
    pub job: Option<u32>,
}

/// A list that is short in every scenario (an instance's connections, jobs
/// and queue), kept inline where worlds are explored: a step that edits an
/// instance copies it, and a copy of an instance with inline lists is one
/// allocation instead of three (measured in docs/performance.md). A `Vec`
/// on the page, which never explores and would pay for smallvec's code in
/// wasm bytes.
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
    /// When the acquirer received the call, if it has: what its API can
    /// show from then on.
    pub received_ms: Option<u64>,
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
    /// The broker beside it: the events published, one intent index each
    /// (`local-effect` with an event).
    pub published: Vec<u32>,
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
    /// Keys the lease design deleted while still `processing` or `unknown`
    /// (see `recovery.rs`): state, since a key forgotten with its effect
    /// unresolved is what `property::NO_KEY_FORGOTTEN_UNRESOLVED` judges.
    pub(crate) forgotten_unresolved: Vec<Text>,
    /// What the properties of issue #29 read (see `watch.rs`).
    pub(crate) watch: Watch,
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

/// Runs one statement on a world's store. Every step goes through one: the
/// plain [`Engine`] for ordinary runs, and for the explorer one that
/// remembers what each statement did to each store it met (see
/// `explore::StoreMemo`), as a statement's effect is a function of the
/// store, the session and the statement alone.
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

/// The plain executor: builds the statement and runs it on the store.
pub(crate) struct Engine;

impl StoreExec for Engine {
    fn execute(
        &mut self,
        store: &mut Part<Store>,
        session: SessionId,
        _: &handler::StmtInputs,
        stmt: &dyn Fn() -> Stmt,
    ) -> std::borrow::Cow<'_, Exec> {
        std::borrow::Cow::Owned(store.execute(session, stmt()))
    }
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
    /// Not a statement: the connection closed here, because its instance
    /// crashed, which rolls back its open transaction and aborts a
    /// statement it was waiting on. `stmt` is then `ROLLBACK`, what the
    /// close does to a transaction; the session issues nothing after it.
    /// Left out of the JSON when false, so that a run without a crash
    /// reads (and hashes, `tests/golden/hashes.txt`) as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub closed: bool,
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
            && self.forgotten_unresolved == o.forgotten_unresolved
            && self.watch == o.watch
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
        self.forgotten_unresolved.hash(h);
        self.watch.hash(h);
        self.store.hash(h);
    }
}

impl World {
    /// The world's fingerprint for explorers: what `Eq` compares (but the
    /// store's transaction ids, renamed: `store/engine/canonical.rs`), with each
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
            forgotten_unresolved,
            watch,
            steps: _,
            events: _,
            store_log: _,
            log_store: _,
            quiet: _,
        } = self;
        let mut h = FingerprintHasher::new();
        header(
            &mut h,
            *now_ms,
            *lb_next,
            end,
            attempts.len(),
            instances.len(),
            forgotten_unresolved.len(),
        );
        for key in forgotten_unresolved.iter() {
            h.word(key.len() as u64);
            fingerprint::text(&mut h, key);
        }
        Words::words(watch, &mut h);
        Words::words(agenda, &mut h);
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
            forgotten_unresolved,
            watch,
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
        target.forgotten_unresolved.clone_from(forgotten_unresolved);
        target.watch.clone_from(watch);
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
        let mut store = Store::new(&handler::store_tables(&scenario));
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
        if let Some(setup) = account_setup(&scenario) {
            store.execute(recovery_session, setup);
        }
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
            forgotten_unresolved: Vec::new(),
            watch: Watch::default(),
            steps: 0,
            events: Vec::new(),
            store_log: Vec::new(),
            log_store: false,
            quiet: false,
            scenario,
        };
        for (i, c) in w.scenario.clone().clients.iter().enumerate() {
            w.agenda.push(
                c.start_ms,
                Due::ClientSend {
                    client: ClientId(i as u32),
                },
            );
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
                        instance: InstanceId(*instance),
                    },
                );
            }
        }
        if handler::recovers_keys(&w.scenario)
            || relays_outbox(&w.scenario)
            || handler::recovers_messages(&w.scenario)
        {
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

    /// Records every statement sent to the store (see `take_store_log`),
    /// starting with the set-up the world ran before any instance (the
    /// account a balance scenario debits), so that the log replays alone.
    pub fn log_store_statements(&mut self) {
        self.log_store = true;
        if let Some(stmt) = account_setup(&self.scenario) {
            self.store_log.push(StoreStatement {
                session: self.recovery_session.0,
                instance: None,
                time_ms: 0,
                stmt,
                waited: false,
                closed: false,
            });
        }
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
        self.step_with(chooser, &mut Engine)
    }

    /// `step`, with SQL statements run by `store_exec`.
    pub(crate) fn step_with(
        &mut self,
        chooser: &mut dyn Chooser,
        store_exec: &mut dyn StoreExec,
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

    fn handle(&mut self, due: Due, chooser: &mut dyn Chooser, store_exec: &mut dyn StoreExec) {
        match due {
            Due::ClientSend { client } => self.client_send(client, chooser),
            Due::ClientTimeout { client, attempt } => self.client_timeout(client, attempt, chooser),
            Due::ArriveAtInstance { attempt } => self.route(attempt, chooser),
            Due::Step { instance, attempt } => {
                self.run_step(instance, attempt, chooser, store_exec)
            }
            Due::AcquirerReceive { call } => self.acquirer_receive(call),
            Due::AcquirerReply { call } => self.acquirer_reply(call),
            Due::AcquirerTimeout { call } => self.acquirer_timeout(call),
            Due::ResponseArrive { attempt } => self.response_arrive(attempt, chooser),
            Due::Crash { instance } => self.crash(instance),
            Due::Restart { instance } => self.restart(instance),
            Due::RecoverySweep => self.recovery_sweep(),
        }
    }

    // ---- clients ----

    // ---- load balancer ----

    // ---- instances ----

    // ---- acquirer ----

    // ---- crashes and recovery ----

    // ---- the view ----
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

/// The account a balance scenario starts with, inserted before anything.
fn account_setup(s: &Scenario) -> Option<Stmt> {
    let table = crate::handler::account_table(s)?;
    let b = s.balance.as_ref()?;
    let mut values = vec![("saldo".into(), crate::store::Value::Int(b.opening_cents))];
    if table == "conta_versionada" {
        values.push(("versao".into(), crate::store::Value::Int(0)));
    }
    Some(Stmt::Insert {
        table: table.into(),
        values,
        on_conflict_do_nothing: None,
        returning: vec![],
    })
}

/// Whether a relay publishes the outbox: `local-effect` with an outbox, or
/// a design that writes one.
pub(crate) fn relays_outbox(s: &Scenario) -> bool {
    match s.program() {
        Some(p) if !p.serves_queue() => p.tables().iter().any(|t| t.name == "evento_outbox"),
        _ => s.strategy == Strategy::LocalEffect && s.event == EventDelivery::Outbox,
    }
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
    forgotten: usize,
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
            .len(forgotten, 8)
            .word(),
    );
}
