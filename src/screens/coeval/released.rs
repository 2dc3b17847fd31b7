//! Seed 004's released files (`*_action.json`, `*annotator_scores.json`, the session logs
//! `A01.json`…`A15.json`, `combine_data.json`…) recomputed in the browser with the same code as
//! `concord coeval`: Table 6 rows, the α matrices (Figure 3 is the ROCStories A08–A10 block)
//! and the notes on the data's traps. "Download report (JSON)" writes exactly what
//! `concord coeval --format json` prints.

use std::sync::Arc;

use concord_core::coeval::Reproduction;
use concord_core::coeval::released::ReleasedError;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::model::{ReleasedView, alpha_heatmap};
use super::results::{AlphaMatrix, LevelSelect};
use super::{PlotView, TableView, use_ctx};
use crate::browser::read_file;
use crate::components::download::save_text;
use crate::edge::time::yield_now;
use crate::edge::worker::load_buffer_in_worker;

/// Files at least this big are parsed in a Web Worker (a 3 MB session log takes well over
/// 100 ms to parse on the page's thread).
const IN_WORKER_FROM_BYTES: f64 = 256.0 * 1024.0;

#[component]
pub fn ReleasedPanel() -> impl IntoView {
    let ctx = use_ctx();
    let reproduction = StoredValue::new_local(None::<Reproduction>);
    let version = RwSignal::new(0u32);
    let busy = RwSignal::new(None::<String>);
    let problems = RwSignal::new(Vec::<String>::new());
    // The view is computed one task at a time, yielding to the browser between tasks, so a
    // big import or a level switch never blocks the page for long; a newer request (another
    // import, another level) makes an older computation stop.
    let view_model = RwSignal::new(None::<Arc<ReleasedView>>);
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        version.track();
        let level = ctx.level.get();
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        let current = move || generation.try_get_value() == Some(mine);
        spawn_local(async move {
            let Some(tasks) =
                reproduction.try_with_value(|r| r.as_ref().map(|r| r.task_names())).flatten()
            else {
                return;
            };
            let Some(mut report) =
                reproduction.try_with_value(|r| r.as_ref().map(|r| r.report_start())).flatten()
            else {
                return;
            };
            for task in tasks {
                yield_now().await;
                if !current() {
                    return;
                }
                let Some(part) = reproduction
                    .try_with_value(|r| r.as_ref().map(|r| r.report_task(task, level)))
                    .flatten()
                else {
                    return;
                };
                report.extend(part);
            }
            yield_now().await;
            if !current() {
                return;
            }
            let view = reproduction
                .try_with_value(|r| {
                    r.as_ref().map(|r| Arc::new(ReleasedView::from_report(r, report, level)))
                })
                .flatten();
            view_model.try_set(view);
        });
    });
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        spawn_local(async move {
            let mut r = Reproduction::new();
            let mut errors = Vec::new();
            let n = files.len();
            for (k, file) in files.into_iter().enumerate() {
                // A folder pick keeps the released folder names (ELI5/, ROCStories/…), which
                // tell the task of files without a task prefix.
                let relative = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                    .ok()
                    .and_then(|v| v.as_string())
                    .filter(|p| !p.is_empty());
                let path = relative.unwrap_or_else(|| file.name());
                busy.try_set(Some(format!("Reading {path} ({} of {n})…", k + 1)));
                yield_now().await;
                // Big files (the session logs are about 3 MB each) are parsed in the loader's
                // Web Worker, so the page keeps responding; small ones here.
                if Reproduction::reads_with_loader(&path) && file.size() > IN_WORKER_FROM_BYTES {
                    let buffer =
                        match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                            Ok(b) => b.unchecked_into::<js_sys::ArrayBuffer>(),
                            Err(e) => {
                                errors.push(format!("the browser could not read {path}: {e:?}"));
                                continue;
                            }
                        };
                    busy.try_set(Some(format!(
                        "Parsing {path} in the background ({} of {n})…",
                        k + 1
                    )));
                    match load_buffer_in_worker(path.clone(), buffer, |_| {}).await {
                        Ok(loaded) => {
                            if let Err(e) = r.add_loaded(&path, &loaded) {
                                errors.push(e.to_string());
                            }
                        }
                        Err(message) => {
                            errors.push(
                                ReleasedError::Load {
                                    file: path.clone(),
                                    message: message.to_string(),
                                }
                                .to_string(),
                            );
                        }
                    }
                    continue;
                }
                match read_file(&file).await {
                    Ok(bytes) => {
                        if let Err(e) = r.add(&path, &bytes) {
                            errors.push(e.to_string());
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
            errors.extend(r.diagnostics.iter().map(ToString::to_string));
            busy.try_set(Some("Computing…".to_owned()));
            yield_now().await;
            if reproduction.try_set_value(Some(r)).is_some() {
                return; // the panel is gone
            }
            problems.try_set(errors);
            version.try_update(|v| *v += 1);
            busy.try_set(None);
        });
    };
    let download = move |_| {
        let Some(v) = view_model.get_untracked() else { return };
        match serde_json::to_string_pretty(&v.report) {
            Ok(json) => {
                if let Err(e) = save_text("coeval-report.json", "application/json", &json) {
                    ctx.error.set(Some(e));
                }
            }
            Err(e) => ctx.error.set(Some(e.to_string())),
        }
    };
    view! {
        <section class="panel" aria-labelledby="coeval-released-heading">
            <h2 id="coeval-released-heading">"Seed 004's released files"</h2>
            <p class="muted">
                "Pick CoEval's released files (or a folder of them): *_action.json, *annotator_scores.json, "
                "the session logs A01.json … A15.json. The numbers are those of "
                <code>"concord coeval PATH --format json"</code> "."
            </p>
            <div class="row">
                <label for="coeval-released-files">"Released CoEval files"</label>
                <input id="coeval-released-files" type="file" multiple accept=".json,application/json" on:change=on_pick/>
                <LevelSelect id="coeval-released-level"/>
                <button class="secondary" type="button" on:click=download disabled=move || view_model.get().is_none()>"Download report (JSON)"</button>
            </div>
            <Show when=move || busy.get().is_some()>
                <p role="status" data-testid="released-busy">{move || busy.get().unwrap_or_default()}</p>
            </Show>
            <ul class="diagnostics" data-testid="released-problems">
                {move || problems.get().into_iter().map(|e| view! { <li class="warning">{e}</li> }).collect_view()}
            </ul>
        </section>
        {move || view_model.get().map(|v| {
            let rows: Vec<Vec<String>> = v.report.alpha.iter().map(|a| vec![
                a.task.clone(), a.pair.a.clone(), a.pair.b.clone(), a.pair.level.clone(),
                a.pair.alpha.map_or_else(|| "–".to_owned(), |x| format!("{x:.4}")), a.pair.n_units.to_string(),
            ]).collect();
            let pairs = super::model::Table {
                title: "Pairwise α (all tasks)".to_owned(),
                headers: ["task", "a", "b", "level", "alpha", "units"].map(str::to_owned).to_vec(),
                rows,
            };
            view! {
                <section class="panel" aria-labelledby="coeval-released-results" data-testid="released-results">
                    <h2 id="coeval-released-results">"Recomputed"</h2>
                    {v.table6.iter().enumerate().map(|(i, t)| view! {
                        <TableView table=t.clone() testid=format!("released-table6-{}", v.report.tasks[i].task) file=format!("coeval-table6-{}", v.report.tasks[i].task)/>
                    }).collect_view()}
                    {v.figure3.clone().map(|(t, mean)| view! {
                        <TableView table=t testid="released-figure3" file="coeval-figure3"/>
                        <p data-testid="released-group1">{format!("Group 1 α (mean of ChatGPT–A08, –A09, –A10): {}", mean.map_or_else(|| "–".to_owned(), |m| format!("{m:.4}")))}</p>
                    })}
                    {v.matrices.iter().map(|m| {
                        let task = &m.task;
                        let map = alpha_heatmap(&format!("Krippendorff's α, {task}"), &m.raters, &m.matrix);
                        view! {
                            <h3>{format!("α matrix, {task}")}</h3>
                            <AlphaMatrix raters=m.raters.clone() matrix=m.matrix.clone() testid=format!("released-alpha-{task}")/>
                            <PlotView map=map label=format!("α heatmap {task}") file=format!("coeval-alpha-{task}")/>
                        }
                    }).collect_view()}
                    <TableView table=pairs testid="released-pairs" file="coeval-alpha-pairs"/>
                    <h3>"Minutes per sample (session-log stamps; not the paper's Table 7 measure)"</h3>
                    <ul>{v.minutes.iter().map(|(t, m)| view! { <li>{format!("{t}: {m:.2}")}</li> }).collect_view()}</ul>
                    <h3>"Notes on the data"</h3>
                    <ul data-testid="released-notes">{v.report.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
                </section>
            }
        })}
    }
}
