//! The world runs every strategy as its built-in design (issue #31). Before
//! the hand-coded handlers were deleted, their traces and explorer reports
//! were recorded here, as hashes, over every built-in scenario, strategy and
//! option, the fault swarm's draws and the balance's variants; the designs
//! must still produce them byte for byte. `UPDATE_EXPECT=1` rewrites the
//! file, which a change of semantics must then justify in review.

use lousa_core::explore::{Options, explore};
use lousa_core::handler::builtin_design;
use lousa_core::scenario::{BalanceSpec, EventDelivery};
use lousa_core::store::Isolation;
use lousa_core::{Scenario, Strategy, builtins};

/// The strategies, with every option that picks another design:
/// check-then-act's autocommit, and the isolation levels.
fn variants() -> Vec<(Strategy, bool, Isolation)> {
    let mut out = Vec::new();
    for strategy in Strategy::ALL {
        for autocommit in [false, true] {
            if autocommit && strategy != Strategy::CheckThenAct {
                continue;
            }
            for isolation in [
                Isolation::ReadCommitted,
                Isolation::RepeatableRead,
                Isolation::Serializable,
            ] {
                out.push((strategy, autocommit, isolation));
            }
        }
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The run as JSON, as the hand-coded handlers' runs were recorded: their
/// store log left out recovery's statements (it logs them since the
/// exported script needed them), so those are taken out again, and each
/// capture's mark counts the statements before it without them.
fn trace_json(s: &Scenario) -> String {
    let mut run = lousa_core::run(s).expect("a valid scenario");
    // Recovery updates and deletes; the account's set-up, on the same
    // connection, inserts and was recorded.
    let recovery = |st: &lousa_core::world::StoreStatement| {
        st.instance.is_none() && !matches!(st.stmt, lousa_core::store::Stmt::Insert { .. })
    };
    for c in &mut run.captures {
        c.after_statements -= run.store_log[..c.after_statements]
            .iter()
            .filter(|st| recovery(st))
            .count();
    }
    run.store_log.retain(|st| !recovery(st));
    serde_json::to_string(&run).expect("a run is JSON")
}

/// What the recorded runs must have covered, counted as they run.
#[derive(Default)]
struct Seen {
    runs: usize,
    expired: bool,
    retaken: bool,
    consumed: usize,
    locals: usize,
    balances: usize,
    reread: bool,
    refused: bool,
    gave_up: usize,
}

/// One line of the file: a label, and the hash of the traces of `runs`.
fn line(label: String, runs: &[Scenario], seen: &mut Seen) -> String {
    let mut hashes = String::new();
    for s in runs {
        let json = trace_json(s);
        let design = builtin_design(s);
        seen.runs += 1;
        seen.consumed += usize::from(design.starts_with("consumer-"));
        seen.locals += usize::from(s.strategy == Strategy::LocalEffect);
        seen.balances += usize::from(design.starts_with("local-effect-balance"));
        if s.strategy == Strategy::IdempotencyKeyLease {
            seen.expired |= json.contains("DELETE FROM chave_idempotencia");
            seen.retaken |= json.contains("estado = 'failed_safe'");
        }
        let versioned = s.balance.as_ref().is_some_and(|b| b.version_column);
        seen.reread |= versioned && json.matches("SELECT saldo, versao").count() > 2;
        seen.refused |= json.contains("saldo insuficiente");
        seen.gave_up += usize::from(json.contains("saldo alterado por outra"));
        hashes += &format!("{:016x}", fnv1a(json.as_bytes()));
    }
    format!("{label} {:016x}\n", fnv1a(hashes.as_bytes()))
}

/// Every built-in scenario under every variant, at three seeds.
fn builtin_runs(out: &mut String, seen: &mut Seen) {
    for base in builtins::all() {
        for (strategy, autocommit, isolation) in variants() {
            let runs: Vec<_> = [base.seed, base.seed + 1, base.seed + 7]
                .into_iter()
                .map(|seed| {
                    let mut s = base.clone();
                    s.strategy = strategy;
                    s.autocommit = autocommit;
                    s.isolation = isolation;
                    s.seed = seed;
                    s
                })
                .filter(|s| s.validate().is_ok())
                .collect();
            if !runs.is_empty() {
                let label = format!(
                    "{} {strategy} autocommit={autocommit} {isolation:?}",
                    base.name
                );
                *out += &line(label, &runs, seen);
            }
        }
    }
}

/// The fault swarm's drawn faults, timings and retry policies (crashes at
/// every point, lost and late messages, a silent acquirer).
fn fault_runs(out: &mut String, seen: &mut Seen) {
    use lousa_core::fault_swarm::{all_targets, draw};
    for t in all_targets() {
        for &strategy in &t.strategies {
            let mut base = t.scenario.clone();
            base.strategy = strategy;
            let runs: Vec<_> = (0..12).map(|seed| draw(&base, seed)).collect();
            *out += &line(format!("faults {} {strategy}", t.base), &runs, seen);
        }
    }
}

/// Every combination of `local-effect`'s balance options and its event,
/// and five debits at once on the versioned account, which run out of
/// re-reads.
fn balance_runs(out: &mut String, seen: &mut Seen) {
    for name in ["balance-lost-update", "race-2", "event-outbox"] {
        let base = builtins::builtin(name).expect("built-in");
        for (for_update, version_column) in [(false, false), (true, false), (false, true)] {
            for event in [
                EventDelivery::None,
                EventDelivery::Outbox,
                EventDelivery::AfterCommit,
            ] {
                let runs: Vec<_> = [(0, 100_000), (1, 30_000), (2, 100_000), (3, 0)]
                    .into_iter()
                    .map(|(seed, opening_cents)| {
                        let mut s = base.clone();
                        s.strategy = Strategy::LocalEffect;
                        s.event = event;
                        s.seed = base.seed + seed;
                        s.balance = Some(BalanceSpec {
                            opening_cents,
                            for_update,
                            version_column,
                        });
                        s
                    })
                    .collect();
                let label = format!(
                    "balance {name} for_update={for_update} version={version_column} {event:?}"
                );
                *out += &line(label, &runs, seen);
            }
        }
    }
    let mut s = builtins::builtin("balance-version-column").expect("built-in");
    let first = s.clients[0].clone();
    s.clients = (0..5)
        .map(|i| {
            let mut c = first.clone();
            c.name = format!("compra-{i}");
            c.intents[0].order_id += i;
            c.intents[0].amount_cents = 1_000;
            c.intents[0].key = format!("debito-{i}");
            c
        })
        .collect();
    let runs: Vec<_> = (0..20)
        .map(|seed| {
            let mut s = s.clone();
            s.seed = seed;
            s
        })
        .collect();
    *out += &line("balance five-debits".into(), &runs, seen);
}

/// The explorer's whole report, every interleaving and not only one: on
/// race-2 for every variant, on race-3 for the two the posts set side by
/// side, on the queue's redelivery for each consumer, and on the three
/// balance scenarios.
fn explorer_reports(out: &mut String) {
    let race_3 = [Strategy::CheckThenAct, Strategy::IdempotencyKey]
        .map(|s| ("race-3", (s, false, Isolation::ReadCommitted)));
    let queue = [
        Strategy::Naive,
        Strategy::CheckThenAct,
        Strategy::IdempotencyKey,
    ]
    .map(|s| ("queue-redelivery", (s, false, Isolation::ReadCommitted)));
    let balances = [
        "balance-lost-update",
        "balance-for-update",
        "balance-version-column",
    ]
    .map(|b| (b, (Strategy::LocalEffect, false, Isolation::ReadCommitted)));
    let cases = variants()
        .into_iter()
        .map(|v| ("race-2", v))
        .chain(race_3)
        .chain(queue)
        .chain(balances);
    for (name, (strategy, autocommit, isolation)) in cases {
        let mut s = builtins::builtin(name).expect("built-in");
        s.strategy = strategy;
        s.autocommit = autocommit;
        s.isolation = isolation;
        let report = explore(&s, &Options::for_scenario(&s)).expect("explores");
        let json = serde_json::to_string(&report).expect("a report is JSON");
        *out += &format!(
            "explore {name} {strategy} autocommit={autocommit} {isolation:?} {:016x}\n",
            fnv1a(json.as_bytes())
        );
    }
}

#[test]
fn every_strategy_runs_as_its_hand_coded_handler_was_recorded() {
    let (mut text, mut seen) = (String::new(), Seen::default());
    builtin_runs(&mut text, &mut seen);
    fault_runs(&mut text, &mut seen);
    balance_runs(&mut text, &mut seen);
    explorer_reports(&mut text);
    expect_test::expect_file!["../golden/handler-traces.txt"].assert_eq(&text);
    // The recorded runs reach the handlers' rarer ways: the lease design's
    // key past its lifetime forgotten and one recovery freed taken over
    // again, the queue's consumers, the balance's re-reads, its 402, and a
    // debit out of re-reads.
    assert!(seen.runs > 3_000, "only {} runs", seen.runs);
    assert!(seen.expired && seen.retaken, "lease ways not reached");
    assert!(seen.consumed >= 30, "only {} consumer runs", seen.consumed);
    assert!(seen.locals >= 100, "only {} local-effect runs", seen.locals);
    assert!(seen.balances >= 27, "only {} balance runs", seen.balances);
    assert!(seen.reread && seen.refused, "balance ways not reached");
    assert!(seen.gave_up > 0, "no debit ran out of re-reads");
    println!("handler traces: {} runs as recorded", seen.runs);
}
