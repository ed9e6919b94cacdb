//! Integration, property and conformance tests of Lousa.

pub mod conformance;
