//! Conformance specs: the data files in `tests/conformance/*.toml`.
//!
//! A spec is shaped like one of PostgreSQL's isolation tests: which tables
//! exist, statements that run before the sessions start, named sessions each
//! with an ordered list of named steps, and the permutations (orders of step
//! names) to run. A spec holds no expected results: those come from running
//! the same permutation against the model and against a real server.
//!
//! ```toml
//! description = "..."
//! tables = ["cobranca"]
//! setup = [{ op = "insert", table = "cobranca", values = [["idempotency_key", "k1"]] }]
//! final_check = [{ op = "select", table = "cobranca", columns = ["id"] }]
//! # permutations = [["a_begin", "b_begin", ...]]   (omit to run every interleaving)
//!
//! [[session]]
//! name = "a"
//! steps = [
//!   { name = "a_begin", op = "begin", isolation = "serializable" },
//!   { name = "a_commit", op = "commit" },
//! ]
//! ```
//!
//! Each step is a [`Stmt`] in its serde form (tagged by `op`) plus a `name`.

use lousa_core::store::{Stmt, TableDef, known_tables};
use lousa_pg::{SessionSpec, Spec, StepSpec};
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    #[serde(default)]
    description: String,
    tables: Vec<String>,
    #[serde(default)]
    setup: Vec<toml::Table>,
    #[serde(rename = "session")]
    sessions: Vec<RawSession>,
    #[serde(default)]
    permutations: Vec<Vec<String>>,
    #[serde(default)]
    final_check: Vec<toml::Table>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSession {
    name: String,
    steps: Vec<toml::Table>,
}

/// Reads a [`Stmt`] from its table form and refuses keys the statement does
/// not have: serde would silently drop a misspelt `filters`, and a spec whose
/// filter vanished would still "agree" on both sides.
fn stmt_from_table(table: toml::Table, what: &str) -> Result<Stmt, String> {
    let json = serde_json::to_value(&table).map_err(|e| format!("{what}: {e}"))?;
    let stmt: Stmt = serde_json::from_value(json.clone()).map_err(|e| format!("{what}: {e}"))?;
    let back = serde_json::to_value(&stmt).expect("a Stmt serializes");
    for (key, value) in json.as_object().expect("a table is an object") {
        let known = back.get(key).is_some();
        // Fields at their default are skipped when serializing.
        let default = matches!(value, serde_json::Value::Array(a) if a.is_empty())
            || *value == serde_json::Value::Bool(false);
        if !known && !default {
            return Err(format!(
                "{what}: unknown field `{key}` for op {}",
                json["op"]
            ));
        }
    }
    Ok(stmt)
}

fn tables_named(names: &[String]) -> Result<Vec<TableDef>, String> {
    let all = known_tables();
    for n in names {
        if !all.iter().any(|t| &t.name == n) {
            return Err(format!("unknown table `{n}`"));
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| names.contains(&t.name))
        .collect())
}

/// A spec from its TOML text; `name` is its file stem.
pub fn parse(name: &str, text: &str) -> Result<Spec, String> {
    let raw: RawSpec = toml::from_str(text).map_err(|e| format!("{name}: {e}"))?;
    let tables = tables_named(&raw.tables).map_err(|e| format!("{name}: {e}"))?;
    let stmts = |list: Vec<toml::Table>, what: &str| -> Result<Vec<Stmt>, String> {
        list.into_iter()
            .enumerate()
            .map(|(i, t)| stmt_from_table(t, &format!("{name}: {what}[{i}]")))
            .collect()
    };
    let setup = stmts(raw.setup, "setup")?;
    let final_check = stmts(raw.final_check, "final_check")?;
    let mut sessions = Vec::new();
    for rs in raw.sessions {
        let mut steps = Vec::new();
        for mut t in rs.steps {
            let step_name = match t.remove("name") {
                Some(toml::Value::String(s)) => s,
                _ => return Err(format!("{name}: a step of session {} has no name", rs.name)),
            };
            let stmt = stmt_from_table(t, &format!("{name}: step {step_name}"))?;
            steps.push(StepSpec {
                name: step_name,
                stmt,
            });
        }
        sessions.push(SessionSpec {
            name: rs.name,
            steps,
        });
    }
    let spec = Spec {
        name: name.to_string(),
        description: raw.description,
        tables,
        setup,
        sessions,
        permutations: raw.permutations,
        final_check,
    };
    spec.validate()?;
    Ok(spec)
}

/// The spec in a file.
pub fn load(path: &Path) -> Result<Spec, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: bad file name", path.display()))?;
    parse(name, &text)
}

/// Every `*.toml` spec in a directory, sorted by name.
pub fn load_dir(dir: &Path) -> Result<Vec<Spec>, String> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| load(p)).collect()
}

/// The directory of the suite's specs.
pub fn suite_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const TINY: &str = r#"
description = "two sessions"
tables = ["cobranca"]

[[session]]
name = "a"
steps = [
  { name = "a1", op = "begin", isolation = "serializable" },
  { name = "a2", op = "select", table = "cobranca", columns = ["id"], filter = [["idempotency_key", "k"]] },
  { name = "a3", op = "commit" },
]

[[session]]
name = "b"
steps = [
  { name = "b1", op = "insert", table = "cobranca", values = [["idempotency_key", "k"], ["pedido_id", 123]], on_conflict_do_nothing = ["idempotency_key"], returning = ["id"] },
  { name = "b2", op = "rollback" },
]
"#;

    #[test]
    fn a_spec_parses_into_statements() {
        let spec = parse("tiny", TINY).unwrap();
        assert_eq!(spec.sessions.len(), 2);
        let (s, b1) = spec.step("b1").unwrap();
        assert_eq!(s, 1);
        assert_eq!(
            b1.stmt.to_sql(),
            "INSERT INTO cobranca (idempotency_key, pedido_id) VALUES ('k', 123) \
             ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"
        );
        assert_eq!(spec.interleaving_count(), 10);
        let perms = spec.permutations_to_run();
        assert_eq!(perms.len(), 10);
        assert_eq!(perms.iter().collect::<HashSet<_>>().len(), 10);
        for p in &perms {
            let a: Vec<&String> = p.iter().filter(|n| n.starts_with('a')).collect();
            assert_eq!(a, ["a1", "a2", "a3"]);
        }
    }

    #[test]
    fn a_misspelt_field_is_refused() {
        let bad = TINY.replace("filter = [[", "filters = [[");
        let e = parse("tiny", &bad).unwrap_err();
        assert!(e.contains("unknown field `filters`"), "{e}");
    }

    #[test]
    fn an_unknown_step_in_a_permutation_is_refused() {
        let bad = TINY.replace(
            "tables = [\"cobranca\"]",
            "tables = [\"cobranca\"]\npermutations = [[\"a1\", \"zz\"]]",
        );
        assert!(parse("tiny", &bad).unwrap_err().contains("zz"));
    }
}
