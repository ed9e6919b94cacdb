//! The pages' keyboards in one place: the rule for when a key press is the
//! page's at all, and what each key does on the reader's page, in the
//! workshop and in presenter mode. The maps are pure, so a native test holds
//! each key to its command; the pages only carry the commands out.

use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};

/// A key press as the pages read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Press {
    /// `KeyboardEvent.key`: "ArrowLeft", "k", "?", " ".
    pub key: String,
    /// Ctrl, Meta or Alt held: the browser's or the system's shortcut (Alt+←
    /// goes back), never the page's.
    pub modified: bool,
    /// Shift held.
    pub shift: bool,
    /// Typed into an input, a select or a textarea: the key is the field's.
    pub in_form: bool,
    /// On a button, a summary or a link, where Space and Enter press it.
    pub on_control: bool,
    /// Another handler took it already.
    pub taken: bool,
}

impl Press {
    /// What a keydown event says.
    pub fn of(event: &KeyboardEvent) -> Press {
        let target = event.target().and_then(|t| t.dyn_into::<Element>().ok());
        let inside = |selector: &str| {
            target
                .as_ref()
                .and_then(|el| el.closest(selector).ok().flatten())
                .is_some()
        };
        Press {
            key: event.key(),
            modified: event.ctrl_key() || event.meta_key() || event.alt_key(),
            shift: event.shift_key(),
            in_form: inside("input, select, textarea"),
            on_control: inside("button, summary, a"),
            taken: event.default_prevented(),
        }
    }

    /// Whether the page may act on it at all.
    fn for_page(&self) -> bool {
        !(self.modified || self.in_form || self.taken)
    }

    /// The page's, and without Shift: all presenter mode takes, since a
    /// room's keys (a clicker's) are plain ones.
    pub fn plain(&self) -> bool {
        self.for_page() && !self.shift
    }
}

/// The digit keys 1 to 9 as the choice they name, from 0.
fn choice(key: &str) -> Option<usize> {
    match key.as_bytes() {
        [d @ b'1'..=b'9'] => Some(usize::from(d - b'1')),
        _ => None,
    }
}

/// What a key does on the reader's page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReaderKey {
    /// One step back (-1) or forward (1): the arrows, or J and K.
    Step(isize),
    /// Space, away from a button.
    TogglePlay,
    /// `?` opens or closes the help; Escape closes it, even from a field.
    ToggleHelp,
    CloseHelp,
    /// A digit answers the board's question: 1 is its first choice.
    Answer(usize),
}

/// The reader's key, if `press` is one; `help_open` and `asking` are what
/// the page shows.
pub fn reader(press: &Press, help_open: bool, asking: bool) -> Option<ReaderKey> {
    if press.key == "Escape" && help_open && !press.modified && !press.taken {
        return Some(ReaderKey::CloseHelp);
    }
    if !press.for_page() {
        return None;
    }
    match press.key.as_str() {
        "ArrowLeft" | "j" | "J" => Some(ReaderKey::Step(-1)),
        "ArrowRight" | "k" | "K" => Some(ReaderKey::Step(1)),
        " " if !press.on_control => Some(ReaderKey::TogglePlay),
        "?" => Some(ReaderKey::ToggleHelp),
        key if asking => choice(key).map(ReaderKey::Answer),
        _ => None,
    }
}

/// What a key does in the workshop, out of presenter mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkshopKey {
    /// A digit picks that alternative: 1 is the first.
    Pick(usize),
    Undo,
    Redo,
    /// F: first come, first served to the end.
    Finish,
    Step(isize),
    /// Space, away from a button: play or pause, as on the reader's page.
    TogglePlay,
    /// E: count every schedule.
    CountAll,
}

/// The workshop's key, if `press` is one.
pub fn workshop(press: &Press) -> Option<WorkshopKey> {
    if !press.for_page() {
        return None;
    }
    match press.key.as_str() {
        "u" | "U" => Some(WorkshopKey::Undo),
        "r" | "R" => Some(WorkshopKey::Redo),
        "f" | "F" => Some(WorkshopKey::Finish),
        "ArrowLeft" => Some(WorkshopKey::Step(-1)),
        "ArrowRight" => Some(WorkshopKey::Step(1)),
        " " if !press.on_control => Some(WorkshopKey::TogglePlay),
        "e" | "E" => Some(WorkshopKey::CountAll),
        key => choice(key).map(WorkshopKey::Pick),
    }
}

/// What a key does in presenter mode, where a clicker's keys lead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresenterKey {
    Forward,
    Back,
    /// Home: back to the start.
    Start,
    /// B or `.`: a blank screen, as a slide deck's.
    Blank,
    Fullscreen,
    Leave,
    /// A digit answers the question on screen.
    Answer(usize),
}

/// Presenter mode's key, if `press` is one (only a [`Press::plain`] one).
pub fn presenter(press: &Press) -> Option<PresenterKey> {
    if !press.plain() {
        return None;
    }
    match press.key.as_str() {
        "n" | "N" | "ArrowRight" | "PageDown" => Some(PresenterKey::Forward),
        "p" | "P" | "ArrowLeft" | "PageUp" => Some(PresenterKey::Back),
        "Home" => Some(PresenterKey::Start),
        "b" | "B" | "." => Some(PresenterKey::Blank),
        "f" | "F" => Some(PresenterKey::Fullscreen),
        "Escape" => Some(PresenterKey::Leave),
        key => choice(key).map(PresenterKey::Answer),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(key: &str) -> Press {
        Press {
            key: key.into(),
            ..Press::default()
        }
    }

    #[test]
    fn the_reader_steps_plays_asks_for_help_and_answers_only_when_asked() {
        assert_eq!(
            reader(&key("ArrowLeft"), false, false),
            Some(ReaderKey::Step(-1))
        );
        assert_eq!(reader(&key("K"), false, false), Some(ReaderKey::Step(1)));
        assert_eq!(reader(&key(" "), false, false), Some(ReaderKey::TogglePlay));
        assert_eq!(reader(&key("?"), true, false), Some(ReaderKey::ToggleHelp));
        assert_eq!(reader(&key("2"), false, true), Some(ReaderKey::Answer(1)));
        assert_eq!(
            reader(&key("2"), false, false),
            None,
            "no question, no answer"
        );
        assert_eq!(reader(&key("0"), false, true), None, "choices start at 1");
        assert_eq!(reader(&key("x"), false, false), None);
    }

    #[test]
    fn a_field_a_button_or_a_shortcut_keeps_its_keys() {
        let typed = Press {
            in_form: true,
            ..key("k")
        };
        assert_eq!(reader(&typed, false, false), None);
        assert_eq!(workshop(&typed), None);
        assert_eq!(presenter(&typed), None);
        let pressed = Press {
            on_control: true,
            ..key(" ")
        };
        assert_eq!(
            reader(&pressed, false, false),
            None,
            "Space presses the button"
        );
        let back = Press {
            modified: true,
            ..key("ArrowLeft")
        };
        assert_eq!(reader(&back, false, false), None, "Alt+← goes back");
        assert_eq!(workshop(&back), None);
        let taken = Press {
            taken: true,
            ..key("k")
        };
        assert_eq!(reader(&taken, false, false), None);
        // Escape closes the help even from a field.
        let escape = Press {
            in_form: true,
            ..key("Escape")
        };
        assert_eq!(reader(&escape, true, false), Some(ReaderKey::CloseHelp));
        assert_eq!(reader(&escape, false, false), None);
    }

    #[test]
    fn the_workshop_and_presenter_mode_read_their_own_keys() {
        assert_eq!(workshop(&key("1")), Some(WorkshopKey::Pick(0)));
        assert_eq!(workshop(&key("9")), Some(WorkshopKey::Pick(8)));
        assert_eq!(workshop(&key("U")), Some(WorkshopKey::Undo));
        assert_eq!(workshop(&key("e")), Some(WorkshopKey::CountAll));
        assert_eq!(workshop(&key("j")), None);
        assert_eq!(workshop(&key(" ")), Some(WorkshopKey::TogglePlay));
        let on_button = Press {
            on_control: true,
            ..key(" ")
        };
        assert_eq!(workshop(&on_button), None, "Space presses the button");
        assert_eq!(presenter(&key("PageDown")), Some(PresenterKey::Forward));
        assert_eq!(presenter(&key(".")), Some(PresenterKey::Blank));
        assert_eq!(presenter(&key("3")), Some(PresenterKey::Answer(2)));
        let shifted = Press {
            shift: true,
            ..key("N")
        };
        assert_eq!(presenter(&shifted), None, "a room's keys are plain");
    }
}
