//! A student's exercise in this browser: opening one (a file, or `?exercise=URL`) starts a
//! new workspace whose dataset is the exercise's items (and whose judge run, for a
//! correct-judge task, is the run to correct, whose Judge screen's study, for a run-judges
//! task, holds the methods to run, and whose CoEval study is the exercise's, when it has one),
//! and the session — the exercise, the
//! name, the time per item, whether the submission was exported — is kept in IndexedDB under
//! the workspace's id, so a reload (offline too) finds the exercise as it was left.

use std::sync::Arc;

use concord_core::bundle::Bundle;
use concord_core::study::exercise::{Exercise, ExerciseError};
use concord_core::study::workbench::Settings;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::edge::http::FetchError;
use crate::edge::store::StoreName;
use crate::persist::bundle::{BundleFailure, BundleTargets};

use super::state::use_class;

/// Why an exercise could not be opened.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OpenFailure {
    #[error("{file}: {error}")]
    Exercise { file: String, error: ExerciseError },
    #[error("Could not fetch the exercise {url}: {error}")]
    Fetch { url: String, error: FetchError },
    #[error("{name} is not UTF-8 text; ask the teacher for the exercise file again")]
    NotText { name: String },
    /// The browser could not read the picked file (its message names the file).
    #[error("{0}; pick the file again")]
    Read(String),
    #[error("the exercise's items could not be opened: {0}")]
    Workspace(#[from] BundleFailure),
}

/// What is kept of a student's session.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Session {
    exercise: Exercise,
    student: String,
    time_ms: Vec<(String, u64)>,
    exported: bool,
}

fn key(t: BundleTargets) -> String {
    format!("exercise/{}", t.saved.id.get_untracked())
}

/// Saves the session of the open exercise (nothing when none is open).
pub async fn save(t: BundleTargets) {
    // The signals are asked for here, not passed in: the screen that started this task may be
    // gone (and its handles with it) by the time it runs.
    let class = use_class();
    let Some(exercise) = class.exercise.get_untracked() else { return };
    let session = Session {
        exercise: (*exercise).clone(),
        student: class.student.get_untracked(),
        time_ms: class.time_ms.get_untracked(),
        exported: class.exported.get_untracked(),
    };
    if let (Some(store), Ok(text)) =
        (t.storage.store.get_untracked(), serde_json::to_string(&session))
    {
        let _ = store.put(StoreName::Settings, &key(t), &text).await;
    }
}

/// Forgets the open exercise (the workspace and the ratings stay).
pub async fn close(t: BundleTargets) {
    let class = use_class();
    class.exercise.set(None);
    class.exported.set(false);
    class.time_ms.set(Vec::new());
    if let Some(store) = t.storage.store.get_untracked() {
        let _ = store.put(StoreName::Settings, &key(t), "").await;
    }
}

/// Looks once per page for the open workspace's saved session.
pub async fn restore(t: BundleTargets) {
    let class = use_class();
    if class.restored.get_untracked() || class.exercise.with_untracked(Option::is_some) {
        return;
    }
    class.restored.set(true);
    let Some(store) = t.storage.store.get_untracked() else { return };
    let Ok(Some(text)) = store.get(StoreName::Settings, &key(t)).await else { return };
    let Ok(session) = serde_json::from_str::<Session>(&text) else { return };
    let class = use_class();
    class.exercise.try_set(Some(Arc::new(session.exercise)));
    class.student.try_set(session.student);
    class.time_ms.try_set(session.time_ms);
    class.exported.try_set(session.exported);
}

/// Opens the exercise in `text` (from `source`, a file name or an address) as a new
/// workspace: its items are the dataset, with no run and no rater; its CoEval study, if it has
/// one, becomes the CoEval screen's.
pub async fn open_text(t: BundleTargets, text: &str, source: &str) -> Result<(), OpenFailure> {
    let exercise = Exercise::from_json(text)
        .map_err(|error| OpenFailure::Exercise { file: source.to_owned(), error })?;
    crate::persist::workspaces::fork(t, t.saved, &exercise.title).await;
    let created = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
    // A correct-judge task's run comes along: the Results screen's review works on it.
    // A run-judges task's study becomes the Judge screen's: the student runs its methods.
    let mut bundle = Bundle::new(
        &exercise.workspace_dataset(),
        "json",
        exercise.workspace_study(),
        None,
        exercise.workspace_runs(),
        Vec::new(),
        Settings::default(),
        created,
    );
    // The study to scrutinise replaces this browser's CoEval study, with nobody's decisions.
    bundle.coeval = exercise.coeval.clone();
    crate::persist::bundle::apply_bundle(t, bundle, &format!("the exercise “{}”", exercise.title))
        .await?;
    let reviewing = exercise.correct_judge().is_some();
    let class = use_class();
    class.exercise.set(Some(Arc::new(exercise)));
    class.time_ms.set(Vec::new());
    class.exported.set(false);
    class.restored.set(true);
    // Rating (and reviewing) work offline from here on: their screens' chunks are fetched now.
    crate::screens::prefetch::rate();
    if reviewing {
        crate::screens::prefetch::results();
    }
    save(t).await;
    Ok(())
}

/// Fetches and opens the exercise at `url` (relative addresses resolve against the page).
pub async fn open_url(t: BundleTargets, url: &str) -> Result<(), OpenFailure> {
    let bytes = crate::edge::http::get_bytes(url, 60_000)
        .await
        .map_err(|error| OpenFailure::Fetch { url: url.to_owned(), error })?;
    let text =
        String::from_utf8(bytes).map_err(|_| OpenFailure::NotText { name: url.to_owned() })?;
    open_text(t, &text, url).await
}

/// Why the student's CoEval decisions cannot go into the submission.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ScrutinyError {
    #[error(
        "This browser's storage is not open, so your CoEval decisions cannot be read: reload the page."
    )]
    NoStorage,
    #[error(
        "The exercise's CoEval study is not in this browser any more: open the exercise again."
    )]
    Gone,
    #[error("Your CoEval decisions could not be read: {0}")]
    Unreadable(crate::screens::coeval::state::CoEvalError),
    #[error("{0}")]
    Damaged(concord_core::study::coeval::SnapshotError),
}

/// The student's scrutiny of the exercise's CoEval study in this browser: the log of the
/// annotator named like the student, else of the CoEval screen's annotator, else the only
/// annotator who decided anything. `Ok(None)` when the exercise has no CoEval study.
pub async fn scrutiny(
    t: BundleTargets,
    exercise: &Exercise,
    student: &str,
) -> Result<Option<concord_core::coeval::Log>, ScrutinyError> {
    if exercise.coeval.is_none() {
        return Ok(None);
    }
    let Some(store) = t.storage.store.get_untracked() else {
        return Err(ScrutinyError::NoStorage);
    };
    let snapshot = match crate::screens::coeval::snapshot(&store).await {
        Ok(Some(s)) => s,
        Ok(None) => return Err(ScrutinyError::Gone),
        Err(e) => return Err(ScrutinyError::Unreadable(e)),
    };
    let restored = snapshot.restore().map_err(ScrutinyError::Damaged)?;
    let decided: Vec<&String> = restored
        .logs
        .iter()
        .filter(|(_, log)| {
            let state = log.replay();
            !state.criteria.is_empty() || !state.reviews.is_empty()
        })
        .map(|(name, _)| name)
        .collect();
    let name = [student, restored.annotator.as_str()]
        .into_iter()
        .find(|n| decided.iter().any(|d| d.as_str() == *n))
        .map(str::to_owned)
        .or_else(|| (decided.len() == 1).then(|| decided[0].clone()));
    Ok(Some(name.and_then(|n| restored.logs.get(&n).cloned()).unwrap_or_default()))
}
