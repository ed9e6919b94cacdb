//! The few shapes of binding the components use.
//!
//! Every Rust closure is a type of its own, and Leptos compiles its binding
//! code (the render effect, the first build, the rebuild) once per closure
//! type. A page with a hundred `move ||` closures pays for a hundred copies.
//! These helpers each return one closure type, which captures the page's
//! state and a plain function that picks the value: every label is one
//! type, every text another, so the binding code is compiled a handful of
//! times however many bindings there are. A binding reads as what it shows:
//! `label(|t| t.back)`, `text(|l| words::clock_text(...))`.

use crate::model::Lousa;
use crate::text::{Ui, ui};
use leptos::prelude::*;

/// A label in the reader's language.
pub fn label(
    pick: fn(&'static Ui) -> &'static str,
) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    let lang = expect_context::<Lousa>().lang;
    move || pick(ui(lang.get()))
}

/// A fixed word that the state picks (a class, `"true"` or `"false"`).
pub fn word(
    pick: fn(&Lousa) -> &'static str,
) -> impl Fn() -> &'static str + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || pick(&lousa)
}

/// A text made from the state.
pub fn text(pick: fn(&Lousa) -> String) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || pick(&lousa)
}

/// A yes or no from the state (`disabled`, `hidden`).
pub fn flag(pick: fn(&Lousa) -> bool) -> impl Fn() -> bool + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || pick(&lousa)
}

/// Whether the state's current choice is `key` (an option's `selected`).
pub fn chosen<K>(key: K, pick: fn(&Lousa) -> K) -> impl Fn() -> bool + Copy + Send + Sync + 'static
where
    K: Copy + PartialEq + Send + Sync + 'static,
{
    let lousa = expect_context::<Lousa>();
    move || pick(&lousa) == key
}

/// A text about one of the two lines of the twin timeline (`top` or not).
pub fn line_text(
    top: bool,
    pick: fn(&Lousa, bool) -> String,
) -> impl Fn() -> String + Copy + Send + Sync + 'static {
    let lousa = expect_context::<Lousa>();
    move || pick(&lousa, top)
}
