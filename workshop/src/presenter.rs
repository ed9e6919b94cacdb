//! Presenter mode (`&apresentar=1`): the board and its narration fill the
//! screen in type a room can read, the keys walk the whole run (the choices
//! made, then first come, first served), and at each decisive step the page
//! asks the room what happens next before it shows it.
//!
//! Predict, then reveal: the questions are lousa-core's (`predict::prompts`),
//! answered by the run itself. Stepping forward over a question's wait frame
//! stops there and asks; a choice gets a verdict and moves the board to the
//! frame that shows the answer, unless another question not answered yet
//! waits on the way, which is asked there first (the questions nest: "will
//! it be charged twice?" is asked before the retry goes out and answered by
//! the second capture, after the retry's first statement has its own
//! question). Going back before a question forgets its answer, so it is
//! asked again. [`Quiz`] is that logic without signals, tested natively.
//!
//! The scheduler's keys are off in presenter mode: digits answer the
//! question, F is full screen, and the room does not pick interleavings.

use crate::board::WIDTH;
use crate::state::Ws;
use crate::texts::{answer_hint, presenting, verdict, words};
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::predict::{self, Prompt, Question};
use lousa_core::run::Run;
use lousa_core::scenario::Text;
use lousa_web::board;
use lousa_web::markup::{El, el};
use wasm_bindgen::JsCast;

/// The widths the presenter may draw the board for: a narrower drawing is
/// taller and its text larger once scaled, which suits a screen that is not
/// much wider than the board. The narrowest still keeps every table
/// column (lousa-web drops some on a narrower board).
const WIDTHS: [i32; 4] = [480, 560, 640, 760];

/// Where the board goes when it moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Move {
    To(usize),
    /// To a question's wait frame, to ask it.
    Ask(usize),
}

/// The questions of one run, which of them are answered and how, the one
/// being asked and the last verdict.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quiz {
    prompts: Vec<Prompt>,
    answered: Vec<Option<usize>>,
    asking: Option<usize>,
    verdict: Option<(usize, usize)>,
}

impl Quiz {
    pub fn new(prompts: Vec<Prompt>) -> Quiz {
        Quiz {
            answered: vec![None; prompts.len()],
            prompts,
            asking: None,
            verdict: None,
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

    /// The last answer given, while the board has not moved on: the
    /// question and the choice.
    pub fn verdict(&self) -> Option<(&Prompt, usize)> {
        self.verdict.map(|(i, c)| (&self.prompts[i], c))
    }

    /// One step forward from `frame`, the run ending at `last`: the frame
    /// the board goes to, which is `frame` itself when a question waits
    /// there (it is asked) or is being asked.
    pub fn forward(&mut self, frame: usize, last: usize) -> usize {
        if self.asking.is_some() {
            return frame;
        }
        self.verdict = None;
        self.go(self.advance(frame, (frame + 1).min(last)))
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
        self.asking = None;
        self.verdict = None;
        for (p, a) in self.prompts.iter().zip(&mut self.answered) {
            if p.ask_at >= frame {
                *a = None;
            }
        }
    }

    /// Answers the question being asked with `choice`: the frame the board
    /// goes to, or `None` when nothing is asked or there is no such choice.
    pub fn answer(&mut self, choice: usize) -> Option<usize> {
        let i = self.asking?;
        let p = &self.prompts[i];
        if choice >= p.choices.len() {
            return None;
        }
        let (from, to) = (p.ask_at, p.reveal_at.max(p.ask_at));
        self.answered[i] = Some(choice);
        self.asking = None;
        self.verdict = Some((i, choice));
        Some(self.go(self.advance(from, to)))
    }

    /// Toward `to` from `from`, stopping at the first question not answered
    /// whose wait frame is on the way (`from` included, `to` not).
    fn advance(&self, from: usize, to: usize) -> Move {
        self.prompts
            .iter()
            .enumerate()
            .filter(|(i, p)| self.answered[*i].is_none() && p.ask_at >= from && p.ask_at < to)
            .min_by_key(|(i, p)| (p.ask_at, *i))
            .map_or(Move::To(to), |(i, _)| Move::Ask(i))
    }

    fn go(&mut self, to: Move) -> usize {
        match to {
            Move::To(frame) => frame,
            Move::Ask(i) => {
                self.asking = Some(i);
                self.prompts[i].ask_at
            }
        }
    }
}

/// The drawing width whose board, scaled to fit an area `area` (width,
/// height) in CSS pixels, comes out largest; `sizes` are (width, tallest
/// frame) pairs. A tie goes to the wider drawing; no area yet, the widest.
pub fn fit_width(area: (f64, f64), sizes: &[(i32, i32)]) -> i32 {
    let widest = sizes.iter().map(|s| s.0).max().unwrap_or(WIDTHS[3]);
    if area.0 <= 0.0 || area.1 <= 0.0 {
        return widest;
    }
    let scale = |(w, h): (i32, i32)| (area.0 / f64::from(w)).min(area.1 / f64::from(h.max(1)));
    sizes
        .iter()
        .copied()
        .max_by(|a, b| scale(*a).total_cmp(&scale(*b)).then(a.0.cmp(&b.0)))
        .map_or(widest, |s| s.0)
}

/// Presenter mode's signals, beside the workshop's; `Copy`, in context.
#[derive(Clone, Copy)]
pub struct Presenter {
    pub quiz: RwSignal<Quiz>,
    pub blank: RwSignal<bool>,
    /// The run on the board (the branch's, when it shows), in presenter
    /// mode only.
    shown: Memo<Option<Run>>,
    /// The width to draw the board for: [`WIDTH`], or in presenter mode
    /// the one that fits the screen ([`PresenterBar`] measures it).
    pub width: RwSignal<i32>,
}

impl Presenter {
    pub fn new(ws: Ws) -> Presenter {
        let shown = Memo::new(move |_| {
            if ws.presenting.get() {
                ws.shown_run()
            } else {
                None
            }
        });
        let quiz = RwSignal::new(Quiz::default());
        // Another run (another scenario, strategy, choices or the branch)
        // asks anew.
        Effect::new(move |_| {
            let prompts = shown.with(|r| r.as_ref().map(predict::prompts).unwrap_or_default());
            quiz.update(|q| q.for_run(&prompts));
        });
        Presenter {
            quiz,
            blank: RwSignal::new(false),
            shown,
            width: RwSignal::new(WIDTH),
        }
    }

    pub fn enter(&self, ws: Ws) {
        ws.present(true);
        self.quiz.update(|q| q.seek(0));
    }

    /// Leaves presenter mode, and full screen with it; the question on
    /// screen closes.
    pub fn leave(&self, ws: Ws) {
        self.blank.set(false);
        self.width.set(WIDTH);
        self.quiz.update(|q| q.seek(usize::MAX));
        ws.present(false);
        if document().fullscreen_element().is_some() {
            call(document().as_ref(), "exitFullscreen");
        }
    }

    pub fn forward(&self, ws: Ws) {
        let (frame, last) = untrack(|| (ws.frame(), ws.last_frame()));
        let to = self.quiz.try_update(|q| q.forward(frame, last));
        ws.seek(to.unwrap_or(frame));
    }

    pub fn back(&self, ws: Ws) {
        let frame = untrack(|| ws.frame());
        let to = self.quiz.try_update(|q| q.back(frame));
        ws.seek(to.unwrap_or(frame));
    }

    pub fn answer(&self, ws: Ws, choice: usize) {
        if let Some(Some(to)) = self.quiz.try_update(|q| q.answer(choice)) {
            ws.seek(to);
        }
    }

    pub fn start(&self, ws: Ws) {
        self.quiz.update(|q| q.seek(0));
        ws.seek(0);
    }
}

/// A presenter-mode key: whether it was one. While the screen is blank,
/// any key only brings it back.
pub fn key(ws: Ws, p: Presenter, key: &str) -> bool {
    if p.blank.get_untracked() {
        p.blank.set(false);
        return true;
    }
    match key {
        "n" | "N" | "ArrowRight" | "PageDown" => p.forward(ws),
        "p" | "P" | "ArrowLeft" | "PageUp" => p.back(ws),
        "Home" => p.start(ws),
        "b" | "B" | "." => p.blank.set(true),
        "f" | "F" => toggle_fullscreen(),
        "Escape" => p.leave(ws),
        "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" => {
            let n: usize = key.parse().expect("a digit");
            p.answer(ws, n - 1);
        }
        _ => return false,
    }
    true
}

/// Asks for full screen, or leaves it. The browser may refuse (no user
/// gesture, a policy): the page stays as it is, and says nothing.
pub fn toggle_fullscreen() {
    let doc = document();
    if doc.fullscreen_element().is_some() {
        call(doc.as_ref(), "exitFullscreen");
    } else if let Some(root) = doc.document_element() {
        call(root.as_ref(), "requestFullscreen");
    }
}

/// Calls `method` on `target` and waits on the promise it returns, so that
/// a refusal is handled rather than reported as an uncaught rejection
/// (web-sys's bindings of these two drop the promise).
fn call(target: &wasm_bindgen::JsValue, method: &str) {
    let Ok(f) = js_sys::Reflect::get(target, &method.into()) else {
        return;
    };
    let Ok(f) = f.dyn_into::<js_sys::Function>() else {
        return;
    };
    if let Ok(promise) = f.call0(target).map(js_sys::Promise::from) {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
        });
    }
}

fn say(t: &Text, lang: Lang) -> &str {
    match lang {
        Lang::Pt => &t.pt,
        Lang::En => &t.en,
    }
}

/// A question's name in the page's attributes.
fn about(q: Question) -> &'static str {
    match q {
        Question::RepeatFirstStatement => "repeat-first-statement",
        Question::ChargedTwice => "charged-twice",
        Question::RepeatAnswer => "repeat-answer",
    }
}

/// The question being asked, with its choices as buttons, and the verdict
/// of the last answer, as markup: the panel is written whole when the quiz
/// changes, which costs the workshop's wasm far less than a reactive view
/// per element would.
pub fn quiz_markup(q: &Quiz, lang: Lang) -> String {
    if q.verdict().is_none() && q.asking().is_none() {
        return String::new();
    }
    let mut root = el("div");
    root.class("presenter-quiz");
    if let Some((prompt, chosen)) = q.verdict() {
        let right = chosen == prompt.answer;
        root.add("p")
            .class(if right {
                "presenter-verdict"
            } else {
                "presenter-verdict wrong"
            })
            .attr("data-testid", "verdict")
            .attr("data-right", if right { "true" } else { "false" })
            .attr("role", "status")
            .text(&verdict(
                right,
                say(&prompt.choices[prompt.answer], lang),
                say(&prompt.choices[chosen], lang),
                prompt.reveal_at,
                lang,
            ));
    }
    if let Some(prompt) = q.asking() {
        let asked = root.add("section");
        asked
            .class("presenter-prompt")
            .attr("data-testid", "prompt")
            .attr("data-about", about(prompt.about))
            .attr("data-ask-at", &prompt.ask_at.to_string())
            .attr("aria-label", presenting(lang).question_label);
        asked
            .add("p")
            .class("prompt-question")
            .attr("data-testid", "prompt-question")
            .text(say(&prompt.question, lang));
        let row = asked.add("p");
        row.class("prompt-choices");
        for (i, c) in prompt.choices.iter().enumerate() {
            let button = row.add("button");
            button
                .class("prompt-choice")
                .attr("data-testid", "prompt-choice")
                .attr("data-choice", &i.to_string());
            button.add("kbd").text(&(i + 1).to_string());
            button.add("span").text(&format!(" {}", say(c, lang)));
        }
        asked
            .add("p")
            .class("prompt-hint")
            .text(&answer_hint(prompt.choices.len(), lang));
    }
    root.markup()
}

/// The bar above the board, as markup (rewritten at each step, which is
/// cheaper in the wasm than a view): the steps, where the board stands,
/// the keys, full screen and the way out. Its buttons name their action.
pub fn bar_markup(frame: usize, last: usize, lang: Lang) -> String {
    let (t, w) = (presenting(lang), words(lang));
    // A holder: the bar's children are what it writes.
    let mut bar = el("span");
    let button = |bar: &mut El, action: &str, label: &str, text: &str| {
        bar.add("button")
            .attr("data-action", action)
            .attr("data-testid", &format!("presenter-{action}"))
            .attr("title", label)
            .attr("aria-label", label)
            .text(text);
    };
    button(&mut bar, "back", t.back, "←");
    button(&mut bar, "forward", t.forward, "→");
    bar.add("span")
        .class("presenter-counter")
        .attr("data-testid", "presenter-counter")
        .text(&format!("{} {frame} {} {last}", w.frame_word, w.of_word));
    bar.add("span").class("presenter-hint").text(t.hint);
    button(&mut bar, "fullscreen", t.fullscreen, t.fullscreen);
    button(&mut bar, "leave", t.leave, t.leave);
    bar.kids.iter().map(El::markup).collect()
}

/// The `name` attribute of the element clicked, or of the nearest element
/// around it that has one.
fn attribute_of(e: &web_sys::MouseEvent, name: &str) -> Option<String> {
    let target: web_sys::Element = e.target()?.dyn_into().ok()?;
    target
        .closest(&format!("[{name}]"))
        .ok()??
        .get_attribute(name)
}

/// The bar above the board in presenter mode ([`bar_markup`]) and the
/// black screen B leaves. Mounted on entering presenter mode, whose screen has no
/// language button: its words are read once.
#[component]
pub fn PresenterBar() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    let lang = ws.lang.get_untracked();
    let t = presenting(lang);
    // Fit the board's width to its box once the layout is the presenter's,
    // and again on resize or for another run, with the room a question
    // takes counted as the board's: a question shrinks the drawing but never
    // redraws it at another width.
    let resized = RwSignal::new(0u32);
    Effect::new(move |_| {
        resized.track();
        let lang = ws.lang.get();
        let sizes: Vec<(i32, i32)> = p.shown.with(|r| {
            r.as_ref().map_or_else(Vec::new, |r| {
                WIDTHS
                    .iter()
                    .map(|&w| (w, board::frames(r, w, lang).0.tallest))
                    .collect()
            })
        });
        let rect = |selector: &str| {
            document()
                .query_selector(selector)
                .ok()
                .flatten()
                .map(|el| el.get_bounding_client_rect())
        };
        let Some(wrap) = rect("[data-testid=workshop-board-wrap]") else {
            return;
        };
        let quiz = rect(".presenter-quiz").map_or(0.0, |r| r.height());
        p.width
            .set(fit_width((wrap.width(), wrap.height() + quiz), &sizes));
    });
    let handle = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n += 1);
    });
    on_cleanup(move || handle.remove());
    let act = move |e: web_sys::MouseEvent| match attribute_of(&e, "data-action").as_deref() {
        Some("back") => p.back(ws),
        Some("forward") => p.forward(ws),
        Some("fullscreen") => toggle_fullscreen(),
        Some("leave") => p.leave(ws),
        _ => {}
    };
    view! {
        <p
            class="presenter-bar"
            data-testid="presenter-bar"
            on:click=act
            inner_html=move || bar_markup(ws.frame(), ws.last_frame(), lang)
        ></p>
        <div
            class="presenter-blank"
            data-testid="blank"
            role="button"
            aria-label=t.blanked
            prop:hidden=move || !p.blank.get()
            on:click=move |_| p.blank.set(false)
        ></div>
    }
}

/// Where [`quiz_markup`] goes; a click on a choice answers it.
#[component]
pub fn QuizPanel() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    view! {
        <div
            class="presenter-quiz-slot"
            on:click=move |e| {
                if let Some(i) = attribute_of(&e, "data-choice").and_then(|c| c.parse().ok()) {
                    p.answer(ws, i);
                }
            }
            inner_html=move || {
                let lang = ws.lang.get();
                p.quiz.with(|q| quiz_markup(q, lang))
            }
        ></div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::{Strategy, builtins, run};

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
        assert_eq!(q.verdict().unwrap().1, prompts[0].answer);
        let nested = q.asking().expect("the nested question").clone();
        assert_eq!(frame, nested.ask_at);
        assert!(nested.ask_at < prompts[0].reveal_at);
        // Answered, it reveals its own frame, and stepping on passes the
        // first question's reveal without asking anything.
        frame = q.answer(1).unwrap();
        assert_eq!(frame, nested.reveal_at);
        assert!(q.asking().is_none());
        frame = q.forward(frame, last);
        assert!(q.verdict().is_none(), "a step clears the verdict");
        while q.asking().is_none() && frame < last {
            frame = q.forward(frame, last);
        }
        let third = q.asking().expect("the third question").clone();
        assert_eq!(third.about, Question::RepeatAnswer);
        assert_eq!(q.answer(0), Some(third.reveal_at));
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
        let second = q.asking().expect("a nested question").clone();
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
    fn the_panel_shows_the_question_its_choices_and_then_the_verdict() {
        let (mut q, last) = quiz("timeout-retry", Strategy::CheckThenAct);
        assert_eq!(
            quiz_markup(&q, Lang::Pt),
            "",
            "nothing asked, nothing shown"
        );
        forward_to_question(&mut q, 0, last);
        let asked = quiz_markup(&q, Lang::Pt);
        assert!(
            asked.contains("A mesma compra vai ser cobrada duas vezes?"),
            "{asked}"
        );
        assert!(
            asked.contains(r#"data-choice="1"><kbd>2</kbd><span> Não, uma cobrança só</span>"#),
            "{asked}"
        );
        assert!(!asked.contains("verdict"), "{asked}");
        q.answer(1);
        let answered = quiz_markup(&q, Lang::En);
        assert!(
            answered.contains(r#"class="presenter-verdict wrong""#)
                && answered.contains("Not this time"),
            "{answered}"
        );
        // The nested question is asked beside the verdict.
        assert!(
            answered.contains("What does its first statement find?"),
            "{answered}"
        );
    }

    #[test]
    fn the_bar_says_where_the_board_stands_and_names_each_action() {
        let bar = bar_markup(8, 33, Lang::Pt);
        assert!(bar.contains(">Passo 8 de 33<"), "{bar}");
        for action in ["back", "forward", "fullscreen", "leave"] {
            assert!(bar.contains(&format!(r#"data-action="{action}""#)), "{bar}");
        }
        assert!(bar_markup(0, 5, Lang::En).contains(">Leave<"));
    }

    #[test]
    fn the_fitting_width_makes_the_board_largest() {
        let sizes = [(480, 296), (560, 296), (640, 266), (760, 266)];
        // A wide, short screen: the widest drawing. A squarer one: narrower.
        assert_eq!(fit_width((1900.0, 500.0), &sizes), 760);
        assert_eq!(fit_width((1248.0, 580.0), &sizes), 560);
        // A narrow, tall screen: the narrowest. The same scale: the wider
        // drawing. No area measured yet: the widest.
        assert_eq!(fit_width((480.0, 2000.0), &[(480, 200), (760, 200)]), 480);
        assert_eq!(fit_width((2000.0, 200.0), &[(480, 100), (560, 100)]), 560);
        assert_eq!(fit_width((0.0, 0.0), &sizes), 760);
        assert_eq!(fit_width((0.0, 0.0), &[]), WIDTHS[3]);
    }
}
