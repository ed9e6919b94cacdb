//! Checking a design, and compiling it into the [`Program`] a handler runs:
//! every refusal names the field (`steps[2].on[0].goto`) and what is wrong.

use super::flow;
use super::shape::{Shape, Source, column, refuse, shape, short, table_def};
use super::{Answer, Design, Do, RESPOND, When, limits};
use crate::json::FieldError;
use crate::store::{SqlState, TableDef};
use std::hash::{Hash, Hasher};

/// A checked design, with what running it needs worked out once: each
/// step's statement shape, its jumps as indexes, and whether a transaction
/// is open when it starts. Two steps follow the design's own: the ROLLBACK
/// an unexpected error takes inside a transaction, and the response.
#[derive(Clone, Debug)]
pub struct Program {
    pub(super) design: Design,
    pub(super) sites: Vec<Site>,
    pub(super) tables: Vec<TableDef>,
    pub(super) captures_once: bool,
    pub(super) stores_headers: bool,
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
    /// Which of a job's loop counts its `again` jumps add to.
    pub loop_slot: u8,
}

/// A step's branch, compiled: its jump as an index.
#[derive(Clone, Debug)]
pub struct Jump {
    pub when: When,
    pub answer: Option<Answer>,
    pub to: u16,
    pub again: Option<u8>,
}

/// The SQLSTATEs the store raises, which an `error` branch may name.
const CODES: [SqlState; 9] = [
    SqlState::UniqueViolation,
    SqlState::InFailedTransaction,
    SqlState::SerializationFailure,
    SqlState::DeadlockDetected,
    SqlState::UndefinedObject,
    SqlState::NotNullViolation,
    SqlState::InvalidTextRepresentation,
    SqlState::NumericValueOutOfRange,
    SqlState::ActiveSqlTransaction,
];

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
    let mut loops = 0;
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
            if b.again.is_some() && !step.on[..j].iter().any(|b| b.again.is_some()) {
                loops += 1;
                if loops > limits::LOOPS_MAX {
                    return refuse(
                        format!("{bat}.again"),
                        format!(
                            "more than {} steps jump back with \"again\": join their \
                             loops in fewer steps",
                            limits::LOOPS_MAX
                        ),
                    );
                }
            }
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
            loop_slot: loops.saturating_sub(1) as u8,
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
            loop_slot: 0,
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
        let Some(def) = table_def(t) else {
            return refuse(
                format!("{at}.name"),
                format!(
                    "unknown table \"{}\" (expected one of: cobranca, cobranca_simples, \
                     pedido_pago, chave_idempotencia, mensagem_processada, evento_outbox, \
                     conta, conta_versionada)",
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
        for (k, c) in t.unique.iter().flatten().enumerate() {
            column(&format!("{at}.unique[{k}]"), &def, c)?;
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

/// Whether a branch's test can be asked of the step it follows.
fn fits(at: &str, when: &When, action: &Do, columns: &[String]) -> Result<(), FieldError> {
    let field = format!("{at}.if");
    let has = |c: &str| columns.iter().any(|x| x == c);
    let capture = matches!(action, Do::Capture);
    // An update's or a delete's count of rows touched, when it returns none.
    let returns = !columns.is_empty() || matches!(action, Do::Update(_) | Do::Delete(_));
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
        When::InsufficientFunds if has("saldo") => Ok(()),
        When::Rows | When::NoRows => refuse(
            field,
            "the statement returns no rows: a select, an insert with \"returning\", an \
             update or a delete does",
        ),
        When::InsufficientFunds => refuse(field, "the row read has no \"saldo\" column"),
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

    /// The index of the step labelled `label`.
    pub fn step(&self, label: &str) -> Option<u16> {
        let i = self.design.steps.iter().position(|s| s.label == label)?;
        Some(i as u16)
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

    /// The account table it names (`conta` or `conta_versionada`), if any.
    pub fn account(&self) -> Option<&str> {
        self.tables
            .iter()
            .map(|t| t.name.as_str())
            .find(|t| ["conta", "conta_versionada"].contains(t))
    }

    /// Whether it debits an account with neither a lock on the balance it
    /// read nor a version check, and so does not claim to lose no update,
    /// as `local-effect` with neither option does not.
    pub fn debits_unguarded(&self) -> bool {
        let shapes = || self.sites.iter().map(|s| &s.shape);
        shapes().any(|s| matches!(s, Shape::Debit { versioned: false, .. }))
            && !shapes().any(|s| {
                matches!(s, Shape::Select { table, for_update: true, .. } if Some(&**table) == self.account())
            })
    }

    /// Whether a step reads or writes the request's key. Naive and
    /// check-then-act see only a request's order: their narration says no
    /// key protects the attempt, as the article's line "without the key".
    pub fn reads_key(&self) -> bool {
        self.sites.iter().any(|s| match &s.shape {
            Shape::Select { filter: pairs, .. } | Shape::Insert { values: pairs, .. } => {
                pairs.iter().any(|(_, v)| *v == Source::Key)
            }
            _ => false,
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
