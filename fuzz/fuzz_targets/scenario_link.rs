//! Any bytes as a scenario link (`timeout-retry;clients.0.timeout_ms=1500`),
//! through `link::decode`, the decoder the page's URL and the CLI share: a
//! refusal names an edit and a field path, or the scenario runs to a named
//! end and its own link reads back the same. A panic or a hang is a finding.
#![no_main]

mod field_path;

use libfuzzer_sys::fuzz_target;
use lousa_core::link;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match link::decode(text) {
        Ok(s) => {
            let r = lousa_core::run(&s).expect("decoded scenarios are valid");
            assert!(r.steps.len() <= lousa_core::scenario::limits::EVENTS_MAX + 1);
            let name = text.split(';').next().unwrap_or_default();
            let again = link::encode(name, &s).expect("the link named a built-in");
            assert_eq!(link::decode(&again).as_ref(), Ok(&s), "{again}");
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            assert!(e.edit <= text.matches(';').count(), "{e}");
            assert!(field_path::is_field_path(&e.field), "not a field path: {e}");
        }
    }
});
