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

use crate::state::Ws;
use crate::texts::{answer_hint, presenting, verdict, words};
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::predict::{self, Prompt, Question};
use lousa_core::scenario::Text;
use lousa_web::board;
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
    /// The board's box on screen, measured on entering and on resize.
    area: RwSignal<(f64, f64)>,
    /// The width to draw the board for in presenter mode.
    pub width: Memo<i32>,
}

impl Presenter {
    pub fn new(ws: Ws) -> Presenter {
        // The run on the board (the branch's, when it shows), in presenter
        // mode only.
        let shown = Memo::new(move |_| {
            if ws.presenting.get() {
                ws.shown_run()
            } else {
                None
            }
        });
        let prompts = Memo::new(move |_| {
            shown.with(|r| r.as_ref().map(predict::prompts).unwrap_or_default())
        });
        let quiz = RwSignal::new(Quiz::new(prompts.get_untracked()));
        // Another run (another scenario, strategy, choices or the branch)
        // asks anew.
        Effect::new(move |_| prompts.with(|p| quiz.update(|q| q.for_run(p))));
        let sizes = Memo::new(move |_| {
            let lang = ws.lang.get();
            shown.with(|r| {
                r.as_ref().map_or_else(Vec::new, |r| {
                    WIDTHS
                        .iter()
                        .map(|&w| (w, board::frames(r, w, lang).0.tallest))
                        .collect()
                })
            })
        });
        let area = RwSignal::new((0.0, 0.0));
        let width = Memo::new(move |_| fit_width(area.get(), &sizes.read()));
        Presenter {
            quiz,
            blank: RwSignal::new(false),
            area,
            width,
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

/// The bar above the board in presenter mode: where the board stands, the
/// steps, full screen and the way out, and the keys.
#[component]
pub fn PresenterBar() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    let t = move || presenting(ws.lang.get());
    // Measure the board's box once its layout is the presenter's, and again
    // on resize, with the room a question takes counted as the board's: a
    // question shrinks the drawing but never redraws it at another width.
    let resized = RwSignal::new(0u32);
    Effect::new(move |_| {
        resized.track();
        if !ws.presenting.get() {
            return;
        }
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
        p.area.set((wrap.width(), wrap.height() + quiz));
    });
    let handle = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n += 1);
    });
    on_cleanup(move || handle.remove());
    let counter = move || {
        let w = words(ws.lang.get());
        format!(
            "{} {} {} {}",
            w.frame_word,
            ws.frame(),
            w.of_word,
            ws.last_frame()
        )
    };
    view! {
        <p class="presenter-bar" data-testid="presenter-bar">
            <button
                data-testid="presenter-back"
                aria-label=move || t().back
                title=move || t().back
                on:click=move |_| p.back(ws)
                prop:disabled=move || ws.frame() == 0
            >
                "←"
            </button>
            <button
                data-testid="presenter-forward"
                aria-label=move || t().forward
                title=move || t().forward
                on:click=move |_| p.forward(ws)
                prop:disabled=move || { ws.frame() >= ws.last_frame() }
            >
                "→"
            </button>
            <span class="presenter-counter" data-testid="presenter-counter">
                {counter}
            </span>
            <span class="presenter-hint">{move || t().hint}</span>
            <button data-testid="presenter-fullscreen" on:click=move |_| toggle_fullscreen()>
                {move || t().fullscreen}
            </button>
            <button data-testid="presenter-leave" on:click=move |_| p.leave(ws)>
                {move || t().leave}
            </button>
        </p>
    }
}

/// The question being asked, with its choices as buttons, and the verdict
/// of the last answer.
#[component]
pub fn QuizPanel() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    move || {
        let lang = ws.lang.get();
        p.quiz.with(|q| {
            let said = q.verdict().map(|(prompt, chosen)| {
                let right = chosen == prompt.answer;
                let text = verdict(
                    right,
                    say(&prompt.choices[prompt.answer], lang),
                    say(&prompt.choices[chosen], lang),
                    prompt.reveal_at,
                    lang,
                );
                view! {
                    <p
                        class="presenter-verdict"
                        class:wrong=!right
                        data-testid="verdict"
                        data-right=right.to_string()
                        role="status"
                    >
                        {text}
                    </p>
                }
            });
            let asked = q.asking().map(|prompt| {
                let choices = prompt
                    .choices
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        view! {
                            <button
                                class="prompt-choice"
                                data-testid="prompt-choice"
                                data-choice=i.to_string()
                                on:click=move |_| p.answer(ws, i)
                            >
                                <kbd>{(i + 1).to_string()}</kbd>
                                " "
                                {say(c, lang).to_string()}
                            </button>
                        }
                    })
                    .collect_view();
                view! {
                    <section
                        class="presenter-prompt"
                        data-testid="prompt"
                        data-about=about(prompt.about)
                        data-ask-at=prompt.ask_at.to_string()
                        aria-label=presenting(lang).question_label
                    >
                        <p class="prompt-question" data-testid="prompt-question">
                            {say(&prompt.question, lang).to_string()}
                        </p>
                        <p class="prompt-choices">{choices}</p>
                        <p class="prompt-hint">{answer_hint(prompt.choices.len(), lang)}</p>
                    </section>
                }
            });
            (said.is_some() || asked.is_some())
                .then(|| view! { <div class="presenter-quiz">{said} {asked}</div> })
        })
    }
}

/// The black screen B leaves: a key or a click brings the board back.
#[component]
pub fn Blank() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    move || {
        p.blank.get().then(|| {
            view! {
                <div
                    class="presenter-blank"
                    data-testid="blank"
                    role="button"
                    aria-label=move || presenting(ws.lang.get()).blanked
                    on:click=move |_| p.blank.set(false)
                ></div>
            }
        })
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
