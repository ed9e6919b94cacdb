//! The client's retry policy beyond a constant wait: exponential growth with
//! a cap, jitter drawn at the choice point, and a total deadline. The
//! built-in `exponential-backoff` shows all of it; these tests hold the
//! policy to what its fields say, to the choice point, to the strict parser
//! and to links.

use lousa_core::builtins::{builtin, race};
use lousa_core::choice::{ChoiceKind, Schedule, ScheduleChooser};
use lousa_core::explore::{self, Options, Status, given_up_by_options};
use lousa_core::link;
use lousa_core::property::AT_MOST_ONE_CAPTURE;
use lousa_core::run::{Run, run, run_schedule, run_with};
use lousa_core::scenario::{Backoff, ClientSpec};
use lousa_core::trace::EventKind;
use lousa_core::{Scenario, Strategy};

/// (time sent, retry number, base, jitter, wait) of each scheduled retry.
fn scheduled(r: &Run) -> Vec<(u64, u32, u64, u64, u64)> {
    r.events()
        .filter_map(|(_, e)| match e.kind {
            EventKind::RetryScheduled {
                retry,
                base_ms,
                jitter_ms,
                wait_ms,
                ..
            } => Some((e.time_ms, retry, base_ms, jitter_ms, wait_ms)),
            _ => None,
        })
        .collect()
}

fn sent_at(r: &Run) -> Vec<u64> {
    r.events()
        .filter(|(_, e)| matches!(e.kind, EventKind::AttemptSent { .. }))
        .map(|(_, e)| e.time_ms)
        .collect()
}

#[test]
fn the_wait_doubles_from_backoff_ms_up_to_the_cap() {
    let mut c = builtin("timeout-retry").unwrap().clients[0].clone();
    c.backoff_ms = 250;
    let constant: Vec<u64> = (1..=6).map(|k| c.backoff_before(k)).collect();
    assert_eq!(constant, [250; 6]);
    c.backoff = Backoff::Exponential;
    let grown: Vec<u64> = (1..=6).map(|k| c.backoff_before(k)).collect();
    assert_eq!(grown, [250, 500, 1_000, 2_000, 4_000, 8_000]);
    c.backoff_max_ms = 2_000;
    let capped: Vec<u64> = (1..=6).map(|k| c.backoff_before(k)).collect();
    assert_eq!(capped, [250, 500, 1_000, 2_000, 2_000, 2_000]);
    // The longest wait the limits allow does not overflow.
    c.backoff_ms = lousa_core::scenario::limits::TIME_MS_MAX;
    c.backoff_max_ms = 0;
    assert_eq!(c.backoff_before(64), u64::MAX);
}

#[test]
fn the_built_in_doubles_its_waits_with_jitter_and_stops_at_its_deadline() {
    let s = builtin("exponential-backoff").unwrap();
    let c = &s.clients[0];
    let r = run(&s).unwrap();
    let retries = scheduled(&r);
    let bases: Vec<u64> = retries.iter().map(|t| t.2).collect();
    assert_eq!(bases, [250, 500, 1_000, 2_000], "doubling, then the cap");
    let sends = sent_at(&r);
    assert_eq!(sends.len(), retries.len() + 1);
    for (i, &(at, retry, base, jitter, wait)) in retries.iter().enumerate() {
        assert_eq!(retry as usize, i + 1);
        assert!(jitter <= u64::from(c.backoff_jitter_ms), "{retries:?}");
        assert_eq!(wait, base + jitter);
        assert_eq!(
            sends[i + 1],
            at + wait,
            "the retry leaves when it was set for"
        );
    }
    assert!(
        retries.iter().any(|t| t.3 > 0),
        "the seed draws some jitter: {retries:?}"
    );
    // Retries to spare, but the next would leave past the deadline.
    assert!((sends.len() as u32) < c.retries_max + 1);
    assert!(sends.iter().all(|&t| t - sends[0] <= c.deadline_ms));
    let gave_up: Vec<bool> = r
        .events()
        .filter_map(|(_, e)| match e.kind {
            EventKind::GaveUp { deadline, .. } => Some(deadline),
            _ => None,
        })
        .collect();
    assert_eq!(gave_up, [true]);
    // The key makes every retry one charge; without it each retry that
    // reaches the acquirer charges.
    assert_eq!(r.summary.captures, 1);
    assert!(r.summary.double_charged_intents.is_empty());
    let mut naive = s.clone();
    naive.strategy = Strategy::Naive;
    assert!(run(&naive).unwrap().summary.captures > 1);
}

#[test]
fn the_jitter_is_a_choice_of_its_own_kind_and_replays_from_the_schedule() {
    let s = builtin("exponential-backoff").unwrap();
    let jitter = s.clients[0].backoff_jitter_ms;
    let mut chooser = ScheduleChooser::new(&Schedule::default());
    let all_zero = run_with(&s, &mut chooser);
    let points: Vec<_> = chooser
        .taken
        .iter()
        .filter(|t| t.0 == ChoiceKind::Backoff)
        .collect();
    assert_eq!(points.len(), scheduled(&all_zero).len() + 1, "one per wait");
    assert!(points.iter().all(|t| t.1 == jitter + 1));
    assert!(scheduled(&all_zero).iter().all(|t| t.3 == 0));
    // The seeded run is the seed's, and its schedule replays it exactly.
    let seeded = run(&s).unwrap();
    assert_eq!(seeded, run(&s).unwrap());
    let replayed = run_schedule(&s, &seeded.schedule.parse().unwrap()).unwrap();
    assert_eq!(scheduled(&replayed), scheduled(&seeded));
    let mut other = s.clone();
    other.seed = 2;
    assert_ne!(scheduled(&run(&other).unwrap()), scheduled(&seeded));
}

#[test]
fn a_constant_policy_tells_no_wait_and_asks_no_choice() {
    let s = builtin("timeout-retry").unwrap();
    let r = run(&s).unwrap();
    assert!(scheduled(&r).is_empty());
    let mut chooser = ScheduleChooser::new(&Schedule::default());
    run_with(&s, &mut chooser);
    assert!(chooser.taken.iter().all(|t| t.0 != ChoiceKind::Backoff));
    // Written out, a client at the defaults carries none of the new fields.
    let json = s.to_json();
    for field in [
        "\"backoff\"",
        "backoff_max_ms",
        "backoff_jitter_ms",
        "deadline_ms",
    ] {
        assert!(!json.contains(field), "{field}");
    }
}

#[test]
fn a_deadline_alone_ends_the_retries_of_a_constant_policy() {
    let mut s = builtin("timeout-retry").unwrap();
    s.strategy = Strategy::IdempotencyKey;
    s.clients[0].deadline_ms = 2_600;
    let r = run(&s).unwrap();
    let sends = sent_at(&r);
    // 2 s timeout + 500 ms wait: the first retry leaves at 2.5 s; the next
    // would leave later than 2.6 s after the first attempt.
    assert_eq!(sends, [0, 2_500]);
    assert!(
        r.events()
            .any(|(_, e)| matches!(e.kind, EventKind::GaveUp { deadline: true, .. }))
    );
}

fn parse_with_client_field(field: &str, value: &str) -> Result<Scenario, String> {
    let mut json: serde_json::Value =
        serde_json::from_str(&builtin("timeout-retry").unwrap().to_json()).unwrap();
    json["clients"][0][field] = serde_json::from_str(value).unwrap();
    Scenario::from_json(&json.to_string()).map_err(|e| e.to_string())
}

#[test]
fn the_policy_fields_are_strict_and_name_their_path_and_limit() {
    assert_eq!(
        parse_with_client_field("backoff_jitter_ms", "1001").unwrap_err(),
        "clients[0].backoff_jitter_ms: 1001 exceeds the limit 1000"
    );
    assert_eq!(
        parse_with_client_field("deadline_ms", "604800001").unwrap_err(),
        "clients[0].deadline_ms: 604800001 exceeds the limit 604800000"
    );
    assert_eq!(
        parse_with_client_field("backoff_max_ms", "604800001").unwrap_err(),
        "clients[0].backoff_max_ms: 604800001 exceeds the limit 604800000"
    );
    let e = parse_with_client_field("backoff", "\"linear\"").unwrap_err();
    assert!(
        e.starts_with("clients[0].backoff: ") && e.contains("exponential"),
        "{e}"
    );
    let e = parse_with_client_field("backoff_policy", "\"exponential\"").unwrap_err();
    assert!(
        e.starts_with("clients[0]: unknown field \"backoff_policy\""),
        "{e}"
    );
    let s = parse_with_client_field("backoff", "\"exponential\"").unwrap();
    assert_eq!(s.clients[0].backoff, Backoff::Exponential);
    // And it reads back as written.
    assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s);
}

#[test]
fn links_carry_the_policy_as_the_fewest_edits() {
    let text = "timeout-retry;clients.0.backoff=\"exponential\";clients.0.backoff_jitter_ms=100;\
                clients.0.deadline_ms=9000;clients.0.backoff_max_ms=4000";
    let s = link::decode(text).unwrap();
    let c: &ClientSpec = &s.clients[0];
    assert_eq!(
        (
            c.backoff,
            c.backoff_jitter_ms,
            c.deadline_ms,
            c.backoff_max_ms
        ),
        (Backoff::Exponential, 100, 9_000, 4_000)
    );
    let encoded = link::encode("timeout-retry", &s).unwrap();
    assert_eq!(
        encoded,
        "timeout-retry;clients.0.backoff=\"exponential\";clients.0.backoff_jitter_ms=100;\
         clients.0.backoff_max_ms=4000;clients.0.deadline_ms=9000"
    );
    assert_eq!(link::decode(&encoded).unwrap(), s);
    // The built-in is its name, and setting a field back is one edit.
    let b = builtin("exponential-backoff").unwrap();
    assert_eq!(
        link::encode("exponential-backoff", &b).unwrap(),
        "exponential-backoff"
    );
    let mut back = b.clone();
    back.clients[0].backoff = Backoff::Constant;
    let encoded = link::encode("exponential-backoff", &back).unwrap();
    assert_eq!(link::decode(&encoded).unwrap(), back, "{encoded}");
    let e = link::decode("timeout-retry;clients.0.backoff_jitter_ms=5000").unwrap_err();
    assert!(
        e.to_string()
            .contains("clients[0].backoff_jitter_ms: 5000 exceeds the limit 1000"),
        "{e}"
    );
}

#[test]
fn the_explorer_branches_on_the_jitter_of_a_wait() {
    // race-2 under the key design: one attempt gets a 409 and retries.
    let mut s = race(2);
    s.strategy = Strategy::IdempotencyKey;
    for c in &mut s.clients {
        c.retries_max = 1;
    }
    let count = |s: &Scenario| {
        let r = explore::explore(s, &Options::for_strategy(s.strategy)).unwrap();
        assert_eq!(r.status, Status::Complete);
        r.schedules
    };
    let plain = count(&s);
    for c in &mut s.clients {
        c.backoff_jitter_ms = 2;
    }
    let jittered = count(&s);
    assert!(jittered > plain, "{plain} {jittered}");
}

#[test]
fn a_key_outlived_by_exponential_retries_gives_up_the_charge_properties() {
    let mut s = builtin("late-retry-after-ttl").unwrap();
    s.clients[0].backoff_ms = 20_000;
    s.clients[0].retries_max = 3;
    // Constant: 3 x (2 s + 20 s) = 66 s, past the key's 60 s already.
    s.key_ttl_ms = 70_000;
    assert!(given_up_by_options(&s).is_empty());
    // Doubling: 20 + 40 + 80 s of waits outlive the key.
    s.clients[0].backoff = Backoff::Exponential;
    let given = given_up_by_options(&s);
    assert!(given.contains(&AT_MOST_ONE_CAPTURE), "{given:?}");
    // A deadline short of the key's lifetime keeps every retry inside it.
    s.clients[0].deadline_ms = 60_000;
    assert!(given_up_by_options(&s).is_empty());
}
