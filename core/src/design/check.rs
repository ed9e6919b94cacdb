//! Checking a design, and compiling it into the [`Program`] a handler runs:
//! every refusal names the field (`steps[2].on[0].goto`) and what is wrong.

use super::flow;
use super::{Answer, Design, Do, RESPOND, When, limits};
use crate::json::FieldError;
use crate::store::{Name, SqlState, TableDef};
use std::hash::{Hash, Hasher};

/// A checked design, with what running it needs worked out once: each
/// step's statement shape, its jumps as indexes, and whether a transaction
/// is open when it starts. Two steps follow the design's own: the ROLLBACK
/// an unexpected error takes inside a transaction, and the response.
#[derive(Clone, Debug)]
pub struct Program {
    design: Design,
    sites: Vec<Site>,
    tables: Vec<TableDef>,
    captures_once: bool,
    stores_headers: bool,
}

impl PartialEq for Program {
    fn eq(&self, other: &Self) -> bool {
        self.design == other.design
    }
}
impl Eq for Program {}
impl Hash for Program {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.design.hash(h);
    }
}

/// One step, compiled.
#[derive(Clone, Debug)]
pub struct Site {
    pub shown: String,
    pub shape: Shape,
    /// The columns of the row the statement returns, in order.
    pub columns: Vec<String>,
    pub branches: Vec<Jump>,
    pub next: u16,
    /// A transaction is open when the step starts.
    pub in_tx: bool,
    /// A crash `after-commit` strikes after it: it is a statement whose
    /// next step is the capture, so what it wrote is durable before money
    /// moves.
    pub commits_claim: bool,
    /// Its statement reads the time (a lease or a lifetime from now).
    pub needs_now: bool,
    /// Its statement writes the request body's fingerprint.
    pub needs_fingerprint: bool,
}

/// A step's branch, compiled: its jump as an index.
#[derive(Clone, Debug)]
pub struct Jump {
    pub when: When,
    pub answer: Option<Answer>,
    pub to: u16,
    pub again: Option<u8>,
}

/// What a step does, resolved against the tables.
#[derive(Clone, Debug)]
pub enum Shape {
    Begin,
    Commit,
    Rollback,
    Capture,
    Publish,
    Respond,
    Select {
        table: Name,
        /// The row's columns and what each must equal.
        filter: Vec<(Name, Source)>,
        for_update: bool,
    },
    Insert {
        table: Name,
        values: Vec<(Name, Source)>,
        on_conflict: Option<Vec<Name>>,
    },
    Update {
        table: Name,
        set: Vec<Name>,
        fenced: bool,
        local: bool,
    },
    Delete {
        table: Name,
    },
    Retake {
        table: Name,
        from: String,
    },
}

impl Shape {
    pub fn is_sql(&self) -> bool {
        !matches!(self, Shape::Capture | Shape::Publish | Shape::Respond)
    }

    /// An update fenced by the job's lease.
    pub fn fenced(&self) -> bool {
        matches!(self, Shape::Update { fenced: true, .. })
    }

    /// A COMMIT or ROLLBACK: once it fails, the transaction is over too.
    pub fn ends_tx(&self) -> bool {
        matches!(self, Shape::Commit | Shape::Rollback)
    }
}

/// Where a column's value comes from, in an insert or a select's filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The key's scope under the scenario's policy.
    Scope,
    Key,
    /// The request body's fingerprint.
    Fingerprint,
    Order,
    Amount,
    /// `status` PROCESSANDO.
    Processing,
    /// `estado` processing.
    StateProcessing,
    /// `estado` completed.
    StateCompleted,
    /// The lease's end: now plus the scenario's lease.
    LeaseFromNow,
    /// `publicado` 0: an outbox row not yet relayed.
    Unpublished,
    /// The job's row.
    Id,
}

/// The columns an insert fills, in the order it names them.
const INSERTED: [(&str, Source); 11] = [
    ("escopo", Source::Scope),
    ("chave", Source::Key),
    ("idempotency_key", Source::Key),
    ("message_id", Source::Key),
    ("impressao", Source::Fingerprint),
    ("pedido_id", Source::Order),
    ("valor_centavos", Source::Amount),
    ("status", Source::Processing),
    ("estado", Source::StateProcessing),
    ("lease_ate_ms", Source::LeaseFromNow),
    ("publicado", Source::Unpublished),
];

/// The columns an update writes from the acquirer's answer.
pub const ANSWERED: [&str; 6] = [
    "status",
    "estado",
    "expira_em_ms",
    "resposta_http",
    "resposta_corpo",
    "resposta_headers",
];

/// A fenced write or a retake needs the lease's columns.
fn leased(field: &str, def: &TableDef) -> Result<(), FieldError> {
    column(field, def, "estado")?;
    column(field, def, "lease_ate_ms")
}

/// The SQLSTATEs the store raises, which an `error` branch may name.
const CODES: [SqlState; 8] = [
    SqlState::UniqueViolation,
    SqlState::InFailedTransaction,
    SqlState::SerializationFailure,
    SqlState::DeadlockDetected,
    SqlState::UndefinedObject,
    SqlState::NotNullViolation,
    SqlState::InvalidTextRepresentation,
    SqlState::ActiveSqlTransaction,
];

/// The tables a design may name: the ones whose rows a request fills.
fn known_table(name: &str) -> Option<TableDef> {
    use crate::store::{
        chave_idempotencia_table, cobranca_simples_table, cobranca_table, evento_outbox_table,
        mensagem_processada_table, pedido_pago_table,
    };
    match name {
        "evento_outbox" => Some(evento_outbox_table()),
        "mensagem_processada" => Some(mensagem_processada_table()),
        "cobranca" => Some(cobranca_table()),
        "chave_idempotencia" => Some(chave_idempotencia_table()),
        "cobranca_simples" => Some(cobranca_simples_table()),
        "pedido_pago" => Some(pedido_pago_table()),
        _ => None,
    }
}

pub(super) fn refuse<T>(
    field: impl Into<String>,
    message: impl Into<String>,
) -> Result<T, FieldError> {
    Err(FieldError {
        field: field.into(),
        message: message.into(),
    })
}

fn short(field: &str, text: &str, max: usize) -> Result<(), FieldError> {
    if text.is_empty() {
        return refuse(field, "must not be empty");
    }
    if text.chars().count() > max {
        return refuse(
            field,
            format!("{} characters exceed the limit {max}", text.chars().count()),
        );
    }
    Ok(())
}

/// Checks a design and compiles it.
pub fn check(design: Design) -> Result<Program, FieldError> {
    short("name", &design.name, limits::TEXT_MAX)?;
    if design.about.chars().count() > 2 * limits::TEXT_MAX {
        return refuse(
            "about",
            format!("more than {} characters", 2 * limits::TEXT_MAX),
        );
    }
    let tables = tables(&design)?;
    let n = design.steps.len();
    if n == 0 {
        return refuse("steps", "a design needs at least one step");
    }
    if n > limits::STEPS_MAX {
        return refuse(
            "steps",
            format!("{n} steps exceed the limit {}", limits::STEPS_MAX),
        );
    }
    let labels = labels(&design)?;
    let target = |field: String, label: &str| -> Result<u16, FieldError> {
        if label == RESPOND {
            return Ok(n as u16 + 1);
        }
        match labels.iter().position(|l| *l == label) {
            Some(i) => Ok(i as u16),
            None => refuse(
                field,
                format!("no step is labelled \"{}\"", crate::text::cut(label, 40)),
            ),
        }
    };
    let mut sites = Vec::with_capacity(n + 2);
    for (i, step) in design.steps.iter().enumerate() {
        let at = format!("steps[{i}]");
        if let Some(shown) = &step.shown {
            short(&format!("{at}.shown"), shown, 40)?;
        }
        let (shape, columns) = shape(&at, &step.action, &tables)?;
        if step.on.len() > limits::BRANCHES_MAX {
            return refuse(
                format!("{at}.on"),
                format!(
                    "{} branches exceed the limit {}",
                    step.on.len(),
                    limits::BRANCHES_MAX
                ),
            );
        }
        let mut branches = Vec::with_capacity(step.on.len());
        for (j, b) in step.on.iter().enumerate() {
            let bat = format!("{at}.on[{j}]");
            fits(&bat, &b.when, &step.action, &columns)?;
            if let Some(answer) = &b.answer {
                answers(&bat, answer, &b.when, &columns)?;
            }
            if let Some(again) = b.again
                && !(1..=limits::AGAIN_MAX).contains(&again)
            {
                return refuse(
                    format!("{bat}.again"),
                    format!("{again} is outside 1..={}", limits::AGAIN_MAX),
                );
            }
            branches.push(Jump {
                when: b.when.clone(),
                answer: b.answer.clone(),
                to: target(format!("{bat}.goto"), &b.goto)?,
                again: b.again,
            });
        }
        let next = match &step.next {
            Some(label) => target(format!("{at}.next"), label)?,
            None if i + 1 < n => i as u16 + 1,
            // Never taken: the branches cover every outcome.
            None if flow::exhaustive(&branches) => n as u16 + 1,
            None => {
                return refuse(
                    format!("{at}.next"),
                    "the last step needs a \"next\" (or a branch with \"if\": \"always\"): \
                     it would run off the end without responding",
                );
            }
        };
        let writes = |c: &str| match &shape {
            Shape::Insert { values, .. } => values.iter().any(|(v, _)| v == c),
            Shape::Update { set, .. } => set.iter().any(|v| v == c),
            Shape::Retake { .. } => c == "lease_ate_ms",
            _ => false,
        };
        sites.push(Site {
            shown: step.shown.clone().unwrap_or_else(|| step.label.clone()),
            needs_now: writes("lease_ate_ms") || writes("expira_em_ms"),
            needs_fingerprint: writes("impressao"),
            shape,
            columns,
            branches,
            next,
            in_tx: false,
            commits_claim: false,
        });
    }
    for (shown, shape, in_tx) in [
        ("rollback", Shape::Rollback, true),
        (RESPOND, Shape::Respond, false),
    ] {
        sites.push(Site {
            shown: shown.into(),
            shape,
            columns: vec![],
            branches: vec![],
            next: n as u16 + 1,
            in_tx,
            commits_claim: false,
            needs_now: false,
            needs_fingerprint: false,
        });
    }
    let order = flow::bounded_loops(&design, &sites)?;
    flow::reached(&design, &sites)?;
    flow::transactions(&design, &mut sites, &order)?;
    flow::after_capture(&design, &sites, &order)?;
    flow::answered(&design, &sites, &order)?;
    // A design that never calls the acquirer makes its effect in the
    // database: its claim is durable with the effect, at a COMMIT.
    let local = !sites.iter().any(|s| matches!(s.shape, Shape::Capture));
    for i in 0..n {
        let next = sites[i].next as usize;
        // A read claims nothing: only a write, or the COMMIT of one.
        sites[i].commits_claim = sites[i].shape.is_sql()
            && !matches!(sites[i].shape, Shape::Select { .. })
            && (sites
                .get(next)
                .is_some_and(|s| matches!(s.shape, Shape::Capture))
                || local && matches!(sites[i].shape, Shape::Commit));
    }
    // A job calls again only from a second capture step, or from one a
    // loop comes back to.
    let captures: Vec<usize> = (0..n)
        .filter(|&i| matches!(sites[i].shape, Shape::Capture))
        .collect();
    let captures_once = match captures[..] {
        [] => true,
        [one] => !flow::on_a_loop(&sites, one),
        _ => false,
    };
    let stores_headers = sites
        .iter()
        .any(|s| matches!(&s.shape, Shape::Update { set, .. } if set.iter().any(|c| c == "resposta_headers")));
    Ok(Program {
        design,
        sites,
        tables,
        captures_once,
        stores_headers,
    })
}

fn tables(design: &Design) -> Result<Vec<TableDef>, FieldError> {
    if design.tables.is_empty() {
        return refuse("tables", "a design names at least one table");
    }
    let mut out: Vec<TableDef> = Vec::new();
    for (i, t) in design.tables.iter().enumerate() {
        let at = format!("tables[{i}]");
        let Some(mut def) = known_table(&t.name) else {
            return refuse(
                format!("{at}.name"),
                format!(
                    "unknown table \"{}\" (expected one of: cobranca, cobranca_simples, \
                     pedido_pago, chave_idempotencia, mensagem_processada, evento_outbox)",
                    crate::text::cut(&t.name, 40)
                ),
            );
        };
        if out.iter().any(|d| d.name == def.name) {
            return refuse(
                format!("{at}.name"),
                format!("\"{}\" is named twice", t.name),
            );
        }
        if let Some(unique) = &t.unique {
            for (k, c) in unique.iter().enumerate() {
                column(&format!("{at}.unique[{k}]"), &def, c)?;
            }
            def.uniques = if unique.is_empty() {
                vec![]
            } else {
                vec![crate::store::UniqueDef {
                    name: format!("uq_{}_{}", def.name, unique.join("_")),
                    columns: unique.clone(),
                }]
            };
        }
        out.push(def);
    }
    Ok(out)
}

fn labels(design: &Design) -> Result<Vec<&str>, FieldError> {
    let mut labels: Vec<&str> = Vec::new();
    for (i, step) in design.steps.iter().enumerate() {
        let at = format!("steps[{i}].label");
        short(&at, &step.label, 40)?;
        if !step
            .label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        {
            return refuse(
                at,
                "use lowercase letters, digits and \"-\" only, as in \"claim-key\"",
            );
        }
        if step.label == RESPOND {
            return refuse(
                at,
                "\"respond\" is the jump that answers; name the step otherwise",
            );
        }
        if let Some(first) = labels.iter().position(|l| *l == step.label) {
            return refuse(
                at,
                format!("\"{}\" already labels steps[{first}]", step.label),
            );
        }
        labels.push(&step.label);
    }
    Ok(labels)
}

fn column(field: &str, def: &TableDef, name: &str) -> Result<(), FieldError> {
    if def.column_index(name).is_some() {
        return Ok(());
    }
    let names: Vec<&str> = def.columns.iter().map(|c| c.name.as_str()).collect();
    refuse(
        field,
        format!(
            "{} has no column \"{}\" (it has: {})",
            def.name,
            crate::text::cut(name, 40),
            names.join(", ")
        ),
    )
}

fn table<'t>(field: &str, tables: &'t [TableDef], name: &str) -> Result<&'t TableDef, FieldError> {
    match tables.iter().find(|d| d.name == name) {
        Some(def) => Ok(def),
        None => refuse(
            field,
            format!(
                "\"{}\" is not among the design's tables",
                crate::text::cut(name, 40)
            ),
        ),
    }
}

/// A step's shape, and the columns of the row it returns.
fn shape(at: &str, action: &Do, tables: &[TableDef]) -> Result<(Shape, Vec<String>), FieldError> {
    let names = |v: &[String]| v.iter().map(|c| Name::Owned(c.clone())).collect::<Vec<_>>();
    Ok(match action {
        Do::Begin => (Shape::Begin, vec![]),
        Do::Commit => (Shape::Commit, vec![]),
        Do::Rollback => (Shape::Rollback, vec![]),
        Do::Capture => (Shape::Capture, vec![]),
        Do::Publish => (Shape::Publish, vec![]),
        Do::Select(s) => {
            let at = format!("{at}.do.select");
            let def = table(&format!("{at}.table"), tables, &s.table)?;
            let filter = s.by.columns(def);
            for (c, _) in &filter {
                column(&format!("{at}.by"), def, c)?;
            }
            if s.columns.is_empty() {
                return refuse(
                    format!("{at}.columns"),
                    "a select reads at least one column",
                );
            }
            for (k, c) in s.columns.iter().enumerate() {
                column(&format!("{at}.columns[{k}]"), def, c)?;
            }
            (
                Shape::Select {
                    table: Name::Owned(def.name.clone()),
                    filter: filter
                        .into_iter()
                        .map(|(c, s)| (Name::Borrowed(c), s))
                        .collect(),
                    for_update: s.for_update,
                },
                s.columns.clone(),
            )
        }
        Do::Insert(s) => {
            let at = format!("{at}.do.insert");
            let def = table(&format!("{at}.table"), tables, &s.table)?;
            if let Some(cols) = &s.on_conflict_do_nothing {
                if cols.is_empty() {
                    return refuse(
                        format!("{at}.on_conflict_do_nothing"),
                        "name the columns of a UNIQUE constraint",
                    );
                }
                for (k, c) in cols.iter().enumerate() {
                    column(&format!("{at}.on_conflict_do_nothing[{k}]"), def, c)?;
                }
                // PostgreSQL infers the arbiter from a UNIQUE constraint on
                // exactly these columns and refuses the statement without
                // one; the model's DO NOTHING would skip any conflict.
                let same = |u: &crate::store::UniqueDef| {
                    u.columns.len() == cols.len() && cols.iter().all(|c| u.columns.contains(c))
                };
                if !def.uniques.iter().any(same) {
                    return refuse(
                        format!("{at}.on_conflict_do_nothing"),
                        format!(
                            "{} has no UNIQUE constraint on ({}), so PostgreSQL refuses \
                             this ON CONFLICT (42P10); add it to tables[].unique",
                            def.name,
                            cols.join(", ")
                        ),
                    );
                }
            }
            for (k, c) in s.returning.iter().enumerate() {
                column(&format!("{at}.returning[{k}]"), def, c)?;
            }
            if s.completed {
                column(&format!("{at}.completed"), def, "estado")?;
            }
            let values = INSERTED
                .iter()
                .filter(|(c, _)| def.column_index(c).is_some())
                .filter_map(|&(c, source)| match source {
                    Source::StateProcessing if s.completed => Some((c, Source::StateCompleted)),
                    Source::LeaseFromNow if s.completed => None,
                    _ => Some((c, source)),
                })
                .map(|(c, s)| (Name::Borrowed(c), s))
                .collect();
            (
                Shape::Insert {
                    table: Name::Owned(def.name.clone()),
                    values,
                    on_conflict: s.on_conflict_do_nothing.as_deref().map(names),
                },
                s.returning.clone(),
            )
        }
        Do::Update(s) => {
            let at = format!("{at}.do.update");
            let def = table(&format!("{at}.table"), tables, &s.table)?;
            if s.set.is_empty() {
                return refuse(format!("{at}.set"), "an update sets at least one column");
            }
            for (k, c) in s.set.iter().enumerate() {
                let field = format!("{at}.set[{k}]");
                column(&field, def, c)?;
                if !ANSWERED.contains(&c.as_str()) {
                    return refuse(
                        field,
                        format!(
                            "an update writes what the acquirer answered: one of {}",
                            ANSWERED.join(", ")
                        ),
                    );
                }
            }
            if s.fenced {
                leased(&format!("{at}.fenced"), def)?;
            }
            (
                Shape::Update {
                    table: Name::Owned(def.name.clone()),
                    set: names(&s.set),
                    fenced: s.fenced,
                    local: s.local,
                },
                // A fenced write returns the row it matched, if any.
                if s.fenced { vec!["id".into()] } else { vec![] },
            )
        }
        Do::Delete(s) => {
            let at = format!("{at}.do.delete");
            let def = table(&format!("{at}.table"), tables, &s.table)?;
            (
                Shape::Delete {
                    table: Name::Owned(def.name.clone()),
                },
                vec![],
            )
        }
        Do::Retake(s) => {
            let at = format!("{at}.do.retake");
            let def = table(&format!("{at}.table"), tables, &s.table)?;
            leased(&format!("{at}.table"), def)?;
            short(&format!("{at}.from"), &s.from, 40)?;
            (
                Shape::Retake {
                    table: Name::Owned(def.name.clone()),
                    from: s.from.clone(),
                },
                vec!["lease_ate_ms".into()],
            )
        }
    })
}

/// Whether a branch's test can be asked of the step it follows.
fn fits(at: &str, when: &When, action: &Do, columns: &[String]) -> Result<(), FieldError> {
    let field = format!("{at}.if");
    let has = |c: &str| columns.iter().any(|x| x == c);
    let capture = matches!(action, Do::Capture);
    let returns = !columns.is_empty();
    match when {
        When::Always => Ok(()),
        _ if matches!(action, Do::Publish) => refuse(
            field,
            "a publish runs no statement and always goes on: only \"always\"",
        ),
        When::Accepted | When::Declined | When::Silent if capture => Ok(()),
        When::Accepted | When::Declined | When::Silent => refuse(
            field,
            "only a capture's branches ask what the acquirer said",
        ),
        _ if capture => refuse(
            field,
            "a capture runs no statement: ask \"accepted\", \"declined\" or \"silent\"",
        ),
        When::Error(code) if CODES.iter().any(|s| s.code() == code) => Ok(()),
        When::Error(code) => refuse(
            field,
            format!(
                "unknown SQLSTATE \"{}\" (expected one of: {})",
                crate::text::cut(code, 10),
                CODES.map(|s| s.code()).join(", ")
            ),
        ),
        When::Rows | When::NoRows if returns => Ok(()),
        When::Status(_) if has("status") || has("estado") => Ok(()),
        When::OtherRequest if has("impressao") || (has("pedido_id") && has("valor_centavos")) => {
            Ok(())
        }
        When::Expired if has("expira_em_ms") => Ok(()),
        When::Rows | When::NoRows => refuse(
            field,
            "the statement returns no rows: a select, or an insert with \"returning\", does",
        ),
        When::Status(_) => refuse(
            field,
            "the row read has no \"status\" (or \"estado\") column",
        ),
        When::OtherRequest => refuse(
            field,
            "telling another request needs the row's \"impressao\", or its \"pedido_id\" \
             and \"valor_centavos\"",
        ),
        When::Expired => refuse(field, "the row read has no \"expira_em_ms\" column"),
    }
}

/// Whether a branch's answer can be made from what its step read.
fn answers(at: &str, answer: &Answer, when: &When, columns: &[String]) -> Result<(), FieldError> {
    let field = format!("{at}.answer");
    let has = |c: &str| columns.iter().any(|x| x == c);
    let row = matches!(
        when,
        When::Rows | When::Status(_) | When::OtherRequest | When::Expired
    );
    let needs = |cols: &[&str]| -> Result<(), FieldError> {
        if let Some(c) = cols.iter().find(|c| !has(c)) {
            return refuse(&field, format!("the row read has no \"{c}\" column"));
        }
        if !row {
            return refuse(
                &field,
                "this answer reads the row: give it under \"rows\", \"status\", \
                 \"other-request\" or \"expired\"",
            );
        }
        Ok(())
    };
    match answer {
        Answer::Literal(l) => {
            if !(100..=599).contains(&l.status) {
                return refuse(
                    format!("{field}.literal.status"),
                    format!("{} is not an HTTP status (100 to 599)", l.status),
                );
            }
            if l.body.chars().count() > limits::TEXT_MAX {
                return refuse(
                    format!("{field}.literal.body"),
                    format!("more than {} characters", limits::TEXT_MAX),
                );
            }
            Ok(())
        }
        Answer::Charge(c) if !(100..=599).contains(&c.status) => refuse(
            format!("{field}.charge.status"),
            format!("{} is not an HTTP status (100 to 599)", c.status),
        ),
        Answer::Charge(_) => needs(&["id", "status"]),
        Answer::Stored => needs(&["resposta_http", "resposta_corpo"]),
        Answer::Capture | Answer::Local => Ok(()),
    }
}

impl Program {
    pub fn design(&self) -> &Design {
        &self.design
    }

    pub fn site(&self, i: u16) -> &Site {
        &self.sites[i as usize]
    }

    /// The step an unexpected error inside a transaction goes to.
    pub fn rollback(&self) -> u16 {
        self.sites.len() as u16 - 2
    }

    /// The step that sends the prepared answer.
    pub fn respond(&self) -> u16 {
        self.sites.len() as u16 - 1
    }

    /// The design's tables, with its own constraints.
    pub fn tables(&self) -> &[TableDef] {
        &self.tables
    }

    /// Whether a job calls the acquirer at most once: the explorer's
    /// independence relation asks it at every event, so it is worked out
    /// when the design is checked.
    pub fn captures_once(&self) -> bool {
        self.captures_once
    }

    /// Whether it calls the acquirer at all.
    pub fn captures(&self) -> bool {
        self.sites.iter().any(|s| matches!(s.shape, Shape::Capture))
    }

    /// Whether a step inserts into `table` a row left processing under a
    /// lease, which recovery must resolve if its job dies.
    pub fn claims_processing(&self, table: &str) -> bool {
        self.sites.iter().any(|s| {
            matches!(&s.shape, Shape::Insert { table: t, values, .. }
                if t == table && values.iter().any(|(_, v)| *v == Source::StateProcessing))
        })
    }

    /// Whether its jobs are a queue's deliveries rather than HTTP requests.
    pub fn serves_queue(&self) -> bool {
        self.design.serves == super::Serves::Queue
    }

    /// Whether it stores an answer's headers, and so sends them with the
    /// answer it makes from the acquirer's reply too.
    pub fn stores_headers(&self) -> bool {
        self.stores_headers
    }
}
