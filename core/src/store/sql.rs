//! The statements, values and schemas the store understands.
//!
//! Statements are structured data rather than SQL text so the model needs no
//! parser; [`Stmt::to_sql`] renders each one as the PostgreSQL statement that
//! the conformance suite sends to a real server.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// A table or column name in a statement: the handler's names are string
/// literals, so building a statement allocates no name (explorers build one
/// per SQL step); names read from JSON are owned.
pub type Name = Cow<'static, str>;

/// A column value. Only the types the product's tables use.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
}

impl Value {
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(s.into())
    }
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
    fn to_sql_literal(&self) -> String {
        match self {
            Value::Null => "NULL".into(),
            Value::Int(i) => i.to_string(),
            Value::Text(s) => format!("'{}'", s.replace('\'', "''")),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// `bigint generated always as identity primary key`
    Identity,
    BigInt,
    /// `int`, PostgreSQL's four bytes: a value past them is 22003.
    Int,
    Text,
    /// Stored as the text PostgreSQL prints for the jsonb value (the model
    /// canonicalizes what it is given, see `jsonb.rs`).
    Jsonb,
    /// `timestamptz default now()`: never read back by the product.
    CreatedAt,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ColumnDef {
    pub name: String,
    pub ty: ColumnType,
    pub not_null: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UniqueDef {
    pub name: String,
    pub columns: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TableDef {
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub uniques: Vec<UniqueDef>,
}

impl TableDef {
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    pub fn create_sql(&self) -> String {
        let mut parts: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let ty = match c.ty {
                    ColumnType::Identity => "bigint generated always as identity primary key",
                    ColumnType::BigInt => "bigint",
                    ColumnType::Int => "int",
                    ColumnType::Text => "text",
                    ColumnType::Jsonb => "jsonb",
                    ColumnType::CreatedAt => "timestamptz default now()",
                };
                let nn = if c.not_null { " not null" } else { "" };
                format!("{} {ty}{nn}", c.name)
            })
            .collect();
        for u in &self.uniques {
            parts.push(format!(
                "constraint {} unique ({})",
                u.name,
                u.columns.join(", ")
            ));
        }
        format!("CREATE TABLE {} ({})", self.name, parts.join(", "))
    }
}

fn col(name: &str, ty: ColumnType, not_null: bool) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        not_null,
    }
}

/// The table of DOMAIN.md: one row per idempotency key.
pub fn cobranca_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "cobranca".into(),
        columns: vec![
            col("id", Identity, true),
            col("idempotency_key", Text, true),
            col("pedido_id", BigInt, false),
            col("valor_centavos", BigInt, false),
            col("status", Text, false),
            col("resposta_http", Int, false),
            col("resposta_corpo", Jsonb, false),
            col("criada_em", CreatedAt, false),
        ],
        uniques: vec![UniqueDef {
            name: "uq_cobranca_idempotency_key".into(),
            columns: vec!["idempotency_key".into()],
        }],
    }
}

/// The table of the unprotected designs (`naive`, `check-then-act`): no key,
/// no constraint, so nothing in the database can refuse a second charge.
pub fn cobranca_simples_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "cobranca_simples".into(),
        columns: vec![
            col("id", Identity, true),
            col("pedido_id", BigInt, true),
            col("valor_centavos", BigInt, true),
            col("status", Text, false),
        ],
        uniques: vec![],
    }
}

/// The state-machine table of the second seed post: a key scoped by tenant
/// and operation, the payload fingerprint, a state and a lease.
pub fn chave_idempotencia_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "chave_idempotencia".into(),
        columns: vec![
            col("id", Identity, true),
            col("escopo", Text, true),
            col("chave", Text, true),
            col("impressao", Text, true),
            // The order the key charges: the reference the service sends
            // the acquirer with every capture, and the one recovery looks
            // up when no provider key was sent.
            col("pedido_id", BigInt, false),
            col("estado", Text, true),
            col("lease_ate_ms", BigInt, false),
            col("expira_em_ms", BigInt, false),
            col("resposta_http", Int, false),
            col("resposta_corpo", Jsonb, false),
            // The relevant headers of the stored answer (`Location`),
            // replayed with its status and body.
            col("resposta_headers", Jsonb, false),
        ],
        uniques: vec![UniqueDef {
            name: "uq_chave_idempotencia_escopo_chave".into(),
            columns: vec!["escopo".into(), "chave".into()],
        }],
    }
}

/// The business table of the local-effect variant (claim and effect in one
/// transaction).
pub fn pedido_pago_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "pedido_pago".into(),
        columns: vec![
            col("id", Identity, true),
            col("pedido_id", BigInt, true),
            col("valor_centavos", BigInt, true),
        ],
        uniques: vec![],
    }
}

/// The dedupe table of an at-least-once queue consumer, keyed by message id.
pub fn mensagem_processada_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "mensagem_processada".into(),
        columns: vec![
            col("id", Identity, true),
            col("message_id", Text, true),
            col("pedido_id", BigInt, false),
            // processing (with its lease) or completed, as a key's state.
            col("estado", Text, false),
            col("lease_ate_ms", BigInt, false),
        ],
        uniques: vec![UniqueDef {
            name: "uq_mensagem_processada_message_id".into(),
            columns: vec!["message_id".into()],
        }],
    }
}

/// The account a balance debit reads and writes (`local-effect` with a
/// balance): a decision that depends on a value read, which no key covers.
pub fn conta_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "conta".into(),
        columns: vec![col("id", Identity, true), col("saldo", BigInt, true)],
        uniques: vec![],
    }
}

/// The account with a version column, for the optimistic debit
/// (`local-effect` with `balance.version_column`): a write names the
/// version it read and bumps it, so a write from a stale read matches no
/// row. A table of its own, created only where a scenario uses it, so the
/// runs and scripts of every other scenario keep `conta` as it was.
pub fn conta_versionada_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "conta_versionada".into(),
        columns: vec![
            col("id", Identity, true),
            col("saldo", BigInt, true),
            col("versao", BigInt, true),
        ],
        uniques: vec![],
    }
}

/// The tables only some scenarios create, after [`all_tables`]'s.
pub fn optional_tables() -> Vec<TableDef> {
    vec![conta_versionada_table()]
}

/// Every table a statement may name: [`all_tables`], then
/// [`optional_tables`].
pub fn known_tables() -> Vec<TableDef> {
    let mut tables = all_tables();
    tables.extend(optional_tables());
    tables
}

/// The transactional outbox: the event of an effect, written in the
/// effect's own transaction, published later by a relay.
pub fn evento_outbox_table() -> TableDef {
    use ColumnType::*;
    TableDef {
        name: "evento_outbox".into(),
        columns: vec![
            col("id", Identity, true),
            col("pedido_id", BigInt, true),
            col("valor_centavos", BigInt, true),
            col("publicado", BigInt, true),
        ],
        uniques: vec![],
    }
}

/// Every table the simulation may create, in creation order.
pub fn all_tables() -> Vec<TableDef> {
    vec![
        cobranca_table(),
        cobranca_simples_table(),
        chave_idempotencia_table(),
        pedido_pago_table(),
        mensagem_processada_table(),
        conta_table(),
        evento_outbox_table(),
    ]
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Isolation {
    #[default]
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

/// A conjunction of `column = value` tests.
pub type Filter = Vec<(Name, Value)>;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Stmt {
    Begin {
        #[serde(default)]
        isolation: Isolation,
    },
    Commit,
    Rollback,
    Insert {
        table: Name,
        values: Vec<(Name, Value)>,
        /// `ON CONFLICT (columns) DO NOTHING` when present.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        on_conflict_do_nothing: Option<Vec<Name>>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        returning: Vec<Name>,
    },
    Select {
        table: Name,
        columns: Vec<Name>,
        #[serde(default)]
        filter: Filter,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        for_update: bool,
    },
    Update {
        table: Name,
        set: Vec<(Name, Value)>,
        /// Columns set to themselves plus one (`versao = versao + 1`), after
        /// `set`: an optimistic lock's version, bumped by the row's own
        /// value, whichever version the statement ends up writing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        increment: Vec<Name>,
        #[serde(default)]
        filter: Filter,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        returning: Vec<Name>,
    },
    Delete {
        table: Name,
        #[serde(default)]
        filter: Filter,
    },
}

fn where_sql(filter: &Filter) -> String {
    if filter.is_empty() {
        return String::new();
    }
    let terms: Vec<String> = filter
        .iter()
        .map(|(c, v)| format!("{c} = {}", v.to_sql_literal()))
        .collect();
    format!(" WHERE {}", terms.join(" AND "))
}

fn returning_sql(cols: &[Name]) -> String {
    if cols.is_empty() {
        String::new()
    } else {
        format!(" RETURNING {}", cols.join(", "))
    }
}

impl Stmt {
    /// The PostgreSQL text of this statement. jsonb columns are written as
    /// text literals, which PostgreSQL casts on insert; reads cast back with
    /// `::text` so both sides compare canonical text.
    pub fn to_sql(&self) -> String {
        match self {
            Stmt::Begin { isolation } => format!("BEGIN ISOLATION LEVEL {}", isolation.sql()),
            Stmt::Commit => "COMMIT".into(),
            Stmt::Rollback => "ROLLBACK".into(),
            Stmt::Insert {
                table,
                values,
                on_conflict_do_nothing,
                returning,
            } => {
                let cols: Vec<&str> = values.iter().map(|(c, _)| &**c).collect();
                let vals: Vec<String> = values.iter().map(|(_, v)| v.to_sql_literal()).collect();
                let conflict = on_conflict_do_nothing
                    .as_ref()
                    .map(|c| format!(" ON CONFLICT ({}) DO NOTHING", c.join(", ")))
                    .unwrap_or_default();
                format!(
                    "INSERT INTO {table} ({}) VALUES ({}){conflict}{}",
                    cols.join(", "),
                    vals.join(", "),
                    returning_sql(returning)
                )
            }
            Stmt::Select {
                table,
                columns,
                filter,
                for_update,
            } => {
                let cols: Vec<String> = columns.iter().map(|c| select_expr(table, c)).collect();
                format!(
                    "SELECT {} FROM {table}{}{}",
                    cols.join(", "),
                    where_sql(filter),
                    if *for_update { " FOR UPDATE" } else { "" }
                )
            }
            Stmt::Update {
                table,
                set,
                increment,
                filter,
                returning,
            } => {
                let sets: Vec<String> = set
                    .iter()
                    .map(|(c, v)| format!("{c} = {}", v.to_sql_literal()))
                    .chain(increment.iter().map(|c| format!("{c} = {c} + 1")))
                    .collect();
                format!(
                    "UPDATE {table} SET {}{}{}",
                    sets.join(", "),
                    where_sql(filter),
                    returning_sql(returning)
                )
            }
            Stmt::Delete { table, filter } => format!("DELETE FROM {table}{}", where_sql(filter)),
        }
    }

    /// The table a data statement touches; `None` for transaction control.
    pub fn table(&self) -> Option<&str> {
        match self {
            Stmt::Insert { table, .. }
            | Stmt::Select { table, .. }
            | Stmt::Update { table, .. }
            | Stmt::Delete { table, .. } => Some(table),
            _ => None,
        }
    }
}

/// jsonb columns are read as text so model and server compare the same form.
fn select_expr(table: &str, column: &str) -> String {
    let is_json = known_tables()
        .iter()
        .find(|t| t.name == table)
        .and_then(|t| t.columns.iter().find(|c| c.name == column))
        .is_some_and(|c| c.ty == ColumnType::Jsonb);
    if is_json {
        format!("{column}::text")
    } else {
        column.to_string()
    }
}

/// The SQLSTATE codes the model can raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SqlState {
    /// 23505
    UniqueViolation,
    /// 25P02
    InFailedTransaction,
    /// 40001
    SerializationFailure,
    /// 40P01
    DeadlockDetected,
    /// 42703 / 42P01: a statement that names an unknown table or column.
    UndefinedObject,
    /// 23502
    NotNullViolation,
    /// 22P02: text that is not valid JSON written to a jsonb column.
    InvalidTextRepresentation,
    /// 22003: a number past an `int` column's four bytes.
    NumericValueOutOfRange,
    /// 25001: a BEGIN inside a transaction asks for another isolation level
    /// after the transaction's first query.
    ActiveSqlTransaction,
}

impl SqlState {
    pub fn code(self) -> &'static str {
        match self {
            SqlState::UniqueViolation => "23505",
            SqlState::InFailedTransaction => "25P02",
            SqlState::SerializationFailure => "40001",
            SqlState::DeadlockDetected => "40P01",
            SqlState::UndefinedObject => "42P01",
            SqlState::NotNullViolation => "23502",
            SqlState::InvalidTextRepresentation => "22P02",
            SqlState::NumericValueOutOfRange => "22003",
            SqlState::ActiveSqlTransaction => "25001",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SqlError {
    pub state: SqlState,
    pub message: String,
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ERROR {}: {}", self.state.code(), self.message)
    }
}

/// What a completed statement returned.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct QueryResult {
    /// Rows returned (SELECT, RETURNING).
    pub rows: Vec<Vec<Value>>,
    /// Rows inserted, updated or deleted.
    pub affected: u64,
}

pub type StmtResult = Result<QueryResult, SqlError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_renders_as_postgresql_text() {
        let s = Stmt::Insert {
            table: "cobranca".into(),
            values: vec![
                ("idempotency_key".into(), Value::text("k'1")),
                ("pedido_id".into(), Value::Int(123)),
            ],
            on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
            returning: vec!["id".into()],
        };
        assert_eq!(
            s.to_sql(),
            "INSERT INTO cobranca (idempotency_key, pedido_id) VALUES ('k''1', 123) \
             ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"
        );
    }

    #[test]
    fn jsonb_columns_are_selected_as_text() {
        let s = Stmt::Select {
            table: "cobranca".into(),
            columns: vec!["status".into(), "resposta_corpo".into()],
            filter: vec![("idempotency_key".into(), Value::text("k"))],
            for_update: false,
        };
        assert_eq!(
            s.to_sql(),
            "SELECT status, resposta_corpo::text FROM cobranca WHERE idempotency_key = 'k'"
        );
    }

    #[test]
    fn cobranca_table_matches_the_domain() {
        let sql = cobranca_table().create_sql();
        assert!(sql.contains("constraint uq_cobranca_idempotency_key unique (idempotency_key)"));
        assert!(sql.contains("idempotency_key text not null"));
        assert!(sql.contains("resposta_http int,"), "{sql}");
    }
}
