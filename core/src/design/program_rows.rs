//! The built-in programs as static rows (`builtin_values/`, generated from
//! what [`check`](super::check) makes of each built-in design): a page that
//! runs only the built-ins then links neither the check nor its flow
//! analysis, only this conversion. `core/tests/builtin_designs_source.rs`
//! fails when a row differs from the check's output.

use super::rows::{AnswerRow, WhenRow};
use super::shape::{Shape, Source, table_def};
use super::{Design, Jump, Program, Site};
use std::borrow::Cow;

pub struct ProgramRow {
    pub sites: &'static [SiteRow],
    pub captures_once: bool,
    pub stores_headers: bool,
}

pub struct SiteRow {
    pub shown: &'static str,
    pub shape: ShapeRow,
    pub columns: &'static [&'static str],
    pub branches: &'static [JumpRow],
    pub next: u16,
    pub in_tx: bool,
    pub commits_claim: bool,
    pub needs_now: bool,
    pub needs_fingerprint: bool,
    pub loop_slot: u8,
}

pub struct JumpRow {
    pub when: WhenRow,
    pub answer: Option<AnswerRow>,
    pub to: u16,
    pub again: Option<u8>,
}

/// A [`Shape`] with borrowed names.
pub enum ShapeRow {
    Begin,
    Commit,
    Rollback,
    Capture,
    Publish,
    Respond,
    Select {
        table: &'static str,
        filter: &'static [(&'static str, Source)],
        for_update: bool,
    },
    Insert {
        table: &'static str,
        values: &'static [(&'static str, Source)],
        on_conflict: Option<&'static [&'static str]>,
    },
    Update {
        table: &'static str,
        set: &'static [&'static str],
        fenced: bool,
        local: bool,
    },
    Debit {
        table: &'static str,
        versioned: bool,
    },
    Delete {
        table: &'static str,
    },
    Retake {
        table: &'static str,
        from: &'static str,
    },
}

impl ProgramRow {
    /// The program of `design`, which these rows were compiled from.
    pub fn program(&self, design: Design) -> Program {
        let tables = design
            .tables
            .iter()
            .map(|t| table_def(t).expect("a built-in names known tables"))
            .collect();
        Program {
            design,
            sites: self.sites.iter().map(SiteRow::site).collect(),
            tables,
            captures_once: self.captures_once,
            stores_headers: self.stores_headers,
        }
    }
}

impl SiteRow {
    fn site(&self) -> Site {
        Site {
            shown: self.shown.into(),
            shape: self.shape.shape(),
            columns: self.columns.iter().map(|c| c.to_string()).collect(),
            branches: self.branches.iter().map(JumpRow::jump).collect(),
            next: self.next,
            in_tx: self.in_tx,
            commits_claim: self.commits_claim,
            needs_now: self.needs_now,
            needs_fingerprint: self.needs_fingerprint,
            loop_slot: self.loop_slot,
        }
    }
}

impl JumpRow {
    fn jump(&self) -> Jump {
        Jump {
            when: self.when.when(),
            answer: self.answer.as_ref().map(AnswerRow::answer),
            to: self.to,
            again: self.again,
        }
    }
}

fn names(list: &'static [&'static str]) -> Vec<Cow<'static, str>> {
    list.iter().map(|n| Cow::Borrowed(*n)).collect()
}

fn sourced(list: &'static [(&'static str, Source)]) -> Vec<(Cow<'static, str>, Source)> {
    list.iter().map(|(n, s)| (Cow::Borrowed(*n), *s)).collect()
}

impl ShapeRow {
    fn shape(&self) -> Shape {
        let name = |t: &'static str| Cow::Borrowed(t);
        match *self {
            ShapeRow::Begin => Shape::Begin,
            ShapeRow::Commit => Shape::Commit,
            ShapeRow::Rollback => Shape::Rollback,
            ShapeRow::Capture => Shape::Capture,
            ShapeRow::Publish => Shape::Publish,
            ShapeRow::Respond => Shape::Respond,
            ShapeRow::Select {
                table,
                filter,
                for_update,
            } => Shape::Select {
                table: name(table),
                filter: sourced(filter),
                for_update,
            },
            ShapeRow::Insert {
                table,
                values,
                on_conflict,
            } => Shape::Insert {
                table: name(table),
                values: sourced(values),
                on_conflict: on_conflict.map(names),
            },
            ShapeRow::Update {
                table,
                set,
                fenced,
                local,
            } => Shape::Update {
                table: name(table),
                set: names(set),
                fenced,
                local,
            },
            ShapeRow::Debit { table, versioned } => Shape::Debit {
                table: name(table),
                versioned,
            },
            ShapeRow::Delete { table } => Shape::Delete { table: name(table) },
            ShapeRow::Retake { table, from } => Shape::Retake {
                table: name(table),
                from: from.into(),
            },
        }
    }
}
