//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::program_rows::*;
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

pub(super) static PROGRAM: ProgramRow = ProgramRow {
    sites: &[
        SiteRow {
            shown: "check-message",
            shape: ShapeRow::Select {
                table: "mensagem_processada",
                filter: &[("message_id", Source::Key)],
                for_update: false,
            },
            columns: &["id"],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    to: 4,
                    again: None,
                },
            ],
            next: 1,
            in_tx: false,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
        SiteRow {
            shown: "capture",
            shape: ShapeRow::Capture,
            columns: &[],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Silent),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    to: 4,
                    again: None,
                },
            ],
            next: 2,
            in_tx: false,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
        SiteRow {
            shown: "record-message",
            shape: ShapeRow::Insert {
                table: "mensagem_processada",
                values: &[
                    ("message_id", Source::Key),
                    ("pedido_id", Source::Order),
                    ("estado", Source::StateCompleted),
                ],
                on_conflict: None,
            },
            columns: &["id"],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    to: 4,
                    again: None,
                },
            ],
            next: 4,
            in_tx: false,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
        SiteRow {
            shown: "rollback",
            shape: ShapeRow::Rollback,
            columns: &[],
            branches: &[],
            next: 4,
            in_tx: true,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
        SiteRow {
            shown: "respond",
            shape: ShapeRow::Respond,
            columns: &[],
            branches: &[],
            next: 4,
            in_tx: false,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
    ],
    captures_once: true,
    stores_headers: false,
};
