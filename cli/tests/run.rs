//! The CLI as a user meets it: real processes, real exit codes.

use std::process::Command;

fn lousa(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lousa"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn scenarios_lists_every_builtin() {
    let (ok, out, _) = lousa(&["scenarios"]);
    assert!(ok);
    for name in lousa_core::builtins::NAMES {
        assert!(out.contains(name), "{name} missing from:\n{out}");
    }
}

#[test]
fn run_json_has_the_documented_fields() {
    let (ok, out, err) = lousa(&[
        "run",
        "timeout-retry",
        "--strategy",
        "check-then-act",
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("one JSON object");
    assert_eq!(v["strategy"], "check-then-act");
    assert_eq!(v["seed"], 1);
    assert!(v["events"].as_array().unwrap().len() > 10);
    let s = &v["summary"];
    assert_eq!(s["captures"], 2);
    assert_eq!(s["double_charged_intents"], serde_json::json!([0]));
    let a = &s["attempts"][2];
    assert_eq!(a["intent"], 0);
    assert_eq!(a["instance"], 0);
    assert_eq!(a["status"], 200);
    assert_eq!(a["body"], r#"{"status": "CAPTURADA", "cobranca_id": 1}"#);
}

#[test]
fn run_text_prints_a_timeline_and_the_outcome() {
    let (ok, out, _) = lousa(&[
        "run",
        "timeout-retry",
        "--strategy",
        "idempotency-key",
        "--lang",
        "pt",
    ]);
    assert!(ok);
    assert!(out.contains("estoura o timeout da tentativa 1"), "{out}");
    // The summary speaks the run's language too, money included.
    assert!(out.contains("capturas: 1   cobrado: R$ 250,00"), "{out}");
    assert!(out.contains("tentativa 2 (cliente 1"), "{out}");
    assert!(!out.contains("captures:"), "{out}");
    let (ok, out, _) = lousa(&["run", "timeout-retry", "--lang", "en"]);
    assert!(ok);
    assert!(out.contains("captures: 2   charged: R$ 500.00"), "{out}");
}

#[test]
fn an_unknown_scenario_names_the_race_family() {
    let (ok, _, err) = lousa(&["run", "race-99"]);
    assert!(!ok);
    assert!(err.contains("late-retry-provider-key"), "{err}");
    assert!(err.contains("and race-N for N from 2 to 8"), "{err}");
    assert!(!err.contains("race-2,"), "{err}");
    let (ok, _, _) = lousa(&["run", "race-8"]);
    assert!(ok, "race-8 is in the family the message names");
}

#[test]
fn a_schedule_replays_the_run_it_came_from() {
    let (_, out, _) = lousa(&["run", "race-3", "--seed", "9", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let schedule = v["schedule"].as_str().unwrap().to_string();
    let (ok, again, _) = lousa(&["run", "race-3", "--schedule", &schedule, "--format", "json"]);
    assert!(ok);
    let w: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(v["events"], w["events"]);
    assert_eq!(v["summary"], w["summary"]);
}

#[test]
fn bad_input_exits_non_zero_with_a_precise_error() {
    let cases: [(&[&str], &str); 10] = [
        // A schedule that parses but does not fit the run names where and
        // the limit (it was clamped without a word).
        (
            &["run", "race-2", "--schedule", "0-q"],
            "--schedule: choice 2 is 26, past the 2 alternatives of that choice point (0 to 1)",
        ),
        (
            &["run", "race-2", "--schedule", "0-1x40"],
            "--schedule: 41 choices, past the 11 choice points of this run",
        ),
        (
            &[
                "export",
                "race-2",
                "--schedule",
                "0-q",
                "--format",
                "history",
            ],
            "past the 2 alternatives",
        ),
        (&["run", "no-such-scenario"], "unknown built-in"),
        (
            &["run", "timeout-retry", "--strategy", "optimistic"],
            "--strategy: unknown strategy",
        ),
        (&["run", "race-2", "--schedule", "1-zz!"], "--schedule"),
        // Issue #35: this run length wrapped the total and panicked with
        // "capacity overflow"; on wasm32, u32::MAX did the same.
        (
            &["run", "race-2", "--schedule", "0-0x18446744073709551615"],
            "at character 3 (\"0x18446744073709551615\"): expected at most 100000 choices",
        ),
        (
            &[
                "export",
                "race-2",
                "--schedule",
                "0-0x4294967295",
                "--format",
                "psql",
            ],
            "at character 3 (\"0x4294967295\"): expected at most 100000 choices",
        ),
        (&["run", "race-2", "--seed", "x4"], "--seed"),
        (
            &["swarm", "all", "--seeds", "3"],
            "`all` (every built-in) runs only with --faults",
        ),
    ];
    for (args, expected) in cases {
        let (ok, _, err) = lousa(args);
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let dir = std::env::temp_dir().join(format!("lousa-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.json");
    let mut s = lousa_core::builtins::builtin("timeout-retry").unwrap();
    s.clients[0].retries_max = 500;
    std::fs::write(&file, s.to_json()).unwrap();
    let (ok, _, err) = lousa(&["run", file.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("clients[0].retries_max: 500 exceeds the limit 20"),
        "{err}"
    );
    s.clients[0].retries_max = 2;
    std::fs::write(&file, s.to_json()).unwrap();
    let (ok, out, err) = lousa(&["run", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(
        out.contains("captures: 2"),
        "a scenario file runs like the built-in:\n{out}"
    );
}

#[test]
fn export_psql_writes_a_two_terminal_script_that_marks_the_wait() {
    let (ok, out, err) = lousa(&["export", "held-transaction", "--format", "psql"]);
    assert!(ok, "{err}");
    assert!(out.contains("CREATE TABLE cobranca ("), "{out}");
    assert!(
        out.contains("terminal A") && out.contains("terminal B"),
        "{out}"
    );
    assert!(out.contains("WAITS"), "{out}");
    let (ok, _, err) = lousa(&["export", "race-2", "--format", "csv"]);
    assert!(!ok);
    assert!(err.contains("--format"), "{err}");
}

/// timeout-retry as the CLI prints it, edited at the JSON pointer `at`
/// (`None` removes the field), in a file of its own.
fn edited_file(tag: &str, at: &str, value: Option<serde_json::Value>) -> std::path::PathBuf {
    let (ok, out, err) = lousa(&["scenarios", "timeout-retry", "--format", "json"]);
    assert!(ok, "{err}");
    let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (parent, key) = at.rsplit_once('/').unwrap();
    let parent = v.pointer_mut(parent).unwrap().as_object_mut().unwrap();
    match value {
        Some(value) => parent.insert(key.into(), value),
        None => parent.remove(key),
    };
    let dir = std::env::temp_dir().join(format!("lousa-cli-strict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.json"));
    std::fs::write(&file, v.to_string()).unwrap();
    file
}

#[test]
fn scenario_json_is_strict_and_refusals_name_the_field_path() {
    use serde_json::json;
    let cases = [
        (
            "top-unknown",
            "/retry_max",
            Some(json!(3)),
            r#"scenario: unknown field "retry_max" (expected one of: name, title,"#,
        ),
        (
            "deep-unknown",
            "/clients/0/retry_max",
            Some(json!(3)),
            r#"clients[0]: unknown field "retry_max" (expected one of: name, kind, intents,"#,
        ),
        (
            "deep-type",
            "/clients/0/intents/0/amount_cents",
            Some(json!("250")),
            r#"clients[0].intents[0].amount_cents: expected an integer, got a string "250""#,
        ),
        (
            "negative",
            "/clients/0/timeout_ms",
            Some(json!(-1)),
            "clients[0].timeout_ms: expected a whole number of milliseconds, got -1",
        ),
        (
            "list",
            "/clients",
            Some(json!("app")),
            r#"clients: expected a list, got a string "app""#,
        ),
        (
            "missing",
            "/clients/0/timeout_ms",
            None,
            "clients[0].timeout_ms: missing field (required)",
        ),
        // A key is one line of printable text: it travels in a header.
        (
            "control",
            "/clients/0/intents/0/key",
            Some(json!("O'Brien\nx")),
            "clients[0].intents[0].key: holds the control character U+000A: write it without one",
        ),
        (
            "prose",
            "/description/pt",
            Some(json!("x".repeat(2_001))),
            "description.pt: 2001 characters exceed the limit 2000",
        ),
    ];
    for (tag, at, value, expected) in cases {
        let file = edited_file(tag, at, value);
        let path = file.to_str().unwrap();
        let (ok, out, err) = lousa(&["run", path]);
        assert!(!ok, "{tag}: should be refused, printed:\n{out}");
        assert!(out.is_empty(), "{tag}: {out}");
        assert!(
            err.starts_with(&format!("error: {path}: {expected}")),
            "{tag}: {err}"
        );
    }
}

#[test]
fn a_printed_builtin_runs_back_unchanged() {
    for name in ["timeout-retry", "crash-after-commit", "race-3"] {
        let (ok, printed, err) = lousa(&["scenarios", name, "--format", "json"]);
        assert!(ok, "{err}");
        let dir = std::env::temp_dir().join(format!("lousa-cli-print-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, &printed).unwrap();
        let path = file.to_str().unwrap();
        let run = |scenario: &str| lousa(&["run", scenario, "--format", "json"]);
        let (ok, from_file, err) = run(path);
        assert!(ok, "{name}: {err}");
        assert_eq!(
            from_file,
            run(name).1,
            "{name}: the printed JSON runs differently"
        );
        let (ok, reprinted, err) = lousa(&["scenarios", path, "--format", "json"]);
        assert!(ok, "{err}");
        assert_eq!(
            reprinted, printed,
            "{name}: print(parse(print(x))) != print(x)"
        );
    }
}

/// A sweep of a scenario from a file, whose name is no built-in, has no
/// link to its hottest cell: it names the cell's values and seed instead of
/// printing a command that cannot run. Both axes on one field are refused.
#[test]
fn a_sweep_of_a_file_names_its_hottest_cell() {
    let (ok, printed, err) = lousa(&["scenarios", "timeout-retry", "--format", "json"]);
    assert!(ok, "{err}");
    let mut scenario: serde_json::Value = serde_json::from_str(&printed).unwrap();
    scenario["name"] = "my-timeout".into();
    let dir = std::env::temp_dir().join(format!("lousa-cli-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("my-timeout.json");
    std::fs::write(&file, scenario.to_string()).unwrap();
    let path = file.to_str().unwrap();
    let sweep = |y: &str| {
        lousa(&[
            "sweep",
            path,
            "--x",
            "clients.0.timeout_ms=500,4000",
            "--y",
            y,
            "--strategies",
            "check-then-act",
            "--seeds",
            "2",
        ])
    };
    let (ok, out, err) = sweep("acquirer.latency_ms=3000");
    assert!(ok, "{err}");
    assert!(!out.contains("lousa run ''"), "{out}");
    assert!(
        out.contains("the hottest cell: clients.0.timeout_ms=500, acquirer.latency_ms=3000, seed "),
        "{out}"
    );
    let (ok, _, err) = sweep("clients.0.timeout_ms=1000");
    assert!(!ok);
    assert!(err.contains("are the same field"), "{err}");
}

/// The lesson's table names the fields an edit sets, even when the edit
/// puts back the built-in's own value and the link alone would not show it.
#[test]
fn the_lesson_names_each_edit_that_solves_a_challenge() {
    let (ok, out, err) = lousa(&["lesson"]);
    assert!(ok, "{err}");
    let row = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no {id} in:\n{out}"))
            .to_string()
    };
    assert!(
        row("conciliacao").contains("recovery_every_ms=2000 → unknown-reconciled"),
        "{out}"
    );
    assert!(
        row("o-timeout-que-dispara").contains("clients.0.timeout_ms=1500 → timeout-retry;"),
        "{out}"
    );
    // The columns line up: every row's picks start where the header's do.
    let at = |l: &str| l.chars().count() - l.rsplit(' ').next().unwrap().chars().count();
    let header = out.lines().next().unwrap();
    assert!(out.lines().all(|l| at(l) == at(header)), "{out}");
}

/// The words of a command line as a POSIX shell splits them, for the
/// single quotes `reproduce` uses.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            _ => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// A history names the command that writes it again, byte for byte: for a
/// built-in, an edited one (its link), a design run and a scenario file.
#[test]
fn a_history_says_the_command_that_writes_it_again() {
    let dir = std::env::temp_dir().join(format!("lousa-reproduce-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, own, err) = lousa(&["scenarios", "timeout-retry", "--format", "json"]);
    assert!(ok, "{err}");
    let mut own: serde_json::Value = serde_json::from_str(&own).unwrap();
    own["name"] = "minha corrida".into();
    own["acquirer"]["latency_ms"] = 2500.into();
    std::fs::write(dir.join("minha corrida.json"), own.to_string()).unwrap();
    let in_dir = |args: &[String]| {
        Command::new(env!("CARGO_BIN_EXE_lousa"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("the binary runs")
    };
    for args in [
        vec!["timeout-retry"],
        vec!["race-2", "--strategy", "idempotency-key", "--seed", "3"],
        vec!["timeout-retry", "--design", "idempotency-key-catch"],
        vec![
            "race-3",
            "--strategy",
            "check-then-act",
            "--schedule",
            "1-0-1",
        ],
        vec!["minha corrida.json", "--strategy", "idempotency-key"],
    ] {
        let mut first: Vec<String> = vec!["export".into()];
        first.extend(args.iter().map(|a| a.to_string()));
        first.extend(["--format".into(), "history".into()]);
        let out = in_dir(&first);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let history: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let line = history["reproduce"].as_str().expect("a reproduce line");
        let words = shell_words(line);
        assert_eq!(words[0], "lousa", "{line}");
        let again = in_dir(&words[1..]);
        assert!(
            again.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&again.stdout),
            String::from_utf8_lossy(&out.stdout),
            "{line}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
