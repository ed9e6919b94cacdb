//! Predict, then reveal: the questions of one run (`lousa_core::predict`),
//! which of them are answered, the one being asked, and what the page says
//! about them. The reader's page (when the reader turns the questions on,
//! drawn by `components::QuizPanel`) and the workshop's presenter mode
//! share it.
//!
//! Stepping forward over a question's wait frame stops there and asks; a
//! choice moves the board on, unless another question not answered yet
//! waits on the way, which is asked there first (the questions nest: "will
//! it be charged twice?" is asked before the retry goes out and answered by
//! the second capture, after the retry's first statement has its own
//! question). A step lands on the frame that shows the answer; a jump (a
//! paragraph scrolled to) lands where it aimed. A verdict shows when the
//! board first shows its answer; until then the choice is only noted, so
//! the page never tells what the board has not shown.

use crate::text::{answer_hint, noted, verdict};
use lousa_core::narrate::Lang;
use lousa_core::predict::{Prompt, Question};

/// Where the board goes when it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    To(usize),
    /// To a question's wait frame, to ask it.
    Ask(usize),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quiz {
    prompts: Vec<Prompt>,
    answered: Vec<Option<usize>>,
    asking: Option<usize>,
    /// Where a jump aimed, while its questions are asked; `None` after a
    /// step, whose answer is shown at the question's reveal frame.
    aim: Option<usize>,
    /// Whether the board has shown each answered question's answer since
    /// it was given: a verdict waits for the frame that shows it, or it
    /// would tell what the board has not shown yet.
    revealed: Vec<bool>,
    /// The questions whose answers the last move showed, in the order the
    /// board met their reveals.
    verdicts: Vec<usize>,
    /// The question just answered, while the board has not reached the
    /// frame that shows its answer (a nested question came first).
    noted: Option<usize>,
}

impl Quiz {
    pub fn new(prompts: Vec<Prompt>) -> Quiz {
        Quiz {
            answered: vec![None; prompts.len()],
            revealed: vec![false; prompts.len()],
            prompts,
            ..Quiz::default()
        }
    }

    /// Starts over for another run's questions; the same questions keep
    /// their answers.
    pub fn for_run(&mut self, prompts: &[Prompt]) {
        if self.prompts != prompts {
            *self = Quiz::new(prompts.to_vec());
        }
    }

    /// The question on screen.
    pub fn asking(&self) -> Option<&Prompt> {
        self.asking.map(|i| &self.prompts[i])
    }

    /// The answers the last move showed, while the board has not moved
    /// on: each question and the choice made, in the order of their
    /// reveals.
    pub fn verdicts(&self) -> impl Iterator<Item = (&Prompt, usize)> {
        self.verdicts
            .iter()
            .filter_map(|&i| Some((&self.prompts[i], self.answered[i]?)))
    }

    /// The answer just given, when the board has not shown it yet: the
    /// question and the choice.
    pub fn noted(&self) -> Option<(&Prompt, usize)> {
        let i = self.noted?;
        Some((&self.prompts[i], self.answered[i]?))
    }

    /// Whether there is anything to show: a question, a verdict or a noted
    /// answer.
    pub fn is_quiet(&self) -> bool {
        self.asking.is_none() && self.verdicts.is_empty() && self.noted.is_none()
    }

    /// One step forward from `frame`, the run ending at `last`: the frame
    /// the board goes to, which is `frame` itself when a question waits
    /// there (it is asked) or is being asked.
    pub fn forward(&mut self, frame: usize, last: usize) -> usize {
        if self.asking.is_some() {
            return frame;
        }
        self.close();
        let to = self.go(self.advance(frame, (frame + 1).min(last)));
        self.arrive(to);
        to
    }

    /// One step back from `frame`: closes the question, and forgets the
    /// answers of the questions at or after the frame it goes to.
    pub fn back(&mut self, frame: usize) -> usize {
        let to = frame.saturating_sub(1);
        self.seek(to);
        to
    }

    /// The board put at `frame` by other means than a step (entering
    /// presenter mode, a jump to the start): nothing asked, and what comes
    /// after is asked again.
    pub fn seek(&mut self, frame: usize) {
        self.close();
        for (p, a) in self.prompts.iter().zip(&mut self.answered) {
            if p.ask_at >= frame {
                *a = None;
            }
        }
        self.unreveal_after(frame);
    }

    /// Nothing asked and no verdict; the answers stay.
    pub fn close(&mut self) {
        self.asking = None;
        self.aim = None;
        self.verdicts.clear();
        self.noted = None;
    }

    /// The board went back to `frame`: the answers it shows later are
    /// shown again when it gets there.
    fn unreveal_after(&mut self, frame: usize) {
        for (p, r) in self.prompts.iter().zip(&mut self.revealed) {
            if p.reveal_at > frame {
                *r = false;
            }
        }
    }

    /// The board arrived at `frame`: the answers given whose reveal it has
    /// reached get their verdicts.
    fn arrive(&mut self, frame: usize) {
        for i in 0..self.prompts.len() {
            let reveal = self.prompts[i].reveal_at;
            if reveal <= frame && self.answered[i].is_some() && !self.revealed[i] {
                self.revealed[i] = true;
                // In the order of their reveals (a list of three at most).
                let prompts = &self.prompts;
                let at = self
                    .verdicts
                    .iter()
                    .take_while(|&&j| prompts[j].reveal_at <= reveal);
                self.verdicts.insert(at.count(), i);
            }
        }
    }

    /// The board sent from `from` to `to` in one move (a paragraph
    /// scrolled to): the frame it goes to. Forward, it stops at the first
    /// question not answered on the way and asks it; once answered, the
    /// board goes on to `to`. While a question is asked, a later `to` only
    /// moves the aim, and an earlier one closes the question. Answers are
    /// never forgotten: a reader scrolling back and forth is asked once.
    pub fn jump(&mut self, from: usize, to: usize) -> usize {
        if let Some(i) = self.asking {
            let at = self.prompts[i].ask_at;
            if to < at {
                self.close();
                return to;
            }
            self.aim = Some(to);
            return at;
        }
        self.close();
        if to <= from {
            self.unreveal_after(to);
            return to;
        }
        self.aim = Some(to);
        let at = self.go(self.advance(from, to));
        self.arrive(at);
        at
    }

    /// Answers the question being asked with `choice`: the frame the board
    /// goes to, or `None` when nothing is asked or there is no such choice.
    pub fn answer(&mut self, choice: usize) -> Option<usize> {
        let i = self.asking?;
        let p = &self.prompts[i];
        if choice >= p.choices.len() {
            return None;
        }
        let (from, to) = (p.ask_at, self.aim.unwrap_or(p.reveal_at).max(p.ask_at));
        self.answered[i] = Some(choice);
        self.asking = None;
        self.verdicts.clear();
        let at = self.go(self.advance(from, to));
        self.arrive(at);
        self.noted = (!self.revealed[i]).then_some(i);
        Some(at)
    }

    /// Toward `to` from `from`, stopping at the first question not answered
    /// whose wait frame is on the way (`from` included, `to` not).
    fn advance(&self, from: usize, to: usize) -> Move {
        let mut first: Option<usize> = None;
        for (i, p) in self.prompts.iter().enumerate() {
            let open = self.answered[i].is_none() && p.ask_at >= from && p.ask_at < to;
            if open && first.is_none_or(|f| p.ask_at < self.prompts[f].ask_at) {
                first = Some(i);
            }
        }
        first.map_or(Move::To(to), Move::Ask)
    }

    fn go(&mut self, to: Move) -> usize {
        match to {
            Move::To(frame) => {
                self.aim = None;
                frame
            }
            Move::Ask(i) => {
                self.asking = Some(i);
                self.prompts[i].ask_at
            }
        }
    }
}

/// A question's name in the pages' attributes (`data-about`).
pub fn about(q: Question) -> &'static str {
    match q {
        Question::RepeatFirstStatement => "repeat-first-statement",
        Question::ChargedTwice => "charged-twice",
        Question::RepeatAnswer => "repeat-answer",
    }
}

/// What the page says after `chosen` was picked for `prompt`: right, the
/// answer and the step that shows it; wrong, also the choice.
pub fn verdict_text(prompt: &Prompt, chosen: usize, lang: Lang) -> String {
    let answer = prompt.choices[prompt.answer].get(lang);
    let wrong = (chosen != prompt.answer).then(|| prompt.choices[chosen].get(lang));
    verdict(lang, answer, wrong, prompt.reveal_at)
}

/// What the page says after a choice whose answer the board has not shown
/// yet: the choice and the step that will show it.
pub fn noted_text(prompt: &Prompt, chosen: usize, lang: Lang) -> String {
    let chosen = prompt.choices[chosen].get(lang);
    noted(lang, chosen, prompt.reveal_at)
}

/// Below a question: how to answer it.
pub fn hint_text(prompt: &Prompt, lang: Lang) -> String {
    answer_hint(lang, prompt.choices.len())
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

    /// What the panel shows as a room answers: nothing, then the question
    /// and its choices, then the choice noted (not judged) beside the
    /// nested question, then the verdict.
    #[test]
    fn a_question_is_asked_noted_then_judged() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        assert!(q.is_quiet(), "nothing asked, nothing shown");
        forward_to_question(&mut q, 0, last);
        let asked = q.asking().expect("asked");
        assert_eq!(
            asked.question.get(Lang::Pt),
            "A mesma compra vai ser cobrada duas vezes?"
        );
        assert_eq!(asked.choices[1].get(Lang::Pt), "Não, uma cobrança só");
        assert!(q.verdicts().next().is_none());
        q.answer(1);
        let (prompt, chosen) = q.noted().expect("noted until the board shows it");
        assert!(
            noted_text(prompt, chosen, Lang::En).contains("Answer noted: “No, a single charge”.")
        );
        assert!(q.verdicts().next().is_none());
        assert_eq!(
            q.asking().map(|p| p.question.get(Lang::En)),
            Some("The repeat reaches the database. What does its first statement find?")
        );
        q.answer(0);
        let judged: Vec<String> = q
            .verdicts()
            .map(|(p, chosen)| verdict_text(p, chosen, Lang::En))
            .collect();
        assert!(judged.iter().any(|v| v.starts_with("Right!")), "{judged:?}");
    }

    #[test]
    fn stepping_stops_at_each_question_in_turn_and_a_choice_reveals() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        let prompts = q.prompts.clone();
        assert!(prompts.len() >= 3, "{prompts:?}");
        let mut frame = forward_to_question(&mut q, 0, last);
        assert_eq!(frame, prompts[0].ask_at);
        // Asked, forward waits for an answer, and a choice past the end is
        // no answer.
        assert_eq!(q.forward(frame, last), frame);
        assert_eq!(q.answer(9), None);
        // The first question (charged twice?) is answered by a later frame
        // than the next question's wait: the board stops there and asks it.
        assert_eq!(q.asking().unwrap().about, Question::ChargedTwice);
        frame = q.answer(prompts[0].answer).unwrap();
        // Its answer is noted, not judged: the board has not shown it yet.
        assert_eq!(q.verdicts().count(), 0, "no verdict before the reveal");
        assert_eq!(q.noted().unwrap().1, prompts[0].answer);
        let nested = *q.asking().expect("the nested question");
        assert_eq!(frame, nested.ask_at);
        assert!(nested.ask_at < prompts[0].reveal_at);
        // Answered, it reveals its own frame and is judged there.
        frame = q.answer(1).unwrap();
        assert_eq!(frame, nested.reveal_at);
        assert!(q.asking().is_none() && q.noted().is_none());
        let judged: Vec<Question> = q.verdicts().map(|(p, _)| p.about).collect();
        assert_eq!(judged, [nested.about]);
        frame = q.forward(frame, last);
        assert!(q.is_quiet(), "a step clears the verdict");
        while q.asking().is_none() && frame < last {
            frame = q.forward(frame, last);
            // The first question is judged on the step that reaches its
            // reveal, and on no other.
            let judged = q.verdicts().any(|(p, _)| p.about == Question::ChargedTwice);
            assert_eq!(judged, frame == prompts[0].reveal_at, "at {frame}");
        }
        let third = *q.asking().expect("the third question");
        assert_eq!(third.about, Question::RepeatAnswer);
        assert!(
            third.ask_at < prompts[0].reveal_at,
            "asked before the board shows the second charge"
        );
        assert_eq!(q.answer(0), Some(third.reveal_at));
        // That move shows both answers: the second charge, then the reply.
        let judged: Vec<Question> = q.verdicts().map(|(p, _)| p.about).collect();
        assert_eq!(judged, [Question::ChargedTwice, Question::RepeatAnswer]);
        // To the end: no question is asked twice.
        frame = third.reveal_at;
        while frame < last {
            frame = q.forward(frame, last);
            assert!(q.asking().is_none(), "asked again at {frame}");
        }
        assert_eq!(q.forward(last, last), last);
    }

    #[test]
    fn going_back_before_a_question_asks_it_again() {
        let (mut q, last) = quiz("timeout-retry", Strategy::IdempotencyKey);
        let first = forward_to_question(&mut q, 0, last);
        let mut frame = q.answer(0).unwrap();
        let second = *q.asking().expect("a nested question");
        while let Some(p) = q.asking() {
            frame = q.answer(p.answer).unwrap();
        }
        assert_eq!(frame, second.reveal_at);
        // Back to the second question's wait frame forgets its answer only.
        while frame > second.ask_at {
            frame = q.back(frame);
        }
        assert!(q.asking().is_none(), "back asks nothing");
        assert_eq!(q.forward(frame, last), second.ask_at);
        assert_eq!(q.asking(), Some(&second));
        frame = q.answer(second.answer).unwrap();
        // Back to the first one's wait frame: asked again.
        while frame > first {
            frame = q.back(frame);
        }
        assert_eq!(q.forward(frame, last), first);
        assert_eq!(q.asking().unwrap().about, Question::ChargedTwice);
        // Back while asked closes the question.
        assert_eq!(q.back(first), first - 1);
        assert!(q.asking().is_none());
    }

    #[test]
    fn a_jump_asks_on_the_way_then_lands_where_it_aimed() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        let prompts = q.prompts.clone();
        // From the start to the end in one move: each question in the order
        // the board meets them, then the end.
        let mut frame = q.jump(0, last);
        assert_eq!(frame, prompts[0].ask_at);
        // Scrolling on while asked moves the aim, not the board; scrolling
        // back before the question closes it.
        assert_eq!(q.jump(frame, last - 1), frame);
        assert_eq!(q.jump(frame, frame - 1), frame - 1);
        assert!(q.asking().is_none());
        frame = q.jump(frame - 1, last);
        let mut asked = Vec::new();
        while let Some(p) = q.asking() {
            asked.push(p.ask_at);
            let choice = p.answer;
            frame = q.answer(choice).unwrap();
        }
        let mut want: Vec<usize> = prompts.iter().map(|p| p.ask_at).collect();
        want.sort();
        assert_eq!(asked, want);
        assert_eq!(frame, last, "landed where the jump aimed");
        // Answers stay: back and forth again asks nothing, and a jump back
        // is only a move.
        assert_eq!(q.jump(last, 0), 0);
        assert_eq!(q.jump(0, last), last);
        assert!(q.asking().is_none());
        // A jump short of the first reveal lands there, not at the reveal.
        let (mut q, _) = quiz("timeout-retry", Strategy::CheckThenAct);
        let aim = prompts[0].ask_at + 1;
        assert_eq!(q.jump(0, aim), prompts[0].ask_at);
        assert_eq!(q.answer(0), Some(aim));
    }

    #[test]
    fn another_run_starts_over_and_the_same_run_keeps_its_answers() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        forward_to_question(&mut q, 0, last);
        q.answer(0);
        let same = q.prompts.clone();
        let before = q.clone();
        q.for_run(&same);
        assert_eq!(q, before);
        let (other, _) = quiz("timeout-retry", Strategy::Naive);
        q.for_run(&other.prompts);
        assert_eq!(q, other);
        // No questions (a run with no repeat): stepping just steps.
        let mut none = Quiz::new(Vec::new());
        assert_eq!(none.forward(0, 5), 1);
        assert_eq!(none.forward(5, 5), 5);
        assert!(none.asking().is_none() && none.answer(0).is_none());
    }

    #[test]
    fn every_built_in_asks_every_question_once_on_the_way_to_the_end() {
        for (name, strategy) in builtins::NAMES
            .iter()
            .flat_map(|n| Strategy::ALL.iter().map(move |s| (*n, *s)))
        {
            let (mut q, last) = quiz(name, strategy);
            let mut frame = 0;
            let mut asked = Vec::new();
            for _ in 0..10 * (last + 1) {
                if let Some(p) = q.asking() {
                    asked.push(p.about);
                    frame = q.answer(p.answer).unwrap();
                } else if frame == last {
                    break;
                } else {
                    frame = q.forward(frame, last);
                }
            }
            assert_eq!(frame, last, "{name} {strategy} reaches its end");
            let mut want: Vec<Question> = q.prompts.iter().map(|p| p.about).collect();
            asked.sort_by_key(|a| about(*a));
            want.sort_by_key(|a| about(*a));
            assert_eq!(asked, want, "{name} {strategy}");
        }
    }

    #[test]
    fn a_verdict_names_the_right_answer_and_a_wrong_choice() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        forward_to_question(&mut q, 0, last);
        let prompt = *q.asking().expect("asked");
        let right = verdict_text(&prompt, prompt.answer, Lang::Pt);
        let wrong_choice = usize::from(prompt.answer == 0);
        let wrong = verdict_text(&prompt, wrong_choice, Lang::En);
        let answer = prompt.choices[prompt.answer].get(Lang::Pt);
        assert_eq!(
            right,
            format!(
                "Acertou! A resposta é “{answer}”: veja o passo {}.",
                prompt.reveal_at
            )
        );
        let (answer, chosen) = (
            prompt.choices[prompt.answer].get(Lang::En),
            prompt.choices[wrong_choice].get(Lang::En),
        );
        assert!(
            wrong.contains(&format!("“{answer}”, not “{chosen}”.")),
            "{wrong}"
        );
        assert_eq!(
            hint_text(&prompt, Lang::Pt),
            format!(
                "Escolha com as teclas 1 a {}; a lousa revela em seguida.",
                prompt.choices.len()
            )
        );
    }
}
