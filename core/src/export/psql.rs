//! The psql script: a run's store traffic for a workshop attendee to type
//! in one psql terminal per connection and watch the race on their own
//! PostgreSQL.

use crate::narrate::{self, Lang};
use crate::run::{CaptureMark, Run};
use crate::scenario::Scenario;
use crate::store::Stmt;
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

/// Who owns a connection no instance does, by what it ran: the world's
/// set-up (the account a balance scenario opens with, at 0 s), the
/// outbox's relay, the recovery sweep, or several of them, which share it.
/// `lousa replay` names its terminals with it too.
pub fn background_owner(run: &Run, session: u32, lang: Lang) -> String {
    let mut who: Vec<&str> = Vec::new();
    for s in run.store_log.iter().filter(|s| s.session == session) {
        let part = match &s.stmt {
            Stmt::Insert { .. } if s.time_ms == 0 => lang.pick("da preparação", "the set-up"),
            Stmt::Update { table, .. } if &**table == "evento_outbox" => {
                lang.pick("do relay", "the relay")
            }
            _ => lang.pick("da recuperação", "recovery"),
        };
        if !who.contains(&part) {
            who.push(part);
        }
    }
    who.join(lang.pick(" e ", " and "))
}

/// A two-(or more)-terminal psql script of the run's store traffic: the
/// set-up, then every statement in the order the simulation issued it,
/// labelled with the terminal to type it in and what to expect, and a
/// marked line where the acquirer charges the card. Its comments are in
/// `lang`; the SQL is the same in both.
///
/// A design that is not a built-in goes to the replay line as the file the
/// workshop's design tab downloads, `<name>.json`.
pub fn psql_script(scenario: &Scenario, run: &Run, lang: Lang) -> String {
    let say = |pt: &'static str, en: &'static str| lang.pick(pt, en);
    let mut terminals: BTreeMap<u32, usize> = BTreeMap::new();
    for s in &run.store_log {
        let n = terminals.len();
        terminals.entry(s.session).or_insert(n);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "-- Lousa: {} {} {} ({} {})",
        scenario.name,
        say("com", "under"),
        super::handler_name(scenario, run),
        say("semente", "seed"),
        run.seed
    );
    let _ = writeln!(
        out,
        "{} {} {}",
        say("-- Abra", "-- Open"),
        terminals.len().max(1),
        match terminals.len() {
            0 | 1 => say(
                "terminal psql num banco vazio, para a conexão:",
                "psql terminal on an empty database, for the connection:",
            ),
            _ => say(
                "terminais psql num banco vazio, um por conexão:",
                "psql terminals on an empty database, one per connection:",
            ),
        }
    );
    // In the order of their labels, which is the order they first speak.
    let mut listed: Vec<(&u32, &usize)> = terminals.iter().collect();
    listed.sort_by_key(|(_, ix)| **ix);
    for (session, ix) in listed {
        let instance = run
            .store_log
            .iter()
            .find(|s| s.session == *session)
            .and_then(|s| s.instance)
            .map_or_else(
                || background_owner(run, *session, lang),
                |i| format!("{} {}", say("da instância", "instance"), i + 1),
            );
        let _ = writeln!(
            out,
            "--   terminal {} = {} {instance}",
            terminal_label(*ix),
            say("uma conexão", "a connection of")
        );
    }
    out.push_str(say(
        "-- Depois digite cada comando no terminal que o rótulo dele indica, nesta ordem.\n\
         -- Um comando marcado ESPERA bloqueia; siga no outro terminal, e ele\n\
         -- volta quando a transação pela qual espera terminar.\n",
        "-- Then type each statement in the terminal its label names, in this order.\n\
         -- A statement marked WAITS blocks; go on in the other terminal, and it\n\
         -- returns when the transaction it waits for ends.\n",
    ));
    // The take-home's check: the same statements on the attendee's server,
    // with the model's outcome beside PostgreSQL's for each.
    let replay = format!(
        "--   {}\n",
        super::command::lousa(
            "replay",
            scenario,
            run,
            &format!(
                "--schedule {}{} --database-url postgres://USER@HOST:PORT/DB",
                run.schedule,
                lang.pick(" --lang pt", "")
            )
        )
    );
    out.push_str(say(
        "-- Para conferir cada resultado no seu PostgreSQL 15 com um comando, rode\n",
        "-- To check every outcome on your own PostgreSQL 15 in one command, run\n",
    ));
    out.push_str(&replay);
    out.push_str(say(
        "-- (um cenário próprio vai no arquivo JSON que o guarda): ele repete estes\n\
         -- comandos num schema só dele, uma conexão por terminal, mostra o\n\
         -- resultado do modelo ao lado do resultado do servidor e apaga o schema\n\
         -- no fim.\n\n",
        "-- (a scenario of your own goes as the JSON file that holds it): it\n\
         -- replays these statements in a schema of its own, one connection per\n\
         -- terminal, prints the model's outcome beside the server's and drops the\n\
         -- schema at the end.\n\n",
    ));
    out.push_str(say(
        "-- Preparação (em qualquer terminal):\n",
        "-- Set-up (any terminal):\n",
    ));
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
    let mut captures = run.captures.iter().peekable();
    let seconds = |ms: u64| {
        let s = format!("{:.3}", ms as f64 / 1000.0);
        if lang == Lang::Pt {
            s.replace('.', ",")
        } else {
            s
        }
    };
    for (i, s) in run.store_log.iter().enumerate() {
        while let Some(c) = captures.next_if(|c| c.after_statements <= i) {
            capture_line(&mut out, run, c, &seconds, lang);
        }
        let label = terminal_label(terminals[&s.session]);
        if s.closed {
            // Closing the terminal is what the crash does to the connection:
            // its transaction rolls back, a statement it waits on is aborted.
            let _ = match lang {
                Lang::Pt => writeln!(
                    out,
                    "-- {:>3}. aos {} s a instância do terminal {label} cai: feche esse \
                     psql (Ctrl-C, depois \\q); a transação aberta dele é desfeita",
                    i + 1,
                    seconds(s.time_ms),
                ),
                Lang::En => writeln!(
                    out,
                    "-- {:>3}. at {} s the instance of terminal {label} crashes: close that \
                     psql (Ctrl-C, then \\q); its open transaction rolls back",
                    i + 1,
                    seconds(s.time_ms),
                ),
            };
            continue;
        }
        let wait = if s.waited {
            say("  -- ESPERA: bloqueia aqui", "  -- WAITS: it blocks here")
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "-- {:>3}. terminal {label} {} {} s{wait}\n{};",
            i + 1,
            say("aos", "at"),
            seconds(s.time_ms),
            s.stmt.to_sql()
        );
    }
    for c in captures {
        capture_line(&mut out, run, c, &seconds, lang);
    }
    if run.store_log.is_empty() {
        out.push_str(say(
            "-- (esta execução não mandou nada ao banco)\n",
            "-- (this run sent nothing to the database)\n",
        ));
    }
    out
}

/// The marked line where the acquirer charges the card: no statement to
/// type, but the moment the money leaves, between the statements around it.
fn capture_line(
    out: &mut String,
    run: &Run,
    c: &CaptureMark,
    seconds: &dyn Fn(u64) -> String,
    lang: Lang,
) {
    let intent = run.summary.intents.get(c.intent as usize);
    let money = narrate::amount(intent.map_or(0, |i| i.amount_cents), lang);
    let order = intent.map_or(0, |i| i.order_id);
    let _ = match lang {
        Lang::Pt => writeln!(
            out,
            "-- >>> aos {} s o adquirente captura {money} (pedido {order}, chamada {}): aqui o cartão é cobrado",
            seconds(c.time_ms),
            c.call + 1
        ),
        Lang::En => writeln!(
            out,
            "-- >>> at {} s the acquirer captures {money} (order {order}, call {}): the card is charged here",
            seconds(c.time_ms),
            c.call + 1
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The replay line runs the scenario the export was made of: an edited
    /// built-in goes as its link, which reads back to the same scenario, and
    /// a scenario of one's own as its file, quoted for the shell.
    #[test]
    fn the_replay_line_names_the_scenario_that_ran() {
        let line = |s: &Scenario| {
            let r = crate::run(s).unwrap();
            let script = psql_script(s, &r, Lang::En);
            let at = script.find("--   lousa replay ").unwrap() + "--   lousa replay ".len();
            let rest = &script[at..];
            rest[..rest.find(" --strategy").unwrap()].to_string()
        };
        let mut s = crate::builtins::builtin("timeout-retry").unwrap();
        s.strategy = crate::Strategy::IdempotencyKey;
        assert_eq!(line(&s), "timeout-retry");
        s.clients[0].timeout_ms = 2500;
        let link = line(&s);
        assert_eq!(link, "'timeout-retry;clients.0.timeout_ms=2500'");
        let mut back = crate::link::decode(link.trim_matches('\'')).unwrap();
        back.strategy = s.strategy;
        assert_eq!(back, s);
        s.name = "minha corrida: a #1 d'ela".into();
        assert_eq!(line(&s), "'minha corrida: a #1 d'\\''ela.json'");
    }

    /// Issue #33: the comments speak the page's language, and a marked
    /// line says where each capture happens, between the statements around it.
    #[test]
    fn the_script_speaks_portuguese_and_marks_each_capture() {
        let s = crate::builtins::builtin("race-2").unwrap();
        let r = crate::run(&s).unwrap();
        let pt = psql_script(&s, &r, Lang::Pt);
        let en = psql_script(&s, &r, Lang::En);
        assert!(pt.contains("-- Preparação (em qualquer terminal):"), "{pt}");
        assert!(!pt.contains("Set-up"), "{pt}");
        let sql = |t: &str| {
            t.lines()
                .filter(|l| !l.starts_with("--"))
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(sql(&pt), sql(&en), "the same statements");
        let marks: Vec<&str> = pt.lines().filter(|l| l.starts_with("-- >>>")).collect();
        assert_eq!(
            marks.len(),
            r.summary
                .intents
                .iter()
                .map(|i| i.captures as usize)
                .sum::<usize>()
        );
        assert!(
            marks[0].contains("o adquirente captura R$ 250,00 (pedido 123"),
            "{pt}"
        );
        // Each mark follows the statement that sent the capture's call and
        // precedes the one that records it.
        for c in &r.captures {
            assert!(c.after_statements > 0 && c.after_statements <= r.store_log.len());
        }
        let lines: Vec<&str> = en.lines().collect();
        let at = lines.iter().position(|l| l.starts_with("-- >>>")).unwrap();
        assert!(
            !lines[..at].iter().any(|l| l.starts_with("UPDATE")),
            "no capture recorded before it: {en}"
        );
    }

    #[test]
    fn held_transaction_script_labels_terminals_and_marks_the_wait() {
        let s = crate::builtins::builtin("held-transaction").unwrap();
        let r = crate::run(&s).unwrap();
        let script = psql_script(&s, &r, Lang::En);
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
        // Each terminal says whose connection it is, in words that read.
        assert!(
            script.contains("--   terminal A = a connection of instance 1\n"),
            "{script}"
        );
        let pt = psql_script(&s, &r, Lang::Pt);
        assert!(
            pt.contains("--   terminal A = uma conexão da instância 1\n"),
            "{pt}"
        );
    }

    /// Recovery's statements are in the script, on a terminal of their own
    /// (a key it resolves must read so when the retry types its SELECT),
    /// and the terminals are listed in the order of their labels.
    #[test]
    fn recovery_types_its_statements_on_its_own_terminal() {
        let s = crate::builtins::builtin("crash-before-capture").unwrap();
        let script = psql_script(&s, &crate::run(&s).unwrap(), Lang::En);
        assert!(
            script.contains("UPDATE chave_idempotencia SET estado = 'failed_safe' WHERE id = 1"),
            "{script}"
        );
        for name in crate::builtins::NAMES {
            let s = crate::builtins::builtin(name).unwrap();
            let script = psql_script(&s, &crate::run(&s).unwrap(), Lang::En);
            let labels: Vec<&str> = script
                .lines()
                .filter_map(|l| l.strip_prefix("--   terminal "))
                .map(|l| l.split(' ').next().unwrap())
                .collect();
            let mut sorted = labels.clone();
            sorted.sort_unstable();
            assert_eq!(labels, sorted, "{name}: {script}");
        }
    }

    /// Issue #33: the set-up dropped and created seven tables where the run
    /// used two.
    #[test]
    fn the_set_up_creates_only_the_tables_the_run_touches() {
        let s = crate::builtins::builtin("race-2").unwrap();
        let script = psql_script(&s, &crate::run(&s).unwrap(), Lang::En);
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
        let script = psql_script(&lease, &crate::run(&lease).unwrap(), Lang::En);
        for used in ["chave_idempotencia (", "conta (", "pedido_pago ("] {
            assert!(
                script.contains(&format!("CREATE TABLE {used}")),
                "{used}: {script}"
            );
        }
    }

    /// A design of the attendee's own goes to the replay line as the file
    /// the design tab saves; a built-in one by its name.
    #[cfg(feature = "designs")]
    #[test]
    fn the_replay_line_names_the_design_as_the_cli_reads_it() {
        let mut s = crate::builtins::builtin("race-2").unwrap();
        let builtin = crate::design::builtin::named("claim-after-capture").unwrap();
        let mut own = builtin.design().clone();
        own.name = "mine".into();
        for (program, arg) in [
            (builtin, " --design claim-after-capture --schedule"),
            (
                crate::design::check(own).unwrap(),
                " --design mine.json --schedule",
            ),
        ] {
            s.design = Some(std::sync::Arc::new(program));
            let r = crate::run::run_schedule(&s, &crate::Schedule::default()).unwrap();
            let text = psql_script(&s, &r, Lang::En);
            assert!(text.contains(arg), "{text}");
        }
    }
}
