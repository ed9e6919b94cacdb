//! Running a scenario to the end: the trace, a frame per step for the view,
//! and the outcome with its invariant verdicts.

use crate::choice::{Chooser, Recording, RngChooser, Schedule, ScheduleChooser};
use crate::scenario::{Scenario, ScenarioError, Strategy};
use crate::trace::*;
use crate::world::World;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub strategy: Strategy,
    pub seed: u64,
    /// The choices the run made; replaying them gives the same run.
    pub schedule: String,
    pub initial: Frame,
    pub steps: Vec<Step>,
    pub summary: Summary,
    /// Every statement the instances sent to the store, in issue order.
    pub store_log: Vec<crate::world::StoreStatement>,
}

impl Run {
    /// Frames: 0 is the start, `i` is the world after step `i - 1`.
    pub fn frame_count(&self) -> usize {
        self.steps.len() + 1
    }

    /// The picture at `frame`, clamped to the last one. O(1): every frame is
    /// kept, which for the largest allowed run is a few megabytes.
    pub fn state_at(&self, frame: usize) -> &Frame {
        match frame {
            0 => &self.initial,
            i => &self.steps[(i - 1).min(self.steps.len() - 1)].frame,
        }
    }

    /// All events in order, with the frame each belongs to.
    pub fn events(&self) -> impl Iterator<Item = (usize, &TraceEvent)> {
        self.steps
            .iter()
            .enumerate()
            .flat_map(|(i, s)| s.events.iter().map(move |e| (i + 1, e)))
    }
}

/// Runs with the scenario's seeded RNG deciding every choice.
pub fn run(scenario: &Scenario) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    let mut chooser = Recording::new(RngChooser::new(scenario.seed));
    let mut r = run_with(scenario, &mut chooser);
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

/// Replays a schedule; choices past its end are 0 (first come, first served).
pub fn run_schedule(scenario: &Scenario, schedule: &Schedule) -> Result<Run, ScenarioError> {
    scenario.validate()?;
    let mut chooser = ScheduleChooser::new(schedule);
    let mut r = run_with(scenario, &mut chooser);
    r.schedule = chooser.schedule().to_string();
    Ok(r)
}

/// Runs with any chooser, recording a frame per step. The scenario must be
/// valid.
pub fn run_with(scenario: &Scenario, chooser: &mut dyn Chooser) -> Run {
    let mut w = World::new(scenario);
    w.log_store_statements();
    let initial = w.frame();
    let mut steps = Vec::new();
    let mut store_log = Vec::new();
    while !w.is_done() {
        let events = w.step(chooser);
        store_log.extend(w.take_store_log());
        if events.is_empty() && w.is_done() {
            break;
        }
        steps.push(Step {
            events,
            frame: w.frame(),
        });
    }
    Run {
        strategy: scenario.strategy,
        seed: scenario.seed,
        schedule: String::new(),
        initial,
        steps,
        summary: summarize(&w),
        store_log,
    }
}

/// Runs to the end without recording frames: for explorers and swarms.
pub fn outcome_with(scenario: &Scenario, chooser: &mut dyn Chooser) -> Summary {
    let mut w = World::new(scenario);
    w.set_quiet();
    while !w.is_done() {
        w.step(chooser);
    }
    summarize(&w)
}

pub fn summarize(w: &World) -> Summary {
    let effects = crate::world::effects_per_intent(w);
    let intents: Vec<IntentOutcome> = w
        .intents
        .iter()
        .zip(&effects)
        .map(|((client, it), &n)| IntentOutcome {
            client: *client,
            order_id: it.order_id,
            amount_cents: it.amount_cents,
            key: it.key.clone(),
            captures: n,
            charged_cents: i64::from(n) * it.amount_cents,
        })
        .collect();
    let attempts: Vec<AttemptOutcome> = w
        .attempts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let i = i as u32;
            let knowledge = match (&a.answer, a.timed_out) {
                (Some((status, _)), _) => Knowledge::Answered {
                    attempt: i,
                    status: *status,
                },
                (None, true) => Knowledge::Unknown { attempt: i },
                (None, false) => Knowledge::Waiting { attempt: i },
            };
            AttemptOutcome {
                attempt: i,
                client: a.client,
                intent: a.intent,
                key: a.key.to_string(),
                instance: a.instance,
                status: a.answer.as_ref().map(|x| x.0),
                body: a.answer.as_ref().map(|x| x.1.to_string()),
                knowledge,
                reached_acquirer: a.reached_acquirer,
            }
        })
        .collect();
    let double_charged_intents = intents
        .iter()
        .enumerate()
        .filter(|(_, o)| o.captures > 1)
        .map(|(i, _)| i as u32)
        .collect();
    let invariants = verdicts(w, &intents, &attempts);
    Summary {
        end: w.end().unwrap_or(EndReason::Quiescent),
        end_ms: w.now_ms(),
        captures: effects.iter().sum(),
        charged_cents: intents.iter().map(|o| o.charged_cents).sum(),
        intents,
        double_charged_intents,
        attempts,
        blocked_ms: w.blocked_ms,
        invariants,
    }
}

pub const AT_MOST_ONE_CAPTURE: &str = "at-most-one-capture-per-intent";
pub const EVERY_2XX_ONE_CAPTURE: &str = "every-2xx-has-exactly-one-capture";
pub const REPLAY_EQUALS_FIRST: &str = "replay-equals-first-response";
pub const CONFLICTS_NEVER_CHARGE: &str = "409-and-422-never-reach-the-acquirer";
pub const NO_KEY_STUCK: &str = "no-key-stuck-processing-past-lease-and-recovery";

fn verdict(name: &str, failures: Vec<String>) -> Verdict {
    Verdict {
        name: name.into(),
        holds: failures.is_empty(),
        detail: if failures.is_empty() {
            "holds".into()
        } else {
            failures.join("; ")
        },
    }
}

fn verdicts(w: &World, intents: &[IntentOutcome], attempts: &[AttemptOutcome]) -> Vec<Verdict> {
    let at_most_one = intents
        .iter()
        .enumerate()
        .filter(|(_, o)| o.captures > 1)
        .map(|(i, o)| {
            format!(
                "intent {i} (order {}) captured {} times",
                o.order_id, o.captures
            )
        })
        .collect();
    let mut two_xx = Vec::new();
    let mut replay = Vec::new();
    for (i, o) in intents.iter().enumerate() {
        let answered: Vec<&AttemptOutcome> = attempts
            .iter()
            .filter(|a| a.intent == i as u32 && a.status.is_some_and(|s| (200..300).contains(&s)))
            .collect();
        if !answered.is_empty() && o.captures != 1 {
            two_xx.push(format!(
                "intent {i} answered 2xx but captured {} times",
                o.captures
            ));
        }
        if let Some(first) = answered.first() {
            for a in &answered[1..] {
                if (a.status, &a.body) != (first.status, &first.body) {
                    replay.push(format!(
                        "attempt {} answered {} {}, attempt {} first answered {} {}",
                        a.attempt,
                        debug_status(a.status),
                        debug_body(a.body.as_deref()),
                        first.attempt,
                        debug_status(first.status),
                        debug_body(first.body.as_deref())
                    ));
                }
            }
        }
    }
    let conflicts = attempts
        .iter()
        .filter(|a| matches!(a.status, Some(409 | 422)) && a.reached_acquirer)
        .map(|a| {
            format!(
                "attempt {} answered {} after calling the acquirer",
                a.attempt,
                debug_status(a.status)
            )
        })
        .collect();
    let mut out = vec![
        verdict(AT_MOST_ONE_CAPTURE, at_most_one),
        verdict(EVERY_2XX_ONE_CAPTURE, two_xx),
        verdict(REPLAY_EQUALS_FIRST, replay),
        verdict(CONFLICTS_NEVER_CHARGE, conflicts),
    ];
    if w.scenario.strategy == Strategy::IdempotencyKeyLease {
        out.push(verdict(NO_KEY_STUCK, stuck_keys(w)));
    }
    out
}

/// `status` as `{:?}` prints it (`Some(201)`, `None`).
fn debug_status(status: Option<u16>) -> String {
    match status {
        Some(s) => format!("Some({s})"),
        None => "None".into(),
    }
}

/// `body` as `{:?}` prints it (`Some("{\"erro\": \"x\"}")`, `None`), for
/// the ASCII text every body is (`handler::body` and the `BODY_*`
/// constants). Debug itself would put char escaping and Unicode tables
/// (kBs) into the page's wasm, which runs verdicts and never shows them.
fn debug_body(body: Option<&str>) -> String {
    let Some(body) = body else {
        return "None".into();
    };
    let mut out = String::from("Some(\"");
    for c in body.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\0' => out.push_str("\\0"),
            c if c.is_ascii_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("\")");
    out
}

fn stuck_keys(w: &World) -> Vec<String> {
    let def = w
        .store
        .table_defs()
        .find(|d| d.name == "chave_idempotencia")
        .cloned()
        .expect("table exists");
    let col = |n: &str| def.column_index(n).expect("column exists");
    let limit = |lease: i64| lease + w.scenario.recovery_every_ms as i64;
    w.store
        .committed_rows("chave_idempotencia")
        .into_iter()
        .filter(|r| matches!(r[col("estado")].as_text(), Some("processing" | "unknown")))
        .filter(|r| {
            r[col("lease_ate_ms")]
                .as_int()
                .is_some_and(|l| w.now_ms() as i64 > limit(l))
        })
        .map(|r| {
            format!(
                "key {} still {}",
                r[col("chave")].as_text().unwrap_or_default(),
                r[col("estado")]
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{debug_body, debug_status};

    #[test]
    fn verdict_answers_print_as_debug_prints_them() {
        let ascii: String = (0u8..128).map(char::from).collect();
        for body in [
            None,
            Some(""),
            Some(r#"{"erro": "x"}"#),
            Some(ascii.as_str()),
        ] {
            assert_eq!(debug_body(body), format!("{body:?}"));
        }
        for status in [None, Some(201), Some(409)] {
            assert_eq!(debug_status(status), format!("{status:?}"));
        }
    }
}
