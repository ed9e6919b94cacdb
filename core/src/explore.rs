//! Exhaustive exploration: every schedule of a scenario, checked against
//! *always* and *sometimes* properties, in the spirit of stateright.
//!
//! # The model
//!
//! A state is a [`World`]. Its successors are the worlds one
//! [`World::step`] can produce: a step may meet several choice points (which
//! due event runs, where the load balancer routes, how much jitter a hop
//! gets), so the explorer replays the step with a [`ScheduleChooser`] over
//! choice prefixes. It runs the step with the prefix `[]`, reads the arity of
//! every choice point it met, and branches on each alternative not taken: a
//! depth-first walk over the choice vectors of one step. Each distinct full
//! choice vector is one transition, and the enumeration order is the
//! lexicographic order of those vectors, so transition 0 of every state is the
//! all-zero ("first come, first served") one.
//!
//! Where the only choice point a scenario can meet is `Next` (no jitter, a
//! load balancer that never asks), the alternatives are known before the
//! step runs (the number of events due at the earliest instant), so the
//! explorer steps clones for all but the last and the world itself for the
//! last; the transitions and their order are the same.
//!
//! The search is depth-first by default, breadth-first on request, over
//! states merged by fingerprint. A full world is kept only while a state
//! waits to be expanded; a visited state costs a 16-byte node, its
//! fingerprint in the index, and 8 bytes per outgoing transition. Both orders
//! build the same graph and every figure below comes from the graph, so a
//! complete run reports the same things either way. Depth-first is the
//! default because it needs far less memory (a path's worth of worlds
//! instead of the widest level) and keeps them warm in the cache, which
//! matters for full verdicts on large models and in a browser tab;
//! breadth-first is there for runs cut by a bound or a cancel, which have
//! then seen every state up to some depth, so what they found is the
//! shortest there is.
//!
//! [`Explorer`] works in slices (`run_for(budget_states)` returns a
//! [`Progress`]; stop calling it, or call `cancel`, to stop), so a page can
//! interleave it with rendering; [`explore_with`] does the same with a
//! progress callback that can cancel. No threads, no clock.
//!
//! # What it reports, and why each figure is exact
//!
//! * **States and transitions**: distinct states after the reductions, and
//!   the edges between them (one per distinct choice vector).
//! * **Complete schedules**: distinct choice sequences from the start to an
//!   end. Each is a path in the explored graph (replay is deterministic and
//!   every step consumes exactly the choices it asks for, so a sequence
//!   determines its path), so they are counted by dynamic programming over
//!   the graph in topological order, never enumerated. The graph is acyclic
//!   because time never goes back and every step consumes an event; a cycle
//!   would be reported as [`Status::Cyclic`], never looped on.
//! * **Outcomes**: terminal states grouped by captures per intent, final
//!   answer per attempt and the invariants they break, with how many
//!   terminal states and schedules end in each.
//! * **Shortest schedules**, to each outcome and for each property. With
//!   ties ordered (see below) the measure is the schedule's length: choices up
//!   to its last non-zero one, since a schedule defaults to 0 past its end.
//!   That is what `lousa run --schedule` replays and what proptest's shrinking
//!   minimises, and it is computed exactly: the fewest choices needed to
//!   reach each state (a shortest path in the DAG), plus the state the
//!   all-zero continuation of each edge ends in. With unordered ties the
//!   choice numbers of merged states differ, so the measure is steps instead
//!   (again a shortest path in the DAG), and the schedule is rebuilt by
//!   replaying from the start and following fingerprints.
//!
//! # Reductions
//!
//! Every reduction merges states whose futures are the same up to renaming,
//! so the verdicts, outcomes and schedule counts are exactly those of the
//! unreduced graph; the tests check this on race-2 and race-3.
//!
//! * **Fingerprinting** (always on): states equal under `World`'s `Eq`
//!   (which ignores pure history) are merged: their futures are identical.
//!   Fingerprints are 128 bits (see `crate::fingerprint`), and the index
//!   keeps 96 of them per state (see `IndexKey`), not worlds, so two
//!   distinct states would be merged only if they shared those, with
//!   probability about n²/2⁹⁷ for n states.
//! * **Client symmetry** (`symmetry`): clients whose specs are equal but for
//!   the name (same intents, timings and retry policy) are interchangeable;
//!   in race-N that is every client. States are renamed canonically (see
//!   [`Canonicalizer`]): client numbers appear in the client table, in each
//!   attempt and in the agenda's send and timeout events, and all three are
//!   renamed together. A step reads a client's spec, which is the same for
//!   all of them, and nothing else about its number, and renaming moves no
//!   agenda entry, so a renamed state has the same choice points in the same
//!   order and its successors are the renamed successors. Properties and
//!   outcomes read attempts and intents, never client numbers.
//!   Instances are not renamed: their connections' sessions are numbered
//!   inside the store, which would have to be renamed with them.
//! * **Unordered ties** (`unordered_ties`): events due at the same instant
//!   are a set, not a sequence. The agenda orders them by insertion, which
//!   only numbers the alternatives of the `Next` choice: removing one event
//!   never depends on its position, and a new event goes after every event
//!   due at the same instant or earlier. So two worlds that differ only in
//!   that order have the same successors with the `Next` choices renumbered,
//!   hence the same schedule counts, outcomes and verdicts. Choice numbers
//!   are what changes, which is why the shortest schedule is then measured in
//!   steps.

use crate::choice::{ChoiceKind, Chooser, Schedule, ScheduleChooser};
use crate::fingerprint::{self, Fingerprint, FingerprintHasher};
use crate::handler::StmtInputs;
use crate::part::Part;
use crate::run;
use crate::scenario::{ClientSpec, LoadBalancerPolicy, Scenario, ScenarioError, Strategy};
use crate::store::{Exec, SessionId, Stmt, Store};
use crate::trace::{EndReason, Summary};
use crate::world::{Due, StoreExec, World};
use serde::Serialize;
use std::collections::hash_map::Entry;
// The fixed-hasher index types below are the only hash maps in the core
// (core/clippy.toml); every other map is ordered.
#[allow(clippy::disallowed_types)]
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::ops::ControlFlow;

/// Bounds on an exploration, so that none can exhaust a browser tab.
pub mod limits {
    /// The largest `max_states` accepted: about 5 GB of graph (roughly
    /// 100 bytes per state) before any frontier.
    pub const STATES_MAX: u32 = 50_000_000;
    /// The default: race-2 and race-3 fit under every strategy with the
    /// default reductions (the largest, race-3 under check-then-act, has
    /// 3.1 million states). Breadth-first also holds the widest level's
    /// worlds, about 1.5 kB each: 4.5 GB at the peak for that model, against
    /// 0.4 GB depth-first.
    pub const STATES_DEFAULT: u32 = 5_000_000;
}

/// A *sometimes* property: some complete schedule ends with an intent
/// captured more than once.
pub const DOUBLE_CHARGE_REACHABLE: &str = "double-charge-reachable";
/// A *sometimes* property: some attempt is answered 409 (someone else is
/// processing the key).
pub const CONFLICT_REACHABLE: &str = "409-reachable";
/// A *sometimes* property: two attempts of one intent receive the same 2xx,
/// the second a replay of the first.
pub const REPLAY_REACHABLE: &str = "replay-reachable";

/// The *sometimes* property names the explorer knows.
pub const SOMETIMES_NAMES: [&str; 3] = [
    DOUBLE_CHARGE_REACHABLE,
    CONFLICT_REACHABLE,
    REPLAY_REACHABLE,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Modality {
    /// Must hold at the end of every complete schedule.
    Always,
    /// Must hold at the end of at least one, or the check fails: a green run
    /// cannot be vacuous.
    Sometimes,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Property {
    pub name: String,
    pub modality: Modality,
    /// Whether the design under test must meet it. An *always* property a
    /// design does not claim (check-then-act's at-most-one-capture) is still
    /// checked and reported with its counterexample, but does not fail the
    /// run.
    pub required: bool,
}

impl Property {
    pub fn always(name: &str, required: bool) -> Property {
        Property {
            name: name.into(),
            modality: Modality::Always,
            required,
        }
    }
    pub fn sometimes(name: &str) -> Property {
        Property {
            name: name.into(),
            modality: Modality::Sometimes,
            required: true,
        }
    }
}

/// The *always* properties: the invariants `run::summarize` judges.
pub fn invariant_names(strategy: Strategy) -> Vec<&'static str> {
    let mut names = vec![
        run::AT_MOST_ONE_CAPTURE,
        run::EVERY_2XX_ONE_CAPTURE,
        run::REPLAY_EQUALS_FIRST,
        run::CONFLICTS_NEVER_CHARGE,
    ];
    if strategy == Strategy::IdempotencyKeyLease {
        names.push(run::NO_KEY_STUCK);
    }
    names
}

/// What each design is expected to show: the unprotected ones must be able
/// to double charge; the key designs that answer "processing" must be able
/// to answer 409; the ones that make a repeat wait for the first (held
/// transaction, local effect) must be able to replay. Key designs claim
/// every invariant; the unprotected ones claim none.
pub fn properties_for(strategy: Strategy) -> Vec<Property> {
    let claimed = strategy.uses_key();
    let mut out: Vec<Property> = invariant_names(strategy)
        .into_iter()
        .map(|n| Property::always(n, claimed))
        .collect();
    let sometimes = match strategy {
        Strategy::Naive | Strategy::CheckThenAct => DOUBLE_CHARGE_REACHABLE,
        Strategy::IdempotencyKey
        | Strategy::IdempotencyKeyCatch
        | Strategy::IdempotencyKeyLease => CONFLICT_REACHABLE,
        Strategy::IdempotencyKeyHeldTx | Strategy::LocalEffect => REPLAY_REACHABLE,
    };
    out.push(Property::sometimes(sometimes));
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Search {
    /// Level by level: memory grows with the widest level. Under a state
    /// limit it has seen every state near the start, so a cut run still
    /// holds the shallowest counterexamples.
    BreadthFirst,
    /// Path by path, the default: memory grows with depth times branching
    /// (a tenth of breadth-first's on race-3) and the frontier stays warm in
    /// cache. A complete run has the same graph and every figure the same,
    /// shortest schedules included: they come from the graph, not from the
    /// order of the search.
    DepthFirst,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Distinct states explored at most; reaching it ends the run with
    /// [`Status::StateLimit`].
    pub max_states: u32,
    pub search: Search,
    /// Merge states that differ only by a renaming of interchangeable
    /// clients.
    pub symmetry: bool,
    /// Merge states that differ only in the order of events due at the same
    /// instant. Shortest schedules are then measured in steps, not choices.
    pub unordered_ties: bool,
    pub properties: Vec<Property>,
}

impl Options {
    /// Depth-first, client symmetry on, ties ordered (so the shortest
    /// counterexample is the shortest schedule text), the strategy's
    /// properties. Turn `unordered_ties` on for about half the states when
    /// the shortest schedule matters less than the time.
    pub fn for_strategy(strategy: Strategy) -> Options {
        Options {
            max_states: limits::STATES_DEFAULT,
            search: Search::DepthFirst,
            symmetry: true,
            unordered_ties: false,
            properties: properties_for(strategy),
        }
    }

    pub fn validate(&self) -> Result<(), ScenarioError> {
        let fail = |field: &str, message: String| {
            Err(ScenarioError {
                field: field.into(),
                message,
            })
        };
        if self.max_states == 0 || self.max_states > limits::STATES_MAX {
            return fail(
                "max_states",
                format!("{} is outside 1..={}", self.max_states, limits::STATES_MAX),
            );
        }
        let always = invariant_names(Strategy::IdempotencyKeyLease);
        for p in &self.properties {
            let known = match p.modality {
                Modality::Always => always.contains(&p.name.as_str()),
                Modality::Sometimes => SOMETIMES_NAMES.contains(&p.name.as_str()),
            };
            if !known {
                return fail(
                    "properties",
                    format!("unknown {:?} property {:?}", p.modality, p.name),
                );
            }
        }
        Ok(())
    }

    /// The names of the reductions these options turn on.
    pub fn reductions(&self) -> Vec<String> {
        let mut r = vec!["state-fingerprint".to_string()];
        if self.symmetry {
            r.push("client-symmetry".into());
        }
        if self.unordered_ties {
            r.push("unordered-ties".into());
        }
        r
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Work is left; call [`Explorer::run_for`] again.
    Running,
    /// Every reachable state was explored: the verdicts are final.
    Complete,
    /// `max_states` was reached. Counterexamples and examples found are
    /// real; nothing can be said to hold.
    StateLimit,
    /// [`Explorer::cancel`] was called.
    Cancelled,
    /// The state graph has a cycle, so schedules are unbounded. The world's
    /// clock and event consumption should make this impossible: it is a bug.
    Cyclic,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Complete => "complete",
            Status::StateLimit => "state-limit",
            Status::Cancelled => "cancelled",
            Status::Cyclic => "cyclic",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub status: Status,
    pub states: u64,
    pub transitions: u64,
    /// States found but not yet expanded.
    pub frontier: u64,
    /// Depth (steps from the start) of the state expanded last.
    pub depth: u32,
}

/// How shortest schedules are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shortest {
    /// Fewest choices up to the last non-zero one: the shortest text.
    Choices,
    /// Fewest steps.
    Steps,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Example {
    /// Replays with `lousa run <scenario> --strategy <s> --schedule <text>`.
    pub schedule: Schedule,
    pub text: String,
    /// Length of the schedule: choices up to the last non-zero one.
    pub choices: u32,
    /// Steps of the run it replays, to the end.
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Captures (and committed local effects) per intent.
    pub captures: Vec<u32>,
    /// The answer each attempt received, `None` for none in time.
    pub answers: Vec<Option<u16>>,
    pub end: EndReason,
    /// The invariants this outcome breaks.
    pub broken: Vec<String>,
    pub double_charge: bool,
    /// Two attempts of one intent got the same 2xx: a replay.
    pub replay: bool,
    /// Distinct terminal states with this outcome.
    pub states: u64,
    /// Complete schedules that end in it (saturating).
    #[serde(serialize_with = "count_json")]
    pub schedules: u128,
    /// The shortest schedule that ends in it.
    pub example: Option<Example>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// *Always*: no schedule breaks it.
    Holds,
    /// *Always*: some schedule breaks it (see the example).
    Violated,
    /// *Sometimes*: some schedule shows it (see the example).
    Reached,
    /// *Sometimes*: no schedule shows it: the check would be vacuous, so it
    /// fails.
    NeverReached,
    /// The exploration stopped before it could decide.
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Reached => "reached",
            Verdict::NeverReached => "never-reached",
            Verdict::Unknown => "unknown",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PropertyReport {
    pub property: Property,
    pub verdict: Verdict,
    /// The shortest counterexample (*always*) or witness (*sometimes*).
    pub example: Option<Example>,
    /// Whether the verdict is what the run requires.
    pub ok: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Report {
    pub scenario: String,
    pub strategy: Strategy,
    pub status: Status,
    pub search: Search,
    /// The reductions that were on.
    pub reductions: Vec<String>,
    pub shortest: Shortest,
    pub states: u64,
    pub transitions: u64,
    pub terminal_states: u64,
    /// The longest complete run, in steps.
    pub max_depth: u32,
    /// Complete schedules from the start to an end. Exact when `status` is
    /// complete and `schedules_saturated` is false.
    #[serde(serialize_with = "count_json")]
    pub schedules: u128,
    pub schedules_saturated: bool,
    pub outcomes: Vec<Outcome>,
    /// The outcomes summed by captures per intent alone.
    pub by_captures: Vec<Tally<Vec<u32>>>,
    /// The outcomes summed by the final answers alone.
    pub by_answers: Vec<Tally<Vec<Option<u16>>>>,
    pub properties: Vec<PropertyReport>,
}

/// One line of a histogram: terminal states and schedules with this value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tally<K> {
    pub value: K,
    pub states: u64,
    #[serde(serialize_with = "count_json")]
    pub schedules: u128,
}

/// Sums outcomes by one of their fields, most schedules first.
fn tally<K: Clone + PartialEq>(outcomes: &[Outcome], key: impl Fn(&Outcome) -> K) -> Vec<Tally<K>> {
    let mut out: Vec<Tally<K>> = Vec::new();
    for o in outcomes {
        let k = key(o);
        match out.iter_mut().find(|t| t.value == k) {
            Some(t) => {
                t.states += o.states;
                t.schedules = t.schedules.saturating_add(o.schedules);
            }
            None => out.push(Tally {
                value: k,
                states: o.states,
                schedules: o.schedules,
            }),
        }
    }
    out.sort_by_key(|t| std::cmp::Reverse(t.schedules));
    out
}

impl Report {
    /// True when the exploration finished and every property met its
    /// requirement.
    pub fn passed(&self) -> bool {
        self.status == Status::Complete && self.properties.iter().all(|p| p.ok)
    }

    /// The shortest counterexample to the first violated *always* property,
    /// in the order given (at-most-one-capture comes first by default).
    pub fn counterexample(&self) -> Option<(&Property, &Example)> {
        self.properties
            .iter()
            .filter(|p| p.verdict == Verdict::Violated)
            .find_map(|p| p.example.as_ref().map(|e| (&p.property, e)))
    }

    pub fn property(&self, name: &str) -> Option<&PropertyReport> {
        self.properties.iter().find(|p| p.property.name == name)
    }
}

/// Explores a scenario to the end (or to `max_states`).
pub fn explore(scenario: &Scenario, options: &Options) -> Result<Report, ScenarioError> {
    explore_with(scenario, options, &mut |_| ControlFlow::Continue(()))
}

/// Explores, calling `progress` between slices of a few thousand states;
/// returning `ControlFlow::Break` from it cancels the run.
pub fn explore_with(
    scenario: &Scenario,
    options: &Options,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Report, ScenarioError> {
    const SLICE_STATES: u32 = 4_096;
    let mut ex = Explorer::new(scenario, options)?;
    loop {
        let p = ex.run_for(SLICE_STATES);
        if p.status != Status::Running {
            break;
        }
        if progress(&p).is_break() {
            ex.cancel();
            break;
        }
    }
    Ok(ex.into_report().expect("a stopped explorer has a report"))
}

/// A count as a JSON number while a JavaScript number holds it exactly
/// (below 2⁵³), and as a decimal string beyond.
fn count_json<S: serde::Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
    const EXACT_IN_JS: u128 = 1 << 53;
    if *n < EXACT_IN_JS {
        s.serialize_u64(*n as u64)
    } else {
        s.serialize_str(&n.to_string())
    }
}

// ---- fingerprints ----

/// The index's keys are fingerprints already: use their low bits as is.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u128 fingerprints are hashed")
    }
    fn write_u128(&mut self, i: u128) {
        self.0 = i as u64;
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[allow(clippy::disallowed_types)]
type Index = HashMap<IndexKey, u32, BuildHasherDefault<PassThrough>>;

/// The index's key: 96 of a fingerprint's 128 bits (its low word whole, the
/// top half of its high word), as three 4-byte words. Aligned to 4 bytes, a
/// slot of the index (key and state number) takes 16 bytes instead of the
/// 24 two 8-byte words took (or the 32 of a `u128`), so the index, the one
/// structure every transition looks up at random, spans a third fewer
/// memory pages and cache lines: 8 MB at race-4's 259,583 states, where
/// it was 12 MB, and the run 3% faster. Two states then share a key with
/// probability about n²/2⁹⁷ for n states (10⁻¹⁴ at the 50-million-state
/// limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct IndexKey([u32; 3]);

impl IndexKey {
    fn new(fp: Fingerprint) -> IndexKey {
        IndexKey([fp as u32, (fp >> 32) as u32, (fp >> 96) as u32])
    }
}

impl Hash for IndexKey {
    /// The low word, whole: hashbrown picks the slot from its low bits and
    /// the tag it compares first from its top ones.
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(u64::from(self.0[0]) | (u64::from(self.0[1]) << 32));
    }
}

/// What each statement did to each store the explorer met: the store it
/// left (shared, with its fingerprint) and what it returned. Most
/// transitions run a statement on a store some other transition already
/// ran it on (a step of one instance leaves the store the others see as it
/// was), and a hit skips the engine, the copy of the store and its
/// fingerprint. The key is the fingerprint of (store, session, what the
/// statement is built from), which determines everything `Store::execute`
/// reads: the statement is a function of its `StmtInputs` and the
/// scenario, and the scenario, like the store's schema (left out of its
/// `Hash`), is the same in every world an explorer meets. Keying on the
/// inputs rather than the statement hashes a dozen words instead of some
/// fifty, and a hit builds no statement. Keys are whole 128-bit
/// fingerprints: two collide with probability about 2⁻¹²⁸ per pair.
/// The memo's map, keyed by fingerprints used as their own hash.
#[allow(clippy::disallowed_types)]
type MemoMap = HashMap<Fingerprint, (Part<Store>, Exec), BuildHasherDefault<PassThrough>>;

#[derive(Default)]
struct StoreMemo {
    map: MemoMap,
    /// Statements answered from the memo, for the tests.
    hits: u64,
}

/// Entries the memo holds at most; it starts over when full, so its memory
/// stays bounded whatever the model (the stores it holds are mostly shared
/// with the worlds waiting in the frontier).
const STORE_MEMO_MAX: usize = 1 << 16;

impl StoreExec for StoreMemo {
    fn execute(
        &mut self,
        store: &mut Part<Store>,
        session: SessionId,
        inputs: &StmtInputs,
        stmt: &dyn Fn() -> Stmt,
    ) -> std::borrow::Cow<'_, Exec> {
        let mut h = FingerprintHasher::new();
        h.part(store.fingerprint(fingerprint::of));
        session.hash(&mut h);
        inputs.hash(&mut h);
        let key = h.finish128();
        if self.map.len() >= STORE_MEMO_MAX {
            self.map.clear();
        }
        let (after, exec) = match self.map.entry(key) {
            Entry::Occupied(e) => {
                self.hits += 1;
                e.into_mut()
            }
            Entry::Vacant(e) => {
                let exec = store.execute(session, stmt());
                store.fingerprint(fingerprint::of);
                e.insert((store.clone(), exec))
            }
        };
        store.clone_from(after);
        std::borrow::Cow::Borrowed(exec)
    }
}

/// Maps with std's fixed-key SipHash: no random keys to ask the platform
/// for (wasm32-unknown-unknown has none), and the same behaviour every run.
#[allow(clippy::disallowed_types)]
type FixedMap<K, V> = HashMap<K, V, BuildHasherDefault<DefaultHasher>>;
#[allow(clippy::disallowed_types)]
type FixedSet<K> = HashSet<K, BuildHasherDefault<DefaultHasher>>;

// ---- reductions ----

/// Whether two clients differ only by name. The destructuring is exhaustive
/// on purpose: a field added to `ClientSpec` must be considered here, or the
/// symmetry would merge clients that behave differently.
fn same_but_name(a: &ClientSpec, b: &ClientSpec) -> bool {
    let ClientSpec {
        name: _,
        kind,
        intents,
        start_ms,
        timeout_ms,
        retries_max,
        backoff_ms,
        new_key_per_retry,
        gap_between_intents_ms,
    } = a;
    *kind == b.kind
        && *intents == b.intents
        && *start_ms == b.start_ms
        && *timeout_ms == b.timeout_ms
        && *retries_max == b.retries_max
        && *backoff_ms == b.backoff_ms
        && *new_key_per_retry == b.new_key_per_retry
        && *gap_between_intents_ms == b.gap_between_intents_ms
}

/// Groups of interchangeable clients (equal specs but for the name), in
/// increasing client order. Only groups of two or more matter.
fn client_classes(s: &Scenario) -> Vec<Vec<u32>> {
    let mut classes: Vec<Vec<u32>> = Vec::new();
    for (i, c) in s.clients.iter().enumerate() {
        match classes
            .iter_mut()
            .find(|cl| same_but_name(&s.clients[cl[0] as usize], c))
        {
            Some(cl) => cl.push(i as u32),
            None => classes.push(vec![i as u32]),
        }
    }
    classes.retain(|c| c.len() > 1);
    classes
}

/// Puts worlds into the canonical form of their equivalence class, in place.
/// See the module docs for why each reduction keeps the verdicts exact.
#[derive(Clone, Debug)]
pub struct Canonicalizer {
    classes: Vec<Vec<u32>>,
    unordered_ties: bool,
}

impl Canonicalizer {
    pub fn new(scenario: &Scenario, symmetry: bool, unordered_ties: bool) -> Canonicalizer {
        Canonicalizer {
            classes: if symmetry {
                client_classes(scenario)
            } else {
                Vec::new()
            },
            unordered_ties,
        }
    }

    /// Whether it changes anything at all.
    pub fn is_identity(&self) -> bool {
        self.classes.is_empty() && !self.unordered_ties
    }

    pub fn apply(&self, w: &mut World) {
        if let Some(map) = self.renaming(w) {
            rename_clients(w, &map);
        }
        if self.unordered_ties {
            sort_ties(w);
        }
    }

    /// The canonical renaming of a world's clients: within each class of
    /// interchangeable clients, the client that sent the earliest attempt
    /// gets the class's lowest number, and so on. Clients that have sent
    /// nothing are ordered by where they first appear in the agenda (when
    /// ties are ordered) or by number: such clients of one class are in
    /// identical states, so any order gives the same canonical world once
    /// the agenda is sorted. The order reads attempt numbers and agenda
    /// positions, which a renaming does not change, so renamed copies of one
    /// world get the same canonical form.
    fn renaming(&self, w: &World) -> Option<Renaming> {
        if self.classes.is_empty() {
            return None;
        }
        let n = w.clients.len();
        assert!(n <= CLIENTS_MAX, "scenarios are validated");
        let mut first_attempt = [u32::MAX; CLIENTS_MAX];
        for (a, at) in w.attempts.iter().enumerate().rev() {
            first_attempt[at.client as usize] = a as u32;
        }
        let mut first_due = [u32::MAX; CLIENTS_MAX];
        if !self.unordered_ties {
            for (pos, e) in w.agenda.items.iter().enumerate().rev() {
                if let Due::ClientSend { client } | Due::ClientTimeout { client, .. } = &e.due {
                    first_due[*client as usize] = pos as u32;
                }
            }
        }
        let mut map = [0u32; CLIENTS_MAX];
        for (c, m) in map.iter_mut().enumerate() {
            *m = c as u32;
        }
        let mut changed = false;
        let mut order = [0u32; CLIENTS_MAX];
        for class in &self.classes {
            let order = &mut order[..class.len()];
            order.copy_from_slice(class);
            order.sort_unstable_by_key(|&c| (first_attempt[c as usize], first_due[c as usize], c));
            for (slot, &c) in class.iter().zip(order.iter()) {
                map[c as usize] = *slot;
                changed |= *slot != c;
            }
        }
        changed.then_some(Renaming { map, len: n })
    }
}

const CLIENTS_MAX: usize = crate::scenario::limits::CLIENTS_MAX;

/// Client `c` becomes client `map[c]`.
struct Renaming {
    map: [u32; CLIENTS_MAX],
    len: usize,
}

/// An agenda event as it reads after renaming clients by `r`.
fn renamed(due: &Due, r: Option<&Renaming>) -> Due {
    let mut due = due.clone();
    if let (Some(r), Due::ClientSend { client } | Due::ClientTimeout { client, .. }) = (r, &mut due)
    {
        *client = r.map[*client as usize];
    }
    due
}

fn rename_clients(w: &mut World, r: &Renaming) {
    let map = &r.map[..r.len];
    // Put each client state at its new number, by swaps: the state at `i`
    // belongs at `to[i]`.
    let mut to = r.map;
    for i in 0..r.len {
        while to[i] as usize != i {
            let j = to[i] as usize;
            w.clients.swap(i, j);
            to.swap(i, j);
        }
    }
    for a in w.attempts.iter_mut() {
        // Only attempts whose client changes number are written: a write
        // unshares the attempt and drops its cached fingerprint.
        let client = map[a.client as usize];
        if a.client != client {
            a.client = client;
        }
    }
    for e in &mut w.agenda.items {
        e.rename_client(|c| map[c as usize]);
    }
}

/// Orders the events due at one instant by their content instead of their
/// insertion, renumbering insertion so that later pushes still go last.
fn sort_ties(w: &mut World) {
    let items = &mut w.agenda.items;
    let sorted = items
        .windows(2)
        .all(|p| (p[0].at, &p[0].due) <= (p[1].at, &p[1].due));
    if !sorted {
        items.sort_by(|a, b| (a.at, &a.due).cmp(&(b.at, &b.due)));
    }
    for (i, e) in items.iter_mut().enumerate() {
        e.seq = i as u64;
    }
}

/// The canonical member of a world's class under both reductions (client
/// symmetry and unordered ties). A plain function, so the stateright peer
/// benchmark can pass it to `symmetry_fn` and apply exactly the same
/// reduction.
pub fn representative(w: &World) -> World {
    let mut r = w.clone();
    Canonicalizer::new(w.scenario(), true, true).apply(&mut r);
    r
}

// ---- successors ----

/// The explorer's worlds produce no trace and no SQL text: it reads only
/// states and outcomes. Every world it compares must be made this way, as
/// quiet worlds keep no text that traced ones would hash.
pub fn quiet_world(scenario: &Scenario) -> World {
    let mut w = World::new(scenario);
    w.set_quiet();
    w
}

/// Every successor of `w` with the choice vector that produces it, in the
/// lexicographic order of choice vectors (the all-zero one first).
pub fn successors(w: &World) -> Vec<(Vec<u32>, World)> {
    successors_with(w, &mut None)
}

/// [`successors`], with statements run by `store` when given.
fn successors_with(w: &World, store: &mut Option<StoreMemo>) -> Vec<(Vec<u32>, World)> {
    // The explorer's shortcut, so that the peer benchmark's stateright wrapper
    // (which enumerates with this function) gets it too: where the only
    // choice is which due event runs, its alternatives are known up front.
    if only_next_choices(w.scenario()) {
        let first = step_next_with(w, 0, store);
        if first.0.is_empty() {
            return vec![first];
        }
        let mut out = vec![first];
        for pick in 1..next_arity(w) {
            out.push(step_next_with(w, pick, store));
        }
        return out;
    }
    prefix_successors(w, store)
}

/// The memo as the hook `World::step_with` takes.
fn exec_of(store: &mut Option<StoreMemo>) -> Option<&mut dyn StoreExec> {
    store.as_mut().map(|m| m as &mut dyn StoreExec)
}

/// [`successors`] by the prefix walk alone, whatever the scenario.
fn prefix_successors(w: &World, store: &mut Option<StoreMemo>) -> Vec<(Vec<u32>, World)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for_each_successor(w, &mut stack, exec_of(store), |choices, next| {
        out.push((choices.to_vec(), next))
    });
    out
}

/// The prefix walk: replays `w.step` under each choice prefix and branches
/// on every alternative a run defaulted. `stack` is scratch space.
fn for_each_successor(
    w: &World,
    stack: &mut Vec<Vec<u32>>,
    mut store_exec: Option<&mut dyn StoreExec>,
    mut visit: impl FnMut(&[u32], World),
) {
    debug_assert!(!w.is_done());
    stack.clear();
    stack.push(Vec::new());
    while let Some(prefix) = stack.pop() {
        let fixed = prefix.len();
        let mut next = w.clone();
        let mut chooser = ScheduleChooser::new(&Schedule(prefix));
        let reborrowed = store_exec.as_mut().map(|x| &mut **x as &mut dyn StoreExec);
        next.step_with(&mut chooser, reborrowed);
        let choices: Vec<u32> = chooser.taken.iter().map(|t| t.2).collect();
        debug_assert!(
            fixed <= choices.len(),
            "a replayed prefix met fewer choice points"
        );
        // Later positions and larger alternatives are pushed first, so the
        // smallest vector pops next: lexicographic order.
        for i in fixed..choices.len() {
            for alt in (1..chooser.taken[i].1).rev() {
                let mut p = Vec::with_capacity(i + 1);
                p.extend_from_slice(&choices[..i]);
                p.push(alt);
                stack.push(p);
            }
        }
        visit(&choices, next);
    }
}

/// Scenarios whose only choice point is `Next` (which of the events due at
/// one instant runs): no jitter, and a load balancer that never asks. For
/// them the alternatives of a step are known before it runs, so the last
/// one can consume the world instead of a clone of it.
fn only_next_choices(s: &Scenario) -> bool {
    s.network.jitter_ms == 0
        && matches!(
            s.load_balancer,
            LoadBalancerPolicy::RoundRobin | LoadBalancerPolicy::StickyByKey
        )
}

/// The arity of the `Next` choice `w.step` will meet: the number of events
/// due at the earliest instant, or 1 when the step will end the run.
fn next_arity(w: &World) -> u32 {
    let items = &w.agenda.items;
    match items.first() {
        Some(e) if e.at <= w.scenario().horizon_ms => {
            items.iter().take_while(|i| i.at == e.at).count() as u32
        }
        _ => 1,
    }
}

/// Answers the `Next` choice with `pick` and refuses every other choice
/// point: used only where none can occur (see `only_next_choices`).
struct NextChooser {
    pick: u32,
    arity: u32,
    asked: u32,
}

impl Chooser for NextChooser {
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32 {
        assert!(
            kind == ChoiceKind::Next && n == self.arity && self.asked == 0,
            "World::step met a choice point ({kind:?} of {n}) the explorer's fast path does not \
             expect; only_next_choices must learn about it"
        );
        self.asked += 1;
        self.pick
    }
}

/// One step of `w` that runs the `pick`-th event due now, for scenarios
/// whose only choice is `Next`, with the choices a schedule needs to replay
/// it (none when the step did not have to choose); statements run by
/// `store` when given.
fn step_next_with(w: &World, pick: u32, store: &mut Option<StoreMemo>) -> (Vec<u32>, World) {
    let mut next = w.clone();
    let mut chooser = NextChooser {
        pick,
        arity: next_arity(w),
        asked: 0,
    };
    next.step_with(&mut chooser, exec_of(store));
    let choices = if chooser.asked == 0 {
        vec![]
    } else {
        vec![pick]
    };
    (choices, next)
}

// ---- the explorer ----

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Node {
    first_edge: u32,
    edge_count: u32,
    /// Outcome class for terminal states, `NONE` otherwise.
    class: u32,
    expanded: bool,
}

#[derive(Clone, Copy)]
struct Edge {
    to: u32,
    /// Choice points the step met.
    choices: u16,
    /// Index of the last non-zero choice plus one; 0 for the all-zero vector.
    last_nonzero: u16,
}

/// The key that groups terminal states into outcomes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ClassKey {
    captures: Vec<u32>,
    answers: Vec<Option<u16>>,
    end: EndReason,
    broken: Vec<String>,
    replay: bool,
}

struct Class {
    key: ClassKey,
    states: u64,
}

/// A step-wise explorer: `run_for` does a bounded slice of work, so a page
/// can interleave it with rendering, report progress, and cancel between
/// slices. Single-threaded, no clock.
pub struct Explorer {
    scenario: Scenario,
    options: Options,
    canon: Canonicalizer,
    index: Index,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// States waiting for expansion: (node, depth, world). Boxed, so that
    /// the worlds move as pointers through a step and its bookkeeping.
    frontier: VecDeque<(u32, u32, Box<World>)>,
    classes: Vec<Class>,
    class_index: FixedMap<ClassKey, u32>,
    depth: u32,
    status: Status,
    report: Option<Report>,
    stack: Vec<Vec<u32>>,
    found: Vec<(u16, u16, World)>,
    /// `None` only in the tests that compare runs with and without it.
    store_memo: Option<StoreMemo>,
    /// Successors already seen, kept to be copied into (see
    /// `World::clone_into_reusing`) instead of freed; at most `SPARES_MAX`.
    /// Boxed as the frontier's are: a spare becomes a successor, then
    /// perhaps a frontier entry, without moving its world.
    #[allow(clippy::vec_box)]
    spares: Vec<Box<World>>,
    /// One expansion's successors, between their step and their lookup.
    batch: Vec<Successor>,
    only_next: bool,
}

const SPARES_MAX: usize = 8;

/// A successor stepped and keyed, waiting to be added to the graph.
struct Successor {
    world: Box<World>,
    key: IndexKey,
    choices: u16,
    last_nonzero: u16,
    /// Its node, when the index already had it.
    seen: Option<u32>,
}

impl Explorer {
    pub fn new(scenario: &Scenario, options: &Options) -> Result<Explorer, ScenarioError> {
        scenario.validate()?;
        options.validate()?;
        let canon = Canonicalizer::new(scenario, options.symmetry, options.unordered_ties);
        let mut ex = Explorer {
            scenario: scenario.clone(),
            options: options.clone(),
            canon,
            index: Index::default(),
            nodes: Vec::new(),
            edges: Vec::new(),
            frontier: VecDeque::new(),
            classes: Vec::new(),
            class_index: FixedMap::default(),
            depth: 0,
            status: Status::Running,
            report: None,
            stack: Vec::new(),
            found: Vec::new(),
            store_memo: Some(StoreMemo::default()),
            spares: Vec::new(),
            batch: Vec::new(),
            only_next: only_next_choices(scenario),
        };
        let id = ex.intern(Box::new(quiet_world(scenario)), 0);
        debug_assert_eq!(id, 0);
        Ok(ex)
    }

    pub fn progress(&self) -> Progress {
        Progress {
            status: self.status,
            states: self.nodes.len() as u64,
            transitions: self.edges.len() as u64,
            frontier: self.frontier.len() as u64,
            depth: self.depth,
        }
    }

    /// Expands up to `budget_states` states, then returns. When the work is
    /// done (or a bound is hit) the status leaves `Running` and the report
    /// is ready.
    pub fn run_for(&mut self, budget_states: u32) -> Progress {
        let mut budget = budget_states;
        while budget > 0 && self.status == Status::Running {
            let next = match self.options.search {
                Search::BreadthFirst => self.frontier.pop_front(),
                Search::DepthFirst => self.frontier.pop_back(),
            };
            let Some((id, depth, world)) = next else {
                self.finish(Status::Complete);
                break;
            };
            self.depth = depth;
            self.expand(id, depth, world);
            budget -= 1;
        }
        self.progress()
    }

    /// Stops between slices; the report covers what was explored.
    pub fn cancel(&mut self) {
        if self.status == Status::Running {
            self.finish(Status::Cancelled);
        }
    }

    pub fn report(&self) -> Option<&Report> {
        self.report.as_ref()
    }

    pub fn into_report(self) -> Option<Report> {
        self.report
    }

    /// The node id of `w`, adding it if new; `NONE` when the state bound is
    /// hit. `w` is put in canonical form first.
    fn intern(&mut self, mut w: Box<World>, depth: u32) -> u32 {
        let key = self.key_of(&mut w);
        self.intern_keyed(w, key, depth)
    }

    /// `w` in canonical form, and its key in the index.
    fn key_of(&mut self, w: &mut World) -> IndexKey {
        self.canon.apply(w);
        IndexKey::new(w.fingerprint())
    }

    /// [`Explorer::intern`] for a world `key_of` has seen.
    fn intern_keyed(&mut self, w: Box<World>, key: IndexKey, depth: u32) -> u32 {
        let id = self.nodes.len() as u32;
        match self.index.entry(key) {
            Entry::Occupied(e) => {
                let id = *e.get();
                self.recycle(w);
                return id;
            }
            Entry::Vacant(_) if id >= self.options.max_states => return NONE,
            Entry::Vacant(e) => e.insert(id),
        };
        let class = if w.is_done() {
            self.classify(&run::summarize(&w))
        } else {
            NONE
        };
        self.nodes.push(Node {
            first_edge: 0,
            edge_count: 0,
            class,
            expanded: false,
        });
        if class == NONE {
            self.frontier.push_back((id, depth, w));
        } else {
            self.recycle(w);
        }
        id
    }

    fn recycle(&mut self, w: Box<World>) {
        if self.spares.len() < SPARES_MAX {
            self.spares.push(w);
        }
    }

    /// A copy of `w`, made in a spare world when there is one.
    fn copy_of(&mut self, w: &World) -> Box<World> {
        match self.spares.pop() {
            Some(mut spare) => {
                w.clone_into_reusing(&mut spare);
                spare
            }
            None => Box::new(w.clone()),
        }
    }

    fn classify(&mut self, s: &Summary) -> u32 {
        let key = ClassKey {
            captures: s.intents.iter().map(|i| i.captures).collect(),
            answers: s.statuses(),
            end: s.end,
            broken: s
                .invariants
                .iter()
                .filter(|v| !v.holds)
                .map(|v| v.name.clone())
                .collect(),
            replay: has_replay(s),
        };
        let id = match self.class_index.get(&key) {
            Some(&id) => id,
            None => {
                let id = self.classes.len() as u32;
                self.class_index.insert(key.clone(), id);
                self.classes.push(Class { key, states: 0 });
                id
            }
        };
        self.classes[id as usize].states += 1;
        id
    }

    fn expand(&mut self, id: u32, depth: u32, world: Box<World>) {
        let first_edge = self.edges.len() as u32;
        let complete = if self.only_next {
            self.expand_next_only(depth, world)
        } else {
            self.expand_by_prefixes(depth, &world)
        };
        if !complete {
            // The state stays unexpanded: drop its partial edges.
            self.edges.truncate(first_edge as usize);
            self.finish(Status::StateLimit);
            return;
        }
        let node = &mut self.nodes[id as usize];
        node.first_edge = first_edge;
        node.edge_count = self.edges.len() as u32 - first_edge;
        node.expanded = true;
    }

    /// Adds the edge to `next`; false when the state bound is hit.
    fn add_edge(
        &mut self,
        mut next: Box<World>,
        depth: u32,
        choices: u16,
        last_nonzero: u16,
    ) -> bool {
        let key = self.key_of(&mut next);
        self.add_successor(
            Successor {
                world: next,
                key,
                choices,
                last_nonzero,
                seen: None,
            },
            depth,
        )
    }

    /// Adds the edge to a keyed successor (looked up already when `seen`);
    /// false when the state bound is hit.
    fn add_successor(&mut self, s: Successor, depth: u32) -> bool {
        let to = match s.seen {
            Some(id) => {
                self.recycle(s.world);
                id
            }
            None => self.intern_keyed(s.world, s.key, depth + 1),
        };
        if to == NONE {
            return false;
        }
        self.edges.push(Edge {
            to,
            choices: s.choices,
            last_nonzero: s.last_nonzero,
        });
        true
    }

    /// The same transitions, in the same order, as the prefix walk, for
    /// scenarios whose only choice is `Next`: one per alternative, the last
    /// one stepping `world` itself instead of a clone.
    fn expand_next_only(&mut self, depth: u32, world: Box<World>) -> bool {
        let arity = next_arity(&world);
        let mut world = Some(world);
        let mut batch = std::mem::take(&mut self.batch);
        for pick in 0..arity {
            let mut next = if pick + 1 < arity {
                self.copy_of(world.as_ref().expect("kept for the last"))
            } else {
                world.take().expect("not yet consumed")
            };
            let mut chooser = NextChooser {
                pick,
                arity,
                asked: 0,
            };
            next.step_with(&mut chooser, exec_of(&mut self.store_memo));
            let key = self.key_of(&mut next);
            // A step that ended the run (the event limit) without choosing
            // is its state's only transition.
            let ended = chooser.asked == 0;
            assert!(
                !ended || pick == 0,
                "a step chose for one alternative and not another"
            );
            batch.push(Successor {
                world: next,
                key,
                choices: u16::from(!ended),
                last_nonzero: u16::from(pick > 0),
                seen: None,
            });
            if ended {
                break;
            }
        }
        // Every successor is looked up before any is added: the lookups do
        // not depend on each other, so the processor overlaps their cache
        // misses (the index is far larger than the cache, and a lookup was
        // a tenth of the run). A state found here stays found; one not
        // found is looked up again as it is added, as a sibling may have
        // added it since.
        for s in &mut batch {
            s.seen = self.index.get(&s.key).copied();
        }
        let mut complete = true;
        for s in batch.drain(..) {
            if complete {
                complete = self.add_successor(s, depth);
            } else {
                self.recycle(s.world);
            }
        }
        self.batch = batch;
        complete
    }

    fn expand_by_prefixes(&mut self, depth: u32, world: &World) -> bool {
        let mut found = std::mem::take(&mut self.found);
        let memo = exec_of(&mut self.store_memo);
        for_each_successor(world, &mut self.stack, memo, |choices, next| {
            let last_nonzero = choices.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            found.push((choices.len() as u16, last_nonzero as u16, next));
        });
        let mut complete = true;
        for (choices, last_nonzero, next) in found.drain(..) {
            complete = complete && self.add_edge(Box::new(next), depth, choices, last_nonzero);
        }
        self.found = found;
        complete
    }

    fn out_edges(&self, id: u32) -> &[Edge] {
        let n = &self.nodes[id as usize];
        &self.edges[n.first_edge as usize..(n.first_edge + n.edge_count) as usize]
    }

    fn shortest(&self) -> Shortest {
        if self.options.unordered_ties {
            Shortest::Steps
        } else {
            Shortest::Choices
        }
    }

    /// Counts, outcomes, shortest schedules and verdicts over the explored
    /// graph.
    fn finish(&mut self, status: Status) {
        self.frontier = VecDeque::new();
        self.found = Vec::new();
        self.spares = Vec::new();
        let (status, analysis) = match self.analyse() {
            Some(analysis) => (status, analysis),
            None => (
                Status::Cyclic,
                Analysis::empty(self.nodes.len(), self.classes.len()),
            ),
        };
        self.status = status;
        // The examples are rebuilt by replays, whose statements the memo
        // has mostly seen.
        let mut store = self.store_memo.take();
        self.report = Some(self.make_report(status, &analysis, &mut store));
        self.store_memo = store;
    }

    /// Every figure over the explored graph; `None` if it has a cycle.
    fn analyse(&self) -> Option<Analysis> {
        let n = self.nodes.len();
        let mut a = Analysis::empty(n, self.classes.len());
        let by_choices = self.shortest() == Shortest::Choices;
        if by_choices && !self.default_runs(&mut a) {
            return None;
        }
        // One pass for every figure that flows from the start, in the order
        // Kahn's algorithm takes the states (its queue a stack): a state is
        // taken once all its predecessors were, so its figures are final
        // then, and the pass that orders the states carries them along the
        // edges too. The graph outgrows the cache on large models, and each
        // pass over it pays a miss per edge: ordering first and carrying
        // after took two.
        let mut indegree = vec![0u32; n];
        for e in &self.edges {
            indegree[e.to as usize] += 1;
        }
        let mut ready: Vec<u32> = (0..n as u32)
            .filter(|&v| indegree[v as usize] == 0)
            .collect();
        let mut taken = 0;
        a.reach[0].paths = [0, 1];
        a.reach[0].cost = 0;
        let mut best = std::mem::take(&mut a.best);
        if by_choices && a.reach[0].default_class != NONE {
            // The all-zero run from the start: the empty schedule.
            best[a.reach[0].default_class as usize] = Some((0, NONE, NONE));
        }
        while let Some(u) = ready.pop() {
            taken += 1;
            let from = a.reach[u as usize];
            let first = self.nodes[u as usize].first_edge;
            let from_paths = paths_of(&from);
            for (k, e) in self.out_edges(u).iter().enumerate() {
                let to = &mut a.reach[e.to as usize];
                let (sum, over) = paths_of(to).overflowing_add(from_paths);
                to.paths = split(if over { u128::MAX } else { sum });
                a.saturated |= over;
                to.longest = to.longest.max(from.longest + 1);
                let step_cost = if by_choices { u32::from(e.choices) } else { 1 };
                let via = from.cost.saturating_add(step_cost);
                if via < to.cost {
                    to.cost = via;
                    to.via = first + k as u32;
                    to.pred = u;
                }
                // By choices, a schedule may stop after this edge's last
                // non-zero choice and let zeros lead to the class the
                // all-zero run from its target ends in.
                let c = to.default_class;
                if by_choices && from.cost != NONE && e.last_nonzero != 0 && c != NONE {
                    let len = from.cost + u32::from(e.last_nonzero);
                    if best[c as usize].is_none_or(|(l, _, _)| len < l) {
                        best[c as usize] = Some((len, u, first + k as u32));
                    }
                }
                let d = &mut indegree[e.to as usize];
                *d -= 1;
                if *d == 0 {
                    ready.push(e.to);
                }
            }
        }
        if taken < n {
            return None;
        }
        for (v, node) in self.nodes.iter().enumerate() {
            let c = node.class;
            if c == NONE {
                continue;
            }
            let reach = a.reach[v];
            let schedules = &mut a.class_schedules[c as usize];
            let (sum, over) = schedules.overflowing_add(paths_of(&reach));
            *schedules = if over { u128::MAX } else { sum };
            a.saturated |= over;
            a.terminal_states += 1;
            a.max_depth = a.max_depth.max(reach.longest);
            let reachable = reach.cost != NONE;
            if !by_choices && reachable && best[c as usize].is_none_or(|(l, _, _)| reach.cost < l) {
                best[c as usize] = Some((reach.cost, v as u32, NONE));
            }
        }
        a.best = best;
        Some(a)
    }

    /// Where the all-zero run from each state ends (its class) and in how
    /// many steps: the continuation a schedule by choices leaves implicit.
    /// From each state not yet known it follows first edges (the all-zero
    /// choice) to a state that is, then fills in the states it passed, so
    /// each state is filled once and no order is needed. False if first
    /// edges make a cycle.
    fn default_runs(&self, a: &mut Analysis) -> bool {
        const UNKNOWN: u32 = u32::MAX;
        let n = self.nodes.len();
        a.default_steps = vec![UNKNOWN; n];
        let mut passed = Vec::new();
        for start in 0..n {
            let mut v = start;
            while a.default_steps[v] == UNKNOWN {
                let node = &self.nodes[v];
                if node.class != NONE {
                    a.reach[v].default_class = node.class;
                    a.default_steps[v] = 0;
                } else if node.expanded && node.edge_count > 0 {
                    if passed.len() == n {
                        return false;
                    }
                    passed.push(v);
                    v = self.edges[node.first_edge as usize].to as usize;
                } else {
                    a.reach[v].default_class = NONE;
                    a.default_steps[v] = 0;
                }
            }
            let (class, mut steps) = (a.reach[v].default_class, a.default_steps[v]);
            while let Some(u) = passed.pop() {
                steps += 1;
                a.reach[u].default_class = class;
                a.default_steps[u] = steps;
            }
        }
        true
    }

    /// The fewest-cost path of edges from the start to `u`.
    fn path_to(&self, a: &Analysis, u: u32) -> Vec<u32> {
        let mut hops = Vec::new();
        let mut v = u;
        while v != 0 {
            hops.push(a.reach[v as usize].via);
            v = a.reach[v as usize].pred;
        }
        hops.reverse();
        hops
    }

    /// Rebuilds a shortest schedule by choices: the path to `u` by edge
    /// index (renaming keeps choice numbers), then edge `edge` cut after its
    /// last non-zero choice.
    fn rebuild_by_choices(
        &self,
        a: &Analysis,
        memo: &mut Replays,
        store: &mut Option<StoreMemo>,
        u: u32,
        edge: u32,
    ) -> Schedule {
        if u == NONE {
            return Schedule(Vec::new());
        }
        let (w, mut schedule) = self.replay_to(a, memo, u, |w, node, e| {
            self.step_by_choices(w, node, e, store)
        });
        let (choices, _) = self.step_by_choices(&w, u, edge, store);
        let keep = self.edges[edge as usize].last_nonzero as usize;
        schedule.extend_from_slice(&choices[..keep]);
        Schedule(schedule)
    }

    /// Edge `e` out of `node` taken from `w`: renaming keeps choice numbers,
    /// so the edge's rank among its node's edges is the successor's.
    fn step_by_choices(
        &self,
        w: &World,
        node: u32,
        e: u32,
        store: &mut Option<StoreMemo>,
    ) -> (Vec<u32>, World) {
        let k = e - self.nodes[node as usize].first_edge;
        if self.only_next {
            return step_next_with(w, k, store);
        }
        successors_with(w, store).swap_remove(k as usize)
    }

    /// Rebuilds the fewest-step path to terminal `t` by replaying from the
    /// start and following the successor whose canonical fingerprint is the
    /// next node's (with unordered ties, choice numbers differ between
    /// merged states).
    fn rebuild_by_steps(
        &self,
        a: &Analysis,
        memo: &mut Replays,
        store: &mut Option<StoreMemo>,
        t: u32,
        fps: &FixedMap<u32, IndexKey>,
    ) -> Schedule {
        let (_, schedule) = self.replay_to(a, memo, t, |w, node, e| {
            if self.only_next {
                let pick = self.pick_in(w, e - self.nodes[node as usize].first_edge);
                return step_next_with(w, pick, store);
            }
            let want = fps[&self.edges[e as usize].to];
            let leads_there = |next: &World| {
                let mut c = next.clone();
                self.canon.apply(&mut c);
                IndexKey::new(c.fingerprint()) == want
            };
            successors_with(w, store)
                .into_iter()
                .find(|(_, next)| leads_there(next))
                .expect("a recorded edge replays")
        });
        Schedule(schedule).trimmed()
    }

    /// Which event due now in `w` the `k`-th edge of `w`'s node runs, for
    /// scenarios whose only choice is `Next`. The node was expanded in
    /// canonical form, where the events due now are renamed and sorted: edge
    /// `k` runs the `k`-th of those, which is the event of `w` that the
    /// canonical renaming turns into it.
    fn pick_in(&self, w: &World, k: u32) -> u32 {
        // The canonical form's events due now, without building the rest of
        // it: renaming keeps times, and sorting the ties (stable, by time
        // first) keeps the events due now first, in the order they get
        // sorted among themselves.
        let renaming = self.canon.renaming(w);
        let at = w.agenda.items[0].at;
        let now: Vec<Due> = w
            .agenda
            .items
            .iter()
            .take_while(|e| e.at == at)
            .map(|e| renamed(&e.due, renaming.as_ref()))
            .collect();
        let want = if self.canon.unordered_ties {
            let mut sorted = now.clone();
            sorted.sort();
            sorted.swap_remove(k as usize)
        } else {
            now[k as usize].clone()
        };
        let pick = now
            .iter()
            .position(|due| *due == want)
            .expect("a recorded edge replays") as u32;
        debug_assert_eq!(pick, self.pick_in_by_copy(w, k));
        pick
    }

    /// [`Explorer::pick_in`] the long way, on a canonical copy of `w`: what
    /// the tests (built with debug assertions) check it against.
    fn pick_in_by_copy(&self, w: &World, k: u32) -> u32 {
        let mut c = w.clone();
        self.canon.apply(&mut c);
        let want = &c.agenda.items[k as usize];
        let renaming = self.canon.renaming(w);
        w.agenda
            .items
            .iter()
            .take_while(|e| e.at == want.at)
            .position(|e| renamed(&e.due, renaming.as_ref()) == want.due)
            .expect("a recorded edge replays") as u32
    }

    /// The world at `u` on the shortest-path tree and the choices that reach
    /// it, stepping with `take(world, node, edge)`. Every state it steps
    /// through is remembered in `memo`, so examples whose paths share a
    /// prefix (all of them share the start) replay it once.
    fn replay_to(
        &self,
        a: &Analysis,
        memo: &mut Replays,
        u: u32,
        mut take: impl FnMut(&World, u32, u32) -> (Vec<u32>, World),
    ) -> (World, Vec<u32>) {
        let hops = self.path_to(a, u);
        // The deepest state of the path already replayed (the start always is).
        let mut from = hops.len();
        while from > 0
            && !memo
                .at
                .contains_key(&self.edges[hops[from - 1] as usize].to)
        {
            from -= 1;
        }
        let mut node = if from == 0 {
            0
        } else {
            self.edges[hops[from - 1] as usize].to
        };
        let (mut w, mut schedule) = memo
            .at
            .entry(node)
            .or_insert_with(|| (quiet_world(&self.scenario), Vec::new()))
            .clone();
        for &e in &hops[from..] {
            let (choices, next) = take(&w, node, e);
            schedule.extend_from_slice(&choices);
            w = next;
            node = self.edges[e as usize].to;
            if memo.shared.contains(&node) {
                memo.at.insert(node, (w.clone(), schedule.clone()));
            }
        }
        (w, schedule)
    }

    /// The report, its examples rebuilt by replays that run statements by
    /// `store` when given.
    fn make_report(&self, status: Status, a: &Analysis, store: &mut Option<StoreMemo>) -> Report {
        let complete = status == Status::Complete;
        let by_choices = self.shortest() == Shortest::Choices;
        // Only the replay by fingerprints needs them (see `rebuild_by_steps`).
        let fps = if by_choices || self.only_next {
            FixedMap::default()
        } else {
            let wanted: FixedSet<u32> = a
                .best
                .iter()
                .flatten()
                .flat_map(|&(_, t, _)| self.path_to(a, t))
                .map(|e| self.edges[e as usize].to)
                .collect();
            self.index
                .iter()
                .filter(|(_, id)| wanted.contains(id))
                .map(|(key, id)| (*id, *key))
                .collect()
        };
        let mut memo = Replays::for_paths(a.best.iter().flatten().map(|&(_, u, _)| {
            if u == NONE {
                Vec::new()
            } else {
                self.path_to(a, u)
                    .into_iter()
                    .map(|e| self.edges[e as usize].to)
                    .collect()
            }
        }));
        let examples: Vec<Option<Example>> = a
            .best
            .iter()
            .map(|b| {
                b.map(|(_, u, e)| {
                    let schedule = if by_choices {
                        self.rebuild_by_choices(a, &mut memo, store, u, e)
                    } else {
                        self.rebuild_by_steps(a, &mut memo, store, u, &fps)
                    };
                    // By steps an example is a path to a terminal state: one
                    // step per edge. By choices it runs on with the default
                    // choices past its last edge: edge 0 of every state
                    // (transition 0 is the all-zero one), which the graph
                    // knows without a replay.
                    let steps = if !by_choices {
                        self.path_to(a, u).len() as u32
                    } else if u == NONE {
                        a.default_steps[0]
                    } else {
                        let to = self.edges[e as usize].to as usize;
                        self.path_to(a, u).len() as u32 + 1 + a.default_steps[to]
                    };
                    debug_assert_eq!(steps, replay_steps(&self.scenario, &schedule, &mut None));
                    Example {
                        text: schedule.to_string(),
                        choices: schedule.0.len() as u32,
                        steps,
                        schedule,
                    }
                })
            })
            .collect();
        let outcomes: Vec<Outcome> = self
            .classes
            .iter()
            .enumerate()
            .map(|(i, c)| Outcome {
                captures: c.key.captures.clone(),
                answers: c.key.answers.clone(),
                end: c.key.end,
                broken: c.key.broken.clone(),
                double_charge: c.key.captures.iter().any(|&n| n > 1),
                replay: c.key.replay,
                states: c.states,
                schedules: a.class_schedules[i],
                example: examples[i].clone(),
            })
            .collect();
        let properties = self
            .options
            .properties
            .iter()
            .map(|p| property_report(p, &outcomes, complete, self.shortest()))
            .collect();
        Report {
            scenario: self.scenario.name.clone(),
            strategy: self.scenario.strategy,
            status,
            search: self.options.search,
            reductions: self.options.reductions(),
            shortest: self.shortest(),
            states: self.nodes.len() as u64,
            transitions: self.edges.len() as u64,
            terminal_states: a.terminal_states,
            max_depth: a.max_depth,
            schedules: a
                .class_schedules
                .iter()
                .fold(0u128, |s, &c| s.saturating_add(c)),
            schedules_saturated: a.saturated,
            by_captures: tally(&outcomes, |o| o.captures.clone()),
            by_answers: tally(&outcomes, |o| o.answers.clone()),
            outcomes,
            properties,
        }
    }
}

fn property_report(
    p: &Property,
    outcomes: &[Outcome],
    complete: bool,
    shortest: Shortest,
) -> PropertyReport {
    let shows = |o: &&Outcome| match p.modality {
        Modality::Always => o.broken.contains(&p.name),
        Modality::Sometimes => match p.name.as_str() {
            DOUBLE_CHARGE_REACHABLE => o.double_charge,
            CONFLICT_REACHABLE => o.answers.contains(&Some(409)),
            REPLAY_REACHABLE => o.replay,
            _ => false,
        },
    };
    let found = outcomes.iter().any(|o| shows(&o));
    let example = outcomes
        .iter()
        .filter(shows)
        .filter_map(|o| o.example.clone())
        .min_by_key(|e| match shortest {
            Shortest::Choices => (e.choices, e.steps),
            Shortest::Steps => (e.steps, e.choices),
        });
    let verdict = match (p.modality, found, complete) {
        (Modality::Always, true, _) => Verdict::Violated,
        (Modality::Always, false, true) => Verdict::Holds,
        (Modality::Sometimes, true, _) => Verdict::Reached,
        (Modality::Sometimes, false, true) => Verdict::NeverReached,
        (_, false, false) => Verdict::Unknown,
    };
    PropertyReport {
        property: p.clone(),
        verdict,
        example,
        ok: !p.required || matches!(verdict, Verdict::Holds | Verdict::Reached),
    }
}

/// Two attempts of one intent answered the same 2xx.
fn has_replay(s: &Summary) -> bool {
    s.attempts.iter().enumerate().any(|(i, a)| {
        a.status.is_some_and(|st| (200..300).contains(&st))
            && s.attempts[..i]
                .iter()
                .any(|b| b.intent == a.intent && b.status == a.status && b.body == a.body)
    })
}

/// Steps a replay of `schedule` takes to the end.
fn replay_steps(scenario: &Scenario, schedule: &Schedule, store: &mut Option<StoreMemo>) -> u32 {
    let mut w = quiet_world(scenario);
    let mut chooser = ScheduleChooser::new(schedule);
    let mut steps = 0;
    while !w.is_done() {
        w.step_with(&mut chooser, exec_of(store));
        steps += 1;
    }
    steps
}

/// States on the shortest-path tree already replayed while rebuilding
/// examples, with the choices that reach them.
struct Replays {
    at: FixedMap<u32, (World, Vec<u32>)>,
    /// The states on the paths of two examples or more: only those are
    /// worth a copy (the others are replayed once), and the start state.
    shared: FixedSet<u32>,
}

impl Replays {
    /// For examples along `paths` (the states each passes, start excluded).
    fn for_paths(paths: impl Iterator<Item = Vec<u32>>) -> Replays {
        let mut seen = FixedSet::default();
        let mut shared = FixedSet::default();
        for path in paths {
            for v in path {
                if !seen.insert(v) {
                    shared.insert(v);
                }
            }
        }
        Replays {
            at: FixedMap::default(),
            shared,
        }
    }
}

/// What the analysis knows of one state, in one record rather than one
/// array per figure: following an edge then touches one cache line, not
/// five.
#[derive(Clone, Copy)]
struct Reach {
    /// Schedules from the start to this state (saturating), as two words
    /// (high, low) so that the record keeps 8-byte alignment: 40 bytes.
    paths: [u64; 2],
    /// Fewest choices (or steps) to reach it, with the edge (index into
    /// `edges`) and predecessor that achieve it.
    cost: u32,
    via: u32,
    pred: u32,
    /// The most steps to reach it.
    longest: u32,
    /// The class the all-zero run from it ends in (by choices only).
    default_class: u32,
}

fn paths_of(r: &Reach) -> u128 {
    (u128::from(r.paths[0]) << 64) | u128::from(r.paths[1])
}

fn split(paths: u128) -> [u64; 2] {
    [(paths >> 64) as u64, paths as u64]
}

struct Analysis {
    reach: Vec<Reach>,
    class_schedules: Vec<u128>,
    /// Per class: (cost, node, edge) of its shortest schedule; for steps,
    /// the node is the terminal and the edge `NONE`.
    best: Vec<Option<(u32, u32, u32)>>,
    /// By choices: the steps of the all-zero run from each state to its
    /// end (following edge 0), when that run stays in the graph.
    default_steps: Vec<u32>,
    terminal_states: u64,
    max_depth: u32,
    saturated: bool,
}

impl Analysis {
    fn empty(nodes: usize, classes: usize) -> Analysis {
        Analysis {
            reach: vec![
                Reach {
                    paths: [0, 0],
                    cost: NONE,
                    via: NONE,
                    pred: NONE,
                    longest: 0,
                    default_class: NONE,
                };
                nodes
            ],
            class_schedules: vec![0; classes],
            best: vec![None; classes],
            default_steps: Vec::new(),
            terminal_states: 0,
            max_depth: 0,
            saturated: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_key_keeps_96_bits_and_hashes_by_the_low_word() {
        let fp: Fingerprint = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
        let key = IndexKey::new(fp);
        assert_eq!(std::mem::size_of::<(IndexKey, u32)>(), 16);
        let mut h = PassThrough::default();
        key.hash(&mut h);
        assert_eq!(h.finish(), fp as u64);
        for bit in (0..64).chain(96..128) {
            assert_ne!(IndexKey::new(fp ^ (1 << bit)), key, "bit {bit} counts");
        }
        assert_eq!(
            IndexKey::new(fp ^ (1 << 70)),
            key,
            "bits 64 to 95 are dropped"
        );
    }
    use crate::builtins::{builtin, race};
    use crate::handler::Pc;
    use crate::store::{Isolation, Value};

    fn explore_without_memo(s: &Scenario, o: &Options) -> Report {
        let mut ex = Explorer::new(s, o).expect("valid");
        ex.store_memo = None;
        while ex.run_for(u32::MAX).status == Status::Running {}
        ex.into_report().expect("stopped")
    }

    /// Example step counts come from the graph (the edge-0 chain after the
    /// example's last edge), not from a replay: they must be what a replay
    /// of the schedule takes, and each schedule must end in its outcome.
    #[test]
    fn example_steps_are_the_replayed_steps() {
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
            let mut s = race(2);
            s.strategy = strategy;
            for reduced in [false, true] {
                let mut o = Options::for_strategy(strategy);
                o.symmetry = reduced;
                o.unordered_ties = reduced;
                let r = explore(&s, &o).expect("valid");
                assert_eq!(r.status, Status::Complete);
                for outcome in &r.outcomes {
                    let e = outcome.example.as_ref().expect("every outcome has one");
                    assert_eq!(
                        e.steps,
                        replay_steps(&s, &e.schedule, &mut None),
                        "{}",
                        e.text
                    );
                    let mut w = quiet_world(&s);
                    let mut chooser = ScheduleChooser::new(&e.schedule);
                    while !w.is_done() {
                        w.step(&mut chooser);
                    }
                    let summary = run::summarize(&w);
                    let captures: Vec<u32> = summary.intents.iter().map(|i| i.captures).collect();
                    assert_eq!(captures, outcome.captures, "{}", e.text);
                    assert_eq!(summary.statuses(), outcome.answers, "{}", e.text);
                }
            }
        }
    }

    /// The store memo is a cache: every figure of every report, with and
    /// without it, on models where statements wait, fail, crash with the
    /// instance and take every path (the `Next`-only shortcut and the
    /// prefix walk).
    #[test]
    fn the_store_memo_changes_no_report() {
        let mut models: Vec<Scenario> = ["crash-after-commit", "held-transaction", "key-reuse"]
            .iter()
            .map(|n| builtin(n).expect("built-in"))
            .collect();
        for strategy in [
            Strategy::CheckThenAct,
            Strategy::IdempotencyKey,
            Strategy::IdempotencyKeyCatch,
            Strategy::IdempotencyKeyHeldTx,
            Strategy::IdempotencyKeyLease,
        ] {
            let mut s = race(2);
            s.strategy = strategy;
            models.push(s.clone());
            // Jitter: the prefix walk.
            s.network.latency_ms = 1;
            s.network.jitter_ms = 1;
            models.push(s);
        }
        for s in &models {
            for (symmetry, unordered_ties, max_states) in [
                (true, true, 20_000),
                (false, false, 20_000),
                (false, false, 300),
            ] {
                let mut o = Options::for_strategy(s.strategy);
                o.symmetry = symmetry;
                o.unordered_ties = unordered_ties;
                o.max_states = max_states;
                let mut ex = Explorer::new(s, &o).expect("valid");
                while ex.run_for(u32::MAX).status == Status::Running {}
                let hits = ex.store_memo.as_ref().expect("on by default").hits;
                let with = ex.into_report().expect("stopped");
                // Races repeat statements on equal stores (the built-ins
                // with one client may not).
                if s.clients.len() > 1 {
                    assert!(hits > 0, "{} {}: the memo was used", s.name, s.strategy);
                }
                assert_eq!(
                    with,
                    explore_without_memo(s, &o),
                    "{} {}",
                    s.name,
                    s.strategy
                );
            }
        }
    }

    /// The analysis orders the graph as it goes, so it must still see a
    /// cycle, whether first edges (the all-zero runs) close it or later
    /// ones. The graphs are written by hand: no model has a cycle.
    #[test]
    fn the_analysis_refuses_a_cycle() {
        let s = race(2);
        let mut ex = Explorer::new(&s, &Options::for_strategy(s.strategy)).expect("valid");
        let node = |first_edge, edge_count| Node {
            first_edge,
            edge_count,
            class: NONE,
            expanded: true,
        };
        let edge = |to| Edge {
            to,
            choices: 1,
            last_nonzero: 0,
        };
        // 0 -> 1 -> 2 -> 1 along first edges.
        ex.nodes = vec![node(0, 1), node(1, 1), node(2, 1)];
        ex.edges = vec![edge(1), edge(2), edge(1)];
        assert!(ex.analyse().is_none(), "a cycle of first edges");
        // 0 -> 1 -> 2 (terminal), and 2's sibling edge 1 -> 0 back.
        ex.classes = vec![Class {
            key: ClassKey {
                captures: vec![],
                answers: vec![],
                end: crate::trace::EndReason::Quiescent,
                broken: vec![],
                replay: false,
            },
            states: 1,
        }];
        let terminal = Node {
            class: 0,
            expanded: false,
            ..node(0, 0)
        };
        ex.nodes = vec![node(0, 1), node(1, 2), terminal];
        ex.edges = vec![edge(1), edge(2), edge(0)];
        assert!(ex.analyse().is_none(), "a cycle through a later edge");
        // Without the edge back: 1 path to the terminal state, in 2 steps.
        ex.nodes[1].edge_count = 1;
        ex.edges.pop();
        let a = ex.analyse().expect("acyclic");
        assert_eq!(a.class_schedules, vec![1]);
        assert_eq!(a.default_steps, vec![2, 1, 0]);
    }

    /// A copy into a spare world is the world, every field of it (Debug
    /// prints them all, the trace and the counters `Eq` leaves out too).
    #[test]
    fn a_copy_into_a_spare_is_the_world() {
        let s = builtin("crash-after-commit").expect("built-in");
        let worlds = crate::world::worlds_along(&s, 7);
        assert!(worlds.len() > 5);
        let mut spare = worlds[worlds.len() - 1].clone();
        for w in &worlds {
            w.clone_into_reusing(&mut spare);
            assert_eq!(format!("{spare:?}"), format!("{w:?}"));
        }
    }

    /// A statement's effect depends on the session as much as on the
    /// store: the same INSERT inside one session's open transaction and in
    /// another's autocommit leaves different stores, and a SELECT after
    /// either differs from the INSERT. No two of them may share an entry.
    #[test]
    fn the_store_memo_keys_on_store_session_and_statement() {
        let mut store = Store::with_all_tables();
        let a = store.open_session();
        let b = store.open_session();
        let begin = Stmt::Begin {
            isolation: Isolation::ReadCommitted,
        };
        assert!(matches!(store.execute(a, begin), Exec::Done(Ok(_))));
        let insert = Stmt::Insert {
            table: "cobranca_simples".into(),
            values: vec![
                ("pedido_id".into(), Value::Int(7)),
                ("valor_centavos".into(), Value::Int(100)),
                ("status".into(), Value::text("PROCESSANDO")),
            ],
            on_conflict_do_nothing: None,
            returning: vec!["id".into()],
        };
        let select = Stmt::Select {
            table: "cobranca_simples".into(),
            columns: vec!["id".into()],
            filter: vec![("pedido_id".into(), Value::Int(7))],
            for_update: false,
        };
        let start = Part::new(store);
        let mut after_insert = (*start).clone();
        after_insert.execute(b, insert.clone());
        let mut memo = StoreMemo::default();
        // The memo keys on what a statement is built from: each statement
        // here gets inputs of its own.
        let inputs_of = |pc| StmtInputs {
            pc,
            intent: 0,
            key: "k".into(),
            row_id: None,
            capture_result: None,
            now_ms: 0,
        };
        let (insert, select) = ((Pc::InsertSimple, &insert), (Pc::SelectOrder, &select));
        let runs = [
            (&start, a, insert),
            (&start, b, insert),
            (&start, a, select),
            (&start, b, select),
            // Another store, the same session and statement.
            (&Part::new(after_insert), a, select),
            // A repeat: the one hit.
            (&start, b, insert),
        ];
        let mut results = Vec::new();
        for (from, session, (pc, stmt)) in runs {
            let mut via_memo = from.clone();
            let got = memo
                .execute(&mut via_memo, session, &inputs_of(pc), &|| stmt.clone())
                .into_owned();
            let mut direct = Store::clone(from);
            let want = direct.execute(session, stmt.clone());
            assert_eq!(got, want, "{session:?} {stmt:?}");
            assert_eq!(*via_memo, direct, "{session:?} {stmt:?}");
            results.push(direct);
        }
        assert_ne!(results[0], results[1], "the sessions' inserts differ");
        assert_ne!(results[2], results[4], "the stores' selects differ");
        assert_eq!(memo.hits, 1);
        assert_eq!(memo.map.len(), 5);
    }

    /// The shortcut `successors` takes where the only choice is `Next` must
    /// give what the prefix walk gives: the same worlds, choice vectors and
    /// order. (The brute-force tests enumerate with `successors`, so they
    /// cannot see a difference between the two.)
    #[test]
    fn the_next_only_shortcut_matches_the_prefix_walk() {
        let mut models = vec![builtin("timeout-retry").expect("built-in")];
        // Three clients due at once: a `Next` of three alternatives.
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
            let mut s = race(3);
            s.strategy = strategy;
            models.push(s);
        }
        for s in models {
            assert!(
                only_next_choices(&s),
                "{}: a model for the shortcut",
                s.name
            );
            let mut stack = vec![quiet_world(&s)];
            let mut compared = 0;
            while let Some(w) = stack.pop() {
                if w.is_done() || compared == 3_000 {
                    continue;
                }
                let fast = successors(&w);
                let walked = prefix_successors(&w, &mut None);
                let choices =
                    |v: &[(Vec<u32>, World)]| v.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
                assert_eq!(choices(&fast), choices(&walked), "{}", s.name);
                assert!(
                    fast.iter().zip(&walked).all(|(a, b)| a.1 == b.1),
                    "{}",
                    s.name
                );
                compared += 1;
                stack.extend(fast.into_iter().map(|(_, next)| next));
            }
            assert!(compared >= 30, "{}: {compared} states compared", s.name);
        }
    }
}
