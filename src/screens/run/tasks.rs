//! The Run screen's async work: planning a run a slice at a time, saving its manifest (so a
//! reload can resume it), carrying it out with [`runner::execute`], collecting the answers
//! into the judge runs the Results screen shows, and the opted-in key in local storage.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{Dataset, Loaded, RatingItem};
use concord_core::judge::ChatRequest;
use concord_core::run::batch::BatchRecord;
use concord_core::run::{CallSize, Endpoint, Finish, Price, SampleBatch, StopReason};
use concord_core::study::workbench::probe::{Variant, variant_dataset, variant_study};
use concord_core::study::workbench::{self, Plan, Planner, Study};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};

use crate::edge::store::{Store, StoreName};
use crate::edge::time::{self, FrameBudget};
use crate::run::runner::{self, Calls, RunControl};
use crate::screens::judge::state::JudgeState;
use crate::state::{JudgeRuns, OpenDataset, Screen, Storage, Workspace};

use super::state::{RunState, RunView};

/// The origin of the study's own runs (a probe's runs carry [`Variant::origin`]).
pub const STUDY_ORIGIN: &str = "study";

/// Everything a run reads and writes: the Run screen's state, the judge runs it fills, the
/// storage its answers go to, the workspace (which screen shows), and the study.
#[derive(Clone, Copy)]
pub struct RunContext {
    pub ws: Workspace,
    pub run: RunState,
    pub runs: JudgeRuns,
    pub storage: Storage,
    pub judge: JudgeState,
    /// Everything the saved workspace holds, to save it at once when a batch is submitted (a
    /// page closed right after must find the study its answers belong to). `None` outside the
    /// app (a component test).
    pub targets: Option<crate::persist::bundle::BundleTargets>,
}

impl RunContext {
    /// The context from the app's Leptos context.
    pub fn from_context() -> RunContext {
        RunContext {
            ws: expect_context(),
            run: expect_context(),
            runs: expect_context(),
            storage: expect_context(),
            judge: expect_context(),
            targets: (|| {
                Some(crate::persist::bundle::BundleTargets {
                    ws: use_context()?,
                    judge: use_context()?,
                    runs: use_context()?,
                    rate: use_context()?,
                    results: use_context()?,
                    run: use_context()?,
                    storage: use_context()?,
                    saved: use_context()?,
                })
            })(),
        }
    }
}

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
    /// The run sent an API key (never the key itself): resuming it asks for one before
    /// anything is sent, whatever the provider.
    #[serde(default)]
    pub had_key: bool,
    /// The run is the length probe on these variants of the outputs (the manifest keeps the
    /// original dataset and study; the run changes them when it starts).
    #[serde(default)]
    pub probe: Option<Variant>,
    /// Prompts the run found too long for the model: a resumed run does not send them again
    /// (nor stop on them).
    #[serde(default)]
    pub overflowed: Vec<String>,
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

/// Writes the prompts an interrupted run found too long into its manifest, so Resume does not
/// send them again.
async fn note_overflowed(store: &Store, overflowed: &[String]) {
    let Some(text) = store.get(StoreName::Runs, MANIFEST_KEY).await.ok().flatten() else { return };
    let Ok(mut head) = serde_json::from_str::<serde_json::Value>(&text) else { return };
    head["overflowed"] = serde_json::json!(overflowed);
    let _ = store.put(StoreName::Runs, MANIFEST_KEY, &head.to_string()).await;
}

/// The manifest of an interrupted run with its dataset's items, if there is one.
pub async fn load_manifest(store: &Store) -> Option<Manifest<'static>> {
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
pub async fn clear_manifest(store: &Store) {
    let _ = store.delete(StoreName::Runs, MANIFEST_KEY).await;
    let prefix = format!("{MANIFEST_KEY}/items/");
    for key in store.keys_with_prefix(StoreName::Runs, &prefix).await.unwrap_or_default() {
        let _ = store.delete(StoreName::Runs, &key).await;
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Where the prices a user entered are kept: `{"provider/model": [input, output]}` in USD a
/// million tokens.
const PRICES_STORAGE: &str = "concord.prices";

/// Loads the prices entered in an earlier session into the form (once, at start).
pub fn restore_prices(run: RunState) {
    let Some(text) = local_storage().and_then(|s| s.get_item(PRICES_STORAGE).ok().flatten()) else {
        return;
    };
    let Ok(saved) = serde_json::from_str::<BTreeMap<String, [f64; 2]>>(&text) else { return };
    run.connection.update(|c| {
        c.prices = saved
            .into_iter()
            .filter(|(_, [i, o])| i.is_finite() && o.is_finite() && *i >= 0.0 && *o >= 0.0)
            .map(|(k, [i, o])| (k, Price { input_per_million: i, output_per_million: o }))
            .collect();
    });
}

/// Keeps the entered prices in this browser's local storage.
pub fn save_prices(prices: &BTreeMap<String, Price>) {
    let plain: BTreeMap<&String, [f64; 2]> =
        prices.iter().map(|(k, p)| (k, [p.input_per_million, p.output_per_million])).collect();
    if let (Some(storage), Ok(json)) = (local_storage(), serde_json::to_string(&plain)) {
        let _ = storage.set_item(PRICES_STORAGE, &json);
    }
}

/// Loads an opted-in key into the form (once, at start).
pub fn restore_remembered_key(run: RunState) {
    if let Some(key) = local_storage().and_then(|s| s.get_item(KEY_STORAGE).ok().flatten())
        && !key.is_empty()
    {
        run.connection.update(|c| {
            c.api_key = key;
            c.remember = true;
        });
    }
}

pub fn remember_key(remember: bool, key: &str) {
    if let Some(storage) = local_storage() {
        if remember && !key.is_empty() {
            let _ = storage.set_item(KEY_STORAGE, key);
        } else {
            let _ = storage.remove_item(KEY_STORAGE);
        }
    }
}

pub fn items_of(dataset: &Dataset, limit: Option<usize>) -> Vec<usize> {
    let n = dataset.items.len();
    (0..limit.map_or(n, |l| l.min(n))).collect()
}

/// A planned study's calls for [`runner::execute`]: each request is rendered when it is sent
/// and each key derived when it is looked up, so a 40,000-call run holds neither its prompt
/// texts nor its 800,000 keys.
pub struct PlanCalls {
    pub loaded: Arc<Loaded>,
    pub study: Rc<Study>,
    pub plan: Rc<Plan>,
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
    fn prompt_label(&self, call: usize) -> Option<concord_core::run::PromptRef> {
        let prompt = self.plan.prompts.get(self.plan.calls.get(call)?.prompt)?;
        let item = self.loaded.dataset.items.get(prompt.item)?;
        let method = self.study.methods.get(prompt.method)?;
        Some(concord_core::run::PromptRef {
            item: format!("item {}", item.id),
            prompt: format!("item {} · {} · {}", item.id, method.name, prompt.attribute),
        })
    }
    fn size(&self, call: usize) -> CallSize {
        let Some(c) = self.plan.calls.get(call) else { return CallSize::default() };
        let Some(prompt) = self.plan.prompts.get(c.prompt) else { return CallSize::default() };
        let max_tokens = self.study.methods.get(prompt.method).and_then(|m| m.sampling.max_tokens);
        CallSize { prompt_chars: prompt.chars, samples: c.samples.count, max_tokens }
    }
    fn twin(&self, call: usize) -> Option<usize> {
        self.plan.twin_call(call)
    }
}

/// Replaces the study's runs in the judge runs with what is stored now, keeping imported runs.
/// A large run is collected a slice of prompts at a time with a yield in between.
pub async fn refresh_results(
    ctx: RunContext,
    loaded: Arc<Loaded>,
    study: Rc<Study>,
    endpoint: Endpoint,
    plan: Rc<Plan>,
    origin: Rc<str>,
) {
    let memory = ctx.storage.memory.get_value();
    let mut runs = workbench::results::empty_runs(&study);
    for run in &mut runs {
        run.origin = origin.to_string();
    }
    let mut budget = FrameBudget::new();
    for at in (0..plan.prompts.len()).step_by(250) {
        let end = (at + 250).min(plan.prompts.len());
        {
            let mem = memory.borrow();
            workbench::results::collect_into(
                &mut runs,
                &loaded.dataset,
                &study,
                &plan,
                at..end,
                |k| mem.get(k).cloned(),
                crate::run::runner::sample_info,
            );
        }
        budget.tick().await;
    }
    // Notes (parameters a provider rejected) describe how the runs were made: runs of another
    // study or endpoint replace the study's runs, and their notes go with them. A probe run
    // only adds its own runs.
    if &*origin == STUDY_ORIGIN {
        let same = ctx.runs.ran_with.with_value(|w| {
            w.as_ref().is_some_and(|(s, e)| **s == *study && e.as_ref() == Some(&endpoint))
        });
        if !same {
            ctx.runs.notes.set(Vec::new());
        }
        ctx.runs.ran_with.set_value(Some((study.clone(), Some(endpoint))));
    }
    ctx.runs.runs.update(|all| {
        all.retain(|r| r.origin != *origin);
        all.extend(runs.into_iter().filter(|r| !r.run.records.is_empty()));
    });
}

/// A study planned for one endpoint: what is sent (the probe's variants when there is one),
/// the origin its runs carry, and the plan.
pub struct Planned {
    pub loaded: Arc<Loaded>,
    pub study: Rc<Study>,
    pub origin: Rc<str>,
    pub plan: Rc<Plan>,
}

/// Plans `study` on `loaded` for `endpoint` a slice at a time, saying so on the Run screen
/// when `say`. `Err` is what the screen shows instead (nothing to run, cancelled while
/// planning).
#[allow(clippy::too_many_arguments)]
pub async fn plan_run(
    ctx: RunContext,
    loaded: Arc<Loaded>,
    study: &Study,
    probe: Option<Variant>,
    endpoint: &Endpoint,
    item_limit: Option<usize>,
    control: &RunControl,
    say: bool,
) -> Result<Planned, RunView> {
    // A "+cot" method without steps is not run with the rest, silently missing: it is said.
    if let Err(e) = concord_core::study::workbench::steps::check(study) {
        return Err(RunView { error: Some(e.to_string()), ..RunView::default() });
    }
    // A probe judges the same items with changed outputs, under the methods' probe names.
    let (run_loaded, run_study, origin): (Arc<Loaded>, Rc<Study>, Rc<str>) = match probe {
        Some(v) => (
            Arc::new(Loaded { dataset: variant_dataset(&loaded.dataset, v), ..(*loaded).clone() }),
            Rc::new(variant_study(study, v)),
            v.origin().into(),
        ),
        None => (loaded.clone(), Rc::new(study.clone()), STUDY_ORIGIN.into()),
    };
    let caps = super::state::planned_caps(ctx.run, endpoint.provider, &endpoint.model);
    let items = items_of(&loaded.dataset, item_limit);
    let plan = {
        let mut planner =
            Planner::new(&run_loaded.dataset, &run_study, endpoint, &caps, Some(&items));
        let mut budget = FrameBudget::new();
        loop {
            let mut finished = false;
            while !finished && !budget.spent() {
                finished = planner.step(100);
            }
            if finished {
                break planner.finish();
            }
            if control.is_cancelled() {
                return Err(RunView {
                    finished: Some("Run cancelled while it was being planned.".into()),
                    ..RunView::default()
                });
            }
            let (done, total) = (planner.done(), planner.total());
            if say {
                ctx.run.view.update(|v| {
                    v.planning = Some(format!("Planning the run: {done} of {total} prompts…"));
                });
            }
            budget.yield_now().await;
        }
    };
    if plan.prompts.is_empty() {
        return Err(RunView {
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
    }
    Ok(Planned { loaded: run_loaded, study: run_study, origin, plan: Rc::new(plan) })
}

/// What the Run screen says instead of starting, when a spend cap is set on a model with no
/// price (the cap could not hold anything back).
pub fn cap_without_price(form: &super::state::ConnectionForm) -> Option<RunView> {
    let connection = form.connection();
    if connection.spend_cap_usd.is_none() || connection.price.is_some() {
        return None;
    }
    let reason = StopReason::NoPrice { model: connection.endpoint.model.clone() };
    let said = Finish::Stopped(reason).describe(form.provider);
    let advice = said.advice.map(|a| format!(" {a}")).unwrap_or_default();
    Some(RunView { error: Some(format!("{}{advice}", said.message)), ..RunView::default() })
}

/// Starts a run of the open study (or of a manifest's when resuming): plans it a slice at a
/// time (saying so), saves the manifest, then carries it out with [`runner::execute`].
/// Requests that a pending batch will answer are not sent.
pub fn start_run(ctx: RunContext, dataset: OpenDataset, study: Study, probe: Option<Variant>) {
    let form = ctx.run.connection.get_untracked();
    let mut connection = form.connection();
    // Prompts an interrupted run of this model found too long are not sent again.
    let overflowed = ctx.run.overflowed.with_value(|(model, list)| {
        if *model == form.model.trim() { list.clone() } else { Vec::new() }
    });
    connection.known_overflow = overflowed.iter().cloned().collect();
    // What a check of this model found refused is never sent.
    connection.caps = super::state::planned_caps(ctx.run, form.provider, &form.model);
    // A cap the run could not hold to: said before anything is planned or saved for resuming
    // (the run engine refuses it too, for every screen).
    if let Some(refused) = cap_without_price(&form) {
        ctx.run.view.set(refused);
        return;
    }
    let control = RunControl::new();
    ctx.run.control.set_value(control.clone());
    ctx.run.view.set(RunView {
        running: true,
        planning: Some("Planning the run…".into()),
        ..RunView::default()
    });
    let loaded = dataset.loaded.clone();
    let study = Rc::new(study);
    spawn_local(async move {
        // Keys name the provider, not a proxy's address.
        let planned = plan_run(
            ctx,
            loaded.clone(),
            &study,
            probe,
            &form.key_endpoint(),
            form.item_limit,
            &control,
            true,
        )
        .await;
        let Planned { loaded: run_loaded, study: run_study, origin, plan } = match planned {
            Ok(p) => p,
            Err(view) => {
                ctx.run.view.set(view);
                return;
            }
        };
        // Weighted methods that fall back to their plain twin's answers are said before the
        // run, in its log.
        let model = form.model.trim().to_owned();
        let fallbacks: Vec<String> = plan
            .fallbacks
            .iter()
            .filter_map(|(w, p)| {
                Some(workbench::fallback_note(run_study.method(w)?, p, &model, None))
            })
            .collect();
        ctx.run.view.update(|v| {
            v.planning = Some("Saving the run's manifest…".into());
            v.log.extend(fallbacks.iter().cloned());
        });
        let manifest = Manifest {
            dataset: Cow::Borrowed(&loaded.dataset),
            format: loaded.format.name().to_owned(),
            study: Cow::Borrowed(&study),
            provider: form.provider.slug().to_owned(),
            base_url: concord_core::bundle::public_url(&form.base_url),
            model: form.model.clone(),
            item_limit: form.item_limit,
            max_concurrency: form.max_concurrency,
            requests_per_minute: form.requests_per_minute,
            started_at: time::now_ms(),
            finished: false,
            item_pages: 0,
            had_key: !form.api_key.trim().is_empty(),
            probe,
            overflowed: overflowed.clone(),
        };
        let store = match ctx.storage.store.get_untracked() {
            Some(s) => s,
            None => Store::open_or_memory().await.0,
        };
        save_manifest(&store, &manifest).await;
        ctx.run.view.update(|v| v.planning = Some("Looking up stored answers…".into()));
        let provider = form.provider;
        let all =
            PlanCalls { loaded: run_loaded.clone(), study: run_study.clone(), plan: plan.clone() };
        // Requests a pending batch will answer are not asked for again.
        let kept = without_pending(ctx, &all).await;
        let subset = kept.map(|list| runner::Subset { calls: &all, list });
        let calls: &dyn runner::Calls = match &subset {
            Some(s) => s,
            None => &all,
        };
        let endpoint = form.key_endpoint();
        // The page shows the run's progress at most ten times a second (a fast provider
        // answers hundreds of calls a second), and every log line.
        let mut shown = time::monotonic_ms() - 1000.0;
        let mut log: Vec<String> = Vec::new();
        let mut paused = false;
        let mut last_refresh = time::monotonic_ms();
        let refreshing = Rc::new(Cell::new(false));
        let outcome = runner::execute(
            connection,
            calls,
            store.clone(),
            ctx.storage.memory.get_value(),
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
                ctx.run.view.update(|v| {
                    v.planning = None;
                    v.paused = report.paused;
                    v.log.extend(lines);
                    v.report = Some(report);
                });
                // The table follows the run while it is on screen, without recomputing on every
                // sample (collecting a large run takes a while).
                let watching = ctx.ws.screen.get_untracked() == Screen::Results;
                if watching && now - last_refresh > 5000.0 && !refreshing.get() {
                    last_refresh = now;
                    refreshing.set(true);
                    let (loaded, study, plan, refreshing) =
                        (run_loaded.clone(), run_study.clone(), plan.clone(), refreshing.clone());
                    let (endpoint, origin) = (endpoint.clone(), origin.clone());
                    spawn_local(async move {
                        refresh_results(ctx, loaded, study, endpoint, plan, origin).await;
                        refreshing.set(false);
                    });
                }
            },
        )
        .await;
        ctx.run.view.update(|v| {
            v.planning = Some("Collecting the answers for the results…".into());
            v.log.extend(std::mem::take(&mut log));
        });
        refresh_results(
            ctx,
            run_loaded.clone(),
            run_study.clone(),
            endpoint.clone(),
            plan.clone(),
            origin.clone(),
        )
        .await;
        let said = outcome.finish.describe(provider);
        let (mut message, advice) = (said.message, said.advice);
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
            ctx.runs.notes.update(|notes| {
                if !notes.contains(&note) {
                    notes.push(note);
                }
            });
        }
        // A weighted method that fell back to its twin's answers, and methods the model's
        // check says it cannot serve, are said with the runs (Results, the bundle).
        let mut said_runs = fallbacks;
        if outcome.reused > 0 {
            said_runs.extend(plan.twin_methods.iter().filter_map(|(w, p)| {
                Some(workbench::fallback_note(
                    run_study.method(w)?,
                    p,
                    &model,
                    Some(outcome.reused),
                ))
            }));
        }
        if let Some(check) = super::state::check_of(&form, &ctx.run.checks.get_untracked()) {
            said_runs.extend(
                workbench::study::unservable(&run_study, &check)
                    .into_iter()
                    .filter(|(method, _)| !plan.fallbacks.iter().any(|(w, _)| w == method))
                    .map(|(method, why)| format!("{method}: {model} cannot serve it — {why}.")),
            );
        }
        if !said_runs.is_empty() {
            message.push_str(&format!(" {}", said_runs.join(" ")));
            ctx.runs.notes.update(|notes| {
                for note in said_runs {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            });
        }
        if !outcome.overflowed.is_empty() {
            message.push_str(&format!(
                " {} too long for the model failed (not sent again): {}.",
                if outcome.overflowed.len() == 1 {
                    "1 prompt".to_owned()
                } else {
                    format!("{} prompts", outcome.overflowed.len())
                },
                outcome.overflowed.join("; ")
            ));
        }
        // Remembered for Resume (with those of an earlier run of this model).
        let mut all = overflowed;
        let found = outcome.overflowed.iter().chain(&outcome.overflowed_items);
        all.extend(found.filter(|p| !all.contains(p)).cloned().collect::<Vec<_>>());
        ctx.run.overflowed.set_value((endpoint.model.clone(), all.clone()));
        if !matches!(outcome.finish, Finish::Completed) && !all.is_empty() {
            note_overflowed(&store, &all).await;
        }
        if outcome.storage_errors > 0 {
            message.push_str(&format!(" {} answers could not be saved to this browser's storage (kept in memory for this session).", outcome.storage_errors));
        }
        if matches!(outcome.finish, Finish::Completed) {
            // Nothing left to resume.
            clear_manifest(&store).await;
        }
        ctx.run.view.update(|v| {
            v.running = false;
            v.paused = false;
            v.planning = None;
            v.finished = Some(message);
            v.error = advice;
        });
    });
}

/// The cache keys of every request of a batch not collected yet: a run or a new batch does not
/// ask for them again.
pub fn pending_keys(records: &[BatchRecord]) -> HashSet<String> {
    records
        .iter()
        .filter(|r| r.is_pending())
        .flat_map(|r| r.lines.iter().flat_map(|l| l.keys.iter().cloned()))
        .collect()
}

/// The calls of a planned run that no pending batch will answer (all of them when no batch is
/// pending).
pub async fn without_pending(ctx: RunContext, calls: &dyn Calls) -> Option<Vec<usize>> {
    let pending = pending_keys(&ctx.run.batches.get_untracked());
    if pending.is_empty() {
        return None;
    }
    Some(runner::without_keys(calls, &pending).await)
}
