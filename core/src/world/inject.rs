//! Faults injected into a running world at a moment the attendee picks,
//! rather than written into the scenario beforehand: the branch of a run
//! (see `crate::fork`).

use super::*;

/// A fault injected now. Attempts and calls are numbered from 0, as in the
/// trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Injection {
    /// The instance dies now, and comes back after `restart_after_ms`
    /// (never, when `None`).
    Crash {
        instance: u32,
        restart_after_ms: Option<u64>,
    },
    /// The request of `attempt`, on its way to an instance, is lost.
    LoseRequest { attempt: u32 },
    /// The answer to `attempt`, on its way back, is lost.
    LoseResponse { attempt: u32 },
    /// The acquirer has decided capture call `call`, and its answer never
    /// comes back: the instance hears nothing, whatever happened.
    SilenceAcquirer { call: u32 },
    /// The message of `attempt` in flight (its request or its answer)
    /// arrives `by_ms` later.
    Delay { attempt: u32, by_ms: u64 },
}

/// Why an injection does not fit the world at this moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InjectError {
    /// The run is over: nothing is left to break.
    RunOver,
    NoSuchInstance {
        instance: u32,
        instances: u32,
    },
    InstanceDown {
        instance: u32,
    },
    /// Nothing of `attempt` (or no answer of `call`) is in flight now.
    NothingInFlight {
        what: &'static str,
        number: u32,
    },
    /// A delay past the scenario's horizon.
    DelayTooLong {
        by_ms: u64,
        max_ms: u64,
    },
}

impl std::fmt::Display for InjectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InjectError::RunOver => write!(
                f,
                "the run is over at this moment: nothing is left to break"
            ),
            InjectError::NoSuchInstance {
                instance,
                instances,
            } => write!(
                f,
                "instance {} does not exist: the scenario has {instances}",
                instance + 1
            ),
            InjectError::InstanceDown { instance } => {
                write!(f, "instance {} is already down", instance + 1)
            }
            InjectError::NothingInFlight { what, number } => {
                write!(f, "{what} {} has nothing in flight now", number + 1)
            }
            InjectError::DelayTooLong { by_ms, max_ms } => {
                write!(
                    f,
                    "a delay of {by_ms} ms is over the limit of {max_ms} ms (the scenario's horizon)"
                )
            }
        }
    }
}

impl World {
    /// What can be injected now: each live instance's crash (restarting
    /// after `restart_after_ms`), each message in flight lost or delayed by
    /// `delay_ms`, each decided capture whose answer is on its way silenced.
    pub fn injections(&self, restart_after_ms: u64, delay_ms: u64) -> Vec<Injection> {
        if self.is_done() {
            return Vec::new();
        }
        let mut out: Vec<Injection> = (0..self.instances.len() as u32)
            .filter(|&i| self.instances[i as usize].alive)
            .map(|instance| Injection::Crash {
                instance,
                restart_after_ms: Some(restart_after_ms),
            })
            .collect();
        for e in &self.agenda.items {
            match e.due {
                Due::ArriveAtInstance { attempt } => out.extend([
                    Injection::LoseRequest { attempt: attempt.0 },
                    Injection::Delay {
                        attempt: attempt.0,
                        by_ms: delay_ms,
                    },
                ]),
                Due::ResponseArrive { attempt } => out.extend([
                    Injection::LoseResponse { attempt: attempt.0 },
                    Injection::Delay {
                        attempt: attempt.0,
                        by_ms: delay_ms,
                    },
                ]),
                Due::AcquirerReply { call } => {
                    out.push(Injection::SilenceAcquirer { call: call.0 })
                }
                _ => {}
            }
        }
        out
    }

    /// Applies `injection` now, telling what it did as trace events (taken
    /// by the next `take_events`).
    pub fn inject(&mut self, injection: Injection) -> Result<(), InjectError> {
        if self.is_done() {
            return Err(InjectError::RunOver);
        }
        match injection {
            Injection::Crash {
                instance,
                restart_after_ms,
            } => {
                let instances = self.instances.len() as u32;
                if instance >= instances {
                    return Err(InjectError::NoSuchInstance {
                        instance,
                        instances,
                    });
                }
                if !self.instances[instance as usize].alive {
                    return Err(InjectError::InstanceDown { instance });
                }
                self.crash_then(InstanceId(instance), restart_after_ms);
            }
            Injection::LoseRequest { attempt } => {
                let due = Due::ArriveAtInstance {
                    attempt: AttemptId(attempt),
                };
                self.take_due(&due, "attempt", attempt)?;
                self.emit(Actor::Network, EventKind::RequestDropped { attempt });
            }
            Injection::LoseResponse { attempt } => {
                let due = Due::ResponseArrive {
                    attempt: AttemptId(attempt),
                };
                self.take_due(&due, "attempt", attempt)?;
                self.emit(Actor::Network, EventKind::ResponseDropped { attempt });
            }
            Injection::SilenceAcquirer { call } => {
                let due = Due::AcquirerReply { call: CallId(call) };
                self.take_due(&due, "call", call)?;
                self.acquirer.calls[call as usize].reply_lost = true;
                self.emit(Actor::Acquirer, EventKind::AcquirerReplyLost { call });
            }
            Injection::Delay { attempt, by_ms } => {
                let max_ms = self.scenario.horizon_ms;
                if by_ms > max_ms {
                    return Err(InjectError::DelayTooLong { by_ms, max_ms });
                }
                let id = AttemptId(attempt);
                let (due, response) = [
                    (Due::ArriveAtInstance { attempt: id }, false),
                    (Due::ResponseArrive { attempt: id }, true),
                ]
                .into_iter()
                .find(|(d, _)| self.agenda.items.iter().any(|e| e.due == *d))
                .ok_or(InjectError::NothingInFlight {
                    what: "attempt",
                    number: attempt,
                })?;
                let at = self.take_due(&due, "attempt", attempt)?;
                self.agenda.push(at + by_ms, due);
                self.emit(
                    Actor::Network,
                    EventKind::Delayed {
                        attempt,
                        response,
                        by_ms,
                    },
                );
            }
        }
        Ok(())
    }

    /// Removes `due` from the agenda, returning when it was due.
    fn take_due(&mut self, due: &Due, what: &'static str, number: u32) -> Result<u64, InjectError> {
        let at = self
            .agenda
            .items
            .iter()
            .find(|e| e.due == *due)
            .map(|e| e.at)
            .ok_or(InjectError::NothingInFlight { what, number })?;
        self.agenda.remove(due);
        Ok(at)
    }

    /// The trace events emitted outside a step (an injection's).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.events)
    }
}
