//! The explorer's properties and verdicts in words: a sentence per
//! property of [`crate::property::ALL`] and a mark that says what a verdict
//! is, in Portuguese and English, for the workshop's counts and the CLI's
//! report alike. Kept apart from the properties themselves so that the
//! reader's page, which checks properties but never names them, links none
//! of these sentences.

use super::{Status, Verdict};
use crate::narrate::Lang;

/// What `name` promises, or `None` for a property this list lacks (the
/// test below keeps it whole).
pub fn sentence(name: &str, lang: Lang) -> Option<&'static str> {
    let (pt, en) = match name {
        "at-most-one-capture-per-intent" => (
            "cada intenção é capturada no máximo uma vez",
            "each intent is captured at most once",
        ),
        "every-2xx-has-exactly-one-capture" => (
            "toda resposta 2xx corresponde a exatamente uma captura",
            "every 2xx answer matches exactly one capture",
        ),
        "replay-equals-first-response" => (
            "um replay devolve exatamente a primeira resposta",
            "a replay returns exactly the first answer",
        ),
        "409-and-422-never-reach-the-acquirer" => (
            "um 409 ou um 422 nunca chega a chamar o adquirente",
            "a 409 or a 422 never calls the acquirer",
        ),
        "no-key-stuck-processing-past-lease-and-recovery" => (
            "nenhuma chave fica em processing depois do prazo de posse e da recuperação",
            "no key stays processing past its lease and recovery",
        ),
        "no-key-forgotten-while-its-effect-is-unresolved" => (
            "nenhuma chave é esquecida enquanto o efeito dela não se resolve",
            "no key is forgotten while its effect is unresolved",
        ),
        "a-declined-key-is-never-charged" => (
            "uma chave recusada nunca é cobrada",
            "a declined key is never charged",
        ),
        "422-only-for-a-key-its-tenant-reused" => (
            "422 só para uma chave que a própria loja reusou em outro pedido",
            "422 only for a key its own shop reused on another request",
        ),
        "no-lost-update" => (
            "nenhuma atualização do saldo se perde",
            "no balance update is lost",
        ),
        "every-committed-effect-has-its-event-published" => (
            "todo efeito confirmado tem o seu evento publicado",
            "every committed effect has its event published",
        ),
        "a-completed-key-never-changes-its-stored-answer" => (
            "uma chave concluída nunca troca a resposta guardada",
            "a completed key never changes its stored answer",
        ),
        "every-ack-follows-exactly-one-capture" => (
            "todo ack vem depois de exatamente uma captura",
            "every ack follows exactly one capture",
        ),
        "no-write-by-a-worker-whose-lease-was-taken" => (
            "quem perdeu a posse de uma chave não grava mais nada nela",
            "a worker whose lease was taken writes nothing more to the key",
        ),
        "recovery-resolves-a-key-only-from-the-acquirers-answer" => (
            "a recuperação só resolve uma chave pelo que a API do adquirente respondeu",
            "recovery resolves a key only from what the acquirer's API answered",
        ),
        "double-charge-reachable" => (
            "alguma ordem leva à cobrança em dobro",
            "some order leads to a double charge",
        ),
        "409-reachable" => ("alguma ordem leva a um 409", "some order leads to a 409"),
        "replay-reachable" => (
            "alguma ordem leva a um replay",
            "some order leads to a replay",
        ),
        "redelivery-acked-without-charging" => (
            "alguma reentrega é confirmada sem cobrar",
            "some redelivery is acked without charging",
        ),
        _ => return None,
    };
    Some(match lang {
        Lang::Pt => pt,
        Lang::En => en,
    })
}

/// The mark and the words for a verdict: the mark says what happened, not
/// whether the design needed it.
pub fn verdict(verdict: Verdict, lang: Lang) -> (&'static str, &'static str) {
    let (mark, pt, en) = match verdict {
        Verdict::Holds => ("✓", "vale", "holds"),
        Verdict::Reached => ("✓", "alcançada", "reached"),
        Verdict::Violated => ("✗", "violada", "violated"),
        Verdict::NeverReached => ("✗", "nunca alcançada", "never reached"),
        Verdict::Unknown => (
            "?",
            "indecidida: a exploração parou antes",
            "undecided: the exploration stopped first",
        ),
    };
    (
        mark,
        match lang {
            Lang::Pt => pt,
            Lang::En => en,
        },
    )
}

/// Where an exploration stands, for a report in `lang`.
pub fn status(status: Status, lang: Lang) -> &'static str {
    match lang {
        Lang::En => status.name(),
        Lang::Pt => match status {
            Status::Running => "em andamento",
            Status::Complete => "completa",
            Status::StateLimit => "parou no limite de estados",
            Status::Cancelled => "cancelada",
            Status::Cyclic => "parou num ciclo",
        },
    }
}

/// Beside a verdict on a property the design does not promise.
pub fn not_claimed(lang: Lang) -> &'static str {
    match lang {
        Lang::Pt => "este desenho não promete isso, então não conta como falha",
        Lang::En => "this design does not promise it, so it is no failure",
    }
}

/// Said of a *sometimes* property that is reported but not required.
pub fn not_required(lang: Lang) -> &'static str {
    match lang {
        Lang::Pt => "nem todo cenário leva até aqui, então não conta como falha",
        Lang::En => "not every scenario can lead here, so it is no failure",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_property_has_its_sentence_in_both_languages() {
        for p in crate::property::ALL {
            let pt = sentence(p.name, Lang::Pt).unwrap_or_else(|| panic!("{}", p.name));
            let en = sentence(p.name, Lang::En).unwrap_or_else(|| panic!("{}", p.name));
            assert_ne!(pt, en, "{}", p.name);
        }
        assert_eq!(sentence("no-such-property", Lang::Pt), None);
    }

    #[test]
    fn a_violation_never_gets_a_tick() {
        assert_eq!(verdict(Verdict::Violated, Lang::Pt), ("✗", "violada"));
        assert_eq!(verdict(Verdict::Holds, Lang::En).0, "✓");
        assert_eq!(verdict(Verdict::Unknown, Lang::Pt).0, "?");
    }

    #[test]
    fn each_status_has_its_own_words() {
        let all = [
            Status::Running,
            Status::Complete,
            Status::StateLimit,
            Status::Cancelled,
            Status::Cyclic,
        ];
        for lang in [Lang::Pt, Lang::En] {
            let said: std::collections::BTreeSet<_> =
                all.iter().map(|s| status(*s, lang)).collect();
            assert_eq!(said.len(), all.len());
        }
        assert_eq!(status(Status::StateLimit, Lang::En), "state-limit");
    }
}
