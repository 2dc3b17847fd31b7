//! The built-in example dataset, written by the Concord authors, that the app opens on.
//!
//! Four short news articles, each summarised by three systems, with two human raters scoring
//! coherence and fluency on 1–5. It is small enough to read in a minute and large enough for
//! document-level correlations to be defined.

/// The example as CSV: one row per (document, system) output, one column per rater × attribute.
/// The file is the site's `demo/example.csv`, which is also served for loading by URL.
pub const EXAMPLE_CSV: &str = include_str!("../../../demo/example.csv");

/// The file name shown for the example in the UI and in bundles.
pub const EXAMPLE_NAME: &str = "concord-example.csv";
