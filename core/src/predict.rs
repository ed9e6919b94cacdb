//! Predict, then reveal: at a run's decisive steps, a question with two or
//! three answers, the right one read from the run itself rather than
//! written beside the question, so a changed scenario can never make a
//! prompt lie. The page stops the board at `ask_at`, asks, and steps to
//! `reveal_at` once the reader has chosen.
//!
//! The questions follow the second attempt sent: a repeat of the first (a
//! retry, a second click, a redelivery), whose fate is the story of most
//! built-ins, or a request for another purchase, asked about as such.

use crate::narrate::Lang;
use crate::run::Run;
use crate::trace::{Actor, EventKind, SqlOutcome};

/// One question at one step of a run. Its words are the program's own, so
/// they are static: the page builds a run's prompts without copying them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prompt {
    /// What the question is about, a name tests and the page can key on.
    pub about: Question,
    /// The frame the board waits at, just before the step.
    pub ask_at: usize,
    /// The frame that shows the answer.
    pub reveal_at: usize,
    pub question: Said,
    pub choices: &'static [Said],
    /// The right choice, an index into `choices`.
    pub answer: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// What the database answers to the repeat's first statement.
    RepeatFirstStatement,
    /// Whether the intent ends up charged twice.
    ChargedTwice,
    /// What the repeat's sender hears.
    RepeatAnswer,
}

/// A question or a choice in the two languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Said {
    pub pt: &'static str,
    pub en: &'static str,
}

impl Said {
    pub fn get(self, lang: Lang) -> &'static str {
        match lang {
            Lang::Pt => self.pt,
            Lang::En => self.en,
        }
    }
}

const fn said(pt: &'static str, en: &'static str) -> Said {
    Said { pt, en }
}

/// What the second attempt is to the first, which the questions name: a
/// retry or second click of the same purchase, a queue's redelivery, or a
/// request for another purchase (another shop's, another debit), which is
/// no repeat at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Second {
    Repeat,
    Redelivery,
    Another,
}

/// The prompts of `run`, in the order the board meets them; none when the
/// run has no second attempt.
pub fn prompts(run: &Run) -> Vec<Prompt> {
    let mut first_intent = None;
    let Some((sent_at, repeat, kind)) = run.events().find_map(|(f, e)| match e.kind {
        EventKind::AttemptSent {
            attempt: 0, intent, ..
        } => {
            first_intent = Some(intent);
            None
        }
        EventKind::AttemptSent {
            attempt: 1, intent, ..
        } => Some((
            f,
            1,
            if first_intent != Some(intent) {
                Second::Another
            } else if matches!(e.actor, Actor::Queue(_)) {
                Second::Redelivery
            } else {
                Second::Repeat
            },
        )),
        _ => None,
    }) else {
        return Vec::new();
    };
    let second = second_capture(run);
    let mut out = Vec::new();
    if let Some(p) = first_statement(run, repeat, kind) {
        out.push(p);
    }
    out.push(charged_twice(run, sent_at, second, kind));
    if let Some(p) = repeat_answer(run, repeat, second, kind) {
        out.push(p);
    }
    // In the order the board meets them: an insertion sort of three, stable,
    // which costs the page's wasm far less code than the slice sort.
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && out[j - 1].ask_at > out[j].ask_at {
            out.swap(j - 1, j);
            j -= 1;
        }
    }
    out
}

fn first_statement(run: &Run, repeat: u32, kind: Second) -> Option<Prompt> {
    let (frame, sql, outcome) = run.events().find_map(|(f, e)| match &e.kind {
        EventKind::Sql {
            attempt: Some(a),
            sql,
            outcome,
        } if *a == repeat && !sql.starts_with("BEGIN") => Some((f, sql, outcome)),
        _ => None,
    })?;
    let insert = sql.starts_with("INSERT");
    let answer = match outcome {
        SqlOutcome::Waiting { .. } => 2,
        // An INSERT that returns its row claimed a free key; a SELECT that
        // returns none found nothing.
        SqlOutcome::Rows { rows } if rows.is_empty() != insert => 0,
        SqlOutcome::Rows { .. } | SqlOutcome::Error { .. } => 1,
        SqlOutcome::Ok | SqlOutcome::Affected { .. } => 0,
    };
    Some(Prompt {
        about: Question::RepeatFirstStatement,
        ask_at: frame - 1,
        reveal_at: frame,
        question: match kind {
            Second::Repeat => said(
                "A repetição chega ao banco. O que a primeira instrução dela encontra?",
                "The repeat reaches the database. What does its first statement find?",
            ),
            Second::Redelivery => said(
                "A reentrega chega ao banco. O que a primeira instrução dela encontra?",
                "The redelivery reaches the database. What does its first statement find?",
            ),
            Second::Another => said(
                "O segundo pedido, de outra compra, chega ao banco. O que a primeira instrução dele encontra?",
                "The second request, for another purchase, reaches the database. What does its first statement find?",
            ),
        },
        choices: const {
            &[
                said(
                    "Nada: para o banco, é um pedido novo",
                    "Nothing: to the database, this is a new request",
                ),
                said("A linha do primeiro pedido", "The first request's row"),
                said(
                    "Nada ainda: espera outra transação terminar",
                    "Nothing yet: it waits for another transaction to end",
                ),
            ]
        },
        answer,
    })
}

/// The first frame whose board shows an intent charged twice (a second
/// capture, or a second local effect under `local-effect`).
fn second_capture(run: &Run) -> Option<usize> {
    (0..run.frame_count()).find(|&f| run.state_at(f).captures.iter().any(|&c| c >= 2))
}

/// Whether the intent is charged twice, revealed at `second`, the frame
/// that shows it (`second_capture`), or at the end.
fn charged_twice(run: &Run, sent_at: usize, second: Option<usize>, kind: Second) -> Prompt {
    let (question, choices) = match kind {
        Second::Repeat | Second::Redelivery => (
            said(
                "A mesma compra vai ser cobrada duas vezes?",
                "Will the same purchase be charged twice?",
            ),
            const {
                &[
                    said("Sim, o cartão paga duas vezes", "Yes, the card pays twice"),
                    said("Não, uma cobrança só", "No, a single charge"),
                ]
            },
        ),
        // Two purchases may rightly be charged once each.
        Second::Another => (
            said(
                "Alguma das compras vai ser cobrada duas vezes?",
                "Will either purchase be charged twice?",
            ),
            const {
                &[
                    said(
                        "Sim, uma delas paga duas vezes",
                        "Yes, one of them pays twice",
                    ),
                    said("Não, cada uma no máximo uma vez", "No, each at most once"),
                ]
            },
        ),
    };
    Prompt {
        about: Question::ChargedTwice,
        ask_at: sent_at - 1,
        reveal_at: second.unwrap_or(run.frame_count() - 1),
        question,
        choices,
        // From the summary, which counts local effects too (`local-effect`
        // writes an order instead of calling the acquirer).
        answer: usize::from(run.summary.double_charged_intents.is_empty()),
    }
}

/// What the repeat hears. Asked before the board shows a second charge
/// (at `second`), if there is one: a board that already shows the card
/// charged twice has told the reader that the repeat went through.
fn repeat_answer(run: &Run, repeat: u32, second: Option<usize>, kind: Second) -> Option<Prompt> {
    let (frame, status) = run.events().find_map(|(f, e)| match e.kind {
        EventKind::Responded {
            attempt, status, ..
        } if attempt == repeat => Some((f, status)),
        _ => None,
    })?;
    let before = second.map_or(frame, |c| c.min(frame));
    // A queue's consumer answers with an ack or a nack, not a status.
    let (question, choices, answer): (Said, &'static [Said], usize) = if kind == Second::Redelivery
    {
        (
            said(
                "O que o consumidor faz com a reentrega?",
                "What does the consumer do with the redelivery?",
            ),
            const {
                &[
                    said(
                        "ack: a mensagem sai da fila",
                        "ack: the message leaves the queue",
                    ),
                    said(
                        "nack: a mensagem volta para a fila",
                        "nack: the message goes back to the queue",
                    ),
                ]
            },
            usize::from(status >= 300),
        )
    } else {
        (
            match kind {
                Second::Another => said(
                    "O que o serviço responde ao segundo pedido?",
                    "What does the service answer to the second request?",
                ),
                _ => said(
                    "O que o serviço responde à repetição?",
                    "What does the service answer to the repeat?",
                ),
            },
            const {
                &[
                    said(
                        "Sucesso (2xx), com a cobrança",
                        "Success (2xx), with the charge",
                    ),
                    said(
                        "409: outra tentativa ainda cuida disso",
                        "409: another attempt is still on it",
                    ),
                    said(
                        "Outro erro: 402, 422 ou 5xx",
                        "Another error: 402, 422 or 5xx",
                    ),
                ]
            },
            match status {
                200..=299 => 0,
                409 => 1,
                _ => 2,
            },
        )
    };
    Some(Prompt {
        about: Question::RepeatAnswer,
        ask_at: before - 1,
        reveal_at: frame,
        question,
        choices,
        answer,
    })
}
