//! Scenario JSON, read by the strict reader (`crate::json`): the one parser
//! the CLI, the page's editor and its URL decoder read scenarios with.

use super::limits::JSON_DEPTH_MAX;
use super::{Scenario, ScenarioError};

/// Parses scenario JSON without validating it.
pub(super) fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    crate::json::parse(
        text,
        crate::json::Root {
            name: "scenario",
            depth_max: JSON_DEPTH_MAX,
        },
    )
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use serde_json::{Value, json};

    /// A small valid scenario (the module order keeps `builtins` out of reach).
    fn base() -> String {
        json!({
            "name": "t", "title": {"pt": "", "en": ""}, "strategy": "check-then-act",
            "instances": 2, "network": {"latency_ms": 0, "jitter_ms": 0},
            "acquirer": {"latency_ms": 3000, "timeout_ms": 10000},
            "clients": [{"name": "app", "timeout_ms": 2000, "retries_max": 1,
                "intents": [{"order_id": 1, "amount_cents": 100, "key": "k"}]}],
            "faults": []
        })
        .to_string()
    }

    /// [`base`] with `value` set at the JSON pointer `at`.
    fn edited(at: &str, value: Value) -> String {
        let base = base();
        let mut v: Value = serde_json::from_str(&base).unwrap();
        let (parent, key) = at.rsplit_once('/').unwrap();
        v.pointer_mut(parent).unwrap()[key] = value;
        v.to_string()
    }

    fn refusal(text: &str) -> String {
        Scenario::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn type_errors_name_the_path_the_expected_type_and_the_value() {
        let cases = [
            (
                "/clients/0/timeout_ms",
                json!(-1),
                "clients[0].timeout_ms: expected a whole number of milliseconds, got -1",
            ),
            (
                "/clients",
                json!("x"),
                r#"clients: expected a list, got a string "x""#,
            ),
            (
                "/clients/0/intents/0/amount_cents",
                json!("100"),
                r#"clients[0].intents[0].amount_cents: expected an integer, got a string "100""#,
            ),
            (
                "/network/jitter_ms",
                json!(5_000_000_000u64),
                "network.jitter_ms: expected a whole number of milliseconds up to 4294967295, got 5000000000",
            ),
            (
                "/network/latency_ms",
                json!(1.5),
                "network.latency_ms: expected a whole number of milliseconds, got 1.5",
            ),
            (
                "/clients/0/new_key_per_retry",
                json!("yes"),
                r#"clients[0].new_key_per_retry: expected true or false, got a string "yes""#,
            ),
            ("/title/pt", json!(3), "title.pt: expected a string, got 3"),
            (
                "/network",
                json!("x"),
                r#"network: expected an object, got a string "x""#,
            ),
            (
                "/faults",
                json!([{"kind": "drop-response", "attempt": -1}]),
                "faults[0].attempt: expected a whole number up to 4294967295, got -1",
            ),
            (
                "/faults",
                json!([{"kind": "crash", "instance": 0, "at_ms": "5", "restart_after_ms": 1}]),
                r#"faults[0].at_ms: expected a whole number of milliseconds, got a string "5""#,
            ),
            (
                "/faults",
                json!([3]),
                r#"faults[0]: expected an object with a "kind", got 3"#,
            ),
            (
                "/strategy",
                json!(3),
                "strategy: expected a name (expected one of: naive, check-then-act, idempotency-key, idempotency-key-catch, idempotency-key-held-tx, idempotency-key-lease, local-effect), got 3",
            ),
            (
                "/clients/0/kind",
                json!(null),
                "clients[0].kind: expected a name (expected one of: http, queue), got null",
            ),
        ];
        for (at, value, expected) in cases {
            assert_eq!(refusal(&edited(at, value)), expected, "{at}");
        }
    }

    #[test]
    fn unknown_fields_and_names_are_refused_by_name() {
        let cases = [
            (
                "/retry_max",
                json!(3),
                r#"scenario: unknown field "retry_max" (expected one of: name, title, description, strategy, isolation, seed, instances, pool_size, load_balancer, clients, network, acquirer, db_latency_ms, faults, key_ttl_ms, lease_ms, recovery_every_ms, horizon_ms, autocommit, key_scope, fingerprint, balance, event)"#,
            ),
            (
                "/clients/0/retry_max",
                json!(3),
                r#"clients[0]: unknown field "retry_max" (expected one of: name, kind, intents, start_ms, timeout_ms, retries_max, backoff_ms, new_key_per_retry, gap_between_intents_ms, client_timestamp, reformat_retries, backoff, backoff_max_ms, backoff_jitter_ms, deadline_ms)"#,
            ),
            (
                "/clients/0/intents/0/zzz",
                json!(1),
                r#"clients[0].intents[0]: unknown field "zzz" (expected one of: order_id, amount_cents, key, tenant)"#,
            ),
            (
                "/title/xx",
                json!("x"),
                r#"title: unknown field "xx" (expected one of: pt, en)"#,
            ),
            (
                "/acquirer/provider_key",
                json!(true),
                r#"acquirer: unknown field "provider_key" (expected one of: latency_ms, timeout_ms, decline, provider_keys)"#,
            ),
            (
                "/strategy",
                json!("optimistic"),
                r#"strategy: unknown value "optimistic" (expected one of: naive, check-then-act, idempotency-key, idempotency-key-catch, idempotency-key-held-tx, idempotency-key-lease, local-effect)"#,
            ),
            (
                "/faults",
                json!([{"kind": "drop-response", "attempt": 1, "extra": 2}]),
                r#"faults[0]: unknown field "extra" (expected one of: attempt)"#,
            ),
            (
                "/faults",
                json!([{"kind": "nope"}]),
                r#"faults[0].kind: unknown value "nope" (expected one of: drop-request, drop-response, crash, acquirer-timeout-after-accept, acquirer-declines)"#,
            ),
            // A name inside a fault is told to the field that holds it.
            (
                "/faults",
                json!([{"kind": "crash", "instance": 0, "at_point": "before", "restart_after_ms": 1}]),
                r#"faults[0].at_point: unknown value "before" (expected one of: after-commit, after-capture-sent)"#,
            ),
            (
                "/faults",
                json!([{"kind": "crash", "instance": 0, "at_point": 5, "restart_after_ms": 1}]),
                "faults[0].at_point: expected a name, got 5",
            ),
            (
                "/faults",
                json!([{"kind": 3}]),
                "faults[0].kind: expected a name, got 3",
            ),
            (
                "/faults",
                json!([{"attempt": 1}]),
                "faults[0].kind: missing field (required)",
            ),
            (
                "/faults",
                json!([{"kind": "drop-response"}]),
                "faults[0].attempt: missing field (required)",
            ),
        ];
        for (at, value, expected) in cases {
            assert_eq!(refusal(&edited(at, value)), expected, "{at}");
        }
    }

    #[test]
    fn a_key_that_is_not_a_name_is_quoted_in_the_path() {
        // Found by the fuzz target: a syntax error inside the value of an
        // unknown key with a space in it (inside a fault, which serde reads
        // through a buffer before it refuses the key).
        assert_eq!(
            refusal("{\"faults\": [{\"fau as\": [[\n}"),
            "faults[0][\"fau as\"][0][0]: invalid JSON: expected value at line 2 column 1"
        );
    }

    #[test]
    fn a_quote_inside_a_quoted_key_is_escaped_so_the_path_stays_one_path() {
        // From a fuzz run: the target's own check took the escaped quote for
        // the end of the key; the path itself was right, and stays so.
        assert_eq!(
            refusal("{\"faults\": [{\"a\\\"b  c\\f\": [\n"),
            "faults[0][\"a\\\"b  c\\f\"]: invalid JSON: EOF while parsing a list at line 2 column 0"
        );
    }

    #[test]
    fn an_unknown_key_is_named_whole_whatever_it_holds() {
        // Found by the fuzz target: a key holding ", " was cut there, and the
        // rest of serde's message was taken for the expected names.
        assert_eq!(
            refusal("{\"', e1p\"p"),
            "scenario: unknown field \"', e1p\" (expected one of: name, title, description, strategy, isolation, seed, instances, pool_size, load_balancer, clients, network, acquirer, db_latency_ms, faults, key_ttl_ms, lease_ms, recovery_every_ms, horizon_ms, autocommit, key_scope, fingerprint, balance, event)"
        );
        assert_eq!(
            refusal(r#"{"clients": [{"a, `b`": 1}]}"#),
            "clients[0]: unknown field \"a, `b`\" (expected one of: name, kind, intents, start_ms, timeout_ms, retries_max, backoff_ms, new_key_per_retry, gap_between_intents_ms, client_timestamp, reformat_retries, backoff, backoff_max_ms, backoff_jitter_ms, deadline_ms)"
        );
    }

    #[test]
    fn missing_duplicate_and_malformed_input_are_placed() {
        assert!(Scenario::from_json(&base()).is_ok());
        let base = Scenario::from_json(&base()).unwrap().to_json();
        let mut v: Value = serde_json::from_str(&base).unwrap();
        v["clients"][0]
            .as_object_mut()
            .unwrap()
            .remove("timeout_ms");
        assert_eq!(
            refusal(&v.to_string()),
            "clients[0].timeout_ms: missing field (required)"
        );
        assert_eq!(
            refusal(r#"{"name": "a", "name": "b"}"#),
            "name: duplicate field"
        );
        assert_eq!(refusal("3"), "scenario: expected an object, got 3");
        assert_eq!(refusal("[]"), "scenario: expected an object, got a list");
        assert_eq!(
            refusal("{"),
            "scenario: invalid JSON: EOF while parsing an object at line 1 column 1"
        );
        assert_eq!(
            refusal(&format!("{base} x")),
            "scenario: invalid JSON: trailing characters at line 60 column 3"
        );
        assert_eq!(
            refusal(r#"{"name": 1,,}"#),
            "name: expected a string, got 1"
        );
        assert_eq!(
            refusal("{\"clients\": [{\"name\": \"a\",]}"),
            "clients[0]: invalid JSON: key must be a string at line 1 column 27"
        );
    }

    /// Issue #35: an import of lists ten thousand deep was answered
    /// "[0]: expected a string, got a list".
    #[test]
    fn json_nested_past_the_limit_is_refused_for_its_depth() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let said = "scenario: too deeply nested: more than 16 levels of lists and objects";
        assert_eq!(refusal(&deep), format!("{said} at line 1 column 17"));
        let in_a_field = format!("{{\n  \"name\": {}1{}\n}}", "[".repeat(20), "]".repeat(20));
        assert_eq!(refusal(&in_a_field), format!("{said} at line 2 column 26"));
        // Brackets inside strings are text, escaped quotes included.
        let text = edited("/title/pt", json!(format!("\"{}", "[{".repeat(90))));
        assert!(Scenario::from_json(&text).is_ok(), "{text}");
    }
}
