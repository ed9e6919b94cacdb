//! The text equivalent of the lousa: the narration of one step and the SQL
//! panel's texts, built from the trace with `lousa_core::narrate` (the
//! event table's rows are the `EventTable` component's).

use crate::sql_short;
use crate::text::{Ui, ui};
use lousa_core::builtins::builtin;
use lousa_core::narrate::{self, Lang};
use lousa_core::run::Run;
use lousa_core::story::Twin;
use lousa_core::trace::SqlOutcome;
use lousa_core::view;
use std::borrow::Cow;

/// One paragraph saying what happened in the step that led to `frame`. At
/// the start, which has no events, it says what the scenario is about: its
/// description tells the story under the scenario's own design, so a run
/// under another design says so.
pub fn narration(run: &Run, scenario: &str, frame: usize, lang: Lang, t: &Ui) -> String {
    let frame = frame.min(run.frame_count() - 1);
    let events = view::step_events(run, frame);
    if events.is_empty() {
        let about = builtin(scenario).map(|s| {
            let about = match lang {
                Lang::Pt => s.description.pt,
                Lang::En => s.description.en,
            };
            if s.strategy == run.strategy {
                about
            } else {
                crate::text::told_for(lang, s.strategy, run.strategy, &about)
            }
        });
        return match (frame, about) {
            (0, Some(about)) => format!("{} {about}", t.start_narration),
            _ => format!(
                "{} · {}",
                view::clock(run.state_at(frame).time_ms, lang),
                t.quiet_step
            ),
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

/// What the SQL panel says at a frame, owned: what the page keeps.
pub type SqlView = (String, &'static str, String, String);

/// What the SQL panel says at a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SqlTexts<'a> {
    pub sql: Cow<'a, str>,
    pub class: &'static str,
    pub result: String,
    pub when: String,
}

impl SqlTexts<'_> {
    /// The texts as [`SqlPanel`](crate::SqlPanel) takes them.
    pub fn into_view(self) -> SqlView {
        (self.sql.into_owned(), self.class, self.result, self.when)
    }
}

/// The SQL panel's texts at `frame`; with `short`, the statement's short
/// form, which keeps its clauses (for the panel above the text).
pub fn sql_texts(run: &Run, frame: usize, lang: Lang, short: bool) -> SqlTexts<'_> {
    let t = ui(lang);
    // Before the first statement the statement and its result are empty
    // rather than absent: the panel keeps the same four elements from frame
    // to frame.
    let Some(shown) = view::sql_at(run, frame) else {
        return SqlTexts {
            sql: Cow::Borrowed(""),
            class: "sql-result",
            result: String::new(),
            when: t.sql_none.to_string(),
        };
    };
    let class = match shown.outcome {
        SqlOutcome::Waiting { .. } => "sql-result is-waiting",
        SqlOutcome::Error { .. } => "sql-result is-error",
        _ => "sql-result",
    };
    let mut when = if shown.frame == frame {
        t.sql_now.to_string()
    } else {
        format!("{} {}", t.sql_earlier, view::clock(shown.time_ms, lang))
    };
    when.push_str(&format!(" · {}", narrate::actor(shown.actor, lang)));
    if let Some(waited) = shown.waited_ms {
        when.push_str(&format!(" · {} {waited} ms", t.sql_waited));
    }
    SqlTexts {
        sql: if short {
            Cow::Owned(sql_short::short(shown.sql))
        } else {
            Cow::Borrowed(shown.sql)
        },
        class,
        result: format!("→ {}", narrate::sql_outcome(shown.outcome, lang)),
        when,
    }
}

/// What a ledger under the twin timeline shows for one line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LedgerView {
    pub captures: u32,
    pub charged_cents: i64,
    /// The statuses the app heard in time, in order, separated by spaces.
    pub on_time: String,
    pub double: bool,
    pub figures: String,
}

/// The ledger of the twin's top line (or its bottom one) with the lousa at
/// `frame` and the two lines' cursor at `cursor`; `on_board` says whether
/// that line is the lousa's own world (`Moment::on_board`).
pub fn ledger_view(
    twin: &Twin,
    top: bool,
    frame: usize,
    cursor: view::Cursor,
    on_board: bool,
    lang: Lang,
) -> LedgerView {
    let t = ui(lang);
    let line = if top { &twin.left } else { &twin.right };
    // The world the lousa shows is read at its exact frame; the other at the
    // cursor, which may stand past the end of the lousa's run.
    let line_frame = if on_board {
        frame
    } else {
        view::frame_at_cursor(line, cursor)
    };
    let ledger = view::ledger_at(line, line_frame);
    // A queue's consumer acks or nacks; an app hears statuses.
    let clients = &line.initial.clients;
    let queue = !clients.is_empty() && clients.iter().all(|c| c.queue);
    let heard: Vec<String> = ledger
        .answers
        .iter()
        .map(|a| {
            let said = if queue {
                narrate::ack_word(a.status).to_string()
            } else {
                a.status.to_string()
            };
            if a.late {
                format!("{said} ({})", t.late)
            } else {
                said
            }
        })
        .collect();
    let heard = if heard.is_empty() {
        t.heard_none.to_string()
    } else {
        heard.join(", ")
    };
    let who_heard = if queue { t.queue_heard } else { t.heard };
    let on_time: Vec<String> = ledger
        .answers
        .iter()
        .filter(|a| !a.late)
        .map(|a| a.status.to_string())
        .collect();
    // Where an account is debited, its balance is what a lost update
    // changes: the charges add up the same on both lines.
    let balance = ledger.balance_cents.map_or_else(String::new, |cents| {
        format!(" · {}: {}", t.balance, narrate::amount(cents, lang))
    });
    LedgerView {
        captures: ledger.captures,
        charged_cents: ledger.charged_cents,
        on_time: on_time.join(" "),
        double: ledger.double_charged,
        figures: format!(
            "{}: {} · {}: {}{balance} · {}: {heard}",
            charges_word(line, t),
            ledger.captures,
            t.charged,
            narrate::amount(ledger.charged_cents, lang),
            who_heard
        ),
    }
}

/// What the acquirer box and a ledger count in `run`: the acquirer's
/// captures, orders paid in the database without it (`local-effect`), or
/// charges of both kinds. Read at the run's end, so that it holds for
/// every frame.
pub fn charges_word(run: &Run, t: &Ui) -> &'static str {
    let end = run.state_at(run.frame_count() - 1);
    match (
        end.local_effects.is_empty(),
        end.acquirer_captures().any(|n| n > 0),
    ) {
        (true, _) => t.captures,
        (false, false) => t.paid_locally,
        (false, true) => t.charges,
    }
}

/// The clock above the board.
pub fn clock_text(run: &Run, frame: usize, lang: Lang) -> String {
    format!("t = {}", view::clock(run.state_at(frame).time_ms, lang))
}

/// "0,250 s · step 3": where a time cursor stands, read out.
pub fn cursor_text(run: &Run, frame: usize, lang: Lang) -> String {
    let time = run.state_at(frame).time_ms;
    format!(
        "{} · {} {frame}",
        view::clock(time, lang),
        ui(lang).step_word
    )
}

/// "step 3 of 33".
pub fn counter_text(run: &Run, frame: usize, lang: Lang) -> String {
    let t = ui(lang);
    let last = run.frame_count() - 1;
    format!("{} {frame} {} {last}", t.step_word, t.of_word)
}

/// A scenario's title in `lang`.
pub fn scenario_title(name: &str, lang: Lang) -> String {
    builtin(name).map_or_else(
        || name.to_string(),
        |s| match lang {
            Lang::Pt => s.title.pt,
            Lang::En => s.title.en,
        },
    )
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
    fn the_start_says_which_design_the_story_is_told_for() {
        let own = builtin("unknown-reconciled").expect("built-in");
        let about = own.description.en.clone();
        let run = lousa_core::run(&own).expect("valid");
        let start = narration(&run, "unknown-reconciled", 0, Lang::En, &EN);
        assert_eq!(start, format!("{} {about}", EN.start_narration));
        let mut other = own.clone();
        other.strategy = Strategy::CheckThenAct;
        let run = lousa_core::run(&other).expect("valid");
        let start = narration(&run, "unknown-reconciled", 0, Lang::En, &EN);
        let told = format!("Under {}, the design", own.strategy.name());
        assert!(start.contains(&told) && start.contains(&about), "{start}");
        assert!(start.ends_with("Here it runs under check-then-act, which may end otherwise."));
        let pt = narration(&run, "unknown-reconciled", 0, Lang::Pt, &PT);
        assert!(pt.contains("Aqui o desenho é check-then-act"), "{pt}");
    }

    #[test]
    fn a_step_where_nothing_happens_says_that_time_passes() {
        let mut scenario = builtin("late-retry-after-ttl").expect("built-in");
        scenario.strategy = Strategy::IdempotencyKeyLease;
        let run = lousa_core::run(&scenario).expect("valid");
        let quiet = (1..run.frame_count())
            .find(|&f| view::step_events(&run, f).is_empty())
            .expect("a step with no event");
        let en = narration(&run, "late-retry-after-ttl", quiet, Lang::En, &EN);
        assert!(en.ends_with(" · time passes; nothing happens."), "{en}");
        let pt = narration(&run, "late-retry-after-ttl", quiet, Lang::Pt, &PT);
        assert!(pt.ends_with(" · o tempo passa; nada acontece."), "{pt}");
    }

    #[test]
    fn the_sql_panel_says_none_before_the_first_statement_and_waits_when_blocked() {
        let run = lousa_core::run(&builtin("held-transaction").expect("built-in")).expect("valid");
        assert_eq!(sql_texts(&run, 0, Lang::Pt, false).sql, "");
        assert_eq!(sql_texts(&run, 0, Lang::En, false).when, EN.sql_none);
        let waiting = (0..run.frame_count())
            .map(|f| sql_texts(&run, f, Lang::Pt, false))
            .any(|t| t.class.contains("is-waiting"));
        assert!(waiting, "the held transaction makes the retry wait");
        assert_eq!(
            counter_text(&run, 2, Lang::En),
            format!("step 2 of {}", run.frame_count() - 1)
        );
        assert!(clock_text(&run, 0, Lang::Pt).starts_with("t = "));
        assert_eq!(scenario_title("nope", Lang::Pt), "nope");
    }

    #[test]
    fn the_ledgers_count_two_captures_without_the_key_and_one_with_it() {
        let scenario = builtin("timeout-retry").expect("built-in");
        let twin =
            lousa_core::story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
                .expect("twin");
        let last = twin.left.frame_count() - 1;
        let end = view::cursor_at(&twin.left, last);
        let top = ledger_view(&twin, true, last, end, true, Lang::Pt);
        assert_eq!(
            (top.captures, top.charged_cents, top.double),
            (2, 50_000, true)
        );
        let bottom = ledger_view(&twin, false, last, end, false, Lang::En);
        assert_eq!((bottom.captures, bottom.on_time.as_str()), (1, "409 201"));
        assert!(bottom.figures.contains("captures: 1"), "{}", bottom.figures);
    }

    /// When the lousa's run ends first, the cursor goes on along the other
    /// line, whose ledger then reads that line's own end.
    #[test]
    fn past_the_end_of_the_lousas_run_the_other_ledger_goes_on() {
        let scenario = builtin("crash-before-capture").expect("built-in");
        let twin =
            lousa_core::story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
                .expect("twin");
        let last = twin.left.frame_count() - 1;
        let (end, later) = (
            view::cursor_at(&twin.left, last),
            view::cursor_at(&twin.right, twin.right.frame_count() - 1),
        );
        assert!(later > end, "the keyed world goes on after the other ends");
        let at_end = ledger_view(&twin, false, last, end, false, Lang::En);
        let past = ledger_view(&twin, false, last, later, false, Lang::En);
        assert_ne!(at_end.on_time, past.on_time);
        assert!(past.on_time.contains("409"), "{past:?}");
    }

    /// A queue's line says what the queue heard, acks and nacks, not what
    /// an app heard.
    #[test]
    fn a_queues_ledger_hears_acks_and_nacks() {
        let scenario = builtin("queue-redelivery").expect("built-in");
        let twin =
            lousa_core::story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
                .expect("twin");
        let last = twin.right.frame_count() - 1;
        let end = view::cursor_at(&twin.right, last);
        let keyed = ledger_view(&twin, false, last, end, true, Lang::Pt);
        assert!(
            keyed.figures.contains("a fila ouviu: "),
            "{}",
            keyed.figures
        );
        assert!(keyed.figures.contains("nack"), "{}", keyed.figures);
        assert!(!keyed.figures.contains("503"), "{}", keyed.figures);
    }

    /// A line whose charges are orders paid in the database counts them as
    /// such, not as the acquirer's captures.
    #[test]
    fn a_ledger_of_local_effects_says_paid_without_the_acquirer() {
        let scenario = builtin("balance-lost-update").expect("built-in");
        let twin =
            lousa_core::story::twin(&scenario, Strategy::CheckThenAct, Strategy::LocalEffect)
                .expect("twin");
        let last = twin.right.frame_count() - 1;
        let end = view::cursor_at(&twin.right, last);
        let local = ledger_view(&twin, false, last, end, true, Lang::En);
        assert!(
            local.figures.starts_with("paid without the acquirer: 2"),
            "{}",
            local.figures
        );
        let top = ledger_view(&twin, true, last, end, false, Lang::En);
        assert!(top.figures.starts_with("captures: "), "{}", top.figures);
    }

    /// A pair of balance runs charges the same on both lines; their
    /// ledgers say what differs, the account's end balance.
    #[test]
    fn a_balance_pair_ledger_tells_the_end_balance() {
        let variant = |name| {
            let mut s = builtin(name).expect("built-in");
            s.strategy = Strategy::LocalEffect;
            s
        };
        let twin = lousa_core::story::twin_of(
            &variant("balance-lost-update"),
            &variant("balance-version-column"),
        )
        .expect("twin");
        let ends = [&twin.left, &twin.right].map(|run| {
            let last = run.frame_count() - 1;
            let top = std::ptr::eq(run, &twin.left);
            ledger_view(&twin, top, last, view::cursor_at(run, last), true, Lang::Pt).figures
        });
        assert!(ends[0].contains("· saldo: R$ 750,00 ·"), "{}", ends[0]);
        assert!(ends[1].contains("· saldo: R$ 350,00 ·"), "{}", ends[1]);
        let plain = lousa_core::story::twin(
            &builtin("timeout-retry").expect("built-in"),
            Strategy::CheckThenAct,
            Strategy::IdempotencyKey,
        )
        .expect("twin");
        let last = plain.left.frame_count() - 1;
        let end = view::cursor_at(&plain.left, last);
        let no_account = ledger_view(&plain, true, last, end, true, Lang::En).figures;
        assert!(!no_account.contains("balance"), "{no_account}");
    }
}
