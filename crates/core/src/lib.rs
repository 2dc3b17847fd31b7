//! Concord's pure core: everything that can be computed without a browser or a network.
//!
//! The core never performs I/O. Loaders take bytes and return a model plus diagnostics;
//! judging protocols emit request *values* and consume response *text*; statistics take
//! slices. The web app (`concord-web`) and the CLI (`concord`) are thin shells over it.

pub mod annotation;
pub mod bundle;
pub mod coeval;
pub mod data;
pub mod example;
pub(crate) mod json_lenient;
pub mod judge;
pub mod link;
pub mod meta;
pub mod report;
pub mod run;
pub mod stats;
pub mod study;
pub mod words;
pub mod workspace;
