//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

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
