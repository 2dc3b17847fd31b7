//! What a workbench bundle carries beside its runs: how the results were being viewed
//! (`Settings`: statistic, level, intervals, juries, ensembles, the audit's and the validity
//! panel's settings) and the raters added in Concord (`ExtraRater`). The bundle re-exports them.

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, RatingItem};

use super::results::{self, Granularity, Scored, Statistic};

/// A rater added in Concord ("Rate it yourself").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtraRater {
    pub name: String,
    pub attribute: String,
    /// (item id, score) in rating order.
    pub scores: Vec<(String, f64)>,
}

impl ExtraRater {
    /// The scores aligned with `dataset`'s items.
    pub fn aligned(&self, dataset: &Dataset) -> Vec<Option<f64>> {
        let mut out = vec![None; dataset.items.len()];
        for (id, score) in &self.scores {
            if let Some(i) = dataset.items.iter().position(|it: &RatingItem| it.id == *id) {
                out[i] = Some(*score);
            }
        }
        out
    }
}

/// How the results were being viewed, so the importer sees the same table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub baseline: Option<String>,
    /// Seed 002's layout: r at dataset level and τ at document level under each attribute
    /// ([`results::PAPER_COLUMNS`]); `statistic` and `level` are then not used. Absent in
    /// bundles written before it existed, which showed one column (`false`).
    #[serde(default)]
    pub paper_layout: bool,
    pub statistic: Statistic,
    pub level: Granularity,
    pub resamples: usize,
    pub seed: u64,
    pub confidence: f64,
    /// Bootstrap intervals are shown (and so exported) under these settings. Absent in bundles
    /// written before it existed (`false`).
    #[serde(default)]
    pub intervals: bool,
    /// The judge audit keeps the human labels of only this many items per attribute (a
    /// seeded choice) and treats the rest as unlabelled; `None`: every label. Absent in
    /// bundles written before the audit existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_labelled: Option<usize>,
    /// The Results table has the mean and median juries of each attribute's methods as rows
    /// ([`results::with_juries`]). Absent in bundles written before juries existed (`false`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub juries: bool,
    /// Ensembles shown as rows of the Results table: each the methods whose item scores are
    /// averaged ([`results::with_ensembles`]). Absent in bundles written before they existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ensembles: Vec<Vec<String>>,
    /// The systems the judges' own model family wrote: the audit's self-preference rows
    /// compare the judges' errors on them with those on the other systems. Empty: not said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audit_own_systems: Vec<String>,
    /// The validity panel's settings (alt-test, selective trust, planner); absent until the
    /// panel was used (then [`crate::study::validity::settings::Settings::default`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::study::validity::settings::Settings>,
}

impl Settings {
    /// The (statistic, level) columns shown under each attribute.
    pub fn columns(&self) -> Vec<results::Column> {
        if self.paper_layout {
            results::PAPER_COLUMNS.to_vec()
        } else {
            vec![(self.statistic, self.level)]
        }
    }

    /// The most bootstrap resamples a bundle may ask for (the app offers 1,000; a bundle from
    /// an untrusted address must not be able to freeze the page with 10¹² of them).
    pub const MAX_RESAMPLES: usize = 100_000;

    /// Brings settings read from a file within what the app can compute: resamples in
    /// 1..=[`Settings::MAX_RESAMPLES`], a confidence level strictly between 0 and 1. Returns a
    /// note for each value changed.
    pub fn bound(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        let default = Settings::default();
        if self.resamples == 0 || self.resamples > Settings::MAX_RESAMPLES {
            let to = self.resamples.clamp(1, Settings::MAX_RESAMPLES);
            notes.push(format!(
                "the bundle asks for {} bootstrap resamples; using {to} (allowed: 1 to {})",
                self.resamples,
                Settings::MAX_RESAMPLES
            ));
            self.resamples = to;
        }
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            notes.push(format!(
                "the bundle's confidence level {} is not between 0 and 1; using {}",
                self.confidence, default.confidence
            ));
            self.confidence = default.confidence;
        }
        notes
    }
}

/// What a user typed into one of the intervals' settings (the Results screen's Resamples,
/// Confidence and Seed), and why it was refused; the setting keeps its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntervalSettingError {
    #[error("Resamples: `{0}` is not a whole number from 100 to {max}", max = crate::words::int(Settings::MAX_RESAMPLES))]
    Resamples(String),
    #[error("Confidence: `{0}` is not a percentage between 50 and 99.9 (e.g. 95)")]
    Confidence(String),
    #[error("Seed: `{0}` is not a whole number from 0 upwards")]
    Seed(String),
}

impl Settings {
    /// The fewest resamples the Results screen takes: fewer make the interval's ends noise.
    pub const MIN_RESAMPLES: usize = 100;

    /// Sets the resamples from text (`2000`, `2,000`).
    pub fn set_resamples(&mut self, text: &str) -> Result<(), IntervalSettingError> {
        let n = text.trim().replace([',', '_', ' '], "").parse::<usize>().ok();
        match n.filter(|n| (Settings::MIN_RESAMPLES..=Settings::MAX_RESAMPLES).contains(n)) {
            Some(n) => {
                self.resamples = n;
                Ok(())
            }
            None => Err(IntervalSettingError::Resamples(text.trim().to_owned())),
        }
    }

    /// Sets the confidence level from a percentage (`95`, `99.5`, `90 %`).
    pub fn set_confidence(&mut self, text: &str) -> Result<(), IntervalSettingError> {
        let percent = text.trim().trim_end_matches('%').trim().parse::<f64>().ok();
        match percent.filter(|p| (50.0..=99.9).contains(p)) {
            Some(p) => {
                self.confidence = p / 100.0;
                Ok(())
            }
            None => Err(IntervalSettingError::Confidence(text.trim().to_owned())),
        }
    }

    /// Sets the seed of every resampling from text.
    pub fn set_seed(&mut self, text: &str) -> Result<(), IntervalSettingError> {
        match text.trim().parse::<u64>() {
            Ok(seed) => {
                self.seed = seed;
                Ok(())
            }
            Err(_) => Err(IntervalSettingError::Seed(text.trim().to_owned())),
        }
    }

    /// The confidence level as the Confidence field shows it: `95`, `99.5`.
    pub fn confidence_percent(&self) -> String {
        let p = (self.confidence * 1000.0).round() / 10.0;
        if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") }
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            baseline: None,
            paper_layout: true,
            statistic: Statistic::Pearson,
            level: Granularity::Dataset,
            resamples: 1000,
            seed: 0,
            confidence: 0.95,
            intervals: false,
            audit_labelled: None,
            juries: false,
            ensembles: Vec::new(),
            audit_own_systems: Vec::new(),
            validity: None,
        }
    }
}

/// `scored` with the combinations `settings` asks for: its ensembles, then (when shown) the
/// juries — of the judges only.
pub fn combined(scored: &Scored, settings: &Settings) -> Scored {
    let with = results::with_ensembles(scored, &settings.ensembles);
    if settings.juries { results::with_juries(&with) } else { with }
}
