//! The JSON history: what the clients saw, as the operation histories that
//! Jepsen and Porcupine check, so a run can be fed to a linearizability or
//! exactly-once checker.
//!
//! # Format (`lousa-history/1`)
//!
//! One JSON object:
//!
//! ```json
//! {"format": "lousa-history/1", "scenario": "race-2", "strategy": "check-then-act",
//!  "seed": 7, "schedule": "0",
//!  "reproduce": "lousa export race-2 --strategy check-then-act --seed 7 --schedule 0 --format history",
//!  "history": [
//!   {"index": 0, "type": "invoke", "f": "charge", "process": 0, "attempt": 0, "intent": 0,
//!    "order_id": 123, "amount_cents": 25000, "key": "9d2f…", "retry": false, "time_ms": 0},
//!   {"index": 3, "type": "ok", "f": "charge", "process": 0, "attempt": 0, "intent": 0,
//!    "order_id": 123, "amount_cents": 25000, "key": "9d2f…", "time_ms": 40,
//!    "status": 201, "body": "{\"status\": \"CAPTURADA\", \"cobranca_id\": 1}"}
//! ]}
//! ```
//!
//! `reproduce` is the command that writes the same history again (a
//! scenario from a file is named as `<name>.json`, the file the workshop's
//! editor saves). A branch's history has `"fork": "5:crash-1+3000"`, the
//! fault injected and where, and its `reproduce` says `--fork`.
//!
//! `history` holds one `invoke` per attempt (one HTTP request a client
//! sent) and, after it, at most one completion of that attempt, all in time
//! order (ties in the order the simulation ran them); `index` numbers them
//! from 0.
//!
//! - `type`: `invoke` (the request leaves the client); `ok` (a 2xx answer);
//!   `fail` (a 4xx answer: the server says this attempt charged nothing);
//!   `info` (indeterminate: the client's timeout fired, a 5xx answer, whose
//!   server did not itself know whether the charge happened, or no answer
//!   by the end of the run). As in Jepsen, an `info` operation may or may
//!   not have taken effect.
//! - `process`: the client (0-based). Unlike a Jepsen process, a client goes
//!   on after `info`: its retry is a new attempt, an `invoke` of its own.
//! - `attempt` (0-based, global), `intent` (0-based), `order_id`,
//!   `amount_cents` and `key` (the idempotency key sent) say which charge.
//! - `retry` (invokes only): whether the attempt re-sends an earlier intent.
//! - `time_ms`: simulated milliseconds since the start.
//! - `status`, `body`: the HTTP answer, on `ok`, `fail` and a 5xx `info`.
//! - `error` (`info` only, when there is no answer): `timeout` or
//!   `no-answer-by-end`.
//!
//! An answer that arrives after its attempt timed out is not a completion:
//! the client had already stopped waiting for it.

use crate::run::Run;
use crate::scenario::Scenario;
use crate::trace::EventKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The `format` field of every history this version writes.
pub const HISTORY_FORMAT: &str = "lousa-history/1";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpType {
    Invoke,
    Ok,
    Fail,
    Info,
}

/// One operation of the history (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub index: usize,
    #[serde(rename = "type")]
    pub op: OpType,
    /// Always `charge`: the one operation a client performs.
    pub f: String,
    pub process: u32,
    pub attempt: u32,
    pub intent: u32,
    pub order_id: i64,
    pub amount_cents: i64,
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<bool>,
    pub time_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    pub format: String,
    pub scenario: String,
    pub strategy: String,
    /// The design that handled the requests in place of the strategy's
    /// handler, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<String>,
    pub seed: u64,
    pub schedule: String,
    /// The fault injected where the run branched (`12:crash-2+3000`), for
    /// a branch's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<String>,
    /// The `lousa export` command that writes this history again: the
    /// scenario as a built-in's name, the link of its edits or its file.
    #[serde(default)]
    pub reproduce: String,
    pub history: Vec<Operation>,
}

/// The history's completion type for an HTTP status.
fn completion(status: u16) -> OpType {
    match status {
        200..=299 => OpType::Ok,
        400..=499 => OpType::Fail,
        _ => OpType::Info,
    }
}

/// The operations of `run`, in time order.
pub fn operations(run: &Run) -> Vec<Operation> {
    let mut ops: Vec<Operation> = Vec::new();
    let mut open: BTreeSet<u32> = BTreeSet::new();
    // Everything but type, time and answer comes from the invoke.
    let invoke_of = |ops: &[Operation], attempt: u32| -> Operation {
        ops.iter()
            .find(|o| o.attempt == attempt && o.op == OpType::Invoke)
            .cloned()
            .expect("an attempt completes after its invoke")
    };
    let push = |ops: &mut Vec<Operation>, mut op: Operation| {
        op.index = ops.len();
        ops.push(op);
    };
    for (_, e) in run.events() {
        match &e.kind {
            EventKind::AttemptSent {
                client,
                attempt,
                intent,
                key,
                retry,
                ..
            } => {
                let it = run.summary.intents.get(*intent as usize);
                open.insert(*attempt);
                let op = Operation {
                    index: 0,
                    op: OpType::Invoke,
                    f: "charge".into(),
                    process: *client,
                    attempt: *attempt,
                    intent: *intent,
                    order_id: it.map_or(0, |i| i.order_id),
                    amount_cents: it.map_or(0, |i| i.amount_cents),
                    key: key.clone(),
                    retry: Some(*retry),
                    time_ms: e.time_ms,
                    status: None,
                    body: None,
                    error: None,
                };
                push(&mut ops, op);
            }
            EventKind::ResponseReceived {
                attempt,
                status,
                body,
                ..
            } if open.remove(attempt) => {
                let op = Operation {
                    op: completion(*status),
                    retry: None,
                    time_ms: e.time_ms,
                    status: Some(*status),
                    body: Some(body.clone()),
                    ..invoke_of(&ops, *attempt)
                };
                push(&mut ops, op);
            }
            EventKind::TimedOut { attempt, .. } if open.remove(attempt) => {
                let op = Operation {
                    op: OpType::Info,
                    retry: None,
                    time_ms: e.time_ms,
                    error: Some("timeout".into()),
                    ..invoke_of(&ops, *attempt)
                };
                push(&mut ops, op);
            }
            _ => {}
        }
    }
    // A run cut by its horizon or event limit leaves requests out: their
    // clients never learnt how they ended.
    for attempt in open {
        let op = Operation {
            op: OpType::Info,
            retry: None,
            time_ms: run.summary.end_ms,
            error: Some("no-answer-by-end".into()),
            ..invoke_of(&ops, attempt)
        };
        push(&mut ops, op);
    }
    ops
}

/// The history of `run` as JSON, one operation a line so that diffs and
/// `grep` read it.
pub fn history(scenario: &Scenario, run: &Run) -> String {
    let head = History {
        format: HISTORY_FORMAT.into(),
        scenario: scenario.name.clone(),
        strategy: run.strategy.name().into(),
        design: scenario.program().map(|p| p.design().name.clone()),
        seed: run.seed,
        schedule: run.schedule.clone(),
        fork: run.fork.map(|f| f.to_string()),
        reproduce: super::command::lousa(
            "export",
            scenario,
            run,
            &format!(
                "--seed {} --schedule {} --format history",
                run.seed, run.schedule
            ),
        ),
        history: Vec::new(),
    };
    let head = serde_json::to_string(&head).expect("a history serializes");
    let head = head
        .strip_suffix("]}")
        .expect("the history list ends the object");
    let mut out = String::from(head);
    out.push('\n');
    let ops = operations(run);
    for (i, op) in ops.iter().enumerate() {
        let comma = if i + 1 < ops.len() { "," } else { "" };
        let line = serde_json::to_string(op).expect("an operation serializes");
        let _ = writeln!(out, "  {line}{comma}");
    }
    out.push_str("]}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::builtin;

    fn parsed(name: &str, strategy: crate::Strategy) -> History {
        let mut s = builtin(name).unwrap();
        s.strategy = strategy;
        let r = crate::run(&s).unwrap();
        serde_json::from_str(&history(&s, &r)).expect("the history parses")
    }

    /// One invoke per attempt, and each completion after its invoke and
    /// alone: what a history checker relies on.
    fn well_formed(h: &History) {
        assert_eq!(h.format, HISTORY_FORMAT);
        for (i, op) in h.history.iter().enumerate() {
            assert_eq!(op.index, i);
            let earlier = &h.history[..i];
            let invokes = |ops: &[Operation]| {
                ops.iter()
                    .filter(|o| o.attempt == op.attempt && o.op == OpType::Invoke)
                    .count()
            };
            if op.op == OpType::Invoke {
                assert_eq!(invokes(earlier), 0, "attempt {} invoked twice", op.attempt);
            } else {
                assert_eq!(invokes(earlier), 1, "op {i} completes before its invoke");
                let done = earlier
                    .iter()
                    .filter(|o| o.attempt == op.attempt && o.op != OpType::Invoke)
                    .count();
                assert_eq!(done, 0, "attempt {} completes twice", op.attempt);
            }
            if i > 0 {
                assert!(h.history[i - 1].time_ms <= op.time_ms, "time order at {i}");
            }
        }
    }

    #[test]
    fn every_builtin_has_one_invoke_per_attempt_and_completions_after_them() {
        for s in crate::builtins::all() {
            let r = crate::run(&s).unwrap();
            let h: History = serde_json::from_str(&history(&s, &r)).unwrap();
            well_formed(&h);
            let invokes = h.history.iter().filter(|o| o.op == OpType::Invoke);
            assert_eq!(invokes.count(), r.summary.attempts.len(), "{}", s.name);
        }
    }

    #[test]
    fn a_timed_out_attempt_is_info() {
        let h = parsed("timeout-retry", crate::Strategy::IdempotencyKey);
        let first: Vec<&Operation> = h.history.iter().filter(|o| o.attempt == 0).collect();
        assert_eq!(first.len(), 2, "{first:?}");
        assert_eq!(first[1].op, OpType::Info);
        assert_eq!(first[1].error.as_deref(), Some("timeout"));
        assert_eq!(first[1].status, None);
        // The retry meets the first attempt still processing: a 409, then
        // the next retry is answered with the capture.
        let retry: Vec<&Operation> = h.history.iter().filter(|o| o.attempt == 1).collect();
        assert_eq!(retry[0].retry, Some(true));
        assert_eq!((retry[1].op, retry[1].status), (OpType::Fail, Some(409)));
        let last: Vec<&Operation> = h.history.iter().filter(|o| o.attempt == 2).collect();
        assert_eq!((last[1].op, last[1].status), (OpType::Ok, Some(201)));
        assert!(
            last[1]
                .body
                .as_deref()
                .is_some_and(|b| b.contains("CAPTURADA"))
        );
    }

    #[test]
    fn statuses_map_to_ok_fail_and_info() {
        assert_eq!(completion(201), OpType::Ok);
        assert_eq!(completion(409), OpType::Fail);
        assert_eq!(completion(422), OpType::Fail);
        assert_eq!(completion(504), OpType::Info);
    }

    #[test]
    fn the_text_is_one_operation_a_line() {
        let s = builtin("race-2").unwrap();
        let r = crate::run(&s).unwrap();
        let text = history(&s, &r);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("{\"format\":\"lousa-history/1\""),
            "{text}"
        );
        assert_eq!(lines.len(), operations(&r).len() + 2, "{text}");
    }
}
