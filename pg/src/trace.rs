//! Specs from store traces: the statements a simulation issued to the store,
//! in order, become a spec with that single permutation, so a property test
//! can send random store interleavings to the real server.

use crate::spec::{SessionSpec, Spec, StepSpec};
use lousa_core::store::{SessionId, Stmt, known_tables};

/// A spec whose one permutation replays `trace` (statements in the order they
/// were issued, each with its session). Sessions are named `s<id>` in order
/// of first appearance and steps `s<id>_<n>` (n from 1 within the session).
/// The tables are those the statements use, plus `final_check` reading every
/// column of each of them, so what was left committed is compared too.
///
/// A session that issues while its previous statement waits cannot come out
/// of the store (it refuses), so the permutation is valid whenever the model
/// agrees with itself; if PostgreSQL blocks where the model did not, the
/// comparison shows it.
pub fn spec_from_store_trace(name: &str, trace: &[(SessionId, Stmt)]) -> Spec {
    let mut sessions: Vec<(SessionId, SessionSpec)> = Vec::new();
    let mut permutation = Vec::new();
    for (sid, stmt) in trace {
        let idx = match sessions.iter().position(|(s, _)| s == sid) {
            Some(i) => i,
            None => {
                sessions.push((
                    *sid,
                    SessionSpec {
                        name: format!("s{}", sid.0),
                        steps: Vec::new(),
                    },
                ));
                sessions.len() - 1
            }
        };
        let session = &mut sessions[idx].1;
        let step = format!("{}_{}", session.name, session.steps.len() + 1);
        session.steps.push(StepSpec {
            name: step.clone(),
            stmt: stmt.clone(),
        });
        permutation.push(step);
    }
    let used: Vec<&str> = trace.iter().filter_map(|(_, s)| s.table()).collect();
    let tables: Vec<_> = known_tables()
        .into_iter()
        .filter(|t| used.contains(&t.name.as_str()))
        .collect();
    let final_check = tables
        .iter()
        .map(|t| Stmt::Select {
            table: t.name.clone().into(),
            columns: t
                .columns
                .iter()
                .filter(|c| c.ty != lousa_core::store::ColumnType::CreatedAt)
                .map(|c| c.name.clone().into())
                .collect(),
            filter: Vec::new(),
            for_update: false,
        })
        .collect();
    Spec {
        name: name.to_string(),
        description: format!("replay of a store trace of {} statements", trace.len()),
        tables,
        setup: Vec::new(),
        sessions: sessions.into_iter().map(|(_, s)| s).collect(),
        permutations: vec![permutation],
        final_check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{model::ModelSide, run_permutation};
    use lousa_core::store::Value;

    #[test]
    fn a_trace_becomes_one_permutation_in_issue_order() {
        let claim = Stmt::Insert {
            table: "cobranca".into(),
            values: vec![("idempotency_key".into(), Value::text("k"))],
            on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
            returning: vec!["id".into()],
        };
        let trace = vec![
            (
                SessionId(3),
                Stmt::Begin {
                    isolation: Default::default(),
                },
            ),
            (SessionId(3), claim.clone()),
            (SessionId(1), claim),
            (SessionId(3), Stmt::Commit),
        ];
        let spec = spec_from_store_trace("t", &trace);
        assert_eq!(spec.sessions.len(), 2);
        assert_eq!(spec.sessions[0].name, "s3");
        assert_eq!(
            spec.permutations,
            vec![vec!["s3_1", "s3_2", "s1_1", "s3_3"]]
        );
        assert_eq!(spec.tables.len(), 1);
        let run =
            run_permutation(&mut ModelSide::new(&spec), &spec, &spec.permutations[0]).unwrap();
        let stmt_of = |n: &str| spec.step(n).unwrap().1.stmt.clone();
        let lines = run.lines(&stmt_of, &spec.final_check);
        assert_eq!(lines[2].1, "<waiting>; after s3_3: INSERT 0 []");
        assert_eq!(lines[4].1, "[(1, 'k', NULL, NULL, NULL, NULL, NULL)]");
    }
}
