//! `lousa explore` and `lousa swarm` end to end: what they print replays
//! with `lousa run`, and bad input exits non-zero naming the argument and
//! its limit.

mod shared;

use shared::{lousa, stderr, stdout};
use std::process::{Command, Output};

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
}

/// The `lousa run ...` line a report printed, as arguments.
fn replay_args(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("replay: lousa "))
        .unwrap_or_else(|| panic!("no replay line in:\n{text}"));
    line.split_whitespace().map(String::from).collect()
}

#[test]
fn the_counterexample_explore_prints_replays_with_run() {
    for extra in [
        &[][..],
        &["--unordered-ties"][..],
        &["--search", "dfs", "--no-symmetry"][..],
        &["--reduction", "por"][..],
        &["--reduction", "flows"][..],
    ] {
        let mut args = vec!["explore", "race-2", "--strategy", "check-then-act"];
        args.extend_from_slice(extra);
        let out = lousa(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("shortest counterexample"), "{text}");
        assert!(
            text.contains("[ok] sometimes double-charge-reachable: reached"),
            "{text}"
        );
        let replay = replay_args(&text);
        let replay: Vec<&str> = replay.iter().map(String::as_str).collect();
        assert_eq!(
            &replay[..4],
            ["run", "race-2", "--strategy", "check-then-act"]
        );
        let run = lousa(&replay);
        assert!(run.status.success(), "{}", stderr(&run));
        assert!(
            stdout(&run).contains("double-charged intents: [0]"),
            "{}",
            stdout(&run)
        );
        assert!(stdout(&run).contains("[FAIL] at-most-one-capture-per-intent"));
    }
}

#[test]
fn explore_json_has_counts_outcomes_and_a_replayable_counterexample() {
    let out = lousa(&["explore", "race-2", "--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["states"], 466);
    assert_eq!(v["schedules"], 700_922);
    assert_eq!(v["status"], "complete");
    assert!(v["outcomes"].as_array().unwrap().len() >= 2);
    let ce = &v["counterexample"];
    assert_eq!(ce["property"], "at-most-one-capture-per-intent");
    let schedule = ce["schedule"].as_str().unwrap();
    let run = lousa(&[
        "run",
        "race-2",
        "--strategy",
        "check-then-act",
        "--schedule",
        schedule,
        "--format",
        "json",
    ]);
    let run = json(&run);
    assert_eq!(
        run["summary"]["double_charged_intents"],
        ce["summary"]["double_charged_intents"]
    );
    assert_eq!(run["summary"]["attempts"], ce["summary"]["attempts"]);
    assert_eq!(
        run["events"], ce["events"],
        "the replay is the same run, event by event"
    );

    let out = lousa(&[
        "explore",
        "race-3",
        "--strategy",
        "idempotency-key",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["counterexample"], serde_json::Value::Null);
    assert_eq!(v["states"], 2_364);
    assert_eq!(v["schedules"], 17_405_388);
    assert_eq!(v["passed"], true);
}

#[test]
fn explore_refuses_bad_input_naming_the_argument_and_limit() {
    for (args, needles) in [
        (
            vec!["explore", "race-2", "--max-states", "0"],
            vec!["--max-states", "0", "50000000"],
        ),
        (
            vec!["explore", "race-2", "--max-states", "50000001"],
            vec!["--max-states", "50000000"],
        ),
        (
            vec!["explore", "race-2", "--strategy", "hope"],
            vec!["--strategy", "hope", "idempotency-key"],
        ),
        (
            vec!["explore", "race-2", "--sometimes", "money"],
            vec!["--sometimes", "money", "409-reachable"],
        ),
        (vec!["explore", "race-9"], vec!["race-9"]),
        (
            vec!["explore", "race-2", "--reduction", "dpor"],
            vec!["--reduction", "dpor", "none, symmetry, por"],
        ),
        (
            vec!["explore", "race-2", "--reduction", "por", "--no-symmetry"],
            vec!["--reduction", "--no-symmetry", "cannot be used with"],
        ),
    ] {
        let out = lousa(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = stderr(&out);
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err:?} lacks {n:?}");
        }
    }
}

/// The reduced search: the full search's verdicts and outcomes, fewer
/// states, and no schedule counts, said in the text and the JSON.
/// `lousa explore race-3 --strategy check-then-act --reduction <r>`, then
/// `extra`.
fn race_3_run(reduction: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "explore",
        "race-3",
        "--strategy",
        "check-then-act",
        "--reduction",
        reduction,
    ];
    args.extend_from_slice(extra);
    lousa(&args)
}

/// That exploration's JSON report.
fn race_3_under(reduction: &str) -> serde_json::Value {
    let out = race_3_run(reduction, &["--format", "json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    json(&out)
}

/// Its text report.
fn race_3_text_under(reduction: &str) -> String {
    stdout(&race_3_run(reduction, &[]))
}

/// Each property's verdict in a JSON report, in order.
fn verdicts(v: &serde_json::Value) -> Vec<serde_json::Value> {
    let ps = v["properties"].as_array().unwrap();
    ps.iter().map(|p| p["verdict"].clone()).collect()
}

#[test]
fn explore_with_the_partial_order_reduction_labels_what_it_does_not_count() {
    let (por, full) = (race_3_under("por"), race_3_under("symmetry"));
    assert_eq!(por["schedules_counted"], false);
    assert_eq!(por["schedules"], 0);
    assert_eq!(full["schedules_counted"], true);
    assert!(
        por["reductions"]
            .as_array()
            .unwrap()
            .contains(&"partial-order".into())
    );
    assert!(por["states"].as_u64() < full["states"].as_u64().map(|n| n / 2));
    for key in ["terminal_states", "max_depth", "passed"] {
        assert_eq!(por[key], full[key], "{key}");
    }
    assert_eq!(verdicts(&por), verdicts(&full));
    let text = race_3_text_under("por");
    assert!(text.contains("complete schedules: not counted"), "{text}");
    assert!(text.contains("partial-order"), "{text}");
}

/// `--reduction flows` on race-3: fewer states than `por`, the same
/// verdicts and longest run as the full search, every outcome of the full
/// search up to which attempt is which, and the report says so.
#[test]
fn explore_reduction_flows_merges_attempts_and_says_so() {
    let (flows, por, full) = (
        race_3_under("flows"),
        race_3_under("por"),
        race_3_under("symmetry"),
    );
    let labels = |v: &serde_json::Value| v["reductions"].as_array().unwrap().clone();
    assert!(labels(&flows).contains(&"flow-symmetry".into()));
    assert!(!labels(&por).contains(&"flow-symmetry".into()));
    assert!(flows["states"].as_u64().unwrap() * 3 < por["states"].as_u64().unwrap());
    assert_eq!(flows["schedules_counted"], false);
    assert_eq!(flows["max_depth"], full["max_depth"]);
    assert_eq!(verdicts(&flows), verdicts(&full));
    // Each outcome as a class: captures, answers sorted, properties broken.
    let classes = |v: &serde_json::Value| -> std::collections::BTreeSet<String> {
        let os = v["outcomes"].as_array().unwrap();
        os.iter()
            .map(|o| {
                let mut answers: Vec<String> = o["answers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| a.to_string())
                    .collect();
                answers.sort();
                format!("{} {answers:?} {}", o["captures"], o["broken"])
            })
            .collect()
    };
    assert_eq!(classes(&flows), classes(&full));
    assert!(
        flows["outcomes"].as_array().unwrap().len() < full["outcomes"].as_array().unwrap().len()
    );
    let text = race_3_text_under("flows");
    assert!(text.contains("flow-symmetry"), "{text}");
    assert!(
        text.contains("a line stands for every order of its answers"),
        "{text}"
    );
}

#[test]
fn explore_fails_when_it_cannot_decide_or_a_sometimes_is_never_reached() {
    let out = lousa(&["explore", "race-3", "--max-states", "500"]);
    assert!(!out.status.success());
    assert!(
        stdout(&out).contains("status: state-limit"),
        "{}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("state-limit"), "{}", stderr(&out));

    let out = lousa(&[
        "explore",
        "race-2",
        "--strategy",
        "idempotency-key",
        "--sometimes",
        "double-charge-reachable",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("double-charge-reachable never-reached"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn every_swarm_representative_reproduces_with_run() {
    let out = lousa(&[
        "swarm",
        "timeout-retry",
        "--seeds",
        "60",
        "--strategy",
        "check-then-act",
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["runs"], 60);
    let buckets = v["buckets"].as_array().unwrap();
    assert!(buckets.len() >= 3, "{v:#}");
    assert!(
        v["double_charged"].as_u64().unwrap() > 0,
        "the family reaches the race"
    );
    for b in buckets {
        let seed = b["representative_seed"].as_u64().unwrap().to_string();
        let cmd = b["reproduce"].as_str().unwrap();
        assert!(cmd.ends_with(&format!("--variant {seed}")), "{cmd}");
        let run = lousa(&[
            "run",
            "timeout-retry",
            "--strategy",
            "check-then-act",
            "--variant",
            &seed,
            "--format",
            "json",
        ]);
        let doubled = !json(&run)["summary"]["double_charged_intents"]
            .as_array()
            .unwrap()
            .is_empty();
        assert_eq!(
            doubled,
            b["representative_double_charged"].as_bool().unwrap(),
            "seed {seed}"
        );
    }
    let again = lousa(&[
        "swarm",
        "timeout-retry",
        "--seeds",
        "60",
        "--strategy",
        "check-then-act",
        "--format",
        "json",
    ]);
    assert_eq!(
        stdout(&again),
        stdout(&out),
        "a swarm is a pure function of its seeds"
    );
}

#[test]
fn swarm_refuses_bad_seed_counts() {
    for (seeds, needle) in [("0", "1..=100000"), ("100001", "1..=100000")] {
        let out = lousa(&["swarm", "timeout-retry", "--seeds", seeds]);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(err.contains("--seeds") && err.contains(needle), "{err}");
    }
    let out = lousa(&[
        "swarm",
        "timeout-retry",
        "--seeds",
        "2",
        "--first-seed",
        &u64::MAX.to_string(),
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--first-seed"), "{}", stderr(&out));
}

/// `lousa explore ... | head`: the reader closes the pipe before the report
/// is written, and the program ends with success instead of a panic.
#[test]
fn a_reader_that_stops_early_is_not_an_error() {
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lousa"))
        .args(["explore", "race-2", "--strategy", "check-then-act"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lousa binary runs");
    // Closed at once: the explorer takes far longer than this to report.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("lousa ends");
    let err = stderr(&out);
    assert!(out.status.success(), "exit {:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}
