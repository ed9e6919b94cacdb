//! The text equivalent of the lousa: the narration of one step and the rows
//! of the event table, both built from the trace with `lousa_core::narrate`.

use crate::markup::{El, el};
use crate::text::Ui;
use lousa_core::builtins::builtin;
use lousa_core::narrate::{self, Lang};
use lousa_core::run::Run;
use lousa_core::view;

/// One paragraph saying what happened in the step that led to `frame`. At
/// the start, which has no events, it says what the scenario is about.
pub fn narration(run: &Run, scenario: &str, frame: usize, lang: Lang, t: &Ui) -> String {
    let frame = frame.min(run.frame_count() - 1);
    let events = view::step_events(run, frame);
    if events.is_empty() {
        let about = builtin(scenario).map(|s| match lang {
            Lang::Pt => s.description.pt,
            Lang::En => s.description.en,
        });
        return match (frame, about) {
            (0, Some(about)) => format!("{} {about}", t.start_narration),
            _ => format!("{}.", view::clock(run.state_at(frame).time_ms, lang)),
        };
    }
    let sentences: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{}: {}",
                narrate::actor(e.actor, lang),
                narrate::describe(e, lang)
            )
        })
        .collect();
    format!(
        "{} · {}.",
        view::clock(events[0].time_ms, lang),
        sentences.join("; ")
    )
}

/// The `<tr>` rows of the event table: every event of the run, each marked
/// with the frame it belongs to so the current step can be highlighted.
pub fn event_rows(run: &Run, lang: Lang) -> Vec<El> {
    let mut body = el("tbody");
    for (frame, event) in run.events() {
        let row = body.add("tr").num("data-frame", frame as i64);
        row.add("td")
            .class("num")
            .text(&view::clock(event.time_ms, lang));
        row.add("td").text(&narrate::actor(event.actor, lang));
        row.add("td").text(&narrate::describe(event, lang));
    }
    body.kids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{EN, PT};
    use lousa_core::Strategy;
    use lousa_core::story::beat_frame;

    #[test]
    fn the_narration_of_the_timeout_says_the_app_cannot_tell() {
        let run = lousa_core::run(&builtin("timeout-retry").expect("built-in")).expect("valid");
        let frame = beat_frame(&run, "timeout").expect("beat");
        let pt = narration(&run, "timeout-retry", frame, Lang::Pt, &PT);
        assert!(
            pt.starts_with("2,000 s · cliente 1: estoura o timeout"),
            "{pt}"
        );
        let en = narration(&run, "timeout-retry", frame, Lang::En, &EN);
        assert!(en.contains("client 1: attempt 1 times out"), "{en}");
        let start = narration(&run, "timeout-retry", 0, Lang::Pt, &PT);
        assert!(start.contains("R$ 250,00"), "{start}");
    }

    #[test]
    fn the_event_table_has_one_row_per_event_tagged_with_its_frame() {
        let mut scenario = builtin("timeout-retry").expect("built-in");
        scenario.strategy = Strategy::IdempotencyKey;
        let run = lousa_core::run(&scenario).expect("valid");
        let rows: String = event_rows(&run, Lang::Pt).iter().map(El::markup).collect();
        assert_eq!(rows.matches("<tr ").count(), run.events().count());
        assert!(
            rows.contains(r#"<tr data-frame="1"><td class="num">0,000 s</td><td>cliente 1</td>"#),
            "{rows}"
        );
        assert!(rows.contains("responde 409"));
    }
}
