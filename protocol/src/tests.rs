use super::*;
use lousa_core::{builtins, link};

/// A request the workshop writes is the one the worker reads.
#[test]
fn an_explore_request_reads_back_as_written_with_only_what_it_asks() {
    let scenario = link::decode("race-2;db_latency_ms=5").unwrap();
    let mut request = ExploreRequest::new(scenario.clone());
    request.strategy = Some("naive".into());
    request.prefix = Some("1-0".into());
    let text = Request::Explore(request.clone()).to_json();
    assert_eq!(Request::parse(&text), Ok(Request::Explore(request)));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&String> = json["explore"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["prefix", "scenario", "strategy"], "{text}");
    assert_eq!(json["explore"]["scenario"]["db_latency_ms"], 5);
    // Every option given reads back too.
    let all = ExploreRequest {
        symmetry: Some(false),
        unordered_ties: Some(true),
        max_states: Some(100),
        ..ExploreRequest::new(scenario)
    };
    let text = Request::Explore(all.clone()).to_json();
    assert_eq!(Request::parse(&text), Ok(Request::Explore(all)));
    let por = ExploreRequest {
        reduction: Some(lousa_core::explore::Reduction::Por),
        ..ExploreRequest::new(builtins::builtin("race-2").unwrap())
    };
    let text = Request::Explore(por.clone()).to_json();
    assert!(text.contains(r#""reduction":"por""#), "{text}");
    assert_eq!(Request::parse(&text), Ok(Request::Explore(por)));
}

#[test]
fn a_reduction_is_named_and_not_given_with_symmetry() {
    let unknown = Request::parse(r#"{"explore": {"scenario": "race-2", "reduction": "dpor"}}"#);
    let e = unknown.unwrap_err();
    assert!(
        e.starts_with("request.explore.reduction: unknown variant `dpor`, expected one of `none`, `symmetry`, `por`"),
        "{e}"
    );
    let both = Request::parse(
        r#"{"explore": {"scenario": "race-2", "reduction": "por", "symmetry": false}}"#,
    );
    assert!(
        both.unwrap_err()
            .starts_with("request.explore.symmetry: give `reduction` or `symmetry`, not both"),
    );
}

#[test]
fn a_sweep_request_reads_back_with_its_cells_and_refusals() {
    let base = link::decode("race-2;instances=3").unwrap();
    let mut request = SweepRequest::new(base, "instances=1,99", "network.jitter_ms=0,5");
    request.strategies = Some(vec!["check-then-act".into()]);
    request.seeds = Some(5);
    assert_eq!(request.cells.len(), 4);
    assert!(request.cells[1].is_err(), "99 instances is refused");
    let text = Request::Sweep(request.clone()).to_json();
    assert!(
        text.contains(
            r#"{"refused":{"edit":1,"field":"instances","message":"99 is outside 1..=8"}}"#
        ),
        "{text}"
    );
    assert_eq!(Request::parse(&text), Ok(Request::Sweep(request)));
    // Axes that do not read make no cells: the worker names them.
    let unread = SweepRequest::new(builtins::builtin("race-2").unwrap(), "instances", "seed=1");
    assert!(unread.cells.is_empty());
}
