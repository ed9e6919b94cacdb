//! What a challenge asks for, and the checks that say it was met: on the
//! run the board shows, or on an explorer's report.

use crate::explore::{Report, Status, Verdict};
use crate::run::Run;
use crate::trace::{EventKind, Reconciliation};

/// What must be true for a challenge to count as solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Some intent is captured more than once, with at most `picks_max`
    /// choices made by hand when a limit is given.
    DoubleCharge { picks_max: Option<u32> },
    /// Every intent is captured exactly once although some intent was sent
    /// more than once (one charge without any repeat proves nothing).
    OneCharge,
    /// Some attempt's client receives an answer with this status.
    ClientHears { status: u16 },
    /// A later attempt of an intent receives the same 2xx status and body
    /// as an earlier one did: the stored response, replayed.
    Replayed,
    /// One statement waits at least `ms` on another transaction's row
    /// (several short waits are a queue, not the held row the task means).
    Waits { ms: u64 },
    /// Recovery completes a stuck key from the acquirer's answer that it
    /// captured, and afterwards a client receives a 2xx.
    HearsReconciled,
    /// A complete exploration finds that the property named `property` (a
    /// name in `property::ALL`) holds in every interleaving.
    Proven { property: &'static str },
}

impl Goal {
    /// Met by the run on screen: the whole run (the choices made, first
    /// come, first served past them), `picks` being how many choices the
    /// attendee made. A [`Goal::Proven`] is never met by one run.
    pub fn met_by_run(&self, run: &Run, picks: usize) -> bool {
        let s = &run.summary;
        match *self {
            Goal::DoubleCharge { picks_max } => {
                !s.double_charged_intents.is_empty()
                    && picks_max.is_none_or(|max| picks <= max as usize)
            }
            Goal::OneCharge => {
                let repeated =
                    s.intents.iter().enumerate().any(|(i, _)| {
                        s.attempts.iter().filter(|a| a.intent as usize == i).count() > 1
                    });
                !s.intents.is_empty() && s.intents.iter().all(|i| i.captures == 1) && repeated
            }
            Goal::ClientHears { status } => s.attempts.iter().any(|a| a.status == Some(status)),
            Goal::Replayed => s.attempts.iter().enumerate().any(|(j, later)| {
                s.attempts[..j].iter().any(|first| {
                    first.intent == later.intent
                        && first.status.is_some_and(|st| (200..300).contains(&st))
                        && first.status == later.status
                        && first.body.is_some()
                        && first.body == later.body
                })
            }),
            Goal::Waits { ms } => run.events().any(
                |(_, e)| matches!(e.kind, EventKind::SqlResumed { waited_ms, .. } if waited_ms >= ms),
            ),
            Goal::HearsReconciled => {
                let reconciled = run.events().find_map(|(f, e)| match e.kind {
                    EventKind::Reconciled {
                        outcome: Reconciliation::Captured,
                        ..
                    } => Some(f),
                    _ => None,
                });
                reconciled.is_some_and(|at| {
                    run.events().any(|(f, e)| {
                        f > at
                            && matches!(e.kind, EventKind::ResponseReceived { status, .. }
                                if (200..300).contains(&status))
                    })
                })
            }
            Goal::Proven { .. } => false,
        }
    }

    /// Met by an explorer's report: only a [`Goal::Proven`] can be, and only
    /// by a complete search whose verdict on the property is that it holds.
    pub fn met_by_report(&self, report: &Report) -> bool {
        match *self {
            Goal::Proven { property } => {
                report.status == Status::Complete
                    && report
                        .properties
                        .iter()
                        .any(|p| p.claim.property.name == property && p.verdict == Verdict::Holds)
            }
            _ => false,
        }
    }

    /// The goal in a few words of English, for the CLI's table.
    pub fn label(&self) -> String {
        match *self {
            Goal::DoubleCharge { picks_max: None } => "double charge".into(),
            Goal::DoubleCharge { picks_max: Some(n) } => format!("double charge in <= {n} picks"),
            Goal::OneCharge => "one charge despite a repeat".into(),
            Goal::ClientHears { status } => format!("a client hears {status}"),
            Goal::Replayed => "stored response replayed".into(),
            Goal::Waits { ms } => format!("waits >= {ms} ms on a row"),
            Goal::HearsReconciled => "2xx after reconciliation".into(),
            Goal::Proven { property } => format!("proven: {property}"),
        }
    }
}
