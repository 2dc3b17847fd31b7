//! The Data screen's Workspace panel: the open workspace's name, the saved ones to switch to,
//! Duplicate, Clear, Export and Open, each done by [`crate::persist::workspaces`].

use concord_core::workspace;
use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::components::download::save_buffer;
use crate::persist::bundle::{BundleFailure, BundleTargets, open_bundle, save_bundle};
use crate::persist::workspaces::{duplicate, fork, reset_workbench, switch};

/// The Data screen's Workspace panel.
#[component]
pub fn WorkspacePanel() -> impl IntoView {
    let t = BundleTargets::from_context();
    let w = t.saved;
    let busy = RwSignal::new(false);
    let running = move || t.run.view.with(|v| v.running);
    let act = move |job: std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>| {
        busy.set(true);
        spawn_local(async move {
            job.await;
            busy.try_set(false);
        });
    };
    let clear = move |_| {
        let asked = window().confirm_with_message(
            "Clear this workspace? Its dataset, study, runs, ratings and Results view go back to the built-in example (provider settings stay). Export it first to keep a copy.",
        );
        if asked.unwrap_or(false) {
            reset_workbench(t);
            w.message.set(Some((true, "The workspace is back to the built-in example.".into())));
        }
    };
    let export = move |_| {
        act(Box::pin(async move {
            let outcome =
                save_bundle(t).await.map_err(|e| e.to_string()).and_then(|(name, json)| {
                    save_buffer(&name, "application/json", &json).map_err(|e| e.to_string())
                });
            if let Err(e) = outcome {
                w.message.try_set(Some((false, format!("The bundle could not be written: {e}"))));
            }
        }));
    };
    let on_open = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        act(Box::pin(async move {
            let name = file.name();
            let bytes = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => Uint8Array::new(&buffer),
                Err(e) => {
                    let why = crate::edge::js::error_message(&e);
                    let e = BundleFailure::Read { name: name.clone(), why };
                    w.message.try_set(Some((false, e.to_string())));
                    return;
                }
            };
            let (id, before) = (w.id.get_untracked(), w.name.get_untracked());
            fork(t, w, &name).await;
            match open_bundle(t, bytes, &name).await {
                Ok(()) => {
                    let said = format!(
                        "Opened {name} as “{}”; “{before}” is kept.",
                        w.name.get_untracked()
                    );
                    w.message.try_set(Some((true, said)));
                }
                Err(e) => {
                    // Nothing was opened: the workspace that was open stays open.
                    w.id.set(id);
                    w.name.set(before);
                    w.message.try_set(Some((false, e.to_string())));
                }
            }
        }));
    };
    view! {
        <section class="panel" aria-labelledby="workspace-heading" data-testid="workspace-panel">
            <h2 id="workspace-heading">"Workspace"</h2>
            <p class="muted">
                "The dataset, the study, the runs, your ratings, the Results view and the provider settings are saved in this browser as you work and come back when you reload. "
                "The API key is not saved unless you tick “Remember on this device” on the Run screen."
            </p>
            <div class="row">
                <label for="workspace-name">"Name"</label>
                <input id="workspace-name" type="text" maxlength="80"
                    prop:value=move || w.name.get()
                    on:change=move |ev| w.name.set(workspace::clean_name(&event_target_value(&ev)))/>
                <Show when=move || w.list.with(|l| l.len() > 1)>
                    <label for="workspace-switch">"Saved workspaces"</label>
                    <select id="workspace-switch" disabled=move || busy.get() || running()
                        on:change=move |ev| {
                            let id = event_target_value(&ev);
                            act(Box::pin(switch(t, w, id)));
                        }>
                        {move || {
                            let current = w.id.get();
                            w.list
                                .get()
                                .into_iter()
                                .map(|(id, name)| {
                                    let selected = id == current;
                                    view! { <option value=id selected=selected>{name}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                </Show>
            </div>
            <div class="row">
                <button type="button" class="secondary" disabled=move || busy.get() || running()
                    on:click=move |_| act(Box::pin(duplicate(t, w)))>"Duplicate"</button>
                <button type="button" class="secondary" disabled=move || busy.get() || running()
                    on:click=clear>"Clear"</button>
                <button type="button" class="secondary" disabled=move || busy.get() on:click=export>"Export"</button>
                <label for="workspace-open">"Open a bundle as a new workspace"</label>
                <input id="workspace-open" type="file" accept=".json,application/json"
                    disabled=move || busy.get() || running() on:change=on_open/>
            </div>
            {move || w.message.get().map(|(ok, text)| view! {
                <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="workspace-message">{text}</p>
            })}
        </section>
    }
}
