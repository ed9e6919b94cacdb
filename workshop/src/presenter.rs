//! Presenter mode (`&apresentar=1`): the board and its narration fill the
//! screen in type a room can read, the keys walk the whole run (the choices
//! made, then first come, first served), and at each decisive step the page
//! asks the room what happens next before it shows it.
//!
//! Predict, then reveal: the questions are lousa-core's (`predict::prompts`),
//! asked and answered by lousa-web's `quiz::Quiz`, the logic the reader's
//! page uses too. Here a step back before a question forgets its answer,
//! so the room is asked again.
//!
//! The scheduler's keys are off in presenter mode: digits answer the
//! question, F is full screen, and the room does not pick interleavings.

use crate::board::WIDTH;
use crate::state::Ws;
use crate::texts::words;
use leptos::prelude::*;
use lousa_core::narrate::Lang;
use lousa_core::predict;
use lousa_web::board;
use lousa_web::keys::{self, PresenterKey, Press};
use lousa_web::quiz::Quiz;
use wasm_bindgen::JsCast;

/// The widths the presenter may draw the board for: a narrower drawing is
/// taller and its text larger once scaled, which suits a screen that is not
/// much wider than the board. 480 is the narrowest that keeps every table
/// column; 360, for a phone held upright, drops some, as the reader's
/// phone board does.
const WIDTHS: [i32; 5] = [360, 480, 560, 640, 760];
const WIDEST: i32 = WIDTHS[WIDTHS.len() - 1];

/// The drawing width whose board, scaled to fit an area `area` (width,
/// height) in CSS pixels, comes out largest; `sizes` are (width, tallest
/// frame) pairs. A tie goes to the wider drawing; no area yet, the widest.
pub fn fit_width(area: (f64, f64), sizes: &[(i32, i32)]) -> i32 {
    let widest = sizes.iter().map(|s| s.0).max().unwrap_or(WIDEST);
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
    /// The width to draw the board for: [`WIDTH`], or in presenter mode
    /// the one that fits the screen ([`PresenterBar`] measures it).
    pub width: RwSignal<i32>,
}

impl Presenter {
    pub fn new(ws: Ws) -> Presenter {
        let quiz = RwSignal::new(Quiz::default());
        // Another run (another scenario, strategy, choices or the branch)
        // asks anew; outside presenter mode nothing is asked.
        Effect::new(move |_| {
            let prompts = if ws.presenting.get() {
                ws.with_shown(|r| r.map(predict::prompts).unwrap_or_default())
            } else {
                Vec::new()
            };
            quiz.update(|q| q.for_run(&prompts));
        });
        Presenter {
            quiz,
            blank: RwSignal::new(false),
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

/// A presenter-mode key (`lousa_web::keys::presenter`): whether it was
/// one. While the screen is blank, any plain key only brings it back.
pub fn key(ws: Ws, p: Presenter, press: &Press) -> bool {
    if press.plain() && p.blank.get_untracked() {
        p.blank.set(false);
        return true;
    }
    let Some(key) = keys::presenter(press) else {
        return false;
    };
    match key {
        PresenterKey::Forward => p.forward(ws),
        PresenterKey::Back => p.back(ws),
        PresenterKey::Start => p.start(ws),
        PresenterKey::Blank => p.blank.set(true),
        PresenterKey::Fullscreen => toggle_fullscreen(),
        PresenterKey::Leave => p.leave(ws),
        PresenterKey::Answer(n) => p.answer(ws, n),
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

/// Where the board stands, as the bar counts it: "Passo 8 de 33".
pub fn counter_text(frame: usize, last: usize, lang: Lang) -> String {
    let w = words(lang);
    format!("{} {frame} {} {last}", w.frame_word, w.of_word)
}

/// The bar above the board in presenter mode (the steps, where the board
/// stands, the keys, full screen and the way out) and the black screen B
/// leaves. Mounted on entering presenter mode, whose screen has no
/// language button: its words are read once.
#[component]
pub fn PresenterBar() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    let lang = ws.lang.get_untracked();
    let t = &words(lang).presenting;
    // Fit the board's width to its box once the layout is the presenter's,
    // and again on resize or for another run, with the room a question
    // takes counted as the board's: a question shrinks the drawing but never
    // redraws it at another width.
    let resized = RwSignal::new(0u32);
    Effect::new(move |_| {
        resized.track();
        let lang = ws.lang.get();
        if !ws.presenting.get() {
            return;
        }
        let sizes: Vec<(i32, i32)> = ws.with_shown(|r| {
            r.map_or_else(Vec::new, |r| {
                WIDTHS
                    .iter()
                    .map(|&w| (w, board::layout(r, w, lang).tallest))
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
        let quiz = rect(".quiz").map_or(0.0, |r| r.height());
        p.width
            .set(fit_width((wrap.width(), wrap.height() + quiz), &sizes));
    });
    let handle = window_event_listener(leptos::ev::resize, move |_| {
        resized.update(|n| *n += 1);
    });
    on_cleanup(move || handle.remove());
    view! {
        <p class="presenter-bar" data-testid="presenter-bar">
            <BarButton action="back" label=t.back text="←" on_press=move || p.back(ws) />
            <BarButton action="forward" label=t.forward text="→" on_press=move || p.forward(ws) />
            <span class="presenter-counter" data-testid="presenter-counter">
                {move || counter_text(ws.frame(), ws.last_frame(), lang)}
            </span>
            <span class="presenter-hint">{t.hint}</span>
            <BarButton
                action="fullscreen"
                label=t.fullscreen
                text=t.fullscreen
                on_press=toggle_fullscreen
            />
            <BarButton action="leave" label=t.leave text=t.leave on_press=move || p.leave(ws) />
        </p>
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

/// One of the bar's buttons.
#[component]
fn BarButton(
    /// Names the button for tests: `presenter-{action}`.
    action: &'static str,
    /// Its title and accessible name.
    label: &'static str,
    /// What it shows.
    text: &'static str,
    /// What a press does.
    on_press: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <button
            type="button"
            data-testid=format!("presenter-{action}")
            title=label
            aria-label=label
            on:click=move |_| on_press()
        >
            {text}
        </button>
    }
}

/// The question for the room: lousa-web's panel, over the presenter's quiz.
#[component]
pub fn QuizPanel() -> impl IntoView {
    let ws = expect_context::<Ws>();
    let p = expect_context::<Presenter>();
    let quiz = Memo::new(move |_| Some(p.quiz.get()));
    view! {
        <lousa_web::QuizPanel
            quiz
            lang=ws.lang
            label=|l| words(l).presenting.question_label
            on_answer=move |i| p.answer(ws, i)
        />
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_says_where_the_board_stands() {
        assert_eq!(counter_text(8, 33, Lang::Pt), "Passo 8 de 33");
        assert_eq!(counter_text(0, 5, Lang::En), "Step 0 of 5");
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
        assert_eq!(fit_width((0.0, 0.0), &[]), WIDEST);
    }
}
