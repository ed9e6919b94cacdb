//! The English of the built-in designs' error bodies: the bodies are the
//! service's data, in Portuguese as its schema is, and an English reader
//! gets them glossed as the article glosses PROCESSANDO.

/// The English of a built-in design's error body, if it is one.
pub(super) fn gloss(body: &str) -> Option<&'static str> {
    let said = body.strip_prefix("{\"erro\": \"")?.strip_suffix("\"}")?;
    Some(match said {
        "adquirente sem resposta" => "the acquirer did not answer",
        "processando" => "processing",
        "conciliando" => "reconciling",
        "em conciliação manual" => "in manual reconciliation",
        "saldo insuficiente" => "insufficient balance",
        "saldo alterado por outra transação" => "balance changed by another transaction",
        "chave reutilizada com outro pedido ou valor" => "key reused with another order or amount",
        "tente novamente" => "try again",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrate::{Lang, describe};
    use crate::trace::{Actor, EventKind, TraceEvent};

    /// Every error body a built-in design answers is glossed in English.
    #[test]
    fn every_builtin_error_body_has_an_english_gloss() {
        use crate::design::{Answer, builtin};
        let mut bodies = std::collections::BTreeSet::new();
        for name in builtin::names() {
            let design = builtin::design(name)
                .or_else(|| builtin::named(name).map(|p| p.design().clone()))
                .expect("a built-in");
            for branch in design.steps.iter().flat_map(|step| &step.on) {
                if let Some(Answer::Literal(l)) = &branch.answer
                    && l.body.starts_with("{\"erro\"")
                {
                    bodies.insert(l.body.clone());
                }
            }
        }
        assert!(bodies.len() >= 5, "{bodies:?}");
        for body in &bodies {
            assert!(gloss(body).is_some(), "{body} has no English gloss");
        }
        let heard = EventKind::ResponseReceived {
            client: 0,
            attempt: 0,
            status: 409,
            headers: None,
            body: "{\"erro\": \"processando\"}".into(),
        };
        let said = describe(
            &TraceEvent {
                time_ms: 0,
                actor: Actor::Client(0),
                kind: heard,
            },
            Lang::En,
        );
        assert!(
            said.ends_with(r#"{"erro": "processando"} (“processing”)"#),
            "{said}"
        );
    }
}
