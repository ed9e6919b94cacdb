//! The built-in designs' JSON files are their source; the product runs them
//! as static rows generated from those files (`src/design/builtin_values/`),
//! so a page that runs designs links neither a JSON reader nor one file.
//! Beside each design that a strategy runs are the rows of its program, as
//! `check` compiles it, so the page links no check either. This test fails
//! when the generated files are stale; run it with `LOUSA_BLESS=1` to write
//! them again.

use lousa_core::design::builtin::{self, ALL, EXERCISES, STRATEGIES};
use lousa_core::design::{
    Answer, Branch, By, Charge, Claims, Delete, Design, Do, Insert, Jump, Literal, Program, Retake,
    Select, Serves, Shape, Site, Source, Step, TableUse, Update, When, check,
};
use lousa_core::store::Isolation;
use std::borrow::Cow;

const GENERATED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/design/builtin_values");

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

impl Rust for Cow<'static, str> {
    fn rust(&self, _: usize) -> String {
        format!("{:?}", &**self)
    }
}
impl Rust for Source {
    fn rust(&self, _: usize) -> String {
        format!("Source::{self:?}")
    }
}
impl Rust for (Cow<'static, str>, Source) {
    fn rust(&self, pad: usize) -> String {
        format!("({}, {})", self.0.rust(pad), self.1.rust(pad))
    }
}
impl Rust for Program {
    fn rust(&self, pad: usize) -> String {
        let sites: Vec<Site> = (0..=self.respond()).map(|i| self.site(i).clone()).collect();
        record(
            "ProgramRow",
            pad,
            &[
                ("sites", &sites),
                ("captures_once", &self.captures_once()),
                ("stores_headers", &self.stores_headers()),
            ],
        )
    }
}
impl Rust for Site {
    fn rust(&self, pad: usize) -> String {
        let Site {
            shown,
            shape,
            columns,
            branches,
            next,
            in_tx,
            commits_claim,
            needs_now,
            needs_fingerprint,
            loop_slot,
        } = self;
        record(
            "SiteRow",
            pad,
            &[
                ("shown", shown),
                ("shape", shape),
                ("columns", columns),
                ("branches", branches),
                ("next", next),
                ("in_tx", in_tx),
                ("commits_claim", commits_claim),
                ("needs_now", needs_now),
                ("needs_fingerprint", needs_fingerprint),
                ("loop_slot", loop_slot),
            ],
        )
    }
}
impl Rust for Jump {
    fn rust(&self, pad: usize) -> String {
        let Jump {
            when,
            answer,
            to,
            again,
        } = self;
        record(
            "JumpRow",
            pad,
            &[
                ("when", when),
                ("answer", answer),
                ("to", to),
                ("again", again),
            ],
        )
    }
}
impl Rust for Shape {
    fn rust(&self, pad: usize) -> String {
        match self {
            Shape::Begin => "ShapeRow::Begin".into(),
            Shape::Commit => "ShapeRow::Commit".into(),
            Shape::Rollback => "ShapeRow::Rollback".into(),
            Shape::Capture => "ShapeRow::Capture".into(),
            Shape::Publish => "ShapeRow::Publish".into(),
            Shape::Respond => "ShapeRow::Respond".into(),
            Shape::Select {
                table,
                filter,
                for_update,
            } => record(
                "ShapeRow::Select",
                pad,
                &[
                    ("table", table),
                    ("filter", filter),
                    ("for_update", for_update),
                ],
            ),
            Shape::Insert {
                table,
                values,
                on_conflict,
            } => record(
                "ShapeRow::Insert",
                pad,
                &[
                    ("table", table),
                    ("values", values),
                    ("on_conflict", on_conflict),
                ],
            ),
            Shape::Update {
                table,
                set,
                fenced,
                local,
            } => record(
                "ShapeRow::Update",
                pad,
                &[
                    ("table", table),
                    ("set", set),
                    ("fenced", fenced),
                    ("local", local),
                ],
            ),
            Shape::Debit { table, versioned } => record(
                "ShapeRow::Debit",
                pad,
                &[("table", table), ("versioned", versioned)],
            ),
            Shape::Delete { table } => record("ShapeRow::Delete", pad, &[("table", table)]),
            Shape::Retake { table, from } => {
                record("ShapeRow::Retake", pad, &[("table", table), ("from", from)])
            }
        }
    }
}

const HEADER: &str = "//! Generated from `builtin/*.json` and `exercise/*.json` by\n\
                      //! `core/tests/builtin_designs_source.rs`: edit the JSON, then run that\n\
                      //! test with `LOUSA_BLESS=1`.\n";

/// The generated files, by name: `mod.rs`, with a lookup by name for the
/// strategies' designs and another for the exercises (which the reader's
/// page never runs and so never links), and a file a design.
fn sources() -> Vec<(String, String)> {
    let mut lookup =
        format!("{HEADER}\nuse super::Design;\nuse super::program_rows::ProgramRow;\n\n");
    let files: Vec<&str> = ALL.iter().chain(&EXERCISES).map(|(n, _)| *n).collect();
    let composed = STRATEGIES.iter().filter(|n| !files.contains(n));
    for name in files.iter().chain(composed.clone()) {
        lookup += &format!("#[rustfmt::skip]\nmod {};\n", module(name));
    }
    for (function, doc, files) in [
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
        lookup += &format!(
            "\n/// {doc}\npub(super) fn {function}(name: &str) -> Option<Design> {{\n    let row = match name {{\n"
        );
        for (name, _) in files {
            lookup += &format!("        {name:?} => &{}::DESIGN,\n", module(name));
        }
        lookup += "        _ => return None,\n    };\n    Some(row.design())\n}\n";
    }
    lookup += "\n/// The rows of the program that `check` makes of the strategy's design\n\
               /// named `name`.\npub(super) fn program(name: &str) -> Option<&'static ProgramRow> {\n    \
               Some(match name {\n";
    for name in STRATEGIES {
        lookup += &format!("        {name:?} => &{}::PROGRAM,\n", module(name));
    }
    lookup += "        _ => return None,\n    })\n}\n";
    let mut out = vec![("mod.rs".to_string(), lookup)];
    let program = |name: &str| {
        let design = builtin::design(name).expect("a strategy's design");
        let program = check(design).expect("a built-in design is valid");
        format!(
            "\npub(super) static PROGRAM: ProgramRow = {};\n",
            program.rust(0)
        )
    };
    for (name, json) in ALL.iter().chain(&EXERCISES) {
        let design = Design::parse(json).expect("a built-in design is valid JSON");
        assert_eq!(&design.name, name, "a design's file is named after it");
        let runs = STRATEGIES.contains(name);
        let mut text = format!(
            "{HEADER}\n{}use super::super::rows::*;\nuse super::super::*;\n\n\
             pub(super) static DESIGN: DesignRow = {};\n",
            if runs {
                "use super::super::program_rows::*;\n"
            } else {
                ""
            },
            design.rust(0)
        );
        if runs {
            text += &program(name);
        }
        out.push((format!("{}.rs", module(name)), text));
    }
    for name in composed {
        out.push((
            format!("{}.rs", module(name)),
            format!(
                "{HEADER}//! A variant `balance_variant` composes: its design is not written out.\n\n\
                 use super::super::program_rows::*;\nuse super::super::rows::*;\nuse super::super::*;\n{}",
                program(name)
            ),
        ));
    }
    out
}

fn module(name: &str) -> String {
    name.replace('-', "_")
}

#[test]
fn the_generated_designs_are_those_of_the_json_files() {
    let dir = std::path::Path::new(GENERATED);
    let fresh = sources();
    if std::env::var_os("LOUSA_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).expect("make the generated designs' folder");
        for (file, text) in &fresh {
            std::fs::write(dir.join(file), text).expect("write a generated design");
        }
    }
    let mut committed: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.expect("a file").file_name().to_string_lossy().into())
                .collect()
        })
        .unwrap_or_default();
    committed.sort();
    let mut wanted: Vec<String> = fresh.iter().map(|(f, _)| f.clone()).collect();
    wanted.sort();
    let stale: Vec<_> = fresh
        .iter()
        .filter(|(file, text)| std::fs::read_to_string(dir.join(file)).ok().as_ref() != Some(text))
        .map(|(file, _)| file.as_str())
        .collect();
    assert!(
        committed == wanted && stale.is_empty(),
        "{GENERATED} is stale ({stale:?}; files {committed:?}): run `LOUSA_BLESS=1 cargo test \
         -p lousa-core --test builtin_designs_source`"
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

#[test]
fn each_strategy_compiles_from_rows_to_the_program_its_design_checks_to() {
    for name in STRATEGIES {
        let design = builtin::design(name).expect("a strategy's design");
        let checked = check(design).expect("valid");
        let from_rows = builtin::compiled(name).expect("a strategy's rows");
        assert_eq!(format!("{from_rows:?}"), format!("{checked:?}"), "{name}");
    }
}
