//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "idempotency-key",
    about: "Claim the key with INSERT ... ON CONFLICT DO NOTHING, committed before the capture; store the answer; a repeat reads and replays it.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "cobranca", unique: None }],
    steps: &[
        StepRow {
            label: "claim",
            shown: None,
            action: DoRow::Insert {
                table: "cobranca",
                on_conflict_do_nothing: Some(&["idempotency_key"]),
                returning: &["id"],
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
