//! Every counted part of what a link or the CLI hands the core (a schedule's
//! run lengths, a fork's frame, number and milliseconds, a scenario link's
//! list indexes and values), given one count: each must be taken or refused
//! in words, never panic, and never expand into more than its limit.
//!
//! Shared by the native proptest (`tests/tests/robustness.rs`), which draws
//! counts near `u32::MAX` and `u64::MAX`, and by the wasm32 test
//! (`core/tests/wasm_determinism.rs`), where `usize` is 32 bits wide and a
//! sum near `u32::MAX` wraps.

use lousa_core::builtins;
use lousa_core::choice::{SCHEDULE_LEN_MAX, Schedule};
use lousa_core::fork::Fork;
use lousa_core::link;
use lousa_core::run::{run_forked, run_schedule_exact};

/// Counts worth trying on every width: the top of u32, usize and u64 and a
/// few below each, and one past u64 (as text).
pub fn counts_near_the_tops() -> Vec<String> {
    let mut counts = Vec::new();
    for top in [u64::from(u32::MAX), usize::MAX as u64, u64::MAX] {
        for below in 0..=2 {
            counts.push((top - below).to_string());
        }
    }
    counts.push("184467440737095516150".to_string());
    counts
}

/// Feeds `count` to every counted part; panics (failing the caller's test)
/// only on an answer that is wrong, not on a refusal.
pub fn check(count: &str) {
    let race = builtins::builtin("race-2").expect("race-2 is a built-in");
    for text in [
        format!("0x{count}"),
        format!("0-0x{count}"),
        format!("0-1x{}-0x{count}", SCHEDULE_LEN_MAX - 1),
    ] {
        match text.parse::<Schedule>() {
            // Parsed: it fits the limit, and running it is refused or runs.
            Ok(schedule) => {
                assert!(schedule.0.len() <= SCHEDULE_LEN_MAX, "{text}");
                let _ = run_schedule_exact(&race, &schedule);
            }
            Err(e) => assert!(
                e.to_string().starts_with("schedule: at character"),
                "{text}: {e}"
            ),
        }
    }
    for text in [
        format!("{count}:crash-1"),
        format!("3:crash-{count}"),
        format!("3:crash-1+{count}"),
        format!("3:lose-request-{count}"),
        format!("3:lose-response-{count}"),
        format!("3:silence-acquirer-{count}"),
        format!("3:delay-{count}+500"),
        format!("3:delay-1+{count}"),
    ] {
        match text.parse::<Fork>() {
            Ok(fork) => {
                if let Err(e) = run_forked(&race, &Schedule::default(), fork.frame, fork.injection)
                {
                    assert!(!e.to_string().is_empty(), "{text}");
                }
            }
            Err(e) => assert!(!e.to_string().is_empty(), "{text}"),
        }
    }
    for text in [
        format!("race-2;clients.{count}.timeout_ms=1"),
        format!("race-2;clients.0.timeout_ms={count}"),
        format!("race-2;clients.0.retries_max={count}"),
        format!("race-2;seed={count}"),
        format!("race-2;horizon_ms={count}"),
    ] {
        if let Err(e) = link::decode(&text) {
            assert!(!e.to_string().is_empty(), "{text}");
        }
    }
}
