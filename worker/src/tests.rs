use super::*;
use lousa_core::builtins;
use lousa_core::explore::Status;
use lousa_core::link;
use lousa_core::sweep::Axis;
use serde_json::{Value, json};

/// Serves `text` with a clock that advances 1 ms a reading; the messages posted.
fn served(text: &str) -> Vec<Posted> {
    let mut now = 0.0;
    let mut clock = || {
        now += 1.0;
        now
    };
    let mut out = Vec::new();
    serve(text, &mut clock, &mut |m| out.push(m));
    out
}

/// [`served`] by `worker`, which keeps what it kept between requests.
fn served_by(worker: &mut Worker, text: &str) -> Vec<Posted> {
    let mut now = 0.0;
    let mut clock = || {
        now += 1.0;
        now
    };
    let mut out = Vec::new();
    worker.serve(text, &mut clock, &mut |m| out.push(m));
    out
}

/// The scenario `link` decodes to, as the JSON the page sends.
fn scenario_json(link: &str) -> Value {
    serde_json::to_value(link::decode(link).unwrap()).unwrap()
}

/// The request to explore `scenario` with every option at its default.
fn explore_text(scenario: &Scenario) -> String {
    Request::Explore(ExploreRequest::new(scenario.clone())).to_json()
}

/// A sweep request of `link`'s scenario, with the cells the page makes
/// (`sweep::cells`), as `edit` leaves it.
fn sweep_text(link: &str, x: &str, y: &str, edit: impl Fn(&mut SweepRequest)) -> String {
    let mut request = SweepRequest::new(link::decode(link).unwrap(), x, y);
    edit(&mut request);
    Request::Sweep(request).to_json()
}

/// Design names, as a sweep request lists them.
fn names(strategies: &[Strategy]) -> Option<Vec<String>> {
    Some(strategies.iter().map(|s| s.name().to_string()).collect())
}

fn done(messages: &[Posted]) -> &Done {
    match messages.last() {
        Some(Posted::Explore(Message::Done(done))) => done,
        other => panic!("expected done last, got {other:?}"),
    }
}

fn error(messages: &[Posted]) -> &str {
    match messages {
        [Posted::Explore(Message::Error { message })]
        | [Posted::Sweep(Message::Error { message })] => message,
        other => panic!("expected one error, got {other:?}"),
    }
}

/// The last message's error, if it is one.
fn last_error(messages: &[Posted]) -> Option<&str> {
    match messages.last() {
        Some(Posted::Explore(Message::Error { message })) => Some(message),
        _ => None,
    }
}

/// What the CLI would explore: `lousa explore <name> --strategy <s> [--unordered-ties]`.
fn native(name: &str, strategy: Strategy, unordered_ties: bool) -> Report {
    let mut s = builtins::builtin(name).unwrap();
    s.strategy = strategy;
    let mut options = explore::Options::for_scenario(&s);
    options.unordered_ties = unordered_ties;
    explore::explore(&s, &options).unwrap()
}

#[test]
fn a_request_is_answered_with_the_explorers_report() {
    let messages = served(
        r#"{"explore": {"scenario": "race-2", "strategy": "check-then-act", "unordered_ties": true}}"#,
    );
    assert!(matches!(messages[0], Posted::Explore(Message::Progress(f)) if f.states == 0));
    let d = done(&messages);
    assert_eq!(
        d.report,
        native("race-2", Strategy::CheckThenAct, true),
        "the report the CLI gets"
    );
    assert_eq!(d.report.status, Status::Complete);
    assert!(d.passed);
    assert_eq!(d.failure, None);
    assert_eq!(
        d.report.states, 311,
        "race-2 check-then-act with both reductions"
    );
    // check-then-act can charge twice: an outcome with two captures, and its shortest schedule.
    let double = d
        .report
        .outcomes
        .iter()
        .find(|o| o.double_charge)
        .expect("a double charge");
    assert_eq!(double.captures, vec![2]);
    assert!(!double.example.as_ref().unwrap().text.is_empty());
}

/// race-3 check-then-act explored by the worker under `reduction`, which
/// must be the CLI's report; and the CLI's options for it.
fn reduced_race_3(reduction: explore::Reduction) -> (Report, explore::Options) {
    let messages = served(&format!(
        r#"{{"explore": {{"scenario": "race-3", "strategy": "check-then-act", "reduction": "{}"}}}}"#,
        reduction.name()
    ));
    let reduced = done(&messages).report.clone();
    let mut s = builtins::builtin("race-3").unwrap();
    s.strategy = Strategy::CheckThenAct;
    let mut options = explore::Options::for_scenario(&s);
    options.set_reduction(reduction);
    assert_eq!(
        reduced,
        explore::explore(&s, &options).unwrap(),
        "the CLI's report"
    );
    (reduced, options)
}

#[test]
fn a_reduced_request_gets_the_reduced_report_and_its_verdicts() {
    let (reduced, _) = reduced_race_3(explore::Reduction::Por);
    assert!(!reduced.schedules_counted && reduced.schedules == 0);
    assert!(reduced.reductions.contains(&"partial-order".to_string()));
    // The verdicts and outcomes of the full count, in fewer states.
    let full = native("race-3", Strategy::CheckThenAct, true);
    assert!(
        reduced.states * 2 < full.states,
        "{} of {}",
        reduced.states,
        full.states
    );
    let verdicts = |r: &Report| -> Vec<_> { r.properties.iter().map(|p| p.verdict).collect() };
    assert_eq!(verdicts(&reduced), verdicts(&full));
    assert_eq!(reduced.terminal_states, full.terminal_states);
}

/// `flows`, the CLI's widest reduction, reaches the worker as it is: the
/// CLI's report, in fewer states than `por`.
#[test]
fn a_flows_request_gets_the_clis_report() {
    let (reduced, mut options) = reduced_race_3(explore::Reduction::Flows);
    assert!(reduced.reductions.contains(&"flow-symmetry".to_string()));
    options.set_reduction(explore::Reduction::Por);
    let mut s = builtins::builtin("race-3").unwrap();
    s.strategy = Strategy::CheckThenAct;
    let por = explore::explore(&s, &options).unwrap();
    assert!(
        reduced.states * 3 < por.states,
        "{} of {}",
        reduced.states,
        por.states
    );
}

#[test]
fn defaults_are_the_clis() {
    let Ok(Request::Explore(r)) = Request::parse(r#"{"explore": {"scenario": "race-2"}}"#) else {
        panic!("parses");
    };
    assert_eq!(r, ExploreRequest::new(builtins::builtin("race-2").unwrap()));
    let (s, options, prefix) = prepare(&r).unwrap();
    assert_eq!(prefix, None);
    assert_eq!(s, builtins::builtin("race-2").unwrap());
    assert_eq!(options, explore::Options::for_scenario(&s));
}

#[test]
fn a_scenario_as_json_is_explored_as_the_page_decoded_it() {
    let by_json = served(&explore_text(
        &link::decode("race-2;strategy=\"idempotency-key\"").unwrap(),
    ));
    let by_option = served(r#"{"explore": {"scenario": "race-2", "strategy": "idempotency-key"}}"#);
    assert_eq!(done(&by_json).report, done(&by_option).report);
    assert_eq!(
        done(&by_option).report,
        native("race-2", Strategy::IdempotencyKey, false)
    );
    // An edited scenario: the report is the core's for that scenario.
    let edited = link::decode("race-2;db_latency_ms=5").unwrap();
    let messages = served(&explore_text(&edited));
    let options = explore::Options::for_scenario(&edited);
    assert_eq!(
        done(&messages).report,
        explore::explore(&edited, &options).unwrap()
    );
}

#[test]
fn a_bad_scenario_is_refused_naming_what_is_wrong_and_nothing_runs() {
    let explore_with = |edit: &dyn Fn(&mut Value)| {
        let mut s = scenario_json("race-2");
        edit(&mut s);
        served(&json!({"explore": {"scenario": s}}).to_string())
    };
    // A wrong type: serde's words, and the line of the scenario that holds it.
    let negative = explore_with(&|s| s["clients"][0]["timeout_ms"] = json!(-1));
    let said = error(&negative);
    assert!(
        said.starts_with("scenario: invalid value: integer `-1`, expected u64 at line ")
            && said.ends_with(r#"of the scenario as pretty JSON, which reads "timeout_ms": -1"#),
        "{said}"
    );
    // An unknown field, by name.
    let unknown = explore_with(&|s| s["clients"][0]["retry_max"] = json!(3));
    assert!(
        error(&unknown)
            .starts_with("scenario: unknown field `retry_max`, expected one of `name`, "),
        "{unknown:?}"
    );
    // A missing field, by name.
    let missing = explore_with(&|s| {
        s["clients"][0]
            .as_object_mut()
            .unwrap()
            .remove("timeout_ms");
    });
    assert!(
        error(&missing).starts_with("scenario: missing field `timeout_ms` at line "),
        "{missing:?}"
    );
    // Well formed but invalid: the core's validation, at the field.
    let invalid = explore_with(&|s| s["instances"] = json!(99));
    assert_eq!(error(&invalid), "instances: 99 is outside 1..=8");
    let no_intents = explore_with(&|s| s["clients"][0]["intents"] = json!([]));
    assert!(
        error(&no_intents).starts_with("clients[0].intents: "),
        "{no_intents:?}"
    );
    // Neither a name nor an object; a name that names nothing; a link.
    assert_eq!(
        error(&served(r#"{"explore": {"scenario": [1, 2]}}"#)),
        "scenario: expected a built-in's name or a scenario as a JSON object, got [1,2]"
    );
    assert_eq!(
        error(&served(r#"{"explore": {"scenario": "race-x"}}"#)),
        r#"scenario: "race-x" names no built-in; send a built-in's name (timeout-retry, lost-response, concurrent-double-click, ...) or a scenario as JSON"#
    );
    assert_eq!(
        error(&served(
            r#"{"explore": {"scenario": "race-2;clients.0.timeout_ms=-1"}}"#
        )),
        r#"scenario: "race-2;clients.0.timeout_ms=-1" is a link, which the worker does not decode: send its scenario as JSON (lousa_core::link::decode makes it)"#
    );
    // A sweep's base and cells are read the same way.
    let mut bad_cell =
        serde_json::from_str::<Value>(&sweep_text("race-2", "instances=2,3", "seed=1", |_| ()))
            .unwrap();
    bad_cell["sweep"]["cells"][1]["scenario"]["instances"] = json!("three");
    assert!(
        error(&served(&bad_cell.to_string())).starts_with(
            r#"request.sweep.cells[1].scenario: invalid type: string "three", expected u32 at line "#
        ),
        "{bad_cell}"
    );
    bad_cell["sweep"]["cells"][1] = json!({"refused": {"edit": 1}});
    assert!(
        error(&served(&bad_cell.to_string()))
            .starts_with("request.sweep.cells[1].refused: missing field `field`"),
    );
    bad_cell["sweep"]["cells"][1] = json!(3);
    assert_eq!(
        error(&served(&bad_cell.to_string())),
        r#"request.sweep.cells[1]: expected {"scenario": ...} or {"refused": ...}, got 3"#
    );
}

#[test]
fn the_state_limit_is_a_named_outcome_with_the_clis_words() {
    let messages = served(
        r#"{"explore": {"scenario": "race-3", "strategy": "check-then-act", "max_states": 100}}"#,
    );
    let d = done(&messages);
    assert_eq!(d.report.status, Status::StateLimit);
    assert_eq!(d.report.states, 100);
    assert!(!d.passed);
    assert_eq!(
        d.failure.as_deref(),
        Some(
            "exploration stopped (state-limit) after 100 states: nothing can be said to hold; raise max_states (limit 50000000)"
        )
    );
    let json = Posted::Explore(Message::Done(Box::new(d.clone()))).to_json();
    assert!(json.contains(r#""status":"state-limit""#), "{json}");
}

#[test]
fn progress_comes_after_every_slice_with_the_hosts_clock() {
    let messages = served(
        r#"{"explore": {"scenario": "race-3", "strategy": "check-then-act", "max_states": 20000}}"#,
    );
    let progress: Vec<Figures> = messages
        .iter()
        .filter_map(|m| match m {
            Posted::Explore(Message::Progress(f)) => Some(*f),
            _ => None,
        })
        .collect();
    // 0 at the start, then one per slice of 4,096 states before the limit.
    let states: Vec<u64> = progress.iter().map(|f| f.states).collect();
    assert_eq!(states.len(), 5, "{states:?}");
    assert_eq!(states[0], 0);
    assert!(states.windows(2).all(|w| w[0] < w[1]), "{states:?}");
    assert!(
        progress
            .iter()
            .all(|f| f.transitions >= f.states.saturating_sub(1))
    );
    // The fake clock reads 1 at the start and advances 1 ms a reading.
    let elapsed: Vec<f64> = progress.iter().map(|f| f.elapsed_ms).collect();
    assert_eq!(elapsed, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
    assert_eq!(progress[1].states_per_s, progress[1].states * 1000);
    let d = done(&messages);
    assert_eq!(d.elapsed_ms, 5.0);
    assert_eq!(d.report.states, 20_000);
}

#[test]
fn refusals_name_what_is_wrong_in_the_cores_words() {
    assert_eq!(
        error(&served(
            r#"{"explore": {"scenario": "race-2", "strategy": "optimistic"}}"#
        )),
        "strategy: unknown value \"optimistic\" (expected one of: naive, check-then-act, idempotency-key, idempotency-key-catch, idempotency-key-held-tx, idempotency-key-lease, local-effect)"
    );
    assert_eq!(
        error(&served(
            r#"{"explore": {"scenario": "race-2", "max_states": 0}}"#
        )),
        "max_states: 0 is outside 1..=50000000"
    );
    assert_eq!(
        error(&served(
            r#"{"explore": {"scenario": "race-2", "max_states": 50000001}}"#
        )),
        "max_states: 50000001 is outside 1..=50000000"
    );
}

#[test]
fn a_malformed_request_is_refused_at_its_field() {
    let unknown = served(r#"{"explore": {"scenario": "race-2", "maxStates": 3}}"#);
    assert!(
        error(&unknown).starts_with("request.explore.maxStates: unknown field `maxStates`, expected one of `scenario`, `strategy`, `reduction`, `symmetry`, `unordered_ties`, `max_states`"),
        "{unknown:?}"
    );
    let wrong_type = served(r#"{"explore": {"scenario": "race-2", "max_states": "many"}}"#);
    assert!(
        error(&wrong_type)
            .starts_with("request.explore.max_states: invalid type: string \"many\", expected u32"),
        "{wrong_type:?}"
    );
    let missing = served(r#"{"explore": {}}"#);
    assert!(
        error(&missing).starts_with("request.explore: missing field `scenario`"),
        "{missing:?}"
    );
    let other = served(r#"{"swarm": {}}"#);
    assert!(
        error(&other)
            .starts_with("request: unknown variant `swarm`, expected `explore` or `sweep`"),
        "{other:?}"
    );
    let trailing = served(r#"{"explore": {"scenario": "race-2"}} {}"#);
    assert!(
        error(&trailing).starts_with("request: trailing characters at line 1 column 37"),
        "{trailing:?}"
    );
    assert_eq!(
        error(&served("42")),
        r#"request: expected an object with one key, such as {"explore": {"scenario": "race-2"}}, got 42"#
    );
    assert_eq!(
        error(&served(&format!("[{}]", "1,".repeat(30) + "1"))),
        r#"request: expected an object with one key, such as {"explore": {"scenario": "race-2"}}, got [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1…"#
    );
}

#[test]
fn messages_are_json_objects_with_one_key() {
    assert_eq!(
        Posted::ready().to_json(),
        r#"{"ready":{"states_default":5000000,"states_max":50000000}}"#
    );
    assert_eq!(
        Posted::Explore(Message::Progress(Figures::new(4096, 9000, 20.0))).to_json(),
        r#"{"progress":{"states":4096,"transitions":9000,"states_per_s":204800,"elapsed_ms":20.0}}"#
    );
    assert_eq!(
        Posted::Explore(Message::Error {
            message: "m".into()
        })
        .to_json(),
        r#"{"error":{"message":"m"}}"#
    );
    let json: serde_json::Value = serde_json::from_str(
        &served(r#"{"explore": {"scenario": "race-2", "strategy": "idempotency-key"}}"#)
            .last()
            .unwrap()
            .to_json(),
    )
    .unwrap();
    let done = &json["done"];
    assert_eq!(done["passed"], true);
    assert_eq!(done["failure"], serde_json::Value::Null);
    assert_eq!(done["report"]["status"], "complete");
    assert!(done["report"]["outcomes"][0]["schedules"].is_u64());
    assert!(done["report"]["properties"][0]["verdict"].is_string());
}

#[test]
fn a_prefix_counts_the_schedules_on_from_it_as_explore_from_does() {
    let messages = served(
        r#"{"explore": {"scenario": "race-2", "strategy": "check-then-act", "prefix": "1"}}"#,
    );
    let mut s = builtins::builtin("race-2").unwrap();
    s.strategy = Strategy::CheckThenAct;
    let options = explore::Options::for_scenario(&s);
    let prefix: lousa_core::Schedule = "1".parse().unwrap();
    let from = explore::explore_from(&s, &options, &prefix, &mut |_| {
        std::ops::ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(done(&messages).report, from);
    assert!(from.schedules < native("race-2", Strategy::CheckThenAct, false).schedules);
}

/// What `explore_from` reports for `prefix` of race-2 under `strategy`,
/// with `options` changed by `edit`.
fn fresh_from(strategy: Strategy, edit: impl Fn(&mut explore::Options), prefix: &str) -> Report {
    let mut s = builtins::builtin("race-2").unwrap();
    s.strategy = strategy;
    let mut options = explore::Options::for_scenario(&s);
    edit(&mut options);
    let prefix: lousa_core::Schedule = prefix.parse().unwrap();
    explore::explore_from(&s, &options, &prefix, &mut |_| {
        std::ops::ControlFlow::Continue(())
    })
    .unwrap()
}

/// The request to explore `scenario` under `strategy`, on from `prefix`,
/// as `edit` leaves it.
fn request_from(
    scenario: &Scenario,
    strategy: &str,
    prefix: Option<&str>,
    edit: impl Fn(&mut ExploreRequest),
) -> String {
    let mut request = ExploreRequest::new(scenario.clone());
    request.strategy = Some(strategy.into());
    request.prefix = prefix.map(str::to_string);
    edit(&mut request);
    Request::Explore(request).to_json()
}

/// After a complete exploration, a prefix of it (the start's included) is
/// answered from the graph kept: no progress, `reused`, and the report a
/// fresh `explore_from` gives, examples and all.
#[test]
fn a_prefix_of_the_kept_exploration_is_read_off_its_graph() {
    let mut worker = Worker::default();
    let race2 = builtins::builtin("race-2").unwrap();
    let whole = served_by(
        &mut worker,
        &request_from(&race2, "check-then-act", None, |_| ()),
    );
    assert!(!done(&whole).reused, "the whole count is explored");
    assert_eq!(
        worker.kept(),
        Some((done(&whole).report.states, done(&whole).report.transitions))
    );
    for prefix in ["0", "1", "1-0-1", "0x12"] {
        let messages = served_by(
            &mut worker,
            &request_from(&race2, "check-then-act", Some(prefix), |_| ()),
        );
        assert_eq!(messages.len(), 1, "{prefix}: done at once, {messages:?}");
        let d = done(&messages);
        assert!(d.reused, "{prefix}");
        assert_eq!(
            d.report,
            fresh_from(Strategy::CheckThenAct, |_| (), prefix),
            "{prefix}"
        );
        assert_eq!(d.passed, d.report.passed());
    }
    // A prefix that does not fit is refused in a fresh exploration's words.
    let refused = served_by(
        &mut worker,
        &request_from(&race2, "check-then-act", Some("9"), |_| ()),
    );
    let Some(message) = last_error(&refused) else {
        panic!("{refused:?}");
    };
    let fresh = served(r#"{"explore": {"scenario": "race-2", "prefix": "9"}}"#);
    assert_eq!(refused.len(), 1, "refused before any progress");
    assert_eq!(last_error(&fresh), Some(message), "{fresh:?}");
}

/// The graph kept answers only for its own scenario, strategy and options:
/// any other prefix is explored anew, and leaves it kept; a new whole
/// exploration replaces it, and one cut at the state limit keeps none.
#[test]
fn another_scenario_or_options_do_not_reuse_a_stale_graph() {
    let mut worker = Worker::default();
    let race2 = builtins::builtin("race-2").unwrap();
    let ask = |worker: &mut Worker,
               scenario: &Scenario,
               strategy,
               prefix,
               edit: &dyn Fn(&mut ExploreRequest)| {
        let messages = served_by(worker, &request_from(scenario, strategy, prefix, edit));
        done(&messages).clone()
    };
    ask(&mut worker, &race2, "check-then-act", None, &|_| ());
    let kept = worker.kept();
    let other = ask(&mut worker, &race2, "idempotency-key", Some("1"), &|_| ());
    assert!(!other.reused);
    assert_eq!(
        other.report,
        fresh_from(Strategy::IdempotencyKey, |_| (), "1")
    );
    let unordered = ask(&mut worker, &race2, "check-then-act", Some("1"), &|r| {
        r.unordered_ties = Some(true)
    });
    assert!(!unordered.reused);
    assert_eq!(
        unordered.report,
        fresh_from(Strategy::CheckThenAct, |o| o.unordered_ties = true, "1")
    );
    let mut edited = builtins::builtin("race-2").unwrap();
    edited.db_latency_ms += 7;
    assert!(!ask(&mut worker, &edited, "check-then-act", Some("1"), &|_| ()).reused);
    assert_eq!(worker.kept(), kept, "the graph stays kept");
    assert!(ask(&mut worker, &race2, "check-then-act", Some("1"), &|_| ()).reused);
    // A new whole count replaces it.
    ask(&mut worker, &race2, "idempotency-key", None, &|_| ());
    assert_ne!(worker.kept(), kept);
    assert!(!ask(&mut worker, &race2, "check-then-act", Some("1"), &|_| ()).reused);
    assert!(ask(&mut worker, &race2, "idempotency-key", Some("1"), &|_| ()).reused);
    // A count cut at the state limit keeps nothing, not even the old one.
    let cut = |r: &mut ExploreRequest| r.max_states = Some(100);
    let d = ask(&mut worker, &race2, "idempotency-key", None, &cut);
    assert_eq!(d.report.status, Status::StateLimit);
    assert_eq!(worker.kept(), None);
    assert!(!ask(&mut worker, &race2, "idempotency-key", Some("1"), &cut).reused);
}

#[test]
fn a_prefix_that_does_not_fit_is_refused_with_its_position() {
    let messages = served(r#"{"explore": {"scenario": "race-2", "prefix": "9"}}"#);
    let Some(message) = last_error(&messages) else {
        panic!("{messages:?}");
    };
    assert!(message.contains("choice 1 is 9,"), "{message}");
    let messages = served(r#"{"explore": {"scenario": "race-2", "prefix": "!"}}"#);
    let Some(message) = last_error(&messages) else {
        panic!("{messages:?}");
    };
    assert!(message.starts_with("prefix: "), "{message}");
}

fn swept(messages: &[Posted]) -> &SweepDone {
    match messages.last() {
        Some(Posted::Sweep(Message::Done(done))) => done,
        other => panic!("expected a sweep's done last, got {other:?}"),
    }
}

fn sweep_progress(messages: &[Posted]) -> Vec<SweepFigures> {
    messages
        .iter()
        .filter_map(|m| match m {
            Posted::Sweep(Message::Progress(f)) => Some(*f),
            _ => None,
        })
        .collect()
}

/// What `lousa sweep <scenario> --x <x> --y <y> --strategies <..> --seeds
/// <seeds> --first-seed <first>` reports.
fn core_sweep(
    scenario: &str,
    x: &str,
    y: &str,
    strategies: &[Strategy],
    first: u64,
    seeds: u64,
) -> sweep::SweepReport {
    let base = link::decode(scenario).unwrap();
    let (x, y): (Axis, Axis) = (x.parse().unwrap(), y.parse().unwrap());
    sweep::sweep(&base, &x, &y, strategies, first, seeds, &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap()
    .unwrap()
}

#[test]
fn a_sweep_is_answered_with_the_cores_report() {
    let messages = served(&sweep_text(
        "race-2",
        "network.jitter_ms=0,5,50",
        "instances=2,3",
        |r| {
            r.strategies = names(&[Strategy::CheckThenAct, Strategy::IdempotencyKey]);
            (r.seeds, r.first_seed) = (Some(5), Some(3));
        },
    ));
    let want = core_sweep(
        "race-2",
        "network.jitter_ms=0,5,50",
        "instances=2,3",
        &[Strategy::CheckThenAct, Strategy::IdempotencyKey],
        3,
        5,
    );
    let d = swept(&messages);
    assert_eq!(d.report, want);
    assert_eq!(d.runs, 3 * 2 * 2 * 5);
    // The seeds decide some cells and not others: the sweep shows rates.
    let doubles: Vec<u64> = d.report.maps[0]
        .cells
        .iter()
        .map(|c| c.double_charged)
        .collect();
    assert!(doubles.contains(&5) && doubles.contains(&0), "{doubles:?}");
    assert!(d.report.maps[1].cells.iter().all(|c| c.double_charged == 0));
    // The JSON is what `lousa sweep --format json` prints: the report as serde writes it.
    let json: serde_json::Value =
        serde_json::from_str(&Posted::Sweep(Message::Done(Box::new(d.clone()))).to_json()).unwrap();
    assert_eq!(json["done"]["report"], serde_json::to_value(&want).unwrap());
    assert_eq!(
        json["done"]["report"]["maps"][0]["strategy"],
        "check-then-act"
    );
    assert_eq!(json["done"]["runs"], 60);
}

#[test]
fn a_sweeps_defaults_are_the_clis() {
    let text = sweep_text(
        "timeout-retry;clients.0.retries_max=2",
        "instances=1,2",
        "seed=1",
        |_| (),
    );
    let Ok(Request::Sweep(r)) = Request::parse(&text) else {
        panic!("parses");
    };
    assert_eq!((r.seeds, r.first_seed, &r.strategies), (None, None, &None));
    let (base, _, _, strategies) = prepare_sweep(&r).unwrap();
    assert_eq!(base.clients[0].retries_max, 2, "the link's edit");
    assert_eq!(
        strategies,
        [Strategy::CheckThenAct, Strategy::IdempotencyKey]
    );
    let d = swept(&served(&text)).clone();
    assert_eq!(
        d.report,
        core_sweep(
            "timeout-retry;clients.0.retries_max=2",
            "instances=1,2",
            "seed=1",
            &strategies,
            0,
            10
        )
    );
}

#[test]
fn a_sweeps_progress_comes_first_with_the_total_then_at_intervals() {
    // 4 cells x 1 design x 100 seeds; the fake clock advances 1 ms a
    // reading, one reading a run, so a post every 50 runs.
    let messages = served(&sweep_text(
        "timeout-retry",
        "clients.0.timeout_ms=1000,4000",
        "acquirer.latency_ms=500,3000",
        |r| (r.strategies, r.seeds) = (names(&[Strategy::CheckThenAct]), Some(100)),
    ));
    let progress = sweep_progress(&messages);
    assert_eq!(progress[0].runs, 0);
    assert!(progress.iter().all(|f| f.runs_total == 400));
    let runs: Vec<u64> = progress.iter().map(|f| f.runs).collect();
    assert_eq!(runs, (0..=8).map(|i| i * 50).collect::<Vec<_>>());
    let gaps: Vec<f64> = progress
        .windows(2)
        .map(|w| w[1].elapsed_ms - w[0].elapsed_ms)
        .collect();
    assert!(
        gaps.iter().all(|&g| g == SWEEP_PROGRESS_EVERY_MS),
        "{gaps:?}"
    );
    assert_eq!(
        progress[1].runs_per_s,
        50 * 1000 / progress[1].elapsed_ms as u64
    );
    let d = swept(&messages);
    assert_eq!(d.runs, 400);
    assert_eq!(
        Posted::Sweep(Message::Progress(SweepFigures::new(50, 400, 25.0))).to_json(),
        r#"{"progress":{"runs":50,"runs_total":400,"runs_per_s":2000,"elapsed_ms":25.0}}"#
    );
}

#[test]
fn a_sweep_is_refused_with_the_axis_or_the_limit_named() {
    // The page makes no cells for an axis it cannot read; the worker
    // refuses the axes and the limits before it counts the cells.
    let sweep = |fields: &str| {
        served(&format!(
            r#"{{"sweep": {{"scenario": "timeout-retry", "cells": [], {fields}}}}}"#
        ))
    };
    assert_eq!(
        error(&sweep(r#""x": "instances", "y": "seed=1""#)),
        r#"x: "instances" is not an axis; write path=v1,v2,... or path=from..to:n"#
    );
    assert_eq!(
        error(&sweep(r#""x": "instances=1,2", "y": "seed=0..100:17""#)),
        "y: 17 values are outside 1..=16"
    );
    assert_eq!(
        error(&sweep(
            r#""x": "clients.0.timeout_ms=500..4000:8", "y": "acquirer.latency_ms=500,1500,3000", "seeds": 5000"#
        )),
        "seeds: 24 cells x 2 designs x 5000 seeds = 240000 runs, outside 1..=100000"
    );
    assert_eq!(
        error(&sweep(r#""x": "instances=1,2", "y": "seed=1", "seeds": 0"#)),
        "seeds: 2 cells x 2 designs x 0 seeds = 0 runs, outside 1..=100000"
    );
    assert_eq!(
        error(&served(&sweep_text(
            "timeout-retry",
            "instances=99,100",
            "seed=1",
            |_| ()
        ))),
        "instances: every cell is refused: 99 is outside 1..=8"
    );
    assert_eq!(
        error(&sweep(r#""x": "instances=1,2", "y": "seed=1""#)),
        "cells: 0 cells, but the axes make 2 (2 x 1)"
    );
    // A cell the page's parser refused: its words, in the report.
    let typed = served(&sweep_text(
        "timeout-retry",
        "instances=1,\"two\"",
        "seed=1",
        |r| (r.strategies, r.seeds) = (names(&[Strategy::Naive]), Some(1)),
    ));
    assert_eq!(
        swept(&typed).report.maps[0].cells[1].refused.as_deref(),
        Some("edit 1, instances: expected a whole number up to 4294967295, got a string \"two\"")
    );
    assert_eq!(
        error(&sweep(
            r#""x": "instances=1,2", "y": "seed=1", "strategies": ["naive", "optimistic"]"#
        )),
        "strategies[1]: unknown value \"optimistic\" (expected one of: naive, check-then-act, idempotency-key, idempotency-key-catch, idempotency-key-held-tx, idempotency-key-lease, local-effect)"
    );
    assert_eq!(
        error(&sweep(
            r#""x": "instances=1,2", "y": "seed=1", "strategies": []"#
        )),
        "strategies: at least one design is needed"
    );
    assert!(
        error(&served(
            r#"{"sweep": {"scenario": "race-x", "x": "instances=1", "y": "seed=1", "cells": []}}"#
        ))
        .starts_with(r#"scenario: "race-x" names no built-in; "#)
    );
    let unknown = sweep(r#""x": "instances=1,2", "y": "seed=1", "seed": 3"#);
    assert!(
        error(&unknown).starts_with(
            "request.sweep.seed: unknown field `seed`, expected one of `scenario`, `x`, `y`, `cells`, `strategies`, `seeds`, `first_seed`"
        ),
        "{unknown:?}"
    );
    let missing = served(r#"{"sweep": {"scenario": "race-2", "x": "instances=1"}}"#);
    assert!(
        error(&missing).starts_with("request.sweep: missing field `y`"),
        "{missing:?}"
    );
}

/// The workshop reads each message with the protocol's types, as the kind
/// of request it asked for: every one the worker posts reads back, and
/// writes the very text it was read from (no field lost or renamed).
#[test]
fn every_message_posted_reads_back_as_the_protocols_type() {
    fn reads_back<P, D>(posted: &Posted) -> Message<P, D>
    where
        P: serde::de::DeserializeOwned + Serialize,
        D: serde::de::DeserializeOwned + Serialize,
    {
        let text = posted.to_json();
        let read: Message<P, D> =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(read.to_json(), text);
        read
    }
    let ready: Message = reads_back(&Posted::ready());
    assert_eq!(
        ready,
        Message::Ready(Ready {
            states_default: explore::limits::STATES_DEFAULT,
            states_max: explore::limits::STATES_MAX,
        })
    );
    let explored = served(
        &Request::Explore(ExploreRequest::new(builtins::builtin("race-2").unwrap())).to_json(),
    );
    assert!(
        matches!(
            &explored[..],
            [
                Posted::Explore(Message::Progress(_)),
                ..,
                Posted::Explore(Message::Done(_))
            ]
        ),
        "progress, then done: {explored:?}"
    );
    for posted in &explored {
        let read: Message = reads_back(posted);
        if let (Message::Done(read), Posted::Explore(Message::Done(sent))) = (&read, posted) {
            // The report in the workshop's hands: the counts it shows.
            assert_eq!(read.report.schedules, sent.report.schedules);
            assert_eq!(read.report.status, Status::Complete);
            assert_eq!(read.report.properties, sent.report.properties);
        }
    }
    let swept = served(&sweep_text("race-2", "instances=1,99", "seed=1,2", |r| {
        r.seeds = Some(2)
    }));
    for posted in &swept {
        let read: SweepMessage = reads_back(posted);
        assert_eq!(Posted::Sweep(read), *posted);
    }
    let refused = served(r#"{"explore": {"scenario": "race-x"}}"#);
    let read: SweepMessage = reads_back(&refused[0]);
    assert!(matches!(read, Message::Error { message } if message.contains("race-x")));
}

/// Issue #31: a request may carry a design; the worker explores the
/// scenario under it, as `lousa explore --design` does, and refuses a
/// design that does not check by its field path.
#[test]
fn a_design_is_explored_as_the_core_explores_it() {
    let program = lousa_core::design::builtin::named("claim-after-capture").unwrap();
    let mut request = ExploreRequest::new(builtins::builtin("race-2").unwrap());
    request.design = Some(program.design().clone());
    let text = Request::Explore(request).to_json();
    let got = done(&served(&text)).report.clone();
    let mut s = builtins::builtin("race-2").unwrap();
    s.design = Some(std::sync::Arc::new(program));
    let want = explore::explore(&s, &explore::Options::for_scenario(&s)).unwrap();
    assert_eq!(got, want);
    assert!(
        got.properties.iter().any(|p| !p.ok && p.example.is_some()),
        "the claim after the capture breaks a claim, with an example"
    );
    // The same scenario with no design: its strategy's handler, another report.
    let plain = done(&served(&explore_text(
        &builtins::builtin("race-2").unwrap(),
    )))
    .report
    .clone();
    assert_ne!(plain, got);

    let mut broken: Value = serde_json::from_str(&text).unwrap();
    broken["explore"]["design"]["steps"][0]["next"] = json!("nowhere");
    let refused = served(&broken.to_string());
    assert!(
        error(&refused).starts_with("design: steps[0].next: "),
        "{refused:?}"
    );
    assert!(error(&refused).contains("nowhere"), "{refused:?}");
}

/// Issue #31: a sweep may carry a design, which every cell runs as: one
/// heatmap, as `lousa sweep --design` makes it; with `strategies` too it
/// is refused.
#[test]
fn a_sweep_under_a_design_is_the_clis() {
    let program = lousa_core::design::builtin::named("claim-after-capture").unwrap();
    let (x, y) = ("network.jitter_ms=0,50", "instances=2,3");
    let text = sweep_text("race-2", x, y, |r| {
        r.design = Some(program.design().clone());
        r.seeds = Some(3);
    });
    let messages = served(&text);
    let d = swept(&messages);
    // What the CLI does: the design on the base and on every cell.
    let mut base = link::decode("race-2").unwrap();
    base.design = Some(std::sync::Arc::new(program.clone()));
    let (ax, ay): (Axis, Axis) = (x.parse().unwrap(), y.parse().unwrap());
    let mut grid = sweep::cells(&base, &ax, &ay);
    for cell in grid.iter_mut().flatten() {
        cell.design = base.design.clone();
    }
    let want = sweep::sweep_cells(&base, &ax, &ay, &grid, &[base.strategy], 0, 3, &mut |_| {
        ControlFlow::Continue(())
    })
    .unwrap()
    .unwrap();
    assert_eq!(d.report, want);
    assert_eq!(d.report.maps.len(), 1);
    // The claim after the capture charges twice wherever two instances race.
    assert!(d.report.maps[0].cells.iter().any(|c| c.double_charged > 0));
    let plain = served(&sweep_text("race-2", x, y, |r| {
        r.strategies = names(&[base.strategy]);
        r.seeds = Some(3);
    }));
    assert_ne!(
        swept(&plain).report,
        d.report,
        "the design, not the strategy, ran"
    );

    let both = served(&sweep_text("race-2", x, y, |r| {
        r.design = Some(program.design().clone());
        r.strategies = names(&[Strategy::Naive]);
    }));
    assert!(
        error(&both)
            .starts_with("request.sweep.strategies: give `design` or `strategies`, not both"),
        "{both:?}"
    );
}
