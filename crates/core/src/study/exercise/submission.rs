//! One student's submission: which exercise it answers (its id and SHA-256), the student's
//! name, their ratings per attribute and the time spent on each item. It holds nothing else —
//! no key, no provider setting, nothing of the browser.
//!
//! ```text
//! {
//!   "kind": "concord-submission", "version": 1,
//!   "exercise": { "id", "sha256", "title" },
//!   "student": "Ann", "created", "generator",
//!   "ratings": [ { "name": student, "attribute", "scores": [[item, x]] } ],
//!   "time_ms": [[item, ms]]
//! }
//! ```

use serde::{Deserialize, Serialize};

use crate::bundle::ExtraRater;

use super::file::Exercise;

/// The value of `kind`.
pub const KIND: &str = "concord-submission";
/// The version this build writes and the newest it reads.
pub const VERSION: u32 = 1;

/// The exercise a submission answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExerciseRef {
    pub id: String,
    pub sha256: String,
    pub title: String,
}

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub kind: String,
    pub version: u32,
    pub exercise: ExerciseRef,
    pub student: String,
    pub created: String,
    pub generator: String,
    pub ratings: Vec<ExtraRater>,
    /// Milliseconds spent on each item, in the exercise's item order.
    pub time_ms: Vec<(String, u64)>,
}

/// Why a submission could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SubmissionError {
    #[error(
        "not a valid submission (line {line}, column {column}): {message}; ask the student to export it again"
    )]
    Malformed { line: usize, column: usize, message: String },
    #[error("this JSON file is not a Concord submission (no \"kind\": \"concord-submission\")")]
    NotASubmission,
    #[error(
        "this submission has version {version}; this Concord reads up to version {VERSION} — open it with a newer Concord"
    )]
    TooNew { version: u32 },
    #[error("type your name before exporting: the teacher tells submissions apart by it")]
    NoName,
    #[error("nothing is rated yet: rate at least one item before exporting")]
    NothingRated,
}

impl Submission {
    /// The submission of `student` to `exercise`: the ratings of its attributes and items only
    /// (other raters and attributes are left out), scores in the exercise's item order, and
    /// the time per item (items with no time left out).
    pub fn new(
        exercise: &Exercise,
        student: &str,
        created: String,
        raters: &[ExtraRater],
        time_ms: &[(String, u64)],
    ) -> Result<Submission, SubmissionError> {
        let student = student.trim();
        if student.is_empty() {
            return Err(SubmissionError::NoName);
        }
        let items = &exercise.dataset.embedded.items;
        let ratings: Vec<ExtraRater> = exercise
            .attributes()
            .into_iter()
            .filter_map(|attribute| {
                let rater =
                    raters.iter().find(|r| r.name == student && r.attribute == attribute)?;
                let scores: Vec<(String, f64)> = items
                    .iter()
                    .filter_map(|item| {
                        let (_, s) = rater.scores.iter().rev().find(|(id, _)| *id == item.id)?;
                        Some((item.id.clone(), *s))
                    })
                    .collect();
                (!scores.is_empty()).then(|| ExtraRater {
                    name: student.to_owned(),
                    attribute: attribute.to_owned(),
                    scores,
                })
            })
            .collect();
        if ratings.is_empty() {
            return Err(SubmissionError::NothingRated);
        }
        let time_ms = items
            .iter()
            .filter_map(|item| {
                let ms: u64 = time_ms.iter().filter(|(id, _)| *id == item.id).map(|(_, m)| m).sum();
                (ms > 0).then(|| (item.id.clone(), ms))
            })
            .collect();
        Ok(Submission {
            kind: KIND.to_owned(),
            version: VERSION,
            exercise: ExerciseRef {
                id: exercise.id.clone(),
                sha256: exercise.sha256(),
                title: exercise.title.clone(),
            },
            student: student.to_owned(),
            created,
            generator: format!("Concord {}", env!("CARGO_PKG_VERSION")),
            ratings,
            time_ms,
        })
    }

    /// Pretty JSON, as exported.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a submission: kind and version checked.
    pub fn from_json(text: &str) -> Result<Submission, SubmissionError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(malformed)?;
        if value.get("kind").and_then(|s| s.as_str()) != Some(KIND) {
            return Err(SubmissionError::NotASubmission);
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version > u64::from(VERSION) {
            return Err(SubmissionError::TooNew {
                version: version.min(u64::from(u32::MAX)) as u32,
            });
        }
        serde_json::from_value(value).map_err(malformed)
    }

    /// Seconds spent in all (the page keeps stretches of half a second and more on an item, so
    /// a quick session can record none: 0).
    pub fn seconds(&self) -> f64 {
        // A fold from +0.0: an empty f64 sum is −0.0.
        self.time_ms.iter().fold(0.0, |sum, (_, ms)| sum + *ms as f64) / 1000.0
    }

    /// Items rated on at least one attribute.
    pub fn items_rated(&self) -> usize {
        let mut ids: Vec<&str> =
            self.ratings.iter().flat_map(|r| r.scores.iter().map(|(id, _)| id.as_str())).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.len()
    }

    /// The file name it is exported under.
    pub fn file_name(&self) -> String {
        let safe: String = self
            .student
            .chars()
            .map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        format!("concord-submission-{}-{safe}.json", self.exercise.id)
    }
}

fn malformed(e: serde_json::Error) -> SubmissionError {
    SubmissionError::Malformed { line: e.line(), column: e.column(), message: e.to_string() }
}
