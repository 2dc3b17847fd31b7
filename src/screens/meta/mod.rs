//! The Pairwise & meta-evaluation screen (seed 003): import released evaluator and
//! meta-evaluator files, see Table 1, Tables 5 and 6, Elo over shuffles, Bradley–Terry, win
//! rates, the match distribution, ranking agreement and post accuracy recomputed in the browser
//! with the core functions of `concord meta`, export every table, and inspect JDEval debates
//! and BSMEval branches. Live runs ([`run`], values in [`live`]) judge pairs with several
//! evaluator models and meta-evaluate their judgements (JDEval, MDEval, JDEval-i, BSMEval); their
//! outcomes join the same views as workspace files. The Elo seed spread repeats the shuffled Elo
//! under several seeds.
//!
//! Numbers come from [`model`] (pure, natively tested); this module is the Leptos views and the
//! scheduling: files are read one at a time and parsed in a Web Worker
//! ([`crate::edge::worker`]), then analysed here; the Elo / Bradley–Terry
//! recomputation runs one meta-evaluator at a time, each step followed by a yield to the
//! browser so that input and painting are never held up for long.
//!
//! The screen's state lives outside the component ([`State`]), so switching to another tab and
//! back keeps the loaded files.

pub mod live;
pub mod model;
mod run;

use std::sync::Arc;

use concord_core::meta::{EloOptions, MetaProtocol};
use concord_core::stats::EloParams;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::{DragEvent, File, HtmlInputElement};

use crate::browser::read_file;
use crate::components::download::save_text;
use crate::components::figure_view::scene_view;
use crate::edge::time::{monotonic_ms, yield_now};
use crate::edge::worker::load_in_worker;
use concord_core::report::figure::{self as plot, Heatmap, RankPoint as Bar, Ranking as BarChart};
use concord_core::report::format_value;
use run::RunPanel;

use model::{
    Content, FileKind, JdEvalFile, MetaFile, PairwiseResult, SeedSpread, Table, TieConvention,
};

/// A loaded file with the id the list and the selections use.
#[derive(Clone)]
struct Entry {
    id: u64,
    file: Arc<MetaFile>,
}

impl Entry {
    fn jdeval(&self) -> Option<&JdEvalFile> {
        match &self.file.content {
            Content::JdEval(j) => Some(j),
            _ => None,
        }
    }
}

/// Elo and Bradley–Terry of one JDEval file under the current controls.
#[derive(Clone)]
struct Computed {
    id: u64,
    result: Arc<PairwiseResult>,
}

/// The screen's state as signals (`Copy`, so closures take it freely). The signals belong to
/// a root owner of their own that lives as long as the page (see [`State::shared`]), so they
/// survive the component being unmounted when another tab shows, and an async task that
/// outlives the component never touches a disposed signal.
#[derive(Clone, Copy)]
struct State {
    files: RwSignal<Vec<Entry>>,
    next_id: RwSignal<u64>,
    /// "Reading x (2 of 5)…" while files are being read.
    loading: RwSignal<Option<String>>,
    errors: RwSignal<Vec<String>>,
    k: RwSignal<String>,
    init: RwSignal<String>,
    scale: RwSignal<String>,
    shuffles: RwSignal<String>,
    seed: RwSignal<String>,
    resamples: RwSignal<String>,
    computed: RwSignal<Vec<Computed>>,
    /// "Computing 2 of 4…" while Elo / Bradley–Terry run.
    computing: RwSignal<Option<String>>,
    /// Bumped by each recomputation so a stale one stops.
    generation: RwSignal<u64>,
    last_compute_ms: RwSignal<Option<f64>>,
    control_error: RwSignal<Option<String>>,
    convention: RwSignal<TieConvention>,
    selected_meta: RwSignal<Option<u64>>,
    debate_file: RwSignal<Option<u64>>,
    debate_index: RwSignal<usize>,
    branch_file: RwSignal<Option<u64>>,
    branch_index: RwSignal<usize>,
    /// How many seeds the Elo seed spread uses (seed, seed + 1, …).
    seeds: RwSignal<String>,
    seed_spread: RwSignal<Vec<SeedSpread>>,
    seed_status: RwSignal<Option<String>>,
    /// Live runs from this screen.
    run: run::RunState,
}

thread_local! {
    // The owner is kept beside the state: dropping it would dispose the signals.
    static STATE: (Owner, State) = {
        let owner = Owner::new_root(None);
        let state = owner.with(State::new);
        (owner, state)
    };
}

impl State {
    fn new() -> State {
        let text = |s: &str| RwSignal::new(s.to_owned());
        State {
            files: RwSignal::new(Vec::new()),
            next_id: RwSignal::new(1),
            loading: RwSignal::new(None),
            errors: RwSignal::new(Vec::new()),
            k: text("4"),
            init: text("1000"),
            scale: text("400"),
            shuffles: text("200"),
            seed: text("0"),
            resamples: text("200"),
            computed: RwSignal::new(Vec::new()),
            computing: RwSignal::new(None),
            generation: RwSignal::new(0),
            last_compute_ms: RwSignal::new(None),
            control_error: RwSignal::new(None),
            convention: RwSignal::new(TieConvention::Zero),
            selected_meta: RwSignal::new(None),
            debate_file: RwSignal::new(None),
            debate_index: RwSignal::new(0),
            branch_file: RwSignal::new(None),
            branch_index: RwSignal::new(0),
            seeds: text("5"),
            seed_spread: RwSignal::new(Vec::new()),
            seed_status: RwSignal::new(None),
            run: run::RunState::new(),
        }
    }

    fn shared() -> State {
        STATE.with(|(_, state)| *state)
    }

    fn jdeval_entries(&self) -> Vec<Entry> {
        self.files.get().into_iter().filter(|e| e.jdeval().is_some()).collect()
    }

    /// [`State::jdeval_entries`] outside the views (no tracking).
    fn jdeval_entries_untracked(&self) -> Vec<Entry> {
        self.files.get_untracked().into_iter().filter(|e| e.jdeval().is_some()).collect()
    }

    /// The Elo options of the controls, or what is wrong with them.
    fn options(&self) -> Result<(EloOptions, usize), String> {
        let number = |s: RwSignal<String>, what: &str| {
            model::parse_number(&s.get_untracked())
                .ok_or_else(|| format!("{what} must be a number"))
        };
        let count = |s: RwSignal<String>, what: &str, max: usize| {
            s.get_untracked()
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= max)
                .ok_or_else(|| format!("{what} must be a whole number from 0 to {max}"))
        };
        let params = EloParams {
            k: number(self.k, "K")?,
            init: number(self.init, "Initial rating")?,
            scale: number(self.scale, "Scale")?,
            ..EloParams::default()
        };
        if params.scale <= 0.0 {
            return Err("Scale must be positive".to_owned());
        }
        let seed = self
            .seed
            .get_untracked()
            .trim()
            .parse::<u64>()
            .map_err(|_| "Seed must be a whole number".to_owned())?;
        let options = EloOptions {
            params,
            shuffles: count(self.shuffles, "Shuffles", 5000)?,
            seed,
            seeds: 0,
        };
        Ok((options, count(self.resamples, "Bootstrap resamples", 5000)?))
    }
}

/// Reads and analyses `files` one after the other, then recomputes the pairwise results.
fn load_files(state: State, files: Vec<File>) {
    if files.is_empty() {
        return;
    }
    spawn_local(async move {
        let total = files.len();
        for (i, file) in files.into_iter().enumerate() {
            let name = file.name();
            state.loading.set(Some(format!("Reading {name} ({} of {total})…", i + 1)));
            // Paint the progress before the (synchronous) parse.
            yield_now().await;
            match read_file(&file).await {
                Ok(bytes) => {
                    // The loader runs in a worker (a 4 MB file takes longer than a frame); what
                    // is left on this thread reads a few fields per line.
                    let loaded = load_in_worker(name.clone(), bytes, |_| {}).await;
                    yield_now().await;
                    let analysed = model::analyze_loaded(&name, loaded.map_err(|e| e.to_string()));
                    let id = state.next_id.get_untracked();
                    state.next_id.set(id + 1);
                    state.files.update(|f| f.push(Entry { id, file: Arc::new(analysed) }));
                }
                Err(message) => state.errors.update(|e| e.push(message)),
            }
        }
        state.loading.set(None);
        recompute(state);
    });
}

/// Adds the files a live run made (replacing those of an earlier run of the same name), then
/// recomputes the pairwise results.
fn add_files(state: State, files: Vec<MetaFile>) {
    if files.is_empty() {
        return;
    }
    let mut next = state.next_id.get_untracked();
    state.files.update(|list| {
        list.retain(|e| !run::replaces(&e.file, &files));
        for file in files {
            list.push(Entry { id: next, file: Arc::new(file) });
            next += 1;
        }
    });
    state.next_id.set(next);
    recompute(state);
}

/// [`model::elo_summary`] of one file played in slices of about 20 ms with a yield between
/// them (200 shuffles of 300 matches take ~50 ms); `None` when `stale` turns true meanwhile.
async fn elo_sliced(
    file: &JdEvalFile,
    options: &EloOptions,
    stale: impl Fn() -> bool,
) -> Option<concord_core::meta::EloResult> {
    let orders = model::elo_orders(&file.set, options);
    let mut runs = Vec::with_capacity(orders.len());
    let mut slice_start = monotonic_ms();
    for order in &orders {
        if monotonic_ms() - slice_start > 20.0 {
            yield_now().await;
            if stale() {
                return None;
            }
            slice_start = monotonic_ms();
        }
        runs.push(model::elo_run(&file.set, order.as_deref(), options));
    }
    Some(model::elo_summary(&file.meta_evaluator, &file.set, &runs))
}

/// The Elo seed spread of every JDEval file: the shuffle-averaged Elo under seeds `seed`,
/// `seed + 1`, … (the "Seeds" control), summarised by the core's `elo_seed_summary`.
fn compute_seed_spread(state: State) {
    let (options, _) = match state.options() {
        Ok(o) => o,
        Err(message) => {
            state.control_error.set(Some(message));
            return;
        }
    };
    let count = match state.seeds.get_untracked().trim().parse::<u64>() {
        Ok(n) if (2..=50).contains(&n) => n,
        _ => {
            state.control_error.set(Some("Seeds must be a whole number from 2 to 50".to_owned()));
            return;
        }
    };
    state.control_error.set(None);
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    let entries = state.jdeval_entries_untracked();
    state.seed_status.set(Some("Computing the spread across seeds…".to_owned()));
    spawn_local(async move {
        let stale = move || state.generation.get_untracked() != generation;
        let mut out = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let Some(file) = entry.jdeval() else { continue };
            let mut per_seed = Vec::new();
            for k in 0..count {
                state.seed_status.set(Some(format!(
                    "Computing the spread across seeds: meta-evaluator {} of {}, seed {} of {count}…",
                    i + 1,
                    entries.len(),
                    k + 1
                )));
                let seeded = EloOptions { seed: options.seed.wrapping_add(k), ..options };
                let Some(result) = elo_sliced(file, &seeded, stale).await else { return };
                per_seed.push(result);
                yield_now().await;
                if stale() {
                    return;
                }
            }
            out.push(SeedSpread::new(&file.meta_evaluator, &file.set.evaluators, &per_seed));
        }
        state.seed_spread.set(out);
        state.seed_status.set(Some(format!(
            "Spread over {count} seeds ({}…{}), {} shuffles each.",
            options.seed,
            options.seed.wrapping_add(count - 1),
            options.shuffles
        )));
    });
}

/// Recomputes Elo and Bradley–Terry for every JDEval file under the current controls, one file
/// per task.
fn recompute(state: State) {
    let (options, resamples) = match state.options() {
        Ok(o) => o,
        Err(message) => {
            state.control_error.set(Some(message));
            return;
        }
    };
    state.control_error.set(None);
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    // The seed spread was computed for the former files and controls.
    state.seed_spread.set(Vec::new());
    state.seed_status.set(None);
    let entries = state.jdeval_entries_untracked();
    if entries.is_empty() {
        state.computed.set(Vec::new());
        state.computing.set(None);
        return;
    }
    // Set now, not in the task, so nothing reads the previous run's "Computed in".
    state.computing.set(Some("Computing Elo and Bradley–Terry…".to_owned()));
    state.last_compute_ms.set(None);
    spawn_local(async move {
        let started = monotonic_ms();
        let total = entries.len();
        let mut out = Vec::with_capacity(total);
        let stale = move || state.generation.get_untracked() != generation;
        for (i, entry) in entries.iter().enumerate() {
            let Some(file) = entry.jdeval() else { continue };
            state
                .computing
                .set(Some(format!("Computing Elo and Bradley–Terry: {} of {total}…", i + 1)));
            let Some(elo) = elo_sliced(file, &options, stale).await else { return };
            yield_now().await;
            if stale() {
                return;
            }
            let bradley_terry = model::bradley_terry(file, &options, resamples);
            out.push(Computed {
                id: entry.id,
                result: Arc::new(PairwiseResult { elo, bradley_terry }),
            });
            yield_now().await;
            if stale() {
                return;
            }
        }
        state.computed.set(out);
        state.computing.set(None);
        state.last_compute_ms.set(Some(monotonic_ms() - started));
    });
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

#[component]
pub fn MetaPage() -> impl IntoView {
    // Looked up before `State::shared`: the first call creates the screen's root owner, and
    // what is provided after it is provided there, out of reach of the App's contexts. The run
    // panel needs the workbench (the Run screen's connection, the answer cache), so it is
    // provided again next to the state.
    let wb = crate::runner::LlmAccess::try_from_context();
    let state = State::shared();
    provide_context(state);
    if let Some(wb) = wb {
        provide_context(wb);
    }
    view! {
        <div class="meta-page">
            <ImportPanel/>
            <Show when=move || !state.files.get().is_empty()>
                <RunPanel/>
                <EvaluatorPanel/>
                <MetaScorePanel/>
                <PairwisePanel/>
                <AgreementPanel/>
                <DebatePanel/>
                <BranchPanel/>
            </Show>
        </div>
    }
}

#[component]
fn ImportPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let dragging = RwSignal::new(false);
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        load_files(state, files_of(input.files()));
        input.set_value("");
    };
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        load_files(state, files_of(ev.data_transfer().and_then(|dt| dt.files())));
    };
    let on_drag_over = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    };
    let remove = move |id: u64| {
        state.files.update(|f| f.retain(|e| e.id != id));
        recompute(state);
    };
    view! {
        <section class="panel" aria-labelledby="meta-import-heading">
            <h2 id="meta-import-heading">"Meta-evaluation files"</h2>
            <p class="muted">
                "Released evaluator results (pairwise, pointwise) and meta-evaluator results "
                "(JDEval, JDEval-i, BSMEval) of the meta-evaluation paper, or files of the same shape. "
                "Pick or drop several at once; they are read in your browser and nothing is uploaded."
            </p>
            <div class="dropzone" class:active=move || dragging.get()
                on:dragover=on_drag_over on:dragleave=move |_| dragging.set(false) on:drop=on_drop>
                <label for="meta-files">"Load meta-evaluation files"</label>
                " "
                <input id="meta-files" type="file" multiple=true accept=".json,.jsonl,application/json"
                    on:change=on_pick/>
                <span class="muted">" or drop files here"</span>
            </div>
            <Show when=move || state.loading.get().is_some()>
                <p role="status" data-testid="meta-loading">{move || state.loading.get().unwrap_or_default()}</p>
            </Show>
            {move || {
                let errors = state.errors.get();
                (!errors.is_empty()).then(|| view! {
                    <ul class="error-box" role="alert">
                        {errors.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}
                    </ul>
                })
            }}
            {move || {
                let files = state.files.get();
                if files.is_empty() {
                    return view! { <p class="muted" data-testid="meta-empty">"No file loaded yet."</p> }.into_any();
                }
                view! {
                    <div class="table-wrap meta-files">
                        <table class="data" data-testid="meta-file-list">
                            <thead><tr>
                                <th scope="col">"File"</th><th scope="col">"Detected"</th>
                                <th scope="col">"Counts"</th><th scope="col">"Notes"</th><th scope="col"><span class="sr-only">"Remove"</span></th>
                            </tr></thead>
                            <tbody>
                                {files.into_iter().map(|e| {
                                    let f = e.file.clone();
                                    let id = e.id;
                                    let notes = f.problem.clone().into_iter().chain(f.diagnostics.iter().take(5).cloned()).collect::<Vec<_>>();
                                    let more = f.diagnostics.len().saturating_sub(5);
                                    let kind = if f.format.is_empty() { f.kind.label().to_owned() } else { format!("{} ({})", f.kind.label(), f.format) };
                                    view! {
                                        <tr data-kind=format!("{:?}", f.kind)>
                                            <td class="text">{f.name.clone()}</td>
                                            <td>{kind}</td>
                                            <td>{f.counts.clone()}</td>
                                            <td class="text">
                                                <ul class="diagnostics">
                                                    {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                                                    {(more > 0).then(|| view! { <li class="muted">{format!("… {more} more")}</li> })}
                                                </ul>
                                            </td>
                                            <td><button type="button" class="secondary" aria-label=format!("Remove {}", f.name)
                                                on:click=move |_| remove(id)>"Remove"</button></td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <button type="button" class="secondary" on:click=move |_| {
                        state.files.set(Vec::new());
                        state.errors.set(Vec::new());
                        recompute(state);
                    }>"Remove all files"</button>
                }.into_any()
            }}
        </section>
    }
}

/// A table with its export buttons; cells carry `data-cell` keys and full-precision values.
#[component]
fn TableView(table: Table) -> impl IntoView {
    let table = Arc::new(table);
    let export = move |t: Arc<Table>, ext: &'static str| {
        let (mime, text) = match ext {
            "csv" => ("text/csv", t.to_csv()),
            "md" => ("text/markdown", t.to_markdown()),
            _ => ("application/x-tex", t.to_latex()),
        };
        if let Err(e) = save_text(&format!("{}.{ext}", t.id), mime, &text) {
            web_sys::console::warn_1(&e.to_string().into());
        }
    };
    let buttons = [("csv", "CSV"), ("md", "Markdown"), ("tex", "LaTeX")]
        .into_iter()
        .map(|(ext, label)| {
            let t = table.clone();
            let aria = format!("Export {} as {label}", t.title);
            view! { <button type="button" class="secondary small" aria-label=aria
            on:click=move |_| export(t.clone(), ext)>{label}</button> }
        })
        .collect_view();
    view! {
        <figure class="meta-table">
            <figcaption>{table.title.clone()}</figcaption>
            <div class="table-wrap">
                <table class="data" data-table=table.id.clone()>
                    <thead><tr>
                        <th scope="col">{table.corner.clone()}</th>
                        {table.columns.iter().map(|c| view! { <th scope="col" class="num">{c.clone()}</th> }).collect_view()}
                    </tr></thead>
                    <tbody>
                        {table.rows.iter().map(|r| view! {
                            <tr>
                                <th scope="row">{r.label.clone()}</th>
                                {r.cells.iter().map(|c| view! {
                                    <td class="num" data-cell=c.key.clone()
                                        data-value=c.value.map(|v| v.to_string())>{c.text.clone()}</td>
                                }).collect_view()}
                            </tr>
                        }).collect_view()}
                    </tbody>
                </table>
            </div>
            <div class="row exports">{buttons}</div>
        </figure>
    }
}

#[component]
fn EvaluatorPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let table = move || {
        let files = state.files.get();
        let refs: Vec<&MetaFile> = files.iter().map(|e| &*e.file).collect();
        let (rows, _) = model::report_rows(&refs);
        (!rows.is_empty()).then(|| model::table1(&rows))
    };
    view! {
        <section class="panel" aria-labelledby="meta-eval-heading">
            <h2 id="meta-eval-heading">"Evaluators against humans"</h2>
            <p class="muted">
                "Accuracy: the evaluator's verdict against the gold label, a tie being a class of its own; "
                "without ties: over the pairs whose label is not a tie, a tie verdict counting as wrong. "
                "Pearson: the pointwise score against the gold score, pooled over the items."
            </p>
            {move || match table() {
                Some(t) => view! { <TableView table=t/> }.into_any(),
                None => view! { <p class="muted">"Load evaluator result files to see Table 1."</p> }.into_any(),
            }}
        </section>
    }
}

#[component]
fn MetaScorePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let tables = move || {
        let files = state.files.get();
        let refs: Vec<&MetaFile> = files.iter().map(|e| &*e.file).collect();
        let (_, scores) = model::report_rows(&refs);
        [MetaProtocol::JdEvalI, MetaProtocol::BsmEval]
            .into_iter()
            .map(|p| model::meta_table(&scores, p))
            .filter(|t| !t.rows.is_empty())
            .collect::<Vec<_>>()
    };
    view! {
        <Show when=move || !tables().is_empty()>
            <section class="panel" aria-labelledby="meta-scores-heading">
                <h2 id="meta-scores-heading">"Individual-scoring meta-evaluation"</h2>
                <p class="muted">"The mean score a meta-evaluator gave each evaluator's assessments (empty scores dropped); under BSMEval each score is itself the mean of the branch scores."</p>
                {move || tables().into_iter().map(|t| view! { <TableView table=t/> }).collect_view()}
            </section>
        </Show>
    }
}

fn labelled_number(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <label class="control" for=id>
            <span>{label}</span>
            <input id=id type="text" inputmode="decimal" size="6" prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
        </label>
    }
}

#[component]
fn PairwisePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has_jdeval = move || state.files.get().iter().any(|e| e.jdeval().is_some());
    view! {
        <Show when=has_jdeval>
            <section class="panel" aria-labelledby="meta-pairwise-heading">
                <h2 id="meta-pairwise-heading">"Pairwise meta-evaluation (JDEval): Elo, Bradley–Terry, win rates"</h2>
                <form class="row controls" on:submit=move |ev| { ev.prevent_default(); recompute(state); }>
                    {labelled_number("elo-k", "K", state.k)}
                    {labelled_number("elo-init", "Initial rating", state.init)}
                    {labelled_number("elo-scale", "Scale", state.scale)}
                    {labelled_number("elo-shuffles", "Shuffles", state.shuffles)}
                    {labelled_number("elo-seed", "Seed", state.seed)}
                    {labelled_number("bt-resamples", "Bootstrap resamples", state.resamples)}
                    <button type="submit" class="primary">"Recompute"</button>
                </form>
                <p class="muted">"The paper's rules: K = 4, initial 1000, base 10, scale 400, mean over 200 shuffled orders; a verdict other than Assistant 1 / Assistant 2 is a draw."</p>
                {move || state.control_error.get().map(|e| view! { <p class="error-box" role="alert">{e}</p> })}
                <p role="status" class="muted" data-testid="elo-status">
                    {move || match (state.computing.get(), state.last_compute_ms.get()) {
                        (Some(s), _) => s,
                        (None, Some(ms)) => format!("Computed in {ms:.0} ms."),
                        (None, None) => String::new(),
                    }}
                </p>
                {move || {
                    let computed = state.computed.get();
                    let elo: Vec<_> = computed.iter().map(|c| c.result.elo.clone()).collect();
                    (!elo.is_empty()).then(|| view! { <TableView table=model::elo_table(&elo)/> })
                }}
                <div class="row controls">
                    {labelled_number("elo-seeds", "Seeds", state.seeds)}
                    <button type="button" class="secondary" on:click=move |_| compute_seed_spread(state)>"Spread across seeds"</button>
                    <span role="status" class="muted" data-testid="seed-status">{move || state.seed_status.get().unwrap_or_default()}</span>
                </div>
                {move || {
                    let spread = state.seed_spread.get();
                    (!spread.is_empty()).then(|| view! { <TableView table=model::seed_spread_table(&spread)/> })
                }}
                {move || {
                    let files: Vec<Arc<MetaFile>> = state.jdeval_entries().into_iter().map(|e| e.file).collect();
                    let jd: Vec<&JdEvalFile> = files.iter().filter_map(|f| match &f.content { Content::JdEval(j) => Some(&**j), _ => None }).collect();
                    view! { <TableView table=model::post_accuracy_table(&jd)/> }
                }}
                <SelectedMeta/>
            </section>
        </Show>
    }
}

/// Select options of the JDEval files, by meta-evaluator.
fn jdeval_options(state: State, selected: RwSignal<Option<u64>>) -> impl IntoView {
    move || {
        let chosen = selected.get();
        state
            .jdeval_entries()
            .into_iter()
            .map(|e| {
                let name = e.jdeval().map(|j| j.meta_evaluator.clone()).unwrap_or_default();
                let label = format!("{name} — {}", e.file.name);
                view! { <option value=e.id.to_string() selected={chosen == Some(e.id)}>{label}</option> }
            })
            .collect_view()
    }
}

fn save_svg(name: &str, scene: &plot::Scene) {
    if let Err(e) = save_text(name, "image/svg+xml", &scene.to_svg()) {
        web_sys::console::warn_1(&e.to_string().into());
    }
}

/// Heatmap, match distribution, Elo and Bradley–Terry charts of one meta-evaluator.
#[component]
fn SelectedMeta() -> impl IntoView {
    let state = expect_context::<State>();
    let current = move || {
        let entries = state.jdeval_entries();
        let chosen = state.selected_meta.get();
        entries.iter().find(|e| Some(e.id) == chosen).or(entries.first()).cloned()
    };
    view! {
        <div class="row controls">
            <label class="control" for="meta-select"><span>"Meta-evaluator"</span>
                <select id="meta-select" on:change=move |ev| state.selected_meta.set(event_target_value(&ev).parse().ok())>
                    {jdeval_options(state, state.selected_meta)}
                </select>
            </label>
            <label class="control" for="tie-convention"><span>"Ties in win rates"</span>
                <select id="tie-convention" on:change=move |ev| state.convention.set(TieConvention::from_id(&event_target_value(&ev)))>
                    {TieConvention::ALL.into_iter().map(|c| view! {
                        <option value=c.id() selected=move || state.convention.get() == c>{c.label()}</option>
                    }).collect_view()}
                </select>
            </label>
        </div>
        {move || {
            let entry = current()?;
            let file = entry.jdeval()?;
            let meta = file.meta_evaluator.clone();
            let w = &file.win_rates;
            let convention = state.convention.get();
            let heat = Heatmap::new(
                format!("Win rate of row over column ({meta}; {})", convention.label()),
                w.evaluators.clone(),
                w.evaluators.clone(),
                convention.matrix(w).clone(),
            )
            .range(0.0, 1.0)
            .scene();
            let games = Heatmap::new(
                format!("Match distribution ({meta}): matches per couple"),
                w.evaluators.clone(),
                w.evaluators.clone(),
                model::games_matrix(w),
            )
            .decimals(0)
            .scene();
            let computed = state.computed.get().into_iter().find(|c| c.id == entry.id);
            let heat_svg = heat.clone();
            let games_svg = games.clone();
            let heat_name = format!("win-rate-{meta}.svg");
            let games_name = format!("matches-{meta}.svg");
            Some(view! {
                <div class="plots">
                    <figure data-testid="win-rate-heatmap">
                        {scene_view(&heat, "Win-rate heatmap")}
                        <button type="button" class="secondary small" on:click=move |_| save_svg(&heat_name, &heat_svg)>"Export heatmap SVG"</button>
                    </figure>
                    <figure data-testid="match-distribution">
                        {scene_view(&games, "Match distribution")}
                        <button type="button" class="secondary small" on:click=move |_| save_svg(&games_name, &games_svg)>"Export match distribution SVG"</button>
                    </figure>
                </div>
                {computed.map(|c| {
                    let elo = &c.result.elo;
                    let bars = elo.ratings.iter().map(|(name, mean)| {
                        let sd = elo.spread.get(name).copied().unwrap_or(0.0);
                        Bar { label: name.clone(), value: Some(*mean), interval: Some([mean - sd, mean + sd]) }
                    }).collect();
                    let elo_scene = BarChart::new(format!("Elo ({meta}): mean ± SD over shuffles"), bars).scene();
                    let bt = &c.result.bradley_terry;
                    let bt_bars = bt.evaluators.iter().enumerate().map(|(i, name)| Bar {
                        label: name.clone(),
                        value: bt.ratings.as_ref().and_then(|r| r.get(i).copied()),
                        interval: bt.intervals.get(i).copied().flatten(),
                    }).collect();
                    let bt_scene = BarChart::new(format!("Bradley–Terry ({meta}) with {:.0} % intervals", bt.level * 100.0), bt_bars).scene();
                    let (elo_svg, bt_svg) = (elo_scene.clone(), bt_scene.clone());
                    let (elo_name, bt_name) = (format!("elo-{meta}.svg"), format!("bradley-terry-{meta}.svg"));
                    view! {
                        <div class="plots">
                            <figure data-testid="elo-chart">
                                {scene_view(&elo_scene, "Elo chart")}
                                <button type="button" class="secondary small" on:click=move |_| save_svg(&elo_name, &elo_svg)>"Export Elo SVG"</button>
                            </figure>
                            <figure data-testid="bt-chart">
                                {scene_view(&bt_scene, "Bradley–Terry chart")}
                                <button type="button" class="secondary small" on:click=move |_| save_svg(&bt_name, &bt_svg)>"Export Bradley–Terry SVG"</button>
                            </figure>
                        </div>
                        {bt.undefined.clone().map(|u| view! { <p class="muted">"Bradley–Terry on all matches: " {u}</p> })}
                        <TableView table=model::bradley_terry_table(&meta, bt)/>
                    }
                })}
            })
        }}
    }
}

#[component]
fn AgreementPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let table = move || {
        let files = state.files.get();
        let refs: Vec<&MetaFile> = files.iter().map(|e| &*e.file).collect();
        let (rows, scores) = model::report_rows(&refs);
        let elo: Vec<_> = state.computed.get().iter().map(|c| c.result.elo.clone()).collect();
        let agreements = model::ranking_agreements(&rows, &scores, &elo);
        (!agreements.is_empty()).then(|| model::agreement_table(&agreements))
    };
    view! {
        {move || table().map(|t| view! {
            <section class="panel" aria-labelledby="meta-agree-heading">
                <h2 id="meta-agree-heading">"Ranking agreement"</h2>
                <p class="muted">"Kendall τ-b between the order a meta-evaluator puts the evaluators in and the human baseline (Table 1), over the evaluators both name."</p>
                <TableView table=t/>
            </section>
        })}
    }
}

/// A record picker: previous / next buttons and a number input, 1-based for people.
fn record_picker(id: &'static str, index: RwSignal<usize>, len: Signal<usize>) -> impl IntoView {
    view! {
        <div class="row controls">
            <button type="button" class="secondary" aria-label="Previous record"
                on:click=move |_| index.update(|i| *i = i.saturating_sub(1))>"‹"</button>
            <label class="control" for=id><span>"Record"</span>
                <input id=id type="number" min="1" prop:max=move || len.get().to_string()
                    prop:value=move || (index.get() + 1).to_string()
                    on:change=move |ev| {
                        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
                            index.set(n.clamp(1, len.get_untracked().max(1)) - 1);
                        }
                    }/>
            </label>
            <span class="muted">{move || format!("of {}", len.get())}</span>
            <button type="button" class="secondary" aria-label="Next record"
                on:click=move |_| index.update(|i| *i = (*i + 1).min(len.get_untracked().saturating_sub(1)))>"›"</button>
        </div>
    }
}

#[component]
fn DebatePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let current = move || {
        let entries = state.jdeval_entries();
        let chosen = state.debate_file.get();
        entries.iter().find(|e| Some(e.id) == chosen).or(entries.first()).cloned()
    };
    let len = Signal::derive(move || {
        current().and_then(|e| e.jdeval().map(|j| j.debates.len())).unwrap_or(0)
    });
    view! {
        <Show when=move || current().is_some()>
            <section class="panel" aria-labelledby="meta-debate-heading">
                <h2 id="meta-debate-heading">"Debate viewer"</h2>
                <p class="muted">"A JDEval record is one round: the two evaluators' assessments of the same pair, then the meta-evaluator's decision. An MDEval debate (run from this screen; none is released) shows the two assessments, then per round the judge's question and both debaters' answers, then the decision."</p>
                <div class="row controls">
                    <label class="control" for="debate-file"><span>"Debate file"</span>
                        <select id="debate-file" on:change=move |ev| {
                            state.debate_file.set(event_target_value(&ev).parse().ok());
                            state.debate_index.set(0);
                        }>
                            {jdeval_options(state, state.debate_file)}
                        </select>
                    </label>
                </div>
                {record_picker("debate-record", state.debate_index, len)}
                {move || {
                    let entry = current()?;
                    let d = entry.jdeval()?.debates.get(state.debate_index.get())?.clone();
                    Some(view! {
                        <article class="debate" data-testid="debate">
                            <p class="muted">{format!("Line {} · gold: {}", d.line, d.label)}</p>
                            <h3>"Question"</h3>
                            <div class="text-block">{d.question}</div>
                            <div class="two-col">
                                <div><h3>"Answer 1"</h3><div class="text-block">{d.answer_1}</div></div>
                                <div><h3>"Answer 2"</h3><div class="text-block">{d.answer_2}</div></div>
                            </div>
                            {d.opening.map(|opening| view! {
                                <h3>"Assessments"</h3>
                                <div class="two-col">
                                    {opening.into_iter().enumerate().map(|(k, (name, text))| view! {
                                        <div><h4>{format!("Assistant {} ({name})", k + 1)}</h4><div class="text-block">{text}</div></div>
                                    }).collect_view()}
                                </div>
                            })}
                            {d.rounds.into_iter().enumerate().map(|(i, r)| view! {
                                <h3 data-testid="debate-round">{format!("Round {}", i + 1)}</h3>
                                {r.judge_question.map(|q| view! { <p class="judge-question">"Judge: " {q}</p> })}
                                <div class="two-col">
                                    {r.debaters.into_iter().enumerate().map(|(k, (name, text))| view! {
                                        <div><h4>{format!("Assistant {} ({name})", k + 1)}</h4><div class="text-block">{text}</div></div>
                                    }).collect_view()}
                                </div>
                            }).collect_view()}
                            <h3>"Decision"</h3>
                            <p data-testid="debate-verdict"><strong>"Better assessor: " {d.verdict}</strong>
                                " · the meta-evaluator's answer choice: " {d.better_answer}</p>
                            <div class="text-block">{d.decision}</div>
                        </article>
                    })
                }}
            </section>
        </Show>
    }
}

#[component]
fn BranchPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let entries = move || {
        state
            .files
            .get()
            .into_iter()
            .filter(|e| e.file.kind == FileKind::BsmEval)
            .collect::<Vec<_>>()
    };
    let current = move || {
        let list = entries();
        let chosen = state.branch_file.get();
        list.iter().find(|e| Some(e.id) == chosen).or(list.first()).cloned()
    };
    fn records(e: &Entry) -> &[model::BranchRecord] {
        match &e.file.content {
            Content::MetaScore { records, .. } => records,
            _ => &[],
        }
    }
    let len = Signal::derive(move || current().map(|e| records(&e).len()).unwrap_or(0));
    view! {
        <Show when=move || current().is_some()>
            <section class="panel" aria-labelledby="meta-bsm-heading">
                <h2 id="meta-bsm-heading">"BSMEval viewer"</h2>
                <p class="muted">"Each assessment is judged in branches (one sub-task each); the meta score is the mean of the branch scores."</p>
                <div class="row controls">
                    <label class="control" for="bsm-file"><span>"BSMEval file"</span>
                        <select id="bsm-file" on:change=move |ev| {
                            state.branch_file.set(event_target_value(&ev).parse().ok());
                            state.branch_index.set(0);
                        }>
                            {move || {
                                let chosen = state.branch_file.get();
                                entries().into_iter().map(|e| view! {
                                    <option value=e.id.to_string() selected={chosen == Some(e.id)}>{e.file.name.clone()}</option>
                                }).collect_view()
                            }}
                        </select>
                    </label>
                </div>
                {record_picker("bsm-record", state.branch_index, len)}
                {move || {
                    let entry = current()?;
                    let r = records(&entry).get(state.branch_index.get())?.clone();
                    Some(view! {
                        <article class="branches" data-testid="bsm-record">
                            <p class="muted">{format!("Line {} · gold score: {} · meta score: {}", r.line,
                                format_value(r.gold, 1), format_value(r.score, 2))}</p>
                            <h3>"Text"</h3>
                            <div class="text-block">{r.text}</div>
                            <h3>"The evaluator's assessment"</h3>
                            <div class="text-block">{r.assessment}</div>
                            <ol class="branch-list">
                                {r.branches.into_iter().enumerate().map(|(i, b)| view! {
                                    <li>
                                        <h4>{format!("Branch {} · score {}", i + 1, format_value(b.score, 1))}</h4>
                                        {b.subtask.map(|t| view! { <p class="subtask">"Sub-task: " {t}</p> })}
                                        <div class="text-block">{b.response}</div>
                                    </li>
                                }).collect_view()}
                            </ol>
                        </article>
                    })
                }}
            </section>
        </Show>
    }
}
