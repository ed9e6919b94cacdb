//! What the page shows, as plain data, and how it is written in the URL.
//!
//! A [`Moment`] names one world (scenario, strategy, seed) at one frame, plus
//! what the twin timeline's two lines compare: two designs of that world, or
//! its pair (the same failure without and with one option). Everything on screen is computed
//! from it, so a link that carries a moment reopens exactly that picture.
//! Parsing never fails: a bad parameter becomes a [`Problem`] (`crate::url`,
//! the reader both pages share) the page shows, and the default takes its
//! place.

use crate::url::{self, Problem, Problems, Reason, Unknown};
use lousa_core::Strategy;
use lousa_core::builtins::{self, Pair};
use lousa_core::narrate::Lang;

/// The scenario the article tells, used when a paragraph or link names none.
pub const DEFAULT_SCENARIO: &str = "timeout-retry";
/// The twin timeline's top line: the intuitive design that fails.
pub const DEFAULT_LEFT: Strategy = Strategy::CheckThenAct;
/// The twin timeline's bottom line: the design that works.
pub const DEFAULT_RIGHT: Strategy = Strategy::IdempotencyKey;

/// Playback speeds, in steps per second.
pub const SPEEDS: [(&str, u32); 4] = [("0,5×", 500), ("1×", 1000), ("2×", 2000), ("4×", 4000)];
/// Milliseconds between two steps at 1×.
pub const STEP_MS_AT_1X: u32 = 900;

/// What the twin timeline's two lines compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lines {
    /// The lousa's scenario under two designs, `left` and `right`.
    #[default]
    Designs,
    /// The lousa's scenario and its partner (`builtins::pair_of`), both
    /// under the lousa's design: the same failure without and with one
    /// option. A scenario in no pair shows its designs instead.
    Pair,
}

impl Lines {
    /// The value of the `lines` URL parameter and of `data-lines`.
    pub fn from_name(name: &str) -> Option<Lines> {
        match name {
            "designs" => Some(Lines::Designs),
            "pair" => Some(Lines::Pair),
            _ => None,
        }
    }
}

/// The run one line of the twin timeline draws: a built-in under a design,
/// with the moment's seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub scenario: &'static str,
    pub strategy: Strategy,
}

/// One world at one frame, and what the two lines below the article compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moment {
    /// A name from `builtins::NAMES`.
    pub scenario: &'static str,
    /// The design the lousa draws.
    pub strategy: Strategy,
    /// The twin timeline's top line, when it compares designs.
    pub left: Strategy,
    /// The twin timeline's bottom line, when it compares designs.
    pub right: Strategy,
    /// Designs, or the scenario's pair.
    pub lines: Lines,
    pub seed: u64,
    /// Index into `Run::state_at` of the lousa's world.
    pub frame: usize,
}

impl Default for Moment {
    fn default() -> Self {
        Moment {
            scenario: DEFAULT_SCENARIO,
            strategy: DEFAULT_LEFT,
            left: DEFAULT_LEFT,
            right: DEFAULT_RIGHT,
            lines: Lines::Designs,
            seed: default_seed(DEFAULT_SCENARIO),
            frame: 0,
        }
    }
}

impl Moment {
    /// The pair the two lines show, if they show one.
    pub fn pair(&self) -> Option<&'static Pair> {
        (self.lines == Lines::Pair)
            .then(|| builtins::pair_of(self.scenario))
            .flatten()
    }

    /// The runs on the top and the bottom line.
    pub fn lines(&self) -> [Line; 2] {
        let line = |scenario, strategy| Line { scenario, strategy };
        match self.pair() {
            Some(pair) => [
                line(pair.top, self.strategy),
                line(pair.bottom, self.strategy),
            ],
            None => [
                line(self.scenario, self.left),
                line(self.scenario, self.right),
            ],
        }
    }

    /// Whether each line (top, bottom) draws the lousa's own world: that
    /// line is read at the lousa's frame, and says so.
    pub fn on_board(&self) -> [bool; 2] {
        let board = Line {
            scenario: self.scenario,
            strategy: self.strategy,
        };
        self.lines().map(|line| line == board)
    }

    /// Each line's name on the drawing: its design, or for a pair what the
    /// line lacks or has, since both lines run one design.
    pub fn line_names(&self, lang: Lang) -> [&'static str; 2] {
        let at = usize::from(lang == Lang::En);
        match self.pair() {
            Some(pair) => [pair.top_label[at], pair.bottom_label[at]],
            None => self.lines().map(|line| line.strategy.name()),
        }
    }
}

/// The seed a built-in ships with.
pub fn default_seed(scenario: &str) -> u64 {
    builtins::builtin(scenario).map_or(1, |s| s.seed)
}

/// The outcome of reading a URL's query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub moment: Moment,
    /// `Some` when the URL chose a language.
    pub lang: Option<Lang>,
    /// Whether the board asks before the decisive steps (`predict=1`).
    pub predict: bool,
    /// Whether the URL named a frame: then it, not the scroll position,
    /// decides what the lousa shows first.
    pub explicit: bool,
    /// Whether the URL named a scenario (otherwise the page's own applies).
    pub scenario_named: bool,
    /// What the page could not use, in the order of the query.
    pub problems: Problems,
}

/// The page's parameters, as `url::read_query` takes them.
const PARAMS: [&[&str]; 9] = [
    &["scenario"],
    &["strategy"],
    &["left"],
    &["right"],
    &["lines"],
    &["seed"],
    &["frame"],
    &["lang"],
    &["predict"],
];

/// Reads `scenario`, `strategy`, `left`, `right`, `lines`, `seed`, `frame`, `lang` and `predict`
/// from a query string (with or without its leading `?`) with the reader
/// both pages share (`crate::url`). Unknown parameters are ignored: a host
/// page that embeds the lousa keeps its own. The frame is checked against
/// the run later, by [`check_frame`], because only the run knows how many
/// frames there are. The work is linear in the query's length, whatever it
/// holds.
pub fn parse_query(query: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut seed = None;
    let Parsed {
        moment,
        lang,
        predict,
        explicit,
        scenario_named,
        problems,
    } = &mut parsed;
    url::read_query(
        query,
        &PARAMS,
        Unknown::Ignore,
        problems,
        |param, value| match param {
            "scenario" => url::scenario(value).map(|name| {
                moment.scenario = name;
                *scenario_named = true;
            }),
            "strategy" => url::strategy(value).map(|s| moment.strategy = s),
            "left" => url::strategy(value).map(|s| moment.left = s),
            "right" => url::strategy(value).map(|s| moment.right = s),
            "lines" => Lines::from_name(value)
                .map(|lines| moment.lines = lines)
                .ok_or(Reason::UnknownLines),
            "seed" => url::whole::<u64>(value).map(|s| seed = Some(s)),
            "frame" => url::frame(value).map(|f| {
                moment.frame = f;
                *explicit = true;
            }),
            "predict" => url::switch(value).map(|on| *predict = on),
            _ => url::lang(value).map(|l| *lang = Some(l)),
        },
    );
    parsed.moment.seed = seed.unwrap_or_else(|| default_seed(parsed.moment.scenario));
    parsed
}

/// The frame of a parsed moment, checked against the run's length: a frame
/// past the end is a problem, and the start takes its place.
pub fn check_frame(moment: &mut Moment, frame_count: usize) -> Option<Problem> {
    (moment.frame >= frame_count).then(|| {
        let value = moment.frame.to_string();
        moment.frame = 0;
        Problem {
            param: "frame".into(),
            value,
            reason: Reason::FrameOutOfRange,
        }
    })
}

/// The query string of a moment, every parameter spelled out so a shared link
/// does not depend on defaults that may change. (`lines` is written only for
/// a pair: links written before it existed compare designs, so its absence
/// can only ever mean that.)
pub fn to_query(moment: &Moment, lang: Lang, predict: bool) -> String {
    let mut query = format!(
        "?scenario={}&strategy={}&left={}&right={}&seed={}&frame={}",
        moment.scenario,
        moment.strategy.name(),
        moment.left.name(),
        moment.right.name(),
        moment.seed,
        moment.frame,
    );
    if moment.lines == Lines::Pair {
        query.push_str("&lines=pair");
    }
    if lang == Lang::En {
        query.push_str("&lang=en");
    }
    if predict {
        query.push_str("&predict=1");
    }
    query
}

/// The most bytes of other parameters the page keeps in its URL.
pub const FOREIGN_BYTES_MAX: usize = 2_048;

/// `ours` (a query from [`to_query`]) with the parameters of `current` that
/// are not the page's own ([`parse_query`]'s) kept in front of it, so a
/// host page that embeds the lousa keeps its own query, up to [`FOREIGN_BYTES_MAX`]
/// bytes of them.
pub fn merge_query(current: &str, ours: &str) -> String {
    let mut room = FOREIGN_BYTES_MAX;
    let foreign: Vec<&str> = current
        .trim_start_matches('?')
        .split('&')
        .filter(|pair| !pair.is_empty())
        .filter(|pair| {
            url::param_index(&PARAMS, pair.split_once('=').map_or(*pair, |(k, _)| k)).is_none()
        })
        // A host's query is a few short pairs; a megabyte that came with a
        // link would be rewritten at every step, so what does not fit is
        // dropped.
        .filter(|pair| {
            let fits = pair.len() < room;
            if fits {
                room -= pair.len() + 1;
            }
            fits
        })
        .collect();
    if foreign.is_empty() {
        return ours.to_string();
    }
    format!("?{}&{}", foreign.join("&"), ours.trim_start_matches('?'))
}

/// Where a step paragraph sends the lousa.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepTarget {
    pub scenario: &'static str,
    pub strategy: Strategy,
    /// A name from `story::BEATS`.
    pub beat: String,
    /// What the two lines compare while the paragraph is shown.
    pub lines: Lines,
}

/// Reads a paragraph's `data-step`, `data-scenario`, `data-strategy` and
/// `data-lines`. A missing scenario means the page's (`page_scenario`), a
/// missing strategy the top line's, missing lines designs: all settings,
/// never the last paragraph scrolled past, so the target depends on the
/// paragraph alone. Attributes that name nothing known (or a pair for a
/// scenario in none) are returned by name and replaced by those defaults
/// (an unknown beat shows the start).
pub fn step_target(
    beat: &str,
    scenario: Option<&str>,
    strategy: Option<&str>,
    lines: Option<&str>,
    page_scenario: &'static str,
    left: Strategy,
) -> (StepTarget, Vec<&'static str>) {
    let mut unknown = Vec::new();
    let scenario = match scenario {
        None => page_scenario,
        Some(name) => builtins::static_name(name).unwrap_or_else(|| {
            unknown.push("data-scenario");
            page_scenario
        }),
    };
    let strategy = match strategy {
        None => left,
        Some(name) => Strategy::from_name(name).unwrap_or_else(|| {
            unknown.push("data-strategy");
            left
        }),
    };
    let lines = match lines {
        None => Lines::Designs,
        Some(name) => match Lines::from_name(name) {
            Some(Lines::Pair) if builtins::pair_of(scenario).is_none() => None,
            known => known,
        }
        .unwrap_or_else(|| {
            unknown.push("data-lines");
            Lines::Designs
        }),
    };
    if !lousa_core::story::BEATS.contains(&beat) {
        unknown.push("data-step");
    }
    let target = StepTarget {
        scenario,
        strategy,
        beat: beat.to_string(),
        lines,
    };
    (target, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_query_is_the_default_moment_with_no_problems() {
        let parsed = parse_query("");
        assert_eq!(parsed.moment, Moment::default());
        assert!(!parsed.explicit);
        assert!(parsed.problems.is_empty());
        assert_eq!(parsed.lang, None);
    }

    #[test]
    fn a_written_moment_reads_back_as_the_same_moment() {
        let moment = Moment {
            scenario: "held-transaction",
            strategy: Strategy::IdempotencyKeyHeldTx,
            left: Strategy::Naive,
            right: Strategy::IdempotencyKeyLease,
            lines: Lines::Designs,
            seed: 42,
            frame: 11,
        };
        let pair = Moment {
            scenario: "late-retry-provider-key",
            lines: Lines::Pair,
            ..moment.clone()
        };
        for moment in [moment, pair] {
            for (lang, predict) in [(Lang::Pt, false), (Lang::En, true)] {
                let parsed = parse_query(&to_query(&moment, lang, predict));
                assert_eq!(parsed.moment, moment);
                assert!(parsed.explicit);
                assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
                assert_eq!(parsed.lang.unwrap_or(Lang::Pt), lang);
                assert_eq!(parsed.predict, predict);
            }
        }
    }

    #[test]
    fn a_link_that_compares_designs_is_written_as_before_the_pair_existed() {
        let query = to_query(&Moment::default(), Lang::Pt, false);
        assert_eq!(
            query,
            "?scenario=timeout-retry&strategy=check-then-act&left=check-then-act&right=idempotency-key&seed=1&frame=0"
        );
        assert_eq!(parse_query(&query).moment.lines, Lines::Designs);
        assert_eq!(parse_query("lines=designs").moment.lines, Lines::Designs);
        let bad = parse_query("lines=both");
        assert_eq!(
            (
                bad.problems.list[0].param.as_str(),
                &bad.problems.list[0].reason
            ),
            ("lines", &Reason::UnknownLines)
        );
    }

    #[test]
    fn designs_put_the_scenario_on_both_lines_and_the_board_on_its_design() {
        let moment = Moment {
            strategy: Strategy::IdempotencyKey,
            ..Moment::default()
        };
        let lines = moment.lines();
        assert_eq!(
            lines.map(|l| (l.scenario, l.strategy)),
            [
                ("timeout-retry", Strategy::CheckThenAct),
                ("timeout-retry", Strategy::IdempotencyKey)
            ]
        );
        assert_eq!(moment.on_board(), [false, true]);
        assert_eq!(
            moment.line_names(Lang::En),
            ["check-then-act", "idempotency-key"]
        );
        // A scenario in no pair compares its designs even when asked for a pair.
        let unpaired = Moment {
            lines: Lines::Pair,
            ..moment.clone()
        };
        assert_eq!(unpaired.pair(), None);
        assert_eq!(unpaired.lines(), lines);
    }

    #[test]
    fn a_pair_puts_each_scenario_on_its_line_under_the_board_s_design() {
        let moment = Moment {
            scenario: "late-retry-provider-key",
            strategy: Strategy::IdempotencyKeyLease,
            lines: Lines::Pair,
            ..Moment::default()
        };
        assert_eq!(
            moment.lines().map(|l| (l.scenario, l.strategy)),
            [
                ("late-retry-after-ttl", Strategy::IdempotencyKeyLease),
                ("late-retry-provider-key", Strategy::IdempotencyKeyLease)
            ],
            "left and right are the designs' lines, not the pair's"
        );
        assert_eq!(moment.on_board(), [false, true]);
        let top = Moment {
            scenario: "late-retry-after-ttl",
            ..moment.clone()
        };
        assert_eq!(top.lines(), moment.lines(), "either member names the pair");
        assert_eq!(top.on_board(), [true, false]);
        assert_eq!(
            moment.line_names(Lang::Pt),
            ["sem chave no adquirente", "com chave no adquirente"]
        );
        assert_eq!(
            moment.line_names(Lang::En),
            ["no key at the acquirer", "key sent to the acquirer"]
        );
    }

    #[test]
    fn every_bad_parameter_is_named_and_replaced_by_its_default() {
        let parsed =
            parse_query("scenario=nope&strategy=magic&left=&right=x&seed=-1&frame=abc&extra=1");
        assert_eq!(parsed.moment, Moment::default());
        let named: Vec<(&str, Reason)> = parsed
            .problems
            .list
            .iter()
            .map(|p| (p.param.as_str(), p.reason.clone()))
            .collect();
        assert_eq!(
            named,
            vec![
                ("scenario", Reason::UnknownScenario),
                ("strategy", Reason::UnknownStrategy),
                ("left", Reason::UnknownStrategy),
                ("right", Reason::UnknownStrategy),
                ("seed", Reason::NotANumber),
                ("frame", Reason::NotANumber),
            ]
        );
        assert_eq!(parsed.problems.list[0].value, "nope");
        assert_eq!(parsed.problems.unlisted, 0);
        assert!(
            !parsed.explicit,
            "an unreadable frame does not pin the moment"
        );
    }

    #[test]
    fn repeats_languages_and_huge_numbers_are_named_for_what_they_are() {
        let parsed =
            parse_query("frame=3&frame=4&lang=fr&frame=4294967296&seed=99999999999999999999");
        let named: Vec<(&str, Reason, &str)> = parsed
            .problems
            .list
            .iter()
            .map(|p| (p.param.as_str(), p.reason.clone(), p.value.as_str()))
            .collect();
        assert_eq!(
            named,
            vec![
                ("frame", Reason::Repeated, "4"),
                ("lang", Reason::UnknownLanguage, "fr"),
                ("frame", Reason::Repeated, "4294967296"),
                ("seed", Reason::TooLarge, "99999999999999999999"),
            ]
        );
        assert_eq!(parsed.moment.frame, 3, "the first value stands");
        let huge = parse_query("frame=4294967296");
        assert_eq!(huge.problems.list[0].reason, Reason::TooLarge);
        assert_eq!(
            parse_query("frame=-1").problems.list[0].reason,
            Reason::NotANumber
        );
        let switch = parse_query("predict=yes&predict=1");
        assert!(!switch.predict, "a bad value turns nothing on");
        let reasons: Vec<&Reason> = switch.problems.list.iter().map(|p| &p.reason).collect();
        assert_eq!(reasons, [&Reason::NotASwitch, &Reason::Repeated]);
        assert!(parse_query("?predict=1").predict && !parse_query("predict=0").predict);
    }

    /// The two readers disagreed: this page matched values as they came,
    /// so `scenario=race%2D2` was refused while its problem quoted
    /// "race-2"; the workshop decoded first. Both decode now.
    #[test]
    fn escaped_values_are_decoded_before_they_are_read() {
        let parsed = parse_query("scenario=race%2D2&lang=%65n&zz=%ZZ");
        assert_eq!(parsed.moment.scenario, "race-2");
        assert_eq!(parsed.lang, Some(Lang::En));
        assert!(
            parsed.problems.is_empty(),
            "a host page's own parameters are left alone: {:?}",
            parsed.problems
        );
    }

    #[test]
    fn a_huge_or_crowded_query_keeps_a_short_list() {
        let long = format!("scenario={}", "x".repeat(100_000));
        let parsed = parse_query(&long);
        assert_eq!(parsed.problems.list.len(), 1);
        assert_eq!(
            parsed.problems.list[0].value.chars().count(),
            url::VALUE_MAX + 1
        );
        assert!(parsed.problems.list[0].value.ends_with('…'));
        let crowded = "strategy=bad&".repeat(9_000);
        let parsed = parse_query(&crowded);
        assert_eq!(parsed.problems.list.len(), url::PROBLEMS_MAX);
        assert_eq!(parsed.problems.unlisted, 9_000 - url::PROBLEMS_MAX);
    }

    #[test]
    fn a_frame_past_the_end_falls_back_to_the_start() {
        let mut moment = parse_query("frame=999").moment;
        let problem = check_frame(&mut moment, 34).expect("out of range");
        assert_eq!(
            (problem.param.as_str(), problem.value.as_str()),
            ("frame", "999")
        );
        assert_eq!(problem.reason, Reason::FrameOutOfRange);
        assert_eq!(moment.frame, 0);
        let mut fine = parse_query("frame=33").moment;
        assert_eq!(check_frame(&mut fine, 34), None);
        assert_eq!(fine.frame, 33);
    }

    #[test]
    fn merging_keeps_a_host_page_s_own_parameters() {
        let ours = to_query(&Moment::default(), Lang::Pt, false);
        assert_eq!(merge_query("", &ours), ours);
        assert_eq!(merge_query("?frame=3&scenario=race-2", &ours), ours);
        // Issue #35: a 1.9 MB parameter is not rewritten at every step.
        let huge = format!("?post=42&junk={}&tag=x", "a".repeat(1_900_000));
        let merged = merge_query(&huge, &ours);
        assert!(merged.starts_with("?post=42&tag=x&"), "{}", &merged[..40]);
        assert!(merged.len() <= ours.len() + FOREIGN_BYTES_MAX + 1);
        let many = "&p=1234567".repeat(1_000);
        assert!(merge_query(&many, &ours).len() <= ours.len() + FOREIGN_BYTES_MAX + 1);
        let merged = merge_query("?post=42&frame=3", &ours);
        assert!(merged.starts_with("?post=42&scenario="), "{merged}");
        assert_eq!(parse_query(&merged).moment, Moment::default());
    }

    #[test]
    fn a_paragraph_target_depends_on_the_paragraph_and_settings_only() {
        let (target, warnings) = step_target(
            "timeout",
            None,
            None,
            None,
            DEFAULT_SCENARIO,
            Strategy::Naive,
        );
        assert_eq!(
            target,
            StepTarget {
                scenario: DEFAULT_SCENARIO,
                strategy: Strategy::Naive,
                beat: "timeout".into(),
                lines: Lines::Designs,
            }
        );
        assert!(warnings.is_empty());
        let (target, warnings) = step_target(
            "nope",
            Some("race-2"),
            Some("bogus"),
            Some("both"),
            DEFAULT_SCENARIO,
            Strategy::CheckThenAct,
        );
        assert_eq!(
            (target.scenario, target.strategy, target.lines),
            ("race-2", Strategy::CheckThenAct, Lines::Designs)
        );
        assert_eq!(warnings, ["data-strategy", "data-lines", "data-step"]);
    }

    #[test]
    fn a_paragraph_asks_for_a_pair_only_of_a_scenario_in_one() {
        let pair = |scenario| {
            step_target(
                "provider-replayed",
                Some(scenario),
                Some("idempotency-key-lease"),
                Some("pair"),
                DEFAULT_SCENARIO,
                Strategy::CheckThenAct,
            )
        };
        let (target, warnings) = pair("late-retry-provider-key");
        assert_eq!(target.lines, Lines::Pair);
        assert!(warnings.is_empty(), "{warnings:?}");
        let (target, warnings) = pair("timeout-retry");
        assert_eq!(target.lines, Lines::Designs);
        assert_eq!(warnings, ["data-lines"]);
    }
}
