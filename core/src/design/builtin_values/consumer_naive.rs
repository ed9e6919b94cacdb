//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::program_rows::*;
use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "consumer-naive",
    about: "A queue's consumer that charges on every delivery and acks once the acquirer answers: a redelivery charges again.",
    serves: Serves::Queue,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "mensagem_processada", unique: None }],
    steps: &[
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
            shown: "capture",
            shape: ShapeRow::Capture,
            columns: &[],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Silent),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    to: 2,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    to: 2,
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
            shown: "rollback",
            shape: ShapeRow::Rollback,
            columns: &[],
            branches: &[],
            next: 2,
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
            next: 2,
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
