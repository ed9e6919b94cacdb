//! The browser tests open the links lousa-core names at each documented
//! limit (`at_limits`); they read them from a fixture this test keeps equal
//! to the core's (`UPDATE_EXPECT=1` rewrites it).

use lousa_core::at_limits;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/e2e/fixtures/limit-links.json"
);

#[test]
fn the_browser_tests_open_the_limit_links_the_core_names() {
    let links: serde_json::Map<String, serde_json::Value> = at_limits::links()
        .into_iter()
        .map(|(name, link)| (name.to_string(), link.into()))
        .collect();
    let want = serde_json::to_string_pretty(&links).expect("JSON") + "\n";
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(FIXTURE, &want).expect("writes the fixture");
    }
    let have = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        have == want,
        "{FIXTURE} differs from lousa_core::at_limits::links(): rerun with UPDATE_EXPECT=1"
    );
}
