//! Why a run on a server stopped before it could be compared. Each is a
//! value with a sentence for a person, never a panic: `lousa replay` prints
//! it and exits 2, the conformance suite fails the case with it.

use std::fmt;
use std::time::Duration;

/// Why the server side could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgError {
    /// No connection could be opened (`server` is the URL without its
    /// password). `answered` when the server itself refused (a password,
    /// a role, a database), rather than never being reached.
    Connect {
        server: String,
        detail: String,
        answered: bool,
    },
    /// The URL does not read as a PostgreSQL URL: nothing was tried.
    Url { detail: String },
    /// The role may not create a schema in the database.
    NoCreate { role: String, database: String },
    /// The server is not a version the store model was checked against.
    Version { found: String },
    /// A statement neither finished nor blocked on a lock in time.
    Timeout {
        what: String,
        after: Duration,
        blockers: String,
    },
    /// Ctrl-C (SIGINT) stopped the run.
    Interrupted,
    /// A connection broke or the server refused something that is not a
    /// statement's own outcome (set-up, a lock query, a cancel).
    Server(String),
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgError::Connect {
                server,
                detail,
                answered: true,
            } => write!(f, "PostgreSQL at {server} refused the connection: {detail}"),
            PgError::Connect { server, detail, .. } => write!(
                f,
                "cannot connect to PostgreSQL at {server}: {detail} (is the server running, \
                 and do the host, port, user and database in the URL exist?)"
            ),
            PgError::Url { detail } => write!(
                f,
                "--database-url: not a PostgreSQL URL ({detail}); write \
                 postgres://USER@HOST:PORT/DATABASE"
            ),
            PgError::NoCreate { role, database } => write!(
                f,
                "role {role} may not create a schema in database {database}: lousa replay works \
                 in a schema of its own and needs CREATE on the database \
                 (GRANT CREATE ON DATABASE {database} TO {role};), or use another role"
            ),
            PgError::Version { found } => write!(
                f,
                "PostgreSQL {found}: lousa replay runs on PostgreSQL 15 only, the version its \
                 store model was checked against by the conformance suite"
            ),
            PgError::Timeout {
                what,
                after,
                blockers,
            } => write!(
                f,
                "{what} neither finished nor blocked on a lock within {} s (blocked backends: \
                 {blockers}); the server may be overloaded, or something outside the replay \
                 holds a lock (raise --timeout to wait longer)",
                after.as_secs()
            ),
            PgError::Interrupted => write!(f, "interrupted (Ctrl-C)"),
            PgError::Server(detail) => write!(f, "{detail}"),
        }
    }
}

impl std::error::Error for PgError {}
