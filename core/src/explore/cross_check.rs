//! The partial-order reduction checked against the full search, on one
//! scenario: what the tests run on every built-in and on random scenarios,
//! and what anyone who doubts a reduced verdict can run.

use super::*;

/// Explores `s` in full (client symmetry, unordered ties) and with the
/// partial-order reduction, and compares what they say: the status, the
/// terminal states (the reduced graph's are among the full graph's, so
/// equal counts outcome by outcome are equal sets), the longest run, every
/// outcome with its terminal states and its shortest example in steps,
/// every verdict with its shortest example; and each reduced example must
/// replay to its outcome in as many steps. `None` when the full search does
/// not finish within `max_states`; else the states of each search, reduced
/// then full, or what differs.
pub fn check_reduction(s: &Scenario, max_states: u32) -> Option<Result<(u64, u64), String>> {
    check_with(s, max_states, None, false)
}

/// [`check_reduction`] for `--reduction flows`: where `s`'s flows are
/// interchangeable, outcomes are compared up to which attempt is which
/// (captures, the answers as a multiset, the end and the properties
/// broken, each class with its shortest example's steps), and the reduced
/// search may end in fewer terminal states; the verdicts, with their
/// shortest examples' steps, the longest run, and the replays are checked
/// as for `por`.
pub fn check_flow_reduction(s: &Scenario, max_states: u32) -> Option<Result<(u64, u64), String>> {
    check_with(s, max_states, None, true)
}

/// The full search: symmetry and unordered ties (so shortest examples are
/// in steps, as the reduced search measures them).
fn full_options(s: &Scenario, max_states: u32) -> Options {
    let mut o = Options::for_scenario(s);
    o.max_states = max_states;
    o.unordered_ties = true;
    o
}

/// What a report says about outcomes and verdicts, in an order that does
/// not depend on the order states were met: each outcome with its terminal
/// states and its shortest example's steps, each property with its verdict
/// and its shortest example's steps.
type Said = (
    Vec<(
        Vec<u32>,
        Vec<Option<u16>>,
        EndReason,
        Vec<String>,
        u64,
        Option<u32>,
    )>,
    Vec<(&'static str, Verdict, Option<u32>)>,
);

/// What `r` says; with `up_to_flows`, each outcome as its class (answers
/// sorted, no state count), the classes once each with their shortest
/// example's steps.
fn said(r: &Report, up_to_flows: bool) -> Said {
    let mut outcomes: Vec<_> = r
        .outcomes
        .iter()
        .map(|o| {
            let mut answers = o.answers.clone();
            if up_to_flows {
                answers.sort();
            }
            (
                o.captures.clone(),
                answers,
                o.end,
                o.broken.clone(),
                if up_to_flows { 0 } else { o.states },
                o.example.as_ref().map(|e| e.steps),
            )
        })
        .collect();
    if up_to_flows {
        // Shortest first within a class (`None` sorts first: no example at
        // all is kept only where no member has one).
        outcomes.sort_by_key(|o| {
            (
                o.0.clone(),
                o.1.clone(),
                format!("{:?}", o.2),
                o.3.clone(),
                o.5.map_or(0, |s| s + 1),
            )
        });
        outcomes.dedup_by(|b, a| (&a.0, &a.1, a.2, &a.3) == (&b.0, &b.1, b.2, &b.3));
    }
    outcomes.sort_by_key(|o| format!("{o:?}"));
    let properties = r
        .properties
        .iter()
        .map(|p| {
            let steps = p.example.as_ref().map(|e| e.steps);
            (p.claim.property.name, p.verdict, steps)
        })
        .collect();
    (outcomes, properties)
}

/// The world an example's schedule replays to, from the scenario's start,
/// and its steps.
fn replayed(s: &Scenario, e: &Example) -> (World, u32) {
    let mut w = quiet_world(s);
    let mut chooser = ScheduleChooser::new(&e.schedule);
    let mut steps = 0;
    while !w.is_done() {
        w.step(&mut chooser);
        steps += 1;
    }
    (w, steps)
}

/// [`check_reduction`], the reduced search by `relation` when given, and
/// with flows renamed when `flows` ([`check_flow_reduction`]).
pub(super) fn check_with(
    s: &Scenario,
    max_states: u32,
    relation: Option<Box<dyn Relation>>,
    flows: bool,
) -> Option<Result<(u64, u64), String>> {
    let full = match explore(s, &full_options(s, max_states)) {
        Ok(r) => r,
        Err(e) => return Some(Err(e.to_string())),
    };
    if full.status != Status::Complete {
        return None;
    }
    let mut o = full_options(s, max_states);
    o.por = true;
    o.flows = flows;
    let mut ex = Explorer::new(s, &o).expect("the full search took these");
    let up_to_flows = ex.canon.flows;
    if let Some(r) = relation {
        ex.por = Some(r);
    }
    let reduced = run_explorer(ex, &mut |_| ControlFlow::Continue(())).expect("started");
    let at = format!("{} {}", s.name, s.strategy);
    let check = || -> Result<(u64, u64), String> {
        let fail = |what: &str| Err(format!("{at}: {what} differ"));
        if reduced.status != Status::Complete {
            return fail("status");
        }
        let labelled = |name: &str| reduced.reductions.iter().any(|r| r == name);
        if !labelled("partial-order")
            || labelled("flow-symmetry") != up_to_flows
            || reduced.schedules_counted
        {
            return fail("the report's labels");
        }
        if reduced.states > full.states {
            return fail("state counts (more states reduced)");
        }
        // The reduced graph's terminal states are among the full graph's,
        // so equal counts, outcome by outcome, are equal sets. Renamed
        // flows merge terminal states too.
        if reduced.terminal_states > full.terminal_states
            || (!up_to_flows && reduced.terminal_states != full.terminal_states)
        {
            return fail("terminal states");
        }
        if reduced.max_depth != full.max_depth {
            return fail("longest runs");
        }
        if said(&reduced, up_to_flows) != said(&full, up_to_flows) {
            return fail("outcomes or verdicts");
        }
        let examples = reduced
            .outcomes
            .iter()
            .filter_map(|o| o.example.as_ref().map(|e| (o, e)));
        for (o, e) in examples {
            let (w, steps) = replayed(s, e);
            let summary = run::summarize(&w);
            let captures: Vec<u32> = summary.intents.iter().map(|i| i.captures).collect();
            // Up to flows, the replayed world is the outcome's with its
            // attempts in some order.
            let (mut statuses, mut answers) = (summary.statuses(), o.answers.clone());
            if up_to_flows {
                statuses.sort();
                answers.sort();
            }
            let got = (&captures, &statuses, steps);
            if got != (&o.captures, &answers, e.steps) {
                return Err(format!(
                    "{at}: example {} replays elsewhere: {got:?}",
                    e.text
                ));
            }
        }
        // A property's example replays to an end that breaks (always) or
        // shows (sometimes) it.
        let examples = reduced
            .properties
            .iter()
            .filter_map(|p| p.example.as_ref().map(|e| (p.claim.property, e)));
        for (property, e) in examples {
            let (w, _) = replayed(s, e);
            let summary = run::summarize(&w);
            let ending = crate::property::Ending {
                world: &w,
                intents: &summary.intents,
                attempts: &summary.attempts,
            };
            if !property.shown_by(&ending) {
                return Err(format!(
                    "{at}: {}'s example {} does not show it",
                    property.name, e.text
                ));
            }
        }
        Ok((reduced.states, full.states))
    };
    Some(check())
}
