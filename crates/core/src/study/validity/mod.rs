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

pub mod inputs;
pub mod report;

use serde::{Deserialize, Serialize};

use crate::stats::AltTestOptions;
/// The panel's settings name the annotators' kind and the scoring function: the screen picks
/// them here, never from the statistics.
pub use crate::stats::{EpsilonPreset, Scoring};

pub use inputs::{ConfidenceSource, JudgeItems, Raters, judge_items, raters, with_added_raters};
pub use report::{
    ALT_TEST_TABLE, CASCADE_TABLE, JudgeCost, MEANINGFUL_ANNOTATORS, MEANINGFUL_INSTANCES,
    PLANNER_TABLE, PanelBuilder, Parts, STABILITY_TABLE, SUFFICIENT_INSTANCES, TRUST_TABLE,
    alt_test_report, annotator_table_id, bundle_costs, bundle_report, cascade_plan, cascade_report,
    curve_figure_id, is_judge, judge_costs, planner_report, run_alt_test, stability_report,
    trust_report, validity_report,
};

/// How the strata of the label planner are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum StrataBy {
    /// One stratum per system.
    #[default]
    System,
    /// Three strata by the judge's confidence (terciles, equal confidences kept together).
    Confidence,
}

/// The validity panel's settings (what the bundle keeps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The alt-test's scoring; `None`: accuracy for labels, negative RMSE for scores.
    pub scoring: Option<Scoring>,
    /// ε of the alt-test (the paper's presets: [`EpsilonPreset`]).
    pub epsilon: f64,
    /// The false discovery rate over the annotators.
    pub q: f64,
    pub min_humans: usize,
    pub min_instances: usize,
    /// Selective trust: tolerated disagreement α and risk δ.
    pub alpha: f64,
    pub delta: f64,
    /// A judge agrees with the humans when |judge − human| ≤ tolerance (the human value is the
    /// item's aggregate: majority label or mean score). `None`: 0 for labels, 0.5 for scores.
    pub tolerance: Option<f64>,
    pub confidence_source: ConfidenceSource,
    /// The cascade's judges (method names) in order of cost; empty: the runs' order.
    pub cascade: Vec<String>,
    /// The planner's target half-width; `None`: a tenth of the scale's range.
    pub half_width: Option<f64>,
    pub strata: StrataBy,
    /// The planner's pilot keeps the labels of only this many items (a seeded choice) and
    /// treats the rest as unlabelled; `None`: every label (then items without a human label are
    /// the unlabelled ones).
    pub pilot: Option<usize>,
    /// The seed of the held-out split and the pilot's choice.
    pub seed: u64,
    /// Confidence level of the intervals.
    pub confidence: f64,
}

impl Default for Settings {
    fn default() -> Settings {
        let alt = AltTestOptions::default();
        Settings {
            scoring: None,
            epsilon: alt.epsilon,
            q: alt.q,
            min_humans: alt.min_humans,
            min_instances: alt.min_instances,
            alpha: 0.1,
            delta: 0.1,
            tolerance: None,
            confidence_source: ConfidenceSource::Auto,
            cascade: Vec::new(),
            half_width: None,
            strata: StrataBy::System,
            pilot: None,
            seed: 0,
            confidence: 0.95,
        }
    }
}

impl Settings {
    /// The alt-test's options for an attribute whose values are labels (`categorical`) or
    /// scores.
    pub fn alt_test_options(&self, categorical: bool) -> AltTestOptions {
        AltTestOptions {
            scoring: self.scoring_for(categorical),
            epsilon: self.epsilon,
            q: self.q,
            min_humans: self.min_humans,
            min_instances: self.min_instances,
        }
    }

    /// The scoring used for labels or scores.
    pub fn scoring_for(&self, categorical: bool) -> Scoring {
        self.scoring.unwrap_or(if categorical { Scoring::Accuracy } else { Scoring::NegRmse })
    }

    /// The agreement tolerance for labels or scores.
    pub fn tolerance_for(&self, categorical: bool) -> f64 {
        if categorical { 0.0 } else { self.tolerance.unwrap_or(0.5) }
    }

    /// ε in words: `0.2 (experts)` or `0.12`.
    pub fn epsilon_text(&self) -> String {
        match EpsilonPreset::of(self.epsilon) {
            Some(p) => format!("{} ({})", self.epsilon, p.name()),
            None => self.epsilon.to_string(),
        }
    }
}

/// Why a judge run cannot be measured against the raters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidityError {
    #[error("the dataset has no attribute `{0}`")]
    NoAttribute(String),
    #[error(
        "`{attribute}` has no individual raters (only an aggregate): the alt-test needs each annotator's ratings"
    )]
    NoRaters { attribute: String },
    #[error("run `{run}`: none of its records matches an item of the dataset")]
    NothingJoined { run: String },
    #[error("scoring {scoring} needs numbers, but `{attribute}` has labels: use accuracy")]
    LabelsNeedAccuracy { scoring: &'static str, attribute: String },
    #[error(transparent)]
    AltTest(#[from] crate::stats::AltTestError),
    #[error(transparent)]
    Trust(#[from] crate::stats::TrustError),
}
