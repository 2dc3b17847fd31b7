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

use crate::data::Dataset;
/// The endpoint entry lives with the endpoints (`run::provider`), the settings and the added
/// raters with the workbench that reads them (`study::workbench::settings`): the bundle sits
/// on top of the studies and only gathers them.
pub use crate::run::{EndpointEntry, public_url};
pub use crate::study::workbench::settings::{ExtraRater, IntervalSettingError, Settings};

use crate::run::Endpoint;
use crate::study::coeval::Snapshot as CoEvalSnapshot;
use crate::study::meta::Snapshot as MetaSnapshot;
use crate::study::workbench::results::{self, JudgedRun};
use crate::study::workbench::revise::ReviewSnapshot;
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
