//! The words for a choice point's alternatives: what the step each one
//! picks would do, said by lousa-core's narration.

use lousa_core::choice::ChoiceKind;
use lousa_core::narrate::{self, Lang};
use lousa_core::scheduling::{Alternative, Turn};
use lousa_core::trace::{Actor, EventKind, TraceEvent};

/// One alternative, as the list and the badges show it.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub choice: u32,
    pub actor: Actor,
    pub text: String,
}

/// The alternatives of the turn's choice point; none when the run is over.
pub fn labels(turn: &Turn, lang: Lang) -> Vec<Label> {
    let Some(point) = &turn.next else {
        return Vec::new();
    };
    point
        .alternatives
        .iter()
        .map(|a| Label {
            choice: a.choice,
            actor: a.actor,
            text: text(point.kind, a, lang),
        })
        .collect()
}

fn text(kind: ChoiceKind, a: &Alternative, lang: Lang) -> String {
    let event = match kind {
        ChoiceKind::Route => a
            .events
            .iter()
            .find(|e| matches!(e.kind, EventKind::Routed { .. })),
        _ => a.events.first(),
    };
    let said = event.map_or_else(String::new, |e| sentence(e, lang));
    match kind {
        ChoiceKind::Jitter | ChoiceKind::Backoff => format!("+{} ms: {said}", a.choice),
        _ => said,
    }
}

fn sentence(e: &TraceEvent, lang: Lang) -> String {
    format!(
        "{}: {}",
        narrate::actor(e.actor, lang),
        narrate::describe(e, lang)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::builtins::builtin;
    use lousa_core::choice::Schedule;
    use lousa_core::scheduling::turn;

    #[test]
    fn each_alternative_of_race_2_says_a_different_thing() {
        let s = builtin("race-2").unwrap();
        let t = turn(&s, &Schedule::default()).unwrap();
        for lang in [Lang::Pt, Lang::En] {
            let l = labels(&t, lang);
            assert!(l.len() >= 2);
            assert!(l.iter().all(|l| !l.text.is_empty()));
            assert_ne!(l[0].text, l[1].text, "{l:?}");
        }
    }
}
