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
        format!("{self:?}.into()")
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
            return "vec![]".into();
        }
        let items: Vec<_> = self.iter().map(|v| v.rust(pad + 4)).collect();
        let line = items.join(", ");
        if pad + line.len() + 8 <= LINE && !line.contains('\n') {
            return format!("vec![{line}]");
        }
        let inner = " ".repeat(pad + 4);
        let mut out = "vec![\n".to_string();
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
            "Design",
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
        record("TableUse", pad, &[("name", name), ("unique", unique)])
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
            "Step",
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
            Do::Begin => "Do::Begin".into(),
            Do::Commit => "Do::Commit".into(),
            Do::Rollback => "Do::Rollback".into(),
            Do::Capture => "Do::Capture".into(),
            Do::Publish => "Do::Publish".into(),
            Do::Select(x) => format!("Do::Select({})", x.rust(pad)),
            Do::Insert(x) => format!("Do::Insert({})", x.rust(pad)),
            Do::Update(x) => format!("Do::Update({})", x.rust(pad)),
            Do::Delete(x) => format!("Do::Delete({})", x.rust(pad)),
            Do::Retake(x) => format!("Do::Retake({})", x.rust(pad)),
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
            "Select",
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
            "Insert",
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
            "Update",
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
        record("Delete", pad, &[("table", &self.table)])
    }
}
impl Rust for Retake {
    fn rust(&self, pad: usize) -> String {
        let Retake { table, from } = self;
        record("Retake", pad, &[("table", table), ("from", from)])
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
            "Branch",
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
            When::Error(code) => format!("When::Error({})", code.rust(pad)),
            When::Status(s) => format!("When::Status({})", s.rust(pad)),
            other => format!("When::{other:?}"),
        }
    }
}
impl Rust for Answer {
    fn rust(&self, pad: usize) -> String {
        match self {
            Answer::Literal(Literal { status, body }) => format!(
                "Answer::Literal({})",
                record("Literal", pad, &[("status", status), ("body", body)])
            ),
            Answer::Charge(Charge { status }) => format!(
                "Answer::Charge({})",
                record("Charge", pad, &[("status", status)])
            ),
            other => format!("Answer::{other:?}"),
        }
    }
}

/// The whole generated file: one function a design, and a lookup by name.
fn source() -> String {
    let mut out = String::from(
        "//! Generated from `builtin/*.json` and `exercise/*.json` by\n\
         //! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that\n\
         //! test with `LOUSA_BLESS=1`.\n\n\
         use super::*;\n\n\
         /// The built-in design or exercise written in the file named `name`.\n\
         pub(super) fn design(name: &str) -> Option<Design> {\n    Some(match name {\n",
    );
    let files: Vec<_> = ALL.iter().chain(&EXERCISES).collect();
    for (name, _) in &files {
        out += &format!("        {name:?} => {}(),\n", ident(name));
    }
    out += "        _ => return None,\n    })\n}\n";
    for (name, json) in &files {
        let design = Design::parse(json).expect("a built-in design is valid JSON");
        assert_eq!(&design.name, name, "a design's file is named after it");
        out += &format!(
            "\nfn {}() -> Design {{\n    {}\n}}\n",
            ident(name),
            design.rust(4)
        );
    }
    out
}

fn ident(name: &str) -> String {
    name.replace('-', "_")
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
