//! The page's two devices as pure functions of runs: named story beats that
//! article paragraphs point at (`data-step="timeout"`), and the twin timeline
//! that puts two designs on one time axis.

use crate::run::Run;
use crate::scenario::{Scenario, ScenarioError, Strategy};
use crate::trace::{EventKind, TraceEvent};
use serde::{Deserialize, Serialize};

/// Beats a paragraph may name, in story order.
pub const BEATS: [&str; 17] = [
    "start",
    "sent",
    "routed",
    "first-write",
    "capture-requested",
    "timeout",
    "retry",
    "retry-routed",
    "retry-decides",
    "captured",
    "second-capture",
    // Where a late retry charges again without a provider key, the
    // acquirer with one recognises it: a paragraph naming this beat shows
    // the second capture in a run that has no replay (the beat before).
    "provider-replayed",
    "conflict",
    "stored",
    "reconciled",
    "replayed",
    "end",
];

fn is_write(sql: &str) -> bool {
    sql.starts_with("INSERT") || sql.starts_with("SELECT")
}

/// The frame where `beat` first happens in `run`, or `None` when it never
/// does (a key design has no second capture). Frame numbers index
/// `Run::state_at`.
pub fn beat_frame(run: &Run, beat: &str) -> Option<usize> {
    let first =
        |pred: &dyn Fn(&TraceEvent) -> bool| run.events().find(|(_, e)| pred(e)).map(|(f, _)| f);
    let retry_attempt = run.events().find_map(|(_, e)| match e.kind {
        EventKind::AttemptSent {
            attempt,
            retry: true,
            ..
        } => Some(attempt),
        _ => None,
    });
    match beat {
        "start" => Some(0),
        "end" => Some(run.frame_count() - 1),
        "sent" => first(&|e| matches!(e.kind, EventKind::AttemptSent { .. })),
        "routed" => first(&|e| matches!(e.kind, EventKind::Routed { .. })),
        "first-write" => {
            first(&|e| matches!(&e.kind, EventKind::Sql { sql, .. } if sql.starts_with("INSERT")))
        }
        "capture-requested" => first(&|e| matches!(e.kind, EventKind::CaptureRequested { .. })),
        "timeout" => first(&|e| matches!(e.kind, EventKind::TimedOut { .. })),
        "retry" => first(&|e| matches!(e.kind, EventKind::AttemptSent { retry: true, .. })),
        "retry-routed" => {
            let a = retry_attempt?;
            first(&|e| matches!(e.kind, EventKind::Routed { attempt, .. } if attempt == a))
        }
        "retry-decides" => {
            let a = retry_attempt?;
            first(&|e| match &e.kind {
                EventKind::Sql {
                    attempt: Some(x),
                    sql,
                    ..
                } => *x == a && is_write(sql),
                _ => false,
            })
        }
        "captured" => first(&|e| matches!(e.kind, EventKind::Captured { .. })),
        "second-capture" => first(&|e| {
            matches!(
                e.kind,
                EventKind::Captured {
                    captures_for_intent: 2,
                    ..
                }
            )
        }),
        "provider-replayed" => first(&|e| matches!(e.kind, EventKind::ProviderReplayed { .. })),
        "conflict" => first(&|e| matches!(e.kind, EventKind::Responded { status: 409, .. })),
        "stored" => first(
            &|e| matches!(&e.kind, EventKind::Sql { sql, .. } if sql.contains("resposta_http =")),
        ),
        // Recovery settles a key: completed on evidence, or failed_safe.
        "reconciled" => first(&|e| matches!(e.kind, EventKind::Reconciled { .. })),
        // A repeat of a key is answered from the store: a final answer
        // (not 409, 422 or 5xx) to an attempt that never called the acquirer.
        "replayed" => {
            let mut seen: Vec<&str> = Vec::new();
            let mut repeats = Vec::new();
            let mut captured = Vec::new();
            for (_, e) in run.events() {
                match &e.kind {
                    EventKind::AttemptSent { attempt, key, .. } => {
                        if seen.contains(&key.as_str()) {
                            repeats.push(*attempt);
                        }
                        seen.push(key);
                    }
                    EventKind::CaptureRequested { attempt, .. } => captured.push(*attempt),
                    _ => {}
                }
            }
            first(&|e| match e.kind {
                EventKind::Responded {
                    attempt, status, ..
                } => {
                    repeats.contains(&attempt)
                        && !captured.contains(&attempt)
                        && !matches!(status, 409 | 422 | 500..)
                }
                _ => false,
            })
        }
        _ => None,
    }
}

/// A beat's frame, or the nearest earlier beat's that happened: a paragraph
/// always has a picture, even when its event is absent from this design.
pub fn beat_frame_or_before(run: &Run, beat: &str) -> usize {
    let Some(pos) = BEATS.iter().position(|b| *b == beat) else {
        return 0;
    };
    BEATS[..=pos]
        .iter()
        .rev()
        .find_map(|b| beat_frame(run, b))
        .unwrap_or(0)
}

/// Two designs run from one scenario and seed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Twin {
    pub left: Run,
    pub right: Run,
    /// Pairs of (left event index, right event index) that are the same
    /// event in both worlds: same instant, actor and kind of thing.
    pub links: Vec<(usize, usize)>,
    /// The instant the worlds first differ, with the index of the first
    /// differing event on each side.
    pub divergence: Option<Divergence>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Divergence {
    pub time_ms: u64,
    pub left_event: Option<usize>,
    pub right_event: Option<usize>,
}

/// The shape of an event, without SQL text or ids that differ between
/// designs by construction.
fn shape(e: &TraceEvent) -> (u64, crate::trace::Actor, String) {
    let kind = match &e.kind {
        EventKind::Sql { sql, .. } | EventKind::SqlResumed { sql, .. } => {
            format!("sql:{}", sql.split_whitespace().next().unwrap_or(""))
        }
        EventKind::AttemptSent { attempt, .. } => format!("sent:{attempt}"),
        EventKind::Routed { attempt, instance } => format!("routed:{attempt}:{instance}"),
        EventKind::Responded {
            attempt, status, ..
        } => format!("responded:{attempt}:{status}"),
        EventKind::ResponseReceived {
            attempt, status, ..
        } => format!("received:{attempt}:{status}"),
        EventKind::Captured {
            captures_for_intent,
            ..
        } => format!("captured:{captures_for_intent}"),
        EventKind::TimedOut { attempt, .. } => format!("timeout:{attempt}"),
        other => other.name().to_string(),
    };
    (e.time_ms, e.actor, kind)
}

pub fn twin(scenario: &Scenario, left: Strategy, right: Strategy) -> Result<Twin, ScenarioError> {
    let mut a = scenario.clone();
    a.strategy = left;
    let mut b = scenario.clone();
    b.strategy = right;
    twin_of(&a, &b)
}

/// The twin of two scenarios, each with its own strategy: the same failure
/// with and without one option (`late-retry-after-ttl` against
/// `late-retry-provider-key`), where [`twin`] varies the strategy alone.
pub fn twin_of(a: &Scenario, b: &Scenario) -> Result<Twin, ScenarioError> {
    Ok(twin_of_runs(crate::run(a)?, crate::run(b)?))
}

/// The twin of two runs already made: a run and its fork (the workshop's
/// branch), or any two runs to compare on one axis.
pub fn twin_of_runs(left: Run, right: Run) -> Twin {
    let le: Vec<_> = left.events().map(|(_, e)| shape(e)).collect();
    let re: Vec<_> = right.events().map(|(_, e)| shape(e)).collect();
    // Greedy alignment in time order: each left event links to the first
    // unused right event of the same shape. Events are few (hundreds).
    let mut used = vec![false; re.len()];
    let mut links = Vec::new();
    for (i, s) in le.iter().enumerate() {
        if let Some(j) = (0..re.len()).find(|&j| !used[j] && re[j] == *s) {
            used[j] = true;
            links.push((i, j));
        }
    }
    let common = le.iter().zip(&re).take_while(|(x, y)| x == y).count();
    let divergence = (common < le.len().max(re.len())).then(|| {
        let t = |v: &Vec<(u64, _, _)>| v.get(common).map(|s| s.0);
        Divergence {
            time_ms: match (t(&le), t(&re)) {
                (Some(x), Some(y)) => x.min(y),
                (x, y) => x.or(y).unwrap_or(0),
            },
            left_event: (common < le.len()).then_some(common),
            right_event: (common < re.len()).then_some(common),
        }
    });
    Twin {
        left,
        right,
        links,
        divergence,
    }
}

impl Run {
    /// The last frame at or before `time_ms`: the state a time cursor shows.
    pub fn frame_at_time(&self, time_ms: u64) -> usize {
        self.steps.partition_point(|s| s.frame.time_ms <= time_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::builtin;

    #[test]
    fn the_late_retry_twins_part_where_the_acquirer_recognises_its_key() {
        let expired = builtin("late-retry-after-ttl").unwrap();
        let keyed = builtin("late-retry-provider-key").unwrap();
        let t = twin_of(&expired, &keyed).unwrap();
        assert_eq!(t.left.summary.captures, 2);
        assert_eq!(t.right.summary.captures, 1);
        let d = t.divergence.expect("the runs differ");
        let left = t.left.events().nth(d.left_event.unwrap()).unwrap().1;
        let right = t.right.events().nth(d.right_event.unwrap()).unwrap().1;
        assert!(
            matches!(
                left.kind,
                EventKind::Captured {
                    captures_for_intent: 2,
                    ..
                }
            ),
            "{left:?}"
        );
        assert!(
            matches!(right.kind, EventKind::ProviderReplayed { .. }),
            "{right:?}"
        );
        assert!(
            d.time_ms > expired.key_ttl_ms,
            "they part after the key expired"
        );
        assert!(!t.links.is_empty());
    }

    #[test]
    fn the_provider_replay_beat_is_the_acquirer_s_replay_or_else_the_second_capture() {
        let keyed = crate::run(&builtin("late-retry-provider-key").unwrap()).unwrap();
        let f = beat_frame(&keyed, "provider-replayed").expect("the acquirer replays");
        assert!(
            keyed.steps[f - 1]
                .events
                .iter()
                .any(|e| matches!(e.kind, EventKind::ProviderReplayed { .. })),
            "the beat lands on the replay"
        );
        assert_eq!(keyed.state_at(f).captures, vec![1]);
        let expired = crate::run(&builtin("late-retry-after-ttl").unwrap()).unwrap();
        assert_eq!(beat_frame(&expired, "provider-replayed"), None);
        let g = beat_frame_or_before(&expired, "provider-replayed");
        assert_eq!(Some(g), beat_frame(&expired, "second-capture"));
        assert_eq!(
            expired.state_at(g).time_ms,
            keyed.state_at(f).time_ms,
            "both lines reach the decisive step at the same instant"
        );
    }

    #[test]
    fn beats_land_on_the_story_moments() {
        let r = crate::run(&builtin("timeout-retry").unwrap()).unwrap();
        let f = |b| beat_frame(&r, b).unwrap_or_else(|| panic!("beat {b}"));
        assert!(f("sent") < f("timeout"));
        assert!(f("timeout") < f("retry"));
        assert!(f("retry") < f("retry-decides"));
        assert!(
            f("captured") < f("second-capture"),
            "check-then-act captures twice"
        );
        assert_eq!(r.state_at(f("second-capture")).captures, vec![2]);
        let mut s = builtin("timeout-retry").unwrap();
        s.strategy = Strategy::IdempotencyKey;
        let k = crate::run(&s).unwrap();
        assert_eq!(beat_frame(&k, "second-capture"), None);
        assert_eq!(
            beat_frame_or_before(&k, "second-capture"),
            beat_frame(&k, "captured").unwrap()
        );
        assert!(beat_frame(&k, "conflict").is_some(), "the retry gets 409");
    }

    #[test]
    fn the_key_state_beats_land_on_recovery_and_on_the_stored_answer() {
        let frame = |name: &str, beat: &str| {
            let r = crate::run(&builtin(name).unwrap()).unwrap();
            let f = beat_frame(&r, beat).unwrap_or_else(|| panic!("{name}: {beat}"));
            let kinds: Vec<String> = r.steps[f - 1]
                .events
                .iter()
                .map(|e| format!("{:?}", e.kind))
                .collect();
            kinds.join(" ")
        };
        assert!(frame("crash-before-capture", "reconciled").contains("outcome: NothingFound"));
        assert!(frame("unknown-reconciled", "reconciled").contains("outcome: Captured"));
        let declined = frame("decline-stored", "replayed");
        assert!(declined.contains("attempt: 1, status: 402"), "{declined}");
        let located = frame("headers-replayed", "replayed");
        assert!(located.contains("/cobrancas/1"), "{located}");
        // A retry that charged afresh after failed_safe is no replay.
        let r = crate::run(&builtin("crash-before-capture").unwrap()).unwrap();
        assert_eq!(beat_frame(&r, "replayed"), None);
        assert!(beat_frame(&r, "reconciled").is_some());
    }

    #[test]
    fn twin_worlds_share_their_start_and_diverge_at_the_first_write() {
        let s = builtin("timeout-retry").unwrap();
        let t = twin(&s, Strategy::CheckThenAct, Strategy::IdempotencyKey).unwrap();
        let d = t.divergence.expect("the designs differ");
        assert_eq!(
            d.time_ms, 25,
            "both send and route alike, then the handler differs"
        );
        assert!(
            t.links.iter().any(|&(i, j)| i == 0 && j == 0),
            "the first send is the same event"
        );
        let same = twin(&s, Strategy::IdempotencyKey, Strategy::IdempotencyKey).unwrap();
        assert_eq!(same.divergence, None);
        assert_eq!(same.links.len(), same.left.events().count());
    }

    #[test]
    fn frame_at_time_is_the_last_frame_not_after_the_cursor() {
        let r = crate::run(&builtin("timeout-retry").unwrap()).unwrap();
        assert_eq!(
            r.frame_at_time(0),
            r.steps.iter().take_while(|s| s.frame.time_ms == 0).count()
        );
        let f = r.frame_at_time(2_000);
        assert!(r.state_at(f).time_ms <= 2_000);
        assert!(f + 1 >= r.frame_count() || r.state_at(f + 1).time_ms > 2_000);
    }
}
