//! The Run screen: provider, base URL, model and key (memory only unless the user opts in),
//! Test connection, limits, a cost estimate, start / pause / resume / cancel, progress, the
//! run log, errors with what to do, resuming an interrupted run, and the response cache.

use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{Dataset, Loaded, RatingItem};
use concord_core::judge::ChatRequest;
use concord_core::run::{
    Capabilities, ConnectionStatus, Endpoint, EstimateInput, Finish, PRESETS, PriceTable,
    ProviderId, SampleBatch, StopReason, build_list_models, classify_connection, estimate_run,
};
use concord_core::study::workbench::{self, Plan, Planner, Study};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};

use crate::edge::http;
use crate::edge::store::{Store, StoreName};
use crate::edge::time;
use crate::runner::{self, RunControl};
use crate::state::{
    ConnectionForm, OpenDataset, RunView, Screen, Workbench, Workspace, use_workbench,
    use_workspace,
};

/// Where an opted-in key is remembered (this browser only).
const KEY_STORAGE: &str = "concord.api-key";
/// The manifest of the current run in the `runs` store: enough to resume after a reload. Its
/// dataset's items are stored beside it, a page of [`ITEMS_PER_PAGE`] under each
/// [`items_key`].
const MANIFEST_KEY: &str = "current";
const ITEMS_PER_PAGE: usize = 1000;

fn items_key(page: usize) -> String {
    format!("{MANIFEST_KEY}/items/{page:06}")
}

/// What is saved when a run starts, so a reloaded page can offer to resume it. Never the key.
/// Written from borrowed parts (a 10,000-item dataset is not copied to be saved).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest<'a> {
    pub dataset: Cow<'a, Dataset>,
    pub format: String,
    pub study: Cow<'a, Study>,
    pub provider: String,
    pub base_url: String,
    pub model: String,
    pub item_limit: Option<usize>,
    pub max_concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub started_at: u64,
    /// Written by earlier versions when the run completed (the manifest is deleted now).
    #[serde(default)]
    pub finished: bool,
    /// How many pages of items are stored beside the manifest (its dataset has none itself).
    #[serde(default)]
    pub item_pages: usize,
}

/// Saves the manifest of a starting run: the dataset's items a page at a time (serializing a
/// 10,000-item dataset at once blocks the page for over 100 ms), then the manifest. A run
/// interrupted before the manifest is written is simply not offered for resumption.
async fn save_manifest(store: &Store, manifest: &Manifest<'_>) {
    let dataset = &*manifest.dataset;
    let mut pages = 0;
    for (page, items) in dataset.items.chunks(ITEMS_PER_PAGE).enumerate() {
        let json = serde_json::to_string(items).unwrap_or_default();
        let _ = store.put(StoreName::Runs, &items_key(page), &json).await;
        pages = page + 1;
    }
    let head = dataset.without_items();
    let stored = Manifest { dataset: Cow::Owned(head), item_pages: pages, ..manifest.clone() };
    let json = serde_json::to_string(&stored).unwrap_or_default();
    let _ = store.put(StoreName::Runs, MANIFEST_KEY, &json).await;
}

/// The manifest of an interrupted run with its dataset's items, if there is one.
async fn load_manifest(store: &Store) -> Option<Manifest<'static>> {
    let text = store.get(StoreName::Runs, MANIFEST_KEY).await.ok().flatten()?;
    let mut manifest = serde_json::from_str::<Manifest<'static>>(&text).ok()?;
    if manifest.finished {
        return None;
    }
    let mut items = Vec::new();
    for page in 0..manifest.item_pages {
        let text = store.get(StoreName::Runs, &items_key(page)).await.ok().flatten()?;
        items.extend(serde_json::from_str::<Vec<RatingItem>>(&text).ok()?);
    }
    if manifest.item_pages > 0 {
        manifest.dataset.to_mut().items = items;
    }
    Some(manifest)
}

/// Forgets the current run's manifest and its pages of items.
async fn clear_manifest(store: &Store) {
    let _ = store.delete(StoreName::Runs, MANIFEST_KEY).await;
    let prefix = format!("{MANIFEST_KEY}/items/");
    for key in store.keys_with_prefix(StoreName::Runs, &prefix).await.unwrap_or_default() {
        let _ = store.delete(StoreName::Runs, &key).await;
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Loads an opted-in key into the form (once, at start).
pub fn restore_remembered_key(wb: Workbench) {
    if let Some(key) = local_storage().and_then(|s| s.get_item(KEY_STORAGE).ok().flatten())
        && !key.is_empty()
    {
        wb.connection.update(|c| {
            c.api_key = key;
            c.remember = true;
        });
    }
}

fn remember_key(remember: bool, key: &str) {
    if let Some(storage) = local_storage() {
        if remember && !key.is_empty() {
            let _ = storage.set_item(KEY_STORAGE, key);
        } else {
            let _ = storage.remove_item(KEY_STORAGE);
        }
    }
}

fn items_of(dataset: &Dataset, limit: Option<usize>) -> Vec<usize> {
    let n = dataset.items.len();
    (0..limit.map_or(n, |l| l.min(n))).collect()
}

/// A planned study's calls for [`runner::execute`]: each request is rendered when it is sent
/// and each key derived when it is looked up, so a 40,000-call run holds neither its prompt
/// texts nor its 800,000 keys.
struct PlanCalls {
    loaded: Arc<Loaded>,
    study: Rc<Study>,
    plan: Rc<Plan>,
}

impl runner::Calls for PlanCalls {
    fn count(&self) -> usize {
        self.plan.calls.len()
    }
    fn batch(&self, call: usize) -> SampleBatch {
        self.plan.calls.get(call).map_or(SampleBatch { first: 0, count: 0 }, |c| c.samples)
    }
    fn keys(&self, call: usize) -> Vec<String> {
        self.plan.calls.get(call).map_or_else(Vec::new, |c| self.plan.call_keys(c))
    }
    fn request(&self, call: usize) -> Option<Cow<'_, ChatRequest>> {
        let prompt = self.plan.prompts.get(self.plan.calls.get(call)?.prompt)?;
        workbench::prompt_request(&self.loaded.dataset, &self.study, prompt).map(Cow::Owned)
    }
}

/// Work between two yields to the browser: about one frame's worth, so nothing the page
/// computes in slices (planning, collecting, reading) blocks it for long.
const SLICE_MS: f64 = 12.0;

/// Replaces the study's runs in `wb.runs` with what is stored now, keeping imported runs. A
/// large run is collected a slice of prompts at a time with a yield in between.
pub async fn refresh_results(
    wb: Workbench,
    loaded: Arc<Loaded>,
    study: Rc<Study>,
    endpoint: Endpoint,
    plan: Rc<Plan>,
) {
    let memory = wb.memory.get_value();
    let mut runs = workbench::results::empty_runs(&study);
    let mut at = 0;
    while at < plan.prompts.len() {
        let started = time::monotonic_ms();
        while at < plan.prompts.len() && time::monotonic_ms() - started < SLICE_MS {
            let end = (at + 250).min(plan.prompts.len());
            let mem = memory.borrow();
            workbench::results::collect_into(
                &mut runs,
                &loaded.dataset,
                &study,
                &plan,
                at..end,
                |k| mem.get(k).cloned(),
            );
            at = end;
        }
        time::yield_now().await;
    }
    // Notes (parameters a provider rejected) describe how the runs were made: runs of another
    // study or endpoint replace the study's runs, and their notes go with them.
    let same = wb.ran_with.with_value(|w| {
        w.as_ref().is_some_and(|(s, e)| **s == *study && e.as_ref() == Some(&endpoint))
    });
    if !same {
        wb.run_notes.set(Vec::new());
    }
    wb.ran_with.set_value(Some((study.clone(), Some(endpoint))));
    wb.runs.update(|all| {
        all.retain(|r| r.origin != "study");
        all.extend(runs.into_iter().filter(|r| !r.run.records.is_empty()));
    });
}

fn describe_finish(finish: &Finish, provider: ProviderId) -> (String, Option<String>) {
    match finish {
        Finish::Completed => ("Run complete.".into(), None),
        Finish::Cancelled => {
            ("Run cancelled. Everything stored so far is kept; Run again to continue.".into(), None)
        }
        Finish::Stopped(StopReason::Fatal(e)) => {
            (format!("Run stopped: {e}"), Some(e.advice(provider)))
        }
        Finish::Stopped(reason) => (
            reason.to_string(),
            Some(
                "Raise the spend cap and Run again to continue; nothing stored is paid twice."
                    .into(),
            ),
        ),
        _ => ("Run ended.".into(), None),
    }
}

/// Starts a run of the open study (or of a manifest's when resuming): plans it a slice at a
/// time (saying so), saves the manifest, then carries it out with [`runner::execute`].
pub fn start_run(wb: Workbench, ws: Workspace, dataset: OpenDataset, study: Study) {
    let form = wb.connection.get_untracked();
    let connection = form.connection();
    let control = RunControl::new();
    wb.control.set_value(control.clone());
    wb.run.set(RunView {
        running: true,
        planning: Some("Planning the run…".into()),
        ..RunView::default()
    });
    let loaded = dataset.loaded.clone();
    let study = Rc::new(study);
    spawn_local(async move {
        let items = items_of(&loaded.dataset, form.item_limit);
        let plan = {
            let mut planner = Planner::new(
                &loaded.dataset,
                &study,
                &connection.endpoint,
                &connection.caps,
                Some(&items),
            );
            loop {
                let started = time::monotonic_ms();
                let mut finished = false;
                while !finished && time::monotonic_ms() - started < SLICE_MS {
                    finished = planner.step(100);
                }
                if finished {
                    break planner.finish();
                }
                if control.is_cancelled() {
                    wb.run.set(RunView {
                        finished: Some("Run cancelled while it was being planned.".into()),
                        ..RunView::default()
                    });
                    return;
                }
                let (done, total) = (planner.done(), planner.total());
                wb.run.update(|v| {
                    v.planning = Some(format!("Planning the run: {done} of {total} prompts…"));
                });
                time::yield_now().await;
            }
        };
        if plan.prompts.is_empty() {
            wb.run.set(RunView {
                error: Some(if study.methods.is_empty() {
                    "No methods to run: add some on the Judge screen.".into()
                } else {
                    plan.problems.first().map_or("Nothing to run.".into(), |p| {
                        format!(
                            "No prompt could be rendered: {} / {} / item {}: {}",
                            p.method, p.attribute, p.item_id, p.message
                        )
                    })
                }),
                ..RunView::default()
            });
            return;
        }
        let plan = Rc::new(plan);
        wb.run.update(|v| v.planning = Some("Saving the run's manifest…".into()));
        let manifest = Manifest {
            dataset: Cow::Borrowed(&loaded.dataset),
            format: loaded.format.name().to_owned(),
            study: Cow::Borrowed(&study),
            provider: form.provider.slug().to_owned(),
            base_url: workbench::bundle::public_url(&form.base_url),
            model: form.model.clone(),
            item_limit: form.item_limit,
            max_concurrency: form.max_concurrency,
            requests_per_minute: form.requests_per_minute,
            started_at: time::now_ms(),
            finished: false,
            item_pages: 0,
        };
        let store = match wb.store.get_untracked() {
            Some(s) => s,
            None => Store::open_or_memory().await.0,
        };
        save_manifest(&store, &manifest).await;
        wb.run.update(|v| v.planning = Some("Looking up stored answers…".into()));
        let provider = form.provider;
        let calls = PlanCalls { loaded: loaded.clone(), study: study.clone(), plan: plan.clone() };
        let endpoint = connection.endpoint.clone();
        // The page shows the run's progress at most ten times a second (a fast provider
        // answers hundreds of calls a second), and every log line.
        let mut shown = time::monotonic_ms() - 1000.0;
        let mut log: Vec<String> = Vec::new();
        let mut paused = false;
        let mut last_refresh = time::monotonic_ms();
        let refreshing = Rc::new(Cell::new(false));
        let outcome = runner::execute(
            connection,
            &calls,
            store.clone(),
            wb.memory.get_value(),
            control,
            |report| {
                log.extend(report.log.iter().cloned());
                let now = time::monotonic_ms();
                let quiet =
                    log.is_empty() && report.paused == paused && report.progress.in_flight > 0;
                if quiet && now - shown < 100.0 {
                    return;
                }
                shown = now;
                paused = report.paused;
                let lines = std::mem::take(&mut log);
                wb.run.update(|v| {
                    v.planning = None;
                    v.paused = report.paused;
                    v.log.extend(lines);
                    v.report = Some(report);
                });
                // The table follows the run while it is on screen, without recomputing on every
                // sample (collecting a large run takes a while).
                let watching = ws.screen.get_untracked() == Screen::Results;
                if watching && now - last_refresh > 5000.0 && !refreshing.get() {
                    last_refresh = now;
                    refreshing.set(true);
                    let (loaded, study, plan, refreshing) =
                        (loaded.clone(), study.clone(), plan.clone(), refreshing.clone());
                    let endpoint = endpoint.clone();
                    spawn_local(async move {
                        refresh_results(wb, loaded, study, endpoint, plan).await;
                        refreshing.set(false);
                    });
                }
            },
        )
        .await;
        wb.run.update(|v| {
            v.planning = Some("Collecting the answers for the results…".into());
            v.log.extend(std::mem::take(&mut log));
        });
        refresh_results(wb, loaded.clone(), study.clone(), endpoint.clone(), plan.clone()).await;
        let (message, advice) = describe_finish(&outcome.finish, provider);
        let mut message = message;
        if !outcome.dropped.is_empty() {
            message.push_str(&format!(
                " Parameters the API rejected and the run dropped: {}.",
                outcome.dropped.join(", ")
            ));
            // A bundle of these runs says so: the study lists values the model never got.
            let note = format!(
                "{} rejected {} for {}; the runs did not send {}",
                provider,
                outcome.dropped.join(", "),
                endpoint.model,
                if outcome.dropped.len() == 1 { "it" } else { "them" }
            );
            wb.run_notes.update(|notes| {
                if !notes.contains(&note) {
                    notes.push(note);
                }
            });
        }
        if outcome.storage_errors > 0 {
            message.push_str(&format!(" {} answers could not be saved to this browser's storage (kept in memory for this session).", outcome.storage_errors));
        }
        if matches!(outcome.finish, Finish::Completed) {
            // Nothing left to resume.
            clear_manifest(&store).await;
        }
        wb.run.update(|v| {
            v.running = false;
            v.paused = false;
            v.planning = None;
            v.finished = Some(message);
            v.error = advice;
        });
    });
}

#[component]
pub fn RunPage() -> impl IntoView {
    view! {
        <ResumePanel/>
        <ProviderPanel/>
        <LaunchPanel/>
        <CachePanel/>
    }
}

/// Offers to resume a run a reload or a closed tab interrupted.
#[component]
fn ResumePanel() -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    let pending = RwSignal::new(None::<Manifest<'static>>);
    Effect::new(move |_| {
        if let Some(store) = wb.store.get() {
            spawn_local(async move {
                let manifest = load_manifest(&store).await;
                if !wb.run.get_untracked().running {
                    pending.try_set(manifest);
                }
            });
        }
    });
    let resume = move |_| {
        let Some(m) = pending.get_untracked() else { return };
        let provider = ProviderId::from_slug(&m.provider).unwrap_or(ProviderId::Custom);
        wb.connection.update(|c| {
            c.provider = provider;
            c.base_url = m.base_url.clone();
            c.model = m.model.clone();
            c.item_limit = m.item_limit;
            c.max_concurrency = m.max_concurrency;
            c.requests_per_minute = m.requests_per_minute;
        });
        let format = concord_core::data::Format::Csv;
        let loaded = concord_core::data::Loaded {
            summary: concord_core::data::summarize(format, &m.dataset, &[]),
            format,
            dataset: m.dataset.into_owned(),
            runs: Vec::new(),
            mapping: None,
            columns: Vec::new(),
            diagnostics: Vec::new(),
        };
        let open = OpenDataset::new(loaded);
        ws.dataset.set(open.clone());
        let study = m.study.into_owned();
        wb.study.set(study.clone());
        pending.set(None);
        let needs_key =
            provider.preset().needs_key && wb.connection.get_untracked().api_key.trim().is_empty();
        if needs_key {
            wb.run.set(RunView { error: Some("Enter the API key below, then press Run to resume: stored answers are not requested again.".into()), ..RunView::default() });
        } else {
            start_run(wb, ws, open, study);
        }
    };
    view! {
        <Show when=move || pending.get().is_some()>
            <section class="panel notice" role="region" aria-label="Interrupted run" data-testid="resume-panel">
                <h2>"A run was interrupted"</h2>
                <p>{move || pending.get().map(|m| format!(
                    "{} method(s) × {} attribute(s) on {} with {} — answers already stored will not be requested again.",
                    m.study.methods.len(), m.study.attributes.len(), m.dataset.name, m.model))}</p>
                <div class="row">
                    <button class="primary" type="button" on:click=resume>"Resume run"</button>
                    <button class="secondary" type="button" on:click=move |_| {
                        pending.set(None);
                        if let Some(store) = wb.store.get_untracked() {
                            spawn_local(async move { clear_manifest(&store).await; });
                        }
                    }>"Discard"</button>
                </div>
            </section>
        </Show>
    }
}

#[component]
fn ProviderPanel() -> impl IntoView {
    let wb = use_workbench();
    let test_result = RwSignal::new(None::<(bool, String)>);
    let models = RwSignal::new(Vec::<String>::new());
    let testing = RwSignal::new(false);
    let form = move || wb.connection.get();
    let set = move |f: &dyn Fn(&mut ConnectionForm)| wb.connection.update(|c| f(c));
    let on_provider = move |ev: leptos::ev::Event| {
        let slug = event_target_value(&ev);
        if let Some(id) = ProviderId::from_slug(&slug) {
            wb.connection.update(|c| {
                c.provider = id;
                c.base_url = id.preset().base_url.to_owned();
            });
            test_result.set(None);
        }
    };
    let test = move |_| {
        let form = wb.connection.get_untracked();
        let endpoint = form.endpoint();
        testing.set(true);
        spawn_local(async move {
            let outcome = match build_list_models(&endpoint, form.api_key.trim()) {
                Err(e) => (false, e.to_string()),
                Ok(req) => match http::send(&req, 15_000, None).await {
                    Ok(reply) => {
                        let report = classify_connection(
                            &endpoint,
                            reply.status,
                            &reply.headers,
                            &reply.body,
                            time::now_ms(),
                        );
                        models.try_set(report.models.clone());
                        let ok = matches!(report.status, ConnectionStatus::Ok);
                        let text = if report.advice.is_empty() {
                            report.summary
                        } else {
                            format!("{} {}", report.summary, report.advice)
                        };
                        (ok, text)
                    }
                    Err(e) => {
                        let report =
                            classify_connection(&endpoint, 0, &[], &e.to_string(), time::now_ms());
                        (false, format!("{} {}", report.summary, report.advice))
                    }
                },
            };
            test_result.try_set(Some(outcome));
            testing.try_set(false);
        });
    };
    view! {
        <section class="panel" aria-labelledby="provider-heading">
            <h2 id="provider-heading">"Provider"</h2>
            <div class="form-grid">
                <label for="provider">"Provider"</label>
                <select id="provider" on:change=on_provider>
                    {PRESETS.iter().map(|p| view! {
                        <option value=p.slug selected=move || form().provider == p.id>{p.name}</option>
                    }).collect_view()}
                </select>
                <label for="base-url">"Base URL"</label>
                <input id="base-url" type="url" prop:value=move || form().base_url
                    on:change=move |ev| { let v = event_target_value(&ev); set(&|c| c.base_url = v.clone()) }/>
                <label for="model">"Model"</label>
                <input id="model" type="text" list="model-list" autocomplete="off" prop:value=move || form().model
                    on:change=move |ev| { let v = event_target_value(&ev); set(&|c| c.model = v.clone()) }/>
                <datalist id="model-list">{move || models.get().into_iter().map(|m| view! { <option value=m/> }).collect_view()}</datalist>
                <label for="api-key">"API key"</label>
                <div class="row">
                    <input id="api-key" type="password" autocomplete="off" spellcheck="false"
                        placeholder=move || if form().provider.preset().needs_key { "needed for this provider" } else { "not needed for local servers" }
                        prop:value=move || form().api_key
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            set(&|c| c.api_key = v.clone());
                            let f = wb.connection.get_untracked();
                            if f.remember { remember_key(true, &f.api_key) }
                        }/>
                    <label class="check">
                        <input type="checkbox" prop:checked=move || form().remember
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                set(&|c| c.remember = on);
                                remember_key(on, &wb.connection.get_untracked().api_key);
                            }/>
                        "Remember on this device"
                    </label>
                    <button type="button" class="secondary" on:click=move |_| {
                        set(&|c| { c.api_key.clear(); c.remember = false; });
                        remember_key(false, "");
                    }>"Forget key"</button>
                </div>
            </div>
            <p class="muted">"The key stays in this page's memory and goes only to the provider. It is never written to storage, exports or the address bar unless you tick “Remember on this device” (then it is kept in this browser's local storage until you press Forget key)."</p>
            <div class="row">
                <button type="button" class="secondary" on:click=test disabled=move || testing.get()>"Test connection"</button>
                {move || test_result.get().map(|(ok, text)| view! {
                    <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="connection-result">{text}</p>
                })}
            </div>
            <details>
                <summary>"Limits"</summary>
                <div class="form-grid">
                    <label for="concurrency">"Parallel requests"</label>
                    <input id="concurrency" type="number" min="1" max="64" prop:value=move || form().max_concurrency.to_string()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(6); set(&|c| c.max_concurrency = v) }/>
                    <label for="rpm">"Requests per minute"</label>
                    <input id="rpm" type="number" min="1" placeholder="no limit" prop:value=move || form().requests_per_minute.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.requests_per_minute = v) }/>
                    <label for="spend-cap">"Spend cap (USD)"</label>
                    <input id="spend-cap" type="number" min="0" step="0.01" placeholder="none" prop:value=move || form().spend_cap_usd.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.spend_cap_usd = v) }/>
                    <label for="timeout">"Timeout per request (s)"</label>
                    <input id="timeout" type="number" min="5" prop:value=move || form().timeout_s.to_string()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(120); set(&|c| c.timeout_s = v) }/>
                    <label for="item-limit">"Rate only the first N items"</label>
                    <input id="item-limit" type="number" min="1" placeholder="all" prop:value=move || form().item_limit.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.item_limit = v) }/>
                </div>
            </details>
        </section>
    }
}

/// A quick estimate: prompts rendered for up to 20 items per (method, attribute).
fn estimate_text(dataset: &Dataset, study: &Study, form: &ConnectionForm) -> String {
    let items = items_of(dataset, form.item_limit);
    if items.is_empty() || study.methods.is_empty() || study.attributes.is_empty() {
        return "Nothing to estimate yet: add methods on the Judge screen.".into();
    }
    let caps = Capabilities::for_model(form.provider, form.model.trim());
    let table = PriceTable::shipped().map(|(t, _)| t).ok();
    let price = table.and_then(|t| t.lookup(form.provider, form.model.trim()));
    let (mut calls, mut input, mut output, mut cost) = (0u64, 0u64, 0u64, Some(0.0));
    for method in &study.methods {
        for attribute in &study.attributes {
            let Some(t) = method.template(attribute) else { continue };
            let sample: Vec<usize> = items.iter().copied().take(20).collect();
            let chars: usize = sample
                .iter()
                .filter_map(|&i| dataset.items.get(i))
                .filter_map(|it| t.render(it).ok())
                .map(|s| s.len())
                .sum();
            let avg = chars / sample.len().max(1);
            let out_tokens =
                u64::from(method.sampling.max_tokens.unwrap_or(128)).min(match method.mode {
                    concord_core::judge::builtin::OutputMode::ScoreOnly => 5,
                    _ => 80,
                });
            let e = estimate_run(
                EstimateInput {
                    items: items.len() as u64,
                    attributes: 1,
                    samples: u64::from(method.sampling.n),
                    samples_per_call: u64::from(caps.samples_per_call()),
                    prompt_chars: avg as u64,
                    output_tokens_per_sample: out_tokens,
                },
                price,
            );
            calls += e.calls;
            input += e.input_tokens;
            output += e.output_tokens;
            cost = cost.zip(e.cost_usd).map(|(a, b)| a + b);
        }
    }
    let money = match cost {
        Some(c) => format!("about ${c:.2}"),
        None => "unknown cost (this model is not in the price table)".into(),
    };
    format!("{calls} calls, ~{input} input and ~{output} output tokens: {money}.")
}

#[component]
fn LaunchPanel() -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    let estimate = Memo::new(move |_| {
        let dataset = ws.dataset.get();
        let study = wb.study.get();
        let form = wb.connection.get();
        estimate_text(&dataset.loaded.dataset, &study, &form)
    });
    let run = move |_| start_run(wb, ws, ws.dataset.get_untracked(), wb.study.get_untracked());
    // Reads of the run's state borrow it: the log can hold thousands of lines.
    let running = move || wb.run.with(|v| v.running);
    let paused = move || wb.run.with(|v| v.paused);
    let progress = move || wb.run.with(|v| v.report.as_ref().map(|r| (r.progress, r.cached)));
    view! {
        <section class="panel" aria-labelledby="launch-heading">
            <h2 id="launch-heading">"Run"</h2>
            <p data-testid="estimate">{move || estimate.get()}</p>
            <div class="row">
                <button class="primary" type="button" on:click=run disabled=running>"Run"</button>
                <button class="secondary" type="button" disabled=move || !running() || paused()
                    on:click=move |_| wb.control.get_value().pause()>"Pause"</button>
                <button class="secondary" type="button" disabled=move || !paused()
                    on:click=move |_| wb.control.get_value().resume()>"Resume"</button>
                <button class="secondary" type="button" disabled=move || !running()
                    on:click=move |_| wb.control.get_value().cancel()>"Cancel"</button>
                <button class="secondary" type="button" on:click=move |_| ws.screen.set(Screen::Results)>"See results"</button>
            </div>
            {move || wb.run.with(|v| v.planning.clone()).map(|m| view! { <p class="notice-line" role="status" data-testid="run-planning">{m}</p> })}
            {move || progress().map(|(p, cached)| {
                let finished = p.done + p.failed;
                let eta = p.eta_ms.map_or("–".to_owned(), |ms| format!("{:.0} s", ms as f64 / 1000.0));
                view! {
                    <progress max=p.total.max(1).to_string() value=finished.to_string() aria-label="Run progress"></progress>
                    <p data-testid="progress" role="status">
                        {format!(
                            "{} of {} calls done, {} failed, {} in flight, {} cached · {:.0} calls/min · ETA {eta} · {} tokens in, {} out · ${:.4} · concurrency {} · {} retries",
                            p.done, p.total, p.failed, p.in_flight, cached,
                            p.rate_per_minute, p.usage.prompt_tokens, p.usage.completion_tokens, p.cost_usd, p.concurrency, p.retries
                        )}
                        {move || paused().then_some(" · paused: Resume continues, nothing is sent meanwhile")}
                    </p>
                }
            })}
            {move || wb.run.with(|v| v.finished.clone()).map(|m| view! { <p class="ok-box" role="status" data-testid="run-finished">{m}</p> })}
            {move || wb.run.with(|v| v.error.clone()).map(|m| view! { <p class="error-box" role="alert" data-testid="run-error">{m}</p> })}
            {move || {
                let problems = wb.run.with(|v| v.report.as_ref().map(|r| r.problems.clone()).unwrap_or_default());
                (!problems.is_empty()).then(|| view! {
                    <section class="warn-box" role="region" aria-label="Problems during this run" data-testid="run-problems">
                        <p>"Problems met during this run. Calls that can succeed later are retried on their own; the run only stops for problems that retrying cannot fix."</p>
                        <ul>
                            {problems.into_iter().map(|p| view! {
                                <li>
                                    <strong>{format!("{} — {} time{}", p.what, p.count, if p.count == 1 { "" } else { "s" })}</strong>
                                    " "{p.advice}
                                    <br/><span class="muted">{format!("Last message: {}", p.last)}</span>
                                </li>
                            }).collect_view()}
                        </ul>
                    </section>
                })
            }}
            <Show when=move || wb.run.with(|v| !v.log.is_empty())>
                <details>
                    <summary>{move || format!("Run log ({} lines)", wb.run.with(|v| v.log.len()))}</summary>
                    <ul class="run-log" data-testid="run-log">
                        {move || wb.run.with(|v| v.log.iter().rev().take(200).cloned().collect::<Vec<_>>()).into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                    </ul>
                </details>
            </Show>
        </section>
    }
}

#[component]
fn CachePanel() -> impl IntoView {
    let wb = use_workbench();
    let info = RwSignal::new(None::<String>);
    let refresh = move || {
        if let Some(store) = wb.store.get_untracked() {
            spawn_local(async move {
                let count = store.count(StoreName::Responses).await.unwrap_or(0);
                // The browser's own estimate: reading the store to measure it would copy every
                // answer (800,000 of them after a 10,000-item run) into the page.
                let text = if !store.is_persistent() {
                    format!("{count} stored answers, in memory only.")
                } else if let Some((usage, quota)) = crate::edge::store::origin_usage().await {
                    format!(
                        "{count} stored answers in this browser (IndexedDB); this site uses about {:.1} MB of {:.0} MB available.",
                        usage as f64 / 1e6,
                        quota as f64 / 1e6
                    )
                } else {
                    format!("{count} stored answers in this browser (IndexedDB).")
                };
                info.try_set(Some(text));
            });
        }
    };
    // Refresh when storage opens and when a run starts or ends, not on every answer:
    // measuring the store's size scans it.
    let running = Memo::new(move |_| wb.run.with(|r| r.running));
    Effect::new(move |_| {
        wb.store.track();
        running.track();
        refresh();
    });
    view! {
        <section class="panel" aria-labelledby="cache-heading">
            <h2 id="cache-heading">"Response cache"</h2>
            <p class="muted">"Every answer is stored the moment it arrives, keyed by provider, base URL, model, parameters, prompt and sample number. Running the same configuration again costs nothing."</p>
            {move || wb.store_problem.get().map(|p| view! { <p class="warn-box" role="status">{format!("Answers are kept in memory only: {p}")}</p> })}
            <p data-testid="cache-info">{move || info.get().unwrap_or_else(|| "Opening storage…".into())}</p>
            <button type="button" class="secondary" disabled=move || wb.run.get().running on:click=move |_| {
                if let Some(store) = wb.store.get_untracked() {
                    spawn_local(async move {
                        let _ = store.clear(StoreName::Responses).await;
                        wb.memory.get_value().borrow_mut().clear();
                        refresh();
                    });
                }
            }>"Clear cache"</button>
        </section>
    }
}
