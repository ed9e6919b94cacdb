//! `lousa swarm ... --faults` end to end: the report's shape, its
//! determinism, and bad arguments refused naming the flag and the limit.

mod shared;

use shared::{lousa, stderr, stdout};
use std::process::Output;

fn refused(args: &[&str], needles: &[&str]) {
    let out = lousa(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = stderr(&out);
    for n in needles {
        assert!(err.contains(n), "{args:?}: {n:?} not in {err}");
    }
}

#[test]
fn bad_fault_swarm_arguments_name_the_flag_and_the_limit() {
    refused(
        &["swarm", "all", "--faults", "--seeds", "0"],
        &["--seeds: 0 is outside 1..=1000000"],
    );
    refused(
        &["swarm", "timeout-retry", "--faults", "--seeds", "1000001"],
        &["--seeds: 1000001 is outside 1..=1000000"],
    );
    let max = u64::MAX.to_string();
    refused(
        &[
            "swarm",
            "all",
            "--faults",
            "--seeds",
            "2",
            "--first-seed",
            &max,
        ],
        &[
            "--first-seed:",
            "run past the largest seed, 18446744073709551615",
        ],
    );
    refused(
        &["swarm", "all", "--faults", "--strategy", "nope"],
        &["--strategy: unknown strategy \"nope\""],
    );
    refused(
        &["swarm", "nope", "--faults"],
        &["unknown built-in \"nope\""],
    );
    // Without --faults the classic swarm still needs its seed count.
    refused(
        &["swarm", "timeout-retry"],
        &["--seeds: required without --faults"],
    );
}

#[test]
fn a_small_fault_swarm_reports_runs_properties_and_no_violation() {
    let args = [
        "swarm",
        "crash-before-capture",
        "--faults",
        "--seeds",
        "5",
        "--first-seed",
        "3",
        "--format",
        "json",
    ];
    let out = lousa(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["first_seed"], 3);
    assert_eq!(v["runs"], 5 * 7, "every design, every seed");
    assert_eq!(v["runs_planned"], v["runs"]);
    assert_eq!(v["stopped"], false);
    assert_eq!(v["violations_total"], 0);
    assert_eq!(v["violations"].as_array().unwrap().len(), 0);
    let properties = v["properties"].as_array().unwrap();
    assert_eq!(properties.len(), 14, "every always property");
    assert!(properties.iter().any(|p| p["checked"].as_u64() > Some(0)));
    // Seeded: the same arguments, the same report (but its time).
    let strip = |o: &Output| {
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["seconds"] = 0.into();
        v
    };
    assert_eq!(strip(&lousa(&args)), strip(&out));

    let text = lousa(&[
        "swarm",
        "all",
        "--faults",
        "--seeds",
        "1",
        "--strategy",
        "idempotency-key-lease",
    ]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = stdout(&text);
    assert!(text.starts_with("fault swarm: "), "{text}");
    assert!(text.contains("seeds 0..=0"), "{text}");
    assert!(
        text.contains("violations of claimed properties: 0 in 0 runs, 0 distinct"),
        "{text}"
    );
    assert!(text.contains("at-most-one-capture-per-intent"), "{text}");
}
