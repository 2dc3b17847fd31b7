//! One student's submission: which exercise it answers (its id and SHA-256), the student's
//! name, their ratings per attribute and the time spent on each item, (version 2) their
//! review of a correct-judge task's run, their scrutiny of a CoEval study (CoEval's
//! annotator file: every action, the time per instance) and the runs of a run-judges task's
//! methods (method, attribute, the provider's kind and the model, the per-item scores). It
//! holds nothing else — no key, no base URL, nothing of the browser.
//!
//! ```text
//! {
//!   "kind": "concord-submission", "version": 1 | 2,
//!   "exercise": { "id", "sha256", "title" },
//!   "student": "Ann", "created", "generator",
//!   "ratings": [ { "name": student, "attribute", "scores": [[item, x]] } ],
//!   "time_ms": [[item, ms]],
//!   "review": { "run": "method / attribute",                 version 2, when reviewed
//!               "decisions": [ { "item", "verdict": "accept" }
//!                            | { "item", "verdict": "change", "rating": x }
//!                            | { "item", "verdict": "flag", "note": "…" } ],
//!               "time_ms": [[item, ms]] },
//!   "coeval": { concord-coeval-annotations file }            version 2, when scrutinised
//!   "runs": [ { "method", "attribute", "provider": "openai",  version 2, when judges ran
//!               "model", "scores": [[item, x]] } ]
//! }
//! ```

use serde::{Deserialize, Serialize};

use crate::coeval::{AnnotatorFile, Log};
use crate::run::Endpoint;
use crate::study::workbench::review::{Reviews, Verdict, run_key_of};
use crate::study::workbench::settings::ExtraRater;
use crate::study::workbench::{JudgedRun, score_run};

use super::file::Exercise;

/// The value of `kind`.
pub const KIND: &str = super::file::SUBMISSION_KIND;
/// The newest version this build reads; a submission with a review or a CoEval scrutiny is
/// written as version 2, one without as version 1.
pub const VERSION: u32 = 2;

/// One decision of a student's review: the item and what they did with the judge's rating.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub item: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// A student's review of the exercise's judge run: the decision in effect on each item (undos
/// applied), in the exercise's item order, and the time on each item (reviewed or not).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeReview {
    /// The run's review key, `method / attribute`.
    pub run: String,
    pub decisions: Vec<Decision>,
    #[serde(default)]
    pub time_ms: Vec<(String, u64)>,
}

impl JudgeReview {
    /// The review as the core's review state, to measure with
    /// [`crate::study::workbench::review`].
    pub fn reviews(&self) -> Reviews {
        let mut out = Reviews::default();
        for d in &self.decisions {
            out.verdicts.insert((self.run.clone(), d.item.clone()), d.verdict.clone());
        }
        for (item, ms) in &self.time_ms {
            let t = out.time_ms.entry((self.run.clone(), item.clone())).or_default();
            *t = t.saturating_add(*ms);
        }
        out
    }

    /// The decision on `item`.
    pub fn verdict(&self, item: &str) -> Option<&Verdict> {
        self.decisions.iter().find(|d| d.item == item).map(|d| &d.verdict)
    }
}

/// A student's run of one of a run-judges task's judges: which judge, what it ran on (the
/// provider's kind and the model — never a key or a base URL) and the score of each item it
/// rated, read as the Results table reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudentRun {
    pub method: String,
    pub attribute: String,
    /// The provider's kind (`openai`, `anthropic`, `vllm`…); empty when not known.
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub model: String,
    /// (item, score) in the exercise's item order; items the judge did not rate left out.
    pub scores: Vec<(String, f64)>,
}

impl StudentRun {
    /// `method / attribute`.
    pub fn key(&self) -> String {
        run_key_of(&self.method, &self.attribute)
    }
}

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
    /// The review of a correct-judge task's run (version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<JudgeReview>,
    /// The student's scrutiny of the exercise's CoEval study, under the student's name
    /// (version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coeval: Option<AnnotatorFile>,
    /// The runs of the exercise's given judges (version 2), in the task's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<StudentRun>,
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
    #[error(
        "nothing is rated or reviewed yet: rate, or accept, change or flag the judge's rating of, at least one item before exporting"
    )]
    NothingDone,
    #[error(
        "nothing is scrutinised yet: decide on a criterion or a part of an evaluation on the CoEval screen before exporting"
    )]
    NothingScrutinised,
    #[error(
        "of the judges the exercise gives, {missing} {verb} not run yet: pick a provider and a model and give your key on the Run screen, run, and export when the run is done",
        verb = crate::words::plural(*count, "has", "have")
    )]
    NotRun { missing: String, count: usize },
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
        Submission::answer(exercise, student, created, raters, time_ms, &Reviews::default())
    }

    /// [`Submission::new`] with the review of a correct-judge task: from `reviews` (the
    /// student's replayed review log), the decisions and times on the exercise's judge run and
    /// items only.
    pub fn answer(
        exercise: &Exercise,
        student: &str,
        created: String,
        raters: &[ExtraRater],
        time_ms: &[(String, u64)],
        reviews: &Reviews,
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
        let review = exercise.correct_judge_key().and_then(|run| {
            let decisions: Vec<Decision> = items
                .iter()
                .filter_map(|item| {
                    let verdict = reviews.verdict(&run, &item.id)?.clone();
                    Some(Decision { item: item.id.clone(), verdict })
                })
                .collect();
            let time_ms: Vec<(String, u64)> = items
                .iter()
                .map(|item| (item.id.clone(), reviews.ms_on(&run, &item.id)))
                .filter(|(_, ms)| *ms > 0)
                .collect();
            (!decisions.is_empty()).then_some(JudgeReview { run, decisions, time_ms })
        });
        // An exercise that only scrutinises a CoEval study asks for neither.
        if ratings.is_empty()
            && review.is_none()
            && (exercise.rates() || exercise.correct_judge().is_some())
        {
            return Err(if exercise.correct_judge().is_some() {
                SubmissionError::NothingDone
            } else {
                SubmissionError::NothingRated
            });
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
            version: if review.is_some() { 2 } else { 1 },
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
            review,
            coeval: None,
            runs: Vec::new(),
        })
    }

    /// The submission with the runs of the exercise's given judges: for each (method,
    /// attribute) of its run-judges task the latest of `runs` that rated an exercise item,
    /// scored as the Results table scores it, with `endpoint`'s provider kind and model (the
    /// key and base URL are not taken). A given judge without such a run is refused, named.
    pub fn with_runs(
        mut self,
        exercise: &Exercise,
        runs: &[JudgedRun],
        endpoint: Option<&Endpoint>,
    ) -> Result<Submission, SubmissionError> {
        let given = exercise.run_judges();
        if given.is_empty() {
            return Ok(self);
        }
        let dataset = &exercise.dataset.embedded;
        let mut out = Vec::new();
        let mut missing = Vec::new();
        for (method, attribute) in given {
            let scores = runs
                .iter()
                .rev()
                .filter(|r| r.method == method && r.attribute == attribute)
                .find_map(|r| match score_run(dataset, r) {
                    Some(Ok(s)) => {
                        let scores: Vec<(String, f64)> = dataset
                            .items
                            .iter()
                            .zip(&s.scores)
                            .filter_map(|(item, x)| Some((item.id.clone(), (*x)?)))
                            .collect();
                        (!scores.is_empty()).then_some(scores)
                    }
                    _ => None,
                });
            match scores {
                Some(scores) => out.push(StudentRun {
                    method: method.to_owned(),
                    attribute: attribute.to_owned(),
                    provider: endpoint.map(|e| e.provider.slug().to_owned()).unwrap_or_default(),
                    model: endpoint.map(|e| e.model.clone()).unwrap_or_default(),
                    scores,
                }),
                None => missing.push(run_key_of(method, attribute)),
            }
        }
        if !missing.is_empty() {
            return Err(SubmissionError::NotRun {
                missing: missing.join(", "),
                count: missing.len(),
            });
        }
        self.runs = out;
        self.version = 2;
        Ok(self)
    }

    /// The submission with the student's CoEval scrutiny (`log`, the actions on the
    /// exercise's study), filed under the student's name. An empty log is refused.
    pub fn with_coeval(
        mut self,
        exercise: &Exercise,
        log: &Log,
    ) -> Result<Submission, SubmissionError> {
        let Some(study) = &exercise.coeval else { return Ok(self) };
        let state = log.replay();
        if state.criteria.is_empty() && state.reviews.is_empty() {
            return Err(SubmissionError::NothingScrutinised);
        }
        self.coeval = Some(AnnotatorFile::new(&self.student, &study.task, log));
        self.version = 2;
        Ok(self)
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

    /// Seconds spent in all: rating, reviewing and on the CoEval instances (the page keeps
    /// stretches of half a second and more on an item, so a quick session can record none: 0).
    pub fn seconds(&self) -> f64 {
        let review = self.review.as_ref().map_or(&[][..], |r| r.time_ms.as_slice());
        // A fold from +0.0: an empty f64 sum is −0.0.
        let rating = self.time_ms.iter().chain(review).fold(0.0, |sum, (_, ms)| sum + *ms as f64);
        let scrutiny = self
            .coeval
            .as_ref()
            .and_then(|f| f.log().ok())
            .map_or(0.0, |log| log.replay().time_ms.values().fold(0.0, |s, ms| s + *ms as f64));
        (rating + scrutiny) / 1000.0
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
