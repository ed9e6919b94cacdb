//! Strict JSON: the one reader of the texts people write, scenarios and
//! designs. Unknown fields are refused by name (`deny_unknown_fields` on
//! every type read) and every refusal names the field path, in the same
//! `field: message` form as validation's.
//!
//! serde reports a type error only as text ("invalid type: integer `-1`,
//! expected u64"), so [`describe`] rewrites the few shapes serde produces into
//! plain words, and keeps serde's text for any other.

use crate::text::cut;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_path_to_error::Segment;
use std::fmt;

/// A refusal that names the field and the limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for FieldError {}

/// What a strict read is of: the root's name in a refusal about the whole
/// text (`scenario`, `design`) and how deep its lists and objects may nest.
#[derive(Clone, Copy, Debug)]
pub struct Root {
    pub name: &'static str,
    pub depth_max: usize,
}

type ScenarioError = FieldError;

/// Parses `text` as a `T` without validating it.
pub fn parse<T: DeserializeOwned>(text: &str, root: Root) -> Result<T, FieldError> {
    too_deep(text, root)?;
    let mut de = serde_json::Deserializer::from_str(text);
    let s = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = path_text(e.path());
        // serde_json refuses a number or null where a name (a unit enum)
        // belongs with a syntax error ("expected value"), though the JSON is
        // well formed: then it is a type error, told from the value itself.
        if e.inner().is_syntax()
            && let Ok(value) = serde_json::from_str::<serde_json::Value>(text)
            && let Some(refusal) = not_a_name::<T>(value, e.path(), &path)
        {
            return refusal;
        }
        // The last key of the path, as the JSON spelled it.
        let key = match e.path().iter().next_back() {
            Some(Segment::Map { key }) => Some(key.as_str()),
            _ => None,
        };
        let refusal = describe(&path, key, e.inner(), root);
        // A fault's fields are read after its `kind`, from a copy that
        // keeps no path: a refused value there (of the wrong type, or a
        // name no field takes) is told to the field that holds it.
        if path.ends_with(']')
            && let Some(held) = held_value(&refusal.message)
            && let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text)
            && let Some(field) = only_field_holding(&mut value, e.path(), &held)
        {
            return describe(&join(&path, &field), None, e.inner(), root);
        }
        refusal
    })?;
    // Text after the scenario (`{...} x`) is refused, as serde_json::from_str does.
    de.end().map_err(|e| describe("", None, &e, root))?;
    Ok(s)
}

/// Reads `text` as any JSON value, refused as [`parse`] refuses a text
/// that is no JSON or nests too deep: for a field whose value is JSON of
/// its own (the workshop's faults field). No path to track, so no
/// `serde_path_to_error` over `serde_json::Value` to link.
pub fn value(text: &str, root: Root) -> Result<serde_json::Value, FieldError> {
    too_deep(text, root)?;
    serde_json::from_str(text).map_err(|e| describe("", None, &e, root))
}

/// Refuses text that nests past `root.depth_max` levels, naming where.
/// Without this, a list of lists ten thousand deep was read as a scenario
/// given field by field ("[0]: expected a string, got a list"), and the
/// answer was about a field the reader never wrote.
fn too_deep(text: &str, root: Root) -> Result<(), ScenarioError> {
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
                if depth > root.depth_max {
                    return Err(ScenarioError {
                        field: root.name.into(),
                        message: format!(
                            "too deeply nested: more than {} levels of lists and objects at line \
                             {line} column {column}",
                            root.depth_max
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
fn not_a_name<T: DeserializeOwned>(
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
    let probe = serde_path_to_error::deserialize::<_, T>(value).err()?;
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
fn describe(path: &str, key: Option<&str>, e: &serde_json::Error, root: Root) -> ScenarioError {
    let at = |field: String, message: String| ScenarioError {
        field: if field.is_empty() {
            root.name.into()
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

/// The value a refusal quotes, as [`value_words`] writes it: what it got,
/// or the unknown name.
fn held_value(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown value \"") {
        let (name, _) = rest.split_once('"')?;
        return Some(value_words(&serde_json::Value::String(name.into())));
    }
    message
        .rsplit_once(", got ")
        .map(|(_, got)| got.to_string())
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
        "u16" => format!("a whole number{unit} up to {}", u16::MAX),
        "u8" => format!("a whole number{unit} up to {}", u8::MAX),
        "i64" => "an integer".into(),
        // What serde asks for where a name (a unit enum) belongs.
        "string or map" | "variant identifier" => "a name".into(),
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
