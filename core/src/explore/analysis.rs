//! The analysis of a finished graph: schedule counts, shortest paths, and
//! example schedules rebuilt by replay.
//!
//! Why each figure is exact:
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

use super::*;

impl Explorer {
    /// Every figure over the explored graph; `None` if it has a cycle.
    pub(super) fn analyse(&self) -> Option<Analysis> {
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
    pub(super) fn default_runs(&self, a: &mut Analysis) -> bool {
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
    pub(super) fn path_to(&self, a: &Analysis, u: u32) -> Vec<u32> {
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
    pub(super) fn rebuild_by_choices(
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
    pub(super) fn step_by_choices(
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
    pub(super) fn rebuild_by_steps(
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
    pub(super) fn pick_in(&self, w: &World, k: u32) -> u32 {
        if self.por.is_some() {
            // Edge `k` is the `k`-th event of the persistent set, which is
            // worked out on the canonical world.
            return self.pick_in_by_copy(w, k);
        }
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
    pub(super) fn pick_in_by_copy(&self, w: &World, k: u32) -> u32 {
        let mut c = w.clone();
        self.canon.apply(&mut c);
        let k = self.picks(&c, next_arity(&c)).map_or(k, |p| p[k as usize]);
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
    pub(super) fn replay_to(
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
            .or_insert_with(|| (self.start.clone(), Vec::new()))
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
}

/// Steps a replay of `schedule` from `start` takes to the end.
pub(super) fn replay_steps(
    start: &World,
    schedule: &Schedule,
    store: &mut Option<StoreMemo>,
) -> u32 {
    let mut w = start.clone();
    let mut chooser = ScheduleChooser::new(schedule);
    let mut steps = 0;
    while !w.is_done() {
        w.step_with(&mut chooser, store);
        steps += 1;
    }
    steps
}

/// States on the shortest-path tree already replayed while rebuilding
/// examples, with the choices that reach them.
pub(super) struct Replays {
    pub(super) at: FixedMap<u32, (World, Vec<u32>)>,
    /// The states on the paths of two examples or more: only those are
    /// worth a copy (the others are replayed once), and the start state.
    pub(super) shared: FixedSet<u32>,
}

impl Replays {
    /// For examples along `paths` (the states each passes, start excluded).
    pub(super) fn for_paths(paths: impl Iterator<Item = Vec<u32>>) -> Replays {
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
pub(super) struct Reach {
    /// Schedules from the start to this state (saturating), as two words
    /// (high, low) so that the record keeps 8-byte alignment: 40 bytes.
    pub(super) paths: [u64; 2],
    /// Fewest choices (or steps) to reach it, with the edge (index into
    /// `edges`) and predecessor that achieve it.
    pub(super) cost: u32,
    pub(super) via: u32,
    pub(super) pred: u32,
    /// The most steps to reach it.
    pub(super) longest: u32,
    /// The class the all-zero run from it ends in (by choices only).
    pub(super) default_class: u32,
}

pub(super) fn paths_of(r: &Reach) -> u128 {
    (u128::from(r.paths[0]) << 64) | u128::from(r.paths[1])
}

pub(super) fn split(paths: u128) -> [u64; 2] {
    [(paths >> 64) as u64, paths as u64]
}

pub(super) struct Analysis {
    pub(super) reach: Vec<Reach>,
    pub(super) class_schedules: Vec<u128>,
    /// Per class: (cost, node, edge) of its shortest schedule; for steps,
    /// the node is the terminal and the edge `NONE`.
    pub(super) best: Vec<Option<(u32, u32, u32)>>,
    /// By choices: the steps of the all-zero run from each state to its
    /// end (following edge 0), when that run stays in the graph.
    pub(super) default_steps: Vec<u32>,
    pub(super) terminal_states: u64,
    pub(super) max_depth: u32,
    pub(super) saturated: bool,
}

impl Analysis {
    pub(super) fn empty(nodes: usize, classes: usize) -> Analysis {
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
