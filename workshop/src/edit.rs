//! The scenario editor's logic, apart from its form: which fields it
//! offers, what each holds, and what an edit makes of the scenario. An edit
//! goes through lousa-core's link edits (`link::edit`, then `link::encode`
//! back to the fewest edits of the built-in), so the editor refuses exactly
//! what the CLI and a link would, in the same words, and the edited
//! scenario is the URL's link.

use lousa_core::link;
use lousa_core::scenario::limits;
use lousa_core::{Scenario, Strategy};
use serde_json::Value;

/// What a field holds, and so how its text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number (milliseconds, counts) in `min..=max`, the range the
    /// core's validation allows: the editor names it before the core is
    /// asked, so a negative number is not told of as a JSON type.
    Whole {
        min: u64,
        max: u64,
    },
    Flag,
    /// One of these JSON strings.
    Choice(&'static [&'static str]),
    Text,
    /// A JSON value typed whole (the faults list).
    Json,
}

/// One field of the form: a link path and its labels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub path: String,
    pub kind: Kind,
    pub pt: &'static str,
    pub en: &'static str,
}

fn field(path: impl Into<String>, kind: Kind, pt: &'static str, en: &'static str) -> Field {
    Field {
        path: path.into(),
        kind,
        pt,
        en,
    }
}

/// The fields of `scenario`'s form: the world's, then each client's.
pub fn fields(scenario: &Scenario) -> Vec<Field> {
    let ms = Kind::Whole {
        min: 0,
        max: limits::TIME_MS_MAX,
    };
    // The times that may not be zero.
    let ms_from = |min: u64| Kind::Whole {
        min,
        max: limits::TIME_MS_MAX,
    };
    let mut out = vec![
        field(
            "instances",
            Kind::Whole {
                min: 1,
                max: limits::INSTANCES_MAX.into(),
            },
            "Instâncias do serviço",
            "Service instances",
        ),
        field(
            "pool_size",
            Kind::Whole {
                min: 1,
                max: limits::POOL_SIZE_MAX.into(),
            },
            "Conexões por instância",
            "Connections per instance",
        ),
        field(
            "load_balancer",
            Kind::Choice(&["round-robin", "random", "least-busy", "sticky-by-key"]),
            "Política do load balancer",
            "Load balancer policy",
        ),
        field(
            "isolation",
            Kind::Choice(&["read-committed", "repeatable-read", "serializable"]),
            "Nível de isolamento",
            "Isolation level",
        ),
        field(
            "db_latency_ms",
            Kind::Whole {
                min: 0,
                max: limits::DB_LATENCY_MS_MAX,
            },
            "Tempo de um comando SQL (ms)",
            "Time of one SQL statement (ms)",
        ),
        field(
            "network.latency_ms",
            ms,
            "Latência da rede (ms)",
            "Network latency (ms)",
        ),
        field(
            "network.jitter_ms",
            Kind::Whole {
                min: 0,
                max: limits::JITTER_MS_MAX.into(),
            },
            "Variação da rede (ms)",
            "Network jitter (ms)",
        ),
        field(
            "acquirer.latency_ms",
            ms,
            "Latência do adquirente (ms)",
            "Acquirer latency (ms)",
        ),
        field(
            "acquirer.timeout_ms",
            ms_from(1),
            "Timeout da chamada ao adquirente (ms)",
            "Acquirer call timeout (ms)",
        ),
        field(
            "acquirer.decline",
            Kind::Flag,
            "O adquirente recusa o cartão",
            "The acquirer declines the card",
        ),
        field(
            "key_ttl_ms",
            ms_from(1),
            "Validade da chave (ms)",
            "Key lifetime (ms)",
        ),
        field(
            "lease_ms",
            ms_from(1),
            "Duração do lease (ms)",
            "Lease duration (ms)",
        ),
        field(
            "recovery_every_ms",
            ms_from(limits::RECOVERY_EVERY_MS_MIN),
            "Intervalo da varredura de recuperação (ms)",
            "Recovery sweep interval (ms)",
        ),
        field(
            "horizon_ms",
            ms_from(1),
            "Fim da simulação (ms)",
            "End of the simulation (ms)",
        ),
    ];
    for (i, client) in scenario.clients.iter().enumerate() {
        let at = |name: &str| format!("clients.{i}.{name}");
        out.push(field(
            at("timeout_ms"),
            ms_from(1),
            "Timeout do cliente (ms)",
            "Client timeout (ms)",
        ));
        out.push(field(
            at("retries_max"),
            Kind::Whole {
                min: 0,
                max: limits::RETRIES_MAX.into(),
            },
            "Novas tentativas",
            "Retries",
        ));
        out.push(field(
            at("backoff_ms"),
            ms,
            "Espera antes de repetir (ms)",
            "Backoff before a retry (ms)",
        ));
        out.push(field(
            at("backoff"),
            Kind::Choice(&["constant", "exponential"]),
            "Como a espera cresce",
            "How the backoff grows",
        ));
        out.push(field(
            at("backoff_max_ms"),
            ms,
            "Espera máxima (ms, 0 = sem teto)",
            "Longest backoff (ms, 0 = no cap)",
        ));
        out.push(field(
            at("backoff_jitter_ms"),
            Kind::Whole {
                min: 0,
                max: limits::JITTER_MS_MAX.into(),
            },
            "Jitter da espera (ms)",
            "Backoff jitter (ms)",
        ));
        out.push(field(
            at("deadline_ms"),
            ms,
            "Prazo total do cliente (ms, 0 = sem prazo)",
            "Client's total deadline (ms, 0 = none)",
        ));
        out.push(field(
            at("start_ms"),
            ms,
            "Começa em (ms)",
            "Starts at (ms)",
        ));
        out.push(field(
            at("new_key_per_retry"),
            Kind::Flag,
            "Uma chave nova a cada tentativa",
            "A new key on every retry",
        ));
        for j in 0..client.intents.len() {
            let at = |name: &str| format!("clients.{i}.intents.{j}.{name}");
            out.push(field(
                at("order_id"),
                Kind::Whole {
                    min: 1,
                    max: limits::ORDER_ID_MAX as u64,
                },
                "Pedido",
                "Order",
            ));
            out.push(field(
                at("amount_cents"),
                Kind::Whole {
                    min: 1,
                    max: limits::AMOUNT_CENTS_MAX as u64,
                },
                "Valor (centavos)",
                "Amount (cents)",
            ));
            out.push(field(
                at("key"),
                Kind::Text,
                "Chave de idempotência",
                "Idempotency key",
            ));
        }
    }
    out.push(field(
        "faults",
        Kind::Json,
        "Falhas (JSON)",
        "Faults (JSON)",
    ));
    out
}

/// Which client a field belongs to, for grouping the form.
pub fn client_of(path: &str) -> Option<usize> {
    path.strip_prefix("clients.")?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// The value `path` holds in `scenario`, as the form shows it.
pub fn shown(scenario: &Scenario, path: &str) -> String {
    let json = serde_json::to_value(scenario).expect("a scenario is JSON");
    let pointer = format!("/{}", path.replace('.', "/"));
    match json.pointer(&pointer) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(v @ Value::Array(_)) | Some(v @ Value::Object(_)) => v.to_string(),
        Some(v) => v.to_string(),
        None => left_out(path).to_string(),
    }
}

/// What a field the scenario's JSON leaves out at its default holds.
fn left_out(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("backoff") => "constant",
        Some("backoff_max_ms" | "backoff_jitter_ms" | "deadline_ms") => "0",
        _ => "",
    }
}

/// The scenario the built-in `name` and `edits` make, with `path` set to
/// what the attendee typed: the new edits, or the core's words for why not
/// (the field path and the limit or the expected type).
pub fn apply(name: &str, edits: &str, field: &Field, typed: &str) -> Result<String, String> {
    let base = crate::url::scenario_of(name, edits)?;
    if let Kind::Whole { min, max } = field.kind
        && let Ok(n) = typed.trim().parse::<i128>()
        && !(i128::from(min)..=i128::from(max)).contains(&n)
    {
        return Err(out_of_range(&field.path, n, min, max));
    }
    let value = read(field, typed)?;
    let edited = link::edit(&base, &[(field.path.as_str(), value)]).map_err(|e| said(&e))?;
    kept(name, &edited)
}

/// The edits that make `scenario` of the built-in `name`.
pub fn edits_of(name: &str, scenario: &Scenario) -> String {
    let text = link::encode(name, scenario).expect("a listed built-in");
    text.strip_prefix(name)
        .map(|rest| rest.trim_start_matches(';').to_string())
        .unwrap_or_default()
}

/// A client more (a copy of the last, named after its place) or one less.
pub fn resize_clients(name: &str, edits: &str, more: bool) -> Result<String, String> {
    let base = crate::url::scenario_of(name, edits)?;
    let mut clients = serde_json::to_value(&base.clients).expect("clients are JSON");
    let list = clients.as_array_mut().expect("a list");
    if more {
        let mut copy = list.last().cloned().ok_or("clients: empty")?;
        copy["name"] = Value::String(format!("c{}", list.len() + 1));
        list.push(copy);
    } else {
        list.pop();
    }
    let edited = link::edit(&base, &[("clients", clients)]).map_err(|e| said(&e))?;
    kept(name, &edited)
}

/// A scenario file read back: the built-in it names (or `fallback`), the
/// edits that make it and its strategy, or the parser's words. The
/// strategy goes to the page's strategy menu, not into the edits, where
/// the menu's would override it unseen.
pub fn import(
    text: &str,
    fallback: &'static str,
) -> Result<(&'static str, String, Strategy), String> {
    let mut scenario = Scenario::from_json(text).map_err(|e| e.to_string())?;
    let name = crate::url::scenario_name(&scenario.name).unwrap_or(fallback);
    let strategy = scenario.strategy;
    if let Some(builtin) = lousa_core::builtins::builtin(name) {
        scenario.strategy = builtin.strategy;
    }
    Ok((name, kept(name, &scenario)?, strategy))
}

/// The edits that make `scenario` of the built-in `name`, if its link
/// fits the link limit: the link is where the workshop keeps a scenario,
/// and one it could not keep would be lost on the next reload.
fn kept(name: &str, scenario: &Scenario) -> Result<String, String> {
    let edits = edits_of(name, scenario);
    let bytes = name.len() + 1 + edits.len();
    if !edits.is_empty() && bytes > link::limits::LINK_BYTES_MAX {
        return Err(format!(
            "scenario: its link would take {bytes} bytes, over the limit {} a link can keep; \
             shorten its texts or use fewer clients or intents",
            link::limits::LINK_BYTES_MAX
        ));
    }
    Ok(edits)
}

/// What the attendee typed, as the JSON value the field takes. Text that
/// is not of the field's kind is passed on as a string, so the core says
/// what it expected there.
fn read(field: &Field, typed: &str) -> Result<Value, String> {
    let typed = typed.trim();
    Ok(match field.kind {
        Kind::Whole { .. } => typed
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| typed.parse::<u64>().map(Value::from))
            .unwrap_or_else(|_| Value::String(typed.into())),
        Kind::Flag => match typed {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            other => Value::String(other.into()),
        },
        Kind::Choice(_) | Kind::Text => Value::String(typed.into()),
        // Refused here, where the text is the one typed: read back from the
        // whole scenario, a line and column would be of text no one wrote.
        Kind::Json => lousa_core::json::value(
            typed,
            lousa_core::json::Root {
                name: "value",
                // The field is one level inside the scenario.
                depth_max: lousa_core::scenario::limits::JSON_DEPTH_MAX - 1,
            },
        )
        .map_err(|e| format!("{}: {}", field.path, e.message))?,
    })
}

/// A number outside a field's range, in the core's words and with its
/// field path (`clients[0].timeout_ms`), as its validation would say it.
fn out_of_range(path: &str, n: i128, min: u64, max: u64) -> String {
    let field = link::field_of(path).unwrap_or_else(|| path.to_string());
    if min == 0 && n > i128::from(max) {
        format!("{field}: {n} exceeds the limit {max}")
    } else {
        format!("{field}: {n} is outside {min}..={max}")
    }
}

/// A link refusal without its edit number: beside the field, the field is
/// the edit.
fn said(e: &link::LinkError) -> String {
    format!("{}: {}", e.field, e.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::builtins::{NAMES, builtin};
    use lousa_core::run::run;

    fn by_path(s: &Scenario, path: &str) -> Field {
        fields(s).into_iter().find(|f| f.path == path).expect(path)
    }

    #[test]
    fn an_edit_becomes_the_fewest_link_edits() {
        let s = builtin("race-2").unwrap();
        let f = by_path(&s, "clients.0.timeout_ms");
        let edits = apply("race-2", "", &f, "1500").unwrap();
        assert_eq!(edits, "clients.0.timeout_ms=1500");
        let f = by_path(&s, "db_latency_ms");
        let edits = apply("race-2", &edits, &f, "7").unwrap();
        let back = crate::url::scenario_of("race-2", &edits).unwrap();
        assert_eq!((back.clients[0].timeout_ms, back.db_latency_ms), (1500, 7));
        // Setting it back to the built-in's value drops the edit.
        let edits = apply("race-2", &edits, &f, &s.db_latency_ms.to_string()).unwrap();
        assert_eq!(edits, "clients.0.timeout_ms=1500");
    }

    #[test]
    fn a_bad_value_names_the_field_and_what_was_expected() {
        let s = builtin("timeout-retry").unwrap();
        let f = by_path(&s, "clients.0.timeout_ms");
        let e = apply("timeout-retry", "", &f, "-1").unwrap_err();
        assert_eq!(e, "clients[0].timeout_ms: -1 is outside 1..=604800000");
        let e = apply("timeout-retry", "", &f, "soon").unwrap_err();
        assert!(e.starts_with("clients[0].timeout_ms: "), "{e}");
        let f = by_path(&s, "instances");
        let e = apply("timeout-retry", "", &f, "9").unwrap_err();
        assert!(e.contains("instances") && e.contains('8'), "{e}");
        let f = by_path(&s, "faults");
        let e = apply("timeout-retry", "", &f, r#"[{"kind": "meteor"}]"#).unwrap_err();
        assert!(e.starts_with("faults[0]"), "{e}");
        // Text that is no JSON is told as such, where it was typed.
        let e = apply("timeout-retry", "", &f, "[").unwrap_err();
        assert_eq!(
            e,
            "faults: invalid JSON: EOF while parsing a list at line 1 column 1"
        );
        let deep = format!("{}{}", "[".repeat(18), "]".repeat(18));
        let e = apply("timeout-retry", "", &f, &deep).unwrap_err();
        assert!(
            e.starts_with("faults: too deeply nested: more than 15 "),
            "{e}"
        );
    }

    #[test]
    fn the_retry_policy_is_edited_like_any_other_field() {
        let s = builtin("timeout-retry").unwrap();
        assert_eq!(shown(&s, "clients.0.backoff"), "constant");
        assert_eq!(shown(&s, "clients.0.deadline_ms"), "0");
        let f = by_path(&s, "clients.0.backoff");
        let edits = apply("timeout-retry", "", &f, "exponential").unwrap();
        assert_eq!(edits, r#"clients.0.backoff="exponential""#);
        let f = by_path(&s, "clients.0.backoff_jitter_ms");
        let edits = apply("timeout-retry", &edits, &f, "150").unwrap();
        let back = crate::url::scenario_of("timeout-retry", &edits).unwrap();
        assert_eq!(back.clients[0].backoff_jitter_ms, 150);
        assert_eq!(shown(&back, "clients.0.backoff"), "exponential");
        let e = apply("timeout-retry", "", &f, "1001").unwrap_err();
        assert_eq!(
            e,
            "clients[0].backoff_jitter_ms: 1001 exceeds the limit 1000"
        );
        let b = builtin("exponential-backoff").unwrap();
        assert_eq!(shown(&b, "clients.0.deadline_ms"), "8000");
    }

    #[test]
    fn every_choice_offered_is_one_the_core_takes() {
        let s = builtin("race-2").unwrap();
        for f in fields(&s) {
            if let Kind::Choice(options) = f.kind {
                for option in options {
                    apply("race-2", "", &f, option)
                        .unwrap_or_else(|e| panic!("{}={option}: {e}", f.path));
                }
            }
        }
    }

    #[test]
    fn every_field_shows_what_the_scenario_holds_and_takes_it_back_unchanged() {
        for name in NAMES {
            let s = builtin(name).unwrap();
            for f in fields(&s) {
                let now = shown(&s, &f.path);
                assert_eq!(
                    apply(name, "", &f, &now),
                    Ok(String::new()),
                    "{name} {}",
                    f.path
                );
            }
        }
    }

    /// Each number field's range is the core's: its ends pass the core's
    /// own validation and one past either end is refused, by the field's
    /// name; the editor then says so in the same words, for a negative
    /// number too.
    #[test]
    fn each_number_field_offers_the_range_the_core_allows() {
        for name in ["timeout-retry", "race-3", "late-retry-after-ttl"] {
            let s = builtin(name).unwrap();
            for f in fields(&s) {
                let Kind::Whole { min, max } = f.kind else {
                    continue;
                };
                let core = |n: i128| {
                    let value = serde_json::from_str::<Value>(&n.to_string()).unwrap();
                    link::edit(&s, &[(f.path.as_str(), value)]).map_err(|e| said(&e))
                };
                for inside in [min, max] {
                    if let Err(e) = core(inside.into()) {
                        // Another field's limit (attempts in all) may refuse
                        // it; this field's own range may not.
                        assert!(
                            !e.contains(" is outside ") && !e.contains(" exceeds the limit "),
                            "{name} {}={inside}: {e}",
                            f.path
                        );
                    }
                }
                for outside in [i128::from(min) - 1, i128::from(max) + 1] {
                    assert!(core(outside).is_err(), "{name} {}={outside}", f.path);
                    // The editor's words are the core's, where the core
                    // has them (a negative number is a JSON type error there).
                    let said = apply(name, "", &f, &outside.to_string()).unwrap_err();
                    assert_eq!(said, out_of_range(&f.path, outside, min, max));
                    if outside >= 0 {
                        assert_eq!(Err(said), core(outside), "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_largest_value_of_each_field_still_runs_to_an_end() {
        // No edit the form allows may hang the tab: the run ends, at worst
        // at the event limit, which is a named outcome.
        for name in ["timeout-retry", "race-3", "late-retry-after-ttl"] {
            let s = builtin(name).unwrap();
            for f in fields(&s) {
                let Kind::Whole { max, .. } = f.kind else {
                    continue;
                };
                if let Ok(edits) = apply(name, "", &f, &max.to_string()) {
                    let edited = crate::url::scenario_of(name, &edits).unwrap();
                    let r = run(&edited).unwrap();
                    assert!(
                        r.frame_count() <= limits::EVENTS_MAX + 1,
                        "{name} {}",
                        f.path
                    );
                }
            }
        }
    }

    #[test]
    fn a_file_whose_link_would_not_fit_is_refused_and_not_dropped() {
        // Issue #35: 8 clients of 4 intents with the longest texts pass
        // the file's validation, but their link is past the link limit.
        let mut s = builtin("race-2").unwrap();
        let long = "x".repeat(limits::TEXT_LEN_MAX);
        s.description.pt = long.clone();
        s.description.en = long.clone();
        let client = s.clients[0].clone();
        s.clients = (0..limits::CLIENTS_MAX)
            .map(|i| {
                let mut c = client.clone();
                c.name = format!("{i}{}", &long[..150]);
                c.intents = (0..limits::INTENTS_PER_CLIENT_MAX)
                    .map(|j| {
                        let mut it = client.intents[0].clone();
                        it.key = format!("{i}-{j}-{}", &long[..100]);
                        it
                    })
                    .collect();
                c
            })
            .collect();
        s.validate().expect("inside every field's limit");
        let e = import(&s.to_json(), "race-2").unwrap_err();
        assert!(e.starts_with("scenario: ") && e.contains("8192"), "{e}");
        // A file whose link fits still reads back.
        let few = builtin("race-3").unwrap();
        assert!(import(&few.to_json(), "race-2").is_ok());
    }

    #[test]
    fn clients_come_and_go_and_a_file_reads_back() {
        let edits = resize_clients("race-2", "", true).unwrap();
        let s = crate::url::scenario_of("race-2", &edits).unwrap();
        assert_eq!(s.clients.len(), 3);
        assert_eq!(resize_clients("race-2", &edits, false).unwrap(), "");
        let (name, back, strategy) = import(&s.to_json(), "timeout-retry").unwrap();
        assert_eq!((name, back.as_str()), ("race-2", edits.as_str()));
        assert_eq!(strategy, s.strategy);
        // A file under another strategy brings it along, not as an edit.
        let mut other = s.clone();
        other.strategy = Strategy::IdempotencyKeyLease;
        let (_, back, strategy) = import(&other.to_json(), "race-2").unwrap();
        assert_eq!(
            (back.as_str(), strategy),
            (edits.as_str(), Strategy::IdempotencyKeyLease)
        );
        let e = import(r#"{"name": "x", "clients": "abc"}"#, "race-2").unwrap_err();
        assert!(e.contains("clients"), "{e}");
        let mut many = s.clone();
        while many.clients.len() < limits::CLIENTS_MAX {
            many.clients.push(many.clients[0].clone());
        }
        let edits = edits_of("race-2", &many);
        let e = resize_clients("race-2", &edits, true).unwrap_err();
        assert!(e.contains("clients") && e.contains('8'), "{e}");
    }
}
