//! Judge validity (issue 38, STATS_SPEC §16): can a judge replace the annotators, and on which
//! items can it be trusted — as tables and figures of one [`crate::report::Report`], the same
//! for the app's Results panel and `concord alt-test` / `concord trust` / `concord report`.
//!
//! ```text
//! Dataset (items with several raters each) ─┐
//!                                           ├─► inputs::raters / inputs::judge_items
//! JudgedRun (any judge run of the workbench,┘        │
//!   or LLMs imported from an AltTest folder)          ▼
//!                        report::{alt_test, trust, cascade, planner, stability}
//!                                         │
//!                                         ▼
//!                     Report { tables, figures } (report::validity_report: all of them)
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`inputs`] | the dataset's raters as an annotators × items matrix; a judge run's per-item value, verdict, confidence (samples' majority share or the rating token's probability) and samples |
//! | [`report`] | the tables: the alt-test per judge (summary and per annotator), selective trust (calibrated and held out) with the coverage–agreement curve, the cascade, the label planner, stability |
//!
//! Settings travel in the bundle ([`crate::bundle::Settings::validity`]).

pub mod error;
pub mod inputs;
pub mod report;
pub mod settings;

/// The panel's settings name the annotators' kind and the scoring function: the screen picks
/// them here, never from the statistics.
pub use crate::stats::{EpsilonPreset, Scoring};

pub use error::ValidityError;
pub use inputs::{ConfidenceSource, JudgeItems, Raters, judge_items, raters, with_added_raters};
pub use report::{
    ALT_TEST_TABLE, CASCADE_TABLE, JudgeCost, MEANINGFUL_ANNOTATORS, MEANINGFUL_INSTANCES,
    PLANNER_TABLE, PanelBuilder, Parts, STABILITY_TABLE, SUFFICIENT_INSTANCES, TRUST_TABLE,
    alt_test_report, annotator_table_id, bundle_costs, bundle_report, cascade_plan, cascade_report,
    curve_figure_id, is_judge, judge_costs, planner_report, run_alt_test, stability_report,
    trust_report, validity_report,
};
pub use settings::{Settings, StrataBy};
