//! Many annotators: export this annotator's work (`concord-coeval-annotations`, the whole
//! event log), import many files as a coordinator, see every conflict (the same annotator's
//! same key set differently by two files: nothing is dropped silently) and the merged state,
//! and export the merge (`concord-coeval-classroom`).

use concord_core::coeval::AnnotatorFile;
use concord_core::study::coeval::merge_tables;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use super::common::{CoEvalTable, use_ctx};
use super::state::CoEvalError;
use super::tasks;
use crate::components::download::save_text;

#[component]
pub fn ExchangePanel() -> impl IntoView {
    let ctx = use_ctx();
    let import_errors = RwSignal::new(Vec::<String>::new());
    let save_json = move |name: String, value: Result<String, serde_json::Error>| match value {
        Ok(json) => {
            if let Err(e) = save_text(&name, "application/json", &json) {
                ctx.fail(e);
            }
        }
        Err(e) => ctx.fail(e),
    };
    let export_mine = move |_| {
        let (Some(study), name) = (ctx.study.get_untracked(), ctx.annotator.get_untracked()) else {
            ctx.fail(CoEvalError::NoStudy);
            return;
        };
        if name.is_empty() {
            ctx.fail(CoEvalError::NoAnnotator);
            return;
        }
        let log = ctx.logs.with_untracked(|m| m.get(&name).cloned().unwrap_or_default());
        let file = AnnotatorFile::new(&name, &study.task, &log);
        save_json(
            format!("coeval-{}-{name}.json", study.task),
            serde_json::to_string_pretty(&file),
        );
    };
    let on_import = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        spawn_local(tasks::import_annotator_files(ctx, files, import_errors));
    };
    let export_merge = move |_| match ctx.merged_untracked() {
        Ok((m, _)) => {
            let task = ctx.study.get_untracked().map(|s| s.task.clone()).unwrap_or_default();
            save_json(
                format!("coeval-{task}-merged.json"),
                serde_json::to_string_pretty(&m.export()),
            );
        }
        Err(e) => ctx.fail(e),
    };
    view! {
        <section class="panel" aria-labelledby="coeval-export-heading">
            <h2 id="coeval-export-heading">"Export your work"</h2>
            <p class="muted">"One file with your whole action log (format concord-coeval-annotations, version 1): hand it to the coordinator."</p>
            <button class="primary" type="button" on:click=export_mine>"Export my annotations"</button>
        </section>
        <section class="panel" aria-labelledby="coeval-import-heading">
            <h2 id="coeval-import-heading">"Coordinator: import and merge"</h2>
            <div class="row">
                <label for="coeval-import-files">"Import annotator files"</label>
                <input id="coeval-import-files" type="file" multiple accept=".json,application/json" on:change=on_import/>
                <button class="secondary" type="button" on:click=move |_| tasks::forget_imported(ctx, import_errors)>"Forget imported files"</button>
                <button class="primary" type="button" on:click=export_merge>"Export merged annotations"</button>
            </div>
            <ul class="diagnostics" data-testid="import-errors">
                {move || import_errors.get().into_iter().map(|e| view! { <li class="error">{e}</li> }).collect_view()}
            </ul>
            <p class="muted" data-testid="imported-count">{move || format!("{} annotator files imported", ctx.imported.get().len())}</p>
            {move || match ctx.merged() {
                Err(e) => view! { <p class="error-box" role="alert">{e.to_string()}</p> }.into_any(),
                Ok((m, sources)) => {
                    let (who, conflicts) = merge_tables(&m, &sources);
                    view! {
                        <h3>"Merged annotators"</h3>
                        <CoEvalTable table=who testid="merged-annotators" caption=false exports=false/>
                        <h3>{conflicts.title.clone()}</h3>
                        <p class="muted">"The same annotator's same decision set differently by two files: the later file wins; both values are listed, and both files stay imported."</p>
                        <CoEvalTable table=conflicts testid="conflicts" caption=false exports=false/>
                    }.into_any()
                }
            }}
        </section>
    }
}
