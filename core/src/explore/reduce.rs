//! Reductions: client symmetry and unordered ties, as canonical renamings
//! of a world.
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
//!   inside the store, which would have to be renamed with them. Capture
//!   calls are renamed too, into an order by attempt, where nothing reads
//!   their numbers but to find them (`call_names.rs`).
//! * **Flows** (`--reduction flows`, with the partial-order reduction
//!   only): once every attempt of a race is routed, whole flows (an
//!   attempt with its client, instance, sessions and call) are renamed
//!   into an order by what they hold (`flow_names.rs`). The verdicts stay
//!   exact; outcomes, which name attempts by number, are then listed up to
//!   which attempt is which, so the searches that count keep it off.
//! * **Unordered ties** (`unordered_ties`): events due at the same instant
//!   are a set, not a sequence. The agenda orders them by insertion, which
//!   only numbers the alternatives of the `Next` choice: removing one event
//!   never depends on its position, and a new event goes after every event
//!   due at the same instant or earlier. So two worlds that differ only in
//!   that order have the same successors with the `Next` choices renumbered,
//!   hence the same schedule counts, outcomes and verdicts. Choice numbers
//!   are what changes, which is why the shortest schedule is then measured in
//!   steps.

use super::*;

/// Whether two clients differ only by name. The destructuring is exhaustive
/// on purpose: a field added to `ClientSpec` must be considered here, or the
/// symmetry would merge clients that behave differently.
pub(super) fn same_but_name(a: &ClientSpec, b: &ClientSpec) -> bool {
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
        client_timestamp,
        reformat_retries,
        backoff,
        backoff_max_ms,
        backoff_jitter_ms,
        deadline_ms,
    } = a;
    *kind == b.kind
        && *intents == b.intents
        && *start_ms == b.start_ms
        && *timeout_ms == b.timeout_ms
        && *retries_max == b.retries_max
        && *backoff_ms == b.backoff_ms
        && *new_key_per_retry == b.new_key_per_retry
        && *gap_between_intents_ms == b.gap_between_intents_ms
        && *client_timestamp == b.client_timestamp
        && *reformat_retries == b.reformat_retries
        && *backoff == b.backoff
        && *backoff_max_ms == b.backoff_max_ms
        && *backoff_jitter_ms == b.backoff_jitter_ms
        && *deadline_ms == b.deadline_ms
}

/// Groups of interchangeable clients (equal specs but for the name), in
/// increasing client order. Only groups of two or more matter.
pub(super) fn client_classes(s: &Scenario) -> Vec<Vec<u32>> {
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
    pub(super) classes: Vec<Vec<u32>>,
    /// Capture calls renamed in canonical order (`call_names.rs`).
    pub(super) calls: bool,
    /// Whole flows renamed once routed (`flow_names.rs`).
    pub(super) flows: bool,
    pub(super) unordered_ties: bool,
}

impl Canonicalizer {
    pub fn new(scenario: &Scenario, symmetry: bool, unordered_ties: bool) -> Canonicalizer {
        Canonicalizer {
            classes: if symmetry {
                client_classes(scenario)
            } else {
                Vec::new()
            },
            calls: symmetry && calls_interchangeable(scenario),
            flows: false,
            unordered_ties,
        }
    }

    /// Also renames whole flows where `scenario`'s are interchangeable
    /// (`flow_names.rs`), when `on`.
    pub fn with_flows(mut self, scenario: &Scenario, on: bool) -> Canonicalizer {
        self.flows = on && flows_interchangeable(scenario, &self.classes);
        self
    }

    /// Whether it changes anything at all.
    pub fn is_identity(&self) -> bool {
        self.classes.is_empty() && !self.calls && !self.flows && !self.unordered_ties
    }

    pub fn apply(&self, w: &mut World) {
        if self.flows
            && let Some(m) = flow_renaming(w)
        {
            rename_flows(w, &m);
        }
        if let Some(r) = self.renaming_of_clients_and_calls(w) {
            if let Some(map) = &r.clients {
                rename_clients(w, map);
            }
            if !r.calls.is_empty() {
                rename_calls(w, &r.calls);
            }
        }
        if self.unordered_ties {
            sort_ties(w);
        }
    }

    /// The canonical renaming of a world's flows, clients and capture
    /// calls, when it changes any. Clients and calls are renamed as they
    /// stand once the flows are.
    pub(super) fn renaming(&self, w: &World) -> Option<Renaming> {
        let flows = if self.flows { flow_renaming(w) } else { None };
        let Some(m) = flows else {
            return self.renaming_of_clients_and_calls(w);
        };
        let mut renamed = w.clone();
        rename_flows(&mut renamed, &m);
        let rest = self.renaming_of_clients_and_calls(&renamed);
        let (clients, calls) = rest.map_or((None, Vec::new()), |r| (r.clients, r.calls));
        Some(Renaming {
            flows: Some(m),
            clients,
            calls,
        })
    }

    fn renaming_of_clients_and_calls(&self, w: &World) -> Option<Renaming> {
        let calls = if self.calls {
            call_renaming(w)
        } else {
            Vec::new()
        };
        let clients = self.client_map(w);
        (clients.is_some() || !calls.is_empty()).then_some(Renaming {
            flows: None,
            clients,
            calls,
        })
    }

    /// The canonical renaming of a world's clients: within each class of
    /// interchangeable clients, the client that sent the earliest attempt
    /// gets the class's lowest number, and so on. Clients that have sent
    /// nothing are ordered by where they first appear in the agenda (when
    /// ties are ordered) or by number: such clients of one class are in
    /// identical states, so any order gives the same canonical world once
    /// the agenda is sorted. The order reads attempt numbers and agenda
    /// positions, which a renaming does not change, so renamed copies of one
    /// world get the same canonical form. `None` when no client moves.
    fn client_map(&self, w: &World) -> Option<[u32; CLIENTS_MAX]> {
        if self.classes.is_empty() {
            return None;
        }
        assert!(w.clients.len() <= CLIENTS_MAX, "scenarios are validated");
        let mut first_attempt = [u32::MAX; CLIENTS_MAX];
        for (a, at) in w.attempts.iter().enumerate().rev() {
            first_attempt[at.client as usize] = a as u32;
        }
        let mut first_due = [u32::MAX; CLIENTS_MAX];
        if !self.unordered_ties {
            for (pos, e) in w.agenda.items.iter().enumerate().rev() {
                if let Due::ClientSend { client } | Due::ClientTimeout { client, .. } = &e.due {
                    first_due[client.ix()] = pos as u32;
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
        changed.then_some(map)
    }
}

pub(super) const CLIENTS_MAX: usize = crate::scenario::limits::CLIENTS_MAX;

/// Flows move first by `flows` (none when `None`); then client `c`
/// becomes client `clients[c]` (none moves when `clients` is `None`), and
/// call `c` becomes call `calls[c]` (none moves when `calls` is empty).
pub(super) struct Renaming {
    pub(super) flows: Option<FlowMap>,
    pub(super) clients: Option<[u32; CLIENTS_MAX]>,
    pub(super) calls: Vec<u32>,
}

/// An agenda event as it reads after renaming by `r`.
pub(super) fn renamed(due: &Due, r: Option<&Renaming>) -> Due {
    let mut due = due.clone();
    let Some(r) = r else {
        return due;
    };
    if let Some(m) = &r.flows {
        due.rename_flow(|a| m.attempts[a as usize], |i| m.instances[i as usize]);
    }
    if let Some(map) = &r.clients {
        due.rename_client(|c| map[c as usize]);
    }
    if !r.calls.is_empty() {
        due.rename_call(|c| r.calls[c as usize]);
    }
    due
}

pub(super) fn rename_clients(w: &mut World, renaming: &[u32; CLIENTS_MAX]) {
    let len = w.clients.len();
    let map = &renaming[..len];
    // Put each client state at its new number, by swaps: the state at `i`
    // belongs at `to[i]`.
    let mut to = *renaming;
    for i in 0..len {
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
pub(super) fn sort_ties(w: &mut World) {
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
