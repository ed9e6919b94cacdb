//! What the worker posts back: `ready`, then for each request its progress
//! and its end.

use lousa_core::explore::{self, Report};
use lousa_core::sweep::SweepReport;
use serde::{Deserialize, Serialize};

/// A message to the page about a request whose progress is `P` and whose
/// end is `D`: an exploration's by default, a sweep's as [`SweepMessage`].
/// Both kinds share their keys, since a page knows which it asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Message<P = Figures, D = Done> {
    Ready(Ready),
    Progress(P),
    Done(Box<D>),
    Error { message: String },
}

/// A sweep's messages.
pub type SweepMessage = Message<SweepFigures, SweepDone>;

impl<P: Serialize, D: Serialize> Message<P, D> {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a message is JSON")
    }
}

/// The first message, once the worker listens: the explorer's limits on
/// `max_states`, the default a request without one runs under and the most
/// one may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    pub states_default: u32,
    pub states_max: u32,
}

impl Ready {
    /// The limits of the explorer this build links.
    pub fn now() -> Ready {
        Ready {
            states_default: explore::limits::STATES_DEFAULT,
            states_max: explore::limits::STATES_MAX,
        }
    }
}

/// How far an exploration has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub states: u64,
    pub transitions: u64,
    /// The mean since the run started; 0 before any time has passed.
    pub states_per_s: u64,
    /// Wall time since the run started, in milliseconds.
    pub elapsed_ms: f64,
}

impl Figures {
    pub fn new(states: u64, transitions: u64, elapsed_ms: f64) -> Figures {
        let states_per_s = if elapsed_ms > 0.0 {
            (states as f64 * 1000.0 / elapsed_ms).round() as u64
        } else {
            0
        };
        Figures {
            states,
            transitions,
            states_per_s,
            // Microseconds are all any clock here resolves.
            elapsed_ms: (elapsed_ms * 1000.0).round() / 1000.0,
        }
    }
}

/// The end of an exploration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Done {
    pub report: Report,
    pub passed: bool,
    /// Why the run did not pass, as `lousa explore` words its exit message.
    pub failure: Option<String>,
    pub states_per_s: u64,
    pub elapsed_ms: f64,
    /// Whether the report was read off the graph the worker kept rather
    /// than explored.
    pub reused: bool,
}

/// How far a sweep has come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SweepFigures {
    pub runs: u64,
    /// Cells x designs x seeds: the runs the sweep will make.
    pub runs_total: u64,
    /// The mean since the sweep started; 0 before any time has passed.
    pub runs_per_s: u64,
    pub elapsed_ms: f64,
}

impl SweepFigures {
    pub fn new(runs: u64, runs_total: u64, elapsed_ms: f64) -> SweepFigures {
        let f = Figures::new(runs, 0, elapsed_ms);
        SweepFigures {
            runs,
            runs_total,
            runs_per_s: f.states_per_s,
            elapsed_ms: f.elapsed_ms,
        }
    }
}

/// The end of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepDone {
    /// lousa-core's `sweep::SweepReport`: the JSON `lousa sweep --format
    /// json` prints.
    pub report: SweepReport,
    pub runs: u64,
    pub runs_per_s: u64,
    pub elapsed_ms: f64,
}
