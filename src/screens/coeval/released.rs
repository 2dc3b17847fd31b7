//! Seed 004's released files (`*_action.json`, `*annotator_scores.json`, the session logs
//! `A01.json`…`A15.json`, `combine_data.json`…) recomputed in the browser with the same code as
//! `concord coeval`: the tables of [`ReleasedView::report`] in the paper's layout (Table 6,
//! Figure 3's block, every task's α matrix and score distribution with their heatmaps, every
//! pairwise α, Table 7) and the notes on the data's traps. "Download report (JSON)" writes
//! exactly what `concord coeval --format json` prints.

use concord_core::study::coeval::ReleasedView;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use super::common::{ReportView, use_ctx};
use super::results::LevelSelect;
use super::tasks;
use crate::components::download::save_text;

/// The test id of a released table: `coeval-released-table6` → `released-table6`,
/// `coeval-alpha-eli5` → `released-alpha-eli5`.
fn testid(id: &str) -> String {
    let id = id.strip_prefix("coeval-").unwrap_or(id);
    format!("released-{}", id.strip_prefix("released-").unwrap_or(id))
}

#[component]
pub fn ReleasedPanel() -> impl IntoView {
    let ctx = use_ctx();
    let released = ctx.released;
    // Computed again on every import and level switch, a task at a time.
    Effect::new(move |_| {
        released.version.track();
        ctx.level.track();
        spawn_local(tasks::compute_released(ctx));
    });
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        spawn_local(tasks::import_released(ctx, files));
    };
    let download = move |_| {
        let Some(v) = released.view.get_untracked() else { return };
        match serde_json::to_string_pretty(&v.report) {
            Ok(json) => {
                if let Err(e) = save_text("coeval-report.json", "application/json", &json) {
                    ctx.fail(e);
                }
            }
            Err(e) => ctx.fail(e),
        }
    };
    view! {
        <section class="panel" aria-labelledby="coeval-released-heading">
            <h2 id="coeval-released-heading">"CoEval's released files"</h2>
            <p class="muted">
                "Pick CoEval's released files (or a folder of them): *_action.json, *annotator_scores.json, "
                "the session logs A01.json … A15.json. The numbers are those of "
                <code>"concord coeval PATH --format json"</code> "; the tables those of "
                <code>"--format md"</code> "."
            </p>
            <div class="row">
                <label for="coeval-released-files">"Released CoEval files"</label>
                <input id="coeval-released-files" type="file" multiple accept=".json,application/json" on:change=on_pick/>
                <LevelSelect id="coeval-released-level"/>
                <button class="secondary" type="button" on:click=download disabled=move || released.view.get().is_none()>"Download report (JSON)"</button>
            </div>
            <Show when=move || released.busy.get().is_some()>
                <p role="status" data-testid="released-busy">{move || released.busy.get().unwrap_or_default()}</p>
            </Show>
            <ul class="diagnostics" data-testid="released-problems">
                {move || released.problems.get().into_iter().map(|e| view! { <li class="warning">{e}</li> }).collect_view()}
            </ul>
        </section>
        {move || released.view.get().map(|v: std::sync::Arc<ReleasedView>| {
            view! {
                <section class="panel" aria-labelledby="coeval-released-results" data-testid="released-results">
                    <h2 id="coeval-released-results">"Recomputed"</h2>
                    {v.group1_text().map(|t| view! { <p data-testid="released-group1">{t}</p> })}
                    <ReportView report=v.report() testid=testid/>
                    <h3>"Notes on the data"</h3>
                    <ul data-testid="released-notes">{v.report.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
                </section>
            }
        })}
    }
}
