//! Bundles in the app: opening one replaces what the workbench screens show (the dataset, the
//! study, the runs, the raters, the view settings); saving one gathers them. The file format
//! is the core's ([`concord_core::bundle`]); reading and writing its JSON
//! happen in the loader's Web Worker ([`crate::edge::worker::bundle`]), the page's side a slice
//! at a time between yields.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use concord_core::bundle::Bundle;
use concord_core::bundle::EndpointEntry;
use concord_core::data::{self, JudgeRun};
use concord_core::study::coeval::Snapshot as CoEvalSnapshot;
use concord_core::study::meta::Snapshot as MetaSnapshot;
use concord_core::study::meta::snapshot::SnapshotError;
use concord_core::study::workbench::JudgedRun;
use concord_core::study::workbench::import::file_stem;
use js_sys::Uint8Array;
use leptos::prelude::*;

use crate::edge::http::FetchError;
use crate::edge::store::Store;
use crate::edge::time::FrameBudget;
use crate::edge::worker::WorkerError;
use crate::edge::worker::bundle as bundle_wire;
use crate::edge::worker::protocol::call_split;
use crate::screens::coeval::state::CoEvalError;
use crate::screens::judge::state::JudgeState;
use crate::screens::rate::state::RateState;
use crate::screens::results::state::ResultsState;
use crate::screens::run::state::RunState;
use crate::state::{JudgeRuns, OpenDataset, Storage, Workspace};

/// Why a bundle could not be opened or written.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BundleFailure {
    /// The file is not a bundle Concord can read (its reason says why), or the worker failed.
    #[error("{file}: {error}")]
    Open { file: String, error: WorkerError },
    #[error("Could not fetch the bundle {url}: {error}")]
    Fetch { url: String, error: FetchError },
    #[error("the browser could not read {name}: {why}; pick the file again")]
    Read { name: String, why: String },
    #[error(
        "the runs changed while the bundle was being written (a run finished, or runs were imported or removed): export it again"
    )]
    RunsChanged,
    #[error(transparent)]
    Write(#[from] WorkerError),
    /// The CoEval study could not be read from or written to this browser's storage.
    #[error("the CoEval study: {0}")]
    CoEval(CoEvalError),
    /// The meta-evaluation workspace in the bundle could not be rebuilt.
    #[error("the meta-evaluation workspace: {0}")]
    Meta(SnapshotError),
    /// The judge runs' review could not be written to this browser's storage.
    #[error("the review of the judge runs: {0}")]
    Review(String),
}

/// Every piece of state a bundle reads or writes.
#[derive(Clone, Copy)]
pub struct BundleTargets {
    pub ws: Workspace,
    pub judge: JudgeState,
    pub runs: JudgeRuns,
    pub rate: RateState,
    pub results: ResultsState,
    pub run: RunState,
    pub storage: Storage,
    /// The saved workspaces (a bundle opened from an address becomes a new one).
    pub saved: super::Workspaces,
}

impl BundleTargets {
    /// The targets from context.
    pub fn from_context() -> BundleTargets {
        BundleTargets {
            ws: expect_context(),
            judge: expect_context(),
            runs: expect_context(),
            rate: expect_context(),
            results: expect_context(),
            run: expect_context(),
            storage: expect_context(),
            saved: expect_context(),
        }
    }
}

/// Shows a bundle: its dataset, study, runs, raters and view settings replace the current
/// ones; its CoEval study (version 2) replaces this browser's CoEval study.
pub async fn apply_bundle(
    t: BundleTargets,
    bundle: Bundle,
    source: &str,
) -> Result<(), BundleFailure> {
    let io = call_split!(bundle_io)?;
    (io.apply)(t, bundle, source.to_owned()).await
}

async fn apply_here(t: BundleTargets, bundle: Bundle, source: String) -> Result<(), BundleFailure> {
    // The screens' recomputation starts in a task of its own, not at the end of the decoding's
    // last slice (a 50 MB bundle's apply is a long task as it is).
    crate::edge::time::yield_now().await;
    let source = source.as_str();
    let Bundle {
        dataset,
        study,
        endpoint,
        runs,
        raters,
        settings,
        notes,
        changed_on_import,
        coeval,
        meta,
        review,
        ..
    } = bundle;
    // The dataset's own format is kept for what is written next (a re-exported bundle).
    let format = data::Format::from_name(&dataset.format).unwrap_or(data::Format::Csv);
    let dataset = dataset.embedded;
    let scope = concord_core::study::workbench::review::dataset_scope(&dataset);
    let loaded = data::Loaded {
        summary: data::summarize(format, &dataset, &[]),
        format,
        dataset,
        runs: Vec::new(),
        mapping: None,
        columns: Vec::new(),
        diagnostics: Vec::new(),
    };
    t.ws.dataset.set(OpenDataset::new(loaded));
    if let Some(study) = study {
        t.judge.study.set(study.clone());
        // The endpoint is kept to describe (and price) the runs, never to call it; a price the
        // bundle carries for its model is used where none is typed here.
        if let Some((e, price)) = endpoint.as_ref().and_then(|e| Some((e.to_endpoint()?, e.price?)))
        {
            let key = crate::screens::run::state::price_key(e.provider, &e.model);
            t.run.connection.update(|f| {
                f.prices.entry(key).or_insert(price.into());
            });
        }
        let endpoint = endpoint.as_ref().and_then(|e| e.to_endpoint());
        t.runs.ran_with.set_value(Some((Rc::new(study), endpoint)));
    } else {
        t.runs.ran_with.set_value(None);
    }
    t.results.bundle_runs.set(runs.iter().map(crate::screens::results::state::run_id).collect());
    t.runs.runs.set(runs);
    t.rate.raters.set(raters);
    t.results.settings.set(settings);
    t.results.selected.set(None);
    t.results.item.set(None);
    t.results.bundle_url.set(None);
    // The file's own notes travel on with its runs; what the import changed is only said.
    t.runs.notes.set(notes.clone());
    let said: Vec<String> = notes.into_iter().chain(changed_on_import).collect();
    t.results.bundle_source.set(Some(if said.is_empty() {
        source.to_owned()
    } else {
        format!("{source} (note: {})", said.join("; "))
    }));
    if let Some(snapshot) = meta {
        let restore = call_split!(meta_restore).map_err(BundleFailure::Write)?;
        restore(&snapshot).map_err(BundleFailure::Meta)?;
    }
    if let Some(snapshot) = coeval {
        let store = store_of(t).await;
        let restore = call_split!(coeval_restore).map_err(BundleFailure::Write)?;
        restore(store, snapshot).await.map_err(BundleFailure::CoEval)?;
    }
    // Like CoEval's, this browser's review is replaced only by a bundle that has one.
    if let Some(snapshot) = review {
        let store = store_of(t).await;
        crate::screens::results::tasks::apply_review_snapshot(
            t.results.review,
            &store,
            &scope,
            Some(&snapshot),
        )
        .await
        .map_err(|e| BundleFailure::Review(e.to_string()))?;
    }
    Ok(())
}

/// A future of the page's thread (IndexedDB handles are not `Send`).
type Local<T> = Pin<Box<dyn Future<Output = Result<T, CoEvalError>>>>;
type MetaRestore = fn(&MetaSnapshot) -> Result<(), SnapshotError>;
type CoEvalRestore = fn(Store, CoEvalSnapshot) -> Local<()>;
type CoEvalCapture = fn(Store) -> Local<Option<CoEvalSnapshot>>;

// What only a bundle with a meta-evaluation workspace or a CoEval study needs — replaying the
// one, reading and writing the other — is in the page's I/O chunk (`page_io`, with [`Io`]),
// fetched the first time a bundle or workspace is opened or saved: the first load does without.

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn meta_restore() -> Result<MetaRestore, WorkerError> {
    Ok(crate::screens::meta::state::apply_snapshot)
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn coeval_restore() -> Result<CoEvalRestore, WorkerError> {
    Ok(|store, snapshot| {
        Box::pin(async move { crate::screens::coeval::apply_snapshot(&store, &snapshot).await })
    })
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn coeval_capture() -> Result<CoEvalCapture, WorkerError> {
    Ok(|store| Box::pin(async move { crate::screens::coeval::snapshot(&store).await }))
}

/// A future of the page's thread (IndexedDB handles and signals are not `Send`).
pub(crate) type Boxed<T> = Pin<Box<dyn Future<Output = T>>>;
/// A written bundle: its file name and its JSON.
type Written = (String, js_sys::ArrayBuffer);

/// What opens, shows and writes bundles on the page: decoding a bundle's skeleton, replaying
/// it into the screens, gathering it back (all JSON). In the page's I/O chunk
/// (`split_page_io.wasm`, with the saved workspaces' [`super::workspaces`] `Io`, the page's
/// side of a file load and the meta-evaluation and CoEval snapshots), fetched the first time a
/// bundle or a saved workspace is opened, the workspace is saved or a file is loaded (and
/// while the browser is idle): a first visit shows the Data screen without it. One module for
/// all of these, not one each: every split point multiplies the shared chunks a screen
/// fetches.
#[derive(Clone, Copy)]
pub(crate) struct Io {
    apply: fn(BundleTargets, Bundle, String) -> Boxed<Result<(), BundleFailure>>,
    open: fn(BundleTargets, Uint8Array, String) -> Boxed<Result<(), BundleFailure>>,
    save: fn(BundleTargets, bool) -> Boxed<Result<Written, BundleFailure>>,
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
pub(crate) fn bundle_io() -> Result<Io, WorkerError> {
    Ok(Io {
        apply: |t, bundle, source| Box::pin(apply_here(t, bundle, source)),
        open: |t, bytes, source| Box::pin(open_here(t, bytes, source)),
        save: |t, with_coeval| Box::pin(save_here(t, with_coeval)),
    })
}

/// Fetches the page's I/O chunk ahead of need (the idle prefetch).
pub async fn prefetch_io() {
    let _ = call_split!(bundle_io);
}

/// The app's store, or (before it opened, or when refused) a store in memory.
async fn store_of(t: BundleTargets) -> crate::edge::store::Store {
    match t.storage.store.get_untracked() {
        Some(store) => store,
        None => crate::edge::store::Store::open_or_memory().await.0,
    }
}

/// Opens the bundle in `bytes` (from `source`, a file name or an address): read and checked
/// in the loader's Web Worker ([`bundle_wire::open`]), then shown.
pub async fn open_bundle(
    t: BundleTargets,
    bytes: Uint8Array,
    source: &str,
) -> Result<(), BundleFailure> {
    let io = call_split!(bundle_io)?;
    (io.open)(t, bytes, source.to_owned()).await
}

async fn open_here(
    t: BundleTargets,
    bytes: Uint8Array,
    source: String,
) -> Result<(), BundleFailure> {
    let bundle = bundle_wire::open(&source, bytes)
        .await
        .map_err(|error| BundleFailure::Open { file: source.clone(), error })?;
    apply_here(t, bundle, source).await
}

/// Writes the bundle of what the workbench screens show: the page encodes its state a slice
/// at a time between yields, the loader's Web Worker builds and writes the JSON
/// ([`bundle_wire::save`]). Returns the file name and the JSON.
pub async fn save_bundle(t: BundleTargets) -> Result<(String, js_sys::ArrayBuffer), BundleFailure> {
    save_bundle_with(t, true).await
}

/// [`save_bundle`], with the CoEval study or without it (a saved workspace: CoEval saves
/// itself action by action).
pub async fn save_bundle_with(
    t: BundleTargets,
    with_coeval: bool,
) -> Result<(String, js_sys::ArrayBuffer), BundleFailure> {
    let io = call_split!(bundle_io)?;
    (io.save)(t, with_coeval).await
}

async fn save_here(
    t: BundleTargets,
    with_coeval: bool,
) -> Result<(String, js_sys::ArrayBuffer), BundleFailure> {
    let open = t.ws.dataset.get_untracked();
    let dataset = &open.loaded.dataset;
    let form = t.run.connection.get_untracked();
    let has_study_runs = t.runs.runs.with_untracked(|r| r.iter().any(|r| r.origin == "study"));
    // Study runs are described by the study and endpoint they were made with, which the Judge
    // and Run screens may have changed since.
    let (study, endpoint) = match t.runs.ran_with.get_value().filter(|_| has_study_runs) {
        Some((study, endpoint)) => ((*study).clone(), endpoint),
        None => (t.judge.study.get_untracked(), has_study_runs.then(|| form.endpoint())),
    };
    let skeleton = bundle_wire::SaveSkeleton {
        dataset: dataset.without_items(),
        format: open.loaded.format.name().to_owned(),
        study: Some(study),
        // A price typed on the Run screen for the runs' model goes with them: Results and
        // `concord report` price them the same.
        endpoint: endpoint.as_ref().map(|e| {
            let typed =
                form.prices.get(&crate::screens::run::state::price_key(e.provider, &e.model));
            EndpointEntry::from_endpoint(e).with_price(typed.map(|&p| p.into()))
        }),
        runs: t.runs.runs.with_untracked(|runs| {
            runs.iter()
                .map(|r| JudgedRun {
                    method: r.method.clone(),
                    attribute: r.attribute.clone(),
                    policy: r.policy,
                    weighting: r.weighting,
                    origin: r.origin.clone(),
                    run: JudgeRun {
                        name: r.run.name.clone(),
                        attribute: r.run.attribute.clone(),
                        records: Vec::new(),
                    },
                })
                .collect()
        }),
        raters: t.rate.raters.get_untracked(),
        settings: t.results.settings.get_untracked(),
        created: js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default(),
        notes: t.runs.notes.get_untracked(),
        coeval: if with_coeval {
            let capture = call_split!(coeval_capture).map_err(BundleFailure::Write)?;
            capture(store_of(t).await).await.map_err(BundleFailure::CoEval)?
        } else {
            None
        },
        meta: Some(crate::screens::meta::state::snapshot())
            .filter(|s| !s.files.is_empty() || !s.runs.is_empty()),
        // Like CoEval, the review saves itself event by event: a saved workspace leaves it out.
        review: if with_coeval {
            t.results
                .review
                .snapshot(&concord_core::study::workbench::review::dataset_scope(dataset))
        } else {
            None
        },
    };
    let name = format!("concord-bundle-{}.json", file_stem(&dataset.name));
    let mut frames = vec![bundle_wire::skeleton_frame(&skeleton)?];
    // Encoding is fast, but 500,000 responses are not: yield to the browser every frame.
    let mut budget = FrameBudget::new();
    for chunk in dataset.items.chunks(256) {
        frames.push(bundle_wire::items_frame(chunk)?);
        budget.tick().await;
    }
    let lengths: Vec<usize> =
        t.runs.runs.with_untracked(|r| r.iter().map(|r| r.run.records.len()).collect());
    for (run, len) in lengths.into_iter().enumerate() {
        for start in (0..len).step_by(256) {
            // The runs may have changed while the page yielded: a run still arriving grows (read
            // each slice anew, within what there is); a run replaced or removed (a new run of
            // another study, an import, "Remove imported runs") stops the export rather than
            // put its records under another run's name.
            let frame = t.runs.runs.with_untracked(|runs| {
                let same = |r: &JudgedRun, s: &JudgedRun| {
                    (&r.method, &r.attribute, &r.origin, &r.run.name)
                        == (&s.method, &s.attribute, &s.origin, &s.run.name)
                };
                let Some(current) = runs.get(run).filter(|r| same(r, &skeleton.runs[run])) else {
                    return Err(BundleFailure::RunsChanged);
                };
                let records = &current.run.records;
                let end = (start + 256).min(records.len());
                Ok(bundle_wire::records_frame(run, records.get(start..end).unwrap_or_default())?)
            })?;
            frames.push(frame);
            budget.tick().await;
        }
    }
    frames.push(bundle_wire::end_frame()?);
    let json = bundle_wire::save(frames).await?;
    Ok((name, json))
}
