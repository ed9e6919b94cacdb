//! The built-ins of the second post's details: check-then-act with and
//! without a held transaction, the key's scope, the canonical fingerprint,
//! and two things a key does not cover (a decision on a value read, and an
//! event that must follow its effect).

use super::{app, base, builtin as story, story_intent, text};
use crate::scenario::*;

/// A built-in of this group by name, with its default strategy.
pub(super) fn builtin(name: &str) -> Option<Scenario> {
    let s = match name {
        "timeout-retry-autocommit" => {
            let mut s = story("timeout-retry")?;
            s.name = name.into();
            s.autocommit = true;
            s.title = text(
                "O timeout, consultando sem transação aberta",
                "The timeout, checking without an open transaction",
            );
            s.description = text(
                "A mesma história, mas cada comando confirma sozinho: o INSERT já está gravado quando o reenvio consulta, e ele recebe 409.",
                "The same story, but each statement commits on its own: the INSERT is already saved when the retry checks, and it gets 409.",
            );
            s
        }
        "double-click-autocommit" => {
            let mut s = story("concurrent-double-click")?;
            s.name = name.into();
            s.autocommit = true;
            s.title = text(
                "O clique duplo, consultando sem transação aberta",
                "The double click, checking without an open transaction",
            );
            s.description = text(
                "Cada comando confirma sozinho, e mesmo assim as duas consultas chegam antes das duas gravações: a corrida entre ler e gravar.",
                "Each statement commits on its own, and still both checks run before both writes: the race between reading and writing.",
            );
            s
        }
        "scoped-key" | "unscoped-key" => {
            let scoped = name == "scoped-key";
            let mut s = base(
                name,
                Strategy::IdempotencyKeyLease,
                if scoped {
                    text("A mesma chave em duas lojas", "One key value, two shops")
                } else {
                    text("A chave sem escopo", "The key without a scope")
                },
                if scoped {
                    text(
                        "Duas lojas mandam a chave checkout-0001 para pedidos diferentes. O escopo (loja, operação) faz delas duas chaves.",
                        "Two shops send the key checkout-0001 for different orders. The (shop, operation) scope makes them two keys.",
                    )
                } else {
                    text(
                        "As mesmas duas lojas, com a chave única no sistema todo: a segunda loja recebe 422 por uma chave que nunca usou.",
                        "The same two shops, with the key unique across the whole system: the second shop gets 422 for a key it never used.",
                    )
                },
            );
            s.acquirer.latency_ms = 200;
            let shop = |tenant: &str, order_id, amount_cents, start_ms| {
                let mut c = app(tenant, 2_000, 1, 500);
                c.intents = vec![Intent {
                    order_id,
                    amount_cents,
                    key: "checkout-0001".into(),
                    tenant: tenant.into(),
                }];
                c.start_ms = start_ms;
                c
            };
            s.clients = vec![
                shop("loja-1", 123, 25_000, 0),
                shop("loja-2", 877, 9_990, 1_000),
            ];
            if !scoped {
                s.key_scope = KeyScope::Global;
            }
            s
        }
        "reformatted-retry" | "timestamp-in-fingerprint" => {
            let canonical = name == "reformatted-retry";
            let mut s = base(
                name,
                Strategy::IdempotencyKeyLease,
                if canonical {
                    text("O reenvio reescrito", "The rewritten retry")
                } else {
                    text(
                        "O horário do cliente na impressão",
                        "The client's clock in the fingerprint",
                    )
                },
                if canonical {
                    text(
                        "A resposta se perde; o reenvio traz os campos em outra ordem, com espaços e outro client_ts. A impressão canônica vê a mesma intenção.",
                        "The response is lost; the retry has its fields in another order, with spaces and another client_ts. The canonical fingerprint sees the same intent.",
                    )
                } else {
                    text(
                        "O mesmo reenvio, mas o servidor põe o client_ts na impressão: o reenvio legítimo vira 422, e a cobrança feita fica sem resposta.",
                        "The same retry, but the server hashes client_ts into the fingerprint: the legitimate retry becomes a 422, and the charge made goes unanswered.",
                    )
                },
            );
            s.acquirer.latency_ms = 200;
            s.faults = vec![Fault::DropResponse { attempt: 1 }];
            s.clients[0].client_timestamp = true;
            s.clients[0].reformat_retries = true;
            if !canonical {
                s.fingerprint = FingerprintPolicy::WithClientTimestamp;
            }
            s
        }
        "balance-lost-update" | "balance-for-update" => {
            let locked = name == "balance-for-update";
            let mut s = base(
                name,
                Strategy::LocalEffect,
                if locked {
                    text("O débito com FOR UPDATE", "The debit with FOR UPDATE")
                } else {
                    text("O débito que se perde", "The lost debit")
                },
                if locked {
                    text(
                        "Os mesmos dois débitos, lendo o saldo com SELECT ... FOR UPDATE: o segundo espera o primeiro e lê o saldo já debitado.",
                        "The same two debits, reading the balance with SELECT ... FOR UPDATE: the second waits for the first and reads the debited balance.",
                    )
                } else {
                    text(
                        "Duas compras diferentes debitam a mesma conta de R$ 1.000,00 ao mesmo tempo. Cada uma tem sua chave; as duas leem o mesmo saldo.",
                        "Two different purchases debit the same R$ 1,000.00 account at once. Each has its own key; both read the same balance.",
                    )
                },
            );
            let buyer = |name: &str, order_id, amount_cents, key: &str| {
                let mut c = app(name, 5_000, 1, 500);
                c.intents = vec![Intent {
                    order_id,
                    amount_cents,
                    key: key.into(),
                    ..story_intent()
                }];
                c
            };
            s.clients = vec![
                buyer("compra-1", 301, 25_000, "5b1e0c7a-debito-1"),
                buyer("compra-2", 302, 40_000, "5b1e0c7a-debito-2"),
            ];
            s.balance = Some(BalanceSpec {
                opening_cents: 100_000,
                for_update: locked,
            });
            s
        }
        "event-after-commit" | "event-outbox" => {
            let outbox = name == "event-outbox";
            let mut s = base(
                name,
                Strategy::LocalEffect,
                if outbox {
                    text("O evento na outbox", "The event in the outbox")
                } else {
                    text(
                        "O evento publicado depois do commit",
                        "The event published after the commit",
                    )
                },
                if outbox {
                    text(
                        "A mesma queda, mas o evento foi gravado na outbox junto com o pedido; o relay o encontra e publica.",
                        "The same crash, but the event was written to the outbox with the order; the relay finds it and publishes it.",
                    )
                } else {
                    text(
                        "O pedido é gravado e confirmado; a instância cai antes de publicar o evento. O reenvio recebe a resposta guardada, e ninguém publica.",
                        "The order is written and committed; the instance dies before publishing the event. The retry gets the stored answer, and nobody publishes.",
                    )
                },
            );
            s.clients = vec![app("app", 2_000, 2, 1_000)];
            s.faults = vec![Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCommit),
                restart_after_ms: 5_000,
            }];
            s.event = if outbox {
                EventDelivery::Outbox
            } else {
                EventDelivery::AfterCommit
            };
            s.recovery_every_ms = 1_000;
            s
        }
        _ => return None,
    };
    Some(s)
}
