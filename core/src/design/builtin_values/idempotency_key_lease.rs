//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "idempotency-key-lease",
    about: "The second post's key: claimed with its scope, the body's fingerprint and a lease; the answer written only while the lease holds; a repeat decides from the key's state, and recovery resolves what a crash left.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "chave_idempotencia", unique: None }],
    steps: &[
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
                    goto: "read-key",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow { label: "capture", shown: None, action: DoRow::Capture, on: &[], next: None },
        StepRow {
            label: "store-response",
            shown: None,
            action: DoRow::Update {
                table: "chave_idempotencia",
                set: &[
                    "estado",
                    "expira_em_ms",
                    "resposta_http",
                    "resposta_corpo",
                    "resposta_headers",
                ],
                fenced: true,
                local: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(503, "{\"erro\": \"tente novamente\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Plain(Answer::Capture)),
                    goto: "respond",
                    again: None,
                },
            ],
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
                    goto: "claim",
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
                    when: WhenRow::Status("failed_safe"),
                    answer: None,
                    goto: "retake-key",
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
            next: Some("claim"),
        },
        StepRow {
            label: "retake-key",
            shown: None,
            action: DoRow::Retake { table: "chave_idempotencia", from: "failed_safe" },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: None,
                    goto: "capture",
                    again: None,
                },
            ],
            next: None,
        },
    ],
};
