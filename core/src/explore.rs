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
//! The search is breadth-first over states merged by fingerprint. It keeps a
//! full world only for states in the frontier; a visited state costs a 16-byte
//! node, a fingerprint in the index and 8 bytes per outgoing transition.
//!
//! # What it reports, and why each figure is exact
//!
//! * **States and transitions**: distinct (fingerprinted) states, and edges
//!   between them (one per distinct choice vector).
//! * **Complete schedules**: the number of distinct choice sequences from the
//!   start to an end. Each is a path in the explored graph (a path's choice
//!   sequence determines it, because replay is deterministic and every step
//!   consumes exactly the choices it asks for), so they are counted by dynamic
//!   programming over the graph in topological order, never enumerated. The
//!   graph is acyclic because time never goes back and every step consumes an
//!   event; a cycle would be reported as [`Status::Cyclic`], not looped on.
//! * **Outcomes**: terminal states grouped by captures per intent, final
//!   answers per attempt and the invariants they break, with the number of
//!   terminal states and of schedules that end in each.
//! * **Shortest schedule** to each outcome and for each property: the one
//!   whose text form is shortest, i.e. the fewest choices up to its last
//!   non-zero one (past its end a schedule defaults to 0). It is computed
//!   exactly: the fewest choices needed to reach each state (a shortest path
//!   in the DAG), plus the all-zero continuation from each state (which ends
//!   in one known terminal). This is the measure proptest's shrinking
//!   minimises, and what `lousa run --schedule` replays.
//!
//! # Reductions
//!
//! * **Fingerprinting** (always on): states equal under `World`'s `Eq`
//!   (which ignores pure history) are merged. Their futures are identical, so
//!   every verdict and count is unchanged. Fingerprints are 128 bits; two
//!   different states sharing one has probability about n²/2¹²⁹.
//! * **Client symmetry** (`Options::symmetry`): clients whose specs are equal
//!   but for their names are interchangeable. A state is fingerprinted after
//!   renaming such clients canonically (see [`representative`]). The step is
//!   equivariant under that renaming (it reads a client's spec, which is the
//!   same for all of them, and nothing else about its number), the chooser
//!   sees the same alternatives in the same order, and every property and
//!   outcome reads attempts and intents, never client numbers. So renamed
//!   states have the same number of schedules to each outcome and the same
//!   shortest schedules; the test suite checks that every figure but the
//!   state and transition counts is identical with and without it.

use crate::choice::{Schedule, ScheduleChooser};
use crate::run;
use crate::scenario::{Scenario, ScenarioError, Strategy};
use crate::trace::{EndReason, Summary};
use crate::world::{Due, World};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::ops::ControlFlow;

/// Bounds on an exploration, so that none can exhaust a browser tab.
pub mod limits {
    /// The largest `max_states` accepted.
    pub const STATES_MAX: u32 = 20_000_000;
    /// The default: race-3 fits with room to spare, and the graph needs
    /// roughly 100 bytes per state.
    pub const STATES_DEFAULT: u32 = 2_000_000;
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
    /// checked and reported with its counterexample, but does not fail the run.
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

/// The *sometimes* property names the explorer knows.
pub const SOMETIMES_NAMES: [&str; 3] = [DOUBLE_CHARGE_REACHABLE, CONFLICT_REACHABLE, REPLAY_REACHABLE];

/// What each design is expected to show: the unprotected ones must be able
/// to double charge; the key designs that answer "processing" must be able
/// to answer 409; the ones that make a repeat wait for the first (held
/// transaction, local effect) must be able to replay. Key designs claim every
/// invariant; the unprotected ones claim none.
pub fn properties_for(strategy: Strategy) -> Vec<Property> {
    let claimed = strategy.uses_key();
    let mut out: Vec<Property> = invariant_names(strategy)
        .into_iter()
        .map(|n| Property::always(n, claimed))
        .collect();
    let sometimes = match strategy {
        Strategy::Naive | Strategy::CheckThenAct => DOUBLE_CHARGE_REACHABLE,
        Strategy::IdempotencyKey | Strategy::IdempotencyKeyCatch | Strategy::IdempotencyKeyLease => {
            CONFLICT_REACHABLE
        }
        Strategy::IdempotencyKeyHeldTx | Strategy::LocalEffect => REPLAY_REACHABLE,
    };
    out.push(Property::sometimes(sometimes));
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Distinct states explored at most; reaching it ends the run with
    /// [`Status::StateLimit`].
    pub max_states: u32,
    /// Merge states that differ only by a renaming of interchangeable clients.
    pub symmetry: bool,
    pub properties: Vec<Property>,
}

impl Options {
    pub fn for_strategy(strategy: Strategy) -> Options {
        Options {
            max_states: limits::STATES_DEFAULT,
            symmetry: true,
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
        for p in &self.properties {
            let known = match p.modality {
                Modality::Always => {
                    [run::AT_MOST_ONE_CAPTURE, run::EVERY_2XX_ONE_CAPTURE, run::REPLAY_EQUALS_FIRST]
                        .contains(&p.name.as_str())
                        || [run::CONFLICTS_NEVER_CHARGE, run::NO_KEY_STUCK].contains(&p.name.as_str())
                }
                Modality::Sometimes => SOMETIMES_NAMES.contains(&p.name.as_str()),
            };
            if !known {
                return fail("properties", format!("unknown {:?} property {:?}", p.modality, p.name));
            }
        }
        Ok(())
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub status: Status,
    pub states: u64,
    pub transitions: u64,
    /// States found but not yet expanded.
    pub frontier: u64,
    /// Breadth-first depth (steps from the start) being expanded.
    pub depth: u32,
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
    /// *Sometimes*: no schedule shows it: the check is vacuous, so it fails.
    NeverReached,
    /// The exploration stopped before it could decide.
    Unknown,
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
    /// The reductions that were on.
    pub reductions: Vec<String>,
    pub states: u64,
    pub transitions: u64,
    pub terminal_states: u64,
    /// Deepest breadth-first level, in steps.
    pub max_depth: u32,
    /// Complete schedules from the start to an end. Exact when `status` is
    /// complete and `schedules_saturated` is false.
    #[serde(serialize_with = "count_json")]
    pub schedules: u128,
    pub schedules_saturated: bool,
    pub outcomes: Vec<Outcome>,
    pub properties: Vec<PropertyReport>,
}

impl Report {
    /// True when the exploration finished and every property met its
    /// requirement.
    pub fn passed(&self) -> bool {
        self.status == Status::Complete && self.properties.iter().all(|p| p.ok)
    }

    /// The shortest counterexample to any *always* property, if any.
    pub fn counterexample(&self) -> Option<&Example> {
        self.properties
            .iter()
            .filter(|p| p.verdict == Verdict::Violated)
            .filter_map(|p| p.example.as_ref())
            .min_by_key(|e| (e.choices, e.steps))
    }

    pub fn property(&self, name: &str) -> Option<&PropertyReport> {
        self.properties.iter().find(|p| p.property.name == name)
    }
}

/// Explores a scenario to the end (or to `max_states`).
pub fn explore(scenario: &Scenario, options: &Options) -> Result<Report, ScenarioError> {
    explore_with(scenario, options, &mut |_| ControlFlow::Continue(()))
}

/// Explores, calling `progress` every few thousand states; returning
/// `ControlFlow::Break` from it cancels the run.
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
    Ok(ex.report().expect("a stopped explorer has a report").clone())
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

type Fingerprint = u128;

/// A two-lane multiply-rotate hasher with a final avalanche: 128 bits of
/// fingerprint for about the cost of one 64-bit hash. Stable across builds
/// and platforms, though the explorer only compares fingerprints within one
/// run.
struct FingerprintHasher {
    a: u64,
    b: u64,
}

impl FingerprintHasher {
    fn new() -> Self {
        Self {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
        }
    }
    #[inline]
    fn word(&mut self, x: u64) {
        self.a = (self.a ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(27);
        self.b = (self.b.rotate_left(19) ^ x).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    }
    fn finish128(&self) -> u128 {
        (u128::from(fmix64(self.a ^ self.b.rotate_left(32))) << 64) | u128::from(fmix64(self.b))
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
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.word(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 59));
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
        fmix64(self.a ^ self.b)
    }
}

fn fingerprint_of(w: &World) -> Fingerprint {
    let mut h = FingerprintHasher::new();
    w.hash(&mut h);
    h.finish128()
}

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
    fn finish(&self) -> u64 {
        self.0
    }
}

type Index = HashMap<Fingerprint, u32, BuildHasherDefault<PassThrough>>;

// ---- symmetry ----

/// Groups of interchangeable clients: equal specs but for the name. Only
/// groups of two or more matter.
fn client_classes(s: &Scenario) -> Vec<Vec<u32>> {
    let mut classes: Vec<Vec<u32>> = Vec::new();
    for (i, c) in s.clients.iter().enumerate() {
        let same = |j: u32| {
            let mut other = s.clients[j as usize].clone();
            other.name.clone_from(&c.name);
            other == *c
        };
        match classes.iter_mut().find(|cl| same(cl[0])) {
            Some(cl) => cl.push(i as u32),
            None => classes.push(vec![i as u32]),
        }
    }
    classes.retain(|c| c.len() > 1);
    classes
}

/// The canonical renaming of a world's clients: within each class of
/// interchangeable clients, the client that sent the earliest attempt gets
/// the class's lowest number, and so on; clients that have sent nothing are
/// ordered by where they first appear in the agenda. The order is defined by
/// attempt numbers and agenda positions, which a renaming does not change, so
/// renamed copies of one world get the same canonical form.
fn canonical_renaming(w: &World, classes: &[Vec<u32>]) -> Option<Vec<u32>> {
    let n = w.clients.len();
    let mut first_attempt = vec![u32::MAX; n];
    for (a, at) in w.attempts.iter().enumerate().rev() {
        first_attempt[at.client as usize] = a as u32;
    }
    let mut first_due = vec![u32::MAX; n];
    for (pos, (_, _, due)) in w.agenda.items.iter().enumerate().rev() {
        if let Due::ClientSend { client } | Due::ClientTimeout { client, .. } = due {
            first_due[*client as usize] = pos as u32;
        }
    }
    let mut map: Vec<u32> = (0..n as u32).collect();
    let mut changed = false;
    for class in classes {
        let mut order = class.clone();
        order.sort_by_key(|&c| (first_attempt[c as usize], first_due[c as usize], c));
        for (slot, &c) in class.iter().zip(&order) {
            map[c as usize] = *slot;
            changed |= *slot != c;
        }
    }
    changed.then_some(map)
}

fn rename_clients(w: &World, map: &[u32]) -> World {
    let mut r = w.clone();
    for (old, state) in w.clients.iter().enumerate() {
        r.clients[map[old] as usize] = state.clone();
    }
    for a in &mut r.attempts {
        a.client = map[a.client as usize];
    }
    for (_, _, due) in &mut r.agenda.items {
        if let Due::ClientSend { client } | Due::ClientTimeout { client, .. } = due {
            *client = map[*client as usize];
        }
    }
    r
}

/// The canonical member of a world's symmetry class (interchangeable clients
/// renamed, see the module docs). Exposed so other checkers (the stateright
/// peer benchmark) can apply exactly the same reduction.
pub fn representative(w: &World) -> World {
    let classes = client_classes(w.scenario());
    match canonical_renaming(w, &classes) {
        Some(map) => rename_clients(w, &map),
        None => w.clone(),
    }
}

// ---- successors ----

/// Every successor of `w` with the choice vector that produces it, in the
/// lexicographic order of choice vectors (the all-zero one first).
pub fn successors(w: &World) -> Vec<(Vec<u32>, World)> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for_each_successor(w, &mut stack, |choices, next| out.push((choices.to_vec(), next)));
    out
}

/// The prefix walk: replays `w.step` under each choice prefix and branches on
/// every alternative a run defaulted. `stack` is scratch space.
fn for_each_successor(w: &World, stack: &mut Vec<Vec<u32>>, mut visit: impl FnMut(&[u32], World)) {
    debug_assert!(!w.is_done());
    stack.clear();
    stack.push(Vec::new());
    while let Some(prefix) = stack.pop() {
        let fixed = prefix.len();
        let mut next = w.clone();
        let mut chooser = ScheduleChooser::new(&Schedule(prefix));
        next.step(&mut chooser);
        let choices: Vec<u32> = chooser.taken.iter().map(|t| t.2).collect();
        debug_assert!(fixed <= choices.len(), "a replayed prefix met fewer choice points");
        // Push later positions first and larger alternatives first, so the
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
/// can interleave it with rendering and cancel between slices.
pub struct Explorer {
    scenario: Scenario,
    options: Options,
    symmetry: Vec<Vec<u32>>,
    index: Index,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    frontier: VecDeque<(u32, u32, World)>,
    classes: Vec<Class>,
    class_index: HashMap<ClassKey, u32>,
    depth: u32,
    status: Status,
    report: Option<Report>,
    stack: Vec<Vec<u32>>,
}

impl Explorer {
    pub fn new(scenario: &Scenario, options: &Options) -> Result<Explorer, ScenarioError> {
        scenario.validate()?;
        options.validate()?;
        let symmetry = if options.symmetry {
            client_classes(scenario)
        } else {
            Vec::new()
        };
        let mut ex = Explorer {
            scenario: scenario.clone(),
            options: options.clone(),
            symmetry,
            index: Index::default(),
            nodes: Vec::new(),
            edges: Vec::new(),
            frontier: VecDeque::new(),
            classes: Vec::new(),
            class_index: HashMap::new(),
            depth: 0,
            status: Status::Running,
            report: None,
            stack: Vec::new(),
        };
        let start = World::new(scenario);
        let id = ex.intern(start, 0);
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
    /// done (or a bound is hit) the status leaves `Running` and the report is
    /// ready.
    pub fn run_for(&mut self, budget_states: u32) -> Progress {
        let mut budget = budget_states;
        while budget > 0 && self.status == Status::Running {
            let Some((id, depth, world)) = self.frontier.pop_front() else {
                self.finish(Status::Complete);
                break;
            };
            self.depth = depth;
            self.expand(id, depth, &world);
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

    fn fingerprint(&self, w: &World) -> Fingerprint {
        if !self.symmetry.is_empty()
            && let Some(map) = canonical_renaming(w, &self.symmetry)
        {
            return fingerprint_of(&rename_clients(w, &map));
        }
        fingerprint_of(w)
    }

    /// The node id of `w`, adding it if new; `NONE` when the state bound is
    /// hit.
    fn intern(&mut self, w: World, depth: u32) -> u32 {
        let fp = self.fingerprint(&w);
        if let Some(&id) = self.index.get(&fp) {
            return id;
        }
        if self.nodes.len() >= self.options.max_states as usize {
            self.status = Status::StateLimit;
            return NONE;
        }
        let id = self.nodes.len() as u32;
        self.index.insert(fp, id);
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
        }
        id
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

    fn expand(&mut self, id: u32, depth: u32, world: &World) {
        let first_edge = self.edges.len() as u32;
        let mut stack = std::mem::take(&mut self.stack);
        let mut found: Vec<(Vec<u32>, World)> = Vec::new();
        for_each_successor(world, &mut stack, |choices, next| {
            found.push((choices.to_vec(), next));
        });
        self.stack = stack;
        for (choices, next) in found {
            let to = self.intern(next, depth + 1);
            if to == NONE {
                // The state stays unexpanded: drop its partial edges.
                self.edges.truncate(first_edge as usize);
                self.finish(Status::StateLimit);
                return;
            }
            let last_nonzero = choices.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            self.edges.push(Edge {
                to,
                choices: choices.len() as u16,
                last_nonzero: last_nonzero as u16,
            });
        }
        let node = &mut self.nodes[id as usize];
        node.first_edge = first_edge;
        node.edge_count = self.edges.len() as u32 - first_edge;
        node.expanded = true;
    }

    fn out_edges(&self, id: u32) -> &[Edge] {
        let n = &self.nodes[id as usize];
        &self.edges[n.first_edge as usize..(n.first_edge + n.edge_count) as usize]
    }

    /// Counts, outcomes, shortest schedules and verdicts over the explored
    /// graph.
    fn finish(&mut self, status: Status) {
        self.frontier.clear();
        self.frontier.shrink_to_fit();
        let n = self.nodes.len();
        let Some(order) = self.topological_order() else {
            self.status = Status::Cyclic;
            self.report = Some(self.make_report(Status::Cyclic, &Analysis::empty(n, self.classes.len())));
            return;
        };
        let analysis = self.analyse(&order);
        self.status = status;
        self.report = Some(self.make_report(status, &analysis));
    }

    /// Kahn's algorithm from the start state; `None` if there is a cycle.
    fn topological_order(&self) -> Option<Vec<u32>> {
        let n = self.nodes.len();
        let mut indegree = vec![0u32; n];
        for e in &self.edges {
            indegree[e.to as usize] += 1;
        }
        let mut order = Vec::with_capacity(n);
        let mut ready: Vec<u32> = (0..n as u32).filter(|&v| indegree[v as usize] == 0).collect();
        while let Some(u) = ready.pop() {
            order.push(u);
            for e in self.out_edges(u) {
                let d = &mut indegree[e.to as usize];
                *d -= 1;
                if *d == 0 {
                    ready.push(e.to);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    fn analyse(&self, order: &[u32]) -> Analysis {
        let n = self.nodes.len();
        let mut a = Analysis::empty(n, self.classes.len());
        // Forward: paths into each state, and the fewest choices to reach it.
        a.paths[0] = 1;
        a.fewest[0] = 0;
        for &u in order {
            let (paths_u, fewest_u) = (a.paths[u as usize], a.fewest[u as usize]);
            let first = self.nodes[u as usize].first_edge;
            for (k, e) in self.out_edges(u).iter().enumerate() {
                let v = e.to as usize;
                let (sum, over) = a.paths[v].overflowing_add(paths_u);
                a.paths[v] = if over { u128::MAX } else { sum };
                a.saturated |= over;
                if fewest_u != NONE {
                    let via = fewest_u + u32::from(e.choices);
                    if via < a.fewest[v] {
                        a.fewest[v] = via;
                        a.via[v] = first + k as u32;
                        a.pred[v] = u;
                    }
                }
            }
        }
        // Backward: the terminal class the all-zero continuation reaches.
        for &u in order.iter().rev() {
            let node = &self.nodes[u as usize];
            a.default_class[u as usize] = if node.class != NONE {
                node.class
            } else if node.expanded && node.edge_count > 0 {
                a.default_class[self.edges[node.first_edge as usize].to as usize]
            } else {
                NONE
            };
        }
        for (v, node) in self.nodes.iter().enumerate() {
            if node.class != NONE {
                let c = &mut a.class_schedules[node.class as usize];
                let (sum, over) = c.overflowing_add(a.paths[v]);
                *c = if over { u128::MAX } else { sum };
                a.saturated |= over;
                a.terminal_states += 1;
            }
        }
        // Shortest schedule per class: the all-zero run, or a prefix whose
        // last non-zero choice is on an edge whose default continuation ends
        // in the class.
        if let Some(c) = Some(a.default_class[0]).filter(|&c| c != NONE) {
            a.best[c as usize] = Some((0, NONE, NONE));
        }
        for &u in order {
            let fewest_u = a.fewest[u as usize];
            if fewest_u == NONE {
                continue;
            }
            let first = self.nodes[u as usize].first_edge;
            for (k, e) in self.out_edges(u).iter().enumerate() {
                let c = a.default_class[e.to as usize];
                if e.last_nonzero == 0 || c == NONE {
                    continue;
                }
                let len = fewest_u + u32::from(e.last_nonzero);
                if a.best[c as usize].is_none_or(|(l, _, _)| len < l) {
                    a.best[c as usize] = Some((len, u, first + k as u32));
                }
            }
        }
        a
    }

    /// Rebuilds the schedule that `best` describes: the fewest-choice path
    /// to `u`, then edge `edge` truncated after its last non-zero choice.
    fn rebuild(&self, a: &Analysis, u: u32, edge: u32) -> Example {
        let mut hops = Vec::new();
        if u != NONE {
            hops.push(edge);
            let mut v = u;
            while v != 0 {
                hops.push(a.via[v as usize]);
                v = a.pred[v as usize];
            }
            hops.reverse();
        }
        let mut w = World::new(&self.scenario);
        let mut schedule = Vec::new();
        let mut node = 0u32;
        for (i, &e) in hops.iter().enumerate() {
            let k = (e - self.nodes[node as usize].first_edge) as usize;
            let (choices, next) = successors(&w).swap_remove(k);
            if i + 1 == hops.len() {
                let keep = self.edges[e as usize].last_nonzero as usize;
                schedule.extend_from_slice(&choices[..keep]);
            } else {
                schedule.extend_from_slice(&choices);
            }
            w = next;
            node = self.edges[e as usize].to;
        }
        let schedule = Schedule(schedule);
        let steps = replay_steps(&self.scenario, &schedule);
        Example {
            text: schedule.to_string(),
            choices: schedule.0.len() as u32,
            schedule,
            steps,
        }
    }

    fn make_report(&self, status: Status, a: &Analysis) -> Report {
        let complete = status == Status::Complete;
        let examples: Vec<Option<Example>> = a
            .best
            .iter()
            .map(|b| b.map(|(_, u, e)| self.rebuild(a, u, e)))
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
            .map(|p| {
                let shows = |o: &Outcome| match p.modality {
                    Modality::Always => o.broken.contains(&p.name),
                    Modality::Sometimes => outcome_shows(o, &p.name),
                };
                let example = outcomes
                    .iter()
                    .filter(|o| shows(o))
                    .filter_map(|o| o.example.clone())
                    .min_by_key(|e| (e.choices, e.steps));
                let found = outcomes.iter().any(shows);
                let verdict = match (p.modality, found, complete) {
                    (Modality::Always, true, _) => Verdict::Violated,
                    (Modality::Always, false, true) => Verdict::Holds,
                    (Modality::Sometimes, true, _) => Verdict::Reached,
                    (Modality::Sometimes, false, true) => Verdict::NeverReached,
                    (_, false, false) => Verdict::Unknown,
                };
                let ok = !p.required || matches!(verdict, Verdict::Holds | Verdict::Reached);
                PropertyReport {
                    property: p.clone(),
                    verdict,
                    example,
                    ok,
                }
            })
            .collect();
        let mut reductions = vec!["state-fingerprint".to_string()];
        if !self.symmetry.is_empty() {
            reductions.push("client-symmetry".to_string());
        }
        Report {
            scenario: self.scenario.name.clone(),
            strategy: self.scenario.strategy,
            status,
            reductions,
            states: self.nodes.len() as u64,
            transitions: self.edges.len() as u64,
            terminal_states: a.terminal_states,
            max_depth: self.depth,
            schedules: a.class_schedules.iter().fold(0u128, |s, &c| s.saturating_add(c)),
            schedules_saturated: a.saturated,
            outcomes,
            properties,
        }
    }
}

fn outcome_shows(o: &Outcome, name: &str) -> bool {
    match name {
        DOUBLE_CHARGE_REACHABLE => o.double_charge,
        CONFLICT_REACHABLE => o.answers.contains(&Some(409)),
        REPLAY_REACHABLE => o.replay,
        _ => false,
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
fn replay_steps(scenario: &Scenario, schedule: &Schedule) -> u32 {
    let mut w = World::new(scenario);
    let mut chooser = ScheduleChooser::new(schedule);
    let mut steps = 0;
    while !w.is_done() {
        w.step(&mut chooser);
        steps += 1;
    }
    steps
}

struct Analysis {
    paths: Vec<u128>,
    fewest: Vec<u32>,
    /// The edge (index into `edges`) and predecessor on a fewest-choice path.
    via: Vec<u32>,
    pred: Vec<u32>,
    default_class: Vec<u32>,
    class_schedules: Vec<u128>,
    /// Per class: (schedule length, node, edge) of its shortest schedule.
    best: Vec<Option<(u32, u32, u32)>>,
    terminal_states: u64,
    saturated: bool,
}

impl Analysis {
    fn empty(nodes: usize, classes: usize) -> Analysis {
        Analysis {
            paths: vec![0; nodes],
            fewest: vec![NONE; nodes],
            via: vec![NONE; nodes],
            pred: vec![NONE; nodes],
            default_class: vec![NONE; nodes],
            class_schedules: vec![0; classes],
            best: vec![None; classes],
            terminal_states: 0,
            saturated: false,
        }
    }
}
