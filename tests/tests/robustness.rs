//! Bad input never panics: arbitrary JSON and arbitrary scenario values go
//! through validation and `run`; every refusal names a field, and every
//! accepted scenario runs to a named end within the event limit.

use lousa_core::Scenario;
use lousa_core::Strategy as Design;
use lousa_core::builtins;
use lousa_core::scenario::{CrashPoint, Fault, LoadBalancerPolicy, limits};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn cases() -> u32 {
    std::env::var("LOUSA_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<u64>().prop_map(serde_json::Value::from),
        "[a-z_-]{0,12}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::from),
            prop::collection::btree_map("[a-z_]{1,16}", inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A built-in with some of its fields replaced by arbitrary values, many of
/// them out of range: the interesting inputs are near-valid ones.
fn mutated_scenario() -> impl Strategy<Value = Scenario> {
    (
        prop::sample::select(builtins::NAMES.to_vec()),
        prop::sample::select(Design::ALL.to_vec()),
        any::<u64>(),
        0u32..10,
        0u32..18,
        prop::collection::vec((0u64..5_000, 0u32..23, 0u64..3_000, any::<bool>()), 1..10),
        (0u64..4_000, 0u32..50, 0u64..6_000, 1u64..4_000),
        prop::collection::vec((0u8..5, 1u32..10, 0u64..5_000), 0..5),
        prop::sample::select(vec![
            LoadBalancerPolicy::RoundRobin,
            LoadBalancerPolicy::Random,
            LoadBalancerPolicy::LeastBusy,
            LoadBalancerPolicy::StickyByKey,
        ]),
    )
        .prop_map(
            |(name, strategy, seed, instances, pool, clients, timing, faults, lb)| {
                let mut s = builtins::builtin(name).unwrap();
                s.strategy = strategy;
                s.seed = seed;
                s.instances = instances;
                s.pool_size = pool;
                s.load_balancer = lb;
                let template = s.clients[0].clone();
                s.clients = clients
                    .into_iter()
                    .enumerate()
                    .map(|(i, (start, retries, backoff, new_key))| {
                        let mut c = template.clone();
                        c.name = format!("c{i}");
                        c.start_ms = start;
                        c.retries_max = retries;
                        c.backoff_ms = backoff;
                        c.new_key_per_retry = new_key;
                        c
                    })
                    .collect();
                let (latency, jitter, acquirer, timeout) = timing;
                s.network.latency_ms = latency;
                s.network.jitter_ms = jitter;
                s.acquirer.latency_ms = acquirer;
                s.acquirer.timeout_ms = timeout;
                s.faults = faults
                    .into_iter()
                    .map(|(kind, n, t)| match kind {
                        0 => Fault::DropRequest { attempt: n },
                        1 => Fault::DropResponse { attempt: n },
                        2 => Fault::Crash {
                            instance: n % (instances + 1),
                            at_ms: (t % 2 == 0).then_some(t),
                            at_point: (t % 2 == 1).then_some(CrashPoint::AfterCaptureSent),
                            restart_after_ms: t,
                        },
                        3 => Fault::AcquirerDeclines { call: n },
                        _ => Fault::AcquirerTimeoutAfterAccept { call: n },
                    })
                    .collect();
                s
            },
        )
}

static ACCEPTED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_json_is_refused_with_a_named_field_or_runs(v in json_value()) {
        let text = v.to_string();
        match Scenario::from_json(&text) {
            Ok(s) => {
                let r = lousa_core::run(&s).unwrap();
                prop_assert!(r.steps.len() <= limits::EVENTS_MAX + 1);
            }
            Err(e) => prop_assert!(!e.field.is_empty() && !e.message.is_empty()),
        }
    }

    #[test]
    fn arbitrary_scenario_values_validate_or_run_to_a_named_end(s in mutated_scenario()) {
        match s.validate() {
            Err(e) => {
                prop_assert!(!e.field.is_empty());
                let msg = e.to_string();
                prop_assert!(
                    msg.contains("limit") || msg.contains("outside") || msg.contains("must")
                        || msg.contains("needed") || msg.contains("exactly"),
                    "refusal without a limit: {}", msg
                );
            }
            Ok(()) => {
                ACCEPTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let r = lousa_core::run(&s).unwrap();
                prop_assert!(r.steps.len() <= limits::EVENTS_MAX + 1);
                // The JSON form round-trips, so a shared scenario is the same scenario.
                let back = Scenario::from_json(&s.to_json()).unwrap();
                prop_assert_eq!(back, s);
            }
        }
    }
}

/// Guards the generator: if it only produced invalid scenarios, the
/// property above would say nothing about `run`.
#[test]
fn most_mutated_scenarios_are_valid_enough_to_run() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strat = mutated_scenario();
    let valid = (0..200)
        .filter(|_| {
            strat
                .new_tree(&mut runner)
                .unwrap()
                .current()
                .validate()
                .is_ok()
        })
        .count();
    assert!(
        valid >= 60,
        "only {valid} of 200 generated scenarios were valid"
    );
}

#[test]
fn refusals_name_the_field_and_the_limit() {
    let mut s = builtins::builtin("timeout-retry").unwrap();
    s.clients[0].retries_max = 500;
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "clients[0].retries_max: 500 exceeds the limit 20"
    );
    let mut s = builtins::builtin("timeout-retry").unwrap();
    s.instances = 0;
    assert_eq!(
        s.validate().unwrap_err().to_string(),
        "instances: 0 is outside 1..=8"
    );
    let e = Scenario::from_json(r#"{"name": "x"}"#).unwrap_err();
    assert_eq!(e.to_string(), "strategy: missing field (required)");
    let big = "x".repeat(300_000);
    assert!(
        Scenario::from_json(&big)
            .unwrap_err()
            .message
            .contains("limit")
    );
}

/// One edit of scenario JSON, at the member or element picked by `at`
/// (modulo how many there are).
#[derive(Clone, Debug)]
enum Edit {
    Drop(usize),
    /// To a name no scenario type has (`_x` is never a suffix of a field).
    Rename(usize, String),
    /// The value replaced by one of another JSON type.
    Retype(usize, serde_json::Value),
    Number(usize, i64),
}

fn edit() -> impl Strategy<Value = Edit> {
    let other = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        "[a-z]{0,6}".prop_map(serde_json::Value::from),
        (-1.0e3..1.0e3f64).prop_map(serde_json::Value::from),
        Just(serde_json::json!([])),
        Just(serde_json::json!({})),
    ];
    prop_oneof![
        any::<usize>().prop_map(Edit::Drop),
        (any::<usize>(), "[a-z_]{1,10}").prop_map(|(i, n)| Edit::Rename(i, n + "_x")),
        (any::<usize>(), other).prop_map(|(i, v)| Edit::Retype(i, v)),
        (any::<usize>(), any::<i64>()).prop_map(|(i, n)| Edit::Number(i, n)),
    ]
}

/// Every JSON pointer below the root, parents before children.
fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    let children: Vec<(String, &serde_json::Value)> = match v {
        serde_json::Value::Object(m) => m.iter().map(|(k, c)| (k.clone(), c)).collect(),
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, c)| (i.to_string(), c))
            .collect(),
        _ => Vec::new(),
    };
    for (key, child) in children {
        let p = format!("{at}/{key}");
        out.push(p.clone());
        pointers(child, p, out);
    }
}

/// Applies `edit`; returns the pointer of the member it renamed, if it
/// renamed one, which strict parsing must refuse while it is still there.
fn apply(v: &mut serde_json::Value, edit: &Edit) -> Option<String> {
    let mut all = Vec::new();
    pointers(v, String::new(), &mut all);
    let (Edit::Drop(i) | Edit::Rename(i, _) | Edit::Retype(i, _) | Edit::Number(i, _)) = edit;
    let at = &all[i % all.len()];
    let (parent, key) = at.rsplit_once('/').unwrap();
    let parent = v.pointer_mut(parent).unwrap();
    match (edit, parent) {
        (Edit::Drop(_), serde_json::Value::Object(m)) => {
            m.remove(key);
        }
        (Edit::Drop(_), serde_json::Value::Array(a)) => {
            a.remove(key.parse::<usize>().unwrap());
        }
        (Edit::Rename(_, name), serde_json::Value::Object(m)) => {
            let value = m.remove(key).unwrap();
            m.insert(name.clone(), value);
            return Some(format!("{}/{name}", at.rsplit_once('/').unwrap().0));
        }
        (Edit::Retype(_, new), p) => *p.pointer_mut(&format!("/{key}")).unwrap() = new.clone(),
        (Edit::Number(_, n), p) => *p.pointer_mut(&format!("/{key}")).unwrap() = (*n).into(),
        _ => {}
    }
    None
}

/// `clients[0].intents[1].key`, or `scenario` for the whole.
fn starts_with_a_field_path(message: &str) -> bool {
    let Some((path, rest)) = message.split_once(": ") else {
        return false;
    };
    !rest.is_empty()
        && path.split('.').all(|part| {
            let name = part.split('[').next().unwrap();
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && part[name.len()..].split_terminator(']').all(|ix| {
                    ix.strip_prefix('[')
                        .is_some_and(|d| d.parse::<usize>().is_ok())
                })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Random edits of a built-in's printed JSON never panic the parser or
    /// the validator: the result is a scenario that runs, or a refusal
    /// that starts with a field path; a renamed field is always refused.
    #[test]
    fn edited_builtin_json_parses_or_is_refused_at_a_field_path(
        builtin in 0..builtins::NAMES.len(),
        edits in proptest::collection::vec(edit(), 1..4),
    ) {
        let base = builtins::builtin(builtins::NAMES[builtin]).unwrap().to_json();
        let mut v: serde_json::Value = serde_json::from_str(&base).unwrap();
        let mut renamed_at = Vec::new();
        for e in &edits {
            renamed_at.extend(apply(&mut v, e));
        }
        // A later edit may drop the renamed member (or its parent) again:
        // only a renamed member still present must be refused.
        let renamed = renamed_at.iter().any(|p| v.pointer(p).is_some());
        match Scenario::from_json(&v.to_string()) {
            Ok(s) => {
                prop_assert!(!renamed, "a renamed field was accepted: {}", v);
                let r = lousa_core::run(&s).unwrap();
                prop_assert!(r.steps.len() <= limits::EVENTS_MAX + 1);
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(starts_with_a_field_path(&msg), "{}", msg);
            }
        }
    }
}

#[test]
fn the_field_path_check_can_fail() {
    assert!(starts_with_a_field_path(
        "clients[0].intents[1].key: must not be empty"
    ));
    assert!(starts_with_a_field_path("scenario: invalid JSON: x"));
    assert!(!starts_with_a_field_path(
        "invalid type: integer `-1`, expected u64"
    ));
    assert!(!starts_with_a_field_path("clients[x].key: y"));
    assert!(!starts_with_a_field_path(
        "missing field `name` at line 1 column 2"
    ));
}

/// A link's text, near-valid more often than not: a built-in's name (or a
/// misspelt one), then edits with real and made-up paths and values.
fn link_text() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        4 => prop::sample::select(builtins::NAMES.to_vec()).prop_map(str::to_string),
        1 => "[a-z-]{0,14}",
    ];
    let path = prop_oneof![
        prop::sample::select(vec![
            "instances",
            "seed",
            "strategy",
            "pool_size",
            "clients.0.timeout_ms",
            "clients.1.name",
            "clients.0.intents.0.amount_cents",
            "faults",
            "faults.0.attempt",
            "acquirer.latency_ms",
            "key_ttl_ms",
            "lease_ms",
        ])
        .prop_map(str::to_string),
        "[a-z_0-9.]{0,24}",
    ];
    let value = prop_oneof![
        (0i64..100_000).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        "\"[a-z;=-]{0,12}\"",
        Just("[]".to_string()),
        Just("null".to_string()),
        "[\\[\\]{}\";=a-z0-9,:]{0,16}",
    ];
    (
        name,
        prop::collection::vec((path, value).prop_map(|(p, v)| format!(";{p}={v}")), 0..6),
    )
        .prop_map(|(name, edits)| format!("{name}{}", edits.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// A scenario made from one built-in, written as a link from any built-in,
    /// reads back as the same scenario.
    #[test]
    fn a_scenario_survives_its_link(s in mutated_scenario(), base in prop::sample::select(builtins::NAMES.to_vec())) {
        // Near-valid inputs are the interesting ones: an invalid draw has no link to test.
        if s.validate().is_err() {
            return Ok(());
        }
        let link = lousa_core::link::encode(base, &s).unwrap();
        prop_assert_eq!(lousa_core::link::decode(&link), Ok(s), "{}", link);
    }

    /// Any link text either gives a scenario that runs and whose own link
    /// reads back the same, or is refused with an edit and a field path.
    #[test]
    fn a_link_runs_or_is_refused_at_an_edit_and_a_field(text in link_text()) {
        match lousa_core::link::decode(&text) {
            Ok(s) => {
                let r = lousa_core::run(&s).unwrap();
                prop_assert!(r.steps.len() <= limits::EVENTS_MAX + 1);
                let again = lousa_core::link::encode(builtins::NAMES[0], &s).unwrap();
                prop_assert_eq!(lousa_core::link::decode(&again), Ok(s));
            }
            Err(e) => {
                let shown = e.to_string();
                let field = shown.strip_prefix(&format!("edit {}, ", e.edit)).unwrap_or(&shown);
                prop_assert!(starts_with_a_field_path(field), "{}", shown);
                prop_assert!(e.edit <= text.matches(';').count(), "{}", shown);
            }
        }
    }
}

/// Built-ins of every design stretched to the edge of every limit at once
/// (the most clients, intents, retries, instances and faults, the busiest
/// timings the validation allows) still validate, and their runs and a
/// bounded exploration end within the event and state limits. (How long and
/// how much memory such a run takes is in docs/performance.md.)
#[test]
fn the_largest_scenarios_the_limits_allow_end_within_the_limits() {
    let names = [
        "timeout-retry",
        "held-transaction",
        "crash-before-capture",
        "late-retry-provider-key",
        "race-3",
    ];
    for name in names {
        let s = every_limit::scenario(name);
        s.validate()
            .unwrap_or_else(|e| panic!("{name} at every limit: {e}"));
        let mut more = s.clone();
        more.clients[0].retries_max += 1;
        assert_eq!(
            more.validate().unwrap_err().to_string(),
            "clients: 164 attempts in all (each client's intents x (retries_max + 1)) exceed the limit 160"
        );
        let r = lousa_core::run(&s).unwrap();
        assert!(r.steps.len() <= limits::EVENTS_MAX + 1, "{name}");
        assert_ne!(
            r.summary.end,
            lousa_core::trace::EndReason::Horizon,
            "{name}"
        );
        let mut o = lousa_core::explore::Options::for_strategy(s.strategy);
        o.max_states = 300;
        let report = lousa_core::explore::explore(&s, &o).unwrap();
        assert!(
            report.states <= 300 + 64,
            "{name}: {} states",
            report.states
        );
    }
}

#[path = "shared/every_limit.rs"]
mod every_limit;

#[path = "../../core/tests/shared/counted_parts.rs"]
mod counted_parts;

/// Issue #35: every counted part of a schedule, a fork and a link, fed a
/// count at the top of each width (the wasm32 test feeds the same), then
/// counts drawn near u32::MAX and u64::MAX and anywhere in u64.
#[test]
fn counts_near_the_top_of_every_width_are_refused_or_taken_never_a_panic() {
    for count in counted_parts::counts_near_the_tops() {
        counted_parts::check(&count);
    }
    let near = prop_oneof![
        (u64::from(u32::MAX) - 1_000..=u64::from(u32::MAX) + 1_000),
        (u64::MAX - 1_000..=u64::MAX),
        any::<u64>(),
    ];
    proptest!(ProptestConfig::with_cases(cases()), |(count in near)| {
        counted_parts::check(&count.to_string());
    });
}
