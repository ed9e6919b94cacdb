//! What a world notes for the properties of issue #29 as it runs: writes
//! that should not have landed, acks that did not follow one charge, and
//! every resolution recovery made with what it was based on. Noted, not
//! prevented, so that a property judges the design rather than the world
//! (as `forgotten_unresolved` is for the lease design's deletes). State:
//! two worlds that differ here are judged differently.

use super::*;
use crate::store::Value;
use crate::trace::Reconciliation;

/// A way a run broke one of the watched rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Breach {
    /// A write changed the state or stored answer of a completed key.
    CompletedAnswerChanged,
    /// A consumer acked a delivery whose message did not have exactly one
    /// charge decision (one capture, or no capture and a decline).
    AckWithoutOneCapture,
    /// A worker's write landed after its lease was taken.
    WriteAfterLeaseTaken,
}

/// One resolution by recovery: which key, what it asked the acquirer's
/// API, what it concluded, and when.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Resolution {
    pub key: Text,
    pub order_id: i64,
    pub by_provider_key: bool,
    pub outcome: Reconciliation,
    pub at_ms: u64,
    /// The calls the API's answer listed (indexes into the acquirer's
    /// calls): what the resolution may rest on.
    pub evidence: Vec<u32>,
}

/// A row a handler inserted that is an effect of its intent: a local
/// effect (`pedido_pago`) or an event for the outbox (`evento_outbox`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EffectRow {
    pub outbox: bool,
    /// The row's `id`.
    pub id: i64,
    /// The intent of the attempt whose statement inserted it.
    pub intent: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Watch {
    pub breaches: Vec<(Breach, Text)>,
    pub resolutions: Vec<Resolution>,
    /// Who inserted each effect row: two intents of one order and amount
    /// write rows alike, which only this tells apart.
    pub effects: Vec<EffectRow>,
}

impl Words for Watch {
    #[inline(always)]
    fn words(&self, h: &mut FingerprintHasher) {
        self.hash(h);
    }
}

/// The row of `table` whose id is `id`, committed, if any.
fn committed_row(w: &World, table: &str, id: i64) -> Option<Vec<Value>> {
    let def = w.store.table_def(table)?;
    let ix = def.column_index("id")?;
    w.store
        .committed_rows(table)
        .into_iter()
        .find(|r| r[ix].as_int() == Some(id))
}

/// The (state, answer) of a key row: what must not change once completed.
fn answer_of(w: &World, table: &str, row: &[Value]) -> (Option<String>, Vec<Value>) {
    let def = w.store.table_def(table).expect("table exists");
    let get = |n: &str| def.column_index(n).map(|i| row[i].clone());
    let state = get("estado")
        .or_else(|| get("status"))
        .and_then(|v| v.as_text().map(String::from));
    let answer = ["resposta_http", "resposta_corpo", "resposta_headers"]
        .iter()
        .filter_map(|n| get(n))
        .collect();
    (state, answer)
}

fn completed(state: Option<&str>) -> bool {
    matches!(state, Some("completed" | "CAPTURADA" | "RECUSADA"))
}

/// What a watched write found before it ran.
pub(crate) struct Before {
    table: &'static str,
    id: i64,
    row: Option<Vec<Value>>,
    lease_taken: bool,
}

impl World {
    /// Reads the row a watched step is about to write, outside a
    /// transaction (inside one, the row is the job's own, uncommitted, and
    /// nobody else can have touched it). `lease` is the lease the job
    /// holds, if any: its write is judged against it whether the write is
    /// fenced or not, since the fence is what a design may forget.
    pub(crate) fn watch_before(
        &self,
        session: SessionId,
        inputs: &handler::StmtInputs,
        lease: Option<i64>,
    ) -> Option<Before> {
        let table = handler::watched_table(&self.scenario, inputs.pc)?;
        if self.store.in_transaction(session) {
            return None;
        }
        let id = inputs.row_id?;
        let row = committed_row(self, table, id);
        let def = self.store.table_def(table).expect("table exists");
        let cols = def
            .column_index("estado")
            .zip(def.column_index("lease_ate_ms"));
        let lease_taken = match cols {
            Some((estado, until)) if lease.is_some() => row.as_ref().is_none_or(|r| {
                r[estado].as_text() != Some("processing") || r[until].as_int() != lease
            }),
            _ => false,
        };
        Some(Before {
            table,
            id,
            row,
            lease_taken,
        })
    }

    /// Notes who inserted the effect row a statement just inserted: the
    /// newest row version of its table. Neither table has a UNIQUE
    /// constraint, so such an insert never waits and is noted here, when it
    /// runs.
    pub(crate) fn note_effect(&mut self, outbox: bool, intent: u32) {
        let table = if outbox {
            "evento_outbox"
        } else {
            "pedido_pago"
        };
        let Some(ix) = self
            .store
            .table_def(table)
            .and_then(|d| d.column_index("id"))
        else {
            return;
        };
        if let Some(id) = self
            .store
            .newest_version(table)
            .and_then(|row| row[ix].as_int())
        {
            self.watch.effects.push(EffectRow { outbox, id, intent });
        }
    }

    /// The intent that inserted the effect row `id` of one table, if a
    /// handler did.
    pub(crate) fn effect_intent(&self, outbox: bool, id: i64) -> Option<u32> {
        self.watch
            .effects
            .iter()
            .find(|e| e.outbox == outbox && e.id == id)
            .map(|e| e.intent)
    }

    /// Notes what a watched write did that it should not have.
    pub(crate) fn watch_after(&mut self, before: Before, key: &Text) {
        let after = committed_row(self, before.table, before.id);
        let changed = after != before.row;
        if changed && before.lease_taken {
            self.watch
                .breaches
                .push((Breach::WriteAfterLeaseTaken, key.clone()));
        }
        if let (Some(was), Some(now)) = (&before.row, &after) {
            let was = answer_of(self, before.table, was);
            if completed(was.0.as_deref()) && answer_of(self, before.table, now) != was {
                self.watch
                    .breaches
                    .push((Breach::CompletedAnswerChanged, key.clone()));
            }
        }
    }

    /// A consumer's ack: its message must have had exactly one charge
    /// decision by now.
    pub(super) fn watch_ack(&mut self, attempt: AttemptId) {
        let a = &self.attempts[attempt.ix()];
        let intent = a.intent;
        let captures = self.acquirer.captures[intent as usize];
        let declined = self
            .acquirer
            .calls
            .iter()
            .any(|c| c.intent == intent && c.accepted == Some(false));
        if !(captures == 1 || (captures == 0 && declined)) {
            let key = a.key.clone();
            self.watch
                .breaches
                .push((Breach::AckWithoutOneCapture, key));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The watch is state: a world that noted something differs from one
    /// that did not, and so does its fingerprint.
    #[test]
    fn a_noted_breach_changes_the_world_and_its_fingerprint() {
        let s = crate::builtins::builtin("late-retry-after-ttl").expect("built-in");
        let mut plain = World::new(&s);
        let mut noted = plain.clone();
        noted
            .watch
            .breaches
            .push((Breach::AckWithoutOneCapture, "k".into()));
        let mut other = plain.clone();
        other
            .watch
            .breaches
            .push((Breach::WriteAfterLeaseTaken, "k".into()));
        assert_ne!(plain, noted);
        assert_ne!(noted, other);
        assert_ne!(plain.fingerprint(), noted.fingerprint());
        assert_ne!(noted.fingerprint(), other.fingerprint());
        let mut copy = World::new(&s);
        noted.clone_into_reusing(&mut copy);
        assert_eq!(copy, noted);
    }
}
