//! The bundle: one JSON file that reproduces every screen's results with no key and no
//! network — the rating workbench, and (from version 2) the CoEval study and the
//! meta-evaluation workspace.
//!
//! # Schema (version 2; version 1 is the same without `coeval` and `meta`)
//!
//! ```text
//! {
//!   "schema": "concord-bundle",          fixed
//!   "version": 2,                         readers refuse versions newer than theirs
//!   "created": "2026-11-22T14:00:00Z",    export time (given by the app; the core reads no clock)
//!   "generator": "Concord 0.1.0",
//!   "dataset": {
//!     "name", "format",                   as loaded
//!     "sha256",                           of the embedded dataset's compact JSON (integrity)
//!     "items",                            item count
//!     "embedded": { Dataset }             items, attributes, every human rating per rater
//!   },
//!   "study": { "attributes", "methods": [ { name, mode, auto_cot, persona, sampling,
//!              policy, templates } ],
//!              "steps": { attribute: { "kind": "released" } | { "kind": "own", text }
//!                         | { "kind": "judge", endpoint, method, request, answer, steps } }
//!                       (optional: auto-CoT's steps per attribute) } | null,
//!   "endpoint": { "provider", "base_url", "model" } | null,   never a key; the URL loses
//!                                                             user info, query and fragment
//!   "runs": [ { "method", "attribute", "policy", "origin",
//!               "run": { name, attribute, records: [ { key, prompt, responses: [raw text…],
//!                         parsed: [[attribute, mean of parsed samples]] } ] } } ],
//!   "raters": [ { "name", "attribute", "scores": [[item id, score]…] } ],   Rate it yourself
//!   "settings": { "baseline", "paper_layout" (optional, default false), "statistic", "level",
//!                 "resamples", "seed", "confidence", "intervals" (optional, default false) },
//!   "notes": [ "…" ],                     run log lines worth keeping (dropped parameters…)
//!   "coeval": { CoEval snapshot } | absent   the CoEval study: setup, criteria, instances,
//!                                             the LLM's raw answers, every annotator's events
//!                                             and imported files (`study::coeval::snapshot`)
//!   "meta": { meta snapshot } | absent       the meta-evaluation workspace: controls, the
//!                                             released files by name and SHA-256, each live
//!                                             run's spec and raw answers (`study::meta::snapshot`)
//!   "review": { "reviewer", "order", "seed",   the judge runs' human review: every
//!               "files": [ { "format": "concord-review", "version", "reviewer",
//!                            "events": [ accept | change | flag (note) | timer | undo ] } ],
//!               "split": { "attribute", "seed", "revision_share", "revision": [ids],
//!                          "held_out": [ids] } (optional),
//!               "meta_template" (optional),
//!               "revisions": [ { "number", "run", "attribute", "policy", "meta_prompt",
//!                                "answer", "prompt_before", "prompt_after",
//!                                "answers": [[item id, [raw text…]]], "cost_usd",
//!                                "split": the split it was tested under } ] }
//!              | absent                      (`study::workbench::review`, `revise`)
//! }
//! ```
//!
//! Importing recomputes every number from the raw responses; the stored `parsed` means are
//! there for readers of the file, not trusted by Concord.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::data::{Dataset, RatingItem};
use crate::run::Endpoint;

use crate::study::coeval::Snapshot as CoEvalSnapshot;
use crate::study::meta::Snapshot as MetaSnapshot;
use crate::study::workbench::results::{self, Granularity, JudgedRun, Statistic};
use crate::study::workbench::review::ReviewSnapshot;
use crate::study::workbench::study::Study;

/// The value of `schema`.
pub const SCHEMA: &str = "concord-bundle";
/// The version this build writes and the newest it reads. Version 1 (the workbench only) is
/// read as version 2 without the other screens.
pub const VERSION: u32 = 2;

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    pub schema: String,
    pub version: u32,
    pub created: String,
    pub generator: String,
    pub dataset: DatasetEntry,
    pub study: Option<Study>,
    pub endpoint: Option<EndpointEntry>,
    pub runs: Vec<JudgedRun>,
    #[serde(default)]
    pub raters: Vec<ExtraRater>,
    pub settings: Settings,
    #[serde(default)]
    pub notes: Vec<String>,
    /// The CoEval screen's study (version 2): its setup, the LLM's raw answers, every
    /// annotator's event log and imported files. Absent when CoEval was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coeval: Option<CoEvalSnapshot>,
    /// The meta-evaluation workspace (version 2): its controls, the released files it had
    /// loaded by name and SHA-256 (not their bytes: opening asks for the same files again),
    /// and each live run's settings, inputs and raw answers. Absent when it was empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<MetaSnapshot>,
    /// Humans' corrections of the judge runs (Results' "Review and correct"): every reviewer's
    /// event log — decisions, notes, time per item — with the walk's order and seed. Absent
    /// when nobody reviewed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewSnapshot>,
    /// What reading the file changed (settings brought within bounds): said to the user who
    /// opens it, not written back.
    #[serde(skip)]
    pub changed_on_import: Vec<String>,
}

/// The dataset, embedded so the bundle stands alone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetEntry {
    pub name: String,
    pub format: String,
    pub sha256: String,
    pub items: usize,
    pub embedded: Dataset,
}

/// Where the responses came from (no key, ever).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointEntry {
    pub provider: String,
    pub base_url: String,
    pub model: String,
}

impl EndpointEntry {
    pub fn from_endpoint(endpoint: &Endpoint) -> EndpointEntry {
        EndpointEntry {
            provider: endpoint.provider.slug().to_owned(),
            base_url: public_url(&endpoint.base_url),
            model: endpoint.model.clone(),
        }
    }

    /// The endpoint the runs were made with (for pricing them); `None` for a provider this
    /// Concord does not know.
    pub fn to_endpoint(&self) -> Option<Endpoint> {
        Some(Endpoint {
            provider: crate::run::ProviderId::from_slug(&self.provider)?,
            base_url: self.base_url.clone(),
            model: self.model.clone(),
        })
    }
}

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
    /// panel was used (then [`crate::study::validity::Settings::default`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validity: Option<crate::study::validity::Settings>,
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

/// Why a file is not a usable bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BundleError {
    /// Not JSON, or JSON of another shape; `line`/`column` from the parser.
    Malformed { line: usize, column: usize, message: String },
    /// JSON, but not a Concord bundle.
    NotABundle,
    /// Written by a newer Concord.
    TooNew { version: u32 },
    /// The embedded dataset does not match its recorded hash (edited or damaged).
    HashMismatch { expected: String, actual: String },
}

impl fmt::Display for BundleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BundleError::Malformed { line, column, message } => {
                write!(f, "not a valid bundle (line {line}, column {column}): {message}")
            }
            BundleError::NotABundle => f.write_str(
                "this JSON file is not a Concord bundle (no \"schema\": \"concord-bundle\")",
            ),
            BundleError::TooNew { version } => write!(
                f,
                "this bundle has version {version}; this Concord reads up to version {VERSION} — open it with a newer Concord"
            ),
            BundleError::HashMismatch { expected, actual } => write!(
                f,
                "the embedded dataset was changed after export (sha256 {actual}, the bundle says {expected})"
            ),
        }
    }
}

impl std::error::Error for BundleError {}

/// The SHA-256 (lower-case hex) of a dataset's compact JSON.
pub fn dataset_hash(dataset: &Dataset) -> String {
    let json = serde_json::to_string(dataset).unwrap_or_default();
    Sha256::digest(json.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A base URL without user info, query or fragment: what may be written to a file.
pub fn public_url(url: &str) -> String {
    let cut = url.find(['?', '#']).map_or(url, |i| &url[..i]);
    match cut.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => cut.to_owned(),
    }
}

impl Bundle {
    /// A bundle of `runs` over `dataset`. Fills each record's `parsed` mean for readers.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dataset: &Dataset,
        format: &str,
        study: Option<Study>,
        endpoint: Option<&Endpoint>,
        runs: Vec<JudgedRun>,
        raters: Vec<ExtraRater>,
        settings: Settings,
        created: String,
    ) -> Bundle {
        let runs = runs
            .into_iter()
            .map(|mut r| {
                if let Some(study) = &study {
                    results::fill_study_prompts(dataset, study, &mut r);
                }
                with_parsed(dataset, r)
            })
            .collect();
        Bundle {
            schema: SCHEMA.to_owned(),
            version: VERSION,
            created,
            generator: format!("Concord {}", env!("CARGO_PKG_VERSION")),
            dataset: DatasetEntry {
                name: dataset.name.clone(),
                format: format.to_owned(),
                sha256: dataset_hash(dataset),
                items: dataset.items.len(),
                embedded: dataset.clone(),
            },
            study,
            endpoint: endpoint.map(EndpointEntry::from_endpoint),
            runs,
            raters,
            settings,
            notes: Vec::new(),
            coeval: None,
            meta: None,
            review: None,
            changed_on_import: Vec::new(),
        }
    }

    /// Pretty JSON (bundles are meant to be read and diffed).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and checks a bundle: schema, version, the dataset's hash.
    pub fn from_json(text: &str) -> Result<Bundle, BundleError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(malformed)?;
        if value.get("schema").and_then(|s| s.as_str()) != Some(SCHEMA) {
            return Err(BundleError::NotABundle);
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version > u64::from(VERSION) {
            return Err(BundleError::TooNew { version: version.min(u64::from(u32::MAX)) as u32 });
        }
        let mut bundle: Bundle = serde_json::from_value(value).map_err(malformed)?;
        let actual = dataset_hash(&bundle.dataset.embedded);
        if actual != bundle.dataset.sha256 {
            return Err(BundleError::HashMismatch { expected: bundle.dataset.sha256, actual });
        }
        bundle.changed_on_import = bundle.settings.bound();
        Ok(bundle)
    }
}

fn malformed(e: serde_json::Error) -> BundleError {
    BundleError::Malformed { line: e.line(), column: e.column(), message: e.to_string() }
}

fn with_parsed(dataset: &Dataset, mut run: JudgedRun) -> JudgedRun {
    let scale = dataset
        .attribute_index(&run.attribute)
        .and_then(|i| dataset.attributes.get(i))
        .map(|a| (a.scale.min, a.scale.max));
    for record in &mut run.run.records {
        if record.responses.is_empty() {
            continue;
        }
        let read = crate::judge::aggregate::read_samples(
            &record.responses,
            &record.logprobs,
            run.policy,
            run.weighting,
            scale,
        );
        let score = crate::judge::aggregate::ItemScore::from_samples(&read.samples);
        record.parsed = score.mean.map(|m| vec![(run.attribute.clone(), m)]).unwrap_or_default();
    }
    run
}
