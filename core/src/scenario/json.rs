//! Strict scenario JSON: the one parser the CLI (and later the page's editor
//! and URL decoder) reads scenarios with. Unknown fields are refused by name
//! (`deny_unknown_fields` on every scenario type) and every refusal names the
//! field path, in the same `field: message` form as validation's.
//!
//! serde reports a type error only as text ("invalid type: integer `-1`,
//! expected u64"), so [`describe`] rewrites the few shapes serde produces into
//! plain words, and keeps serde's text for any other.

use super::limits::JSON_DEPTH_MAX;
use super::{Scenario, ScenarioError};
use crate::text::cut;
use serde_path_to_error::Segment;

/// Parses scenario JSON without validating it.
pub(super) fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    too_deep(text)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let s = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = path_text(e.path());
        // serde_json refuses a number or null where a name (a unit enum)
        // belongs with a syntax error ("expected value"), though the JSON is
        // well formed: then it is a type error, told from the value itself.
        if e.inner().is_syntax()
            && let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
            && let Some(refusal) = not_a_name(value, e.path(), &path)
        {
            return refusal;
        }
        // The last key of the path, as the JSON spelled it.
        let key = match e.path().iter().next_back() {
            Some(Segment::Map { key }) => Some(key.as_str()),
            _ => None,
        };
        let refusal = describe(&path, key, e.inner());
        if path.ends_with(']')
            && let Some((_, got)) = refusal.message.rsplit_once(", got ")
            && let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text)
            && let Some(field) = only_field_holding(&mut value, e.path(), got)
        {
            return describe(&join(&path, &field), None, e.inner());
        }
        refusal
    })?;
    // Text after the scenario (`{...} x`) is refused, as serde_json::from_str does.
    de.end().map_err(|e| describe("", None, &e))?;
    Ok(s)
}

/// Refuses text that nests past [`JSON_DEPTH_MAX`] levels, naming where.
/// Without this, a list of lists ten thousand deep was read as a scenario
/// given field by field ("[0]: expected a string, got a list"), and the
/// answer was about a field the reader never wrote.
fn too_deep(text: &str) -> Result<(), ScenarioError> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut line, mut column) = (1usize, 0usize);
    for c in text.chars() {
        column += 1;
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth > JSON_DEPTH_MAX {
                    return Err(ScenarioError {
                        field: "scenario".into(),
                        message: format!(
                            "too deeply nested: more than {JSON_DEPTH_MAX} levels of lists and \
                             objects at line {line} column {column}"
                        ),
                    });
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            '\n' => (line, column) = (line + 1, 0),
            _ => {}
        }
    }
    Ok(())
}

/// `clients[0].timeout_ms`, the form validation names fields in; empty at the root.
fn path_text(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if is_name(key) && !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&key_text(key));
            }
            // Only syntax errors end in an unknown segment: the path so far
            // is where they happened.
            Segment::Unknown => {}
        }
    }
    out
}

/// The value at `segments` of `value`, if any.
fn at_path<'v>(
    value: &'v mut serde_json::Value,
    segments: &serde_path_to_error::Path,
) -> Option<&'v mut serde_json::Value> {
    segments.iter().try_fold(value, |v, segment| match segment {
        Segment::Seq { index } => v.get_mut(*index),
        Segment::Map { key } => v.get_mut(key),
        _ => None,
    })
}

/// A fault is internally tagged, so serde reads it from a buffer and the
/// path stops at the list element: the field is the one member of that
/// object whose value is the one refused, if only one is.
fn only_field_holding(
    value: &mut serde_json::Value,
    segments: &serde_path_to_error::Path,
    got: &str,
) -> Option<String> {
    let object = at_path(value, segments)?.as_object()?;
    let mut holding = object
        .iter()
        .filter(|(k, v)| *k != "kind" && value_words(v) == got);
    let (field, _) = holding.next()?;
    holding.next().is_none().then(|| field.clone())
}

/// The refusal for a non-string where a name belongs: parsing again with a
/// string there makes serde list the names it accepts.
fn not_a_name(
    mut value: serde_json::Value,
    segments: &serde_path_to_error::Path,
    path: &str,
) -> Option<ScenarioError> {
    let slot = at_path(&mut value, segments)?;
    if slot.is_string() {
        return None;
    }
    let got = value_words(slot);
    *slot = serde_json::Value::String(String::new());
    let probe = serde_path_to_error::deserialize::<_, Scenario>(value).err()?;
    let text = probe.inner().to_string();
    let names = text.strip_prefix("unknown variant ``, ")?;
    Some(ScenarioError {
        field: path.into(),
        message: format!("expected a name ({}), got {got}", one_of(names)),
    })
}

/// A JSON value described as [`got_words`] describes serde's view of one.
fn value_words(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => got_words(&format!("string {s:?}")),
        serde_json::Value::Array(_) => "a list".into(),
        serde_json::Value::Object(_) => "an object".into(),
        scalar => scalar.to_string(),
    }
}

/// Whether a key reads as a plain name in a path.
fn is_name(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A key as a path writes it: a plain name as it is; any other key (the
/// reader's own, under an unknown field) quoted, as `["fau as"]`, so the
/// path still reads as one.
fn key_text(key: &str) -> String {
    if is_name(key) {
        key.to_string()
    } else {
        format!("[{}]", serde_json::Value::from(key))
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// One serde_json error at `path` as a refusal that names the field.
fn describe(path: &str, key: Option<&str>, e: &serde_json::Error) -> ScenarioError {
    let at = |field: String, message: String| ScenarioError {
        field: if field.is_empty() {
            "scenario".into()
        } else {
            field
        },
        message,
    };
    let full = e.to_string();
    // serde_json appends " at line L column C"; the path locates a data
    // error exactly, so the position is kept only for syntax errors.
    let text = match full.rfind(" at line ") {
        Some(i) if e.line() > 0 => &full[..i],
        _ => &full[..],
    };
    if !e.is_data() {
        return at(
            path.into(),
            format!(
                "invalid JSON: {text} at line {} column {}",
                e.line(),
                e.column()
            ),
        );
    }
    let last = path.rsplit(['.', '[']).next().unwrap_or("");
    if let Some(rest) = text
        .strip_prefix("invalid type: ")
        .or_else(|| text.strip_prefix("invalid value: "))
        && let Some((got, expected)) = rest.split_once(", expected ")
    {
        return at(
            path.into(),
            format!(
                "expected {}, got {}",
                expected_words(expected, last),
                got_words(got)
            ),
        );
    }
    if let Some(rest) = text.strip_prefix("unknown field ") {
        // The key is the reader's text and may hold anything, ", " and
        // backticks included: it is read from the path's last segment, not
        // by splitting serde's message.
        let name = key.unwrap_or_else(|| unquote(rest.split_once(", ").map_or(rest, |(n, _)| n)));
        let expected = rest
            .strip_prefix('`')
            .and_then(|r| r.strip_prefix(name))
            .and_then(|r| r.strip_prefix("`, "))
            .unwrap_or("");
        // The path ends with the unknown key itself; the refusal belongs to
        // the object that does not have it.
        let owner = path
            .strip_suffix(key_text(name).as_str())
            .map(|p| p.strip_suffix('.').unwrap_or(p))
            .unwrap_or(path);
        return at(
            owner.into(),
            format!("unknown field \"{name}\" ({})", one_of(expected)),
        );
    }
    if let Some(rest) = text.strip_prefix("unknown variant ") {
        let (name, expected) = rest.split_once(", ").unwrap_or((rest, ""));
        // Only `Fault` is an element of a list rather than a field: there the
        // unknown variant is its tag, `kind`.
        let field = if path.ends_with(']') {
            join(path, "kind")
        } else {
            path.into()
        };
        return at(
            field,
            format!("unknown value \"{}\" ({})", unquote(name), one_of(expected)),
        );
    }
    if let Some(rest) = text.strip_prefix("invalid length ")
        && rest.contains("expected struct ")
    {
        return at(path.into(), "expected an object, got a list".into());
    }
    if let Some(name) = text.strip_prefix("missing field ") {
        return at(join(path, unquote(name)), "missing field (required)".into());
    }
    if let Some(name) = text.strip_prefix("duplicate field ") {
        return at(join(path, unquote(name)), "duplicate field".into());
    }
    at(path.into(), text.into())
}

/// `` `retry_max` `` as `retry_max`.
fn unquote(s: &str) -> &str {
    s.trim().trim_matches('`')
}

/// serde's "expected one of `a`, `b`" (or "`a` or `b`") as "expected one
/// of: a, b": the names are what serde quotes in backticks.
fn one_of(expected: &str) -> String {
    if !expected.contains('`') {
        return expected.into();
    }
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    format!("expected one of: {}", names.join(", "))
}

/// serde's name of what a visitor expects, in plain words; `field` is the
/// last segment of the path, so that `_ms` fields say their unit.
fn expected_words(expected: &str, field: &str) -> String {
    let unit = if field.ends_with("_ms") {
        " of milliseconds"
    } else {
        ""
    };
    match expected {
        "u64" => format!("a whole number{unit}"),
        "u32" => format!("a whole number{unit} up to {}", u32::MAX),
        "i64" => "an integer".into(),
        "a boolean" => "true or false".into(),
        "a sequence" => "a list".into(),
        "internally tagged enum Fault" => "an object with a \"kind\"".into(),
        s if s.starts_with("struct ") => "an object".into(),
        s => s.into(),
    }
}

/// serde_json's description of the value it found, in plain words: the
/// value itself for scalars, the kind for lists and objects.
fn got_words(got: &str) -> String {
    let value = |s: &str| s.trim_matches('`').to_string();
    if let Some(n) = got
        .strip_prefix("integer ")
        .or_else(|| got.strip_prefix("floating point "))
        .or_else(|| got.strip_prefix("boolean "))
    {
        return value(n);
    }
    if let Some(s) = got.strip_prefix("string ") {
        return format!("a string {}", cut(s, 40));
    }
    match got {
        "sequence" => "a list".into(),
        "map" => "an object".into(),
        other => other.into(),
    }
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
