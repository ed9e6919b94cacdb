//! What the CLI's end-to-end tests share: the `lousa` binary run with
//! arguments, and its output as text.

use std::process::{Command, Output};

pub fn lousa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lousa"))
        .args(args)
        .output()
        .expect("the lousa binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}
