//! The PostgreSQL-like store: see [`engine`] for the model and [`sql`] for
//! the statements it understands.

pub mod engine;
#[cfg(test)]
mod engine_tests;
pub(crate) mod jsonb;
pub mod sql;

#[cfg(test)]
pub(crate) use engine::with_ids_kept;
pub use engine::{Completion, Exec, RowView, SessionId, Store};
pub use sql::*;
