//! The recovery sweep of the lease design's keys (`handler::recovers_keys`)
//! and of a queue consumer's claimed message ids, the outbox relay, and the
//! effects (captures and local rows) a world counts per intent.

use super::*;
use crate::store::Value;
use crate::trace::Reconciliation;

impl World {
    pub(super) fn recovery_sweep(&mut self) {
        let mut reconciled = Vec::new();
        if handler::recovers_messages(&self.scenario) {
            reconciled.extend(recover_messages(self).into_iter().map(|r| (true, r)));
        }
        if handler::recovers_keys(&self.scenario) {
            reconciled.extend(recover(self).into_iter().map(|r| (false, r)));
        }
        for (message, (key, order_id, lookup, outcome)) in reconciled {
            self.watch.resolutions.push(Resolution {
                key: key.as_str().into(),
                order_id,
                by_provider_key: lookup.by_provider_key,
                outcome,
                at_ms: self.now_ms,
                evidence: lookup.calls.clone(),
            });
            self.emit(
                Actor::Recovery,
                EventKind::Reconciled {
                    key,
                    order_id,
                    message,
                    by_provider_key: lookup.by_provider_key,
                    outcome,
                },
            );
        }
        if relays_outbox(&self.scenario) {
            for (intent, order_id) in relay_outbox(self) {
                self.acquirer.published.push(intent);
                self.emit(
                    Actor::Relay,
                    EventKind::EventPublished {
                        attempt: None,
                        order_id,
                    },
                );
            }
        }
        // A request still on the wire is work too: its client may have given
        // up on it, but when it lands it claims a key or writes an outbox
        // row that only a later sweep resolves or publishes.
        let on_the_wire = self
            .agenda
            .items
            .iter()
            .any(|e| matches!(e.due, Due::ArriveAtInstance { .. }));
        let work_left = self.clients.iter().any(|c| !c.done)
            || on_the_wire
            || self.instances.iter().any(|i| !i.jobs.is_empty())
            || keys_need_recovery(self)
            || !unpublished_outbox(self).is_empty();
        if work_left {
            self.agenda.push(
                self.now_ms + self.scenario.recovery_every_ms,
                Due::RecoverySweep,
            );
        }
    }

    /// Watches a DELETE of a key (`handler::deletes_key`), before it runs: a row
    /// still `processing` or `unknown` is a charge that may have happened
    /// and that no record would remember any more. Noted, not prevented,
    /// so that a property can judge the design rather than the world.
    pub(super) fn watch_forget(&mut self, row_id: Option<i64>) {
        let Some(def) = self.store.table_def("chave_idempotencia") else {
            return;
        };
        let (id, estado, chave) = (
            def.column_index("id").expect("column exists"),
            def.column_index("estado").expect("column exists"),
            def.column_index("chave").expect("column exists"),
        );
        let live = self
            .store
            .committed_rows("chave_idempotencia")
            .into_iter()
            .find(|r| r[id].as_int() == row_id)
            .filter(|r| matches!(r[estado].as_text(), Some("processing" | "unknown")));
        if let Some(r) = live {
            let key = r[chave].as_text().unwrap_or_default().into();
            self.forgotten_unresolved.push(key);
        }
    }

    pub(crate) fn recovery_session(&self) -> SessionId {
        self.recovery_session
    }

    /// `local-effect`, event after commit: the handler publishes, and goes
    /// on to answer. Nothing durable remembers that it still had to.
    pub(super) fn publish(&mut self, instance: InstanceId, attempt: AttemptId) {
        let intent = self.attempts[attempt.ix()].intent;
        let order_id = self.intents[intent as usize].1.order_id;
        self.acquirer.published.push(intent);
        self.emit(
            Actor::Instance(instance.0),
            EventKind::EventPublished {
                attempt: Some(attempt.0),
                order_id,
            },
        );
        let scenario = Arc::clone(&self.scenario);
        handler::on_published(&scenario, self.job_mut(instance, attempt).expect("job"));
        self.schedule_step(instance, attempt);
    }
}

/// Runs one of recovery's statements on its own connection, logged as an
/// instance's are: the exported script and the replay on PostgreSQL must
/// see the keys recovery resolves and the events it marks sent.
fn execute(w: &mut World, stmt: Stmt) -> Exec {
    let session = w.recovery_session();
    if w.log_store {
        w.store_log.push(StoreStatement {
            session: session.0,
            instance: None,
            time_ms: w.now_ms,
            stmt: stmt.clone(),
            waited: false,
            closed: false,
        });
    }
    let exec = w.store.execute(session, stmt);
    if w.log_store && matches!(exec, Exec::Waiting { .. }) {
        w.store_log.last_mut().expect("just pushed").waited = true;
    }
    exec
}

/// The outbox rows committed and not yet published: (id, order, amount).
fn unpublished_outbox(w: &World) -> Vec<(i64, i64, i64)> {
    let mut out = Vec::new();
    if !relays_outbox(&w.scenario) {
        return out;
    }
    for r in w.store.committed_rows("evento_outbox") {
        if let (Some(id), Some(order), Some(cents), Some(0)) =
            (r[0].as_int(), r[1].as_int(), r[2].as_int(), r[3].as_int())
        {
            out.push((id, order, cents));
        }
    }
    out
}

/// The outbox relay: publishes every committed, unpublished event and marks
/// it sent, one autocommit UPDATE each. Returns (intent, order) published.
/// Were it to die between the two, the event would go out again on its
/// next sweep: at least once, which is why consumers deduplicate.
fn relay_outbox(w: &mut World) -> Vec<(u32, i64)> {
    let session = w.recovery_session();
    if w.store.waiting_on(session).is_some() {
        return Vec::new();
    }
    let mut done = Vec::new();
    for (id, order_id, cents) in unpublished_outbox(w) {
        let stmt = Stmt::Update {
            table: "evento_outbox".into(),
            set: vec![("publicado".into(), Value::Int(1))],
            increment: vec![],
            filter: vec![
                ("id".into(), Value::Int(id)),
                ("publicado".into(), Value::Int(0)),
            ],
            returning: vec![],
        };
        if let Exec::Waiting { .. } = execute(w, stmt) {
            break;
        }
        let intent = w.effect_intent(true, id).unwrap_or_else(|| {
            w.intents
                .iter()
                .position(|(_, it)| it.order_id == order_id && it.amount_cents == cents)
                .unwrap_or(0) as u32
        });
        done.push((intent, order_id));
    }
    done
}

/// What the acquirer's API answers about one key: the calls it received
/// (and only those: a call still on its way is invisible to it) that carry
/// the key as the provider's key, when the service sends one, or else the
/// key's order as their reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lookup {
    pub by_provider_key: bool,
    pub captured: bool,
    pub declined: bool,
    /// The calls the API returned (indexes into the acquirer's calls).
    pub calls: Vec<u32>,
}

/// Asks the acquirer's API about `key` (of order `order_id`) at this
/// instant.
pub(crate) fn acquirer_lookup(w: &World, key: &str, order_id: i64) -> Lookup {
    let by_provider_key = w.scenario.acquirer.provider_keys;
    let mut lookup = Lookup {
        by_provider_key,
        captured: false,
        declined: false,
        calls: Vec::new(),
    };
    let merchant = super::acquirer::merchant_of(w, key, order_id);
    for (i, c) in w.acquirer.calls.iter().enumerate() {
        let matches = if by_provider_key {
            *c.key == *key && merchant == Some(w.intents[c.intent as usize].1.tenant.as_str())
        } else {
            w.intents[c.intent as usize].1.order_id == order_id
        };
        match (matches, c.accepted) {
            (true, Some(true)) => lookup.captured = true,
            (true, Some(false)) => lookup.declined = true,
            _ => continue,
        }
        lookup.calls.push(i as u32);
    }
    lookup
}

/// What recovery makes of a lookup. Without a provider key the answer is
/// about an order, and it is this key's only when no other key here
/// charges the same order: otherwise a capture found may be another
/// intent's, and "nothing found" may hide this key's call among them.
pub(crate) fn reconcile(lookup: &Lookup, order_shared: bool) -> Reconciliation {
    match lookup {
        _ if !lookup.by_provider_key && order_shared => Reconciliation::Escalated,
        Lookup { captured: true, .. } => Reconciliation::Captured,
        Lookup { declined: true, .. } => Reconciliation::Declined,
        _ => Reconciliation::NothingFound,
    }
}

/// The recovery step of `idempotency-key-lease`: for each key stuck in
/// processing past its lease, or unknown, ask the acquirer's API what
/// happened, complete the record on evidence of the effect, free the key
/// when the API has seen no call for it, and escalate it when the answer
/// cannot be pinned on the key. It learns only what a real service could:
/// its own table and the API's answer, never the simulation's call log.
pub(crate) fn recover(w: &mut World) -> Vec<(String, i64, Lookup, Reconciliation)> {
    let session = w.recovery_session();
    if w.store.waiting_on(session).is_some() {
        return Vec::new();
    }
    let def = w
        .store
        .table_def("chave_idempotencia")
        .cloned()
        .expect("table exists");
    let col = |n: &str| def.column_index(n).expect("column exists");
    let now = w.now_ms as i64;
    let rows = w.store.committed_rows("chave_idempotencia");
    let mut done = Vec::new();
    for row in &rows {
        let state = row[col("estado")].as_text().unwrap_or_default().to_string();
        let lease_over = row[col("lease_ate_ms")].as_int().is_some_and(|t| now >= t);
        if !(state == "unknown" || (state == "processing" && lease_over)) {
            continue;
        }
        let key = row[col("chave")].as_text().unwrap_or_default().to_string();
        let id = row[col("id")].as_int().unwrap_or(0);
        let order_id = row[col("pedido_id")].as_int().unwrap_or(0);
        let order_shared = rows.iter().any(|r| {
            r[col("id")].as_int() != Some(id) && r[col("pedido_id")].as_int() == Some(order_id)
        });
        let lookup = acquirer_lookup(w, &key, order_id);
        let outcome = reconcile(&lookup, order_shared);
        // A resolved key's lifetime starts now (see `handler::lease`).
        let expires = Value::Int(now + w.scenario.key_ttl_ms as i64);
        let set = match outcome {
            Reconciliation::Captured => vec![
                ("estado".into(), Value::text("completed")),
                ("expira_em_ms".into(), expires),
                ("resposta_http".into(), Value::Int(201)),
                (
                    "resposta_corpo".into(),
                    Value::text(handler::body("CAPTURADA", Some(id))),
                ),
                (
                    "resposta_headers".into(),
                    Value::text(handler::created_headers(id)),
                ),
            ],
            Reconciliation::Declined => vec![
                ("estado".into(), Value::text("completed")),
                ("expira_em_ms".into(), expires),
                ("resposta_http".into(), Value::Int(402)),
                (
                    "resposta_corpo".into(),
                    Value::text(handler::body("RECUSADA", Some(id))),
                ),
            ],
            Reconciliation::NothingFound => vec![("estado".into(), Value::text("failed_safe"))],
            Reconciliation::Escalated => vec![("estado".into(), Value::text("escalated"))],
        };
        let stmt = Stmt::Update {
            table: "chave_idempotencia".into(),
            set,
            increment: vec![],
            filter: vec![
                ("id".into(), Value::Int(id)),
                ("estado".into(), Value::text(state)),
            ],
            returning: vec![],
        };
        match execute(w, stmt) {
            Exec::Waiting { .. } => break,
            // Matched no row: the key moved on since it was read, and this
            // sweep resolved nothing.
            Exec::Done(Ok(r)) if r.affected == 0 => continue,
            Exec::Done(_) => done.push((key, order_id, lookup, outcome)),
        }
    }
    done
}

/// The recovery of a queue consumer's claims, as the lease design's keys
/// are recovered: an id processing past its lease is completed when the
/// acquirer's API shows its charge (captured or declined), escalated when
/// the answer cannot be pinned on it, and deleted when the API saw no call,
/// so that the next delivery claims it afresh.
pub(crate) fn recover_messages(w: &mut World) -> Vec<(String, i64, Lookup, Reconciliation)> {
    let session = w.recovery_session();
    if w.store.waiting_on(session).is_some() {
        return Vec::new();
    }
    let def = w
        .store
        .table_def("mensagem_processada")
        .cloned()
        .expect("table exists");
    let col = |n: &str| def.column_index(n).expect("column exists");
    let now = w.now_ms as i64;
    let rows = w.store.committed_rows("mensagem_processada");
    let mut done = Vec::new();
    for row in &rows {
        let processing = row[col("estado")].as_text() == Some("processing");
        let lease_over = row[col("lease_ate_ms")].as_int().is_some_and(|t| now >= t);
        if !(processing && lease_over) {
            continue;
        }
        let key = row[col("message_id")]
            .as_text()
            .unwrap_or_default()
            .to_string();
        let id = row[col("id")].as_int().unwrap_or(0);
        let order_id = row[col("pedido_id")].as_int().unwrap_or(0);
        let order_shared = rows.iter().any(|r| {
            r[col("id")].as_int() != Some(id) && r[col("pedido_id")].as_int() == Some(order_id)
        });
        let lookup = acquirer_lookup(w, &key, order_id);
        let outcome = reconcile(&lookup, order_shared);
        let mut filter = vec![
            ("id".into(), Value::Int(id)),
            ("estado".into(), Value::text("processing")),
        ];
        filter.push(("lease_ate_ms".into(), row[col("lease_ate_ms")].clone()));
        let table = "mensagem_processada".into();
        let stmt = match outcome {
            Reconciliation::NothingFound => Stmt::Delete { table, filter },
            Reconciliation::Escalated => Stmt::Update {
                table,
                set: vec![("estado".into(), Value::text("escalated"))],
                increment: vec![],
                filter,
                returning: vec![],
            },
            _ => Stmt::Update {
                table,
                set: vec![("estado".into(), Value::text("completed"))],
                increment: vec![],
                filter,
                returning: vec![],
            },
        };
        match execute(w, stmt) {
            Exec::Waiting { .. } => break,
            Exec::Done(Ok(r)) if r.affected == 0 => continue,
            Exec::Done(_) => done.push((key, order_id, lookup, outcome)),
        }
    }
    done
}

pub(crate) fn keys_need_recovery(w: &World) -> bool {
    if messages_need_recovery(w) {
        return true;
    }
    let Some(def) = w.store.table_def("chave_idempotencia") else {
        return false;
    };
    let estado = def.column_index("estado").expect("column exists");
    w.store
        .committed_rows("chave_idempotencia")
        .iter()
        .any(|r| matches!(r[estado].as_text(), Some("processing" | "unknown")))
}

/// Committed local effects (`local-effect`'s business rows) per intent,
/// each counted for the intent whose handler inserted it: two intents of one order and amount write rows
/// alike, and matching rows by their values counted each for both.
pub(crate) fn local_effects(w: &World) -> Vec<u32> {
    let mut out = vec![0; w.intents.len()];
    for r in w.store.committed_rows("pedido_pago") {
        if let Some(intent) = r[0].as_int().and_then(|id| w.effect_intent(false, id)) {
            out[intent as usize] += 1;
        }
    }
    out
}

pub(crate) fn local_effect_cents(w: &World) -> i64 {
    w.store
        .committed_rows("pedido_pago")
        .iter()
        .filter_map(|r| r[2].as_int())
        .sum()
}

/// Effects per intent: acquirer captures plus committed local effects.
pub(crate) fn effects_per_intent(w: &World) -> Vec<u32> {
    effects_with(w, &local_effects(w))
}

/// [`effects_per_intent`] with the local effects already counted.
pub(crate) fn effects_with(w: &World, local: &[u32]) -> Vec<u32> {
    w.acquirer
        .captures
        .iter()
        .zip(local)
        .map(|(a, b)| a + b)
        .collect()
}

fn messages_need_recovery(w: &World) -> bool {
    if !handler::recovers_messages(&w.scenario) {
        return false;
    }
    let Some(estado) = w
        .store
        .table_def("mensagem_processada")
        .and_then(|d| d.column_index("estado"))
    else {
        return false;
    };
    w.store
        .committed_rows("mensagem_processada")
        .iter()
        .any(|r| r[estado].as_text() == Some("processing"))
}
