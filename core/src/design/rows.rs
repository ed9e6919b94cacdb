//! The built-in designs as static rows (`builtin_values/`, generated from
//! the JSON files): borrowed texts and slices a page keeps in its data, and
//! one small conversion to the [`Design`] a handler runs. Building each
//! design in code would cost the page a store for every field of every step.

use super::{
    Answer, Branch, By, Charge, Claims, Delete, Design, Do, Insert, Literal, Retake, Select,
    Serves, Step, TableUse, Update, When,
};
use crate::store::Isolation;

pub struct DesignRow {
    pub name: &'static str,
    pub about: &'static str,
    pub serves: Serves,
    pub claims: Claims,
    pub isolation: Option<Isolation>,
    pub tables: &'static [TableRow],
    pub steps: &'static [StepRow],
}

pub struct TableRow {
    pub name: &'static str,
    pub unique: Option<&'static [&'static str]>,
}

pub struct StepRow {
    pub label: &'static str,
    pub shown: Option<&'static str>,
    pub action: DoRow,
    pub on: &'static [BranchRow],
    pub next: Option<&'static str>,
}

pub enum DoRow {
    Begin,
    Commit,
    Rollback,
    Capture,
    Publish,
    Select {
        table: &'static str,
        by: By,
        columns: &'static [&'static str],
        for_update: bool,
    },
    Insert {
        table: &'static str,
        on_conflict_do_nothing: Option<&'static [&'static str]>,
        returning: &'static [&'static str],
        completed: bool,
    },
    Update {
        table: &'static str,
        set: &'static [&'static str],
        fenced: bool,
        local: bool,
    },
    Delete {
        table: &'static str,
    },
    Retake {
        table: &'static str,
        from: &'static str,
    },
}

pub struct BranchRow {
    pub when: WhenRow,
    pub answer: Option<AnswerRow>,
    pub goto: &'static str,
    pub again: Option<u8>,
}

/// A `When`: the two that carry a text, or one that carries none.
pub enum WhenRow {
    Error(&'static str),
    Status(&'static str),
    Plain(When),
}

/// An `Answer`: the two that carry numbers or a text, or one that carries
/// none.
pub enum AnswerRow {
    Literal(u16, &'static str),
    Charge(u16),
    Plain(Answer),
}

fn texts(list: &[&str]) -> Vec<String> {
    list.iter().map(|t| t.to_string()).collect()
}

impl DesignRow {
    pub fn design(&self) -> Design {
        Design {
            name: self.name.into(),
            about: self.about.into(),
            serves: self.serves,
            claims: self.claims,
            isolation: self.isolation,
            tables: self.tables.iter().map(TableRow::table).collect(),
            steps: self.steps.iter().map(StepRow::step).collect(),
        }
    }
}

impl TableRow {
    fn table(&self) -> TableUse {
        TableUse {
            name: self.name.into(),
            unique: self.unique.map(texts),
        }
    }
}

impl StepRow {
    fn step(&self) -> Step {
        Step {
            label: self.label.into(),
            shown: self.shown.map(Into::into),
            action: self.action.action(),
            on: self.on.iter().map(BranchRow::branch).collect(),
            next: self.next.map(Into::into),
        }
    }
}

impl DoRow {
    fn action(&self) -> Do {
        match *self {
            DoRow::Begin => Do::Begin,
            DoRow::Commit => Do::Commit,
            DoRow::Rollback => Do::Rollback,
            DoRow::Capture => Do::Capture,
            DoRow::Publish => Do::Publish,
            DoRow::Select {
                table,
                by,
                columns,
                for_update,
            } => Do::Select(Select {
                table: table.into(),
                by,
                columns: texts(columns),
                for_update,
            }),
            DoRow::Insert {
                table,
                on_conflict_do_nothing,
                returning,
                completed,
            } => Do::Insert(Insert {
                table: table.into(),
                on_conflict_do_nothing: on_conflict_do_nothing.map(texts),
                returning: texts(returning),
                completed,
            }),
            DoRow::Update {
                table,
                set,
                fenced,
                local,
            } => Do::Update(Update {
                table: table.into(),
                set: texts(set),
                fenced,
                local,
            }),
            DoRow::Delete { table } => Do::Delete(Delete {
                table: table.into(),
            }),
            DoRow::Retake { table, from } => Do::Retake(Retake {
                table: table.into(),
                from: from.into(),
            }),
        }
    }
}

impl BranchRow {
    fn branch(&self) -> Branch {
        Branch {
            when: self.when.when(),
            answer: self.answer.as_ref().map(AnswerRow::answer),
            goto: self.goto.into(),
            again: self.again,
        }
    }
}

impl WhenRow {
    pub(super) fn when(&self) -> When {
        match self {
            WhenRow::Error(code) => When::Error((*code).into()),
            WhenRow::Status(s) => When::Status((*s).into()),
            WhenRow::Plain(w) => w.clone(),
        }
    }
}

impl AnswerRow {
    pub(super) fn answer(&self) -> Answer {
        match self {
            AnswerRow::Literal(status, body) => Answer::Literal(Literal {
                status: *status,
                body: (*body).into(),
            }),
            AnswerRow::Charge(status) => Answer::Charge(Charge { status: *status }),
            AnswerRow::Plain(a) => a.clone(),
        }
    }
}
