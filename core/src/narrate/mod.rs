//! Plain-language sentences for trace events, in the page's two languages.
//! The CLI timeline, the lousa's narration and its event table all use these,
//! so every front end tells the same story.

use crate::trace::{Actor, EventKind, Knowledge, SqlOutcome, TraceEvent};

mod gloss;
use gloss::gloss;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lang {
    #[default]
    Pt,
    En,
}

impl Lang {
    /// `pt` or `en`, whichever is this language.
    pub fn pick<'a>(self, pt: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Pt => pt,
            Lang::En => en,
        }
    }
}

pub fn actor(a: Actor, lang: Lang) -> String {
    match a {
        Actor::Client(i) => format!("{} {}", lang.pick("cliente", "client"), i + 1),
        Actor::Queue(i) => format!("{} {}", lang.pick("fila", "queue"), i + 1),
        Actor::LoadBalancer => "load balancer".into(),
        Actor::Instance(i) => format!("{} {}", lang.pick("instância", "instance"), i + 1),
        Actor::Database => lang.pick("banco", "database").into(),
        Actor::Acquirer => lang.pick("adquirente", "acquirer").into(),
        Actor::Network => lang.pick("rede", "network").into(),
        Actor::Recovery => lang.pick("recuperação", "recovery").into(),
        Actor::Relay => "relay".into(),
    }
}

pub fn sql_outcome(o: &SqlOutcome, lang: Lang) -> String {
    match o {
        SqlOutcome::Ok => "ok".into(),
        SqlOutcome::Rows { rows } => {
            let n = rows.len();
            let cells: Vec<String> = rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect();
            let noun = if n == 1 {
                lang.pick("linha", "row")
            } else {
                lang.pick("linhas", "rows")
            };
            if n == 0 {
                format!("0 {noun}")
            } else {
                format!("{n} {noun} ({})", cells.join("; "))
            }
        }
        SqlOutcome::Affected { count } => {
            let word = if *count == 1 { "afetada" } else { "afetadas" };
            format!("{count} {}", lang.pick(word, "affected"))
        }
        SqlOutcome::Waiting { on_instance } => match on_instance {
            Some(i) => format!(
                "{} {}",
                lang.pick(
                    "esperando a transação da instância",
                    "waiting for the transaction of instance"
                ),
                i + 1
            ),
            None => lang
                .pick(
                    "esperando outra transação",
                    "waiting for another transaction",
                )
                .into(),
        },
        SqlOutcome::Error { code, message } => {
            format!("{} {code}: {message}", lang.pick("ERRO", "ERROR"))
        }
    }
}

/// Reais with the separators each language writes: R$ 1.234,56 in
/// Portuguese, R$ 1,234.56 in English.
fn money(cents: i64, lang: Lang) -> String {
    let (thousands, decimal) = match lang {
        Lang::Pt => ('.', ','),
        Lang::En => (',', '.'),
    };
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    let digits = (cents / 100).to_string();
    let mut whole = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            whole.push(thousands);
        }
        whole.push(d);
    }
    format!("{sign}R$ {whole}{decimal}{:02}", cents % 100)
}

/// One sentence for one event.
pub fn describe(e: &TraceEvent, lang: Lang) -> String {
    if let Some(sentence) = describe_delivery(e, lang) {
        return sentence;
    }
    let l = |pt: &str, en: &str| lang.pick(pt, en).to_string();
    let n = |i: u32| i + 1;
    match &e.kind {
        EventKind::AttemptSent {
            attempt,
            retry,
            unkeyed: true,
            ..
        } => match (retry, lang) {
            (false, Lang::Pt) => format!(
                "envia a tentativa {}, que chave nenhuma protege",
                n(*attempt)
            ),
            (false, Lang::En) => format!("sends attempt {}, which no key protects", n(*attempt)),
            (true, Lang::Pt) => format!(
                "reenvia: tentativa {}, que chave nenhuma protege",
                n(*attempt)
            ),
            (true, Lang::En) => format!("retries: attempt {}, which no key protects", n(*attempt)),
        },
        EventKind::AttemptSent {
            attempt,
            key,
            retry,
            ..
        } => match (retry, lang) {
            (false, Lang::Pt) => format!("envia a tentativa {} com a chave {key}", n(*attempt)),
            (false, Lang::En) => format!("sends attempt {} with key {key}", n(*attempt)),
            (true, Lang::Pt) => format!("reenvia: tentativa {} com a chave {key}", n(*attempt)),
            (true, Lang::En) => format!("retries: attempt {} with key {key}", n(*attempt)),
        },
        EventKind::BodySent { attempt, body } => match lang {
            Lang::Pt => format!("o corpo da tentativa {}: {body}", n(*attempt)),
            Lang::En => format!("attempt {}'s body: {body}", n(*attempt)),
        },
        EventKind::EventPublished { attempt, order_id } => {
            let via = match (attempt, lang) {
                (Some(_), Lang::Pt) => "depois do commit",
                (Some(_), Lang::En) => "after the commit",
                (None, Lang::Pt) => "lido da outbox",
                (None, Lang::En) => "read from the outbox",
            };
            match lang {
                Lang::Pt => format!("publica o evento do pedido {order_id}, {via}"),
                Lang::En => format!("publishes order {order_id}'s event, {via}"),
            }
        }
        EventKind::RequestDropped { attempt } => match lang {
            Lang::Pt => format!("a tentativa {} se perde no caminho", n(*attempt)),
            Lang::En => format!("attempt {} is lost on the way", n(*attempt)),
        },
        EventKind::Routed { attempt, instance } => match lang {
            Lang::Pt => format!(
                "manda a tentativa {} para a instância {}",
                n(*attempt),
                n(*instance)
            ),
            Lang::En => format!("sends attempt {} to instance {}", n(*attempt), n(*instance)),
        },
        EventKind::NoInstanceAlive { attempt } => match lang {
            Lang::Pt => format!("não há instância viva para a tentativa {}", n(*attempt)),
            Lang::En => format!("no instance is alive for attempt {}", n(*attempt)),
        },
        EventKind::ConnectionWait { attempt } => match lang {
            Lang::Pt => format!(
                "a tentativa {} espera uma conexão livre do pool",
                n(*attempt)
            ),
            Lang::En => format!("attempt {} waits for a free pool connection", n(*attempt)),
        },
        EventKind::Sql { sql, outcome, .. } => format!("{sql} → {}", sql_outcome(outcome, lang)),
        EventKind::SqlResumed {
            sql,
            outcome,
            waited_ms,
            ..
        } => match lang {
            Lang::Pt => format!(
                "depois de {waited_ms} ms de espera: {sql} → {}",
                sql_outcome(outcome, lang)
            ),
            Lang::En => format!(
                "after waiting {waited_ms} ms: {sql} → {}",
                sql_outcome(outcome, lang)
            ),
        },
        EventKind::CaptureRequested { attempt, .. } => match lang {
            Lang::Pt => format!("pede a captura ao adquirente (tentativa {})", n(*attempt)),
            Lang::En => format!("asks the acquirer to capture (attempt {})", n(*attempt)),
        },
        EventKind::Captured {
            captures_for_intent,
            ..
        } => match (captures_for_intent, lang) {
            (1, Lang::Pt) => "captura o valor: o dinheiro saiu da conta".into(),
            (1, Lang::En) => "captures the amount: the money has moved".into(),
            (k, Lang::Pt) => format!("captura DE NOVO: {k}ª cobrança da mesma intenção"),
            (k, Lang::En) => format!("captures AGAIN: charge number {k} for the same intent"),
        },
        EventKind::Declined { .. } => l("recusa a cobrança", "declines the charge"),
        EventKind::ProviderReplayed { .. } => l(
            "reconhece a própria chave e devolve a resposta anterior, sem cobrar de novo",
            "recognises its own key and returns the earlier answer without charging again",
        ),
        EventKind::AcquirerReplyLost { .. } => l(
            "aceitou, mas a resposta não volta",
            "accepted, but its answer never comes back",
        ),
        EventKind::AcquirerReplied { accepted, .. } => match (accepted, lang) {
            (true, Lang::Pt) => "recebe do adquirente: capturada".into(),
            (true, Lang::En) => "hears from the acquirer: captured".into(),
            (false, Lang::Pt) => "recebe do adquirente: recusada".into(),
            (false, Lang::En) => "hears from the acquirer: declined".into(),
        },
        EventKind::AcquirerTimedOut { .. } => l(
            "desiste de esperar o adquirente: não sabe se ele cobrou",
            "gives up waiting for the acquirer: does not know whether it charged",
        ),
        EventKind::Responded {
            attempt,
            status,
            headers,
            ..
        } => {
            let with = match (headers, lang) {
                (None, _) => String::new(),
                (Some(h), Lang::Pt) => format!(", com {}", header_lines(h)),
                (Some(h), Lang::En) => format!(", with {}", header_lines(h)),
            };
            match lang {
                Lang::Pt => format!("responde {status} à tentativa {}{with}", n(*attempt)),
                Lang::En => format!("answers {status} to attempt {}{with}", n(*attempt)),
            }
        }
        EventKind::Delayed {
            attempt,
            response,
            by_ms,
        } => match (response, lang) {
            (false, Lang::Pt) => {
                format!("a tentativa {} atrasa {by_ms} ms no caminho", n(*attempt))
            }
            (false, Lang::En) => {
                format!("attempt {} is held up {by_ms} ms on the way", n(*attempt))
            }
            (true, Lang::Pt) => {
                format!("a resposta da tentativa {} atrasa {by_ms} ms", n(*attempt))
            }
            (true, Lang::En) => format!(
                "the answer to attempt {} is held up {by_ms} ms",
                n(*attempt)
            ),
        },
        EventKind::ResponseDropped { attempt } => match lang {
            Lang::Pt => format!("a resposta da tentativa {} se perde", n(*attempt)),
            Lang::En => format!("the answer to attempt {} is lost", n(*attempt)),
        },
        EventKind::ResponseReceived {
            attempt,
            status,
            headers,
            body,
            ..
        } => {
            let headers = headers
                .as_deref()
                .map_or(String::new(), |h| format!(" ({})", header_lines(h)));
            match lang {
                Lang::Pt => format!(
                    "recebe {status} para a tentativa {}{headers}: {body}",
                    n(*attempt)
                ),
                Lang::En => format!(
                    "receives {status} for attempt {}{headers}: {body}{}",
                    n(*attempt),
                    gloss(body).map_or_else(String::new, |g| format!(" (“{g}”)"))
                ),
            }
        }
        EventKind::LateResponseIgnored {
            attempt, status, ..
        } => match lang {
            Lang::Pt => format!(
                "a resposta {status} da tentativa {} chega tarde: o app já desistiu dela",
                n(*attempt)
            ),
            Lang::En => format!(
                "the {status} for attempt {} arrives late: the app already gave up on it",
                n(*attempt)
            ),
        },
        EventKind::TimedOut { attempt, .. } => match lang {
            Lang::Pt => format!(
                "estoura o timeout da tentativa {}: não sabe se o serviço cobrou, se ainda está cobrando ou se o pedido nem chegou",
                n(*attempt)
            ),
            Lang::En => format!(
                "attempt {} times out: it cannot tell whether it was charged, is being charged, or never arrived",
                n(*attempt)
            ),
        },
        EventKind::GaveUp {
            deadline: false, ..
        } => l(
            "esgota as tentativas e desiste",
            "runs out of retries and gives up",
        ),
        EventKind::GaveUp { deadline: true, .. } => l(
            "desiste antes de esgotar as tentativas: o próximo reenvio sairia depois do prazo total do cliente",
            "gives up with retries to spare: the next one would leave after the client's total deadline",
        ),
        EventKind::RetryScheduled {
            retry,
            base_ms,
            jitter_ms,
            wait_ms,
            ..
        } => match (lang, *jitter_ms) {
            (Lang::Pt, 0) => format!(
                "marca o reenvio {retry} para daqui a {wait_ms} ms: a espera que a política de backoff dá a ele"
            ),
            (Lang::En, 0) => format!(
                "sets retry {retry} for {wait_ms} ms from now: the wait its backoff policy gives it"
            ),
            (Lang::Pt, j) => format!(
                "marca o reenvio {retry} para daqui a {wait_ms} ms: {base_ms} ms da política de backoff e {j} ms de jitter sorteados"
            ),
            (Lang::En, j) => format!(
                "sets retry {retry} for {wait_ms} ms from now: {base_ms} ms from its backoff policy and {j} ms of jitter drawn at random"
            ),
        },
        EventKind::Crashed { lost_attempts, .. } => {
            let n = lost_attempts.len();
            match (lang, n) {
                (Lang::Pt, 0) => "cai, sem tentativa em andamento".into(),
                (Lang::En, 0) => "crashes, with no attempt in progress".into(),
                (Lang::Pt, 1) => "cai; perde a tentativa em andamento".into(),
                (Lang::Pt, _) => format!("cai; perde {n} tentativas em andamento"),
                (Lang::En, 1) => "crashes, losing the attempt in progress".into(),
                (Lang::En, _) => format!("crashes, losing {n} attempts in progress"),
            }
        }
        EventKind::Restarted { .. } => l("volta a subir", "comes back up"),
        EventKind::Reconciled {
            key,
            order_id,
            message,
            by_provider_key,
            outcome,
        } => reconciled(key, *order_id, *message, *by_provider_key, *outcome, lang),
        EventKind::LeaseTaken { attempt } => match lang {
            Lang::Pt => format!(
                "a escrita da tentativa {} é recusada, sem linha nenhuma: o lease dela foi tomado, então ela não grava nada e manda o cliente perguntar de novo",
                n(*attempt)
            ),
            Lang::En => format!(
                "the write of attempt {} is refused, matching no row: its lease was taken, so it stores nothing and tells the client to ask again",
                n(*attempt)
            ),
        },
        EventKind::EventLimitReached => l("limite de eventos atingido", "event limit reached"),
        EventKind::HorizonReached => l("fim do horizonte de tempo", "end of the time horizon"),
    }
}

/// The sentence of a queue's event, or of a consumer's ack: a queue speaks
/// of messages, deliveries and acks, not of requests and timeouts.
fn describe_delivery(e: &TraceEvent, lang: Lang) -> Option<String> {
    let n = |i: u32| i + 1;
    let queue = matches!(e.actor, Actor::Queue(_));
    let sentence = match (&e.kind, lang) {
        (
            EventKind::Responded {
                attempt,
                ack: true,
                status,
                ..
            },
            Lang::Pt,
        ) if *status < 300 => {
            format!(
                "confirma a entrega {} (ack): a mensagem pode sair da fila",
                n(*attempt)
            )
        }
        (
            EventKind::Responded {
                attempt,
                ack: true,
                status,
                ..
            },
            Lang::En,
        ) if *status < 300 => {
            format!(
                "acks delivery {}: the message may leave the queue",
                n(*attempt)
            )
        }
        (
            EventKind::Responded {
                attempt, ack: true, ..
            },
            Lang::Pt,
        ) => {
            format!("devolve a entrega {} à fila (nack)", n(*attempt))
        }
        (
            EventKind::Responded {
                attempt, ack: true, ..
            },
            Lang::En,
        ) => {
            format!(
                "nacks delivery {}: the message goes back to the queue",
                n(*attempt)
            )
        }
        _ if !queue => return None,
        (
            EventKind::AttemptSent {
                attempt,
                key,
                retry: false,
                ..
            },
            Lang::Pt,
        ) => {
            format!("entrega a mensagem {key} (entrega {})", n(*attempt))
        }
        (
            EventKind::AttemptSent {
                attempt,
                key,
                retry: false,
                ..
            },
            Lang::En,
        ) => {
            format!("delivers message {key} (delivery {})", n(*attempt))
        }
        (EventKind::AttemptSent { attempt, key, .. }, Lang::Pt) => {
            format!("entrega de novo a mensagem {key} (entrega {})", n(*attempt))
        }
        (EventKind::AttemptSent { attempt, key, .. }, Lang::En) => {
            format!("redelivers message {key} (delivery {})", n(*attempt))
        }
        (EventKind::Routed { attempt, instance }, Lang::Pt) => format!(
            "passa a entrega {} ao consumidor da instância {}",
            n(*attempt),
            n(*instance)
        ),
        (EventKind::Routed { attempt, instance }, Lang::En) => format!(
            "hands delivery {} to the consumer on instance {}",
            n(*attempt),
            n(*instance)
        ),
        (EventKind::TimedOut { attempt, .. }, Lang::Pt) => format!(
            "a entrega {} passa do prazo de visibilidade sem ack: a mensagem volta a ficar visível",
            n(*attempt)
        ),
        (EventKind::TimedOut { attempt, .. }, Lang::En) => format!(
            "delivery {} passes its visibility timeout without an ack: the message is visible again",
            n(*attempt)
        ),
        (
            EventKind::ResponseReceived {
                attempt, status, ..
            },
            Lang::Pt,
        ) if *status < 300 => {
            format!(
                "recebe o ack da entrega {}: a mensagem sai da fila",
                n(*attempt)
            )
        }
        (
            EventKind::ResponseReceived {
                attempt, status, ..
            },
            Lang::En,
        ) if *status < 300 => {
            format!(
                "gets the ack of delivery {}: the message leaves the queue",
                n(*attempt)
            )
        }
        (EventKind::ResponseReceived { attempt, .. }, Lang::Pt) => {
            format!(
                "recebe o nack da entrega {}: a mensagem volta a ficar visível quando vencer o prazo de visibilidade",
                n(*attempt)
            )
        }
        (EventKind::ResponseReceived { attempt, .. }, Lang::En) => {
            format!(
                "gets the nack of delivery {}: the message is visible again when its visibility timeout ends",
                n(*attempt)
            )
        }
        (EventKind::LateResponseIgnored { attempt, .. }, Lang::Pt) => format!(
            "a resposta do consumidor à entrega {} chega tarde: a mensagem já foi entregue de novo",
            n(*attempt)
        ),
        (EventKind::LateResponseIgnored { attempt, .. }, Lang::En) => format!(
            "the consumer's answer to delivery {} comes late: the message was already delivered again",
            n(*attempt)
        ),
        (
            EventKind::GaveUp {
                deadline: false, ..
            },
            Lang::Pt,
        ) => "esgota as entregas: a mensagem vai para a fila de mensagens mortas".into(),
        (
            EventKind::GaveUp {
                deadline: false, ..
            },
            Lang::En,
        ) => "runs out of deliveries: the message goes to the dead-letter queue".into(),
        _ => return None,
    };
    Some(sentence)
}

/// "12.345 s  instância 1  INSERT ... → 1 linha"
pub fn line(e: &TraceEvent, lang: Lang) -> String {
    format!(
        "{:>8.3} s  {:<14} {}",
        e.time_ms as f64 / 1000.0,
        actor(e.actor, lang),
        describe(e, lang)
    )
}

pub fn knowledge(k: &Knowledge, lang: Lang) -> String {
    let l = |pt: &str, en: &str| lang.pick(pt, en).to_string();
    match k {
        Knowledge::Idle => l("parado", "idle"),
        Knowledge::Waiting { .. } => l("esperando resposta", "waiting for an answer"),
        // Short, as the client's box on a phone has room for two lines.
        Knowledge::Unknown { .. } => l("cobrança incerta", "does not know if it was charged"),
        Knowledge::Backoff => l("esperando para reenviar", "waiting to retry"),
        Knowledge::Answered { status, .. } => format!("{} {status}", lang.pick("recebeu", "got")),
        Knowledge::GaveUp => l("desistiu sem resposta", "gave up without an answer"),
    }
}

/// What a queue knows of its message, in a queue's words: a queue hears
/// acks and nacks and delivers again; it has no HTTP statuses or retries.
pub fn queue_knowledge(k: &Knowledge, lang: Lang) -> String {
    let l = |pt: &str, en: &str| lang.pick(pt, en).to_string();
    match k {
        Knowledge::Waiting { .. } => l("esperando o ack", "waiting for the ack"),
        Knowledge::Unknown { .. } => l(
            "não sabe se foi processada",
            "does not know if it was processed",
        ),
        Knowledge::Backoff => l(
            "esperando para entregar de novo",
            "waiting to deliver again",
        ),
        Knowledge::Answered { status, .. } => {
            format!("{} {}", lang.pick("recebeu", "got"), ack_word(*status))
        }
        _ => knowledge(k, lang),
    }
}

/// A consumer's answer to a delivery: an ack (2xx) or a nack.
pub fn ack_word(status: u16) -> &'static str {
    if status < 300 { "ack" } else { "nack" }
}

/// An amount in cents as `lang` writes money.
pub fn amount(cents: i64, lang: Lang) -> String {
    money(cents, lang)
}

/// Stored headers (jsonb text of an object of strings, as the handler
/// writes them) as HTTP header lines: `{"Location": "/cobrancas/1"}` reads
/// `Location: /cobrancas/1`.
pub fn header_lines(headers: &str) -> String {
    headers
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .replace('"', "")
}

/// Recovery's sentence: what it asked the acquirer's API (by the key sent
/// as the provider's key, or by the order), and what it made of the answer.
fn reconciled(
    key: &str,
    order_id: i64,
    message: bool,
    by_provider_key: bool,
    outcome: crate::trace::Reconciliation,
    lang: Lang,
) -> String {
    use crate::trace::Reconciliation::*;
    let asked = match (by_provider_key, lang) {
        (true, Lang::Pt) => format!("pergunta ao adquirente pela chave {key}"),
        (true, Lang::En) => format!("asks the acquirer about key {key}"),
        (false, Lang::Pt) => {
            format!("pergunta ao adquirente pelas cobranças do pedido {order_id} (chave {key})")
        }
        (false, Lang::En) => {
            format!("asks the acquirer for the charges of order {order_id} (key {key})")
        }
    };
    let made = match (message, outcome, lang) {
        (true, Captured | Declined, Lang::Pt) => {
            "a cobrança da mensagem aconteceu, e a mensagem fica completed: a próxima entrega confirma sem cobrar"
        }
        (true, Captured | Declined, Lang::En) => {
            "the message's charge happened, so the message is completed: the next delivery acks without charging"
        }
        (true, NothingFound, Lang::Pt) => {
            "nenhuma chamada chegou até ele, e o registro da mensagem é apagado: uma próxima entrega cobra de novo"
        }
        (true, NothingFound, Lang::En) => {
            "no call reached it, so the message's record is deleted: a later delivery charges afresh"
        }
        (_, outcome, lang) => reconciled_key(outcome, lang),
    };
    format!("{asked}: {made}")
}

/// What recovery made of the answer about a key (`chave_idempotencia`).
fn reconciled_key(outcome: crate::trace::Reconciliation, lang: Lang) -> &'static str {
    use crate::trace::Reconciliation::*;
    match (outcome, lang) {
        (Captured, Lang::Pt) => "houve captura, e a chave fica completed com o 201",
        (Captured, Lang::En) => "it captured, so the key is completed with the 201",
        (Declined, Lang::Pt) => "houve recusa, e a chave fica completed com o 402",
        (Declined, Lang::En) => "it declined, so the key is completed with the 402",
        (NothingFound, Lang::Pt) => {
            "nenhuma chamada chegou até ele, e a chave fica failed_safe, livre para nova tentativa"
        }
        (NothingFound, Lang::En) => {
            "no call reached it, so the key is marked failed_safe, free for a new attempt"
        }
        (Escalated, Lang::Pt) => {
            "o pedido tem outras chaves aqui e a resposta não diz de qual é; a chave fica escalated, para uma pessoa decidir"
        }
        (Escalated, Lang::En) => {
            "the order has other keys here and the answer cannot say whose it is, so the key is escalated for a person to decide"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Strategy;

    #[test]
    fn stored_headers_read_as_header_lines() {
        let h = crate::handler::created_headers(7);
        assert_eq!(header_lines(&h), "Location: /cobrancas/7");
        let sent = EventKind::Responded {
            attempt: 1,
            status: 201,
            headers: Some(h),
            body: String::new(),
            ack: false,
        };
        let e = |kind| TraceEvent {
            time_ms: 0,
            actor: crate::trace::Actor::Instance(0),
            kind,
        };
        assert_eq!(
            describe(&e(sent), Lang::En),
            "answers 201 to attempt 2, with Location: /cobrancas/7"
        );
    }

    #[test]
    fn an_attempt_names_its_key_only_where_the_design_reads_it() {
        let first = |strategy| {
            let mut s = crate::builtins::builtin("timeout-retry").expect("built-in");
            s.strategy = strategy;
            let run = crate::run(&s).expect("valid");
            let sent = run
                .events()
                .map(|(_, e)| e)
                .filter(|e| matches!(e.kind, EventKind::AttemptSent { .. }))
                .cloned()
                .collect::<Vec<_>>();
            (describe(&sent[0], Lang::Pt), describe(&sent[1], Lang::En))
        };
        for strategy in [Strategy::Naive, Strategy::CheckThenAct] {
            let (pt, en) = first(strategy);
            assert_eq!(pt, "envia a tentativa 1, que chave nenhuma protege");
            assert_eq!(en, "retries: attempt 2, which no key protects");
        }
        for strategy in [Strategy::IdempotencyKey, Strategy::IdempotencyKeyLease] {
            let (pt, en) = first(strategy);
            assert!(pt.starts_with("envia a tentativa 1 com a chave "), "{pt}");
            assert!(en.starts_with("retries: attempt 2 with key "), "{en}");
        }
    }

    #[test]
    fn money_groups_thousands_as_each_language_writes_them() {
        for (cents, pt, en) in [
            (0, "R$ 0,00", "R$ 0.00"),
            (5, "R$ 0,05", "R$ 0.05"),
            (25_000, "R$ 250,00", "R$ 250.00"),
            (100_000, "R$ 1.000,00", "R$ 1,000.00"),
            (12_345_678, "R$ 123.456,78", "R$ 123,456.78"),
            (
                100_000_000_000,
                "R$ 1.000.000.000,00",
                "R$ 1,000,000,000.00",
            ),
            (-150_000, "-R$ 1.500,00", "-R$ 1,500.00"),
        ] {
            assert_eq!(amount(cents, Lang::Pt), pt);
            assert_eq!(amount(cents, Lang::En), en);
        }
    }

    #[test]
    fn a_database_error_is_named_in_the_reader_language() {
        let e = SqlOutcome::Error {
            code: "23505".into(),
            message: "duplicate key".into(),
        };
        assert_eq!(sql_outcome(&e, Lang::Pt), "ERRO 23505: duplicate key");
        assert_eq!(sql_outcome(&e, Lang::En), "ERROR 23505: duplicate key");
    }
}
