//! Generated from `builtin/*.json` and `exercise/*.json` by
//! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that
//! test with `LOUSA_BLESS=1`.

use super::Design;
use super::program_rows::ProgramRow;

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
#[rustfmt::skip]
mod local_effect_balance_outbox;
#[rustfmt::skip]
mod local_effect_balance_publish;
#[rustfmt::skip]
mod local_effect_balance_for_update;
#[rustfmt::skip]
mod local_effect_balance_for_update_outbox;
#[rustfmt::skip]
mod local_effect_balance_for_update_publish;
#[rustfmt::skip]
mod local_effect_balance_versioned;
#[rustfmt::skip]
mod local_effect_balance_versioned_outbox;
#[rustfmt::skip]
mod local_effect_balance_versioned_publish;

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

/// The rows of the program that `check` makes of the strategy's design
/// named `name`.
pub(super) fn program(name: &str) -> Option<&'static ProgramRow> {
    Some(match name {
        "naive" => &naive::PROGRAM,
        "check-then-act" => &check_then_act::PROGRAM,
        "check-then-act-autocommit" => &check_then_act_autocommit::PROGRAM,
        "idempotency-key" => &idempotency_key::PROGRAM,
        "idempotency-key-in-tx" => &idempotency_key_in_tx::PROGRAM,
        "idempotency-key-catch" => &idempotency_key_catch::PROGRAM,
        "idempotency-key-held-tx" => &idempotency_key_held_tx::PROGRAM,
        "idempotency-key-lease" => &idempotency_key_lease::PROGRAM,
        "consumer-naive" => &consumer_naive::PROGRAM,
        "consumer-check-then-act" => &consumer_check_then_act::PROGRAM,
        "consumer-claim" => &consumer_claim::PROGRAM,
        "local-effect" => &local_effect::PROGRAM,
        "local-effect-outbox" => &local_effect_outbox::PROGRAM,
        "local-effect-publish" => &local_effect_publish::PROGRAM,
        "local-effect-balance" => &local_effect_balance::PROGRAM,
        "local-effect-balance-outbox" => &local_effect_balance_outbox::PROGRAM,
        "local-effect-balance-publish" => &local_effect_balance_publish::PROGRAM,
        "local-effect-balance-for-update" => &local_effect_balance_for_update::PROGRAM,
        "local-effect-balance-for-update-outbox" => &local_effect_balance_for_update_outbox::PROGRAM,
        "local-effect-balance-for-update-publish" => &local_effect_balance_for_update_publish::PROGRAM,
        "local-effect-balance-versioned" => &local_effect_balance_versioned::PROGRAM,
        "local-effect-balance-versioned-outbox" => &local_effect_balance_versioned_outbox::PROGRAM,
        "local-effect-balance-versioned-publish" => &local_effect_balance_versioned_publish::PROGRAM,
        _ => return None,
    })
}
