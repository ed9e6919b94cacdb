//! What the design tab does to a design, with no view: the menus' choices
//! (a step's kind, a branch's test and answer), the edits a row's buttons
//! make (add, remove, move), where a refusal points, and each step's SQL as
//! one line. A draft may be wrong while it is edited; `design::check` says
//! where, and the tab shows it beside the step it names.

use lousa_core::design::{
    Answer, Branch, By, Charge, Delete, Design, Do, Insert, Literal, RESPOND, Retake, Select, Step,
    Update, When,
};
use lousa_core::store::{TableDef, known_tables};

/// The tables a design may use, as the grammar lists them.
pub const TABLES: [&str; 8] = [
    "cobranca",
    "cobranca_simples",
    "pedido_pago",
    "chave_idempotencia",
    "mensagem_processada",
    "evento_outbox",
    "conta",
    "conta_versionada",
];

/// What a step does, as its menu lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Begin,
    Commit,
    Rollback,
    Select,
    Insert,
    Update,
    Capture,
    Publish,
    Delete,
    Retake,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Begin,
        Kind::Select,
        Kind::Insert,
        Kind::Capture,
        Kind::Publish,
        Kind::Update,
        Kind::Delete,
        Kind::Retake,
        Kind::Commit,
        Kind::Rollback,
    ];

    pub fn of(action: &Do) -> Kind {
        match action {
            Do::Begin => Kind::Begin,
            Do::Commit => Kind::Commit,
            Do::Rollback => Kind::Rollback,
            Do::Select(_) => Kind::Select,
            Do::Insert(_) => Kind::Insert,
            Do::Update(_) => Kind::Update,
            Do::Capture => Kind::Capture,
            Do::Publish => Kind::Publish,
            Do::Delete(_) => Kind::Delete,
            Do::Retake(_) => Kind::Retake,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Begin => "begin",
            Kind::Commit => "commit",
            Kind::Rollback => "rollback",
            Kind::Select => "select",
            Kind::Insert => "insert",
            Kind::Update => "update",
            Kind::Capture => "capture",
            Kind::Publish => "publish",
            Kind::Delete => "delete",
            Kind::Retake => "retake",
        }
    }

    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The action of this kind, on `table` when it touches one, with the
    /// parameters a first draft of it most often wants.
    pub fn action(self, table: &str) -> Do {
        let has =
            |column: &str| self::table(table).is_some_and(|t| t.column_index(column).is_some());
        let some = |columns: &[&str]| -> Vec<String> {
            columns
                .iter()
                .filter(|c| has(c))
                .map(|c| c.to_string())
                .collect()
        };
        let table = table.to_string();
        match self {
            Kind::Begin => Do::Begin,
            Kind::Commit => Do::Commit,
            Kind::Rollback => Do::Rollback,
            Kind::Capture => Do::Capture,
            Kind::Publish => Do::Publish,
            Kind::Select if has("saldo") => Do::Select(Select {
                table,
                by: By::Account,
                columns: some(&["saldo", "versao"]),
                for_update: false,
            }),
            Kind::Select => Do::Select(Select {
                table,
                by: if has("idempotency_key") || has("chave") || has("message_id") {
                    By::Key
                } else {
                    By::Order
                },
                columns: some(&["id", "status"]),
                for_update: false,
            }),
            Kind::Insert => Do::Insert(Insert {
                table,
                on_conflict_do_nothing: None,
                returning: some(&["id"]),
                completed: false,
            }),
            // An account's update is its debit.
            Kind::Update if has("saldo") => Do::Update(Update {
                set: some(&["saldo"]),
                fenced: false,
                local: false,
                table,
            }),
            Kind::Update => Do::Update(Update {
                set: some(&["status", "estado"]),
                fenced: has("lease_ate_ms"),
                local: false,
                table,
            }),
            Kind::Delete => Do::Delete(Delete { table }),
            Kind::Retake => Do::Retake(Retake {
                table,
                from: "failed_safe".into(),
            }),
        }
    }
}

/// A branch's test, as its menu lists it; `Error` and `Status` carry a
/// value the row edits beside the menu.
pub const WHENS: [&str; 11] = [
    "rows",
    "no-rows",
    "error",
    "status",
    "other-request",
    "expired",
    "insufficient-funds",
    "accepted",
    "declined",
    "silent",
    "always",
];

pub fn when_name(when: &When) -> &'static str {
    match when {
        When::Rows => "rows",
        When::NoRows => "no-rows",
        When::Error(_) => "error",
        When::Status(_) => "status",
        When::OtherRequest => "other-request",
        When::Expired => "expired",
        When::InsufficientFunds => "insufficient-funds",
        When::Accepted => "accepted",
        When::Declined => "declined",
        When::Silent => "silent",
        When::Always => "always",
    }
}

/// The test `name` names, keeping `old`'s value when both carry one.
pub fn when_named(name: &str, old: &When) -> Option<When> {
    let value = match old {
        When::Error(v) | When::Status(v) => Some(v.clone()),
        _ => None,
    };
    Some(match name {
        "rows" => When::Rows,
        "no-rows" => When::NoRows,
        "error" => When::Error(value.unwrap_or_else(|| "23505".into())),
        "status" => When::Status(value.unwrap_or_else(|| "PROCESSANDO".into())),
        "other-request" => When::OtherRequest,
        "expired" => When::Expired,
        "insufficient-funds" => When::InsufficientFunds,
        "accepted" => When::Accepted,
        "declined" => When::Declined,
        "silent" => When::Silent,
        "always" => When::Always,
        _ => return None,
    })
}

/// A branch's answer, as its menu lists it (`none`: the branch prepares
/// none, and jumps).
pub const ANSWERS: [&str; 6] = ["none", "literal", "capture", "local", "stored", "charge"];

pub fn answer_name(answer: Option<&Answer>) -> &'static str {
    match answer {
        None => "none",
        Some(Answer::Literal(_)) => "literal",
        Some(Answer::Capture) => "capture",
        Some(Answer::Local) => "local",
        Some(Answer::Stored) => "stored",
        Some(Answer::Charge(_)) => "charge",
    }
}

/// The answer `name` names, keeping `old`'s status when both carry one.
pub fn answer_named(name: &str, old: Option<&Answer>) -> Option<Option<Answer>> {
    let status = match old {
        Some(Answer::Literal(l)) => Some(l.status),
        Some(Answer::Charge(c)) => Some(c.status),
        _ => None,
    };
    Some(match name {
        "none" => None,
        "literal" => Some(Answer::Literal(Literal {
            status: status.unwrap_or(409),
            body: "{\"erro\": \"processando\"}".into(),
        })),
        "capture" => Some(Answer::Capture),
        "local" => Some(Answer::Local),
        "stored" => Some(Answer::Stored),
        "charge" => Some(Answer::Charge(Charge {
            status: status.unwrap_or(200),
        })),
        _ => return None,
    })
}

/// A label no step has: `base`, or `base-2`, `base-3`, ...
pub fn fresh_label(design: &Design, base: &str) -> String {
    let taken = |l: &str| design.steps.iter().any(|s| s.label == l);
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|l| !taken(l))
        .expect("some label is free")
}

/// The table a new step touches: the design's first, or `cobranca`.
fn first_table(design: &Design) -> String {
    design
        .tables
        .first()
        .map_or_else(|| TABLES[0].to_string(), |t| t.name.clone())
}

/// Inserts a capture step after step `at` (at the start when `at` is past
/// the end of an empty design), with a fresh label; where the new step is.
pub fn add_step(design: &mut Design, at: usize) -> usize {
    let label = fresh_label(design, "step");
    let step = Step {
        label,
        shown: None,
        action: Kind::Select.action(&first_table(design)),
        on: Vec::new(),
        next: None,
    };
    let at = (at + 1).min(design.steps.len());
    design.steps.insert(at, step);
    at
}

/// Removes step `at`. Jumps to it stay, so that the check names them: the
/// attendee sees what the removal left pointing nowhere.
pub fn remove_step(design: &mut Design, at: usize) {
    if at < design.steps.len() {
        design.steps.remove(at);
    }
}

/// Moves step `at` one place up (`by` < 0) or down; false at an end.
pub fn move_step(design: &mut Design, at: usize, by: isize) -> bool {
    let Some(to) = at.checked_add_signed(by) else {
        return false;
    };
    if to >= design.steps.len() || at >= design.steps.len() {
        return false;
    }
    design.steps.swap(at, to);
    true
}

/// Renames step `at`, and every jump to it with it.
pub fn rename_step(design: &mut Design, at: usize, label: &str) {
    let Some(old) = design.steps.get(at).map(|s| s.label.clone()) else {
        return;
    };
    for step in &mut design.steps {
        for b in &mut step.on {
            if b.goto == old {
                b.goto = label.to_string();
            }
        }
        if step.next.as_deref() == Some(old.as_str()) {
            step.next = Some(label.to_string());
        }
    }
    design.steps[at].label = label.to_string();
}

/// Adds a branch to step `at`: on a unique violation (23505), answer 409
/// and respond, the branch a guard most often needs.
pub fn add_branch(design: &mut Design, at: usize) {
    if let Some(step) = design.steps.get_mut(at) {
        step.on.push(Branch {
            when: When::Error("23505".into()),
            answer: Some(Answer::Literal(Literal {
                status: 409,
                body: "{\"erro\": \"processando\"}".into(),
            })),
            goto: RESPOND.into(),
            again: None,
        });
    }
}

/// The step a refusal's field path names (`steps[3].on[0].goto` names
/// step 3), if it names one.
pub fn step_named(field: &str) -> Option<usize> {
    let at = field.find("steps[")? + "steps[".len();
    let rest = &field[at..];
    rest[..rest.find(']')?].parse().ok()
}

/// The table `name`'s definition, for its columns.
pub fn table(name: &str) -> Option<TableDef> {
    known_tables().into_iter().find(|t| t.name == name)
}

/// A step's action as one line of SQL (or what it does, for a step that
/// is not a statement), with `$1` for what the request carries.
pub fn sql(action: &Do) -> String {
    match action {
        Do::Begin => "BEGIN".into(),
        Do::Commit => "COMMIT".into(),
        Do::Rollback => "ROLLBACK".into(),
        Do::Capture => "POST /capturas".into(),
        Do::Publish => "publish to the broker".into(),
        Do::Select(s) => format!(
            "SELECT {} FROM {} WHERE {}{}",
            s.columns.join(", "),
            s.table,
            // The columns the check matches: a key with its scope where the
            // table keeps one.
            table(&s.table)
                .map(|def| s.by.columns(&def))
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(k, (c, source))| match source {
                    lousa_core::design::Source::Account => format!("{c} = 1"),
                    _ => format!("{c} = ${}", k + 1),
                })
                .collect::<Vec<_>>()
                .join(" AND "),
            if s.for_update { " FOR UPDATE" } else { "" }
        ),
        Do::Insert(i) => {
            let mut line = if i.completed {
                format!(
                    "INSERT INTO {} (..., estado) VALUES (..., 'completed')",
                    i.table
                )
            } else {
                format!("INSERT INTO {} (...) VALUES (...)", i.table)
            };
            if let Some(cols) = &i.on_conflict_do_nothing {
                line.push_str(&format!(" ON CONFLICT ({}) DO NOTHING", cols.join(", ")));
            }
            if !i.returning.is_empty() {
                line.push_str(&format!(" RETURNING {}", i.returning.join(", ")));
            }
            line
        }
        Do::Update(u) if u.set == ["saldo"] => {
            let versioned = table(&u.table).is_some_and(|t| t.column_index("versao").is_some());
            format!(
                "UPDATE {} SET saldo = $saldo - $valor{} WHERE id = 1{}",
                u.table,
                if versioned {
                    ", versao = versao + 1"
                } else {
                    ""
                },
                if versioned {
                    " AND versao = $versao RETURNING id"
                } else {
                    ""
                }
            )
        }
        Do::Update(u) => format!(
            "UPDATE {} SET {} WHERE id = $1{}",
            u.table,
            u.set
                .iter()
                .map(|c| format!("{c} = ..."))
                .collect::<Vec<_>>()
                .join(", "),
            if u.fenced {
                " AND estado = 'processing' AND lease_ate_ms = $lease RETURNING id"
            } else {
                ""
            }
        ),
        Do::Delete(d) => format!("DELETE FROM {} WHERE id = $1", d.table),
        Do::Retake(r) => format!(
            "UPDATE {} SET estado = 'processing', lease_ate_ms = now + lease WHERE id = $1 \
             AND estado = '{}' RETURNING lease_ate_ms",
            r.table, r.from
        ),
    }
}

/// `list` with `item` in it when `on`, without it when not, in the order
/// `order` gives (a table's columns), so that a checkbox's toggle keeps
/// the columns in the table's order.
pub fn toggled(list: &[String], item: &str, on: bool, order: &[String]) -> Vec<String> {
    order
        .iter()
        .filter(|c| {
            if c.as_str() == item {
                on
            } else {
                list.contains(c)
            }
        })
        .cloned()
        .collect()
}

/// The columns of `order` (a table's) a menu offers: those `wanted` names
/// and those already `chosen`, in the table's order.
pub fn offered(order: &[String], wanted: &[&str], chosen: &[String]) -> Vec<String> {
    order
        .iter()
        .filter(|c| wanted.contains(&c.as_str()) || chosen.contains(c))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lousa_core::design::{self, builtin};

    fn draft(name: &str) -> Design {
        builtin::named(name).expect("a built-in").design().clone()
    }

    #[test]
    fn every_kind_makes_an_action_of_its_kind_that_checks_in_a_design() {
        for kind in Kind::ALL {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
            let action = kind.action("cobranca");
            assert_eq!(Kind::of(&action), kind);
            // The action as the last step of naive's design (after the
            // capture, so an update has an answer to write), on each table.
            for table in TABLES {
                // pedido_pago and evento_outbox have no column an answer
                // writes: the check refuses any update of them, and the tab
                // shows why. Only the key table has a state and a lease to
                // retake.
                if (kind == Kind::Update && ["pedido_pago", "evento_outbox"].contains(&table))
                    || (kind == Kind::Retake && table != "chave_idempotencia")
                {
                    continue;
                }
                let mut d = draft("naive");
                d.tables.push(lousa_core::design::TableUse {
                    name: table.into(),
                    unique: None,
                });
                d.steps[2].action = kind.action(table);
                d.steps[2].on.clear();
                let checked = design::check(d.clone());
                assert!(
                    !matches!(&checked, Err(e) if e.field.starts_with("steps[2].do")),
                    "{kind:?} on {table}: {checked:?}"
                );
            }
        }
    }

    #[test]
    fn a_menu_name_reads_back_as_its_value() {
        for name in WHENS {
            let when = when_named(name, &When::Always).unwrap();
            assert_eq!(when_name(&when), name);
        }
        assert_eq!(
            when_named("error", &When::Status("X".into())),
            Some(When::Error("X".into())),
            "the value is kept across a change of test"
        );
        for name in ANSWERS {
            let answer = answer_named(name, None).unwrap();
            assert_eq!(answer_name(answer.as_ref()), name);
        }
        let was = Answer::Charge(Charge { status: 402 });
        assert!(matches!(
            answer_named("literal", Some(&was)),
            Some(Some(Answer::Literal(Literal { status: 402, .. })))
        ));
        assert_eq!(when_named("sometimes", &When::Always), None);
        assert_eq!(answer_named("maybe", None), None);
    }

    #[test]
    fn steps_are_added_moved_and_removed_and_renames_follow_the_jumps() {
        let mut d = draft("idempotency-key");
        let n = d.steps.len();
        let at = add_step(&mut d, 0);
        assert_eq!(at, 1);
        assert_eq!(d.steps.len(), n + 1);
        assert_eq!(d.steps[1].label, "step");
        assert_eq!(add_step(&mut d, 0), 1);
        assert_eq!(d.steps[1].label, "step-2", "a fresh label");
        assert!(move_step(&mut d, 1, 1));
        assert_eq!(d.steps[2].label, "step-2");
        assert!(!move_step(&mut d, 0, -1), "the first step cannot go up");
        let last = d.steps.len() - 1;
        assert!(!move_step(&mut d, last, 1));
        remove_step(&mut d, 2);
        remove_step(&mut d, 1);
        assert_eq!(d, draft("idempotency-key"));

        rename_step(&mut d, 3, "read-the-key");
        assert_eq!(d.steps[3].label, "read-the-key");
        assert_eq!(d.steps[0].on[0].goto, "read-the-key", "the jump follows");
        assert!(design::check(d.clone()).is_ok());
    }

    /// A removed step leaves the jumps to it, and the check names the
    /// step that jumps.
    #[test]
    fn a_refusal_points_at_the_step_it_names() {
        let mut d = draft("idempotency-key");
        let read = d.steps.iter().position(|s| s.label == "read-key").unwrap();
        remove_step(&mut d, read);
        let e = design::check(d).unwrap_err();
        assert_eq!(step_named(&e.field), Some(0), "{e}");
        assert_eq!(step_named("steps[12].on[3].goto"), Some(12));
        assert_eq!(step_named("tables[0].name"), None);
        assert_eq!(step_named("steps[x]"), None);
    }

    #[test]
    fn a_branch_added_is_one_the_check_takes() {
        let mut d = draft("naive");
        add_branch(&mut d, 0);
        assert_eq!(d.steps[0].on.len(), 1);
        assert!(
            design::check(d.clone()).is_ok(),
            "naive's insert may branch"
        );
        // On a step that cannot fail with 23505, the check names the step.
        add_branch(&mut d, 1);
        let e = design::check(d).unwrap_err();
        assert_eq!(step_named(&e.field), Some(1), "{e}");
    }

    #[test]
    fn each_step_reads_as_one_line_of_sql() {
        let d = draft("idempotency-key");
        let lines: Vec<String> = d.steps.iter().map(|s| sql(&s.action)).collect();
        assert_eq!(
            lines[0],
            "INSERT INTO cobranca (...) VALUES (...) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id"
        );
        assert_eq!(lines[1], "POST /capturas");
        assert_eq!(
            lines[2],
            "UPDATE cobranca SET status = ..., resposta_http = ..., resposta_corpo = ... WHERE id = $1"
        );
        assert!(lines[3].starts_with("SELECT pedido_id, valor_centavos"));
        assert!(lines[3].ends_with("FROM cobranca WHERE idempotency_key = $1"));
    }

    #[test]
    fn a_toggle_keeps_the_tables_order() {
        let order: Vec<String> = table("cobranca")
            .unwrap()
            .columns
            .iter()
            .map(|c| c.name.clone())
            .collect();
        let on = toggled(&["status".into()], "id", true, &order);
        assert_eq!(on, vec!["id".to_string(), "status".to_string()]);
        assert_eq!(
            toggled(&on, "id", false, &order),
            vec!["status".to_string()]
        );
        for name in TABLES {
            assert!(table(name).is_some(), "{name} is a table the store has");
        }
        // A menu offers what a guard names, and keeps what a draft chose.
        assert_eq!(
            offered(&order, &["pedido_id", "idempotency_key"], &[]),
            vec!["idempotency_key".to_string(), "pedido_id".to_string()]
        );
        assert_eq!(
            offered(&order, &["id"], &["status".into()]),
            vec!["id".to_string(), "status".to_string()]
        );
    }
}
