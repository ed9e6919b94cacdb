//! The Mermaid diagram: a `sequenceDiagram` of the run's messages, to paste
//! into a pull request, a wiki or an issue, where Mermaid is drawn.
//!
//! One arrow per message the trace records, in trace order:
//!
//! | event | arrow |
//! | --- | --- |
//! | `attempt_sent` | client ->> load balancer (`-x` when the network drops it) |
//! | `routed` | load balancer ->> instance |
//! | `sql` | instance (or recovery) ->> database, then database -->> it with the result, unless the statement waits |
//! | `sql_resumed` | database -->> instance: the waiting statement's result |
//! | `capture_requested` | instance ->> acquirer |
//! | `acquirer_replied` | acquirer -->> instance |
//! | `acquirer_reply_lost` | acquirer --x instance |
//! | `responded` | instance (or the load balancer) -->> client (`--x` when dropped) |
//!
//! The response goes straight to the client, as the board draws it. What
//! happens inside one actor (a capture, a timeout, a crash) is a `Note`.
//! The labels are prose a reader sees drawn, so they come in the page's
//! language; the SQL stays SQL.

use crate::narrate::{self, Lang};
use crate::run::Run;
use crate::scenario::Scenario;
use crate::text::cut;
use crate::trace::{Actor, EventKind, Reconciliation, SqlOutcome};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Longest SQL text an arrow carries; the rest is cut with `…` so that the
/// diagram stays readable (the psql export has the full statements).
const SQL_CHARS_MAX: usize = 64;

fn participant(a: Actor) -> String {
    match a {
        Actor::Client(i) => format!("C{}", i + 1),
        Actor::Queue(i) => format!("Q{}", i + 1),
        Actor::LoadBalancer => "LB".into(),
        Actor::Instance(i) => format!("I{}", i + 1),
        Actor::Database => "DB".into(),
        Actor::Acquirer => "ACQ".into(),
        Actor::Network => "NET".into(),
        Actor::Recovery => "REC".into(),
        Actor::Relay => "REL".into(),
    }
}

/// Text Mermaid shows as written: `#` starts an entity code and `;` ends a
/// statement, so both are written as entity codes; newlines become spaces.
fn label(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn short_sql(sql: &str) -> String {
    cut(
        &sql.split_whitespace().collect::<Vec<_>>().join(" "),
        SQL_CHARS_MAX,
    )
}

/// The participants in board order: clients (an app or a queue), the load
/// balancer, instances, the database, the acquirer, and recovery when it ran.
fn participants(run: &Run) -> Vec<Actor> {
    let queue = |i| run.events().any(|(_, e)| e.actor == Actor::Queue(i));
    let mut all: Vec<Actor> = (0..run.initial.clients.len() as u32)
        .map(|i| {
            if queue(i) {
                Actor::Queue(i)
            } else {
                Actor::Client(i)
            }
        })
        .collect();
    // A queue hands its messages to consumers itself.
    if all.iter().any(|a| matches!(a, Actor::Client(_))) {
        all.push(Actor::LoadBalancer);
    }
    all.extend((0..run.initial.instances.len() as u32).map(Actor::Instance));
    all.extend([Actor::Database, Actor::Acquirer]);
    for helper in [Actor::Recovery, Actor::Relay] {
        if run.events().any(|(_, e)| e.actor == helper) {
            all.push(helper);
        }
    }
    all
}

/// What recovery found about a key, in a word.
fn reconciliation(outcome: Reconciliation, lang: Lang) -> &'static str {
    match lang {
        Lang::En => outcome.name(),
        Lang::Pt => match outcome {
            Reconciliation::Captured => "capturada",
            Reconciliation::Declined => "recusada",
            Reconciliation::NothingFound => "nenhuma chamada",
            Reconciliation::Escalated => "para uma pessoa decidir",
        },
    }
}

/// A `sequenceDiagram` of `run`'s messages (see the module's table), its
/// labels in `lang`.
pub fn mermaid(scenario: &Scenario, run: &Run, lang: Lang) -> String {
    let pt = lang == Lang::Pt;
    let mut out = String::from("sequenceDiagram\n");
    let _ = writeln!(
        out,
        "    %% Lousa: {} ({} {}, {} {})",
        super::handler_name(scenario, run),
        lang.pick("semente", "seed"),
        run.seed,
        lang.pick("escalonamento", "schedule"),
        run.schedule
    );
    for a in participants(run) {
        let _ = writeln!(
            out,
            "    participant {} as {}",
            participant(a),
            narrate::actor(a, lang)
        );
    }
    let attempt_word = lang.pick("tentativa", "attempt");
    let intent_word = lang.pick("intenção", "intent");
    // Drops follow their send in the trace; knowing them first lets the send
    // itself be drawn as lost.
    let mut request_dropped = BTreeSet::new();
    let mut response_dropped = BTreeSet::new();
    let mut client_of = BTreeMap::new();
    let mut instance_of_call = BTreeMap::new();
    for (_, e) in run.events() {
        match &e.kind {
            EventKind::RequestDropped { attempt } => {
                request_dropped.insert(*attempt);
            }
            EventKind::ResponseDropped { attempt } => {
                response_dropped.insert(*attempt);
            }
            EventKind::AttemptSent { attempt, .. } => {
                client_of.insert(*attempt, e.actor);
            }
            EventKind::CaptureRequested { call, .. } => {
                instance_of_call.insert(*call, e.actor);
            }
            _ => {}
        }
    }
    let arrow = |out: &mut String, from: Actor, how: &str, to: Actor, text: &str| {
        let _ = writeln!(
            out,
            "    {}{how}{}: {}",
            participant(from),
            participant(to),
            label(text)
        );
    };
    let note = |out: &mut String, over: Actor, text: &str| {
        let _ = writeln!(out, "    Note over {}: {}", participant(over), label(text));
    };
    let db = Actor::Database;
    let acq = Actor::Acquirer;
    for (_, e) in run.events() {
        let t = e.time_ms;
        let call_site = |call: &u32| instance_of_call.get(call).copied().unwrap_or(e.actor);
        match &e.kind {
            EventKind::AttemptSent {
                attempt,
                key,
                retry,
                unkeyed,
                ..
            } => {
                let how = if request_dropped.contains(attempt) {
                    "-x"
                } else {
                    "->>"
                };
                if let Actor::Queue(_) = e.actor {
                    // The queue hands the message to a consumer itself (the
                    // `Routed` arrow): here it only becomes visible.
                    let again = match (*retry, pt) {
                        (false, _) => "",
                        (true, true) => ", de novo",
                        (true, false) => ", again",
                    };
                    let n = attempt + 1;
                    let text = if pt {
                        format!("{t} ms a mensagem {key} é entregue{again} (entrega {n})")
                    } else {
                        format!("{t} ms message {key} is delivered{again} (delivery {n})")
                    };
                    note(&mut out, e.actor, &text);
                    continue;
                }
                let again = match (*retry, pt) {
                    (false, _) => "",
                    (true, true) => " (nova tentativa)",
                    (true, false) => " (retry)",
                };
                // A design that reads no key is told with none, as the
                // narration tells it.
                let keyed = if *unkeyed {
                    String::new()
                } else {
                    format!(", {} {key}", lang.pick("chave", "key"))
                };
                let text = format!(
                    "{t} ms POST /cobrancas {attempt_word} {}{again}{keyed}",
                    attempt + 1
                );
                arrow(&mut out, e.actor, how, Actor::LoadBalancer, &text);
            }
            EventKind::Routed { attempt, instance } => {
                let what = match e.actor {
                    Actor::Queue(_) => lang.pick("entrega", "delivery"),
                    _ => attempt_word,
                };
                arrow(
                    &mut out,
                    e.actor,
                    "->>",
                    Actor::Instance(*instance),
                    &format!("{t} ms {what} {}", attempt + 1),
                )
            }
            EventKind::Sql { sql, outcome, .. } => {
                arrow(
                    &mut out,
                    e.actor,
                    "->>",
                    db,
                    &format!("{t} ms {}", short_sql(sql)),
                );
                if !matches!(outcome, SqlOutcome::Waiting { .. }) {
                    let result = narrate::sql_outcome(outcome, lang);
                    arrow(&mut out, db, "-->>", e.actor, &result);
                } else {
                    note(
                        &mut out,
                        e.actor,
                        lang.pick(
                            "espera por uma linha que outra transação segura",
                            "waits for a row another transaction holds",
                        ),
                    );
                }
            }
            EventKind::SqlResumed {
                outcome, waited_ms, ..
            } => {
                let result = narrate::sql_outcome(outcome, lang);
                let after = lang.pick("depois de esperar", "after waiting");
                let text = format!("{t} ms {result} ({after} {waited_ms} ms)");
                arrow(&mut out, db, "-->>", e.actor, &text);
            }
            EventKind::CaptureRequested {
                attempt, intent, ..
            } => {
                let capture = lang.pick("captura da intenção", "capture intent");
                let text = format!(
                    "{t} ms {capture} {} ({attempt_word} {})",
                    intent + 1,
                    attempt + 1
                );
                arrow(&mut out, e.actor, "->>", acq, &text);
            }
            EventKind::AcquirerReplied { accepted, .. } => {
                let what = match accepted {
                    true => lang.pick("capturada", "accepted"),
                    false => lang.pick("recusada", "declined"),
                };
                arrow(&mut out, acq, "-->>", e.actor, &format!("{t} ms {what}"));
            }
            EventKind::AcquirerReplyLost { call } => {
                arrow(
                    &mut out,
                    acq,
                    "--x",
                    call_site(call),
                    &format!("{t} ms {}", lang.pick("resposta perdida", "reply lost")),
                );
            }
            EventKind::Responded {
                attempt,
                status,
                body,
                ..
            } => {
                let to = client_of.get(attempt).copied().unwrap_or(Actor::Client(0));
                let how = if response_dropped.contains(attempt) {
                    "--x"
                } else {
                    "-->>"
                };
                let text = format!("{t} ms {status} {body} ({attempt_word} {})", attempt + 1);
                arrow(&mut out, e.actor, how, to, &text);
            }
            EventKind::Captured {
                intent,
                captures_for_intent,
                ..
            } => note(
                &mut out,
                acq,
                &format!(
                    "{} {intent_word} {} ({captures_for_intent}x)",
                    lang.pick("capturou a", "captured"),
                    intent + 1
                ),
            ),
            EventKind::Declined { intent, .. } => {
                let declined = lang.pick("recusou a", "declined");
                note(
                    &mut out,
                    acq,
                    &format!("{declined} {intent_word} {}", intent + 1),
                )
            }
            EventKind::ProviderReplayed { intent, .. } => note(
                &mut out,
                acq,
                &if pt {
                    format!(
                        "chave do provedor: a intenção {} já foi capturada",
                        intent + 1
                    )
                } else {
                    format!("provider key: intent {} already captured", intent + 1)
                },
            ),
            EventKind::TimedOut { attempt, .. } => note(
                &mut out,
                e.actor,
                &if pt {
                    format!(
                        "{t} ms a tentativa {} estoura o tempo: cobrou ou não?",
                        attempt + 1
                    )
                } else {
                    format!("{t} ms timeout of attempt {}: charged or not?", attempt + 1)
                },
            ),
            EventKind::AcquirerTimedOut { .. } => {
                let silent = lang.pick("o adquirente não responde", "the acquirer is silent");
                note(&mut out, e.actor, &format!("{t} ms {silent}"))
            }
            EventKind::LateResponseIgnored {
                attempt, status, ..
            } => note(
                &mut out,
                e.actor,
                &if pt {
                    format!(
                        "{t} ms {status} atrasado da tentativa {}, ignorado",
                        attempt + 1
                    )
                } else {
                    format!("{t} ms late {status} for attempt {} ignored", attempt + 1)
                },
            ),
            EventKind::GaveUp { .. } => {
                let gives_up = lang.pick("desiste", "gives up");
                note(&mut out, e.actor, &format!("{t} ms {gives_up}"))
            }
            EventKind::RetryScheduled { retry, wait_ms, .. } => {
                let (again, within) = (lang.pick("nova tentativa", "retry"), lang.pick("em", "in"));
                let text = format!("{t} ms {again} {retry} {within} {wait_ms} ms");
                note(&mut out, e.actor, &text)
            }
            EventKind::Crashed { instance, .. } => note(
                &mut out,
                Actor::Instance(*instance),
                &format!("{t} ms {}", lang.pick("cai", "crashes")),
            ),
            EventKind::Restarted { instance } => note(
                &mut out,
                Actor::Instance(*instance),
                &format!("{t} ms {}", lang.pick("reinicia", "restarts")),
            ),
            EventKind::LeaseTaken { attempt } => note(
                &mut out,
                e.actor,
                &if pt {
                    format!(
                        "{t} ms escrita da tentativa {} recusada: o lease foi tomado",
                        attempt + 1
                    )
                } else {
                    format!(
                        "{t} ms write of attempt {} refused: lease taken",
                        attempt + 1
                    )
                },
            ),
            EventKind::Reconciled { key, outcome, .. } => note(
                &mut out,
                e.actor,
                &format!(
                    "{t} ms {} {key} ({})",
                    lang.pick("reconcilia a chave", "reconciles key"),
                    reconciliation(*outcome, lang)
                ),
            ),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_escape_what_mermaid_would_read() {
        assert_eq!(label("a;b#c\nd"), "a#59;b#35;c d");
    }

    /// The messages `run`'s trace records, counted from the events alone.
    fn messages_in_trace(run: &Run) -> usize {
        run.events()
            .map(|(_, e)| match &e.kind {
                EventKind::Sql { outcome, .. } => {
                    // The statement, and its result unless it waits.
                    1 + usize::from(!matches!(outcome, SqlOutcome::Waiting { .. }))
                }
                // A queue's delivery is a note; its arrow is `Routed`.
                EventKind::AttemptSent { .. } if matches!(e.actor, Actor::Queue(_)) => 0,
                EventKind::AttemptSent { .. }
                | EventKind::Routed { .. }
                | EventKind::SqlResumed { .. }
                | EventKind::CaptureRequested { .. }
                | EventKind::AcquirerReplied { .. }
                | EventKind::AcquirerReplyLost { .. }
                | EventKind::Responded { .. } => 1,
                _ => 0,
            })
            .sum()
    }

    fn arrows(text: &str) -> usize {
        text.lines()
            .filter(|l| {
                let head = l.trim_start().split(':').next().unwrap_or("");
                !head.starts_with("Note") && ["->>", "-x"].iter().any(|a| head.contains(a))
            })
            .count()
    }

    #[test]
    fn one_arrow_per_message_of_every_builtin_under_every_strategy() {
        let mut checked = 0;
        for s in crate::builtins::all() {
            for strategy in crate::Strategy::ALL {
                let mut s = s.clone();
                s.strategy = strategy;
                let r = crate::run(&s).unwrap();
                let text = mermaid(&s, &r, Lang::En);
                assert!(text.starts_with("sequenceDiagram\n"));
                assert_eq!(
                    arrows(&text),
                    messages_in_trace(&r),
                    "{} {strategy}\n{text}",
                    s.name
                );
                checked += messages_in_trace(&r);
            }
        }
        assert!(checked > 1000, "only {checked} messages");
    }

    #[test]
    fn a_request_names_its_key_only_under_a_design_that_reads_it() {
        let posts = |strategy| {
            let mut s = crate::builtins::builtin("timeout-retry").expect("built-in");
            s.strategy = strategy;
            let text = mermaid(&s, &crate::run(&s).expect("valid"), Lang::En);
            text.lines()
                .filter(|l| l.contains("POST /cobrancas"))
                .map(String::from)
                .collect::<Vec<_>>()
        };
        let (plain, keyed) = (
            posts(crate::Strategy::CheckThenAct),
            posts(crate::Strategy::IdempotencyKey),
        );
        assert!(plain.len() >= 2, "{plain:?}");
        assert!(plain.iter().all(|l| !l.contains("key")), "{plain:?}");
        assert!(keyed.iter().all(|l| l.contains(", key 9d2f")), "{keyed:?}");
    }

    /// The labels of a diagram, SQL left out (the text of an arrow to the
    /// database is a statement), and the comment, which names the design.
    fn prose(text: &str) -> Vec<String> {
        text.lines()
            .skip(1)
            .filter(|l| !l.contains("->>DB:") && !l.trim_start().starts_with("%%"))
            .filter_map(|l| l.split_once(": ").map(|(_, t)| t.to_string()))
            .chain(text.lines().filter_map(|l| {
                l.trim_start()
                    .strip_prefix("participant ")
                    .and_then(|p| p.split_once(" as ").map(|(_, n)| n.to_string()))
            }))
            .collect()
    }

    #[test]
    fn a_portuguese_diagram_draws_the_same_arrows_in_portuguese_words() {
        // English words a label may carry; the SQL's own words, and the
        // load balancer's name, stay as they are in both languages.
        let english = [
            "attempt",
            "key",
            "intent",
            "client",
            "instance",
            "database",
            "acquirer",
            "captured",
            "declined",
            "accepted",
            "retry",
            "crashes",
            "restarts",
            "gives",
            "timeout",
            "late",
            "ignored",
            "lost",
            "waits",
            "waiting",
            "after",
            "silent",
            "message",
            "delivery",
            "delivered",
            "again",
            "refused",
            "reconciles",
            "rows",
            "row",
            "seed",
            "schedule",
            "provider",
            "capture",
            "recovery",
            "queue",
        ];
        let mut labels = 0;
        for s in crate::builtins::all() {
            for strategy in crate::Strategy::ALL {
                let mut s = s.clone();
                s.strategy = strategy;
                let r = crate::run(&s).unwrap();
                let (pt, en) = (mermaid(&s, &r, Lang::Pt), mermaid(&s, &r, Lang::En));
                let head = |t: &str| -> Vec<String> {
                    t.lines()
                        .map(|l| l.split([':']).next().unwrap_or(""))
                        .map(|l| l.split(" as ").next().unwrap_or("").to_string())
                        .collect()
                };
                assert_eq!(head(&pt), head(&en), "{} {strategy}", s.name);
                for line in prose(&pt) {
                    // PostgreSQL's message after its code is the server's.
                    let line = line.split("ERRO ").next().unwrap_or("");
                    let words: Vec<&str> = line
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .collect();
                    let left: Vec<&&str> = english.iter().filter(|w| words.contains(w)).collect();
                    assert!(left.is_empty(), "{} {strategy}: {line:?} {left:?}", s.name);
                    labels += 1;
                }
            }
        }
        assert!(labels > 1000, "only {labels} labels");
    }

    #[test]
    fn race_2_check_then_act_shows_both_captures() {
        let mut s = crate::builtins::builtin("race-2").unwrap();
        s.strategy = crate::Strategy::CheckThenAct;
        let r = crate::run::run_schedule(&s, &crate::Schedule::default()).unwrap();
        let text = mermaid(&s, &r, Lang::En);
        assert!(text.contains("participant LB as load balancer"), "{text}");
        assert!(text.contains("participant I2 as instance 2"), "{text}");
        assert_eq!(text.matches("->>ACQ: ").count(), 2, "{text}");
        assert!(
            text.contains("Note over ACQ: captured intent 1 (2x)"),
            "{text}"
        );
    }

    #[test]
    fn long_sql_is_cut() {
        let sql = "SELECT ".repeat(20);
        let s = short_sql(&sql);
        assert_eq!(s.chars().count(), SQL_CHARS_MAX + 1);
        assert!(s.ends_with('…'));
    }
}
