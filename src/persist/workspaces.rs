//! Workspaces that persist: the workbench (dataset, study, runs, raters, Results view), the
//! meta-evaluation workspace and the provider settings (never the key) are saved in this
//! browser as they change and come back on reload.
//!
//! Each workspace is stored as its bundle ([`crate::persist::bundle::save_bundle_with`], key-free by
//! design) in IndexedDB's `workspaces` store, as bytes; the list of workspaces, which one is
//! open and what each carries beside its bundle ([`concord_core::workspace`]: provider
//! settings, the Judge screen's study, where the runs came from) is the `workspaces` setting.
//! The CoEval study is not in it: it is saved action by action on its own.
//!
//! - **Restore** ([`start`]): before any screen is shown, the open workspace is read back and
//!   applied; then `<html data-workspace="ready">` is set (and `data-workspace-saves` counts
//!   the saves since, for the tests). A damaged one is said once, the app
//!   starts on the built-in example and nothing else stored is touched.
//! - **Autosave** ([`autosave`]): 1.5 s after the last change, never while a run is in
//!   progress (its end saves it).
//! - **Fork, duplicate, switch** ([`fork`], [`duplicate`], [`switch`]): what the Data screen's
//!   Workspace panel (`screens::data::workspace_panel`) and the openers of bundles and
//!   exercises call; a bundle opened from an address becomes a new workspace
//!   ([`open_bundle_url`]).

use concord_core::run::ProviderId;
use concord_core::study::workbench::import::file_stem;
use concord_core::workspace::{
    self, Entry, Extras, Index, Pending, SavedConnection, WorkspaceError,
};
use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;

use crate::edge::store::{Store, StoreError, StoreName};
use crate::edge::time;
use crate::edge::worker::WorkerError;
use crate::edge::worker::bundle as bundle_wire;
use crate::edge::worker::protocol::call_split;
use crate::persist::Workspaces;
use crate::persist::bundle::{Boxed, BundleFailure, BundleTargets, open_bundle, save_bundle_with};
use crate::screens::run::state::ConnectionForm;
use crate::state::{OpenDataset, Screen, example_source};

/// The setting that holds the list of workspaces ([`Index`] as JSON).
pub const INDEX_KEY: &str = "workspaces";
/// How long after the last change a workspace is saved.
const AUTOSAVE_MS: u32 = 1500;
/// How long start-up waits for storage before it shows the example instead.
const RESTORE_TIMEOUT_MS: u32 = 8000;

/// Why a workspace could not be saved or opened.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceFailure {
    #[error("The workspace could not be saved in this browser: {0}. Export it to keep a copy.")]
    Store(StoreError),
    #[error("The workspace could not be saved: {0}")]
    Bundle(BundleFailure),
    #[error("{0}")]
    Read(WorkspaceError),
    /// The part of the program that reads saved workspaces could not be downloaded: what is
    /// saved stays as it is.
    #[error(
        "Your saved workspaces could not be opened: {0}. They are kept as they were (a reload opens them); until then this is a new workspace."
    )]
    Unopened(WorkerError),
    /// The same, for an operation on the workspaces (switch, duplicate): nothing changed.
    #[error("{0}")]
    Program(WorkerError),
    #[error(
        "This browser's storage did not open in time (another Concord tab may be updating it): close other Concord tabs and reload. Until then changes are not saved."
    )]
    Slow,
}

/// The provider settings a workspace keeps: the form without the key (and its address without
/// anything a key could hide in).
pub fn saved_connection(form: &ConnectionForm) -> SavedConnection {
    SavedConnection {
        provider: form.provider.slug().to_owned(),
        base_url: form.base_url.clone(),
        model: form.model.clone(),
        max_concurrency: form.max_concurrency,
        requests_per_minute: form.requests_per_minute,
        spend_cap_usd: form.spend_cap_usd,
        timeout_s: form.timeout_s,
        item_limit: form.item_limit,
        gemini_thinking: form.gemini_thinking,
    }
    .with_public_url()
}

fn iso_now() -> String {
    js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default()
}

/// The list of workspaces; a damaged one reads as empty (and is said).
async fn read_index(store: &Store) -> Result<Index, WorkspaceError> {
    match store.get(StoreName::Settings, INDEX_KEY).await {
        Ok(None) => Ok(Index::default()),
        Ok(Some(text)) => Index::from_json(&text),
        Err(e) => Err(WorkspaceError::Index(e.to_string())),
    }
}

fn show_list(w: Workspaces, index: &Index) {
    w.list.try_set(index.by_name().into_iter().map(|e| (e.id.clone(), e.name.clone())).collect());
}

/// Marks the page: the saved workspace is restored (tests wait for it).
fn mark_ready(w: Workspaces) {
    if w.ready.get_untracked() {
        return;
    }
    w.ready.set(true);
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-workspace", "ready");
    }
}

/// Restores the open workspace, then marks the page ready (`Workspaces::ready`). Called once
/// storage opened.
pub async fn start(t: BundleTargets, w: Workspaces) {
    if w.ready.get_untracked() {
        // Storage took too long and the example is shown: do not replace it under the user.
        return;
    }
    let Some(store) = t.storage.store.get_untracked() else {
        mark_ready(w);
        return;
    };
    w.opening.set_value(true);
    // A first visit has no list: nothing to read, and the code that reads it is not fetched.
    match store.get(StoreName::Settings, INDEX_KEY).await {
        Err(e) => w.message.set(Some((false, WorkspaceError::Index(e.to_string()).to_string()))),
        Ok(None) => {}
        Ok(Some(text)) => match call_split!(workspaces_io) {
            Ok(io) => (io.restore)(t, w, store, text).await,
            Err(e) => w.message.set(Some((false, WorkspaceFailure::Unopened(e).to_string()))),
        },
    }
    // The changes just made are the workspace itself: let their effects run before saving
    // resumes.
    time::yield_now().await;
    w.opening.set_value(false);
    mark_ready(w);
}

/// Reads the list of workspaces (`text`, stored) and opens the one that was open.
async fn restore_here(t: BundleTargets, w: Workspaces, store: Store, text: String) {
    match Index::from_json(&text) {
        Err(e) => w.message.set(Some((false, e.to_string()))),
        Ok(index) => {
            show_list(w, &index);
            if let Some(entry) = index.current().cloned() {
                w.id.set(entry.id.clone());
                w.name.set(entry.name.clone());
                match open_saved(t, &store, &entry).await {
                    Err(e) => {
                        reset_workbench(t);
                        w.message.set(Some((false, e.to_string())));
                    }
                    // Edits the page closed on: applied, then saved with the workspace.
                    Ok(()) if apply_pending(t, &store, &entry).await => save_serial(t, w).await,
                    Ok(()) => {}
                }
            }
        }
    }
}

/// What reads and writes saved workspaces: in the page's I/O chunk (`split_page_io.wasm`),
/// with [`crate::persist::bundle`]'s `Io`.
#[derive(Clone, Copy)]
pub(crate) struct Io {
    restore: fn(BundleTargets, Workspaces, Store, String) -> Boxed<()>,
    save_now: fn(BundleTargets, Workspaces) -> Boxed<Result<(), WorkspaceFailure>>,
    fork: fn(BundleTargets, Workspaces, String) -> Boxed<()>,
    duplicate: fn(BundleTargets, Workspaces) -> Boxed<()>,
    switch: fn(BundleTargets, Workspaces, String) -> Boxed<()>,
    open_url: fn(BundleTargets, String) -> Boxed<()>,
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
pub(crate) fn workspaces_io() -> Result<Io, WorkerError> {
    Ok(Io {
        restore: |t, w, store, text| Box::pin(restore_here(t, w, store, text)),
        save_now: |t, w| Box::pin(save_now_here(t, w)),
        fork: |t, w, name| Box::pin(fork_here(t, w, name)),
        duplicate: |t, w| Box::pin(duplicate_here(t, w)),
        switch: |t, w, id| Box::pin(switch_here(t, w, id)),
        open_url: |t, url| Box::pin(open_url_here(t, url)),
    })
}

/// Shows the example if storage has not opened after a while (a blocked upgrade).
pub async fn start_deadline(storage: crate::state::Storage, w: Workspaces) {
    time::sleep(RESTORE_TIMEOUT_MS).await;
    if !w.ready.get_untracked() && storage.store.get_untracked().is_none() {
        w.message.set(Some((false, WorkspaceFailure::Slow.to_string())));
        mark_ready(w);
    }
}

/// Opens a saved workspace's bundle (in the loader's worker) and what it carries beside it.
async fn open_saved(t: BundleTargets, store: &Store, entry: &Entry) -> Result<(), WorkspaceError> {
    let damaged = |why: String| WorkspaceError::Damaged { name: entry.name.clone(), why };
    let bytes = store
        .get_bytes(StoreName::Workspaces, &entry.id)
        .await
        .map_err(|e| damaged(e.to_string()))?
        .ok_or_else(|| WorkspaceError::Missing(entry.name.clone()))?;
    let bundle = bundle_wire::open(&entry.name, bytes).await.map_err(|e| damaged(e.to_string()))?;
    crate::persist::bundle::apply_bundle(t, bundle, &entry.name)
        .await
        .map_err(|e| damaged(e.to_string()))?;
    apply_extras(t, &entry.extras);
    // What is open now is what is saved.
    t.saved.saved_at.set_value(entry.saved.clone());
    t.saved.saved_heavy.set_value(heavy_signature(t));
    Ok(())
}

/// Applies the edits a page closed before saving ([`Pending`]) when they follow `entry` as
/// saved; whether it did (the workspace is then saved with them).
async fn apply_pending(t: BundleTargets, store: &Store, entry: &Entry) -> bool {
    let Ok(Some(text)) = store.get(StoreName::Settings, Pending::KEY).await else { return false };
    let Some(pending) = Pending::from_json(&text).filter(|p| p.applies_to(entry)) else {
        return false;
    };
    t.saved.name.set(pending.name.clone());
    apply_extras(t, &pending.extras);
    t.results.settings.set(pending.settings);
    t.rate.raters.set(pending.raters);
    if let Some(meta) = pending.meta {
        crate::screens::meta::state::apply_settings(&meta);
    }
    true
}

/// The edits a save would carry that fit in [`Pending`]; `None` without a saved workspace.
fn pending_now(t: BundleTargets, w: Workspaces) -> Option<Pending> {
    let workspace = w.id.get_untracked();
    if workspace.is_empty() {
        return None;
    }
    Some(Pending {
        workspace,
        after: w.saved_at.get_value(),
        name: w.name.get_untracked(),
        extras: extras_now(t),
        settings: t.results.settings.get_untracked(),
        raters: t.rate.raters.get_untracked(),
        meta: Some(crate::screens::meta::state::settings_now()),
    })
}

fn extras_now(t: BundleTargets) -> Extras {
    Extras {
        connection: Some(saved_connection(&t.run.connection.get_untracked())),
        judge_study: Some(t.judge.study.get_untracked()),
        source: t.results.bundle_source.get_untracked(),
        source_runs: t.results.bundle_runs.get_untracked(),
    }
}

/// A digest of what only a full save carries — the dataset, the runs (each one's name and
/// record count), the run notes, the meta-evaluation workspace's files and live runs — cheap
/// to take: a page closed after it changed since the last save cannot keep the change in
/// [`Pending`].
fn heavy_signature(t: BundleTargets) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    t.ws.dataset.with_untracked(|d| {
        let dataset = &d.loaded.dataset;
        (&dataset.name, dataset.items.len(), dataset.items.first().map(|i| &i.id)).hash(&mut h);
        (std::sync::Arc::as_ptr(&d.loaded) as usize).hash(&mut h);
    });
    t.runs.runs.with_untracked(|runs| {
        for r in runs {
            (&r.method, &r.attribute, &r.origin, r.run.records.len()).hash(&mut h);
        }
    });
    t.runs.notes.with_untracked(|n| n.len().hash(&mut h));
    crate::screens::meta::state::files_signature().hash(&mut h);
    h.finish()
}

/// The page is being hidden or closed: a save still pending cannot finish in time (the
/// bundle is written by a worker), so its small edits are written at once ([`Pending`],
/// started here, in the event's handler, so the browser commits it as the page goes), then a
/// full save is started for a page that lives on (hidden, not closed).
fn flush_now(t: BundleTargets, w: Workspaces) {
    let pending = w.generation.get_value() != w.saved_generation.get_value();
    if !pending || !w.ready.get_untracked() || w.opening.get_value() {
        return;
    }
    let Some(store) = t.storage.store.get_untracked() else { return };
    if heavy_signature(t) == w.saved_heavy.get_value()
        && let Some(edits) = pending_now(t, w)
    {
        let json = edits.to_json();
        spawn_local(async move {
            let _ = store.put(StoreName::Settings, Pending::KEY, &json).await;
        });
    }
    if !t.run.view.get_untracked().running {
        spawn_local(save_serial(t, w));
    }
}

fn apply_extras(t: BundleTargets, extras: &Extras) {
    if let Some(saved) = &extras.connection {
        let provider = ProviderId::from_slug(&saved.provider).unwrap_or(ProviderId::Custom);
        // The key (memory only, or remembered by the user's choice) stays as it is.
        t.run.connection.update(|c| {
            c.provider = provider;
            c.base_url = saved.base_url.clone();
            c.model = saved.model.clone();
            c.max_concurrency = saved.max_concurrency;
            c.requests_per_minute = saved.requests_per_minute;
            c.spend_cap_usd = saved.spend_cap_usd;
            c.timeout_s = saved.timeout_s;
            c.item_limit = saved.item_limit;
            c.gemini_thinking = saved.gemini_thinking;
        });
    }
    if let Some(study) = &extras.judge_study {
        t.judge.study.set(study.clone());
    }
    t.results.bundle_source.set(extras.source.clone());
    t.results.bundle_runs.set(extras.source_runs.clone());
}

/// Puts the workbench back to the built-in example with no study, runs, raters or view
/// settings (the provider settings stay).
pub fn reset_workbench(t: BundleTargets) {
    t.ws.source.set_value(Some(example_source()));
    t.ws.dataset.set(OpenDataset::example());
    t.ws.load_error.set(None);
    t.judge.study.set(Default::default());
    t.runs.runs.set(Vec::new());
    t.runs.ran_with.set_value(None);
    t.runs.notes.set(Vec::new());
    t.rate.raters.set(Vec::new());
    t.results.settings.set(Default::default());
    t.results.intervals.set(None);
    t.results.selected.set(None);
    t.results.item.set(None);
    t.results.bundle_url.set(None);
    t.results.bundle_source.set(None);
    t.results.bundle_runs.set(Vec::new());
}

/// Writes the open workspace: its bundle, then its entry in the list.
async fn save_now(t: BundleTargets, w: Workspaces) -> Result<(), WorkspaceFailure> {
    let io = call_split!(workspaces_io).map_err(|e| WorkspaceFailure::Bundle(e.into()))?;
    (io.save_now)(t, w).await
}

async fn save_now_here(t: BundleTargets, w: Workspaces) -> Result<(), WorkspaceFailure> {
    let Some(store) = t.storage.store.get_untracked() else { return Ok(()) };
    // The change this save carries (a later one is saved by another pass), and what of the
    // workspace only a full save carries, as it reads it.
    let generation = w.generation.get_value();
    let heavy = heavy_signature(t);
    let (_, json) = save_bundle_with(t, false).await.map_err(WorkspaceFailure::Bundle)?;
    // A damaged list is replaced by a new one (its workspaces' bundles stay stored).
    let mut index = read_index(&store).await.unwrap_or_default();
    let mut id = w.id.get_untracked();
    if id.is_empty() {
        id = index.new_id(time::now_ms());
        w.id.set(id.clone());
    }
    store
        .put_bytes(StoreName::Workspaces, &id, &Uint8Array::new(&json))
        .await
        .map_err(WorkspaceFailure::Store)?;
    let extras = extras_now(t);
    let saved = iso_now();
    index.save(Entry { id, name: w.name.get_untracked(), saved: saved.clone(), extras });
    store
        .put(StoreName::Settings, INDEX_KEY, &index.to_json())
        .await
        .map_err(WorkspaceFailure::Store)?;
    w.saved_at.set_value(saved);
    w.saved_heavy.set_value(heavy);
    if w.generation.get_value() == generation {
        w.saved_generation.set_value(generation);
    }
    // Edits kept when a page closed are in this save (or follow it and are written again).
    let _ = store.delete(StoreName::Settings, Pending::KEY).await;
    show_list(w, &index);
    // How many saves this page made, for the tests to wait on.
    w.saves.update_value(|n| *n += 1);
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-workspace-saves", &w.saves.get_value().to_string());
    }
    Ok(())
}

/// Saves now, or after the save under way (one at a time; changes made meanwhile are saved by
/// another pass).
async fn save_serial(t: BundleTargets, w: Workspaces) {
    if w.saving.get_value() {
        w.again.set_value(true);
        return;
    }
    w.saving.set_value(true);
    loop {
        w.again.set_value(false);
        if let Err(e) = save_now(t, w).await {
            w.message.try_set(Some((false, e.to_string())));
        }
        if !w.again.get_value() {
            break;
        }
    }
    w.saving.set_value(false);
}

/// Saves what changed before an operation that opens another workspace, and waits for it.
pub async fn flush(t: BundleTargets, w: Workspaces) {
    while w.saving.get_value() {
        time::sleep(30).await;
    }
    w.generation.update_value(|g| *g += 1);
    save_serial(t, w).await;
}

/// Saves the workspace [`AUTOSAVE_MS`] after it last changed, never during a run (its end is a
/// change). Create once, in the app's owner.
/// Every change is flushed when the page is hidden or closed ([`flush_now`]: `pagehide`, and
/// `visibilitychange` to hidden, which is the last event a mobile browser promises).
pub fn autosave(t: BundleTargets, w: Workspaces) {
    let running = Memo::new(move |_| t.run.view.with(|v| v.running));
    let connection = Memo::new(move |_| t.run.connection.with(saved_connection));
    Effect::new(move |_| {
        t.ws.dataset.track();
        t.judge.study.track();
        t.runs.runs.track();
        t.runs.notes.track();
        t.rate.raters.track();
        t.results.settings.track();
        t.results.bundle_source.track();
        // A memo is read, not only tracked: `track` does not compute it, and a memo never
        // computed does not follow its sources.
        connection.get();
        w.name.track();
        crate::screens::meta::state::track_changes();
        let running = running.get();
        // Untracked: the restore itself (or start-up without one) is not a change to save.
        if !w.ready.get_untracked() || running || w.opening.get_value() {
            return;
        }
        w.generation.update_value(|g| *g += 1);
        let this = w.generation.get_value();
        spawn_local(async move {
            time::sleep(AUTOSAVE_MS).await;
            let current = w.generation.try_get_value() == Some(this);
            if current && !t.run.view.get_untracked().running && !w.opening.get_value() {
                save_serial(t, w).await;
            }
        });
    });
    // Made in the app's owner, which lives as long as the page: never removed.
    let hidden = || document().visibility_state() == web_sys::VisibilityState::Hidden;
    let _ = window_event_listener(leptos::ev::pagehide, move |_| flush_now(t, w));
    let _ = window_event_listener(leptos::ev::visibilitychange, move |_| {
        if hidden() {
            flush_now(t, w);
        }
    });
}

/// Starts a new workspace named `name` for a bundle about to be opened: what is open now is
/// saved first and kept as it is.
pub async fn fork(t: BundleTargets, w: Workspaces, name: &str) {
    match call_split!(workspaces_io) {
        Ok(io) => (io.fork)(t, w, name.to_owned()).await,
        // What opens next needs the same chunk and will say so; a workspace without an id
        // gets one when first saved.
        Err(_) => {
            w.id.set(String::new());
            w.name.set(forked_name(name));
        }
    }
}

/// The name of a workspace forked for `name` (a file name or an address).
fn forked_name(name: &str) -> String {
    workspace::clean_name(file_stem(name.rsplit('/').next().unwrap_or(name)))
}

async fn fork_here(t: BundleTargets, w: Workspaces, name: String) {
    let name = name.as_str();
    if t.storage.store.get_untracked().is_some() && w.ready.get_untracked() {
        flush(t, w).await;
    }
    let index = match t.storage.store.get_untracked() {
        Some(store) => read_index(&store).await.unwrap_or_default(),
        None => Index::default(),
    };
    w.id.set(index.new_id(time::now_ms()));
    w.name.set(forked_name(name));
}

/// Duplicates the open workspace: the copy is saved under a new name and opened; the original
/// stays as it was.
pub async fn duplicate(t: BundleTargets, w: Workspaces) {
    match call_split!(workspaces_io) {
        Ok(io) => (io.duplicate)(t, w).await,
        Err(e) => w.message.set(Some((false, WorkspaceFailure::Program(e).to_string()))),
    }
}

async fn duplicate_here(t: BundleTargets, w: Workspaces) {
    flush(t, w).await;
    let Some(store) = t.storage.store.get_untracked() else { return };
    let index = read_index(&store).await.unwrap_or_default();
    let original = w.name.get_untracked();
    let copy = index.copy_name(&original);
    w.id.set(index.new_id(time::now_ms()));
    w.name.set(copy.clone());
    flush(t, w).await;
    w.message.set(Some((true, format!("“{copy}” is open; “{original}” is kept as it was."))));
}

/// Opens the saved workspace `id` (what is open now is saved first).
pub async fn switch(t: BundleTargets, w: Workspaces, id: String) {
    match call_split!(workspaces_io) {
        Ok(io) => (io.switch)(t, w, id).await,
        Err(e) => w.message.set(Some((false, WorkspaceFailure::Program(e).to_string()))),
    }
}

async fn switch_here(t: BundleTargets, w: Workspaces, id: String) {
    if id == w.id.get_untracked() {
        return;
    }
    flush(t, w).await;
    let Some(store) = t.storage.store.get_untracked() else { return };
    let index = match read_index(&store).await {
        Ok(index) => index,
        Err(e) => {
            w.message.set(Some((false, e.to_string())));
            return;
        }
    };
    let Some(entry) = index.get(&id).cloned() else { return };
    w.opening.set_value(true);
    w.id.set(entry.id.clone());
    w.name.set(entry.name.clone());
    let outcome = open_saved(t, &store, &entry).await;
    time::yield_now().await;
    w.opening.set_value(false);
    match outcome {
        Ok(()) => {
            // The list says which workspace a reload opens: this one now.
            let mut index = index;
            index.current = entry.id.clone();
            if let Err(e) = store.put(StoreName::Settings, INDEX_KEY, &index.to_json()).await {
                w.message.set(Some((false, WorkspaceFailure::Store(e).to_string())));
                return;
            }
            w.message.set(Some((true, format!("Opened “{}”.", entry.name))));
        }
        Err(e) => {
            reset_workbench(t);
            w.message.set(Some((false, e.to_string())));
        }
    }
}

/// Fetches and opens the bundle at `url` (relative URLs resolve against the page), showing the
/// Results screen or saying what went wrong.
/// It opens as a new workspace: the one that was open is saved and kept.
pub async fn open_bundle_url(t: BundleTargets, url: &str) {
    match call_split!(workspaces_io) {
        Ok(io) => (io.open_url)(t, url.to_owned()).await,
        Err(e) => {
            t.ws.screen.set(Screen::Results);
            let e = BundleFailure::Open { file: url.to_owned(), error: e };
            t.results.bundle_error.set(Some(e.to_string()));
        }
    }
}

async fn open_url_here(t: BundleTargets, url: String) {
    let url = url.as_str();
    t.ws.screen.set(Screen::Results);
    let before = t.results.bundle_source.get_untracked();
    t.results.bundle_source.set(Some(format!("{url} (loading…)")));
    let outcome = match crate::edge::http::get_bytes(url, 60_000).await {
        Err(error) => Err(BundleFailure::Fetch { url: url.to_owned(), error }),
        Ok(bytes) => {
            let bytes = Uint8Array::from(bytes.as_slice());
            let (id, name) = (t.saved.id.get_untracked(), t.saved.name.get_untracked());
            t.results.bundle_source.set(before.clone());
            fork_here(t, t.saved, url.to_owned()).await;
            t.results.bundle_source.set(Some(format!("{url} (loading…)")));
            let opened = open_bundle(t, bytes, url).await;
            if opened.is_err() {
                t.saved.id.set(id);
                t.saved.name.set(name);
            }
            opened
        }
    };
    if let Err(e) = outcome {
        t.results.bundle_source.set(before);
        t.results.bundle_error.set(Some(e.to_string()));
    } else {
        t.results.bundle_error.set(None);
        t.results.bundle_url.set(Some(url.to_owned()));
    }
}

/// Removes `bundle` from the page's address once it was opened: a reload then shows the
/// workspace it became (with what was done since), not the bundle again.
pub fn forget_bundle_param() {
    let Some(window) = web_sys::window() else { return };
    let Ok(href) = window.location().href() else { return };
    let Ok(url) = web_sys::Url::new(&href) else { return };
    url.search_params().delete("bundle");
    let history = crate::edge::js::property(&window, "history");
    let replace = crate::edge::js::property(&history, "replaceState");
    if let Ok(replace) = wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(replace) {
        let _ = replace.call3(&history, &JsValue::NULL, &JsValue::from_str(""), &url.href().into());
    }
}
