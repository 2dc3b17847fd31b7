//! The Data screen: load a dataset (file picker, drag-and-drop, URL, presets, the built-in
//! example; an AltTest folder's two files at once, or one then the other), see its counts, attributes, diagnostics, a column-mapping editor for generic
//! tables (re-reads the same file in the worker with the edited mapping) and a virtualized
//! preview of every row.

pub mod model;
pub mod tasks;
pub mod workspace_panel;

use std::sync::Arc;

use concord_core::data::Role;
use concord_core::data::presets::presets;
use concord_core::study::workbench::paper;
use concord_core::words;
use leptos::prelude::*;

use crate::components::drop_zone::DropZone;
use crate::components::virtual_table::{RowCells, VColumn, VirtualTable};
use crate::persist::bundle::BundleTargets;
use crate::state::{DataSource, OpenDataset, Workspace, example_source, use_workspace};
use workspace_panel::WorkspacePanel;

use model::{
    DraftRow, FileChoice, choose_files, draft_mapping, draft_rows, folder_name, preview_row,
};
use tasks::{open_file, open_folder, open_paper, open_preset, open_url, reread};

/// A tiny model's recorded run on the built-in example (no key, no network needed), served
/// beside the app.
pub const DEMO_BUNDLE: &str = "demo/example-bundle.json";

#[component]
pub fn DataScreen() -> impl IntoView {
    view! {
        <LoadPanel/>
        <WorkspacePanel/>
        <SummaryPanel/>
        <MappingPanel/>
        <DiagnosticsPanel/>
        <PreviewPanel/>
    }
}

/// What "Load a dataset" does with the files picked or dropped: one dataset, an AltTest
/// folder's two files, or the LLMs' file that completes the open annotators' file; what is left
/// out is said in `notice` or as the load error.
fn open_dataset_files(
    ws: Workspace,
    targets: BundleTargets,
    notice: RwSignal<Option<String>>,
    files: Vec<web_sys::File>,
) {
    let names: Vec<String> = files.iter().map(web_sys::File::name).collect();
    let Some(choice) = choose_files(&names) else { return };
    let left_out = |left: &[usize]| {
        (!left.is_empty()).then(|| {
            let list: Vec<&str> = left.iter().map(|&i| names[i].as_str()).collect();
            format!("One dataset at a time: {} left out.", list.join(", "))
        })
    };
    match choice {
        FileChoice::Folder { human, llm, left } => {
            let path = js_sys::Reflect::get(&files[human], &"webkitRelativePath".into())
                .ok()
                .and_then(|p| p.as_string())
                .unwrap_or_default();
            let name = folder_name(&path, &names[human]);
            open_folder(
                targets,
                name,
                files[human].clone(),
                Some(files[llm].clone()),
                false,
                notice,
            );
            if let Some(l) = left_out(&left) {
                ws.load_error.set(Some(l));
            }
        }
        FileChoice::LlmOnly { llm, left } => {
            // The annotators' file of the open dataset, when it is one: the folder completes.
            let open = ws.dataset.with_untracked(|d| {
                (d.loaded.format == concord_core::data::Format::Annotations)
                    .then(|| d.loaded.dataset.name.clone())
            });
            let source = ws.source.get_value();
            match (open, source) {
                (Some(name), Some((_, DataSource::File(human)))) => {
                    open_folder(targets, name, human, Some(files[llm].clone()), true, notice);
                }
                _ => open_file(ws, files[llm].clone()),
            }
            if let Some(l) = left_out(&left) {
                notice.set(Some(l));
            }
        }
        FileChoice::One { file, left } => {
            notice.set(left_out(&left));
            open_file(ws, files[file].clone());
        }
    }
}

#[component]
fn LoadPanel() -> impl IntoView {
    let ws = use_workspace();
    let targets = BundleTargets::from_context();
    let confirm_example = RwSignal::new(false);
    // What a folder load read (an AltTest folder's files), or which files were left out.
    let notice = RwSignal::new(None::<String>);
    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        open_dataset_files(ws, targets, notice, files)
    });
    view! {
        <section class="panel" aria-labelledby="load-heading">
            <h2 id="load-heading">"Load a dataset"</h2>
            <p class="muted">
                "CSV, TSV, JSON or JSON Lines: SummEval, Topical-Chat, the released judge outputs of "
                "the papers, MT-bench and LLMBar pairs, CoEval files, or any table with a column mapping. "
                "An AltTest folder (several annotators and LLMs per instance): pick or drop its human_annotations.json and llm_annotations.json together. "
                "Files are read in your browser; nothing is uploaded."
            </p>
            <DropZone id="dataset-file" label="Load a dataset file" multiple=true
                accept=".csv,.tsv,.json,.jsonl,.txt,text/csv,application/json" on_files=on_files>
                    <button class="secondary" type="button" data-testid="use-example"
                        on:click=move |_| {
                            // A workspace with runs is not replaced without asking.
                            if targets.runs.runs.with_untracked(Vec::is_empty) {
                                ws.source.set_value(Some(example_source()));
                                ws.dataset.set(OpenDataset::example());
                                ws.load_error.set(None);
                            } else {
                                confirm_example.set(true);
                            }
                        }>
                        "Use the built-in example"
                    </button>
                    <button class="secondary" type="button"
                        title="SmolLM2-135M, a tiny model served on a laptop, rated the built-in example: most of its answers cannot be read as ratings, which is what the parse-failure counts show."
                        on:click=move |_| {
                            leptos::task::spawn_local(async move {
                                crate::persist::workspaces::open_bundle_url(targets, DEMO_BUNDLE).await;
                            });
                        }>
                        "Open a tiny model's recorded run"
                    </button>
            </DropZone>
            <ExampleConfirm confirm_example/>
            <PaperDemo/>
            <UrlAndPresets/>
            <LoadStatus notice/>
        </section>
    }
}

/// "Open the built-in example?" when the open workspace has runs: the example opens as a new
/// workspace and the open one is kept.
#[component]
fn ExampleConfirm(confirm_example: RwSignal<bool>) -> impl IntoView {
    let ws = use_workspace();
    let targets = BundleTargets::from_context();
    let open_example_apart = move |_| {
        confirm_example.set(false);
        leptos::task::spawn_local(async move {
            crate::persist::workspaces::fork(
                targets,
                targets.saved,
                concord_core::example::EXAMPLE_NAME,
            )
            .await;
            crate::persist::workspaces::reset_workbench(targets);
        });
    };
    view! {
        <Show when=move || confirm_example.get()>
            <div class="warn-box" role="group" aria-label="Open the built-in example?" data-testid="example-confirm">
                <p>{move || {
                    let runs = targets.runs.runs.with(Vec::len);
                    format!(
                        "The open workspace “{}” has {} on {}. The example opens as a new workspace; “{}” is kept (Workspace, below).",
                        targets.saved.name.get(),
                        words::count(runs, "judge run", "judge runs"),
                        ws.dataset.with(|d| d.loaded.dataset.name.clone()),
                        targets.saved.name.get(),
                    )
                }}</p>
                <div class="row">
                    <button class="primary" type="button" data-testid="example-apart" on:click=open_example_apart>"Open the example as a new workspace"</button>
                    <button class="secondary" type="button" on:click=move |_| confirm_example.set(false)>"Cancel"</button>
                </div>
            </div>
        </Show>
    }
}

/// "Reproduce a published table": Chiang & Lee's Table 4 from their released answers.
#[component]
fn PaperDemo() -> impl IntoView {
    let ws = use_workspace();
    let targets = BundleTargets::from_context();
    let paper_attribute = RwSignal::new(paper::ATTRIBUTES[0].1.to_owned());
    view! {
        <div data-testid="paper-demo">
            <p>
                <strong>"Reproduce a published table. "</strong>
                "Chiang & Lee's Table 4, recomputed here from their released GPT-3.5 answers: about 11 MB downloaded from GitHub, no key."
            </p>
            <div class="row">
                <label for="paper-attribute">"Table 4 column"</label>
                <select id="paper-attribute" on:change=move |ev| paper_attribute.set(event_target_value(&ev))>
                    {paper::ATTRIBUTES.into_iter().map(|(_, name)| view! {
                        <option value=name selected=move || paper_attribute.get() == name>{name}</option>
                    }).collect_view()}
                </select>
                <button class="primary" type="button" disabled=move || ws.loading.with(Option::is_some)
                    on:click=move |_| open_paper(targets, paper_attribute.get_untracked())>
                    "Reproduce Table 4"
                </button>
            </div>
        </div>
    }
}

/// A dataset from a URL, or from one of the presets.
#[component]
fn UrlAndPresets() -> impl IntoView {
    let ws = use_workspace();
    let url = RwSignal::new(String::new());
    view! {
        <div class="row">
            <label for="dataset-url">"Dataset URL"</label>
            <input id="dataset-url" type="url" size="60" placeholder="https://…/data.json" prop:value=move || url.get()
                on:input=move |ev| url.set(event_target_value(&ev))/>
            <button class="secondary" type="button" disabled=move || url.get().trim().is_empty()
                on:click=move |_| open_url(ws, url.get_untracked().trim().to_owned())>"Load from URL"</button>
        </div>
        <div class="row">
            <span class="muted">"Presets (downloaded when online):"</span>
            {presets().into_iter().map(|(label, file)| view! {
                <button class="secondary" type="button" title=format!("{} ({}), checked after download", file.url, file.source)
                    on:click=move |_| open_preset(ws, file.clone())>{label}</button>
            }).collect_view()}
        </div>
    }
}

/// What a load is doing, what a folder load read, and why a load failed.
#[component]
fn LoadStatus(notice: RwSignal<Option<String>>) -> impl IntoView {
    let ws = use_workspace();
    view! {
        <Show when=move || ws.loading.get().is_some()>
            <p role="status" data-testid="loading">
                {move || ws.loading.get().unwrap_or_default()}
            </p>
        </Show>
        {move || notice.get().map(|text| view! {
            <div class="ok-box row" role="status" data-testid="folder-notice">
                <span>{text}</span>
                <Show when=move || ws.dataset.with(|d| !d.loaded.runs.is_empty())>
                    <button type="button" class="secondary"
                        on:click=move |_| ws.screen.set(crate::state::Screen::Results)>
                        "Test the LLMs on Results"
                    </button>
                </Show>
            </div>
        })}
        <Show when=move || ws.load_error.get().is_some()>
            <p class="error-box" role="alert" data-testid="load-error">
                {move || ws.load_error.get().unwrap_or_default()}
            </p>
        </Show>
    }
}

#[component]
fn SummaryPanel() -> impl IntoView {
    let ws = use_workspace();
    let view = move || ws.dataset.get().view;
    let stat = move |(one, many): (&'static str, &'static str),
                     testid: &'static str,
                     value: Signal<usize>| {
        view! {
            <li>
                <span class="value" data-testid=testid>{move || words::int(value.get())}</span>
                <span class="label">{move || words::plural(value.get(), one, many)}</span>
            </li>
        }
    };
    view! {
        <section class="panel" aria-labelledby="summary-heading">
            <h2 id="summary-heading">
                "Dataset: " <span data-testid="dataset-name">{move || view().name.clone()}</span>
            </h2>
            <p class="muted">"Format: " <span data-testid="dataset-format">{move || view().format.clone()}</span></p>
            <ul class="stats">
                {stat(("item", "items"), "item-count", Signal::derive(move || view().items))}
                {stat(("document", "documents"), "document-count", Signal::derive(move || view().documents))}
                {stat(("system", "systems"), "system-count", Signal::derive(move || view().systems))}
                {stat(("pair", "pairs"), "pair-count", Signal::derive(move || view().pairs))}
                <li>
                    <span class="value" data-testid="rater-count">{move || view().raters_shown().0}</span>
                    <span class="label">{move || view().raters_shown().1}</span>
                </li>
                {stat(("judge response", "judge responses"), "judge-record-count", Signal::derive(move || view().judge_records))}
            </ul>
            {move || view().documents_note.clone().map(|note| view! {
                <p class="notice-line" data-testid="documents-note">{note}</p>
            })}
            <p>
                "Attributes: "
                <span data-testid="attributes">
                    {move || {
                        let attributes = view().attributes.clone();
                        if attributes.is_empty() { "none".to_string() } else { attributes.join(", ") }
                    }}
                </span>
            </p>
        </section>
    }
}

#[component]
fn DiagnosticsPanel() -> impl IntoView {
    let ws = use_workspace();
    let lines = move || ws.dataset.get().view.diagnostics.clone();
    view! {
        <Show when=move || !lines().is_empty()>
            <section class="panel" aria-labelledby="diagnostics-heading">
                <h2 id="diagnostics-heading">"Diagnostics"</h2>
                <ul class="diagnostics" data-testid="diagnostics">
                    {move || {
                        lines()
                            .into_iter()
                            .map(|line| view! { <li class=line.class>{line.text}</li> })
                            .collect_view()
                    }}
                </ul>
            </section>
        </Show>
    }
}

#[component]
fn PreviewPanel() -> impl IntoView {
    let ws = use_workspace();
    view! {
        <section class="panel" aria-labelledby="preview-heading">
            <h2 id="preview-heading">"Preview"</h2>
            {move || {
                let open = ws.dataset.get();
                let preview = open.view.preview.clone();
                if preview.rows == 0 {
                    return view! { <p class="muted">"This file has no rated items or pairs to preview."</p> }
                        .into_any();
                }
                let numeric: Vec<bool> = preview.columns.iter().map(|c| c.numeric).collect();
                let columns = preview
                    .columns
                    .iter()
                    .map(|c| VColumn { title: c.title.clone(), numeric: c.numeric })
                    .collect();
                let loaded = open.loaded.clone();
                let cells: RowCells = Arc::new(move |i| {
                    preview_row(&loaded, i)
                        .into_iter()
                        .zip(numeric.iter().copied())
                        .map(|(cell, num)| {
                            let class = if num { "num" } else { "text" };
                            let title = cell.clone();
                            view! { <td class=class title=title>{cell}</td> }
                        })
                        .collect_view()
                        .into_any()
                });
                view! {
                    <VirtualTable label="Dataset preview" testid="preview" columns=columns
                        rows={preview.rows} cells=cells/>
                }
                    .into_any()
            }}
        </section>
    }
}

/// The column-mapping editor, for CSV, TSV and flat JSON/JSONL files: one row per column of
/// the file with a few example values and its role; "Apply mapping" reads the same file again
/// with it, "Reset to the guess" without.
#[component]
fn MappingPanel() -> impl IntoView {
    let ws = use_workspace();
    let message = RwSignal::new(None::<(bool, String)>);
    // One signal per row, so typing in a row does not rebuild the table (and keeps focus).
    let drafts = Memo::new(move |_| {
        ws.dataset
            .with(|d| draft_rows(&d.loaded))
            .into_iter()
            .map(RwSignal::new)
            .collect::<Vec<_>>()
    });
    let checked = Memo::new(move |_| {
        let rows: Vec<DraftRow> = drafts.get().iter().map(|r| r.get()).collect();
        ws.dataset.with(|d| draft_mapping(&d.loaded.columns, &rows))
    });
    let busy = move || ws.loading.get().is_some();
    let apply = move |_| {
        if let (Some(mapping), _) = checked.get_untracked() {
            reread(ws, Some(mapping), message);
        }
    };
    view! {
        <Show when=move || ws.dataset.with(|d| !d.loaded.columns.is_empty())>
            <section class="panel" aria-labelledby="mapping-heading">
                <h2 id="mapping-heading">"Column mapping"</h2>
                <p class="muted">
                    "Which column is which. The guess takes numeric columns for human ratings, and "
                    "suffixes such as _r1 or _a, _b for raters of one attribute. Correct what it got "
                    "wrong and apply: the same file is read again."
                </p>
                <div class="table-wrap">
                    <table class="data mapping" data-testid="mapping">
                        <thead>
                            <tr>
                                <th scope="col">"Column"</th>
                                <th scope="col">"Examples"</th>
                                <th scope="col">"Role"</th>
                                <th scope="col">"Attribute, rater, scale"</th>
                            </tr>
                        </thead>
                        <tbody>{move || drafts.get().into_iter().map(mapping_row).collect_view()}</tbody>
                    </table>
                </div>
                <ul class="problems" data-testid="mapping-problems" aria-live="polite">
                    {move || {
                        checked
                            .get()
                            .1
                            .into_iter()
                            .map(|p| {
                                let class = if p.blocking { "blocking" } else { "note" };
                                view! { <li class=class>{p.message}</li> }
                            })
                            .collect_view()
                    }}
                </ul>
                <div class="row">
                    <button type="button" class="primary" on:click=apply
                        disabled=move || checked.with(|c| c.0.is_none()) || busy()>
                        "Apply mapping"
                    </button>
                    <button type="button" class="secondary" disabled=busy
                        on:click=move |_| reread(ws, None, message)>
                        "Reset to the guess"
                    </button>
                </div>
                {move || message.get().map(|(ok, text)| view! {
                    <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="mapping-message">{text}</p>
                })}
            </section>
        </Show>
    }
}

fn mapping_row(row: RwSignal<DraftRow>) -> impl IntoView {
    let draft = row.get_untracked();
    let name = draft.column.clone();
    let labels = Arc::new([
        format!("Attribute of column {name}"),
        format!("Rater of column {name}"),
        format!("Scale minimum of column {name}"),
        format!("Scale maximum of column {name}"),
    ]);
    view! {
        <tr>
            <th scope="row">{name.clone()}</th>
            <td class="samples" title=draft.samples.clone()>{draft.samples.clone()}</td>
            <td>
                <select aria-label=format!("Role of column {name}")
                    on:change=move |ev| row.update(|d| d.set_role(&event_target_value(&ev)))>
                    {Role::NAMES
                        .into_iter()
                        .map(|n| view! { <option value=n selected=move || row.with(|d| d.role == n)>{n}</option> })
                        .collect_view()}
                </select>
            </td>
            <td>
                <Show when=move || row.with(|d| d.role == "rating")>
                    {
                        let labels = labels.clone();
                        view! {
                            <span class="rating-fields">
                                <input type="text" aria-label=labels[0].clone() placeholder="attribute"
                                    prop:value=move || row.with(|d| d.attribute.clone())
                                    on:input=move |ev| row.update(|d| d.attribute = event_target_value(&ev))/>
                                <input type="text" class="short" aria-label=labels[1].clone() placeholder="rater"
                                    prop:value=move || row.with(|d| d.rater.clone())
                                    on:input=move |ev| row.update(|d| d.rater = event_target_value(&ev))/>
                                <input type="number" step="any" class="short" aria-label=labels[2].clone() placeholder="min"
                                    prop:value=move || row.with(|d| d.scale_min.clone())
                                    on:input=move |ev| row.update(|d| d.scale_min = event_target_value(&ev))/>
                                <input type="number" step="any" class="short" aria-label=labels[3].clone() placeholder="max"
                                    prop:value=move || row.with(|d| d.scale_max.clone())
                                    on:input=move |ev| row.update(|d| d.scale_max = event_target_value(&ev))/>
                            </span>
                        }
                    }
                </Show>
            </td>
        </tr>
    }
}
