//! The replay as a terminal shows it: a header that says what will be
//! created, one line per statement with the model's answer and
//! PostgreSQL's side by side (a line that differs starts with `>`), the
//! tables' rows at the end, and the verdict.

use super::{Cell, Plan, Record, Report, SchemaFate, StepLine, Verdict, cell};
use crate::server::ServerInfo;
use std::fmt::Write;

/// The model column is as wide as its longest answer, within these bounds:
/// a long error message overflows rather than push every line right.
const MODEL_WIDTH_MIN: usize = 10;
const MODEL_WIDTH_MAX: usize = 44;

/// Where a statement's answers start: after `  #12 A   1.234 s  `.
const INDENT: usize = 10;

/// The width of the model column, from the model's own answers (known
/// before the server answers, so lines can be printed as they come).
pub fn model_width(plan: &Plan, model: &Record) -> usize {
    let mut waiting = vec![None; plan.terminals.len()];
    (0..plan.statements.len())
        .flat_map(|i| cell_lines(&cell(plan, i, &model.steps[i], &mut waiting)))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(MODEL_WIDTH_MIN, MODEL_WIDTH_MAX)
}

/// What the replay will do, printed before anything is created, then the
/// columns' headings.
pub fn header(plan: &Plan, server: &ServerInfo, schema: &str, width: usize) -> String {
    let mut out = intro(plan, server, schema);
    out.push('\n');
    let _ = writeln!(out, "  {:>3} {:<2} {:>7}  statement", "#", "", "at");
    let _ = writeln!(out, "{:INDENT$}{:<width$} | PostgreSQL", "", "model");
    out
}

/// The run, the server, the connections and the schema that will be
/// created.
pub fn intro(plan: &Plan, server: &ServerInfo, schema: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "lousa replay: {} under {}, schedule {}",
        plan.scenario,
        plan.handler(),
        plan.schedule
    );
    let _ = writeln!(
        out,
        "server: PostgreSQL {} at {}",
        server.version, server.server
    );
    if let crate::server::Deadlocks::Spaced { gap } = server.deadlocks() {
        let _ = writeln!(
            out,
            "deadlocks: role {} may not SET deadlock_timeout, so a statement sent while another \
             waits goes out {} ms after that wait began, and the server's {} ms timeout picks \
             the first waiter as the model does",
            server.role,
            gap.as_millis(),
            server.deadlock_timeout_ms
        );
    }
    let terminals: Vec<String> = plan
        .terminals
        .iter()
        .map(|t| format!("{} = a connection of {}", t.label, t.connection_of))
        .collect();
    let _ = writeln!(
        out,
        "terminals: {} (one connection each)",
        terminals.join(", ")
    );
    let _ = writeln!(
        out,
        "creating schema {schema} with table {} and its constraints; every connection's \
         search_path is set to it, and it is dropped at the end",
        plan.table_names().join(", ")
    );
    out
}

/// A cell's lines: the answer (or `waits`), then one per statement it woke.
fn cell_lines(cell: &Cell) -> Vec<String> {
    let mut lines = vec![
        cell.answer
            .as_ref()
            .map_or("waits".into(), |a| a.text.clone()),
    ];
    lines.extend(cell.woke.iter().map(|w| {
        format!(
            "{}'s #{} wakes after #{}: {}",
            w.terminal, w.n, w.after, w.answer.text
        )
    }));
    lines
}

/// One statement: its number, terminal, time and SQL, then the two sides.
/// `>` marks a disagreement, `~` the statement at which PostgreSQL woke
/// waiters at once.
pub fn step(line: &StepLine, width: usize) -> String {
    let mark = match (line.agree, line.race) {
        (false, _) => '>',
        (true, true) => '~',
        (true, false) => ' ',
    };
    let s = &line.statement;
    let mut out = format!(
        "{mark} {:>3} {:<2} {:>5.3} s  {}\n",
        format!("#{}", s.n),
        s.terminal,
        s.at_ms as f64 / 1000.0,
        s.sql
    );
    let (m, p) = (cell_lines(&line.model), cell_lines(&line.postgres));
    for k in 0..m.len().max(p.len()) {
        let left = m.get(k).map_or("", String::as_str);
        let right = p.get(k).map_or("", String::as_str);
        let pad = width.saturating_sub(left.chars().count());
        let _ = writeln!(
            out,
            "{mark}{:indent$}{left}{:pad$} | {right}",
            "",
            "",
            indent = INDENT - 1
        );
    }
    out
}

/// The tables' rows at the end and the verdict.
pub fn footer(report: &Report) -> String {
    let mut out = String::new();
    if !report.tables.is_empty() {
        let _ = writeln!(
            out,
            "\nrows at the end, once every connection rolled back what it left open:"
        );
    }
    for t in &report.tables {
        let mark = if t.agree { ' ' } else { '>' };
        let _ = writeln!(out, "{mark} {} ({})", t.table, t.columns.join(", "));
        for (side, rows) in [("model", &t.model), ("PostgreSQL", &t.postgres)] {
            if rows.is_empty() {
                let _ = writeln!(out, "{mark}   {side:<11} (no rows)");
            }
            for (k, row) in rows.iter().enumerate() {
                let name = if k == 0 { side } else { "" };
                let _ = writeln!(out, "{mark}   {name:<11} {row}");
            }
        }
    }
    out.push('\n');
    out.push_str(&legend(report));
    out.push_str(&verdict_line(report));
    out
}

/// What the marks in the left margin mean, for the marks the report used.
fn legend(report: &Report) -> String {
    let mut out = String::new();
    let disagreed = report.steps.iter().any(|l| !l.agree) || report.tables.iter().any(|t| !t.agree);
    if disagreed {
        out.push_str(">: where the model and PostgreSQL disagree\n");
    }
    if report.steps.iter().any(|l| l.agree && l.race) {
        out.push_str(
            "~: a statement after which PostgreSQL woke waiting statements at once, in an \
             order its scheduler chose (typed by hand, they may wake in another order)\n",
        );
    }
    out
}

/// The verdict as one line.
pub fn verdict_line(report: &Report) -> String {
    match &report.verdict {
        Verdict::Agree { statements, tables } => format!(
            "verdict: agree: PostgreSQL answered all {statements} statements as the model did, \
             and {} the same rows\n",
            match tables {
                1 => "the table holds".to_string(),
                n => format!("the {n} tables hold"),
            }
        ),
        Verdict::Disagree {
            n: Some(n),
            model,
            postgres,
            ..
        } => {
            let terminal = report
                .steps
                .iter()
                .find(|l| l.statement.n == *n)
                .map_or("?", |l| l.statement.terminal.as_str());
            format!(
                "verdict: DISAGREE at statement #{n} (terminal {terminal}): the model says \
                 {model}, PostgreSQL says {postgres}\n"
            )
        }
        Verdict::Disagree {
            table,
            model,
            postgres,
            ..
        } => format!(
            "verdict: DISAGREE in table {} at the end: the model holds {model}, PostgreSQL \
             holds {postgres}\n",
            table.as_deref().unwrap_or("?")
        ),
        Verdict::AgreeUntilRace { race_at } => format!(
            "verdict: agree up to statement #{race_at}, where PostgreSQL woke waiting \
             statements at once and its scheduler chose their order; what followed differs \
             and is not the model's to match\n"
        ),
    }
}

/// What became of the schema, as a line.
pub fn schema_line(schema: &str, fate: &SchemaFate) -> String {
    match fate {
        SchemaFate::NotCreated => format!("schema {schema} was not created\n"),
        SchemaFate::Dropped => format!("schema {schema} dropped\n"),
        SchemaFate::NotDropped(e) => format!("error: {e}\n"),
    }
}
