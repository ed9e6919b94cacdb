//! A complete exploration's graph, kept so that the counts on from a
//! prefix (the workshop's "from here") are read off it instead of explored
//! again.
//!
//! Reading them off gives what [`explore_from`] gives, figure for figure
//! and example for example. The states a fresh exploration from the prefix
//! meets are those the kept graph reaches from the prefix's state: both
//! searches merge worlds by the same canonical fingerprint, and a state's
//! successors (and their order) are those of its canonical world, whichever
//! path reached it. So [`KeptGraph::from_prefix`] replays the prefix, looks
//! its state up in the index, and walks the graph from there in the order
//! the fresh search would take (depth- or breadth-first, successors in edge
//! order), numbering states and outcomes as that search would. The copy it
//! makes is the graph the fresh search would have built, and the same
//! analysis turns it into the same report, its ties broken the same way.

use super::*;

/// A complete exploration's graph and index, with what its analysis reads
/// (the scenario, the options, the reductions); its worlds, store memo and
/// report are not kept.
pub struct KeptGraph {
    scenario: Scenario,
    options: Options,
    canon: Canonicalizer,
    only_next: bool,
    index: Index,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    classes: Vec<Class>,
}

/// Why a kept graph did not answer for a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotKept {
    /// The prefix does not fit the scenario: a fresh exploration refuses
    /// it in these words too.
    Prefix(ExploreError),
    /// The prefix's state is not in the graph, as when the graph was
    /// explored from another prefix: explore it anew.
    NotInGraph,
}

impl std::fmt::Display for NotKept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotKept::Prefix(e) => e.fmt(f),
            NotKept::NotInGraph => f.write_str("the prefix's state is not in the kept graph"),
        }
    }
}

impl std::error::Error for NotKept {}

/// Explores as [`explore_with`] does, and keeps the graph when the run
/// completes (a run cut at the state limit, cancelled or cyclic keeps none:
/// its graph lacks states a count from a prefix would need).
pub fn explore_keeping(
    scenario: &Scenario,
    options: &Options,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<(Report, Option<KeptGraph>), ExploreError> {
    let mut ex = Explorer::new(scenario, options)?;
    run_to_end(&mut ex, progress);
    let report = ex.report.take().expect("a stopped explorer has a report");
    Ok((report, KeptGraph::of(ex).ok()))
}

impl KeptGraph {
    /// Keeps a stopped explorer's graph; refuses, with its status, one that
    /// did not complete.
    pub fn of(ex: Explorer) -> Result<KeptGraph, Status> {
        if ex.status != Status::Complete {
            return Err(ex.status);
        }
        let Explorer {
            scenario,
            options,
            canon,
            only_next,
            index,
            nodes,
            edges,
            classes,
            ..
        } = ex;
        Ok(KeptGraph {
            scenario,
            options,
            canon,
            only_next,
            index,
            nodes,
            edges,
            classes,
        })
    }

    /// Whether exploring `scenario` with `options` would build this graph:
    /// the same scenario (strategy included) and the same options.
    pub fn is_of(&self, scenario: &Scenario, options: &Options) -> bool {
        self.scenario == *scenario && self.options == *options
    }

    /// States and transitions kept.
    pub fn size(&self) -> (u64, u64) {
        (self.nodes.len() as u64, self.edges.len() as u64)
    }

    /// Bytes the graph holds: its nodes, edges and index as allocated (the
    /// index's slots and control bytes), and its outcome classes roughly.
    pub fn bytes(&self) -> usize {
        let slots = self.index.capacity() * 8 / 7;
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.edges.capacity() * std::mem::size_of::<Edge>()
            + slots * (std::mem::size_of::<(IndexKey, u32)>() + 1)
            // A class is a few short lists: a guess, small beside the rest.
            + self.classes.len() * 256
    }

    /// The report [`explore_from`] gives for `prefix` (with the options
    /// kept), read off the graph.
    pub fn from_prefix(&self, prefix: &Schedule) -> Result<Report, NotKept> {
        let (start, steps) = world_after(&self.scenario, prefix).map_err(NotKept::Prefix)?;
        let mut canonical = start.clone();
        self.canon.apply(&mut canonical);
        let Some(&root) = self.index.get(&IndexKey::new(canonical.fingerprint())) else {
            return Err(NotKept::NotInGraph);
        };
        let mut sub = self.reached_from(root, start);
        sub.start_steps = steps;
        sub.finish(Status::Complete);
        let report = sub.into_report().expect("a stopped explorer has a report");
        Ok(continuing(prefix, steps, report))
    }

    /// The explorer a fresh search from `start` (whose state is node `root`)
    /// would be once it had explored every state: the graph reached from
    /// `root`, numbered in that search's order.
    fn reached_from(&self, root: u32, start: World) -> Explorer {
        let kept = self;
        let mut walk = Walk {
            ids: vec![NONE; kept.nodes.len()],
            kept_ids: Vec::new(),
            nodes: Vec::new(),
            edges: Vec::new(),
            classes: Vec::new(),
            class_ids: vec![NONE; kept.classes.len()],
            frontier: VecDeque::new(),
        };
        walk.visit(kept, root);
        loop {
            let next = match kept.options.search {
                Search::BreadthFirst => walk.frontier.pop_front(),
                Search::DepthFirst => walk.frontier.pop_back(),
            };
            let Some(id) = next else { break };
            let from = walk.kept_ids[id as usize];
            let first_edge = walk.edges.len() as u32;
            let n = &kept.nodes[from as usize];
            let out = &kept.edges[n.first_edge as usize..(n.first_edge + n.edge_count) as usize];
            for e in out {
                let to = walk.visit(kept, e.to);
                walk.edges.push(Edge { to, ..*e });
            }
            let node = &mut walk.nodes[id as usize];
            node.first_edge = first_edge;
            node.edge_count = walk.edges.len() as u32 - first_edge;
            node.expanded = kept.nodes[from as usize].expanded;
        }
        let mut sub = Explorer::empty(
            kept.scenario.clone(),
            start,
            kept.options.clone(),
            kept.canon.clone(),
            kept.only_next,
        );
        // The class index stays empty: it is read only to classify the
        // states a search finds, and this copy finds none.
        sub.nodes = walk.nodes;
        sub.edges = walk.edges;
        sub.classes = walk.classes;
        // The index is copied only when the report reads it: for most
        // options it would be the copy's largest part, and unread.
        if sub.report_reads_keys() {
            sub.index = kept
                .index
                .iter()
                .filter(|&(_, &old)| walk.ids[old as usize] != NONE)
                .map(|(key, &old)| (*key, walk.ids[old as usize]))
                .collect();
        }
        sub
    }
}

/// The walk that numbers a subgraph's states as a fresh search meets them.
struct Walk {
    /// Each kept state's number in the walk, `NONE` until it is met.
    ids: Vec<u32>,
    /// Each state the walk met, by its kept number.
    kept_ids: Vec<u32>,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    classes: Vec<Class>,
    /// Each kept outcome class's number in the walk, `NONE` until met.
    class_ids: Vec<u32>,
    /// States met and not yet expanded, by the walk's numbers.
    frontier: VecDeque<u32>,
}

impl Walk {
    /// The walk's number for kept state `old`, numbering it if new: what
    /// `Explorer::intern` does for a state the search reaches.
    fn visit(&mut self, kept: &KeptGraph, old: u32) -> u32 {
        let id = self.ids[old as usize];
        if id != NONE {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.ids[old as usize] = id;
        self.kept_ids.push(old);
        let kept_class = kept.nodes[old as usize].class;
        let class = if kept_class == NONE {
            self.frontier.push_back(id);
            NONE
        } else {
            let c = &mut self.class_ids[kept_class as usize];
            if *c == NONE {
                *c = self.classes.len() as u32;
                self.classes.push(Class {
                    key: kept.classes[kept_class as usize].key.clone(),
                    states: 0,
                });
            }
            self.classes[*c as usize].states += 1;
            *c
        };
        self.nodes.push(Node {
            first_edge: 0,
            edge_count: 0,
            class,
            expanded: false,
        });
        id
    }
}
