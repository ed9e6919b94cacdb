//! Read-only questions a front end asks of a run at one frame: which
//! statement is on screen, what each line of the twin timeline has charged
//! and answered so far, where a shared time cursor falls in another run, and
//! short labels for what the trace records by name.
//!
//! Everything here is a pure function of a [`Run`] (or a [`Frame`]) and a
//! frame index, so a view that calls these after a skipped scroll event, a
//! reload or a jump draws the same picture as one that stepped there.

use crate::narrate::Lang;
use crate::run::Run;
use crate::store::Value;
use crate::trace::{Actor, EventKind, Frame, SqlOutcome, TableView, TraceEvent};

/// A time on the simulated clock in seconds with milliseconds, written the
/// way each language writes decimals: `2,500 s` or `2.500 s`. Integer
/// arithmetic only: float formatting would cost the page kilobytes of code.
pub fn clock(time_ms: u64, lang: Lang) -> String {
    let separator = match lang {
        Lang::Pt => ',',
        Lang::En => '.',
    };
    format!("{}{separator}{:03} s", time_ms / 1000, time_ms % 1000)
}

/// What an instance is doing, from the handler step name a frame records
/// (`JobView::step`). Every built-in design's steps have words here (a
/// test holds it); a design of the workshop's own is shown by its names.
pub fn step_label(step: &str, lang: Lang) -> &str {
    let (pt, en) = match step {
        "begin" => ("abre a transação", "opens a transaction"),
        "select-order" => ("procura o pedido", "looks up the order"),
        "insert" => ("grava a cobrança", "writes the charge"),
        "commit" => ("confirma (COMMIT)", "commits"),
        "claim" => ("tenta gravar a chave", "tries to write the key"),
        "rollback" => ("desfaz (ROLLBACK)", "rolls back"),
        "read-key" => ("lê o registro da chave", "reads the key's record"),
        "capture" => ("chama o adquirente", "calls the acquirer"),
        "awaiting-acquirer" => ("espera o adquirente", "waits for the acquirer"),
        "acquirer-answered" => ("ouviu o adquirente", "heard the acquirer"),
        "store-response" => ("guarda a resposta", "stores the response"),
        "expire-key" => ("expira a chave vencida", "expires the stale key"),
        "retake-key" => ("retoma a chave", "takes the key over"),
        "insert-order" => ("grava o pedido pago", "records the paid order"),
        "respond" => ("responde", "answers"),
        "check-message" => ("procura a mensagem", "looks up the message"),
        "record-message" => ("registra a mensagem", "records the message"),
        "claim-message" => ("tenta gravar a mensagem", "tries to write the message"),
        "read-message" => ("lê o registro da mensagem", "reads the message's record"),
        "finish-message" => ("conclui a mensagem", "completes the message"),
        "read-balance" => ("lê o saldo", "reads the balance"),
        "write-balance" => ("grava o novo saldo", "writes the new balance"),
        "insert-outbox" => ("grava o evento na outbox", "writes the event to the outbox"),
        "publish-event" => ("publica o evento", "publishes the event"),
        other => return other,
    };
    match lang {
        Lang::Pt => pt,
        Lang::En => en,
    }
}

/// The events of the step that produced `frame` (none for frame 0).
pub fn step_events(run: &Run, frame: usize) -> &[TraceEvent] {
    match frame {
        0 => &[],
        f => run
            .steps
            .get(f - 1)
            .map_or(&[][..], |step| step.events.as_slice()),
    }
}

/// A statement for the SQL panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlShown<'a> {
    /// The frame whose step ran it.
    pub frame: usize,
    pub time_ms: u64,
    pub actor: Actor,
    pub sql: &'a str,
    pub outcome: &'a SqlOutcome,
    /// Set when this is a statement that had been waiting and now finished.
    pub waited_ms: Option<u64>,
}

/// The latest statement run at or before `frame`: the one the step that
/// produced `frame` ran, or the most recent earlier one. `None` before the
/// first statement.
pub fn sql_at(run: &Run, frame: usize) -> Option<SqlShown<'_>> {
    let frame = frame.min(run.frame_count() - 1);
    (1..=frame).rev().find_map(|f| {
        step_events(run, f)
            .iter()
            .rev()
            .find_map(|e| match &e.kind {
                EventKind::Sql { sql, outcome, .. } => Some(SqlShown {
                    frame: f,
                    time_ms: e.time_ms,
                    actor: e.actor,
                    sql,
                    outcome,
                    waited_ms: None,
                }),
                EventKind::SqlResumed {
                    sql,
                    outcome,
                    waited_ms,
                    ..
                } => Some(SqlShown {
                    frame: f,
                    time_ms: e.time_ms,
                    actor: e.actor,
                    sql,
                    outcome,
                    waited_ms: Some(*waited_ms),
                }),
                _ => None,
            })
    })
}

/// An answer a client heard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    pub client: u32,
    pub attempt: u32,
    pub status: u16,
    /// It arrived after the client had given up on that attempt, so the
    /// client ignored it.
    pub late: bool,
}

/// The running account of one world at one frame.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub captures: u32,
    pub charged_cents: i64,
    /// In the order they arrived.
    pub answers: Vec<Answer>,
    /// Intents captured more than once so far.
    pub double_charged: bool,
    /// The account's balance, in a run that debits one: what a lost update
    /// changes, where the charges add up the same.
    pub balance_cents: Option<i64>,
}

/// Captures, money and answers up to and including `frame`.
pub fn ledger_at(run: &Run, frame: usize) -> Ledger {
    let frame = frame.min(run.frame_count() - 1);
    let state = run.state_at(frame);
    let answers = (1..=frame)
        .flat_map(|f| step_events(run, f))
        .filter_map(|e| match e.kind {
            EventKind::ResponseReceived {
                client,
                attempt,
                status,
                ..
            } => Some(Answer {
                client,
                attempt,
                status,
                late: false,
            }),
            EventKind::LateResponseIgnored {
                client,
                attempt,
                status,
            } => Some(Answer {
                client,
                attempt,
                status,
                late: true,
            }),
            _ => None,
        })
        .collect();
    let balance_cents = state
        .tables
        .iter()
        .filter(|t| matches!(t.name.as_str(), "conta" | "conta_versionada"))
        .find_map(|t| row_facts(t, &t.rows.first()?.values).amount_cents);
    Ledger {
        captures: state.captures.iter().sum(),
        charged_cents: state.charged_cents,
        answers,
        double_charged: is_double_charge(state),
        balance_cents,
    }
}

/// Whether any intent has been captured more than once in this frame.
pub fn is_double_charge(frame: &Frame) -> bool {
    frame.captures.iter().any(|&n| n > 1)
}

/// A position on a time axis shared by runs of the same scenario: the
/// simulated time, and how many of the events at exactly that time have
/// happened. Many events share an instant (a race happens entirely at 0 ms),
/// so the time alone cannot say where between them a cursor is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cursor {
    pub time_ms: u64,
    pub events_at_time: usize,
}

/// Where `frame` of `run` sits on the shared axis: the time of its latest
/// event and how many events happened at that time up to this frame.
pub fn cursor_at(run: &Run, frame: usize) -> Cursor {
    let frame = frame.min(run.frame_count() - 1);
    let mut cursor = Cursor::default();
    for event in (1..=frame).flat_map(|f| step_events(run, f)) {
        if event.time_ms == cursor.time_ms {
            cursor.events_at_time += 1;
        } else {
            cursor = Cursor {
                time_ms: event.time_ms,
                events_at_time: 1,
            };
        }
    }
    cursor
}

/// The last frame of `run` whose events all lie at or before `cursor`: what
/// this world looks like when another world stands at `cursor`. Two runs that
/// share their first events give identical frames for cursors in that shared
/// prefix.
pub fn frame_at_cursor(run: &Run, cursor: Cursor) -> usize {
    let mut at_time = 0;
    let mut last = 0;
    for (index, step) in run.steps.iter().enumerate() {
        for event in &step.events {
            let within = match event.time_ms.cmp(&cursor.time_ms) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => {
                    at_time += 1;
                    at_time <= cursor.events_at_time
                }
                std::cmp::Ordering::Greater => false,
            };
            if !within {
                return last;
            }
        }
        last = index + 1;
    }
    last
}

/// The instance whose connection owns a store session, from the statements
/// it issued (`None` for the recovery worker or a session that never ran a
/// statement).
pub fn session_instance(run: &Run, session: u32) -> Option<u32> {
    run.store_log
        .iter()
        .find(|statement| statement.session == session)
        .and_then(|statement| statement.instance)
}

/// The columns of a row the lousa draws, picked by name from whichever table
/// a design writes (`cobranca`, `cobranca_simples`, `chave_idempotencia`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowFacts {
    pub id: Option<i64>,
    /// The idempotency key or message id.
    pub key: Option<String>,
    pub order_id: Option<i64>,
    pub amount_cents: Option<i64>,
    /// `status` (PROCESSANDO, CAPTURADA, ...), the state machine's `estado`,
    /// or an outbox row's `pendente` / `publicado`.
    pub status: Option<String>,
    pub http_status: Option<i64>,
}

pub fn row_facts(table: &TableView, values: &[Value]) -> RowFacts {
    let column = |names: &[&str]| {
        table
            .columns
            .iter()
            .position(|c| names.contains(&c.as_str()))
            .and_then(|i| values.get(i))
            .filter(|v| **v != Value::Null)
    };
    let int = |names: &[&str]| column(names).and_then(Value::as_int);
    let text = |names: &[&str]| column(names).and_then(Value::as_text).map(String::from);
    RowFacts {
        id: int(&["id"]),
        key: text(&["idempotency_key", "chave", "message_id"]),
        order_id: int(&["pedido_id"]),
        // An account's balance shows where a charge's amount does.
        amount_cents: int(&["valor_centavos", "saldo"]),
        // An outbox row's state is whether its event went out.
        status: text(&["status", "estado"]).or_else(|| {
            int(&["publicado"]).map(|p| if p == 0 { "pendente" } else { "publicado" }.into())
        }),
        http_status: int(&["resposta_http"]),
    }
}

/// The story beat (`story::BEATS`) that lands exactly on `frame`, if any:
/// lets a view name the moment the reader is looking at.
pub fn beat_at(run: &Run, frame: usize) -> Option<&'static str> {
    crate::story::BEATS
        .iter()
        .copied()
        .filter(|beat| !matches!(*beat, "start" | "end"))
        .find(|beat| crate::story::beat_frame(run, beat) == Some(frame))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::builtin;
    use crate::scenario::Strategy;
    use crate::story::beat_frame;

    #[test]
    fn every_step_a_built_in_design_shows_has_words_in_both_languages() {
        let mut shown = vec!["awaiting-acquirer".to_string()];
        for name in crate::design::builtin::STRATEGIES {
            let program = crate::design::builtin::named(name).expect("built-in");
            shown.extend((0..=program.respond()).map(|i| program.site(i).shown.clone()));
        }
        let named = |name: &String, lang| step_label(name, lang) != name;
        let mut missing: Vec<_> = shown
            .iter()
            .filter(|s| !(named(s, Lang::Pt) && named(s, Lang::En)))
            .collect();
        missing.dedup();
        assert!(missing.is_empty(), "shown as raw ids: {missing:?}");
        // A design of the workshop's own is shown by its own names.
        assert_eq!(step_label("something-new", Lang::Pt), "something-new");
    }

    fn story(strategy: Strategy) -> Run {
        let mut scenario = builtin("timeout-retry").expect("built-in");
        scenario.strategy = strategy;
        crate::run(&scenario).expect("valid")
    }

    #[test]
    fn an_account_shows_its_balance_and_an_outbox_row_whether_it_went_out() {
        let last = |name: &str| {
            let run = crate::run(&builtin(name).expect("built-in")).expect("valid");
            run.state_at(usize::MAX).clone()
        };
        let frame = last("balance-for-update");
        let conta = frame.tables.iter().find(|t| t.name == "conta").unwrap();
        let facts = row_facts(conta, &conta.rows[0].values);
        assert_eq!(facts.amount_cents, Some(35_000));
        assert_eq!(facts.status, None);
        let frame = last("event-outbox");
        let outbox = frame
            .tables
            .iter()
            .find(|t| t.name == "evento_outbox")
            .unwrap();
        let facts = row_facts(outbox, &outbox.rows[0].values);
        assert_eq!(facts.status.as_deref(), Some("publicado"));
        assert_eq!(facts.order_id, Some(123));
        let run = crate::run(&builtin("event-outbox").expect("built-in")).expect("valid");
        let before = (0..run.frame_count())
            .map(|f| run.state_at(f))
            .find_map(|f| {
                f.tables
                    .iter()
                    .find(|t| t.name == "evento_outbox" && !t.rows.is_empty())
                    .cloned()
            })
            .expect("the outbox row appears");
        assert_eq!(
            row_facts(&before, &before.rows[0].values).status.as_deref(),
            Some("pendente")
        );
    }

    #[test]
    fn clock_writes_milliseconds_with_the_language_decimal_mark() {
        assert_eq!(clock(2_500, Lang::Pt), "2,500 s");
        assert_eq!(clock(2_500, Lang::En), "2.500 s");
        assert_eq!(clock(35, Lang::Pt), "0,035 s");
        assert_eq!(clock(92_050, Lang::En), "92.050 s");
    }

    #[test]
    fn sql_at_shows_the_check_that_sees_an_empty_table() {
        let run = story(Strategy::CheckThenAct);
        let decides = beat_frame(&run, "retry-decides").expect("beat");
        let shown = sql_at(&run, decides).expect("a statement");
        assert_eq!(shown.frame, decides, "the statement ran in this very step");
        assert_eq!(shown.actor, Actor::Instance(1));
        assert!(shown.sql.starts_with("SELECT"), "{}", shown.sql);
        assert_eq!(shown.outcome, &SqlOutcome::Rows { rows: vec![] });
        assert_eq!(sql_at(&run, 0), None, "nothing ran before the start");
        let later = sql_at(&run, decides + 1).expect("a statement");
        assert!(later.frame <= decides + 1);
    }

    #[test]
    fn sql_at_reports_the_wait_of_a_resumed_statement() {
        let run = crate::run(&builtin("held-transaction").expect("built-in")).expect("valid");
        let resumed = (0..run.frame_count())
            .filter_map(|f| sql_at(&run, f))
            .find(|s| s.waited_ms.is_some())
            .expect("the retry's insert waits on the held transaction");
        assert!(resumed.waited_ms.unwrap() > 0);
        assert_eq!(resumed.actor, Actor::Instance(1));
    }

    #[test]
    fn ledger_counts_the_double_charge_and_the_late_answers() {
        let run = story(Strategy::CheckThenAct);
        let second = beat_frame(&run, "second-capture").expect("beat");
        let before = ledger_at(&run, second - 1);
        let at = ledger_at(&run, second);
        assert_eq!((before.captures, before.double_charged), (1, false));
        assert_eq!(
            (at.captures, at.charged_cents, at.double_charged),
            (2, 50_000, true)
        );
        let end = ledger_at(&run, run.frame_count() - 1);
        let heard: Vec<(u16, bool)> = end.answers.iter().map(|a| (a.status, a.late)).collect();
        assert_eq!(heard, vec![(201, true), (200, false), (201, true)]);
    }

    #[test]
    fn ledger_under_the_key_shows_the_409_then_the_replayed_201() {
        let run = story(Strategy::IdempotencyKey);
        let end = ledger_at(&run, run.frame_count() - 1);
        assert_eq!(
            (end.captures, end.charged_cents, end.double_charged),
            (1, 25_000, false)
        );
        let heard: Vec<u16> = end
            .answers
            .iter()
            .filter(|a| !a.late)
            .map(|a| a.status)
            .collect();
        assert_eq!(heard, vec![409, 201]);
        assert_eq!(ledger_at(&run, 0), Ledger::default());
    }

    #[test]
    fn cursor_round_trips_through_the_same_run() {
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
            let run = story(strategy);
            for frame in 0..run.frame_count() {
                let back = frame_at_cursor(&run, cursor_at(&run, frame));
                assert!(
                    back >= frame,
                    "{strategy}: frame {frame} came back as {back}"
                );
                assert_eq!(
                    cursor_at(&run, back),
                    cursor_at(&run, frame),
                    "{strategy}: frame {frame} and {back} stand at the same place"
                );
            }
        }
    }

    #[test]
    fn twin_worlds_look_the_same_at_a_cursor_before_they_diverge() {
        let scenario = builtin("timeout-retry").expect("built-in");
        let twin = crate::story::twin(&scenario, Strategy::CheckThenAct, Strategy::IdempotencyKey)
            .expect("valid");
        let split = twin
            .divergence
            .expect("the designs differ")
            .left_event
            .expect("index");
        let shared = twin
            .left
            .events()
            .nth(split)
            .map(|(frame, _)| frame - 1)
            .expect("event exists");
        for frame in 0..=shared {
            let right = frame_at_cursor(&twin.right, cursor_at(&twin.left, frame));
            let (l, r) = (twin.left.state_at(frame), twin.right.state_at(right));
            assert_eq!(l.clients, r.clients, "frame {frame}: clients agree");
            assert_eq!(l.captures, r.captures, "frame {frame}: captures agree");
            assert_eq!(l.time_ms, r.time_ms, "frame {frame}: same instant");
        }
        let end = cursor_at(&twin.left, twin.left.frame_count() - 1);
        assert_eq!(
            frame_at_cursor(&twin.right, end),
            twin.right.frame_count() - 1
        );
    }

    #[test]
    fn rows_name_their_status_in_every_design_table() {
        let run = story(Strategy::IdempotencyKey);
        let end = run.state_at(run.frame_count() - 1);
        let table = &end.tables[0];
        let facts = row_facts(table, &table.rows[0].values);
        assert_eq!(facts.status.as_deref(), Some("CAPTURADA"));
        assert_eq!(facts.http_status, Some(201));
        assert_eq!(facts.order_id, Some(123));
        assert_eq!(facts.amount_cents, Some(25_000));
        assert_eq!(facts.key.as_deref(), Some(crate::builtins::STORY_KEY));

        let lease = crate::run(&builtin("late-retry-after-ttl").expect("built-in")).expect("valid");
        let last = lease.state_at(lease.frame_count() - 1);
        let facts = row_facts(&last.tables[0], &last.tables[0].rows[0].values);
        assert!(facts.status.is_some(), "estado is read as the status");
        assert_eq!(facts.order_id, Some(123), "the key records its order");
    }

    #[test]
    fn an_uncommitted_row_names_the_instance_that_holds_it() {
        let run = crate::run(&builtin("held-transaction").expect("built-in")).expect("valid");
        let decides = beat_frame(&run, "retry-decides").expect("beat");
        let row = &run.state_at(decides).tables[0].rows[0];
        let holder = row.uncommitted_by.expect("the claim is not committed yet");
        assert_eq!(session_instance(&run, holder.0), Some(0));
    }

    #[test]
    fn beat_at_names_the_frames_the_article_points_at() {
        let run = story(Strategy::CheckThenAct);
        let timeout = beat_frame(&run, "timeout").expect("beat");
        assert_eq!(beat_at(&run, timeout), Some("timeout"));
        assert_eq!(beat_at(&run, 0), None);
    }
}
