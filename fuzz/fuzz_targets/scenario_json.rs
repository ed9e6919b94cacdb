//! Any bytes as scenario JSON, through `Scenario::from_json`, the one strict
//! parser the CLI uses: a refusal names a field path (`scenario` for the
//! whole), or the scenario runs to a named end. A panic or a hang is a finding.
#![no_main]

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
            assert!(!e.field.is_empty() && !e.message.is_empty());
            // A path: names, [indexes], and ["quoted keys"] for keys that
            // are not plain names; no space outside the quotes.
            let outside_quotes: String = e
                .field
                .split('"')
                .step_by(2)
                .collect();
            assert!(!outside_quotes.contains(' '), "not a field path: {e}");
        }
    }
});
