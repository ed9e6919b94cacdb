//! The built-in strategies as design files: the language's own examples,
//! and the handlers every scenario's strategy runs (issue #31). The files
//! are the source; `builtin_values/` is generated from them.

/// Every built-in design, by name, as its JSON.
pub const ALL: [(&str, &str); 15] = [
    ("naive", include_str!("builtin/naive.json")),
    (
        "check-then-act",
        include_str!("builtin/check-then-act.json"),
    ),
    (
        "check-then-act-autocommit",
        include_str!("builtin/check-then-act-autocommit.json"),
    ),
    (
        "idempotency-key",
        include_str!("builtin/idempotency-key.json"),
    ),
    (
        "idempotency-key-in-tx",
        include_str!("builtin/idempotency-key-in-tx.json"),
    ),
    (
        "idempotency-key-catch",
        include_str!("builtin/idempotency-key-catch.json"),
    ),
    (
        "idempotency-key-held-tx",
        include_str!("builtin/idempotency-key-held-tx.json"),
    ),
    (
        "idempotency-key-lease",
        include_str!("builtin/idempotency-key-lease.json"),
    ),
    ("local-effect", include_str!("builtin/local-effect.json")),
    (
        "local-effect-outbox",
        include_str!("builtin/local-effect-outbox.json"),
    ),
    (
        "local-effect-publish",
        include_str!("builtin/local-effect-publish.json"),
    ),
    (
        "local-effect-balance",
        include_str!("builtin/local-effect-balance.json"),
    ),
    (
        "consumer-naive",
        include_str!("builtin/consumer-naive.json"),
    ),
    (
        "consumer-check-then-act",
        include_str!("builtin/consumer-check-then-act.json"),
    ),
    (
        "consumer-claim",
        include_str!("builtin/consumer-claim.json"),
    ),
];

/// Designs that are wrong on purpose, or right at a cost, for a workshop
/// to break with the explorer: each says in its `about` what to find.
pub const EXERCISES: [(&str, &str); 3] = [
    (
        "claim-after-capture",
        include_str!("exercise/claim-after-capture.json"),
    ),
    (
        "forget-the-fingerprint",
        include_str!("exercise/forget-the-fingerprint.json"),
    ),
    (
        "check-then-act-unique-order",
        include_str!("exercise/check-then-act-unique-order.json"),
    ),
];

/// The variants of `local-effect-balance` that [`named`] composes and a
/// list of designs shows: the lessons of the built-in balance scenarios.
pub const BALANCE_VARIANTS: [&str; 2] = [
    "local-effect-balance-for-update",
    "local-effect-balance-versioned",
];

/// The built-in designs a scenario's strategy and options pick (in the
/// order `handler::program` counts them): the files' and every
/// [`balance_variant`] a scenario can ask for.
pub const STRATEGIES: [&str; 23] = [
    "naive",
    "check-then-act",
    "check-then-act-autocommit",
    "idempotency-key",
    "idempotency-key-in-tx",
    "idempotency-key-catch",
    "idempotency-key-held-tx",
    "idempotency-key-lease",
    "consumer-naive",
    "consumer-check-then-act",
    "consumer-claim",
    "local-effect",
    "local-effect-outbox",
    "local-effect-publish",
    "local-effect-balance",
    "local-effect-balance-outbox",
    "local-effect-balance-publish",
    "local-effect-balance-for-update",
    "local-effect-balance-for-update-outbox",
    "local-effect-balance-for-update-publish",
    "local-effect-balance-versioned",
    "local-effect-balance-versioned-outbox",
    "local-effect-balance-versioned-publish",
];

/// Every built-in design's, variant's and exercise's name, in the order
/// listed.
pub fn names() -> Vec<&'static str> {
    let files = |list: &'static [(&'static str, &'static str)]| list.iter().map(|(n, _)| *n);
    files(&ALL)
        .chain(BALANCE_VARIANTS)
        .chain(files(&EXERCISES))
        .collect()
}

/// Whether `p` is a built-in design or exercise, unchanged: then its name
/// finds it again.
pub fn is_builtin(p: &super::Program) -> bool {
    named(&p.design().name).is_some_and(|b| b == *p)
}

/// The built-in design or exercise named `name`, or a variant of
/// `local-effect-balance` (see [`balance_variant`]), checked.
pub fn named(name: &str) -> Option<super::Program> {
    strategy(name).or_else(|| {
        let design = super::builtin_values::exercise(name)?;
        Some(super::check(design).expect("the exercises are valid"))
    })
}

/// The program of the built-in design named `name` in [`STRATEGIES`]: a
/// handler a strategy runs. A build that runs designs of its own has the
/// check, and compiles the built-ins with it too; the reader's page runs
/// only these, so it builds them from the rows of [`compiled`] and links
/// no check.
pub fn strategy(name: &str) -> Option<super::Program> {
    #[cfg(feature = "designs")]
    return design(name).map(|d| super::check(d).expect("the built-in designs are valid"));
    #[cfg(not(feature = "designs"))]
    compiled(name)
}

/// The program of the built-in design named `name` in [`STRATEGIES`],
/// built from the rows `check` made of it (`builtin_values/`, which
/// `core/tests/builtin_designs_source.rs` keeps equal to the check's
/// output).
pub fn compiled(name: &str) -> Option<super::Program> {
    let rows = super::builtin_values::program(name)?;
    Some(rows.program(design(name)?))
}

/// The built-in design named `name`, unchecked: its file's, or a variant
/// of `local-effect-balance` (see [`balance_variant`]).
pub fn design(name: &str) -> Option<super::Design> {
    super::builtin_values::design(name).or_else(|| balance_variant(name))
}

/// `local-effect-balance` with a scenario's other options, named by
/// suffixes in this order: `-for-update` (the balance is read `FOR
/// UPDATE`) or `-versioned` (the account is `conta_versionada`, whose write
/// names the version read), then `-outbox` or `-publish` (its event, as
/// `local-effect-outbox` and `local-effect-publish` write it). Composed
/// rather than written out: eight files would differ in a word or a step.
fn balance_variant(name: &str) -> Option<super::Design> {
    use super::{Do, TableUse};
    let mut rest = name.strip_prefix("local-effect-balance")?;
    let mut take = |suffix: &str| match rest.strip_prefix(suffix) {
        Some(r) => {
            rest = r;
            true
        }
        None => false,
    };
    let for_update = take("-for-update");
    let versioned = take("-versioned");
    let event = [
        ("-outbox", "local-effect-outbox"),
        ("-publish", "local-effect-publish"),
    ]
    .into_iter()
    .find(|(suffix, _)| take(suffix));
    if !rest.is_empty() || name == "local-effect-balance" {
        return None;
    }
    let mut d = super::builtin_values::design("local-effect-balance")?;
    let mut about = match (for_update, versioned) {
        (true, false) => "local-effect-balance with the balance read FOR UPDATE: a second debit \
                          waits for the first to commit, then reads what it left."
            .to_string(),
        (false, true) => "local-effect-balance on an account with a version: a write naming a \
                          version another debit bumped matches no row, and the debit reads \
                          again, three times at most, before a 409."
            .to_string(),
        // A scenario chooses one of the lock and the version.
        (true, true) => return None,
        (false, false) => d.about.clone(),
    };
    if let Some((suffix, file_name)) = event {
        // The event's design, with the debit's steps after its claim.
        let mut base = super::builtin_values::design(file_name)?;
        let debit: Vec<_> = d
            .steps
            .iter()
            .skip_while(|s| s.label != "read-balance")
            .take_while(|s| s.label != "insert-order")
            .cloned()
            .collect();
        let at = base.steps.iter().position(|s| s.label == "claim")? + 1;
        base.steps.splice(at..at, debit);
        // The account before the outbox, as the lousa lists them.
        let after = base.tables.iter().position(|t| t.name == "pedido_pago")? + 1;
        base.tables.insert(
            after,
            TableUse {
                name: "conta".into(),
                unique: None,
            },
        );
        about.push_str(if suffix == "-outbox" {
            " Its event is an outbox row."
        } else {
            " Its event is published after the COMMIT."
        });
        d = base;
    }
    let account = if versioned {
        "conta_versionada"
    } else {
        "conta"
    };
    for t in &mut d.tables {
        if t.name == "conta" {
            t.name = account.into();
        }
    }
    for step in &mut d.steps {
        match &mut step.action {
            Do::Select(s) if s.table == "conta" => {
                s.table = account.into();
                s.for_update = for_update;
                if versioned {
                    s.columns.push("versao".into());
                }
            }
            Do::Update(u) if u.table == "conta" => u.table = account.into(),
            _ => {}
        }
    }
    d.name = name.into();
    d.about = about;
    Some(d)
}

/// The built-in scenario where the explorer shows what a built-in design
/// or exercise is about: a key reused with another amount for the
/// fingerprint, a queue delivering twice for a consumer, and two instances
/// racing for the others.
pub fn scenario_for(name: &str) -> &'static str {
    match name {
        "forget-the-fingerprint" => "key-reuse",
        n if n.starts_with("consumer-") => "queue-redelivery",
        "local-effect-balance" => "balance-lost-update",
        "local-effect-balance-for-update" => "balance-for-update",
        "local-effect-balance-versioned" => "balance-version-column",
        _ => "race-2",
    }
}
