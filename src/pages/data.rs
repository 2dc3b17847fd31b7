//! The Data screen: load a dataset (file picker, drag-and-drop, the built-in example), see its
//! counts, attributes, diagnostics and a preview.

use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::{DragEvent, File, HtmlInputElement};

use wasm_bindgen::JsCast;

use crate::edge::worker::{LoadStage, load_buffer_in_worker};
use crate::state::{OpenDataset, Workspace, use_workspace};

/// A recorded run on the built-in example (no key needed), served beside the app.
pub const DEMO_BUNDLE: &str = "demo/example-bundle.json";

#[component]
pub fn DataPage() -> impl IntoView {
    view! {
        <LoadPanel/>
        <SummaryPanel/>
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
            Ok(loaded) => ws.open_loaded(loaded),
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
                match crate::edge::worker::load_in_worker(name.clone(), bytes, |_| {}).await {
                    Ok(loaded) => ws.open_loaded(loaded),
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
    let wb = crate::state::use_workbench();
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
                            ws.dataset.set(OpenDataset::example());
                            ws.load_error.set(None);
                        }>
                        "Use the built-in example"
                    </button>
                    <button class="primary" type="button"
                        on:click=move |_| {
                            leptos::task::spawn_local(async move {
                                crate::pages::results::open_bundle_url(wb, ws, DEMO_BUNDLE).await;
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
    let preview = move || ws.dataset.get().view.preview.clone();
    view! {
        <section class="panel" aria-labelledby="preview-heading">
            <h2 id="preview-heading">"Preview"</h2>
            {move || {
                let preview = preview();
                if preview.rows.is_empty() {
                    return view! { <p class="muted">"This file has no rated items or pairs to preview."</p> }
                        .into_any();
                }
                let hidden = preview.hidden_rows;
                let numeric: Vec<bool> = preview.columns.iter().map(|c| c.numeric).collect();
                view! {
                    <div class="table-wrap">
                        <table class="data" data-testid="preview">
                            <thead>
                                <tr>
                                    {preview
                                        .columns
                                        .iter()
                                        .map(|c| {
                                            let class = if c.numeric { "num" } else { "" };
                                            view! { <th scope="col" class=class>{c.title.clone()}</th> }
                                        })
                                        .collect_view()}
                                </tr>
                            </thead>
                            <tbody>
                                {preview
                                    .rows
                                    .into_iter()
                                    .map(|row| {
                                        let cells = row
                                            .into_iter()
                                            .zip(numeric.iter().copied())
                                            .map(|(cell, num)| {
                                                let class = if num { "num" } else { "text" };
                                                view! { <td class=class>{cell}</td> }
                                            })
                                            .collect_view();
                                        view! { <tr>{cells}</tr> }
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                    </div>
                    <Show when=move || { hidden > 0 }>
                        <p class="muted">{format!("… and {hidden} more rows")}</p>
                    </Show>
                }
                    .into_any()
            }}
        </section>
    }
}
