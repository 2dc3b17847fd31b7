//! The Pairwise & meta-evaluation screen (seed 003): import released evaluator and
//! meta-evaluator files, see Table 1, Tables 5 and 6, Elo over shuffles, Bradley–Terry, win
//! rates, the match distribution, ranking agreement and post accuracy, export every table and
//! figure, and inspect JDEval debates and BSMEval branches. Live runs judge pairs with several
//! evaluator models and meta-evaluate their judgements (JDEval, MDEval, JDEval-i, BSMEval);
//! their outcomes join the same views as workspace files. The Elo seed spread repeats the
//! shuffled Elo under several seeds.
//!
//! The evaluators' panel also shows the PPI / PPI++ corrected win rate of output 1 with the
//! number of pairs whose human label it keeps.
//!
//! Every table and figure is the core's ([`concord_core::study::meta::Workspace::report_with`],
//! the report `concord meta` prints); this module renders it. [`state`] holds the screen's
//! signals (and the bundle's [`state::snapshot`] / [`state::apply_snapshot`]), [`tasks`] its
//! async work (reading files in the worker, Elo and Bradley–Terry a frame's worth at a time,
//! the live runs), [`run`] the run panel and [`viewers`] the debate and branch viewers.

mod controls;
mod run;
pub mod state;
mod tasks;
mod viewers;

use concord_core::study::meta::figures::{bradley_terry_id, elo_id, matches_id, win_rate_id};
use concord_core::study::meta::{Entry, Origin, TieConvention, WIN_RATE_TABLE};
use leptos::prelude::*;
use web_sys::File;

use crate::components::drop_zone::DropZone;

use crate::components::figure_view::FigureView;
use controls::{chosen_jdeval, jdeval_options, labelled_number, report_figure, report_table};
use run::RunPanel;
use state::State;
use viewers::{BranchPanel, DebatePanel};

#[component]
pub fn MetaPage() -> impl IntoView {
    // Looked up before `State::shared`: the first call creates the screen's root owner, and
    // what is provided after it is provided there, out of reach of the App's contexts. The run
    // panel needs the workbench (the Run screen's connection, the answer cache), so it is
    // provided again next to the state.
    let wb = crate::screens::run::state::LlmAccess::try_from_context();
    let storage = use_context::<crate::state::Storage>();
    state::install_report();
    let state = State::shared();
    provide_context(state);
    if let Some(wb) = wb {
        provide_context(wb);
    }
    if let Some(storage) = storage {
        provide_context(storage);
    }
    // A restored snapshot's Elo and Bradley–Terry are computed once the screen shows.
    Effect::new(move |_| {
        if state.stale.get() {
            tasks::recompute(state);
        }
    });
    // Released files a restored workspace or bundle lists as needed come back from this
    // browser's storage when it kept them (by SHA-256).
    Effect::new(move |_| {
        state.workspace.track();
        if let Some(store) = storage.and_then(|s| s.store.get()) {
            tasks::restore_kept(state, store);
        }
    });
    view! {
        <div class="meta-page">
            <ImportPanel/>
            <Show when=move || state.workspace.with(|w| !w.is_empty())>
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

/// One row of the file list, as shown.
struct FileRow {
    id: u64,
    name: String,
    kind: String,
    detected: String,
    counts: String,
    notes: Vec<String>,
    more: usize,
}

/// How the list shows an entry: an analysed file, or a released file a bundle waits for.
fn file_row(e: &Entry) -> Option<FileRow> {
    match (&e.file, &e.origin) {
        (Some(f), _) => Some(FileRow {
            id: e.id,
            name: f.name.clone(),
            kind: format!("{:?}", f.kind),
            detected: if f.format.is_empty() {
                f.kind.label().to_owned()
            } else {
                format!("{} ({})", f.kind.label(), f.format)
            },
            counts: f.counts.clone(),
            notes: f
                .problem
                .clone()
                .into_iter()
                .chain(f.diagnostics.iter().take(5).cloned())
                .collect(),
            more: f.diagnostics.len().saturating_sub(5),
        }),
        (None, Origin::Released { name, sha256, kind }) => Some(FileRow {
            id: e.id,
            name: name.clone(),
            kind: "Needed".to_owned(),
            detected: format!("needed: load {name} (sha256 {sha256})"),
            counts: String::new(),
            notes: vec![format!(
                "A released file ({}) this workspace shows; this browser does not keep it: load the file with this SHA-256 to see its results.",
                kind.label()
            )],
            more: 0,
        }),
        // A live run's file is made with its entry; there is nothing to show without it.
        (None, Origin::Live { .. }) => None,
    }
}

fn file_rows(state: State) -> Vec<FileRow> {
    state.workspace.with(|w| w.entries().iter().filter_map(file_row).collect())
}

#[component]
fn ImportPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let storage = use_context::<crate::state::Storage>();
    let on_files = Callback::new(move |files: Vec<File>| {
        tasks::load_files(state, storage.and_then(|s| s.store.get_untracked()), files)
    });
    view! {
        <section class="panel" aria-labelledby="meta-import-heading">
            <h2 id="meta-import-heading">"Meta-evaluation files"</h2>
            <p class="muted">
                "Released evaluator results (pairwise, pointwise) and meta-evaluator results "
                "(JDEval, JDEval-i, BSMEval) of the meta-evaluation paper, or files of the same shape. "
                "Pick or drop several at once; they are read in your browser and nothing is uploaded."
            </p>
            <DropZone id="meta-files" label="Load meta-evaluation files" multiple=true
                accept=".json,.jsonl,application/json" on_files=on_files/>
            <Show when=move || state.loading.get().is_some()>
                <p role="status" data-testid="meta-loading">{move || state.loading.get().unwrap_or_default()}</p>
            </Show>
            {move || {
                let errors = state.errors.get();
                (!errors.is_empty()).then(|| view! {
                    <div class="error-box" role="alert"><ul>
                        {errors.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}
                    </ul></div>
                })
            }}
            {move || {
                let rows = file_rows(state);
                if rows.is_empty() {
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
                                {rows.into_iter().map(|f| {
                                    let id = f.id;
                                    view! {
                                        <tr data-kind=f.kind>
                                            <td class="text">{f.name.clone()}</td>
                                            <td>{f.detected}</td>
                                            <td>{f.counts}</td>
                                            <td class="text">
                                                <ul class="diagnostics">
                                                    {f.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                                                    {(f.more > 0).then(|| view! { <li class="muted">{format!("… {} more", f.more)}</li> })}
                                                </ul>
                                            </td>
                                            <td><button type="button" class="secondary" aria-label=format!("Remove {}", f.name)
                                                on:click=move |_| tasks::remove(state, id)>"Remove"</button></td>
                                        </tr>
                                    }
                                }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <button type="button" class="secondary" on:click=move |_| tasks::remove_all(state)>"Remove all files"</button>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn EvaluatorPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has_table = move || state.report.with(|r| r.table("table1").is_some());
    view! {
        <section class="panel" aria-labelledby="meta-eval-heading">
            <h2 id="meta-eval-heading">"Evaluators against humans"</h2>
            <p class="muted">
                "Accuracy: the evaluator's verdict against the gold label, a tie being a class of its own; "
                "without ties: over the pairs whose label is not a tie, a tie verdict counting as wrong. "
                "Pearson: the pointwise score against the gold score, pooled over the items."
            </p>
            <Show when=has_table fallback=|| view! { <p class="muted">"Load evaluator result files to see Table 1."</p> }>
                {report_table(state, || "table1".to_owned())}
            </Show>
            <WinRatePanel/>
        </section>
    }
}

/// The corrected win rate of output 1 (`corrected-win-rate`) with its "Labelled pairs"
/// control, when a pairwise evaluator is loaded.
#[component]
fn WinRatePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has = move || state.report.with(|r| r.table(WIN_RATE_TABLE).is_some());
    view! {
        <Show when=has>
            <h3 id="meta-win-rate-heading">"Corrected win rate of output 1"</h3>
            <p class="muted">
                "How often output 1 (the first-listed output) is better — ties count half — by each "
                "evaluator's verdicts on every pair, corrected by the human labels of the labelled "
                "pairs (PPI, and PPI++ with its power-tuning λ), next to the judge-only and "
                "human-only rates. Keep the labels of fewer pairs to see what a correction from "
                "that many labels gives; which pairs keep theirs is seeded by the Elo controls' "
                "Seed (0 unless changed), the same pairs for every evaluator."
            </p>
            <div class="row controls">
                <label class="control" for="win-rate-labelled">
                    <span>"Labelled pairs"</span>
                    <input id="win-rate-labelled" type="text" inputmode="numeric" size="6"
                        placeholder="all" prop:value=move || state.labelled_text.get()
                        on:input=move |ev| state.set_labelled(event_target_value(&ev))/>
                </label>
                <span class="muted">"a number, or all"</span>
            </div>
            {move || state.labelled_error.get().map(|e| view! { <p class="error-box" role="alert">{e}</p> })}
            {report_table(state, || WIN_RATE_TABLE.to_owned())}
        </Show>
    }
}

#[component]
fn MetaScorePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has =
        move || state.report.with(|r| r.table("table5").is_some() || r.table("table6").is_some());
    view! {
        <Show when=has>
            <section class="panel" aria-labelledby="meta-scores-heading">
                <h2 id="meta-scores-heading">"Individual-scoring meta-evaluation"</h2>
                <p class="muted">"The mean score a meta-evaluator gave each evaluator's assessments (empty scores dropped); under BSMEval each score is itself the mean of the branch scores."</p>
                {report_table(state, || "table5".to_owned())}
                {report_table(state, || "table6".to_owned())}
            </section>
        </Show>
    }
}

#[component]
fn PairwisePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has_jdeval = move || state.workspace.with(|w| !w.jdeval().is_empty());
    view! {
        <Show when=has_jdeval>
            <section class="panel" aria-labelledby="meta-pairwise-heading">
                <h2 id="meta-pairwise-heading">"Pairwise meta-evaluation (JDEval): Elo, Bradley–Terry, win rates"</h2>
                <form class="row controls" on:submit=move |ev| { ev.prevent_default(); tasks::recompute(state); }>
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
                {report_table(state, || "elo".to_owned())}
                <div class="row controls">
                    {labelled_number("elo-seeds", "Seeds", state.seeds)}
                    <button type="button" class="secondary" on:click=move |_| tasks::compute_seed_spread(state)>"Spread across seeds"</button>
                    <span role="status" class="muted" data-testid="seed-status">{move || state.seed_status.get().unwrap_or_default()}</span>
                </div>
                {report_table(state, || "elo-seeds".to_owned())}
                {report_table(state, || "post-accuracy".to_owned())}
                <SelectedMeta/>
            </section>
        </Show>
    }
}

/// Heatmap, match distribution, Elo and Bradley–Terry charts of one meta-evaluator.
#[component]
fn SelectedMeta() -> impl IntoView {
    let state = expect_context::<State>();
    let meta = Memo::new(move |_| {
        let id = chosen_jdeval(state, state.selected_meta)?;
        state.workspace.with(|w| Some(w.file(id)?.jdeval()?.meta_evaluator.clone()))
    });
    let heat = report_figure(state, move || meta.get().map(|m| win_rate_id(&m)));
    let games = report_figure(state, move || meta.get().map(|m| matches_id(&m)));
    let elo = report_figure(state, move || meta.get().map(|m| elo_id(&m)));
    let bt = report_figure(state, move || meta.get().map(|m| bradley_terry_id(&m)));
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
        <Show when=move || heat.with(Option::is_some)>
            <div class="plots">
                {move || heat.get().map(|f| view! { <FigureView figure=f label="heatmap" testid="win-rate-heatmap"/> })}
                {move || games.get().map(|f| view! { <FigureView figure=f label="match distribution" testid="match-distribution"/> })}
            </div>
        </Show>
        <Show when=move || elo.with(Option::is_some)>
            <div class="plots">
                {move || elo.get().map(|f| view! { <FigureView figure=f label="Elo" testid="elo-chart"/> })}
                {move || bt.get().map(|f| view! { <FigureView figure=f label="Bradley–Terry" testid="bt-chart"/> })}
            </div>
        </Show>
        {report_table(state, move || meta.get().map(|m| bradley_terry_id(&m)).unwrap_or_default())}
    }
}

#[component]
fn AgreementPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let has = move || state.report.with(|r| r.table("ranking-agreement").is_some());
    view! {
        <Show when=has>
            <section class="panel" aria-labelledby="meta-agree-heading">
                <h2 id="meta-agree-heading">"Ranking agreement"</h2>
                <p class="muted">"Kendall τ-b between the order a meta-evaluator puts the evaluators in and the human baseline (Table 1), over the evaluators both name."</p>
                {report_table(state, || "ranking-agreement".to_owned())}
            </section>
        </Show>
    }
}
