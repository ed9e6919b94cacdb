//! The page's Leptos components. Each thing on the page is drawn by the
//! component of its name; they read the page's state, [`Lousa`], from
//! context, but for [`EventTable`], which takes its run, frame and language
//! as props and which the workshop mounts too.
//!
//! - [`LousaPanel`]: everything mounted into `#lousa-root`: the part that
//!   stays on screen ([`Heading`], [`Problems`], [`Board`], [`QuizPanel`],
//!   [`SqlPanel`], [`Transport`], [`Help`]) and the part that may follow the article on a
//!   phone ([`Settings`], [`Narration`], [`EventTable`]).
//! - [`TwinTimeline`]: the two lines, mounted into `#twin-root`.

mod bind;
mod board;
pub mod controls;
mod drawing;
pub mod quiz;
mod text_panels;
mod twin_timeline;

pub use board::{Board, Heading};
pub use controls::{Help, Problems, Settings, Transport};
pub use drawing::still;
pub use quiz::QuizPanel;
pub use text_panels::{EventTable, Narration, SqlPanel};
pub use twin_timeline::TwinTimeline;

use crate::model::Lousa;
use crate::text::html_lang;
use bind::{label, word};
use leptos::prelude::*;

/// The lousa and its controls.
#[component]
pub fn LousaPanel() -> impl IntoView {
    let lousa = expect_context::<Lousa>();
    let code = word(|l| html_lang(l.lang.get()));
    let run = Memo::new(move |_| Some(lousa.run.get()));
    view! {
        <section class="lousa-sticky" data-testid="sticky" lang=code aria-label=label(|t| t.board_label)>
            <Heading />
            <Problems />
            <Board />
            <QuizPanel
                quiz=lousa.quiz
                lang=lousa.lang
                label=|l| crate::text::ui(l).question_label
                on_answer=move |i| {
                    quiz::answer(&lousa, i);
                }
            />
            <SqlPanel />
            <Transport />
            <Help />
        </section>
        <section class="lousa-extra" lang=code aria-label=label(|t| t.controls_label)>
            <Settings />
            <Narration />
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
