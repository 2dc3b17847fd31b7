//! A CoEval study as a bundle carries it: the task setup, the instances and criteria, the
//! LLM's raw answers (ideation and instance evaluations, read again on open), every
//! annotator's event log on the device (undos included, as the app stores them) and the
//! annotator files a coordinator imported. No key, no setting of a provider.
//!
//! [`Snapshot::capture`] takes the screen's state; [`Snapshot::restore`] rebuilds it, and
//! [`Restored::results`] gives the same [`StudyResults`] (hence the same report) as before.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::results::{MergeError, StudyResults, annotations_of, merge_annotators};
use super::study::{Evaluation, Instance, Study, StudyError, check_task_name};
use crate::coeval::{AnnotatorFile, Event, EventError, Log, Merge};
use crate::judge::coeval::TaskInfo;
use crate::stats::KrippendorffLevel;

/// The `format` field of a snapshot.
pub const SNAPSHOT_FORMAT: &str = "concord-coeval-snapshot";
/// The snapshot version this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// Everything that rebuilds the CoEval screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub format: String,
    pub version: u32,
    pub task: String,
    pub info: TaskInfo,
    pub criteria: Vec<String>,
    pub instances: Vec<Instance>,
    /// The LLM's evaluation of each (instance, criterion), in the study's order.
    pub answers: Vec<Answer>,
    /// The LLM's answers to the last ideation request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ideation: Vec<String>,
    /// The annotator working on the device the snapshot was taken on.
    #[serde(default)]
    pub annotator: String,
    /// Every annotator's events on that device, in the order they were made.
    #[serde(default)]
    pub logs: BTreeMap<String, Vec<Event>>,
    /// Annotator files a coordinator imported, under their file names.
    #[serde(default)]
    pub imported: Vec<ImportedFile>,
}

/// The LLM's evaluation of one instance on one criterion: its raw answer, read again on
/// restore; or, for an evaluation saved before answers were kept, its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub instance: String,
    pub criterion: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub response: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Parts>,
}

/// The parts of an evaluation whose raw answer is unknown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parts {
    pub conclusion: String,
    pub score: Option<f64>,
    pub evidence: Vec<String>,
}

/// An imported annotator file under the name it was imported as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportedFile {
    pub name: String,
    pub file: AnnotatorFile,
}

/// Why a snapshot cannot be restored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    #[error("not a CoEval snapshot (format `{0}`, expected `{SNAPSHOT_FORMAT}`)")]
    Format(String),
    #[error(
        "CoEval snapshot version {0} is newer than this Concord reads ({SNAPSHOT_VERSION}): open it with a newer Concord"
    )]
    Version(u32),
    #[error("the snapshot's task: {0}")]
    Task(#[from] StudyError),
    #[error("annotator {annotator}'s event {index} in the snapshot does not replay ({error})")]
    Replay { annotator: String, index: usize, error: EventError },
}

/// The screen's state rebuilt from a snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct Restored {
    pub study: Study,
    pub annotator: String,
    pub logs: BTreeMap<String, Log>,
    pub imported: Vec<(String, AnnotatorFile)>,
}

impl Snapshot {
    /// The snapshot of a study with this device's logs and the imported files.
    pub fn capture(
        study: &Study,
        annotator: &str,
        logs: &BTreeMap<String, Log>,
        imported: &[(String, AnnotatorFile)],
    ) -> Snapshot {
        let answers = study
            .evaluations
            .iter()
            .map(|e| Answer {
                instance: e.instance.clone(),
                criterion: e.criterion.clone(),
                response: e.response.clone(),
                parts: e.response.is_empty().then(|| Parts {
                    conclusion: e.conclusion.clone(),
                    score: e.score,
                    evidence: e.evidence.clone(),
                }),
            })
            .collect();
        Snapshot {
            format: SNAPSHOT_FORMAT.to_owned(),
            version: SNAPSHOT_VERSION,
            task: study.task.clone(),
            info: study.info.clone(),
            criteria: study.criteria.clone(),
            instances: study.instances.clone(),
            answers,
            ideation: study.ideation.clone(),
            annotator: annotator.to_owned(),
            logs: logs
                .iter()
                .filter(|(_, log)| !log.events().is_empty())
                .map(|(name, log)| (name.clone(), log.events().to_vec()))
                .collect(),
            imported: imported
                .iter()
                .map(|(name, file)| ImportedFile { name: name.clone(), file: file.clone() })
                .collect(),
        }
    }

    /// The study, logs and imports again, every raw answer read anew.
    pub fn restore(&self) -> Result<Restored, SnapshotError> {
        if self.format != SNAPSHOT_FORMAT {
            return Err(SnapshotError::Format(self.format.clone()));
        }
        if self.version > SNAPSHOT_VERSION {
            return Err(SnapshotError::Version(self.version));
        }
        check_task_name(&self.task)?;
        let evaluations = self
            .answers
            .iter()
            .map(|a| match &a.parts {
                Some(p) if a.response.is_empty() => Evaluation {
                    instance: a.instance.clone(),
                    criterion: a.criterion.clone(),
                    conclusion: p.conclusion.clone(),
                    score: p.score,
                    evidence: p.evidence.clone(),
                    response: String::new(),
                },
                _ => Evaluation::from_response(&a.instance, &a.criterion, &a.response),
            })
            .collect();
        let study = Study {
            task: self.task.clone(),
            info: self.info.clone(),
            criteria: self.criteria.clone(),
            instances: self.instances.clone(),
            evaluations,
            ideation: self.ideation.clone(),
        };
        let mut logs = BTreeMap::new();
        for (annotator, events) in &self.logs {
            let log = Log::from_events(events.clone()).map_err(|(index, error)| {
                SnapshotError::Replay { annotator: annotator.clone(), index, error }
            })?;
            logs.insert(annotator.clone(), log);
        }
        Ok(Restored {
            study,
            annotator: self.annotator.clone(),
            logs,
            imported: self.imported.iter().map(|f| (f.name.clone(), f.file.clone())).collect(),
        })
    }
}

impl Restored {
    /// Every annotator's work merged, as the screen merges it.
    pub fn merged(&self) -> Result<(Merge, Vec<String>), MergeError> {
        merge_annotators(&self.study, &self.logs, &self.imported)
    }

    /// The Results panel's results at α level `level`.
    pub fn results(&self, level: KrippendorffLevel) -> Result<StudyResults, MergeError> {
        let (merge, _) = self.merged()?;
        Ok(StudyResults::compute(&self.study, &annotations_of(merge), level))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::super::study::tests::study;
    use super::*;
    use crate::coeval::{Action, Part};
    use crate::report::{Format, Report};

    fn session() -> (Study, BTreeMap<String, Log>, Vec<(String, AnnotatorFile)>) {
        let mut s = study();
        // One evaluation as an old save kept it: parts, no raw answer.
        s.evaluations[3].response.clear();
        s.ideation = vec!["1. Fluent.\n2. On topic.".to_owned()];
        let (i0, i1) = (s.instances[0].id.clone(), s.instances[1].id.clone());
        let mut ann = Log::new();
        for e in [
            Event::Criterion {
                criterion: "2. On topic.".into(),
                action: Action::Revise,
                text: Some("2. Stays on topic.".into()),
                reason: "sharper".into(),
            },
            Event::Part {
                instance: i0.clone(),
                criterion: "1. Fluent.".into(),
                part: Part::Score,
                action: Action::Revise,
                text: Some("Score: 3".into()),
                reason: "too generous".into(),
            },
            Event::Score { instance: i0.clone(), criterion: "1. Fluent.".into(), score: 3.0 },
            Event::Score { instance: i1.clone(), criterion: "1. Fluent.".into(), score: 5.0 },
            Event::Undo,
            Event::Score { instance: i1.clone(), criterion: "1. Fluent.".into(), score: 2.0 },
            Event::Timer { instance: i0.clone(), ms: 61_000 },
        ] {
            ann.push(e).unwrap();
        }
        let mut bob = Log::new();
        bob.push(Event::Score { instance: i0, criterion: "1. Fluent.".into(), score: 4.0 })
            .unwrap();
        bob.push(Event::Score { instance: i1, criterion: "1. Fluent.".into(), score: 3.0 })
            .unwrap();
        let logs = BTreeMap::from([("Ann".to_owned(), ann), ("Empty".to_owned(), Log::new())]);
        let imported = vec![("bob.json".to_owned(), AnnotatorFile::new("Bob", &s.task, &bob))];
        (s, logs, imported)
    }

    fn every_export(report: &Report) -> Vec<(String, String)> {
        Format::ALL.into_iter().flat_map(|f| report.files(f)).map(|f| (f.name, f.text)).collect()
    }

    #[test]
    fn snapshot_through_json_rebuilds_the_same_report() {
        let (s, logs, imported) = session();
        let level = KrippendorffLevel::Interval;
        let before = StudyResults::compute(
            &s,
            &annotations_of(merge_annotators(&s, &logs, &imported).unwrap().0),
            level,
        )
        .report();
        let json = serde_json::to_string(&Snapshot::capture(&s, "Ann", &logs, &imported)).unwrap();
        let snapshot: Snapshot = serde_json::from_str(&json).unwrap();
        assert!(!json.contains("\"conclusion\":\"It is fluent.\""), "raw answers, not their parts");
        assert_eq!(snapshot.answers[3].parts.as_ref().unwrap().score, Some(2.0));
        let restored = snapshot.restore().unwrap();
        assert_eq!(restored.study, s, "answers read again give the same evaluations");
        assert_eq!(restored.annotator, "Ann");
        assert_eq!(restored.logs["Ann"], logs["Ann"], "the log with its undo");
        assert!(!restored.logs.contains_key("Empty"));
        let after = restored.results(level).unwrap().report();
        assert_eq!(after, before);
        let (a, b) = (every_export(&before), every_export(&after));
        assert_eq!(a.len(), 5 * 4 + 2, "five tables in four formats, two figures");
        assert_eq!(a, b, "byte-identical exports");
        // The results are not trivial: both annotators and the LLM are in them.
        assert_eq!(after.tables[3].rows.len(), 3);
    }

    #[test]
    fn bad_snapshots_say_why() {
        let (s, logs, imported) = session();
        let good = Snapshot::capture(&s, "Ann", &logs, &imported);
        let mut bad = good.clone();
        bad.format = "concord-bundle".into();
        assert!(bad.restore().unwrap_err().to_string().contains("not a CoEval snapshot"));
        let mut bad = good.clone();
        bad.version = 9;
        assert_eq!(bad.restore().unwrap_err(), SnapshotError::Version(9));
        let mut bad = good.clone();
        bad.task = "a/b".into();
        assert_eq!(bad.restore().unwrap_err(), SnapshotError::Task(StudyError::BadTaskName));
        let mut bad = good;
        bad.logs.insert("Cy".into(), vec![Event::Undo]);
        let err = bad.restore().unwrap_err();
        assert!(
            matches!(&err, SnapshotError::Replay { annotator, index: 0, .. } if annotator == "Cy"),
            "{err}"
        );
    }
}
