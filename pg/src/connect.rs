//! Reaching a server: the URL's settings, messages that never show the
//! password, the server's own words for its errors, and the checks
//! `lousa replay` makes before it creates anything.

use crate::PgError;
use postgres::{Client, Config, NoTls};
use std::time::Duration;

/// How long opening a connection may take when the URL does not say
/// (`connect_timeout`): a host that drops packets would otherwise hold the
/// runner, and a Ctrl-C, for minutes.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The server versions the store model was checked against: the
/// conformance suite runs on PostgreSQL 15 (`server_version_num`).
pub const SUPPORTED_VERSIONS: std::ops::Range<i32> = 150_000..160_000;

/// The URL's settings, with a connect timeout when it names none.
pub fn config(url: &str) -> Result<Config, PgError> {
    let mut config: Config = url.parse().map_err(|e: postgres::Error| {
        let mut detail = why(&e);
        // The client names the option; the limit is ours to say.
        if detail.ends_with("option `port`") {
            detail.push_str(", a number from 1 to 65535");
        }
        PgError::Url { detail }
    })?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    Ok(config)
}

/// `user@host:port/database`, never the password: what messages name.
pub fn describe(config: &Config) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}@{host}:{port}/{}",
        config.get_user().unwrap_or("(default user)"),
        config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("(default database)")
    )
}

/// What went wrong, with the server's own words: `postgres::Error`'s
/// Display says only "db error" for an error the server sent.
pub fn why(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut text = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
            if let Some(detail) = db.detail() {
                text.push_str(&format!(" ({detail})"));
            }
            text
        }
        // The error's own words are often only its kind ("invalid
        // configuration", "error connecting to server"): the causes say
        // what (a password missing, a name that does not resolve).
        None => {
            let mut text = e.to_string();
            let mut cause = std::error::Error::source(e);
            while let Some(c) = cause {
                let said = c.to_string();
                if !text.contains(&said) {
                    text.push_str(&format!(": {said}"));
                }
                cause = c.source();
            }
            text
        }
    }
}

pub(crate) fn connect(config: &Config) -> Result<Client, PgError> {
    config.connect(NoTls).map_err(|e| PgError::Connect {
        server: describe(config),
        detail: why(&e),
        answered: e.as_db_error().is_some(),
    })
}

/// What [`preflight`] learnt of the server.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ServerInfo {
    /// `user@host:port/database`, without the password.
    pub server: String,
    /// `server_version`, e.g. `15.18 (Debian 15.18-0+deb13u1)`.
    pub version: String,
    pub role: String,
    pub database: String,
    /// Whether the role may `SET deadlock_timeout` (a superuser, or one
    /// granted `SET ON PARAMETER deadlock_timeout`): see [`Deadlocks`].
    pub sets_deadlock_timeout: bool,
    /// The server's `deadlock_timeout`, in milliseconds.
    pub deadlock_timeout_ms: u64,
}

/// How a run makes PostgreSQL abort the deadlocked backend the model
/// aborts, the one that started waiting first: its detector must fire
/// first, and only after the cycle has closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deadlocks {
    /// Each statement sets its own `deadlock_timeout`, longer for each
    /// session already waiting.
    SetPerStatement,
    /// The role may not set it, so the server's one timeout holds for all:
    /// a statement sent while others wait goes out at least `gap` after the
    /// last wait began, which orders the detectors by the same margin.
    Spaced { gap: Duration },
}

impl ServerInfo {
    /// The way this server's role lets a run order deadlock victims: a
    /// tenth of the server's timeout apart, at most 100 ms, so that a cycle
    /// of up to ten waiting sessions closes before the first waiter's
    /// detector fires.
    pub fn deadlocks(&self) -> Deadlocks {
        if self.sets_deadlock_timeout {
            Deadlocks::SetPerStatement
        } else {
            Deadlocks::Spaced {
                gap: Duration::from_millis((self.deadlock_timeout_ms / 10).min(100)),
            }
        }
    }
}

/// Checks, before anything is created, that the server can be reached, is
/// PostgreSQL 15 and lets the role create a schema.
pub fn preflight(config: &Config) -> Result<ServerInfo, PgError> {
    let mut client = connect(config)?;
    let server_error =
        |e: postgres::Error| PgError::Server(format!("checking the server: {}", why(&e)));
    let row = client
        .query_one(
            "SELECT current_setting('server_version_num')::int, current_setting('server_version'), \
             current_user::text, current_database()::text, \
             has_database_privilege(current_database(), 'CREATE')",
            &[],
        )
        .map_err(server_error)?;
    let (num, version): (i32, String) = (row.get(0), row.get(1));
    let (role, database, create): (String, String, bool) = (row.get(2), row.get(3), row.get(4));
    if !SUPPORTED_VERSIONS.contains(&num) {
        return Err(PgError::Version { found: version });
    }
    if !create {
        return Err(PgError::NoCreate { role, database });
    }
    // After the version check: has_parameter_privilege is new in 15.
    let row = client
        .query_one(
            "SELECT has_parameter_privilege('deadlock_timeout', 'SET'), \
             (SELECT setting::bigint FROM pg_settings WHERE name = 'deadlock_timeout')",
            &[],
        )
        .map_err(server_error)?;
    let (sets_deadlock_timeout, deadlock_timeout_ms): (bool, i64) = (row.get(0), row.get(1));
    Ok(ServerInfo {
        server: describe(config),
        version,
        role,
        database,
        sets_deadlock_timeout,
        deadlock_timeout_ms: deadlock_timeout_ms.max(0) as u64,
    })
}
