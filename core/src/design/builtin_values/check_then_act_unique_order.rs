//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "check-then-act-unique-order",
    about: "Exercise: check-then-act with no key, only a UNIQUE constraint on pedido_id, its 23505 answered 409. Check that race-2 no longer charges twice; then find the retry answered 200 where the first was answered 201, and think of a retry that comes with a new order id.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "cobranca_simples", unique: Some(&["pedido_id"]) }],
    steps: &[
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
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("RECUSADA"),
                    answer: Some(AnswerRow::Charge(402)),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
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
            on: &[
                BranchRow {
                    when: WhenRow::Error("23505"),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
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
                    answer: Some(AnswerRow::Literal(504, "{\"erro\": \"adquirente sem resposta\"}")),
                    goto: "respond",
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
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
    ],
};
