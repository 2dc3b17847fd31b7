//! The CoEval screen (seed 004): task setup, stage-1 criteria scrutiny, stage-2 instance
//! scrutiny driven by the keyboard, many annotators (export, import, merge with conflicts),
//! results, and the reproduction of seed 004's released files.
//!
//! # Nothing is lost
//!
//! An annotator's work is `concord_core::coeval::Log`, an append-only list of events (undo is
//! an event too). Every event is written to IndexedDB ([`crate::edge::store`], store
//! `annotations`, key `coeval/<task>/<annotator>/<seq>`) the moment it is made, in its own
//! transaction; on load the screen reads the logs back, replays them and resumes at the saved
//! cursor (or the latest decision). The study itself (task, criteria, instances, the LLM's
//! evaluations), the annotator's name and the cursor live in the `settings` store. The save
//! status (`data-testid="save-state"`) says when every write has committed.
//!
//! # Files
//!
//! * [`model`] — the view model, tested natively: the study, part rows, cursor, keyboard map,
//!   results and released-file tables, exports (CSV, Markdown, LaTeX, SVG).
//! * [`setup`], [`criteria`], [`scrutiny`], [`exchange`], [`results`], [`released`] — one
//!   panel each, under the screen's own tabs; [`llm`] — ideation and instance evaluation
//!   through [`crate::runner`].

pub mod criteria;
pub mod exchange;
pub mod llm;
pub mod model;
pub mod released;
pub mod results;
pub mod scrutiny;
pub mod setup;

use std::collections::BTreeMap;
use std::sync::Arc;

use concord_core::coeval::{self, Annotation, AnnotatorFile, Event, Log};
use concord_core::stats::KrippendorffLevel;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::edge::store::{Store, StoreName, log_key};
use model::{Cursor, Study};

/// Settings keys.
const STUDY_KEY: &str = "coeval/study";
const ANNOTATOR_KEY: &str = "coeval/annotator";

/// The annotation session of one annotator on one task (the prefix of its log records).
fn session(task: &str, annotator: &str) -> String {
    format!("coeval/{task}/{annotator}")
}

fn cursor_key(task: &str, annotator: &str) -> String {
    format!("coeval/cursor/{task}/{annotator}")
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
    const ALL: [Tab; 6] =
        [Tab::Setup, Tab::Criteria, Tab::Instances, Tab::Annotators, Tab::Results, Tab::Released];

    fn label(self) -> &'static str {
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
}

impl Ctx {
    fn new() -> Ctx {
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
        }
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
    /// (one transaction, so a batch is all or nothing). Refused events append nothing.
    pub fn record(&self, events: Vec<Event>) -> bool {
        // `try_` reads: a timer may flush while the screen is being torn down.
        let Some(study) = self.study.try_get_untracked().flatten() else {
            self.error.try_set(Some("set up a task first".to_owned()));
            return false;
        };
        let name = self.annotator.try_get_untracked().unwrap_or_default();
        if name.trim().is_empty() {
            self.error.try_set(Some("enter your name (annotator) in Task setup first".to_owned()));
            return false;
        }
        let Some(mut log) =
            self.logs.try_with_untracked(|m| m.get(&name).cloned().unwrap_or_default())
        else {
            return false;
        };
        let start = log.events().len();
        for e in events {
            if let Err(err) = log.push(e) {
                self.error.set(Some(format!("not recorded: {err}")));
                return false;
            }
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
        self.error.try_set(None);
        self.write(StoreName::Annotations, records);
        true
    }

    /// Writes entries in one transaction, tracking it in [`Ctx::pending`].
    pub fn write(&self, store: StoreName, entries: Vec<(String, String)>) {
        let Some(db) = self.store.try_get_untracked().flatten() else { return };
        let ctx = *self;
        ctx.pending.try_update(|n| *n += 1);
        spawn_local(async move {
            if let Err(e) = db.put_many(store, &entries).await {
                ctx.error.try_set(Some(format!("NOT SAVED: {e}")));
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
    /// merged by `concord_core::coeval::merge` (same annotator in several files: conflicts).
    /// Returns the merge and a name for each merged file (by index).
    pub fn merged(&self) -> Result<(coeval::Merge, Vec<String>), String> {
        let study = self.study.get();
        self.logs
            .with(|logs| self.imported.with(|imported| merge_all(study.as_deref(), logs, imported)))
    }

    /// [`Ctx::merged`] outside reactive tracking.
    pub fn merged_untracked(&self) -> Result<(coeval::Merge, Vec<String>), String> {
        let study = self.study.get_untracked();
        self.logs.with_untracked(|logs| {
            self.imported.with_untracked(|imported| merge_all(study.as_deref(), logs, imported))
        })
    }

    /// The annotators' (name, state) after the merge, in merge order.
    pub fn annotations(&self) -> Vec<(String, Annotation)> {
        match self.merged() {
            Ok((m, _)) => m.annotators.into_iter().map(|a| (a.annotator, a.state)).collect(),
            Err(_) => Vec::new(),
        }
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
                load_logs(ctx, &db, &study).await;
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
                restore_cursor(ctx, &db, &study).await;
            }
        });
    }
}

fn merge_all(
    study: Option<&Study>,
    logs: &BTreeMap<String, Log>,
    imported: &[(String, AnnotatorFile)],
) -> Result<(coeval::Merge, Vec<String>), String> {
    let Some(study) = study else { return Ok((coeval::Merge::default(), Vec::new())) };
    let mut files: Vec<AnnotatorFile> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    for (name, log) in logs {
        if !log.events().is_empty() {
            files.push(AnnotatorFile::new(name, &study.task, log));
            sources.push(format!("this device ({name})"));
        }
    }
    for (file, f) in imported.iter().filter(|(_, f)| f.task == study.task) {
        files.push(f.clone());
        sources.push(file.clone());
    }
    coeval::merge(&files)
        .map(|m| (m, sources.clone()))
        .map_err(|(i, e)| format!("{}: {e}", sources.get(i).map_or("?", String::as_str)))
}

/// Reads every annotator's log of the study's task and replaces [`Ctx::logs`].
async fn load_logs(ctx: Ctx, db: &Store, study: &Study) {
    let prefix = format!("coeval/{}/", study.task);
    let entries = match db.get_with_prefix(StoreName::Annotations, &prefix).await {
        Ok(e) => e,
        Err(e) => {
            ctx.error.try_set(Some(format!("could not read the saved annotations: {e}")));
            return;
        }
    };
    let mut events: BTreeMap<String, Vec<(u64, Event)>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (key, value) in entries {
        let Some((name, seq)) = key.strip_prefix(&prefix).and_then(|r| r.rsplit_once('/')) else {
            continue;
        };
        let Ok(seq) = seq.parse::<u64>() else { continue };
        match serde_json::from_str::<Event>(&value) {
            Ok(e) => events.entry(name.to_owned()).or_default().push((seq, e)),
            Err(e) => problems.push(format!("{key}: {e}")),
        }
    }
    let mut logs = BTreeMap::new();
    for (name, mut list) in events {
        list.sort_by_key(|(seq, _)| *seq);
        let list: Vec<Event> = list.into_iter().map(|(_, e)| e).collect();
        match Log::from_events(list.clone()) {
            Ok(log) => {
                logs.insert(name, log);
            }
            Err((index, e)) => {
                // Keep what replays; say where it stopped.
                problems.push(format!("{name}: saved event {index} does not replay ({e})"));
                let kept = Log::from_events(list[..index].to_vec()).unwrap_or_default();
                logs.insert(name, kept);
            }
        }
    }
    if !problems.is_empty() {
        ctx.error.try_set(Some(problems.join("; ")));
    }
    if ctx.logs.try_set(logs).is_some() {
        return; // the screen was left
    }
    restore_cursor(ctx, db, study).await;
}

/// The saved cursor of the current annotator, else the evaluation of their latest decision.
async fn restore_cursor(ctx: Ctx, db: &Store, study: &Study) {
    // The screen may have been left while storage was read.
    let Some(name) = ctx.annotator.try_get_untracked() else { return };
    let saved = db
        .get(StoreName::Settings, &cursor_key(&study.task, &name))
        .await
        .ok()
        .flatten()
        .and_then(|s| serde_json::from_str::<Cursor>(&s).ok());
    if ctx.logs.is_disposed() {
        return;
    }
    let cursor = saved.unwrap_or_else(|| {
        let log = ctx.logs.with_untracked(|m| m.get(&name).cloned().unwrap_or_default());
        let criteria = scrutiny::stage2_criteria(ctx, study);
        model::resume_cursor(&log, &study.instances, &criteria)
    });
    ctx.cursor.try_set(cursor);
}

/// Opens the store and restores the study, the annotator, their logs and cursor.
/// Every write after an `.await` is a `try_`: the screen may have been left (and its signals
/// disposed) while storage was read, and then there is nothing to restore.
async fn init(ctx: Ctx) {
    let (db, problem) = Store::open_or_memory().await;
    if let Some(p) = problem {
        ctx.storage_note.try_set(Some(p.to_string()));
    }
    if ctx.store.try_set(Some(db.clone())).is_some() {
        return;
    }
    if let Ok(Some(name)) = db.get(StoreName::Settings, ANNOTATOR_KEY).await
        && ctx.annotator.try_set(name).is_some()
    {
        return;
    }
    let study = match db.get(StoreName::Settings, STUDY_KEY).await {
        Ok(Some(json)) => serde_json::from_str::<Study>(&json).ok(),
        _ => None,
    };
    // A coordinator's imported annotator files come back too (they are kept as imported).
    if let Ok(entries) = db.get_with_prefix(StoreName::Settings, IMPORTED_PREFIX).await {
        let files: Vec<(String, AnnotatorFile)> = entries
            .into_iter()
            .filter_map(|(key, json)| {
                let name = key.strip_prefix(IMPORTED_PREFIX)?.to_owned();
                serde_json::from_str::<AnnotatorFile>(&json).ok().map(|f| (name, f))
            })
            .collect();
        if !files.is_empty() && ctx.imported.try_set(files).is_some() {
            return;
        }
    }
    if let Some(study) = study {
        let study = Arc::new(study);
        if ctx.study.try_set(Some(study.clone())).is_some() {
            return;
        }
        load_logs(ctx, &db, &study).await;
        ctx.tab.try_set(Tab::Instances);
    }
    ctx.ready.try_set(true);
}

/// Where a coordinator's imported annotator files are kept (`coeval-imported/<file name>`).
pub const IMPORTED_PREFIX: &str = "coeval-imported/";

/// The screen's context (provided by [`CoEvalPage`]).
pub fn use_ctx() -> Ctx {
    expect_context::<Ctx>()
}

#[component]
pub fn CoEvalPage() -> impl IntoView {
    let ctx = Ctx::new();
    provide_context(ctx);
    spawn_local(init(ctx));
    view! {
        <section class="panel coeval-head" aria-labelledby="coeval-heading">
            <h2 id="coeval-heading">"CoEval: LLM evaluation with human scrutiny"</h2>
            <p class="muted">
                "Seed 004's pipeline: the LLM proposes criteria and evaluates each instance; "
                "annotators approve, delete, revise or add. Every action is saved in this browser "
                "the moment it is made."
            </p>
            <div class="row">
                <span data-testid="coeval-study">
                    {move || match ctx.study.get() {
                        Some(s) => format!("Task: {} · {} instances · {} criteria", s.task, s.instances.len(), s.criteria.len()),
                        None => "No task set up yet".to_owned(),
                    }}
                </span>
                <span data-testid="coeval-annotator">
                    {move || {
                        let a = ctx.annotator.get();
                        if a.is_empty() { "Annotator: (none)".to_owned() } else { format!("Annotator: {a}") }
                    }}
                </span>
                <span class="save-state" data-testid="save-state" role="status">
                    {move || {
                        if !ctx.ready.get() {
                            "Restoring saved work…".to_owned()
                        } else {
                            match ctx.pending.get() {
                                0 => "All actions saved".to_owned(),
                                n => format!("Saving {n}…"),
                            }
                        }
                    }}
                </span>
            </div>
            <Show when=move || ctx.storage_note.get().is_some()>
                <p class="error-box" role="alert">{move || ctx.storage_note.get().unwrap_or_default()}</p>
            </Show>
            <Show when=move || ctx.error.get().is_some()>
                <p class="error-box" role="alert" data-testid="coeval-error">{move || ctx.error.get().unwrap_or_default()}</p>
            </Show>
            <nav class="subtabs" role="tablist" aria-label="CoEval steps">
                {Tab::ALL
                    .into_iter()
                    .map(|tab| {
                        view! {
                            <button role="tab" type="button"
                                aria-selected=move || (ctx.tab.get() == tab).to_string()
                                on:click=move |_| ctx.tab.set(tab)>
                                {tab.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
        </section>
        {move || {
            if !ctx.ready.get() {
                return view! { <p class="muted">"Restoring saved work…"</p> }.into_any();
            }
            match ctx.tab.get() {
                Tab::Setup => view! { <setup::SetupPanel/> }.into_any(),
                Tab::Criteria => view! { <criteria::CriteriaPanel/> }.into_any(),
                Tab::Instances => view! { <scrutiny::ScrutinyPanel/> }.into_any(),
                Tab::Annotators => view! { <exchange::ExchangePanel/> }.into_any(),
                Tab::Results => view! { <results::ResultsPanel/> }.into_any(),
                Tab::Released => view! { <released::ReleasedPanel/> }.into_any(),
            }
        }}
    }
}

/// A table with its CSV / Markdown / LaTeX export buttons.
#[component]
pub fn TableView(
    table: model::Table,
    #[prop(into)] testid: String,
    #[prop(into)] file: String,
) -> impl IntoView {
    // Context is looked up now: event handlers run outside the component's owner.
    let ctx = use_ctx();
    let export = {
        let table = table.clone();
        move |kind: &'static str| {
            let (ext, mime, text) = match kind {
                "csv" => ("csv", "text/csv", table.to_csv()),
                "md" => ("md", "text/markdown", table.to_markdown()),
                _ => ("tex", "application/x-tex", table.to_latex()),
            };
            if let Err(e) =
                crate::components::download::save_text(&format!("{file}.{ext}"), mime, &text)
            {
                ctx.error.set(Some(e));
            }
        }
    };
    let (e1, e2, e3) = (export.clone(), export.clone(), export);
    let title = table.title.clone();
    view! {
        <div class="coeval-table">
            <h3>{title.clone()}</h3>
            <div class="table-wrap">
                <table class="data" data-testid=testid>
                    <thead><tr>{table.headers.iter().map(|h| view! { <th scope="col">{h.clone()}</th> }).collect_view()}</tr></thead>
                    <tbody>
                        {table.rows.iter().map(|r| view! {
                            <tr>{r.iter().enumerate().map(|(i, c)| {
                                let class = if i == 0 { "text" } else { "num" };
                                view! { <td class=class>{c.clone()}</td> }
                            }).collect_view()}</tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <div class="row exports">
                <button class="secondary" type="button" aria-label=format!("Export {title} as CSV") on:click=move |_| e1("csv")>"CSV"</button>
                <button class="secondary" type="button" aria-label=format!("Export {title} as Markdown") on:click=move |_| e2("md")>"Markdown"</button>
                <button class="secondary" type="button" aria-label=format!("Export {title} as LaTeX") on:click=move |_| e3("tex")>"LaTeX"</button>
            </div>
        </div>
    }
}

/// A plot ([`crate::components::plot`]) drawn in the page, with an "Export SVG" button that
/// saves the same scene as a standalone file.
#[component]
pub fn PlotView(
    map: concord_core::report::figure::Heatmap,
    #[prop(into)] label: String,
    #[prop(into)] file: String,
) -> impl IntoView {
    let scene = map.scene();
    let svg = scene.to_svg();
    let export = format!("Export {label} as SVG");
    let ctx = use_ctx();
    view! {
        <figure class="coeval-figure">
            {crate::components::figure_view::scene_view(&scene, &label)}
            <figcaption>
                <button class="secondary" type="button" aria-label=export
                    on:click=move |_| {
                        if let Err(e) = crate::components::download::save_text(&format!("{file}.svg"), "image/svg+xml", &svg) {
                            ctx.error.set(Some(e));
                        }
                    }>"Export SVG"</button>
            </figcaption>
        </figure>
    }
}
