//! The explorer's own tests; its counts against brute force and
//! stateright are in tests/tests/explore.rs.

use super::*;

#[test]
fn an_index_key_keeps_96_bits_and_hashes_by_the_low_word() {
    let fp: Fingerprint = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
    let key = IndexKey::new(fp);
    assert_eq!(std::mem::size_of::<(IndexKey, u32)>(), 16);
    let mut h = PassThrough::default();
    key.hash(&mut h);
    assert_eq!(h.finish(), fp as u64);
    for bit in (0..64).chain(96..128) {
        assert_ne!(IndexKey::new(fp ^ (1 << bit)), key, "bit {bit} counts");
    }
    assert_eq!(
        IndexKey::new(fp ^ (1 << 70)),
        key,
        "bits 64 to 95 are dropped"
    );
}
use crate::builtins::{builtin, race};
use crate::design::Serves;
use crate::handler::Pc;
use crate::store::{Isolation, Value};

fn explore_without_memo(s: &Scenario, o: &Options) -> Report {
    let mut ex = Explorer::new(s, o).expect("valid");
    ex.store_memo = None;
    while ex.run_for(u32::MAX).status == Status::Running {}
    ex.into_report().expect("stopped")
}

/// Example step counts come from the graph (the edge-0 chain after the
/// example's last edge), not from a replay: they must be what a replay
/// of the schedule takes, and each schedule must end in its outcome.
#[test]
fn example_steps_are_the_replayed_steps() {
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = race(2);
        s.strategy = strategy;
        for reduced in [false, true] {
            let mut o = Options::for_strategy(strategy);
            o.symmetry = reduced;
            o.unordered_ties = reduced;
            let r = explore(&s, &o).expect("valid");
            assert_eq!(r.status, Status::Complete);
            for outcome in &r.outcomes {
                let e = outcome.example.as_ref().expect("every outcome has one");
                assert_eq!(
                    e.steps,
                    replay_steps(&quiet_world(&s), &e.schedule, &mut None),
                    "{}",
                    e.text
                );
                let mut w = quiet_world(&s);
                let mut chooser = ScheduleChooser::new(&e.schedule);
                while !w.is_done() {
                    w.step(&mut chooser);
                }
                let summary = run::summarize(&w);
                let captures: Vec<u32> = summary.intents.iter().map(|i| i.captures).collect();
                assert_eq!(captures, outcome.captures, "{}", e.text);
                assert_eq!(summary.statuses(), outcome.answers, "{}", e.text);
            }
        }
    }
}

/// race-2 under each design whose statements wait or fail, each as it is
/// (the `Next`-only shortcut) and with jitter (the prefix walk).
pub(super) fn race_2_models() -> Vec<Scenario> {
    let mut models = Vec::new();
    for strategy in [
        Strategy::CheckThenAct,
        Strategy::IdempotencyKey,
        Strategy::IdempotencyKeyCatch,
        Strategy::IdempotencyKeyHeldTx,
        Strategy::IdempotencyKeyLease,
    ] {
        let mut s = race(2);
        s.strategy = strategy;
        models.push(s.clone());
        s.network.latency_ms = 1;
        s.network.jitter_ms = 1;
        models.push(s);
    }
    models
}

/// The store memo is a cache: every figure of every report, with and
/// without it, on models where statements wait, fail, crash with the
/// instance and take every path (the `Next`-only shortcut and the
/// prefix walk).
#[test]
fn the_store_memo_changes_no_report() {
    let mut models: Vec<Scenario> = ["crash-after-commit", "held-transaction", "key-reuse"]
        .iter()
        .map(|n| builtin(n).expect("built-in"))
        .collect();
    models.extend(race_2_models());
    for s in &models {
        for (symmetry, unordered_ties, max_states) in [
            (true, true, 20_000),
            (false, false, 20_000),
            (false, false, 300),
        ] {
            let mut o = Options::for_strategy(s.strategy);
            o.symmetry = symmetry;
            o.unordered_ties = unordered_ties;
            o.max_states = max_states;
            let mut ex = Explorer::new(s, &o).expect("valid");
            while ex.run_for(u32::MAX).status == Status::Running {}
            let hits = ex.store_memo.as_ref().expect("on by default").hits;
            let with = ex.into_report().expect("stopped");
            // Races repeat statements on equal stores (the built-ins
            // with one client may not).
            if s.clients.len() > 1 {
                assert!(hits > 0, "{} {}: the memo was used", s.name, s.strategy);
            }
            assert_eq!(
                with,
                explore_without_memo(s, &o),
                "{} {}",
                s.name,
                s.strategy
            );
        }
    }
}

/// The analysis orders the graph as it goes, so it must still see a
/// cycle, whether first edges (the all-zero runs) close it or later
/// ones. The graphs are written by hand: no model has a cycle.
#[test]
fn the_analysis_refuses_a_cycle() {
    let s = race(2);
    let mut ex = Explorer::new(&s, &Options::for_strategy(s.strategy)).expect("valid");
    let node = |first_edge, edge_count| Node {
        first_edge,
        edge_count,
        class: NONE,
        expanded: true,
    };
    let edge = |to| Edge {
        to,
        choices: 1,
        last_nonzero: 0,
    };
    // 0 -> 1 -> 2 -> 1 along first edges.
    ex.nodes = vec![node(0, 1), node(1, 1), node(2, 1)];
    ex.edges = vec![edge(1), edge(2), edge(1)];
    assert!(ex.analyse().is_none(), "a cycle of first edges");
    // 0 -> 1 -> 2 (terminal), and 2's sibling edge 1 -> 0 back.
    ex.classes = vec![Class {
        key: ClassKey {
            captures: vec![],
            answers: vec![],
            end: crate::trace::EndReason::Quiescent,
            broken: vec![],
            shown: vec![],
        },
        states: 1,
    }];
    let terminal = Node {
        class: 0,
        expanded: false,
        ..node(0, 0)
    };
    ex.nodes = vec![node(0, 1), node(1, 2), terminal];
    ex.edges = vec![edge(1), edge(2), edge(0)];
    assert!(ex.analyse().is_none(), "a cycle through a later edge");
    // Without the edge back: 1 path to the terminal state, in 2 steps.
    ex.nodes[1].edge_count = 1;
    ex.edges.pop();
    let a = ex.analyse().expect("acyclic");
    assert_eq!(a.class_schedules, vec![1]);
    assert_eq!(a.default_steps, vec![2, 1, 0]);
}

/// A copy into a spare world is the world, every field of it (Debug
/// prints them all, the trace and the counters `Eq` leaves out too).
#[test]
fn a_copy_into_a_spare_is_the_world() {
    let s = builtin("crash-after-commit").expect("built-in");
    let worlds = crate::world::worlds_along(&s, 7);
    assert!(worlds.len() > 5);
    let mut spare = worlds[worlds.len() - 1].clone();
    for w in &worlds {
        w.clone_into_reusing(&mut spare);
        assert_eq!(format!("{spare:?}"), format!("{w:?}"));
    }
}

/// A statement's effect depends on the session as much as on the
/// store: the same INSERT inside one session's open transaction and in
/// another's autocommit leaves different stores, and a SELECT after
/// either differs from the INSERT. No two of them may share an entry.
#[test]
fn the_store_memo_keys_on_store_session_and_statement() {
    let mut store = Store::with_all_tables();
    let a = store.open_session();
    let b = store.open_session();
    let begin = Stmt::Begin {
        isolation: Isolation::ReadCommitted,
    };
    assert!(matches!(store.execute(a, begin), Exec::Done(Ok(_))));
    let insert = Stmt::Insert {
        table: "cobranca_simples".into(),
        values: vec![
            ("pedido_id".into(), Value::Int(7)),
            ("valor_centavos".into(), Value::Int(100)),
            ("status".into(), Value::text("PROCESSANDO")),
        ],
        on_conflict_do_nothing: None,
        returning: vec!["id".into()],
    };
    let select = Stmt::Select {
        table: "cobranca_simples".into(),
        columns: vec!["id".into()],
        filter: vec![("pedido_id".into(), Value::Int(7))],
        for_update: false,
    };
    let start = Part::new(store);
    let mut after_insert = (*start).clone();
    after_insert.execute(b, insert.clone());
    let mut memo = StoreMemo::default();
    // The memo keys on what a statement is built from: each statement
    // here gets inputs of its own.
    let inputs_of = |pc| StmtInputs {
        pc,
        intent: 0,
        key: "k".into(),
        row_id: None,
        capture_result: None,
        now_ms: 0,
        fingerprint: Default::default(),
        balance: None,
        version: None,
        lease_token: None,
    };
    let (insert, select) = (
        (Pc::Step(Serves::Http, 0), &insert),
        (Pc::Step(Serves::Http, 1), &select),
    );
    let runs = [
        (&start, a, insert),
        (&start, b, insert),
        (&start, a, select),
        (&start, b, select),
        // Another store, the same session and statement.
        (&Part::new(after_insert), a, select),
        // A repeat: the one hit.
        (&start, b, insert),
    ];
    let mut results = Vec::new();
    for (from, session, (pc, stmt)) in runs {
        let mut via_memo = from.clone();
        let got = memo
            .execute(&mut via_memo, session, &inputs_of(pc), &|| stmt.clone())
            .into_owned();
        let mut direct = Store::clone(from);
        let want = direct.execute(session, stmt.clone());
        assert_eq!(got, want, "{session:?} {stmt:?}");
        assert_eq!(*via_memo, direct, "{session:?} {stmt:?}");
        results.push(direct);
    }
    assert_ne!(results[0], results[1], "the sessions' inserts differ");
    assert_ne!(results[2], results[4], "the stores' selects differ");
    assert_eq!(memo.hits, 1);
    assert_eq!(memo.map.len(), 5);
}

/// The shortcut `successors` takes where the only choice is `Next` must
/// give what the prefix walk gives: the same worlds, choice vectors and
/// order. (The brute-force tests enumerate with `successors`, so they
/// cannot see a difference between the two.)
#[test]
fn the_next_only_shortcut_matches_the_prefix_walk() {
    let mut models = vec![builtin("timeout-retry").expect("built-in")];
    // Three clients due at once: a `Next` of three alternatives.
    for strategy in [Strategy::CheckThenAct, Strategy::IdempotencyKey] {
        let mut s = race(3);
        s.strategy = strategy;
        models.push(s);
    }
    for s in models {
        assert!(
            only_next_choices(&s),
            "{}: a model for the shortcut",
            s.name
        );
        let mut stack = vec![quiet_world(&s)];
        let mut compared = 0;
        while let Some(w) = stack.pop() {
            if w.is_done() || compared == 3_000 {
                continue;
            }
            let fast = successors(&w);
            let walked = prefix_successors(&w, &mut None);
            let choices =
                |v: &[(Vec<u32>, World)]| v.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>();
            assert_eq!(choices(&fast), choices(&walked), "{}", s.name);
            assert!(
                fast.iter().zip(&walked).all(|(a, b)| a.1 == b.1),
                "{}",
                s.name
            );
            compared += 1;
            stack.extend(fast.into_iter().map(|(_, next)| next));
        }
        assert!(compared >= 30, "{}: {compared} states compared", s.name);
    }
}
