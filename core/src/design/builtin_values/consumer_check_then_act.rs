//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "consumer-check-then-act",
    about: "A queue's consumer that looks for the message id, charges when it finds none, and records the id after the capture: two deliveries in flight both charge.",
    serves: Serves::Queue,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "mensagem_processada", unique: None }],
    steps: &[
        StepRow {
            label: "check-message",
            shown: None,
            action: DoRow::Select {
                table: "mensagem_processada",
                by: By::Key,
                columns: &["id"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "capture",
            shown: None,
            action: DoRow::Capture,
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Silent),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "record-message",
            shown: None,
            action: DoRow::Insert {
                table: "mensagem_processada",
                on_conflict_do_nothing: None,
                returning: &["id"],
                completed: true,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
    ],
};
