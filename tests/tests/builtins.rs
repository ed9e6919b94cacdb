//! The built-in scenarios show what DOMAIN.md says they show, their traces
//! are reviewed golden files, and a run is a pure function of its inputs.

use expect_test::expect_file;
use lousa_core::builtins::{self, NAMES};
use lousa_core::narrate::{self, Lang};
use lousa_core::run::{self, AT_MOST_ONE_CAPTURE, CONFLICTS_NEVER_CHARGE, REPLAY_EQUALS_FIRST};
use lousa_core::trace::{EventKind, Reconciliation};
use lousa_core::world::fnv1a;
use lousa_core::{Scenario, Strategy};

fn with(name: &str, strategy: Strategy) -> Scenario {
    let mut s = builtins::builtin(name).unwrap_or_else(|| panic!("built-in {name}"));
    s.strategy = strategy;
    s
}

fn outcome(name: &str, strategy: Strategy) -> lousa_core::trace::Summary {
    lousa_core::run(&with(name, strategy))
        .expect("built-ins are valid")
        .summary
}

fn statuses(s: &lousa_core::trace::Summary) -> Vec<u16> {
    s.attempts.iter().filter_map(|a| a.status).collect()
}

#[test]
fn check_then_act_double_charges_on_timeout_retry_and_double_click() {
    for name in [
        "timeout-retry",
        "concurrent-double-click",
        "race-2",
        "race-3",
    ] {
        let s = outcome(name, Strategy::CheckThenAct);
        assert_eq!(s.double_charged_intents, vec![0], "{name}: {s:#?}");
        assert!(!s.verdict(AT_MOST_ONE_CAPTURE).unwrap().holds, "{name}");
    }
    assert_eq!(
        outcome("timeout-retry", Strategy::CheckThenAct).charged_cents,
        50_000
    );
}

#[test]
fn naive_double_charges_whenever_a_retry_reaches_the_server() {
    for name in ["timeout-retry", "lost-response", "queue-redelivery"] {
        let s = outcome(name, Strategy::Naive);
        assert!(s.captures >= 2, "{name}: {} captures", s.captures);
    }
}

/// `new-key-per-retry` is the client bug that defeats any key on purpose,
/// so it is checked on its own below.
#[test]
fn idempotency_key_never_double_charges_in_any_builtin_where_the_client_repeats_its_key() {
    for strategy in [
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyHeldTx,
        Strategy::IdempotencyKeyLease,
    ] {
        for name in NAMES.iter().filter(|n| !exempt(strategy, n)) {
            let s = outcome(name, strategy);
            assert!(
                s.double_charged_intents.is_empty(),
                "{name} under {strategy}: {} captures",
                s.captures
            );
            for v in &s.invariants {
                if v.name == AT_MOST_ONE_CAPTURE
                    || v.name == REPLAY_EQUALS_FIRST
                    || v.name == CONFLICTS_NEVER_CHARGE
                {
                    assert!(
                        v.holds,
                        "{name} under {strategy}: {} — {}",
                        v.name, v.detail
                    );
                }
            }
        }
    }
}

/// The cases where a key alone is known not to protect, each with its own
/// test: a client minting new keys, a TTL shorter than the retry, and a held
/// transaction whose rollback erases the claim after the money moved.
fn exempt(strategy: Strategy, name: &str) -> bool {
    matches!(name, "new-key-per-retry" | "late-retry-after-ttl")
        || (strategy == Strategy::IdempotencyKeyHeldTx
            && matches!(
                name,
                "crash-after-commit" | "acquirer-timeout-after-accept" | "unknown-reconciled"
            ))
}

#[test]
fn a_held_transaction_that_rolls_back_after_the_capture_lets_the_retry_charge_again() {
    for name in [
        "crash-after-commit",
        "acquirer-timeout-after-accept",
        "unknown-reconciled",
    ] {
        let s = outcome(name, Strategy::IdempotencyKeyHeldTx);
        assert_eq!(
            s.captures, 2,
            "{name}: the claim vanished with the rollback"
        );
        let safe = outcome(name, Strategy::IdempotencyKey);
        assert_eq!(safe.captures, 1, "{name}: a committed claim survives");
    }
}

#[test]
fn a_new_key_per_retry_defeats_the_key() {
    let s = outcome("new-key-per-retry", Strategy::IdempotencyKey);
    assert!(s.captures >= 2, "{s:#?}");
    let keys: std::collections::BTreeSet<_> = s.attempts.iter().map(|a| a.key.clone()).collect();
    assert_eq!(
        keys.len(),
        s.attempts.len(),
        "every attempt carries a fresh key"
    );
}

#[test]
fn timeout_retry_with_the_key_gets_409_then_the_stored_response() {
    let s = outcome("timeout-retry", Strategy::IdempotencyKey);
    assert_eq!(s.captures, 1);
    assert_eq!(statuses(&s), vec![409, 201]);
    let body = s
        .attempts
        .iter()
        .rev()
        .find_map(|a| a.body.clone())
        .unwrap();
    assert_eq!(body, r#"{"status": "CAPTURADA", "cobranca_id": 1}"#);
    // The first attempt's answer came after the client's timeout: unknown.
    assert!(matches!(
        s.attempts[0].knowledge,
        lousa_core::trace::Knowledge::Unknown { .. }
    ));
}

#[test]
fn lost_response_is_replayed_byte_for_byte() {
    let s = outcome("lost-response", Strategy::IdempotencyKey);
    assert_eq!(s.captures, 1);
    assert_eq!(s.attempts[0].status, None, "the first answer was dropped");
    assert_eq!(s.attempts[1].status, Some(201));
    assert_eq!(
        s.attempts[1].body.as_deref(),
        Some(r#"{"status": "CAPTURADA", "cobranca_id": 1}"#)
    );
}

#[test]
fn key_reuse_with_another_amount_is_refused_with_422_without_charging() {
    for strategy in [
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyLease,
    ] {
        let s = outcome("key-reuse", strategy);
        assert_eq!(statuses(&s), vec![201, 422], "{strategy}");
        assert_eq!(s.intents[1].captures, 0, "{strategy}");
        assert!(!s.attempts[1].reached_acquirer);
    }
}

#[test]
fn crash_after_commit_leaves_an_orphan_that_only_recovery_resolves() {
    let plain = outcome("crash-after-commit", Strategy::IdempotencyKey);
    assert_eq!(plain.captures, 1, "the acquirer captured before the crash");
    assert!(
        statuses(&plain).iter().all(|&s| s == 409),
        "{:?}",
        statuses(&plain)
    );
    let lease = outcome("crash-after-commit", Strategy::IdempotencyKeyLease);
    assert_eq!(lease.captures, 1);
    assert_eq!(
        statuses(&lease).last(),
        Some(&201),
        "recovery completed the record"
    );
    assert!(lease.verdict(run::NO_KEY_STUCK).unwrap().holds);
}

#[test]
fn acquirer_timeout_after_accept_moves_money_the_instance_never_hears_of() {
    let plain = outcome("acquirer-timeout-after-accept", Strategy::IdempotencyKey);
    assert_eq!(plain.captures, 1);
    assert_eq!(statuses(&plain)[0], 504);
    assert!(!statuses(&plain).contains(&201));
    let naive = outcome("acquirer-timeout-after-accept", Strategy::Naive);
    assert!(
        naive.captures >= 2,
        "without a key the 504 invites a second charge"
    );
    let lease = outcome(
        "acquirer-timeout-after-accept",
        Strategy::IdempotencyKeyLease,
    );
    assert_eq!(lease.captures, 1);
    assert_eq!(statuses(&lease).last(), Some(&201));
}

#[test]
fn a_retry_after_the_key_ttl_is_a_new_request_unless_the_provider_dedupes() {
    let s = outcome("late-retry-after-ttl", Strategy::IdempotencyKeyLease);
    assert_eq!(
        s.captures, 2,
        "the expired key let the late retry charge again"
    );
    let s = outcome("late-retry-provider-key", Strategy::IdempotencyKeyLease);
    assert_eq!(
        s.captures, 1,
        "the acquirer's own key catches what the local TTL forgot"
    );
    assert_eq!(
        statuses(&s),
        vec![201],
        "the late retry is told it was charged"
    );
    assert_eq!(s.attempts[0].status, None, "the first answer was lost");
}

/// The frame of the first event `pred` matches in the run of `s`.
fn first_frame(r: &lousa_core::run::Run, pred: impl Fn(&EventKind) -> bool) -> Option<usize> {
    r.events().find(|(_, e)| pred(&e.kind)).map(|(f, _)| f)
}

/// The state of the lease design's one key row at `frame`.
fn key_state(r: &lousa_core::run::Run, frame: usize) -> Option<String> {
    let t = r
        .state_at(frame)
        .tables
        .iter()
        .find(|t| t.name == "chave_idempotencia")?;
    let row = t.rows.first()?;
    lousa_core::view::row_facts(t, &row.values).status
}

#[test]
fn crash_before_capture_frees_the_key_only_once_recovery_proves_nothing_happened() {
    let s = with("crash-before-capture", Strategy::IdempotencyKeyLease);
    let r = lousa_core::run(&s).unwrap();
    let sm = &r.summary;
    assert_eq!(sm.captures, 1, "{sm:#?}");
    assert_eq!(statuses(sm), vec![409, 201]);
    assert_eq!(
        sm.attempts[0].status, None,
        "the first attempt died with its worker"
    );
    assert!(
        !sm.attempts[0].reached_acquirer,
        "it never called the acquirer"
    );
    assert!(
        !sm.attempts[1].reached_acquirer,
        "a 409 while processing starts no work"
    );
    assert!(
        sm.attempts[2].reached_acquirer,
        "the controlled retry charges"
    );
    let freed = first_frame(&r, |k| {
        matches!(
            k,
            EventKind::Reconciled {
                outcome: Reconciliation::NothingFound,
                ..
            }
        )
    })
    .expect("recovery frees the key");
    let capture = first_frame(&r, |k| matches!(k, EventKind::CaptureRequested { .. })).unwrap();
    assert!(freed < capture, "the key is freed before anyone captures");
    assert_eq!(key_state(&r, freed).as_deref(), Some("failed_safe"));
    assert_eq!(
        key_state(&r, r.frame_count() - 1).as_deref(),
        Some("completed")
    );
    for v in &sm.invariants {
        assert!(v.holds, "{}: {}", v.name, v.detail);
    }
    // Without states and recovery the claim stays PROCESSANDO: every retry
    // is refused and the charge never happens.
    let plain = outcome("crash-before-capture", Strategy::IdempotencyKey);
    assert_eq!(plain.captures, 0);
    assert!(
        statuses(&plain).iter().all(|&s| s == 409),
        "{:?}",
        statuses(&plain)
    );
}

#[test]
fn an_unknown_key_refuses_the_retry_until_recovery_completes_it_from_the_acquirer() {
    let r = lousa_core::run(&with("unknown-reconciled", Strategy::IdempotencyKeyLease)).unwrap();
    let sm = &r.summary;
    assert_eq!(sm.captures, 1, "{sm:#?}");
    assert_eq!(statuses(sm), vec![504, 409, 201]);
    // The 504 is not the key's answer: the effect is unknown, not failed.
    let unknown = first_frame(
        &r,
        |k| matches!(k, EventKind::Sql { sql, .. } if sql.contains("estado = 'unknown'")),
    )
    .expect("the instance marks the key unknown");
    assert_eq!(key_state(&r, unknown).as_deref(), Some("unknown"));
    // The retry in between is told the key is being reconciled, and starts
    // no work of its own.
    assert_eq!(
        sm.attempts[1].body.as_deref(),
        Some(r#"{"erro": "conciliando"}"#)
    );
    assert!(!sm.attempts[1].reached_acquirer);
    let reconciled = first_frame(&r, |k| {
        matches!(
            k,
            EventKind::Reconciled {
                outcome: Reconciliation::Captured,
                ..
            }
        )
    })
    .expect("recovery asks the acquirer");
    assert_eq!(key_state(&r, reconciled).as_deref(), Some("completed"));
    assert!(
        !sm.attempts[2].reached_acquirer,
        "the stored answer, no capture"
    );
    assert_eq!(
        sm.attempts[2].body.as_deref(),
        Some(r#"{"status": "CAPTURADA", "cobranca_id": 1}"#)
    );
    for v in &sm.invariants {
        assert!(v.holds, "{}: {}", v.name, v.detail);
    }
}

/// The fault `acquirer-declines`: the card is refused on that one call,
/// and the acquirer's other calls are answered as `acquirer.decline` says.
#[test]
fn a_declines_fault_refuses_that_call_only() {
    let mut json: serde_json::Value =
        serde_json::from_str(&builtins::builtin("timeout-retry").unwrap().to_json()).unwrap();
    json["strategy"] = "naive".into();
    json["clients"][0]["retries_max"] = 1.into();
    json["faults"] = serde_json::json!([{"kind": "acquirer-declines", "call": 1}]);
    let s = Scenario::from_json(&json.to_string()).expect("the fault parses");
    let r = lousa_core::run(&s).unwrap();
    let declined = r
        .events()
        .filter(|(_, e)| matches!(e.kind, EventKind::Declined { .. }))
        .count();
    assert_eq!(declined, 1, "one refusal");
    assert_eq!(r.summary.captures, 1, "the retry's call is accepted");
    json["faults"] = serde_json::json!([{"kind": "acquirer-declines", "call": 0}]);
    assert_eq!(
        Scenario::from_json(&json.to_string())
            .unwrap_err()
            .to_string(),
        "faults[0].call: 0 is outside 1..=1000"
    );
}

#[test]
fn a_decline_is_stored_and_replayed_and_only_a_new_key_pays() {
    for strategy in [
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyLease,
    ] {
        let s = outcome("decline-stored", strategy);
        assert_eq!(statuses(&s), vec![402, 201], "{strategy}");
        assert_eq!(
            s.attempts[0].status, None,
            "{strategy}: the decline was lost"
        );
        let declined = r#"{"status": "RECUSADA", "cobranca_id": 1}"#;
        assert_eq!(s.attempts[1].body.as_deref(), Some(declined), "{strategy}");
        assert!(
            !s.attempts[1].reached_acquirer,
            "{strategy}: the retry is answered from the store"
        );
        assert_eq!(s.attempts[1].key, s.attempts[0].key);
        assert_ne!(
            s.attempts[2].key, s.attempts[0].key,
            "a new intent, a new key"
        );
        let captures: Vec<u32> = s.intents.iter().map(|i| i.captures).collect();
        assert_eq!(captures, vec![0, 1], "{strategy}");
    }
    // Without a stored answer the retry is a new charge, and the new
    // intent a second one: R$ 500,00 for one order.
    let naive = outcome("decline-stored", Strategy::Naive);
    assert_eq!(naive.captures, 2);
    assert_eq!(naive.charged_cents, 50_000);
}

#[test]
fn the_replay_repeats_status_body_and_location() {
    let r = lousa_core::run(&with("headers-replayed", Strategy::IdempotencyKeyLease)).unwrap();
    let sm = &r.summary;
    assert_eq!(sm.captures, 1);
    let location = r#"{"Location": "/cobrancas/1"}"#;
    // What the first attempt was sent, before the network lost it.
    let sent: Vec<_> = r
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Responded {
                attempt,
                status,
                headers,
                body,
                ..
            } => Some((*attempt, *status, headers.clone(), body.clone())),
            _ => None,
        })
        .collect();
    let body = r#"{"status": "CAPTURADA", "cobranca_id": 1}"#;
    assert_eq!(
        sent,
        vec![
            (0, 201, Some(location.to_string()), body.to_string()),
            (1, 201, Some(location.to_string()), body.to_string()),
        ]
    );
    assert_eq!(sm.attempts[0].status, None, "the first answer was lost");
    let retry = &sm.attempts[1];
    assert_eq!(
        (
            retry.status,
            retry.headers.as_deref(),
            retry.body.as_deref()
        ),
        (Some(201), Some(location), Some(body))
    );
    assert!(!retry.reached_acquirer);
    // The stored row holds the headers it replays.
    assert!(
        r.events().any(|(_, e)| matches!(&e.kind,
            EventKind::Sql { sql, .. } if sql.starts_with("SELECT") && sql.contains("resposta_headers"))),
        "the retry reads the stored headers"
    );
    // The first post's table keeps status and body only.
    let plain = outcome("headers-replayed", Strategy::IdempotencyKey);
    assert_eq!(plain.attempts[1].headers, None);
}

#[test]
fn held_transaction_makes_the_retry_wait_instead_of_refusing_it() {
    let s = outcome("held-transaction", Strategy::IdempotencyKeyHeldTx);
    assert_eq!(s.captures, 1);
    assert!(s.blocked_ms >= 400, "the retry waited {} ms", s.blocked_ms);
    assert!(
        !statuses(&s).contains(&409),
        "the client never sees PROCESSANDO"
    );
    let committed_first = outcome("held-transaction", Strategy::IdempotencyKey);
    assert_eq!(committed_first.blocked_ms, 0);
}

/// The rows of `mensagem_processada` at the end of `r`: (message id, order).
fn processed_messages(r: &lousa_core::run::Run) -> Vec<Vec<String>> {
    let end = r.state_at(r.frame_count() - 1);
    let t = end
        .tables
        .iter()
        .find(|t| t.name == "mensagem_processada")
        .expect("a queue's run shows the dedupe table");
    t.rows
        .iter()
        .map(|row| row.values.iter().map(|v| v.to_string()).collect())
        .collect()
}

#[test]
fn a_redelivery_meets_the_consumer_still_charging_and_the_message_id_decides() {
    let keyed = lousa_core::run(&with("queue-redelivery", Strategy::IdempotencyKey)).unwrap();
    let checked = lousa_core::run(&with("queue-redelivery", Strategy::CheckThenAct)).unwrap();
    // The first delivery's consumer is still waiting for the acquirer when
    // the visibility timeout hands the message to another consumer.
    for r in [&keyed, &checked] {
        let timeout = first_frame(r, |k| matches!(k, EventKind::TimedOut { .. })).unwrap();
        let answered = first_frame(r, |k| matches!(k, EventKind::AcquirerReplied { .. })).unwrap();
        assert!(
            timeout < answered,
            "the redelivery comes while the first charges"
        );
        assert!(r.summary.attempts.iter().all(|a| a.key == "msg-8841"));
        assert_eq!(
            processed_messages(r).len(),
            1,
            "{:?}",
            processed_messages(r)
        );
    }
    // Claimed first: one charge. The redelivery that finds the id still
    // processing nacks without charging; a later one finds it completed
    // and acks without charging.
    assert_eq!(keyed.summary.captures, 1);
    let second = &keyed.summary.attempts[1];
    assert_eq!((second.status, second.reached_acquirer), (Some(503), false));
    let last = keyed.summary.attempts.last().expect("deliveries");
    assert_eq!((last.status, last.reached_acquirer), (Some(200), false));
    // Checked first and recorded after: both deliveries charge, and the
    // UNIQUE constraint refuses the second record only after the money
    // moved; the consumer nacks and a third delivery finds the record.
    assert_eq!(checked.summary.captures, 2);
    let refused = checked.events().any(|(_, e)| {
        matches!(&e.kind, EventKind::Sql { sql, outcome: lousa_core::trace::SqlOutcome::Error { code, .. }, .. }
            if sql.starts_with("INSERT INTO mensagem_processada") && code == "23505")
    });
    assert!(refused, "the second record hits the constraint");
    assert_eq!(
        checked
            .summary
            .attempts
            .last()
            .map(|a| (a.status, a.reached_acquirer)),
        Some((Some(200), false))
    );
}

#[test]
fn a_queue_run_speaks_of_deliveries_and_acks() {
    let r = lousa_core::run(&with("queue-redelivery", Strategy::IdempotencyKey)).unwrap();
    let told: Vec<String> = r
        .events()
        .map(|(_, e)| narrate::line(e, Lang::En))
        .collect();
    let all = told.join("\n");
    for said in [
        "queue 1",
        "delivers message msg-8841",
        "visibility timeout",
        "nacks delivery 2",
        "acks delivery 3",
    ] {
        assert!(all.contains(said), "{said:?} missing from\n{all}");
    }
    for unsaid in ["client 1", "times out", "load balancer", "answers 200"] {
        assert!(!all.contains(unsaid), "{unsaid:?} in\n{all}");
    }
    let pt: Vec<String> = r
        .events()
        .map(|(_, e)| narrate::line(e, Lang::Pt))
        .collect();
    assert!(
        pt.join("\n")
            .contains("entrega de novo a mensagem msg-8841")
    );
}

#[test]
fn serializable_check_then_act_refuses_one_commit_but_both_captures_already_happened() {
    let mut s = with("race-2", Strategy::CheckThenAct);
    s.isolation = lousa_core::store::Isolation::Serializable;
    let out = lousa_core::run(&s).unwrap().summary;
    assert!(
        statuses(&out).contains(&503),
        "one COMMIT failed with 40001: {:?}",
        statuses(&out)
    );
    assert_eq!(
        out.captures, 2,
        "SERIALIZABLE cannot undo an external effect"
    );
}

#[test]
fn local_effect_claims_and_writes_in_one_transaction() {
    let s = outcome("concurrent-double-click", Strategy::LocalEffect);
    assert_eq!(s.captures, 1, "one pedido_pago row: {s:#?}");
}

/// A local effect counts for the intent whose handler wrote it. The two
/// intents of decline-stored are one order and one amount, so their rows
/// are alike: matched by value, each row counted for both and both read
/// as charged twice. A retry after the key expired writes a second row
/// for its own intent, which is a double charge.
#[test]
fn a_local_effect_counts_for_the_intent_that_wrote_it() {
    let two = outcome("decline-stored", Strategy::LocalEffect);
    let per_intent: Vec<u32> = two.intents.iter().map(|i| i.captures).collect();
    assert_eq!(per_intent, [1, 1], "{two:#?}");
    assert!(two.double_charged_intents.is_empty());
    let late = outcome("late-retry-after-ttl", Strategy::LocalEffect);
    assert_eq!(late.captures, 2);
    assert_eq!(late.double_charged_intents, [0]);
}

// ---- determinism and golden traces ----

fn timeline(s: &Scenario) -> String {
    let r = lousa_core::run(s).unwrap();
    let mut out = format!("# {} under {} (seed {})\n", s.name, s.strategy, s.seed);
    for (frame, e) in r.events() {
        out.push_str(&format!("{frame:>4} {}\n", narrate::line(e, Lang::En)));
    }
    let sm = &r.summary;
    out.push_str(&format!(
        "captures {} charged {} double-charged {:?} blocked {} ms\n",
        sm.captures, sm.charged_cents, sm.double_charged_intents, sm.blocked_ms
    ));
    for v in &sm.invariants {
        out.push_str(&format!(
            "{} {}\n",
            if v.holds { "ok  " } else { "FAIL" },
            v.name
        ));
    }
    out
}

/// Golden timelines, reviewed by eye once: a change of semantics shows up in
/// review as a diff. `UPDATE_EXPECT=1 cargo test -p lousa-tests` rewrites.
#[test]
fn golden_traces_of_every_builtin() {
    for name in NAMES {
        let default = builtins::builtin(name).unwrap();
        let mut text = timeline(&default);
        if default.strategy != Strategy::IdempotencyKey {
            text.push('\n');
            text.push_str(&timeline(&with(name, Strategy::IdempotencyKey)));
        }
        expect_file![format!("../golden/{name}.txt")].assert_eq(&text);
    }
}

/// FNV-1a of each built-in's run (every strategy) as JSON. The same file is
/// checked by `core/tests/wasm_determinism.rs` under wasm32, so native and
/// wasm produce byte-identical traces.
#[test]
fn trace_hashes_match_the_committed_file() {
    let mut text = String::new();
    for name in NAMES {
        for strategy in Strategy::ALL {
            let r = lousa_core::run(&with(name, strategy)).unwrap();
            let json = serde_json::to_string(&r).unwrap();
            let again =
                serde_json::to_string(&lousa_core::run(&with(name, strategy)).unwrap()).unwrap();
            assert_eq!(json, again, "{name}/{strategy}: two runs differ");
            text.push_str(&format!(
                "{name} {strategy} {:016x}\n",
                fnv1a(json.as_bytes())
            ));
        }
    }
    expect_file!["../golden/hashes.txt"].assert_eq(&text);
}

#[test]
fn replaying_the_recorded_schedule_reproduces_the_run() {
    for name in NAMES {
        let s = builtins::builtin(name).unwrap();
        let r = lousa_core::run(&s).unwrap();
        let sched = r.schedule.parse().unwrap();
        let again = run::run_schedule(&s, &sched).unwrap();
        assert_eq!(r.steps, again.steps, "{name}");
        assert_eq!(r.summary, again.summary, "{name}");
    }
}

#[test]
fn seeking_returns_the_frame_of_each_step() {
    let r = lousa_core::run(&builtins::builtin("timeout-retry").unwrap()).unwrap();
    assert_eq!(r.state_at(0), &r.initial);
    for i in 1..r.frame_count() {
        assert_eq!(r.state_at(i), &r.steps[i - 1].frame);
    }
    assert_eq!(r.state_at(usize::MAX), &r.steps.last().unwrap().frame);
    let last = r.state_at(r.frame_count() - 1);
    assert_eq!(last.captures, vec![2]);
    assert_eq!(last.charged_cents, 50_000);
}

#[test]
fn quiet_runs_reach_the_same_outcome_as_traced_runs() {
    for name in NAMES {
        for strategy in Strategy::ALL {
            let s = with(name, strategy);
            let traced = lousa_core::run(&s).unwrap().summary;
            let quiet = run::outcome_with(&s, &mut lousa_core::RngChooser::new(s.seed));
            assert_eq!(traced, quiet, "{name}/{strategy}");
        }
    }
}

#[test]
fn repeatable_read_claim_meets_a_concurrent_claim_with_40001_and_still_charges_once() {
    let mut s = with("race-2", Strategy::IdempotencyKey);
    s.isolation = lousa_core::store::Isolation::RepeatableRead;
    // Interleave: both BEGIN, both claim (the second waits), the first commits.
    let mut found_40001 = false;
    for seed in 0..40 {
        s.seed = seed;
        let r = lousa_core::run(&s).unwrap();
        assert_eq!(r.summary.captures, 1, "seed {seed}");
        found_40001 |= r.events().any(|(_, e)| {
            matches!(&e.kind, lousa_core::trace::EventKind::SqlResumed { outcome: lousa_core::trace::SqlOutcome::Error { code, .. }, .. } if code == "40001")
        });
    }
    assert!(
        found_40001,
        "some interleaving makes the waiting claim fail with 40001"
    );
}

/// `lousa scenarios <name> --format json` prints `to_json`: what it prints
/// must parse back to the same scenario and run to the same trace, and
/// printing is a fixed point, so an edited copy starts from the real thing.
#[test]
fn every_builtin_prints_as_json_that_runs_back_unchanged() {
    for name in NAMES {
        let b = builtins::builtin(name).unwrap();
        let printed = b.to_json();
        let back = Scenario::from_json(&printed).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            back, b,
            "{name}: parsing the printed JSON changed the scenario"
        );
        assert_eq!(
            back.to_json(),
            printed,
            "{name}: print(parse(print(x))) != print(x)"
        );
        for strategy in Strategy::ALL {
            let hash = |s: &Scenario| {
                let mut s = s.clone();
                s.strategy = strategy;
                fnv1a(
                    serde_json::to_string(&lousa_core::run(&s).unwrap())
                        .unwrap()
                        .as_bytes(),
                )
            };
            assert_eq!(
                hash(&back),
                hash(&b),
                "{name}/{strategy}: the trace differs"
            );
        }
    }
}

// ---- the second post's details (issue #19, second half) ----

fn verdict(s: &lousa_core::trace::Summary, name: &str) -> bool {
    s.verdict(name)
        .unwrap_or_else(|| panic!("{name} is judged"))
        .holds
}

#[test]
fn check_then_act_with_autocommit_refuses_the_late_retry_but_not_the_double_click() {
    // One transaction held across the capture hides the first INSERT from
    // the retry: that, not the check-then-act race, charges twice here.
    let held = outcome("timeout-retry", Strategy::CheckThenAct);
    assert_eq!(held.captures, 2);
    let auto = outcome("timeout-retry-autocommit", Strategy::CheckThenAct);
    assert_eq!(auto.captures, 1, "{auto:#?}");
    assert_eq!(statuses(&auto), vec![409, 200]);
    // Both checks before both writes: the race itself, whatever commits.
    let race = outcome("double-click-autocommit", Strategy::CheckThenAct);
    assert_eq!(race.captures, 2, "{race:#?}");
    assert_eq!(race.double_charged_intents, vec![0]);
    assert!(!verdict(&race, AT_MOST_ONE_CAPTURE));
    // No statement of an autocommit run opens a transaction.
    let r = lousa_core::run(&builtins::builtin("double-click-autocommit").unwrap()).unwrap();
    assert!(
        r.store_log
            .iter()
            .all(|st| !matches!(st.stmt, lousa_core::store::Stmt::Begin { .. })),
        "autocommit sends no BEGIN"
    );
}

#[test]
fn a_key_scoped_by_tenant_lets_two_shops_use_one_value_and_a_global_one_refuses_the_second() {
    let scoped = outcome("scoped-key", Strategy::IdempotencyKeyLease);
    assert_eq!(statuses(&scoped), vec![201, 201]);
    assert_eq!(scoped.captures, 2);
    assert!(verdict(&scoped, lousa_core::property::NO_FALSE_422.name));
    let global = outcome("unscoped-key", Strategy::IdempotencyKeyLease);
    assert_eq!(statuses(&global), vec![201, 422]);
    assert_eq!(global.captures, 1, "loja-2's order was never charged");
    assert!(!verdict(&global, lousa_core::property::NO_FALSE_422.name));
    // The legitimate reuse of key-reuse (one shop, one key, two amounts)
    // is a true 422.
    let reuse = outcome("key-reuse", Strategy::IdempotencyKeyLease);
    assert!(statuses(&reuse).contains(&422));
    assert!(verdict(&reuse, lousa_core::property::NO_FALSE_422.name));
}

#[test]
fn a_canonical_fingerprint_replays_a_rewritten_retry_and_a_hashed_timestamp_refuses_it() {
    let canonical = outcome("reformatted-retry", Strategy::IdempotencyKeyLease);
    assert_eq!(canonical.captures, 1);
    assert_eq!(canonical.attempts[1].status, Some(201), "a replay");
    assert_eq!(
        canonical.attempts[1].body.as_deref(),
        Some(r#"{"status": "CAPTURADA", "cobranca_id": 1}"#)
    );
    let stamped = outcome("timestamp-in-fingerprint", Strategy::IdempotencyKeyLease);
    assert_eq!(stamped.captures, 1, "the money moved once");
    assert_eq!(
        stamped.attempts[1].status,
        Some(422),
        "yet the retry is refused"
    );
    assert!(!verdict(&stamped, lousa_core::property::NO_FALSE_422.name));
    // A raw-bytes fingerprint refuses the reformatted retry as well.
    let mut raw = builtins::builtin("reformatted-retry").unwrap();
    raw.fingerprint = lousa_core::scenario::FingerprintPolicy::RawBody;
    let raw = lousa_core::run(&raw).unwrap().summary;
    assert_eq!(raw.attempts[1].status, Some(422));
}

#[test]
fn a_debit_without_a_row_lock_loses_an_update_and_for_update_keeps_both() {
    let lost = outcome("balance-lost-update", Strategy::LocalEffect);
    assert_eq!(statuses(&lost), vec![201, 201], "both debits answered");
    assert!(!verdict(&lost, lousa_core::property::NO_LOST_UPDATE.name));
    let locked = outcome("balance-for-update", Strategy::LocalEffect);
    assert_eq!(statuses(&locked), vec![201, 201]);
    assert!(verdict(&locked, lousa_core::property::NO_LOST_UPDATE.name));
    assert!(
        locked.blocked_ms > 0,
        "the second debit waited for the lock"
    );
    let balance = |name: &str| {
        let r = lousa_core::run(&builtins::builtin(name).unwrap()).unwrap();
        let conta = r
            .state_at(usize::MAX)
            .tables
            .iter()
            .find(|t| t.name == "conta")
            .expect("the board shows the account")
            .clone();
        conta.rows[0].values[1].as_int().unwrap()
    };
    assert_eq!(balance("balance-for-update"), 100_000 - 25_000 - 40_000);
    assert_ne!(balance("balance-lost-update"), 100_000 - 25_000 - 40_000);
}

#[test]
fn a_debit_with_a_version_column_rereads_after_losing_the_race_and_keeps_both() {
    use lousa_core::trace::{EventKind, SqlOutcome};
    let s = builtins::builtin("balance-version-column").unwrap();
    let r = lousa_core::run(&s).unwrap();
    assert_eq!(statuses(&r.summary), vec![201, 201]);
    assert!(verdict(
        &r.summary,
        lousa_core::property::NO_LOST_UPDATE.name
    ));
    // Both read version 0 before either wrote: the race the lost update loses.
    let sql: Vec<(Option<u32>, String, SqlOutcome)> = r
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Sql {
                attempt,
                sql,
                outcome,
            }
            | EventKind::SqlResumed {
                attempt,
                sql,
                outcome,
                ..
            } => Some((*attempt, sql.clone(), outcome.clone())),
            _ => None,
        })
        .collect();
    let reads: Vec<&(Option<u32>, String, SqlOutcome)> = sql
        .iter()
        .filter(|(_, q, _)| q.starts_with("SELECT saldo, versao FROM conta_versionada"))
        .collect();
    assert_eq!(reads.len(), 3, "two reads, then the loser's second");
    // The loser's stale write matches no row once the winner commits (and
    // says so: 0 rows); its write after the second read names the new
    // version and lands.
    let stale = "versao = versao + 1 WHERE id = 1 AND versao = 0 RETURNING id";
    let lost_race = sql
        .iter()
        .filter(|(_, q, o)| q.ends_with(stale) && *o == SqlOutcome::Rows { rows: vec![] })
        .count();
    assert_eq!(lost_race, 1, "{sql:#?}");
    assert!(
        sql.iter()
            .any(|(_, q, o)| q.ends_with("AND versao = 1 RETURNING id")
                && matches!(o, SqlOutcome::Rows { rows } if rows.len() == 1))
    );
    let conta = r
        .state_at(usize::MAX)
        .tables
        .iter()
        .find(|t| t.name == "conta_versionada")
        .expect("the board shows the versioned account")
        .clone();
    let row: Vec<i64> = conta.rows[0]
        .values
        .iter()
        .map(|v| v.as_int().unwrap())
        .collect();
    assert_eq!(row, [1, 100_000 - 25_000 - 40_000, 2], "id, saldo, versao");
}

#[test]
fn held_transactions_exhaust_the_pool_and_the_queue_grows_with_the_retries() {
    use lousa_core::trace::EventKind;
    let queue_lengths = |strategy: Strategy| {
        let r = lousa_core::run(&with("pool-exhausted", strategy)).unwrap();
        let lengths: Vec<(u32, usize)> = (0..r.frame_count())
            .map(|f| {
                let inst = &r.state_at(f).instances[0];
                (inst.connections_free, inst.connection_queue.len())
            })
            .collect();
        let waits = r
            .events()
            .filter(|(_, e)| matches!(e.kind, EventKind::ConnectionWait { .. }))
            .count();
        (r.summary, lengths, waits)
    };
    let (held, lengths, waits) = queue_lengths(Strategy::IdempotencyKeyHeldTx);
    let pool = builtins::builtin("pool-exhausted").unwrap().pool_size;
    // The three first requests past the pool queue, then the five retries
    // join them: the queue grows while the pool stays full.
    let longest = lengths.iter().map(|l| l.1).max().unwrap();
    assert!(longest >= 8, "{lengths:?}");
    assert!(
        lengths
            .iter()
            .any(|&(free, queued)| free == 0 && queued == 3),
        "{lengths:?}"
    );
    let first_full = lengths.iter().position(|l| l.1 >= 3).unwrap();
    assert!(
        lengths[first_full..]
            .iter()
            .any(|l| l.1 > 3 + pool as usize)
    );
    assert!(waits >= 10, "{waits} waits for a connection");
    // Every purchase is charged once, and no app hears of it in time.
    assert_eq!(held.captures, 5);
    assert!(held.double_charged_intents.is_empty());
    assert!(statuses(&held).is_empty(), "{:?}", statuses(&held));
    // Committing the claim before the capture frees the connection: no
    // request ever waits for one.
    let (_, lengths, waits) = queue_lengths(Strategy::IdempotencyKey);
    assert_eq!(waits, 0);
    assert!(lengths.iter().all(|l| l.1 == 0), "{lengths:?}");
}

#[test]
fn a_balance_takes_a_lock_or_a_version_not_both() {
    let mut s = builtins::builtin("balance-version-column").unwrap();
    let json = s.to_json();
    assert!(json.contains("\"version_column\": true"));
    // Left out at its default: the other balance built-ins read as before.
    let plain = builtins::builtin("balance-for-update").unwrap().to_json();
    assert!(!plain.contains("version_column"));
    s.balance.as_mut().unwrap().for_update = true;
    let e = lousa_core::Scenario::from_json(&s.to_json()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "balance.version_column: choose one of for_update (a lock) and version_column \
         (a version check), not both"
    );
    let e = lousa_core::link::decode("balance-lost-update;balance.version=true").unwrap_err();
    assert!(e.to_string().contains("unknown field \"version\""), "{e}");
    let linked = lousa_core::link::decode("balance-lost-update;balance.version_column=true");
    let mut expected = builtins::builtin("balance-lost-update").unwrap();
    expected.balance.as_mut().unwrap().version_column = true;
    assert_eq!(linked.unwrap(), expected);
}

#[test]
fn an_optimistic_debit_that_keeps_losing_gives_up_with_a_409_and_rolls_back() {
    // Five clients debit at once: the last to write loses its first write
    // and the three after its re-reads (the design's `again: 3`) to the others
    // and answers 409, its claim rolled back with it; no debit is lost.
    let mut s = builtins::builtin("balance-version-column").unwrap();
    let template = s.clients[0].clone();
    s.clients = (0..5)
        .map(|i| {
            let mut c = template.clone();
            c.name = format!("compra-{i}");
            c.retries_max = 0;
            c.intents[0].key = format!("debito-{i}");
            c.intents[0].order_id = 400 + i;
            c.intents[0].amount_cents = 1_000;
            c
        })
        .collect();
    s.instances = 5;
    let r = lousa_core::run(&s).unwrap();
    assert!(verdict(
        &r.summary,
        lousa_core::property::NO_LOST_UPDATE.name
    ));
    let mut answers = statuses(&r.summary);
    answers.sort();
    assert_eq!(answers, vec![201, 201, 201, 201, 409], "{answers:?}");
    let conta = r
        .state_at(usize::MAX)
        .tables
        .iter()
        .find(|t| t.name == "conta_versionada")
        .unwrap()
        .clone();
    assert_eq!(conta.rows[0].values[1].as_int(), Some(100_000 - 4 * 1_000));
}

#[test]
fn an_event_published_after_commit_is_lost_with_the_worker_and_the_outbox_keeps_it() {
    let after = outcome("event-after-commit", Strategy::LocalEffect);
    assert_eq!(after.captures, 1);
    assert_eq!(after.attempts[1].status, Some(201), "the stored answer");
    assert!(!verdict(
        &after,
        lousa_core::property::EVERY_EFFECT_PUBLISHED.name
    ));
    let outbox = outcome("event-outbox", Strategy::LocalEffect);
    assert_eq!(outbox.captures, 1);
    assert!(verdict(
        &outbox,
        lousa_core::property::EVERY_EFFECT_PUBLISHED.name
    ));
    let r = lousa_core::run(&builtins::builtin("event-outbox").unwrap()).unwrap();
    let published: Vec<_> = r
        .events()
        .filter(|(_, e)| {
            matches!(
                e.kind,
                lousa_core::trace::EventKind::EventPublished { attempt: None, .. }
            )
        })
        .collect();
    assert_eq!(published.len(), 1, "the relay publishes it once");
    // Without a crash, publishing after commit does publish.
    let mut calm = builtins::builtin("event-after-commit").unwrap();
    calm.faults.clear();
    let calm = lousa_core::run(&calm).unwrap().summary;
    assert!(verdict(
        &calm,
        lousa_core::property::EVERY_EFFECT_PUBLISHED.name
    ));
}

/// `local-effect` claims a key again (here, one past its lifetime, deleted)
/// in a new transaction: its claim and its effect commit together, as the
/// first claim's did, instead of each on its own.
#[test]
fn local_effect_claims_a_forgotten_key_again_inside_a_transaction() {
    let r = lousa_core::run(&with("late-retry-after-ttl", Strategy::LocalEffect)).unwrap();
    let retry: Vec<&str> = r
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Sql {
                attempt: Some(1),
                sql,
                ..
            } => Some(sql.as_str()),
            _ => None,
        })
        .collect();
    let deleted = retry
        .iter()
        .position(|s| s.starts_with("DELETE FROM chave_idempotencia"))
        .expect("the retry forgets the expired key");
    let after: Vec<&str> = retry[deleted + 1..]
        .iter()
        .map(|s| s.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(
        after,
        ["BEGIN", "INSERT", "INSERT", "UPDATE", "COMMIT"],
        "{retry:#?}"
    );
}
