//! The one seam through which every nondeterministic decision passes.
//!
//! The world never decides on its own: when several events are due at the
//! same instant, when the load balancer may pick any instance, when a network
//! hop or a client's backoff has jitter, it asks a [`Chooser`]. A seeded RNG
//! chooser drives the demo; a [`Schedule`] replays or explores.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChoiceKind {
    /// Which of the events due at the same instant happens first.
    Next,
    /// Which instance the load balancer sends a request to.
    Route,
    /// Extra milliseconds on a network hop.
    Jitter,
    /// Extra milliseconds on a client's wait before a retry.
    Backoff,
}

pub trait Chooser {
    /// Picks one of `n >= 2` alternatives, as an index below `n`.
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32;
}

/// The demo chooser: a portable PRNG seeded by the scenario, so the same seed
/// gives the same run on every platform.
pub struct RngChooser {
    rng: ChaCha8Rng,
}

impl RngChooser {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Chooser for RngChooser {
    fn choose(&mut self, _kind: ChoiceKind, n: u32) -> u32 {
        // Multiply-shift: no modulo bias worth the name, and no float.
        ((u64::from(self.rng.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// A sequence of choices, one per choice point with two or more
/// alternatives. Past its end every choice is 0 (first come, first served),
/// so any prefix of a schedule is itself a valid schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Schedule(pub Vec<u32>);

impl Schedule {
    /// The text form keeping trailing zeros, which parses back to exactly
    /// these choices. The display drops them: that replays the same run,
    /// but a prefix that stands at a choice point needs them all.
    pub fn exact_text(&self) -> String {
        let kept = self.trimmed();
        let zeros = self.0.len() - kept.0.len();
        let tail = match zeros {
            0 => String::new(),
            // "0" alone is the empty schedule.
            1 if kept.0.is_empty() => "0x1".to_string(),
            1 | 2 => vec!["0"; zeros].join("-"),
            n => format!("0x{n}"),
        };
        match (kept.0.is_empty(), tail.is_empty()) {
            (true, _) => tail,
            (false, true) => kept.to_string(),
            (false, false) => format!("{kept}-{tail}"),
        }
    }

    /// The choices without trailing zeros, which replay identically.
    pub fn trimmed(&self) -> Schedule {
        let end = self.0.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
        Schedule(self.0[..end].to_vec())
    }
}

/// Text form: choices in base 36 joined by `-`, runs written `cxN`, trailing
/// zeros dropped; the empty schedule is `0`. `1-0x5-2` is 1,0,0,0,0,0,2.
impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.trimmed();
        if t.0.is_empty() {
            return f.write_str("0");
        }
        let mut parts = Vec::new();
        let mut i = 0;
        while i < t.0.len() {
            let c = t.0[i];
            let run = t.0[i..].iter().take_while(|&&x| x == c).count();
            let digit = to_base36(c);
            if run >= 3 {
                parts.push(format!("{digit}x{run}"));
            } else {
                parts.extend(std::iter::repeat_n(digit, run));
            }
            i += run;
        }
        f.write_str(&parts.join("-"))
    }
}

/// Longest schedule a text form may expand to: keeps a URL from asking for
/// unbounded memory.
pub const SCHEDULE_LEN_MAX: usize = 100_000;

/// Why a schedule's text does not parse: where, and what was expected
/// there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleParseError {
    /// Byte offset of the offending part in the text as given (0-based).
    pub position: usize,
    /// The offending part (the text between two `-`), as written.
    pub found: String,
    pub expected: Expected,
}

/// What a schedule's text needed where it went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A choice in base 36 (`0`-`9`, `a`-`z`), before any `x`.
    Choice,
    /// A choice of base-36 digits that no choice point could have: past
    /// `u32::MAX`.
    SmallerChoice,
    /// A decimal run length of 1 or more after the `x` of `cxN`.
    RunLength,
    /// No more than [`SCHEDULE_LEN_MAX`] choices in all.
    WithinLimit,
}

impl fmt::Display for ScheduleParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.expected {
            Expected::Choice => "a base-36 choice (0-9, a-z)".to_string(),
            Expected::SmallerChoice => format!(
                "a base-36 choice of at most {} (a choice point has a few alternatives)",
                to_base36(u32::MAX)
            ),
            Expected::RunLength => {
                "a decimal run length of 1 or more after 'x', as in 0x6".to_string()
            }
            Expected::WithinLimit => {
                format!("at most {SCHEDULE_LEN_MAX} choices in all, but this run expands past it")
            }
        };
        // A link may carry a huge bad part: show its start only.
        let found = match self.found.char_indices().nth(FOUND_SHOWN) {
            Some((at, _)) => format!("{:?}…", &self.found[..at]),
            None => format!("{:?}", self.found),
        };
        write!(
            f,
            "schedule: at character {} ({found}): expected {what}",
            self.position + 1,
        )
    }
}

/// Characters of a bad part a parse error quotes.
const FOUND_SHOWN: usize = 24;

impl std::error::Error for ScheduleParseError {}

impl FromStr for Schedule {
    type Err = ScheduleParseError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let s = text.trim();
        if s.is_empty() || s == "0" {
            return Ok(Schedule::default());
        }
        let mut out = Vec::new();
        // Where the current part starts in `text`: after leading blanks, then
        // each part's length and its `-`.
        let mut position = text.len() - text.trim_start().len();
        for part in s.split('-') {
            let fail = |expected| ScheduleParseError {
                position,
                found: part.to_string(),
                expected,
            };
            let (digit, run) = match part.split_once('x') {
                Some((d, r)) => (d, run_length(r).map_err(fail)?),
                None => (part, 1),
            };
            let c = u32::from_str_radix(digit, 36).map_err(|_| {
                // Digits that only overflow are a number too large, not a typo.
                let digits = !digit.is_empty() && digit.chars().all(|c| c.is_ascii_alphanumeric());
                fail(if digits {
                    Expected::SmallerChoice
                } else {
                    Expected::Choice
                })
            })?;
            // Checked: a run length from a link can be near usize::MAX, and on
            // wasm32 that is only u32::MAX, so a plain sum would wrap past the
            // limit and the expansion would ask for all the memory there is.
            if out
                .len()
                .checked_add(run)
                .is_none_or(|n| n > SCHEDULE_LEN_MAX)
            {
                return Err(fail(Expected::WithinLimit));
            }
            out.extend(std::iter::repeat_n(c, run));
            position += part.len() + 1;
        }
        Ok(Schedule(out))
    }
}

/// The `N` of `cxN`: decimal digits only, and not zero (a choice made no
/// times is a typo, not a schedule); a number too large for any count is
/// past the limit, not a malformed one.
fn run_length(text: &str) -> Result<usize, Expected> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Expected::RunLength);
    }
    match text.parse::<usize>() {
        Ok(0) => Err(Expected::RunLength),
        Ok(n) => Ok(n),
        Err(_) => Err(Expected::WithinLimit),
    }
}

fn to_base36(mut n: u32) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut buf = Vec::new();
    loop {
        buf.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    // ASCII digits, so each byte is its char (an `expect` on `from_utf8`
    // would pull Debug formatting of the error into the page).
    buf.iter().rev().map(|&b| char::from(b)).collect()
}

/// Replays a schedule and records every choice point it met, with its arity,
/// so an explorer can branch on what a run defaulted.
#[derive(Clone, Debug, Default)]
pub struct ScheduleChooser {
    script: Vec<u32>,
    /// (kind, arity, choice taken) for each choice point, in order.
    pub taken: Vec<(ChoiceKind, u32, u32)>,
}

impl ScheduleChooser {
    pub fn new(schedule: &Schedule) -> Self {
        Self {
            script: schedule.0.clone(),
            taken: Vec::new(),
        }
    }

    /// The choices made so far as a schedule.
    pub fn schedule(&self) -> Schedule {
        Schedule(self.taken.iter().map(|t| t.2).collect())
    }

    /// Where the script did not fit the run it drove, once the run is over:
    /// the first choice past its alternatives, or more choices than the run
    /// had choice points. (The chooser itself clamps and goes on, so that a
    /// schedule shrunk by proptest still replays; a reader's schedule is
    /// checked with this.)
    pub fn misfit(&self) -> Option<Misfit> {
        let past = self
            .script
            .iter()
            .zip(&self.taken)
            .position(|(&wanted, &(_, n, _))| wanted >= n);
        if let Some(at) = past {
            return Some(Misfit::PastAlternatives {
                position: at,
                choice: self.script[at],
                alternatives: self.taken[at].1,
            });
        }
        (self.script.len() > self.taken.len()).then_some(Misfit::TooLong {
            given: self.script.len(),
            points: self.taken.len(),
        })
    }
}

/// How a schedule does not fit the scenario it was replayed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misfit {
    /// The choice at `position` (0-based) names an alternative past the
    /// `alternatives` that choice point had.
    PastAlternatives {
        position: usize,
        choice: u32,
        alternatives: u32,
    },
    /// The schedule has `given` choices; the run had `points` choice points.
    TooLong { given: usize, points: usize },
}

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Misfit::PastAlternatives {
                position,
                choice,
                alternatives,
            } => write!(
                f,
                "choice {} is {choice}, past the {alternatives} alternatives of that choice point (0 to {})",
                position + 1,
                alternatives - 1
            ),
            Misfit::TooLong { given, points } => write!(
                f,
                "{}, past the {} of this run",
                crate::text::counted(given as u64, "choice", "choices"),
                crate::text::counted(points as u64, "choice point", "choice points")
            ),
        }
    }
}

impl Chooser for ScheduleChooser {
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32 {
        let i = self.taken.len();
        // A scripted index beyond the alternatives clamps to the last one, so
        // a schedule edited by hand or shrunk by proptest still replays.
        let c = self.script.get(i).copied().unwrap_or(0).min(n - 1);
        self.taken.push((kind, n, c));
        c
    }
}

/// Wraps a chooser and records what it chose, so a seeded run can be
/// replayed as a schedule.
pub struct Recording<C> {
    pub inner: C,
    pub taken: Vec<(ChoiceKind, u32, u32)>,
}

impl<C: Chooser> Recording<C> {
    pub fn new(inner: C) -> Self {
        Self {
            inner,
            taken: Vec::new(),
        }
    }
    pub fn schedule(&self) -> Schedule {
        Schedule(self.taken.iter().map(|t| t.2).collect())
    }
}

impl<C: Chooser> Chooser for Recording<C> {
    fn choose(&mut self, kind: ChoiceKind, n: u32) -> u32 {
        let c = self.inner.choose(kind, n);
        self.taken.push((kind, n, c));
        c
    }
}

#[cfg(test)]
mod misfit_tests {
    use super::*;

    #[test]
    fn a_choice_past_its_alternatives_and_a_long_script_are_named() {
        let mut c = ScheduleChooser::new(&"0-3-1".parse().expect("parses"));
        for n in [2, 2] {
            c.choose(ChoiceKind::Next, n);
        }
        assert_eq!(
            c.misfit(),
            Some(Misfit::PastAlternatives {
                position: 1,
                choice: 3,
                alternatives: 2
            })
        );
        assert!(
            c.misfit()
                .expect("misfit")
                .to_string()
                .contains("choice 2 is 3, past the 2 alternatives")
        );
        let mut fits = ScheduleChooser::new(&"1-0-1".parse().expect("parses"));
        for n in [2, 2] {
            fits.choose(ChoiceKind::Next, n);
        }
        assert_eq!(
            fits.misfit(),
            Some(Misfit::TooLong {
                given: 3,
                points: 2
            })
        );
        let mut exact = ScheduleChooser::new(&"1".parse().expect("parses"));
        for n in [2, 3, 2] {
            exact.choose(ChoiceKind::Next, n);
        }
        assert_eq!(
            exact.misfit(),
            None,
            "a shorter script is followed by first-come choices"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_bad_part_is_quoted_cut() {
        let e = "!".repeat(100_000).parse::<Schedule>().unwrap_err();
        let said = e.to_string();
        assert!(said.len() < 200, "{said}");
        assert!(
            said.contains(&format!("{:?}…", "!".repeat(FOUND_SHOWN))),
            "{said}"
        );
    }

    #[test]
    fn the_exact_text_keeps_trailing_zeros() {
        for choices in [
            vec![],
            vec![0],
            vec![0, 0],
            vec![0; 5],
            vec![1, 0],
            vec![2, 0, 0, 0],
            vec![0, 1],
        ] {
            let s = Schedule(choices);
            let text = s.exact_text();
            assert_eq!(text.parse::<Schedule>().unwrap(), s, "{text}");
        }
        assert_eq!(Schedule(vec![1, 0, 0, 0]).exact_text(), "1-0x3");
    }

    #[test]
    fn schedule_text_round_trips_and_compresses_runs() {
        let s = Schedule(vec![1, 0, 0, 0, 0, 0, 2, 40, 0, 0]);
        assert_eq!(s.to_string(), "1-0x5-2-14");
        assert_eq!("1-0x5-2-14".parse::<Schedule>().unwrap(), s.trimmed());
        assert_eq!(Schedule::default().to_string(), "0");
        assert_eq!("0".parse::<Schedule>().unwrap(), Schedule::default());
    }

    #[test]
    fn schedule_text_refuses_garbage_and_huge_runs() {
        let e = "1-zz!".parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.found.as_str()), (2, "zz!"));
        assert_eq!(e.expected, Expected::Choice);
        assert_eq!(
            e.to_string(),
            r#"schedule: at character 3 ("zz!"): expected a base-36 choice (0-9, a-z)"#
        );
        // Base-36 digits that overflow a choice are too large, not garbage.
        let e = "0-9999999".parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.expected), (2, Expected::SmallerChoice));
        assert!(
            e.to_string()
                .ends_with("of at most 1z141z3 (a choice point has a few alternatives)"),
            "{e}"
        );
        let e = "  0-1x".parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.expected), (4, Expected::RunLength));
        let e = "1x999999999".parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.expected), (0, Expected::WithinLimit));
        assert!(e.to_string().contains("at most 100000 choices"), "{e}");
        // A sign or a blank is not a run length, however the number reads.
        for bad in ["0x+5", "0x-5", "0x 5", "0x0", "1x00"] {
            let e = format!("1-{bad}").parse::<Schedule>().unwrap_err();
            assert_eq!((e.position, e.expected), (2, Expected::RunLength), "{bad}");
        }
    }

    /// Issue #35: a run length that wraps the running total (here after one
    /// choice, as in `0-0x18446744073709551615`) was let through and then
    /// expanded until the allocation failed. Every count near the top of
    /// usize, u32 and u64, and past u64, is refused with its position.
    #[test]
    fn run_lengths_near_the_top_of_every_width_are_refused_not_expanded() {
        let tops = [u64::from(u32::MAX), usize::MAX as u64, u64::MAX];
        for top in tops {
            for below in 0..=3 {
                let run = top - below;
                for prefix in ["", "0-", "0-1x99999-"] {
                    let text = format!("{prefix}0x{run}");
                    let e = text.parse::<Schedule>().unwrap_err();
                    assert_eq!(e.expected, Expected::WithinLimit, "{text}");
                    assert_eq!(e.position, prefix.len(), "{text}");
                }
            }
        }
        let past_u64 = "0-0x184467440737095516150";
        let e = past_u64.parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.expected), (2, Expected::WithinLimit));
        // The limit itself still parses, and one more choice does not.
        let at = format!("0x{SCHEDULE_LEN_MAX}");
        assert_eq!(at.parse::<Schedule>().unwrap().0.len(), SCHEDULE_LEN_MAX);
        let e = format!("0-{at}").parse::<Schedule>().unwrap_err();
        assert_eq!((e.position, e.expected), (2, Expected::WithinLimit));
    }

    #[test]
    fn schedule_chooser_falls_back_to_first_come_and_clamps() {
        let mut c = ScheduleChooser::new(&Schedule(vec![5]));
        assert_eq!(c.choose(ChoiceKind::Next, 3), 2);
        assert_eq!(c.choose(ChoiceKind::Next, 3), 0);
        assert_eq!(c.schedule(), Schedule(vec![2, 0]));
    }

    #[test]
    fn rng_chooser_is_reproducible() {
        let a: Vec<u32> = {
            let mut c = RngChooser::new(7);
            (0..20).map(|_| c.choose(ChoiceKind::Next, 5)).collect()
        };
        let mut c = RngChooser::new(7);
        let b: Vec<u32> = (0..20).map(|_| c.choose(ChoiceKind::Next, 5)).collect();
        assert_eq!(a, b);
        assert!(a.iter().all(|&x| x < 5));
        assert!(a.iter().any(|&x| x != a[0]), "a seeded stream should vary");
    }
}
