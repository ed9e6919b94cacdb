//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::rows::*;
use super::*;

/// The built-in design written in the file named `name`.
pub(super) fn design(name: &str) -> Option<Design> {
    let row = match name {
        "naive" => &NAIVE,
        "check-then-act" => &CHECK_THEN_ACT,
        "check-then-act-autocommit" => &CHECK_THEN_ACT_AUTOCOMMIT,
        "idempotency-key" => &IDEMPOTENCY_KEY,
        "idempotency-key-in-tx" => &IDEMPOTENCY_KEY_IN_TX,
        "idempotency-key-catch" => &IDEMPOTENCY_KEY_CATCH,
        "idempotency-key-held-tx" => &IDEMPOTENCY_KEY_HELD_TX,
        "idempotency-key-lease" => &IDEMPOTENCY_KEY_LEASE,
        "local-effect" => &LOCAL_EFFECT,
        "local-effect-outbox" => &LOCAL_EFFECT_OUTBOX,
        "local-effect-publish" => &LOCAL_EFFECT_PUBLISH,
        "local-effect-balance" => &LOCAL_EFFECT_BALANCE,
        "consumer-naive" => &CONSUMER_NAIVE,
        "consumer-check-then-act" => &CONSUMER_CHECK_THEN_ACT,
        "consumer-claim" => &CONSUMER_CLAIM,
        _ => return None,
    };
    Some(row.design())
}

/// The exercise written in the file named `name`.
pub(super) fn exercise(name: &str) -> Option<Design> {
    let row = match name {
        "claim-after-capture" => &CLAIM_AFTER_CAPTURE,
        "forget-the-fingerprint" => &FORGET_THE_FINGERPRINT,
        "check-then-act-unique-order" => &CHECK_THEN_ACT_UNIQUE_ORDER,
        _ => return None,
    };
    Some(row.design())
}

static NAIVE: DesignRow = DesignRow {
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

static CHECK_THEN_ACT: DesignRow = DesignRow {
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

static CHECK_THEN_ACT_AUTOCOMMIT: DesignRow = DesignRow {
    name: "check-then-act-autocommit",
    about: "Check-then-act with every statement committed on its own: the same race, without the transaction.",
    serves: Serves::Http,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "cobranca_simples", unique: None }],
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

static IDEMPOTENCY_KEY: DesignRow = DesignRow {
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

static IDEMPOTENCY_KEY_IN_TX: DesignRow = DesignRow {
    name: "idempotency-key-in-tx",
    about: "The key's claim inside BEGIN ... COMMIT, as under an isolation level stricter than READ COMMITTED, committed before the capture.",
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
                on_conflict_do_nothing: Some(&["idempotency_key"]),
                returning: &["id"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "commit-then-read",
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
            label: "commit-then-read",
            shown: Some("commit"),
            action: DoRow::Commit,
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

static IDEMPOTENCY_KEY_CATCH: DesignRow = DesignRow {
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

static IDEMPOTENCY_KEY_HELD_TX: DesignRow = DesignRow {
    name: "idempotency-key-held-tx",
    about: "The pitfall: the claim's transaction stays open across the capture, so a repeat waits on its lock and a timeout rolls the claim back.",
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
                on_conflict_do_nothing: Some(&["idempotency_key"]),
                returning: &["id"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "commit-then-read",
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
                table: "cobranca",
                set: &["status", "resposta_http", "resposta_corpo"],
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
            label: "rollback-held",
            shown: Some("rollback"),
            action: DoRow::Rollback,
            on: &[],
            next: Some("respond"),
        },
        StepRow {
            label: "commit-then-read",
            shown: Some("commit"),
            action: DoRow::Commit,
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

static IDEMPOTENCY_KEY_LEASE: DesignRow = DesignRow {
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

static LOCAL_EFFECT: DesignRow = DesignRow {
    name: "local-effect",
    about: "The effect is a row in the same database: the key's claim, the order and the key's answer commit together in one transaction, so a repeat finds the key completed or nothing at all.",
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
        StepRow {
            label: "commit",
            shown: None,
            action: DoRow::Commit,
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

static LOCAL_EFFECT_OUTBOX: DesignRow = DesignRow {
    name: "local-effect-outbox",
    about: "local-effect with its event as a row of evento_outbox, written in the effect's transaction: a relay publishes what committed, so a crash loses no event.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[
        TableRow { name: "chave_idempotencia", unique: None },
        TableRow { name: "pedido_pago", unique: None },
        TableRow { name: "evento_outbox", unique: None },
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
            label: "insert-outbox",
            shown: None,
            action: DoRow::Insert {
                table: "evento_outbox",
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
        StepRow {
            label: "commit",
            shown: None,
            action: DoRow::Commit,
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

static LOCAL_EFFECT_PUBLISH: DesignRow = DesignRow {
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

static LOCAL_EFFECT_BALANCE: DesignRow = DesignRow {
    name: "local-effect-balance",
    about: "local-effect whose effect debits an account: it reads the balance, refuses an amount it does not cover, and writes the balance less the amount it computed, a read-compute-write two debits can interleave.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[
        TableRow { name: "chave_idempotencia", unique: None },
        TableRow { name: "pedido_pago", unique: None },
        TableRow { name: "conta", unique: None },
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
            label: "read-balance",
            shown: None,
            action: DoRow::Select {
                table: "conta",
                by: By::Account,
                columns: &["saldo"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::InsufficientFunds),
                    answer: Some(AnswerRow::Literal(402, "{\"erro\": \"saldo insuficiente\"}")),
                    goto: "rollback-after-error",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "write-balance",
            shown: None,
            action: DoRow::Update { table: "conta", set: &["saldo"], fenced: false, local: false },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "read-balance",
                    again: Some(3),
                },
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: Some(AnswerRow::Literal(409, "{\"erro\": \"saldo alterado por outra transação\"}")),
                    goto: "rollback-after-error",
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
        StepRow {
            label: "commit",
            shown: None,
            action: DoRow::Commit,
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

static CONSUMER_NAIVE: DesignRow = DesignRow {
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

static CONSUMER_CHECK_THEN_ACT: DesignRow = DesignRow {
    name: "consumer-check-then-act",
    about: "A queue's consumer that looks for the message id, charges when it finds none, and records the id after the capture: two deliveries in flight both charge.",
    serves: Serves::Queue,
    claims: Claims::Nothing,
    isolation: None,
    tables: &[TableRow { name: "mensagem_processada", unique: None }],
    steps: &[
        StepRow {
            label: "check-message",
            shown: None,
            action: DoRow::Select {
                table: "mensagem_processada",
                by: By::Key,
                columns: &["id"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::Rows),
                    answer: Some(AnswerRow::Literal(200, "ack")),
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
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "record-message",
            shown: None,
            action: DoRow::Insert {
                table: "mensagem_processada",
                on_conflict_do_nothing: None,
                returning: &["id"],
                completed: true,
            },
            on: &[
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

static CONSUMER_CLAIM: DesignRow = DesignRow {
    name: "consumer-claim",
    about: "A queue's consumer that claims the message id under the UNIQUE constraint before the capture, with a lease; a delivery that finds it completed acks without charging, one that finds it processing nacks.",
    serves: Serves::Queue,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "mensagem_processada", unique: None }],
    steps: &[
        StepRow {
            label: "claim-message",
            shown: None,
            action: DoRow::Insert {
                table: "mensagem_processada",
                on_conflict_do_nothing: Some(&["message_id"]),
                returning: &["id", "lease_ate_ms"],
                completed: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
                    answer: None,
                    goto: "read-message",
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
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
        StepRow {
            label: "finish-message",
            shown: None,
            action: DoRow::Update {
                table: "mensagem_processada",
                set: &["estado"],
                fenced: true,
                local: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Plain(When::NoRows),
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
        StepRow {
            label: "read-message",
            shown: None,
            action: DoRow::Select {
                table: "mensagem_processada",
                by: By::Key,
                columns: &["estado"],
                for_update: false,
            },
            on: &[
                BranchRow {
                    when: WhenRow::Status("completed"),
                    answer: Some(AnswerRow::Literal(200, "ack")),
                    goto: "respond",
                    again: None,
                },
                BranchRow {
                    when: WhenRow::Plain(When::Always),
                    answer: Some(AnswerRow::Literal(503, "nack")),
                    goto: "respond",
                    again: None,
                },
            ],
            next: None,
        },
    ],
};

static CLAIM_AFTER_CAPTURE: DesignRow = DesignRow {
    name: "claim-after-capture",
    about: "Exercise: the key is claimed only after the acquirer answered. Find the schedule that charges twice, and say why committing the claim first would stop it.",
    serves: Serves::Http,
    claims: Claims::ChargeOnce,
    isolation: None,
    tables: &[TableRow { name: "cobranca", unique: None }],
    steps: &[
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

static FORGET_THE_FINGERPRINT: DesignRow = DesignRow {
    name: "forget-the-fingerprint",
    about: "Exercise: the key's row is replayed without comparing the order and the amount. Send the key again with another amount (key-reuse) and find the 2xx that no capture backs.",
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

static CHECK_THEN_ACT_UNIQUE_ORDER: DesignRow = DesignRow {
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
