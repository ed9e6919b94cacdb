//! What a permutation did, in a form both runners produce and a person can
//! read, and the side-by-side report of the first difference.

use lousa_core::store::{Stmt, Value};

/// What one finished statement returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `rows` for SELECT and RETURNING, `affected` for INSERT, UPDATE and
    /// DELETE; transaction control has neither.
    Ok {
        rows: Option<Vec<Vec<Value>>>,
        affected: Option<u64>,
    },
    /// SQLSTATE and primary message (the message names the constraint of a
    /// 23505 and tells the two kinds of 40001 apart).
    Error { code: String, message: String },
}

impl Outcome {
    /// Keeps what the statement kind reports. Rows are sorted: without ORDER
    /// BY neither side promises an order, and heap order is not something the
    /// product relies on.
    pub fn ok(stmt: &Stmt, mut rows: Vec<Vec<Value>>, affected: u64) -> Outcome {
        rows.sort();
        match stmt {
            Stmt::Begin { .. } | Stmt::Commit | Stmt::Rollback => Outcome::Ok {
                rows: None,
                affected: None,
            },
            Stmt::Select { .. } => Outcome::Ok {
                rows: Some(rows),
                affected: None,
            },
            Stmt::Insert { returning, .. } | Stmt::Update { returning, .. } => Outcome::Ok {
                rows: (!returning.is_empty()).then_some(rows),
                affected: Some(affected),
            },
            Stmt::Delete { .. } => Outcome::Ok {
                rows: None,
                affected: Some(affected),
            },
        }
    }

    pub fn render(&self, stmt: &Stmt) -> String {
        match self {
            Outcome::Error { code, message } => format!("ERROR {code}: {message}"),
            Outcome::Ok { rows, affected } => {
                let verb = match stmt {
                    Stmt::Insert { .. } => "INSERT",
                    Stmt::Update { .. } => "UPDATE",
                    Stmt::Delete { .. } => "DELETE",
                    _ => "",
                };
                let mut parts = Vec::new();
                if let Some(n) = affected {
                    parts.push(format!("{verb} {n}"));
                }
                if let Some(rows) = rows {
                    parts.push(render_rows(rows));
                }
                if parts.is_empty() {
                    "ok".to_string()
                } else {
                    parts.join(" ")
                }
            }
        }
    }
}

fn render_value(v: &Value) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Int(i) => i.to_string(),
        Value::Text(s) => format!("'{}'", s.replace('\'', "''")),
    }
}

/// A row as `(1, 'k', NULL)`.
pub fn render_row(row: &[Value]) -> String {
    format!(
        "({})",
        row.iter().map(render_value).collect::<Vec<_>>().join(", ")
    )
}

fn render_rows(rows: &[Vec<Value>]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| render_row(r)).collect();
    format!("[{}]", rows.join(", "))
}

/// What happened to one step of a permutation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepResult {
    Done(Outcome),
    /// The statement blocked; `then` is the step (its index in the run)
    /// after which it finished and what it returned, or `None` if it was
    /// still waiting at the end.
    Waited {
        then: Option<(usize, Outcome)>,
    },
    /// The permutation asked a waiting session to run this step, which makes
    /// it invalid (as in PostgreSQL's isolation tester): nothing more ran.
    Invalid {
        waiting_session: String,
    },
}

/// One permutation's run on one side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    pub steps: Vec<(String, StepResult)>,
    /// Outcomes of the spec's `final_check` statements.
    pub final_check: Vec<Outcome>,
    /// The step at which woken sessions raced (PostgreSQL only).
    pub race_at: Option<usize>,
}

impl Run {
    pub fn is_invalid(&self) -> bool {
        self.steps
            .iter()
            .any(|(_, r)| matches!(r, StepResult::Invalid { .. }))
    }

    /// One (label, cell) line per step and per final check.
    pub fn lines(
        &self,
        stmt_of: &dyn Fn(&str) -> Stmt,
        final_stmts: &[Stmt],
    ) -> Vec<(String, String)> {
        let mut out = self.lines_before(self.steps.len(), stmt_of);
        for (i, (o, stmt)) in self.final_check.iter().zip(final_stmts).enumerate() {
            out.push((format!("final_check[{i}]"), o.render(stmt)));
        }
        out
    }

    /// The lines of the steps before step `end`, as they stood then: a
    /// statement that finished later shows only that it was waiting.
    pub fn lines_before(
        &self,
        end: usize,
        stmt_of: &dyn Fn(&str) -> Stmt,
    ) -> Vec<(String, String)> {
        self.steps[..end.min(self.steps.len())]
            .iter()
            .map(|(name, r)| {
                let stmt = stmt_of(name);
                let cell = match r {
                    StepResult::Done(o) => o.render(&stmt),
                    StepResult::Waited {
                        then: Some((after, o)),
                    } if *after < end => {
                        format!(
                            "<waiting>; after {}: {}",
                            self.steps[*after].0,
                            o.render(&stmt)
                        )
                    }
                    StepResult::Waited { .. } if end < self.steps.len() => "<waiting>".to_string(),
                    StepResult::Waited { .. } => "<waiting> (still waiting at the end)".to_string(),
                    StepResult::Invalid { waiting_session } => {
                        format!(
                            "<not run: session {waiting_session} is waiting; permutation invalid>"
                        )
                    }
                };
                (name.clone(), cell)
            })
            .collect()
    }
}

/// The two runs side by side, every differing line marked `>`, or `None`
/// when they agree.
pub fn side_by_side(model: &[(String, String)], pg: &[(String, String)]) -> Option<String> {
    (model != pg).then(|| table(model, pg))
}

/// The two runs side by side, every differing line marked `>`.
pub fn table(model: &[(String, String)], pg: &[(String, String)]) -> String {
    let n = model.len().max(pg.len());
    let get = |v: &[(String, String)], i: usize| v.get(i).cloned().unwrap_or_default();
    let rows: Vec<(String, String, String, bool)> = (0..n)
        .map(|i| {
            let (ml, mc) = get(model, i);
            let (pl, pc) = get(pg, i);
            let label = if ml.is_empty() {
                pl.clone()
            } else {
                ml.clone()
            };
            (label, mc.clone(), pc.clone(), ml != pl || mc != pc)
        })
        .collect();
    let w0 = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(4);
    let w1 = rows
        .iter()
        .map(|r| r.1.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let mut s = format!("  {:w0$} | {:w1$} | postgres\n", "step", "model");
    s.push_str(&format!(
        "  {}-+-{}-+-{}\n",
        "-".repeat(w0),
        "-".repeat(w1),
        "-".repeat(8)
    ));
    for (label, m, p, differs) in rows {
        let mark = if differs { '>' } else { ' ' };
        let pad = w1 - m.chars().count();
        s.push_str(&format!(
            "{mark} {label:w0$} | {m}{} | {p}\n",
            " ".repeat(pad)
        ));
    }
    s
}
