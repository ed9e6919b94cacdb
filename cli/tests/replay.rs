//! Issue #32, `lousa replay`: a run's store traffic on a real PostgreSQL 15,
//! compared statement by statement with the model.
//!
//! Needs `DATABASE_URL` (a server these tests may create schemas and a role
//! in; the repository's test command starts a throwaway one). Without it
//! the tests fail, unless `LOUSA_SKIP_PG=1` says to skip on purpose, as the
//! conformance suite does.

use lousa_core::explore;
use lousa_core::narrate::Lang;
use lousa_core::store::Value;
use lousa_core::{Scenario, Strategy, builtins, run};
use lousa_pg::Outcome;
use lousa_pg::replay::{self, Finished, Options, Plan, SchemaFate, Verdict, text};
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The server's URL, `None` when skipping is asked for; panics otherwise.
fn database_url() -> Option<String> {
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("LOUSA_SKIP_PG").as_deref() == Ok("1") => {
            eprintln!("replay: skipped (LOUSA_SKIP_PG=1): nothing was replayed on PostgreSQL");
            None
        }
        _ => panic!(
            "DATABASE_URL is not set: these tests replay runs on a real PostgreSQL 15 and cannot \
             run without one. Run the repository's test command (it starts a throwaway server), \
             or export DATABASE_URL=postgres://user@host:port/db, or set LOUSA_SKIP_PG=1 to skip \
             them knowingly."
        ),
    }
}

fn lousa(args: &[&str], url: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lousa"));
    cmd.args(args).env_remove("DATABASE_URL");
    if let Some(url) = url {
        cmd.env("DATABASE_URL", url);
    }
    cmd.output().expect("the binary runs")
}

/// The stdout of a replay that exited 0, which it must have.
fn exited_0(out: &Output) -> String {
    let stdout = text_of(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        text_of(&out.stderr)
    );
    stdout
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The schema the header says it creates.
fn schema_in(out: &str) -> String {
    out.split_whitespace()
        .find(|w| w.starts_with("lousa_replay_"))
        .unwrap_or_else(|| panic!("no schema named in:\n{out}"))
        .to_string()
}

/// Whether a schema of that name exists on the server, from pg_namespace.
fn schema_exists(url: &str, schema: &str) -> bool {
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL accepts");
    c.query_one(
        "SELECT count(*) FROM pg_namespace WHERE nspname = $1",
        &[&schema],
    )
    .expect("pg_namespace")
    .get::<_, i64>(0)
        == 1
}

/// Replays a run in this process, as the CLI does, with `model` for the
/// model's record.
fn replay_with(url: &str, plan: &Plan, model: &replay::Record) -> (Finished, String) {
    let config = lousa_pg::server::config(url).expect("a URL");
    let server = lousa_pg::server::preflight(&config).expect("the test server is usable");
    let schema = replay::schema_name();
    let options = Options {
        timeout: Duration::from_secs(30),
        interrupt: None,
    };
    let finished = replay::replay(
        plan,
        model,
        &config,
        &server,
        &schema,
        &options,
        &mut |_| {},
    );
    (finished, schema)
}

/// Replays and requires agreement and a dropped schema; returns how long
/// the replay took.
fn assert_agrees(url: &str, what: &str, s: &Scenario, r: &lousa_core::Run) -> Duration {
    let plan = Plan::new(s, r, Lang::En);
    let model = replay::model_record(&plan);
    let (finished, schema) = replay_with(url, &plan, &model);
    let report = finished
        .result
        .unwrap_or_else(|e| panic!("{what}: the replay failed: {e}"));
    assert!(
        matches!(report.verdict, Verdict::Agree { .. }),
        "{what}: {}",
        text::verdict_line(&report, Lang::En)
    );
    assert_eq!(report.steps.len(), r.store_log.len(), "{what}");
    assert_eq!(finished.schema, SchemaFate::Dropped, "{what}");
    assert!(!schema_exists(url, &schema), "{what}: {schema} is left");
    Duration::from_millis(report.elapsed_ms)
}

/// Every built-in's seeded run, under its own design and every other: the
/// crash scenarios close connections mid-transaction, which the replay
/// does on both sides.
#[test]
fn every_builtins_seeded_run_replays_with_agreement_under_every_design() {
    let Some(url) = database_url() else { return };
    let (mut replayed, mut closes) = (0, 0);
    for name in builtins::NAMES {
        let own = builtins::builtin(name).expect("a built-in");
        for strategy in Strategy::ALL {
            let mut s = own.clone();
            s.strategy = strategy;
            let r = run(&s).expect("a built-in runs");
            if r.store_log.is_empty() {
                // A queue's consumer without a store (naive) has nothing to replay.
                continue;
            }
            let took = assert_agrees(&url, &format!("{name} {strategy}"), &s, &r);
            if strategy == own.strategy {
                eprintln!("{name:<32} {:>4} ms", took.as_millis());
            }
            closes += r.store_log.iter().filter(|st| st.closed).count();
            replayed += 1;
        }
    }
    // Only queue-redelivery under naive sends nothing.
    assert_eq!(replayed, builtins::NAMES.len() * Strategy::ALL.len() - 1);
    assert!(closes > 0, "a crash closes a connection in some run");
}

/// Every built-in design and exercise's seeded run of race-2 and
/// timeout-retry agrees with PostgreSQL, the UNIQUE constraint an exercise
/// puts on `pedido_id` created on the server as in the model.
#[test]
fn every_designs_run_replays_with_agreement() {
    let Some(url) = database_url() else { return };
    let designs = lousa_core::design::builtin::ALL
        .iter()
        .chain(&lousa_core::design::builtin::EXERCISES);
    let mut refused = 0;
    for (name, _) in designs {
        for scenario in ["race-2", "timeout-retry"] {
            let mut s = builtins::builtin(scenario).expect("a built-in");
            let program = lousa_core::design::builtin::named(name).expect("listed");
            s.design = Some(std::sync::Arc::new(program));
            let r = run(&s).expect("a built-in runs");
            let json = serde_json::to_string(&r).expect("a run is JSON");
            refused += json.matches(r#""code":"23505""#).count();
            assert_agrees(&url, &format!("{scenario} under design {name}"), &s, &r);
        }
    }
    assert!(refused > 0, "some run met a UNIQUE constraint");
}

/// The exercise's UNIQUE constraint on `pedido_id` is on the server too:
/// the schedule where both requests look before either inserts is refused
/// 23505 on both sides.
#[test]
fn a_designs_own_unique_constraint_refuses_on_postgresql_too() {
    let Some(url) = database_url() else { return };
    let out = lousa(
        &[
            "replay",
            "race-2",
            "--design",
            "check-then-act-unique-order",
            "--schedule",
            "0",
        ],
        Some(&url),
    );
    let stdout = exited_0(&out);
    assert!(
        stdout.matches("23505").count() >= 2,
        "both sides refuse: {stdout}"
    );
    assert!(stdout.contains("verdict: agree"), "{stdout}");
}

/// A close (a crash) on both sides, where the built-ins have none: it wakes
/// a statement waiting on the closed transaction, and a closed waiting
/// statement is aborted without an outcome.
#[test]
fn closing_a_connection_wakes_its_waiters_as_on_postgresql() {
    use lousa_core::store::{SessionId, Stmt};
    use lousa_pg::{Side, model::ModelSide, server::PgSide, spec_from_store_trace};
    let Some(url) = database_url() else { return };
    let claim = |key: &str| Stmt::Insert {
        table: "cobranca".into(),
        values: vec![("idempotency_key".into(), Value::text(key))],
        on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
        returning: vec!["id".into()],
    };
    let begin: Stmt =
        serde_json::from_value(serde_json::json!({ "op": "begin", "isolation": "read-committed" }))
            .unwrap();
    let (a, b, c) = (SessionId(0), SessionId(1), SessionId(2));
    let trace = vec![
        (a, begin.clone()),
        (a, claim("k")),
        (b, claim("k")),
        (c, begin),
        (c, claim("j")),
        (a, Stmt::Commit),
    ];
    let spec = spec_from_store_trace("replay_close", &trace);
    let mut model = ModelSide::new(&spec);
    let mut pg = PgSide::connect(&url, &spec).expect("the test server");
    let mut both = |f: &dyn Fn(&mut dyn Side) -> lousa_pg::StepOutput| (f(&mut model), f(&mut pg));
    both(&|s| {
        s.reset().unwrap();
        Default::default()
    });
    for (session, stmt) in &trace[..5] {
        let (m, p) = both(&|s| s.step(session.0 as usize, stmt).unwrap());
        assert_eq!(m, p, "{}", stmt.to_sql());
    }
    // b waits on a's claim; closing a wakes it, and it inserts the key.
    let (m, p) = both(&|s| s.close(0).unwrap());
    assert_eq!(m, p, "the close of a");
    assert_eq!(p.finished.len(), 1, "b wakes: {p:?}");
    assert_eq!(
        p.finished[0],
        (
            1,
            Outcome::Ok {
                rows: Some(vec![vec![Value::Int(2)]]),
                affected: Some(1)
            }
        )
    );
    // A closed session that was waiting: c's claim of j waits on nothing,
    // so b claims j and waits on c, then b is closed while waiting.
    let (m, p) = both(&|s| s.step(1, &claim("j")).unwrap());
    assert_eq!((m.own, p.own), (None, None), "b waits on c's j");
    let (m, p) = both(&|s| s.close(1).unwrap());
    assert_eq!(m, p, "the close of a waiting b");
    assert!(
        p.finished.is_empty(),
        "a closed waiter reports nothing: {p:?}"
    );
    let (m, p) = both(&|s| s.step(2, &Stmt::Commit).unwrap());
    assert_eq!(m, p, "c commits");
}

/// Under every design, race-2's shortest schedule to each outcome the
/// explorer finds, the shortest counterexample among them when there is one.
#[test]
fn race_2s_shortest_schedules_replay_with_agreement_under_every_design() {
    let Some(url) = database_url() else { return };
    let mut counterexamples = 0;
    for strategy in Strategy::ALL {
        let mut s = builtins::race(2);
        s.strategy = strategy;
        let options = explore::Options::for_scenario(&s);
        let report = explore::explore(&s, &options).expect("race-2 explores");
        let mut schedules: Vec<&explore::Example> = report
            .outcomes
            .iter()
            .filter_map(|o| o.example.as_ref())
            .collect();
        if let Some((_, e)) = report.counterexample() {
            counterexamples += 1;
            schedules.insert(0, e);
        }
        assert!(!schedules.is_empty(), "{strategy}: no schedule to replay");
        for e in schedules {
            let r = run::run_schedule(&s, &e.schedule).expect("the schedule fits");
            assert_agrees(&url, &format!("race-2 {strategy} {}", e.text), &s, &r);
        }
    }
    assert!(
        counterexamples >= 2,
        "naive and check-then-act each have a counterexample on race-2"
    );
}

/// The test-only switch: the model's record is an argument of the replay, so
/// a wrong one can be handed in without touching the product's path.
#[test]
fn a_wrong_model_outcome_is_a_disagreement_with_exit_code_1() {
    let Some(url) = database_url() else { return };
    let mut s = builtins::race(2);
    s.strategy = Strategy::CheckThenAct;
    let r = run::run_schedule(&s, &"0".parse().unwrap()).unwrap();
    let plan = Plan::new(&s, &r, Lang::En);
    let mut model = replay::model_record(&plan);
    // Statement #5 is A's INSERT ... RETURNING id; the model now claims id 99.
    assert!(
        plan.statements[4].sql.starts_with("INSERT"),
        "{:?}",
        plan.statements[4]
    );
    model.steps[4].own = Some(Outcome::Ok {
        rows: Some(vec![vec![Value::Int(99)]]),
        affected: Some(1),
    });
    let (finished, schema) = replay_with(&url, &plan, &model);
    let report = finished.result.expect("the replay ran");
    assert_eq!(
        report.verdict,
        Verdict::Disagree {
            n: Some(5),
            table: None,
            model: "INSERT 1 [(99)]".into(),
            postgres: "INSERT 1 [(1)]".into(),
        }
    );
    assert_eq!(report.verdict.exit_code(), 1);
    assert_eq!(report.steps.len(), 5, "it stops at the first disagreement");
    let line = text::step(&report.steps[4], 20, Lang::En);
    assert!(line.starts_with('>'), "the line is marked:\n{line}");
    assert!(
        text::verdict_line(&report, Lang::En).contains("DISAGREE at statement #5 (terminal A)"),
        "{}",
        text::verdict_line(&report, Lang::En)
    );
    assert!(
        text::verdict_line(&report, Lang::Pt).contains("DISCORDAM no comando #5 (terminal A)"),
        "{}",
        text::verdict_line(&report, Lang::Pt)
    );
    assert_eq!(finished.schema, SchemaFate::Dropped);
    assert!(!schema_exists(&url, &schema), "{schema} is left");
}

#[test]
fn race_2_check_then_act_charges_twice_on_postgresql_and_agrees() {
    let Some(url) = database_url() else { return };
    let args = [
        "replay",
        "race-2",
        "--strategy",
        "check-then-act",
        "--schedule",
        "0",
    ];
    let stdout = exited_0(&lousa(&args, Some(&url)));
    // The two captures' INSERTs, one per terminal, each with its row on both sides.
    assert!(
        stdout.contains("#5 A") && stdout.contains("#6 B"),
        "{stdout}"
    );
    assert!(stdout.contains("INSERT 1 [(1)]") && stdout.contains("INSERT 1 [(2)]"));
    let captured = "(2, 123, 25000, 'CAPTURADA')";
    assert_eq!(stdout.matches(captured).count(), 2, "both sides: {stdout}");
    assert!(stdout.contains("verdict: agree"), "{stdout}");
    let schema = schema_in(&stdout);
    assert!(stdout.contains(&format!("schema {schema} dropped")));
    assert!(!schema_exists(&url, &schema), "{schema} is left");

    // In Portuguese, the words change and the SQL and answers do not.
    let pt = exited_0(&lousa(&[&args[..], &["--lang", "pt"]].concat(), Some(&url)));
    for said in [
        "lousa replay: race-2 com check-then-act, escalonamento 0",
        "terminais: A = uma conexão da instância",
        "criando o schema lousa_replay_",
        "veredito: concordam: o PostgreSQL respondeu aos",
        "linhas no fim",
    ] {
        assert!(pt.contains(said), "{said:?} missing:\n{pt}");
    }
    assert!(
        pt.contains("INSERT 1 [(1)]") && pt.contains("INSERT 1 [(2)]"),
        "{pt}"
    );
    assert_eq!(pt.matches(captured).count(), 2, "both sides: {pt}");
    let schema = schema_in(&pt);
    assert!(pt.contains(&format!("schema {schema} apagado")), "{pt}");
    assert!(!pt.contains("verdict") && !pt.contains("statement"), "{pt}");
}

/// A branch replays as the branch: the crash the fork injects closes its
/// instance's connection on the server too, and the header names the fault,
/// as the workshop's psql export writes the command.
#[test]
fn a_branch_replays_with_its_fault_and_agrees() {
    let Some(url) = database_url() else { return };
    let fork = "5:crash-1+3000";
    let args = [
        "replay",
        "timeout-retry",
        "--strategy",
        "check-then-act",
        "--fork",
        fork,
    ];
    let stdout = exited_0(&lousa(&args, Some(&url)));
    assert!(
        stdout.contains("under check-then-act, schedule "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(", fault injected at {fork}\n")),
        "{stdout}"
    );
    assert!(stdout.contains("verdict: agree"), "{stdout}");
    // Not the unforked run's traffic: that one has no fault to name.
    let plain = exited_0(&lousa(&args[..4], Some(&url)));
    assert!(!plain.contains("fault injected"), "{plain}");
    let bad = lousa(&[&args[..4], &["--fork", "5:crash-9"]].concat(), Some(&url));
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(
        text_of(&bad.stderr).contains("--fork 5:crash-9: "),
        "{}",
        text_of(&bad.stderr)
    );
}

#[test]
fn race_2_idempotency_key_design_refuses_the_second_claim_as_json() {
    let Some(url) = database_url() else { return };
    let out = lousa(
        &[
            "replay",
            "race-2",
            "--design",
            "idempotency-key",
            "--schedule",
            "0",
            "--format",
            "json",
            "--database-url",
            &url,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["verdict"], "agree");
    // The design ran in place of the scenario's strategy, and is named.
    assert_eq!(v["design"], "idempotency-key");
    assert!(
        text_of(&out.stderr)
            .starts_with("lousa replay: race-2 under design idempotency-key, schedule 0\n")
    );
    assert_eq!(v["statements_compared"], 4);
    assert_eq!(v["tables_compared"], 1);
    assert_eq!(v["tables"].as_array().map(Vec::len), Some(1), "{v}");
    // serde_json keeps the last of two equal keys: the text must have one.
    let raw = text_of(&out.stdout);
    assert_eq!(
        raw.matches("\"tables\":").count(),
        1,
        "one key named tables"
    );
    let second = &v["steps"][1];
    assert_eq!(second["terminal"], "B");
    for side in ["model", "postgres"] {
        assert_eq!(second[side]["answer"]["affected"], 0, "{side}: {second}");
        assert_eq!(
            second[side]["answer"]["rows"],
            serde_json::json!([]),
            "{side}"
        );
    }
    assert_eq!(v["schema_dropped"], true);
    let schema = v["schema"].as_str().unwrap();
    assert!(text_of(&out.stderr).contains(&format!("creating schema {schema}")));
    assert!(!schema_exists(&url, schema));
}

#[test]
fn an_unreachable_server_exits_2_with_its_message() {
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    let out = lousa(
        &[
            "replay",
            "race-2",
            "--database-url",
            "postgres://postgres@127.0.0.1:1/postgres",
        ],
        None,
    );
    let err = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot connect to PostgreSQL at postgres@127.0.0.1:1/postgres"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A role of a test's own on the server at `url`, made with `options`
/// (`LOGIN`, `NOLOGIN`) and, when `create`, granted CREATE on the
/// database; dropped when the value is.
struct OwnRole {
    admin: postgres::Client,
    name: String,
    /// Its URL on loopback, without a password.
    url: String,
    port: u16,
    db: String,
    create: bool,
}

impl OwnRole {
    fn new(url: &str, what: &str, options: &str, create: bool) -> OwnRole {
        let name = format!("lousa_replay_{what}_{}", std::process::id());
        let mut admin =
            postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL accepts");
        let config: postgres::Config = url.parse().unwrap();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let db = config.get_dbname().unwrap_or("postgres").to_string();
        let grant = if create {
            format!("; GRANT CREATE ON DATABASE {db} TO {name}")
        } else {
            String::new()
        };
        admin
            .batch_execute(&format!(
                "DROP ROLE IF EXISTS {name}; CREATE ROLE {name} {options}{grant}"
            ))
            .expect("the test's server lets it create a role");
        OwnRole {
            admin,
            url: format!("postgres://{name}@127.0.0.1:{port}/{db}"),
            name,
            port,
            db,
            create,
        }
    }
}

impl Drop for OwnRole {
    fn drop(&mut self) {
        let (name, db) = (&self.name, &self.db);
        let revoke = if self.create {
            format!("REVOKE CREATE ON DATABASE {db} FROM {name}; ")
        } else {
            String::new()
        };
        let _ = self
            .admin
            .batch_execute(&format!("{revoke}DROP ROLE {name}"));
    }
}

/// A server that answers and refuses (here a role that may not log in) is
/// named as refusing, with its own words and without the hint about a
/// server that is not running.
#[test]
fn a_server_that_refuses_the_login_says_why() {
    let Some(url) = database_url() else { return };
    let own = OwnRole::new(&url, "nologin", "NOLOGIN", false);
    let (role, port, db) = (&own.name, own.port, &own.db);
    let out = lousa(&["replay", "race-2", "--database-url", &own.url], None);
    let err = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "PostgreSQL at {role}@127.0.0.1:{port}/{db} refused the connection: FATAL 28000: role \"{role}\" is not permitted to log in"
        )),
        "{err}"
    );
    assert!(!err.contains("is the server running"), "{err}");
}

/// A URL that does not read is named as the URL's fault, without the
/// hint about a server that is not running, which nothing was asked.
#[test]
fn a_malformed_url_is_refused_as_a_url() {
    let out = lousa(&["replay", "race-2", "--database-url", "notaurl"], None);
    let err = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--database-url: not a PostgreSQL URL ("),
        "{err}"
    );
    assert!(!err.contains("is the server running"), "{err}");
    // A port past its range is named, with the range.
    let url = "postgres://postgres@127.0.0.1:99999/postgres";
    let out = lousa(&["replay", "race-2", "--database-url", url], None);
    let err = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("invalid value for option `port`, a number from 1 to 65535"),
        "{err}"
    );
}

#[test]
fn no_url_and_a_bad_timeout_are_refused_by_name() {
    let out = lousa(&["replay", "race-2"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text_of(&out.stderr).contains("--database-url: not given, and DATABASE_URL is not set")
    );
    let out = lousa(
        &["replay", "race-2", "--timeout", "0"],
        Some("postgres://x@127.0.0.1:1/x"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text_of(&out.stderr).contains("--timeout: 0 is outside 1..=3600 seconds"),
        "{}",
        text_of(&out.stderr)
    );
}

#[test]
fn a_role_without_create_exits_2_with_its_message() {
    let Some(url) = database_url() else { return };
    // A new role has CONNECT on the database through PUBLIC, not CREATE.
    let own = OwnRole::new(&url, "nocreate", "LOGIN", false);
    let (role, db) = (&own.name, &own.db);
    let out = lousa(&["replay", "race-2", "--database-url", &own.url], None);
    let err = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "role {role} may not create a schema in database {db}"
        )),
        "{err}"
    );
    assert!(text_of(&out.stdout).is_empty(), "nothing was started");
}

/// Most readers' roles are not superusers and may not `SET
/// deadlock_timeout`: the replay says how it orders deadlocks instead, and
/// agrees.
#[test]
fn a_role_that_is_no_superuser_agrees() {
    let Some(url) = database_url() else { return };
    let own = OwnRole::new(&url, "plain", "LOGIN", true);
    let role = &own.name;
    let out = lousa(
        &[
            "replay",
            "held-transaction",
            "--strategy",
            "idempotency-key-held-tx",
            "--database-url",
            &own.url,
        ],
        None,
    );
    let stdout = exited_0(&out);
    assert!(
        stdout.contains(&format!(
            "deadlocks: role {role} may not SET deadlock_timeout, so a statement sent while \
             another waits goes out 100 ms after that wait began"
        )),
        "{stdout}"
    );
    assert!(stdout.contains("verdict: agree"), "{stdout}");
}

/// A database of its own for a test that changes database-wide settings:
/// the admin connection, its name, its config and its URL (on loopback).
fn own_database(url: &str, what: &str) -> (postgres::Client, String, postgres::Config, String) {
    let db = format!("lousa_replay_{what}_{}", std::process::id());
    let mut admin = postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL accepts");
    // Two commands: neither may run inside the implicit transaction of one.
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db}"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .expect("the test's server lets it create a database");
    let mut config: postgres::Config = url.parse().unwrap();
    config.dbname(&db);
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("postgres").to_string();
    let db_url = format!("postgres://{user}@127.0.0.1:{port}/{db}");
    (admin, db, config, db_url)
}

/// A reader's server may default to another isolation level, a statement
/// timeout or read-only transactions; the replay's sessions put
/// PostgreSQL's defaults back, so race-2 still agrees there.
#[test]
fn a_server_with_other_defaults_still_agrees() {
    let Some(url) = database_url() else { return };
    let (mut admin, db, _, db_url) = own_database(&url, "defaults");
    admin
        .batch_execute(&format!(
            "ALTER DATABASE {db} SET default_transaction_isolation = 'serializable'; \
             ALTER DATABASE {db} SET default_transaction_read_only = on; \
             ALTER DATABASE {db} SET lock_timeout = '1ms'"
        ))
        .unwrap();
    let outs: Vec<Output> = ["check-then-act", "idempotency-key-held-tx"]
        .iter()
        .map(|design| {
            lousa(
                &[
                    "replay",
                    "held-transaction",
                    "--strategy",
                    design,
                    "--database-url",
                    &db_url,
                ],
                None,
            )
        })
        .collect();
    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .unwrap();
    for out in outs {
        let stdout = exited_0(&out);
        assert!(stdout.contains("verdict: agree"), "{stdout}");
    }
}

/// A statement that neither finishes nor blocks on a lock: in a database of
/// its own, an event trigger gives every table the replay creates an
/// INSERT trigger that sleeps 5 s, and `--timeout 1` must stop the replay
/// with its message and exit 2, the schema dropped all the same.
#[test]
fn a_statement_past_the_timeout_stops_the_replay_with_exit_2() {
    let Some(url) = database_url() else { return };
    let (mut admin, db, config, slow_url) = own_database(&url, "timeout");
    let mut slow = config.connect(postgres::NoTls).expect("the new database");
    slow.batch_execute(
        "CREATE FUNCTION public.slow_insert() RETURNS trigger LANGUAGE plpgsql AS
           $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$;
         CREATE FUNCTION public.add_slow_insert() RETURNS event_trigger LANGUAGE plpgsql AS
           $$ DECLARE r record; BEGIN
                FOR r IN SELECT * FROM pg_event_trigger_ddl_commands()
                         WHERE object_type = 'table' LOOP
                  EXECUTE format('CREATE TRIGGER slow BEFORE INSERT ON %s FOR EACH ROW
                                  EXECUTE FUNCTION public.slow_insert()', r.object_identity);
                END LOOP;
              END $$;
         CREATE EVENT TRIGGER add_slow_insert ON ddl_command_end WHEN TAG IN ('CREATE TABLE')
           EXECUTE FUNCTION public.add_slow_insert();",
    )
    .expect("an event trigger (the test's role is a superuser)");
    drop(slow);
    let out = lousa(
        &[
            "replay",
            "race-2",
            "--strategy",
            "idempotency-key",
            "--timeout",
            "1",
        ],
        Some(&slow_url),
    );
    let (stdout, err) = (text_of(&out.stdout), text_of(&out.stderr));
    let schema = schema_in(&stdout);
    let left = {
        let mut c = config.connect(postgres::NoTls).expect("the new database");
        c.query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname = $1",
            &[&schema],
        )
        .unwrap()
        .get::<_, i64>(0)
    };
    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{stdout}{err}");
    assert!(
        err.contains("statement #1 on terminal A (INSERT INTO cobranca")
            && err.contains("neither finished nor blocked on a lock within 1 s"),
        "{err}"
    );
    assert!(err.contains(&format!("schema {schema} dropped")), "{err}");
    assert_eq!(left, 0, "{schema} is left");
}

/// `lousa replay ... | head -1`: the reader stops reading after the first
/// line, and the replay must still run to its end and drop its schema.
#[test]
fn a_closed_stdout_still_drops_the_schema() {
    let Some(url) = database_url() else { return };
    let mut child = Command::new(env!("CARGO_BIN_EXE_lousa"))
        .args(["replay", "race-3", "--database-url", &url])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // The fourth line names the schema; then the pipe closes.
    let header: Vec<String> = lines.by_ref().take(4).map_while(Result::ok).collect();
    drop(lines);
    let schema = schema_in(&header.join("\n"));
    let out = child.wait_with_output().expect("the replay ends");
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    assert!(!schema_exists(&url, &schema), "{schema} is left");
}

/// Ctrl-C mid-replay: the process is frozen (SIGSTOP) once the first
/// statement's line is out and its schema is seen in pg_namespace, then
/// sent SIGINT and let go. It must stop with 130 and drop the schema. A
/// replay takes a tenth of a second, so a freeze can land after its last
/// statement: such an attempt proves nothing and is tried again.
#[test]
fn sigint_mid_replay_drops_the_schema() {
    let Some(url) = database_url() else { return };
    let signal = |sig: &str, pid: u32| {
        let ok = Command::new("kill")
            .args([sig, &pid.to_string()])
            .status()
            .expect("kill runs")
            .success();
        assert!(ok, "kill {sig} {pid}");
    };
    for attempt in 1..=10 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lousa"))
            .args(["replay", "balance-lost-update", "--database-url", &url])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut schema = None;
        for line in lines.by_ref() {
            let line = line.expect("stdout reads");
            if line.contains("creating schema") {
                schema = Some(schema_in(&line));
            }
            if line.trim_start().starts_with("#1 ") {
                signal("-STOP", child.id());
                break;
            }
        }
        let schema = schema.expect("the header names the schema");
        let mid_replay = schema_exists(&url, &schema);
        signal("-INT", child.id());
        signal("-CONT", child.id());
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        let status = child.wait().expect("the replay ends");
        assert!(
            !schema_exists(&url, &schema),
            "attempt {attempt}: {schema} is left after SIGINT"
        );
        if mid_replay && status.code() == Some(130) {
            assert!(
                !rest.iter().any(|l| l.starts_with("verdict")),
                "an interrupted replay gives no verdict: {rest:?}"
            );
            return;
        }
        eprintln!("attempt {attempt}: the replay had finished before the freeze ({status})");
    }
    panic!("no attempt froze the replay mid-way");
}
