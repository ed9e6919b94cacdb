//! A fork of a run as a link carries it, and the palette of faults an
//! attendee can inject at a moment: `12:crash-2+3000` is "at frame 12,
//! instance 2 dies and restarts 3 s later". The run itself is
//! [`crate::run::run_forked`]; the world's side is `world::inject`.
//!
//! The text form numbers instances, attempts and calls from 1, as the board
//! and the narration do.

use crate::narrate::Lang;
pub use crate::run::Fork;
use crate::run::Run;
use crate::scenario::limits;
use crate::text::cut;
use crate::world::{Injection, World};
use std::fmt;

/// How long a crashed instance stays down when the palette offers a crash.
pub const RESTART_AFTER_MS: u64 = 3_000;
/// How much later a delayed message arrives when the palette offers it.
pub const DELAY_MS: u64 = 1_000;

/// Why a fork's text does not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkTextError {
    pub text: String,
    pub problem: String,
}

impl fmt::Display for ForkTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fork {:?}: {}", self.text, self.problem)
    }
}

impl fmt::Display for Fork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.frame)?;
        match self.injection {
            Injection::Crash {
                instance,
                restart_after_ms: Some(ms),
            } => write!(f, "crash-{}+{ms}", instance + 1),
            Injection::Crash {
                instance,
                restart_after_ms: None,
            } => write!(f, "crash-{}", instance + 1),
            Injection::LoseRequest { attempt } => write!(f, "lose-request-{}", attempt + 1),
            Injection::LoseResponse { attempt } => write!(f, "lose-response-{}", attempt + 1),
            Injection::SilenceAcquirer { call } => write!(f, "silence-acquirer-{}", call + 1),
            Injection::Delay { attempt, by_ms } => write!(f, "delay-{}+{by_ms}", attempt + 1),
        }
    }
}

impl std::str::FromStr for Fork {
    type Err = ForkTextError;

    fn from_str(text: &str) -> Result<Fork, ForkTextError> {
        let fail = |problem: String| ForkTextError {
            text: cut(text, 64),
            problem,
        };
        let (frame, what) = text
            .split_once(':')
            .ok_or_else(|| fail("expected FRAME:FAULT, e.g. 12:crash-2+3000".into()))?;
        let frame: usize = whole(frame, limits::EVENTS_MAX as u64)
            .map_err(|e| fail(format!("the frame {e}")))? as usize;
        let shown = |t: &str| cut(t, 24);
        let (name, rest) = what
            .rsplit_once('-')
            .ok_or_else(|| fail(format!("{:?} is not a fault: {KINDS}", shown(what))))?;
        let (number, ms) = match rest.split_once('+') {
            Some((n, ms)) => (n, Some(ms)),
            None => (rest, None),
        };
        let n = whole(number, u64::from(u32::MAX))
            .map_err(|e| fail(format!("the number after {:?} {e}", shown(name))))?;
        if n == 0 {
            return Err(fail(format!("{} counts from 1", shown(name))));
        }
        let n = (n - 1) as u32;
        let ms = ms
            .map(|ms| whole(ms, limits::TIME_MS_MAX))
            .transpose()
            .map_err(|e| fail(format!("the +milliseconds {e}")))?;
        let plain = |i: Injection| match ms {
            None => Ok(i),
            Some(_) => Err(fail(format!("{name} takes no +milliseconds"))),
        };
        let injection = match name {
            "crash" => Injection::Crash {
                instance: n,
                restart_after_ms: ms,
            },
            "lose-request" => plain(Injection::LoseRequest { attempt: n })?,
            "lose-response" => plain(Injection::LoseResponse { attempt: n })?,
            "silence-acquirer" => plain(Injection::SilenceAcquirer { call: n })?,
            "delay" => Injection::Delay {
                attempt: n,
                by_ms: ms
                    .ok_or_else(|| fail("delay needs +milliseconds, e.g. delay-2+500".into()))?,
            },
            _ => return Err(fail(format!("{:?} is not a fault: {KINDS}", shown(name)))),
        };
        Ok(Fork { frame, injection })
    }
}

const KINDS: &str =
    "choose crash-I[+MS], lose-request-A, lose-response-A, silence-acquirer-C or delay-A+MS";

/// A whole number at most `max`, or what is wrong with it.
fn whole(text: &str, max: u64) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("must be a whole number, got {:?}", cut(text, 24)));
    }
    match text.parse::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("is too large: at most {max}")),
    }
}

/// One fault the palette offers at a frame, with its label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    pub fork: Fork,
    pub label: String,
}

/// The faults that can be injected into `world_at_frame` (see
/// [`world_at`]), as forks at `frame`, labelled in `lang`.
pub fn palette(world_at_frame: &World, frame: usize, lang: Lang) -> Vec<Offer> {
    world_at_frame
        .injections(RESTART_AFTER_MS, DELAY_MS)
        .into_iter()
        .map(|injection| Offer {
            fork: Fork { frame, injection },
            label: label(injection, lang),
        })
        .collect()
}

/// What an injection does, in a few words.
pub fn label(injection: Injection, lang: Lang) -> String {
    let pt = matches!(lang, Lang::Pt);
    match injection {
        Injection::Crash { instance, .. } if pt => format!("derrubar a instância {}", instance + 1),
        Injection::Crash { instance, .. } => format!("crash instance {}", instance + 1),
        Injection::LoseRequest { attempt } if pt => format!("perder a tentativa {}", attempt + 1),
        Injection::LoseRequest { attempt } => format!("lose attempt {}", attempt + 1),
        Injection::LoseResponse { attempt } if pt => {
            format!("perder a resposta da tentativa {}", attempt + 1)
        }
        Injection::LoseResponse { attempt } => {
            format!("lose the answer to attempt {}", attempt + 1)
        }
        Injection::SilenceAcquirer { call } if pt => {
            format!("calar o adquirente na chamada {}", call + 1)
        }
        Injection::SilenceAcquirer { call } => format!("silence the acquirer on call {}", call + 1),
        Injection::Delay { attempt, by_ms } if pt => {
            format!("atrasar a tentativa {} em {by_ms} ms", attempt + 1)
        }
        Injection::Delay { attempt, by_ms } => {
            format!("delay attempt {} by {by_ms} ms", attempt + 1)
        }
    }
}

/// The world at `frame` of a replay of `run`: what [`palette`] reads.
pub fn world_at(scenario: &crate::Scenario, run: &Run, frame: usize) -> Option<World> {
    let schedule: crate::Schedule = run.schedule.parse().ok()?;
    let mut chooser = crate::ScheduleChooser::new(&schedule);
    let mut w = World::new(scenario);
    for _ in 0..frame {
        if w.is_done() {
            return None;
        }
        w.step(&mut chooser);
    }
    Some(w)
}
