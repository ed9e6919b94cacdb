//! Unit tests of the store model for the behaviours the conformance suite
//! (tests/conformance, issue #5) found the model getting wrong against
//! PostgreSQL 15. Each states what PostgreSQL does.

use super::engine::{Exec, SessionId, Store};
use super::sql::*;
use super::with_ids_kept;
use crate::fingerprint::{self, Fingerprint};

fn key(k: &str) -> Filter {
    vec![("idempotency_key".into(), Value::text(k))]
}

fn claim(k: &str) -> Stmt {
    Stmt::Insert {
        table: "cobranca".into(),
        values: vec![
            ("idempotency_key".into(), Value::text(k)),
            ("status".into(), Value::text("PROCESSANDO")),
        ],
        on_conflict_do_nothing: Some(vec!["idempotency_key".into()]),
        returning: vec!["id".into()],
    }
}

fn select(table: &str, columns: &[&str], filter: Filter, for_update: bool) -> Stmt {
    Stmt::Select {
        table: table.to_string().into(),
        columns: columns.iter().map(|c| c.to_string().into()).collect(),
        filter,
        for_update,
    }
}

fn update(table: &str, set: &[(&str, Value)], filter: Filter, returning: &[&str]) -> Stmt {
    Stmt::Update {
        table: table.to_string().into(),
        set: set
            .iter()
            .map(|(c, v)| (c.to_string().into(), v.clone()))
            .collect(),
        increment: vec![],
        filter,
        returning: returning.iter().map(|c| c.to_string().into()).collect(),
    }
}

fn begin(isolation: Isolation) -> Stmt {
    Stmt::Begin { isolation }
}

#[track_caller]
fn ok(store: &mut Store, s: SessionId, stmt: Stmt) -> QueryResult {
    match store.execute(s, stmt) {
        Exec::Done(Ok(r)) => r,
        other => panic!("expected success, got {other:?}"),
    }
}

#[track_caller]
fn fails(store: &mut Store, s: SessionId, stmt: Stmt) -> SqlError {
    match store.execute(s, stmt) {
        Exec::Done(Err(e)) => e,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[track_caller]
fn waits(store: &mut Store, s: SessionId, stmt: Stmt) {
    assert!(matches!(store.execute(s, stmt), Exec::Waiting { .. }));
}

/// The one completion of `s` since the last call.
#[track_caller]
fn completion(store: &mut Store, s: SessionId) -> StmtResult {
    let mut done: Vec<_> = store
        .take_completions()
        .into_iter()
        .filter(|c| c.session == s)
        .collect();
    assert_eq!(done.len(), 1, "one completion for {s:?}");
    done.remove(0).result
}

fn simples(pedido: i64, status: &str) -> Stmt {
    Stmt::Insert {
        table: "cobranca_simples".into(),
        values: vec![
            ("pedido_id".into(), Value::Int(pedido)),
            ("valor_centavos".into(), Value::Int(25000)),
            ("status".into(), Value::text(status)),
        ],
        on_conflict_do_nothing: None,
        returning: vec!["id".into()],
    }
}

fn ints(r: &QueryResult) -> Vec<i64> {
    r.rows.iter().map(|row| row[0].as_int().unwrap()).collect()
}

/// jsonb reads back in PostgreSQL's form: keys by length then bytes, ", "
/// and ": " separators; text that is not JSON is refused with 22P02.
#[test]
fn jsonb_is_stored_in_postgresql_canonical_form() {
    let mut st = Store::with_all_tables();
    let s = st.open_session();
    ok(&mut st, s, claim("k"));
    let r = ok(
        &mut st,
        s,
        update(
            "cobranca",
            &[(
                "resposta_corpo",
                Value::text(r#"{"cobranca_id":1,"status":"CAPTURADA"}"#),
            )],
            key("k"),
            &["resposta_corpo"],
        ),
    );
    assert_eq!(
        r.rows,
        vec![vec![Value::text(
            r#"{"status": "CAPTURADA", "cobranca_id": 1}"#
        )]]
    );
    let e = fails(
        &mut st,
        s,
        update(
            "cobranca",
            &[("resposta_corpo", Value::text("{nope"))],
            key("k"),
            &[],
        ),
    );
    assert_eq!(e.state, SqlState::InvalidTextRepresentation);
}

/// READ COMMITTED UPDATE that waited for a row (EvalPlanQual): it re-checks
/// the newest version of the rows its snapshot found, and does not see rows
/// committed while it waited.
#[test]
fn read_committed_update_after_a_wait_keeps_its_snapshot() {
    let mut st = Store::with_all_tables();
    let (a, b) = (st.open_session(), st.open_session());
    ok(&mut st, a, simples(123, "PROCESSANDO"));
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    let processing = || {
        vec![
            ("pedido_id".into(), Value::Int(123)),
            ("status".into(), Value::text("PROCESSANDO")),
        ]
    };
    ok(
        &mut st,
        a,
        update(
            "cobranca_simples",
            &[("status", Value::text("CAPTURADA"))],
            processing(),
            &[],
        ),
    );
    ok(&mut st, a, simples(123, "PROCESSANDO"));
    waits(
        &mut st,
        b,
        update(
            "cobranca_simples",
            &[("status", Value::text("RECUSADA"))],
            processing(),
            &["id"],
        ),
    );
    ok(&mut st, a, Stmt::Commit);
    let r = completion(&mut st, b).unwrap();
    // Row 1 is CAPTURADA now (skipped); row 2 was not in b's snapshot.
    assert_eq!((r.affected, r.rows.len()), (0, 0));
}

/// READ COMMITTED SELECT ... FOR UPDATE that waited returns the newest
/// version of a row that still matches.
#[test]
fn read_committed_lock_after_a_wait_returns_the_newest_version() {
    let mut st = Store::with_all_tables();
    let (a, b) = (st.open_session(), st.open_session());
    ok(&mut st, a, claim("k"));
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(
        &mut st,
        a,
        update(
            "cobranca",
            &[("resposta_http", Value::Int(201))],
            key("k"),
            &[],
        ),
    );
    waits(
        &mut st,
        b,
        select("cobranca", &["resposta_http"], key("k"), true),
    );
    ok(&mut st, a, Stmt::Commit);
    assert_eq!(
        completion(&mut st, b).unwrap().rows,
        vec![vec![Value::Int(201)]]
    );
}

/// REPEATABLE READ and a row deleted by a transaction it waited for:
/// UPDATE says "concurrent delete", FOR UPDATE says "concurrent update".
#[test]
fn repeatable_read_names_a_concurrent_delete() {
    for (stmt, message) in [
        (
            update("cobranca", &[("status", Value::text("X"))], key("k"), &[]),
            "could not serialize access due to concurrent delete",
        ),
        (
            select("cobranca", &["id"], key("k"), true),
            "could not serialize access due to concurrent update",
        ),
    ] {
        let mut st = Store::with_all_tables();
        let (a, b) = (st.open_session(), st.open_session());
        ok(&mut st, a, claim("k"));
        ok(&mut st, b, begin(Isolation::RepeatableRead));
        ok(&mut st, b, select("cobranca", &["id"], key("k"), false));
        ok(&mut st, a, begin(Isolation::ReadCommitted));
        ok(
            &mut st,
            a,
            Stmt::Delete {
                table: "cobranca".into(),
                filter: key("k"),
            },
        );
        waits(&mut st, b, stmt);
        ok(&mut st, a, Stmt::Commit);
        let e = completion(&mut st, b).unwrap_err();
        assert_eq!(
            (e.state, e.message.as_str()),
            (SqlState::SerializationFailure, message)
        );
    }
}

/// Writers waiting for one row get it in the order they asked (PostgreSQL
/// queues them on the row's tuple lock), whatever their session numbers.
#[test]
fn row_lock_waiters_are_served_in_arrival_order() {
    let mut st = Store::with_all_tables();
    let (a, b, c) = (st.open_session(), st.open_session(), st.open_session());
    ok(&mut st, a, claim("k"));
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(
        &mut st,
        a,
        update(
            "cobranca",
            &[("status", Value::text("CAPTURADA"))],
            key("k"),
            &[],
        ),
    );
    waits(
        &mut st,
        c,
        update(
            "cobranca",
            &[("resposta_http", Value::Int(409))],
            key("k"),
            &["status"],
        ),
    );
    waits(
        &mut st,
        b,
        update(
            "cobranca",
            &[("status", Value::text("RECUSADA"))],
            key("k"),
            &["status"],
        ),
    );
    ok(&mut st, a, Stmt::Commit);
    let done = st.take_completions();
    assert_eq!(done[0].session, c);
    assert_eq!(
        done[0].result.as_ref().unwrap().rows,
        vec![vec![Value::text("CAPTURADA")]]
    );
    assert_eq!(done[1].session, b);
}

/// A nested BEGIN only warns, but applies its isolation level: allowed
/// before the transaction's first query, 25001 (aborting the block) after.
/// BEGIN in an aborted block is refused with 25P02.
#[test]
fn nested_begin_applies_or_refuses_its_isolation_level() {
    let mut st = Store::with_all_tables();
    let (a, b) = (st.open_session(), st.open_session());
    // Changed before the first query: the transaction is serializable.
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(&mut st, a, begin(Isolation::Serializable));
    ok(&mut st, b, begin(Isolation::Serializable));
    ok(
        &mut st,
        a,
        select(
            "cobranca_simples",
            &["id"],
            vec![("pedido_id".into(), Value::Int(1))],
            false,
        ),
    );
    ok(
        &mut st,
        b,
        select(
            "cobranca_simples",
            &["id"],
            vec![("pedido_id".into(), Value::Int(1))],
            false,
        ),
    );
    ok(&mut st, a, simples(1, "CAPTURADA"));
    ok(&mut st, b, simples(1, "CAPTURADA"));
    ok(&mut st, a, Stmt::Commit);
    assert_eq!(
        fails(&mut st, b, Stmt::Commit).state,
        SqlState::SerializationFailure
    );
    // Changed after a query: refused, and the block is aborted.
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(&mut st, a, select("cobranca", &["id"], key("k"), false));
    assert_eq!(
        fails(&mut st, a, begin(Isolation::RepeatableRead)).state,
        SqlState::ActiveSqlTransaction
    );
    assert_eq!(
        fails(&mut st, a, begin(Isolation::ReadCommitted)).state,
        SqlState::InFailedTransaction
    );
    ok(&mut st, a, Stmt::Rollback);
    ok(&mut st, a, begin(Isolation::ReadCommitted));
}

/// SERIALIZABLE: a statement that waited does not scan again after the
/// wait (PostgreSQL carries on from the row it waited for), so a row deleted
/// meanwhile is reported as the concurrent delete, not as an SSI failure.
#[test]
fn a_resumed_serializable_update_reports_the_row_it_waited_for() {
    let mut st = Store::with_all_tables();
    let (a, b) = (st.open_session(), st.open_session());
    ok(&mut st, a, claim("k"));
    ok(&mut st, a, begin(Isolation::Serializable));
    ok(&mut st, b, begin(Isolation::Serializable));
    // a -> b (a reads past b's uncommitted key j), then b -> a (b's update
    // meets a's delete), so a's commit dooms b as a pivot. Scanning again
    // after the wait would fail b with the SSI error first.
    ok(&mut st, b, claim("j"));
    ok(&mut st, a, select("cobranca", &["id"], key("j"), false));
    ok(
        &mut st,
        a,
        Stmt::Delete {
            table: "cobranca".into(),
            filter: key("k"),
        },
    );
    waits(
        &mut st,
        b,
        update("cobranca", &[("status", Value::text("X"))], key("k"), &[]),
    );
    ok(&mut st, a, Stmt::Commit);
    let e = completion(&mut st, b).unwrap_err();
    assert_eq!(
        e.message,
        "could not serialize access due to concurrent delete"
    );
}

/// SERIALIZABLE reads by primary key are index probes that lock the tuples
/// they return, not the table: T1 reads 1 and writes 2, T2 reads 3 and
/// writes 1. Only T1 -> T2 conflicts, so both commit.
#[test]
fn serializable_probes_by_id_lock_tuples_not_the_table() {
    let mut st = Store::with_all_tables();
    let (t1, t2) = (st.open_session(), st.open_session());
    for p in 1..=3 {
        ok(&mut st, t1, simples(p, "PROCESSANDO"));
    }
    let by_id = |id: i64| vec![("id".into(), Value::Int(id))];
    ok(&mut st, t1, begin(Isolation::Serializable));
    ok(&mut st, t2, begin(Isolation::Serializable));
    assert_eq!(
        ok(
            &mut st,
            t1,
            select("cobranca_simples", &["id"], by_id(1), false)
        )
        .rows
        .len(),
        1
    );
    assert_eq!(
        ints(&ok(
            &mut st,
            t2,
            select("cobranca_simples", &["id"], by_id(3), false)
        )),
        vec![3]
    );
    ok(
        &mut st,
        t1,
        update(
            "cobranca_simples",
            &[("status", Value::text("A"))],
            by_id(2),
            &[],
        ),
    );
    ok(
        &mut st,
        t2,
        update(
            "cobranca_simples",
            &[("status", Value::text("B"))],
            by_id(1),
            &[],
        ),
    );
    ok(&mut st, t1, Stmt::Commit);
    ok(&mut st, t2, Stmt::Commit);
}

/// A row deleted by one transaction after another's update of it rolled
/// back: a READ COMMITTED writer that waited sees the delete and skips the
/// row, rather than following the rolled-back update to its dead version.
#[test]
fn a_rolled_back_update_is_not_the_update_chain() {
    let mut st = Store::with_all_tables();
    let (a, b, c) = (st.open_session(), st.open_session(), st.open_session());
    ok(&mut st, a, claim("k"));
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(
        &mut st,
        a,
        update(
            "cobranca",
            &[("status", Value::text("CAPTURADA"))],
            key("k"),
            &[],
        ),
    );
    waits(
        &mut st,
        b,
        Stmt::Delete {
            table: "cobranca".into(),
            filter: key("k"),
        },
    );
    waits(
        &mut st,
        c,
        update(
            "cobranca",
            &[("status", Value::text("RECUSADA"))],
            key("k"),
            &["id"],
        ),
    );
    ok(&mut st, a, Stmt::Rollback);
    let done = st.take_completions();
    assert_eq!(
        (done[0].session, done[0].result.as_ref().unwrap().affected),
        (b, 1)
    );
    assert_eq!(
        (done[1].session, done[1].result.as_ref().unwrap().affected),
        (c, 0)
    );
}

/// A SELECT ... FOR UPDATE of several rows waits at the first row another
/// transaction holds and keeps the locks it took before it: a writer of
/// such a row waits for it. Resumed, it returns every row once.
#[test]
fn a_waiting_locker_keeps_the_rows_it_already_locked() {
    let mut st = Store::with_all_tables();
    let (a, b, c) = (st.open_session(), st.open_session(), st.open_session());
    ok(&mut st, a, simples(123, "PROCESSANDO"));
    ok(&mut st, a, simples(123, "PROCESSANDO"));
    let by_id = |id: i64| vec![("id".into(), Value::Int(id))];
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(
        &mut st,
        a,
        update(
            "cobranca_simples",
            &[("status", Value::text("CAPTURADA"))],
            by_id(2),
            &[],
        ),
    );
    ok(&mut st, b, begin(Isolation::ReadCommitted));
    let order = vec![("pedido_id".into(), Value::Int(123))];
    waits(&mut st, b, select("cobranca_simples", &["id"], order, true));
    // Row 1 is b's now: c waits for b, not for a.
    waits(
        &mut st,
        c,
        update(
            "cobranca_simples",
            &[("status", Value::text("X"))],
            by_id(1),
            &[],
        ),
    );
    assert_eq!(st.waiting_on(c), Some(b));
    ok(&mut st, a, Stmt::Commit);
    let mut locked = ints(&completion(&mut st, b).unwrap());
    locked.sort();
    assert_eq!(locked, vec![1, 2]);
    ok(&mut st, b, Stmt::Commit);
    assert_eq!(completion(&mut st, c).unwrap().affected, 1);
}

fn set_status(status: &str) -> Stmt {
    update(
        "cobranca_simples",
        &[("status", Value::text(status))],
        vec![("pedido_id".into(), Value::Int(123))],
        &[],
    )
}

/// Once no transaction is open, a store forgets the history that made its
/// rows (transaction ids, dead and rolled-back versions): two stores with
/// the same rows, reached by different histories, are equal, which is what
/// lets an explorer count them as one state.
#[test]
fn stores_with_the_same_rows_are_equal_once_no_transaction_is_open() {
    let mut short = Store::with_all_tables();
    let s = short.open_session();
    short.open_session();
    ok(&mut short, s, simples(123, "CAPTURADA"));

    let mut long = Store::with_all_tables();
    let (a, b) = (long.open_session(), long.open_session());
    ok(&mut long, a, simples(123, "PROCESSANDO"));
    ok(&mut long, b, begin(Isolation::ReadCommitted));
    ok(&mut long, b, set_status("RECUSADA"));
    ok(&mut long, b, Stmt::Rollback);
    ok(&mut long, a, begin(Isolation::RepeatableRead));
    ok(&mut long, a, set_status("CAPTURADA"));
    assert_ne!(short, long, "a transaction is open");
    ok(&mut long, a, Stmt::Commit);
    assert_eq!(short, long);
    assert_eq!(
        short.committed_rows("cobranca_simples"),
        long.committed_rows("cobranca_simples")
    );
}

/// While a transaction is open its snapshot still sees the versions it
/// started with: nothing is forgotten under it.
#[test]
fn an_open_snapshot_keeps_the_versions_it_sees() {
    let mut st = Store::with_all_tables();
    let (a, b) = (st.open_session(), st.open_session());
    ok(&mut st, a, simples(123, "PROCESSANDO"));
    ok(&mut st, b, begin(Isolation::RepeatableRead));
    let read = || {
        select(
            "cobranca_simples",
            &["status"],
            vec![("pedido_id".into(), Value::Int(123))],
            false,
        )
    };
    assert_eq!(
        ok(&mut st, b, read()).rows,
        vec![vec![Value::text("PROCESSANDO")]]
    );
    ok(&mut st, a, set_status("CAPTURADA"));
    ok(&mut st, a, set_status("RECUSADA"));
    assert_eq!(
        ok(&mut st, b, read()).rows,
        vec![vec![Value::text("PROCESSANDO")]]
    );
    ok(&mut st, b, Stmt::Commit);
    assert_eq!(
        ok(&mut st, b, read()).rows,
        vec![vec![Value::text("RECUSADA")]]
    );
}

/// The optimistic write, `SET saldo = ..., versao = versao + 1 WHERE id = 1
/// AND versao = <read>`: it bumps the version from the row it writes, and a
/// write from a stale read that waited for the winner re-checks its WHERE
/// on the committed row (READ COMMITTED) and matches nothing, as
/// `tests/conformance/balance_debit_version_column.toml` shows PostgreSQL
/// doing.
#[test]
fn a_versioned_write_bumps_the_version_and_a_stale_one_matches_nothing() {
    let versioned = |saldo: i64, read: i64| Stmt::Update {
        table: "conta_versionada".into(),
        set: vec![("saldo".into(), Value::Int(saldo))],
        increment: vec!["versao".into()],
        filter: vec![
            ("id".into(), Value::Int(1)),
            ("versao".into(), Value::Int(read)),
        ],
        returning: vec!["versao".into()],
    };
    assert_eq!(
        versioned(75_000, 0).to_sql(),
        "UPDATE conta_versionada SET saldo = 75000, versao = versao + 1 \
         WHERE id = 1 AND versao = 0 RETURNING versao"
    );
    let mut st = Store::new(&known_tables());
    let (a, b) = (st.open_session(), st.open_session());
    let account = Stmt::Insert {
        table: "conta_versionada".into(),
        values: vec![
            ("saldo".into(), Value::Int(100_000)),
            ("versao".into(), Value::Int(0)),
        ],
        on_conflict_do_nothing: None,
        returning: vec![],
    };
    ok(&mut st, a, account);
    ok(&mut st, a, begin(Isolation::ReadCommitted));
    ok(&mut st, b, begin(Isolation::ReadCommitted));
    let r = ok(&mut st, a, versioned(75_000, 0));
    assert_eq!(r.rows, vec![vec![Value::Int(1)]]);
    waits(&mut st, b, versioned(60_000, 0));
    ok(&mut st, a, Stmt::Commit);
    let r = completion(&mut st, b).unwrap();
    assert_eq!((r.affected, r.rows.len()), (0, 0), "the stale write lost");
    let r = ok(&mut st, b, versioned(35_000, 1));
    assert_eq!(r.rows, vec![vec![Value::Int(2)]]);
    ok(&mut st, b, Stmt::Commit);
    let r = ok(
        &mut st,
        a,
        select("conta_versionada", &["saldo", "versao"], vec![], false),
    );
    assert_eq!(r.rows, vec![vec![Value::Int(35_000), Value::Int(2)]]);
    // An unknown column is refused before anything is read.
    let e = fails(
        &mut st,
        a,
        Stmt::Update {
            table: "conta_versionada".into(),
            set: vec![],
            increment: vec!["nope".into()],
            filter: vec![],
            returning: vec![],
        },
    );
    assert_eq!(e.state, SqlState::UndefinedObject);
}

/// Sessions 1 and 2 each insert a row in a transaction, and session 3
/// holds a transaction at `isolation` open so that nothing is vacuumed;
/// then 1 and 2 commit in the order `first_one`, with session 3's read
/// between the two commits when `read_between`, before both when not.
/// Returns the store's fingerprint (`engine/canonical.rs`) and how many
/// rows that read saw.
fn commits(isolation: Isolation, first_one: bool, read_between: bool) -> (Fingerprint, usize) {
    let mut st = Store::with_all_tables();
    let [a, b, reader] = [st.open_session(), st.open_session(), st.open_session()];
    ok(&mut st, reader, begin(isolation));
    for s in [a, b] {
        ok(&mut st, s, begin(Isolation::ReadCommitted));
    }
    ok(&mut st, a, simples(1, "PROCESSANDO"));
    ok(&mut st, b, simples(2, "PROCESSANDO"));
    let order = if first_one { [a, b] } else { [b, a] };
    let read_all = || select("cobranca_simples", &["id"], vec![], false);
    let mut seen = 0;
    if !read_between {
        seen = ok(&mut st, reader, read_all()).rows.len();
    }
    ok(&mut st, order[0], Stmt::Commit);
    if read_between {
        seen = ok(&mut st, reader, read_all()).rows.len();
    }
    ok(&mut st, order[1], Stmt::Commit);
    (fingerprint::of(&st), seen)
}

#[test]
fn two_commits_no_snapshot_tells_apart_are_one_state() {
    for isolation in [Isolation::ReadCommitted, Isolation::RepeatableRead] {
        assert_eq!(
            commits(isolation, true, false),
            commits(isolation, false, false),
            "{isolation:?}: the reader's snapshot came before both commits"
        );
    }
    // A READ COMMITTED reader takes its next snapshot after both.
    assert_eq!(
        commits(Isolation::ReadCommitted, true, true).0,
        commits(Isolation::ReadCommitted, false, true).0
    );
}

#[test]
fn a_snapshot_between_two_commits_keeps_their_order() {
    // REPEATABLE READ keeps the snapshot it took between the commits:
    // it saw one row, and which one decides every later read.
    let (one_first, saw) = commits(Isolation::RepeatableRead, true, true);
    let (two_first, _) = commits(Isolation::RepeatableRead, false, true);
    assert_eq!(saw, 1);
    assert_ne!(one_first, two_first);
    // The same stores with the numbers kept differ too: the ranking
    // merges no more than the raw numbers do here, and no less above.
    assert_ne!(
        with_ids_kept(|| commits(Isolation::ReadCommitted, true, false).0),
        with_ids_kept(|| commits(Isolation::ReadCommitted, false, false).0)
    );
}
