//! The replay as a terminal shows it: a header that says what will be
//! created, one line per statement with the model's answer and
//! PostgreSQL's side by side (a line that differs starts with `>`), the
//! tables' rows at the end, and the verdict.

use super::{Cell, Plan, Record, Report, SchemaFate, StepLine, Verdict, cell};
use crate::server::ServerInfo;
use lousa_core::narrate::Lang;
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
        .flat_map(|i| cell_lines(&cell(plan, i, &model.steps[i], &mut waiting), plan.lang))
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(MODEL_WIDTH_MIN, MODEL_WIDTH_MAX)
}

/// What the replay will do, printed before anything is created, then the
/// columns' headings.
pub fn header(plan: &Plan, server: &ServerInfo, schema: &str, width: usize) -> String {
    let lang = plan.lang;
    let mut out = intro(plan, server, schema);
    out.push('\n');
    let (at, statement) = (lang.pick("em", "at"), lang.pick("comando", "statement"));
    let _ = writeln!(out, "  {:>3} {:<2} {at:>7}  {statement}", "#", "");
    let _ = writeln!(
        out,
        "{:INDENT$}{:<width$} | PostgreSQL",
        "",
        lang.pick("modelo", "model")
    );
    out
}

/// The run, the server, the connections and the schema that will be
/// created.
pub fn intro(plan: &Plan, server: &ServerInfo, schema: &str) -> String {
    let lang = plan.lang;
    let mut out = String::new();
    let (scenario, handler, schedule) = (&plan.scenario, plan.handler(), &plan.schedule);
    let fork = plan.fork.as_ref().map_or_else(String::new, |f| {
        format!(
            ", {} {f}",
            lang.pick("falha injetada em", "fault injected at")
        )
    });
    let _ = match lang {
        Lang::Pt => writeln!(
            out,
            "lousa replay: {scenario} com {handler}, escalonamento {schedule}{fork}"
        ),
        Lang::En => writeln!(
            out,
            "lousa replay: {scenario} under {handler}, schedule {schedule}{fork}"
        ),
    };
    let _ = writeln!(
        out,
        "{}: PostgreSQL {} {} {}",
        lang.pick("servidor", "server"),
        server.version,
        lang.pick("em", "at"),
        server.server
    );
    if let crate::server::Deadlocks::Spaced { gap } = server.deadlocks() {
        let (role, gap, timeout) = (&server.role, gap.as_millis(), server.deadlock_timeout_ms);
        let _ = match lang {
            Lang::Pt => writeln!(
                out,
                "deadlocks: o papel {role} não pode dar SET deadlock_timeout, então um comando \
                 enviado enquanto outro espera sai {gap} ms depois que essa espera começou, e o \
                 timeout de {timeout} ms do servidor escolhe a primeira espera, como o modelo faz"
            ),
            Lang::En => writeln!(
                out,
                "deadlocks: role {role} may not SET deadlock_timeout, so a statement sent while \
                 another waits goes out {gap} ms after that wait began, and the server's \
                 {timeout} ms timeout picks the first waiter as the model does"
            ),
        };
    }
    let of = lang.pick("uma conexão", "a connection of");
    let terminals: Vec<String> = plan
        .terminals
        .iter()
        .map(|t| format!("{} = {of} {}", t.label, t.connection_of))
        .collect();
    let _ = writeln!(
        out,
        "{}: {} ({})",
        lang.pick("terminais", "terminals"),
        terminals.join(", "),
        lang.pick("uma conexão cada", "one connection each")
    );
    let tables = plan.table_names().join(", ");
    let _ = match lang {
        Lang::Pt => writeln!(
            out,
            "criando o schema {schema} com a tabela {tables} e suas restrições; o search_path \
             de cada conexão aponta para ele, e ele é apagado no fim"
        ),
        Lang::En => writeln!(
            out,
            "creating schema {schema} with table {tables} and its constraints; every \
             connection's search_path is set to it, and it is dropped at the end"
        ),
    };
    out
}

/// A cell's lines: the answer (or `waits`), then one per statement it woke.
pub(super) fn cell_lines(cell: &Cell, lang: Lang) -> Vec<String> {
    let mut lines = vec![
        cell.answer
            .as_ref()
            .map_or(lang.pick("espera", "waits").into(), |a| a.text.clone()),
    ];
    lines.extend(cell.woke.iter().map(|w| {
        let (t, n, after, answer) = (&w.terminal, w.n, w.after, &w.answer.text);
        match lang {
            Lang::Pt => format!("o #{n} de {t} acorda depois do #{after}: {answer}"),
            Lang::En => format!("{t}'s #{n} wakes after #{after}: {answer}"),
        }
    }));
    lines
}

/// One statement: its number, terminal, time and SQL, then the two sides.
/// `>` marks a disagreement, `~` the statement at which PostgreSQL woke
/// waiters at once.
pub fn step(line: &StepLine, width: usize, lang: Lang) -> String {
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
    let (m, p) = (
        cell_lines(&line.model, lang),
        cell_lines(&line.postgres, lang),
    );
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
pub fn footer(report: &Report, lang: Lang) -> String {
    let mut out = String::new();
    if !report.tables.is_empty() {
        out.push_str(lang.pick(
            "\nlinhas no fim, depois que cada conexão desfez o que deixou aberto:\n",
            "\nrows at the end, once every connection rolled back what it left open:\n",
        ));
    }
    for t in &report.tables {
        let mark = if t.agree { ' ' } else { '>' };
        let _ = writeln!(out, "{mark} {} ({})", t.table, t.columns.join(", "));
        let model = lang.pick("modelo", "model");
        for (side, rows) in [(model, &t.model), ("PostgreSQL", &t.postgres)] {
            if rows.is_empty() {
                let none = lang.pick("(nenhuma linha)", "(no rows)");
                let _ = writeln!(out, "{mark}   {side:<11} {none}");
            }
            for (k, row) in rows.iter().enumerate() {
                let name = if k == 0 { side } else { "" };
                let _ = writeln!(out, "{mark}   {name:<11} {row}");
            }
        }
    }
    out.push('\n');
    out.push_str(&legend(report, lang));
    out.push_str(&verdict_line(report, lang));
    out
}

/// What the marks in the left margin mean, for the marks the report used.
fn legend(report: &Report, lang: Lang) -> String {
    let mut out = String::new();
    let disagreed = report.steps.iter().any(|l| !l.agree) || report.tables.iter().any(|t| !t.agree);
    if disagreed {
        out.push_str(lang.pick(
            ">: onde o modelo e o PostgreSQL discordam\n",
            ">: where the model and PostgreSQL disagree\n",
        ));
    }
    if report.steps.iter().any(|l| l.agree && l.race) {
        out.push_str(lang.pick(
            "~: um comando depois do qual o PostgreSQL acordou de uma vez comandos que \
             esperavam, numa ordem que o escalonador dele escolheu (digitados à mão, podem \
             acordar em outra ordem)\n",
            "~: a statement after which PostgreSQL woke waiting statements at once, in an \
             order its scheduler chose (typed by hand, they may wake in another order)\n",
        ));
    }
    out
}

/// The verdict as one line.
pub fn verdict_line(report: &Report, lang: Lang) -> String {
    match (&report.verdict, lang) {
        (Verdict::Agree { statements, tables }, Lang::Pt) => format!(
            "veredito: concordam: o PostgreSQL respondeu aos {statements} comandos como o \
             modelo, e {}\n",
            match tables {
                1 => "a tabela guarda as mesmas linhas".to_string(),
                n => format!("as {n} tabelas guardam as mesmas linhas"),
            }
        ),
        (Verdict::Agree { statements, tables }, Lang::En) => format!(
            "verdict: agree: PostgreSQL answered all {statements} statements as the model did, \
             and {} the same rows\n",
            match tables {
                1 => "the table holds".to_string(),
                n => format!("the {n} tables hold"),
            }
        ),
        (
            Verdict::Disagree {
                n: Some(n),
                model,
                postgres,
                ..
            },
            _,
        ) => {
            let terminal = report
                .steps
                .iter()
                .find(|l| l.statement.n == *n)
                .map_or("?", |l| l.statement.terminal.as_str());
            match lang {
                Lang::Pt => format!(
                    "veredito: DISCORDAM no comando #{n} (terminal {terminal}): o modelo diz \
                     {model}, o PostgreSQL diz {postgres}\n"
                ),
                Lang::En => format!(
                    "verdict: DISAGREE at statement #{n} (terminal {terminal}): the model says \
                     {model}, PostgreSQL says {postgres}\n"
                ),
            }
        }
        (
            Verdict::Disagree {
                table,
                model,
                postgres,
                ..
            },
            _,
        ) => {
            let table = table.as_deref().unwrap_or("?");
            match lang {
                Lang::Pt => format!(
                    "veredito: DISCORDAM na tabela {table} no fim: o modelo guarda {model}, o \
                     PostgreSQL guarda {postgres}\n"
                ),
                Lang::En => format!(
                    "verdict: DISAGREE in table {table} at the end: the model holds {model}, \
                     PostgreSQL holds {postgres}\n"
                ),
            }
        }
        (Verdict::AgreeUntilRace { race_at }, Lang::Pt) => format!(
            "veredito: concordam até o comando #{race_at}, em que o PostgreSQL acordou de uma \
             vez comandos que esperavam e o escalonador dele escolheu a ordem; o que veio \
             depois difere e não cabe ao modelo acompanhar\n"
        ),
        (Verdict::AgreeUntilRace { race_at }, Lang::En) => format!(
            "verdict: agree up to statement #{race_at}, where PostgreSQL woke waiting \
             statements at once and its scheduler chose their order; what followed differs \
             and is not the model's to match\n"
        ),
    }
}

/// What became of the schema, as a line.
pub fn schema_line(schema: &str, fate: &SchemaFate, lang: Lang) -> String {
    match (fate, lang) {
        (SchemaFate::NotCreated, Lang::Pt) => format!("o schema {schema} não foi criado\n"),
        (SchemaFate::NotCreated, Lang::En) => format!("schema {schema} was not created\n"),
        (SchemaFate::Dropped, Lang::Pt) => format!("schema {schema} apagado\n"),
        (SchemaFate::Dropped, Lang::En) => format!("schema {schema} dropped\n"),
        (SchemaFate::NotDropped(e), _) => format!("{}: {e}\n", lang.pick("erro", "error")),
    }
}
