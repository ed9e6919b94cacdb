//! What a page posts: an exploration or a sweep, each the options of its
//! `lousa` command. The workshop builds the typed request and writes it
//! with [`Request::to_json`]; the worker reads it with [`Request::parse`],
//! field by field, so that a refusal names the field in serde's words.

use lousa_core::design::Design;
use lousa_core::explore::Reduction;
use lousa_core::link::LinkError;
use lousa_core::sweep::{self, Axis};
use lousa_core::text::cut;
use lousa_core::{Scenario, builtins};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// How much of a bad value a refusal shows.
const SHOWN: usize = 40;

/// A request from the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    Explore(ExploreRequest),
    Sweep(SweepRequest),
}

/// What to explore and how: the options of `lousa explore`. An option left
/// out (None) is the CLI's default, which the worker applies, so a request
/// says only what it asks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExploreRequest {
    /// The scenario: a built-in by name, or the page's scenario as JSON.
    pub scenario: Scenario,
    /// A strategy name; the scenario's own when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// How much the explorer reduces (`none`, `symmetry`, `por`), as
    /// `lousa explore --reduction` takes it; `symmetry` when absent. Not
    /// given with `symmetry`, which it replaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reduction: Option<Reduction>,
    /// Client symmetry; on when absent. `reduction` says it too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symmetry: Option<bool>,
    /// Unordered ties; off when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unordered_ties: Option<bool>,
    /// The state limit; the one `Ready` names as `states_default` when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_states: Option<u32>,
    /// A schedule prefix (`lousa run --schedule` text): explore every way on
    /// from where it leaves the run, as `explore::explore_from` does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// A design its HTTP jobs run as (`lousa explore --design`), checked
    /// by the worker (`design::check`) before it explores; when absent,
    /// the strategy's own handler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<Design>,
}

impl ExploreRequest {
    /// Explore `scenario` with every option at its default.
    pub fn new(scenario: Scenario) -> ExploreRequest {
        ExploreRequest {
            scenario,
            strategy: None,
            reduction: None,
            symmetry: None,
            unordered_ties: None,
            max_states: None,
            prefix: None,
            design: None,
        }
    }
}

/// The fields of an explore request, in the order refusals list them.
const EXPLORE_FIELDS: &[&str] = &[
    "scenario",
    "strategy",
    "reduction",
    "symmetry",
    "unordered_ties",
    "max_states",
    "prefix",
    "design",
];

/// What to sweep: the options of `lousa sweep`, and the cells the page
/// made (`sweep::cells`). Options left out are the CLI's defaults.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRequest {
    /// The base scenario, as an explore request's.
    pub scenario: Scenario,
    /// The axes, as `lousa sweep --x` and `--y` take them.
    pub x: String,
    pub y: String,
    /// Each cell's scenario (the base with the axes' values set), or why
    /// the page could not make it, row by row (y), each row along x.
    #[serde(serialize_with = "cells_json")]
    pub cells: Vec<Result<Scenario, LinkError>>,
    /// Strategy names, one heatmap each; when absent, the scenario's own
    /// and idempotency-key (`sweep::default_strategies`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategies: Option<Vec<String>>,
    /// Seeds per cell; 10 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeds: Option<u64>,
    /// The first seed; 0 when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seed: Option<u64>,
    /// A design every cell's HTTP jobs run as (`lousa sweep --design`): one
    /// heatmap, under the scenario's strategy. Not given with
    /// `strategies`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub design: Option<Design>,
}

impl SweepRequest {
    /// Sweep `base` over the axes `x` and `y` (as `lousa sweep --x` and
    /// `--y` take them) with every option at its default. The cells are
    /// made here, by the strict scenario parser (`sweep::cells`), which the
    /// worker's wasm leaves out: the worker never calls this. Axes that do
    /// not read make no cells, and the worker refuses them in its words.
    pub fn new(base: Scenario, x: &str, y: &str) -> SweepRequest {
        let cells = match (x.parse::<Axis>(), y.parse::<Axis>()) {
            (Ok(x), Ok(y)) => sweep::cells(&base, &x, &y),
            _ => Vec::new(),
        };
        SweepRequest {
            scenario: base,
            x: x.to_string(),
            y: y.to_string(),
            cells,
            strategies: None,
            seeds: None,
            first_seed: None,
            design: None,
        }
    }
}

/// The fields of a sweep request, in the order refusals list them.
const SWEEP_FIELDS: &[&str] = &[
    "scenario",
    "x",
    "y",
    "cells",
    "strategies",
    "seeds",
    "first_seed",
    "design",
];

/// `cells` as the worker reads them: `{"scenario": ...}` or `{"refused": ...}`.
fn cells_json<S: Serializer>(
    cells: &[Result<Scenario, LinkError>],
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Cell<'a> {
        Scenario(&'a Scenario),
        Refused(&'a LinkError),
    }
    s.collect_seq(cells.iter().map(|cell| match cell {
        Ok(scenario) => Cell::Scenario(scenario),
        Err(e) => Cell::Refused(e),
    }))
}

impl Request {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a request is JSON")
    }

    /// Reads a request, naming the field it refuses. Plain serde_json
    /// reads each field on its own, so that a refusal names it without a
    /// path tracker (the strict scenario parser's, which the worker leaves
    /// to the page: see [`scenario_of`]).
    pub fn parse(text: &str) -> Result<Request, String> {
        read(text)
    }
}

fn read(text: &str) -> Result<Request, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("request: {e}"))?;
    let got = || cut(&value.to_string(), SHOWN);
    let (kind, body) = match &value {
        Value::Object(map) if map.len() == 1 => map.iter().next().expect("one key"),
        _ => {
            return Err(format!(
                "request: expected an object with one key, such as {{\"explore\": {{\"scenario\": \"race-2\"}}}}, got {}",
                got()
            ));
        }
    };
    match kind.as_str() {
        "explore" => {
            let f = Fields::of("explore", body, EXPLORE_FIELDS)?;
            let reduction = f.optional::<Option<Reduction>>("reduction")?.flatten();
            let symmetry = f.optional("symmetry")?;
            if reduction.is_some() && symmetry.is_some() {
                return Err(format!(
                    "{}.symmetry: give `reduction` or `symmetry`, not both (`reduction` says whether clients are merged)",
                    f.at
                ));
            }
            Ok(Request::Explore(ExploreRequest {
                scenario: f.scenario()?,
                strategy: f.optional::<Option<String>>("strategy")?.flatten(),
                reduction,
                symmetry,
                unordered_ties: f.optional("unordered_ties")?,
                max_states: f.optional("max_states")?,
                prefix: f.optional::<Option<String>>("prefix")?.flatten(),
                design: f.optional::<Option<Design>>("design")?.flatten(),
            }))
        }
        "sweep" => {
            let f = Fields::of("sweep", body, SWEEP_FIELDS)?;
            Ok(Request::Sweep(SweepRequest {
                scenario: f.scenario()?,
                x: f.required("x")?,
                y: f.required("y")?,
                cells: f.cells()?,
                strategies: f.optional::<Option<Vec<String>>>("strategies")?.flatten(),
                seeds: f.optional("seeds")?,
                first_seed: f.optional("first_seed")?,
                design: f.optional::<Option<Design>>("design")?.flatten(),
            }))
        }
        other => Err(format!(
            "request: unknown variant `{other}`, expected `explore` or `sweep`"
        )),
    }
}

/// A request's fields, read one at a time: a refusal names the field
/// (`request.explore.max_states: invalid type: ...`), as serde words it.
struct Fields<'a> {
    at: String,
    map: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// The fields of `body`, refusing a name not in `names` first.
    fn of(kind: &str, body: &'a Value, names: &[&str]) -> Result<Fields<'a>, String> {
        let at = format!("request.{kind}");
        let Value::Object(map) = body else {
            return Err(format!(
                "{at}: expected an object of fields, got {}",
                cut(&body.to_string(), SHOWN)
            ));
        };
        if let Some(unknown) = map.keys().find(|k| !names.contains(&k.as_str())) {
            let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            return Err(format!(
                "{at}.{unknown}: unknown field `{unknown}`, expected one of {}",
                listed.join(", ")
            ));
        }
        Ok(Fields { at, map })
    }

    fn optional<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, String> {
        self.map
            .get(name)
            .map(|v| T::deserialize(v).map_err(|e| format!("{}.{name}: {e}", self.at)))
            .transpose()
    }

    fn required<T: DeserializeOwned>(&self, name: &str) -> Result<T, String> {
        self.optional(name)?
            .ok_or_else(|| format!("{}: missing field `{name}`", self.at))
    }

    fn scenario(&self) -> Result<Scenario, String> {
        let value = self
            .map
            .get("scenario")
            .ok_or_else(|| format!("{}: missing field `scenario`", self.at))?;
        scenario_of(value).map_err(|e| format!("scenario: {e}"))
    }

    /// `cells`: a list of `{"scenario": ...}` (a scenario as
    /// [`scenario_of`] reads it) and `{"refused": {"edit", "field",
    /// "message"}}` (a `link::LinkError`).
    fn cells(&self) -> Result<Vec<Result<Scenario, LinkError>>, String> {
        let at = format!("{}.cells", self.at);
        let Some(value) = self.map.get("cells") else {
            return Err(format!("{}: missing field `cells`", self.at));
        };
        let Value::Array(items) = value else {
            return Err(format!(
                "{at}: expected a list of cells, got {}",
                cut(&value.to_string(), SHOWN)
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, cell)| match cell {
                Value::Object(one) if one.len() == 1 && one.contains_key("scenario") => {
                    scenario_of(&one["scenario"])
                        .map(Ok)
                        .map_err(|e| format!("{at}[{i}].scenario: {e}"))
                }
                Value::Object(one) if one.len() == 1 && one.contains_key("refused") => {
                    LinkError::deserialize(&one["refused"])
                        .map(Err)
                        .map_err(|e| format!("{at}[{i}].refused: {e}"))
                }
                other => Err(format!(
                    "{at}[{i}]: expected {{\"scenario\": ...}} or {{\"refused\": ...}}, got {}",
                    cut(&other.to_string(), SHOWN)
                )),
            })
            .collect()
    }
}

/// A request's scenario: a built-in's name, or a scenario's JSON object,
/// which the page decoded and checked with lousa-core's strict parser
/// (`link::decode`, `Scenario::from_json`). The worker reads it with plain
/// serde, which refuses an unknown or missing field by name and a wrong
/// type with its position: read from pretty JSON, one field a line, the
/// refusal quotes that line. It is not validated here: the caller does.
pub fn scenario_of(value: &Value) -> Result<Scenario, String> {
    match value {
        Value::String(name) if name.contains(';') => Err(format!(
            "{:?} is a link, which the worker does not decode: send its scenario as JSON (lousa_core::link::decode makes it)",
            cut(name, SHOWN)
        )),
        Value::String(name) => builtins::builtin(name).ok_or_else(|| {
            format!(
                "{:?} names no built-in; send a built-in's name ({}, ...) or a scenario as JSON",
                cut(name, SHOWN),
                builtins::NAMES[..3].join(", ")
            )
        }),
        Value::Object(_) => {
            let text = serde_json::to_string_pretty(value).expect("a JSON value is text");
            serde_json::from_str(&text).map_err(|e| {
                let line = text
                    .lines()
                    .nth(e.line().saturating_sub(1))
                    .unwrap_or("")
                    .trim()
                    .trim_end_matches(',');
                if line.contains(':') {
                    format!(
                        "{e} of the scenario as pretty JSON, which reads {}",
                        cut(line, SHOWN)
                    )
                } else {
                    format!("{e} of the scenario as pretty JSON")
                }
            })
        }
        other => Err(format!(
            "expected a built-in's name or a scenario as a JSON object, got {}",
            cut(&other.to_string(), SHOWN)
        )),
    }
}
