//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::program_rows::*;
use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "consumer-claim",
    about: "A queue's consumer that claims the message id under the UNIQUE constraint before the capture, with a lease; a delivery that finds it completed acks without charging, one that finds it processing nacks.",
    serves: Serves::Queue,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "mensagem_processada", unique: None }],
    steps: &[
        StepRow {
            label: "claim-message",
            shown: None,
            action: DoRow::Insert {
                table: "mensagem_processada",
                on_conflict_do_nothing: Some(&["message_id"]),
                returning: &["id", "lease_ate_ms"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "read-message",
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
            label: "finish-message",
            shown: None,
            action: DoRow::Update {
                table: "mensagem_processada",
                set: &["estado"],
                fenced: true,
                local: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "read-message",
            shown: None,
            action: DoRow::Select {
                table: "mensagem_processada",
                by: By::Key,
                columns: &["estado"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Status("completed"),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(503, "nack")),
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
            shown: "claim-message",
            shape: ShapeRow::Insert {
                table: "mensagem_processada",
                values: &[
                    ("message_id", Source::Key),
                    ("pedido_id", Source::Order),
                    ("estado", Source::StateProcessing),
                    ("lease_ate_ms", Source::LeaseFromNow),
                ],
                on_conflict: Some(&["message_id"]),
            },
            columns: &["id", "lease_ate_ms"],
            branches: &[JumpRow { when: WhenRow::Plain(When::NoRows), answer: None, to: 3, again: None }],
            next: 1,
            in_tx: false,
            commits_claim: true,
            needs_now: true,
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
                    to: 5,
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
            shown: "finish-message",
            shape: ShapeRow::Update {
                table: "mensagem_processada",
                set: &["estado"],
                fenced: true,
                local: false,
            },
            columns: &["id"],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    to: 5,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    to: 5,
                    again: None,
                },
            ],
            next: 3,
            in_tx: false,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
            loop_slot: 0,
        },
        SiteRow {
            shown: "read-message",
            shape: ShapeRow::Select {
                table: "mensagem_processada",
                filter: &[("message_id", Source::Key)],
                for_update: false,
            },
            columns: &["estado"],
            branches: &[
                JumpRow {
                    when: WhenRow::Status("completed"),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    to: 5,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    to: 5,
                    again: None,
                },
            ],
            next: 5,
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
            next: 5,
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
            next: 5,
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
