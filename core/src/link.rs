//! A scenario as a link carries it: the built-in it started from and the
//! edits that make it, `timeout-retry;clients.0.timeout_ms=1500;instances=3`.
//! The workshop's editor puts this in the URL, so an edited scenario is a
//! link; the CLI reads it wherever it reads a scenario name.
//!
//! An edit is a dotted path into the scenario's JSON (names and list
//! indexes), `=`, and a JSON value. The decoder applies the edits to the
//! built-in's JSON and reads the result with the strict scenario parser,
//! so a link is refused for exactly what scenario JSON would be, with the
//! same field path, plus the edit that set it. [`encode`] writes the fewest
//! edits: a changed value where the two scenarios differ, a whole list where
//! its length changed; and where that would take more edits than a link may
//! carry, each top-level field that differs whole.

use crate::builtins;
use crate::scenario::{Scenario, ScenarioError};
use crate::text::cut;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// How much of what a reader typed a message shows.
const SHOWN: usize = 40;

/// Limits on a link, so a pasted URL cannot make the page work for long.
pub mod limits {
    /// Bytes of link text, after percent-decoding.
    pub const LINK_BYTES_MAX: usize = 8 * 1024;
    /// Edits in one link.
    pub const EDITS_MAX: usize = 64;
    /// Names and indexes in one edit's path.
    pub const PATH_SEGMENTS_MAX: usize = 8;
}

/// Why a link was refused: the edit (1 for the first; 0 for the built-in's
/// name or the link as a whole), the field, and what was wrong. As JSON it
/// travels from the page to the explorer's worker: a sweep's refused cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkError {
    pub edit: usize,
    /// The field, in the form scenario errors use (`clients[0].timeout_ms`);
    /// `scenario` for the whole.
    pub field: String,
    pub message: String,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.edit == 0 {
            write!(f, "{}: {}", self.field, self.message)
        } else {
            write!(f, "edit {}, {}: {}", self.edit, self.field, self.message)
        }
    }
}

impl std::error::Error for LinkError {}

/// One step of an edit's path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `clients[0].timeout_ms`: how scenario errors name a field.
fn field_text(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `clients.0.timeout_ms`: how a link writes a path.
fn link_text(path: &[Segment]) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|segment| match segment {
            Segment::Key(key) => key.clone(),
            Segment::Index(i) => i.to_string(),
        })
        .collect();
    parts.join(".")
}

/// The scenario a link describes, validated as scenario JSON is.
pub fn decode(text: &str) -> Result<Scenario, LinkError> {
    let whole = |message: String| LinkError {
        edit: 0,
        field: "scenario".into(),
        message,
    };
    if text.len() > limits::LINK_BYTES_MAX {
        return Err(whole(format!(
            "{} bytes exceed the limit {}",
            text.len(),
            limits::LINK_BYTES_MAX
        )));
    }
    let (name, mut rest) = match text.find(';') {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let Some(base) = builtins::builtin(name) else {
        return Err(whole(format!(
            "a link starts with a built-in's name, and {:?} names none",
            cut(name, SHOWN)
        )));
    };
    let mut value = serde_json::to_value(&base).expect("a scenario is JSON");
    let mut edits: Vec<Vec<Segment>> = Vec::new();
    while let Some(text) = rest {
        let number = edits.len() + 1;
        if number > limits::EDITS_MAX {
            return Err(whole(format!(
                "more than {} edits exceed the limit",
                limits::EDITS_MAX
            )));
        }
        let (path, json, after) = split_edit(text).map_err(|message| LinkError {
            edit: number,
            field: "scenario".into(),
            message,
        })?;
        let path = parse_path(path).map_err(|message| LinkError {
            edit: number,
            field: "scenario".into(),
            message,
        })?;
        let at = |message: String| LinkError {
            edit: number,
            field: field_text(&path),
            message,
        };
        if edits.contains(&path) {
            return Err(at("is set twice; a link sets each field once".into()));
        }
        let new: Value = serde_json::from_str(json)
            .map_err(|_| at(format!("{:?} is not a JSON value", cut(json, SHOWN))))?;
        set(&mut value, &path, new).map_err(|(field, message)| LinkError {
            edit: number,
            field,
            message,
        })?;
        edits.push(path);
        rest = after;
    }
    Scenario::from_json(&value.to_string()).map_err(|e| blame(&edits, e))
}

/// `scenario` with each `(path, value)` edit applied in order (a link's
/// dotted paths, numbered from 1 in refusals), read back once with the
/// strict parser: what a link's edits do, for callers that edit a scenario
/// they already hold (a sweep's cells). Only the result must be valid, not
/// each step towards it. The design the scenario runs is not one of its
/// JSON's fields: the edited scenario keeps it.
pub fn edit(scenario: &Scenario, edits: &[(&str, Value)]) -> Result<Scenario, LinkError> {
    let mut json = serde_json::to_value(scenario).expect("a scenario is JSON");
    let mut paths = Vec::with_capacity(edits.len());
    for (i, (path, value)) in edits.iter().enumerate() {
        let parsed = parse_path(path).map_err(|message| LinkError {
            edit: i + 1,
            field: "scenario".into(),
            message,
        })?;
        set(&mut json, &parsed, value.clone()).map_err(|(field, message)| LinkError {
            edit: i + 1,
            field,
            message,
        })?;
        paths.push(parsed);
    }
    #[cfg_attr(not(feature = "designs"), allow(unused_mut))]
    let mut edited = Scenario::from_json(&json.to_string()).map_err(|e| blame(&paths, e))?;
    #[cfg(feature = "designs")]
    edited.design.clone_from(&scenario.design);
    Ok(edited)
}

/// A link's path (`clients.0.timeout_ms`) as validation names the field
/// (`clients[0].timeout_ms`), if it reads as a path.
pub fn field_of(path: &str) -> Option<String> {
    parse_path(path).ok().map(|p| field_text(&p))
}

/// A refusal of the edited scenario, told with the edit that set the field
/// (the last edit at or above it, or below it), or as the built-in's own.
fn blame(edits: &[Vec<Segment>], e: ScenarioError) -> LinkError {
    // An unknown name is refused at the object that holds it.
    let unknown = e
        .message
        .strip_prefix("unknown field \"")
        .and_then(|rest| rest.split('"').next())
        .map(|name| match e.field.as_str() {
            "scenario" => name.to_string(),
            holder => format!("{holder}.{name}"),
        });
    let field = unknown.as_deref().unwrap_or(&e.field);
    let related = |path: &Vec<Segment>| {
        let f = field_text(path);
        field == f || under(field, &f) || under(&f, field)
    };
    LinkError {
        edit: edits.iter().rposition(related).map_or(0, |i| i + 1),
        field: e.field,
        message: e.message,
    }
}

/// Whether field `inner` lies inside field `outer` (`clients[0].name`
/// inside `clients`).
fn under(inner: &str, outer: &str) -> bool {
    inner.len() > outer.len()
        && inner.starts_with(outer)
        && matches!(inner.as_bytes()[outer.len()], b'.' | b'[')
}

/// Splits `path=value;rest` into the path, the value's text and what
/// follows the `;` after the value. A value may hold `;` inside a JSON
/// string, list or object.
fn split_edit(text: &str) -> Result<(&str, &str, Option<&str>), String> {
    let Some(eq) = text.find('=') else {
        return Err(format!(
            "{:?} is not an edit; an edit is path=value",
            cut(text.split(';').next().unwrap_or(text), SHOWN)
        ));
    };
    let (path, value) = (&text[..eq], &text[eq + 1..]);
    let end = value_end(value)?;
    match value[end..].strip_prefix(';') {
        Some(after) => Ok((path, &value[..end], Some(after))),
        None if end == value.len() => Ok((path, value, None)),
        None => Err(format!(
            "the value ends before {:?}; edits are separated by ';'",
            cut(&value[end..], SHOWN)
        )),
    }
}

/// Where the JSON value at the start of `text` ends: after its closing
/// quote or bracket, or at the next `;` for a number, `true` or `null`.
fn value_end(text: &str) -> Result<usize, String> {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'"' | b'[' | b'{')) {
        return Ok(text.find(';').unwrap_or(text.len()));
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            if !in_string && depth == 0 {
                return Ok(i + 1);
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Ok(i + 1);
                }
            }
            _ => {}
        }
    }
    Err("the value is not closed".into())
}

/// `clients.0.timeout_ms` into its names and indexes.
fn parse_path(text: &str) -> Result<Vec<Segment>, String> {
    let parts: Vec<&str> = text.split('.').collect();
    if parts.len() > limits::PATH_SEGMENTS_MAX {
        return Err(format!(
            "a path of {} parts exceeds the limit {}",
            parts.len(),
            limits::PATH_SEGMENTS_MAX
        ));
    }
    parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            if part.bytes().all(|b| b.is_ascii_digit()) && !part.is_empty() && i > 0 {
                part.parse()
                    .map(Segment::Index)
                    .map_err(|_| format!("index {} is too large", cut(part, SHOWN)))
            } else if is_name(part) {
                Ok(Segment::Key(part.to_string()))
            } else {
                Err(format!(
                    "{:?} is not a path; a path is field names and list indexes joined by '.'",
                    cut(text, SHOWN)
                ))
            }
        })
        .collect()
}

/// A scenario's field names are lowercase words joined by `_`.
fn is_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| matches!(b, b'a'..=b'z' | b'_'))
}

/// Sets the value at `path`, creating the last name if the object lacks it
/// (the strict parser refuses names scenarios do not have). An index one
/// past a list's end appends a copy of its last element first, so a link
/// can add a client or an intent by changing what differs from the last.
/// A refusal names the part of the path it stopped at.
fn set(root: &mut Value, path: &[Segment], new: Value) -> Result<(), (String, String)> {
    let mut here = root;
    for (i, segment) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        let at = || field_text(&path[..=i]);
        let holder = || match i {
            0 => "the scenario".to_string(),
            _ => field_text(&path[..i]),
        };
        here = match (segment, here) {
            (Segment::Key(key), Value::Object(fields)) => {
                if last {
                    fields.insert(key.clone(), new);
                    return Ok(());
                }
                match fields.get_mut(key) {
                    Some(inner) => inner,
                    None => return Err((at(), format!("{} has no field {key:?}", holder()))),
                }
            }
            (Segment::Index(index), Value::Array(items)) => {
                let len = items.len();
                if *index == len && len > 0 {
                    items.push(items[len - 1].clone());
                } else if *index >= len {
                    return Err((
                        at(),
                        format!(
                            "index {index} is past the end of a list of {len}; the next one is {len}"
                        ),
                    ));
                }
                if last {
                    items[*index] = new;
                    return Ok(());
                }
                &mut items[*index]
            }
            (Segment::Key(_), _) => return Err((at(), format!("{} is not an object", holder()))),
            (Segment::Index(_), _) => return Err((at(), format!("{} is not a list", holder()))),
        };
    }
    // An empty path cannot be parsed: `parse_path` gives at least one part.
    *here = new;
    Ok(())
}

/// The link of `scenario` as edits of the built-in `base`, or None if
/// `base` names no built-in. A scenario equal to the built-in is its name.
pub fn encode(base: &str, scenario: &Scenario) -> Option<String> {
    let from = serde_json::to_value(builtins::builtin(base)?).expect("a scenario is JSON");
    let to = serde_json::to_value(scenario).expect("a scenario is JSON");
    let mut out = base.to_string();
    let mut edits = 0;
    diff(&from, &to, &mut Vec::new(), &mut |path, value| {
        push_edit(path, value, &mut out, &mut edits)
    });
    if edits > limits::EDITS_MAX
        && let (Value::Object(a), Value::Object(b)) = (&from, &to)
    {
        // Many clients, each changed in many fields: one edit a field of
        // the scenario, so that the link stays one the decoder takes.
        out = base.to_string();
        for (key, value) in b.iter().filter(|(k, v)| a.get(*k) != Some(*v)) {
            push_edit(&[Segment::Key(key.clone())], value, &mut out, &mut edits);
        }
    }
    Some(out)
}

/// The paths (`clients.0.timeout_ms`) at which `to` differs from `from`,
/// as a link would write its edits: what an attendee changed.
pub fn changes(from: &Scenario, to: &Scenario) -> Vec<String> {
    let from = serde_json::to_value(from).expect("a scenario is JSON");
    let to = serde_json::to_value(to).expect("a scenario is JSON");
    let mut out = Vec::new();
    diff(&from, &to, &mut Vec::new(), &mut |path, _| {
        out.push(link_text(path))
    });
    out
}

/// Calls `edit` with each path at which `to` differs from `from`, and the
/// value there.
fn diff(
    from: &Value,
    to: &Value,
    path: &mut Vec<Segment>,
    edit: &mut dyn FnMut(&[Segment], &Value),
) {
    match (from, to) {
        _ if from == to => {}
        // Objects of one kind differ field by field, and a field the old one
        // leaves out at its default (a client's `backoff`) is set as any
        // other; a fault of another kind has other fields, and an object
        // that leaves out a field the old one had is written whole.
        (Value::Object(a), Value::Object(b))
            if a.get("kind") == b.get("kind") && a.keys().all(|k| b.contains_key(k)) =>
        {
            for (key, value) in b {
                path.push(Segment::Key(key.clone()));
                match a.get(key) {
                    Some(old) => diff(old, value, path, edit),
                    None => edit(path, value),
                }
                path.pop();
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (old, new)) in a.iter().zip(b).enumerate() {
                path.push(Segment::Index(i));
                diff(old, new, path, edit);
                path.pop();
            }
        }
        _ => edit(path, to),
    }
}

fn push_edit(path: &[Segment], value: &Value, out: &mut String, edits: &mut usize) {
    *edits += 1;
    out.push(';');
    out.push_str(&link_text(path));
    out.push('=');
    out.push_str(&value.to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::NAMES;

    fn refusal(text: &str) -> String {
        decode(text).expect_err(text).to_string()
    }

    /// Eight clients changed in ten fields each are more edits than a
    /// link carries one field at a time: the link writes each changed
    /// field of the scenario whole, and reads back the same scenario.
    #[test]
    fn a_scenario_changed_everywhere_still_has_a_link() {
        let mut s = crate::builtins::builtin("race-3").unwrap();
        let one = s.clients[0].clone();
        s.clients = (0..crate::scenario::limits::CLIENTS_MAX)
            .map(|i| {
                let mut c = one.clone();
                c.name = format!("c{i}");
                c.timeout_ms = 1000 + i as u64;
                c.retries_max = 3;
                c.backoff_ms = 10 + i as u64;
                c.start_ms = i as u64;
                c.gap_between_intents_ms = 7;
                c.backoff_jitter_ms = 20;
                c.backoff_max_ms = 3000;
                c.deadline_ms = 9000;
                c.intents[0].order_id = 500 + i as i64;
                c
            })
            .collect();
        s.validate().expect("within the limits");
        let link = encode("race-3", &s).unwrap();
        assert_eq!(decode(&link), Ok(s.clone()), "{link}");
        assert!(link.len() <= limits::LINK_BYTES_MAX, "{} bytes", link.len());
        // Still one field at a time where that fits.
        let mut few = crate::builtins::builtin("race-3").unwrap();
        few.clients[0].timeout_ms = 1500;
        assert_eq!(
            encode("race-3", &few).unwrap(),
            "race-3;clients.0.timeout_ms=1500"
        );
    }

    #[test]
    fn a_built_in_is_its_name_and_decodes_to_itself() {
        for name in NAMES {
            let s = builtins::builtin(name).unwrap();
            assert_eq!(encode(name, &s).as_deref(), Some(name));
            assert_eq!(decode(name).unwrap(), s);
        }
    }

    #[test]
    fn every_built_in_is_a_link_from_every_other() {
        for from in NAMES {
            for to in NAMES {
                let s = builtins::builtin(to).unwrap();
                let link = encode(from, &s).unwrap();
                assert_eq!(decode(&link).as_ref(), Ok(&s), "{from} -> {to}: {link}");
            }
        }
    }

    #[test]
    fn an_edit_changes_one_field_and_the_link_says_only_that() {
        let mut s = builtins::builtin("timeout-retry").unwrap();
        s.clients[0].timeout_ms = 1_500;
        s.instances = 3;
        let link = encode("timeout-retry", &s).unwrap();
        assert_eq!(link, "timeout-retry;clients.0.timeout_ms=1500;instances=3");
        assert_eq!(decode(&link).unwrap(), s);
    }

    #[test]
    fn an_index_one_past_the_end_adds_a_copy_of_the_last() {
        let s = decode("timeout-retry;clients.1.name=\"outro\"").unwrap();
        assert_eq!(s.clients.len(), 2);
        assert_eq!(s.clients[1].name, "outro");
        assert_eq!(s.clients[1].timeout_ms, s.clients[0].timeout_ms);
        assert_eq!(
            refusal("timeout-retry;clients.2.name=\"x\""),
            "edit 1, clients[2]: index 2 is past the end of a list of 1; the next one is 1"
        );
    }

    #[test]
    fn a_value_may_hold_the_separator_inside_quotes_or_brackets() {
        let s = decode(r#"timeout-retry;clients.0.name="a;b";instances=2"#).unwrap();
        assert_eq!(s.clients[0].name, "a;b");
        let t = decode(r#"timeout-retry;faults=[];instances=2"#).unwrap();
        assert!(t.faults.is_empty());
    }

    #[test]
    fn refusals_name_the_edit_the_field_and_the_limit() {
        let cases = [
            (
                "nada",
                "scenario: a link starts with a built-in's name, and \"nada\" names none",
            ),
            (
                "timeout-retry;instances=99",
                "edit 1, instances: 99 is outside 1..=8",
            ),
            (
                "timeout-retry;instances=2;clients.0.timeout_ms=-1",
                "edit 2, clients[0].timeout_ms: expected a whole number of milliseconds, got -1",
            ),
            (
                "timeout-retry;retry_max=3",
                "edit 1, scenario: unknown field \"retry_max\" (expected one of: name, title,",
            ),
            (
                "timeout-retry;instances=2;instances=3",
                "edit 2, instances: is set twice; a link sets each field once",
            ),
            (
                "timeout-retry;instances",
                "edit 1, scenario: \"instances\" is not an edit; an edit is path=value",
            ),
            (
                "timeout-retry;Instances=2",
                "edit 1, scenario: \"Instances\" is not a path; a path is field names and list indexes joined by '.'",
            ),
            (
                "timeout-retry;clients.0.name=\"open",
                "edit 1, scenario: the value is not closed",
            ),
            (
                "timeout-retry;clients.0.name=\"a\"x",
                "edit 1, scenario: the value ends before \"x\"; edits are separated by ';'",
            ),
            (
                "timeout-retry;instances=two",
                "edit 1, instances: \"two\" is not a JSON value",
            ),
            (
                "timeout-retry;instances.0=1",
                "edit 1, instances[0]: instances is not a list",
            ),
            (
                "timeout-retry;network.nope.latency_ms=1",
                "edit 1, network.nope: network has no field \"nope\"",
            ),
            (
                "timeout-retry;nope.x=1",
                "edit 1, nope: the scenario has no field \"nope\"",
            ),
        ];
        for (link, expected) in cases {
            let got = refusal(link);
            assert!(
                got.starts_with(expected),
                "{link}\n  got:      {got}\n  expected: {expected}"
            );
        }
    }

    #[test]
    fn limits_hold_before_any_work() {
        let long = format!("timeout-retry;clients.0.name=\"{}\"", "a".repeat(9_000));
        assert!(refusal(&long).starts_with("scenario: "));
        assert!(refusal(&long).contains("exceed the limit 8192"));
        let many: String = (0..65)
            .map(|i| format!(";{}=1", "f".repeat(i + 1)))
            .collect();
        assert_eq!(
            refusal(&format!("timeout-retry{many}")),
            "scenario: more than 64 edits exceed the limit"
        );
        let deep = format!("timeout-retry;{}=1", ["a"; 9].join("."));
        assert_eq!(
            refusal(&deep),
            "edit 1, scenario: a path of 9 parts exceeds the limit 8"
        );
    }
}
