//! What an exploration reports: outcomes, verdicts, shortest examples,
//! and the report built from the explored graph.

use super::*;

/// How shortest schedules are measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shortest {
    /// Fewest choices up to the last non-zero one: the shortest text.
    Choices,
    /// Fewest steps.
    Steps,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Example {
    /// Replays with `lousa run <scenario> --strategy <s> --schedule <text>`.
    pub schedule: Schedule,
    pub text: String,
    /// Length of the schedule: choices up to the last non-zero one.
    pub choices: u32,
    /// Steps of the run it replays, to the end.
    pub steps: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The *sometimes* properties this outcome shows, by name (reports show
    /// them as the two flags above).
    #[serde(skip)]
    pub shown: Vec<&'static str>,
    /// Distinct terminal states with this outcome.
    pub states: u64,
    /// Complete schedules that end in it (saturating).
    #[serde(serialize_with = "count_json", deserialize_with = "count_from_json")]
    pub schedules: u128,
    /// The shortest schedule that ends in it.
    pub example: Option<Example>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PropertyReport {
    /// The property and whether it is required, shown as `property`.
    #[serde(rename = "property")]
    pub claim: Claim,
    pub verdict: Verdict,
    /// The shortest counterexample (*always*) or witness (*sometimes*).
    pub example: Option<Example>,
    /// Whether the verdict is what the run requires.
    pub ok: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    #[serde(serialize_with = "count_json", deserialize_with = "count_from_json")]
    pub schedules: u128,
    pub schedules_saturated: bool,
    /// False under the partial-order reduction, which explores one order
    /// of independent steps: every schedule figure is then 0, not a count.
    #[serde(default = "counted")]
    pub schedules_counted: bool,
    pub outcomes: Vec<Outcome>,
    /// The outcomes summed by captures per intent alone.
    pub by_captures: Vec<Tally<Vec<u32>>>,
    /// The outcomes summed by the final answers alone.
    pub by_answers: Vec<Tally<Vec<Option<u16>>>>,
    pub properties: Vec<PropertyReport>,
}

/// One line of a histogram: terminal states and schedules with this value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally<K> {
    pub value: K,
    pub states: u64,
    #[serde(serialize_with = "count_json", deserialize_with = "count_from_json")]
    pub schedules: u128,
}

/// Sums outcomes by one of their fields, most schedules first.
pub(super) fn tally<K: Clone + PartialEq>(
    outcomes: &[Outcome],
    key: impl Fn(&Outcome) -> K,
) -> Vec<Tally<K>> {
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

    /// Why the exploration did not pass, in the words the CLI exits with
    /// and the worker reports; `max_states` names the front end's option.
    pub fn failure(&self, max_states: &str) -> Option<String> {
        if self.passed() {
            return None;
        }
        if self.status != Status::Complete {
            return Some(format!(
                "exploration stopped ({}) after {} states: nothing can be said to hold; raise {max_states} (limit {})",
                self.status.name(),
                self.states,
                super::limits::STATES_MAX
            ));
        }
        let failed: Vec<String> = self
            .properties
            .iter()
            .filter(|p| !p.ok)
            .map(|p| format!("{} {}", p.claim.property.name, p.verdict.name()))
            .collect();
        Some(format!("properties failed: {}", failed.join("; ")))
    }

    /// The shortest counterexample to the first violated *always* property,
    /// in the order given (at-most-one-capture comes first by default).
    pub fn counterexample(&self) -> Option<(&Property, &Example)> {
        self.properties
            .iter()
            .filter(|p| p.verdict == Verdict::Violated)
            .find_map(|p| p.example.as_ref().map(|e| (&p.claim.property, e)))
    }

    /// The report on `property`, if the exploration checked it.
    pub fn property(&self, property: &Property) -> Option<&PropertyReport> {
        self.properties
            .iter()
            .find(|p| p.claim.property == *property)
    }
}

fn counted() -> bool {
    true
}

/// A count as a JSON number while a JavaScript number holds it exactly
/// (below 2⁵³), and as a decimal string beyond.
pub(super) fn count_json<S: serde::Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
    const EXACT_IN_JS: u128 = 1 << 53;
    if *n < EXACT_IN_JS {
        s.serialize_u64(*n as u64)
    } else {
        s.serialize_str(&n.to_string())
    }
}

/// A count as [`count_json`] writes it: a number, or a decimal string.
pub(super) fn count_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(u64),
        Text(String),
    }
    match Either::deserialize(d)? {
        Either::Number(n) => Ok(n.into()),
        Either::Text(t) => t.parse().map_err(serde::de::Error::custom),
    }
}

impl Explorer {
    /// The reductions the search applied: the options', but the
    /// partial-order reduction only where it applies.
    pub(super) fn reductions(&self) -> Vec<String> {
        let mut r = self.options.reductions();
        if self.por.is_none() {
            r.retain(|n| n != "partial-order");
        }
        // Flows are renamed only where the partial-order reduction runs.
        if !self.canon.flows {
            r.retain(|n| n != "flow-symmetry");
        }
        r
    }

    /// Whether the report reads the index: only the replay by fingerprints
    /// does (see `rebuild_by_steps`).
    pub(super) fn report_reads_keys(&self) -> bool {
        self.shortest() == Shortest::Steps && !self.only_next
    }

    /// The report, its examples rebuilt by replays that run statements by
    /// `store` when given.
    pub(super) fn make_report(
        &self,
        status: Status,
        a: &Analysis,
        store: &mut Option<StoreMemo>,
    ) -> Report {
        let complete = status == Status::Complete;
        let counted = self.por.is_none();
        let by_choices = self.shortest() == Shortest::Choices;
        let fps = if !self.report_reads_keys() {
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
                    debug_assert_eq!(steps, replay_steps(&self.start, &schedule, &mut None));
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
                double_charge: c.key.shown.contains(&DOUBLE_CHARGE_REACHABLE.name),
                replay: c.key.shown.contains(&REPLAY_REACHABLE.name),
                shown: c.key.shown.clone(),
                states: c.states,
                schedules: if counted { a.class_schedules[i] } else { 0 },
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
            reductions: self.reductions(),
            shortest: self.shortest(),
            states: self.nodes.len() as u64,
            transitions: self.edges.len() as u64,
            terminal_states: a.terminal_states,
            max_depth: a.max_depth,
            schedules: if counted {
                a.class_schedules
                    .iter()
                    .fold(0u128, |s, &c| s.saturating_add(c))
            } else {
                0
            },
            schedules_saturated: a.saturated && counted,
            schedules_counted: counted,
            by_captures: tally(&outcomes, |o| o.captures.clone()),
            by_answers: tally(&outcomes, |o| o.answers.clone()),
            outcomes,
            properties,
        }
    }
}
