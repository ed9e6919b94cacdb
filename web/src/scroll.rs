//! Which step paragraph the reader is at, from an IntersectionObserver
//! rather than scroll events and geometry.
//!
//! The observer's root is the viewport stretched far above its top and cut
//! at the reading line, so a paragraph intersects it exactly when its top
//! has crossed the line. The paragraph the lousa follows is the last one
//! that has: a pure function of where the paragraphs are, however the
//! reader got there. A hidden paragraph (`hidden`, `display: none`) never
//! intersects anything, so it is skipped rather than taken for the top of
//! the page. Where the board sits above the text, the line is the middle
//! of what the board leaves below it: [`Steps::measure`] places it again
//! whenever the page scrolls or resizes, and makes a new observer only
//! when it moved.

use crate::dom;
use crate::model::{Lousa, Nav};
use js_sys::Array;
use leptos::prelude::{GetUntracked, WithUntracked};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::Closure;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

/// How far above the viewport the observer's root reaches: farther than any
/// article is long.
const ABOVE_PX: i32 = 1_000_000;

struct Tracker {
    lousa: Lousa,
    steps: Vec<Element>,
    /// Whether each paragraph's top is above the reading line.
    crossed: Vec<bool>,
    /// The paragraph shown last.
    last_active: Option<usize>,
    /// The first report is the page's first paint: it moves the lousa only
    /// when the URL named no moment.
    first: Option<bool>,
    observer: Option<IntersectionObserver>,
    /// The reading line the observer was made for.
    margin: String,
    /// Whether the paragraphs are followed yet: with a moment in the URL,
    /// only once the article is opened at it.
    following: bool,
}

/// The article's step paragraphs, followed as the reader scrolls.
#[derive(Clone)]
pub struct Steps(Rc<RefCell<Tracker>>, Rc<Closure<dyn FnMut(Array)>>);

impl Steps {
    /// Starts following the paragraphs. `apply_first`: whether the
    /// paragraph at the reading line decides the first picture (the URL
    /// named no moment); if not, following starts with `open_at_moment`.
    pub fn start(lousa: Lousa, apply_first: bool) -> Steps {
        let steps = dom::step_paragraphs();
        let tracker = Rc::new(RefCell::new(Tracker {
            lousa,
            crossed: vec![false; steps.len()],
            steps,
            last_active: None,
            first: Some(apply_first),
            observer: None,
            margin: String::new(),
            following: apply_first,
        }));
        let on_report = {
            let tracker = Rc::clone(&tracker);
            Closure::<dyn FnMut(Array)>::new(move |entries: Array| {
                // A report while another is handled is dropped, not nested.
                if let Ok(mut t) = tracker.try_borrow_mut() {
                    t.report(&entries);
                }
            })
        };
        let steps = Steps(tracker, Rc::new(on_report));
        // With a moment in the URL this makes no observer yet: it starts
        // after the article is opened at the moment (`open_at_moment`), as
        // a report from before that scroll would arrive after it and move
        // the board.
        steps.measure();
        steps
    }

    /// Places the reading line again (the layout changed): the middle of the
    /// viewport when the board sits beside the text, or the middle of what
    /// is left below it when it sits above.
    pub fn measure(&self) {
        // Busy with a report or a change of language: the next scroll
        // places the line.
        let Ok(mut t) = self.0.try_borrow_mut() else {
            return;
        };
        if !t.following {
            return;
        }
        // The first paragraph on show decides whether the board sits
        // beside the text: a hidden one has no box to compare with.
        let Some(first) = t.steps.iter().find(|step| dom::shown(step)) else {
            return;
        };
        let (line, height) = reading_line(first);
        let below = format!("-{}px", (height - line).round() as i32);
        let margin = format!("{ABOVE_PX}px 0px {below} 0px");
        if margin == t.margin {
            return;
        }
        if let Some(old) = t.observer.take() {
            old.disconnect();
        }
        let init = IntersectionObserverInit::new();
        init.set_root_margin(&margin);
        let Ok(observer) =
            IntersectionObserver::new_with_options(self.1.as_ref().as_ref().unchecked_ref(), &init)
        else {
            return;
        };
        for step in &t.steps {
            observer.observe(step);
        }
        t.observer = Some(observer);
        t.margin = margin;
    }
}

impl Steps {
    /// Opens the article at the URL's moment: the last paragraph shown
    /// whose step in the moment's world comes at or before its frame is
    /// scrolled to the reading line and taken as the one followed, without
    /// moving the board. A permalink then shows its text beside its exact
    /// frame, and holds until the reader scrolls past a paragraph boundary.
    /// A world no paragraph names opens at the two lines' paragraph, so
    /// that its two lines show beside its board: anywhere else, the scroll
    /// that brings them into view would cross a paragraph and take the
    /// board to that paragraph's world. Then starts following the
    /// paragraphs.
    pub fn open_at_moment(&self) {
        self.place_at_moment();
        self.0.borrow_mut().following = true;
        self.measure();
    }

    fn place_at_moment(&self) {
        let mut t = self.0.borrow_mut();
        let frame = t.lousa.moment.get_untracked().frame;
        let in_world = t.in_world();
        // The last of the world's paragraphs at or before the frame.
        let place = match in_world.iter().rfind(|(_, f)| *f <= frame) {
            Some(&(i, _)) => Some(i),
            None if in_world.is_empty() => t.two_lines_paragraph(),
            None => None,
        };
        let Some(i) = place else {
            return;
        };
        let (line, _) = reading_line(&t.steps[i]);
        let top = t.steps[i].get_bounding_client_rect().top();
        let window = dom::window();
        let y = window.scroll_y().unwrap_or(0.0);
        window.scroll_to_with_x_and_y(0.0, y + top - line + 8.0);
        t.last_active = Some(i);
        dom::mark_current(&t.steps, Some(i));
    }

    /// While the board asks at frame `asking`, veils the article from the
    /// first paragraph of the world on screen that shows a later frame (the
    /// stylesheet blurs it and all after it): that text tells the answer
    /// the board holds back. `None` lifts the veil.
    pub fn veil(&self, asking: Option<usize>) {
        let Ok(t) = self.0.try_borrow() else {
            return;
        };
        let from = asking.and_then(|at| t.in_world().into_iter().find(|(_, f)| *f > at));
        for (i, step) in t.steps.iter().enumerate() {
            let here = from.is_some_and(|(j, _)| j == i);
            let _ = step.class_list().toggle_with_force("veil-from", here);
        }
    }

    /// Runs `change`, which shows some paragraphs and hides others (the
    /// article's language), and scrolls so that the paragraph the lousa
    /// follows, or the one that takes its place among those shown, stays
    /// where it was on screen: the reader keeps their place, and the board
    /// its step.
    pub fn keep_place(&self, change: impl FnOnce()) {
        let t = self.0.borrow();
        let shown = |steps: &[Element]| -> Vec<usize> {
            (0..steps.len())
                .filter(|&i| dom::shown(&steps[i]))
                .collect()
        };
        let anchor = t.last_active.and_then(|active| {
            let rank = shown(&t.steps).iter().position(|&i| i == active)?;
            Some((rank, t.steps[active].get_bounding_client_rect().top()))
        });
        change();
        let place = anchor.and_then(|(rank, top)| {
            let now = *shown(&t.steps).get(rank)?;
            Some((now, t.steps[now].get_bounding_client_rect().top() - top))
        });
        drop(t);
        let Some((now, moved)) = place else {
            return;
        };
        // The paragraph in the other language is the same place in the
        // article: followed from now on, the observer's report of the swap
        // is no step, and the board keeps what it shows (a permalink's
        // moment too, which no paragraph names).
        {
            let mut t = self.0.borrow_mut();
            t.last_active = Some(now);
            dom::mark_current(&t.steps, Some(now));
        }
        dom::window().scroll_by_with_x_and_y(0.0, moved);
    }
}

impl Tracker {
    /// The paragraphs on show that name the world on screen, each with the
    /// frame it shows, in the article's order.
    fn in_world(&self) -> Vec<(usize, usize)> {
        let moment = self.lousa.moment.get_untracked();
        let mut out = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            if !dom::shown(step) {
                continue;
            }
            let (target, _) = target_of(&self.lousa, step);
            if (target.scenario, target.strategy) == (moment.scenario, moment.strategy) {
                let frame = self
                    .lousa
                    .run
                    .with_untracked(|r| lousa_core::story::beat_frame_or_before(r, &target.beat));
                out.push((i, frame));
            }
        }
        out
    }

    /// The paragraph shown just above the two lines' slot, if the page
    /// has one (an embedding page has none).
    fn two_lines_paragraph(&self) -> Option<usize> {
        self.steps.iter().position(|p| {
            dom::shown(p)
                && p.next_element_sibling()
                    .is_some_and(|next| next.class_list().contains("twin-slot"))
        })
    }

    fn report(&mut self, entries: &Array) {
        for entry in entries.iter() {
            let entry: IntersectionObserverEntry = entry.unchecked_into();
            let target = entry.target();
            if let Some(i) = self.steps.iter().position(|s| *s == target) {
                self.crossed[i] = entry.is_intersecting();
            }
        }
        let active = self.crossed.iter().rposition(|c| *c);
        let first = self.first.take();
        let apply_first = first == Some(true);
        if active == self.last_active && !apply_first {
            return;
        }
        let was = std::mem::replace(&mut self.last_active, active);
        dom::mark_current(&self.steps, active);
        let nav = if first.is_some() {
            Nav::Keep
        } else {
            Nav::Replace
        };
        match (active, was, nav) {
            (Some(i), _, Nav::Keep) if apply_first => self.show(i, Nav::Keep),
            (_, _, Nav::Keep) => {}
            (Some(i), _, _) => self.show(i, nav),
            (None, Some(_), _) => self.show(0, nav),
            (None, None, _) => {}
        }
    }

    /// Moves the lousa to what paragraph `index` names.
    fn show(&self, index: usize, nav: Nav) {
        let Some(paragraph) = self.steps.get(index) else {
            return;
        };
        let (target, warnings) = target_of(&self.lousa, paragraph);
        for attribute in warnings {
            dom::log_error(&format!(
                "lousa: a step paragraph's {attribute} names nothing known; using the default"
            ));
        }
        self.lousa.show_target(&target, nav);
    }
}

/// Where the reading line is, in pixels from the viewport's top, and the
/// viewport's height: the middle of the viewport when the board sits beside
/// `step`, or the middle of what the board leaves below it.
fn reading_line(step: &Element) -> (f64, f64) {
    let height = dom::window()
        .inner_height()
        .ok()
        .and_then(|h| h.as_f64())
        .unwrap_or(800.0);
    let line = match dom::by_testid("sticky") {
        Some(board) if !dom::beside(&board, step) => {
            let bottom = board.get_bounding_client_rect().bottom();
            (bottom.max(0.0).min(height) + height) / 2.0
        }
        _ => height / 2.0,
    };
    (line, height)
}

/// The world and beat a step paragraph shows, and the attributes that
/// named nothing known.
pub fn target_of(
    lousa: &Lousa,
    paragraph: &Element,
) -> (crate::state::StepTarget, Vec<&'static str>) {
    let attribute = |name| paragraph.get_attribute(name);
    lousa.target_of(
        &attribute("data-step").unwrap_or_default(),
        attribute("data-scenario").as_deref(),
        attribute("data-strategy").as_deref(),
        attribute("data-lines").as_deref(),
    )
}
