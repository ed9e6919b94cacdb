//! A step's shape: what its `do` means against the design's tables, the
//! statement it runs and the columns of the row it returns.

use super::{Do, Update};
use crate::json::FieldError;
use crate::store::{Name, TableDef};

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
    /// The account's balance less the amount, from the balance read; with
    /// the version read in the WHERE, and bumped, on a versioned account.
    Debit {
        table: Name,
        versioned: bool,
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
    /// The account a balance scenario debits.
    Account,
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

/// The tables a design may name: the ones whose rows a request fills.
fn known_table(name: &str) -> Option<TableDef> {
    use crate::store::{
        chave_idempotencia_table, cobranca_simples_table, cobranca_table, conta_table,
        conta_versionada_table, evento_outbox_table, mensagem_processada_table, pedido_pago_table,
    };
    match name {
        "conta" => Some(conta_table()),
        "conta_versionada" => Some(conta_versionada_table()),
        "evento_outbox" => Some(evento_outbox_table()),
        "mensagem_processada" => Some(mensagem_processada_table()),
        "cobranca" => Some(cobranca_table()),
        "chave_idempotencia" => Some(chave_idempotencia_table()),
        "cobranca_simples" => Some(cobranca_simples_table()),
        "pedido_pago" => Some(pedido_pago_table()),
        _ => None,
    }
}

/// The table a design names, with the constraint it gives it: one UNIQUE
/// over the columns it lists (none for an empty list), or the table's own.
pub(super) fn table_def(t: &super::TableUse) -> Option<TableDef> {
    let mut def = known_table(&t.name)?;
    if let Some(unique) = &t.unique {
        def.uniques = if unique.is_empty() {
            vec![]
        } else {
            vec![crate::store::UniqueDef {
                name: format!("uq_{}_{}", def.name, unique.join("_")),
                columns: unique.clone(),
            }]
        };
    }
    Some(def)
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

pub(super) fn column(field: &str, def: &TableDef, name: &str) -> Result<(), FieldError> {
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

pub(super) fn table<'t>(
    field: &str,
    tables: &'t [TableDef],
    name: &str,
) -> Result<&'t TableDef, FieldError> {
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
pub(super) fn shape(
    at: &str,
    action: &Do,
    tables: &[TableDef],
) -> Result<(Shape, Vec<String>), FieldError> {
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
            if s.set.iter().any(|c| c == "saldo") {
                return debit(&at, s, def);
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

/// An update of `saldo`: the account's debit, written alone.
fn debit(at: &str, s: &Update, def: &TableDef) -> Result<(Shape, Vec<String>), FieldError> {
    for (k, c) in s.set.iter().enumerate() {
        column(&format!("{at}.set[{k}]"), def, c)?;
    }
    if s.set.len() > 1 {
        return refuse(
            format!("{at}.set"),
            "\"saldo\" is a debit of the account, set alone",
        );
    }
    for (flag, name) in [(s.fenced, "fenced"), (s.local, "local")] {
        if flag {
            return refuse(
                format!("{at}.{name}"),
                "a debit of the account is neither fenced nor a local answer",
            );
        }
    }
    let versioned = def.column_index("versao").is_some();
    Ok((
        Shape::Debit {
            table: Name::Owned(def.name.clone()),
            versioned,
        },
        // A versioned write returns the account when its version still
        // matched, so that one that lost the race reads "0 rows".
        if versioned { vec!["id".into()] } else { vec![] },
    ))
}

pub(super) fn short(field: &str, text: &str, max: usize) -> Result<(), FieldError> {
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
