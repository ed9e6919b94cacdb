//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::*;

/// The built-in design or exercise written in the file named `name`.
pub(super) fn design(name: &str) -> Option<Design> {
    Some(match name {
        "naive" => naive(),
        "check-then-act" => check_then_act(),
        "check-then-act-autocommit" => check_then_act_autocommit(),
        "idempotency-key" => idempotency_key(),
        "idempotency-key-in-tx" => idempotency_key_in_tx(),
        "idempotency-key-catch" => idempotency_key_catch(),
        "idempotency-key-held-tx" => idempotency_key_held_tx(),
        "idempotency-key-lease" => idempotency_key_lease(),
        "local-effect" => local_effect(),
        "local-effect-outbox" => local_effect_outbox(),
        "local-effect-publish" => local_effect_publish(),
        "local-effect-balance" => local_effect_balance(),
        "consumer-naive" => consumer_naive(),
        "consumer-check-then-act" => consumer_check_then_act(),
        "consumer-claim" => consumer_claim(),
        "claim-after-capture" => claim_after_capture(),
        "forget-the-fingerprint" => forget_the_fingerprint(),
        "check-then-act-unique-order" => check_then_act_unique_order(),
        _ => return None,
    })
}

fn naive() -> Design {
    Design {
        name: "naive".into(),
        about: "Insert the charge, call the acquirer, store what it said: nothing stops a retry from charging again.".into(),
        serves: Serves::Http,
        claims: Claims::Nothing,
        isolation: None,
        tables: vec![TableUse { name: "cobranca_simples".into(), unique: None }],
        steps: vec![
            Step {
                label: "insert".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca_simples".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca_simples".into(),
                    set: vec!["status".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn check_then_act() -> Design {
    Design {
        name: "check-then-act".into(),
        about: "Look for the order's charge, insert one if there is none, in one transaction held across the capture: two requests can both look before either inserts.".into(),
        serves: Serves::Http,
        claims: Claims::Nothing,
        isolation: None,
        tables: vec![TableUse { name: "cobranca_simples".into(), unique: None }],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "select-order".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca_simples".into(),
                    by: By::Order,
                    columns: vec!["id".into(), "status".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::Status("CAPTURADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 200 })),
                        goto: "commit-then-respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("RECUSADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 402 })),
                        goto: "commit-then-respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "commit-then-respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca_simples".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "rollback-held".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca_simples".into(),
                    set: vec!["status".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![],
                next: Some("respond".into()),
            },
            Step {
                label: "commit-then-respond".into(),
                shown: Some("commit".into()),
                action: Do::Commit,
                on: vec![],
                next: Some("respond".into()),
            },
            Step {
                label: "rollback-held".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: Some("respond".into()),
            },
        ],
    }
}

fn check_then_act_autocommit() -> Design {
    Design {
        name: "check-then-act-autocommit".into(),
        about: "Check-then-act with every statement committed on its own: the same race, without the transaction.".into(),
        serves: Serves::Http,
        claims: Claims::Nothing,
        isolation: None,
        tables: vec![TableUse { name: "cobranca_simples".into(), unique: None }],
        steps: vec![
            Step {
                label: "select-order".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca_simples".into(),
                    by: By::Order,
                    columns: vec!["id".into(), "status".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::Status("CAPTURADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 200 })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("RECUSADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 402 })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca_simples".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca_simples".into(),
                    set: vec!["status".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn idempotency_key() -> Design {
    Design {
        name: "idempotency-key".into(),
        about: "Claim the key with INSERT ... ON CONFLICT DO NOTHING, committed before the capture; store the answer; a repeat reads and replays it.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-key".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn idempotency_key_in_tx() -> Design {
    Design {
        name: "idempotency-key-in-tx".into(),
        about: "The key's claim inside BEGIN ... COMMIT, as under an isolation level stricter than READ COMMITTED, committed before the capture.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "commit-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit-then-capture".into(),
                shown: Some("commit".into()),
                action: Do::Commit,
                on: vec![],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit-then-read".into(),
                shown: Some("commit".into()),
                action: Do::Commit,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn idempotency_key_catch() -> Design {
    Design {
        name: "idempotency-key-catch".into(),
        about: "A plain INSERT of the key whose unique violation (23505) is caught: roll back, then read the key's row.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::Error("23505".into()),
                        answer: None,
                        goto: "rollback-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit-then-capture".into(),
                shown: Some("commit".into()),
                action: Do::Commit,
                on: vec![],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-then-read".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn idempotency_key_held_tx() -> Design {
    Design {
        name: "idempotency-key-held-tx".into(),
        about: "The pitfall: the claim's transaction stays open across the capture, so a repeat waits on its lock and a timeout rolls the claim back.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "commit-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "rollback-held".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![],
                next: Some("respond".into()),
            },
            Step {
                label: "rollback-held".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: Some("respond".into()),
            },
            Step {
                label: "commit-then-read".into(),
                shown: Some("commit".into()),
                action: Do::Commit,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn idempotency_key_lease() -> Design {
    Design {
        name: "idempotency-key-lease".into(),
        about: "The second post's key: claimed with its scope, the body's fingerprint and a lease; the answer written only while the lease holds; a repeat decides from the key's state, and recovery resolves what a crash left.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "chave_idempotencia".into(), unique: None }],
        steps: vec![
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "chave_idempotencia".into(),
                    on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-key".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "chave_idempotencia".into(),
                    set: vec![
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    fenced: true,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "{\"erro\": \"tente novamente\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "chave_idempotencia".into(),
                    by: By::Key,
                    columns: vec![
                        "id".into(),
                        "impressao".into(),
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "claim".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Expired,
                        answer: None,
                        goto: "expire-key".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("failed_safe".into()),
                        answer: None,
                        goto: "retake-key".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("unknown".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"conciliando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("escalated".into()),
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"em conciliação manual\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "expire-key".into(),
                shown: None,
                action: Do::Delete(Delete { table: "chave_idempotencia".into() }),
                on: vec![],
                next: Some("claim".into()),
            },
            Step {
                label: "retake-key".into(),
                shown: None,
                action: Do::Retake(Retake { table: "chave_idempotencia".into(), from: "failed_safe".into() }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch { when: When::Rows, answer: None, goto: "capture".into(), again: None },
                ],
                next: None,
            },
        ],
    }
}

fn local_effect() -> Design {
    Design {
        name: "local-effect".into(),
        about: "The effect is a row in the same database: the key's claim, the order and the key's answer commit together in one transaction, so a repeat finds the key completed or nothing at all.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![
            TableUse { name: "chave_idempotencia".into(), unique: None },
            TableUse { name: "pedido_pago".into(), unique: None },
        ],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "chave_idempotencia".into(),
                    on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "rollback-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert-order".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "pedido_pago".into(),
                    on_conflict_do_nothing: None,
                    returning: vec![],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "chave_idempotencia".into(),
                    set: vec![
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    fenced: true,
                    local: true,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "{\"erro\": \"tente novamente\"}".into() })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Local),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-after-error".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-then-read".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "chave_idempotencia".into(),
                    by: By::Key,
                    columns: vec![
                        "id".into(),
                        "impressao".into(),
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "begin".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Expired,
                        answer: None,
                        goto: "expire-key".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("unknown".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"conciliando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("escalated".into()),
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"em conciliação manual\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "expire-key".into(),
                shown: None,
                action: Do::Delete(Delete { table: "chave_idempotencia".into() }),
                on: vec![],
                next: Some("begin".into()),
            },
        ],
    }
}

fn local_effect_outbox() -> Design {
    Design {
        name: "local-effect-outbox".into(),
        about: "local-effect with its event as a row of evento_outbox, written in the effect's transaction: a relay publishes what committed, so a crash loses no event.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![
            TableUse { name: "chave_idempotencia".into(), unique: None },
            TableUse { name: "pedido_pago".into(), unique: None },
            TableUse { name: "evento_outbox".into(), unique: None },
        ],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "chave_idempotencia".into(),
                    on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "rollback-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert-order".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "pedido_pago".into(),
                    on_conflict_do_nothing: None,
                    returning: vec![],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "insert-outbox".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "evento_outbox".into(),
                    on_conflict_do_nothing: None,
                    returning: vec![],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "chave_idempotencia".into(),
                    set: vec![
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    fenced: true,
                    local: true,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "{\"erro\": \"tente novamente\"}".into() })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Local),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-after-error".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-then-read".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "chave_idempotencia".into(),
                    by: By::Key,
                    columns: vec![
                        "id".into(),
                        "impressao".into(),
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "begin".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Expired,
                        answer: None,
                        goto: "expire-key".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("unknown".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"conciliando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("escalated".into()),
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"em conciliação manual\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "expire-key".into(),
                shown: None,
                action: Do::Delete(Delete { table: "chave_idempotencia".into() }),
                on: vec![],
                next: Some("begin".into()),
            },
        ],
    }
}

fn local_effect_publish() -> Design {
    Design {
        name: "local-effect-publish".into(),
        about: "local-effect that publishes its event after the COMMIT: a crash between the two loses the event of an effect that happened.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![
            TableUse { name: "chave_idempotencia".into(), unique: None },
            TableUse { name: "pedido_pago".into(), unique: None },
        ],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "chave_idempotencia".into(),
                    on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "rollback-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert-order".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "pedido_pago".into(),
                    on_conflict_do_nothing: None,
                    returning: vec![],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "chave_idempotencia".into(),
                    set: vec![
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    fenced: true,
                    local: true,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "{\"erro\": \"tente novamente\"}".into() })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Local),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![],
                next: None,
            },
            Step {
                label: "publish-event".into(),
                shown: None,
                action: Do::Publish,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-after-error".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-then-read".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "chave_idempotencia".into(),
                    by: By::Key,
                    columns: vec![
                        "id".into(),
                        "impressao".into(),
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "begin".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Expired,
                        answer: None,
                        goto: "expire-key".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("unknown".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"conciliando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("escalated".into()),
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"em conciliação manual\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "expire-key".into(),
                shown: None,
                action: Do::Delete(Delete { table: "chave_idempotencia".into() }),
                on: vec![],
                next: Some("begin".into()),
            },
        ],
    }
}

fn local_effect_balance() -> Design {
    Design {
        name: "local-effect-balance".into(),
        about: "local-effect whose effect debits an account: it reads the balance, refuses an amount it does not cover, and writes the balance less the amount it computed, a read-compute-write two debits can interleave.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![
            TableUse { name: "chave_idempotencia".into(), unique: None },
            TableUse { name: "pedido_pago".into(), unique: None },
            TableUse { name: "conta".into(), unique: None },
        ],
        steps: vec![
            Step { label: "begin".into(), shown: None, action: Do::Begin, on: vec![], next: None },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "chave_idempotencia".into(),
                    on_conflict_do_nothing: Some(vec!["escopo".into(), "chave".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "rollback-then-read".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-balance".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "conta".into(),
                    by: By::Account,
                    columns: vec!["saldo".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::InsufficientFunds,
                        answer: Some(Answer::Literal(Literal { status: 402, body: "{\"erro\": \"saldo insuficiente\"}".into() })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "write-balance".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "conta".into(),
                    set: vec!["saldo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-balance".into(),
                        again: Some(3),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"saldo alterado por outra transação\"}".into(),
                        })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert-order".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "pedido_pago".into(),
                    on_conflict_do_nothing: None,
                    returning: vec![],
                    completed: false,
                }),
                on: vec![],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "chave_idempotencia".into(),
                    set: vec![
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    fenced: true,
                    local: true,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "{\"erro\": \"tente novamente\"}".into() })),
                        goto: "rollback-after-error".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Local),
                        goto: "commit".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "commit".into(),
                shown: None,
                action: Do::Commit,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-after-error".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: None,
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "rollback-then-read".into(),
                shown: Some("rollback".into()),
                action: Do::Rollback,
                on: vec![],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "chave_idempotencia".into(),
                    by: By::Key,
                    columns: vec![
                        "id".into(),
                        "impressao".into(),
                        "estado".into(),
                        "expira_em_ms".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                        "resposta_headers".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "begin".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Expired,
                        answer: None,
                        goto: "expire-key".into(),
                        again: Some(2),
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("unknown".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"conciliando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("escalated".into()),
                        answer: Some(Answer::Literal(Literal {
                            status: 409,
                            body: "{\"erro\": \"em conciliação manual\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "expire-key".into(),
                shown: None,
                action: Do::Delete(Delete { table: "chave_idempotencia".into() }),
                on: vec![],
                next: Some("begin".into()),
            },
        ],
    }
}

fn consumer_naive() -> Design {
    Design {
        name: "consumer-naive".into(),
        about: "A queue's consumer that charges on every delivery and acks once the acquirer answers: a redelivery charges again.".into(),
        serves: Serves::Queue,
        claims: Claims::Nothing,
        isolation: None,
        tables: vec![TableUse { name: "mensagem_processada".into(), unique: None }],
        steps: vec![
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "nack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 200, body: "ack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn consumer_check_then_act() -> Design {
    Design {
        name: "consumer-check-then-act".into(),
        about: "A queue's consumer that looks for the message id, charges when it finds none, and records the id after the capture: two deliveries in flight both charge.".into(),
        serves: Serves::Queue,
        claims: Claims::Nothing,
        isolation: None,
        tables: vec![TableUse { name: "mensagem_processada".into(), unique: None }],
        steps: vec![
            Step {
                label: "check-message".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "mensagem_processada".into(),
                    by: By::Key,
                    columns: vec!["id".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Literal(Literal { status: 200, body: "ack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "nack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "record-message".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "mensagem_processada".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: true,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 200, body: "ack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn consumer_claim() -> Design {
    Design {
        name: "consumer-claim".into(),
        about: "A queue's consumer that claims the message id under the UNIQUE constraint before the capture, with a lease; a delivery that finds it completed acks without charging, one that finds it processing nacks.".into(),
        serves: Serves::Queue,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "mensagem_processada".into(), unique: None }],
        steps: vec![
            Step {
                label: "claim-message".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "mensagem_processada".into(),
                    on_conflict_do_nothing: Some(vec!["message_id".into()]),
                    returning: vec!["id".into(), "lease_ate_ms".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-message".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "nack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "finish-message".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "mensagem_processada".into(),
                    set: vec!["estado".into()],
                    fenced: true,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "nack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 200, body: "ack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-message".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "mensagem_processada".into(),
                    by: By::Key,
                    columns: vec!["estado".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::Status("completed".into()),
                        answer: Some(Answer::Literal(Literal { status: 200, body: "ack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Literal(Literal { status: 503, body: "nack".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn claim_after_capture() -> Design {
    Design {
        name: "claim-after-capture".into(),
        about: "Exercise: the key is claimed only after the acquirer answered. Find the schedule that charges twice, and say why committing the claim first would stop it.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-key".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::OtherRequest,
                        answer: Some(Answer::Literal(Literal {
                            status: 422,
                            body: "{\"erro\": \"chave reutilizada com outro pedido ou valor\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn forget_the_fingerprint() -> Design {
    Design {
        name: "forget-the-fingerprint".into(),
        about: "Exercise: the key's row is replayed without comparing the order and the amount. Send the key again with another amount (key-reuse) and find the 2xx that no capture backs.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca".into(), unique: None }],
        steps: vec![
            Step {
                label: "claim".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca".into(),
                    on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: None,
                        goto: "read-key".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca".into(),
                    set: vec!["status".into(), "resposta_http".into(), "resposta_corpo".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "read-key".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca".into(),
                    by: By::Key,
                    columns: vec![
                        "pedido_id".into(),
                        "valor_centavos".into(),
                        "status".into(),
                        "resposta_http".into(),
                        "resposta_corpo".into(),
                    ],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::NoRows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("PROCESSANDO".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Stored),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}

fn check_then_act_unique_order() -> Design {
    Design {
        name: "check-then-act-unique-order".into(),
        about: "Exercise: check-then-act with no key, only a UNIQUE constraint on pedido_id, its 23505 answered 409. Check that race-2 no longer charges twice; then find the retry answered 200 where the first was answered 201, and think of a retry that comes with a new order id.".into(),
        serves: Serves::Http,
        claims: Claims::ChargeOnce,
        isolation: None,
        tables: vec![TableUse { name: "cobranca_simples".into(), unique: Some(vec!["pedido_id".into()]) }],
        steps: vec![
            Step {
                label: "select-order".into(),
                shown: None,
                action: Do::Select(Select {
                    table: "cobranca_simples".into(),
                    by: By::Order,
                    columns: vec!["id".into(), "status".into()],
                    for_update: false,
                }),
                on: vec![
                    Branch {
                        when: When::Status("CAPTURADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 200 })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Status("RECUSADA".into()),
                        answer: Some(Answer::Charge(Charge { status: 402 })),
                        goto: "respond".into(),
                        again: None,
                    },
                    Branch {
                        when: When::Rows,
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "insert".into(),
                shown: None,
                action: Do::Insert(Insert {
                    table: "cobranca_simples".into(),
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                    completed: false,
                }),
                on: vec![
                    Branch {
                        when: When::Error("23505".into()),
                        answer: Some(Answer::Literal(Literal { status: 409, body: "{\"erro\": \"processando\"}".into() })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "capture".into(),
                shown: None,
                action: Do::Capture,
                on: vec![
                    Branch {
                        when: When::Silent,
                        answer: Some(Answer::Literal(Literal {
                            status: 504,
                            body: "{\"erro\": \"adquirente sem resposta\"}".into(),
                        })),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
            Step {
                label: "store-response".into(),
                shown: None,
                action: Do::Update(Update {
                    table: "cobranca_simples".into(),
                    set: vec!["status".into()],
                    fenced: false,
                    local: false,
                }),
                on: vec![
                    Branch {
                        when: When::Always,
                        answer: Some(Answer::Capture),
                        goto: "respond".into(),
                        again: None,
                    },
                ],
                next: None,
            },
        ],
    }
}
