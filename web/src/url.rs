//! The tolerant URL reader both pages share: the reader's page reads its
//! moment with it (`state::parse_query`), the workshop its setup
//! (`lousa-workshop`'s `url::parse`).
//!
//! A query is read pair by pair, in order, each value percent-decoded. A
//! parameter that appears again keeps its first value, as
//! `URLSearchParams.get` (and so `web/lang.js`) reads it. Nothing a link
//! says makes the reading fail: a value a page cannot use becomes a
//! [`Problem`] that names the parameter, quotes the value (cut, with
//! direction-changing characters escaped) and says why; the page shows it
//! (`text::problem_lines`, the one set of words for both pages) and puts
//! its default in the value's place. Only the first [`PROBLEMS_MAX`]
//! problems are kept, the rest counted: a link with thousands of bad pairs
//! opens at once.
//!
//! Pure, on lousa-core alone (no Leptos, no web-sys): the workshop's fuzz
//! target compiles this file by path, beside the workshop's `url.rs`.

use lousa_core::Strategy;
use lousa_core::builtins;
use lousa_core::choice::Misfit;
use lousa_core::narrate::Lang;
use lousa_core::query::decode;
use lousa_core::text::cut;
use std::borrow::Cow;
use std::str::FromStr;

/// How many problems a reading lists; the others are only counted. Eight
/// lines and a count tell a reader as much as thousands.
pub const PROBLEMS_MAX: usize = 8;

/// How many characters of a parameter's name or value a problem quotes.
pub const VALUE_MAX: usize = 40;

/// How many characters of the core's words a problem quotes (they quote
/// the value themselves, and name what in it was refused).
pub const WORDS_MAX: usize = 5 * VALUE_MAX;

/// A URL parameter a page could not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The parameter as the link spelled it, cut to [`VALUE_MAX`].
    pub param: String,
    /// Its value, decoded and cut to [`VALUE_MAX`] characters, with
    /// control and direction-changing characters escaped (`text::cut`).
    pub value: String,
    pub reason: Reason,
}

/// Why a page could not use a parameter, and so what stands instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not a parameter the page reads; it is left alone. Only the
    /// workshop says so: the reader's page may be embedded in a host page
    /// whose query holds parameters of its own.
    UnknownParameter,
    /// The parameter appears again; its first value stands.
    Repeated,
    UnknownScenario,
    UnknownStrategy,
    /// Neither `pt` (or `pt-BR`) nor `en`.
    UnknownLanguage,
    /// Not a name of what the reader's two lines compare (`designs`,
    /// `pair`).
    UnknownLines,
    /// Not a challenge of the workshop's lesson.
    UnknownChallenge,
    NotANumber,
    /// Digits, but more than the parameter holds (a frame past 2^32).
    TooLarge,
    /// Neither `1` (on) nor `0` (off).
    NotASwitch,
    /// A frame past the run's last; the start stands.
    FrameOutOfRange,
    /// The scenario link's edits, refused in the core's words (cut to
    /// [`WORDS_MAX`]); the built-in stands.
    EditsRefused(String),
    /// The schedule does not read (the core's words); no choice is taken.
    ScheduleUnreadable(String),
    /// The schedule reads but does not fit the run; the choices before
    /// the misfit stand.
    ScheduleMisfit(Misfit),
    /// The fork does not read, or this run cannot take it (the core's
    /// words); the run shows without it.
    ForkRefused(String),
    /// The workshop's design does not read or check (the core's words);
    /// the strategy's own handler runs.
    DesignRefused(String),
}

impl Reason {
    /// A reason in the core's words, cut to [`WORDS_MAX`].
    pub fn words(text: &str) -> String {
        cut(text, WORDS_MAX)
    }
}

/// The problems of one reading: the first [`PROBLEMS_MAX`], in the order
/// found, and how many more there were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problems {
    pub list: Vec<Problem>,
    /// How many problems past the listed ones were only counted.
    pub unlisted: usize,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Lists `problem`, or counts it when the list is full.
    pub fn push(&mut self, problem: Problem) {
        if self.list.len() == PROBLEMS_MAX {
            self.unlisted += 1;
        } else {
            self.list.push(problem);
        }
    }

    /// Lists a problem with `param` and `value` (decoded) cut to
    /// [`VALUE_MAX`], or counts it, at no more cost than a count, when the
    /// list is full.
    pub fn report(&mut self, param: &str, value: &str, reason: Reason) {
        if self.list.len() == PROBLEMS_MAX {
            self.unlisted += 1;
            return;
        }
        self.list.push(Problem {
            param: cut(param, VALUE_MAX),
            value: cut(value, VALUE_MAX),
            reason,
        });
    }
}

/// What a reading does with a parameter no page reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// Leaves it alone (a host page's own parameters).
    Ignore,
    /// Reports it as [`Reason::UnknownParameter`].
    Report,
}

/// Reads `query` (with or without its `?`) pair by pair, in order, and
/// hands each value a page reads, decoded, to `read` with the parameter's
/// name; a refusal is reported with the name the link used. `params` lists
/// each parameter as its spellings, the name `read` gets first (the
/// workshop's `apresentar` is also `present`). A parameter met again, under
/// any spelling, is reported as [`Reason::Repeated`] and not read: its
/// first value stands. The work is linear in the query's length.
pub fn read_query(
    query: &str,
    params: &[&[&'static str]],
    unknown: Unknown,
    problems: &mut Problems,
    mut read: impl FnMut(&'static str, &str) -> Result<(), Reason>,
) {
    let mut seen = vec![false; params.len()];
    for pair in query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let Some(at) = param_index(params, name) else {
            if unknown == Unknown::Report {
                problems.report(name, &decoded(value), Reason::UnknownParameter);
            }
            continue;
        };
        let value = decoded(value);
        if std::mem::replace(&mut seen[at], true) {
            problems.report(name, &value, Reason::Repeated);
            continue;
        }
        if let Err(reason) = read(params[at][0], &value) {
            problems.report(name, &value, reason);
        }
    }
}

/// Which of `params` `name` spells.
pub fn param_index(params: &[&[&str]], name: &str) -> Option<usize> {
    params
        .iter()
        .position(|spellings| spellings.contains(&name))
}

/// `value` with its percent escapes and `+` decoded; borrowed when it has
/// none, as a page's own links do.
fn decoded(value: &str) -> Cow<'_, str> {
    if value.contains(['%', '+']) {
        Cow::Owned(decode(value))
    } else {
        Cow::Borrowed(value)
    }
}

/// A built-in's name (`scenario`; the workshop's scenario link reads the
/// name before its edits with it).
pub fn scenario(value: &str) -> Result<&'static str, Reason> {
    builtins::static_name(value).ok_or(Reason::UnknownScenario)
}

/// A design's name (`strategy`, and the reader's `left` and `right`).
pub fn strategy(value: &str) -> Result<Strategy, Reason> {
    Strategy::from_name(value).ok_or(Reason::UnknownStrategy)
}

/// The page's language (`lang`): `pt` (or `pt-BR`) or `en`.
pub fn lang(value: &str) -> Result<Lang, Reason> {
    match value {
        "pt" | "pt-BR" => Ok(Lang::Pt),
        "en" => Ok(Lang::En),
        _ => Err(Reason::UnknownLanguage),
    }
}

/// A switch (the reader's `predict`, the workshop's `apresentar`): `1` on,
/// `0` off.
pub fn switch(value: &str) -> Result<bool, Reason> {
    match value {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(Reason::NotASwitch),
    }
}

/// A whole number (the reader's `seed`), told apart from digits too many
/// to hold.
pub fn whole<T: FromStr>(value: &str) -> Result<T, Reason> {
    value.parse::<T>().map_err(|_| {
        let digits = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
        if digits {
            Reason::TooLarge
        } else {
            Reason::NotANumber
        }
    })
}

/// A frame (`frame`, on both pages): a whole number below 2^32, whatever
/// the platform, so that a link opens the same natively and in wasm32.
pub fn frame(value: &str) -> Result<usize, Reason> {
    whole::<u32>(value).map(|f| f as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARAMS: [&[&str]; 7] = [
        &["scenario"],
        &["strategy"],
        &["lang"],
        &["frame"],
        &["seed"],
        &["apresentar", "present"],
        &["schedule"],
    ];

    /// A page's reading of [`PARAMS`] with the shared helpers.
    fn reading(query: &str, unknown: Unknown) -> (Vec<(&'static str, String)>, Problems) {
        let mut read = Vec::new();
        let mut problems = Problems::default();
        read_query(query, &PARAMS, unknown, &mut problems, |param, value| {
            match param {
                "scenario" => scenario(value).map(|_| ()),
                "strategy" => strategy(value).map(|_| ()),
                "lang" => lang(value).map(|_| ()),
                "frame" => frame(value).map(|_| ()),
                "seed" => whole::<u64>(value).map(|_| ()),
                "apresentar" => switch(value).map(|_| ()),
                _ => Ok(()),
            }?;
            read.push((param, value.to_string()));
            Ok(())
        });
        (read, problems)
    }

    fn named(problems: &Problems) -> Vec<(&str, &str, Reason)> {
        problems
            .list
            .iter()
            .map(|p| (p.param.as_str(), p.value.as_str(), p.reason.clone()))
            .collect()
    }

    #[test]
    fn each_parameter_s_bad_value_is_named_with_its_value_and_reason() {
        let (read, problems) = reading(
            "?scenario=nope&strategy=magic&lang=fr&frame=abc&seed=-1&apresentar=sim",
            Unknown::Ignore,
        );
        assert_eq!(read, vec![]);
        assert_eq!(
            named(&problems),
            vec![
                ("scenario", "nope", Reason::UnknownScenario),
                ("strategy", "magic", Reason::UnknownStrategy),
                ("lang", "fr", Reason::UnknownLanguage),
                ("frame", "abc", Reason::NotANumber),
                ("seed", "-1", Reason::NotANumber),
                ("apresentar", "sim", Reason::NotASwitch),
            ]
        );
        assert_eq!(problems.unlisted, 0);
    }

    #[test]
    fn good_values_read_and_leave_no_problem() {
        assert_eq!(scenario("race-2"), Ok("race-2"));
        assert_eq!(strategy("naive"), Ok(Strategy::Naive));
        assert_eq!(lang("pt-BR"), Ok(Lang::Pt));
        assert_eq!(lang("en"), Ok(Lang::En));
        assert_eq!(frame("4294967295"), Ok(4_294_967_295));
        assert_eq!(switch("0"), Ok(false));
        let (read, problems) = reading(
            "scenario=race-2&strategy=naive&lang=en&frame=3&seed=9&present=1",
            Unknown::Report,
        );
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<&str> = read.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            names,
            [
                "scenario",
                "strategy",
                "lang",
                "frame",
                "seed",
                "apresentar"
            ],
            "a parameter is read under its first spelling"
        );
    }

    #[test]
    fn numbers_past_their_type_are_too_large_not_unreadable() {
        assert_eq!(frame("4294967296"), Err(Reason::TooLarge));
        assert_eq!(whole::<u64>("99999999999999999999"), Err(Reason::TooLarge));
        assert_eq!(frame("-1"), Err(Reason::NotANumber));
        assert_eq!(frame(""), Err(Reason::NotANumber));
        assert_eq!(frame("1e3"), Err(Reason::NotANumber));
    }

    #[test]
    fn values_are_decoded_before_they_are_read_and_quoted() {
        let (read, problems) = reading("scenario=race%2D2&strategy=%E2%80%AEx", Unknown::Ignore);
        assert_eq!(read, vec![("scenario", "race-2".to_string())]);
        assert_eq!(
            named(&problems),
            vec![("strategy", "\\u{202e}x", Reason::UnknownStrategy)]
        );
        // A broken escape is kept as it came.
        let (_, problems) = reading("lang=%e", Unknown::Ignore);
        assert_eq!(problems.list[0].value, "%e");
    }

    #[test]
    fn a_repeat_keeps_the_first_value_under_any_spelling() {
        let (read, problems) = reading(
            "frame=3&frame=4&apresentar=1&present=0&lang=fr&lang=en",
            Unknown::Ignore,
        );
        assert_eq!(
            read,
            vec![("frame", "3".to_string()), ("apresentar", "1".to_string())]
        );
        assert_eq!(
            named(&problems),
            vec![
                ("frame", "4", Reason::Repeated),
                ("present", "0", Reason::Repeated),
                ("lang", "fr", Reason::UnknownLanguage),
                ("lang", "en", Reason::Repeated),
            ]
        );
    }

    #[test]
    fn unknown_parameters_are_left_alone_or_named() {
        let query = "post=42&scenario=race-2&zz=%41";
        let (_, ignored) = reading(query, Unknown::Ignore);
        assert!(ignored.is_empty(), "{ignored:?}");
        let (_, named_) = reading(query, Unknown::Report);
        assert_eq!(
            named(&named_),
            vec![
                ("post", "42", Reason::UnknownParameter),
                ("zz", "A", Reason::UnknownParameter),
            ]
        );
    }

    #[test]
    fn huge_names_and_values_are_cut() {
        let huge = "x".repeat(1_000_000);
        let (_, problems) = reading(
            &format!(
                "scenario={huge}&{huge}={huge}&frame={}",
                "9".repeat(100_000)
            ),
            Unknown::Report,
        );
        let cut_to = "x".repeat(VALUE_MAX) + "…";
        assert_eq!(
            named(&problems),
            vec![
                ("scenario", cut_to.as_str(), Reason::UnknownScenario),
                (cut_to.as_str(), cut_to.as_str(), Reason::UnknownParameter),
                ("frame", &*("9".repeat(VALUE_MAX) + "…"), Reason::TooLarge),
            ]
        );
        // Escaped, a character takes three bytes or more: still cut by
        // characters shown.
        let (_, problems) = reading(
            &format!("lang={}", "%C3%A9".repeat(10_000)),
            Unknown::Ignore,
        );
        assert_eq!(problems.list[0].value, "é".repeat(VALUE_MAX) + "…");
        assert_eq!(
            Reason::words(&huge).chars().count(),
            WORDS_MAX + 1,
            "the core's words are cut too"
        );
    }

    #[test]
    fn thousands_of_problems_are_listed_to_the_limit_and_counted() {
        let (_, problems) = reading(&"strategy=nope&".repeat(10_000), Unknown::Ignore);
        assert_eq!(problems.list.len(), PROBLEMS_MAX);
        assert_eq!(problems.unlisted, 10_000 - PROBLEMS_MAX);
        assert_eq!(problems.list[0].reason, Reason::UnknownStrategy);
        assert_eq!(problems.list[1].reason, Reason::Repeated);
        let mut few = Problems::default();
        for _ in 0..PROBLEMS_MAX {
            few.report("zz", "1", Reason::UnknownParameter);
        }
        assert_eq!((few.list.len(), few.unlisted), (PROBLEMS_MAX, 0));
        few.push(Problem {
            param: "frame".into(),
            value: "999".into(),
            reason: Reason::FrameOutOfRange,
        });
        assert_eq!((few.list.len(), few.unlisted), (PROBLEMS_MAX, 1));
    }
}
