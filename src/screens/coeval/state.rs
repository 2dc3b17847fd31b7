//! The CoEval screen's signals ([`Ctx`], shared by its panels as context), where it keeps
//! them in IndexedDB, and the bundle's way in and out ([`snapshot`], [`apply_snapshot`]).
//!
//! # Storage
//!
//! * `annotations` store: every event of annotator A on task T under
//!   [`log_key`]`("coeval/T/A", seq)`, written the moment it is made ([`Ctx::record`]).
//! * `settings` store: the study ([`STUDY_KEY`], JSON of [`Study`]), the annotator
//!   ([`ANNOTATOR_KEY`]), each annotator's cursor (`coeval/cursor/T/A`) and the imported
//!   annotator files ([`IMPORTED_PREFIX`]`<file name>`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use concord_core::coeval::{self, Annotation, AnnotatorFile, Event, EventError, Log};
use concord_core::judge::coeval::Recurrence;
use concord_core::study::coeval::KrippendorffLevel;
use concord_core::study::coeval::{
    Cursor, MergeError, ReleasedView, Snapshot, SnapshotError, Stage2Criterion, Study,
    annotations_of, merge_annotators,
};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::edge::store::{Store, StoreError, StoreName, log_key};
use crate::run::runner::RunControl;

/// Settings key of the study.
pub const STUDY_KEY: &str = "coeval/study";
/// Settings key of the annotator's name.
pub const ANNOTATOR_KEY: &str = "coeval/annotator";
/// Where a coordinator's imported annotator files are kept (`coeval-imported/<file name>`).
pub const IMPORTED_PREFIX: &str = "coeval-imported/";

/// The annotation session of one annotator on one task (the prefix of its log records).
pub fn session(task: &str, annotator: &str) -> String {
    format!("coeval/{task}/{annotator}")
}

/// The settings key of an annotator's cursor on a task.
pub fn cursor_key(task: &str, annotator: &str) -> String {
    format!("coeval/cursor/{task}/{annotator}")
}

/// What went wrong on the CoEval screen; the banner shows the message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoEvalError {
    #[error("set up a task first")]
    NoStudy,
    #[error("enter your name (annotator) in Task setup first")]
    NoAnnotator,
    #[error("not recorded: {0}")]
    NotRecorded(#[from] EventError),
    #[error("NOT SAVED: {0}")]
    NotSaved(StoreError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    #[error("could not read the saved {what}: {error}")]
    Read { what: &'static str, error: StoreError },
}

/// The screen's own tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Setup,
    Criteria,
    Instances,
    Annotators,
    Results,
    Released,
}

impl Tab {
    pub const ALL: [Tab; 6] =
        [Tab::Setup, Tab::Criteria, Tab::Instances, Tab::Annotators, Tab::Results, Tab::Released];

    pub fn label(self) -> &'static str {
        match self {
            Tab::Setup => "Task setup",
            Tab::Criteria => "Stage 1: criteria",
            Tab::Instances => "Stage 2: instances",
            Tab::Annotators => "Annotators & merge",
            Tab::Results => "Results",
            Tab::Released => "Released files",
        }
    }
}

/// The released-file panel's state (kept while the screen is open, so switching the
/// screen's tabs keeps the import).
#[derive(Clone, Copy)]
pub struct Released {
    pub reproduction: StoredValue<Option<concord_core::coeval::Reproduction>, LocalStorage>,
    /// Bumped when files are added, so the view is computed again.
    pub version: RwSignal<u32>,
    pub busy: RwSignal<Option<String>>,
    pub problems: RwSignal<Vec<String>>,
    pub view: RwSignal<Option<Arc<ReleasedView>>>,
    /// The latest computation; an older one stops when it sees a newer number.
    pub generation: StoredValue<u64>,
}

/// An LLM run of the screen (ideation or instance evaluation) and what it found.
#[derive(Clone, Copy)]
pub struct LlmRun {
    pub status: RwSignal<Option<String>>,
    pub busy: RwSignal<bool>,
    pub paused: RwSignal<bool>,
    pub control: StoredValue<RunControl, LocalStorage>,
    /// (answers received, recurrence) of the last repeated ideation.
    pub recurring: RwSignal<Option<(usize, Vec<Recurrence>)>>,
    /// Keep criteria listed in at least this many answers.
    pub min_samples: RwSignal<usize>,
}

impl LlmRun {
    pub fn new() -> LlmRun {
        LlmRun {
            status: RwSignal::new(None),
            busy: RwSignal::new(false),
            paused: RwSignal::new(false),
            control: StoredValue::new_local(RunControl::new()),
            recurring: RwSignal::new(None),
            min_samples: RwSignal::new(1),
        }
    }

    /// Marks a run as started, with a new control (pause, resume, cancel).
    pub fn start(&self) {
        self.control.set_value(RunControl::new());
        self.paused.set(false);
        self.busy.set(true);
    }
}

impl Default for LlmRun {
    fn default() -> LlmRun {
        LlmRun::new()
    }
}

/// The screen's state, shared by its panels as context.
#[derive(Clone, Copy)]
pub struct Ctx {
    pub store: RwSignal<Option<Store>, LocalStorage>,
    /// False while the stored study and logs are being read.
    pub ready: RwSignal<bool>,
    pub study: RwSignal<Option<Arc<Study>>>,
    pub annotator: RwSignal<String>,
    /// Every annotator's log on this device for the current task.
    pub logs: RwSignal<BTreeMap<String, Log>>,
    pub cursor: RwSignal<Cursor>,
    /// Annotator files imported by a coordinator: (file name, file).
    pub imported: RwSignal<Vec<(String, AnnotatorFile)>>,
    pub level: RwSignal<KrippendorffLevel>,
    /// Writes issued and not yet committed.
    pub pending: RwSignal<usize>,
    /// The last storage or validation problem.
    pub error: RwSignal<Option<String>>,
    /// Shown once when IndexedDB is unavailable.
    pub storage_note: RwSignal<Option<String>>,
    pub tab: RwSignal<Tab>,
    pub released: Released,
}

thread_local! {
    /// The screen's state while it is on the page, so a bundle opened elsewhere reaches it.
    static MOUNTED: RefCell<Option<Ctx>> = const { RefCell::new(None) };
}

impl Ctx {
    pub fn new() -> Ctx {
        Ctx {
            store: RwSignal::new_local(None),
            ready: RwSignal::new(false),
            study: RwSignal::new(None),
            annotator: RwSignal::new(String::new()),
            logs: RwSignal::new(BTreeMap::new()),
            cursor: RwSignal::new(Cursor::default()),
            imported: RwSignal::new(Vec::new()),
            level: RwSignal::new(KrippendorffLevel::Interval),
            pending: RwSignal::new(0),
            error: RwSignal::new(None),
            storage_note: RwSignal::new(None),
            tab: RwSignal::new(Tab::Setup),
            released: Released {
                reproduction: StoredValue::new_local(None),
                version: RwSignal::new(0),
                busy: RwSignal::new(None),
                problems: RwSignal::new(Vec::new()),
                view: RwSignal::new(None),
                generation: StoredValue::new(0),
            },
        }
    }

    /// Registers this state as the screen on the page until its owner is cleaned up.
    pub fn mount(self) {
        MOUNTED.with(|m| *m.borrow_mut() = Some(self));
        on_cleanup(|| MOUNTED.with(|m| *m.borrow_mut() = None));
    }

    /// Shows `error` in the screen's banner (nothing when the screen is gone).
    pub fn fail(&self, error: impl std::fmt::Display) {
        self.error.try_set(Some(error.to_string()));
    }

    /// The current annotator's log (empty when they have none yet).
    pub fn log(&self) -> Log {
        let name = self.annotator.get();
        self.logs.with(|m| m.get(&name).cloned().unwrap_or_default())
    }

    /// The current annotator's replayed state.
    pub fn state(&self) -> Annotation {
        let name = self.annotator.get();
        self.logs.with(|m| m.get(&name).map(Log::replay).unwrap_or_default())
    }

    /// Appends events to the current annotator's log and writes them to IndexedDB at once
    /// (one transaction, so a batch is all or nothing). Refused events append nothing; the
    /// banner says why. Whether the events were recorded.
    pub fn record(&self, events: Vec<Event>) -> bool {
        match self.try_record(events) {
            Ok(()) => {
                self.error.try_set(None);
                true
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    fn try_record(&self, events: Vec<Event>) -> Result<(), CoEvalError> {
        // `try_` reads: a timer may flush while the screen is being torn down.
        let study = self.study.try_get_untracked().flatten().ok_or(CoEvalError::NoStudy)?;
        let name = self.annotator.try_get_untracked().unwrap_or_default();
        if name.trim().is_empty() {
            return Err(CoEvalError::NoAnnotator);
        }
        let Some(mut log) =
            self.logs.try_with_untracked(|m| m.get(&name).cloned().unwrap_or_default())
        else {
            return Err(CoEvalError::NoStudy);
        };
        let start = log.events().len();
        for e in events {
            log.push(e)?;
        }
        let session = session(&study.task, &name);
        let records: Vec<(String, String)> = log.events()[start..]
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let json = serde_json::to_string(e).unwrap_or_default();
                (log_key(&session, (start + k) as u64), json)
            })
            .collect();
        self.logs.try_update(|m| {
            m.insert(name, log);
        });
        self.write(StoreName::Annotations, records);
        Ok(())
    }

    /// Records `event` after the current task, for a view being torn down (an `on_cleanup`):
    /// when the screen is still there it is [`Ctx::record`]ed; when the whole screen went with
    /// the view, it is written straight to storage as the next event of the annotator's log
    /// (what the screen reads back when it opens again), so leaving loses nothing.
    pub fn record_later(&self, event: Event) {
        let ctx = *self;
        let store = self.store.try_get_untracked().flatten();
        let study = self.study.try_get_untracked().flatten();
        let name = self.annotator.try_get_untracked().unwrap_or_default();
        let seq = self
            .logs
            .try_with_untracked(|m| m.get(&name).map_or(0, |l| l.events().len()))
            .unwrap_or(0);
        spawn_local(async move {
            if !ctx.logs.is_disposed() {
                ctx.record(vec![event]);
                return;
            }
            let (Some(db), Some(study)) = (store, study) else { return };
            if name.trim().is_empty() {
                return;
            }
            let key = log_key(&session(&study.task, &name), seq as u64);
            let json = serde_json::to_string(&event).unwrap_or_default();
            let _ = db.put(StoreName::Annotations, &key, &json).await;
        });
    }

    /// Writes entries in one transaction, tracking it in [`Ctx::pending`].
    pub fn write(&self, store: StoreName, entries: Vec<(String, String)>) {
        let Some(db) = self.store.try_get_untracked().flatten() else { return };
        let ctx = *self;
        ctx.pending.try_update(|n| *n += 1);
        spawn_local(async move {
            if let Err(e) = db.put_many(store, &entries).await {
                ctx.fail(CoEvalError::NotSaved(e));
            }
            ctx.pending.try_update(|n| *n = n.saturating_sub(1));
        });
    }

    /// Saves a setting (fire and forget, tracked in [`Ctx::pending`]).
    pub fn save_setting(&self, key: &str, value: String) {
        self.write(StoreName::Settings, vec![(key.to_owned(), value)]);
    }

    /// Moves the cursor and remembers it for this annotator.
    pub fn move_to(&self, cursor: Cursor) {
        self.cursor.set(cursor);
        if let Some(study) = self.study.get_untracked() {
            let key = cursor_key(&study.task, &self.annotator.get_untracked());
            self.save_setting(&key, serde_json::to_string(&cursor).unwrap_or_default());
        }
    }

    /// Every annotator's work for the current task: this device's logs, then imported files,
    /// merged (same annotator in several files: conflicts), with a name for each merged file.
    pub fn merged(&self) -> Result<(coeval::Merge, Vec<String>), MergeError> {
        let study = self.study.get();
        self.logs
            .with(|logs| self.imported.with(|imported| merge_all(study.as_deref(), logs, imported)))
    }

    /// [`Ctx::merged`] outside reactive tracking.
    pub fn merged_untracked(&self) -> Result<(coeval::Merge, Vec<String>), MergeError> {
        let study = self.study.get_untracked();
        self.logs.with_untracked(|logs| {
            self.imported.with_untracked(|imported| merge_all(study.as_deref(), logs, imported))
        })
    }

    /// The annotators' (name, state) after the merge, in merge order.
    pub fn annotations(&self) -> Vec<(String, Annotation)> {
        self.merged().map(|(m, _)| annotations_of(m)).unwrap_or_default()
    }

    /// The criteria of stage 2 for the annotations on this device and imported.
    pub fn stage2_criteria(&self, study: &Study) -> Vec<Stage2Criterion> {
        let annotations =
            self.merged_untracked().map(|(m, _)| annotations_of(m)).unwrap_or_default();
        let states: Vec<&Annotation> = annotations.iter().map(|(_, a)| a).collect();
        study.stage2_criteria_after(&states)
    }

    /// Starts a study: saves it and loads this device's logs for its task.
    pub fn open_study(&self, study: Study) {
        let json = serde_json::to_string(&study).unwrap_or_default();
        self.save_setting(STUDY_KEY, json);
        let ctx = *self;
        let study = Arc::new(study);
        self.study.set(Some(study.clone()));
        self.logs.set(BTreeMap::new());
        self.cursor.set(Cursor::default());
        spawn_local(async move {
            if let Some(db) = ctx.store.try_get_untracked().flatten() {
                super::tasks::load_logs(ctx, &db, &study).await;
            }
        });
    }

    /// Replaces the study (new criteria or LLM evaluations) keeping every log, and saves it.
    pub fn replace_study(&self, study: Study) {
        self.save_setting(STUDY_KEY, serde_json::to_string(&study).unwrap_or_default());
        self.study.try_set(Some(Arc::new(study)));
    }

    /// Switches the annotator and restores their cursor.
    pub fn set_annotator(&self, name: String) {
        let name = name.trim().to_owned();
        self.save_setting(ANNOTATOR_KEY, name.clone());
        self.annotator.set(name);
        let ctx = *self;
        spawn_local(async move {
            if let (Some(db), Some(study)) =
                (ctx.store.try_get_untracked().flatten(), ctx.study.try_get_untracked().flatten())
            {
                super::tasks::restore_cursor(ctx, &db, &study).await;
            }
        });
    }

    /// The screen's current state as a bundle carries it.
    fn snapshot(&self) -> Option<Snapshot> {
        let study = self.study.try_get_untracked().flatten()?;
        let annotator = self.annotator.try_get_untracked().unwrap_or_default();
        let logs = self.logs.try_get_untracked().unwrap_or_default();
        let imported = self.imported.try_get_untracked().unwrap_or_default();
        Some(Snapshot::capture(&study, &annotator, &logs, &imported))
    }
}

impl Default for Ctx {
    fn default() -> Ctx {
        Ctx::new()
    }
}

fn merge_all(
    study: Option<&Study>,
    logs: &BTreeMap<String, Log>,
    imported: &[(String, AnnotatorFile)],
) -> Result<(coeval::Merge, Vec<String>), MergeError> {
    match study {
        Some(study) => merge_annotators(study, logs, imported),
        None => Ok((coeval::Merge::default(), Vec::new())),
    }
}

/// The CoEval study as a bundle carries it ([`Snapshot`]): from the screen when it is open
/// (what it shows), else as `store` keeps it (what the screen would open with). `None` when
/// no study was set up.
pub async fn snapshot(store: &Store) -> Result<Option<Snapshot>, CoEvalError> {
    if let Some(s) = MOUNTED.with(|m| *m.borrow()).and_then(|ctx| ctx.snapshot()) {
        return Ok(Some(s));
    }
    let read = |what| move |error| CoEvalError::Read { what, error };
    let Some(study) = store
        .get(StoreName::Settings, STUDY_KEY)
        .await
        .map_err(read("study"))?
        .and_then(|json| serde_json::from_str::<Study>(&json).ok())
    else {
        return Ok(None);
    };
    let annotator =
        store.get(StoreName::Settings, ANNOTATOR_KEY).await.map_err(read("annotator"))?;
    let (logs, _problems) =
        super::tasks::read_logs(store, &study.task).await.map_err(read("annotations"))?;
    let imported = super::tasks::read_imported(store).await.map_err(read("imported files"))?;
    Ok(Some(Snapshot::capture(&study, &annotator.unwrap_or_default(), &logs, &imported)))
}

/// Replaces the CoEval study with a bundle's: its answers are read again, its logs replayed,
/// then everything is written to `store` as the screen writes it (the study, the annotator,
/// every event under its log key, the imported files — those of the previous study are
/// removed) and, when the screen is open, shown at once.
pub async fn apply_snapshot(store: &Store, snapshot: &Snapshot) -> Result<(), CoEvalError> {
    let restored = snapshot.restore()?;
    let study = &restored.study;
    let not_saved = CoEvalError::NotSaved;
    // The snapshot's task replaces what this device has for that task; other tasks' logs
    // stay (they are not the current study, and a later study of that task finds them).
    let prefix = format!("coeval/{}/", study.task);
    for key in store.keys_with_prefix(StoreName::Annotations, &prefix).await.map_err(not_saved)? {
        store.delete(StoreName::Annotations, &key).await.map_err(not_saved)?;
    }
    for key in
        store.keys_with_prefix(StoreName::Settings, IMPORTED_PREFIX).await.map_err(not_saved)?
    {
        store.delete(StoreName::Settings, &key).await.map_err(not_saved)?;
    }
    let mut events: Vec<(String, String)> = Vec::new();
    for (name, log) in &restored.logs {
        let session = session(&study.task, name);
        for (seq, e) in log.events().iter().enumerate() {
            events.push((
                log_key(&session, seq as u64),
                serde_json::to_string(e).unwrap_or_default(),
            ));
        }
    }
    store.put_many(StoreName::Annotations, &events).await.map_err(not_saved)?;
    let mut settings = vec![
        (STUDY_KEY.to_owned(), serde_json::to_string(study).unwrap_or_default()),
        (ANNOTATOR_KEY.to_owned(), restored.annotator.clone()),
    ];
    settings.extend(restored.imported.iter().map(|(name, f)| {
        (format!("{IMPORTED_PREFIX}{name}"), serde_json::to_string(f).unwrap_or_default())
    }));
    store.put_many(StoreName::Settings, &settings).await.map_err(not_saved)?;
    if let Some(ctx) = MOUNTED.with(|m| *m.borrow()) {
        ctx.show(restored);
    }
    Ok(())
}

impl Ctx {
    /// Shows a restored snapshot (already saved) on the open screen.
    fn show(&self, restored: concord_core::study::coeval::Restored) {
        let cursor = {
            let log = restored.logs.get(&restored.annotator).cloned().unwrap_or_default();
            let annotations = merge_annotators(&restored.study, &restored.logs, &restored.imported)
                .map(|(m, _)| annotations_of(m))
                .unwrap_or_default();
            let states: Vec<&Annotation> = annotations.iter().map(|(_, a)| a).collect();
            let criteria = restored.study.stage2_criteria_after(&states);
            concord_core::study::coeval::resume_cursor(&log, &restored.study.instances, &criteria)
        };
        self.study.try_set(Some(Arc::new(restored.study)));
        self.annotator.try_set(restored.annotator);
        self.logs.try_set(restored.logs);
        self.imported.try_set(restored.imported);
        self.cursor.try_set(cursor);
        self.error.try_set(None);
        self.ready.try_set(true);
    }
}
