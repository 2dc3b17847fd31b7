//! The Results screen's background work: reading every run's samples into per-item scores
//! (a run at a time, a slice of items at a time between yields, and only runs not read
//! before), and bootstrapping the shown table's intervals a cell at a time.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use concord_core::data;
use concord_core::study::workbench::report::{CellIntervals, cell_interval, interval_cells};
use concord_core::study::workbench::scores::{JudgeScores, ScoreReader, TableError};
use concord_core::study::workbench::{JudgedRun, ResultsTable, Scored, assemble};
use leptos::prelude::*;

use crate::edge::time::{FrameBudget, monotonic_ms};
use crate::state::{JudgeRuns, Workspace};

use concord_core::study::workbench::review::{Order, ReviewEvent, ReviewLog, ReviewerFile};
use concord_core::study::workbench::revise::{Draft, ReviewSnapshot, Revision, Split};

use super::state::{ResultsState, ReviewState};
use crate::edge::store::{Store, StoreError, StoreName};

/// What a run is, for the cache of read scores: where it came from, what it rates, how it is
/// read, and what its records and responses say (a run in progress grows, and the same study
/// run again with another model has other answers of the same size: both are read again).
#[derive(Clone, PartialEq, Eq, Hash)]
struct RunKey {
    origin: String,
    method: String,
    attribute: String,
    policy: &'static str,
    weighting: Option<&'static str>,
    records: usize,
    responses: usize,
    /// FNV-1a of every record's key, responses, cut-off marks and log-probabilities, in
    /// order: a run of another model can answer the same texts with other log-probabilities.
    content: u64,
}

/// FNV-1a, 64 bits, continued from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl RunKey {
    fn of(r: &JudgedRun) -> RunKey {
        let mut responses = 0;
        let mut content = 0xcbf2_9ce4_8422_2325;
        for rec in &r.run.records {
            responses += rec.responses.len();
            content = match &rec.key {
                data::RecordKey::Id(id) => fnv(content, id.as_bytes()),
                data::RecordKey::Item(k) => {
                    fnv(fnv(fnv(content, k.document.as_bytes()), &[0xfe]), k.system.as_bytes())
                }
            };
            for text in &rec.responses {
                content = fnv(content, text.as_bytes());
                content = fnv(content, &[0xff]);
            }
            for &i in &rec.cut_off {
                content = fnv(content, &(i as u64).to_le_bytes());
            }
            content = fnv(content, &[0xfd]);
            for tokens in &rec.logprobs {
                for token in tokens {
                    content = fnv(content, &(token.at as u64).to_le_bytes());
                    for (alt, logprob) in &token.alternatives {
                        content = fnv(content, alt.as_bytes());
                        content = fnv(content, &logprob.to_bits().to_le_bytes());
                    }
                }
                content = fnv(content, &[0xfc]);
            }
        }
        RunKey {
            origin: r.origin.clone(),
            method: r.method.clone(),
            attribute: r.attribute.clone(),
            policy: r.policy.name(),
            weighting: r.weighting.map(|w| w.name()),
            records: r.run.records.len(),
            responses,
            content,
        }
    }
}

thread_local! {
    /// Runs read before, kept while the page lives (the Results screen is mounted anew on
    /// each visit).
    static CACHE: RefCell<ScoreCache> = RefCell::new(ScoreCache::default());
}

fn with_cache<T>(f: impl FnOnce(&mut ScoreCache) -> T) -> T {
    CACHE.with(|c| f(&mut c.borrow_mut()))
}

/// A run read: its scores (or why it could not be read), and how long reading took (ms).
type Read = (Option<Result<JudgeScores, TableError>>, f64);

/// Runs read before, for the open dataset.
#[derive(Default)]
struct ScoreCache {
    /// The dataset they were read against (held, so its address cannot be reused).
    dataset: Option<Arc<data::Loaded>>,
    runs: HashMap<RunKey, Read>,
}

/// Reads every run not read before (one at a time, yielding to the browser between slices),
/// then publishes the scores and the time reading took; stops early when `current()` says
/// the runs changed.
pub async fn read_scores(
    ws: Workspace,
    runs: JudgeRuns,
    current: impl Fn() -> bool,
    scored: RwSignal<Option<(Arc<Scored>, f64)>>,
    reading: RwSignal<Option<String>>,
) {
    if !current() {
        return;
    }
    let open = ws.dataset.get_untracked();
    with_cache(|c| {
        if !c.dataset.as_ref().is_some_and(|d| Arc::ptr_eq(d, &open.loaded)) {
            *c = ScoreCache { dataset: Some(open.loaded.clone()), ..ScoreCache::default() };
        }
    });
    // A run at a time, yielding between (a 50 MB study's responses are all hashed).
    let mut keys: Vec<RunKey> = Vec::new();
    let mut budget = FrameBudget::new();
    for i in 0..runs.runs.with_untracked(Vec::len) {
        let Some(key) = runs.runs.with_untracked(|runs| runs.get(i).map(RunKey::of)) else {
            return;
        };
        keys.push(key);
        budget.tick().await;
        if !current() {
            return;
        }
    }
    let missing: Vec<usize> =
        with_cache(|c| (0..keys.len()).filter(|&i| !c.runs.contains_key(&keys[i])).collect());
    if !missing.is_empty() {
        scored.set(None);
        let dataset = &open.loaded.dataset;
        let mut budget = FrameBudget::new();
        for (done, &i) in missing.iter().enumerate() {
            reading.set(Some(format!(
                "Reading the responses of {}: {done} done…",
                concord_core::report::count(missing.len(), "judge run", "judge runs")
            )));
            // Time spent reading, not waiting between slices.
            let mut started = monotonic_ms();
            let mut took = 0.0;
            let reader = runs.runs.with_untracked(|runs| {
                runs.get(i).map(|r| {
                    (!r.run.records.is_empty()).then(|| {
                        ScoreReader::new(dataset, &r.method, &r.attribute, &r.run, r.policy)
                            .map(|reader| reader.with_weighting(r.weighting))
                    })
                })
            });
            let Some(reader) = reader else { return };
            // A run is read a slice of items at a time (a 10,000-item run of 20 samples is
            // 200,000 parses).
            let read = match reader {
                Some(Ok(mut reader)) => loop {
                    let finished = runs.runs.with_untracked(|runs| {
                        runs.get(i).is_none_or(|r| reader.step(&r.run, 500))
                    });
                    if finished {
                        break Some(Ok(reader.finish()));
                    }
                    if budget.spent() {
                        took += monotonic_ms() - started;
                        budget.yield_now().await;
                        started = monotonic_ms();
                        if !current() {
                            return;
                        }
                    }
                },
                Some(Err(e)) => Some(Err(e)),
                None => None,
            };
            took += monotonic_ms() - started;
            with_cache(|c| c.runs.insert(keys[i].clone(), (read, took)));
            budget.tick().await;
            if !current() {
                return;
            }
        }
    }
    if !current() {
        return;
    }
    let s = runs.runs.with_untracked(|runs| {
        with_cache(|c| assemble(runs, |i| c.runs.get(&keys[i]).and_then(|(read, _)| read.clone())))
    });
    // Keep the cache to the runs there are (an import replaces runs, a run in progress grows).
    let ms = with_cache(|c| {
        c.runs.retain(|k, _| keys.contains(k));
        c.runs.values().map(|(_, ms)| ms).sum::<f64>()
    });
    scored.set(Some((Arc::new(s), ms)));
    reading.set(None);
}

/// Bootstraps every cell of `table` under the current settings, one cell at a time with a
/// yield in between, and publishes the intervals; stops if the screen's state is disposed or
/// the table or settings change meanwhile (`current()`).
pub async fn compute_intervals(
    ws: Workspace,
    results: ResultsState,
    table: ResultsTable,
    current: impl Fn() -> bool,
) {
    let settings = results.settings.get_untracked();
    let dataset = ws.dataset.get_untracked();
    let mut out = CellIntervals::default();
    let mut budget = FrameBudget::new();
    for cell in interval_cells(&table, &settings.columns()) {
        if let Some(ci) = cell_interval(&dataset.loaded.dataset, &table, cell, &settings) {
            out.cells.push((cell, ci));
        }
        // One cell can take a while (1,000 resamples): yield after each.
        budget.yield_now().await;
        if !current() {
            results.computing.try_set(false);
            return;
        }
    }
    results.intervals.try_set(Some(out));
    results.computing.try_set(false);
}

/// The review's records in IndexedDB: each reviewer's log under `review/<name>/<seq>` in the
/// annotations store; the reviewer, order, seed and imported files in the settings store.
const REVIEWER_KEY: &str = "review-reviewer";
const ORDER_KEY: &str = "review-order";
const SEED_KEY: &str = "review-seed";
const IMPORTED_PREFIX: &str = "review-imported/";
const SPLIT_KEY: &str = "review-split";
const META_KEY: &str = "review-meta-template";
const REVISIONS_KEY: &str = "review-revisions";
const DRAFT_KEY: &str = "review-draft";

/// The annotations-store session of `reviewer`'s log on the dataset `scope`
/// ([`concord_core::study::workbench::review::dataset_scope`]).
fn review_session(scope: &str, reviewer: &str) -> String {
    format!("review/{scope}/{reviewer}")
}

fn imported_prefix(scope: &str) -> String {
    format!("{IMPORTED_PREFIX}{scope}/")
}

fn scoped(key: &str, scope: &str) -> String {
    format!("{key}/{scope}")
}

/// Why the review could not be read from or written to this browser's storage.
#[derive(Debug, thiserror::Error)]
pub enum ReviewStoreError {
    #[error("the review could not be read from this browser's storage ({0}); reload to try again")]
    Read(StoreError),
    #[error(
        "the review could not be saved in this browser ({0}); export your review file before leaving"
    )]
    Write(StoreError),
}

/// Reads the review of the dataset `scope` (reviewer, walk, imported files, split, revisions,
/// the reviewer's log) from `store`.
pub async fn load_review(
    review: ReviewState,
    store: &Store,
    scope: String,
) -> Result<(), ReviewStoreError> {
    let get = |key: String| async move {
        store.get(StoreName::Settings, &key).await.map_err(ReviewStoreError::Read)
    };
    let reviewer = get(REVIEWER_KEY.to_owned()).await?.unwrap_or_default();
    let order =
        get(ORDER_KEY.to_owned()).await?.and_then(|o| Order::from_name(&o)).unwrap_or_default();
    let seed = get(SEED_KEY.to_owned()).await?.and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let prefix = imported_prefix(&scope);
    let imported: Vec<(String, ReviewerFile)> = store
        .get_with_prefix(StoreName::Settings, &prefix)
        .await
        .map_err(ReviewStoreError::Read)?
        .into_iter()
        .filter_map(|(key, json)| {
            let name = key.strip_prefix(&prefix)?.to_owned();
            serde_json::from_str::<ReviewerFile>(&json).ok().map(|f| (name, f))
        })
        .collect();
    let split =
        get(scoped(SPLIT_KEY, &scope)).await?.and_then(|j| serde_json::from_str::<Split>(&j).ok());
    let meta = get(scoped(META_KEY, &scope)).await?;
    let revisions = get(scoped(REVISIONS_KEY, &scope))
        .await?
        .and_then(|j| serde_json::from_str::<Vec<Revision>>(&j).ok())
        .unwrap_or_default();
    let draft =
        get(scoped(DRAFT_KEY, &scope)).await?.and_then(|j| serde_json::from_str::<Draft>(&j).ok());
    let log = read_review_log(store, &scope, &reviewer).await?;
    let n = log.events().len();
    review.draft.try_set(draft);
    review.scope.try_set(Some(scope));
    review.split.try_set(split);
    review.meta_template.try_set(meta);
    review.revisions.try_set(revisions);
    review.reviewer.try_set(reviewer);
    review.order.try_set(order);
    review.seed.try_set(seed);
    review.imported.try_set(imported);
    review.log.try_set(log);
    review.saved.try_set(n);
    review.loaded.try_set(true);
    Ok(())
}

/// The log of `reviewer` as stored (kept up to its first event that does not replay).
async fn read_review_log(
    store: &Store,
    scope: &str,
    reviewer: &str,
) -> Result<ReviewLog, ReviewStoreError> {
    if reviewer.trim().is_empty() {
        return Ok(ReviewLog::new());
    }
    let records =
        store.read_log(&review_session(scope, reviewer)).await.map_err(ReviewStoreError::Read)?;
    let mut log = ReviewLog::new();
    for (_, json) in records {
        let Ok(event) = serde_json::from_str::<ReviewEvent>(&json) else { break };
        if log.push(event).is_err() {
            break;
        }
    }
    Ok(log)
}

/// Another reviewer works in this browser: their name is kept and their log read (unless the
/// name changed again meanwhile).
pub async fn switch_reviewer(
    review: ReviewState,
    store: &Store,
    name: String,
) -> Result<(), ReviewStoreError> {
    store.put(StoreName::Settings, REVIEWER_KEY, &name).await.map_err(ReviewStoreError::Write)?;
    let scope = review.scope.try_get_untracked().flatten().unwrap_or_default();
    let log = read_review_log(store, &scope, &name).await?;
    if review.reviewer.try_get_untracked().as_deref() != Some(name.as_str()) {
        return Ok(());
    }
    let n = log.events().len();
    review.log.try_set(log);
    review.saved.try_set(n);
    review.loaded.try_set(true);
    Ok(())
}

/// The walk's order and seed, kept for the next visit.
pub async fn save_walk(store: &Store, order: Order, seed: u64) -> Result<(), ReviewStoreError> {
    let entries = [(ORDER_KEY, order.name().to_owned()), (SEED_KEY, seed.to_string())];
    store.put_many(StoreName::Settings, &entries).await.map_err(ReviewStoreError::Write)
}

/// Keeps the split, the edited meta-prompt and the revisions (each written whole: they change
/// a few times per session, not per keystroke).
pub async fn save_revising(
    store: &Store,
    scope: &str,
    split: Option<&Split>,
    meta_template: Option<&str>,
    revisions: &[Revision],
) -> Result<(), ReviewStoreError> {
    let write = ReviewStoreError::Write;
    match split {
        Some(s) => {
            let json = serde_json::to_string(s).unwrap_or_default();
            store
                .put(StoreName::Settings, &scoped(SPLIT_KEY, scope), &json)
                .await
                .map_err(write)?;
        }
        None => {
            store.delete(StoreName::Settings, &scoped(SPLIT_KEY, scope)).await.map_err(write)?
        }
    }
    match meta_template {
        Some(m) => {
            store.put(StoreName::Settings, &scoped(META_KEY, scope), m).await.map_err(write)?
        }
        None => store.delete(StoreName::Settings, &scoped(META_KEY, scope)).await.map_err(write)?,
    }
    let json = serde_json::to_string(revisions).unwrap_or_default();
    store.put(StoreName::Settings, &scoped(REVISIONS_KEY, scope), &json).await.map_err(write)
}

/// Writes the proposal being edited (none: removes it) the moment it changes.
pub async fn save_draft(
    store: &Store,
    scope: &str,
    draft: Option<&Draft>,
) -> Result<(), ReviewStoreError> {
    let write = ReviewStoreError::Write;
    let key = scoped(DRAFT_KEY, scope);
    match draft {
        Some(d) => {
            let json = serde_json::to_string(d).unwrap_or_default();
            store.put(StoreName::Settings, &key, &json).await.map_err(write)
        }
        None => store.delete(StoreName::Settings, &key).await.map_err(write),
    }
}

/// Writes event `seq` of the reviewer's log the moment it is made.
pub async fn append_review(
    review: ReviewState,
    store: &Store,
    scope: &str,
    reviewer: &str,
    seq: usize,
    event: &ReviewEvent,
) -> Result<(), ReviewStoreError> {
    let json = serde_json::to_string(event).unwrap_or_default();
    store
        .append_log(&review_session(scope, reviewer), seq as u64, &json)
        .await
        .map_err(ReviewStoreError::Write)?;
    review.saved.try_update(|n| *n = (*n).max(seq + 1));
    Ok(())
}

/// Keeps an imported reviewer file under `name` (a later file of that name replaces it).
pub async fn save_imported(
    store: &Store,
    scope: &str,
    name: &str,
    file: &ReviewerFile,
) -> Result<(), ReviewStoreError> {
    let json = serde_json::to_string(file).unwrap_or_default();
    store
        .put(StoreName::Settings, &format!("{}{name}", imported_prefix(scope)), &json)
        .await
        .map_err(ReviewStoreError::Write)
}

/// Replaces this browser's review with a bundle's: every stored log and imported file is
/// removed; the bundle's reviewer's (last) file becomes the log of this browser, the other files
/// imported ones, written as the panel writes them.
pub async fn apply_review_snapshot(
    review: ReviewState,
    store: &Store,
    scope: &str,
    snapshot: Option<&ReviewSnapshot>,
) -> Result<(), ReviewStoreError> {
    let write = ReviewStoreError::Write;
    let logs = format!("review/{scope}/");
    for key in store.keys_with_prefix(StoreName::Annotations, &logs).await.map_err(write)? {
        store.delete(StoreName::Annotations, &key).await.map_err(write)?;
    }
    let imported = imported_prefix(scope);
    for key in store.keys_with_prefix(StoreName::Settings, &imported).await.map_err(write)? {
        store.delete(StoreName::Settings, &key).await.map_err(write)?;
    }
    let empty = ReviewSnapshot::default();
    let snapshot = snapshot.unwrap_or(&empty);
    let own = snapshot.files.iter().rposition(|f| f.person == snapshot.reviewer);
    let mut imported = Vec::new();
    for (i, file) in snapshot.files.iter().enumerate() {
        if Some(i) != own {
            let name = format!("{}-{}.json", i + 1, file.person);
            save_imported(store, scope, &name, file).await?;
            imported.push((name, file.clone()));
        }
    }
    let log =
        own.and_then(|i| snapshot.files.get(i)).and_then(|f| f.log().ok()).unwrap_or_default();
    let session = review_session(scope, &snapshot.reviewer);
    let records: Vec<(String, String)> = log
        .events()
        .iter()
        .enumerate()
        .map(|(seq, e)| {
            (
                crate::edge::store::log_key(&session, seq as u64),
                serde_json::to_string(e).unwrap_or_default(),
            )
        })
        .collect();
    store.put_many(StoreName::Annotations, &records).await.map_err(write)?;
    store.put(StoreName::Settings, REVIEWER_KEY, &snapshot.reviewer).await.map_err(write)?;
    save_walk(store, snapshot.order, snapshot.seed).await?;
    save_revising(
        store,
        scope,
        snapshot.split.as_ref(),
        snapshot.meta_template.as_deref(),
        &snapshot.revisions,
    )
    .await?;
    review.scope.set(Some(scope.to_owned()));
    review.split.set(snapshot.split.clone());
    review.meta_template.set(snapshot.meta_template.clone());
    review.revisions.set(snapshot.revisions.clone());
    let n = log.events().len();
    review.reviewer.set(snapshot.reviewer.clone());
    review.order.set(snapshot.order);
    review.seed.set(snapshot.seed);
    review.imported.set(imported);
    review.log.set(log);
    review.saved.set(n);
    review.cursor.set(0);
    review.loaded.set(true);
    Ok(())
}

/// Why an LLM step of a revision did not give its answers.
#[derive(Debug, thiserror::Error)]
pub enum RevisionRunError {
    #[error("this browser's storage is not open yet; wait a moment and try again")]
    NoStorage,
    #[error("no model is connected; set the provider, address and model on the Run screen")]
    NotConnected,
    #[error("{0}")]
    Ended(String),
    #[error("the LLM gave no answer to {0}; try again")]
    NoAnswer(String),
}

/// Sends `prompts` (tag, prompt) with `sampling` through the run engine (answers cached like
/// every other) and returns each prompt's answers, in order, with the cost when priced.
/// `model`, when given, replaces the Run screen's model (same provider, address and key).
pub async fn ask(
    access: crate::screens::run::state::LlmAccess,
    model: Option<String>,
    prompts: Vec<(String, String)>,
    sampling: concord_core::judge::protocol::Sampling,
    status: RwSignal<Option<String>>,
) -> Result<(Vec<Vec<String>>, Option<f64>), RevisionRunError> {
    use std::sync::Arc;

    use concord_core::run::{Finish, cache_key_for, sample_batches};
    use concord_core::study::workbench::plan::request;

    use crate::run::runner::{self, CallSpec, RunControl};

    let mut form = access.connection.get_untracked();
    if let Some(model) = model.filter(|m| !m.trim().is_empty()) {
        form.model = model.trim().to_owned();
    }
    if form.model.trim().is_empty() || form.base_url.trim().is_empty() {
        return Err(RevisionRunError::NotConnected);
    }
    let connection = form.connection();
    let store = access.store.get_untracked().ok_or(RevisionRunError::NoStorage)?;
    let memory = access.memory.get_value();
    let n = sampling.n.max(1);
    let mut calls = Vec::new();
    let mut keys: Vec<Vec<String>> = Vec::new();
    for (tag, prompt) in prompts {
        let req = request(tag, prompt, &sampling);
        let prompt_keys: Vec<String> = (0..n)
            .map(|i| cache_key_for(&connection.endpoint, &connection.caps, &req, i))
            .collect();
        let (req, shared) = (Arc::new(req), Arc::<[String]>::from(prompt_keys.clone()));
        for b in sample_batches(n, &connection.caps) {
            calls.push(CallSpec { request: req.clone(), samples: b, prompt_keys: shared.clone() });
        }
        keys.push(prompt_keys);
    }
    let priced = connection.price.is_some();
    let provider = connection.endpoint.provider;
    let outcome =
        runner::execute(connection, &calls, store, memory.clone(), RunControl::new(), move |r| {
            status.try_set(Some(format!(
                "{} of {} calls done, {} cached, {} failed",
                r.progress.done, r.progress.total, r.cached, r.progress.failed
            )));
        })
        .await;
    if !matches!(outcome.finish, Finish::Completed) {
        let said = outcome.finish.describe(provider);
        return Err(RevisionRunError::Ended(match said.advice {
            Some(advice) => format!("{} {advice}", said.message),
            None => said.message,
        }));
    }
    let texts = memory.borrow();
    let answers: Vec<Vec<String>> =
        keys.iter().map(|ks| ks.iter().filter_map(|k| texts.get(k).cloned()).collect()).collect();
    Ok((answers, priced.then_some(outcome.progress.cost_usd)))
}
