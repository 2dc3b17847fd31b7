//! The validity panel's settings: the alt-test's scoring and ε, selective trust's q, α, δ and
//! tolerance, the confidence source, the cascade's order, the planner's half-width, strata and
//! pilot. They travel in the bundle's settings (`workbench::settings::Settings::validity`), so
//! this module sits below the studies that read it and uses nothing above the statistics.

use serde::{Deserialize, Serialize};

use crate::stats::{AltTestOptions, EpsilonPreset, Scoring};

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

/// Where a judge's confidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ConfidenceSource {
    /// Samples when the run has two or more per item, else log-probabilities when it has them.
    #[default]
    Auto,
    /// The share of the judge's samples that give its majority rating.
    Samples,
    /// The probability of the chosen rating's token.
    Logprobs,
}

impl ConfidenceSource {
    /// What the tables say.
    pub fn describe(self) -> &'static str {
        match self {
            ConfidenceSource::Auto => "automatic",
            ConfidenceSource::Samples => "share of samples giving the majority rating",
            ConfidenceSource::Logprobs => "probability of the chosen rating token",
        }
    }

    /// `auto`, `samples`, `logprobs`.
    pub fn name(self) -> &'static str {
        match self {
            ConfidenceSource::Auto => "auto",
            ConfidenceSource::Samples => "samples",
            ConfidenceSource::Logprobs => "logprobs",
        }
    }

    pub fn from_name(name: &str) -> Option<ConfidenceSource> {
        [ConfidenceSource::Auto, ConfidenceSource::Samples, ConfidenceSource::Logprobs]
            .into_iter()
            .find(|c| c.name() == name)
    }
}
