//! Issue #5, faithfulness: the store model and a real PostgreSQL 15 must give
//! the same result for every step of every permutation of every spec in
//! `tests/conformance/`.
//!
//! Needs `DATABASE_URL` (a server this test may create schemas in; the
//! repository's test command starts a throwaway one). Without it the test
//! fails, unless `LOUSA_SKIP_PG=1` says to skip on purpose.

use lousa_core::store::{SessionId, Stmt, Store, Value};
use lousa_tests::conformance::model::ModelSide;
use lousa_tests::conformance::server::PgSide;
use lousa_tests::conformance::spec_file;
use lousa_tests::conformance::{
    CaseReport, Outcome, Spec, StepResult, run_case, run_permutation, spec_from_store_trace,
};
use std::time::Instant;

/// The server's URL, `None` when skipping is asked for; panics otherwise.
fn database_url() -> Option<String> {
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("LOUSA_SKIP_PG").as_deref() == Ok("1") => {
            eprintln!(
                "conformance: skipped (LOUSA_SKIP_PG=1): the model was NOT compared with PostgreSQL"
            );
            None
        }
        _ => panic!(
            "DATABASE_URL is not set: the conformance suite compares the store model with a real \
             PostgreSQL 15 and cannot run without one. Run the repository's test command (it starts \
             a throwaway server), or export DATABASE_URL=postgres://user@host:port/db, or set \
             LOUSA_SKIP_PG=1 to skip this comparison knowingly."
        ),
    }
}

fn check_case(url: &str, spec: &Spec) -> CaseReport {
    let mut model = ModelSide::new(spec);
    let mut pg = PgSide::connect(url, spec).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    run_case(spec, &mut model, &mut pg).unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

#[test]
fn store_model_agrees_with_postgresql() {
    let Some(url) = database_url() else { return };
    let mut specs = spec_file::load_dir(&spec_file::suite_dir()).expect("conformance specs load");
    assert!(
        !specs.is_empty(),
        "no specs in {}",
        spec_file::suite_dir().display()
    );
    // `LOUSA_CONFORMANCE_CASE=name` runs the cases whose name contains it.
    if let Ok(only) = std::env::var("LOUSA_CONFORMANCE_CASE") {
        specs.retain(|s| s.name.contains(&only));
        assert!(
            !specs.is_empty(),
            "no case matches LOUSA_CONFORMANCE_CASE={only}"
        );
    }
    // Cases run on a few threads at once: each has its schema and its
    // sessions, and a case spends most of its time waiting on the server
    // (round trips, lock waits, deadlock timeouts), not on a core. Verbose
    // output comes one case at a time, so that it reads in order.
    let verbose = std::env::var("LOUSA_CONFORMANCE_VERBOSE").as_deref() == Ok("1");
    let threads = std::env::var("LOUSA_CONFORMANCE_THREADS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(if verbose { 1 } else { 4 })
        .min(specs.len());
    let start = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut reports: Vec<(usize, CaseReport)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(spec) = specs.get(i) else {
                            return mine;
                        };
                        mine.push((i, check_case(&url, spec)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a case's thread panicked"))
            .collect()
    });
    reports.sort_by_key(|(i, _)| *i);
    let mut total = 0;
    let mut differences = Vec::new();
    eprintln!(
        "{:40} {:>6} {:>8} {:>6} {:>8}",
        "case", "perms", "invalid", "racy", "seconds"
    );
    for (_, r) in reports {
        eprintln!(
            "{:40} {:>6} {:>8} {:>6} {:>8.2}{}",
            r.name,
            r.permutations,
            r.invalid,
            r.racy,
            r.elapsed.as_secs_f64(),
            if r.difference.is_some() {
                "  DIFFERS"
            } else {
                ""
            }
        );
        total += r.permutations;
        differences.extend(r.difference);
    }
    eprintln!(
        "{} cases, {total} permutations in {:.1} s on {threads} threads",
        specs.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        differences.is_empty(),
        "the store model differs from PostgreSQL:\n\n{}",
        differences.join("\n")
    );
}

fn claim(key: &str) -> Stmt {
    Stmt::Insert {
        table: "cobranca".into(),
        values: vec![
            ("idempotency_key".into(), Value::text(key)),
            ("pedido_id".into(), Value::Int(123)),
            ("valor_centavos".into(), Value::Int(25000)),
            ("status".into(), Value::text("PROCESSANDO")),
        ],
        on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
        returning: vec!["id".into()],
    }
}

fn begin(isolation: &str) -> Stmt {
    serde_json::from_value(serde_json::json!({ "op": "begin", "isolation": isolation })).unwrap()
}

fn read(key: &str) -> Stmt {
    Stmt::Select {
        table: "cobranca".into(),
        columns: vec!["id".into(), "status".into()],
        filter: vec![("idempotency_key".into(), Value::text(key))],
        for_update: false,
    }
}

fn update_status(key: &str, status: &str) -> Stmt {
    Stmt::Update {
        table: "cobranca".into(),
        set: vec![("status".into(), Value::text(status))],
        increment: vec![],
        filter: vec![("idempotency_key".into(), Value::text(key))],
        returning: vec!["id".into(), "status".into()],
    }
}

/// Hand-made store traces, the shape a simulation of the store produces,
/// replayed on both sides through `spec_from_store_trace`.
#[test]
fn store_traces_replay_identically_on_postgresql() {
    let Some(url) = database_url() else { return };
    let (a, b, c) = (SessionId(0), SessionId(1), SessionId(2));
    let plain = Stmt::Insert {
        table: "cobranca".into(),
        values: vec![("idempotency_key".into(), Value::text("k"))],
        on_conflict_do_nothing: None,
        returning: vec![],
    };
    // (name, trace, whether PostgreSQL races in it)
    type Trace = Vec<(SessionId, Stmt)>;
    let traces: Vec<(&str, Trace, bool)> = vec![
        (
            "trace_serializable_pair",
            vec![
                (a, begin("serializable")),
                (b, begin("serializable")),
                (a, read("k")),
                (b, read("k")),
                (a, claim("k")),
                (b, claim("j")),
                (a, Stmt::Commit),
                (b, Stmt::Commit),
            ],
            false,
        ),
        (
            "trace_failed_block",
            vec![
                (a, claim("k")),
                (b, begin("repeatable-read")),
                (b, plain),
                (b, read("k")),
                (b, Stmt::Commit),
                (b, read("k")),
            ],
            false,
        ),
        // c waits for b's row, a queues behind c; b's commit wakes c, and
        // PostgreSQL may let a update the new version before c does.
        (
            "trace_row_lock_queue",
            vec![
                (a, claim("k")),
                (b, begin("read-committed")),
                (b, update_status("k", "CAPTURADA")),
                (c, update_status("k", "RECUSADA")),
                (a, update_status("k", "PROCESSANDO")),
                (b, Stmt::Commit),
                (a, read("k")),
            ],
            true,
        ),
        // Two claims wait for the first, which rolls back: both wake at once
        // and PostgreSQL lets either win. The runner flags the race and
        // compares only what came before it.
        (
            "trace_three_claims_race",
            vec![
                (a, begin("read-committed")),
                (a, claim("k")),
                (b, claim("k")),
                (c, begin("read-committed")),
                (c, claim("k")),
                (a, Stmt::Rollback),
                (c, Stmt::Commit),
                (b, read("k")),
            ],
            true,
        ),
    ];
    let mut differences = Vec::new();
    for (name, trace, racy) in traces {
        let spec = spec_from_store_trace(name, &trace);
        let r = check_case(&url, &spec);
        assert_eq!(r.permutations, 1);
        assert_eq!(r.racy, usize::from(racy), "{name}: race flagged wrongly");
        differences.extend(r.difference);
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// `design::check` refuses an ON CONFLICT whose columns carry no UNIQUE
/// constraint, saying PostgreSQL would (42P10): the model alone would just
/// skip any conflict. Here the server says so, for the table the refused
/// design names (cobranca with its UNIQUE taken off).
#[test]
fn postgresql_refuses_on_conflict_without_a_unique_as_the_design_check_does() {
    let mut design: serde_json::Value =
        serde_json::from_str(lousa_core::design::builtin::ALL[3].1).expect("idempotency-key");
    design["tables"][0]["unique"] = serde_json::json!([]);
    let refusal = lousa_core::design::Design::from_json(&design.to_string())
        .expect_err("refused")
        .to_string();
    assert!(refusal.contains("(42P10)"), "{refusal}");
    let Some(url) = database_url() else { return };
    let mut spec =
        spec_from_store_trace("on_conflict_without_unique", &[(SessionId(0), claim("k"))]);
    for t in &mut spec.tables {
        t.uniques.clear();
    }
    let mut pg = PgSide::connect(&url, &spec).expect("server");
    let perm = spec.permutations[0].clone();
    let run = run_permutation(&mut pg, &spec, &perm).expect("runs");
    match &run.steps[0].1 {
        StepResult::Done(Outcome::Error { code, .. }) => assert_eq!(code, "42P10"),
        other => panic!("PostgreSQL ran it: {other:?}"),
    }
}

/// A role that may not `SET deadlock_timeout` (most roles on a reader's own
/// server) still sees PostgreSQL abort the deadlocked backend the model
/// aborts, in every order of the deadlock case: `lousa replay` spaces the
/// statements sent while another waits instead (`Deadlocks::Spaced`).
#[test]
fn deadlocks_pick_the_models_victim_for_a_role_that_may_not_set_the_timeout() {
    use lousa_tests::conformance::server::{Deadlocks, Settings, config, preflight};
    let Some(url) = database_url() else { return };
    let role = format!("lousa_conformance_plain_{}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).expect("PostgreSQL accepts");
    let mut their = config(&url).expect("the URL reads");
    let db = their.get_dbname().unwrap_or("postgres").to_string();
    admin
        .batch_execute(&format!(
            "DROP ROLE IF EXISTS {role}; CREATE ROLE {role} LOGIN; \
             GRANT CREATE ON DATABASE {db} TO {role}; \
             ALTER ROLE {role} SET deadlock_timeout = '500ms'"
        ))
        .expect("the test's server lets it create a role");
    their.user(&role);
    // Half the default timeout, which halves the case's time; the gap
    // between the detectors is a tenth of it, 50 ms.
    let server = preflight(&their).expect("the role passes the checks");
    assert_eq!(server.deadlock_timeout_ms, 500);
    let deadlocks = server.deadlocks();
    let specs = spec_file::load_dir(&spec_file::suite_dir()).expect("conformance specs load");
    let spec = specs
        .iter()
        .find(|s| s.name == "claim_deadlock")
        .expect("the deadlock case");
    let settings = Settings {
        schema: format!("lousa_conformance_plain_{}", std::process::id()),
        replace: true,
        timeout: std::time::Duration::from_secs(30),
        interrupt: None,
        deadlocks,
    };
    let report = PgSide::create(&their, spec, settings).map(|mut pg| {
        let mut model = ModelSide::new(spec);
        let report = run_case(spec, &mut model, &mut pg);
        let _ = pg.close();
        report
    });
    admin
        .batch_execute(&format!(
            "REVOKE CREATE ON DATABASE {db} FROM {role}; DROP ROLE {role}"
        ))
        .unwrap();
    assert!(
        matches!(deadlocks, Deadlocks::Spaced { .. }),
        "a plain role may not set it: {deadlocks:?}"
    );
    let report = report
        .unwrap_or_else(|f| panic!("{}", f.error))
        .expect("the case runs");
    assert!(report.permutations > 1, "{report:?}");
    assert_eq!(report.difference, None);
}

/// A statement held up by a backend outside the run (here a connection that
/// locks the table; in the suite, autovacuum truncating a table it emptied)
/// is still running, not blocked: the model knows only the run's sessions,
/// so the runner waits for it to finish instead of reporting a wait that the
/// model would call a difference.
#[test]
fn a_wait_on_a_backend_outside_the_run_is_not_a_block() {
    use lousa_tests::conformance::Side;
    let Some(url) = database_url() else { return };
    let a = SessionId(0);
    let spec = spec_from_store_trace("outside_lock", &[(a, claim("k"))]);
    let mut pg = PgSide::connect(&url, &spec).unwrap_or_else(|e| panic!("{e}"));
    pg.reset().expect("the tables are emptied");
    let table = format!("{}.cobranca", pg.schema());
    let mut outsider = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    outsider
        .batch_execute(&format!(
            "BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE"
        ))
        .expect("locks the table");
    let mut watcher = postgres::Client::connect(&url, postgres::NoTls).expect("connects");
    let releaser = std::thread::spawn(move || {
        // The lock is let go once the session's INSERT waits for it.
        let waiting = format!(
            "SELECT count(*) FROM pg_locks WHERE relation = '{table}'::regclass AND NOT granted"
        );
        while watcher.query_one(&waiting, &[]).unwrap().get::<_, i64>(0) == 0 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        outsider.batch_execute("COMMIT").expect("unlocks");
    });
    let out = pg.step(0, &claim("k")).expect("the step runs");
    releaser.join().unwrap();
    assert!(
        matches!(out.own, Some(Outcome::Ok { rows: Some(ref rows), .. }) if rows.len() == 1),
        "the INSERT finished once the outside lock went, and claimed the key: {out:?}"
    );
    pg.close().expect("the schema is dropped");
}

/// Random store interleavings (a fixed seed, so the same ones every run):
/// statements are drawn for sessions the store says are not waiting, the
/// store's trace becomes a spec, and the spec runs on both sides. This is
/// how a property test of the simulation feeds the real server.
#[test]
fn random_store_traces_replay_identically_on_postgresql() {
    use rand_chacha::ChaCha8Rng;
    use rand_core::{RngCore, SeedableRng};
    let Some(url) = database_url() else { return };
    // `LOUSA_RANDOM_TRACES` and `LOUSA_RANDOM_SEED` widen the search by hand.
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(env("LOUSA_RANDOM_SEED", 5));
    let mut pick = |n: usize| (rng.next_u64() % n as u64) as usize;
    let mut differences = Vec::new();
    let (mut racy, mut traces) = (0, 0);
    for n in 0..env("LOUSA_RANDOM_TRACES", 40) {
        let mut store = Store::new(&[
            lousa_core::store::cobranca_table(),
            lousa_core::store::cobranca_simples_table(),
        ]);
        let sessions: Vec<SessionId> = (0..3).map(|_| store.open_session()).collect();
        let mut trace = Vec::new();
        for _ in 0..env("LOUSA_RANDOM_LEN", 14) {
            let ready: Vec<SessionId> = sessions
                .iter()
                .copied()
                .filter(|&s| store.waiting_on(s).is_none())
                .collect();
            if ready.is_empty() {
                break;
            }
            let s = ready[pick(ready.len())];
            let key = ["k1", "k2"][pick(2)];
            let id = Value::Int(pick(3) as i64 + 1);
            let stmt = match pick(14) {
                0 => match std::env::var("LOUSA_RANDOM_ISOLATION") {
                    Ok(level) => begin(&level),
                    Err(_) => begin(["read-committed", "repeatable-read", "serializable"][pick(3)]),
                },
                1 => Stmt::Commit,
                2 => Stmt::Rollback,
                3 | 4 => claim(key),
                5 => Stmt::Insert {
                    table: "cobranca".into(),
                    values: vec![("idempotency_key".into(), Value::text(key))],
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                },
                6 => read(key),
                7 => update_status(key, ["CAPTURADA", "RECUSADA"][pick(2)]),
                8 => Stmt::Select {
                    table: "cobranca".into(),
                    columns: vec!["id".into()],
                    filter: vec![("idempotency_key".into(), Value::text(key))],
                    for_update: true,
                },
                // The unindexed table: scans, and inserts no key can refuse.
                9 => Stmt::Select {
                    table: "cobranca_simples".into(),
                    columns: vec!["id".into(), "status".into()],
                    filter: vec![("pedido_id".into(), Value::Int(123))],
                    for_update: pick(2) == 0,
                },
                10 => Stmt::Insert {
                    table: "cobranca_simples".into(),
                    values: vec![
                        ("pedido_id".into(), Value::Int(123)),
                        ("valor_centavos".into(), Value::Int(25000)),
                    ],
                    on_conflict_do_nothing: None,
                    returning: vec!["id".into()],
                },
                // Probes of the primary key.
                11 => Stmt::Select {
                    table: "cobranca_simples".into(),
                    columns: vec!["id".into(), "status".into()],
                    filter: vec![("id".into(), id)],
                    for_update: false,
                },
                12 => Stmt::Update {
                    table: "cobranca_simples".into(),
                    set: vec![("status".into(), Value::text("CAPTURADA"))],
                    increment: vec![],
                    filter: vec![("id".into(), id)],
                    returning: vec![],
                },
                _ => Stmt::Delete {
                    table: "cobranca".into(),
                    filter: vec![("idempotency_key".into(), Value::text(key))],
                },
            };
            store.execute(s, stmt.clone());
            trace.push((s, stmt));
        }
        // `LOUSA_RANDOM_ONLY=n` replays one trace (the others are still drawn).
        if std::env::var("LOUSA_RANDOM_ONLY").is_ok_and(|only| only != n.to_string()) {
            continue;
        }
        let spec = spec_from_store_trace(&format!("random_trace_{n}"), &trace);
        let r = check_case(&url, &spec);
        traces += 1;
        racy += r.racy;
        differences.extend(r.difference);
    }
    eprintln!("{traces} random traces, {racy} compared only up to a race");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// The model's SSI assumes an Index Scan for any filter on an indexed
/// column (a UNIQUE constraint's index before the primary key's) and a Seq
/// Scan otherwise. EXPLAIN, in the sessions' settings, of every filtered
/// statement of every spec holds PostgreSQL to that.
#[test]
fn postgresql_plans_the_scans_the_model_assumes() {
    let Some(url) = database_url() else { return };
    let specs = spec_file::load_dir(&spec_file::suite_dir()).expect("conformance specs load");
    let mut checked = 0;
    for spec in &specs {
        let pg = PgSide::connect(&url, spec).unwrap_or_else(|e| panic!("{}: {e}", spec.name));
        for step in spec.sessions.iter().flat_map(|s| &s.steps) {
            let (table, filter) = match &step.stmt {
                Stmt::Select { table, filter, .. }
                | Stmt::Update { table, filter, .. }
                | Stmt::Delete { table, filter } => (table, filter),
                _ => continue,
            };
            let def = spec
                .tables
                .iter()
                .find(|t| &t.name == table)
                .expect("spec table");
            let indexes = def
                .uniques
                .iter()
                .map(|u| (u.name.clone(), u.columns.clone()))
                .chain(std::iter::once((
                    format!("{table}_pkey"),
                    vec!["id".to_string()],
                )));
            let expected = indexes
                .into_iter()
                .find(|(_, cols)| filter.iter().any(|(c, _)| cols.iter().any(|k| k == c)))
                .map(|(name, _)| format!("Index Scan using {name}"))
                .unwrap_or_else(|| "Seq Scan".to_string());
            let planned = match pg.planned_scan(&step.stmt) {
                // Refused while it is planned (a number past an int): it
                // scans nothing, in PostgreSQL and in the model alike.
                Err(e) if e.to_string().contains("ERROR 22003") => continue,
                planned => planned.unwrap_or_else(|e| panic!("{}: {e}", spec.name)),
            };
            assert_eq!(planned, expected, "{}: {}", spec.name, step.stmt.to_sql());
            checked += 1;
        }
    }
    eprintln!("{checked} statements planned as the model assumes");
}

/// Needs no server: every spec loads and every permutation runs on the model
/// without the runner tripping over itself.
#[test]
fn every_spec_runs_on_the_model() {
    let specs = spec_file::load_dir(&spec_file::suite_dir()).expect("conformance specs load");
    for spec in &specs {
        let mut model = ModelSide::new(spec);
        for perm in spec.permutations_to_run() {
            run_permutation(&mut model, spec, &perm).expect("the model never fails");
        }
    }
}

/// The simulation's own store traffic: every built-in under every strategy
/// sends its statements, in the order the simulated instances issued them,
/// to the model and to PostgreSQL, which must agree step by step. What the
/// lousa draws from the store is thereby what a real server would do.
#[test]
fn simulated_store_traffic_replays_identically_on_postgresql() {
    let Some(url) = database_url() else { return };
    let mut differences = Vec::new();
    let mut statements = 0;
    let mut cases = 0;
    for name in lousa_core::builtins::NAMES {
        for strategy in lousa_core::Strategy::ALL {
            let mut s = lousa_core::builtins::builtin(name).unwrap();
            s.strategy = strategy;
            let run = lousa_core::run(&s).unwrap();
            // A crash's close of a connection is no statement: the specs
            // have no step for it, and `lousa replay` checks it instead.
            let trace: Vec<(SessionId, Stmt)> = run
                .store_log
                .iter()
                .filter(|st| !st.closed)
                .map(|st| (SessionId(st.session), st.stmt.clone()))
                .collect();
            if trace.is_empty() {
                continue;
            }
            statements += trace.len();
            cases += 1;
            let spec =
                spec_from_store_trace(&format!("sim_{name}_{strategy}").replace('-', "_"), &trace);
            let r = check_case(&url, &spec);
            differences.extend(r.difference);
        }
    }
    // Random interleavings of race-3 under every isolation level: where SSI
    // and lock waits decide, and where the model is easiest to get wrong.
    use lousa_core::store::Isolation;
    for isolation in [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ] {
        for strategy in [
            lousa_core::Strategy::CheckThenAct,
            lousa_core::Strategy::IdempotencyKey,
            lousa_core::Strategy::IdempotencyKeyCatch,
            lousa_core::Strategy::IdempotencyKeyHeldTx,
        ] {
            for seed in 0..8 {
                let mut s = lousa_core::builtins::race(3);
                s.strategy = strategy;
                s.isolation = isolation;
                s.seed = seed;
                let run = lousa_core::run(&s).unwrap();
                let trace: Vec<(SessionId, Stmt)> = run
                    .store_log
                    .iter()
                    .map(|st| (SessionId(st.session), st.stmt.clone()))
                    .collect();
                statements += trace.len();
                cases += 1;
                let name = format!("race3_{strategy}_{isolation:?}_{seed}").replace('-', "_");
                let r = check_case(&url, &spec_from_store_trace(&name, &trace));
                differences.extend(r.difference);
            }
        }
    }
    eprintln!("simulated store traffic: {cases} runs, {statements} statements compared");
    assert!(cases >= 70, "only {cases} runs sent statements");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
