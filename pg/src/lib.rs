//! Lousa's runner against a real PostgreSQL 15: the same statements run on
//! the store model ([`model::ModelSide`]) and on a server
//! ([`server::PgSide`]: one connection and thread per session,
//! `pg_blocking_pids` to see a blocked statement), and the two records must
//! agree step by step.
//!
//! Both sides are driven by one loop, [`run_permutation`], through the
//! [`Side`] trait, so the only thing that differs is how a statement runs.
//! The conformance suite (lousa-tests) runs its specs' permutations with
//! [`run_case`]; `lousa replay` runs a simulated run's store traffic with
//! [`replay`]. lousa-core stays free of I/O: everything that talks to a
//! server is here.

pub mod connect;
pub mod error;
pub mod model;
pub mod record;
pub mod replay;
pub mod server;
pub mod spec;
pub mod trace;

pub use error::PgError;
pub use record::{Outcome, Run, StepResult, side_by_side};
pub use spec::{SessionSpec, Spec, StepSpec};
pub use trace::spec_from_store_trace;

use lousa_core::store::Stmt;
use std::time::{Duration, Instant};

/// What issuing one step did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepOutput {
    /// The step's outcome, or `None` if it is waiting.
    pub own: Option<Outcome>,
    /// Statements of other sessions that had been waiting and finished.
    pub finished: Vec<(usize, Outcome)>,
    /// What followed depends on a race between woken sessions, so nothing
    /// from this step on can be compared (only PostgreSQL reports this).
    pub race: bool,
}

/// A place permutations run: the model or a server. The model never fails;
/// a server can be lost, time out or be interrupted, and then the run stops
/// with a [`PgError`].
pub trait Side {
    /// Empty tables with identities back at 1, then the spec's setup.
    fn reset(&mut self) -> Result<(), PgError>;
    /// Issues `stmt` on `session` and lets everything settle.
    fn step(&mut self, session: usize, stmt: &Stmt) -> Result<StepOutput, PgError>;
    /// Rolls every session back (waking and draining waiting statements).
    fn cleanup(&mut self) -> Result<(), PgError>;
    /// Runs a statement in a session of its own, outside the permutation.
    fn check(&mut self, stmt: &Stmt) -> Result<Outcome, PgError>;
    /// Closes `session`'s connection, as a crash of its process does: its
    /// transaction rolls back, a statement it waits on is aborted (and not
    /// reported), and statements that waited on it finish (`finished`).
    /// The session takes no statement after it.
    fn close(&mut self, session: usize) -> Result<StepOutput, PgError>;
}

/// Runs one permutation (a list of step names) on one side.
pub fn run_permutation(side: &mut dyn Side, spec: &Spec, perm: &[String]) -> Result<Run, PgError> {
    side.reset()?;
    let mut run = Run::default();
    // Index in `run.steps` of each session's waiting step.
    let mut waiting: Vec<Option<usize>> = vec![None; spec.sessions.len()];
    for name in perm {
        let (s, step) = spec.step(name).expect("validated step name");
        if waiting[s].is_some() {
            run.steps.push((
                name.clone(),
                StepResult::Invalid {
                    waiting_session: spec.sessions[s].name.clone(),
                },
            ));
            break;
        }
        let StepOutput {
            own,
            finished,
            race,
        } = side.step(s, &step.stmt)?;
        let idx = run.steps.len();
        if race && run.race_at.is_none() {
            run.race_at = Some(idx);
        }
        run.steps.push((
            name.clone(),
            match own {
                Some(o) => StepResult::Done(o),
                None => {
                    waiting[s] = Some(idx);
                    StepResult::Waited { then: None }
                }
            },
        ));
        for (other, o) in finished {
            let w = waiting[other].take().unwrap_or_else(|| {
                panic!("session {other} finished a statement it was not waiting on")
            });
            run.steps[w].1 = StepResult::Waited {
                then: Some((idx, o)),
            };
        }
    }
    side.cleanup()?;
    run.final_check = spec
        .final_check
        .iter()
        .map(|s| side.check(s))
        .collect::<Result<_, _>>()?;
    Ok(run)
}

/// What running one case found.
#[derive(Debug)]
pub struct CaseReport {
    pub name: String,
    /// Permutations run on both sides.
    pub permutations: usize,
    /// Of those, how many were invalid on both sides (a waiting session was
    /// asked to run a step) and so were skipped after that step.
    pub invalid: usize,
    /// How many had a race on the server (see [`StepOutput::race`]) and were
    /// compared only up to it.
    pub racy: usize,
    pub elapsed: Duration,
    /// The first permutation whose runs differ, as a side-by-side table.
    pub difference: Option<String>,
}

/// `LOUSA_CONFORMANCE_VERBOSE=1` prints every permutation's two runs, not
/// only the first difference.
fn verbose() -> bool {
    std::env::var("LOUSA_CONFORMANCE_VERBOSE").as_deref() == Ok("1")
}

/// Runs every permutation of a case on both sides, stopping at the first
/// difference.
pub fn run_case(
    spec: &Spec,
    model: &mut dyn Side,
    pg: &mut dyn Side,
) -> Result<CaseReport, PgError> {
    let start = Instant::now();
    let perms = spec.permutations_to_run();
    let mut report = CaseReport {
        name: spec.name.clone(),
        permutations: 0,
        invalid: 0,
        racy: 0,
        elapsed: Duration::ZERO,
        difference: None,
    };
    for perm in &perms {
        let m = run_permutation(model, spec, perm)?;
        let p = run_permutation(pg, spec, perm)?;
        report.permutations += 1;
        let stmt_of = |n: &str| spec.step(n).expect("step").1.stmt.clone();
        // After a race on the server only the steps before it are comparable.
        let (ml, pl) = match p.race_at {
            Some(i) => {
                report.racy += 1;
                (m.lines_before(i, &stmt_of), p.lines_before(i, &stmt_of))
            }
            None => (
                m.lines(&stmt_of, &spec.final_check),
                p.lines(&stmt_of, &spec.final_check),
            ),
        };
        if verbose() {
            eprintln!(
                "{} | {}\n{}",
                spec.name,
                perm.join(" "),
                record::table(&ml, &pl)
            );
        }
        if let Some(table) = side_by_side(&ml, &pl) {
            let sessions = spec::session_of_steps(spec);
            let sql: Vec<String> = perm
                .iter()
                .map(|n| format!("  {n} ({}): {}", sessions[n], stmt_of(n).to_sql()))
                .collect();
            report.difference = Some(format!(
                "case {} ({}): model and PostgreSQL disagree\npermutation: {}\n{table}statements:\n{}\n",
                spec.name,
                spec.description.trim(),
                perm.join(" "),
                sql.join("\n")
            ));
            break;
        }
        if p.is_invalid() {
            report.invalid += 1;
        }
    }
    report.elapsed = start.elapsed();
    Ok(report)
}
