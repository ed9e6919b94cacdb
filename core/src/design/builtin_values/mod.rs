//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::Design;

#[rustfmt::skip]
mod naive;
#[rustfmt::skip]
mod check_then_act;
#[rustfmt::skip]
mod check_then_act_autocommit;
#[rustfmt::skip]
mod idempotency_key;
#[rustfmt::skip]
mod idempotency_key_in_tx;
#[rustfmt::skip]
mod idempotency_key_catch;
#[rustfmt::skip]
mod idempotency_key_held_tx;
#[rustfmt::skip]
mod idempotency_key_lease;
#[rustfmt::skip]
mod local_effect;
#[rustfmt::skip]
mod local_effect_outbox;
#[rustfmt::skip]
mod local_effect_publish;
#[rustfmt::skip]
mod local_effect_balance;
#[rustfmt::skip]
mod consumer_naive;
#[rustfmt::skip]
mod consumer_check_then_act;
#[rustfmt::skip]
mod consumer_claim;
#[rustfmt::skip]
mod claim_after_capture;
#[rustfmt::skip]
mod forget_the_fingerprint;
#[rustfmt::skip]
mod check_then_act_unique_order;

/// The built-in design written in the file named `name`.
pub(super) fn design(name: &str) -> Option<Design> {
    let row = match name {
        "naive" => &naive::DESIGN,
        "check-then-act" => &check_then_act::DESIGN,
        "check-then-act-autocommit" => &check_then_act_autocommit::DESIGN,
        "idempotency-key" => &idempotency_key::DESIGN,
        "idempotency-key-in-tx" => &idempotency_key_in_tx::DESIGN,
        "idempotency-key-catch" => &idempotency_key_catch::DESIGN,
        "idempotency-key-held-tx" => &idempotency_key_held_tx::DESIGN,
        "idempotency-key-lease" => &idempotency_key_lease::DESIGN,
        "local-effect" => &local_effect::DESIGN,
        "local-effect-outbox" => &local_effect_outbox::DESIGN,
        "local-effect-publish" => &local_effect_publish::DESIGN,
        "local-effect-balance" => &local_effect_balance::DESIGN,
        "consumer-naive" => &consumer_naive::DESIGN,
        "consumer-check-then-act" => &consumer_check_then_act::DESIGN,
        "consumer-claim" => &consumer_claim::DESIGN,
        _ => return None,
    };
    Some(row.design())
}

/// The exercise written in the file named `name`.
pub(super) fn exercise(name: &str) -> Option<Design> {
    let row = match name {
        "claim-after-capture" => &claim_after_capture::DESIGN,
        "forget-the-fingerprint" => &forget_the_fingerprint::DESIGN,
        "check-then-act-unique-order" => &check_then_act_unique_order::DESIGN,
        _ => return None,
    };
    Some(row.design())
}
