//! Export, import and merging of annotators' work: one versioned JSON file per annotator, and
//! a classroom file holding many, with every conflict reported.

use serde::{Deserialize, Serialize};

use crate::annotation::{self, Decisions, FileError, Format, PersonFile, Together};

use super::session::{Annotation, Decision, Event, EventError, Part};

/// The `format` tag of one annotator's export.
pub const ANNOTATOR_FORMAT: &str = "concord-coeval-annotations";
/// The `format` tag of a merged (classroom) export.
pub const CLASSROOM_FORMAT: &str = "concord-coeval-classroom";
/// The newest file version this build reads and the one it writes.
pub const VERSION: u32 = 1;

/// One annotator's work on one task, as exported: the whole event log, so an import replays
/// exactly what the annotator saw (including undos). `person` is the file's `annotator`,
/// `scope` its `task`.
pub type AnnotatorFile = PersonFile<Event>;

impl Format for Event {
    const FORMAT: &'static str = ANNOTATOR_FORMAT;
    const VERSION: u32 = VERSION;
    const PERSON: &'static str = "annotator";
    const SCOPE: Option<&'static str> = Some("task");
}

/// A merged classroom: every annotator's resolved work and the conflicts met on the way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Classroom {
    pub format: String,
    pub version: u32,
    pub annotators: Vec<AnnotatorFile>,
    #[serde(default)]
    pub conflicts: Vec<Conflict>,
}

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// Not JSON, or JSON of another shape (serde's message, with line and column).
    #[error("not a CoEval annotation file: {0}")]
    Json(String),
    /// A JSON file of another tool or kind.
    #[error("format is `{found}`, expected `{ANNOTATOR_FORMAT}` or `{CLASSROOM_FORMAT}`")]
    WrongFormat { found: String },
    /// Written by a newer Concord.
    #[error("file version {found} is newer than this Concord reads ({VERSION}); update Concord")]
    UnsupportedVersion { found: u32 },
    /// The annotator has no name, so their work could not be told apart from others'.
    #[error("the file names no annotator")]
    NoAnnotator,
    /// An event that does not replay, by position in the file's event list.
    #[error("event {index}: {error}")]
    BadEvent { index: usize, error: EventError },
}

impl From<FileError<EventError>> for ImportError {
    fn from(e: FileError<EventError>) -> ImportError {
        match e {
            FileError::Truncated(m) | FileError::Json(m) => ImportError::Json(m),
            FileError::Foreign { found, .. } => ImportError::WrongFormat { found },
            FileError::Newer { found, .. } => ImportError::UnsupportedVersion { found },
            FileError::NoPerson { .. } => ImportError::NoAnnotator,
            FileError::BadEvent { index, error } => ImportError::BadEvent { index, error },
        }
    }
}

#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// Reads an annotator file or a classroom file; returns the annotator files it holds, each
/// checked to replay.
pub fn import(bytes: &[u8]) -> Result<Vec<AnnotatorFile>, ImportError> {
    let json = |e: serde_json::Error| ImportError::from(FileError::from_json(&e));
    let header: Header = serde_json::from_slice(bytes).map_err(json)?;
    if header.version > VERSION {
        return Err(ImportError::UnsupportedVersion { found: header.version });
    }
    let files = match header.format.as_str() {
        ANNOTATOR_FORMAT => vec![serde_json::from_slice::<AnnotatorFile>(bytes).map_err(json)?],
        CLASSROOM_FORMAT => serde_json::from_slice::<Classroom>(bytes).map_err(json)?.annotators,
        _ => return Err(ImportError::WrongFormat { found: header.format }),
    };
    for file in &files {
        file.check()?;
    }
    Ok(files)
}

/// The same annotator's same key set differently by two imported files. The later file (in
/// import order) wins; both values are kept here so the coordinator can see and override.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub task: String,
    pub annotator: String,
    /// What differs, e.g. `criterion "Fluency"` or `instance "q1" / criterion "Fluency" / score`.
    pub key: String,
    /// The value kept (from file `kept_from`) and the one overridden (from `overridden_from`),
    /// as compact JSON.
    pub kept: String,
    pub kept_from: usize,
    pub overridden: String,
    pub overridden_from: usize,
}

/// One annotator's resolved state after a merge, with the files it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    pub task: String,
    pub annotator: String,
    pub state: Annotation,
    pub sources: Vec<usize>,
}

/// The result of [`merge`]: one entry per (task, annotator) in first-seen order, plus conflicts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    pub annotators: Vec<Merged>,
    pub conflicts: Vec<Conflict>,
}

impl Merge {
    /// The merged state as a classroom file (each annotator's state as a fresh event list).
    pub fn export(&self) -> Classroom {
        Classroom {
            format: CLASSROOM_FORMAT.to_owned(),
            version: VERSION,
            annotators: self
                .annotators
                .iter()
                .map(|m| AnnotatorFile {
                    format: ANNOTATOR_FORMAT.to_owned(),
                    version: VERSION,
                    person: m.annotator.clone(),
                    scope: m.task.clone(),
                    events: m.state.to_events(),
                })
                .collect(),
            conflicts: self.conflicts.clone(),
        }
    }
}

fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// What a merge compares in an annotator's state: a criterion, a part or the score of an
/// (instance, criterion) evaluation, or the time on an instance — in the order conflicts are
/// reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Criterion(String),
    Review { instance: String, criterion: String, slot: Slot },
    Time(String),
}

/// A part of an evaluation, or its score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Slot {
    Part(Part),
    Score,
}

impl Key {
    /// How a conflict names the key, e.g. `criterion "Fluency"` or
    /// `instance "q1" / criterion "Fluency" / score`.
    pub fn describe(&self) -> String {
        match self {
            Key::Criterion(c) => format!("criterion {c:?}"),
            Key::Review { instance, criterion, slot } => {
                let at = format!("instance {instance:?} / criterion {criterion:?}");
                match slot {
                    Slot::Part(part) => format!("{at} / {}", json(part)),
                    Slot::Score => format!("{at} / score"),
                }
            }
            Key::Time(instance) => format!("instance {instance:?} / time"),
        }
    }
}

/// The value of a [`Key`], written in a conflict as the value itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    Decision(Decision),
    Score(f64),
    Ms(u64),
}

impl Decisions for Annotation {
    type Key = Key;
    type Value = Value;

    fn decisions(&self) -> Vec<(Key, Value)> {
        let mut out: Vec<(Key, Value)> = self
            .criteria
            .iter()
            .map(|(c, d)| (Key::Criterion(c.clone()), Value::Decision(d.clone())))
            .collect();
        for ((instance, criterion), review) in &self.reviews {
            let key = |slot| Key::Review {
                instance: instance.clone(),
                criterion: criterion.clone(),
                slot,
            };
            for (part, d) in &review.parts {
                out.push((key(Slot::Part(*part)), Value::Decision(d.clone())));
            }
            if let Some(score) = review.score {
                out.push((key(Slot::Score), Value::Score(score)));
            }
        }
        out.extend(self.time_ms.iter().map(|(i, ms)| (Key::Time(i.clone()), Value::Ms(*ms))));
        out
    }

    fn decide(&mut self, key: Key, value: Value) -> Option<Value> {
        match (key, value) {
            (Key::Criterion(c), Value::Decision(d)) => {
                self.criteria.insert(c, d).map(Value::Decision)
            }
            (Key::Review { instance, criterion, slot }, value) => {
                let review = self.reviews.entry((instance, criterion)).or_default();
                match (slot, value) {
                    (Slot::Part(part), Value::Decision(d)) => {
                        review.parts.insert(part, d).map(Value::Decision)
                    }
                    (Slot::Score, Value::Score(x)) => review.score.replace(x).map(Value::Score),
                    _ => None,
                }
            }
            (Key::Time(instance), Value::Ms(ms)) => {
                self.time_ms.insert(instance, ms).map(Value::Ms)
            }
            _ => None,
        }
    }
}

/// Merges annotators' files ([`annotation::merge`], per annotator). Different annotators never
/// conflict; the same annotator (same task and name) in several files is united key by key,
/// and every key two files set differently becomes a [`Conflict`]. Files that fail to replay
/// are reported as errors by index rather than skipped.
pub fn merge(files: &[AnnotatorFile]) -> Result<Merge, (usize, ImportError)> {
    let merged = annotation::merge(files, Together::PerPerson)
        .map_err(|(f, e)| (f, ImportError::from(e)))?;
    let conflicts = merged
        .conflicts
        .into_iter()
        .map(|(slot, c)| {
            let group = &merged.groups[slot];
            Conflict {
                task: group.scope.clone(),
                annotator: group.person.clone(),
                key: c.key.describe(),
                kept: c.kept.as_ref().map(json).unwrap_or_default(),
                kept_from: c.kept_from,
                overridden: json(&c.overridden),
                overridden_from: c.overridden_from,
            }
        })
        .collect();
    let annotators = merged
        .groups
        .into_iter()
        .map(|g| Merged { task: g.scope, annotator: g.person, state: g.state, sources: g.sources })
        .collect();
    Ok(Merge { annotators, conflicts })
}
