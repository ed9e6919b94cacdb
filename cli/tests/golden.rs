//! Every output of the CLI, byte for byte, against files under
//! `tests/golden/cli/`: run, explore, swarm and export, text and JSON, for
//! every built-in under every strategy, plus a few larger explores. It guards
//! refactors of the core that must not change behaviour (issue #20).
//! `UPDATE_EXPECT=1 cargo test -p lousa-cli --test golden` rewrites the files,
//! so a deliberate change shows as a diff to review.

use lousa_core::builtins::NAMES;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

const STRATEGIES: [&str; 7] = [
    "naive",
    "check-then-act",
    "idempotency-key",
    "idempotency-key-catch",
    "idempotency-key-held-tx",
    "idempotency-key-lease",
    "local-effect",
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/cli")
}

/// One invocation as a block of the golden file: the command, stdout,
/// stderr (when any) and the exit code, so a changed error or exit is caught
/// as surely as a changed report.
fn transcript(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lousa"))
        .args(args)
        .output()
        .expect("the binary runs");
    let mut t = format!("$ lousa {}\n", args.join(" "));
    t.push_str(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    if !err.is_empty() {
        writeln!(t, "--- stderr").unwrap();
        t.push_str(&err);
    }
    writeln!(t, "--- exit {}\n", out.status.code().unwrap_or(-1)).unwrap();
    t
}

/// Compares `actual` with the golden file `name`, or writes it under
/// `UPDATE_EXPECT=1`.
fn check(name: &str, actual: &str) {
    let path = golden_dir().join(name);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with UPDATE_EXPECT=1)", path.display()));
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from the CLI's output at line {}:\n  expected: {:?}\n  actual:   {:?}\n\
             (UPDATE_EXPECT=1 rewrites it if the change is meant)",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

/// Every command for one built-in under every strategy, one file per
/// strategy. race-3's full explores under the strategies with the most
/// states take minutes in a debug build, so those are bounded and checked
/// whole in `larger_explores` for the two strategies that matter most.
fn builtin_under_every_strategy(scenario: &str) {
    for strategy in STRATEGIES {
        let s = ["--strategy", strategy];
        let with = |head: &[&'static str], tail: &[&'static str]| -> Vec<&str> {
            let mut v: Vec<&str> = head.to_vec();
            v.push(scenario);
            v.extend_from_slice(&s);
            v.extend_from_slice(tail);
            v
        };
        let mut t = String::new();
        t += &transcript(&with(&["run"], &[]));
        t += &transcript(&with(&["run"], &["--lang", "pt"]));
        t += &transcript(&with(&["run"], &["--format", "json"]));
        t += &transcript(&with(&["swarm"], &["--seeds", "40"]));
        t += &transcript(&with(&["swarm"], &["--seeds", "40", "--format", "json"]));
        t += &transcript(&with(&["export"], &[]));
        // exponential-backoff's jitter gives each retry 201 ways to go, and
        // pool-exhausted has fifteen attempts on one instance.
        let bound: &[&str] = if matches!(
            scenario,
            "race-3" | "exponential-backoff" | "pool-exhausted"
        ) {
            &["--max-states", "3000"]
        } else {
            &[]
        };
        let mut explore = with(&["explore"], bound);
        t += &transcript(&explore);
        explore.extend_from_slice(&["--format", "json"]);
        t += &transcript(&explore);
        check(&format!("{scenario}/{strategy}.txt"), &t);
    }
}

#[test]
fn the_builtin_list() {
    check("scenarios.txt", &transcript(&["scenarios"]));
}

/// Scenario links: printed, read back wherever a scenario is named, and
/// refused at the edit that is wrong.
#[test]
fn scenario_links() {
    let mut t = String::new();
    t += &transcript(&["scenarios", "--format", "link"]);
    t += &transcript(&[
        "scenarios",
        "timeout-retry;clients.0.timeout_ms=1500;instances=3",
        "--format",
        "link",
    ]);
    t += &transcript(&["run", "timeout-retry;clients.0.timeout_ms=5000"]);
    t += &transcript(&["run", "timeout-retry;instances=2;clients.0.timeout_ms=-1"]);
    t += &transcript(&["run", "timeout-retry;clients.3.name=\"x\""]);
    t += &transcript(&[
        "explore",
        "race-2;instances=3",
        "--strategy",
        "idempotency-key",
    ]);
    check("links.txt", &t);
}

/// Sweeps: a heatmap per design, a refused cell, and refusals of the axes.
#[test]
fn sweeps() {
    let mut t = String::new();
    t += &transcript(&[
        "sweep",
        "timeout-retry",
        "--x",
        "clients.0.timeout_ms=500..4000:4",
        "--y",
        "acquirer.latency_ms=500,3000",
        "--seeds",
        "2",
    ]);
    t += &transcript(&[
        "sweep",
        "race-2",
        "--x",
        "instances=1,2,9",
        "--y",
        "network.jitter_ms=0,50",
        "--strategies",
        "check-then-act",
        "--seeds",
        "4",
        "--format",
        "json",
    ]);
    t += &transcript(&[
        "sweep",
        "timeout-retry",
        "--x",
        "retry_max=1,2",
        "--y",
        "seed=1",
    ]);
    t += &transcript(&[
        "sweep",
        "timeout-retry",
        "--x",
        "instances=1..4",
        "--y",
        "seed=1",
    ]);
    t += &transcript(&[
        "sweep",
        "timeout-retry",
        "--x",
        "instances=1,2",
        "--y",
        "seed=1",
        "--seeds",
        "60000",
    ]);
    check("sweeps.txt", &t);
}

/// Exploring from a schedule prefix: the counts from there, and refusals.
#[test]
fn explore_from_a_prefix() {
    let mut t = String::new();
    for from in ["1", "0-1", "1-1-0-1"] {
        t += &transcript(&[
            "explore",
            "race-2",
            "--strategy",
            "check-then-act",
            "--from",
            from,
        ]);
    }
    t += &transcript(&[
        "explore",
        "race-2",
        "--strategy",
        "idempotency-key",
        "--from",
        "0-1",
        "--format",
        "json",
    ]);
    t += &transcript(&[
        "explore",
        "race-2",
        "--strategy",
        "check-then-act",
        "--from",
        "9",
    ]);
    t += &transcript(&[
        "explore",
        "race-2",
        "--strategy",
        "check-then-act",
        "--from",
        "x",
    ]);
    check("explore-from.txt", &t);
}

#[test]
fn every_builtin_is_covered() {
    // A new built-in needs its own test below, so that none goes unguarded.
    assert_eq!(NAMES.len(), 30);
}

#[test]
fn exponential_backoff() {
    builtin_under_every_strategy("exponential-backoff");
}

#[test]
fn balance_version_column() {
    builtin_under_every_strategy("balance-version-column");
}

#[test]
fn pool_exhausted() {
    builtin_under_every_strategy("pool-exhausted");
}

#[test]
fn timeout_retry() {
    builtin_under_every_strategy("timeout-retry");
}

#[test]
fn lost_response() {
    builtin_under_every_strategy("lost-response");
}

#[test]
fn concurrent_double_click() {
    builtin_under_every_strategy("concurrent-double-click");
}

#[test]
fn key_reuse() {
    builtin_under_every_strategy("key-reuse");
}

#[test]
fn crash_after_commit() {
    builtin_under_every_strategy("crash-after-commit");
}

#[test]
fn acquirer_timeout_after_accept() {
    builtin_under_every_strategy("acquirer-timeout-after-accept");
}

#[test]
fn late_retry_after_ttl() {
    builtin_under_every_strategy("late-retry-after-ttl");
}

#[test]
fn late_retry_provider_key() {
    builtin_under_every_strategy("late-retry-provider-key");
}

#[test]
fn crash_before_capture() {
    builtin_under_every_strategy("crash-before-capture");
}

#[test]
fn unknown_reconciled() {
    builtin_under_every_strategy("unknown-reconciled");
}

#[test]
fn decline_stored() {
    builtin_under_every_strategy("decline-stored");
}

#[test]
fn headers_replayed() {
    builtin_under_every_strategy("headers-replayed");
}

#[test]
fn held_transaction() {
    builtin_under_every_strategy("held-transaction");
}

#[test]
fn queue_redelivery() {
    builtin_under_every_strategy("queue-redelivery");
}

#[test]
fn new_key_per_retry() {
    builtin_under_every_strategy("new-key-per-retry");
}

#[test]
fn race_2() {
    builtin_under_every_strategy("race-2");
}

#[test]
fn race_3() {
    builtin_under_every_strategy("race-3");
}

#[test]
fn timeout_retry_autocommit() {
    builtin_under_every_strategy("timeout-retry-autocommit");
}

#[test]
fn double_click_autocommit() {
    builtin_under_every_strategy("double-click-autocommit");
}

#[test]
fn scoped_key() {
    builtin_under_every_strategy("scoped-key");
}

#[test]
fn unscoped_key() {
    builtin_under_every_strategy("unscoped-key");
}

#[test]
fn reformatted_retry() {
    builtin_under_every_strategy("reformatted-retry");
}

#[test]
fn timestamp_in_fingerprint() {
    builtin_under_every_strategy("timestamp-in-fingerprint");
}

#[test]
fn balance_lost_update() {
    builtin_under_every_strategy("balance-lost-update");
}

#[test]
fn balance_for_update() {
    builtin_under_every_strategy("balance-for-update");
}

#[test]
fn event_after_commit() {
    builtin_under_every_strategy("event-after-commit");
}

#[test]
fn event_outbox() {
    builtin_under_every_strategy("event-outbox");
}

/// The explorer's report in Portuguese: a pass, a counterexample, a
/// property a design does not claim, counts not made, a stop at the state
/// limit and the flows reduction's merged attempts.
#[test]
fn explore_in_portuguese() {
    let cases: &[&[&str]] = &[
        &["explore", "race-2", "--lang", "pt"],
        &[
            "explore",
            "race-2",
            "--design",
            "idempotency-key",
            "--lang",
            "pt",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "check-then-act",
            "--sometimes",
            "409-reachable",
            "--lang",
            "pt",
        ],
        &["explore", "race-3", "--reduction", "por", "--lang", "pt"],
        &["explore", "race-3", "--reduction", "flows", "--lang", "pt"],
        &["explore", "race-3", "--max-states", "100", "--lang", "pt"],
    ];
    let t: String = cases.iter().map(|args| transcript(args)).collect();
    check("explore-pt.txt", &t);
}

/// Whole explores past the small models, every search option, and the
/// README's examples.
#[test]
fn larger_explores_and_options() {
    let cases: &[&[&str]] = &[
        &["explore", "race-3", "--strategy", "idempotency-key"],
        &[
            "explore",
            "race-3",
            "--strategy",
            "idempotency-key",
            "--format",
            "json",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "idempotency-key",
            "--unordered-ties",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "idempotency-key",
            "--search",
            "bfs",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "idempotency-key",
            "--no-symmetry",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "check-then-act",
            "--reduction",
            "por",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "check-then-act",
            "--reduction",
            "flows",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "check-then-act",
            "--max-states",
            "20000",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "check-then-act",
            "--max-states",
            "20000",
            "--search",
            "bfs",
            "--format",
            "json",
        ],
        &[
            "explore",
            "race-3",
            "--strategy",
            "check-then-act",
            "--unordered-ties",
            "--max-states",
            "20000",
        ],
        &["explore", "race-4", "--max-states", "10000"],
        &[
            "explore",
            "race-4",
            "--strategy",
            "idempotency-key",
            "--max-states",
            "10000",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "check-then-act",
            "--unordered-ties",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "check-then-act",
            "--search",
            "bfs",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "check-then-act",
            "--no-symmetry",
            "--format",
            "json",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "idempotency-key",
            "--sometimes",
            "409-reachable,replay-reachable",
        ],
        &[
            "explore",
            "race-2",
            "--strategy",
            "naive",
            "--sometimes",
            "double-charge-reachable",
            "--lang",
            "pt",
        ],
        &["explore", "race-2", "--sometimes", "no-such-property"],
        &["explore", "race-2", "--max-states", "0"],
        &["explore", "race-2", "--max-states", "4000000000"],
        &["run", "race-2", "--schedule", "0-1x6"],
        &["run", "race-3", "--seed", "9", "--format", "json"],
        &["run", "timeout-retry", "--variant", "7"],
        &["run", "timeout-retry", "--variant", "7", "--format", "json"],
        &["run", "timeout-retry", "--strategy", "no-such-strategy"],
        &["run", "no-such-scenario"],
        &["swarm", "timeout-retry", "--seeds", "500"],
        &[
            "swarm",
            "lost-response",
            "--seeds",
            "200",
            "--first-seed",
            "1000",
            "--format",
            "json",
        ],
        &["swarm", "timeout-retry", "--seeds", "0"],
        &["export", "held-transaction", "--format", "psql"],
        &["export", "race-2", "--schedule", "0-1x6"],
    ];
    let t: String = cases.iter().map(|args| transcript(args)).collect();
    check("larger-and-options.txt", &t);
}

/// The export formats of issue #17 for the cases the tests of lousa-tests
/// check for real, with and without `--schedule`, and a bad `--format`.
#[test]
fn export_formats() {
    let mut t = String::new();
    for format in ["psql", "rust-test", "history", "mermaid"] {
        for (scenario, strategy, schedule) in [
            ("race-2", "check-then-act", Some("0")),
            ("race-2", "check-then-act", Some("0-1x6")),
            ("timeout-retry", "idempotency-key", None),
        ] {
            let mut args = vec!["export", scenario, "--strategy", strategy];
            if let Some(s) = schedule {
                args.extend(["--schedule", s]);
            }
            args.extend(["--format", format]);
            t += &transcript(&args);
        }
    }
    t += &transcript(&["export", "race-2", "--format", "json"]);
    t += &transcript(&[
        "export",
        "race-2",
        "--schedule",
        "0-?",
        "--format",
        "mermaid",
    ]);
    check("exports.txt", &t);
}

/// Forks: the palette at a frame, a crash injected there and run on, the
/// refusals of a fork that cannot be, and a branch made again from its
/// schedule and exported.
#[test]
fn forks() {
    let mut t = String::new();
    let base = ["run", "timeout-retry", "--strategy", "idempotency-key"];
    t += &transcript(&[&base[..], &["--palette", "6"]].concat());
    t += &transcript(&[&base[..], &["--palette", "6", "--lang", "pt"]].concat());
    t += &transcript(&[&base[..], &["--fork", "6:crash-1+3000"]].concat());
    t += &transcript(&[&base[..], &["--fork", "6:lose-response-1"]].concat());
    t += &transcript(&[&base[..], &["--fork", "6:melt-1"]].concat());
    t += &transcript(&[&base[..], &["--palette", "999"]].concat());
    // The branch's own schedule with the fork makes the branch again; a
    // schedule that does not fit it is refused, not clamped.
    t += &transcript(&[&base[..], &["--schedule", "0", "--fork", "6:crash-1+3000"]].concat());
    t += &transcript(
        &[
            &base[..],
            &["--schedule", "0-5", "--fork", "6:crash-1+3000"],
        ]
        .concat(),
    );
    // A branch's export names the fault where it makes the run again.
    t += &transcript(&[
        "export",
        "timeout-retry",
        "--strategy",
        "idempotency-key",
        "--fork",
        "6:crash-1+3000",
        "--format",
        "history",
    ]);
    check("forks.txt", &t);
}

/// Predict, then reveal: the questions of the timeout story under two
/// designs, and a run whose repeat waits.
#[test]
fn prompts() {
    let mut t = String::new();
    t += &transcript(&["run", "timeout-retry", "--prompts"]);
    t += &transcript(&[
        "run",
        "timeout-retry",
        "--strategy",
        "idempotency-key",
        "--prompts",
        "--lang",
        "pt",
    ]);
    t += &transcript(&["run", "held-transaction", "--prompts"]);
    check("prompts.txt", &t);
}
