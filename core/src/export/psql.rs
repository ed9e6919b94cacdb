//! The psql script: a run's store traffic for a workshop attendee to type
//! in one psql terminal per connection and watch the race on their own
//! PostgreSQL.

use crate::run::Run;
use crate::scenario::Scenario;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The label of the `i`th connection to appear in a run's store traffic:
/// A, B, ... `lousa replay` names its connections the same way, so its
/// output and this script read side by side.
pub fn terminal_label(i: usize) -> String {
    let letters = ["A", "B", "C", "D", "E", "F", "G", "H"];
    letters
        .get(i)
        .map_or_else(|| format!("T{i}"), |l| l.to_string())
}

/// A two-(or more)-terminal psql script of the run's store traffic: the
/// set-up, then every statement in the order the simulation issued it,
/// labelled with the terminal to type it in and what to expect.
pub fn psql_script(scenario: &Scenario, run: &Run) -> String {
    let mut terminals: BTreeMap<u32, usize> = BTreeMap::new();
    for s in &run.store_log {
        let n = terminals.len();
        terminals.entry(s.session).or_insert(n);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- Lousa: {} under {} (seed {})",
        scenario.name, run.strategy, run.seed
    );
    let _ = writeln!(
        out,
        "-- Open {} psql terminals on an empty database, one per connection:",
        terminals.len().max(1)
    );
    for (session, ix) in &terminals {
        let instance = run
            .store_log
            .iter()
            .find(|s| s.session == *session)
            .and_then(|s| s.instance)
            .map_or("recovery".to_string(), |i| format!("instance {}", i + 1));
        let _ = writeln!(
            out,
            "--   terminal {} = a connection of {instance}",
            terminal_label(*ix)
        );
    }
    let _ = writeln!(
        out,
        "-- Then type each statement in the terminal its label names, in this order."
    );
    let _ = writeln!(
        out,
        "-- A statement marked WAITS blocks; go on in the other terminal, and it"
    );
    let _ = writeln!(out, "-- returns when the transaction it waits for ends.");
    // The take-home's check: the same statements on the attendee's server,
    // with the model's outcome beside PostgreSQL's for each.
    let _ = writeln!(
        out,
        "-- To check every outcome on your own PostgreSQL 15 in one command, run\n\
         --   lousa replay {} --strategy {} --schedule {} --database-url postgres://USER@HOST:PORT/DB\n\
         -- (a scenario from a file or a link is given as it was to this export): it\n\
         -- replays these statements in a schema of its own, one connection per\n\
         -- terminal, prints the model's outcome beside the server's and drops the\n\
         -- schema at the end.\n",
        scenario.name, run.strategy, run.schedule
    );
    let _ = writeln!(out, "-- Set-up (any terminal):");
    // Only the tables the run's statements touch: a check-then-act run
    // needs cobranca_simples, not every table of every design.
    let used: Vec<&str> = run
        .store_log
        .iter()
        .filter_map(|s| s.stmt.table())
        .collect();
    let tables: Vec<_> = crate::handler::store_tables(scenario)
        .into_iter()
        .filter(|t| used.contains(&t.name.as_str()))
        .collect();
    for t in tables.iter().rev() {
        let _ = writeln!(out, "DROP TABLE IF EXISTS {};", t.name);
    }
    for t in &tables {
        let _ = writeln!(out, "{};", t.create_sql());
    }
    out.push('\n');
    for (i, s) in run.store_log.iter().enumerate() {
        let label = terminal_label(terminals[&s.session]);
        if s.closed {
            // Closing the terminal is what the crash does to the connection:
            // its transaction rolls back, a statement it waits on is aborted.
            let _ = writeln!(
                out,
                "-- {:>3}. at {:.3} s the instance of terminal {label} crashes: close that \
                 psql (Ctrl-C, then \\q); its open transaction rolls back",
                i + 1,
                s.time_ms as f64 / 1000.0,
            );
            continue;
        }
        let wait = if s.waited {
            "  -- WAITS: it blocks here"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "-- {:>3}. terminal {label} at {:.3} s{wait}\n{};",
            i + 1,
            s.time_ms as f64 / 1000.0,
            s.stmt.to_sql()
        );
    }
    if run.store_log.is_empty() {
        out.push_str("-- (this run sent nothing to the database)\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_transaction_script_labels_terminals_and_marks_the_wait() {
        let s = crate::builtins::builtin("held-transaction").unwrap();
        let r = crate::run(&s).unwrap();
        let script = psql_script(&s, &r);
        assert!(script.contains("terminal A"), "{script}");
        assert!(script.contains("terminal B"), "{script}");
        assert!(script.contains("WAITS"), "{script}");
        assert!(script.contains("CREATE TABLE cobranca ("));
        assert!(script.contains("ON CONFLICT (idempotency_key) DO NOTHING RETURNING id;"));
        let replay = format!(
            "lousa replay held-transaction --strategy {} --schedule {} --database-url",
            r.strategy, r.schedule
        );
        assert!(script.contains(&replay), "{script}");
    }

    /// Issue #33: the set-up dropped and created seven tables where the run
    /// used two.
    #[test]
    fn the_set_up_creates_only_the_tables_the_run_touches() {
        let s = crate::builtins::builtin("race-2").unwrap();
        let script = psql_script(&s, &crate::run(&s).unwrap());
        assert!(
            script.contains("CREATE TABLE cobranca_simples ("),
            "{script}"
        );
        assert!(script.contains("DROP TABLE IF EXISTS cobranca_simples;"));
        for other in ["cobranca ", "chave_idempotencia", "conta ", "evento_outbox"] {
            assert!(
                !script.contains(&format!("CREATE TABLE {other}")),
                "{other}: {script}"
            );
        }
        let mut lease = crate::builtins::builtin("balance-lost-update").unwrap();
        lease.strategy = crate::Strategy::LocalEffect;
        let script = psql_script(&lease, &crate::run(&lease).unwrap());
        for used in ["chave_idempotencia (", "conta (", "pedido_pago ("] {
            assert!(
                script.contains(&format!("CREATE TABLE {used}")),
                "{used}: {script}"
            );
        }
    }
}
