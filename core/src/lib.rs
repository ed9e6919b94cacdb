//! Lousa's deterministic simulation core: clients, a load balancer,
//! instances, an acquirer and a PostgreSQL-like store on one discrete-event
//! timeline.
//!
//! Architecture invariant: this crate does no I/O, reads no clock and uses no
//! unseeded randomness. Time is a value the world advances; every
//! nondeterministic decision goes through [`choice::Chooser`].

#![forbid(unsafe_code)]

pub mod at_limits;
pub mod builtins;
pub mod choice;
pub mod design;
pub mod explore;
pub mod export;
pub mod fault_swarm;
mod fingerprint;
pub mod fork;
pub mod handler;
pub mod json;
pub mod lesson;
pub mod link;
pub mod narrate;
mod part;
mod permutation;
pub mod predict;
pub mod property;
pub mod query;
pub mod run;
pub mod scenario;
pub mod scheduling;
pub mod store;
pub mod story;
pub mod swarm;
pub mod sweep;
pub mod text;
pub mod trace;
pub mod view;
pub mod world;

pub use choice::{Chooser, RngChooser, Schedule, ScheduleChooser};
pub use run::{Run, run, run_with};
pub use scenario::{Scenario, ScenarioError, Strategy};
pub use world::World;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
