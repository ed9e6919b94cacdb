//! The acquirer: capture calls, their replies and timeouts.

use super::*;

impl World {
    pub(super) fn capture(&mut self, instance: u32, attempt: u32) {
        let a = &self.attempts[attempt as usize];
        let call = self.acquirer.calls.len() as u32;
        let intent = a.intent;
        let key = a.key.clone();
        self.attempts[attempt as usize].reached_acquirer = true;
        self.acquirer.calls.push(Call {
            instance,
            attempt,
            intent,
            key,
            sent_ms: self.now_ms,
            accepted: None,
            reply_lost: false,
            settled: false,
        });
        let job = self.job_mut(instance, attempt).expect("job");
        job.call = Some(call);
        job.pc = Pc::AwaitCapture;
        self.emit(
            Actor::Instance(instance),
            EventKind::CaptureRequested {
                attempt,
                call,
                intent,
            },
        );
        let half = self.scenario.acquirer.latency_ms / 2;
        self.agenda
            .push(self.now_ms + half, Due::AcquirerReceive { call });
        self.agenda.push(
            self.now_ms + self.scenario.acquirer.timeout_ms,
            Due::AcquirerTimeout { call },
        );
        self.crash_point_hit(instance, CrashPoint::AfterCaptureSent);
    }

    pub(super) fn acquirer_receive(&mut self, call: u32) {
        let c = self.acquirer.calls[call as usize].clone();
        let accept = !self.scenario.acquirer.decline;
        let repeat = self.scenario.acquirer.provider_keys
            && self.acquirer.seen_keys.iter().any(|(k, _)| *k == c.key);
        if repeat {
            self.emit(
                Actor::Acquirer,
                EventKind::ProviderReplayed {
                    call,
                    intent: c.intent,
                },
            );
        } else if accept {
            self.acquirer.captures[c.intent as usize] += 1;
            let n = self.acquirer.captures[c.intent as usize];
            self.emit(
                Actor::Acquirer,
                EventKind::Captured {
                    call,
                    intent: c.intent,
                    captures_for_intent: n,
                },
            );
        } else {
            self.emit(
                Actor::Acquirer,
                EventKind::Declined {
                    call,
                    intent: c.intent,
                },
            );
        }
        let accepted = if repeat {
            self.acquirer
                .seen_keys
                .iter()
                .find(|(k, _)| *k == c.key)
                .map(|(_, a)| *a)
                .unwrap_or(accept)
        } else {
            accept
        };
        if !repeat {
            self.acquirer.seen_keys.push((c.key.clone(), accept));
        }
        let lost =
            self.scenario.faults.iter().any(
                |f| matches!(f, Fault::AcquirerTimeoutAfterAccept { call: n } if *n == call + 1),
            );
        let entry = &mut self.acquirer.calls[call as usize];
        entry.accepted = Some(accepted);
        entry.reply_lost = lost;
        if lost {
            self.emit(Actor::Acquirer, EventKind::AcquirerReplyLost { call });
            return;
        }
        let rest = self.scenario.acquirer.latency_ms - self.scenario.acquirer.latency_ms / 2;
        self.agenda
            .push(self.now_ms + rest, Due::AcquirerReply { call });
    }

    pub(super) fn acquirer_reply(&mut self, call: u32) {
        let accepted = self.acquirer.calls[call as usize]
            .accepted
            .expect("received before replying");
        self.settle_capture(call, Some(accepted));
    }

    pub(super) fn acquirer_timeout(&mut self, call: u32) {
        self.settle_capture(call, None);
    }

    /// The first of the acquirer's reply (`Some(accepted)`) and the
    /// instance's timeout (`None`) settles the call; the other is cancelled.
    pub(super) fn settle_capture(&mut self, call: u32, result: Option<bool>) {
        let c = self.acquirer.calls[call as usize].clone();
        if c.settled {
            return;
        }
        self.acquirer.calls[call as usize].settled = true;
        let other = match result {
            Some(_) => Due::AcquirerTimeout { call },
            None => Due::AcquirerReply { call },
        };
        self.agenda.remove(&other);
        let Some(mut job) = self.job(c.instance, c.attempt).cloned() else {
            return; // the instance died while the acquirer worked
        };
        job.capture_result = result;
        handler::on_capture(&self.situation(job.attempt), &mut job);
        *self.job_mut(c.instance, c.attempt).expect("job exists") = job;
        let (attempt, actor) = (c.attempt, Actor::Instance(c.instance));
        let kind = match result {
            Some(accepted) => EventKind::AcquirerReplied {
                attempt,
                call,
                accepted,
            },
            None => EventKind::AcquirerTimedOut { attempt, call },
        };
        self.emit(actor, kind);
        self.schedule_step(c.instance, c.attempt);
    }
}

impl Words for Acquirer {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}
