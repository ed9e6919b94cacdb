//! Designs as data (issue #31): a design of a scenario's own runs in place
//! of its built-in, a design that is wrong is refused by name, and random
//! designs run or are refused without a panic. That the built-ins run as
//! the hand-coded handlers did is `handler_traces.rs`.

use lousa_core::design::{self, Design};
use lousa_core::explore::{Options, explore};
use lousa_core::store::Isolation;
use lousa_core::{Scenario, Strategy, builtins};
use std::sync::Arc;

/// A built-in design's file, by name.
fn builtin_file(name: &str) -> &'static str {
    design::builtin::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, json)| *json)
        .expect("listed")
}

fn trace_json(s: &Scenario) -> String {
    let run = lousa_core::run(s).expect("a valid scenario");
    serde_json::to_string(&run).expect("a run is JSON")
}

/// A design that names its isolation level runs at it, whatever the
/// scenario's: the key's claim in a transaction at SERIALIZABLE, under a
/// scenario at READ COMMITTED, runs as the built-in strategy under one
/// at SERIALIZABLE.
#[test]
fn a_design_runs_at_the_isolation_it_names() {
    let mut v: serde_json::Value =
        serde_json::from_str(builtin_file("idempotency-key-in-tx")).expect("JSON");
    v["isolation"] = "serializable".into();
    let program = Arc::new(Design::from_json(&v.to_string()).expect("valid"));
    let mut compared = 0;
    for base in builtins::all() {
        let mut s = base.clone();
        s.strategy = Strategy::IdempotencyKey;
        s.isolation = Isolation::Serializable;
        if s.validate().is_err() {
            continue;
        }
        let mut d = s.clone();
        d.isolation = Isolation::ReadCommitted;
        d.design = Some(program.clone());
        assert_eq!(trace_json(&s), trace_json(&d), "{}", base.name);
        compared += 1;
    }
    assert!(compared > 20);
}

/// The partial-order reduction says what the full search says under every
/// built-in design, variant and exercise, on race-2 and on the scenarios
/// they are about.
#[test]
fn the_reduced_search_agrees_under_every_builtin_design() {
    for name in design::builtin::names() {
        for scenario in [
            "race-2",
            "key-reuse",
            "timeout-retry",
            "queue-redelivery",
            "balance-version-column",
        ] {
            let mut s = builtins::builtin(scenario).expect("built-in");
            s.design = Some(Arc::new(design::builtin::named(name).expect("listed")));
            let checked = lousa_core::explore::check_reduction(&s, 500_000)
                .expect("the full search finishes");
            assert!(checked.is_ok(), "{name} on {scenario}: {checked:?}");
        }
    }
}

/// A design that keeps its keys as the lease design does is judged by the
/// lease design's properties whatever the scenario's strategy, and one that
/// deletes a key still processing (to claim it afresh) is caught
/// forgetting a charge that may have happened.
#[test]
fn a_design_with_the_lease_s_keys_is_judged_as_the_lease_design() {
    let lease = design::builtin::named("idempotency-key-lease").expect("built in");
    let mut s = builtins::builtin("race-2").expect("built-in");
    assert_eq!(s.strategy, Strategy::CheckThenAct);
    s.design = Some(Arc::new(lease.clone()));
    let report = explore(&s, &Options::for_scenario(&s)).expect("explores");
    let verdict = |r: &lousa_core::explore::Report, name: &str| {
        r.properties
            .iter()
            .find(|p| p.claim.property.name == name)
            .map(|p| format!("{:?}", p.verdict))
    };
    for name in [
        "no-key-stuck-processing-past-lease-and-recovery",
        "no-key-forgotten-while-its-effect-is-unresolved",
        "422-only-for-a-key-its-tenant-reused",
    ] {
        assert_eq!(verdict(&report, name).as_deref(), Some("Holds"), "{name}");
    }
    let mut v: serde_json::Value = serde_json::to_value(lease.design()).expect("JSON");
    v["steps"][3]["on"]
        .as_array_mut()
        .expect("read-key's branches")
        .insert(
            2,
            serde_json::json!({"if": {"status": "processing"}, "goto": "expire-key", "again": 2}),
        );
    s.design = Some(Arc::new(Design::from_json(&v.to_string()).expect("valid")));
    let report = explore(&s, &Options::for_scenario(&s)).expect("explores");
    assert_eq!(
        verdict(&report, "no-key-forgotten-while-its-effect-is-unresolved").as_deref(),
        Some("Violated")
    );
}

/// The lease design's limit goes with it: where the acquirer may stay
/// silent past the lease (no provider key to ask it by), its charge
/// properties are checked and reported but not required, under any
/// scenario's strategy, as they are under the lease strategy's own.
#[test]
fn a_design_with_the_lease_s_keys_has_the_lease_design_s_limit() {
    use lousa_core::explore::properties_for_scenario;
    let mut s = builtins::builtin("race-2").expect("built-in");
    s.acquirer.latency_ms = 60_000;
    s.lease_ms = 5_000;
    s.acquirer.provider_keys = false;
    let required = |s: &Scenario| {
        properties_for_scenario(s)
            .into_iter()
            .find(|c| c.property.name == "at-most-one-capture-per-intent")
            .map(|c| c.required)
    };
    s.design = Some(Arc::new(design::builtin::named("idempotency-key").unwrap()));
    assert_eq!(required(&s), Some(true), "a key design without a lease");
    s.design = Some(Arc::new(
        design::builtin::named("idempotency-key-lease").unwrap(),
    ));
    assert_eq!(required(&s), Some(false));
    s.design = None;
    s.strategy = Strategy::IdempotencyKeyLease;
    assert_eq!(required(&s), Some(false), "as under the lease strategy");
}

/// The fence is what the lease design's answer write may forget: the same
/// design with its write unfenced lands a write after recovery took the
/// key (the fault swarm's shrunk run), and the property says so.
#[test]
fn an_unfenced_answer_write_lands_after_its_lease_was_taken() {
    let link = "race-2;acquirer.latency_ms=2001;acquirer.timeout_ms=2001;\
                clients.0.backoff_jitter_ms=1000;clients.0.deadline_ms=10000;\
                clients.0.timeout_ms=1;clients.1.backoff=\"exponential\";\
                clients.1.backoff_jitter_ms=50;clients.1.backoff_max_ms=30000;\
                clients.1.deadline_ms=120000;clients.1.timeout_ms=1;key_ttl_ms=1;\
                lease_ms=1;recovery_every_ms=100;seed=10";
    let mut s = lousa_core::link::decode(link).expect("a link");
    let lease = design::builtin::named("idempotency-key-lease").unwrap();
    let mut v = serde_json::to_value(lease.design()).expect("JSON");
    assert_eq!(v["steps"][2]["label"], "store-response");
    v["steps"][2]["do"]["update"]["fenced"] = false.into();
    v["steps"][2]["on"] =
        serde_json::json!([{"if": "always", "answer": "capture", "goto": "respond"}]);
    let broken = |d: design::Program, s: &mut Scenario| {
        s.design = Some(Arc::new(d));
        let run = lousa_core::run(s).expect("runs");
        run.summary
            .invariants
            .iter()
            .any(|i| i.name == "no-write-by-a-worker-whose-lease-was-taken" && !i.holds)
    };
    assert!(!broken(lease, &mut s), "the fenced write matches no row");
    let unfenced = Design::from_json(&v.to_string()).expect("valid");
    assert!(broken(unfenced, &mut s));
}

/// The check refuses what a design cannot run, naming the field.
#[test]
fn a_wrong_design_is_refused_by_the_field_that_is_wrong() {
    let base: serde_json::Value =
        serde_json::from_str(builtin_file("idempotency-key")).expect("idempotency-key is JSON");
    let refusal = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        edit(&mut v);
        Design::from_json(&v.to_string())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| "accepted".into())
    };
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(&str, Edit)> = vec![
        (
            "steps[0].on[0].goto: no step is labelled \"nowhere\"",
            Box::new(|v| v["steps"][0]["on"][0]["goto"] = "nowhere".into()),
        ),
        (
            "steps[3]: \"read-key\" is never reached from the first step",
            Box::new(|v| {
                v["steps"][0]["on"] = serde_json::json!([]);
            }),
        ),
        (
            "steps[3].on[3].goto: jumps back to \"claim\"",
            Box::new(|v| v["steps"][3]["on"][3]["goto"] = "claim".into()),
        ),
        (
            "steps[2].do.update.set[0]: cobranca has no column \"estado\"",
            Box::new(|v| v["steps"][2]["do"]["update"]["set"][0] = "estado".into()),
        ),
        (
            "steps[0].on[0].if: only a capture's branches",
            Box::new(|v| v["steps"][0]["on"][0]["if"] = "silent".into()),
        ),
        (
            "steps[0].do.insert.table: \"cobranca_simples\" is not among the design's tables",
            Box::new(|v| v["steps"][0]["do"]["insert"]["table"] = "cobranca_simples".into()),
        ),
        (
            "steps[3].on[3].answer: this answer reads the row",
            Box::new(|v| v["steps"][3]["on"][3]["if"] = "always".into()),
        ),
        (
            "steps[0].do.insert: unknown field \"retuning\"",
            Box::new(|v| v["steps"][0]["do"]["insert"]["retuning"] = serde_json::json!([])),
        ),
        (
            "steps[0].do.insert.on_conflict_do_nothing: cobranca has no UNIQUE constraint on (pedido_id)",
            Box::new(|v| {
                v["steps"][0]["do"]["insert"]["on_conflict_do_nothing"] =
                    serde_json::json!(["pedido_id"])
            }),
        ),
        (
            "steps[0].do.insert.on_conflict_do_nothing: cobranca has no UNIQUE constraint on (idempotency_key), so PostgreSQL refuses",
            Box::new(|v| v["tables"][0]["unique"] = serde_json::json!([])),
        ),
        (
            "steps[0].on[0].if: unknown SQLSTATE \"99999\"",
            Box::new(|v| v["steps"][0]["on"][0]["if"] = serde_json::json!({"error": "99999"})),
        ),
        (
            "steps[2].do.update.fenced: cobranca has no column \"estado\"",
            Box::new(|v| v["steps"][2]["do"]["update"]["fenced"] = true.into()),
        ),
        (
            "steps[2].do.retake.table: cobranca has no column \"estado\"",
            Box::new(|v| {
                v["steps"][2]["do"] =
                    serde_json::json!({"retake": {"table": "cobranca", "from": "failed_safe"}})
            }),
        ),
        (
            "steps[3].on[1].if: the row read has no \"expira_em_ms\" column",
            Box::new(|v| v["steps"][3]["on"][1]["if"] = "expired".into()),
        ),
        (
            "steps[3].on[0].goto: jumps back to \"claim\": a jump back needs \"again\"",
            Box::new(|v| v["steps"][3]["on"][0]["goto"] = "claim".into()),
        ),
        (
            "steps[3].on[0].again: 4 is outside 1..=3",
            Box::new(|v| {
                v["steps"][3]["on"][0]["goto"] = "claim".into();
                v["steps"][3]["on"][0]["again"] = 4.into();
            }),
        ),
        (
            "steps[2].do.update.set[0]: cobranca has no column \"saldo\"",
            Box::new(|v| v["steps"][2]["do"]["update"]["set"] = serde_json::json!(["saldo"])),
        ),
        (
            "steps[3].on[0].if: the row read has no \"saldo\" column",
            Box::new(|v| v["steps"][3]["on"][0]["if"] = "insufficient-funds".into()),
        ),
    ];
    for (want, edit) in cases {
        let got = refusal(&*edit);
        let (field, words) = want.split_once(": ").expect("field: words");
        assert!(
            got.starts_with(&format!("{field}: ")) && got.contains(words),
            "wanted {want:?}, got {got:?}"
        );
    }
}

/// Each step that jumps back keeps its own count, in 2 bits of a job's
/// byte: a fifth such step is refused.
#[test]
fn a_design_loops_back_from_four_steps_at_most() {
    let read =
        serde_json::json!({"select": {"table": "cobranca", "by": "order", "columns": ["id"]}});
    let steps: Vec<serde_json::Value> = (0..6)
        .map(|i| {
            let mut on = vec![];
            if i > 0 {
                on.push(serde_json::json!({"if": "rows", "goto": "s0", "again": 1}));
            }
            if i == 5 {
                on.push(serde_json::json!({"if": "always", "answer": {"literal": {"status": 200, "body": "{}"}}, "goto": "respond"}));
            }
            serde_json::json!({"label": format!("s{i}"), "do": read, "on": on})
        })
        .collect();
    let mut v =
        serde_json::json!({"name": "loops", "tables": [{"name": "cobranca"}], "steps": steps});
    let refused = Design::from_json(&v.to_string()).expect_err("five looping steps");
    assert_eq!(refused.field, "steps[5].on[0].again", "{refused}");
    assert!(refused.message.contains("more than 4 steps"), "{refused}");
    v["steps"][5]["on"].as_array_mut().unwrap().remove(0);
    Design::from_json(&v.to_string()).expect("four looping steps");
}

/// A changed step shows in the traces: one changed answer in a design file
/// (409 for a key still processing becomes 425) changes the traces of the
/// built-ins where a retry finds the claim in progress.
#[test]
fn a_changed_step_makes_the_traces_differ() {
    let json = builtin_file("idempotency-key");
    let changed = json.replacen("\"status\": 409", "\"status\": 425", 2);
    assert_ne!(changed, json);
    let changed = Arc::new(Design::from_json(&changed).expect("still valid"));
    let mut differ = Vec::new();
    for base in builtins::all() {
        let mut s = base.clone();
        s.strategy = Strategy::IdempotencyKey;
        s.isolation = Isolation::ReadCommitted;
        if s.validate().is_err() {
            continue;
        }
        let mut d = s.clone();
        d.design = Some(changed.clone());
        if trace_json(&s) != trace_json(&d) {
            differ.push(base.name.clone());
        }
    }
    assert!(
        differ.iter().any(|n| n == "timeout-retry"),
        "a 425 in place of 409 went unseen: only {differ:?} differ"
    );
}

/// The exercises find what their `about` says: the claim after the capture
/// charges twice on race-2, the forgotten fingerprint answers a reused key's
/// other amount 2xx with no capture behind it, and a UNIQUE on the order
/// alone stops race-2's double charge but answers a repeat 200 where the
/// first got 201.
#[test]
fn the_exercises_show_what_they_teach() {
    let report = |scenario: &str, design_name: &str| {
        let mut s = builtins::builtin(scenario).expect("built-in");
        s.design = Some(Arc::new(
            design::builtin::named(design_name).expect("an exercise"),
        ));
        explore(&s, &Options::for_scenario(&s)).expect("explores")
    };
    let broken = |r: &lousa_core::explore::Report, name: &str| {
        r.properties.iter().any(|p| {
            p.claim.property.name == name && p.verdict == lousa_core::explore::Verdict::Violated
        })
    };
    let after = report("race-2", "claim-after-capture");
    assert!(after.outcomes.iter().all(|o| o.double_charge), "{after:?}");
    assert!(broken(&after, "at-most-one-capture-per-intent"));
    let example = &after
        .properties
        .iter()
        .find(|p| p.claim.property.name == "at-most-one-capture-per-intent")
        .and_then(|p| p.example.clone())
        .expect("a shortest example");
    let mut s = builtins::builtin("race-2").expect("built-in");
    s.design = Some(Arc::new(
        design::builtin::named("claim-after-capture").unwrap(),
    ));
    let replayed = lousa_core::run::run_schedule_exact(&s, &example.text.parse().unwrap())
        .expect("the example replays");
    assert_eq!(replayed.summary.double_charged_intents, vec![0]);

    let forgot = report("key-reuse", "forget-the-fingerprint");
    assert!(broken(&forgot, "every-2xx-has-exactly-one-capture"));
    let mut s = builtins::builtin("key-reuse").expect("built-in");
    s.design = Some(Arc::new(design::builtin::named("idempotency-key").unwrap()));
    let kept = explore(&s, &Options::for_scenario(&s)).expect("explores");
    assert!(!broken(&kept, "every-2xx-has-exactly-one-capture"));

    let unique = report("race-2", "check-then-act-unique-order");
    assert!(
        unique.outcomes.iter().all(|o| !o.double_charge),
        "{unique:?}"
    );
    assert!(!broken(&unique, "at-most-one-capture-per-intent"));
}

mod random {
    //! Random designs built from the step shapes: a valid one never panics
    //! the interpreter or the explorer, and an invalid one is refused at a
    //! step's field.

    use super::{Arc, Design, Isolation, Options, builtins, explore, trace_json};
    use lousa_core::design::{
        Answer, Branch, By, Charge, Claims, Delete, Do, Insert, Literal, Retake, Select, Serves,
        Step, TableUse, Update, When,
    };
    use proptest::prelude::*;

    const COLUMNS: [&str; 6] = [
        "id",
        "pedido_id",
        "valor_centavos",
        "status",
        "resposta_http",
        "resposta_corpo",
    ];

    /// Choices drawn from a list of numbers, so that proptest shrinks a
    /// design by shrinking the numbers.
    struct Draw(std::vec::IntoIter<u32>);

    impl Draw {
        fn below(&mut self, n: usize) -> usize {
            self.0.next().unwrap_or(0) as usize % n.max(1)
        }
        fn one_in(&mut self, n: usize) -> bool {
            self.below(n) == 0
        }
    }

    /// The lease design's key table's columns.
    const KEY_COLUMNS: [&str; 8] = [
        "id",
        "impressao",
        "estado",
        "expira_em_ms",
        "lease_ate_ms",
        "resposta_http",
        "resposta_corpo",
        "resposta_headers",
    ];

    /// The columns a table has, of those a select may read.
    fn readable(table: &str) -> Vec<&'static str> {
        if table == "chave_idempotencia" {
            return KEY_COLUMNS.to_vec();
        }
        if table == "mensagem_processada" {
            return vec!["id", "message_id", "pedido_id", "estado", "lease_ate_ms"];
        }
        if table == "conta" {
            return vec!["id", "saldo"];
        }
        if table == "conta_versionada" {
            return vec!["saldo", "versao", "id"];
        }
        COLUMNS
            .iter()
            .copied()
            .filter(|c| table == "cobranca" || !c.starts_with("resposta"))
            .collect()
    }

    /// A design built to be valid most of the time: steps whose branches
    /// ask what their action can answer, jumps forward (and, outside a
    /// transaction, now and then a bounded jump back), the capture first
    /// when an update follows, a transaction now and then, and the last
    /// step answering. One draw in eight breaks a rule on purpose.
    fn build(numbers: Vec<u32>) -> Design {
        let mut d = Draw(numbers.into_iter());
        let n = 1 + d.below(6);
        let in_tx = d.one_in(4);
        let account_table = ["conta", "conta_versionada"][d.below(2)];
        let mut captured = false;
        let mut steps: Vec<Step> = Vec::new();
        for i in 0..n {
            let table = [
                "cobranca",
                "cobranca_simples",
                "chave_idempotencia",
                "mensagem_processada",
                account_table,
            ][d.below(5)];
            let account = table.starts_with("conta");
            let key = table == "chave_idempotencia";
            // A table with a state and a lease.
            let leased = key || table == "mensagem_processada";
            let first = i == 0 && in_tx;
            let last = i + 1 == n;
            let action = if first {
                Do::Begin
            } else if last && in_tx {
                Do::Commit
            } else {
                match d.below(if captured { 6 } else { 5 }) {
                    0 => Do::Capture,
                    2 => Do::Insert(Insert {
                        table: table.into(),
                        on_conflict_do_nothing: match table {
                            "cobranca" if d.one_in(2) => Some(vec!["idempotency_key".into()]),
                            "chave_idempotencia" if d.one_in(2) => {
                                Some(vec!["escopo".into(), "chave".into()])
                            }
                            "mensagem_processada" if d.one_in(2) => Some(vec!["message_id".into()]),
                            _ => None,
                        },
                        returning: match d.below(3) {
                            0 => vec![],
                            1 if leased => vec!["id".into(), "lease_ate_ms".into()],
                            _ => vec!["id".into()],
                        },
                        completed: leased && d.one_in(4),
                    }),
                    3 => Do::Delete(Delete {
                        table: table.into(),
                    }),
                    4 if leased => Do::Retake(Retake {
                        table: table.into(),
                        from: "failed_safe".into(),
                    }),
                    // A debit needs no capture before it.
                    4 | 5 if account => Do::Update(Update {
                        table: table.into(),
                        set: vec!["saldo".into()],
                        fenced: false,
                        local: false,
                    }),
                    5 => Do::Update(Update {
                        table: table.into(),
                        set: match table {
                            "cobranca" => vec![
                                "status".into(),
                                "resposta_http".into(),
                                "resposta_corpo".into(),
                            ],
                            "chave_idempotencia" => [
                                "estado",
                                "expira_em_ms",
                                "resposta_http",
                                "resposta_corpo",
                                "resposta_headers",
                            ]
                            .iter()
                            .take(1 + d.below(5))
                            .map(|c| c.to_string())
                            .collect(),
                            "mensagem_processada" => vec!["estado".into()],
                            _ => vec!["status".into()],
                        },
                        fenced: leased && d.one_in(2),
                        local: d.one_in(4),
                    }),
                    _ => {
                        let cols = readable(table);
                        let k = 1 + d.below(cols.len());
                        let skip = d.below(cols.len());
                        let bys: &[By] = if table == "cobranca_simples" {
                            &[By::Order, By::Id]
                        } else if account {
                            &[By::Account, By::Account, By::Id]
                        } else {
                            &[By::Order, By::Key, By::Id]
                        };
                        Do::Select(Select {
                            table: table.into(),
                            by: bys[d.below(bys.len())],
                            columns: cols
                                .iter()
                                .cycle()
                                .skip(skip)
                                .take(k)
                                .map(|c| c.to_string())
                                .collect(),
                            for_update: d.one_in(3),
                        })
                    }
                }
            };
            captured |= action == Do::Capture;
            let columns: Vec<String> = match &action {
                Do::Select(s) => s.columns.clone(),
                Do::Insert(s) => s.returning.clone(),
                Do::Update(u) if u.fenced || u.table == "conta_versionada" => vec!["id".into()],
                Do::Retake(_) => vec!["lease_ate_ms".into()],
                _ => vec![],
            };
            let mut on = Vec::new();
            for _ in 0..d.below(3) {
                let when = match &action {
                    Do::Capture => {
                        [When::Accepted, When::Declined, When::Silent][d.below(3)].clone()
                    }
                    // An update's or a delete's count of rows touched.
                    Do::Update(_) | Do::Delete(_) if columns.is_empty() && d.one_in(2) => {
                        [When::Rows, When::NoRows][d.below(2)].clone()
                    }
                    _ if columns.is_empty() => When::Error(["23505", "40001"][d.below(2)].into()),
                    _ => match d.below(6) {
                        0 => When::Rows,
                        1 => When::NoRows,
                        2 if columns.iter().any(|c| c == "status" || c == "estado") => {
                            When::Status(
                                ["PROCESSANDO", "CAPTURADA", "completed", "failed_safe"]
                                    [d.below(4)]
                                .into(),
                            )
                        }
                        3 if columns.iter().any(|c| c == "expira_em_ms") => When::Expired,
                        4 if columns.iter().any(|c| c == "impressao") => When::OtherRequest,
                        5 if columns.iter().any(|c| c == "saldo") => When::InsufficientFunds,
                        _ => When::Error("23505".into()),
                    },
                };
                let reads_row = matches!(
                    when,
                    When::Rows | When::Status(_) | When::Expired | When::OtherRequest
                );
                let has = |c: &str| columns.iter().any(|x| x == c);
                let answer = match d.below(4) {
                    0 if reads_row && has("resposta_http") && has("resposta_corpo") => {
                        Some(Answer::Stored)
                    }
                    1 if reads_row && has("id") && has("status") => {
                        Some(Answer::Charge(Charge { status: 200 }))
                    }
                    2 if captured => Some(Answer::Capture),
                    _ => Some(Answer::Literal(Literal {
                        status: [409, 422, 503][d.below(3)],
                        body: "{\"erro\": \"x\"}".into(),
                    })),
                };
                // Inside a transaction, jumps stay in it; outside, a jump
                // may answer at once.
                // Outside one, now and then a bounded jump back.
                let back = !in_tx && i > 0 && d.one_in(5);
                let goto = if back {
                    format!("s{}", d.below(i))
                } else if !in_tx && d.one_in(2) || i + 1 >= n {
                    "respond".to_string()
                } else {
                    format!("s{}", i + 1 + d.below(n - i - 1 - usize::from(in_tx)))
                };
                on.push(Branch {
                    when,
                    answer,
                    goto,
                    again: back.then(|| 1 + d.below(3) as u8),
                });
            }
            if last {
                on.push(Branch {
                    when: When::Always,
                    answer: Some(Answer::Literal(Literal {
                        status: 200,
                        body: "{}".into(),
                    })),
                    goto: "respond".into(),
                    again: None,
                });
            }
            steps.push(Step {
                label: format!("s{i}"),
                shown: None,
                action,
                on,
                next: None,
            });
        }
        let mut design = Design {
            name: "random".into(),
            about: String::new(),
            serves: if d.one_in(4) {
                Serves::Queue
            } else {
                Serves::Http
            },
            isolation: [
                None,
                Some(Isolation::RepeatableRead),
                Some(Isolation::Serializable),
            ][d.below(3)],
            claims: if d.one_in(2) {
                Claims::ChargeOnce
            } else {
                Claims::Nothing
            },
            tables: vec![
                TableUse {
                    name: "cobranca".into(),
                    unique: None,
                },
                TableUse {
                    name: "cobranca_simples".into(),
                    unique: if d.one_in(3) {
                        Some(vec!["pedido_id".into()])
                    } else {
                        None
                    },
                },
                TableUse {
                    name: "chave_idempotencia".into(),
                    unique: None,
                },
                TableUse {
                    name: "mensagem_processada".into(),
                    unique: None,
                },
                TableUse {
                    name: account_table.into(),
                    unique: None,
                },
            ],
            steps,
        };
        if d.one_in(8) {
            break_one_rule(&mut design, &mut d);
        }
        design
    }

    /// Breaks one of the rules the check enforces, somewhere.
    fn break_one_rule(design: &mut Design, d: &mut Draw) {
        let i = d.below(design.steps.len());
        let step = &mut design.steps[i];
        match d.below(4) {
            0 => step.next = Some("nowhere".into()),
            1 => step.next = Some("s0".into()),
            2 => step.on.push(Branch {
                when: When::Silent,
                answer: None,
                goto: "respond".into(),
                again: None,
            }),
            _ => step.label = "respond".into(),
        }
    }

    pub(super) fn design() -> impl Strategy<Value = Design> {
        prop::collection::vec(any::<u32>(), 80).prop_map(build)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("LOUSA_PROPTEST_CASES")
                .ok()
                .and_then(|v| v.parse::<u32>().ok())
                .map_or(400, |c| c / 5),
            ..ProptestConfig::default()
        })]

        #[test]
        fn a_random_design_runs_or_is_refused_at_a_step(d in design()) {
            let text = serde_json::to_string(&d).unwrap();
            match Design::from_json(&text) {
                Err(e) => prop_assert!(
                    e.field.starts_with("steps[") && e.field.contains(']'),
                    "refused without naming a step: {}", e
                ),
                Ok(program) => {
                    let program = Arc::new(program);
                    // Runs to its end, and the same way twice.
                    for name in ["race-2", "timeout-retry", "key-reuse", "queue-redelivery", "balance-version-column"] {
                        let mut s = builtins::builtin(name).expect("built-in");
                        s.design = Some(program.clone());
                        prop_assert_eq!(trace_json(&s), trace_json(&s));
                    }
                    let on = if program.serves_queue() { "queue-redelivery" } else { "race-2" };
                    let mut s = builtins::builtin(on).expect("built-in");
                    s.design = Some(program);
                    let mut options = Options::for_scenario(&s);
                    options.max_states = 20_000;
                    explore(&s, &options).expect("explores");
                    // The partial-order reduction reads a design's steps
                    // too: it must say what the full search says.
                    if let Some(checked) = lousa_core::explore::check_reduction(&s, 20_000) {
                        prop_assert!(checked.is_ok(), "{:?}", checked);
                    }
                }
            }
        }
    }
}

/// The random designs below test something: most are valid (and so run
/// and are explored), and those refused are refused for many reasons.
#[test]
fn random_designs_are_mostly_valid_and_refused_for_many_reasons() {
    use proptest::strategy::{Strategy as _, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut ok, mut reasons) = (0, std::collections::BTreeSet::new());
    let (mut loops, mut leased, mut debits) = (0, 0, 0);
    for _ in 0..1000 {
        let d = random::design().new_tree(&mut runner).unwrap().current();
        match Design::from_json(&serde_json::to_string(&d).unwrap()) {
            Ok(_) => {
                ok += 1;
                loops += usize::from(
                    d.steps
                        .iter()
                        .any(|s| s.on.iter().any(|b| b.again.is_some())),
                );
                debits += usize::from(
                    d.steps
                        .iter()
                        .any(|s| matches!(&s.action, design::Do::Update(u) if u.set == ["saldo"])),
                );
                leased += usize::from(d.steps.iter().any(|s| {
                    matches!(
                        &s.action,
                        design::Do::Retake(_)
                            | design::Do::Delete(_)
                            | design::Do::Update(design::Update { fenced: true, .. })
                    )
                }));
            }
            Err(e) => {
                reasons.insert(e.message.split('"').next().unwrap_or("").to_string());
            }
        }
    }
    assert!(
        (500..950).contains(&ok),
        "{ok} of 1000 random designs valid"
    );
    assert!(reasons.len() >= 6, "refused for only {reasons:?}");
    // The valid ones take the lease's shapes and bounded loops too.
    assert!(
        loops >= 30 && leased >= 30 && debits >= 30,
        "{loops} with loops, {leased} with lease steps, {debits} with a debit"
    );
    println!(
        "random designs: {ok} of 1000 valid, {loops} with a loop, {leased} with lease steps, \
         {debits} with a debit"
    );
}

/// A write that matches no row says so, as psql does (`UPDATE 0`), rather
/// than "ok": a key claim whose conflict branch was deleted goes on to
/// store its answer under a row it never got back: it has no id, so the
/// UPDATE's WHERE says NULL, it is told "0 afetadas", and the answer names
/// no charge.
#[test]
fn a_write_that_matches_nothing_is_told_as_zero_rows() {
    use lousa_core::narrate::{Lang, sql_outcome};
    use lousa_core::trace::{EventKind, SqlOutcome};
    let mut v: serde_json::Value =
        serde_json::from_str(builtin_file("idempotency-key")).expect("JSON");
    v["steps"][0]["on"] = serde_json::json!([]);
    v["steps"].as_array_mut().expect("steps").truncate(3);
    let broken = Arc::new(Design::from_json(&v.to_string()).expect("still valid"));
    let mut s = builtins::builtin("race-2").expect("built-in");
    s.design = Some(broken);
    let run = lousa_core::run(&s).expect("runs");
    let updates: Vec<&SqlOutcome> = run
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Sql { sql, outcome, .. } if sql.starts_with("UPDATE") => Some(outcome),
            _ => None,
        })
        .collect();
    assert!(
        updates.contains(&&SqlOutcome::Affected { count: 1 }),
        "the first attempt stores its answer: {updates:?}"
    );
    let none = updates
        .iter()
        .find(|o| ***o == SqlOutcome::Affected { count: 0 })
        .unwrap_or_else(|| panic!("the second attempt's UPDATE matched no row: {updates:?}"));
    assert!(!updates.contains(&&SqlOutcome::Ok), "{updates:?}");
    assert_eq!(sql_outcome(none, Lang::Pt), "0 afetadas");
    assert_eq!(sql_outcome(none, Lang::En), "0 affected");
    let texts: Vec<String> = run
        .events()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Sql { sql, .. } if sql.starts_with("UPDATE") => Some(sql.clone()),
            EventKind::Responded { body, .. } => Some(body.clone()),
            _ => None,
        })
        .collect();
    assert!(
        texts.iter().any(|t| t.ends_with("WHERE id = NULL")),
        "{texts:#?}"
    );
    assert!(
        texts.iter().any(|t| t.contains(r#""cobranca_id": null"#)),
        "{texts:#?}"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("id = 0") || t.contains("cobranca_id\": 0")),
        "{texts:#?}"
    );
}
