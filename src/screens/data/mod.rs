//! The Data screen: load a dataset (file picker, drag-and-drop, URL, presets, the built-in
//! example), see its counts, attributes, diagnostics, a column-mapping editor for generic
//! tables (re-reads the same file in the worker with the edited mapping) and a virtualized
//! preview of every row.

use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{ColumnMapping, Role};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::{DragEvent, File, HtmlInputElement};

use wasm_bindgen::JsCast;

use crate::components::virtual_table::{RowCells, VColumn, VirtualTable};
use crate::edge::worker::{
    LoadStage, load_buffer_in_worker, load_buffer_with_mapping_in_worker,
    load_with_mapping_in_worker,
};
use crate::state::{DataSource, OpenDataset, Workspace, example_source, use_workspace};
use crate::view_model::{DraftRow, draft_mapping, draft_rows, preview_row};

/// A recorded run on the built-in example (no key needed), served beside the app.
pub const DEMO_BUNDLE: &str = "demo/example-bundle.json";

#[component]
pub fn DataScreen() -> impl IntoView {
    view! {
        <LoadPanel/>
        <SummaryPanel/>
        <MappingPanel/>
        <DiagnosticsPanel/>
        <PreviewPanel/>
    }
}

/// Reads `file` and parses it in a Web Worker (the page stays responsive however big the
/// file), showing each stage, then opens it in the workspace or says why it could not.
fn open_file(file: File) {
    let ws = use_workspace();
    let name = file.name();
    ws.loading.set(Some(format!("Reading {name}…")));
    spawn_local(async move {
        let buffer = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => buffer.unchecked_into::<js_sys::ArrayBuffer>(),
            Err(e) => {
                ws.load_error.set(Some(format!("The browser could not read {name}: {e:?}")));
                ws.loading.set(None);
                return;
            }
        };
        let label = name.clone();
        let progress = move |stage: LoadStage| {
            let text = match stage {
                LoadStage::StartingWorker => format!("Starting a background worker for {label}…"),
                LoadStage::Parsing { in_worker: true } => {
                    format!("Parsing {label} in the background…")
                }
                LoadStage::Parsing { in_worker: false } => format!("Parsing {label}…"),
                LoadStage::Receiving => format!("Opening {label}…"),
            };
            ws.loading.set(Some(text));
        };
        match load_buffer_in_worker(name.clone(), buffer, progress).await {
            Ok(loaded) => {
                ws.source.set_value(Some((name.clone(), DataSource::File(file))));
                ws.open_loaded(loaded);
            }
            Err(err) => ws.load_error.set(Some(format!("Could not load {name}: {err}"))),
        }
        ws.loading.set(None);
    });
}

/// Public copies of the papers' datasets, fetched on request (raw.githubusercontent.com is
/// in the page's connect-src).
const PRESETS: [(&str, &str); 2] = [
    (
        "SummEval (G-Eval's summeval.json)",
        "https://raw.githubusercontent.com/nlpyang/geval/main/data/summeval.json",
    ),
    (
        "Topical-Chat (Chiang & Lee's copy)",
        "https://raw.githubusercontent.com/d223302/A-Closer-Look-To-LLM-Evaluation/90084422bb32e89f77109dce578d0bd1db3912c4/data/topical_chat.json",
    ),
];

/// Fetches `url` and opens it as a dataset, parsing in a worker.
fn open_url(ws: Workspace, url: String) {
    let name = url
        .rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or("download")
        .split('?')
        .next()
        .unwrap_or("download")
        .to_owned();
    ws.loading.set(Some(format!("Downloading {url}…")));
    spawn_local(async move {
        match crate::edge::http::get_bytes(&url, 120_000).await {
            Err(e) => ws.load_error.set(Some(format!(
                "Could not download {url}: {e}. If the address is right, the server may not allow web pages to read it (CORS), or its origin is not in this page's connect-src (README, “Custom base URL”); download the file and load it from disk instead."
            ))),
            Ok(bytes) => {
                ws.loading.set(Some(format!("Parsing {name} in the background…")));
                let kept: Rc<[u8]> = Rc::from(bytes.as_slice());
                match crate::edge::worker::load_in_worker(name.clone(), bytes, |_| {}).await {
                    Ok(loaded) => {
                        ws.source.set_value(Some((name.clone(), DataSource::Bytes(kept))));
                        ws.open_loaded(loaded);
                    }
                    Err(err) => ws.load_error.set(Some(format!("Could not load {name}: {err}"))),
                }
            }
        }
        ws.loading.set(None);
    });
}

#[component]
fn LoadPanel() -> impl IntoView {
    let ws = use_workspace();
    let targets = crate::bundle::BundleTargets::from_context();
    let url = RwSignal::new(String::new());
    let dragging = RwSignal::new(false);
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        if let Some(file) = input.files().and_then(|files| files.get(0)) {
            open_file(file);
        }
        // Picking the same file again must load it again.
        input.set_value("");
    };
    let on_drop = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(false);
        let file = ev.data_transfer().and_then(|dt| dt.files()).and_then(|files| files.get(0));
        if let Some(file) = file {
            open_file(file);
        }
    };
    let on_drag_over = move |ev: DragEvent| {
        ev.prevent_default();
        dragging.set(true);
    };
    view! {
        <section class="panel" aria-labelledby="load-heading">
            <h2 id="load-heading">"Load a dataset"</h2>
            <p class="muted">
                "CSV, TSV, JSON or JSON Lines: SummEval, Topical-Chat, the released judge outputs of "
                "the papers, MT-bench and LLMBar pairs, CoEval files, or any table with a column mapping. "
                "Files are read in your browser; nothing is uploaded."
            </p>
            <div
                class="dropzone"
                class:active=move || dragging.get()
                on:dragover=on_drag_over
                on:dragleave=move |_| dragging.set(false)
                on:drop=on_drop
            >
                <div class="row">
                    <label for="dataset-file">"Load a dataset file"</label>
                    <input id="dataset-file" type="file"
                        accept=".csv,.tsv,.json,.jsonl,.txt,text/csv,application/json"
                        on:change=on_pick/>
                    <span class="muted">"or drop a file here"</span>
                    <button class="secondary" type="button"
                        on:click=move |_| {
                            ws.source.set_value(Some(example_source()));
                            ws.dataset.set(OpenDataset::example());
                            ws.load_error.set(None);
                        }>
                        "Use the built-in example"
                    </button>
                    <button class="primary" type="button"
                        on:click=move |_| {
                            leptos::task::spawn_local(async move {
                                crate::bundle::open_bundle_url(targets, DEMO_BUNDLE).await;
                            });
                        }>
                        "Open the demo"
                    </button>
                </div>
            </div>
            <div class="row">
                <label for="dataset-url">"Dataset URL"</label>
                <input id="dataset-url" type="url" size="60" placeholder="https://…/data.json" prop:value=move || url.get()
                    on:input=move |ev| url.set(event_target_value(&ev))/>
                <button class="secondary" type="button" disabled=move || url.get().trim().is_empty()
                    on:click=move |_| open_url(ws, url.get_untracked().trim().to_owned())>"Load from URL"</button>
            </div>
            <div class="row">
                <span class="muted">"Presets (downloaded when online):"</span>
                {PRESETS.into_iter().map(|(label, href)| view! {
                    <button class="secondary" type="button" on:click=move |_| open_url(ws, href.to_owned())>{label}</button>
                }).collect_view()}
            </div>
            <Show when=move || ws.loading.get().is_some()>
                <p role="status" data-testid="loading">
                    {move || ws.loading.get().unwrap_or_default()}
                </p>
            </Show>
            <Show when=move || ws.load_error.get().is_some()>
                <p class="error-box" role="alert" data-testid="load-error">
                    {move || ws.load_error.get().unwrap_or_default()}
                </p>
            </Show>
        </section>
    }
}

#[component]
fn SummaryPanel() -> impl IntoView {
    let ws = use_workspace();
    let view = move || ws.dataset.get().view;
    let stat = move |label: &'static str, testid: &'static str, value: Signal<usize>| {
        view! {
            <li>
                <span class="value" data-testid=testid>{move || value.get()}</span>
                <span class="label">{label}</span>
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
                {stat("items", "item-count", Signal::derive(move || view().items))}
                {stat("documents", "document-count", Signal::derive(move || view().documents))}
                {stat("systems", "system-count", Signal::derive(move || view().systems))}
                {stat("pairs", "pair-count", Signal::derive(move || view().pairs))}
                {stat("raters", "rater-count", Signal::derive(move || view().raters))}
                {stat("judge responses", "judge-record-count", Signal::derive(move || view().judge_records))}
            </ul>
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

/// Reads the open dataset's file again, in the worker, with `mapping` (`None`: the guess),
/// and opens the result; `message` gets what happened.
fn reread(
    ws: Workspace,
    mapping: Option<ColumnMapping>,
    message: RwSignal<Option<(bool, String)>>,
) {
    let open_name = ws.dataset.with_untracked(|d| d.loaded.dataset.name.clone());
    let source = ws.source.get_value().filter(|(name, _)| *name == open_name);
    let Some((name, source)) = source else {
        message.set(Some((
            false,
            "The file of this dataset is no longer at hand: load it again to change its mapping."
                .into(),
        )));
        return;
    };
    let what =
        if mapping.is_some() { "with the edited mapping" } else { "with the guessed mapping" };
    ws.loading.set(Some(format!("Reading {name} again {what}…")));
    message.set(None);
    spawn_local(async move {
        let result = match source {
            DataSource::File(file) => {
                match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => {
                        let buffer = buffer.unchecked_into::<js_sys::ArrayBuffer>();
                        load_buffer_with_mapping_in_worker(name.clone(), buffer, mapping, |_| {})
                            .await
                            .map_err(|e| e.to_string())
                    }
                    Err(e) => Err(format!(
                        "the browser could not read it again ({e:?}); if it changed on disk, load it again"
                    )),
                }
            }
            DataSource::Bytes(bytes) => {
                load_with_mapping_in_worker(name.clone(), bytes.to_vec(), mapping, |_| {})
                    .await
                    .map_err(|e| e.to_string())
            }
        };
        match result {
            Ok(loaded) => {
                let counts = &loaded.summary.counts;
                let attributes: Vec<&str> =
                    loaded.summary.attributes.iter().map(|a| a.name.as_str()).collect();
                let text = format!(
                    "Read {name} again {what}: {} items, {} raters, attributes: {}.",
                    counts.items,
                    counts.raters,
                    if attributes.is_empty() { "none".to_owned() } else { attributes.join(", ") }
                );
                ws.open_loaded(loaded);
                message.try_set(Some((true, text)));
            }
            Err(e) => {
                message.try_set(Some((false, format!("Could not read {name} {what}: {e}"))));
            }
        }
        ws.loading.set(None);
    });
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
