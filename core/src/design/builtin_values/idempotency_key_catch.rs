//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "idempotency-key-catch",
    about: "A plain INSERT of the key whose unique violation (23505) is caught: roll back, then read the key's row.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "cobranca", unique: None }],
    steps: &[
        StepRow { label: "begin", shown: None, action: DoRow::Begin, on: &[], next: None },
        StepRow {
            label: "claim",
            shown: None,
            action: DoRow::Insert {
                table: "cobranca",
                on_conflict_do_nothing: None,
                returning: &["id"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Error("23505"),
                    answer: None,
                    goto: "rollback-then-read",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "commit-then-capture",
            shown: Some("commit"),
            action: DoRow::Commit,
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
                table: "cobranca",
                set: &["status", "resposta_http", "resposta_corpo"],
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
                table: "cobranca",
                by: By::Key,
                columns: &["pedido_id", "valor_centavos", "status", "resposta_http", "resposta_corpo"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::OtherRequest),
                    answer: Some(AnswerRow::Literal(422, "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Status("PROCESSANDO"),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Plain(Answer::Stored)),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
    ],
};
