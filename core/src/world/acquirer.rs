//! The acquirer: capture calls, their replies and timeouts.

use super::*;

impl World {
    pub(super) fn capture(&mut self, instance: InstanceId, attempt: AttemptId) {
        let a = &self.attempts[attempt.ix()];
        let call = self.acquirer.calls.len() as u32;
        let intent = a.intent;
        let key = a.key.clone();
        self.attempts[attempt.ix()].reached_acquirer = true;
        self.acquirer.calls.push(Call {
            instance: instance.0,
            attempt: attempt.0,
            intent,
            key,
            sent_ms: self.now_ms,
            received_ms: None,
            accepted: None,
            reply_lost: false,
            settled: false,
        });
        let job = self.job_mut(instance, attempt).expect("job");
        job.call = Some(call);
        job.pc = job.pc.awaiting();
        self.emit(
            Actor::Instance(instance.0),
            EventKind::CaptureRequested {
                attempt: attempt.0,
                call,
                intent,
            },
        );
        let half = self.scenario.acquirer.latency_ms / 2;
        self.agenda.push(
            self.now_ms + half,
            Due::AcquirerReceive { call: CallId(call) },
        );
        self.agenda.push(
            self.now_ms + self.scenario.acquirer.timeout_ms,
            Due::AcquirerTimeout { call: CallId(call) },
        );
        self.crash_point_hit(instance, CrashPoint::AfterCaptureSent);
    }

    pub(super) fn acquirer_receive(&mut self, call: CallId) {
        let c = self.acquirer.calls[call.ix()].clone();
        let declined = self
            .scenario
            .faults
            .iter()
            .any(|f| matches!(f, Fault::AcquirerDeclines { call: n } if *n == call.0 + 1));
        let accept = !self.scenario.acquirer.decline && !declined;
        // A provider remembers keys per merchant account: one shop's key is
        // not another's, whatever their text.
        let provider_key: Text = provider_key(&self.intents[c.intent as usize].1.tenant, &c.key);
        let repeat = self.scenario.acquirer.provider_keys
            && self
                .acquirer
                .seen_keys
                .iter()
                .any(|(k, _)| *k == provider_key);
        if repeat {
            self.emit(
                Actor::Acquirer,
                EventKind::ProviderReplayed {
                    call: call.0,
                    intent: c.intent,
                },
            );
        } else if accept {
            self.acquirer.captures[c.intent as usize] += 1;
            let n = self.acquirer.captures[c.intent as usize];
            self.emit(
                Actor::Acquirer,
                EventKind::Captured {
                    call: call.0,
                    intent: c.intent,
                    captures_for_intent: n,
                },
            );
        } else {
            self.emit(
                Actor::Acquirer,
                EventKind::Declined {
                    call: call.0,
                    intent: c.intent,
                },
            );
        }
        let accepted = if repeat {
            self.acquirer
                .seen_keys
                .iter()
                .find(|(k, _)| *k == provider_key)
                .map(|(_, a)| *a)
                .unwrap_or(accept)
        } else {
            accept
        };
        if !repeat {
            self.acquirer.seen_keys.push((provider_key, accept));
        }
        let lost = self.scenario.faults.iter().any(
            |f| matches!(f, Fault::AcquirerTimeoutAfterAccept { call: n } if *n == call.0 + 1),
        );
        let now = self.now_ms;
        let entry = &mut self.acquirer.calls[call.ix()];
        entry.accepted = Some(accepted);
        entry.received_ms = Some(now);
        entry.reply_lost = lost;
        if lost {
            self.emit(
                Actor::Acquirer,
                EventKind::AcquirerReplyLost { call: call.0 },
            );
            return;
        }
        let rest = self.scenario.acquirer.latency_ms - self.scenario.acquirer.latency_ms / 2;
        self.agenda
            .push(self.now_ms + rest, Due::AcquirerReply { call });
    }

    pub(super) fn acquirer_reply(&mut self, call: CallId) {
        let accepted = self.acquirer.calls[call.ix()]
            .accepted
            .expect("received before replying");
        self.settle_capture(call, Some(accepted));
    }

    pub(super) fn acquirer_timeout(&mut self, call: CallId) {
        self.settle_capture(call, None);
    }

    /// The first of the acquirer's reply (`Some(accepted)`) and the
    /// instance's timeout (`None`) settles the call; the other is cancelled.
    pub(super) fn settle_capture(&mut self, call: CallId, result: Option<bool>) {
        let c = self.acquirer.calls[call.ix()].clone();
        if c.settled {
            return;
        }
        self.acquirer.calls[call.ix()].settled = true;
        let other = match result {
            Some(_) => Due::AcquirerTimeout { call },
            None => Due::AcquirerReply { call },
        };
        self.agenda.remove(&other);
        let Some(mut job) = self
            .job(InstanceId(c.instance), AttemptId(c.attempt))
            .cloned()
        else {
            return; // the instance died while the acquirer worked
        };
        job.capture_result = result;
        handler::on_capture(&self.situation(AttemptId(job.attempt)), &mut job);
        *self
            .job_mut(InstanceId(c.instance), AttemptId(c.attempt))
            .expect("job exists") = job;
        let (attempt, actor) = (c.attempt, Actor::Instance(c.instance));
        let kind = match result {
            Some(accepted) => EventKind::AcquirerReplied {
                attempt,
                call: call.0,
                accepted,
            },
            None => EventKind::AcquirerTimedOut {
                attempt,
                call: call.0,
            },
        };
        self.emit(actor, kind);
        self.schedule_step(InstanceId(c.instance), AttemptId(c.attempt));
    }
}

impl Words for Acquirer {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}

/// The key as the acquirer files it: under the merchant account of the
/// tenant that sent it (as a provider scopes idempotency keys per account).
pub(crate) fn provider_key(tenant: &str, key: &str) -> Text {
    format!("{tenant}/{key}").into()
}

/// The tenant whose intent carries `key` for order `order_id`: the merchant
/// account a lookup about that key asks as.
pub(crate) fn merchant_of<'a>(w: &'a World, key: &str, order_id: i64) -> Option<&'a str> {
    w.intents
        .iter()
        .find(|(_, it)| it.key == key && it.order_id == order_id)
        .map(|(_, it)| it.tenant.as_str())
}
