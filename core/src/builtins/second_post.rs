//! The built-ins of the second post's details: check-then-act with and
//! without a held transaction, the key's scope, the canonical fingerprint,
//! and two things a key does not cover (a decision on a value read, and an
//! event that must follow its effect). Each comes as a pair that differs
//! in one option.

use super::{app, base, builtin as story, text};
use crate::scenario::*;

/// Name, then title and description in pt-BR and English. One table, so
/// the page's wasm builds the texts in one place.
const TEXTS: [(&str, [&str; 4]); 11] = [
    (
        "timeout-retry-autocommit",
        [
            "O timeout, sem transação aberta",
            "The timeout, without an open transaction",
            "Cada comando confirma sozinho: o reenvio já vê a linha e recebe 409.",
            "Each statement commits on its own: the retry sees the row and gets 409.",
        ],
    ),
    (
        "double-click-autocommit",
        [
            "O clique duplo, sem transação aberta",
            "The double click, without an open transaction",
            "Sem transação, as duas consultas ainda vêm antes das duas gravações.",
            "Without a transaction, both checks still come before both writes.",
        ],
    ),
    (
        "scoped-key",
        [
            "A mesma chave em duas lojas",
            "One key value, two shops",
            "Duas lojas, a mesma chave checkout-0001; o escopo (loja, operação) as separa.",
            "Two shops, one key checkout-0001; the (shop, operation) scope keeps them apart.",
        ],
    ),
    (
        "unscoped-key",
        [
            "A chave sem escopo",
            "The key without a scope",
            "Chave única no sistema todo: a segunda loja recebe 422.",
            "The key is unique system-wide: the second shop gets a 422.",
        ],
    ),
    (
        "reformatted-retry",
        [
            "O reenvio reescrito",
            "The rewritten retry",
            "Campos em outra ordem, espaços, outro client_ts: a impressão canônica não muda.",
            "Fields reordered, spaces, another client_ts: the canonical fingerprint holds.",
        ],
    ),
    (
        "timestamp-in-fingerprint",
        [
            "O relógio do cliente na impressão",
            "The client's clock in the fingerprint",
            "Com o client_ts na impressão, o reenvio legítimo recebe 422.",
            "With client_ts in the fingerprint, the legitimate retry gets 422.",
        ],
    ),
    (
        "balance-lost-update",
        [
            "O débito que se perde",
            "The lost debit",
            "Dois débitos na mesma conta leem o mesmo saldo.",
            "Two debits of one account read the same balance.",
        ],
    ),
    (
        "balance-for-update",
        [
            "O débito com FOR UPDATE",
            "The debit with FOR UPDATE",
            "Com FOR UPDATE, o segundo débito espera e lê o saldo novo.",
            "With FOR UPDATE, the second debit waits and reads the new balance.",
        ],
    ),
    (
        "balance-version-column",
        [
            "O débito com coluna de versão",
            "The debit with a version column",
            "Cada débito grava só se a versão ainda é a que leu; quem perde relê e tenta de novo.",
            "Each debit writes only if the version is still the one it read; the loser reads again and retries.",
        ],
    ),
    (
        "event-after-commit",
        [
            "O evento depois do commit",
            "The event after the commit",
            "A instância cai entre o COMMIT e a publicação: o evento se perde.",
            "The instance dies between COMMIT and publishing: the event is lost.",
        ],
    ),
    (
        "event-outbox",
        [
            "O evento na outbox",
            "The event in the outbox",
            "A mesma queda, mas o evento está na outbox: o relay o publica.",
            "The same crash, but the event is in the outbox: the relay publishes it.",
        ],
    ),
];

/// A built-in of this group by name, with its default strategy.
pub(super) fn builtin(name: &str) -> Option<Scenario> {
    let [title_pt, title_en, description_pt, description_en] =
        TEXTS.iter().find(|(n, _)| *n == name)?.1;
    let fresh = |strategy| base(name, strategy, Text::default(), Text::default());
    // A client with one intent of its own.
    let client = |who: &str, order_id, amount_cents, key: &str, tenant: &str, start_ms| {
        let mut c = app(who, 5_000, 1, 500);
        c.intents = vec![Intent {
            order_id,
            amount_cents,
            key: key.into(),
            tenant: tenant.into(),
        }];
        c.start_ms = start_ms;
        c
    };
    let mut s = match name {
        "timeout-retry-autocommit" | "double-click-autocommit" => {
            let mut s = story(if name == "timeout-retry-autocommit" {
                "timeout-retry"
            } else {
                "concurrent-double-click"
            })?;
            s.autocommit = true;
            s
        }
        "scoped-key" | "unscoped-key" => {
            let mut s = fresh(Strategy::IdempotencyKeyLease);
            s.acquirer.latency_ms = 200;
            s.clients = vec![
                client("loja-1", 123, 25_000, "checkout-0001", "loja-1", 0),
                client("loja-2", 877, 9_990, "checkout-0001", "loja-2", 1_000),
            ];
            if name == "unscoped-key" {
                s.key_scope = KeyScope::Global;
            }
            s
        }
        "reformatted-retry" | "timestamp-in-fingerprint" => {
            let mut s = fresh(Strategy::IdempotencyKeyLease);
            s.acquirer.latency_ms = 200;
            s.faults = vec![Fault::DropResponse { attempt: 1 }];
            s.clients[0].client_timestamp = true;
            s.clients[0].reformat_retries = true;
            if name == "timestamp-in-fingerprint" {
                s.fingerprint = FingerprintPolicy::WithClientTimestamp;
            }
            s
        }
        "balance-lost-update" | "balance-for-update" | "balance-version-column" => {
            let mut s = fresh(Strategy::LocalEffect);
            s.clients = vec![
                client("compra-1", 301, 25_000, "5b1e0c7a-debito-1", "loja-1", 0),
                client("compra-2", 302, 40_000, "5b1e0c7a-debito-2", "loja-1", 0),
            ];
            s.balance = Some(BalanceSpec {
                opening_cents: 100_000,
                for_update: name == "balance-for-update",
                version_column: name == "balance-version-column",
            });
            s
        }
        // event-after-commit and event-outbox
        _ => {
            let mut s = fresh(Strategy::LocalEffect);
            s.clients = vec![app("app", 2_000, 2, 1_000)];
            s.faults = vec![Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCommit),
                restart_after_ms: 5_000,
            }];
            s.event = if name == "event-outbox" {
                EventDelivery::Outbox
            } else {
                EventDelivery::AfterCommit
            };
            s.recovery_every_ms = 1_000;
            s
        }
    };
    s.name = name.into();
    s.title = text(title_pt, title_en);
    s.description = text(description_pt, description_en);
    Some(s)
}
