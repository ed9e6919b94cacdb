//! The search: the explored graph (nodes, edges, outcome classes), the
//! index of states, and expanding them depth- or breadth-first in slices.
//!
//! The search is depth-first by default, breadth-first on request, over
//! states merged by fingerprint. A full world is kept only while a state
//! waits to be expanded, and past a bound the frontier keeps the step to it
//! instead (`waiting.rs`); a visited state costs a 16-byte node, its
//! fingerprint in the index, and 8 bytes per outgoing transition. Both
//! orders build the same graph and every figure below comes from the graph,
//! so a complete run reports the same things either way. Depth-first is the
//! default because it needs far less memory (a path's worth of worlds and
//! their siblings instead of the widest level) and keeps them warm in the
//! cache, which matters for full verdicts on large models and in a browser
//! tab;
//! breadth-first is there for runs cut by a bound or a cancel, which have
//! then seen every state up to some depth, so what they found is the
//! shortest there is.
//!
//! [`Explorer`] works in slices (`run_for(budget_states)` returns a
//! [`Progress`]; stop calling it, or call `cancel`, to stop), so a page can
//! interleave it with rendering; [`explore_with`] does the same with a
//! progress callback that can cancel. No threads, no clock.

use super::*;
use std::rc::Rc;

pub(super) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(super) struct Node {
    pub(super) first_edge: u32,
    pub(super) edge_count: u32,
    /// Outcome class for terminal states, `NONE` otherwise.
    pub(super) class: u32,
    pub(super) expanded: bool,
}

#[derive(Clone, Copy)]
pub(super) struct Edge {
    pub(super) to: u32,
    /// Choice points the step met.
    pub(super) choices: u16,
    /// Index of the last non-zero choice plus one; 0 for the all-zero vector.
    pub(super) last_nonzero: u16,
}

/// The key that groups terminal states into outcomes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ClassKey {
    pub(super) captures: Vec<u32>,
    pub(super) answers: Vec<Option<u16>>,
    pub(super) end: EndReason,
    pub(super) broken: Vec<String>,
    /// The *sometimes* properties the ending shows, in table order.
    pub(super) shown: Vec<&'static str>,
}

pub(super) struct Class {
    pub(super) key: ClassKey,
    pub(super) states: u64,
}

/// A step-wise explorer: `run_for` does a bounded slice of work, so a page
/// can interleave it with rendering, report progress, and cancel between
/// slices. Single-threaded, no clock.
pub struct Explorer {
    pub(super) scenario: Scenario,
    /// The world exploring starts from: the scenario's start, or the point
    /// a schedule prefix reaches. Example schedules replay from it.
    pub(super) start: World,
    /// Steps from the scenario's start to `start`.
    pub(super) start_steps: u32,
    pub(super) options: Options,
    pub(super) canon: Canonicalizer,
    pub(super) index: Index,
    pub(super) nodes: Vec<Node>,
    pub(super) edges: Vec<Edge>,
    /// States waiting for expansion: (node, depth, world or the step to
    /// it, see `waiting.rs`). Worlds are boxed, so that they move as
    /// pointers through a step and its bookkeeping.
    pub(super) frontier: VecDeque<(u32, u32, Waiting)>,
    /// The frontier's entries that hold a world.
    pub(super) worlds_waiting: usize,
    /// Past it, expansions queue steps (`WORLDS_WAITING_MAX`; the tests
    /// lower it to check that both ways explore the same graph).
    pub(super) worlds_waiting_max: usize,
    pub(super) classes: Vec<Class>,
    pub(super) class_index: FixedMap<ClassKey, u32>,
    pub(super) depth: u32,
    pub(super) status: Status,
    pub(super) report: Option<Report>,
    pub(super) stack: Vec<Vec<u32>>,
    pub(super) found: Vec<Walked>,
    /// `None` only in the tests that compare runs with and without it.
    pub(super) store_memo: Option<StoreMemo>,
    /// Successors already seen, kept to be copied into (see
    /// `World::clone_into_reusing`) instead of freed; at most `SPARES_MAX`.
    /// Boxed as the frontier's are: a spare becomes a successor, then
    /// perhaps a frontier entry, without moving its world.
    #[allow(clippy::vec_box)]
    pub(super) spares: Vec<Box<World>>,
    /// One expansion's successors, between their step and their lookup.
    pub(super) batch: Vec<Successor>,
    pub(super) only_next: bool,
    /// The independence relation states are expanded by, under the
    /// partial-order reduction (`independence.rs`); `None` expands every
    /// event due.
    pub(super) por: Option<Box<dyn Relation>>,
}

/// The world `prefix` leaves the run at: its choices, then the steps that
/// need none, up to the next choice point; with the steps taken.
pub(super) fn world_after(
    scenario: &Scenario,
    prefix: &Schedule,
) -> Result<(World, u32), ExploreError> {
    let mut w = quiet_world(scenario);
    let mut chooser = ScheduleChooser::new(prefix);
    let mut steps = 0;
    while !w.is_done() {
        let (before, used) = (w.clone(), chooser.taken.len());
        w.step(&mut chooser);
        if chooser.taken.len() > prefix.0.len() {
            // This step asked for a choice the prefix does not make.
            w = before;
            chooser.taken.truncate(used);
            if used < prefix.0.len() {
                return Err(ExploreError::PrefixInsideStep {
                    choices_in_whole_steps: used,
                    given: prefix.0.len(),
                });
            }
            break;
        }
        steps += 1;
    }
    if let Some(misfit) = chooser.misfit() {
        return Err(ExploreError::Prefix(misfit));
    }
    Ok((w, steps))
}

pub(super) const SPARES_MAX: usize = 8;

/// A successor the prefix walk stepped, waiting to be keyed.
pub(super) struct Walked {
    world: World,
    choices: u16,
    last_nonzero: u16,
    replay: Option<Box<[u32]>>,
}

/// A successor stepped and keyed, waiting to be added to the graph.
pub(super) struct Successor {
    pub(super) world: Box<World>,
    pub(super) key: IndexKey,
    pub(super) choices: u16,
    pub(super) last_nonzero: u16,
    /// Its node, when the index already had it.
    pub(super) seen: Option<u32>,
    /// The choices of its step, when the frontier is to hold the step
    /// rather than the world.
    pub(super) replay: Option<Box<[u32]>>,
}

impl Explorer {
    pub fn new(scenario: &Scenario, options: &Options) -> Result<Explorer, ExploreError> {
        scenario.validate()?;
        Self::starting_at(scenario, options, quiet_world(scenario))
    }

    /// An explorer of every way on from where `prefix` leaves the run: its
    /// choices, then the steps that need none, up to the next choice point.
    pub fn after(
        scenario: &Scenario,
        options: &Options,
        prefix: &Schedule,
    ) -> Result<Explorer, ExploreError> {
        scenario.validate()?;
        let (w, steps) = world_after(scenario, prefix)?;
        let mut ex = Self::starting_at(scenario, options, w)?;
        ex.start_steps = steps;
        Ok(ex)
    }

    fn starting_at(
        scenario: &Scenario,
        options: &Options,
        start: World,
    ) -> Result<Explorer, ExploreError> {
        options.validate()?;
        let only_next = only_next_choices(scenario);
        // Flows are renamed only where the partial-order reduction runs: a
        // search that counts schedules per outcome must keep attempts apart.
        let canon = Canonicalizer::new(scenario, options.symmetry, options.ties_unordered())
            .with_flows(scenario, options.por && options.flows && only_next);
        let mut ex = Self::empty(
            scenario.clone(),
            start.clone(),
            options.clone(),
            canon,
            only_next,
        );
        let id = ex.intern(Box::new(start), 0);
        debug_assert_eq!(id, 0);
        Ok(ex)
    }

    /// An explorer that has met no state yet: what a search starts from,
    /// and what a kept graph's copy fills in (`kept.rs`).
    pub(super) fn empty(
        scenario: Scenario,
        start: World,
        options: Options,
        canon: Canonicalizer,
        only_next: bool,
    ) -> Explorer {
        // The reduction's transitions are events due now: it needs `Next`
        // as the only choice, and ties unordered (see `independence.rs`).
        let por = (options.por && only_next)
            .then(|| Box::new(Tokens::new(&scenario, &canon)) as Box<dyn Relation>);
        Explorer {
            por,
            scenario,
            start,
            start_steps: 0,
            options,
            canon,
            index: Index::default(),
            nodes: Vec::new(),
            edges: Vec::new(),
            frontier: VecDeque::new(),
            worlds_waiting: 0,
            worlds_waiting_max: WORLDS_WAITING_MAX,
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
            only_next,
        }
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
            let Some((id, depth, waiting)) = next else {
                self.finish(Status::Complete);
                break;
            };
            let world = self.world_of(waiting);
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
    pub(super) fn intern(&mut self, mut w: Box<World>, depth: u32) -> u32 {
        let key = self.key_of(&mut w);
        self.intern_keyed(w, key, depth, None)
    }

    /// `w` in canonical form, and its key in the index.
    pub(super) fn key_of(&mut self, w: &mut World) -> IndexKey {
        self.canon.apply(w);
        IndexKey::new(w.fingerprint())
    }

    /// [`Explorer::intern`] for a world `key_of` has seen; queued as the
    /// step from `step`'s world when given (see `waiting.rs`).
    pub(super) fn intern_keyed(
        &mut self,
        w: Box<World>,
        key: IndexKey,
        depth: u32,
        step: Option<(&Rc<World>, Box<[u32]>)>,
    ) -> u32 {
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
            self.classify(&w, &run::summarize(&w))
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
            self.wait(id, depth, w, step);
        } else {
            self.recycle(w);
        }
        id
    }

    pub(super) fn recycle(&mut self, w: Box<World>) {
        if self.spares.len() < SPARES_MAX {
            self.spares.push(w);
        }
    }

    /// A copy of `w`, made in a spare world when there is one.
    pub(super) fn copy_of(&mut self, w: &World) -> Box<World> {
        match self.spares.pop() {
            Some(mut spare) => {
                w.clone_into_reusing(&mut spare);
                spare
            }
            None => Box::new(w.clone()),
        }
    }

    pub(super) fn classify(&mut self, w: &World, s: &Summary) -> u32 {
        let ending = Ending {
            world: w,
            intents: &s.intents,
            attempts: &s.attempts,
        };
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
            shown: crate::property::sometimes()
                .filter(|p| p.shown_by(&ending))
                .map(|p| p.name)
                .collect(),
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

    pub(super) fn expand(&mut self, id: u32, depth: u32, world: Box<World>) {
        let first_edge = self.edges.len() as u32;
        let complete = if self.keeps_steps() {
            // Kept for the steps queued from it.
            let kept = Rc::<World>::from(world);
            if self.only_next {
                self.expand_next_only(depth, None, Some(&kept))
            } else {
                self.expand_by_prefixes(depth, &kept, Some(&kept))
            }
        } else if self.only_next {
            self.expand_next_only(depth, Some(world), None)
        } else {
            self.expand_by_prefixes(depth, &world, None)
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

    /// Adds the edge to a keyed successor (looked up already when `seen`);
    /// false when the state bound is hit. A new one is queued as the step
    /// from `kept` when given.
    pub(super) fn add_successor(
        &mut self,
        s: Successor,
        depth: u32,
        kept: Option<&Rc<World>>,
    ) -> bool {
        let to = match s.seen {
            Some(id) => {
                self.recycle(s.world);
                id
            }
            None => {
                let step = kept.zip(s.replay);
                self.intern_keyed(s.world, s.key, depth + 1, step)
            }
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
    /// one stepping `world` itself instead of a clone. With `kept` instead
    /// of `world`, every one steps a clone and new ones are queued as steps.
    pub(super) fn expand_next_only(
        &mut self,
        depth: u32,
        mut world: Option<Box<World>>,
        kept: Option<&Rc<World>>,
    ) -> bool {
        let from: &World = match (&world, kept) {
            (Some(w), _) => w,
            (None, Some(k)) => k,
            (None, None) => unreachable!("a world to expand"),
        };
        let arity = next_arity(from);
        let picks = self.picks(from, arity);
        let last = picks.as_ref().map_or(arity, |p| p.len() as u32);
        let mut batch = std::mem::take(&mut self.batch);
        for k in 0..last {
            let pick = picks.as_ref().map_or(k, |p| p[k as usize]);
            let mut next = match kept {
                Some(kept) => self.copy_of(kept),
                None if k + 1 < last => self.copy_of(world.as_ref().expect("kept for the last")),
                None => world.take().expect("not yet consumed"),
            };
            let mut chooser = NextChooser {
                pick,
                arity,
                asked: 0,
            };
            next.step_with(&mut chooser, &mut self.store_memo);
            let key = self.key_of(&mut next);
            // A step that ended the run (the event limit) without choosing
            // is its state's only transition.
            let ended = chooser.asked == 0;
            assert!(
                !ended || pick == 0,
                "a step chose for one alternative and not another"
            );
            let replay = kept.map(|_| {
                if ended {
                    Box::default()
                } else {
                    Box::from([pick])
                }
            });
            batch.push(Successor {
                world: next,
                key,
                choices: u16::from(!ended),
                last_nonzero: u16::from(pick > 0),
                seen: None,
                replay,
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
                complete = self.add_successor(s, depth, kept);
            } else {
                self.recycle(s.world);
            }
        }
        self.batch = batch;
        complete
    }

    /// The events a state is expanded by, as positions among those due
    /// now, when the partial-order reduction leaves some out; `None` for
    /// all of them.
    pub(super) fn picks(&self, world: &World, arity: u32) -> Option<Vec<u32>> {
        let relation = self.por.as_deref().filter(|_| arity > 1)?;
        let set = persistent_set(world, arity as usize, relation);
        (set.len() < arity as usize).then_some(set)
    }

    /// Every transition of `world` by the prefix walk; with `kept` (the
    /// same world, shared) new successors are queued as steps.
    pub(super) fn expand_by_prefixes(
        &mut self,
        depth: u32,
        world: &World,
        kept: Option<&Rc<World>>,
    ) -> bool {
        let mut found = std::mem::take(&mut self.found);
        let memo = &mut self.store_memo;
        for_each_successor(world, &mut self.stack, memo, |choices, next| {
            let last_nonzero = choices.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
            let replay = kept.map(|_| Box::from(choices));
            found.push(Walked {
                world: next,
                choices: choices.len() as u16,
                last_nonzero: last_nonzero as u16,
                replay,
            });
        });
        let mut complete = true;
        for w in found.drain(..) {
            if !complete {
                continue;
            }
            let mut next = Box::new(w.world);
            let key = self.key_of(&mut next);
            let s = Successor {
                world: next,
                key,
                choices: w.choices,
                last_nonzero: w.last_nonzero,
                seen: None,
                replay: w.replay,
            };
            complete = self.add_successor(s, depth, kept);
        }
        self.found = found;
        complete
    }

    pub(super) fn out_edges(&self, id: u32) -> &[Edge] {
        let n = &self.nodes[id as usize];
        &self.edges[n.first_edge as usize..(n.first_edge + n.edge_count) as usize]
    }

    pub(super) fn shortest(&self) -> Shortest {
        if self.options.ties_unordered() {
            Shortest::Steps
        } else {
            Shortest::Choices
        }
    }

    /// Counts, outcomes, shortest schedules and verdicts over the explored
    /// graph.
    pub(super) fn finish(&mut self, status: Status) {
        self.frontier = VecDeque::new();
        self.worlds_waiting = 0;
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
}
