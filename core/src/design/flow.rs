//! The checks that follow a design's jumps: every loop bounded, every step
//! reached, transactions that open and close the same way on every path,
//! and answers ready before they are sent.
//!
//! Facts about "every path" are worked out in the order of the jumps
//! forward, and worked again while a jump back changes one: they only ever
//! turn from true to false, so this ends.

use super::check::{Jump, Site};
use super::shape::{Shape, refuse};
use super::{Answer, Design, RESPOND, When};
use crate::json::FieldError;

/// Whether some branch holds whatever the step's outcome, so that `next`
/// is never taken: one that always does, both `rows` and `no-rows`, or all
/// three of a capture's answers. An error takes its own way, and a branch
/// with `again` may stop holding.
pub(super) fn exhaustive(branches: &[Jump]) -> bool {
    let has = |w: When| branches.iter().any(|b| b.when == w && b.again.is_none());
    has(When::Always)
        || (has(When::Rows) && has(When::NoRows))
        || (has(When::Accepted) && has(When::Declined) && has(When::Silent))
}

/// The steps each step may go to next: its branches' targets, and its
/// `next` unless they cover every outcome. A statement's unexpected error
/// is left out: it goes, with its answer, to the ROLLBACK that follows the
/// design's steps or straight to the response, which no check refuses.
fn successors(site: &Site) -> impl Iterator<Item = u16> + '_ {
    targets(site, true)
}

/// The successors but for the bounded jumps (`again`).
fn forward(site: &Site) -> impl Iterator<Item = u16> + '_ {
    targets(site, false)
}

fn targets(site: &Site, bounded: bool) -> impl Iterator<Item = u16> + '_ {
    site.branches
        .iter()
        .filter(move |b| bounded || b.again.is_none())
        .map(|b| b.to)
        .chain((!exhaustive(&site.branches)).then_some(site.next))
}

/// Visits the steps in `order` pass after pass until one changes nothing
/// (`visit` says whether it changed what is known): the facts only ever
/// move one way, so this ends.
fn to_fixpoint(
    order: &[usize],
    mut visit: impl FnMut(usize) -> Result<bool, FieldError>,
) -> Result<(), FieldError> {
    loop {
        let mut changed = false;
        for &i in order {
            changed |= visit(i)?;
        }
        if !changed {
            return Ok(());
        }
    }
}

/// The field that jumps from step `from` to `to`.
fn jump_field(design: &Design, from: usize, to: u16) -> String {
    let step = &design.steps[from];
    let label = design
        .steps
        .get(to as usize)
        .map_or(RESPOND, |s| s.label.as_str());
    match step
        .on
        .iter()
        .position(|b| b.goto == label && b.again.is_none())
    {
        Some(j) => format!("steps[{from}].on[{j}].goto"),
        None if step.next.is_some() => format!("steps[{from}].next"),
        None => format!("steps[{from}]"),
    }
}

/// Refuses a loop that no bounded jump (`again`) breaks, and returns the
/// design's steps in an order where every unbounded jump goes forward.
pub(super) fn bounded_loops(design: &Design, sites: &[Site]) -> Result<Vec<usize>, FieldError> {
    let n = design.steps.len();
    // 0: not seen, 1: on the path, 2: done.
    let mut mark = vec![0u8; n];
    let mut post = Vec::with_capacity(n);
    for root in 0..n {
        if mark[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<u16>)> = vec![(root, forward(&sites[root]).collect())];
        mark[root] = 1;
        while let Some((at, rest)) = stack.last_mut() {
            let at = *at;
            match rest.pop() {
                Some(to) if (to as usize) < n => match mark[to as usize] {
                    0 => {
                        mark[to as usize] = 1;
                        stack.push((to as usize, forward(&sites[to as usize]).collect()));
                    }
                    1 => {
                        return refuse(
                            jump_field(design, at, to),
                            format!(
                                "jumps back to \"{}\": a jump back needs \"again\" (how many \
                                 times at most), so that the loop ends",
                                design.steps[to as usize].label
                            ),
                        );
                    }
                    _ => {}
                },
                Some(_) => {}
                None => {
                    mark[at] = 2;
                    post.push(at);
                    stack.pop();
                }
            }
        }
    }
    post.reverse();
    Ok(post)
}

/// The steps reached from `from`'s successors (not `from` itself unless a
/// loop comes back to it).
fn reachable(sites: &[Site], n: usize, from: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut todo: Vec<usize> = successors(&sites[from]).map(usize::from).collect();
    while let Some(i) = todo.pop() {
        if i < n && !seen[i] {
            seen[i] = true;
            todo.extend(successors(&sites[i]).map(usize::from));
        }
    }
    seen
}

/// Whether a loop comes back to step `i`.
pub(super) fn on_a_loop(sites: &[Site], i: usize) -> bool {
    reachable(sites, sites.len() - 2, i)[i]
}

pub(super) fn reached(design: &Design, sites: &[Site]) -> Result<(), FieldError> {
    let n = design.steps.len();
    let mut seen = reachable(sites, n, 0);
    seen[0] = true;
    match seen.iter().position(|s| !s) {
        Some(i) => refuse(
            format!("steps[{i}]"),
            format!(
                "\"{}\" is never reached from the first step",
                design.steps[i].label
            ),
        ),
        None => Ok(()),
    }
}

/// Works out whether a transaction is open when each step starts, refusing
/// a step reached both ways, a BEGIN inside one, a COMMIT outside one, and
/// an answer sent with one open.
pub(super) fn transactions(
    design: &Design,
    sites: &mut [Site],
    order: &[usize],
) -> Result<(), FieldError> {
    let n = design.steps.len();
    let mut open: Vec<Option<(bool, usize)>> = vec![None; n];
    open[0] = Some((false, 0));
    // Again while a jump back reaches a step first seen after it.
    to_fixpoint(order, |i| {
        let Some((in_tx, _)) = open[i] else {
            return Ok(false);
        };
        let mut changed = false;
        sites[i].in_tx = in_tx;
        let at = format!("steps[{i}].do");
        match sites[i].shape {
            Shape::Begin if in_tx => {
                return refuse(at, "BEGIN inside a transaction already open");
            }
            Shape::Commit | Shape::Rollback if !in_tx => {
                return refuse(at, "no transaction is open here to end");
            }
            _ => {}
        }
        let after = match sites[i].shape {
            Shape::Begin => true,
            Shape::Commit | Shape::Rollback => false,
            _ => in_tx,
        };
        let targets: Vec<u16> = successors(&sites[i]).collect();
        for to in targets {
            let field = || jump_field(design, i, to);
            if to as usize == n + 1 {
                if after {
                    return refuse(field(), "answers with the transaction still open");
                }
                continue;
            }
            match open[to as usize] {
                None => {
                    open[to as usize] = Some((after, i));
                    changed = true;
                }
                Some((was, from)) if was != after => {
                    let (inside, outside) = if after { (i, from) } else { (from, i) };
                    return refuse(
                        format!("steps[{to}]"),
                        format!(
                            "\"{}\" is reached inside a transaction (from \"{}\") and outside \
                             one (from \"{}\")",
                            design.steps[to as usize].label,
                            design.steps[inside].label,
                            design.steps[outside].label
                        ),
                    );
                }
                Some(_) => {}
            }
        }
        Ok(changed)
    })
}

/// Whether a fact holds on every path from the first step into each step,
/// filled in jump order; `None` for a step not reached yet.
struct EveryPath(Vec<Option<bool>>);

impl EveryPath {
    /// Not yet at the first step.
    fn new(steps: usize) -> EveryPath {
        let mut at = vec![None; steps];
        at[0] = Some(false);
        EveryPath(at)
    }

    fn at(&self, step: usize) -> Option<bool> {
        self.0[step]
    }

    /// A jump to `to` along which the fact does (or does not) hold; jumps
    /// past the design's own steps are ignored. Whether it changed what is
    /// known of `to`.
    fn jump(&mut self, to: u16, holds: bool) -> bool {
        let Some(slot) = self.0.get_mut(to as usize) else {
            return false;
        };
        let was = *slot;
        *slot = Some(was.unwrap_or(true) && holds);
        *slot != was
    }
}

/// Refuses an update or a `capture` answer that can run before any capture:
/// both say what the acquirer answered.
pub(super) fn after_capture(
    design: &Design,
    sites: &[Site],
    order: &[usize],
) -> Result<(), FieldError> {
    // Every path from the first step here passed a capture.
    let mut captured = EveryPath::new(design.steps.len());
    to_fixpoint(order, |i| {
        let Some(before) = captured.at(i) else {
            return Ok(false);
        };
        let mut changed = false;
        let here = before || matches!(sites[i].shape, Shape::Capture);
        if !before && matches!(sites[i].shape, Shape::Update { local: false, .. }) {
            return refuse(
                format!("steps[{i}].do.update"),
                "an update writes the acquirer's answer, but this step can run before any \
                 capture",
            );
        }
        for (j, b) in sites[i].branches.iter().enumerate() {
            if b.answer == Some(Answer::Capture) && !here {
                return refuse(
                    format!("steps[{i}].on[{j}].answer"),
                    "\"capture\" answers with the acquirer's reply, but this step can run \
                     before any capture",
                );
            }
        }
        for to in successors(&sites[i]) {
            changed |= captured.jump(to, here);
        }
        Ok(changed)
    })
}

/// Refuses a way to the response on which no branch prepared an answer.
pub(super) fn answered(design: &Design, sites: &[Site], order: &[usize]) -> Result<(), FieldError> {
    let n = design.steps.len();
    // Every path from the first step here prepared an answer.
    let mut ready = EveryPath::new(n);
    to_fixpoint(order, |i| {
        let Some(before) = ready.at(i) else {
            return Ok(false);
        };
        let mut changed = false;
        let site = &sites[i];
        let edges = site
            .branches
            .iter()
            .map(|b| (before || b.answer.is_some(), b.to))
            .chain((!exhaustive(&site.branches)).then_some((before, site.next)));
        for (now, to) in edges {
            if to as usize == n + 1 && !now {
                return refuse(
                    jump_field(design, i, to),
                    "responds before any branch prepared an answer: give this jump an \
                     \"answer\"",
                );
            }
            changed |= ready.jump(to, now);
        }
        Ok(changed)
    })
}
