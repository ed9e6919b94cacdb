//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::program_rows::*;
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

pub(super) static PROGRAM: ProgramRow = ProgramRow {
    sites: &[
        SiteRow {
            shown: "claim",
            shape: ShapeRow::Insert {
                table: "cobranca",
                values: &[
                    ("idempotency_key", Source::Key),
                    ("pedido_id", Source::Order),
                    ("valor_centavos", Source::Amount),
                    ("status", Source::Processing),
                ],
                on_conflict: Some(&["idempotency_key"]),
            },
            columns: &["id"],
            branches: &[JumpRow { when: WhenRow::Plain(When::NoRows), answer: None, to: 3, again: None }],
            next: 1,
            in_tx: false,
            commits_claim: true,
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
                    answer: Some(AnswerRow::Literal(504, "{\"erro\": \"adquirente sem resposta\"}")),
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
            shown: "store-response",
            shape: ShapeRow::Update {
                table: "cobranca",
                set: &["status", "resposta_http", "resposta_corpo"],
                fenced: false,
                local: false,
            },
            columns: &[],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Plain(Answer::Capture)),
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
            shown: "read-key",
            shape: ShapeRow::Select {
                table: "cobranca",
                filter: &[("idempotency_key", Source::Key)],
                for_update: false,
            },
            columns: &["pedido_id", "valor_centavos", "status", "resposta_http", "resposta_corpo"],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    to: 5,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Plain(When::OtherRequest),
                    answer: Some(AnswerRow::Literal(422, "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}")),
                    to: 5,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Status("PROCESSANDO"),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"processando\"}")),
                    to: 5,
                    again: None,
                },
                JumpRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Plain(Answer::Stored)),
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
