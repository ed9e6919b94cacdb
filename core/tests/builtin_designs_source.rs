//! The built-in designs' JSON files are their source; the product runs them
//! as Rust values generated from those files (`src/design/builtin_values.rs`),
//! so a page that runs designs links neither a JSON reader nor one file.
//! This test fails when the generated file is stale; run it with
//! `LOUSA_BLESS=1` to write it again.

use lousa_core::design::builtin::{ALL, EXERCISES};
use lousa_core::design::{
    Answer, Branch, By, Charge, Claims, Delete, Design, Do, Insert, Literal, Retake, Select,
    Serves, Step, TableUse, Update, When,
};
use lousa_core::store::Isolation;

const GENERATED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/design/builtin_values.rs");

/// A value as a Rust expression that builds it, `pad` spaces in.
trait Rust {
    fn rust(&self, pad: usize) -> String;
}

/// A struct literal: on one line when it fits, else one field a line.
fn record(name: &str, pad: usize, fields: &[(&str, &dyn Rust)]) -> String {
    let inner = " ".repeat(pad + 4);
    let values: Vec<_> = fields.iter().map(|(f, v)| (f, v.rust(pad + 4))).collect();
    let line = values
        .iter()
        .map(|(f, v)| format!("{f}: {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    if pad + name.len() + line.len() + 6 <= LINE && !line.contains('\n') {
        return format!("{name} {{ {line} }}");
    }
    let mut out = format!("{name} {{\n");
    for (field, value) in values {
        out += &format!("{inner}{field}: {value},\n");
    }
    out + &" ".repeat(pad) + "}"
}

/// How wide a line of the generated file may grow.
const LINE: usize = 100;

impl Rust for String {
    fn rust(&self, _: usize) -> String {
        format!("{self:?}")
    }
}
impl Rust for bool {
    fn rust(&self, _: usize) -> String {
        self.to_string()
    }
}
impl Rust for u8 {
    fn rust(&self, _: usize) -> String {
        self.to_string()
    }
}
impl Rust for u16 {
    fn rust(&self, _: usize) -> String {
        self.to_string()
    }
}
impl<T: Rust> Rust for Option<T> {
    fn rust(&self, pad: usize) -> String {
        match self {
            Some(v) => format!("Some({})", v.rust(pad)),
            None => "None".into(),
        }
    }
}
impl<T: Rust> Rust for Vec<T> {
    fn rust(&self, pad: usize) -> String {
        if self.is_empty() {
            return "&[]".into();
        }
        let items: Vec<_> = self.iter().map(|v| v.rust(pad + 4)).collect();
        let line = items.join(", ");
        if pad + line.len() + 8 <= LINE && !line.contains('\n') {
            return format!("&[{line}]");
        }
        let inner = " ".repeat(pad + 4);
        let mut out = "&[\n".to_string();
        for item in items {
            out += &format!("{inner}{item},\n");
        }
        out + &" ".repeat(pad) + "]"
    }
}
impl Rust for Isolation {
    fn rust(&self, _: usize) -> String {
        format!("crate::store::Isolation::{self:?}")
    }
}
impl Rust for Serves {
    fn rust(&self, _: usize) -> String {
        format!("Serves::{self:?}")
    }
}
impl Rust for Claims {
    fn rust(&self, _: usize) -> String {
        format!("Claims::{self:?}")
    }
}
impl Rust for By {
    fn rust(&self, _: usize) -> String {
        format!("By::{self:?}")
    }
}
impl Rust for Design {
    fn rust(&self, pad: usize) -> String {
        let Design {
            name,
            about,
            serves,
            claims,
            isolation,
            tables,
            steps,
        } = self;
        record(
            "DesignRow",
            pad,
            &[
                ("name", name),
                ("about", about),
                ("serves", serves),
                ("claims", claims),
                ("isolation", isolation),
                ("tables", tables),
                ("steps", steps),
            ],
        )
    }
}
impl Rust for TableUse {
    fn rust(&self, pad: usize) -> String {
        let TableUse { name, unique } = self;
        record("TableRow", pad, &[("name", name), ("unique", unique)])
    }
}
impl Rust for Step {
    fn rust(&self, pad: usize) -> String {
        let Step {
            label,
            shown,
            action,
            on,
            next,
        } = self;
        record(
            "StepRow",
            pad,
            &[
                ("label", label),
                ("shown", shown),
                ("action", action),
                ("on", on),
                ("next", next),
            ],
        )
    }
}
impl Rust for Do {
    fn rust(&self, pad: usize) -> String {
        match self {
            Do::Begin => "DoRow::Begin".into(),
            Do::Commit => "DoRow::Commit".into(),
            Do::Rollback => "DoRow::Rollback".into(),
            Do::Capture => "DoRow::Capture".into(),
            Do::Publish => "DoRow::Publish".into(),
            Do::Select(x) => x.rust(pad),
            Do::Insert(x) => x.rust(pad),
            Do::Update(x) => x.rust(pad),
            Do::Delete(x) => x.rust(pad),
            Do::Retake(x) => x.rust(pad),
        }
    }
}
impl Rust for Select {
    fn rust(&self, pad: usize) -> String {
        let Select {
            table,
            by,
            columns,
            for_update,
        } = self;
        record(
            "DoRow::Select",
            pad,
            &[
                ("table", table),
                ("by", by),
                ("columns", columns),
                ("for_update", for_update),
            ],
        )
    }
}
impl Rust for Insert {
    fn rust(&self, pad: usize) -> String {
        let Insert {
            table,
            on_conflict_do_nothing,
            returning,
            completed,
        } = self;
        record(
            "DoRow::Insert",
            pad,
            &[
                ("table", table),
                ("on_conflict_do_nothing", on_conflict_do_nothing),
                ("returning", returning),
                ("completed", completed),
            ],
        )
    }
}
impl Rust for Update {
    fn rust(&self, pad: usize) -> String {
        let Update {
            table,
            set,
            fenced,
            local,
        } = self;
        record(
            "DoRow::Update",
            pad,
            &[
                ("table", table),
                ("set", set),
                ("fenced", fenced),
                ("local", local),
            ],
        )
    }
}
impl Rust for Delete {
    fn rust(&self, pad: usize) -> String {
        record("DoRow::Delete", pad, &[("table", &self.table)])
    }
}
impl Rust for Retake {
    fn rust(&self, pad: usize) -> String {
        let Retake { table, from } = self;
        record("DoRow::Retake", pad, &[("table", table), ("from", from)])
    }
}
impl Rust for Branch {
    fn rust(&self, pad: usize) -> String {
        let Branch {
            when,
            answer,
            goto,
            again,
        } = self;
        record(
            "BranchRow",
            pad,
            &[
                ("when", when),
                ("answer", answer),
                ("goto", goto),
                ("again", again),
            ],
        )
    }
}
impl Rust for When {
    fn rust(&self, pad: usize) -> String {
        match self {
            When::Error(code) => format!("WhenRow::Error({})", code.rust(pad)),
            When::Status(s) => format!("WhenRow::Status({})", s.rust(pad)),
            other => format!("WhenRow::Plain(When::{other:?})"),
        }
    }
}
impl Rust for Answer {
    fn rust(&self, pad: usize) -> String {
        match self {
            Answer::Literal(Literal { status, body }) => {
                format!("AnswerRow::Literal({status}, {})", body.rust(pad))
            }
            Answer::Charge(Charge { status }) => format!("AnswerRow::Charge({status})"),
            other => format!("AnswerRow::Plain(Answer::{other:?})"),
        }
    }
}

/// The whole generated file: one function a design, and a lookup by name
/// for the strategies' designs and another for the exercises, which the
/// reader's page never runs and so never links.
fn source() -> String {
    let mut out = String::from(
        "//! Generated from `builtin/*.json` and `exercise/*.json` by\n\
         //! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that\n\
         //! test with `LOUSA_BLESS=1`.\n\n\
         use super::rows::*;\n\
         use super::*;\n",
    );
    for (lookup, doc, files) in [
        (
            "design",
            "The built-in design written in the file named `name`.",
            &ALL[..],
        ),
        (
            "exercise",
            "The exercise written in the file named `name`.",
            &EXERCISES[..],
        ),
    ] {
        out += &format!(
            "\n/// {doc}\npub(super) fn {lookup}(name: &str) -> Option<Design> {{\n    let row = match name {{\n"
        );
        for (name, _) in files {
            out += &format!("        {name:?} => &{},\n", ident(name));
        }
        out += "        _ => return None,\n    };\n    Some(row.design())\n}\n";
    }
    for (name, json) in ALL.iter().chain(&EXERCISES) {
        let design = Design::parse(json).expect("a built-in design is valid JSON");
        assert_eq!(&design.name, name, "a design's file is named after it");
        out += &format!(
            "\nstatic {}: DesignRow = {};\n",
            ident(name),
            design.rust(0)
        );
    }
    out
}

fn ident(name: &str) -> String {
    name.replace('-', "_").to_uppercase()
}

#[test]
fn the_generated_designs_are_those_of_the_json_files() {
    let fresh = source();
    if std::env::var_os("LOUSA_BLESS").is_some() {
        std::fs::write(GENERATED, &fresh).expect("write the generated designs");
    }
    let committed = std::fs::read_to_string(GENERATED).unwrap_or_default();
    assert!(
        committed == fresh,
        "{GENERATED} is stale: run `LOUSA_BLESS=1 cargo test -p lousa-core --test \
         builtin_designs_source`"
    );
}

#[test]
fn each_generated_design_equals_its_file() {
    for (name, json) in ALL.iter().chain(&EXERCISES) {
        let from_file = Design::parse(json).expect("valid JSON");
        let program = lousa_core::design::builtin::named(name).expect("a built-in");
        assert_eq!(program.design(), &from_file, "{name}");
    }
}
