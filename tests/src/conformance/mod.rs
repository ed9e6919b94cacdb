//! The conformance suite's specs. The runner itself (the model and the
//! server side, [`run_case`], the records) is lousa-pg's, which `lousa
//! replay` uses too, so there is one runner; this module adds what only the
//! suite needs: reading the spec files.

pub mod spec_file;

pub use lousa_pg::{
    CaseReport, Outcome, Run, Side, Spec, StepOutput, StepResult, model, record, run_case,
    run_permutation, server, side_by_side, spec_from_store_trace,
};
