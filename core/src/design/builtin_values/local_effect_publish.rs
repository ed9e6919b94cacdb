//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "local-effect-publish",
    about: "local-effect that publishes its event after the COMMIT: a crash between the two loses the event of an effect that happened.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[
        TableRow { name: "chave_idempotencia", unique: None },
        TableRow { name: "pedido_pago", unique: None },
    ],
    steps: &[
        StepRow { label: "begin", shown: None, action: DoRow::Begin, on: &[], next: None },
        StepRow {
            label: "claim",
            shown: None,
            action: DoRow::Insert {
                table: "chave_idempotencia",
                on_conflict_do_nothing: Some(&["escopo", "chave"]),
                returning: &["id", "lease_ate_ms"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "rollback-then-read",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "insert-order",
            shown: None,
            action: DoRow::Insert {
                table: "pedido_pago",
                on_conflict_do_nothing: None,
                returning: &[],
                completed: false,
            },
            on: &[],
            next: None,
        },
        StepRow {
            label: "store-response",
            shown: None,
            action: DoRow::Update {
                table: "chave_idempotencia",
                set: &["estado", "expira_em_ms", "resposta_http", "resposta_corpo"],
                fenced: true,
                local: true,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(503, "{\"erro\": \"tente novamente\"}")),
                    goto: "rollback-after-error",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Plain(Answer::Local)),
                    goto: "commit",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow { label: "commit", shown: None, action: DoRow::Commit, on: &[], next: None },
        StepRow {
            label: "publish-event",
            shown: None,
            action: DoRow::Publish,
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: None,
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "rollback-after-error",
            shown: Some("rollback"),
            action: DoRow::Rollback,
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: None,
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "rollback-then-read",
            shown: Some("rollback"),
            action: DoRow::Rollback,
            on: &[],
            next: None,
        },
        StepRow {
            label: "read-key",
            shown: None,
            action: DoRow::Select {
                table: "chave_idempotencia",
                by: By::Key,
                columns: &[
                    "id",
                    "impressao",
                    "estado",
                    "expira_em_ms",
                    "resposta_http",
                    "resposta_corpo",
                    "resposta_headers",
                ],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "begin",
                    again: Some(2),
                },
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Expired),
                    answer: None,
                    goto: "expire-key",
                    again: Some(2),
                },
                BranchRow {
                    when: WhenRow::Plain(When::OtherRequest),
                    answer: Some(AnswerRow::Literal(422, "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("completed"),
                    answer: Some(AnswerRow::Plain(Answer::Stored)),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("unknown"),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"conciliando\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("escalated"),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"em conciliação manual\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "expire-key",
            shown: None,
            action: DoRow::Delete { table: "chave_idempotencia" },
            on: &[],
            next: Some("begin"),
        },
    ],
};
