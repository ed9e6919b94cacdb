//! `lousa designs` and `--design` as a user meets them (issue #31).

mod shared;

/// What `lousa args` printed on stderr, failing as it must.
fn refusal(args: &[&str]) -> String {
    let (ok, _, err) = lousa(args);
    assert!(!ok);
    err
}

/// Whether `lousa args` succeeded, and what it printed on each stream.
fn lousa(args: &[&str]) -> (bool, String, String) {
    let out = shared::lousa(args);
    (
        out.status.success(),
        shared::stdout(&out),
        shared::stderr(&out),
    )
}

#[test]
fn designs_lists_the_builtins_and_the_exercises() {
    let (ok, out, err) = lousa(&["designs"]);
    assert!(ok, "{err}");
    for name in lousa_core::design::builtin::names() {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("{name} "))),
            "{name} missing from:\n{out}"
        );
    }
}

/// A design printed a step a line shows its jumps back with their bound.
#[test]
fn a_printed_design_shows_how_often_a_jump_back_is_taken() {
    let (ok, out, err) = lousa(&["designs", "idempotency-key-lease"]);
    assert!(ok, "{err}");
    assert!(
        out.lines()
            .any(|l| l.trim() == "if \"no-rows\" → claim (at most 2 times)"),
        "{out}"
    );
    assert!(
        out.contains("{\"delete\":{\"table\":\"chave_idempotencia\"}}"),
        "{out}"
    );
}

/// A design printed as JSON runs back as the same handler: the same trace
/// as the built-in strategy it writes.
#[test]
fn a_printed_design_runs_back_as_its_strategy() {
    let (ok, json, err) = lousa(&["designs", "idempotency-key", "--format", "json"]);
    assert!(ok, "{err}");
    let path = std::env::temp_dir().join(format!("lousa-design-{}.json", std::process::id()));
    std::fs::write(&path, &json).expect("a temp file");
    let file = path.to_str().expect("a UTF-8 path");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "timeout-retry", "--strategy", "idempotency-key"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        let (ok, out, err) = lousa(&args);
        assert!(ok, "{err}");
        out
    };
    let mut designed: serde_json::Value =
        serde_json::from_str(&run(&["--design", file])).expect("JSON");
    assert_eq!(designed["design"], "idempotency-key");
    designed
        .as_object_mut()
        .expect("an object")
        .remove("design");
    let plain: serde_json::Value = serde_json::from_str(&run(&[])).expect("JSON");
    assert_eq!(designed, plain);
    let (ok, out, _) = lousa(&["run", "timeout-retry", "--design", file]);
    assert!(ok);
    assert!(
        out.lines()
            .next()
            .unwrap_or("")
            .contains("design idempotency-key"),
        "{out}"
    );
    std::fs::remove_file(&path).ok();
}

#[test]
fn a_wrong_design_is_refused_with_its_field() {
    let err = refusal(&["run", "race-2", "--design", "idempotency-kee"]);
    assert!(
        err.contains("--design: unknown built-in design \"idempotency-kee\"")
            && err.contains("naive"),
        "{err}"
    );
    let path = std::env::temp_dir().join(format!("lousa-bad-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"{"name": "x", "tables": [{"name": "cobranca"}],
            "steps": [{"label": "a", "do": "capture", "on": [{"if": "rows", "goto": "respond"}]}]}"#,
    )
    .expect("a temp file");
    let file = path.to_str().expect("a UTF-8 path");
    let err = refusal(&["explore", "race-2", "--design", file]);
    assert!(
        err.contains("steps[0].on[0].if: a capture runs no statement"),
        "{err}"
    );
    let err = refusal(&["designs", file]);
    assert!(err.contains("steps[0].on[0].if"), "{err}");
    std::fs::remove_file(&path).ok();
}

/// The issue's example: the claim after the capture charges twice on
/// race-2, and the shortest counterexample printed replays it.
#[test]
fn explore_finds_the_claim_after_the_capture_charging_twice() {
    let (ok, out, err) = lousa(&["explore", "race-2", "--design", "claim-after-capture"]);
    assert!(!ok, "a broken property fails the run:\n{out}");
    assert!(err.contains("at-most-one-capture-per-intent"), "{err}");
    assert!(out.contains("design claim-after-capture"), "{out}");
    let replay = out
        .lines()
        .find_map(|l| {
            l.split_once("lousa run race-2 --design claim-after-capture")
                .map(|(_, rest)| rest)
        })
        .unwrap_or_else(|| panic!("no replay command in:\n{out}"));
    let schedule = replay
        .split_whitespace()
        .skip_while(|w| *w != "--schedule")
        .nth(1)
        .expect("a schedule");
    let (ok, out, err) = lousa(&[
        "run",
        "race-2",
        "--design",
        "claim-after-capture",
        "--schedule",
        schedule,
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(
        v["summary"]["double_charged_intents"],
        serde_json::json!([0])
    );
}

/// A queue's consumer written as a design runs each delivery where a queue
/// delivers, and is refused by name where no queue does.
/// The balance designs: the plain debit loses an update it does not claim
/// to keep, the lock and the version keep it, a debit is refused where no
/// account is open, and a variant prints as the JSON it was composed into.
#[test]
fn a_balance_design_is_judged_by_its_own_guard() {
    let explore = |design: &str| {
        let (ok, out, err) = lousa(&["explore", "balance-for-update", "--design", design]);
        assert!(ok, "{err}");
        out
    };
    let out = explore("local-effect-balance");
    assert!(
        out.contains("no-lost-update: violated (not claimed by design local-effect-balance)"),
        "{out}"
    );
    // Where no account is open, a debit could only refuse every request.
    let err = refusal(&["run", "race-2", "--design", "local-effect-balance"]);
    assert!(
        err.contains(
            "--design: local-effect-balance debits an account, and scenario race-2 has none to \
             debit (give it balance.opening_cents)"
        ),
        "{err}"
    );
    for guarded in [
        "local-effect-balance-for-update",
        "local-effect-balance-versioned",
    ] {
        let out = explore(guarded);
        assert!(out.contains("no-lost-update: holds"), "{guarded}: {out}");
    }
    let (ok, out, err) = lousa(&[
        "designs",
        "local-effect-balance-versioned-outbox",
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let printed = lousa_core::design::Design::from_json(&out).expect("valid JSON");
    let tables: Vec<&str> = printed
        .design()
        .tables
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        tables,
        [
            "chave_idempotencia",
            "pedido_pago",
            "conta_versionada",
            "evento_outbox"
        ]
    );
}

#[test]
fn a_consumer_design_runs_where_a_queue_delivers() {
    let (ok, out, err) = lousa(&[
        "explore",
        "queue-redelivery",
        "--design",
        "consumer-check-then-act",
    ]);
    // It claims nothing, so the double charge it shows is no failure.
    assert!(ok, "{err}");
    assert!(out.contains("design consumer-check-then-act"), "{out}");
    assert!(out.contains("captures [2]"), "{out}");
    let (ok, out, err) = lousa(&["run", "queue-redelivery", "--design", "consumer-claim"]);
    assert!(ok, "{err}");
    assert!(out.contains("ON CONFLICT (message_id) DO NOTHING"), "{out}");
    let err = refusal(&["run", "race-2", "--design", "consumer-claim"]);
    assert!(
        err.contains("--design: consumer-claim serves a queue's deliveries, and scenario race-2 has no queue client"),
        "{err}"
    );
}

/// The psql script of a design's run names the design, creates its tables
/// with its own UNIQUE constraint, and replays under it.
#[test]
fn a_designs_psql_script_carries_its_constraint_and_its_name() {
    let (ok, out, err) = lousa(&[
        "export",
        "race-2",
        "--design",
        "check-then-act-unique-order",
        "--schedule",
        "0",
        "--format",
        "psql",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("-- Lousa: race-2 under design check-then-act-unique-order"),
        "{out}"
    );
    assert!(out.contains("unique (pedido_id)"), "{out}");
    assert!(
        out.contains("--design check-then-act-unique-order --schedule 0"),
        "{out}"
    );
    assert_eq!(
        out.matches("INSERT INTO cobranca_simples").count(),
        2,
        "{out}"
    );
    // The Rust test carries the design too, embedded beside the scenario.
    let (ok, out, err) = lousa(&[
        "export",
        "race-2",
        "--design",
        "naive",
        "--format",
        "rust-test",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("under design naive, schedule"), "{out}");
    assert!(out.contains("scenario.design = Some("), "{out}");
}

/// A sweep runs one heatmap of the design, and its hottest cell opens
/// under it.
#[test]
fn a_sweep_maps_a_design() {
    let (ok, out, err) = lousa(&[
        "sweep",
        "timeout-retry",
        "--x",
        "clients.0.timeout_ms=500,4000",
        "--y",
        "acquirer.latency_ms=3000",
        "--design",
        "claim-after-capture",
        "--seeds",
        "2",
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains("design claim-after-capture (double-charged runs / runs)"),
        "{out}"
    );
    assert!(
        out.contains("2/2"),
        "the claim after the capture charges twice at 500 ms:\n{out}"
    );
    assert!(out.contains("--design claim-after-capture --seed"), "{out}");
    let err = refusal(&[
        "sweep",
        "timeout-retry",
        "--x",
        "clients.0.timeout_ms=500",
        "--y",
        "acquirer.latency_ms=3000",
        "--design",
        "naive",
        "--strategies",
        "naive",
    ]);
    assert!(err.contains("cannot be used with"), "{err}");
}

/// The fault swarm hunts a design too: the claim after the capture breaks
/// its claim on the drawn runs of race-2, and the command printed to
/// reproduce a violation runs the design.
#[test]
fn the_fault_swarm_hunts_a_design() {
    let (ok, out, err) = lousa(&[
        "swarm",
        "race-2",
        "--faults",
        "--seeds",
        "5",
        "--design",
        "claim-after-capture",
    ]);
    assert!(!ok, "{out}");
    assert!(err.contains("violations of claimed properties"), "{err}");
    assert!(
        out.contains("at-most-one-capture-per-intent under design claim-after-capture"),
        "{out}"
    );
    let command = out
        .lines()
        .find_map(|l| {
            l.trim()
                .split_once("reproduce (")
                .map(|(_, r)| r.to_string())
        })
        .expect("a reproduce line");
    assert!(
        command.ends_with("--design 'claim-after-capture'"),
        "{command}"
    );
    // The same swarm under the built-in design the strategy writes breaks
    // nothing it claims.
    let (ok, out, err) = lousa(&[
        "swarm",
        "race-2",
        "--faults",
        "--seeds",
        "5",
        "--strategy",
        "idempotency-key",
        "--design",
        "idempotency-key",
    ]);
    assert!(ok, "{out}{err}");
}
