//! The built-in strategies as design files: the language's own examples,
//! and the handlers the hand-coded ones must equal (issue #31).

/// Every built-in design, by name, as its JSON.
pub const ALL: [(&str, &str); 14] = [
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

/// Every built-in design's and exercise's name, in the order listed.
pub fn names() -> Vec<&'static str> {
    ALL.iter().chain(&EXERCISES).map(|(n, _)| *n).collect()
}

/// Whether `p` is a built-in design or exercise, unchanged: then its name
/// finds it again.
pub fn is_builtin(p: &super::Program) -> bool {
    named(&p.design().name).is_some_and(|b| b == *p)
}

/// The built-in design or exercise named `name`, checked.
pub fn named(name: &str) -> Option<super::Program> {
    let (_, json) = ALL.iter().chain(&EXERCISES).find(|(n, _)| *n == name)?;
    Some(super::Design::from_json(json).expect("the built-in designs are valid"))
}

/// The built-in scenario where the explorer shows what a built-in design
/// or exercise is about: a key reused with another amount for the
/// fingerprint, a queue delivering twice for a consumer, and two instances
/// racing for the others.
pub fn scenario_for(name: &str) -> &'static str {
    match name {
        "forget-the-fingerprint" => "key-reuse",
        n if n.starts_with("consumer-") => "queue-redelivery",
        _ => "race-2",
    }
}
