//! A conformance spec: tables, set-up, named sessions each with an ordered
//! list of named steps, the permutations to run and a final check. It is
//! shaped like one of PostgreSQL's isolation tests and holds no expected
//! results: those come from running the same permutation on the model and
//! on a real server. The suite's specs are TOML files that lousa-tests reads
//! into this type; [`crate::spec_from_store_trace`] makes one from a run.

use lousa_core::store::{Stmt, TableDef};
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::collections::{BTreeSet, HashMap, HashSet};

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
    /// The tables to create, in `all_tables` order.
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

impl Spec {
    /// Checks what a spec must hold whatever made it: unique step names,
    /// permutations of known steps, statements on the spec's tables.
    pub fn validate(&self) -> Result<(), String> {
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

    /// Two sessions of `len` steps each (the statements do not matter here).
    fn two_sessions(len: usize) -> Spec {
        let session = |name: &str| SessionSpec {
            name: name.to_string(),
            steps: (1..=len)
                .map(|i| StepSpec {
                    name: format!("{name}{i}"),
                    stmt: Stmt::Commit,
                })
                .collect(),
        };
        Spec {
            name: "tiny".into(),
            description: String::new(),
            tables: Vec::new(),
            setup: Vec::new(),
            sessions: vec![session("a"), session("b")],
            permutations: Vec::new(),
            final_check: Vec::new(),
        }
    }

    #[test]
    fn small_cases_run_every_interleaving_in_session_order() {
        let spec = two_sessions(3);
        assert_eq!(spec.interleaving_count(), 20);
        let perms = spec.permutations_to_run();
        assert_eq!(perms.len(), 20);
        assert_eq!(perms.iter().collect::<HashSet<_>>().len(), 20);
        for p in &perms {
            let a: Vec<&String> = p.iter().filter(|n| n.starts_with('a')).collect();
            assert_eq!(a, ["a1", "a2", "a3"]);
        }
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
        assert_eq!(two_sessions(6).interleaving_count(), 924);
        assert_eq!(two_sessions(6).permutations_to_run().len(), SAMPLE_SIZE);
    }
}
