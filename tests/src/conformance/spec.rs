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

use lousa_core::store::{Stmt, TableDef, all_tables};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::Deserialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// Up to this many interleavings, a spec without explicit permutations runs
/// all of them.
pub const ALL_INTERLEAVINGS_LIMIT: u128 = 300;
/// Above the limit, this many distinct interleavings are drawn instead.
pub const SAMPLE_SIZE: usize = 200;
/// The sample's seed (mixed with the case name): the same sample every run.
const SAMPLE_SEED: u64 = 0x6c6f_7573_615f_7067;

#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The file stem, e.g. `claim_on_conflict_commit`.
    pub name: String,
    pub description: String,
    /// The tables to create, in [`all_tables`] order.
    pub tables: Vec<TableDef>,
    /// Committed before the sessions start.
    pub setup: Vec<Stmt>,
    pub sessions: Vec<SessionSpec>,
    /// Explicit permutations; empty means "every interleaving" (or a sample).
    pub permutations: Vec<Vec<String>>,
    /// Read after every permutation, once every session has rolled back, so
    /// the comparison includes what was left committed.
    pub final_check: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SessionSpec {
    pub name: String,
    pub steps: Vec<StepSpec>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StepSpec {
    pub name: String,
    pub stmt: Stmt,
}

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
    let all = all_tables();
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

impl Spec {
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

    pub fn load(path: &Path) -> Result<Spec, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| format!("{}: bad file name", path.display()))?;
        Spec::parse(name, &text)
    }

    /// Every `*.toml` spec in a directory, sorted by name.
    pub fn load_dir(dir: &Path) -> Result<Vec<Spec>, String> {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        paths.iter().map(|p| Spec::load(p)).collect()
    }

    /// The directory of the suite's specs.
    pub fn suite_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
    }

    fn validate(&self) -> Result<(), String> {
        if self.sessions.is_empty() {
            return Err(format!("{}: no sessions", self.name));
        }
        let mut seen = HashSet::new();
        for s in &self.sessions {
            for st in &s.steps {
                if !seen.insert(st.name.as_str()) {
                    return Err(format!("{}: step name `{}` used twice", self.name, st.name));
                }
            }
        }
        for p in &self.permutations {
            for step in p {
                if !seen.contains(step.as_str()) {
                    return Err(format!(
                        "{}: permutation names unknown step `{step}`",
                        self.name
                    ));
                }
            }
        }
        let tables: BTreeSet<&str> = self.tables.iter().map(|t| t.name.as_str()).collect();
        let all_stmts = self.setup.iter().chain(&self.final_check).chain(
            self.sessions
                .iter()
                .flat_map(|s| s.steps.iter().map(|st| &st.stmt)),
        );
        for stmt in all_stmts {
            if let Some(t) = stmt.table()
                && !tables.contains(t)
            {
                return Err(format!(
                    "{}: a statement uses table `{t}`, not in `tables`",
                    self.name
                ));
            }
        }
        Ok(())
    }

    /// The session and step a step name refers to.
    pub fn step(&self, name: &str) -> Option<(usize, &StepSpec)> {
        self.sessions
            .iter()
            .enumerate()
            .find_map(|(i, s)| s.steps.iter().find(|st| st.name == name).map(|st| (i, st)))
    }

    /// How many interleavings respect each session's step order: the
    /// multinomial coefficient (saturating).
    pub fn interleaving_count(&self) -> u128 {
        let mut total: u128 = 1;
        let mut placed: u128 = 0;
        for s in &self.sessions {
            // Multiply by C(placed + k, k) one factor at a time; stays exact.
            for i in 1..=s.steps.len() as u128 {
                placed += 1;
                total = total.saturating_mul(placed) / i;
            }
        }
        total
    }

    /// The permutations to run: the explicit ones, else every interleaving
    /// when there are at most [`ALL_INTERLEAVINGS_LIMIT`], else a
    /// deterministic sample of [`SAMPLE_SIZE`] distinct ones.
    pub fn permutations_to_run(&self) -> Vec<Vec<String>> {
        if !self.permutations.is_empty() {
            return self.permutations.clone();
        }
        let lens: Vec<usize> = self.sessions.iter().map(|s| s.steps.len()).collect();
        let orders = if self.interleaving_count() <= ALL_INTERLEAVINGS_LIMIT {
            let mut out = Vec::new();
            every_interleaving(&lens, &mut vec![0; lens.len()], &mut Vec::new(), &mut out);
            out
        } else {
            sample_interleavings(&lens, SAMPLE_SIZE, SAMPLE_SEED ^ fnv1a(&self.name))
        };
        orders
            .into_iter()
            .map(|order| {
                let mut next = vec![0; lens.len()];
                order
                    .into_iter()
                    .map(|s| {
                        next[s] += 1;
                        self.sessions[s].steps[next[s] - 1].name.clone()
                    })
                    .collect()
            })
            .collect()
    }
}

/// Interleavings as sequences of session indices.
fn every_interleaving(
    lens: &[usize],
    used: &mut Vec<usize>,
    cur: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) {
    if cur.len() == lens.iter().sum::<usize>() {
        out.push(cur.clone());
        return;
    }
    for s in 0..lens.len() {
        if used[s] < lens[s] {
            used[s] += 1;
            cur.push(s);
            every_interleaving(lens, used, cur, out);
            cur.pop();
            used[s] -= 1;
        }
    }
}

/// Distinct interleavings drawn uniformly: picking the next session with
/// probability proportional to its remaining steps makes every interleaving
/// equally likely.
fn sample_interleavings(lens: &[usize], n: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let total: usize = lens.iter().sum();
    // The caller only samples when there are more than `n` interleavings, so
    // this ends; the bound keeps a mistake from spinning forever.
    for _ in 0..n * 100 {
        if out.len() == n {
            break;
        }
        let mut left = lens.to_vec();
        let mut order = Vec::with_capacity(total);
        for remaining in (1..=total).rev() {
            let mut pick = (rng.next_u64() % remaining as u64) as usize;
            let s = left
                .iter()
                .position(|&l| {
                    if pick < l {
                        true
                    } else {
                        pick -= l;
                        false
                    }
                })
                .expect("pick is below the remaining total");
            left[s] -= 1;
            order.push(s);
        }
        if seen.insert(order.clone()) {
            out.push(order);
        }
    }
    out
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Step names by session, for reports.
pub fn session_of_steps(spec: &Spec) -> HashMap<String, String> {
    spec.sessions
        .iter()
        .flat_map(|s| {
            s.steps
                .iter()
                .map(move |st| (st.name.clone(), s.name.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let spec = Spec::parse("tiny", TINY).unwrap();
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
        let e = Spec::parse("tiny", &bad).unwrap_err();
        assert!(e.contains("unknown field `filters`"), "{e}");
    }

    #[test]
    fn an_unknown_step_in_a_permutation_is_refused() {
        let bad = TINY.replace(
            "tables = [\"cobranca\"]",
            "tables = [\"cobranca\"]\npermutations = [[\"a1\", \"zz\"]]",
        );
        assert!(Spec::parse("tiny", &bad).unwrap_err().contains("zz"));
    }

    #[test]
    fn large_cases_are_sampled_deterministically() {
        let lens = [6, 6];
        let a = sample_interleavings(&lens, SAMPLE_SIZE, 7);
        let b = sample_interleavings(&lens, SAMPLE_SIZE, 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), SAMPLE_SIZE);
        assert_eq!(a.iter().collect::<HashSet<_>>().len(), SAMPLE_SIZE);
        for o in &a {
            assert_eq!(o.iter().filter(|&&s| s == 0).count(), 6);
        }
    }

    #[test]
    fn interleavings_are_counted_exactly() {
        let mut spec = Spec::parse("tiny", TINY).unwrap();
        let step = spec.sessions[0].steps[0].clone();
        spec.sessions[0].steps = vec![step.clone(); 6];
        spec.sessions[1].steps = vec![step; 6];
        assert_eq!(spec.interleaving_count(), 924);
    }
}
