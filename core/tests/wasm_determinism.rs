//! Runs every built-in under every strategy on wasm32 and checks each trace's
//! hash against the file the native suite checks (tests/golden/hashes.txt):
//! the same scenario and seed give byte-identical traces on both.
//!
//! `./x test` runs it with `wasm-bindgen-test-runner` (under Node.js).
#![cfg(target_arch = "wasm32")]

use lousa_core::Strategy;
use lousa_core::builtins::{self, NAMES};
use lousa_core::world::fnv1a;
use wasm_bindgen_test::wasm_bindgen_test;

const NATIVE: &str = include_str!("../../tests/golden/hashes.txt");

#[wasm_bindgen_test]
fn wasm_traces_hash_like_native_ones() {
    let mut text = String::new();
    for name in NAMES {
        for strategy in Strategy::ALL {
            let mut s = builtins::builtin(name).unwrap();
            s.strategy = strategy;
            let json = serde_json::to_string(&lousa_core::run(&s).unwrap()).unwrap();
            text.push_str(&format!(
                "{name} {strategy} {:016x}\n",
                fnv1a(json.as_bytes())
            ));
        }
    }
    assert_eq!(text, NATIVE);
}

#[path = "shared/report_lines.rs"]
mod report_lines;

/// The page may run the explorer or the swarm in the browser, so on wasm32
/// both must report exactly what the native suite checks.
#[wasm_bindgen_test]
fn wasm_explorer_and_swarm_report_like_native_ones() {
    assert_eq!(
        report_lines::explorer_and_swarm(),
        include_str!("../../tests/golden/explore-hashes.txt")
    );
}

#[path = "shared/counted_parts.rs"]
mod counted_parts;

/// Issue #35: on wasm32 `usize` is u32, so a run length near u32::MAX
/// wrapped the schedule's running total and trapped the workshop. Every
/// counted part of a schedule, a fork and a link, fed counts at the top of
/// every width, is refused or taken here as it is natively.
#[wasm_bindgen_test]
fn wasm_counts_near_the_top_of_every_width_never_trap() {
    for count in counted_parts::counts_near_the_tops() {
        counted_parts::check(&count);
    }
}
