//! Many annotators: export this annotator's work (`concord-coeval-annotations`, the whole
//! event log), import many files as a coordinator, see every conflict (the same annotator's
//! same key set differently by two files: nothing is dropped silently) and the merged state,
//! and export the merge (`concord-coeval-classroom`).

use concord_core::coeval::{self, AnnotatorFile};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use super::{Ctx, IMPORTED_PREFIX, use_ctx};
use crate::browser::read_file;
use crate::components::download::save_text;
use crate::edge::store::StoreName;

/// Forgets the imported annotator files, here and in this browser's storage.
/// Every stored entry under the prefix goes, also those that could not be read back.
fn forget_imported(ctx: Ctx, import_errors: RwSignal<Vec<String>>) {
    ctx.imported.set(Vec::new());
    import_errors.set(Vec::new());
    if let Some(db) = ctx.store.get_untracked() {
        // Counted like every write, so "All actions saved" waits for it.
        ctx.pending.update(|n| *n += 1);
        spawn_local(async move {
            let forgotten = async {
                for key in db.keys_with_prefix(StoreName::Settings, IMPORTED_PREFIX).await? {
                    db.delete(StoreName::Settings, &key).await?;
                }
                Ok::<(), crate::edge::store::StoreError>(())
            };
            if let Err(e) = forgotten.await {
                ctx.error.try_set(Some(format!(
                    "the imported files could not be removed from this browser's storage: {e}"
                )));
            }
            ctx.pending.try_update(|n| *n = n.saturating_sub(1));
        });
    }
}

#[component]
pub fn ExchangePanel() -> impl IntoView {
    let ctx = use_ctx();
    let import_errors = RwSignal::new(Vec::<String>::new());
    let export_mine = move |_| {
        let (Some(study), name) = (ctx.study.get_untracked(), ctx.annotator.get_untracked()) else {
            ctx.error.set(Some("set up a task first".to_owned()));
            return;
        };
        if name.is_empty() {
            ctx.error.set(Some("enter your name (annotator) first".to_owned()));
            return;
        }
        let log = ctx.logs.with_untracked(|m| m.get(&name).cloned().unwrap_or_default());
        let file = AnnotatorFile::new(&name, &study.task, &log);
        match serde_json::to_string_pretty(&file) {
            Ok(json) => {
                if let Err(e) = save_text(
                    &format!("coeval-{}-{name}.json", study.task),
                    "application/json",
                    &json,
                ) {
                    ctx.error.set(Some(e));
                }
            }
            Err(e) => ctx.error.set(Some(e.to_string())),
        }
    };
    let on_import = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        spawn_local(async move {
            let mut errors = Vec::new();
            let mut added = Vec::new();
            for file in files {
                let name = file.name();
                match read_file(&file).await {
                    Ok(bytes) => match coeval::import(&bytes) {
                        Ok(list) => added.extend(list.into_iter().map(|f| (name.clone(), f))),
                        Err(e) => errors.push(format!("{name}: {e}")),
                    },
                    Err(e) => errors.push(e),
                }
            }
            let task =
                ctx.study.try_get_untracked().flatten().map(|s| s.task.clone()).unwrap_or_default();
            for (name, f) in &added {
                if f.task != task {
                    errors.push(format!(
                        "{name}: annotator {} worked on task `{}`, not the current task `{task}`; kept but not merged",
                        f.annotator, f.task
                    ));
                }
            }
            import_errors.try_set(errors);
            // Kept in this browser as imported, so a reload does not ask for them again.
            let entries: Vec<(String, String)> = added
                .iter()
                .filter_map(|(name, f)| {
                    serde_json::to_string(f)
                        .ok()
                        .map(|json| (format!("{IMPORTED_PREFIX}{name}"), json))
                })
                .collect();
            ctx.write(StoreName::Settings, entries);
            ctx.imported.try_update(|v| {
                // A file imported again replaces its earlier copy.
                v.retain(|(name, _)| !added.iter().any(|(n, _)| n == name));
                v.extend(added);
            });
        });
    };
    let merged = move || ctx.merged();
    let export_merge = move |_| match ctx.merged_untracked() {
        Ok((m, _)) => {
            let task = ctx.study.get_untracked().map(|s| s.task.clone()).unwrap_or_default();
            match serde_json::to_string_pretty(&m.export()) {
                Ok(json) => {
                    if let Err(e) =
                        save_text(&format!("coeval-{task}-merged.json"), "application/json", &json)
                    {
                        ctx.error.set(Some(e));
                    }
                }
                Err(e) => ctx.error.set(Some(e.to_string())),
            }
        }
        Err(e) => ctx.error.set(Some(e)),
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
                <button class="secondary" type="button" on:click=move |_| forget_imported(ctx, import_errors)>"Forget imported files"</button>
                <button class="primary" type="button" on:click=export_merge>"Export merged annotations"</button>
            </div>
            <ul class="diagnostics" data-testid="import-errors">
                {move || import_errors.get().into_iter().map(|e| view! { <li class="error">{e}</li> }).collect_view()}
            </ul>
            <p class="muted" data-testid="imported-count">{move || format!("{} annotator files imported", ctx.imported.get().len())}</p>
            {move || match merged() {
                Err(e) => view! { <p class="error-box" role="alert">{e}</p> }.into_any(),
                Ok((m, sources)) => {
                    let source = |i: usize| sources.get(i).cloned().unwrap_or_else(|| format!("file {i}"));
                    view! {
                        <h3>"Merged annotators"</h3>
                        <div class="table-wrap">
                            <table class="data" data-testid="merged-annotators">
                                <thead><tr>
                                    <th scope="col">"annotator"</th><th scope="col">"from"</th>
                                    <th scope="col" class="num">"criteria decisions"</th><th scope="col" class="num">"part decisions"</th>
                                    <th scope="col" class="num">"own scores"</th><th scope="col" class="num">"minutes"</th>
                                </tr></thead>
                                <tbody>
                                    {m.annotators.iter().map(|a| {
                                        let parts: usize = a.state.reviews.values().map(|r| r.parts.len()).sum();
                                        let scores = a.state.reviews.values().filter(|r| r.score.is_some()).count();
                                        let minutes = a.state.time_ms.values().sum::<u64>() as f64 / 60_000.0;
                                        let from = a.sources.iter().map(|&i| source(i)).collect::<Vec<_>>().join(", ");
                                        view! { <tr>
                                            <td class="text">{a.annotator.clone()}</td><td class="text">{from}</td>
                                            <td class="num">{a.state.criteria.len()}</td><td class="num">{parts}</td>
                                            <td class="num">{scores}</td><td class="num">{format!("{minutes:.1}")}</td>
                                        </tr> }
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                        <h3>{format!("Conflicts ({})", m.conflicts.len())}</h3>
                        <p class="muted">"The same annotator's same decision set differently by two files: the later file wins; both values are listed, and both files stay imported."</p>
                        <div class="table-wrap">
                            <table class="data" data-testid="conflicts">
                                <thead><tr>
                                    <th scope="col">"annotator"</th><th scope="col">"what"</th>
                                    <th scope="col">"kept"</th><th scope="col">"from"</th>
                                    <th scope="col">"overridden"</th><th scope="col">"from"</th>
                                </tr></thead>
                                <tbody>
                                    {m.conflicts.iter().map(|c| view! { <tr>
                                        <td class="text">{c.annotator.clone()}</td><td class="text">{c.key.clone()}</td>
                                        <td class="text">{c.kept.clone()}</td><td class="text">{source(c.kept_from)}</td>
                                        <td class="text">{c.overridden.clone()}</td><td class="text">{source(c.overridden_from)}</td>
                                    </tr> }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    }.into_any()
                }
            }}
        </section>
    }
}
