//! Clients: sending attempts, timing out, retrying, hearing answers.

use super::*;

impl World {
    /// Who a client's events are told of: the app, or the queue.
    pub(super) fn client_actor(&self, client: ClientId) -> Actor {
        match self.scenario.clients[client.ix()].kind {
            ClientKind::Http => Actor::Client(client.0),
            ClientKind::Queue => Actor::Queue(client.0),
        }
    }

    pub(super) fn intent_index(&self, client: ClientId, local: u32) -> u32 {
        self.client_intents[client.ix()][local as usize]
    }

    pub(super) fn client_send(&mut self, client: ClientId, chooser: &mut dyn Chooser) {
        let spec = self.scenario.clients[client.ix()].clone();
        let c = &self.clients[client.ix()];
        let local = c.intent;
        let n = c.attempts_for_intent;
        let intent_ix = self.intent_index(client, local);
        let base = &spec.intents[local as usize].key;
        let key = if spec.new_key_per_retry && n > 0 {
            format!("{base}-r{n}")
        } else {
            base.clone()
        };
        let attempt = self.attempts.len() as u32;
        let it = &self.intents[intent_ix as usize].1;
        let body = handler::request_body(it, &spec, n > 0, self.now_ms);
        // The client's own body always has the intent's fields. Not
        // `expect`: that would link `Debug` for `String` (escapes and
        // Unicode tables, 4 kB of gzip) into the page.
        let fingerprint =
            handler::payload_fingerprint(self.scenario.fingerprint, &body).unwrap_or_default();
        // Told only where the body is the point (a client that stamps or
        // reformats it), so the other runs read as before.
        let tell_body = spec.client_timestamp || spec.reformat_retries;
        self.attempts.push(Part::new(Attempt {
            client: client.0,
            intent: intent_ix,
            key: key.as_str().into(),
            sent_ms: self.now_ms,
            instance: None,
            answer: None,
            timed_out: false,
            reached_acquirer: false,
            in_flight: None,
            headers: None,
            body: body.as_str().into(),
            fingerprint: fingerprint.into(),
        }));
        let c = &mut self.clients[client.ix()];
        c.attempts_for_intent += 1;
        c.current = Some(attempt);
        c.knowledge = Knowledge::Waiting { attempt };
        self.emit(
            self.client_actor(client),
            EventKind::AttemptSent {
                client: client.0,
                attempt,
                intent: intent_ix,
                key,
                retry: n > 0,
                // A quiet world (the explorer's) keeps no events: no need to ask.
                unkeyed: !self.quiet
                    && spec.kind == ClientKind::Http
                    && !handler::reads_key(&self.scenario),
            },
        );
        if tell_body {
            self.emit(
                self.client_actor(client),
                EventKind::BodySent { attempt, body },
            );
        }
        self.agenda.push(
            self.now_ms + spec.timeout_ms,
            Due::ClientTimeout {
                client,
                attempt: AttemptId(attempt),
            },
        );
        if self.dropped(AttemptId(attempt), true) {
            self.emit(Actor::Network, EventKind::RequestDropped { attempt });
            return;
        }
        let hop = self.hop_ms(chooser);
        if hop == 0 {
            self.route(AttemptId(attempt), chooser);
        } else {
            self.agenda.push(
                self.now_ms + hop,
                Due::ArriveAtInstance {
                    attempt: AttemptId(attempt),
                },
            );
        }
    }

    pub(super) fn dropped(&self, attempt: AttemptId, request: bool) -> bool {
        self.scenario.faults.iter().any(|f| match f {
            Fault::DropRequest { attempt: a } => request && *a == attempt.0 + 1,
            Fault::DropResponse { attempt: a } => !request && *a == attempt.0 + 1,
            _ => false,
        })
    }

    pub(super) fn client_timeout(
        &mut self,
        client: ClientId,
        attempt: AttemptId,
        chooser: &mut dyn Chooser,
    ) {
        self.attempts[attempt.ix()].timed_out = true;
        self.clients[client.ix()].knowledge = Knowledge::Unknown { attempt: attempt.0 };
        self.emit(
            self.client_actor(client),
            EventKind::TimedOut {
                client: client.0,
                attempt: attempt.0,
            },
        );
        self.retry_or_give_up(client, chooser);
    }

    pub(super) fn retry_or_give_up(&mut self, client: ClientId, chooser: &mut dyn Chooser) {
        self.retry_or_give_up_from(client, self.now_ms, chooser);
    }

    /// Retries after the policy's wait from `from_ms`, or gives up: when the
    /// retries are spent, or when the retry would leave past the client's
    /// deadline.
    fn retry_or_give_up_from(&mut self, client: ClientId, from_ms: u64, chooser: &mut dyn Chooser) {
        let spec = &self.scenario.clients[client.ix()];
        let c = &self.clients[client.ix()];
        let retry = c.attempts_for_intent;
        let mut past_deadline = false;
        if retry <= spec.retries_max {
            let base_ms = spec.backoff_before(retry);
            let jitter_ms = match spec.backoff_jitter_ms {
                0 => 0,
                j => u64::from(chooser.choose(ChoiceKind::Backoff, j + 1)),
            };
            let wait_ms = base_ms.saturating_add(jitter_ms);
            let at = from_ms.max(self.now_ms).saturating_add(wait_ms);
            let first_ms = self.first_sent_ms(client);
            past_deadline = spec.deadline_ms > 0 && at.saturating_sub(first_ms) > spec.deadline_ms;
            if !past_deadline {
                let tell = spec.tells_backoff();
                if !matches!(c.knowledge, Knowledge::Unknown { .. }) {
                    self.clients[client.ix()].knowledge = Knowledge::Backoff;
                }
                if tell {
                    self.emit(
                        self.client_actor(client),
                        EventKind::RetryScheduled {
                            client: client.0,
                            retry,
                            base_ms,
                            jitter_ms,
                            wait_ms: at - self.now_ms,
                        },
                    );
                }
                self.agenda.push(at, Due::ClientSend { client });
                return;
            }
        }
        let c = &self.clients[client.ix()];
        let intent = self.intent_index(client, c.intent);
        if !matches!(c.knowledge, Knowledge::Answered { .. }) {
            self.clients[client.ix()].knowledge = Knowledge::GaveUp;
        }
        self.emit(
            self.client_actor(client),
            EventKind::GaveUp {
                client: client.0,
                intent,
                deadline: past_deadline,
            },
        );
        self.next_intent(client);
    }

    /// When the client's current intent's first attempt left: the last
    /// `attempts_for_intent` attempts of the client are that intent's.
    fn first_sent_ms(&self, client: ClientId) -> u64 {
        let sent = self.clients[client.ix()].attempts_for_intent as usize;
        self.attempts
            .iter()
            .rev()
            .filter(|a| a.client == client.0)
            .nth(sent.saturating_sub(1))
            .map_or(self.now_ms, |a| a.sent_ms)
    }

    pub(super) fn next_intent(&mut self, client: ClientId) {
        let spec = &self.scenario.clients[client.ix()];
        let c = &mut self.clients[client.ix()];
        c.current = None;
        if (c.intent as usize) + 1 < spec.intents.len() {
            c.intent += 1;
            c.attempts_for_intent = 0;
            let at = self.now_ms + spec.gap_between_intents_ms;
            self.agenda.push(at, Due::ClientSend { client });
        } else {
            c.done = true;
        }
    }

    pub(super) fn response_arrive(&mut self, attempt: AttemptId, chooser: &mut dyn Chooser) {
        let a = &self.attempts[attempt.ix()];
        let client = a.client;
        let (status, body) = a.pending_answer().expect("a response carries an answer");
        if a.timed_out || self.clients[client as usize].current != Some(attempt.0) {
            self.emit(
                self.client_actor(ClientId(client)),
                EventKind::LateResponseIgnored {
                    client,
                    attempt: attempt.0,
                    status,
                },
            );
            return;
        }
        self.agenda.remove(&Due::ClientTimeout {
            client: ClientId(client),
            attempt,
        });
        self.attempts[attempt.ix()].answer = Some((status, body.clone()));
        self.clients[client as usize].knowledge = Knowledge::Answered {
            attempt: attempt.0,
            status,
        };
        let headers = self.attempts[attempt.ix()].headers.clone();
        let actor = self.client_actor(ClientId(client));
        self.emit_with(actor, || EventKind::ResponseReceived {
            client,
            attempt: attempt.0,
            status,
            headers: headers.as_deref().map(String::from),
            body: body.to_string(),
        });
        // A queue's nack deletes nothing: the message is visible again
        // when the delivery's visibility timeout ends, as it would be
        // without an answer.
        let queue = self.scenario.clients[client as usize].kind == ClientKind::Queue;
        if queue && status >= 500 {
            let visible_ms = self.attempts[attempt.ix()].sent_ms
                + self.scenario.clients[client as usize].timeout_ms;
            self.retry_or_give_up_from(ClientId(client), visible_ms, chooser);
        // 409: someone is still working on it; 5xx: try again. Both retry.
        } else if status == 409 || status >= 500 {
            self.retry_or_give_up(ClientId(client), chooser);
        } else {
            self.next_intent(ClientId(client));
        }
    }
}

impl Attempt {
    pub(super) fn answer_in_flight(&mut self, status: u16, headers: Option<Text>, body: Text) {
        self.answer = None;
        self.in_flight = Some((status, body));
        self.headers = headers;
    }
    pub(super) fn pending_answer(&self) -> Option<(u16, Text)> {
        self.in_flight.clone()
    }
}

#[inline(always)]
fn knowledge(k: &Knowledge) -> Pack {
    let (tag, attempt, status) = match *k {
        Knowledge::Idle => (0, 0, 0),
        Knowledge::Waiting { attempt } => (1, attempt, 0),
        Knowledge::Unknown { attempt } => (2, attempt, 0),
        Knowledge::Backoff => (3, 0, 0),
        Knowledge::Answered { attempt, status } => (4, attempt, status),
        Knowledge::GaveUp => (5, 0, 0),
    };
    Pack::new()
        .put(tag, 3)
        .put(u64::from(attempt), 32)
        .put(u64::from(status), 16)
}

/// The client count, then two words per client.
impl Words for Vec<ClientState> {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        h.word(self.len() as u64);
        for c in self {
            let ClientState {
                intent,
                attempts_for_intent,
                knowledge: k,
                current,
                done,
            } = c;
            h.word(
                Pack::new()
                    .put(u64::from(*intent), 16)
                    .put(u64::from(*attempts_for_intent), 16)
                    .opt(*current, 24)
                    .flag(*done)
                    .word(),
            );
            h.word(knowledge(k).word());
        }
    }
}

/// Two words of numbers, flags and lengths, a third for the bodies'
/// lengths when there is a body, then the key and the bodies.
impl Words for Attempt {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        let Attempt {
            client,
            intent,
            key,
            sent_ms,
            instance,
            answer,
            timed_out,
            reached_acquirer,
            in_flight,
            headers,
            body,
            fingerprint: body_fingerprint,
        } = self;
        let status = |r: &Option<(u16, _)>| r.as_ref().map_or(0, |(s, _)| u64::from(*s));
        h.word(
            Pack::new()
                .put(u64::from(*client), 8)
                .put(u64::from(*intent), 8)
                .opt(*instance, 8)
                .flag(*timed_out)
                .flag(*reached_acquirer)
                .flag(answer.is_some())
                .flag(in_flight.is_some())
                .flag(headers.is_some())
                .put(status(answer), 16)
                .put(status(in_flight), 16)
                .word(),
        );
        h.word(Pack::new().put(*sent_ms, 48).len(key.len(), 16).word());
        h.word(
            Pack::new()
                .len(body.len(), 32)
                .len(body_fingerprint.len(), 32)
                .word(),
        );
        fingerprint::text(h, body);
        fingerprint::text(h, body_fingerprint);
        if answer.is_some() || in_flight.is_some() {
            let len = |r: &Option<(u16, crate::text::Text)>| r.as_ref().map_or(0, |(_, b)| b.len());
            h.word(
                Pack::new()
                    .len(len(answer), 32)
                    .len(len(in_flight), 32)
                    .word(),
            );
        }
        fingerprint::text(h, key);
        for (_, body) in answer.iter().chain(in_flight) {
            fingerprint::text(h, body);
        }
        if let Some(headers) = headers {
            h.word(headers.len() as u64);
            fingerprint::text(h, headers);
        }
    }
}
