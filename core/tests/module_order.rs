//! The core's modules import in one direction only (ARCHITECTURE.md, "the
//! module order"): a module names only modules before it in [`ORDER`], so
//! there is no import cycle and a newcomer can read the core bottom up.
//! This test reads every `crate::` path in `core/src` (`use` lines and
//! inline paths alike, test code included) and fails on one that points up
//! the order, or on a top-level module reaching another through `super::`.
//! It also holds every file to at most 800 lines.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

/// The top-level modules of lousa-core, lowest first.
const ORDER: &[&str] = &[
    "text",
    "query",
    "fingerprint",
    "part",
    "permutation",
    "choice",
    "store",
    "json",
    "design",
    "scenario",
    "builtins",
    "link",
    "at_limits",
    "trace",
    "handler",
    "world",
    "property",
    "run",
    "scheduling",
    "narrate",
    "fork",
    "story",
    "predict",
    "view",
    "export",
    "swarm",
    "sweep",
    "explore",
    "fault_swarm",
    "lesson",
];

/// Items lib.rs re-exports at the crate root, with the module that defines
/// them, so that `crate::Strategy` counts as an import of `scenario`.
const ROOT_REEXPORTS: &[(&str, &str)] = &[
    ("Chooser", "choice"),
    ("RngChooser", "choice"),
    ("Schedule", "choice"),
    ("ScheduleChooser", "choice"),
    ("Run", "run"),
    ("run", "run"),
    ("run_with", "run"),
    ("Scenario", "scenario"),
    ("ScenarioError", "scenario"),
    ("Strategy", "scenario"),
    ("World", "world"),
];

const MAX_LINES: usize = 800;

fn rank(module: &str) -> Option<usize> {
    ORDER.iter().position(|m| *m == module)
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("core/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to: `world/client.rs` is `world`.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).expect("under src");
    let first = rel.components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// The module each `crate::name` on `line` refers to, comments excluded.
fn imports(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let tail = &rest[at + "crate::".len()..];
        let name: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if tail.starts_with('{') {
            // `use crate::{a, b::c}`: every name before a `::` or `,` at the top.
            let group = &tail[1..tail.find('}').unwrap_or(tail.len())];
            for part in group.split(',') {
                let head = part.trim().split("::").next().unwrap_or("").trim();
                if !head.is_empty() {
                    found.push(head.to_string());
                }
            }
        } else if !name.is_empty() {
            found.push(name);
        }
        rest = tail;
    }
    found
        .into_iter()
        .map(|n| {
            ROOT_REEXPORTS
                .iter()
                .find(|(item, _)| *item == n)
                .map_or(n, |(_, module)| module.to_string())
        })
        .collect()
}

#[test]
fn every_import_follows_the_module_order_and_every_file_is_short() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).expect("readable");
        let shown = file.strip_prefix(&src).unwrap().display();
        if text.lines().count() > MAX_LINES {
            problems.push(format!(
                "{shown}: {} lines, over {MAX_LINES}",
                text.lines().count()
            ));
        }
        if module == "lib" {
            continue; // the root declares and re-exports every module
        }
        let Some(own) = rank(&module) else {
            problems.push(format!("{shown}: module `{module}` is not in ORDER"));
            continue;
        };
        // A top-level module's `super` is the crate root: reaching another
        // module that way would hide the import from this check.
        let rel = file.strip_prefix(&src).unwrap();
        let top_level = rel.components().count() == 1
            || rel.ends_with("mod.rs") && rel.components().count() == 2;
        for (n, line) in text.lines().enumerate() {
            if top_level && line.starts_with("use super::") {
                problems.push(format!(
                    "{shown}:{}: a top-level module names another through `super::`; use `crate::`",
                    n + 1
                ));
            }
            for target in imports(line) {
                match rank(&target) {
                    Some(r) if r > own => problems.push(format!(
                        "{shown}:{}: `{module}` imports `{target}`, which comes after it: {}",
                        n + 1,
                        line.trim()
                    )),
                    Some(_) => {}
                    None => problems.push(format!(
                        "{shown}:{}: `crate::{target}` is neither a module in ORDER nor a known re-export",
                        n + 1
                    )),
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "module order broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_order_names_every_module_lib_declares() {
    let lib = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs"))
        .expect("lib.rs");
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").unwrap_or(l);
            l.strip_prefix("mod ")?.strip_suffix(';')
        })
        .collect();
    let mut sorted_declared = declared.clone();
    sorted_declared.sort_unstable();
    let mut sorted_order = ORDER.to_vec();
    sorted_order.sort_unstable();
    assert_eq!(sorted_declared, sorted_order);
}

#[test]
fn an_upward_import_is_seen() {
    // The checker itself: a world module importing the explorer is caught,
    // through a root re-export and inside a brace group alike.
    assert_eq!(imports("use crate::explore::Report;"), ["explore"]);
    assert_eq!(imports("    let r = crate::run(&s);"), ["run"]);
    assert_eq!(
        imports("use crate::{Strategy, store::Value};"),
        ["scenario", "store"]
    );
    assert_eq!(imports("// use crate::explore;"), Vec::<String>::new());
    assert!(rank("world") < rank("explore"));
}
