//! The built-in scenarios. Their names are a contract: the CLI, the web page
//! and the tests use them.

use crate::scenario::*;
use crate::store::Isolation;

mod second_post;

pub const NAMES: [&str; 30] = [
    "timeout-retry",
    "lost-response",
    "concurrent-double-click",
    "key-reuse",
    "crash-after-commit",
    "acquirer-timeout-after-accept",
    "late-retry-after-ttl",
    "late-retry-provider-key",
    "crash-before-capture",
    "unknown-reconciled",
    "decline-stored",
    "headers-replayed",
    "held-transaction",
    "queue-redelivery",
    "new-key-per-retry",
    "race-2",
    "race-3",
    "timeout-retry-autocommit",
    "double-click-autocommit",
    "scoped-key",
    "unscoped-key",
    "reformatted-retry",
    "timestamp-in-fingerprint",
    "balance-lost-update",
    "balance-for-update",
    "event-after-commit",
    "event-outbox",
    "exponential-backoff",
    "balance-version-column",
    "pool-exhausted",
];

/// The key of the story's charge: a UUID v4, as Stripe recommends.
pub const STORY_KEY: &str = "9d2f4c1a-6b3e-4f8a-b7c5-1e0d3a2b4c6f";
/// The key of a second intent for the same order (`decline-stored`).
pub const SECOND_KEY: &str = "3c7e9b20-5d41-4a8f-9e62-7b1f0c4d8a35";
pub const STORY_ORDER: i64 = 123;
pub const STORY_CENTS: i64 = 25_000;

pub(crate) fn text(pt: &str, en: &str) -> Text {
    Text {
        pt: pt.into(),
        en: en.into(),
    }
}

pub(crate) fn story_intent() -> Intent {
    Intent {
        order_id: STORY_ORDER,
        amount_cents: STORY_CENTS,
        key: STORY_KEY.into(),
        tenant: "loja-1".into(),
    }
}

pub(crate) fn app(name: &str, timeout_ms: u64, retries_max: u32, backoff_ms: u64) -> ClientSpec {
    ClientSpec {
        name: name.into(),
        kind: ClientKind::Http,
        intents: vec![story_intent()],
        start_ms: 0,
        timeout_ms,
        retries_max,
        backoff_ms,
        new_key_per_retry: false,
        gap_between_intents_ms: 0,
        client_timestamp: false,
        reformat_retries: false,
        backoff: Backoff::Constant,
        backoff_max_ms: 0,
        backoff_jitter_ms: 0,
        deadline_ms: 0,
    }
}

pub(crate) fn base(name: &str, strategy: Strategy, title: Text, description: Text) -> Scenario {
    Scenario {
        name: name.into(),
        title,
        description,
        strategy,
        isolation: Isolation::ReadCommitted,
        seed: 1,
        instances: 2,
        pool_size: 4,
        load_balancer: LoadBalancerPolicy::RoundRobin,
        clients: vec![app("app", 2_000, 3, 500)],
        network: NetworkSpec {
            latency_ms: 20,
            jitter_ms: 0,
        },
        acquirer: AcquirerSpec {
            latency_ms: 3_000,
            timeout_ms: 10_000,
            decline: false,
            provider_keys: false,
        },
        db_latency_ms: 5,
        faults: vec![],
        key_ttl_ms: 24 * 3600 * 1000,
        lease_ms: 30_000,
        recovery_every_ms: 10_000,
        horizon_ms: 600_000,
        autocommit: false,
        key_scope: KeyScope::TenantOperation,
        fingerprint: FingerprintPolicy::Canonical,
        balance: None,
        event: EventDelivery::None,
        #[cfg(feature = "designs")]
        design: None,
    }
}

/// The built-in `name` names, as the `'static` name both pages keep in
/// their state; `None` if it names none.
pub fn static_name(name: &str) -> Option<&'static str> {
    NAMES.iter().copied().find(|n| *n == name)
}

/// A built-in scenario by name, with its default strategy.
pub fn builtin(name: &str) -> Option<Scenario> {
    let s = match name {
        "timeout-retry" => base(
            name,
            Strategy::CheckThenAct,
            text("O timeout e o reenvio", "The timeout and the retry"),
            text(
                "R$ 250,00 pelo pedido 123. O adquirente leva 3 s, o app desiste em 2 s e reenvia; o reenvio cai na outra instância enquanto a primeira ainda espera o adquirente.",
                "R$ 250.00 for order 123. The acquirer takes 3 s, the app gives up after 2 s and sends again; the retry lands on the other instance while the first is still waiting for the acquirer.",
            ),
        ),
        "lost-response" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text("A resposta que se perdeu", "The lost response"),
                text(
                    "A primeira tentativa termina e cobra, mas a resposta se perde na rede. O reenvio chega tarde e recebe a resposta guardada.",
                    "The first attempt finishes and charges, but its response is lost on the network. The late retry gets the stored response.",
                ),
            );
            s.acquirer.latency_ms = 200;
            s.faults = vec![Fault::DropResponse { attempt: 1 }];
            s
        }
        "concurrent-double-click" => {
            let mut s = base(
                name,
                Strategy::CheckThenAct,
                text("O clique duplo", "The double click"),
                text(
                    "Dois envios da mesma cobrança saem no mesmo instante e chegam juntos a duas instâncias.",
                    "Two sends of the same charge leave at the same instant and reach two instances together.",
                ),
            );
            s.acquirer.latency_ms = 800;
            s.clients = vec![
                app("clique-1", 5_000, 3, 400),
                app("clique-2", 5_000, 3, 400),
            ];
            s
        }
        "key-reuse" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text("A chave reaproveitada", "The reused key"),
                text(
                    "O app manda outra cobrança, de outro valor, com a mesma chave da primeira.",
                    "The app sends another charge, for another amount, with the same key as the first.",
                ),
            );
            s.acquirer.latency_ms = 200;
            let mut c = app("app", 2_000, 1, 500);
            let mut second = story_intent();
            second.amount_cents = 30_000;
            c.intents.push(second);
            c.gap_between_intents_ms = 1_000;
            s.clients = vec![c];
            s
        }
        "crash-after-commit" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text("A queda depois do commit", "The crash after the commit"),
                text(
                    "A instância grava a chave, pede a captura e morre antes da resposta do adquirente: sobra um PROCESSANDO órfão.",
                    "The instance records the key, asks for the capture and dies before the acquirer answers: an orphan PROCESSANDO is left behind.",
                ),
            );
            s.acquirer.latency_ms = 400;
            s.clients = vec![app("app", 2_000, 4, 3_000)];
            s.faults = vec![Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCaptureSent),
                restart_after_ms: 5_000,
            }];
            s.lease_ms = 3_000;
            s.recovery_every_ms = 2_000;
            s
        }
        "acquirer-timeout-after-accept" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text(
                    "O adquirente aceitou e calou",
                    "The acquirer accepted and went silent",
                ),
                text(
                    "O adquirente captura, mas a resposta dele nunca volta: a instância desiste sem saber que o dinheiro já se moveu.",
                    "The acquirer captures but its answer never comes back: the instance gives up without knowing the money already moved.",
                ),
            );
            s.acquirer.latency_ms = 300;
            s.acquirer.timeout_ms = 1_500;
            s.clients = vec![app("app", 3_000, 4, 2_000)];
            s.faults = vec![Fault::AcquirerTimeoutAfterAccept { call: 1 }];
            s.lease_ms = 2_000;
            s.recovery_every_ms = 2_000;
            s
        }
        "late-retry-after-ttl" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKeyLease,
                text(
                    "O reenvio depois do prazo da chave",
                    "The retry after the key expired",
                ),
                text(
                    "A resposta se perde e o app só reenvia depois que o prazo da chave (1 min aqui) venceu: para o servidor, é um pedido novo.",
                    "The response is lost and the app only retries after the key's lifetime (1 min here) ran out: to the server it is a new request.",
                ),
            );
            s.acquirer.latency_ms = 200;
            s.key_ttl_ms = 60_000;
            s.clients = vec![app("app", 2_000, 1, 90_000)];
            s.faults = vec![Fault::DropResponse { attempt: 1 }];
            s
        }
        "late-retry-provider-key" => {
            // The remedy for late-retry-after-ttl: the same run, with the
            // intent's key passed on to the acquirer, which remembers it
            // longer than the service does.
            let mut s = builtin("late-retry-after-ttl").expect("built-in");
            s.name = name.into();
            s.title = text(
                "O reenvio atrasado, com chave no adquirente",
                "The late retry, with a key at the acquirer",
            );
            s.description = text(
                "O mesmo reenvio depois do prazo da chave, mas agora a chave segue também para o adquirente. O serviço já esqueceu a cobrança; o adquirente reconhece a chave e devolve a captura que já fez, sem cobrar de novo.",
                "The same retry after the key's lifetime, but now the key also travels to the acquirer. The service has forgotten the charge; the acquirer recognises the key and returns the capture it already made, without charging again.",
            );
            s.acquirer.provider_keys = true;
            s
        }
        "crash-before-capture" => {
            // The failed_safe state of the second seed: the worker dies
            // after claiming the key and before calling the acquirer.
            let mut s = base(
                name,
                Strategy::IdempotencyKeyLease,
                text(
                    "A queda antes de chamar o adquirente",
                    "The crash before calling the acquirer",
                ),
                text(
                    "A instância grava a chave e morre antes de pedir a captura. A recuperação pergunta à API do adquirente pelas cobranças do pedido, não encontra nenhuma, marca a chave como failed_safe, e um reenvio posterior cobra uma única vez.",
                    "The instance records the key and dies before asking for the capture. Recovery asks the acquirer's API for the order's charges, finds none and marks the key failed_safe; a later retry charges exactly once.",
                ),
            );
            s.acquirer.latency_ms = 400;
            s.clients = vec![app("app", 2_000, 4, 1_000)];
            s.faults = vec![Fault::Crash {
                instance: 0,
                at_ms: None,
                at_point: Some(CrashPoint::AfterCommit),
                restart_after_ms: 5_000,
            }];
            s.lease_ms = 3_000;
            s.recovery_every_ms = 2_000;
            s
        }
        "unknown-reconciled" => {
            // The unknown state of the second seed: the acquirer captured,
            // its answer was lost, and the retry comes back before
            // recovery has asked the acquirer what happened.
            let mut s = builtin("acquirer-timeout-after-accept").expect("built-in");
            s.name = name.into();
            s.strategy = Strategy::IdempotencyKeyLease;
            s.title = text(
                "O efeito incerto e a conciliação",
                "The uncertain effect and the reconciliation",
            );
            s.description = text(
                "O adquirente captura e a resposta dele se perde. A instância marca a chave como unknown e responde 504; o reenvio que chega antes da conciliação recebe 409. A recuperação pergunta ao adquirente, completa o registro, e o reenvio seguinte recebe a resposta guardada.",
                "The acquirer captures and its answer is lost. The instance marks the key unknown and answers 504; the retry that arrives before reconciliation gets a 409. Recovery asks the acquirer, completes the record, and the next retry gets the stored answer.",
            );
            s.clients[0].backoff_ms = 300;
            s
        }
        "decline-stored" => {
            // A refusal is an answer too: stored, and replayed to every
            // retry of the key; paying after it is a new intent.
            let mut s = base(
                name,
                Strategy::IdempotencyKeyLease,
                text("A recusa guardada", "The stored decline"),
                text(
                    "O adquirente recusa o cartão (402) e a resposta se perde. O reenvio com a mesma chave recebe a mesma recusa, guardada, sem nova chamada ao adquirente. Para pagar de outro jeito, o app cria uma nova intenção, com chave nova, que é capturada.",
                    "The acquirer declines the card (402) and the answer is lost. The retry with the same key gets the same stored decline, with no new call to the acquirer. To pay another way the app starts a new intent, with a new key, which is captured.",
                ),
            );
            s.acquirer.latency_ms = 200;
            let mut c = app("app", 2_000, 3, 500);
            let mut second = story_intent();
            second.key = SECOND_KEY.into();
            c.intents.push(second);
            c.gap_between_intents_ms = 1_000;
            s.clients = vec![c];
            s.faults = vec![
                Fault::AcquirerDeclines { call: 1 },
                Fault::DropResponse { attempt: 1 },
            ];
            s
        }
        "headers-replayed" => {
            // The completed state of the second seed: the replay repeats
            // status, body and the relevant headers (here Location).
            let mut s = builtin("lost-response").expect("built-in");
            s.name = name.into();
            s.strategy = Strategy::IdempotencyKeyLease;
            s.title = text("Os cabeçalhos também voltam", "The headers come back too");
            s.description = text(
                "A cobrança é capturada e a resposta 201, com o cabeçalho Location da cobrança criada, se perde. O reenvio recebe da chave guardada o mesmo status, o mesmo corpo e o mesmo Location.",
                "The charge is captured and the 201 answer, with the Location header of the charge it created, is lost. The retry gets from the stored key the same status, the same body and the same Location.",
            );
            s
        }
        "held-transaction" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKeyHeldTx,
                text("A transação que fica aberta", "The transaction held open"),
                text(
                    "A chave é gravada numa transação que só fecha depois do adquirente (2 s). O reenvio não é recusado: fica esperando a linha.",
                    "The key is written in a transaction that only closes after the acquirer (2 s). The retry is not refused: it waits on the row.",
                ),
            );
            s.acquirer.latency_ms = 2_000;
            s.clients = vec![app("app", 1_500, 1, 100)];
            s
        }
        "queue-redelivery" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text(
                    "A fila que entrega duas vezes",
                    "The queue that delivers twice",
                ),
                text(
                    "A cobrança chega por uma fila que entrega pelo menos uma vez. O consumidor demora mais que o prazo de visibilidade, o ack não chega a tempo e a fila entrega a mesma mensagem a outro consumidor enquanto o primeiro ainda cobra. O id da mensagem é a chave: a tabela mensagem_processada, com UNIQUE em message_id, decide quem cobra, e quem encontra a mensagem ainda em processamento a devolve em vez de confirmá-la.",
                    "The charge arrives through a queue that delivers at least once. The consumer takes longer than the visibility timeout, the ack does not arrive in time, and the queue hands the same message to another consumer while the first is still charging. The message id is the key: the mensagem_processada table, UNIQUE on message_id, decides who charges, and a delivery that finds the message still processing hands it back instead of acking it.",
                ),
            );
            // The acquirer outlasts the visibility timeout, and the message
            // is visible again at once: the redelivery meets a consumer
            // still charging.
            s.acquirer.latency_ms = 1_500;
            let mut c = app("fila", 1_000, 3, 0);
            c.kind = ClientKind::Queue;
            c.intents[0].key = "msg-8841".into();
            s.clients = vec![c];
            s
        }
        "new-key-per-retry" => {
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text(
                    "Uma chave nova a cada tentativa",
                    "A new key on every retry",
                ),
                text(
                    "O app gera a chave de novo a cada reenvio. Para o servidor, cada tentativa é uma intenção diferente.",
                    "The app mints the key again on every retry. To the server each attempt is a different intent.",
                ),
            );
            s.clients[0].new_key_per_retry = true;
            s
        }
        "exponential-backoff" => {
            // A retry policy with growth, a cap, jitter and a deadline,
            // against an acquirer slower than all of it: the key keeps the
            // retries from charging, and the deadline ends them.
            let mut s = base(
                name,
                Strategy::IdempotencyKey,
                text(
                    "Reenvios com backoff exponencial e prazo",
                    "Retries with exponential backoff and a deadline",
                ),
                text(
                    "O adquirente leva 9 s. O app desiste de cada tentativa em 2 s e, a cada timeout ou 409, espera o dobro da vez anterior antes de reenviar (250 ms, 500 ms, 1 s, e então o teto de 2 s), mais até 200 ms sorteados. Um reenvio que sairia mais de 8 s depois da primeira tentativa não sai: o app desiste. A chave faz de todos os reenvios uma única cobrança.",
                    "The acquirer takes 9 s. The app gives up on each attempt after 2 s and, after each timeout or 409, waits twice as long as the time before it sends again (250 ms, 500 ms, 1 s, then the 2 s cap), plus up to 200 ms drawn at random. A retry that would leave more than 8 s after the first attempt is not sent: the app gives up. The key makes all the retries a single charge.",
                ),
            );
            s.acquirer.latency_ms = 9_000;
            s.acquirer.timeout_ms = 20_000;
            let mut c = app("app", 2_000, 8, 250);
            c.backoff = Backoff::Exponential;
            c.backoff_max_ms = 2_000;
            c.backoff_jitter_ms = 200;
            c.deadline_ms = 8_000;
            s.clients = vec![c];
            s
        }
        "pool-exhausted" => {
            // held-transaction under load: each claim keeps its connection
            // for the whole capture, so a few charges fill the pool and the
            // rest, with their clients' retries, queue for a connection.
            let mut s = base(
                name,
                Strategy::IdempotencyKeyHeldTx,
                text(
                    "O pool de conexões esgotado",
                    "The exhausted connection pool",
                ),
                text(
                    "Cinco compras diferentes chegam juntas a uma instância com 2 conexões no pool. Cada uma grava a chave numa transação que só fecha depois do adquirente (2 s): duas ocupam o pool e as outras entram na fila. Os apps desistem em 1,5 s e reenviam, e os reenvios entram na mesma fila, atrás de pedidos que já ninguém espera. Nenhum app recebe resposta, embora cada compra seja cobrada uma vez.",
                    "Five different purchases reach one instance with 2 connections in its pool at once. Each writes its key in a transaction that only closes after the acquirer (2 s): two fill the pool and the rest queue. The apps give up after 1.5 s and send again, and the retries join the same queue, behind requests nobody is waiting for any more. No app gets an answer, though every purchase is charged once.",
                ),
            );
            s.instances = 1;
            s.pool_size = 2;
            s.acquirer.latency_ms = 2_000;
            s.clients = (1..=5)
                .map(|i| {
                    let mut c = app(&format!("compra-{i}"), 1_500, 2, 200);
                    c.intents[0].order_id = 500 + i64::from(i);
                    c.intents[0].key = format!("7f3a9c2e-pool-{i}");
                    c
                })
                .collect();
            s
        }
        _ => return second_post::builtin(name).or_else(|| race_named(name)),
    };
    Some(s)
}

/// Two built-ins that tell one failure without and with one scenario
/// option, for the page's twin timeline to draw on its two lines (where it
/// otherwise compares two designs of one built-in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The built-in without the option: the top line.
    pub top: &'static str,
    /// The same built-in with it: the bottom line.
    pub bottom: &'static str,
    /// Each line's name on the drawing, in pt-BR then English: they name
    /// the option, since both lines may run one design.
    pub top_label: [&'static str; 2],
    pub bottom_label: [&'static str; 2],
}

/// Every pair; a built-in belongs to one at most.
pub const PAIRS: [Pair; 2] = [
    Pair {
        top: "late-retry-after-ttl",
        bottom: "late-retry-provider-key",
        top_label: ["sem chave no adquirente", "no key at the acquirer"],
        bottom_label: ["com chave no adquirente", "key sent to the acquirer"],
    },
    Pair {
        top: "balance-lost-update",
        bottom: "balance-version-column",
        top_label: ["sem verificar a versão", "no version check"],
        bottom_label: ["com coluna de versão", "with a version column"],
    },
];

/// The pair `name` belongs to, on either line.
pub fn pair_of(name: &str) -> Option<&'static Pair> {
    PAIRS.iter().find(|p| p.top == name || p.bottom == name)
}

/// The sizes `race-N` takes: two attempts at least, one instance each.
pub const RACE_SIZES: std::ops::RangeInclusive<u32> = 2..=limits::INSTANCES_MAX;

/// `race-N` with N written as `race` writes it: `race-02` or `race-+2`
/// is no name.
fn race_named(name: &str) -> Option<Scenario> {
    let digits = name.strip_prefix("race-")?;
    let n: u32 = digits.parse().ok()?;
    (RACE_SIZES.contains(&n) && n.to_string() == digits).then(|| race(n))
}

/// `race-N`: N attempts of one intent already on N instances at once, no
/// network and no latency: only the handler steps interleave. The minimal
/// model for exhaustive exploration.
pub fn race(n: u32) -> Scenario {
    let mut s = base(
        &format!("race-{n}"),
        Strategy::CheckThenAct,
        text(
            &format!("{n} tentativas ao mesmo tempo"),
            &format!("{n} attempts at once"),
        ),
        text(
            &format!(
                "{n} tentativas da mesma cobrança já estão em {n} instâncias. Só os passos do handler se intercalam."
            ),
            &format!(
                "{n} attempts of one charge are already on {n} instances. Only the handler steps interleave."
            ),
        ),
    );
    s.instances = n;
    s.pool_size = 1;
    s.network.latency_ms = 0;
    s.db_latency_ms = 0;
    s.acquirer.latency_ms = 0;
    s.clients = (1..=n)
        .map(|i| app(&format!("c{i}"), 500_000, 0, 0))
        .collect();
    s
}

pub fn all() -> Vec<Scenario> {
    NAMES
        .iter()
        .map(|n| builtin(n).expect("listed built-ins exist"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_valid_and_named_as_listed() {
        for name in NAMES {
            let s = builtin(name).unwrap();
            assert_eq!(s.name, name);
            s.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!s.title.pt.is_empty() && !s.title.en.is_empty(), "{name}");
            assert!(
                !s.description.pt.is_empty() && !s.description.en.is_empty(),
                "{name}"
            );
        }
        assert!(builtin("race-9").is_none());
        assert!(builtin("nope").is_none());
        assert_eq!(builtin("race-4").map(|s| s.name), Some("race-4".into()));
        for odd in ["race-04", "race-+4", "race-4 ", "race-"] {
            assert!(builtin(odd).is_none(), "{odd:?}");
        }
    }

    #[test]
    fn each_pair_is_one_built_in_with_and_without_its_option() {
        for pair in PAIRS {
            let (top, bottom) = (builtin(pair.top).unwrap(), builtin(pair.bottom).unwrap());
            // The options a pair may differ in, off.
            let without = |s: &Scenario| {
                let mut s = s.clone();
                s.acquirer.provider_keys = false;
                if let Some(b) = &mut s.balance {
                    b.version_column = false;
                }
                s
            };
            assert_eq!(without(&top), top, "{}: the option is off", pair.top);
            assert_ne!(
                without(&bottom),
                bottom,
                "{}: the option is on",
                pair.bottom
            );
            // Everything else is the same run: only the option differs.
            let mut same = without(&bottom);
            (same.name, same.title, same.description) =
                (top.name.clone(), top.title.clone(), top.description.clone());
            assert_eq!(same, top, "{} and {}", pair.top, pair.bottom);
            assert_eq!(pair_of(pair.top), Some(&pair));
            assert_eq!(pair_of(pair.bottom), Some(&pair));
            assert!(
                pair.top_label
                    .iter()
                    .chain(&pair.bottom_label)
                    .all(|l| !l.is_empty())
            );
        }
        assert_eq!(pair_of("timeout-retry"), None);
        let paired = NAMES.iter().filter(|n| pair_of(n).is_some()).count();
        assert_eq!(paired, 2 * PAIRS.len(), "no built-in is in two pairs");
    }
}
