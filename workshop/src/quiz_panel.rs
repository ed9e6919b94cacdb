//! The presenter's question panel as markup: the question being asked,
//! its choices as buttons, the verdicts of the answers just shown and the
//! answer noted until the board shows it. The logic
//! is lousa-web's `quiz::Quiz`, which the reader's page renders with
//! Leptos components; the presenter writes this markup whole (one of the
//! workshop's `inner_html` islands, issue #28) and dispatches a choice by
//! its `data-action="answer"` and `data-choice`.

use lousa_core::narrate::Lang;
use lousa_web::markup::fill;
use lousa_web::quiz::{Quiz, about};
use lousa_web::text::{answer_hint, noted, verdict};

const VERDICT: &str = r#"<p class="§" data-testid="verdict" data-right="§" role="status">"#;
const NOTED: &str = r#"<p class="quiz-noted" data-testid="noted" data-about="§">"#;
const PROMPT: &str = r#"<section class="quiz-prompt" data-testid="prompt" data-about="§" data-ask-at="§" aria-label="§"><p class="quiz-question" data-testid="prompt-question">§</p><p class="quiz-choices">"#;
const CHOICE: &str = r#"<button type="button" class="quiz-choice" data-testid="prompt-choice" data-action="answer" data-choice="§"><kbd>§</kbd><span> §</span></button>"#;

/// The question being asked, with its choices as buttons, and the verdict
/// of the last answer, as markup (`label` names the question for a screen
/// reader); empty when there is neither. A choice's button carries
/// `data-action="answer"` and its index in `data-choice`.
pub fn quiz_markup(q: &Quiz, label: &str, lang: Lang) -> String {
    let mut out = String::new();
    if q.is_quiet() {
        return out;
    }
    out.push_str(r#"<div class="quiz">"#);
    for (prompt, chosen) in q.verdicts() {
        let right = chosen == prompt.answer;
        let (class, flag) = if right {
            ("quiz-verdict", "true")
        } else {
            ("quiz-verdict wrong", "false")
        };
        fill(&mut out, VERDICT, &[class, flag]);
        let answer = prompt.choices[prompt.answer].get(lang);
        let step = prompt.reveal_at.to_string();
        if right {
            fill(&mut out, verdict(true, lang), &[answer, &step]);
        } else {
            let chosen = prompt.choices[chosen].get(lang);
            fill(&mut out, verdict(false, lang), &[answer, chosen, &step]);
        }
        out.push_str("</p>");
    }
    if let Some((prompt, chosen)) = q.noted() {
        fill(&mut out, NOTED, &[about(prompt.about)]);
        let step = prompt.reveal_at.to_string();
        fill(
            &mut out,
            noted(lang),
            &[prompt.choices[chosen].get(lang), &step],
        );
        out.push_str("</p>");
    }
    if let Some(prompt) = q.asking() {
        let at = prompt.ask_at.to_string();
        let question = prompt.question.get(lang);
        fill(
            &mut out,
            PROMPT,
            &[about(prompt.about), &at, label, question],
        );
        for (i, c) in prompt.choices.iter().enumerate() {
            let (index, key) = (i.to_string(), (i + 1).to_string());
            fill(&mut out, CHOICE, &[&index, &key, c.get(lang)]);
        }
        out.push_str(r#"</p><p class="quiz-hint">"#);
        let count = prompt.choices.len().to_string();
        fill(&mut out, answer_hint(lang), &[&count]);
        out.push_str("</p></section>");
    }
    out.push_str("</div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::{Strategy, builtins, predict, run};

    fn quiz(name: &str, strategy: Strategy) -> (Quiz, usize) {
        let mut s = builtins::builtin(name).unwrap();
        s.strategy = strategy;
        let run = run::run(&s).unwrap();
        (Quiz::new(predict::prompts(&run)), run.frame_count() - 1)
    }

    /// Presses forward from `frame` until a question is asked: its frame.
    fn forward_to_question(q: &mut Quiz, mut frame: usize, last: usize) -> usize {
        while q.asking().is_none() {
            assert!(frame < last, "no question before the end");
            frame = q.forward(frame, last);
        }
        frame
    }

    #[test]
    fn the_panel_shows_the_question_its_choices_and_then_the_verdict() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        assert_eq!(
            quiz_markup(&q, "", Lang::Pt),
            "",
            "nothing asked, nothing shown"
        );
        forward_to_question(&mut q, 0, last);
        let asked = quiz_markup(&q, "Pergunta", Lang::Pt);
        assert!(
            asked.contains("A mesma compra vai ser cobrada duas vezes?"),
            "{asked}"
        );
        assert!(
            asked.contains(
                r#"data-action="answer" data-choice="1"><kbd>2</kbd><span> Não, uma cobrança só</span>"#
            ),
            "{asked}"
        );
        assert!(asked.contains(r#"aria-label="Pergunta""#), "{asked}");
        assert!(!asked.contains("verdict"), "{asked}");
        q.answer(1);
        let answered = quiz_markup(&q, "", Lang::En);
        // The board has not shown the answer yet: the choice is noted, not
        // judged, and the nested question is asked beside it.
        assert!(
            answered.contains(r#"data-testid="noted""#)
                && answered.contains("Answer noted: “No, a single charge”.")
                && !answered.contains("verdict"),
            "{answered}"
        );
        assert!(
            answered.contains("What does its first statement find?"),
            "{answered}"
        );
        // Answered, the nested question is judged at its reveal.
        q.answer(0);
        let judged = quiz_markup(&q, "", Lang::En);
        assert!(
            judged.contains(r#"class="quiz-verdict""#) && judged.contains("Right!"),
            "{judged}"
        );
    }
}
