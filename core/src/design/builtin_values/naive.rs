//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::super::program_rows::*;
use super::super::rows::*;
use super::super::*;

pub(super) static DESIGN: DesignRow = DesignRow {
    name: "naive",
    about: "Insert the charge, call the acquirer, store what it said: nothing stops a retry from charging again.",
    serves: Serves::Http,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "cobranca_simples", unique: None }],
    steps: &[
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

pub(super) static PROGRAM: ProgramRow = ProgramRow {
    sites: &[
        SiteRow {
            shown: "insert",
            shape: ShapeRow::Insert {
                table: "cobranca_simples",
                values: &[
                    ("pedido_id", Source::Order),
                    ("valor_centavos", Source::Amount),
                    ("status", Source::Processing),
                ],
                on_conflict: None,
            },
            columns: &["id"],
            branches: &[],
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
            shown: "store-response",
            shape: ShapeRow::Update {
                table: "cobranca_simples",
                set: &["status"],
                fenced: false,
                local: false,
            },
            columns: &[],
            branches: &[
                JumpRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Plain(Answer::Capture)),
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
