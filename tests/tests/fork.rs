//! Forking a run: the branch agrees with the run up to the fork, the
//! injected fault does what its label says, and the fork's text form reads
//! back and refuses what it cannot mean.

use lousa_core::builtins::{self, NAMES};
use lousa_core::fork::{self, Fork};
use lousa_core::narrate::Lang;
use lousa_core::run::{ForkError, run_forked};
use lousa_core::trace::EventKind;
use lousa_core::world::Injection;
use lousa_core::{Schedule, Strategy};

#[test]
fn every_offered_fault_branches_the_run_at_its_frame_and_leaves_the_past_alone() {
    let mut forks = 0;
    let mut kinds = std::collections::HashSet::new();
    for name in NAMES {
        for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKeyLease] {
            let mut s = builtins::builtin(name).unwrap();
            s.strategy = strategy;
            let run = lousa_core::run(&s).unwrap();
            let schedule: Schedule = run.schedule.parse().unwrap();
            // Every fourth frame keeps the test quick; the offers differ
            // enough from frame to frame that each kind is met.
            for frame in (0..run.frame_count()).step_by(4) {
                let world = fork::world_at(&s, &run, frame).unwrap();
                assert_eq!(&world.frame(), run.state_at(frame), "{name} frame {frame}");
                for offer in fork::palette(&world, frame, Lang::En) {
                    let branch = run_forked(&s, &schedule, frame, offer.fork.injection)
                        .unwrap_or_else(|e| panic!("{name} {}: {e}", offer.fork));
                    for i in 0..=frame {
                        assert_eq!(
                            branch.state_at(i),
                            run.state_at(i),
                            "{name} {} frame {i}",
                            offer.fork
                        );
                    }
                    let injected = &branch.steps[frame].events;
                    assert!(
                        !injected.is_empty(),
                        "{name} {}: the fork step tells what it did",
                        offer.fork
                    );
                    kinds.insert(std::mem::discriminant(&offer.fork.injection));
                    let text = offer.fork.to_string();
                    assert_eq!(text.parse::<Fork>(), Ok(offer.fork), "{text}");
                    forks += 1;
                }
            }
        }
    }
    assert_eq!(kinds.len(), 5, "every kind of fault was offered somewhere");
    assert!(forks > 500, "{forks} forks");
}

/// `timeout-retry` under the key design, with the first answer in flight.
fn answer_in_flight() -> (lousa_core::Scenario, lousa_core::run::Run, usize) {
    let mut s = builtins::builtin("lost-response").unwrap();
    s.faults.clear();
    s.strategy = Strategy::IdempotencyKey;
    let run = lousa_core::run(&s).unwrap();
    let frame = run
        .events()
        .find(|(_, e)| matches!(e.kind, EventKind::Responded { attempt: 0, .. }))
        .map(|(f, _)| f)
        .expect("attempt 1 is answered");
    (s, run, frame)
}

#[test]
fn a_lost_answer_makes_the_app_retry_and_the_retry_gets_the_stored_one() {
    let (s, run, frame) = answer_in_flight();
    assert_eq!(
        run.summary.attempts.len(),
        1,
        "unforked, the first answer arrives"
    );
    let schedule: Schedule = run.schedule.parse().unwrap();
    let branch = run_forked(&s, &schedule, frame, Injection::LoseResponse { attempt: 0 }).unwrap();
    assert!(
        branch
            .events()
            .any(|(_, e)| e.kind == EventKind::ResponseDropped { attempt: 0 })
    );
    assert_eq!(branch.summary.captures, 1);
    let statuses: Vec<_> = branch.summary.attempts.iter().map(|a| a.status).collect();
    assert_eq!(
        statuses,
        [None, Some(201)],
        "the retry is answered with the stored 201"
    );
}

#[test]
fn a_delay_moves_the_arrival_and_a_crash_kills_the_instance_at_the_fork() {
    let (s, run, frame) = answer_in_flight();
    let schedule: Schedule = run.schedule.parse().unwrap();
    let heard = |r: &lousa_core::run::Run| {
        r.events()
            .find(|(_, e)| {
                matches!(
                    e.kind,
                    EventKind::ResponseReceived { attempt: 0, .. }
                        | EventKind::LateResponseIgnored { attempt: 0, .. }
                )
            })
            .map(|(_, e)| e.time_ms)
    };
    let late = run_forked(
        &s,
        &schedule,
        frame,
        Injection::Delay {
            attempt: 0,
            by_ms: 700,
        },
    )
    .unwrap();
    assert_eq!(heard(&late), heard(&run).map(|t| t + 700));

    let mut s = builtins::builtin("timeout-retry").unwrap();
    s.strategy = Strategy::IdempotencyKey;
    let run = lousa_core::run(&s).unwrap();
    let schedule: Schedule = run.schedule.parse().unwrap();
    let capturing = run
        .events()
        .find(|(_, e)| matches!(e.kind, EventKind::CaptureRequested { .. }))
        .map(|(f, _)| f)
        .unwrap();
    let crash = Injection::Crash {
        instance: 0,
        restart_after_ms: None,
    };
    let branch = run_forked(&s, &schedule, capturing, crash).unwrap();
    assert!(!branch.state_at(capturing + 1).instances[0].alive);
    assert!(matches!(
        &branch.steps[capturing].events[0].kind,
        EventKind::Crashed { instance: 0, lost_attempts } if lost_attempts == &[0]
    ));
    // The acquirer still captured; the key's row stays PROCESSANDO, so the
    // retry is refused with 409 and nothing charges twice.
    assert_eq!(branch.summary.captures, 1);
    assert!(
        branch
            .summary
            .attempts
            .iter()
            .all(|a| a.status != Some(201))
    );
}

#[test]
fn a_fork_that_cannot_happen_says_why() {
    let s = builtins::builtin("timeout-retry").unwrap();
    let run = lousa_core::run(&s).unwrap();
    let schedule: Schedule = run.schedule.parse().unwrap();
    let at = |frame, i| run_forked(&s, &schedule, frame, i).unwrap_err().to_string();
    let frames = run.frame_count();
    assert_eq!(
        at(
            frames + 5,
            Injection::Crash {
                instance: 0,
                restart_after_ms: None
            }
        ),
        format!(
            "frame {} is past the run's end: it has frames 0 to {}",
            frames + 5,
            frames - 1
        )
    );
    assert_eq!(
        at(
            frames - 1,
            Injection::Crash {
                instance: 0,
                restart_after_ms: None
            }
        ),
        "the run is over at this moment: nothing is left to break"
    );
    assert_eq!(
        at(
            0,
            Injection::Crash {
                instance: 7,
                restart_after_ms: None
            }
        ),
        "instance 8 does not exist: the scenario has 2"
    );
    assert_eq!(
        at(0, Injection::LoseResponse { attempt: 0 }),
        "attempt 1 has nothing in flight now"
    );
    assert_eq!(
        at(
            1,
            Injection::Delay {
                attempt: 0,
                by_ms: s.horizon_ms + 1
            }
        ),
        format!(
            "a delay of {} ms is over the limit of {} ms (the scenario's horizon)",
            s.horizon_ms + 1,
            s.horizon_ms
        )
    );
    assert!(matches!(
        run_forked(&s, &schedule, 0, Injection::SilenceAcquirer { call: 0 }),
        Err(ForkError::Inject(_))
    ));
}

#[test]
fn the_fork_text_reads_back_and_names_what_is_wrong() {
    for text in [
        "12:crash-2+3000",
        "0:crash-1",
        "3:lose-request-1",
        "9:lose-response-2",
        "4:silence-acquirer-1",
        "7:delay-2+500",
    ] {
        let fork: Fork = text.parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fork.to_string(), text);
    }
    let refusal = |text: &str| text.parse::<Fork>().unwrap_err().to_string();
    assert_eq!(
        refusal("crash-2"),
        r#"fork "crash-2": expected FRAME:FAULT, e.g. 12:crash-2+3000"#
    );
    assert_eq!(
        refusal("x:crash-2"),
        r#"fork "x:crash-2": the frame must be a whole number, got "x""#
    );
    assert_eq!(
        refusal("99999999:crash-2"),
        r#"fork "99999999:crash-2": the frame is too large: at most 20000"#
    );
    assert_eq!(
        refusal("1:crash-0"),
        r#"fork "1:crash-0": crash counts from 1"#
    );
    assert_eq!(
        refusal("1:melt-1"),
        r#"fork "1:melt-1": "melt" is not a fault: choose crash-I[+MS], lose-request-A, lose-response-A, silence-acquirer-C or delay-A+MS"#
    );
    assert_eq!(
        refusal("1:delay-1"),
        r#"fork "1:delay-1": delay needs +milliseconds, e.g. delay-2+500"#
    );
    assert_eq!(
        refusal("1:lose-request-1+5"),
        r#"fork "1:lose-request-1": lose-request takes no +milliseconds"#.replace("-1\"", "-1+5\"")
    );
    assert!(
        refusal(&format!("1:{}", "x".repeat(100_000))).len() < 300,
        "a long value is cut"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any text a link or a terminal could carry reads as a fork that
    /// prints back the same, or is refused with a reason; any fork that
    /// reads, applied to a built-in, branches or says why, and never panics.
    #[test]
    fn any_fork_text_reads_or_is_refused_and_any_fork_runs_or_is_refused(
        text in "[0-9]{1,3}:(crash|lose-request|lose-response|silence-acquirer|delay|melt)-[0-9]{1,2}(\\+[0-9]{1,7})?|.{0,40}",
        which in 0..NAMES.len(),
    ) {
        match text.parse::<Fork>() {
            Ok(fork) => {
                proptest::prop_assert_eq!(fork.to_string().parse::<Fork>(), Ok(fork));
                let s = builtins::builtin(NAMES[which]).unwrap();
                let run = lousa_core::run(&s).unwrap();
                let schedule: Schedule = run.schedule.parse().unwrap();
                if let Ok(branch) = run_forked(&s, &schedule, fork.frame, fork.injection) {
                    proptest::prop_assert_eq!(branch.state_at(fork.frame), run.state_at(fork.frame));
                }
            }
            Err(e) => proptest::prop_assert!(!e.problem.is_empty()),
        }
    }
}
