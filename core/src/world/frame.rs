//! What the views read of a world at one step: the frame.

use super::*;

impl World {
    /// The data the lousa draws for this instant.
    pub fn frame(&self) -> Frame {
        let clients = self
            .clients
            .iter()
            .enumerate()
            .map(|(i, c)| ClientView {
                name: self.scenario.clients[i].name.clone(),
                queue: self.scenario.clients[i].kind == ClientKind::Queue,
                knowledge: c.knowledge.clone(),
                intent: self.intent_index(ClientId(i as u32), c.intent),
                attempts_sent: self
                    .attempts
                    .iter()
                    .filter(|a| a.client == i as u32)
                    .count() as u32,
            })
            .collect();
        let instances = self
            .instances
            .iter()
            .map(|inst| InstanceView {
                alive: inst.alive,
                connections_free: inst.connections.iter().filter(|c| c.job.is_none()).count()
                    as u32,
                connection_queue: inst.connection_queue.to_vec(),
                jobs: inst
                    .jobs
                    .iter()
                    .map(|j| {
                        let conn = inst.connections.iter().find(|c| c.job == Some(j.attempt));
                        JobView {
                            attempt: j.attempt,
                            step: handler::step_name(&self.scenario, j.pc).into(),
                            holds_connection: conn.is_some(),
                            in_transaction: conn
                                .is_some_and(|c| self.store.in_transaction(c.session)),
                            waiting_on_instance: conn
                                .and_then(|c| self.store.waiting_on(c.session))
                                .and_then(|s| self.instance_of_session(s))
                                .map(|i| i.0),
                            waiting_since_ms: j.waiting_since_ms,
                        }
                    })
                    .collect(),
            })
            .collect();
        let tables = handler::tables_shown(&self.scenario)
            .iter()
            .map(|name| {
                let def = self
                    .store
                    .table_defs()
                    .find(|d| d.name == *name)
                    .expect("strategy tables exist");
                TableView {
                    name: name.to_string(),
                    columns: def.columns.iter().map(|c| c.name.clone()).collect(),
                    rows: self.store.rows(name),
                }
            })
            .collect();
        let mut in_flight = Vec::new();
        for Event { at: t, due: d, .. } in &self.agenda.items {
            let msg = match d {
                Due::ArriveAtInstance { attempt } => Some((
                    MessageKind::Request,
                    attempt.0,
                    Actor::Client(self.attempts[attempt.ix()].client),
                    Actor::LoadBalancer,
                )),
                Due::ResponseArrive { attempt } => {
                    let a = &self.attempts[attempt.ix()];
                    Some((
                        MessageKind::Response,
                        attempt.0,
                        a.instance.map_or(Actor::LoadBalancer, Actor::Instance),
                        Actor::Client(a.client),
                    ))
                }
                Due::AcquirerReceive { call } => {
                    let c = &self.acquirer.calls[call.ix()];
                    Some((
                        MessageKind::Capture,
                        c.attempt,
                        Actor::Instance(c.instance),
                        Actor::Acquirer,
                    ))
                }
                Due::AcquirerReply { call } => {
                    let c = &self.acquirer.calls[call.ix()];
                    Some((
                        MessageKind::CaptureReply,
                        c.attempt,
                        Actor::Acquirer,
                        Actor::Instance(c.instance),
                    ))
                }
                _ => None,
            };
            if let Some((kind, attempt, from, to)) = msg {
                let sent_ms = match kind {
                    MessageKind::Request => self.attempts[attempt as usize].sent_ms,
                    _ => self.now_ms.min(*t),
                };
                in_flight.push(MessageView {
                    kind,
                    attempt,
                    from,
                    to,
                    sent_ms,
                    arrives_ms: *t,
                });
            }
        }
        let charged_cents = self
            .acquirer
            .captures
            .iter()
            .zip(self.intents.iter())
            .map(|(n, (_, it))| i64::from(*n) * it.amount_cents)
            .sum::<i64>()
            + recovery::local_effect_cents(self);
        let local = recovery::local_effects(self);
        Frame {
            time_ms: self.now_ms,
            clients,
            instances,
            tables,
            captures: recovery::effects_with(self, &local),
            charged_cents,
            local_effects: if local.iter().all(|&n| n == 0) {
                Vec::new()
            } else {
                local
            },
            in_flight,
        }
    }
}
