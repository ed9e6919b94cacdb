//! SVG elements made from the pure pictures' element trees (`markup::El`):
//! a still drawing made once, and the board, whose elements are made once
//! per world and bound to the frame on screen.

use crate::drawn::{Drawn, attr};
use crate::markup::El;
use crate::worlds::Shared;
use leptos::prelude::*;
use leptos::svg;
use leptos::tachys::html::attribute::any_attribute::{AnyAttribute, IntoAnyAttribute};
use leptos::tachys::html::attribute::custom::custom_attribute;
use leptos::tachys::view::add_attr::AddAnyAttr;

/// The SVG element `tag`, with its attributes and children. The pictures
/// draw with these tags only (a native test checks it); another would be a
/// bug, drawn as a group rather than dropped.
fn element(tag: &str, attrs: Vec<AnyAttribute>, children: AnyView) -> AnyView {
    match tag {
        "rect" => svg::rect().add_any_attr(attrs).child(children).into_any(),
        "line" => svg::line().add_any_attr(attrs).child(children).into_any(),
        "text" => svg::text().add_any_attr(attrs).child(children).into_any(),
        "circle" => svg::circle().add_any_attr(attrs).child(children).into_any(),
        "path" => svg::path().add_any_attr(attrs).child(children).into_any(),
        _ => svg::g().add_any_attr(attrs).child(children).into_any(),
    }
}

/// The tags [`element`] makes.
#[cfg(test)]
pub const TAGS: [&str; 6] = ["g", "rect", "line", "text", "circle", "path"];

/// A drawing that does not change: made as it is.
pub fn still(el: &El) -> AnyView {
    let attrs = el
        .attrs
        .iter()
        .map(|(name, value)| custom_attribute(*name, value.clone()).into_any_attr())
        .collect();
    let children = if el.kids.is_empty() {
        el.text.clone().into_any()
    } else {
        el.kids.iter().map(still).collect::<Vec<_>>().into_any()
    };
    element(el.tag, attrs, children)
}

/// The board's parts for one world. Each box that changes during the run
/// reads its look from a signal holding the frame its current stretch began,
/// and one effect moves those signals along with the frame on screen,
/// setting only the ones that change: a seek wakes the bindings of the
/// boxes it changed and no others (a memo per box would still wake every
/// binding below it to check), and each binding then writes only a value
/// that differs.
pub fn board_parts(drawn: &Shared<Drawn>, frame: Memo<usize>) -> Vec<AnyView> {
    let start = frame.get_untracked();
    let mut moving: Vec<(usize, usize, RwSignal<usize>)> = Vec::new();
    let parts = (0..drawn.parts())
        .map(|part| {
            let boxes: Vec<AnyView> = (0..drawn.boxes(part))
                .map(|kid| {
                    if drawn.is_still(part, kid) {
                        return still(drawn.node(part, &[kid], 0));
                    }
                    let at = RwSignal::new(drawn.since(part, kid, start));
                    moving.push((part, kid, at));
                    bound(drawn, part, vec![kid], at.into())
                })
                .collect();
            let attrs = attributes(drawn, part, &[], frame.into());
            element(drawn.node(part, &[], 0).tag, attrs, boxes.into_any())
        })
        .collect();
    let d = drawn.clone();
    Effect::new(move |_| {
        let frame = frame.get();
        for &(part, kid, at) in &moving {
            let since = d.since(part, kid, frame);
            if at.get_untracked() != since {
                at.set(since);
            }
        }
    });
    parts
}

/// The element at `path` of `part`, its attributes and text bound to the
/// frame `at` names (only those that change during the run).
fn bound(drawn: &Shared<Drawn>, part: usize, path: Vec<usize>, at: Signal<usize>) -> AnyView {
    let el = drawn.node(part, &path, 0);
    let attrs = attributes(drawn, part, &path, at);
    let children = if !el.kids.is_empty() {
        (0..el.kids.len())
            .map(|i| {
                let mut below = path.clone();
                below.push(i);
                bound(drawn, part, below, at)
            })
            .collect::<Vec<_>>()
            .into_any()
    } else if drawn.text_is_still(part, &path) {
        el.text.clone().into_any()
    } else {
        let d = drawn.clone();
        let path = path.clone();
        (move || d.node(part, &path, at.get()).text.clone()).into_any()
    };
    element(el.tag, attrs, children)
}

fn attributes(
    drawn: &Shared<Drawn>,
    part: usize,
    path: &[usize],
    at: Signal<usize>,
) -> Vec<AnyAttribute> {
    let first = drawn.node(part, path, 0);
    drawn
        .attr_names(part, path)
        .into_iter()
        .filter_map(|name| {
            if drawn.attr_is_still(part, path, name) {
                let value = attr(first, name)?.to_string();
                return Some(custom_attribute(name, value).into_any_attr());
            }
            let d = drawn.clone();
            let path = path.to_vec();
            let value = move || attr(d.node(part, &path, at.get()), name).map(str::to_string);
            Some(custom_attribute(name, value).into_any_attr())
        })
        .collect()
}
