//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "check-then-act",
    about: "Look for the order's charge, insert one if there is none, in one transaction held across the capture: two requests can both look before either inserts.",
    serves: Serves::Http,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "cobranca_simples", unique: None }],
    steps: &[
        StepRow { label: "begin", shown: None, action: DoRow::Begin, on: &[], next: None },
        StepRow {
            label: "select-order",
            shown: None,
            action: DoRow::Select {
                table: "cobranca_simples",
                by: By::Order,
                columns: &["id", "status"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Status("CAPTURADA"),
                    answer: Some(AnswerRow::Charge(200)),
                    goto: "commit-then-respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("RECUSADA"),
                    answer: Some(AnswerRow::Charge(402)),
                    goto: "commit-then-respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "commit-then-respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "insert",
            shown: None,
            action: DoRow::Insert {
                table: "cobranca_simples",
                on_conflict_do_nothing: None,
                returning: &["id"],
                completed: false,
            },
            on: &[],
            next: None,
        },
        StepRow {
            label: "capture",
            shown: None,
            action: DoRow::Capture,
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Silent),
                    answer: Some(AnswerRow::Literal(504, "{\"erro\": \"adquirente sem resposta\"}")),
                    goto: "rollback-held",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "store-response",
            shown: None,
            action: DoRow::Update {
                table: "cobranca_simples",
                set: &["status"],
                fenced: false,
                local: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Plain(Answer::Capture)),
                    goto: "commit",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "commit",
            shown: None,
            action: DoRow::Commit,
            on: &[],
            next: Some("respond"),
        },
        StepRow {
            label: "commit-then-respond",
            shown: Some("commit"),
            action: DoRow::Commit,
            on: &[],
            next: Some("respond"),
        },
        StepRow {
            label: "rollback-held",
            shown: Some("rollback"),
            action: DoRow::Rollback,
            on: &[],
            next: Some("respond"),
        },
    ],
};
