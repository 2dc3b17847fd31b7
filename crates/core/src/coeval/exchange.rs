//! Export, import and merging of annotators' work: one versioned JSON file per annotator, and
//! a classroom file holding many, with every conflict reported.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::session::{Annotation, Event, EventError, Log, Review};

/// The `format` tag of one annotator's export.
pub const ANNOTATOR_FORMAT: &str = "concord-coeval-annotations";
/// The `format` tag of a merged (classroom) export.
pub const CLASSROOM_FORMAT: &str = "concord-coeval-classroom";
/// The newest file version this build reads and the one it writes.
pub const VERSION: u32 = 1;

/// One annotator's work on one task, as exported: the whole event log, so an import replays
/// exactly what the annotator saw (including undos).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotatorFile {
    pub format: String,
    pub version: u32,
    pub annotator: String,
    pub task: String,
    pub events: Vec<Event>,
}

impl AnnotatorFile {
    pub fn new(annotator: &str, task: &str, log: &Log) -> AnnotatorFile {
        AnnotatorFile {
            format: ANNOTATOR_FORMAT.to_owned(),
            version: VERSION,
            annotator: annotator.to_owned(),
            task: task.to_owned(),
            events: log.events().to_vec(),
        }
    }

    /// Replays the events; files from [`import`] always replay.
    pub fn log(&self) -> Result<Log, ImportError> {
        Log::from_events(self.events.clone())
            .map_err(|(index, error)| ImportError::BadEvent { index, error })
    }
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

#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// Reads an annotator file or a classroom file; returns the annotator files it holds, each
/// checked to replay.
pub fn import(bytes: &[u8]) -> Result<Vec<AnnotatorFile>, ImportError> {
    let header: Header =
        serde_json::from_slice(bytes).map_err(|e| ImportError::Json(e.to_string()))?;
    if header.version > VERSION {
        return Err(ImportError::UnsupportedVersion { found: header.version });
    }
    let files = match header.format.as_str() {
        ANNOTATOR_FORMAT => vec![
            serde_json::from_slice::<AnnotatorFile>(bytes)
                .map_err(|e| ImportError::Json(e.to_string()))?,
        ],
        CLASSROOM_FORMAT => {
            serde_json::from_slice::<Classroom>(bytes)
                .map_err(|e| ImportError::Json(e.to_string()))?
                .annotators
        }
        _ => return Err(ImportError::WrongFormat { found: header.format }),
    };
    for file in &files {
        if file.annotator.trim().is_empty() {
            return Err(ImportError::NoAnnotator);
        }
        file.log()?;
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
                    annotator: m.annotator.clone(),
                    task: m.task.clone(),
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

/// Merges annotators' files. Different annotators never conflict; the same annotator (same
/// task and name) in several files is united key by key, and every key two files set
/// differently becomes a [`Conflict`]. Files that fail to replay are reported as errors by
/// index rather than skipped.
pub fn merge(files: &[AnnotatorFile]) -> Result<Merge, (usize, ImportError)> {
    let mut out = Merge::default();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    // Which file last set each key, per merged annotator, for conflict reports.
    let mut origin: Vec<BTreeMap<String, usize>> = Vec::new();
    for (f, file) in files.iter().enumerate() {
        let state = file.log().map_err(|e| (f, e))?.replay();
        let key = (file.task.clone(), file.annotator.clone());
        let Some(&slot) = index.get(&key) else {
            index.insert(key, out.annotators.len());
            let mut from = BTreeMap::new();
            for k in keys(&state) {
                from.insert(k, f);
            }
            origin.push(from);
            out.annotators.push(Merged {
                task: file.task.clone(),
                annotator: file.annotator.clone(),
                state,
                sources: vec![f],
            });
            continue;
        };
        let target = &mut out.annotators[slot];
        target.sources.push(f);
        let mut seen = Seen {
            conflicts: &mut out.conflicts,
            origin: &mut origin[slot],
            file: f,
            task: &file.task,
            annotator: &file.annotator,
        };
        for (criterion, d) in state.criteria {
            let key = format!("criterion {criterion:?}");
            let old = target.state.criteria.insert(criterion, d.clone());
            seen.set(key, &d, old.as_ref());
        }
        for ((instance, criterion), review) in state.reviews {
            let at = format!("instance {instance:?} / criterion {criterion:?}");
            let entry: &mut Review = target.state.reviews.entry((instance, criterion)).or_default();
            for (part, d) in review.parts {
                let old = entry.parts.insert(part, d.clone());
                seen.set(format!("{at} / {}", json(&part)), &d, old.as_ref());
            }
            if let Some(score) = review.score {
                let old = entry.score.replace(score);
                seen.set(format!("{at} / score"), &score, old.as_ref());
            }
        }
        for (instance, ms) in state.time_ms {
            let key = format!("instance {instance:?} / time");
            let old = target.state.time_ms.insert(instance, ms);
            seen.set(key, &ms, old.as_ref());
        }
    }
    Ok(out)
}

/// Bookkeeping of one file's merge into an annotator seen before.
struct Seen<'a> {
    conflicts: &'a mut Vec<Conflict>,
    /// Which file last set each key.
    origin: &'a mut BTreeMap<String, usize>,
    file: usize,
    task: &'a str,
    annotator: &'a str,
}

impl Seen<'_> {
    /// Records that the current file set `key` to `kept`, replacing `old` if there was one.
    fn set<T: Serialize + PartialEq>(&mut self, key: String, kept: &T, old: Option<&T>) {
        let overridden_from = self.origin.insert(key.clone(), self.file);
        if let (Some(old), Some(overridden_from)) = (old, overridden_from)
            && old != kept
        {
            self.conflicts.push(Conflict {
                task: self.task.to_owned(),
                annotator: self.annotator.to_owned(),
                key,
                kept: json(kept),
                kept_from: self.file,
                overridden: json(old),
                overridden_from,
            });
        }
    }
}

/// The conflict keys a state sets (the same spelling [`merge`] reports).
fn keys(state: &Annotation) -> Vec<String> {
    let mut out: Vec<String> = state.criteria.keys().map(|c| format!("criterion {c:?}")).collect();
    for ((instance, criterion), review) in &state.reviews {
        let at = format!("instance {instance:?} / criterion {criterion:?}");
        out.extend(review.parts.keys().map(|p| format!("{at} / {}", json(p))));
        if review.score.is_some() {
            out.push(format!("{at} / score"));
        }
    }
    out.extend(state.time_ms.keys().map(|i| format!("instance {i:?} / time")));
    out
}
