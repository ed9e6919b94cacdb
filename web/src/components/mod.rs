//! The page's Leptos components. Each thing on the page is drawn by the
//! component of its name.
//!
//! Shared by both pages, each taking its signals and callbacks as props:
//! [`Board`] (the SVG the page draws the lousa in), [`SqlPanel`],
//! [`Narration`], [`EventTable`], [`QuizPanel`], [`ProblemList`],
//! [`Transport`] and [`TwoLines`] (one failure as two runs on one axis,
//! with a cursor).
//!
//! The reader's own, which read its state, [`Lousa`], from context:
//! - [`LousaPanel`]: everything mounted into `#lousa-root`: the part that
//!   stays on screen ([`Heading`], the problems, [`ReaderBoard`], the quiz,
//!   the SQL panel, the transport, [`Help`]) and the part that may follow
//!   the article on a phone ([`Settings`], the narration, the event table).
//! - [`TwinTimeline`]: the two lines and their ledgers, mounted into
//!   `#twin-root`.

mod bind;
mod board;
pub mod controls;
mod drawing;
mod problem_list;
pub mod quiz;
mod text_panels;
mod transport;
mod twin_timeline;
mod two_lines;

pub use board::{Board, Heading, ReaderBoard};
pub use controls::{Help, Settings};
pub use drawing::still;
pub use problem_list::ProblemList;
pub use quiz::QuizPanel;
pub use text_panels::{EventTable, Narration, SqlPanel};
pub use transport::{Transport, play_on_timer};
pub use twin_timeline::TwinTimeline;
pub use two_lines::TwoLines;

use crate::model::Lousa;
use crate::text::{html_lang, ui};
use crate::words;
use bind::{label, text, word};
use board::text_px;
use leptos::prelude::*;

/// The lousa and its controls.
#[component]
pub fn LousaPanel() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let code = word(|l| html_lang(l.lang.get()));
    let run = Memo::new(move |_| Some(lousa.run.get()));
    let narration = text(|l| {
        let lang = l.lang.get();
        l.run
            .with(|r| words::narration(r, l.world.get().0, l.frame.get(), lang, ui(lang)))
    });
    view! {
        <section class="lousa-sticky" data-testid="sticky" lang=code aria-label=label(|t| t.board_label)>
            <Heading />
            <ProblemList problems=lousa.problems lang=lousa.lang />
            <ReaderBoard />
            <QuizPanel
                quiz=lousa.quiz
                lang=lousa.lang
                label=|l| crate::text::ui(l).question_label
                on_answer=move |i| {
                    quiz::answer(&lousa, i);
                }
            />
            <SqlPanel sql=move || lousa.at.with(|a| a.sql.clone()) height=text_px(|l| l.fit.get().sql) />
            <Transport
                lang=lousa.lang
                at_start=move || lousa.frame.get() == 0
                at_end=move || { lousa.frame.get() + 1 >= lousa.run.with(|r| r.frame_count()) }
                on_step=move |by| lousa.step(by)
                playing=move || lousa.playing.get()
                on_play=move || lousa.toggle_play()
                speed=move || lousa.speed.get()
                on_speed=move |i| lousa.set_speed(i)
                keys=["← J", "→ K"]
            />
            <Help />
        </section>
        <section class="lousa-extra" lang=code aria-label=label(|t| t.controls_label)>
            <Settings />
            <Narration said=narration height=text_px(|l| l.fit.get().narration) />
            <EventTable run frame=lousa.frame lang=lousa.lang />
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::drawing::TAGS;
    use crate::drawn::Drawn;
    use crate::markup::El;
    use crate::twin::{self, Axis};
    use lousa_core::Strategy;
    use lousa_core::builtins::{NAMES, builtin};
    use lousa_core::narrate::Lang;
    use lousa_core::story;

    fn tags(el: &El, out: &mut Vec<&'static str>) {
        if !out.contains(&el.tag) {
            out.push(el.tag);
        }
        for kid in &el.kids {
            tags(kid, out);
        }
    }

    #[test]
    fn the_pictures_draw_only_tags_the_drawing_component_makes() {
        let mut seen = Vec::new();
        for name in NAMES {
            let scenario = builtin(name).expect("built-in");
            let run = lousa_core::run(&scenario).expect("valid");
            for board in &Drawn::new(&run, 560, Lang::Pt).frames {
                for part in &board.parts {
                    tags(part, &mut seen);
                }
            }
            let pair = story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
                .expect("twin");
            let names = ["check-then-act", "idempotency-key"];
            for el in twin::drawing(&pair, &Axis::new(&pair, 560), names, Lang::En) {
                tags(&el, &mut seen);
            }
        }
        for tag in &seen {
            assert!(TAGS.contains(tag), "{tag} is drawn but not made");
        }
    }
}
