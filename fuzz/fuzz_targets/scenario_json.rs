//! Any bytes as scenario JSON, through `Scenario::from_json`, the one strict
//! parser the CLI uses: a refusal names a field path (`scenario` for the
//! whole), or the scenario runs to a named end. A panic or a hang is a finding.
#![no_main]

mod field_path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match lousa_core::Scenario::from_json(text) {
        Ok(s) => {
            let r = lousa_core::run(&s).expect("validated scenarios run");
            assert!(r.steps.len() <= lousa_core::scenario::limits::EVENTS_MAX + 1);
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(field_path::is_field_path(&e.field), "not a field path: {e}");
        }
    }
});
