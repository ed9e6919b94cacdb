//! Predict, then reveal: every built-in's prompts stop before the step they
//! ask about, and the answers they reveal are the run's.

use lousa_core::builtins::{self, NAMES};
use lousa_core::predict::{Question, prompts};
use lousa_core::trace::EventKind;
use lousa_core::{Scenario, Strategy};

fn with(name: &str, strategy: Strategy) -> Scenario {
    let mut s = builtins::builtin(name).unwrap();
    s.strategy = strategy;
    s
}

/// (question, the answer's English text) of each prompt.
fn answers(name: &str, strategy: Strategy) -> Vec<(Question, String)> {
    let run = lousa_core::run(&with(name, strategy)).unwrap();
    prompts(&run)
        .into_iter()
        .map(|p| (p.about, p.choices[p.answer].en.to_string()))
        .collect()
}

#[test]
fn the_timeout_story_asks_three_questions_and_each_design_answers_its_own() {
    use Question::*;
    assert_eq!(
        answers("timeout-retry", Strategy::CheckThenAct),
        [
            (ChargedTwice, "Yes, the card pays twice".to_string()),
            (
                RepeatFirstStatement,
                "Nothing: to the database, this is a new request".into()
            ),
            (RepeatAnswer, "Success (2xx), with the charge".into()),
        ]
    );
    assert_eq!(
        answers("timeout-retry", Strategy::IdempotencyKey),
        [
            (ChargedTwice, "No, a single charge".to_string()),
            (RepeatFirstStatement, "The first request's row".into()),
            (RepeatAnswer, "409: another attempt is still on it".into()),
        ]
    );
    let held = answers("held-transaction", Strategy::IdempotencyKeyHeldTx);
    assert_eq!(
        held[1],
        (
            RepeatFirstStatement,
            "Nothing yet: it waits for another transaction to end".into()
        )
    );
    let reused = answers("key-reuse", Strategy::IdempotencyKey);
    assert_eq!(
        reused[2],
        (RepeatAnswer, "Another error: 402, 422 or 5xx".into())
    );
    // The stored decline is replayed: an error, and not a 422 or a 5xx.
    let declined = answers("decline-stored", Strategy::IdempotencyKey);
    assert_eq!(
        declined[2],
        (RepeatAnswer, "Another error: 402, 422 or 5xx".into())
    );
}

/// The questions name what the second attempt is: a queue's redelivery is
/// acked or nacked, and a request for another purchase is no repeat, so a
/// charge of each is no double charge.
#[test]
fn the_questions_name_a_redelivery_and_another_purchase_as_such() {
    use Question::*;
    let run = |name, strategy| lousa_core::run(&with(name, strategy)).unwrap();
    let queue = prompts(&run("queue-redelivery", Strategy::IdempotencyKey));
    let answer = queue.iter().find(|p| p.about == RepeatAnswer).unwrap();
    assert_eq!(
        answer.question.en,
        "What does the consumer do with the redelivery?"
    );
    assert_eq!(
        answer.choices[answer.answer].en,
        "nack: the message goes back to the queue"
    );
    for name in [
        "scoped-key",
        "unscoped-key",
        "balance-lost-update",
        "key-reuse",
    ] {
        for strategy in [Strategy::IdempotencyKey, Strategy::CheckThenAct] {
            let r = run(name, strategy);
            let asked = prompts(&r);
            let twice = asked.iter().find(|p| p.about == ChargedTwice).unwrap();
            assert_eq!(
                twice.question.en, "Will either purchase be charged twice?",
                "{name} {strategy}"
            );
            assert_eq!(
                twice.answer == 0,
                !r.summary.double_charged_intents.is_empty(),
                "{name} {strategy}"
            );
            assert!(
                asked.iter().all(|p| !p.question.en.contains("repeat")),
                "{name} {strategy}"
            );
        }
    }
}

#[test]
fn every_prompt_stops_before_its_step_and_reveals_what_the_run_did() {
    let mut asked = 0;
    for name in NAMES {
        for strategy in Strategy::ALL {
            let s = with(name, strategy);
            let run = lousa_core::run(&s).unwrap();
            let ps = prompts(&run);
            for p in &ps {
                assert!(
                    p.ask_at < p.reveal_at && p.reveal_at < run.frame_count(),
                    "{name} {strategy} {p:?}"
                );
                assert!(p.answer < p.choices.len() && (2..=3).contains(&p.choices.len()));
                // A board that shows the card charged twice has answered
                // every question about the repeat's fate.
                assert!(
                    run.state_at(p.ask_at).captures.iter().all(|&c| c < 2),
                    "{name} {strategy}: {:?} asked after the second charge shows",
                    p.about
                );
                for c in p.choices {
                    assert!(!c.pt.is_empty() && !c.en.is_empty());
                }
                if p.about == Question::ChargedTwice {
                    let again = run.events().any(|(_, e)| {
                        matches!(
                            e.kind,
                            EventKind::Captured {
                                captures_for_intent: 2..,
                                ..
                            }
                        )
                    });
                    assert!(
                        !again || p.answer == 0,
                        "{name} {strategy}: a second capture is a yes"
                    );
                    if again {
                        let at = run.state_at(p.reveal_at);
                        assert!(
                            at.captures.iter().any(|&c| c >= 2),
                            "{name} {strategy}: revealed on the board"
                        );
                    }
                }
                asked += 1;
            }
            let repeated = run.summary.attempts.len() > 1;
            assert_eq!(
                !ps.is_empty(),
                repeated,
                "{name} {strategy}: a prompt wherever something repeats"
            );
            assert!(
                ps.windows(2).all(|w| w[0].ask_at <= w[1].ask_at),
                "in the order the board meets them"
            );
        }
    }
    assert!(asked > 400, "{asked} prompts");
}
